/* Impersonation tokens (admin only, GitLab 10.0) and POST /oauth/token. */
#include <string.h>
#include <stdio.h>

#include "api/api.h"
#include "db/settings.h"
#include "auth/auth.h"
#include "core/crypto.h"
#include "core/validate.h"
#include "entity/entity.h"
#include "entity/token.h"
#include "http/pagination.h"

/* imp_tokens_show's row: the user, then the token (NULLs: none) */
enum { ITS_USER, ITS_TOKEN, ITS_NCOLS = ITS_TOKEN + TOKEN_NCOLS };
enum { TI_USER, TI_NAME, TI_DIGEST, TI_SCOPES, TI_EXPIRES_AT, TI_KIND, TI_NPARAMS };
enum { ITR_USER, ITR_REVOKED, ITR_NCOLS };
enum { OU_ID, OU_PASSWORD_HASH, OU_NCOLS };

const db_stmt tokens_stmts[] = {
	/* $1 user, $2 state (all, active, inactive), $3 limit, $4 offset */
	{"imp_tokens_list",
	 "WITH f AS (SELECT t.* FROM tokens t WHERE t.user_id = $1 AND t.kind = 'impersonation'"
	 " AND ($2 = 'all' OR ($2 = 'active') = (NOT t.revoked AND (t.expires_at IS NULL OR"
	 " t.expires_at > current_date))))"
	 "SELECT (SELECT count(*) FROM f), p.* FROM users u LEFT JOIN LATERAL"
	 " (SELECT " TOKEN_COLS " FROM f t ORDER BY t.id LIMIT $3 OFFSET $4) p ON true"
	 " WHERE u.id = $1 AND NOT u.ghost",
	 4, 1 + TOKEN_NCOLS},
	{"imp_tokens_show",
	 "SELECT u.id, p.* FROM users u LEFT JOIN LATERAL (SELECT " TOKEN_COLS " FROM tokens t"
	 " WHERE t.id = $2 AND t.user_id = u.id AND t.kind = 'impersonation') p ON true"
	 " WHERE u.id = $1 AND NOT u.ghost",
	 2, ITS_NCOLS},
	{"tokens_insert",
	 "INSERT INTO tokens AS t (user_id, kind, name, digest, scopes, expires_at)"
	 " SELECT u.id, $6, $2, $3, $4::text[], $5::date FROM users u"
	 " WHERE u.id = $1 AND NOT u.ghost RETURNING " TOKEN_COLS,
	 TI_NPARAMS, TOKEN_NCOLS},
	{"imp_tokens_revoke",
	 "WITH t AS (UPDATE tokens SET revoked = true WHERE id = $2 AND user_id = $1"
	 " AND kind = 'impersonation' RETURNING id)"
	 "SELECT u.id, (SELECT id FROM t) FROM users u WHERE u.id = $1 AND NOT u.ghost",
	 2, ITR_NCOLS},
	{"oauth_user",
	 "SELECT id, password_hash FROM users WHERE (lower(username) = lower($1) OR"
	 " lower(email) = lower($1)) AND state = 'active' AND NOT ghost",
	 1, OU_NCOLS},
	/* $1 user, $2 digest, $3 refresh digest; a sign-in is the user's activity of the
	 * day (GitLab 10.8's Users::ActivityService on sign-in, db/activity.h) */
	{"oauth_insert",
	 "WITH s AS (UPDATE users SET last_sign_in_at = current_sign_in_at,"
	 " current_sign_in_at = now(), last_activity_on = current_date WHERE id = $1)"
	 "INSERT INTO tokens (user_id, kind, name, digest, refresh_digest, scopes)"
	 " VALUES ($1, 'oauth', 'oauth', $2, $3, '{api}') RETURNING extract(epoch FROM created_at)::bigint",
	 3, 1},
	{NULL, NULL, 0, 0},
};

static json_object *present_token(ctx *c, const PGresult *res, int row, int col)
{
	return entity_token(c, res, row, col, NULL);
}

static int user_param(request *r, const char **out)
{
	return api_id(r, "user_id", out);
}

