#include "auth/auth.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth/scope.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/deps.h"

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
/* The keys the row of AUTH_PROJECT is read from (auth_cache_deps), as the response cache
 * names them (core/deps.h): everything (0), the caller (user, tokens, memberships), the
 * project (its row, group links, members) and its namespace (path, owner, visibility,
 * ancestors). */
#define AUTH_PROJECT_KEYS "ARRAY[0, me.id * 16 + 1, s.id * 16 + 2, s.namespace_id * 16 + 3]"

const db_stmt auth_stmts[] = {
	{"auth_token", "SELECT " AUTH_SELECT " FROM " AUTH_FROM, 2, AUTH_NCOLS},
	{"auth_token_lean", "SELECT " AUTH_LEAN_COLS ", " USER_EPOCH " FROM " AUTH_FROM, 2,
	 AUTH_LEAN_NCOLS},
#define BY_ID SCOPE_PROJECT_BY_ID("$3")
#define BY_PATH SCOPE_PROJECT_BY_PATH("$3", "$4")
#define NCOLS (AUTH_LEAN_NCOLS + SCOPE_PROJECT_NCOLS)
	{"auth_project", AUTH_PROJECT(BY_ID, ""), 3, NCOLS},
	/* without the users' epoch (ROUTE_NO_USER_REFS): it is a subplan, 13% of the
	 * statement */
	{"auth_project_no_epoch", AUTH_PROJECT_AS(BY_ID, "", "NULL::bigint", ""), 3, NCOLS},
/* auth_project and, last, the sum of the versions of the keys it reads, for the
	 * authentication cache */
#define VERSIONS                                                                                   \
	", (SELECT coalesce(sum(e.v), 0) FROM cache_epochs e WHERE e.k = ANY (" AUTH_PROJECT_KEYS  \
	"))"
	{"auth_project_fill", AUTH_PROJECT_AS(BY_ID, "", USER_EPOCH, VERSIONS), 3, NCOLS + 1},
	{"auth_project_lock_fill", AUTH_PROJECT_AS(BY_ID, " FOR UPDATE OF p", USER_EPOCH, VERSIONS),
	 3, NCOLS + 1},
	{"auth_project_key_share_fill",
	 AUTH_PROJECT_AS(BY_ID, " FOR KEY SHARE OF p", USER_EPOCH, VERSIONS), 3, NCOLS + 1},
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
	{"auth_project_lock", AUTH_PROJECT(BY_ID, " FOR UPDATE OF p"), 3, NCOLS},
	{"auth_project_key_share", AUTH_PROJECT(BY_ID, " FOR KEY SHARE OF p"), 3, NCOLS},
	{"auth_project_path", AUTH_PROJECT(BY_PATH, ""), 4, NCOLS},
	{"auth_project_path_lock", AUTH_PROJECT(BY_PATH, " FOR UPDATE OF p"), 4, NCOLS},
	{"auth_project_path_key_share", AUTH_PROJECT(BY_PATH, " FOR KEY SHARE OF p"), 4, NCOLS},
#undef NCOLS
	{"auth_sudo_user",
	 "SELECT " USER_COLS " FROM users u WHERE NOT u.ghost AND "
	 "(u.id = (CASE WHEN $1 ~ '^[0-9]{1,18}$' THEN $1::bigint END) OR lower(u.username) = lower($1))",
	 1, USER_NCOLS},
	{NULL, NULL, 0, 0},
};

void auth_params(const credential *cr, const char **values)
{
	values[0] = cr->token_digest;
	values[1] = cr->oauth ? "true" : "false";
}

