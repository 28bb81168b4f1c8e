#include "db/credentials.h"

#include "core/buf.h"
#include "db/user_refs.h"

/* The caller by token ($1, $2 as AUTH_FROM) and the project of a route (FIND: by id $3,
 * or by path $3 and $4, db/scope.h) in one statement: AUTH_LEAN's columns (the users'
 * epoch read), then the scope's (SCOPE_PROJECT_COLS, NULL when there is no such project),
 * locked as LOCK says; no row when the token matches nothing. */
#define AUTH_PROJECT(FIND, LOCK) AUTH_PROJECT_AS(FIND, LOCK, USER_EPOCH, "")
#define AUTH_PROJECT_AS(FIND, LOCK, EPOCH, MORE)                                                   \
	"WITH me AS (SELECT u.id, u.is_admin AS admin, u.external, u.username, u.email,"           \
	" u.can_create_group, t.kind, t.scopes::text AS scopes FROM " AUTH_FROM "), " FIND         \
	" SELECT me.id, me.username, me.admin, me.external, me.email, me.can_create_group,"        \
	" me.kind, me.scopes, " EPOCH ", s.*" MORE " FROM me"                                      \
	" LEFT JOIN LATERAL (SELECT " SCOPE_PROJECT_COLS " FROM " SCOPE_PROJECT_FROM LOCK ")"      \
	" s ON true"
/* The keys the row of AUTH_PROJECT is read from (the authentication cache's deps), as
 * the response cache names them (core/deps.h): everything (0), the caller (user,
 * tokens, memberships), the project (its row, group links, members) and its namespace
 * (path, owner, visibility, ancestors). */
#define AUTH_PROJECT_KEYS "ARRAY[0, me.id * 16 + 1, s.id * 16 + 2, s.namespace_id * 16 + 3]"

/* The parameters of the statements of a project: AUTH_FROM's, then the project's id, or
 * the full path of its namespace and its path. */
enum { AP_ID = AUTH_NPARAMS, AP_BY_ID_NPARAMS, AP_PATH = AP_BY_ID_NPARAMS, AP_NPARAMS };

const db_stmt db_credentials_stmts[] = {
	{"auth_token", "SELECT " AUTH_SELECT " FROM " AUTH_FROM, AUTH_NPARAMS, AUTH_NCOLS},
	{"auth_token_lean", "SELECT " AUTH_LEAN_COLS ", " USER_EPOCH " FROM " AUTH_FROM,
	 AUTH_NPARAMS, AUTH_LEAN_NCOLS},
#define BY_ID SCOPE_PROJECT_BY_ID("$3")
#define BY_PATH SCOPE_PROJECT_BY_PATH("$3", "$4")
#define NCOLS (AUTH_LEAN_NCOLS + SCOPE_PROJECT_NCOLS)
	{"auth_project", AUTH_PROJECT(BY_ID, ""), AP_BY_ID_NPARAMS, NCOLS},
	/* without the users' epoch (ROUTE_NO_USER_REFS): it is a subplan, 13% of the
	 * statement */
	{"auth_project_no_epoch", AUTH_PROJECT_AS(BY_ID, "", "NULL::bigint", ""), AP_BY_ID_NPARAMS,
	 NCOLS},
/* auth_project and, last, the sum of the versions of the keys it reads, for the
	 * authentication cache */
#define VERSIONS                                                                                   \
	", (SELECT coalesce(sum(e.v), 0) FROM cache_epochs e WHERE e.k = ANY (" AUTH_PROJECT_KEYS  \
	"))"
	{"auth_project_fill", AUTH_PROJECT_AS(BY_ID, "", USER_EPOCH, VERSIONS), AP_BY_ID_NPARAMS,
	 NCOLS + 1},
	{"auth_project_lock_fill", AUTH_PROJECT_AS(BY_ID, " FOR UPDATE OF p", USER_EPOCH, VERSIONS),
	 AP_BY_ID_NPARAMS, NCOLS + 1},
	{"auth_project_key_share_fill",
	 AUTH_PROJECT_AS(BY_ID, " FOR KEY SHARE OF p", USER_EPOCH, VERSIONS), AP_BY_ID_NPARAMS,
	 NCOLS + 1},
#undef VERSIONS
	/* $1 keys: their versions (a key never bumped has none: 0) */
	{"auth_versions", "SELECT k, v FROM cache_epochs WHERE k = ANY ($1::bigint[])", 1,
	 AV_NCOLS},
	/* The project $1 locked as auth_project_lock and auth_project_key_share lock it, when
	 * the row is found in the authentication cache. */
	{"auth_lock",
	 "SELECT p.id FROM projects p WHERE p.id = $1::bigint AND NOT p.pending_delete"
	 " FOR UPDATE OF p",
	 1, 1},
	{"auth_key_share",
	 "SELECT p.id FROM projects p WHERE p.id = $1::bigint AND NOT p.pending_delete"
	 " FOR KEY SHARE OF p",
	 1, 1},
	{"auth_project_lock", AUTH_PROJECT(BY_ID, " FOR UPDATE OF p"), AP_BY_ID_NPARAMS, NCOLS},
	{"auth_project_key_share", AUTH_PROJECT(BY_ID, " FOR KEY SHARE OF p"), AP_BY_ID_NPARAMS,
	 NCOLS},
	{"auth_project_path", AUTH_PROJECT(BY_PATH, ""), AP_NPARAMS, NCOLS},
	{"auth_project_path_lock", AUTH_PROJECT(BY_PATH, " FOR UPDATE OF p"), AP_NPARAMS, NCOLS},
	{"auth_project_path_key_share", AUTH_PROJECT(BY_PATH, " FOR KEY SHARE OF p"), AP_NPARAMS,
	 NCOLS},
#undef NCOLS
	{"auth_sudo_user",
	 "SELECT " USER_COLS " FROM users u WHERE NOT u.ghost AND "
	 "(u.id = (CASE WHEN $1 ~ '^[0-9]{1,18}$' THEN $1::bigint END) OR lower(u.username) = lower($1))",
	 1, USER_NCOLS},
	{NULL, NULL, 0, 0},
};

