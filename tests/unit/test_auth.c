/* Unit suite: auth (credentials, the checks on a caller row, the access decisions made
 * in C; no database). */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Check's deprecated fail() macro would hide the request module's fail(). */
#undef fail

#include "auth/access.h"
#include "auth/auth.h"
#include "core/crypto.h"
#include "shell.h"
#include "http/router.h"

static arena *A;
static config cfg;
static request R;
static char external_url[] = "http://localhost";

/* The request's headers, by CGI name; ends with a NULL name. */
struct header {
	const char *name, *value;
};
static struct header headers[8];

static const char *header_fn(void *hctx, const char *cgi_name)
{
	for (const struct header *h = hctx; h->name; h++)
		if (strcmp(h->name, cgi_name) == 0)
			return h->value;
	return NULL;
}

static void setup(void)
{
	A = arena_new();
	memset(&cfg, 0, sizeof(cfg));
	cfg.external_url = external_url;
	memset(headers, 0, sizeof(headers));
}

static void teardown(void)
{
	arena_destroy(A);
	A = NULL;
}

/* A request for method and uri carrying the given headers (name, value, ..., NULL), with
 * its credentials read. */
static void credentials(const char *method, const char *uri, ...)
{
	va_list ap;
	va_start(ap, uri);
	int n = 0;
	const char *name;
	while ((name = va_arg(ap, const char *)) != NULL) {
		ck_assert_int_lt(n, 7);
		headers[n].name = name;
		headers[n].value = va_arg(ap, const char *);
		n++;
	}
	va_end(ap);
	headers[n].name = NULL;
	request_init(&R, A, &cfg);
	R.header_fn = header_fn;
	R.header_ctx = headers;
	ck_assert_int_eq(request_parse(&R, method, uri, NULL, NULL, 0), 0);
	request_read_credentials(&R);
}

static const char *digest(const char *token)
{
	return crypto_sha256_hex(A, token, strlen(token));
}

#define ABC_SHA256 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

START_TEST(test_no_credentials)
{
	credentials("GET", "/api/v4/user", NULL);
	ck_assert_ptr_null(R.cred.token_digest);
	ck_assert(!R.cred.oauth);
	ck_assert_ptr_null(R.cred.sudo);
	/* no header function at all */
	request_init(&R, A, &cfg);
	ck_assert_int_eq(request_parse(&R, "GET", "/api/v4/user", NULL, NULL, 0), 0);
	request_read_credentials(&R);
	ck_assert_ptr_null(R.cred.token_digest);
	ck_assert_ptr_null(R.cred.sudo);
}
END_TEST

