/* API suite: authentication (collaboration-api.md section 5): private tokens (header and
 * parameter), personal access tokens and their scopes and expiry, impersonation tokens and
 * their endpoints, OAuth password grant (Bearer and access_token), sudo, and blocked
 * users. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

/* GET /api/v4<path> with one extra header (NULL: none). */
static resp *get_with(const char *path, const char *header)
{
	const char *h[] = {header, NULL};
	return api_h("GET", path, h, NULL, NULL);
}

/* Asserts that r is GET /user of username. */
static void ck_user(resp *r, const char *username)
{
	ck_status(r, 200);
	ck_jstr(r, "username", username);
}

static void ck_unauthorized(resp *r)
{
	ck_status(r, 401);
	ck_jstr(r, "message", "401 Unauthorized");
	ck_assert_int_eq(json_object_object_length(r->json), 1);
}

static void ck_scope_error(resp *r)
{
	ck_status(r, 403);
	ck_jstr(r, "error", "insufficient_scope");
	ck_jstr(r, "scope", "api");
	ck_assert_ptr_nonnull(jstr(r->json, "error_description"));
	const char *www = resp_header(r, "WWW-Authenticate");
	ck_assert_msg(www && strstr(www, "insufficient_scope"), "WWW-Authenticate: %s",
		      www ? www : "(absent)");
}

/* POST /users/:id/impersonation_tokens as admin with form; asserts 201. */
static resp *imp_create(long long uid, const char *form)
{
	char *path = fmt("/users/%lld/impersonation_tokens", uid);
	resp *r = api("POST", path, admin_token(), form);
	ck_status(r, 201);
	free(path);
	return r;
}

/* A POST /user/keys without key: 400 when the token may write, 403 when it may not. */
static resp *post_key_without_key(const char *token)
{
	return api("POST", "/user/keys", token, "title=x");
}

/* ---- private tokens ---- */

START_TEST(test_private_token_header_and_param)
{
	char *username;
	long long uid;
	char *imp = make_user("auth_pt", &uid, &username);
	char *pt = cli_private_token(username);

	resp *r = api("GET", "/user", pt, NULL);
	ck_user(r, username);
	ck_assert_int_eq(jint(r->json, "id"), uid);
	/* a normal user does not see a private_token in GET /user */
	ck_assert(!jhas(r->json, "private_token"));
	resp_free(r);

	char *path = fmt("/user?private_token=%s", pt);
	r = api("GET", path, NULL, NULL);
	ck_user(r, username);
	resp_free(r);
	free(path);

	/* the private token has full access: writes are allowed (400: the key is missing) */
	r = post_key_without_key(pt);
	ck_status(r, 400);
	resp_free(r);

	/* an admin sees their own private token in GET /user, and it is the one they use */
	r = api("GET", "/user", admin_token(), NULL);
	ck_status(r, 200);
	ck_jstr(r, "private_token", admin_token());
	ck_assert(jbool(r->json, "is_admin"));
	resp_free(r);

	free(pt);
	free(imp);
	free(username);
}
END_TEST

START_TEST(test_invalid_and_missing_credentials)
{
	resp *r = api("GET", "/user", NULL, NULL);
	ck_unauthorized(r);
	ck_header(r, "Content-Type", "application/json");
	resp_free(r);

	r = api("GET", "/user", "not-a-token", NULL);
	ck_unauthorized(r);
	resp_free(r);

	r = api("GET", "/user?private_token=not-a-token", NULL, NULL);
	ck_unauthorized(r);
	resp_free(r);

	r = get_with("/user", "Authorization: Bearer 0123456789abcdef");
	ck_unauthorized(r);
	resp_free(r);

	r = api("GET", "/user?access_token=0123456789abcdef", NULL, NULL);
	ck_unauthorized(r);
	resp_free(r);

	r = api("GET", "/version", "not-a-token", NULL);
	ck_unauthorized(r);
	resp_free(r);

	/* an empty header is no credential at all */
	r = get_with("/user", "PRIVATE-TOKEN;");
	ck_unauthorized(r);
	resp_free(r);
}
END_TEST

/* ---- personal access tokens ---- */