/* scopes is a text[] literal such as {api,read_user}. */
static bool has_scope(const char *scopes, const char *scope)
{
	size_t n = strlen(scope);
	const char *p = scopes ? scopes : "";
	while (*p) {
		if (*p == '{' || *p == ',') {
			p++;
			continue;
		}
		const char *e = p;
		while (*e && *e != ',' && *e != '}')
			e++;
		if ((size_t)(e - p) == n && strncmp(p, scope, n) == 0)
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}

static int auth_fail(ctx *c, int code, const char *detail)
{
	c->err_detail = detail;
	return code;
}

/* As GitLab 10.0's sudo! (lib/api/helpers.rb): an admin, and only with the private
 * token; not with an OAuth, personal access or impersonation token. The messages are
 * its forbidden!(reason), "403 Forbidden" and " - reason" joined by a space. */
static int apply_sudo(ctx *c, const credential *cr)
{
	if (!c->user->admin)
		return auth_fail(c, ERR_FORBIDDEN, "403 Forbidden  - Must be admin to use sudo");
	if (!c->user->token_kind || strcmp(c->user->token_kind, "private") != 0)
		return auth_fail(
			c, ERR_FORBIDDEN,
			"403 Forbidden  - Private token must be specified in order to use sudo");
	const char *v[1] = {cr->sudo};
	int err;
	PGresult *res = db_query(c, "auth_sudo_user", 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return auth_fail(c, ERR_SUDO_NOT_FOUND, cr->sudo);
	caller *who = arena_alloc(c->a, sizeof(*who));
	who->id = db_int(res, 0, UC_ID);
	who->admin = db_bool(res, 0, UC_IS_ADMIN);
	who->external = db_bool(res, 0, UC_EXTERNAL);
	who->username = db_val(res, 0, UC_USERNAME);
	who->email = db_val(res, 0, UC_EMAIL);
	who->can_create_group = db_bool(res, 0, UC_CAN_CREATE_GROUP);
	who->scopes = c->user->scopes;
	who->token_kind = c->user->token_kind;
	who->res = res;
	who->row = 0;
	who->impersonated = true;
	c->user = who;
	/* which user the name names changes with any user's rename */
	deps_add(c, CACHE_SET_USERS);
	deps_add(c, CACHE_KEY_USER(who->id));
	return 0;
}

/* The checks once c->user is c (NULL: no credential was sent): scope, sudo, the route's
 * flags. */
static int accept_caller(ctx *c, const credential *cr, unsigned need, caller *who)
{
	c->user = who;
	if (who) {
		deps_add(c, CACHE_KEY_USER(who->id));
		if (!has_scope(who->scopes, "api")) {
			bool read_only = (need & AUTH_READ_USER) && cr->reading &&
					 has_scope(who->scopes, "read_user");
			if (!read_only)
				return ERR_SCOPE;
		}
		if (cr->sudo) {
			int rc = apply_sudo(c, cr);
			if (rc < 0)
				return rc;
		}
	}
	if (!c->user && (need & (AUTH_USER | AUTH_ADMIN)))
		return ERR_UNAUTHORIZED;
	if ((need & AUTH_ADMIN) && !c->user->admin)
		return ERR_FORBIDDEN;
	return 0;
}

/* A credential was sent and it matched nothing: no row, or NULLs at col. */
static bool no_caller(const PGresult *res, int row, int col)
{
	return !res || PQntuples(res) <= row || PQgetisnull(res, row, col);
}

int auth_accept_row(ctx *c, const credential *cr, unsigned need, PGresult *res, int row, int col)
{
	if (!cr->token_digest)
		return accept_caller(c, cr, need, NULL);
	if (no_caller(res, row, col + UC_ID))
		return ERR_UNAUTHORIZED;
	caller *who = arena_alloc(c->a, sizeof(*who));
	who->id = db_int(res, row, col + UC_ID);
	who->admin = db_bool(res, row, col + UC_IS_ADMIN);
	who->external = db_bool(res, row, col + UC_EXTERNAL);
	who->username = db_val(res, row, col + UC_USERNAME);
	who->email = db_val(res, row, col + UC_EMAIL);
	who->can_create_group = db_bool(res, row, col + UC_CAN_CREATE_GROUP);
	who->token_kind = db_val(res, row, col + USER_NCOLS);
	who->scopes = db_val(res, row, col + USER_NCOLS + 1);
	who->res = res;
	who->row = row;
	who->col = col;
	return accept_caller(c, cr, need, who);
}

int auth_accept_lean(ctx *c, const credential *cr, unsigned need, PGresult *res, int row, int col)
{
	if (!cr->token_digest)
		return accept_caller(c, cr, need, NULL);
	if (no_caller(res, row, col + AL_ID))
		return ERR_UNAUTHORIZED;
	caller *who = arena_alloc(c->a, sizeof(*who));
	who->id = db_int(res, row, col + AL_ID);
	who->admin = db_bool(res, row, col + AL_IS_ADMIN);
	who->external = db_bool(res, row, col + AL_EXTERNAL);
	who->username = db_val(res, row, col + AL_USERNAME);
	who->email = db_val(res, row, col + AL_EMAIL);
	who->can_create_group = db_bool(res, row, col + AL_CAN_CREATE_GROUP);
	who->token_kind = db_val(res, row, col + AL_KIND);
	who->scopes = db_val(res, row, col + AL_SCOPES);
	if (!PQgetisnull(res, row, col + AL_USERS_EPOCH))
		c->users_epoch = db_int(res, row, col + AL_USERS_EPOCH);
	return accept_caller(c, cr, need, who);
}

int auth_authenticate(ctx *c, const credential *cr, unsigned need)
{
	if (!cr->token_digest)
		return accept_caller(c, cr, need, NULL);
	bool record = need & AUTH_CALLER_RECORD;
	const char *v[2];
	auth_params(cr, v);
	int err;
	PGresult *res = db_query(c, record ? "auth_token" : "auth_token_lean", 2, v, &err);
	if (!res)
		return err;
	return record ? auth_accept_row(c, cr, need, res, 0, 0)
		      : auth_accept_lean(c, cr, need, res, 0, 0);
}

int auth_query(ctx *c, const credential *cr, unsigned need, const char *stmt, const char *arg,
	       PGresult **res)
{
	const char *v[3];
	auth_params(cr, v);
	v[2] = arg;
	int err;
	if (!(*res = db_query(c, stmt, 3, v, &err)))
		return err;
	return auth_accept_lean(c, cr, need, *res, 0, 0);
}
