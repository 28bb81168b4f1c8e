#include "auth/auth.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth/scope.h"
#include "core/crypto.h"
#include "core/log.h"
#include "http/cache.h"
#include "http/router.h"

/* The caller by token ($1, $2 as AUTH_FROM) and the project of a route (FIND: by id $3,
 * or by path $3 and $4, auth/scope.h) in one statement: AUTH_LEAN's columns (the users'
 * epoch read), then the scope's (SCOPE_PROJECT_COLS, NULL when there is no such project),
 * locked as LOCK says; no row when the token matches nothing. */
#define AUTH_PROJECT(FIND, LOCK) AUTH_PROJECT_AS(FIND, LOCK, USER_EPOCH, "")
#define AUTH_PROJECT_AS(FIND, LOCK, EPOCH, MORE)                                               \
	"WITH me AS (SELECT u.id, u.is_admin AS admin, u.external, u.username, u.email,"        \
	" u.can_create_group, t.kind, t.scopes::text AS scopes FROM " AUTH_FROM "), "           \
	FIND                                                                                    \
	" SELECT me.id, me.username, me.admin, me.external, me.email, me.can_create_group,"     \
	" me.kind, me.scopes, " EPOCH ", s.*" MORE " FROM me"                                    \
	" LEFT JOIN LATERAL (SELECT " SCOPE_PROJECT_COLS " FROM " SCOPE_PROJECT_FROM LOCK ")"    \
	" s ON true"
/* The keys the row of AUTH_PROJECT is read from (auth_cache_deps), as the response cache
 * names them (http/cache.h): everything (0), the caller (user, tokens, memberships), the
 * project (its row, group links, members) and its namespace (path, owner, visibility,
 * ancestors). */
#define AUTH_PROJECT_KEYS                                                                      \
	"ARRAY[0, me.id * 16 + 1, s.id * 16 + 2, s.namespace_id * 16 + 3]"

enum { AV_KEY, AV_VERSION, AV_NCOLS };

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
#define VERSIONS                                                                               \
	", (SELECT coalesce(sum(e.v), 0) FROM cache_epochs e WHERE e.k = ANY (" AUTH_PROJECT_KEYS \
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
	{"auth_lock", "SELECT p.id FROM projects p WHERE p.id = $1::bigint AND NOT p.pending_delete"
	 " FOR UPDATE OF p", 1, 1},
	{"auth_key_share",
	 "SELECT p.id FROM projects p WHERE p.id = $1::bigint AND NOT p.pending_delete"
	 " FOR KEY SHARE OF p", 1, 1},
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

/* The authentication cache (auth_cache_mb): auth_project's row for a token and a
 * project id, in a store the workers of an instance share (http/cache.h's), with the
 * sum of the versions of the keys it was read from (AUTH_PROJECT_KEYS), read in the
 * statement that read the row (auth_project_fill). A request that finds the row reads
 * those versions and the users' epoch (auth_versions, in the round trip of the
 * handler's prefetched statement, where auth_project would go): unchanged, the row
 * stands for auth_project's; changed, auth_project_fill reads it again. So a revoked
 * token, a blocked user, a membership or a visibility changed through any instance is
 * seen by the next request, as without the cache; a token or membership that expires
 * (a date) by the end of the UTC day the row was read (cache_expiry). A writing route
 * locks the project in its transaction before it reads the versions (auth_cache_find).
 * Only routes by project id: a path may come to name another project. With
 * cache_verify, every row found is
 * also read again by auth_project and compared (a difference is logged and answered
 * 500). */
#define AUTH_ROW_NCOLS (AUTH_LEAN_NCOLS + SCOPE_PROJECT_NCOLS)

static const char *auth_cache_key(request *r, const char *project_id)
{
	const char *s = arena_printf(r->ctx.a, "auth\n%s\n%d\n%s", r->token_digest, r->oauth,
				     project_id);
	return crypto_sha256_hex(r->ctx.a, s, strlen(s));
}

/* Row 0 of res (AUTH_ROW_NCOLS columns, the users' epoch left out: it is read at each
 * request) as the store keeps it: per column 'n' (NULL) or 'v' and the text, then NUL. */