START_TEST(test_personal_token_api_scope)
{
	char *username;
	long long uid;
	char *imp = make_user("auth_pat", &uid, &username);
	char *pat = cli_personal_token(username, "api", NULL);
	ck_assert_uint_ge(strlen(pat), 20);

	resp *r = api("GET", "/user", pat, NULL);
	ck_user(r, username);
	resp_free(r);

	char *path = fmt("/user?private_token=%s", pat);
	r = api("GET", path, NULL, NULL);
	ck_user(r, username);
	resp_free(r);
	free(path);

	r = post_key_without_key(pat);
	ck_status(r, 400);
	ck_jstr(r, "message", "400 (Bad request) \"key\" not given");
	resp_free(r);

	r = api("GET", "/version", pat, NULL);
	ck_status(r, 200);
	resp_free(r);

	/* a token that expires in the future works */
	char *later = cli_personal_token(username, "api", "2099-12-31");
	r = api("GET", "/user", later, NULL);
	ck_user(r, username);
	resp_free(r);

	/* personal access tokens are not impersonation tokens */
	char *lp = fmt("/users/%lld/impersonation_tokens", uid);
	r = api("GET", lp, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1); /* the one make_user made */
	ck_assert(jbool(json_object_array_get_idx(r->json, 0), "impersonation"));
	resp_free(r);
	free(lp);

	free(later);
	free(pat);
	free(imp);
	free(username);
}
END_TEST

START_TEST(test_personal_token_read_user_scope)
{
	char *username;
	char *imp = make_user("auth_ru", NULL, &username);
	char *pat = cli_personal_token(username, "read_user", NULL);

	resp *r = api("GET", "/user", pat, NULL);
	ck_user(r, username);
	resp_free(r);

	r = api("GET", "/user/keys", pat, NULL);
	ck_status(r, 200);
	resp_free(r);

	r = api("GET", "/users", pat, NULL);
	ck_status(r, 200);
	resp_free(r);

	/* writes need the api scope */
	r = post_key_without_key(pat);
	ck_scope_error(r);
	ck_header(r, "Content-Type", "application/json");
	resp_free(r);

	/* and so do reads outside the users API */
	r = api("GET", "/events", pat, NULL);
	ck_scope_error(r);
	resp_free(r);

	/* both scopes: everything */
	char *both = cli_personal_token(username, "api,read_user", NULL);
	r = post_key_without_key(both);
	ck_status(r, 400);
	resp_free(r);

	free(both);
	free(pat);
	free(imp);
	free(username);
}
END_TEST

START_TEST(test_personal_token_expired)
{
	char *username;
	char *imp = make_user("auth_exp", NULL, &username);
	char *pat = cli_personal_token(username, "api", "2001-01-01");

	resp *r = api("GET", "/user", pat, NULL);
	ck_unauthorized(r);
	resp_free(r);

	char *path = fmt("/user?private_token=%s", pat);
	r = api("GET", path, NULL, NULL);
	ck_unauthorized(r);
	resp_free(r);
	free(path);

	free(pat);
	free(imp);
	free(username);
}
END_TEST

/* ---- impersonation tokens ---- */

