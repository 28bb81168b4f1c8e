/* The scope of a route: the project or group that its :id names, found with the
 * caller's access to it in one statement (db/scope.h's). The rules live here and nowhere
 * else: :id is an id when it is all digits (at most 18 of them), otherwise a full path
 * ("group/subgroup/project" for a project), matched without regard to case; a project
 * being deleted is not found; and what the caller may not see is not found either (404,
 * never 403). The dispatcher resolves the scope of the routes flagged ROUTE_PROJECT or
 * ROUTE_GROUP before their handler runs (r->project, r->group); the git hooks and the
 * SSH shell ask the same functions. */
#ifndef COLLABD_SCOPE_H
#define COLLABD_SCOPE_H

#include <libpq-fe.h>
#include <stdbool.h>

#include "auth/access.h"
#include "core/ctx.h"
#include "db/db.h"
#include "db/scope.h"

typedef struct project_scope {
	const char *id;
	const char *namespace_id;
	const char *ns_full_path;
	const char *ns_kind;     /* "user" or "group" */
	const char *ns_owner_id; /* a personal project's namespace owner, else NULL */
	const char *path;
	const char *name;
	const char *forked_from_id;
	const char *default_branch;
	const char *description;
	int visibility;
	int ns_visibility;
	bool request_access_enabled;
	bool shared_runners_enabled;
	bool wiki_enabled;
	bool public_jobs; /* the CI settings that decide who reads jobs */
	bool jobs_enabled;
	bool merge_requests_enabled;
	bool issues_enabled;
	const char *repository_storage; /* the storage's name (core/storages.h) */
	bool repository_read_only;      /* while `collabd move-storage` moves it */
	project_access pa; /* the caller's abilities */
} project_scope;

typedef struct group_scope {
	PGresult *res; /* row 0: enum scope_group_col (db/scope.h) */
	const char *id;
	const char *full_path;
	int visibility;
	bool request_access_enabled;
	bool root;
	int parent_vis;  /* -1: a root group */
	int child_vis;   /* -1: no subgroups */
	int project_vis; /* -1: no projects */
	group_access ga; /* the caller's abilities */
} group_scope;

/* Whether ref is an id (all digits, at most 18) rather than a full path. */
bool scope_ref_is_id(const char *ref);
/* The project (group) that ref names, as c's caller sees it, locked as lock says (a
 * group: SCOPE_KEY_SHARE is SCOPE_UPDATE): 0, or ERR_NOT_FOUND (c->err_detail
 * "Project"/"Group") when there is none or the caller may not see it, or the database's
 * ERR_ code. */
int scope_project(ctx *c, const char *ref, scope_lock lock, project_scope *out);
/* The parameters of SCOPE_PROJECT_BY_ID (v[0], *by_path false) or of
 * SCOPE_PROJECT_BY_PATH (v[0] and v[1], *by_path true) for ref, an id or a full path
 * (split at its last slash): 0, or ERR_NOT_FOUND for a path that names no project. */
int scope_project_ref(ctx *c, const char *ref, const char **v, bool *by_path);
/* The scope in row 0 of res, SCOPE_PROJECT_COLS from column col (NULLs, or no row: no
 * project): as scope_project. */
int scope_project_row(ctx *c, const PGresult *res, int col, project_scope *out);
/* The repository that a git path names (full path of a project, without ".git"): the
 * project's own, or, when no project has that path and it ends in ".wiki", the wiki of
 * the project before it (*wiki true). As scope_project, not locked. */
int scope_project_repository(ctx *c, const char *full, project_scope *out, bool *wiki);
/* The project that ref names as deploy key key_id reaches it, not locked or, lock, FOR
 * UPDATE: 0 with *can_push (its link's), or ERR_NOT_FOUND ("Project") when there is no
 * such project or the key is not enabled on it, whatever its visibility (a deploy key
 * sees what it is enabled on, and nothing else); out->pa is an anonymous caller's. */
int scope_project_deploy_key(ctx *c, const char *key_id, const char *ref, bool lock,
			     project_scope *out, bool *can_push);
/* scope_project_repository for deploy key key_id (scope_project_deploy_key). */
int scope_deploy_key_repository(ctx *c, const char *key_id, const char *full, project_scope *out,
				bool *wiki, bool *can_push);
int scope_group(ctx *c, const char *ref, scope_lock lock, group_scope *out);

#endif