static char *auth_row_pack(request *r, const PGresult *res, size_t *len)
{
	buf b;
	buf_init(&b, r->ctx.a, 512);
	for (int i = 0; i < AUTH_ROW_NCOLS; i++) {
		bool null = i == AL_USERS_EPOCH || PQgetisnull(res, 0, i);
		buf_putc(&b, null ? 'n' : 'v');
		if (!null)
			buf_puts(&b, PQgetvalue(res, 0, i));
		buf_putc(&b, '\0');
	}
	*len = b.len;
	return b.data;
}

static void clear_row(void *res)
{
	PQclear(res);
}

/* The row auth_row_pack packed, as a result of one row (freed with the arena). */
static PGresult *auth_row_unpack(request *r, const char *p, size_t len)
{
	PGresult *res = PQmakeEmptyPGresult(NULL, PGRES_TUPLES_OK);
	if (!res)
		return NULL;
	arena_defer(r->ctx.a, clear_row, res);
	PGresAttDesc cols[AUTH_ROW_NCOLS];
	for (int i = 0; i < AUTH_ROW_NCOLS; i++)
		cols[i] = (PGresAttDesc){.name = "c", .format = 0, .typid = 25, .typlen = -1,
					 .atttypmod = -1};
	if (!PQsetResultAttrs(res, AUTH_ROW_NCOLS, cols))
		return NULL;
	const char *end = p + len;
	for (int i = 0; i < AUTH_ROW_NCOLS; i++) {
		if (p >= end)
			return NULL;
		size_t n = strlen(p + 1);
		if (!PQsetvalue(res, 0, i, *p == 'n' ? NULL : (char *)p + 1, *p == 'n' ? -1 : (int)n))
			return NULL;
		p += n + 2;
	}
	return res;
}

/* The keys the row of res depends on (AUTH_PROJECT_KEYS) into deps: their number, or 0
 * when the row is not one to keep (no caller, no project). */
static int auth_row_deps(const PGresult *res, long long *deps)
{
	int id = AUTH_LEAN_NCOLS + SCOPE_PROJECT_COL_ID;
	int ns = AUTH_LEAN_NCOLS + SCOPE_PROJECT_COL_NAMESPACE_ID;
	if (PQntuples(res) != 1 || PQgetisnull(res, 0, AL_ID) || PQgetisnull(res, 0, id) ||
	    PQgetisnull(res, 0, ns))
		return 0;
	deps[0] = CACHE_KEY_ALL;
	deps[1] = CACHE_KEY_USER(db_int(res, 0, AL_ID));
	deps[2] = CACHE_KEY_PROJECT(db_int(res, 0, id));
	deps[3] = CACHE_KEY_NAMESPACE(db_int(res, 0, ns));
	return 4;
}

/* Keeps the row auth_project_fill read (its last column the versions' sum). */
static void auth_cache_put(request *r, const char *key, const PGresult *res)
{
	cache_entry e = {.expires = cache_expiry(time(NULL)), .status = 200, .headers = ""};
	e.ndeps = auth_row_deps(res, e.deps);
	if (!e.ndeps || PQgetisnull(res, 0, AUTH_ROW_NCOLS))
		return;
	e.sum = db_int(res, 0, AUTH_ROW_NCOLS);
	e.body = auth_row_pack(r, res, &e.body_len);
	snprintf(e.key, sizeof(e.key), "%s", key);
	cache_put(r->auth_cache, &e);
}

/* The row kept under key for project id, if the versions of its keys are still those it
 * was read with: 0 with it in *out (NULL: none, or no longer so), or an ERR_ code. A
 * reading route reads the versions in the round trip of its prefetched statement
 * (r->prefetched); a writing route's transaction first locks the project as the row's
 * statement would have (FOR UPDATE, FOR KEY SHARE), and reads them in the next
 * statement, after any writer it waited for. */