START_TEST(test_impersonation_token_create_show)
{
	long long uid;
	char *username;
	char *first = make_user("auth_imp", &uid, &username);

	resp *r = imp_create(uid, "name=mytoken&scopes%5B%5D=api&scopes%5B%5D=read_user&"
				  "expires_at=2099-01-02");
	ck_header(r, "Content-Type", "application/json");
	long long tid = jint(r->json, "id");
	ck_assert_int_gt(tid, 0);
	ck_jstr(r, "name", "mytoken");
	ck_assert(jhas(r->json, "revoked") && !jbool(r->json, "revoked"));
	ck_assert(jbool(r->json, "active"));
	ck_assert(jbool(r->json, "impersonation"));
	ck_assert_int_eq(jint(r->json, "user_id"), uid);
	ck_jstr(r, "expires_at", "2099-01-02");
	json_object *scopes = jget(r->json, "scopes");
	ck_assert(json_object_is_type(scopes, json_type_array));
	ck_assert_int_eq(json_object_array_length(scopes), 2);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(scopes, 0)), "api");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(scopes, 1)), "read_user");
	const char *created = jstr(r->json, "created_at");
	ck_assert_msg(created && strlen(created) == 24 && created[10] == 'T' && created[23] == 'Z',
		      "created_at %s", created ? created : "(none)");
	char *token = strdup(jstr(r->json, "token"));
	ck_assert_uint_ge(strlen(token), 20);
	resp_free(r);

	/* the token acts as the user */
	r = api("GET", "/user", token, NULL);
	ck_user(r, username);
	resp_free(r);

	/* shown without its secret afterwards */
	char *path = fmt("/users/%lld/impersonation_tokens/%lld", uid, tid);
	r = api("GET", path, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), tid);
	ck_jstr(r, "name", "mytoken");
	ck_assert(jbool(r->json, "active"));
	ck_assert(jbool(r->json, "impersonation"));
	ck_assert(!jhas(r->json, "token"));
	ck_assert_msg(strstr(r->body, token) == NULL, "secret in %s", r->body);
	resp_free(r);
	free(path);

	path = fmt("/users/%lld/impersonation_tokens", uid);
	r = api("GET", path, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	for (size_t i = 0; i < 2; i++)
		ck_assert(!jhas(json_object_array_get_idx(r->json, i), "token"));
	ck_assert_msg(strstr(r->body, token) == NULL, "secret in %s", r->body);
	resp_free(r);
	free(path);

	/* JSON body with an array of scopes, no expiry */
	path = fmt("/users/%lld/impersonation_tokens", uid);
	r = api_json("POST", path, admin_token(), "{\"name\":\"json\",\"scopes\":[\"read_user\"]}");
	ck_status(r, 201);
	ck_assert(jnull(r->json, "expires_at"));
	scopes = jget(r->json, "scopes");
	ck_assert_int_eq(json_object_array_length(scopes), 1);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(scopes, 0)), "read_user");
	/* a read_user impersonation token may read but not write */
	char *ro = strdup(jstr(r->json, "token"));
	resp_free(r);
	r = api("GET", "/user", ro, NULL);
	ck_user(r, username);
	resp_free(r);
	r = post_key_without_key(ro);
	ck_scope_error(r);
	resp_free(r);
	free(path);

	/* another user's token is not found under this user */
	long long other;
	char *ot = make_user("auth_imp2", &other, NULL);
	path = fmt("/users/%lld/impersonation_tokens/%lld", other, tid);
	r = api("GET", path, admin_token(), NULL);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Impersonation Token Not Found");
	resp_free(r);
	free(path);
	path = fmt("/users/%lld/impersonation_tokens/%lld", other, tid);
	r = api("DELETE", path, admin_token(), NULL);
	ck_status(r, 404);
	resp_free(r);
	free(path);
	r = api("GET", "/user", token, NULL); /* not revoked by that */
	ck_user(r, username);
	resp_free(r);

	/* unknown user */
	r = api("GET", "/users/999999999/impersonation_tokens", admin_token(), NULL);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 User Not Found");
	resp_free(r);
	r = api("POST", "/users/999999999/impersonation_tokens", admin_token(),
		"name=x&scopes%5B%5D=api");
	ck_status(r, 404);
	ck_jstr(r, "message", "404 User Not Found");
	resp_free(r);
	r = api("GET", "/users/999999999/impersonation_tokens/1", admin_token(), NULL);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 User Not Found");
	resp_free(r);

	free(ot);
	free(ro);
	free(token);
	free(first);
	free(username);
}
END_TEST

