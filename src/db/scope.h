/* The statements that find the scope of a route (auth/scope.h tells the rules): the
 * project or group its :id names, with the caller's access to it (db/access.h), in one
 * statement; and the SQL of a project's scope that db/credentials.c pastes to find the
 * caller with it. */
#ifndef COLLABD_DB_SCOPE_H
#define COLLABD_DB_SCOPE_H

#include <libpq-fe.h>
#include <stdbool.h>

#include "core/ctx.h"
#include "db/access.h"
#include "db/columns.h"
#include "db/db.h"

extern const db_stmt db_scope_stmts[];

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

/* The SQL of a project's scope, for the statements that find it (db/scope.c's, and
 * db/credentials.c's that find the caller with it, one round trip): a WITH item t of the
 * id of the project, SCOPE_PROJECT_BY_ID (ID its id) or SCOPE_PROJECT_BY_PATH (NS the
 * full path of its namespace, PATH its path), the parameters of scope_project_ref (one
 * statement for each: a prepared statement's generic plan keeps only one of two index
 * probes when the other is not asked for); SCOPE_PROJECT_COLS, read from
 * SCOPE_PROJECT_FROM with the caller as `me`, are what scope_project_row reads
 * (enum scope_project_col). */
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
	" p.jobs_enabled, p.merge_requests_enabled, p.issues_enabled, p.repository_storage,"       \
	" p.repository_read_only, " SQL_PROJECT_ACCESS_COLS("p", "n", "pa")
#define SCOPE_PROJECT_FROM                                                                         \
	"t JOIN projects p ON p.id = t.id AND NOT p.pending_delete"                                \
	" JOIN namespaces n ON n.id = p.namespace_id"                                              \
	" LEFT JOIN LATERAL (" SQL_PROJECT_LEVEL("p") ") pa ON true"
enum scope_project_col {
	PS_ID,
	PS_NAMESPACE_ID,
	PS_NS_FULL_PATH,
	PS_NS_KIND,
	PS_NS_OWNER_ID,
	PS_PATH,
	PS_NAME,
	PS_FORKED_FROM_ID,
	PS_DEFAULT_BRANCH,
	PS_DESCRIPTION,
	PS_VISIBILITY,
	PS_NS_VISIBILITY,
	PS_REQUEST_ACCESS_ENABLED,
	PS_SHARED_RUNNERS_ENABLED,
	PS_WIKI_ENABLED,
	PS_PUBLIC_JOBS,
	PS_JOBS_ENABLED,
	PS_MERGE_REQUESTS_ENABLED,
	PS_ISSUES_ENABLED,
	PS_REPOSITORY_STORAGE,
	PS_REPOSITORY_READ_ONLY,
	PS_ACCESS, /* PROJECT_ACCESS_NCOLS columns, project_access_read's */
	SCOPE_PROJECT_NCOLS = PS_ACCESS + PROJECT_ACCESS_NCOLS,
};

/* The columns of db_scope_project_deploy_key: SCOPE_PROJECT_COLS (the access of an
 * anonymous caller), then can_push of the deploy key's link to the project (NULL: the
 * key is not enabled on it). */
enum { PS_DEPLOY_KEY_CAN_PUSH = SCOPE_PROJECT_NCOLS, SCOPE_DEPLOY_KEY_NCOLS };

/* The columns of db_scope_group: GROUP_COLS (db/columns.h), the caller's access
 * (SQL_GROUP_ACCESS_COLS, group_access_read's), then what a change of visibility is
 * checked against: the parent's visibility, the highest of its subgroups' and the
 * highest of its projects' (NULL when there is none). */
enum scope_group_col {
	GS_ACCESS = GROUP_NCOLS,
	GS_PARENT_VIS = GROUP_NCOLS + GROUP_ACCESS_NCOLS,
	GS_CHILD_VIS,
	GS_PROJECT_VIS,
	GS_NCOLS,
};

/* The project that ref names (scope_project_ref's values: its id, or, by_path, the full
 * path of its namespace and its path) with the caller of c's access to it, locked as
 * lock says: SCOPE_PROJECT_COLS, no row when there is no such project. The result in
 * c's arena, or NULL with *err. */
PGresult *db_scope_project(ctx *c, const char *const *ref, bool by_path, scope_lock lock, int *err);
/* The same project with what deploy key key_id may do there (the columns above), not
 * locked or, lock, FOR UPDATE: no row when there is no such project. */
PGresult *db_scope_project_deploy_key(ctx *c, const char *const *ref, bool by_path, bool lock,
				      const char *key_id, int *err);
/* The group of id id (NULL: none) or of full path path (NULL: none) with the caller of
 * c's access to it, locked FOR UPDATE when lock: enum scope_group_col, no row when there
 * is no such group. The result in c's arena, or NULL with *err. */
PGresult *db_scope_group(ctx *c, const char *id, const char *path, bool lock, int *err);

#endif
