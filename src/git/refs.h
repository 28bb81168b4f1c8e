/* Branches and tags of a project's repository (libgit2): listing, lookup, and writes
 * that are compare-and-swap — a ref is created only when absent and deleted only while
 * it still names the commit the caller saw, so two writers at once give one change and
 * one clear failure, never a lost commit. A write made inside the open transaction is
 * undone when it rolls back (db_on_rollback). Strings and arrays returned live in c's
 * arena; git objects returned belong to the caller (git_commit_free). Functions return 0
 * (or a count) or a negative ERR_ code (core/errors.h): ERR_NOT_FOUND, ERR_EXISTS,
 * ERR_BAD_NAME, ERR_MOVED as each says, ERR_INTERNAL for an error (logged). */
#ifndef COLLABD_REFS_H
#define COLLABD_REFS_H

#include <git2.h>
#include <stdbool.h>

#include "auth/scope.h"
#include "core/ctx.h"

/* Opens project_id's repository into *out (repo_open: it belongs to the process's open
 * repositories, not to the caller): 0, or ERR_INTERNAL (logged). A project without a
 * repository on disk (never created) opens as NULL with 0: no refs. */
int refs_open(ctx *c, const char *project_id, git_repository **out);

/* The names of every branch (tag) of repo, sorted by byte order: their number (0 when
 * repo is NULL), or ERR_INTERNAL. */
int refs_branch_names(ctx *c, git_repository *repo, const char ***out);
int refs_tag_names(ctx *c, git_repository *repo, const char ***out);
/* One page of them, as the API lists them: branches (tags false) in byte order, tags in
 * reverse byte order; with search not NULL only the names that contain it, case aside.
 * At most limit names from offset in *out, their number returned, and how many there are
 * in all in *total; or ERR_INTERNAL. */
int refs_page(ctx *c, git_repository *repo, bool tags, const char *search, long long offset,
	      long long limit, const char ***out, int *total);

/* The commit the branch names: 0, ERR_NOT_FOUND, or ERR_INTERNAL. */
int refs_branch_commit(git_repository *repo, const char *name, git_commit **out);
/* The tag: the commit it points to (peeled) and, for an annotated tag, its message
 * without the final newline (NULL for a lightweight tag). 0, ERR_NOT_FOUND, or
 * ERR_INTERNAL. */
int refs_tag_lookup(ctx *c, git_repository *repo, const char *name, git_commit **commit,
		    const char **message);
/* The commit that ref (a branch, a tag, a sha or any rev-parse expression) names: 0,
 * ERR_NOT_FOUND (none, or not a commit). */
int refs_resolve_commit(git_repository *repo, const char *ref, git_commit **out);

/* The default branch: the branch HEAD names and whether it exists, with its commit id in
 * *oid. 0, or ERR_NOT_FOUND when HEAD names no existing branch. */
int refs_head(ctx *c, git_repository *repo, const char **name, git_oid *oid);
/* GitLab's merged_to_root_ref?: the branch's commit differs from the default branch's
 * and is one of its ancestors. */
bool refs_merged(git_repository *repo, const git_oid *branch, const git_oid *head);

/* The names of the branches (tags) of repo whose commit (a tag's peeled) is oid or has
 * it among its ancestors, in byte order, as git branch (tag) --contains: their number,
 * or ERR_INTERNAL. */
int refs_containing(ctx *c, git_repository *repo, bool tags, const git_oid *oid, const char ***out);

/* Creates branch name at target: 0, ERR_EXISTS when it exists (or another writer holds
 * it), ERR_BAD_NAME when it collides with the path of another ref (a/b beside a), or
 * ERR_INTERNAL. */
int refs_branch_create(ctx *c, git_repository *repo, const char *name, const git_oid *target);
/* Moves branch name from expected to target (compare-and-swap): 0, ERR_MOVED when it no
 * longer names expected (or is gone, or another writer holds it), or ERR_INTERNAL. */
int refs_branch_update(ctx *c, git_repository *repo, const char *name, const git_oid *target,
		       const git_oid *expected);
/* Deletes branch name while it names expected: 0, ERR_NOT_FOUND, ERR_MOVED (moved
 * meanwhile, or another writer holds it), or ERR_INTERNAL. */
int refs_branch_delete(ctx *c, git_repository *repo, const char *name, const git_oid *expected);
/* Creates tag name on target, annotated with message by tagger when message is not
 * NULL, else lightweight: 0, ERR_EXISTS, ERR_BAD_NAME (as refs_branch_create), or
 * ERR_INTERNAL. */
int refs_tag_create(ctx *c, git_repository *repo, const char *name, const git_commit *target,
		    const char *message, const char *tagger_name, const char *tagger_email);
/* Deletes tag name: 0, ERR_NOT_FOUND, ERR_MOVED, or ERR_INTERNAL. */
int refs_tag_delete(ctx *c, git_repository *repo, const char *name);

/* The job of DELETE /projects/:id/repository/merged_branches (background process):
 * deletes the branches merged into the default branch, except the default branch and the
 * protected ones (db/repos.h), each while it still
 * names the commit that was found merged. 0, or an ERR_ code with *why saying what
 * failed. */
int refs_delete_merged(ctx *c, const char *project_id, const char **why);

/* A PostgreSQL text[] literal of names[0..n), in c's arena. */
const char *refs_text_array(ctx *c, const char *const *names, int n);

#endif