START_TEST(test_impersonation_token_validation)
{
	long long uid;
	char *t = make_user("auth_impv", &uid, NULL);
	char *path = fmt("/users/%lld/impersonation_tokens", uid);

	resp *r = api("POST", path, admin_token(), "scopes%5B%5D=api");
	ck_status(r, 400);
	ck_jstr(r, "message", "400 (Bad request) \"name\" not given");
	resp_free(r);

	r = api("POST", path, admin_token(), "name=&scopes%5B%5D=api");
	ck_status(r, 400);
	resp_free(r);

	r = api("POST", path, admin_token(), "name=x");
	ck_status(r, 400);
	ck_assert_msg(strstr(r->body, "scopes"), "%s", r->body);
	resp_free(r);

	r = api("POST", path, admin_token(), "name=x&scopes%5B%5D=sudo_everything");
	ck_status(r, 400);
	ck_jstr(r, "error", "scopes does not have a valid value");
	resp_free(r);

	r = api("POST", path, admin_token(), "name=x&scopes%5B%5D=api&scopes%5B%5D=bogus");
	ck_status(r, 400);
	ck_jstr(r, "error", "scopes does not have a valid value");
	resp_free(r);

	r = api("POST", path, admin_token(), "name=x&scopes%5B%5D=api&expires_at=tomorrow");
	ck_status(r, 400);
	ck_jstr(r, "error", "expires_at is invalid");
	resp_free(r);

	r = api("POST", path, admin_token(), "name=x&scopes%5B%5D=api&expires_at=2030-02-30");
	ck_status(r, 400);
	ck_jstr(r, "error", "expires_at is invalid");
	resp_free(r);

	/* nothing of the above was created */
	r = api("GET", path, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_header(r, "X-Total", "1");
	resp_free(r);

	r = api("GET", "/users/abc/impersonation_tokens", admin_token(), NULL);
	ck_status(r, 400);
	ck_jstr(r, "error", "user_id is invalid");
	resp_free(r);
	char *bad = fmt("/users/%lld/impersonation_tokens/abc", uid);
	r = api("GET", bad, admin_token(), NULL);
	ck_status(r, 400);
	ck_jstr(r, "error", "impersonation_token_id is invalid");
	resp_free(r);
	r = api("DELETE", bad, admin_token(), NULL);
	ck_status(r, 400);
	resp_free(r);
	free(bad);
	bad = fmt("/users/%lld/impersonation_tokens/999999999", uid);
	r = api("GET", bad, admin_token(), NULL);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Impersonation Token Not Found");
	resp_free(r);
	r = api("DELETE", bad, admin_token(), NULL);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Impersonation Token Not Found");
	resp_free(r);
	free(bad);

	free(path);
	free(t);
}
END_TEST

START_TEST(test_impersonation_token_access)
{
	long long uid;
	char *user = make_user("auth_impa", &uid, NULL);
	resp *r = imp_create(uid, "name=t&scopes%5B%5D=api");
	long long tid = jint(r->json, "id");
	resp_free(r);

	char *list = fmt("/users/%lld/impersonation_tokens", uid);
	char *one = fmt("/users/%lld/impersonation_tokens/%lld", uid, tid);
	struct {
		const char *method, *path, *form;
	} calls[] = {
		{"GET", list, NULL},
		{"POST", list, "name=x&scopes%5B%5D=api"},
		{"GET", one, NULL},
		{"DELETE", one, NULL},
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		r = api(calls[i].method, calls[i].path, NULL, calls[i].form);
		ck_unauthorized(r);
		resp_free(r);
		/* a normal user, even for their own tokens */
		r = api(calls[i].method, calls[i].path, user, calls[i].form);
		ck_status(r, 403);
		ck_jstr(r, "message", "403 Forbidden");
		resp_free(r);
	}
	/* nothing was created or revoked */
	r = api("GET", one, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert(!jbool(r->json, "revoked"));
	resp_free(r);
	r = api("GET", list, admin_token(), NULL);
	ck_header(r, "X-Total", "2");
	resp_free(r);

	/* an admin whose credential is an impersonation token may manage them */
	char *admin = make_admin("auth_impadm", NULL);
	r = api("GET", list, admin, NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	resp_free(r);

	free(admin);
	free(list);
	free(one);
	free(user);
}
END_TEST

START_TEST(test_impersonation_token_revoke_and_state)
{
	long long uid;
	char *username;
	char *first = make_user("auth_impr", &uid, &username);
	resp *r = imp_create(uid, "name=doomed&scopes%5B%5D=api");
	long long tid = jint(r->json, "id");
	char *token = strdup(jstr(r->json, "token"));
	resp_free(r);

	r = api("GET", "/user", token, NULL);
	ck_user(r, username);
	resp_free(r);

	char *one = fmt("/users/%lld/impersonation_tokens/%lld", uid, tid);
	r = api("DELETE", one, admin_token(), NULL);
	ck_status(r, 204);
	ck_assert_uint_eq(r->body_len, 0);
	resp_free(r);

	r = api("GET", "/user", token, NULL);
	ck_unauthorized(r);
	resp_free(r);
	char *qp = fmt("/user?private_token=%s", token);
	r = api("GET", qp, NULL, NULL);
	ck_unauthorized(r);
	resp_free(r);
	free(qp);

	r = api("GET", one, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert(jbool(r->json, "revoked"));
	ck_assert(jhas(r->json, "active") && !jbool(r->json, "active"));
	resp_free(r);

	/* the other token of the user still works */
	r = api("GET", "/user", first, NULL);
	ck_user(r, username);
	resp_free(r);

	char *base = fmt("/users/%lld/impersonation_tokens", uid);
	char *p;
	/* default is all */
	r = api("GET", base, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	resp_free(r);

	p = fmt("%s?state=all", base);
	r = api("GET", p, admin_token(), NULL);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	resp_free(r);
	free(p);

	p = fmt("%s?state=active", base);
	r = api("GET", p, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert(jbool(json_object_array_get_idx(r->json, 0), "active"));
	ck_assert_int_ne(jint(json_object_array_get_idx(r->json, 0), "id"), tid);
	ck_header(r, "X-Total", "1");
	resp_free(r);
	free(p);

	p = fmt("%s?state=inactive", base);
	r = api("GET", p, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), tid);
	ck_assert(jbool(json_object_array_get_idx(r->json, 0), "revoked"));
	resp_free(r);
	free(p);

	p = fmt("%s?state=revoked", base);
	r = api("GET", p, admin_token(), NULL);
	ck_status(r, 400);
	ck_jstr(r, "error", "state does not have a valid value");
	resp_free(r);
	free(p);

	free(base);
	free(one);
	free(token);
	free(first);
	free(username);
}
END_TEST

START_TEST(test_impersonation_token_pagination)
{
	long long uid;
	char *t = make_user("auth_impp", &uid, NULL);
	long long ids[5];
	char *path = fmt("/users/%lld/impersonation_tokens", uid);
	resp *r = api("GET", path, admin_token(), NULL);
	ids[0] = jint(json_object_array_get_idx(r->json, 0), "id");
	resp_free(r);
	for (int i = 1; i < 5; i++) {
		char *form = fmt("name=p%d&scopes%%5B%%5D=api", i);
		r = imp_create(uid, form);
		ids[i] = jint(r->json, "id");
		resp_free(r);
		free(form);
	}
	for (int page = 1; page <= 3; page++) {
		char *p = fmt("%s?per_page=2&page=%d", path, page);
		r = api("GET", p, admin_token(), NULL);
		ck_status(r, 200);
		ck_header(r, "X-Total", "5");
		ck_header(r, "X-Total-Pages", "3");
		ck_header(r, "X-Per-Page", "2");
		int n = page < 3 ? 2 : 1;
		ck_assert_int_eq(json_object_array_length(r->json), n);
		for (int i = 0; i < n; i++)
			ck_assert_int_eq(jint(json_object_array_get_idx(r->json, i), "id"),
					 ids[(page - 1) * 2 + i]);
		char *link =
			fmt("<%s/api/v4%s?page=%d&per_page=2>; rel=\"first\"", api_url(), path, 1);
		const char *lh = resp_header(r, "Link");
		ck_assert_msg(lh && strstr(lh, link), "Link %s", lh ? lh : "(absent)");
		free(link);
		resp_free(r);
		free(p);
	}
	free(path);
	free(t);
}
END_TEST

/* ---- OAuth ---- */

static resp *oauth_post(const char *body, const char *ctype)
{
	char *url = fmt("%s/oauth/token", api_url());
	resp *r = http_request("POST", url, NULL, body, strlen(body), ctype);
	free(url);
	return r;
}

START_TEST(test_oauth_password_grant)
{
	char *username;
	char *imp = make_user("auth_oauth", NULL, &username);
	char *body = fmt("grant_type=password&username=%s&password=secret1234", username);
	resp *r = oauth_post(body, "application/x-www-form-urlencoded");
	ck_status(r, 200);
	ck_header(r, "Content-Type", "application/json");
	ck_jstr(r, "token_type", "bearer");
	ck_jstr(r, "scope", "api");
	ck_assert(json_object_is_type(jget(r->json, "created_at"), json_type_int));
	ck_assert_ptr_nonnull(jstr(r->json, "refresh_token"));
	const char *at = jstr(r->json, "access_token");
	ck_assert_ptr_nonnull(at);
	ck_assert_uint_eq(strlen(at), 64);
	for (const char *c = at; *c; c++)
		ck_assert(isxdigit((unsigned char)*c));
	char *token = strdup(at);
	resp_free(r);
	free(body);

	char *bearer = fmt("Authorization: Bearer %s", token);
	r = get_with("/user", bearer);
	ck_user(r, username);
	resp_free(r);

	char *path = fmt("/user?access_token=%s", token);
	r = api("GET", path, NULL, NULL);
	ck_user(r, username);
	resp_free(r);
	free(path);

	/* the api scope allows writes */
	const char *h[] = {bearer, NULL};
	r = api_h("POST", "/user/keys", h, "title=x", "application/x-www-form-urlencoded");
	ck_status(r, 400);
	resp_free(r);

	/* an OAuth token is not a private token */
	r = api("GET", "/user", token, NULL);
	ck_unauthorized(r);
	resp_free(r);

	/* the login may be the email; a JSON body is read as well */
	body = fmt("{\"grant_type\":\"password\",\"username\":\"%s@example.com\","
		   "\"password\":\"secret1234\"}",
		   username);
	r = oauth_post(body, "application/json");
	ck_status(r, 200);
	char *second = strdup(jstr(r->json, "access_token"));
	ck_assert_str_ne(second, token);
	resp_free(r);
	free(body);
	char *b2 = fmt("Authorization: Bearer %s", second);
	r = get_with("/user", b2);
	ck_user(r, username);
	resp_free(r);

	free(b2);
	free(second);
	free(bearer);
	free(token);
	free(imp);
	free(username);
}
END_TEST

START_TEST(test_oauth_errors)
{
	char *username;
	char *imp = make_user("auth_oauthe", NULL, &username);

	char *body = fmt("grant_type=password&username=%s&password=wrong-password", username);
	resp *r = oauth_post(body, "application/x-www-form-urlencoded");
	ck_status(r, 401);
	ck_jstr(r, "error", "invalid_grant");
	ck_assert_ptr_nonnull(jstr(r->json, "error_description"));
	ck_assert(!jhas(r->json, "access_token"));
	ck_header(r, "Content-Type", "application/json");
	resp_free(r);
	free(body);

	r = oauth_post("grant_type=password&username=no_such_user_xyz&password=secret1234",
		       "application/x-www-form-urlencoded");
	ck_status(r, 401);
	ck_jstr(r, "error", "invalid_grant");
	resp_free(r);

	/* Doorkeeper 4.2 (GitLab 10.x) answers every token error with 401, not RFC 6749's 400 */
	body = fmt("grant_type=client_credentials&username=%s&password=secret1234", username);
	r = oauth_post(body, "application/x-www-form-urlencoded");
	ck_status(r, 401);
	ck_jstr(r, "error", "unsupported_grant_type");
	ck_assert_ptr_nonnull(jstr(r->json, "error_description"));
	resp_free(r);
	free(body);

	body = fmt("username=%s&password=secret1234", username);
	r = oauth_post(body, "application/x-www-form-urlencoded");
	ck_status(r, 401);
	ck_jstr(r, "error", "invalid_request");
	resp_free(r);
	free(body);

	r = oauth_post("grant_type=password&password=secret1234",
		       "application/x-www-form-urlencoded");
	ck_status(r, 401);
	ck_assert_ptr_nonnull(jstr(r->json, "error"));
	ck_assert(!jhas(r->json, "access_token"));
	resp_free(r);

	body = fmt("grant_type=password&username=%s", username);
	r = oauth_post(body, "application/x-www-form-urlencoded");
	ck_status(r, 401);
	ck_assert(!jhas(r->json, "access_token"));
	resp_free(r);
	free(body);

	/* only POST */
	char *url = fmt("%s/oauth/token", api_url());
	r = http_request("GET", url, NULL, NULL, 0, NULL);
	ck_assert_msg(r->status == 404 || r->status == 405, "GET /oauth/token: %ld", r->status);
	resp_free(r);
	free(url);

	free(imp);
	free(username);
}
END_TEST

/* ---- sudo ---- */

START_TEST(test_sudo_as_admin)
{
	long long uid;
	char *username;
	char *t = make_user("auth_sudo", &uid, &username);

	char *h = fmt("SUDO: %lld", uid);
	const char *hs[] = {h, NULL};
	resp *r = api_h("GET", "/user", hs, NULL, NULL);
	ck_unauthorized(r); /* sudo is no credential */
	resp_free(r);
	free(h);

	char *ah = fmt("PRIVATE-TOKEN: %s", admin_token());
	h = fmt("SUDO: %lld", uid);
	const char *hs2[] = {ah, h, NULL};
	r = api_h("GET", "/user", hs2, NULL, NULL);
	ck_user(r, username);
	ck_assert_int_eq(jint(r->json, "id"), uid);
	ck_assert(!jhas(r->json, "private_token")); /* the admin's secret does not leak */
	resp_free(r);
	free(h);

	h = fmt("SUDO: %s", username);
	const char *hs3[] = {ah, h, NULL};
	r = api_h("GET", "/user", hs3, NULL, NULL);
	ck_user(r, username);
	resp_free(r);
	free(h);

	char *p = fmt("/user?sudo=%lld", uid);
	r = api("GET", p, admin_token(), NULL);
	ck_user(r, username);
	resp_free(r);
	free(p);

	p = fmt("/user?sudo=%s", username);
	r = api("GET", p, admin_token(), NULL);
	ck_user(r, username);
	resp_free(r);
	free(p);

	/* the call really runs as that user: admin-only routes are now forbidden */
	p = fmt("/broadcast_messages?sudo=%s", username);
	r = api("GET", p, admin_token(), NULL);
	ck_status(r, 403);
	ck_jstr(r, "message", "403 Forbidden");
	resp_free(r);
	free(p);

	/* and reads that user's records */
	p = fmt("/user/keys?sudo=%lld", uid);
	r = api("GET", p, admin_token(), NULL);
	ck_status(r, 200);
	resp_free(r);
	free(p);

	/* only with the private token, as GitLab 10.0's sudo! (lib/api/helpers.rb): an
	 * admin's impersonation token may not (suite_hostile.c has the other kinds) */
	char *adm = make_admin("auth_sudoadm", NULL);
	p = fmt("/user?sudo=%lld", uid);
	r = api("GET", p, adm, NULL);
	ck_status(r, 403);
	ck_jstr(r, "message",
		"403 Forbidden  - Private token must be specified in order to use sudo");
	resp_free(r);
	free(p);

	free(adm);
	free(ah);
	free(t);
	free(username);
}
END_TEST

START_TEST(test_sudo_errors)
{
	long long uid;
	char *username;
	char *t = make_user("auth_sudoe", &uid, &username);

	/* a normal user may not sudo, not even as someone who exists or as themselves */
	char *p = fmt("/user?sudo=%s", "root");
	resp *r = api("GET", p, t, NULL);
	ck_status(r, 403);
	ck_jstr(r, "message", "403 Forbidden  - Must be admin to use sudo");
	resp_free(r);
	free(p);

	p = fmt("/user?sudo=%lld", uid);
	r = api("GET", p, t, NULL);
	ck_status(r, 403);
	ck_jstr(r, "message", "403 Forbidden  - Must be admin to use sudo");
	resp_free(r);
	free(p);

	/* admin rights are checked before the user is looked up */
	r = api("GET", "/user?sudo=no_such_user_for_sudo", t, NULL);
	ck_status(r, 403);
	ck_jstr(r, "message", "403 Forbidden  - Must be admin to use sudo");
	resp_free(r);

	char *th = fmt("PRIVATE-TOKEN: %s", t);
	const char *hs[] = {th, "SUDO: root", NULL};
	r = api_h("GET", "/user", hs, NULL, NULL);
	ck_status(r, 403);
	ck_jstr(r, "message", "403 Forbidden  - Must be admin to use sudo");
	resp_free(r);
	free(th);

	/* unknown users, by name and by id */
	r = api("GET", "/user?sudo=no_such_user_for_sudo", admin_token(), NULL);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Not Found: No user id or username for: no_such_user_for_sudo");
	resp_free(r);

	r = api("GET", "/user?sudo=999999999", admin_token(), NULL);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Not Found: No user id or username for: 999999999");
	resp_free(r);

	char *ah = fmt("PRIVATE-TOKEN: %s", admin_token());
	const char *hs2[] = {ah, "SUDO: nobody_here_xyz", NULL};
	r = api_h("GET", "/user", hs2, NULL, NULL);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Not Found: No user id or username for: nobody_here_xyz");
	ck_header(r, "Content-Type", "application/json");
	resp_free(r);
	free(ah);

	/* an invalid token with sudo is still 401 */
	r = api("GET", "/user?sudo=root", "not-a-token", NULL);
	ck_unauthorized(r);
	resp_free(r);

	free(t);
	free(username);
}
END_TEST

/* ---- blocked users ---- */

/* A project's route finds the caller and the project in one statement (auth_project):
 * the answers keep their order: authentication (401, 403 for the token's scope), then
 * the parameter checks (400), then the project (404), by id and by full path, for
 * reading and for writing routes (the project locked, FOR UPDATE and FOR KEY SHARE); sudo
 * takes the path of two statements and answers the same. */
START_TEST(test_project_route_answer_order)
{
	char u[512];
#define P(...) (snprintf(u, sizeof(u), __VA_ARGS__), u)
	long long a_id, b_id;
	char *a_name, *path;
	char *a = make_user("order_a", &a_id, &a_name);
	char *b = make_user("order_b", &b_id, NULL);
	const char *admin = admin_token();
	long long pid = fixture_project(a, "private", &path);
	char *epath = enc(path);
	char *upper = strdup(path);
	for (char *c = upper; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	char *eupper = enc(upper);

	resp *r = api("GET", P("/projects/%lld/pipelines?scope=bogus", pid), "not-a-token", NULL);
	ck_unauthorized(r);
	resp_free(r);
	r = api("GET", P("/projects/%s/pipelines?scope=bogus", epath), "not-a-token", NULL);
	ck_unauthorized(r);
	resp_free(r);
	r = api("GET", "/projects/noslash/pipelines", "not-a-token", NULL);
	ck_unauthorized(r);
	resp_free(r);
	r = api("GET", P("/projects/%lld/pipelines?scope=bogus", pid), a, NULL);
	ck_code(r, 400);
	resp_free(r);
	r = api("GET", "/projects/999999999/pipelines?scope=bogus", a, NULL);
	ck_code(r, 400);
	resp_free(r);
	r = api("GET", "/projects/999999999/pipelines", a, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	r = api("GET", "/projects/noslash/pipelines", a, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	r = api("GET", P("/projects/%lld/pipelines", pid), b, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	r = api("GET", P("/projects/%s/pipelines", epath), b, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	r = api("GET", P("/projects/%lld/pipelines", pid), a, NULL);
	ck_code(r, 200);
	resp_free(r);
	r = api("GET", P("/projects/%s/pipelines", eupper), a, NULL);
	ck_code(r, 200);
	resp_free(r);

	/* a token without the api scope: 403 before the project is looked at */
	char *ro = cli_personal_token(a_name, "read_user", NULL);
	r = api("GET", P("/projects/%lld/pipelines", pid), ro, NULL);
	ck_code(r, 403);
	resp_free(r);
	r = api("GET", "/projects/999999999/pipelines", ro, NULL);
	ck_code(r, 403);
	resp_free(r);

	/* writing routes: FOR UPDATE (an issue), FOR KEY SHARE (its note), by path too */
	r = api("POST", P("/projects/%s/issues", epath), a, "title=order");
	ck_code(r, 201);
	long long iid = jint(r->json, "iid");
	resp_free(r);
	r = api("POST", P("/projects/%s/issues", epath), b, "title=order");
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	r = api("POST", P("/projects/%s/issues", epath), a, "");
	ck_code(r, 400);
	resp_free(r);
	r = api("POST", P("/projects/%s/issues", epath), "not-a-token", "");
	ck_unauthorized(r);
	resp_free(r);
	r = api("POST", P("/projects/%s/issues/%lld/notes", epath, iid), a, "body=hello");
	ck_code(r, 201);
	resp_free(r);
	r = api("POST", P("/projects/%lld/issues/%lld/notes", pid, iid), b, "body=hello");
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM issues WHERE project_id = %lld", pid), 1);

	/* sudo: the same answers */
	char *ah = fmt("PRIVATE-TOKEN: %s", admin), *sa = fmt("Sudo: %s", a_name);
	char *sb = fmt("Sudo: %lld", b_id);
	const char *h[] = {ah, sa, NULL};
	r = api_h("GET", P("/projects/%s/issues", epath), h, NULL, NULL);
	ck_code(r, 200);
	ck_assert_int_eq((int)json_object_array_length(r->json), 1);
	resp_free(r);
	const char *hb[] = {ah, sb, NULL};
	r = api_h("GET", P("/projects/%s/issues", epath), hb, NULL, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);

	free(a), free(b), free(a_name), free(path), free(epath), free(upper);
	free(eupper), free(ro), free(ah), free(sa), free(sb);
#undef P
}
END_TEST

START_TEST(test_blocked_user_tokens)
{
	long long uid;
	char *username;
	char *imp = make_user("auth_blk", &uid, &username);
	char *priv = cli_private_token(username);
	char *pat = cli_personal_token(username, "api", NULL);
	char *oauth = oauth_password_token(username, "secret1234");
	ck_assert_ptr_nonnull(oauth);
	char *bearer = fmt("Authorization: Bearer %s", oauth);
	char *self = fmt("/users/%lld", uid);
	const char *tokens[] = {imp, priv, pat};

	for (int round = 0; round < 3; round++) {
		/* round 0: active, 1: blocked, 2: unblocked again */
		long want = round == 1 ? 401 : 200;
		if (round > 0) {
			char *p = fmt("/users/%lld/%s", uid, round == 1 ? "block" : "unblock");
			resp *r = api("POST", p, admin_token(), NULL);
			ck_status(r, 201);
			resp_free(r);
			free(p);
		}
		for (size_t i = 0; i < 3; i++) {
			resp *r = api("GET", "/user", tokens[i], NULL);
			ck_assert_msg(r->status == want, "round %d token %zu: %ld %s", round, i,
				      r->status, r->body);
			if (want == 401)
				ck_unauthorized(r);
			resp_free(r);
			/* the single-statement authentication of GET /users/:id too */
			r = api("GET", self, tokens[i], NULL);
			ck_assert_msg(r->status == want, "round %d token %zu /users/:id: %ld %s",
				      round, i, r->status, r->body);
			resp_free(r);
		}
		resp *r = get_with("/user", bearer);
		ck_assert_msg(r->status == want, "round %d oauth: %ld %s", round, r->status,
			      r->body);
		resp_free(r);
		/* a blocked user gets no new OAuth token either */
		char *again = oauth_password_token(username, "secret1234");
		ck_assert_msg(round == 1 ? again == NULL : again != NULL, "round %d: oauth grant",
			      round);
		free(again);
	}

	free(self);
	free(bearer);
	free(oauth);
	free(pat);
	free(priv);
	free(imp);
	free(username);
}
END_TEST

Suite *suite_auth(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("auth");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_private_token_header_and_param);
	tcase_add_test(tc, test_invalid_and_missing_credentials);
	tcase_add_test(tc, test_personal_token_api_scope);
	tcase_add_test(tc, test_personal_token_read_user_scope);
	tcase_add_test(tc, test_personal_token_expired);
	tcase_add_test(tc, test_impersonation_token_create_show);
	tcase_add_test(tc, test_impersonation_token_validation);
	tcase_add_test(tc, test_impersonation_token_access);
	tcase_add_test(tc, test_impersonation_token_revoke_and_state);
	tcase_add_test(tc, test_impersonation_token_pagination);
	tcase_add_test(tc, test_oauth_password_grant);
	tcase_add_test(tc, test_oauth_errors);
	tcase_add_test(tc, test_sudo_as_admin);
	tcase_add_test(tc, test_sudo_errors);
	tcase_add_test(tc, test_blocked_user_tokens);
	tcase_add_test(tc, test_project_route_answer_order);
	suite_add_tcase(s, tc);
	return s;
}