void db_credentials_params(const char *digest, bool oauth, const char **values)
{
	values[AUTH_DIGEST] = digest;
	values[AUTH_OAUTH] = oauth ? "true" : "false";
}

PGresult *db_credentials_caller(ctx *c, const char *digest, bool oauth, bool record, int *err)
{
	const char *v[AUTH_NPARAMS];
	db_credentials_params(digest, oauth, v);
	return db_query(c, record ? "auth_token" : "auth_token_lean", AUTH_NPARAMS, v, err);
}

PGresult *db_credentials_sudo(ctx *c, const char *sudo, int *err)
{
	const char *v[1] = {sudo};
	return db_query(c, "auth_sudo_user", 1, v, err);
}

PGresult *db_credentials_with(ctx *c, const char *digest, bool oauth, const char *stmt,
			      const char *arg, int *err)
{
	const char *v[AUTH_NPARAMS + 1];
	db_credentials_params(digest, oauth, v);
	v[AUTH_NPARAMS] = arg;
	return db_query(c, stmt, AUTH_NPARAMS + 1, v, err);
}

PGresult *db_credentials_project(ctx *c, const char *digest, bool oauth, const char *const *ref,
				 bool by_path, scope_lock lock, db_auth_read what,
				 const db_call *prefetch, PGresult **prefetched, int *err)
{
	static const char *const by_id[][3] = {
		[DB_AUTH_PROJECT] = {[SCOPE_READ] = "auth_project",
				     [SCOPE_UPDATE] = "auth_project_lock",
				     [SCOPE_KEY_SHARE] = "auth_project_key_share"},
		[DB_AUTH_PROJECT_NO_EPOCH] = {[SCOPE_READ] = "auth_project_no_epoch",
					      [SCOPE_UPDATE] = "auth_project_lock",
					      [SCOPE_KEY_SHARE] = "auth_project_key_share"},
		[DB_AUTH_PROJECT_FILL] = {[SCOPE_READ] = "auth_project_fill",
					  [SCOPE_UPDATE] = "auth_project_lock_fill",
					  [SCOPE_KEY_SHARE] = "auth_project_key_share_fill"},
	};
	static const char *const by_path_stmts[] = {
		[SCOPE_READ] = "auth_project_path",
		[SCOPE_UPDATE] = "auth_project_path_lock",
		[SCOPE_KEY_SHARE] = "auth_project_path_key_share",
	};
	const char *v[AP_NPARAMS];
	DB_PARAMS(v, AP_NPARAMS);
	db_credentials_params(digest, oauth, v);
	v[AP_ID] = ref[0];
	v[AP_PATH] = by_path ? ref[1] : NULL;
	if (by_path)
		return db_query(c, by_path_stmts[lock], AP_NPARAMS, v, err);
	const char *stmt = by_id[what][lock];
	if (prefetch)
		return db_query_with(c, stmt, AP_BY_ID_NPARAMS, v, prefetch, prefetched, err);
	return db_query(c, stmt, AP_BY_ID_NPARAMS, v, err);
}

/* keys[0..n) as a bigint[] literal. */
static const char *keys_array(ctx *c, const long long *keys, int n)
{
	buf b;
	buf_init(&b, c->a, 16 + (size_t)n * 8);
	buf_putc(&b, '{');
	for (int i = 0; i < n; i++)
		buf_printf(&b, i ? ",%lld" : "%lld", keys[i]);
	buf_putc(&b, '}');
	return buf_cstr(&b);
}

PGresult *db_credentials_versions(ctx *c, const long long *keys, int n, const db_call *prefetch,
				  PGresult **prefetched, int *err)
{
	const char *v[1] = {keys_array(c, keys, n)};
	if (prefetch)
		return db_query_with(c, "auth_versions", 1, v, prefetch, prefetched, err);
	return db_query(c, "auth_versions", 1, v, err);
}

PGresult *db_credentials_lock(ctx *c, const char *id, scope_lock lock, const long long *keys, int n,
			      PGresult **versions, int *err)
{
	const char *kv[1] = {keys_array(c, keys, n)};
	const db_call also = {"auth_versions", 1, kv};
	const char *v[1] = {id};
	return db_query_with(c, lock == SCOPE_UPDATE ? "auth_lock" : "auth_key_share", 1, v, &also,
			     versions, err);
}
