/* The scope of a route: the project or group that its :id names, found with the
 * caller's access to it in one statement. The rules live here and nowhere else: :id is
 * an id when it is all digits (at most 18 of them), otherwise a full path
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

extern const db_stmt scope_stmts[];

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
	project_access pa; /* the caller's abilities */
} project_scope;

typedef struct group_scope {
	PGresult *res; /* row 0 starts with GROUP_COLS (entity/group.h) */
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

/* The SQL of a project's scope, for the statements that find it (this file's, and
 * auth.c's that find the caller with it, one round trip): a WITH item t of the id of
 * the project, SCOPE_PROJECT_BY_ID (ID its id) or SCOPE_PROJECT_BY_PATH (NS the full
 * path of its namespace, PATH its path), the parameters of scope_project_ref (one
 * statement for each: a prepared statement's generic plan keeps only one of two index
 * probes when the other is not asked for); SCOPE_PROJECT_COLS, read from
 * SCOPE_PROJECT_FROM with the caller as `me`, are what scope_project_row reads. */
#define SCOPE_PROJECT_BY_ID(ID) "t AS (SELECT " ID "::bigint AS id)"
#define SCOPE_PROJECT_BY_PATH(NS, PATH)                                                            \
	"t AS (SELECT tp.id FROM namespaces tn JOIN projects tp ON tp.namespace_id = tn.id"        \
	" WHERE lower(tn.full_path) = lower(" NS "::text) AND lower(tp.path) = lower(" PATH        \
	"::text))"
#define SCOPE_PROJECT_COLS                                                                         \
	"p.id, p.namespace_id, n.full_path, n.kind,"                                               \
	" CASE WHEN n.kind = 'user' THEN n.owner_id END, p.path, p.name, p.forked_from_id,"        \
	" p.default_branch, p.description, p.visibility, n.visibility,"                            \
	" p.request_access_enabled, p.shared_runners_enabled, p.wiki_enabled, p.public_jobs,"      \
	" p.jobs_enabled, p.merge_requests_enabled, p.issues_enabled, " SQL_PROJECT_ACCESS_COLS(   \
		"p", "n", "pa")
#define SCOPE_PROJECT_NCOLS (19 + PROJECT_ACCESS_NCOLS)
/* The columns of the project's id and its namespace's id in SCOPE_PROJECT_COLS. */
enum { SCOPE_PROJECT_COL_ID, SCOPE_PROJECT_COL_NAMESPACE_ID };
#define SCOPE_PROJECT_FROM                                                                         \
	"t JOIN projects p ON p.id = t.id AND NOT p.pending_delete"                                \
	" JOIN namespaces n ON n.id = p.namespace_id"                                              \
	" LEFT JOIN LATERAL (" SQL_PROJECT_LEVEL("p") ") pa ON true"

/* Whether ref is an id (all digits, at most 18) rather than a full path. */
bool scope_ref_is_id(const char *ref);
/* How the scope's row is locked for the open transaction: not at all (a read), FOR
 * UPDATE (a change of the project or group, or of what must not change under it while
 * the transaction runs; true and false are these two), or, for a project, FOR KEY SHARE
 * (a route that only adds or changes rows under the project, as a note: the project
 * must stay until the commit, not stay the same; writers of such rows do not wait for
 * each other, nor for a change of the project's other columns). */
typedef enum scope_lock {
	SCOPE_READ = 0,
	SCOPE_UPDATE = 1,
	SCOPE_KEY_SHARE = 2,
} scope_lock;

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
int scope_group(ctx *c, const char *ref, scope_lock lock, group_scope *out);

#endif
