/* The statements of git/ (git/hooks.c, git/refs.c, git/repo.c) and the protected
 * branches' flags that api/branches.c reads too: what a push records about a project
 * (its default branch, its last activity, the change of its refs for the response cache,
 * a push event), which branches are protected, and the paths of the repositories before
 * storage by id. Each function runs one statement in the caller's transaction (if one
 * is open). */
#ifndef COLLABD_DB_REPOS_H
#define COLLABD_DB_REPOS_H

#include <stdbool.h>

#include "db/db.h"

extern const db_stmt db_repos_stmts[];

/* The columns of branches_flags (db_repos_branch_flags), one row per name in order. */
enum { BF_PROTECTED, BF_DEV_PUSH, BF_DEV_MERGE, BF_NCOLS };
/* The columns of db_repos_legacy_list. */
enum { RL_ID, RL_OLD_PATH, RL_NCOLS };

/* The columns of repo_storage (db_repos_storage) and repo_move_find. */
enum { RS_STORAGE, RS_READ_ONLY, RS_NCOLS };
enum { RM_ID, RM_STORAGE, RM_READ_ONLY, RM_NCOLS };

/* The storage (name, core/storages.h) of project_id's repository, and whether it is
 * read-only (read_only may be NULL): 0, ERR_NOT_FOUND when there is no such project,
 * or an ERR_ code. Read once per unit of work (c): the scope of a request's project
 * tells it already (db_repos_storage_known), others cost one statement. */
int db_repos_storage(ctx *c, const char *project_id, const char **storage, bool *read_only);
/* Tells c what project_id's storage is (read with the project's row elsewhere). */
void db_repos_storage_known(ctx *c, const char *project_id, const char *storage, bool read_only);
/* The project of id id (NULL: none) or else full path full_path, locked FOR UPDATE in
 * c's open transaction (RM_ columns; no row: none). NULL with *err. */
PGresult *db_repos_move_find(ctx *c, const char *id, const char *full_path, int *err);
/* Sets project_id's repository read-only or writable. 0 or an ERR_ code. */
int db_repos_set_read_only(ctx *c, const char *project_id, bool read_only);
/* Moves project_id's repository to storage (by name), writable. 0 or an ERR_ code. */
int db_repos_set_storage(ctx *c, const char *project_id, const char *storage);
/* Sets project_id's default branch to branch. 0 or an ERR_ code. */
int db_repos_set_default_branch(ctx *c, const char *project_id, const char *branch);
/* Sets project_id's last_activity_at to now. 0 or an ERR_ code. */
/* Protects branch of the project with push and merge levels (30 developers, 40
 * masters), unless it is protected already. 0 or an ERR_ code. */
int db_repos_protect_branch(ctx *c, const char *project_id, const char *branch, int push,
			    int merge);
int db_repos_touch(ctx *c, const char *project_id);
/* Counts one more change of project_id's refs (its repository's key in the response
 * cache, bumped at the commit: sql/0023); nothing for a project removed meanwhile. 0 or
 * an ERR_ code. */
int db_repos_refs_changed(ctx *c, const char *project_id);
/* A push event of project_id by author_id (decimal): action_name ("pushed to", "pushed
 * new", "deleted") and data (JSON text). 0 or an ERR_ code. */
int db_repos_push_event(ctx *c, const char *project_id, const char *author_id,
			const char *action_name, const char *data);
/* For each branch name of names (a text[] literal: git/refs.h refs_text_array), in
 * order, whether a protection of project_id covers it and whether one lets developers
 * push / merge (BF_ columns): the result (c's arena), or NULL with *err. */
PGresult *db_repos_branch_flags(ctx *c, const char *project_id, const char *names, int *err);
/* Every project with the path its repository had before storage by id (RL_ columns):
 * the result (c's arena), or NULL with *err. */
PGresult *db_repos_legacy_list(ctx *c, int *err);

#endif
