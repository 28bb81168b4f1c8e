/* Bare git repositories on disk, at <storage_path>/<namespace full path>/<project path>.git
 * (wikis beside them as <project path>.wiki.git). Paths given here are relative to the
 * storage path and come from the database, never from a request directly. */
#ifndef COLLABD_REPO_H
#define COLLABD_REPO_H

#include <stdbool.h>

#include "http/request.h"

/* Absolute path of the repository of project `path` in namespace `ns_full_path`, in a. */
const char *repo_path(request *r, const char *ns_full_path, const char *path);
/* Creates an empty bare repository (HEAD -> refs/heads/master) with libgit2. 0 or -1;
 * an existing repository is left as it is (0). */
int repo_create(request *r, const char *ns_full_path, const char *path);
/* Moves a repository to a new namespace path and/or name; a missing source is not an
 * error (0). -1 when the target exists or the rename fails. */
int repo_move(request *r, const char *from_ns, const char *from_path, const char *to_ns,
	      const char *to_path);
/* Moves a whole namespace directory (user rename, group rename or transfer). */
int repo_move_namespace(request *r, const char *from_ns, const char *to_ns);
/* Creates the repository of a fork: a new bare repository with every branch and tag of
 * the source and the source's HEAD (empty when the source has no repository). 0 or -1;
 * the caller removes the target on failure. */
int repo_fork(request *r, const char *from_ns, const char *from_path, const char *to_ns,
	      const char *to_path);
/* Points HEAD at refs/heads/<branch>: 0, 1 when there is no such branch (and it must
 * exist) or the name is not a valid branch name, -1 on error. *previous (when not NULL)
 * gets the branch HEAD named before, in r's arena, or NULL. */
int repo_set_head(request *r, const char *ns, const char *path, const char *branch,
		  bool must_exist, const char **previous);
/* Renames the namespace directory <storage>/<rel> to <rel>+<tag>+deleted, freeing its path
 * at once for the background removal to delete later; *aside is the new relative path (rel
 * itself when there is no directory). 0 or -1. */
int repo_set_aside(request *r, const char *rel, const char *tag, const char **aside);
/* Removes a repository directory tree (background work); missing is success. */
int repo_remove_dir(const char *abs_path);

#endif