static int impersonation_tokens_list(request *r)
{
	const char *uid, *state = "all";
	int rc = user_param(r, &uid);
	if (rc < 0)
		return rc;
	static const char *const states[] = {"all", "active", "inactive", NULL};
	if ((rc = param_oneof(r, "state", states, &state)) < 0)
		return rc;
	page_req pg;
	if ((rc = pagination_parse(r, &pg)) < 0)
		return rc;
	const char *v[4] = {uid, state, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	PGresult *res;
	if ((rc = api_find(r, "imp_tokens_list", 4, v, "User", &res)) < 0)
		return rc;
	api_respond_page(r, &pg, res, present_token);
	return 0;
}

/* Runs stmt on token :impersonation_token_id of user :user_id: 0 with its row (the
 * token's column col NULL when the user has no such token), 404 User or Impersonation
 * Token, or an ERR_ code. */
static int find_token(request *r, const char *stmt, int col, PGresult **out)
{
	const char *v[2];
	int rc;
	if ((rc = user_param(r, &v[0])) < 0 ||
	    (rc = api_id(r, "impersonation_token_id", &v[1])) < 0 ||
	    (rc = api_find(r, stmt, 2, v, "User", out)) < 0)
		return rc;
	return PQgetisnull(*out, 0, col) ? fail_not_found(r, "Impersonation Token") : 0;
}

static int impersonation_tokens_show(request *r)
{
	PGresult *res;
	int rc = find_token(r, "imp_tokens_show", ITS_TOKEN, &res);
	if (rc < 0)
		return rc;
	respond_json(r, 200, entity_token(&r->ctx, res, 0, ITS_TOKEN, NULL));
	return 0;
}

int tokens_insert(ctx *c, const char *uid, const char *name, const char *const *scopes, int n,
		  const char *expires, const char *kind, user_problem_fn *problem, void *arg,
		  PGresult **res, char token[TOKEN_LEN + 1])
{
	if (expires && !valid_datetime(expires)) {
		c->err_detail = "expires_at is invalid";
		return ERR_INVALID;
	}
	if (expires && strlen(expires) > 10)
		expires = arena_strndup(c->a, expires, 10);
	if (n == 0) {
		c->err_detail = "scopes";
		return ERR_MISSING;
	}
	/* each scope once, in the order first given */
	static const char *const known[] = {"api", "read_user"};
	int order[2], kinds = 0;
	bool seen[2] = {false, false};
	for (int i = 0; i < n; i++) {
		int k = !scopes[i]                         ? -1
			: strcmp(scopes[i], known[0]) == 0 ? 0
			: strcmp(scopes[i], known[1]) == 0 ? 1
							   : -1;
		if (k < 0) {
			c->err_detail = "scopes does not have a valid value";
			return ERR_INVALID;
		}
		if (!seen[k]) {
			seen[k] = true;
			order[kinds++] = k;
		}
	}
	buf s;
	buf_init(&s, c->a, 32);
	buf_putc(&s, '{');
	for (int i = 0; i < kinds; i++)
		buf_printf(&s, "%s%s", i ? "," : "", known[order[i]]);
	buf_putc(&s, '}');
	if (utf8_chars(name) > 255) {
		problem(arg, "name", "is too long (maximum is 255 characters)");
		return ERR_VALIDATION;
	}
	if (crypto_token(token) < 0)
		return ERR_INTERNAL;
	const char *v[TI_NPARAMS] = {
		[TI_USER] = uid,
		[TI_NAME] = name,
		[TI_DIGEST] = crypto_sha256_hex(c->a, token, strlen(token)),
		[TI_SCOPES] = buf_cstr(&s),
		[TI_EXPIRES_AT] = expires,
		[TI_KIND] = kind,
	};
	int err;
	if (!(*res = db_query(c, "tokens_insert", TI_NPARAMS, v, &err)))
		return err;
	if (PQntuples(*res) == 0) {
		c->err_detail = "User";
		return ERR_NOT_FOUND;
	}
	return 0;
}

static void report_problem(void *r, const char *field, const char *message)
{
	fail_validation(r, field, message);
}

/* Creates a token of kind (impersonation, personal) for :user_id from name, scopes[]
 * and expires_at; answers it with its secret, shown this once. */
static int tokens_create(request *r, const char *kind)
{
	const char *uid, *name, *expires = NULL;
	int rc;
	if ((rc = user_param(r, &uid)) < 0 || (rc = param_require(r, "name", &name)) < 0)
		return rc;
	if ((rc = param_date(r, "expires_at", &expires)) < 0)
		return rc;
	const char **scopes;
	int n = param_array(r, "scopes", &scopes);
	if (n < 0)
		return n;
	char token[TOKEN_LEN + 1];
	PGresult *res;
	if ((rc = tokens_insert(&r->ctx, uid, name, scopes, n, expires, kind, report_problem, r,
				&res, token)) < 0)
		return rc;
	respond_json(r, 201, entity_token(&r->ctx, res, 0, 0, token));
	return 0;
}

static int impersonation_tokens_create(request *r)
{
	return tokens_create(r, "impersonation");
}

static int impersonation_tokens_revoke(request *r)
{
	PGresult *res;
	int rc = find_token(r, "imp_tokens_revoke", ITR_REVOKED, &res);
	if (rc < 0)
		return rc;
	respond_empty(r, 204);
	return 0;
}

/* OAuth 2 resource owner password grant (Doorkeeper's answers and error bodies). The
 * Doorkeeper 4.2 of GitLab 10.x answers every token error with 401, not RFC 6749's 400. */
static int oauth_token(request *r)
{
	const char *grant = param_str(r, "grant_type");
	if (!grant || !*grant)
		return fail(r, ERR_OAUTH, "401 invalid_request");
	if (strcmp(grant, "password") != 0)
		return fail(r, ERR_OAUTH, "401 unsupported_grant_type");
	const char *login = param_str(r, "username"), *password = param_str(r, "password");
	if (!login || !password || !*login)
		return fail(r, ERR_OAUTH, "401 invalid_request");
	/* GitLab 10.8's find_with_user_password, which its Doorkeeper grant calls: no
	 * password is tried while password_authentication_enabled_for_git is off */
	if (!settings_password_authentication_for_git(&r->ctx))
		return fail(r, ERR_OAUTH, "401 invalid_grant");
	const char *v[1] = {login};
	int err;
	PGresult *res = db_query(&r->ctx, "oauth_user", 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) != 1 ||
	    !crypto_password_check(password, db_val(res, 0, OU_PASSWORD_HASH)))
		return fail(r, ERR_OAUTH, "401 invalid_grant");
	char token[65], refresh[65];
	unsigned char raw[32];
	/* Doorkeeper tokens are 64 hex characters */
	if (crypto_random(raw, 32) < 0)
		return ERR_INTERNAL;
	for (int i = 0; i < 32; i++)
		snprintf(token + 2 * i, 3, "%02x", raw[i]);
	if (crypto_random(raw, 32) < 0)
		return ERR_INTERNAL;
	for (int i = 0; i < 32; i++)
		snprintf(refresh + 2 * i, 3, "%02x", raw[i]);
	const char *iv[3] = {db_val(res, 0, OU_ID), crypto_sha256_hex(r->ctx.a, token, 64),
			     crypto_sha256_hex(r->ctx.a, refresh, 64)};
	PGresult *ins = db_query(&r->ctx, "oauth_insert", 3, iv, &err);
	if (!ins)
		return err;
	json_object *o = json_object_new_object();
	json_put_str(o, "access_token", token);
	json_put_str(o, "token_type", "bearer");
	json_put_str(o, "refresh_token", refresh);
	json_put_str(o, "scope", "api");
	json_put_int(o, "created_at", db_int(ins, 0, 0));
	respond_header(r, "Cache-Control", "no-store");
	respond_header(r, "Pragma", "no-cache");
	respond_json(r, 200, o);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route tokens_routes[] = {
	{"GET", V4 "/users/:user_id/impersonation_tokens", impersonation_tokens_list, ADMIN, NULL},
	{"POST", V4 "/users/:user_id/impersonation_tokens", impersonation_tokens_create, ADMIN,
	 NULL},
	{"GET", V4 "/users/:user_id/impersonation_tokens/:impersonation_token_id",
	 impersonation_tokens_show, ADMIN, NULL},
	{"DELETE", V4 "/users/:user_id/impersonation_tokens/:impersonation_token_id",
	 impersonation_tokens_revoke, ADMIN, NULL},
	{"POST", "/oauth/token", oauth_token, ROUTE_NO_AUTH, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
