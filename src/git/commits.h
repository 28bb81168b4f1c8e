/* Repository content with libgit2: commits (read, log, create with actions, cherry-pick),
 * diffs, trees, blobs and comparisons, as GitLab 10's repository API shows them. Every
 * git object these functions hand out lives until c's arena is reset (registered there);
 * the JSON objects are new references the caller owns. Branch updates are
 * compare-and-swap on the ref: two writers from one base give one commit and one
 * ERR_MOVED, never a lost commit. Functions return 0 or a negative ERR_ code
 * (core/errors.h): ERR_NOT_FOUND (no such ref, commit, path or blob), ERR_MOVED (the
 * branch moved while the commit was made), ERR_REFUSED (a refusal GitLab words: *msg says
 * it), ERR_INTERNAL (an error, logged). */
#ifndef COLLABD_GIT_COMMITS_H
#define COLLABD_GIT_COMMITS_H

#include <git2.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/ctx.h"

/* Opens project_id's repository (repo_open: valid until c's arena is reset, not the
 * caller's to free). 0, ERR_NOT_FOUND when there is none on disk, ERR_INTERNAL. */
int gitc_open(ctx *c, const char *project_id, git_repository **out);
/* The commit that ref names: a branch, a tag, or a (possibly abbreviated) hash; NULL or ""
 * is HEAD. 0, ERR_NOT_FOUND, or ERR_INTERNAL. */
int gitc_commit_of(ctx *c, git_repository *repo, const char *ref, git_commit **out);
/* The commit of a full id (40 hex digits), as git and libgit2's rev-parse take one: an
 * object name before any ref of that name, so no ref is looked up. 0, ERR_NOT_FOUND. */
int gitc_commit_by_id(ctx *c, git_repository *repo, const char *sha, git_commit **out);
/* Whether refs/heads/<branch> exists (out: its commit id). */
bool gitc_branch_exists(git_repository *repo, const char *branch, git_oid *out);
/* Whether the repository has no branch at all. */
bool gitc_is_empty(git_repository *repo);

/* The commit record (Entities::RepoCommit); with detail, stats {additions, deletions,
 * total} against the first parent too (RepoCommitDetail; the caller adds status). */
json_object *gitc_commit_json(ctx *c, git_repository *repo, git_commit *commit, bool detail);

/* A page of the history of ref (HEAD when NULL): commits newest first, committed in
 * [since, until] (Unix seconds; LLONG_MIN / LLONG_MAX when open) and touching path (a
 * file or directory, NULL: any). *total counts all of them. 0, ERR_NOT_FOUND (no such
 * ref: no commits), or ERR_INTERNAL. */
int gitc_log(ctx *c, git_repository *repo, const char *ref, long long since, long long until,
	     const char *path, long long offset, long long limit, json_object **out,
	     long long *total);
/* The diff entries (Entities::RepoDiff) from old_tree (NULL: empty) to new_tree, renames
 * found as GitLab does. */
int gitc_diff_json(ctx *c, git_repository *repo, git_tree *old_tree, git_tree *new_tree,
		   json_object **out);
/* The diff of commit against its first parent. */
int gitc_commit_diff_json(ctx *c, git_repository *repo, git_commit *commit, json_object **out);
/* Whether line (1-based) of path is a line of the new side of commit's diff ("new") or of
 * its old side ("old"), as GitLab places a commit comment. */
bool gitc_diff_has_line(ctx *c, git_repository *repo, git_commit *commit, const char *path,
			long long line, bool new_side);

/* The entries of the tree at path of commit (recursive: every entry below it), trees
 * first, then blobs, then submodules (Entities::RepoTreeObject). ERR_NOT_FOUND when
 * path is not a tree of the commit (an empty list for GitLab 10). */
int gitc_tree_json(ctx *c, git_repository *repo, git_commit *commit, const char *path,
		   bool recursive, json_object **out);
/* The blob at path of commit: 0 with it, or ERR_NOT_FOUND. */
int gitc_blob_at(ctx *c, git_repository *repo, git_commit *commit, const char *path,
		 git_blob **out);
/* A blob by (abbreviated) id. */
int gitc_blob_by_id(ctx *c, git_repository *repo, const char *sha, git_blob **out);
/* The same without reading the blob's bytes (a large file's raw answer does not need
 * them when the download cache holds it): the id of the blob at path of commit, of blob
 * sha (abbreviated or not), and a blob's size. 0, ERR_NOT_FOUND, or ERR_INTERNAL. */
int gitc_blob_id_at(ctx *c, git_commit *commit, const char *path, git_oid *out);
int gitc_blob_id(git_repository *repo, const char *sha, git_oid *out);
int gitc_blob_size(git_repository *repo, const git_oid *id, size_t *out);
/* The id of the last commit reachable from commit that changed path. */
int gitc_last_commit_for_path(ctx *c, git_repository *repo, git_commit *commit, const char *path,
			      git_oid *out);

/* GET /repository/compare: {commit, commits, diffs, compare_timeout, compare_same_ref}. */
int gitc_compare_json(ctx *c, git_repository *repo, const char *from, const char *to, bool straight,
		      json_object **out);
/* GET /repository/contributors: the authors of HEAD's history without merges, by email
 * in the order they first appear (newest first), {name, email, commits, additions,
 * deletions}. */
int gitc_contributors_json(ctx *c, git_repository *repo, json_object **out);

/* One action of a commit (POST /repository/commits, and the files API). */
typedef enum { GITC_CREATE, GITC_DELETE, GITC_MOVE, GITC_UPDATE } gitc_action_kind;
typedef struct {
	gitc_action_kind kind;
	const char *file_path;
	const char *previous_path; /* move: NULL means file_path */
	const char *content;       /* decoded bytes; NULL: none given */
	size_t content_len;
} gitc_action;

typedef struct gitc_commit_req {
	const char *branch;       /* the branch the commit goes to */
	const char *start_branch; /* the branch it starts from (branch when NULL) */
	const char *message;
	const char *author_name, *author_email;
	const char *committer_name, *committer_email;
	const gitc_action *actions;
	size_t nactions;
	const char *last_commit_id; /* the files API's check: NULL when not given */
} gitc_commit_req;

/* Makes the commit of req and moves the branch to it (compare-and-swap). 0 with the
 * new commit in *out; ERR_REFUSED with GitLab's message in *msg; ERR_MOVED when the
 * branch moved meanwhile (nothing changed); ERR_INTERNAL. */
int gitc_commit_create(ctx *c, git_repository *repo, const gitc_commit_req *req, git_commit **out,
		       const char **msg);
/* Cherry-picks commit onto branch (compare-and-swap): 0 with the new commit,
 * ERR_NOT_FOUND when there is no such branch, ERR_REFUSED (*msg) when it does not apply
 * or is empty, ERR_MOVED, ERR_INTERNAL. */
int gitc_cherry_pick(ctx *c, git_repository *repo, git_commit *commit, const char *branch,
		     const char *committer_name, const char *committer_email, git_commit **out,
		     const char **msg);

/* Valid path of a file in a commit (no empty, ".", ".." or ".git" component). */
bool gitc_valid_path(const char *path);
/* The bytes of the base64 text s (whitespace ignored), in c's arena, their count in *n;
 * NULL when s is not base64. (The other way: buf_put_base64, core/buf.h.) */
char *gitc_unbase64(ctx *c, const char *s, size_t *n);

#endif