static int auth_cache_find(request *r, const char *key, scope_lock lock, const char *id,
			   PGresult **out)
{
	*out = NULL;
	cache_entry e;
	if (!cache_get(r->auth_cache, key, time(NULL), r->ctx.a, &e))
		return 0;
	buf keys;
	buf_init(&keys, r->ctx.a, 128);
	buf_putc(&keys, '{');
	for (int i = 0; i < e.ndeps; i++)
		buf_printf(&keys, "%lld,", e.deps[i]);
	buf_printf(&keys, "%lld}", CACHE_KEY_USER_VIEWS);
	const char *v[1] = {buf_cstr(&keys)};
	int err;
	PGresult *q;
	if (lock != SCOPE_READ) {
		const db_call versions = {"auth_versions", 1, v};
		const char *lv[1] = {id};
		PGresult *locked = db_query_with(&r->ctx, lock == SCOPE_UPDATE ? "auth_lock"
										: "auth_key_share",
						 1, lv, &versions, &q, &err);
		if (!locked)
			return err;
		if (!q)
			return ERR_INTERNAL; /* the transaction cannot go on */
		if (PQntuples(locked) != 1)
			return 0; /* gone: the row's statement tells */
	} else if (r->prefetch.stmt && !db_in_transaction(&r->ctx)) {
		q = db_query_with(&r->ctx, "auth_versions", 1, v, &r->prefetch, &r->prefetched, &err);
	} else {
		q = db_query(&r->ctx, "auth_versions", 1, v, &err);
	}
	if (!q)
		return err;
	long long sum = 0, epoch = 0;
	for (int i = 0; i < PQntuples(q); i++) {
		long long k = db_int(q, i, AV_KEY), ver = db_int(q, i, AV_VERSION);
		for (int j = 0; j < e.ndeps; j++)
			if (e.deps[j] == k)
				sum += ver;
		if (k == CACHE_KEY_ALL || k == CACHE_KEY_USER_VIEWS)
			epoch += ver;
	}
	if (sum != e.sum) {
		cache_remove(r->auth_cache, key);
		return 0;
	}
	*out = auth_row_unpack(r, e.body, e.body_len);
	if (*out)
		r->users_epoch = epoch;
	return 0;
}

/* cache_verify: the row found against auth_project's. */
static int auth_cache_verify(request *r, const char *const *v, const PGresult *found)
{
	int err;
	PGresult *q = db_query(&r->ctx, "auth_project", 3, v, &err);
	if (!q)
		return err;
	size_t a_len = 0, b_len = 0;
	const char *a = PQntuples(q) == 1 ? auth_row_pack(r, q, &a_len) : "";
	const char *b = auth_row_pack(r, found, &b_len);
	if (a_len != b_len || memcmp(a, b, a_len) != 0) {
		log_error("authentication cache: the row kept for project %s is not the database's",
			  v[2]);
		return ERR_INTERNAL;
	}
	return 0;
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
	const char *key = NULL;
	PGresult *q = NULL;
	int err;
	if (r->auth_cache && !by_path) {
		static const char *const fill[] = {
			[SCOPE_READ] = "auth_project_fill",
			[SCOPE_UPDATE] = "auth_project_lock_fill",
			[SCOPE_KEY_SHARE] = "auth_project_key_share_fill",
		};
		key = auth_cache_key(r, v[2]);
		if ((err = auth_cache_find(r, key, lock, v[2], &q)) < 0)
			return err;
		if (q && r->ctx.cfg->cache_verify && (err = auth_cache_verify(r, v, q)) < 0)
			return err;
		stmt = fill[lock];
	} else if (lock == SCOPE_READ && !by_path && (flags & ROUTE_NO_USER_REFS)) {
		stmt = "auth_project_no_epoch";
	}
	if (!q) {
		bool with = r->prefetch.stmt && !r->prefetched && lock == SCOPE_READ && !by_path &&
			    !db_in_transaction(&r->ctx);
		if (with)
			q = db_query_with(&r->ctx, stmt, 3, v, &r->prefetch, &r->prefetched, &err);
		else
			q = db_query(&r->ctx, stmt, by_path ? 4 : 3, v, &err);
		if (!q)
			return err;
		if (key)
			auth_cache_put(r, key, q);
	}
	int rc = auth_accept_lean(r, flags, q, 0, 0);
	if (rc == 0)
		*res = q;
	return rc;
}
