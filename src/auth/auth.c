#include "auth/auth.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "auth/scope.h"
#include "core/crypto.h"
#include "http/cache.h"
#include "http/router.h"

/* The caller by token ($1, $2 as AUTH_FROM) and the project of a route (FIND: by id $3,
 * or by path $3 and $4, auth/scope.h) in one statement: AUTH_LEAN's columns (the users'
 * epoch read), then the scope's (SCOPE_PROJECT_COLS, NULL when there is no such project),
 * locked as LOCK says; no row when the token matches nothing. */
#define AUTH_PROJECT(FIND, LOCK) AUTH_PROJECT_EPOCH(FIND, LOCK, USER_EPOCH)
#define AUTH_PROJECT_EPOCH(FIND, LOCK, EPOCH)                                                  \
	"WITH me AS (SELECT u.id, u.is_admin AS admin, u.external, u.username, u.email,"        \
	" u.can_create_group, t.kind, t.scopes::text AS scopes FROM " AUTH_FROM "), "           \
	FIND                                                                                    \
	" SELECT me.id, me.username, me.admin, me.external, me.email, me.can_create_group,"     \
	" me.kind, me.scopes, " EPOCH ", s.* FROM me"                                            \
	" LEFT JOIN LATERAL (SELECT " SCOPE_PROJECT_COLS " FROM " SCOPE_PROJECT_FROM LOCK ")"    \
	" s ON true"

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
	{"auth_project_no_epoch", AUTH_PROJECT_EPOCH(BY_ID, "", "NULL::bigint"), 3, NCOLS},
	{"auth_project_lock", AUTH_PROJECT(BY_ID, " FOR UPDATE OF p"), 3, NCOLS},
	{"auth_project_key_share", AUTH_PROJECT(BY_ID, " FOR KEY SHARE OF p"), 3, NCOLS},
	{"auth_project_path", AUTH_PROJECT(BY_PATH, ""), 4, NCOLS},
	{"auth_project_path_lock", AUTH_PROJECT(BY_PATH, " FOR UPDATE OF p"), 4, NCOLS},
	{"auth_project_path_key_share", AUTH_PROJECT(BY_PATH, " FOR KEY SHARE OF p"), 4, NCOLS},
#undef NCOLS
	{"auth_sudo_user",
	 "SELECT " USER_COLS " FROM users u WHERE NOT u.ghost AND "
	 "(u.id = (CASE WHEN $1 ~ '^[0-9]{1,18}$' THEN $1::bigint END) OR lower(u.username) = lower($1))", 1, USER_NCOLS},
	{NULL, NULL, 0, 0},
};

void auth_read_credentials(request *r)
{
	/* An empty value counts as absent, so that it does not hide the next source. */
	const char *token = request_header(r, "HTTP_PRIVATE_TOKEN");
	if (!token || !*token)
		token = param_str(r, "private_token");
	if (!token || !*token) {
		const char *h = request_header(r, "HTTP_AUTHORIZATION");
		token = NULL;
		if (h && strncasecmp(h, "Bearer ", 7) == 0) {
			token = h + 7;
			while (*token == ' ')
				token++;
		}
		if (!token || !*token)
			token = param_str(r, "access_token");
		r->oauth = token && *token;
	}
	if (token && *token)
		r->token_digest = crypto_sha256_hex(r->ctx.a, token, strlen(token));
	r->sudo = request_header(r, "HTTP_SUDO");
	if (!r->sudo || !*r->sudo)
		r->sudo = param_str(r, "sudo");
	if (r->sudo && !*r->sudo)
		r->sudo = NULL;
}