START_TEST(test_private_token_header)
{
	credentials("GET", "/api/v4/user", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(!R.cred.oauth);
}
END_TEST

START_TEST(test_private_token_param)
{
	credentials("GET", "/api/v4/user?private_token=abc", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(!R.cred.oauth);
	/* also from a form body */
	request_init(&R, A, &cfg);
	ck_assert_int_eq(request_parse(&R, "POST", "/api/v4/user/keys",
				       "application/x-www-form-urlencoded", "private_token=xyz-_1",
				       20),
			 0);
	request_read_credentials(&R);
	ck_assert_str_eq(R.cred.token_digest, digest("xyz-_1"));
}
END_TEST

START_TEST(test_private_token_header_wins_over_param)
{
	credentials("GET", "/api/v4/user?private_token=other", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
}
END_TEST

START_TEST(test_bearer)
{
	credentials("GET", "/api/v4/user", "HTTP_AUTHORIZATION", "Bearer abc", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(R.cred.oauth);
	credentials("GET", "/api/v4/user", "HTTP_AUTHORIZATION", "bearer   abc", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(R.cred.oauth);
	/* other schemes are not ours */
	credentials("GET", "/api/v4/user", "HTTP_AUTHORIZATION", "Basic YWJjOmRlZg==", NULL);
	ck_assert_ptr_null(R.cred.token_digest);
	ck_assert(!R.cred.oauth);
	credentials("GET", "/api/v4/user", "HTTP_AUTHORIZATION", "Bearerabc", NULL);
	ck_assert_ptr_null(R.cred.token_digest);
	/* an empty bearer token is no credential */
	credentials("GET", "/api/v4/user", "HTTP_AUTHORIZATION", "Bearer ", NULL);
	ck_assert_ptr_null(R.cred.token_digest);
}
END_TEST

START_TEST(test_access_token_param)
{
	credentials("GET", "/api/v4/user?access_token=abc", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(R.cred.oauth);
	/* the Authorization header is looked at first */
	credentials("GET", "/api/v4/user?access_token=other", "HTTP_AUTHORIZATION", "Bearer abc",
		    NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(R.cred.oauth);
}
END_TEST

START_TEST(test_private_token_wins_over_oauth)
{
	credentials("GET", "/api/v4/user?access_token=other", "HTTP_PRIVATE_TOKEN", "abc",
		    "HTTP_AUTHORIZATION", "Bearer other", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(!R.cred.oauth);
	credentials("GET", "/api/v4/user?private_token=abc&access_token=other", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(!R.cred.oauth);
}
END_TEST

START_TEST(test_empty_private_token_is_absent)
{
	credentials("GET", "/api/v4/user?private_token=abc", "HTTP_PRIVATE_TOKEN", "", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(!R.cred.oauth);
	credentials("GET", "/api/v4/user?private_token=", "HTTP_AUTHORIZATION", "Bearer abc", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(R.cred.oauth);
	credentials("GET", "/api/v4/user?private_token=", NULL);
	ck_assert_ptr_null(R.cred.token_digest);
	ck_assert(!R.cred.oauth);
	credentials("GET", "/api/v4/user?access_token=abc", "HTTP_AUTHORIZATION", "Bearer  ", NULL);
	ck_assert_str_eq(R.cred.token_digest, ABC_SHA256);
	ck_assert(R.cred.oauth);
	credentials("GET", "/api/v4/user?access_token=", "HTTP_AUTHORIZATION", "Bearer ", NULL);
	ck_assert_ptr_null(R.cred.token_digest);
	ck_assert(!R.cred.oauth);
	credentials("GET", "/api/v4/user?sudo=root", "HTTP_SUDO", "", NULL);
	ck_assert_str_eq(R.cred.sudo, "root");
}
END_TEST

START_TEST(test_sudo)
{
	credentials("GET", "/api/v4/user", "HTTP_PRIVATE_TOKEN", "abc", "HTTP_SUDO", "root", NULL);
	ck_assert_str_eq(R.cred.sudo, "root");
	credentials("GET", "/api/v4/user?sudo=42", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	ck_assert_str_eq(R.cred.sudo, "42");
	credentials("GET", "/api/v4/user?sudo=42", "HTTP_SUDO", "root", NULL);
	ck_assert_str_eq(R.cred.sudo, "root");
	credentials("GET", "/api/v4/user?sudo=", NULL);
	ck_assert_ptr_null(R.cred.sudo);
	credentials("GET", "/api/v4/user", "HTTP_SUDO", "", NULL);
	ck_assert_ptr_null(R.cred.sudo);
}
END_TEST

START_TEST(test_auth_params)
{
	const char *v[2];
	credentials("GET", "/api/v4/user", "HTTP_AUTHORIZATION", "Bearer abc", NULL);
	auth_params(&R.cred, v);
	ck_assert_str_eq(v[0], ABC_SHA256);
	ck_assert_str_eq(v[1], "true");
	credentials("GET", "/api/v4/user", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	auth_params(&R.cred, v);
	ck_assert_str_eq(v[1], "false");
	credentials("GET", "/api/v4/user", NULL);
	auth_params(&R.cred, v);
	ck_assert_ptr_null(v[0]);
}
END_TEST

/* ---- without a token: no database is needed ---- */

START_TEST(test_anonymous)
{
	credentials("GET", "/api/v4/projects", NULL);
	ck_assert_int_eq(auth_authenticate(&R.ctx, &R.cred, ROUTE_PUBLIC), 0);
	ck_assert_ptr_null(R.ctx.user);
	ck_assert_int_eq(auth_authenticate(&R.ctx, &R.cred, ROUTE_READ_USER), 0);
	ck_assert_int_eq(auth_authenticate(&R.ctx, &R.cred, ROUTE_AUTH), ERR_UNAUTHORIZED);
	ck_assert_int_eq(auth_authenticate(&R.ctx, &R.cred, ROUTE_ADMIN), ERR_UNAUTHORIZED);
	ck_assert_int_eq(auth_authenticate(&R.ctx, &R.cred, ROUTE_AUTH | ROUTE_ADMIN),
			 ERR_UNAUTHORIZED);
	ck_assert_int_eq(auth_accept_row(&R.ctx, &R.cred, ROUTE_PUBLIC, NULL, 0, 0), 0);
	ck_assert_int_eq(auth_accept_row(&R.ctx, &R.cred, ROUTE_AUTH, NULL, 0, 0),
			 ERR_UNAUTHORIZED);
	ck_assert_ptr_null(R.ctx.user);
}
END_TEST

START_TEST(test_anonymous_sudo_is_unauthorized)
{
	/* sudo without a credential is not looked at; the route decides */
	credentials("GET", "/api/v4/user?sudo=root", NULL);
	ck_assert_int_eq(auth_authenticate(&R.ctx, &R.cred, ROUTE_AUTH), ERR_UNAUTHORIZED);
	ck_assert_int_eq(auth_authenticate(&R.ctx, &R.cred, ROUTE_PUBLIC), 0);
	ck_assert_ptr_null(R.ctx.user);
}
END_TEST

/* ---- a caller row made by hand (the shape AUTH_SELECT returns) ---- */

static void clear_result(void *res)
{
	PQclear(res);
}

/* A result with lead extra columns, then AUTH_NCOLS caller columns per row. id NULL
 * leaves the caller columns NULL, as when a token matches nothing. */
struct caller_row {
	const char *id, *username, *is_admin, *kind, *scopes;
};

static PGresult *caller_result(int lead, const struct caller_row *rows, int nrows)
{
	PGresult *res = PQmakeEmptyPGresult(NULL, PGRES_TUPLES_OK);
	ck_assert_ptr_nonnull(res);
	arena_defer(A, clear_result, res);
	int ncols = lead + AUTH_NCOLS;
	PGresAttDesc *attrs = arena_alloc(A, sizeof(*attrs) * (size_t)ncols);
	for (int i = 0; i < ncols; i++) {
		attrs[i].name = arena_printf(A, "c%d", i);
		attrs[i].typid = 25; /* text */
		attrs[i].typlen = -1;
		attrs[i].atttypmod = -1;
	}
	ck_assert_int_eq(PQsetResultAttrs(res, ncols, attrs), 1);
	for (int r = 0; r < nrows; r++) {
		for (int i = 0; i < lead; i++)
			ck_assert_int_eq(PQsetvalue(res, r, i, "lead", 4), 1);
		const struct caller_row *c = &rows[r];
		const struct {
			int col;
			const char *v;
		} cells[] = {
			{UC_ID, c->id},
			{UC_USERNAME, c->username},
			{UC_IS_ADMIN, c->is_admin},
			{USER_NCOLS, c->kind},
			{USER_NCOLS + 1, c->scopes},
		};
		/* unset cells stay NULL; a row needs at least one set cell to exist */
		ck_assert_int_eq(PQsetvalue(res, r, lead + UC_NAME, "Name", 4), 1);
		for (size_t i = 0; i < sizeof(cells) / sizeof(*cells); i++) {
			if (!c->id || !cells[i].v)
				continue;
			int len = (int)strlen(cells[i].v);
			char *v = (char *)cells[i].v;
			ck_assert_int_eq(PQsetvalue(res, r, lead + cells[i].col, v, len), 1);
		}
	}
	return res;
}

static const struct caller_row USER_API = {"42", "john", "f", "personal", "{api}"};
static const struct caller_row ADMIN_API = {"1", "root", "t", "private", "{api}"};
static const struct caller_row USER_READ = {"43", "reader", "f", "personal", "{read_user}"};
static const struct caller_row NO_MATCH = {NULL, NULL, NULL, NULL, NULL};

/* The credentials of a request with a token, and the result of checking row against
 * a route with flags. */
static int accept_caller(const char *method, const char *uri, unsigned flags,
			 const struct caller_row *row)
{
	credentials(method, uri, "HTTP_PRIVATE_TOKEN", "abc", NULL);
	ck_assert_ptr_nonnull(R.cred.token_digest);
	return auth_accept_row(&R.ctx, &R.cred, flags, caller_result(0, row, 1), 0, 0);
}

START_TEST(test_token_without_row_is_unauthorized)
{
	credentials("GET", "/api/v4/projects", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	/* a credential that was sent and did not match is 401 even on a public route */
	ck_assert_int_eq(auth_accept_row(&R.ctx, &R.cred, ROUTE_PUBLIC, NULL, 0, 0),
			 ERR_UNAUTHORIZED);
	ck_assert_int_eq(auth_accept_row(&R.ctx, &R.cred, ROUTE_PUBLIC, caller_result(0, NULL, 0),
					 0, 0),
			 ERR_UNAUTHORIZED);
	ck_assert_int_eq(auth_accept_row(&R.ctx, &R.cred, ROUTE_PUBLIC,
					 caller_result(2, &NO_MATCH, 1), 0, 2),
			 ERR_UNAUTHORIZED);
	ck_assert_int_eq(auth_accept_row(&R.ctx, &R.cred, ROUTE_PUBLIC,
					 caller_result(0, &USER_API, 1), 1, 0),
			 ERR_UNAUTHORIZED); /* row past the end */
	ck_assert_ptr_null(R.ctx.user);
}
END_TEST

START_TEST(test_token_caller)
{
	ck_assert_int_eq(accept_caller("GET", "/api/v4/user", ROUTE_AUTH, &USER_API), 0);
	ck_assert_ptr_nonnull(R.ctx.user);
	ck_assert_int_eq(R.ctx.user->id, 42);
	ck_assert_str_eq(R.ctx.user->username, "john");
	ck_assert(!R.ctx.user->admin);
	ck_assert_str_eq(R.ctx.user->token_kind, "personal");
	ck_assert_str_eq(R.ctx.user->scopes, "{api}");
	ck_assert(!R.ctx.user->impersonated);
	ck_assert_int_eq(auth_is_admin(&R.ctx), 0);
	ck_assert_int_eq(accept_caller("GET", "/api/v4/projects", ROUTE_PUBLIC, &USER_API), 0);
	ck_assert_int_eq(R.ctx.user->id, 42);
}
END_TEST

START_TEST(test_token_caller_at_column)
{
	/* a statement that fetches a record and the caller in one row */
	const struct caller_row rows[] = {USER_API, ADMIN_API};
	credentials("GET", "/api/v4/users/1", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	PGresult *res = caller_result(3, rows, 2);
	ck_assert_int_eq(auth_accept_row(&R.ctx, &R.cred, ROUTE_ADMIN, res, 1, 3), 0);
	ck_assert_int_eq(R.ctx.user->id, 1);
	ck_assert_str_eq(R.ctx.user->username, "root");
	ck_assert_int_eq(R.ctx.user->row, 1);
	ck_assert_int_eq(R.ctx.user->col, 3);
	ck_assert_int_eq(auth_is_admin(&R.ctx), 1);
}
END_TEST

START_TEST(test_admin_routes)
{
	ck_assert_int_eq(accept_caller("POST", "/api/v4/users", ROUTE_ADMIN, &USER_API),
			 ERR_FORBIDDEN);
	ck_assert_int_eq(accept_caller("POST", "/api/v4/users", ROUTE_AUTH | ROUTE_ADMIN,
				       &USER_API),
			 ERR_FORBIDDEN);
	ck_assert_int_eq(accept_caller("POST", "/api/v4/users", ROUTE_ADMIN, &ADMIN_API), 0);
	ck_assert(R.ctx.user->admin);
}
END_TEST

START_TEST(test_scopes)
{
	/* read_user tokens: only GET on routes that allow them */
	const unsigned read_user = ROUTE_AUTH | ROUTE_READ_USER;
	ck_assert_int_eq(accept_caller("GET", "/api/v4/user", read_user, &USER_READ), 0);
	ck_assert_int_eq(R.ctx.user->id, 43);
	ck_assert_int_eq(accept_caller("HEAD", "/api/v4/user", read_user, &USER_READ), 0);
	ck_assert_int_eq(accept_caller("POST", "/api/v4/user/keys", read_user, &USER_READ),
			 ERR_SCOPE);
	ck_assert_int_eq(accept_caller("GET", "/api/v4/projects", ROUTE_AUTH, &USER_READ),
			 ERR_SCOPE);
	ck_assert_int_eq(accept_caller("GET", "/api/v4/projects", ROUTE_PUBLIC, &USER_READ),
			 ERR_SCOPE);

	static const struct {
		const char *scopes;
		int want;
	} t[] = {
		{"{api}", 0},
		{"{read_user,api}", 0},
		{"{api,read_user}", 0},
		{"{read_user}", ERR_SCOPE},
		{"{}", ERR_SCOPE},
		{"{apis}", ERR_SCOPE},
		{"{read_api}", ERR_SCOPE},
		{"{ap}", ERR_SCOPE},
		{"", ERR_SCOPE},
		{NULL, ERR_SCOPE},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		struct caller_row row = USER_API;
		row.scopes = t[i].scopes;
		ck_assert_msg(accept_caller("GET", "/api/v4/projects", ROUTE_AUTH, &row) ==
				      t[i].want,
			      "scopes %s", t[i].scopes ? t[i].scopes : "NULL");
	}
}
END_TEST

START_TEST(test_sudo_needs_admin)
{
	/* refused before any lookup of the sudo user, so no database is needed */
	credentials("GET", "/api/v4/user?sudo=root", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	ck_assert_int_eq(auth_accept_row(&R.ctx, &R.cred, ROUTE_AUTH,
					 caller_result(0, &USER_API, 1), 0, 0),
			 ERR_FORBIDDEN);
	ck_assert_str_eq(R.ctx.err_detail, "403 Forbidden  - Must be admin to use sudo");
	respond_error(&R, ERR_FORBIDDEN);
	ck_assert_int_eq(R.status, 403);
	ck_assert_str_eq(R.body, "{\"message\":\"403 Forbidden  - Must be admin to use sudo\"}");
	/* a token without the api scope is refused for its scope first */
	credentials("GET", "/api/v4/user", "HTTP_PRIVATE_TOKEN", "abc", "HTTP_SUDO", "root", NULL);
	ck_assert_int_eq(auth_accept_row(&R.ctx, &R.cred, ROUTE_AUTH,
					 caller_result(0, &USER_READ, 1), 0, 0),
			 ERR_SCOPE);
}
END_TEST

/* ---- the lean caller row (AUTH_LEAN) ---- */

/* A result with lead extra columns, then the AUTH_LEAN columns of caller c (all NULL
 * when c is NULL, as when a token matches nothing). */
static PGresult *lean_result(int lead, const char *const *c)
{
	PGresult *res = PQmakeEmptyPGresult(NULL, PGRES_TUPLES_OK);
	ck_assert_ptr_nonnull(res);
	arena_defer(A, clear_result, res);
	int ncols = lead + AUTH_LEAN_NCOLS;
	PGresAttDesc *attrs = arena_alloc(A, sizeof(*attrs) * (size_t)ncols);
	for (int i = 0; i < ncols; i++) {
		attrs[i].name = arena_printf(A, "c%d", i);
		attrs[i].typid = 25;
		attrs[i].typlen = -1;
		attrs[i].atttypmod = -1;
	}
	ck_assert_int_eq(PQsetResultAttrs(res, ncols, attrs), 1);
	ck_assert_int_eq(PQsetvalue(res, 0, 0, NULL, -1), 1);
	for (int i = 0; c && i < AUTH_LEAN_NCOLS; i++) {
		if (!c[i])
			continue;
		int len = (int)strlen(c[i]);
		ck_assert_int_eq(PQsetvalue(res, 0, lead + i, (char *)c[i], len), 1);
	}
	return res;
}

START_TEST(test_lean_caller)
{
	const char *c[AUTH_LEAN_NCOLS] = {
		[AL_ID] = "42",
		[AL_USERNAME] = "john",
		[AL_IS_ADMIN] = "f",
		[AL_EXTERNAL] = "t",
		[AL_EMAIL] = "john@example.com",
		[AL_CAN_CREATE_GROUP] = "t",
		[AL_KIND] = "personal",
		[AL_SCOPES] = "{api}",
	};
	credentials("GET", "/api/v4/projects/1", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	ck_assert_int_eq(auth_accept_lean(&R.ctx, &R.cred, ROUTE_PUBLIC, lean_result(2, c), 0, 2),
			 0);
	ck_assert_int_eq(R.ctx.user->id, 42);
	ck_assert_str_eq(R.ctx.user->username, "john");
	ck_assert(!R.ctx.user->admin);
	ck_assert(R.ctx.user->external);
	ck_assert_str_eq(R.ctx.user->email, "john@example.com");
	ck_assert(R.ctx.user->can_create_group);
	ck_assert_str_eq(R.ctx.user->token_kind, "personal");
	ck_assert_ptr_null(R.ctx.user->res); /* no record of the caller to present */
	/* the same checks as for the full row */
	c[AL_SCOPES] = "{read_user}";
	credentials("GET", "/api/v4/projects/1", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	ck_assert_int_eq(auth_accept_lean(&R.ctx, &R.cred, ROUTE_PUBLIC, lean_result(0, c), 0, 0),
			 ERR_SCOPE);
	c[AL_SCOPES] = "{api}";
	credentials("POST", "/api/v4/users", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	ck_assert_int_eq(auth_accept_lean(&R.ctx, &R.cred, ROUTE_ADMIN, lean_result(0, c), 0, 0),
			 ERR_FORBIDDEN);
	/* no match: NULL columns, or no row at all */
	credentials("GET", "/api/v4/projects/1", "HTTP_PRIVATE_TOKEN", "abc", NULL);
	ck_assert_int_eq(auth_accept_lean(&R.ctx, &R.cred, ROUTE_PUBLIC, lean_result(1, NULL), 0,
					  1),
			 ERR_UNAUTHORIZED);
	ck_assert_int_eq(auth_accept_lean(&R.ctx, &R.cred, ROUTE_PUBLIC, caller_result(0, NULL, 0),
					  0, 0),
			 ERR_UNAUTHORIZED);
	ck_assert_ptr_null(R.ctx.user);
	/* no credential: anonymous */
	credentials("GET", "/api/v4/projects/1", NULL);
	ck_assert_int_eq(auth_accept_lean(&R.ctx, &R.cred, ROUTE_PUBLIC, NULL, 0, 0), 0);
	ck_assert_ptr_null(R.ctx.user);
	ck_assert_int_eq(auth_accept_lean(&R.ctx, &R.cred, ROUTE_AUTH, NULL, 0, 0),
			 ERR_UNAUTHORIZED);
}
END_TEST

/* As GitLab 10.0: an admin may sudo with the private token only; refused before any
 * lookup of the sudo user, so no database is needed. */
START_TEST(test_sudo_needs_private_token)
{
	static const char *const kinds[] = {"personal", "impersonation", "oauth"};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
		struct caller_row admin = ADMIN_API;
		admin.kind = kinds[i];
		credentials("GET", "/api/v4/user?sudo=john", "HTTP_PRIVATE_TOKEN", "abc", NULL);
		ck_assert_msg(auth_accept_row(&R.ctx, &R.cred, ROUTE_AUTH,
					      caller_result(0, &admin, 1), 0, 0) == ERR_FORBIDDEN,
			      "%s token may sudo", kinds[i]);
		ck_assert_str_eq(
			R.ctx.err_detail,
			"403 Forbidden  - Private token must be specified in order to use sudo");
		ck_assert_int_eq(R.ctx.user->id, 1); /* still the admin, not the sudo user */
	}
	const char *c[AUTH_LEAN_NCOLS] = {
		[AL_ID] = "1",
		[AL_USERNAME] = "root",
		[AL_IS_ADMIN] = "t",
		[AL_EXTERNAL] = "f",
		[AL_EMAIL] = "root@example.com",
		[AL_CAN_CREATE_GROUP] = "t",
		[AL_KIND] = "impersonation",
		[AL_SCOPES] = "{api}",
	};
	credentials("GET", "/api/v4/projects/1", "HTTP_SUDO", "john", "HTTP_PRIVATE_TOKEN", "abc",
		    NULL);
	ck_assert_int_eq(auth_accept_lean(&R.ctx, &R.cred, ROUTE_PUBLIC, lean_result(0, c), 0, 0),
			 ERR_FORBIDDEN);
	respond_error(&R, ERR_FORBIDDEN);
	ck_assert_str_eq(R.body, "{\"message\":\"403 Forbidden  - Private token must be specified "
				 "in order to use sudo\"}");
}
END_TEST

/* ---- project_access_decide: SQL_PROJECT_ACCESS_COLS in C ---- */

static project_access decide(const caller *c, int visibility, int member, int group, int shared,
			     bool ns_owner)
{
	project_levels l = {.member_level = member,
			    .group_level = group,
			    .shared_level = shared,
			    .ns_owner = ns_owner};
	project_access pa;
	memset(&pa, 0xff, sizeof(pa)); /* every field must be set */
	project_access_decide(&pa, c, visibility, false, &l);
	return pa;
}

START_TEST(test_project_access_decide)
{
	caller user = {.id = 7}, external = {.id = 8, .external = true};
	caller admin = {.id = 1, .admin = true};
	/* anonymous: public only; levels and ownership do not count without a caller */
	ck_assert(decide(NULL, VIS_PUBLIC, 0, 0, 0, false).visible);
	ck_assert(!decide(NULL, VIS_INTERNAL, 0, 0, 0, false).visible);
	ck_assert(!decide(NULL, VIS_PRIVATE, 40, 0, 0, true).visible);
	ck_assert(!decide(NULL, VIS_PRIVATE, 40, 0, 0, true).ns_owner);
	/* internal: every signed-in caller but external ones, who need a level */
	ck_assert(decide(&user, VIS_INTERNAL, 0, 0, 0, false).visible);
	ck_assert(!decide(&external, VIS_INTERNAL, 0, 0, 0, false).visible);
	ck_assert(decide(&external, VIS_INTERNAL, 0, 10, 0, false).visible);
	/* private: guests and up, through the project, its groups or a group it is shared with */
	ck_assert(!decide(&user, VIS_PRIVATE, 0, 0, 0, false).visible);
	ck_assert(decide(&user, VIS_PRIVATE, 10, 0, 0, false).visible);
	ck_assert(decide(&user, VIS_PRIVATE, 0, 20, 0, false).visible);
	ck_assert(decide(&user, VIS_PRIVATE, 0, 0, 10, false).visible);
	ck_assert(decide(&admin, VIS_PRIVATE, 0, 0, 0, false).visible);
	ck_assert(decide(&admin, VIS_PRIVATE, 0, 0, 0, false).admin);
	/* the highest level wins; owning a group above is kept for the abilities */
	project_access pa = decide(&user, VIS_PRIVATE, 20, 30, 40, false);
	ck_assert_int_eq(pa.level, 40);
	ck_assert(!pa.group_owner);
	ck_assert(can_update_project(&pa));
	ck_assert(!can_admin_project(&pa));
	pa = decide(&user, VIS_PRIVATE, 0, 50, 0, false);
	ck_assert(pa.group_owner);
	ck_assert(can_admin_project(&pa));
	/* the owner of the project's namespace administers it */
	pa = decide(&user, VIS_PUBLIC, 0, 0, 0, true);
	ck_assert(pa.ns_owner);
	ck_assert(can_admin_project(&pa));
	ck_assert(!pa.archived);
	/* a link gives the lower of its access and the caller's level in the group */
	ck_assert_int_eq(access_shared_level(30, 50), 30);
	ck_assert_int_eq(access_shared_level(40, 10), 10);
	ck_assert_int_eq(access_shared_level(20, 0), 0);
}
END_TEST

/* A deploy key: what it is enabled on and nothing else, pushes only with can_push, never
 * to an archived project, never to a wiki, and to no protected branch. */
START_TEST(test_deploy_key_git)
{
	/* enabled, can_push, archived, wiki, push */
	ck_assert(can_git_deploy_key(true, false, false, false, false));
	ck_assert(can_git_deploy_key(true, false, true, false, false));
	ck_assert(!can_git_deploy_key(false, true, false, false, false));
	ck_assert(!can_git_deploy_key(true, false, false, false, true));
	ck_assert(can_git_deploy_key(true, true, false, false, true));
	ck_assert(!can_git_deploy_key(false, true, false, false, true));
	ck_assert(!can_git_deploy_key(true, true, true, false, true));
	ck_assert(!can_git_deploy_key(true, true, false, true, false));
	ck_assert(!can_git_deploy_key(true, true, false, true, true));
	/* below every protected branch's push level (branch_push_level: 30 and up, "no one"
	 * 1000) */
	ck_assert_int_lt(DEPLOY_KEY_PUSH_LEVEL, ACCESS_DEVELOPER);
}
END_TEST

/* ---- the commands the SSH shell runs (shell.c) ---- */

START_TEST(test_ssh_command_accepted)
{
	static const struct {
		const char *command, *program, *path;
		bool push;
	} ok[] = {
		{"git-upload-pack 'group/project.git'", "git-upload-pack", "group/project", false},
		{"git-receive-pack '/group/sub/project.git'", "git-receive-pack",
		 "group/sub/project", true},
		{"git-upload-pack '/group/project'", "git-upload-pack", "group/project", false},
		{"git-upload-pack group/project.git", "git-upload-pack", "group/project", false},
		{"git-upload-pack 'group/it'\\''s'", "git-upload-pack", "group/it's", false},
		{"git-upload-pack 'group/wow'\\!'.git'", "git-upload-pack", "group/wow!", false},
		{"git-upload-pack 'group/$(reboot) x.git'", "git-upload-pack", "group/$(reboot) x",
		 false},
		{"git-upload-pack 'a.b/c.git.git'", "git-upload-pack", "a.b/c.git", false},
	};
	arena *a = arena_new();
	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		const char *program = NULL, *path = NULL;
		bool push = !ok[i].push;
		ck_assert_msg(shell_parse_command(a, ok[i].command, &program, &path, &push) == 0,
			      "%s", ok[i].command);
		ck_assert_str_eq(program, ok[i].program);
		ck_assert_str_eq(path, ok[i].path);
		ck_assert_int_eq(push, ok[i].push);
	}
	arena_destroy(a);
}
END_TEST

START_TEST(test_ssh_command_refused)
{
	static const char *const refused[] = {
		"",
		"ls",
		"git-upload-pack",
		"git-upload-pack ",
		"git upload-pack 'group/project.git'",
		"git-upload-archive 'group/project.git'",
		"git-upload-pack  'group/project.git'",
		"git-upload-pack 'group/project.git' 'other/project.git'",
		"git-upload-pack 'group/project.git'; ls",
		"git-upload-pack 'group/project.git",
		"git-upload-pack group/project.git;ls",
		"git-upload-pack \"group/project.git\"",
		"git-upload-pack ''",
		"git-upload-pack '/'",
		"git-upload-pack 'project.git'",
		"git-upload-pack '../../etc'",
		"git-upload-pack 'group/../../etc.git'",
		"git-upload-pack 'group/./project.git'",
		"git-upload-pack 'group//project.git'",
		"git-upload-pack '//group/project.git'",
		"git-upload-pack 'group/project/'",
		"git-upload-pack 'group/pro\nject.git'",
		"git-upload-pack 'group/'x'/project.git'",
		"git-upload-pack 'group'\\''x'/p",
	};
	arena *a = arena_new();
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		const char *program, *path;
		bool push;
		ck_assert_msg(shell_parse_command(a, refused[i], &program, &path, &push) < 0, "%s",
			      refused[i]);
	}
	arena_destroy(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("auth");

	TCase *ssh = tcase_create("ssh command");
	tcase_add_test(ssh, test_ssh_command_accepted);
	tcase_add_test(ssh, test_ssh_command_refused);
	suite_add_tcase(s, ssh);

	TCase *tc = tcase_create("credentials");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_no_credentials);
	tcase_add_test(tc, test_private_token_header);
	tcase_add_test(tc, test_private_token_param);
	tcase_add_test(tc, test_private_token_header_wins_over_param);
	tcase_add_test(tc, test_bearer);
	tcase_add_test(tc, test_access_token_param);
	tcase_add_test(tc, test_private_token_wins_over_oauth);
	tcase_add_test(tc, test_empty_private_token_is_absent);
	tcase_add_test(tc, test_sudo);
	tcase_add_test(tc, test_auth_params);
	suite_add_tcase(s, tc);

	tc = tcase_create("accept");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_anonymous);
	tcase_add_test(tc, test_anonymous_sudo_is_unauthorized);
	tcase_add_test(tc, test_token_without_row_is_unauthorized);
	tcase_add_test(tc, test_token_caller);
	tcase_add_test(tc, test_token_caller_at_column);
	tcase_add_test(tc, test_admin_routes);
	tcase_add_test(tc, test_scopes);
	tcase_add_test(tc, test_sudo_needs_admin);
	tcase_add_test(tc, test_sudo_needs_private_token);
	tcase_add_test(tc, test_lean_caller);
	suite_add_tcase(s, tc);

	tc = tcase_create("access");
	tcase_add_test(tc, test_project_access_decide);
	tcase_add_test(tc, test_deploy_key_git);
	suite_add_tcase(s, tc);

	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
