/* Searching a repository's default branch, as GitLab 10's Repository did with git:
 * blobs as `git grep -i -I -n --before-context 2 --after-context 2` of a literal text
 * (search_files_by_content), commits as `git log --grep -i` (find_commits_by_message). */
#ifndef COLLABD_GIT_SEARCH_H
#define COLLABD_GIT_SEARCH_H

#include <git2.h>
#include <stddef.h>

#include "core/ctx.h"

/* One match of a blob search: a run of lines holding matches with two lines of context
 * each side (runs that touch are one), as git grep prints it between its "--". */
typedef struct {
	const char *path; /* in the tree */
	int startline;    /* the run's first line, from 1 */
	const char *data; /* its lines, each with its newline */
} gsearch_blob;

/* Blobs of the tree of commit tip (text files only: no NUL in their first 8000 bytes, as
 * git's -I) whose lines hold query (ASCII case aside), in tree order, at most max runs
 * in *out (in c's arena): their number. */
int gsearch_blobs(ctx *c, git_repository *repo, const git_oid *tip, const char *query, size_t max,
		  gsearch_blob **out);

/* The commits reachable from tip, newest first (git log's order), whose message holds
 * query (ASCII case aside), at most max of them in *out (in c's arena): their number, or
 * ERR_INTERNAL. */
int gsearch_commits(ctx *c, git_repository *repo, const git_oid *tip, const char *query, size_t max,
		    git_oid **out);

#endif