void auth_params(request *r, const char **values)
{
	values[0] = r->token_digest;
	values[1] = r->oauth ? "true" : "false";
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

/* As GitLab 10.0's sudo! (lib/api/helpers.rb): an admin, and only with the private
 * token; not with an OAuth, personal access or impersonation token. The messages are
 * its forbidden!(reason), "403 Forbidden" and " - reason" joined by a space. */
static int apply_sudo(request *r)
{
	if (!r->ctx.user->admin)
		return fail(r, ERR_FORBIDDEN, "403 Forbidden  - Must be admin to use sudo");
	if (!r->ctx.user->token_kind || strcmp(r->ctx.user->token_kind, "private") != 0)
		return fail(r, ERR_FORBIDDEN,
			    "403 Forbidden  - Private token must be specified in order to use sudo");
	const char *v[1] = {r->sudo};
	int err;
	PGresult *res = db_query(&r->ctx, "auth_sudo_user", 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail(r, ERR_SUDO_NOT_FOUND, r->sudo);
	caller *c = arena_alloc(r->ctx.a, sizeof(*c));
	c->id = db_int(res, 0, UC_ID);
	c->admin = db_bool(res, 0, UC_IS_ADMIN);
	c->external = db_bool(res, 0, UC_EXTERNAL);
	c->username = db_val(res, 0, UC_USERNAME);
	c->email = db_val(res, 0, UC_EMAIL);
	c->can_create_group = db_bool(res, 0, UC_CAN_CREATE_GROUP);
	c->scopes = r->ctx.user->scopes;
	c->token_kind = r->ctx.user->token_kind;
	c->res = res;
	c->row = 0;
	c->impersonated = true;
	r->ctx.user = c;
	/* which user the name names changes with any user's rename */
	cache_depend(r, CACHE_SET_USERS);
	cache_depend(r, CACHE_KEY_USER(c->id));
	return 0;
}

/* The checks once r->ctx.user is c (NULL: no credential was sent): scope, sudo, the route's
 * flags. */
static int accept_caller(request *r, unsigned flags, caller *c)
{
	r->ctx.user = c;
	if (c) {
		cache_depend(r, CACHE_KEY_USER(c->id));
		if (!has_scope(c->scopes, "api")) {
			bool read_only = (flags & ROUTE_READ_USER) && strcmp(r->method, "GET") == 0 &&
					 has_scope(c->scopes, "read_user");
			if (!read_only)
				return ERR_SCOPE;
		}
		if (r->sudo) {
			int rc = apply_sudo(r);
			if (rc < 0)
				return rc;
		}
	}
	if (!r->ctx.user && (flags & (ROUTE_AUTH | ROUTE_ADMIN)))
		return ERR_UNAUTHORIZED;
	if ((flags & ROUTE_ADMIN) && !r->ctx.user->admin)
		return ERR_FORBIDDEN;
	return 0;
}

/* A credential was sent and it matched nothing: no row, or NULLs at col. */
static bool no_caller(const PGresult *res, int row, int col)
{
	return !res || PQntuples(res) <= row || PQgetisnull(res, row, col);
}

int auth_accept_row(request *r, unsigned flags, PGresult *res, int row, int col)
{
	if (!r->token_digest)
		return accept_caller(r, flags, NULL);
	if (no_caller(res, row, col + UC_ID))
		return ERR_UNAUTHORIZED;
	caller *c = arena_alloc(r->ctx.a, sizeof(*c));
	c->id = db_int(res, row, col + UC_ID);
	c->admin = db_bool(res, row, col + UC_IS_ADMIN);
	c->external = db_bool(res, row, col + UC_EXTERNAL);
	c->username = db_val(res, row, col + UC_USERNAME);
	c->email = db_val(res, row, col + UC_EMAIL);
	c->can_create_group = db_bool(res, row, col + UC_CAN_CREATE_GROUP);
	c->token_kind = db_val(res, row, col + USER_NCOLS);
	c->scopes = db_val(res, row, col + USER_NCOLS + 1);
	c->res = res;
	c->row = row;
	c->col = col;
	return accept_caller(r, flags, c);
}

int auth_accept_lean(request *r, unsigned flags, PGresult *res, int row, int col)
{
	if (!r->token_digest)
		return accept_caller(r, flags, NULL);
	if (no_caller(res, row, col + AL_ID))
		return ERR_UNAUTHORIZED;
	caller *c = arena_alloc(r->ctx.a, sizeof(*c));
	c->id = db_int(res, row, col + AL_ID);
	c->admin = db_bool(res, row, col + AL_IS_ADMIN);
	c->external = db_bool(res, row, col + AL_EXTERNAL);
	c->username = db_val(res, row, col + AL_USERNAME);
	c->email = db_val(res, row, col + AL_EMAIL);
	c->can_create_group = db_bool(res, row, col + AL_CAN_CREATE_GROUP);
	c->token_kind = db_val(res, row, col + AL_KIND);
	c->scopes = db_val(res, row, col + AL_SCOPES);
	if (!PQgetisnull(res, row, col + AL_USERS_EPOCH))
		r->users_epoch = db_int(res, row, col + AL_USERS_EPOCH);
	return accept_caller(r, flags, c);
}

int auth_authenticate(request *r, unsigned flags)
{
	if (!r->token_digest)
		return accept_caller(r, flags, NULL);
	bool record = flags & ROUTE_CALLER_RECORD;
	const char *v[2];
	auth_params(r, v);
	int err;
	PGresult *res = db_query(&r->ctx, record ? "auth_token" : "auth_token_lean", 2, v, &err);
	if (!res)
		return err;
	return record ? auth_accept_row(r, flags, res, 0, 0) : auth_accept_lean(r, flags, res, 0, 0);
}

bool auth_with_project(const request *r, unsigned flags)
{
	return (flags & ROUTE_PROJECT) && r->token_digest && !r->sudo &&
	       !(flags & (ROUTE_NO_AUTH | ROUTE_SELF_AUTH | ROUTE_CALLER_RECORD));
}

int auth_authenticate_project(request *r, unsigned flags, scope_lock lock, PGresult **res)
{
	r->prefetched = NULL;
	*res = NULL;
	const char *v[4];
	auth_params(r, v);
	bool by_path;
	if (scope_project_ref(&r->ctx, param_str(r, "id"), v + 2, &by_path) < 0)
		return auth_authenticate(r, flags); /* a path that names no project */
	static const char *const stmts[][2] = {
		[SCOPE_READ] = {"auth_project", "auth_project_path"},
		[SCOPE_UPDATE] = {"auth_project_lock", "auth_project_path_lock"},
		[SCOPE_KEY_SHARE] = {"auth_project_key_share", "auth_project_path_key_share"},
	};
	const char *stmt = stmts[lock][by_path];
	if (lock == SCOPE_READ && !by_path && (flags & ROUTE_NO_USER_REFS))
		stmt = "auth_project_no_epoch";
	int err;
	PGresult *q;
	if (r->prefetch.stmt && lock == SCOPE_READ && !by_path && !db_in_transaction(&r->ctx))
		q = db_query_with(&r->ctx, stmt, 3, v, &r->prefetch, &r->prefetched, &err);
	else
		q = db_query(&r->ctx, stmt, by_path ? 4 : 3, v, &err);
	if (!q)
		return err;
	int rc = auth_accept_lean(r, flags, q, 0, 0);
	if (rc == 0)
		*res = q;
	return rc;
}
