/* The commit graph of this process: for every commit seen, its committer time, its
 * parents and (once asked) the paths it changes against each parent, kept in memory and
 * keyed by the commit's id alone. What a commit id names never changes (its tree, its
 * parents, and so its whole history), so an entry is never stale and serves every
 * repository that holds the commit (a fork, a copy); it is found once per process, read
 * from the repository at hand (which holds the commit and its history). History walks
 * (git log's default order), "the last commit that changed a path" and "is A an
 * ancestor of B" then run over the graph in memory instead of reading and parsing
 * commits and trees again at every request. A bounded table: it is emptied when it
 * grows past its size, between two calls, and filled again as needed. */
#ifndef COLLABD_GIT_GRAPH_H
#define COLLABD_GIT_GRAPH_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>

/* One walk of the history of tip, newest first as git log shows it by default: the
 * commit of the latest committer time next, those of one time in the order they were
 * reached, each once; commits whose object cannot be read are left out with their
 * history (as git_commit_parent failing would). */
typedef struct graph_walk graph_walk;

/* A new walk from tip (read from repo), or NULL (out of memory, or tip unreadable). The
 * walk is the caller's to end with graph_walk_free, before any other graph call. */
graph_walk *graph_walk_new(git_repository *repo, const git_oid *tip);
/* The next commit of the walk (its id in *id, its committer time in *time): 1, 0 at the
 * end, or ERR_INTERNAL on an error (logged). */
int graph_walk_next(graph_walk *w, git_oid *id, long long *time);
/* Keeps only the commits that change path from here on (as git log -- path with
 * --full-history's walk: a commit changes it when it differs there from every parent, a
 * root commit when it has it). false when that cannot be found (logged). */
bool graph_walk_path(graph_walk *w, const char *path);
void graph_walk_free(graph_walk *w);

/* The newest commit of tip's history (graph_walk's order) that changes path: 0 with
 * *out, ERR_NOT_FOUND when none does, ERR_INTERNAL on an error. */
int graph_last_commit(git_repository *repo, const git_oid *tip, const char *path, git_oid *out);

/* Whether commit has ancestor in its history (not itself): 1, 0, or ERR_INTERNAL on an
 * error. */
int graph_descendant_of(git_repository *repo, const git_oid *commit, const git_oid *ancestor);

#endif
