/* Merge requests in git (libgit2): the source head of a request (a branch of the target
 * repository, or of a fork's, fetched into the target repository as
 * refs/merge-requests/<iid>/head as GitLab does), the commits and changes of a request
 * against the merge base, the in-memory check of whether it merges cleanly, and the
 * merge itself: a merge commit (or a fast-forward) written into the target branch
 * compare-and-swap (a concurrent push or merge makes it fail cleanly, never loses a
 * commit), undone when the open transaction rolls back. Git objects handed out live
 * until c's arena is reset; JSON objects are new references the caller owns. */
#ifndef COLLABD_GIT_MERGE_H
#define COLLABD_GIT_MERGE_H

#include <git2.h>
#include <json-c/json.h>
#include <stdbool.h>

#include "core/ctx.h"

/* The functions below return 0 or a negative ERR_ code (core/errors.h): ERR_NOT_FOUND (a
 * branch, or the repository, is missing), ERR_CONFLICT (the two sides do not merge
 * cleanly), ERR_MOVED (the target branch moved meanwhile), ERR_INTERNAL (an error,
 * logged). */

/* What a request merges, found in the target repository. */
typedef struct {
	git_repository *repo; /* the target project's (repo_open: not the caller's) */
	git_oid source;       /* the source head */
	git_oid target;       /* the target branch's head */
	bool have_target;
} merge_sides;

/* The sides of the request from source_branch of source_project_id to target_branch of
 * target_project_id (iid: the request's, naming the fetched ref of a fork's source). 0,
 * ERR_NOT_FOUND (no source branch; a missing target branch leaves have_target false),
 * or ERR_INTERNAL. */
int merge_sides_find(ctx *c, const char *target_project_id, const char *source_project_id,
		     const char *source_branch, const char *target_branch, const char *iid,
		     merge_sides *out);
/* Whether the sides merge without conflicts: 0 with *out, ERR_NOT_FOUND when there is
 * no target branch, or ERR_INTERNAL. */
int merge_check(ctx *c, const merge_sides *s, bool *out);
/* The commits of the request (in the source, not in the target: newest first), those
 * from offset on, at most limit, as Entities::Commit records into *out (a new array),
 * and how many there are in all into *total. 0 or ERR_INTERNAL. */
int merge_commits_json(ctx *c, const merge_sides *s, long long offset, long long limit,
		       json_object **out, long long *total);
/* The diff entries (Entities::RepoDiff) from the merge base to the source head into
 * *out (a new array). */
int merge_changes_json(ctx *c, const merge_sides *s, json_object **out);
/* Whether merging s is a fast-forward (the target branch is the source head or one of
 * its ancestors): 0 with *out, ERR_NOT_FOUND when there is no target branch, or ERR_INTERNAL. */
int merge_ff_possible(const merge_sides *s, bool *out);
/* Moves the target branch from s->target to the source head, compare-and-swap, with no
 * merge commit (merge_method ff): 0 with the head in *out, ERR_CONFLICT when it is not
 * a fast-forward, ERR_MOVED, ERR_NOT_FOUND (no target branch), or ERR_INTERNAL. */
int merge_ff(ctx *c, const merge_sides *s, const char *target_branch, git_oid *out);
/* Writes the merge commit of s (message, committed by name/email) and moves the target
 * branch to it from s->target, compare-and-swap: 0 with its id in *out,
 * ERR_CONFLICT, ERR_MOVED, ERR_NOT_FOUND (no target branch), or ERR_INTERNAL. */
int merge_commit(ctx *c, const merge_sides *s, const char *target_branch, const char *message,
		 const char *name, const char *email, git_oid *out);

#endif
