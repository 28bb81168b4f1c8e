/* API suite: users (spec 4.3): GET/POST/PUT/DELETE /users, GET /users/:id, GET /user,
 * block and unblock, GET /users/:id/events. Every user a test makes has a unique name, and
 * list assertions only count users that match a test's own unique prefix: other suites
 * share the database. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"

/* ---- the record shapes ---- */

#define F_BASIC "id", "name", "username", "state", "avatar_url", "web_url"
#define F_SINGLE                                                                                   \
	F_BASIC, "created_at", "bio", "location", "skype", "linkedin", "twitter", "website_url",   \
		"organization"
#define F_SELF                                                                                     \
	F_SINGLE, "last_sign_in_at", "confirmed_at", "last_activity_on", "email", "theme_id",      \
		"color_scheme_id", "projects_limit", "current_sign_in_at", "identities",           \
		"can_create_group", "can_create_project", "two_factor_enabled", "external"

static const char *const BASIC[] = {F_BASIC, NULL};
static const char *const SINGLE[] = {F_SINGLE, NULL};
static const char *const SELF[] = {F_SELF, NULL};
static const char *const ADMIN[] = {F_SELF, "is_admin", NULL};
static const char *const ADMIN_ME[] = {F_SELF, "is_admin", "private_token", NULL};
static const char *const IDENTITY[] = {"provider", "extern_uid", NULL};

/* ---- what a test allocates is released by the checked teardown (in the test's own
 * process), so that the tests stay short and leak-free under LeakSanitizer ---- */

/* ---- fixtures and checks ---- */

/* POST /users as the admin: username, <username>@example.com, a password, and extra form
 * fields ("" or "a=1&b=2"). Returns the new id. */
static long long create_user(const char *username, const char *extra)
{
	resp *r = R(api("POST", "/users", admin_token(),
			S(fmt("username=%s&email=%s%%40example.com&name=Name+%s&password=secret1234"
			      "&skip_confirmation=true%s%s",
			      username, username, username, *extra ? "&" : "", extra))));
	ck_status(r, 201);
	return jint(r->json, "id");
}

/* The number of users named exactly username (admin's view). */
static size_t count_username(const char *username)
{
	resp *r = R(api("GET", S(fmt("/users?username=%s", username)), admin_token(), NULL));
	ck_status(r, 200);
	return json_object_array_length(r->json);
}

static resp *get_user(long long id, const char *token)
{
	return R(api("GET", S(fmt("/users/%lld", id)), token, NULL));
}

/* The body is an array of exactly these ids, in any order: GitLab orders search results
 * by relevance, other lists by id. */
static void ck_ids(resp *r, const long long *ids, size_t n)
{
	ck_assert_msg(r->json && json_object_is_type(r->json, json_type_array), "not an array: %s",
		      r->body);
	ck_assert_msg(json_object_array_length(r->json) == n, "expected %zu users, got %s", n,
		      r->body);
	for (size_t i = 0; i < n; i++) {
		size_t found = 0;
		for (size_t j = 0; j < n; j++)
			found += jint(json_object_array_get_idx(r->json, j), "id") == ids[i];
		ck_assert_msg(found == 1, "id %lld: %zu times in %s", ids[i], found, r->body);
	}
}

/* 2017-09-05T10:12:35.123Z */
static void ck_time(json_object *o, const char *key)
{
	const char *t = jstr(o, key);
	ck_assert_msg(t && strlen(t) == 24, "%s: not a timestamp: %s", key, t ? t : "(null)");
	const char *shape = "dddd-dd-ddTdd:dd:dd.dddZ";
	for (size_t i = 0; i < 24; i++)
		ck_assert_msg(shape[i] == 'd' ? isdigit((unsigned char)t[i]) : t[i] == shape[i],
			      "%s: not a timestamp: %s", key, t);
}

static void ck_unauthorized(resp *r)
{
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
}

static void ck_forbidden(resp *r)
{
	ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
}

static void ck_user_not_found(resp *r)
{
	ck_body(r, 404, "{\"message\":\"404 User Not Found\"}");
}

static void ck_str_member(json_object *o, const char *key, const char *want)
{
	const char *v = jstr(o, key);
	ck_assert_msg(v && strcmp(v, want) == 0, "%s: expected \"%s\", got %s in %s", key, want,
		      v ? v : "(none)", json_object_to_json_string(o));
}

/* A string of n copies of c. */
static char *repeat(char c, size_t n)
{
	char *s = S(malloc(n + 1));
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* ---- authentication and admin-only endpoints ---- */

START_TEST(test_users_require_auth)
{
	long long id;
	S(make_user("usr_auth", &id, NULL)); /* a real target */
	static const char *const methods[] = {"GET",    "GET",  "GET",  "POST", "PUT",
					      "DELETE", "POST", "POST", "GET"};
	const char *paths[] = {
		"/users",
		S(fmt("/users/%lld", id)),
		"/user",
		"/users",
		S(fmt("/users/%lld", id)),
		S(fmt("/users/%lld", id)),
		S(fmt("/users/%lld/block", id)),
		S(fmt("/users/%lld/unblock", id)),
		S(fmt("/users/%lld/events", id)),
	};
	for (size_t i = 0; i < sizeof(methods) / sizeof(*methods); i++) {
		ck_unauthorized(R(api(methods[i], paths[i], NULL, NULL)));
		/* a token that matches nothing is no better than none */
		ck_unauthorized(R(api(methods[i], paths[i], "not-a-token", NULL)));
	}
	/* GET /users/:id authenticates inside its own statement: a bad token on a missing
	 * user is still 401, not 404 */
	ck_unauthorized(R(api("GET", "/users/999999999", "not-a-token", NULL)));
	/* and nothing was done */
	resp *r = get_user(id, admin_token());
	ck_status(r, 200);
	ck_str_member(r->json, "state", "active");
}
END_TEST

START_TEST(test_users_admin_only)
{
	long long me, other;
	char *token = S(make_user("usr_adm", &me, NULL));
	char *other_name;
	S(make_user("usr_adm_t", &other, &other_name));
	S(other_name);
	const char *o = S(fmt("/users/%lld", other));
	ck_forbidden(R(api("POST", "/users", token,
			   S(fmt("username=%sx&email=%sx%%40example.com&name=x&password=secret1234",
				 other_name, other_name)))));
	ck_forbidden(R(api("PUT", o, token, "name=Changed")));
	ck_forbidden(R(api("PUT", S(fmt("/users/%lld", me)), token, "admin=true")));
	ck_forbidden(R(api("DELETE", o, token, NULL)));
	ck_forbidden(R(api("POST", S(fmt("%s/block", o)), token, NULL)));
	ck_forbidden(R(api("POST", S(fmt("%s/unblock", o)), token, NULL)));
	/* admin-only even for a missing user: no probing */
	ck_forbidden(R(api("PUT", "/users/999999999", token, "name=x")));
	ck_forbidden(R(api("DELETE", "/users/999999999", token, NULL)));

	/* nothing changed */
	ck_assert_int_eq(count_username(S(fmt("%sx", other_name))), 0);
	resp *r = get_user(other, admin_token());
	ck_status(r, 200);
	ck_str_member(r->json, "name", other_name); /* make_user names users after their username */
	ck_str_member(r->json, "state", "active");
	r = get_user(me, admin_token());
	ck_assert(!jbool(r->json, "is_admin"));
}
END_TEST

/* ---- GET /user ---- */

START_TEST(test_user_current_normal)
{
	long long id;
	char *name;
	char *token = S(make_user("usr_me", &id, &name));
	S(name);
	resp *r = R(api("GET", "/user", token, NULL));
	ck_status(r, 200);
	ck_header(r, "Content-Type", "application/json");
	/* the current-user view: no is_admin, no private_token */
	ck_fields(r->json, SELF);
	ck_assert_int_eq(jint(r->json, "id"), id);
	ck_str_member(r->json, "username", name);
	ck_str_member(r->json, "name", name);
	ck_str_member(r->json, "email", S(fmt("%s@example.com", name)));
	ck_str_member(r->json, "state", "active");
	ck_str_member(r->json, "web_url", S(fmt("%s/%s", api_url(), name)));
	ck_assert(jnull(r->json, "avatar_url"));
	ck_assert(jnull(r->json, "bio"));
	ck_assert(jnull(r->json, "location"));
	ck_str_member(r->json, "skype", "");
	ck_str_member(r->json, "linkedin", "");
	ck_str_member(r->json, "twitter", "");
	ck_str_member(r->json, "website_url", "");
	ck_time(r->json, "created_at");
	ck_time(r->json, "confirmed_at"); /* make_user skips the confirmation */
	ck_assert(jnull(r->json, "last_sign_in_at"));
	ck_assert(jnull(r->json, "current_sign_in_at"));
	ck_assert(json_object_is_type(jget(r->json, "identities"), json_type_array));
	ck_assert_int_eq(json_object_array_length(jget(r->json, "identities")), 0);
	ck_assert(json_object_is_type(jget(r->json, "theme_id"), json_type_int));
	ck_assert(json_object_is_type(jget(r->json, "color_scheme_id"), json_type_int));
	ck_assert(json_object_is_type(jget(r->json, "projects_limit"), json_type_int));
	ck_assert(json_object_is_type(jget(r->json, "two_factor_enabled"), json_type_boolean));
	ck_assert(json_object_is_type(jget(r->json, "external"), json_type_boolean));
	ck_assert(!jbool(r->json, "external"));
	ck_assert(jbool(r->json, "can_create_group"));
	ck_assert(jbool(r->json, "can_create_project"));
	/* the same token as a query parameter */
	r = R(api("GET", S(fmt("/user?private_token=%s", token)), NULL, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), id);
}
END_TEST

START_TEST(test_user_current_admin)
{
	long long id;
	char *token = S(make_admin("usr_meadm", &id));
	resp *r = R(api("GET", "/user", token, NULL));
	ck_status(r, 200);
	ck_fields(r->json, ADMIN_ME);
	ck_assert_int_eq(jint(r->json, "id"), id);
	ck_assert(jbool(r->json, "is_admin"));
	/* the private token is the user's own: it authenticates as the same user */
	const char *pt = jstr(r->json, "private_token");
	ck_assert_msg(pt && strlen(pt) >= 20, "private_token: %s", r->body);
	ck_assert_str_ne(pt, token); /* we came in with an impersonation token */
	resp *again = R(api("GET", "/user", pt, NULL));
	ck_status(again, 200);
	ck_assert_int_eq(jint(again->json, "id"), id);
	ck_assert_str_eq(jstr(again->json, "private_token"), pt);
	/* nobody else's secrets: the admin view of another user has no private_token */
	long long other;
	S(make_user("usr_meadm_o", &other, NULL));
	r = get_user(other, token);
	ck_status(r, 200);
	ck_fields(r->json, ADMIN);
}
END_TEST

START_TEST(test_user_current_sudo)
{
	long long id;
	char *name;
	S(make_user("usr_sudo", &id, &name));
	S(name);
	/* an admin acting as a normal user sees that user, with the user's rights */
	resp *r = R(api("GET", S(fmt("/user?sudo=%s", name)), admin_token(), NULL));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), id);
	ck_assert(!jhas(r->json, "is_admin"));
	ck_assert(!jhas(r->json, "private_token"));
	const char *hdr[] = {S(fmt("PRIVATE-TOKEN: %s", admin_token())), S(fmt("SUDO: %lld", id)),
			     NULL};
	r = R(api_h("GET", "/user", hdr, NULL, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), id);
	/* as that user, admin-only endpoints are forbidden */
	ck_forbidden(R(api_h("POST", S(fmt("/users/%lld/block", id)), hdr, NULL, NULL)));
	/* and GET /users/:id (authenticated in its own statement otherwise) shows the
	 * normal view */
	r = R(api_h("GET", S(fmt("/users/%lld", id)), hdr, NULL, NULL));
	ck_status(r, 200);
	ck_fields(r->json, SINGLE);
	/* unknown sudo user */
	r = R(api("GET", "/users/1?sudo=no_such_user_at_all", admin_token(), NULL));
	ck_body(r, 404,
		"{\"message\":\"404 Not Found: No user id or username for: "
		"no_such_user_at_all\"}");
}
END_TEST

/* ---- GET /users/:id ---- */

START_TEST(test_users_show_views)
{
	char *name = S(unique("usr_show"));
	long long id =
		create_user(name, S(fmt("bio=Hello+there&location=Lyon&skype=sk&linkedin=li&"
					"twitter=tw&website_url=https%%3A%%2F%%2Fexample.com&"
					"organization=Org&extern_uid=uid-%s&provider=ldapmain",
					name)));
	long long viewer;
	char *token = S(make_user("usr_show_v", &viewer, NULL));

	/* a normal user: the single-user view, no email, no admin fields */
	resp *r = get_user(id, token);
	ck_status(r, 200);
	ck_header(r, "Content-Type", "application/json");
	ck_fields(r->json, SINGLE);
	ck_assert_int_eq(jint(r->json, "id"), id);
	ck_str_member(r->json, "username", name);
	ck_str_member(r->json, "name", S(fmt("Name %s", name)));
	ck_str_member(r->json, "state", "active");
	ck_str_member(r->json, "web_url", S(fmt("%s/%s", api_url(), name)));
	ck_str_member(r->json, "bio", "Hello there");
	ck_str_member(r->json, "location", "Lyon");
	ck_str_member(r->json, "skype", "sk");
	ck_str_member(r->json, "linkedin", "li");
	ck_str_member(r->json, "twitter", "tw");
	ck_str_member(r->json, "website_url", "https://example.com");
	ck_str_member(r->json, "organization", "Org");
	ck_time(r->json, "created_at");

	/* an admin: the admin view */
	r = get_user(id, admin_token());
	ck_status(r, 200);
	ck_fields(r->json, ADMIN);
	ck_str_member(r->json, "email", S(fmt("%s@example.com", name)));
	ck_assert(!jbool(r->json, "is_admin"));
	ck_assert(jget(r->json, "is_admin") != NULL);
	ck_str_member(r->json, "bio", "Hello there");
	json_object *ids = jget(r->json, "identities");
	ck_assert_int_eq(json_object_array_length(ids), 1);
	ck_fields(json_object_array_get_idx(ids, 0), IDENTITY);
	ck_str_member(json_object_array_get_idx(ids, 0), "provider", "ldapmain");
	ck_str_member(json_object_array_get_idx(ids, 0), "extern_uid", S(fmt("uid-%s", name)));

	/* a user looking at themselves through /users/:id gets the same single view */
	r = get_user(viewer, token);
	ck_status(r, 200);
	ck_fields(r->json, SINGLE);
}
END_TEST

START_TEST(test_users_show_errors)
{
	char *token = S(make_user("usr_showerr", NULL, NULL));
	const char *tokens[] = {token, admin_token()};
	for (size_t i = 0; i < 2; i++) {
		ck_body(R(api("GET", "/users/abc", tokens[i], NULL)), 400,
			"{\"error\":\"id is invalid\"}");
		ck_body(R(api("GET", "/users/1x", tokens[i], NULL)), 400,
			"{\"error\":\"id is invalid\"}");
		ck_body(R(api("GET", "/users/99999999999999999999999", tokens[i], NULL)), 400,
			"{\"error\":\"id is invalid\"}");
		ck_user_not_found(R(api("GET", "/users/999999999", tokens[i], NULL)));
		ck_user_not_found(R(api("GET", "/users/0", tokens[i], NULL)));
	}
}
END_TEST

/* ---- GET /users ---- */

START_TEST(test_users_list_views)
{
	char *name;
	long long id;
	char *token = S(make_user("usr_lv", &id, &name));
	S(name);
	const char *q = S(fmt("/users?username=%s", name));
	resp *r = R(api("GET", q, token, NULL));
	ck_status(r, 200);
	ck_header(r, "Content-Type", "application/json");
	ck_ids(r, &id, 1);
	/* the list view for normal callers: only the summary */
	ck_fields(json_object_array_get_idx(r->json, 0), BASIC);
	ck_str_member(json_object_array_get_idx(r->json, 0), "username", name);
	ck_pages(r, "/users", S(fmt("username=%s", name)), 1, 20, 1);
	/* admins get the admin view in lists */
	r = R(api("GET", q, admin_token(), NULL));
	ck_status(r, 200);
	ck_ids(r, &id, 1);
	ck_fields(json_object_array_get_idx(r->json, 0), ADMIN);
	ck_str_member(json_object_array_get_idx(r->json, 0), "email",
		      S(fmt("%s@example.com", name)));
	/* a username that matches nobody: an empty page */
	r = R(api("GET", S(fmt("/users?username=%snope", name)), token, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "[]");
	ck_pages(r, "/users", S(fmt("username=%snope", name)), 0, 20, 1);
}
END_TEST

START_TEST(test_users_list_filters)
{
	char *p = S(unique("usrf"));
	char *na = S(fmt("%sa", p)), *nb = S(fmt("%sb", p)), *nc = S(fmt("%sc", p));
	long long a = create_user(na, "");
	long long b = create_user(nb, "");
	long long c = create_user(nc, S(fmt("external=true&extern_uid=%s-uid&provider=github", p)));
	resp *r = R(api("POST", S(fmt("/users/%lld/block", b)), admin_token(), NULL));
	ck_status(r, 201);
	char *token = S(make_user("usr_fv", NULL, NULL));
	const char *tokens[] = {token, admin_token()};

	for (size_t i = 0; i < 2; i++) {
		const char *t = tokens[i];
		/* search matches names and usernames */
		r = R(api("GET", S(fmt("/users?search=%s", p)), t, NULL));
		ck_status(r, 200);
		ck_ids(r, (long long[]){c, b, a}, 3);
		/* case-insensitive */
		char *up = S(strdup(p));
		for (char *s = up; *s; s++)
			*s = (char)toupper((unsigned char)*s);
		r = R(api("GET", S(fmt("/users?search=%s", up)), t, NULL));
		ck_ids(r, (long long[]){c, b, a}, 3);
		/* a whole email address */
		r = R(api("GET", S(fmt("/users?search=%s%%40example.com", na)), t, NULL));
		ck_ids(r, &a, 1);
		/* username is exact (but case-insensitive) */
		r = R(api("GET", S(fmt("/users?username=%s", nb)), t, NULL));
		ck_ids(r, &b, 1);
		r = R(api("GET", S(fmt("/users?username=%s", up)), t, NULL));
		ck_ids(r, NULL, 0);
		char *ub = S(strdup(nb));
		for (char *s = ub; *s; s++)
			*s = (char)toupper((unsigned char)*s);
		r = R(api("GET", S(fmt("/users?username=%s", ub)), t, NULL));
		ck_ids(r, &b, 1);
		/* state filters */
		r = R(api("GET", S(fmt("/users?search=%s&active=true", p)), t, NULL));
		ck_ids(r, (long long[]){c, a}, 2);
		r = R(api("GET", S(fmt("/users?search=%s&blocked=true", p)), t, NULL));
		ck_ids(r, &b, 1);
		ck_str_member(json_object_array_get_idx(r->json, 0), "state", "blocked");
		/* false values are not filters */
		r = R(api("GET", S(fmt("/users?search=%s&active=false&blocked=false", p)), t,
			  NULL));
		ck_ids(r, (long long[]){c, b, a}, 3);
		/* a filter value that is not a boolean */
		ck_body(R(api("GET", "/users?active=maybe", t, NULL)), 400,
			"{\"error\":\"active is invalid\"}");
		ck_body(R(api("GET", "/users?blocked=2", t, NULL)), 400,
			"{\"error\":\"blocked is invalid\"}");
	}

	/* only admins find users by a part of their email address; anyone by all of it */
	char *mail = S(unique("mail"));
	long long d = create_user(S(fmt("%sd", p)), "");
	r = R(api("PUT", S(fmt("/users/%lld", d)), admin_token(),
		  S(fmt("email=%s%%40example.net", mail))));
	ck_status(r, 200);
	const char *part = S(fmt("/users?search=%s%%40example.n", mail + 1));
	ck_ids(R(api("GET", part, admin_token(), NULL)), &d, 1);
	ck_ids(R(api("GET", part, token, NULL)), NULL, 0);
	ck_ids(R(api("GET", S(fmt("/users?search=%s%%40example.net", mail)), token, NULL)), &d, 1);
	ck_ids(R(api("GET", S(fmt("/users?search=%s%%40EXAMPLE.net", mail)), token, NULL)), &d, 1);

	/* external and identity filters are for admins */
	const char *ext = S(fmt("/users?search=%s&external=true", p));
	const char *ident = S(fmt("/users?extern_uid=%s-uid&provider=github", p));
	ck_forbidden(R(api("GET", ext, token, NULL)));
	ck_forbidden(R(api("GET", ident, token, NULL)));
	r = R(api("GET", ext, admin_token(), NULL));
	ck_status(r, 200);
	ck_ids(r, &c, 1);
	ck_assert(jbool(json_object_array_get_idx(r->json, 0), "external"));
	r = R(api("GET", ident, admin_token(), NULL));
	ck_status(r, 200);
	ck_ids(r, &c, 1);
	r = R(api("GET", S(fmt("/users?extern_uid=%s-uid&provider=gitlab", p)), admin_token(),
		  NULL));
	ck_ids(r, NULL, 0);
	/* one without the other */
	ck_body(R(api("GET", S(fmt("/users?extern_uid=%s-uid", p)), admin_token(), NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"provider\\\" not given\"}");
}
END_TEST

START_TEST(test_users_list_created)
{
	char *p = S(unique("usrc"));
	long long a = create_user(S(fmt("%sa", p)), "");
	long long b = create_user(S(fmt("%sb", p)), "");
	const char *path = "/users";

	/* a window that holds both, before and after both */
	resp *r = R(api("GET",
			S(fmt("%s?search=%s&created_after=2000-01-01T00:00:00Z&"
			      "created_before=2999-01-01T00:00:00Z",
			      path, p)),
			admin_token(), NULL));
	ck_status(r, 200);
	ck_ids(r, (long long[]){b, a}, 2);
	r = R(api("GET", S(fmt("%s?search=%s&created_before=2000-01-01", path, p)), admin_token(),
		  NULL));
	ck_status(r, 200);
	ck_ids(r, NULL, 0);
	r = R(api("GET", S(fmt("%s?search=%s&created_after=2999-01-01T00:00:00%%2B02:00", path, p)),
		  admin_token(), NULL));
	ck_status(r, 200);
	ck_ids(r, NULL, 0);

	/* dates that are not dates */
	static const char *const bad[][2] = {
		{"created_before=yesterday", "created_before is invalid"},
		{"created_after=2017-13-01", "created_after is invalid"},
		{"created_after=2017-02-30T00:00:00Z", "created_after is invalid"},
		{"created_before=", "created_before is invalid"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_body(R(api("GET", S(fmt("%s?%s", path, bad[i][0])), admin_token(), NULL)), 400,
			S(fmt("{\"error\":\"%s\"}", bad[i][1])));
}
END_TEST

START_TEST(test_users_list_pagination)
{
	char *p = S(unique("usrp"));
	long long ids[5];
	for (int i = 0; i < 5; i++)
		ids[i] = create_user(S(fmt("%s%c", p, 'a' + i)), "");
	char *token = S(make_user("usr_pv", NULL, NULL));
	const char *q = S(fmt("search=%s", p));
	/* two per page: every user on exactly one page */
	long long seen[5];
	size_t nseen = 0;
	for (int page = 1; page <= 3; page++) {
		resp *r =
			R(api("GET", S(fmt("/users?%s&per_page=2&page=%d", q, page)), token, NULL));
		ck_status(r, 200);
		size_t n = json_object_array_length(r->json);
		ck_assert_int_eq(n, page < 3 ? 2 : 1);
		for (size_t i = 0; i < n; i++)
			seen[nseen++] = jint(json_object_array_get_idx(r->json, i), "id");
		ck_pages(r, "/users", q, 5, 2, page);
	}
	ck_assert_int_eq(nseen, 5);
	for (int i = 0; i < 5; i++) {
		int found = 0;
		for (int j = 0; j < 5; j++)
			found += seen[j] == ids[i];
		ck_assert_msg(found == 1, "user %lld on %d pages", ids[i], found);
	}
	/* page and per_page in another order, and other parameters after them, are kept */
	resp *r = R(api("GET", S(fmt("/users?page=2&per_page=3&%s&active=true", q)), admin_token(),
			NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_pages(r, "/users", S(fmt("%s&active=true", q)), 5, 3, 2);
	/* per_page is capped at 100 */
	r = R(api("GET", S(fmt("/users?%s&per_page=500", q)), token, NULL));
	ck_status(r, 200);
	ck_ids(r, ids, 5);
	ck_pages(r, "/users", q, 5, 100, 1);
	/* a page past the end */
	r = R(api("GET", S(fmt("/users?%s&per_page=2&page=7", q)), token, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "[]");
	ck_pages(r, "/users", q, 5, 2, 7);
	/* bad values */
	ck_body(R(api("GET", S(fmt("/users?%s&per_page=two", q)), token, NULL)), 400,
		"{\"error\":\"per_page is invalid\"}");
	ck_body(R(api("GET", S(fmt("/users?%s&page=-x", q)), token, NULL)), 400,
		"{\"error\":\"page is invalid\"}");
}
END_TEST

/* Without filters the list is every user, newest first, and its total is its length. */
START_TEST(test_users_list_unfiltered)
{
	long long mine, gone;
	char *token = S(make_user("usr_all", &mine, NULL));
	S(make_user("usr_all_del", &gone, NULL));
	/* a soft delete leaves a ghost user behind, which no list shows */
	ck_code(R(api("DELETE", S(fmt("/users/%lld", gone)), admin_token(), NULL)), 204);
	const char *tokens[] = {token, admin_token()};
	for (size_t t = 0; t < 2; t++) {
		resp *r = R(api("GET", "/users?per_page=100", tokens[t], NULL));
		ck_status(r, 200);
		const char *h = resp_header(r, "X-Total");
		ck_assert_ptr_nonnull(h);
		long long total = atoll(h);
		size_t n = json_object_array_length(r->json);
		ck_assert_int_eq(n, total < 100 ? total : 100);
		ck_pages(r, "/users", "", total, 100, 1);
		bool found = false;
		for (size_t i = 0; i < n; i++) {
			json_object *u = json_object_array_get_idx(r->json, i);
			ck_fields(u, t ? ADMIN : BASIC);
			ck_assert_int_ne(jint(u, "id"), gone);
			ck_assert_str_ne(jstr(u, "username"), "ghost");
			if (i > 0)
				ck_assert_int_lt(jint(u, "id"),
						 jint(json_object_array_get_idx(r->json, i - 1),
						      "id"));
			found = found || jint(u, "id") == mine;
		}
		ck_assert_msg(found, "user %lld not among the newest: %s", mine, r->body);
		/* the last page holds the rest */
		long long pages = (total + 99) / 100;
		r = R(api("GET", S(fmt("/users?per_page=100&page=%lld", pages)), tokens[t], NULL));
		ck_status(r, 200);
		total = atoll(resp_header(r, "X-Total"));
		if ((total + 99) / 100 == pages) {
			ck_assert_int_eq(json_object_array_length(r->json),
					 total - (pages - 1) * 100);
			ck_pages(r, "/users", "", total, 100, pages);
		}
	}
}
END_TEST

/* ---- POST /users ---- */

START_TEST(test_users_create)
{
	char *name = S(unique("usr_new"));
	resp *r =
		R(api("POST", "/users", admin_token(),
		      S(fmt("email=%s%%40example.com&username=%s&name=New+User&password=secret1234"
			    "&skype=s1&linkedin=l1&twitter=t1&website_url=http%%3A%%2F%%2Fw.example"
			    "&organization=O1&projects_limit=7&extern_uid=%s&provider=github"
			    "&bio=B1&location=L1&admin=false&can_create_group=false"
			    "&skip_confirmation=true&external=true",
			    name, name, name))));
	ck_status(r, 201);
	ck_header(r, "Content-Type", "application/json");
	long long id = jint(r->json, "id");
	ck_assert_int_gt(id, 0);
	/* the body is the full user (the admin view) with every attribute as given */
	for (int round = 0; round < 2; round++) {
		json_object *u = r->json;
		for (size_t i = 0; SELF[i]; i++)
			ck_assert_msg(jhas(u, SELF[i]), "%s missing in %s", SELF[i], r->body);
		ck_assert_int_eq(jint(u, "id"), id);
		ck_str_member(u, "username", name);
		ck_str_member(u, "email", S(fmt("%s@example.com", name)));
		ck_str_member(u, "name", "New User");
		ck_str_member(u, "state", "active");
		ck_str_member(u, "skype", "s1");
		ck_str_member(u, "linkedin", "l1");
		ck_str_member(u, "twitter", "t1");
		ck_str_member(u, "website_url", "http://w.example");
		ck_str_member(u, "organization", "O1");
		ck_str_member(u, "bio", "B1");
		ck_str_member(u, "location", "L1");
		ck_assert_int_eq(jint(u, "projects_limit"), 7);
		ck_assert(!jbool(u, "can_create_group"));
		ck_assert(jbool(u, "can_create_project"));
		ck_assert(jbool(u, "external"));
		ck_time(u, "confirmed_at");
		ck_time(u, "created_at");
		json_object *ids = jget(u, "identities");
		ck_assert_int_eq(json_object_array_length(ids), 1);
		ck_str_member(json_object_array_get_idx(ids, 0), "provider", "github");
		ck_str_member(json_object_array_get_idx(ids, 0), "extern_uid", name);
		/* and the same when read back */
		r = get_user(id, admin_token());
		ck_status(r, 200);
		ck_assert(!jbool(r->json, "is_admin"));
	}
	/* a password reset instead of a password; unconfirmed without skip_confirmation;
	 * no projects means no project creation */
	name = S(unique("usr_new2"));
	r = R(api("POST", "/users", admin_token(),
		  S(fmt("email=%s%%40example.com&username=%s&name=N2&reset_password=true"
			"&projects_limit=0",
			name, name))));
	ck_status(r, 201);
	ck_assert(jnull(r->json, "confirmed_at"));
	ck_assert(jnull(r->json, "bio"));
	ck_assert_int_eq(jint(r->json, "projects_limit"), 0);
	ck_assert(!jbool(r->json, "can_create_project"));
	ck_assert(!jbool(r->json, "external"));
	ck_assert(jbool(r->json, "can_create_group"));
	ck_assert_int_eq(json_object_array_length(jget(r->json, "identities")), 0);
	/* reset_password takes priority over password: a bad password does not matter */
	name = S(unique("usr_new5"));
	ck_code(R(api("POST", "/users", admin_token(),
		      S(fmt("email=%s%%40example.com&username=%s&name=N5&password=x"
			    "&reset_password=true",
			    name, name)))),
		201);
	/* an admin */
	name = S(unique("usr_new3"));
	r = R(api("POST", "/users", admin_token(),
		  S(fmt("email=%s%%40example.com&username=%s&name=N3&password=secret1234&admin=true",
			name, name))));
	ck_status(r, 201);
	r = get_user(jint(r->json, "id"), admin_token());
	ck_assert(jbool(r->json, "is_admin"));
	/* emails are kept in lower case, as Devise does */
	name = S(unique("usr_case"));
	r = R(api("POST", "/users", admin_token(),
		  S(fmt("email=Mixed.%s%%40Example.COM&username=%s&name=C&password=secret1234",
			name, name))));
	ck_status(r, 201);
	ck_str_member(r->json, "email", S(fmt("mixed.%s@example.com", name)));
	r = R(api("PUT", S(fmt("/users/%lld", jint(r->json, "id"))), admin_token(),
		  S(fmt("email=Other.%s%%40EXAMPLE.org", name))));
	ck_status(r, 200);
	ck_str_member(r->json, "email", S(fmt("other.%s@example.org", name)));
	/* names may hold any text; usernames may hold dots, dashes and underscores */
	name = S(unique("usr.new-4_"));
	r = R(api("POST", "/users", admin_token(),
		  S(fmt("email=%s%%40example.com&username=%s&name=%%C3%%89lodie+d%%27Arc+%%3Cb%%3E"
			"&password=secret1234",
			name, name))));
	ck_status(r, 201);
	ck_str_member(r->json, "name", "\xc3\x89lodie d'Arc <b>");
	ck_str_member(r->json, "username", name);
}
END_TEST

START_TEST(test_users_create_missing)
{
	char *name = S(unique("usr_miss"));
	char *email = S(fmt("%s%%40example.com", name));
	static const char *const attrs[] = {"email", "username", "name"};
	for (size_t i = 0; i < 3; i++) {
		char *form = S(fmt(
			"%s%s%s&password=secret1234", i == 0 ? "" : S(fmt("email=%s", email)),
			i == 1 ? "" : S(fmt("&username=%s", name)), i == 2 ? "" : "&name=Missing"));
		ck_body(R(api("POST", "/users", admin_token(), form)), 400,
			S(fmt("{\"message\":\"400 (Bad request) \\\"%s\\\" not given\"}",
			      attrs[i])));
		/* an empty value is not given either */
		form = S(fmt("email=%s&username=%s&name=Missing&password=secret1234&%s=", email,
			     name, attrs[i]));
		ck_body(R(api("POST", "/users", admin_token(), form)), 400,
			S(fmt("{\"message\":\"400 (Bad request) \\\"%s\\\" not given\"}",
			      attrs[i])));
	}
	/* neither password nor reset_password */
	ck_body(R(api("POST", "/users", admin_token(),
		      S(fmt("email=%s&username=%s&name=Missing", email, name)))),
		400,
		"{\"error\":\"password, reset_password are missing, at least one parameter must be "
		"provided\"}");
	/* half an identity */
	ck_body(R(api("POST", "/users", admin_token(),
		      S(fmt("email=%s&username=%s&name=Missing&password=secret1234&extern_uid=x",
			    email, name)))),
		400, "{\"message\":\"400 (Bad request) \\\"provider\\\" not given\"}");
	ck_body(R(api("POST", "/users", admin_token(),
		      S(fmt("email=%s&username=%s&name=Missing&password=secret1234&provider=x",
			    email, name)))),
		400, "{\"message\":\"400 (Bad request) \\\"extern_uid\\\" not given\"}");
	ck_assert_int_eq(count_username(name), 0);
}
END_TEST

START_TEST(test_users_create_validation)
{
	char *name = S(unique("usr_val"));
	const char *base = S(fmt(
		"email=%s%%40example.com&username=%s&name=Valid&password=secret1234", name, name));
	static const char *const cases[][2] = {
		{"email=not-an-email", "{\"email\":[\"is invalid\"]}"},
		{"email=two%40at%40example.com", "{\"email\":[\"is invalid\"]}"},
		{"email=%40example.com", "{\"email\":[\"is invalid\"]}"},
		{"password=short", "{\"password\":[\"is too short (minimum is 8 characters)\"]}"},
		{"projects_limit=-1",
		 "{\"projects_limit\":[\"must be greater than or equal to 0\"]}"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		ck_body(R(api("POST", "/users", admin_token(), S(fmt("%s&%s", base, cases[i][0])))),
			400, S(fmt("{\"message\":%s}", cases[i][1])));
	/* usernames GitLab refuses */
	static const char *const bad_usernames[] = {"-lead",  "trail.",   "sp%20ace",     "x.git",
						    "x.atom", "sl%2Fash", "%C3%A9t%C3%A9"};
	for (size_t i = 0; i < sizeof(bad_usernames) / sizeof(*bad_usernames); i++) {
		resp *r = R(api("POST", "/users", admin_token(),
				S(fmt("%s&username=%s", base, bad_usernames[i]))));
		ck_status(r, 400);
		json_object *m = jget(r->json, "message");
		static const char *const only_username[] = {"username", NULL};
		ck_fields(m, only_username);
		ck_assert_str_eq(
			json_object_get_string(json_object_array_get_idx(jget(m, "username"), 0)),
			"can contain only letters, digits, '_', '-' and '.'. Cannot start "
			"with '-' or end in '.', '.git' or '.atom'.");
	}
	/* text past 255 characters */
	ck_body(R(api("POST", "/users", admin_token(),
		      S(fmt("%s&name=%s", base, repeat('n', 256))))),
		400, "{\"message\":{\"name\":[\"is too long (maximum is 255 characters)\"]}}");
	ck_body(R(api("POST", "/users", admin_token(),
		      S(fmt("%s&bio=%s", base, repeat('b', 300))))),
		400, "{\"message\":{\"bio\":[\"is too long (maximum is 255 characters)\"]}}");
	ck_code(R(api("POST", "/users", admin_token(),
		      S(fmt("%s&username=%s", base, repeat('u', 300))))),
		400);
	/* several at once: every field is reported */
	ck_body(R(api("POST", "/users", admin_token(),
		      S(fmt("%s&email=bad&password=short", base)))),
		400,
		"{\"message\":{\"email\":[\"is invalid\"],\"password\":[\"is too short (minimum is 8 "
		"characters)\"]}}");
	/* values of the wrong type */
	ck_body(R(api("POST", "/users", admin_token(), S(fmt("%s&projects_limit=many", base)))),
		400, "{\"error\":\"projects_limit is invalid\"}");
	ck_body(R(api("POST", "/users", admin_token(), S(fmt("%s&admin=sure", base)))), 400,
		"{\"error\":\"admin is invalid\"}");
	ck_body(R(api("POST", "/users", admin_token(), S(fmt("%s&external=2", base)))), 400,
		"{\"error\":\"external is invalid\"}");
	ck_body(R(api("POST", "/users", admin_token(), S(fmt("%s&skip_confirmation=x", base)))),
		400, "{\"error\":\"skip_confirmation is invalid\"}");
	/* nothing of it was created */
	ck_assert_int_eq(count_username(name), 0);
	resp *r = R(api("GET", S(fmt("/users?search=%s", name)), admin_token(), NULL));
	ck_ids(r, NULL, 0);
	/* and the base form itself is fine */
	ck_code(R(api("POST", "/users", admin_token(), base)), 201);
	ck_assert_int_eq(count_username(name), 1);
}
END_TEST

START_TEST(test_users_create_conflicts)
{
	char *name = S(unique("usr_dup"));
	long long id = create_user(name, S(fmt("extern_uid=%s&provider=ldapmain", name)));
	char *other = S(unique("usr_dup2"));
	/* the same email (in another case) */
	ck_body(R(api("POST", "/users", admin_token(),
		      S(fmt("email=%s%%40EXAMPLE.com&username=%s&name=x&password=secret1234", name,
			    other)))),
		409, "{\"message\":\"Email has already been taken\"}");
	/* the same username (in another case) */
	char *upper = S(strdup(name));
	for (char *s = upper; *s; s++)
		*s = (char)toupper((unsigned char)*s);
	ck_body(R(api("POST", "/users", admin_token(),
		      S(fmt("email=%s%%40example.com&username=%s&name=x&password=secret1234", other,
			    upper)))),
		409, "{\"message\":\"Username has already been taken\"}");
	/* an identity another user has */
	resp *r = R(api("POST", "/users", admin_token(),
			S(fmt("email=%s%%40example.com&username=%s&name=x&password=secret1234"
			      "&extern_uid=%s&provider=ldapmain",
			      other, other, name))));
	ck_status(r, 400);
	ck_assert_msg(json_object_is_type(jget(r->json, "message"), json_type_object), "%s",
		      r->body);
	/* none of them made a user */
	ck_assert_int_eq(count_username(other), 0);
	r = R(api("GET", S(fmt("/users?search=%s", other)), admin_token(), NULL));
	ck_ids(r, NULL, 0);
	ck_assert_int_eq(count_username(name), 1);
	r = get_user(id, admin_token());
	ck_str_member(r->json, "username", name);
}
END_TEST

/* The command line's user-create and token-create: the rules and words of POST /users
 * and the token endpoints (one function each, api/users.c, api/tokens.c), no request. */
static char *cli_run(const char *args, int *status)
{
	const char *bin = getenv("COLLABD_BIN");
	ck_assert_msg(bin && getenv("COLLABD_CONFIG"), "COLLABD_BIN and COLLABD_CONFIG");
	FILE *f = popen(S(fmt("'%s' %s 2>&1", bin, args)), "r");
	ck_assert_ptr_nonnull(f);
	char out[2048];
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	int rc = pclose(f);
	*status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	return S(strdup(out));
}

static void ck_cli_refused(const char *args, const char *words)
{
	int status;
	char *out = cli_run(args, &status);
	ck_assert_msg(status == 1 && strstr(out, words), "%s: exit %d, \"%s\", expected \"%s\"",
		      args, status, out, words);
}

START_TEST(test_users_cli_create)
{
	char *name = S(unique("usr_cli"));
	int status;
	char *out = cli_run(S(fmt("user-create %s %s@Example.com 'Cli User' --password secret1234",
				  name, name)),
			    &status);
	ck_assert_msg(status == 0, "exit %d: %s", status, out);
	out[strcspn(out, "\r\n")] = '\0';
	resp *r = R(api("GET", "/user", out, NULL));
	ck_status(r, 200);
	ck_str_member(r->json, "username", name);
	ck_str_member(r->json, "email", S(fmt("%s@example.com", name)));
	ck_assert(!json_object_get_boolean(jget(r->json, "is_admin")));
	ck_assert_int_eq(count_username(name), 1);
	/* what POST /users refuses, refused in its words, and nothing made */
	char *upper = S(strdup(name));
	for (char *s = upper; *s; s++)
		*s = (char)toupper((unsigned char)*s);
	char *other = S(unique("usr_cli2"));
	ck_cli_refused(
		S(fmt("user-create %s %s@example.com x --password secret1234", upper, other)),
		"Username has already been taken");
	ck_cli_refused(S(fmt("user-create %s %s@EXAMPLE.com x --password secret1234", other, name)),
		       "Email has already been taken");
	ck_cli_refused(S(fmt("user-create %s not-an-email x --password secret1234", other)),
		       "email is invalid");
	ck_cli_refused(S(fmt("user-create %s %s@example.com x --password short", other, other)),
		       "password is too short (minimum is 8 characters)");
	ck_cli_refused(S(fmt("user-create %s %s@example.com ''", other, other)),
		       "name can't be blank");
	ck_cli_refused(
		S(fmt("user-create %s.git %s@example.com x --password secret1234", other, other)),
		"username can contain only letters");
	ck_assert_int_eq(count_username(other), 0);
	/* a personal access token, by the rules of the token endpoints */
	ck_cli_refused(S(fmt("token-create %s --scopes api,sudo", name)),
		       "scopes does not have a valid value");
	ck_cli_refused(S(fmt("token-create %s --expires tomorrow", name)), "expires_at is invalid");
	ck_cli_refused(S(fmt("token-create %s --scopes ,", name)), "\"scopes\" not given");
	char *token = cli_personal_token(name, "read_user,api,read_user", "2999-01-01");
	r = R(api("GET", "/user", token, NULL));
	ck_status(r, 200);
	ck_str_member(r->json, "username", name);
	free(token);
}
END_TEST

START_TEST(test_users_create_json)
{
	char *name = S(unique("usr_json"));
	resp *r = R(api_json("POST", "/users", admin_token(),
			     S(fmt("{\"email\":\"%s@example.com\",\"username\":\"%s\",\"name\":\"J "
				   "Son\",\"password\":\"secret1234\",\"skip_confirmation\":true,"
				   "\"admin\":false,\"external\":true,\"projects_limit\":3,"
				   "\"can_create_group\":false,\"bio\":null,\"skype\":\"sk\"}",
				   name, name))));
	ck_status(r, 201);
	ck_str_member(r->json, "username", name);
	ck_str_member(r->json, "name", "J Son");
	ck_str_member(r->json, "skype", "sk");
	ck_assert(jnull(r->json, "bio"));
	ck_assert(jbool(r->json, "external"));
	ck_assert(!jbool(r->json, "can_create_group"));
	ck_assert_int_eq(jint(r->json, "projects_limit"), 3);
	ck_time(r->json, "confirmed_at");
	long long id = jint(r->json, "id");
	r = get_user(id, admin_token());
	ck_assert(!jbool(r->json, "is_admin"));

	/* the same errors as with a form body */
	char *other = S(unique("usr_json2"));
	ck_body(R(api_json("POST", "/users", admin_token(),
			   S(fmt("{\"username\":\"%s\",\"name\":\"x\",\"password\":\"secret1234\"}",
				 other)))),
		400, "{\"message\":\"400 (Bad request) \\\"email\\\" not given\"}");
	ck_body(R(api_json("POST", "/users", admin_token(),
			   S(fmt("{\"email\":\"nope\",\"username\":\"%s\",\"name\":\"x\","
				 "\"password\":\"secret1234\"}",
				 other)))),
		400, "{\"message\":{\"email\":[\"is invalid\"]}}");
	ck_body(R(api_json("POST", "/users", admin_token(),
			   S(fmt("{\"email\":\"%s@example.com\",\"username\":\"%s\",\"name\":\"x\","
				 "\"password\":\"secret1234\",\"admin\":\"perhaps\"}",
				 other, other)))),
		400, "{\"error\":\"admin is invalid\"}");
	/* bodies that are not JSON objects */
	static const char *const bad[] = {
		"{\"email\":", "{\"email\":\"a@b.c\",}", "[1,2]", "\"text\"", "{\"a\":1} trailing",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		r = R(api_json("POST", "/users", admin_token(), bad[i]));
		ck_status(r, 400);
		ck_assert_msg(jstr(r->json, "message") != NULL, "%s: %s", bad[i], r->body);
	}
	ck_assert_int_eq(count_username(other), 0);
}
END_TEST

/* ---- PUT /users/:id ---- */

START_TEST(test_users_update)
{
	char *name;
	long long id;
	char *token = S(make_user("usr_upd", &id, &name));
	S(name);
	char *renamed = S(unique("usr_upd_new"));
	const char *path = S(fmt("/users/%lld", id));
	resp *r =
		R(api("PUT", path, admin_token(),
		      S(fmt("name=Renamed&username=%s&email=%s%%40example.org&bio=Bio&location=Here"
			    "&skype=s&linkedin=l&twitter=t&website_url=w&organization=o"
			    "&projects_limit=5&can_create_group=false&external=true"
			    "&extern_uid=%s&provider=github",
			    renamed, renamed, renamed))));
	ck_status(r, 200);
	ck_header(r, "Content-Type", "application/json");
	for (size_t i = 0; SELF[i]; i++)
		ck_assert_msg(jhas(r->json, SELF[i]), "%s missing in %s", SELF[i], r->body);
	for (int round = 0; round < 2; round++) {
		ck_assert_int_eq(jint(r->json, "id"), id);
		ck_str_member(r->json, "name", "Renamed");
		ck_str_member(r->json, "username", renamed);
		ck_str_member(r->json, "web_url", S(fmt("%s/%s", api_url(), renamed)));
		ck_str_member(r->json, "email", S(fmt("%s@example.org", renamed)));
		ck_str_member(r->json, "bio", "Bio");
		ck_str_member(r->json, "location", "Here");
		ck_str_member(r->json, "skype", "s");
		ck_str_member(r->json, "linkedin", "l");
		ck_str_member(r->json, "twitter", "t");
		ck_str_member(r->json, "website_url", "w");
		ck_str_member(r->json, "organization", "o");
		ck_assert_int_eq(jint(r->json, "projects_limit"), 5);
		ck_assert(!jbool(r->json, "can_create_group"));
		ck_assert(jbool(r->json, "external"));
		json_object *ids = jget(r->json, "identities");
		ck_assert_int_eq(json_object_array_length(ids), 1);
		ck_str_member(json_object_array_get_idx(ids, 0), "extern_uid", renamed);
		r = get_user(id, admin_token());
		ck_status(r, 200);
	}
	/* the user sees it too, and the token still works after a rename */
	r = R(api("GET", "/user", token, NULL));
	ck_status(r, 200);
	ck_str_member(r->json, "username", renamed);
	/* an empty update changes nothing; unspecified fields keep their values */
	r = R(api("PUT", path, admin_token(), NULL));
	ck_status(r, 200);
	ck_str_member(r->json, "name", "Renamed");
	r = R(api("PUT", path, admin_token(), "location=There"));
	ck_status(r, 200);
	ck_str_member(r->json, "location", "There");
	ck_str_member(r->json, "bio", "Bio");
	/* keeping one's own email and username (in another case) is no conflict */
	char *upper = S(strdup(renamed));
	for (char *s = upper; *s; s++)
		*s = (char)toupper((unsigned char)*s);
	r = R(api("PUT", path, admin_token(),
		  S(fmt("email=%s%%40example.org&username=%s", renamed, upper))));
	ck_status(r, 200);
	ck_str_member(r->json, "username", upper);
	/* a new identity provider adds one; the same provider replaces the uid */
	r = R(api("PUT", path, admin_token(), S(fmt("extern_uid=%s-2&provider=github", renamed))));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(jget(r->json, "identities")), 1);
	ck_str_member(json_object_array_get_idx(jget(r->json, "identities"), 0), "extern_uid",
		      S(fmt("%s-2", renamed)));
	/* making the user an admin shows in their own GET /user */
	r = R(api("PUT", path, admin_token(), "admin=true"));
	ck_status(r, 200);
	r = R(api("GET", "/user", token, NULL));
	ck_fields(r->json, ADMIN_ME);
	ck_assert(jbool(r->json, "is_admin"));
	r = R(api("PUT", path, admin_token(), "admin=false"));
	ck_status(r, 200);
	r = R(api("GET", "/user", token, NULL));
	ck_fields(r->json, SELF);
	/* a JSON body */
	r = R(api_json("PUT", path, admin_token(),
		       "{\"name\":\"From JSON\",\"projects_limit\":9,\"external\":false}"));
	ck_status(r, 200);
	ck_str_member(r->json, "name", "From JSON");
	ck_assert_int_eq(jint(r->json, "projects_limit"), 9);
	ck_assert(!jbool(r->json, "external"));
}
END_TEST

START_TEST(test_users_update_errors)
{
	char *name, *other_name;
	long long id, other;
	S(make_user("usr_upde", &id, &name));
	S(name);
	S(make_user("usr_upde_o", &other, &other_name));
	S(other_name);
	const char *path = S(fmt("/users/%lld", id));
	resp *before = get_user(id, admin_token());
	ck_status(before, 200);

	/* validation: nothing of the request is applied, not even its valid fields */
	static const char *const cases[][2] = {
		{"name=Changed&email=broken", "{\"email\":[\"is invalid\"]}"},
		{"name=Changed&password=short",
		 "{\"password\":[\"is too short (minimum is 8 characters)\"]}"},
		{"name=", "{\"name\":[\"can't be blank\"]}"},
		{"name=Changed&username=bad%20name",
		 "{\"username\":[\"can contain only letters, digits, '_', '-' and '.'. Cannot start "
		 "with '-' or end in '.', '.git' or '.atom'.\"]}"},
		{"name=Changed&projects_limit=-5",
		 "{\"projects_limit\":[\"must be greater than or equal to 0\"]}"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		ck_body(R(api("PUT", path, admin_token(), cases[i][0])), 400,
			S(fmt("{\"message\":%s}", cases[i][1])));
	ck_body(R(api("PUT", path, admin_token(), S(fmt("name=%s", repeat('x', 256))))), 400,
		"{\"message\":{\"name\":[\"is too long (maximum is 255 characters)\"]}}");
	ck_body(R(api("PUT", path, admin_token(), "name=Changed&admin=yes please")), 400,
		"{\"error\":\"admin is invalid\"}");
	ck_body(R(api("PUT", path, admin_token(), "name=Changed&projects_limit=1e3")), 400,
		"{\"error\":\"projects_limit is invalid\"}");
	ck_body(R(api("PUT", path, admin_token(), "name=Changed&extern_uid=x")), 400,
		"{\"message\":\"400 (Bad request) \\\"provider\\\" not given\"}");
	/* conflicts with another user: 409, in any case */
	ck_body(R(api("PUT", path, admin_token(),
		      S(fmt("name=Changed&email=%s%%40Example.COM", other_name)))),
		409, "{\"message\":\"Email has already been taken\"}");
	char *upper = S(strdup(other_name));
	for (char *s = upper; *s; s++)
		*s = (char)toupper((unsigned char)*s);
	ck_body(R(api("PUT", path, admin_token(), S(fmt("name=Changed&username=%s", upper)))), 409,
		"{\"message\":\"Username has already been taken\"}");
	/* malformed JSON */
	resp *r = R(api_json("PUT", path, admin_token(), "{\"name\": \"Changed\""));
	ck_status(r, 400);
	/* the user is exactly as before */
	resp *after = get_user(id, admin_token());
	ck_status(after, 200);
	ck_assert_msg(json_object_equal(before->json, after->json), "changed: %s -> %s",
		      before->body, after->body);
	r = get_user(other, admin_token());
	ck_str_member(r->json, "username", other_name);

	/* ids */
	ck_user_not_found(R(api("PUT", "/users/999999999", admin_token(), "name=x")));
	ck_body(R(api("PUT", "/users/abc", admin_token(), "name=x")), 400,
		"{\"error\":\"id is invalid\"}");
}
END_TEST

/* ---- avatars (multipart bodies) ---- */

/* METHOD /api/v4<path> as the admin with a multipart body: the text fields of form
 * ("a=1&b=2", no encoding) and a file part "avatar" named filename holding n bytes. */
static resp *multipart(const char *method, const char *path, const char *form, const char *filename,
		       const unsigned char *data, size_t n)
{
	static const char boundary[] = "collabd-test-boundary-7f3a";
	size_t cap = strlen(form) * 2 + n + 1024, len = 0;
	char *body = S(malloc(cap));
	char *fields = S(strdup(form));
	for (char *save = NULL, *f = strtok_r(fields, "&", &save); f;
	     f = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(f, '=');
		ck_assert_ptr_nonnull(eq);
		*eq = '\0';
		len += (size_t)snprintf(
			body + len, cap - len,
			"--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n",
			boundary, f, eq + 1);
	}
	len += (size_t)snprintf(body + len, cap - len,
				"--%s\r\nContent-Disposition: form-data; name=\"avatar\"; "
				"filename=\"%s\"\r\nContent-Type: application/octet-stream\r\n\r\n",
				boundary, filename);
	memcpy(body + len, data, n);
	len += n;
	len += (size_t)snprintf(body + len, cap - len, "\r\n--%s--\r\n", boundary);
	ck_assert(len < cap);
	const char *headers[] = {S(fmt("PRIVATE-TOKEN: %s", admin_token())), NULL};
	return R(http_request(method, S(fmt("%s/api/v4%s", api_url(), path)), headers, body, len,
			      S(fmt("multipart/form-data; boundary=%s", boundary))));
}

/* The stored file, when the stack's directory is known (tests/api/run exports it). */
static void ck_avatar_file(long long id, const char *name, const unsigned char *data, size_t n)
{
	const char *dir = getenv("COLLABD_DIR");
	if (!dir)
		return;
	char *path = S(fmt("%s/storage/uploads/-/system/user/avatar/%lld/%s", dir, id, name));
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "avatar %s not stored", path);
	unsigned char buf[1024];
	size_t got = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ck_assert_msg(got == n && memcmp(buf, data, n) == 0, "avatar %s: other bytes", path);
}

/* The file name of user id's avatar_url in o: a generated name (TOKEN_LEN characters
 * of [A-Za-z0-9_-]) with extension ext, under the user's avatar directory. */
static const char *ck_avatar_name(json_object *o, long long id, const char *ext)
{
	const char *url = jstr(o, "avatar_url");
	char *prefix = S(fmt("%s/uploads/-/system/user/avatar/%lld/", api_url(), id));
	ck_assert_msg(url && strncmp(url, prefix, strlen(prefix)) == 0, "avatar_url %s",
		      url ? url : "(none)");
	const char *name = url + strlen(prefix);
	size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-");
	ck_assert_msg(n == 20 && name[n] == '.' && strcmp(name + n + 1, ext) == 0, "avatar name %s",
		      name);
	return name;
}

/* Whether the stored file is gone, once the background process had time to remove it. */
static void ck_avatar_gone(long long id, const char *name)
{
	const char *dir = getenv("COLLABD_DIR");
	if (!dir)
		return;
	char *path = S(fmt("%s/storage/uploads/-/system/user/avatar/%lld/%s", dir, id, name));
	for (int i = 0; i < 100 && access(path, F_OK) == 0; i++)
		usleep(100 * 1000);
	ck_assert_msg(access(path, F_OK) != 0, "avatar %s still stored", path);
}

START_TEST(test_users_avatar)
{
	/* bytes of a PNG header: NULs and CR LF inside */
	static const unsigned char png[] = {0x89, 'P', 'N',  'G', '\r', '\n', 0x1a, '\n', 0,
					    0,    0,   0x0d, 'I', 'H',  'D',  'R',  0,    0,
					    0,    1,   0,    0,   0,    1,    8,    6,    0};
	char *name = S(unique("usr_av"));
	resp *r =
		multipart("POST", "/users",
			  S(fmt("email=%s@example.com&username=%s&name=Avatar&password=secret1234",
				name, name)),
			  "me.png", png, sizeof(png));
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	const char *first = S(strdup(ck_avatar_name(r->json, id, "png")));
	char *url = S(strdup(jstr(r->json, "avatar_url")));
	ck_avatar_file(id, first, png, sizeof(png));
	/* everyone sees it, in every view */
	char *token = S(make_user("usr_av_v", NULL, NULL));
	r = get_user(id, token);
	ck_str_member(r->json, "avatar_url", url);
	r = R(api("GET", S(fmt("/users?username=%s", name)), token, NULL));
	ck_str_member(json_object_array_get_idx(r->json, 0), "avatar_url", url);
	/* a new one through PUT, with other fields; the name the client gave is not used
	 * (a path in it least of all), the type comes from the bytes; the file it replaces
	 * goes */
	r = multipart("PUT", S(fmt("/users/%lld", id)), "bio=With avatar", "../../../etc/x y.JPG",
		      png, sizeof(png));
	ck_status(r, 200);
	const char *second = S(strdup(ck_avatar_name(r->json, id, "png")));
	url = S(strdup(jstr(r->json, "avatar_url")));
	ck_assert_str_ne(first, second);
	ck_str_member(r->json, "bio", "With avatar");
	ck_avatar_file(id, second, png, sizeof(png));
	ck_avatar_gone(id, first);
	/* not an image, or too big: refused, and nothing changes */
	r = multipart("PUT", S(fmt("/users/%lld", id)), "bio=Changed", "run.exe", png, sizeof(png));
	ck_body(r, 400,
		"{\"message\":{\"avatar\":[\"You are not allowed to upload this file type. Allowed "
		"types: png, jpg, jpeg, gif, bmp, tiff, ico\"]}}");
	size_t big = 200 * 1024 + 1;
	unsigned char *huge = (unsigned char *)S(calloc(1, big));
	memcpy(huge, png, sizeof(png));
	r = multipart("PUT", S(fmt("/users/%lld", id)), "bio=Changed", "big.png", huge, big);
	ck_body(r, 400, "{\"message\":{\"avatar\":[\"is too big (should be at most 200 KB)\"]}}");
	char *other = S(unique("usr_av2"));
	r = multipart("POST", "/users",
		      S(fmt("email=%s@example.com&username=%s&name=Avatar&password=secret1234",
			    other, other)),
		      "doc.pdf", png, sizeof(png));
	ck_status(r, 400);
	ck_assert_int_eq(count_username(other), 0);
	r = get_user(id, admin_token());
	ck_str_member(r->json, "bio", "With avatar");
	ck_str_member(r->json, "avatar_url", url);
	ck_avatar_file(id, second, png, sizeof(png));
}
END_TEST

/* ---- block and unblock ---- */

START_TEST(test_users_block)
{
	char *name;
	long long id;
	char *token = S(make_user("usr_blk", &id, &name));
	S(name);
	const char *block = S(fmt("/users/%lld/block", id));
	const char *unblock = S(fmt("/users/%lld/unblock", id));
	/* unblocking an active user changes nothing */
	ck_body(R(api("POST", unblock, admin_token(), NULL)), 201, "false");
	ck_code(R(api("GET", "/user", token, NULL)), 200);

	resp *r = R(api("POST", block, admin_token(), NULL));
	ck_body(r, 201, "true");
	ck_header(r, "Content-Type", "application/json");
	/* the token stops working at once, for every endpoint */
	ck_unauthorized(R(api("GET", "/user", token, NULL)));
	ck_unauthorized(R(api("GET", S(fmt("/users/%lld", id)), token, NULL)));
	ck_unauthorized(R(api("GET", "/users", token, NULL)));
	ck_unauthorized(R(api("GET", "/user/keys", token, NULL)));
	/* the user is still there, blocked */
	r = get_user(id, admin_token());
	ck_status(r, 200);
	ck_str_member(r->json, "state", "blocked");
	r = R(api("GET", S(fmt("/users?username=%s&blocked=true", name)), admin_token(), NULL));
	ck_ids(r, &id, 1);
	r = R(api("GET", S(fmt("/users?username=%s&active=true", name)), admin_token(), NULL));
	ck_ids(r, NULL, 0);
	/* others still see the user, blocked */
	char *viewer = S(make_user("usr_blk_v", NULL, NULL));
	r = get_user(id, viewer);
	ck_status(r, 200);
	ck_str_member(r->json, "state", "blocked");
	/* blocking twice: false, still blocked */
	ck_body(R(api("POST", block, admin_token(), NULL)), 201, "false");
	ck_unauthorized(R(api("GET", "/user", token, NULL)));

	ck_body(R(api("POST", unblock, admin_token(), NULL)), 201, "true");
	r = R(api("GET", "/user", token, NULL));
	ck_status(r, 200);
	ck_str_member(r->json, "state", "active");
	ck_body(R(api("POST", unblock, admin_token(), NULL)), 201, "false");

	/* errors */
	const char *verbs[] = {"block", "unblock"};
	for (size_t i = 0; i < 2; i++) {
		ck_user_not_found(R(
			api("POST", S(fmt("/users/999999999/%s", verbs[i])), admin_token(), NULL)));
		ck_body(R(api("POST", S(fmt("/users/x1/%s", verbs[i])), admin_token(), NULL)), 400,
			"{\"error\":\"id is invalid\"}");
		/* a normal user may not, not even themselves */
		ck_forbidden(R(api("POST", S(fmt("/users/%lld/%s", id, verbs[i])), token, NULL)));
	}
	r = get_user(id, admin_token());
	ck_str_member(r->json, "state", "active");
}
END_TEST

/* ---- DELETE /users/:id ---- */

START_TEST(test_users_delete)
{
	char *name;
	long long id;
	char *token = S(make_user("usr_del", &id, &name));
	S(name);
	const char *path = S(fmt("/users/%lld", id));
	resp *r = R(api("DELETE", path, admin_token(), NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_user_not_found(get_user(id, admin_token()));
	ck_unauthorized(R(api("GET", "/user", token, NULL)));
	ck_assert_int_eq(count_username(name), 0);
	ck_user_not_found(R(api("DELETE", path, admin_token(), NULL)));
	ck_user_not_found(R(api("PUT", path, admin_token(), "name=x")));
	ck_user_not_found(R(api("POST", S(fmt("%s/block", path)), admin_token(), NULL)));
	ck_user_not_found(R(api("GET", S(fmt("%s/keys", path)), admin_token(), NULL)));
	ck_user_not_found(R(api("GET", S(fmt("%s/events", path)), admin_token(), NULL)));
	/* the username and the email are free again */
	long long again = create_user(name, "");
	ck_assert_int_ne(again, id);
}
END_TEST

START_TEST(test_users_hard_delete)
{
	long long id;
	char *name;
	char *token = S(make_user("usr_hdel", &id, &name));
	S(name);
	const char *path = S(fmt("/users/%lld", id));
	/* a bad flag deletes nothing */
	ck_body(R(api("DELETE", S(fmt("%s?hard_delete=maybe", path)), admin_token(), NULL)), 400,
		"{\"error\":\"hard_delete is invalid\"}");
	ck_code(get_user(id, admin_token()), 200);
	ck_code(R(api("GET", "/user", token, NULL)), 200);

	resp *r = R(api("DELETE", S(fmt("%s?hard_delete=true", path)), admin_token(), NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_user_not_found(get_user(id, admin_token()));
	ck_unauthorized(R(api("GET", "/user", token, NULL)));
	ck_user_not_found(
		R(api("DELETE", S(fmt("%s?hard_delete=true", path)), admin_token(), NULL)));
	/* the flag in a form body */
	long long other = create_user(S(unique("usr_hdel2")), "");
	ck_code(R(api("DELETE", S(fmt("/users/%lld", other)), admin_token(), "hard_delete=true")),
		204);
	ck_user_not_found(get_user(other, admin_token()));
	/* ids */
	ck_body(R(api("DELETE", "/users/abc", admin_token(), NULL)), 400,
		"{\"error\":\"id is invalid\"}");
	ck_user_not_found(R(api("DELETE", "/users/999999999", admin_token(), NULL)));
}
END_TEST

/* ---- GET /users/:id/events ---- */

START_TEST(test_users_events)
{
	long long id;
	char *name;
	char *token = S(make_user("usr_ev", &id, &name));
	S(name);
	const char *path = S(fmt("/users/%lld/events", id));
	const char *tokens[] = {token, admin_token()};
	for (size_t i = 0; i < 2; i++) {
		resp *r = R(api("GET", path, tokens[i], NULL));
		ck_status(r, 200);
		ck_header(r, "Content-Type", "application/json");
		ck_assert_str_eq(r->body, "[]");
		ck_pages(r, path, "", 0, 20, 1);
		/* by username too */
		const char *by_name = S(fmt("/users/%s/events", name));
		r = R(api("GET", by_name, tokens[i], NULL));
		ck_status(r, 200);
		ck_assert_str_eq(r->body, "[]");
		/* the filters, with the query in the links */
		r = R(api("GET",
			  S(fmt("%s?action=commented&target_type=note&before=2999-01-01&"
				"after=2000-01-01&sort=asc&per_page=5",
				path)),
			  tokens[i], NULL));
		ck_status(r, 200);
		ck_pages(r, path,
			 "action=commented&target_type=note&before=2999-01-01&after=2000-01-01&"
			 "sort=asc",
			 0, 5, 1);
		/* errors */
		ck_user_not_found(R(api("GET", "/users/999999999/events", tokens[i], NULL)));
		ck_user_not_found(
			R(api("GET", S(fmt("/users/%snope/events", name)), tokens[i], NULL)));
		ck_body(R(api("GET", S(fmt("%s?action=danced", path)), tokens[i], NULL)), 400,
			"{\"error\":\"action does not have a valid value\"}");
		ck_body(R(api("GET", S(fmt("%s?target_type=Issue", path)), tokens[i], NULL)), 400,
			"{\"error\":\"target_type does not have a valid value\"}");
		ck_body(R(api("GET", S(fmt("%s?sort=random", path)), tokens[i], NULL)), 400,
			"{\"error\":\"sort does not have a valid value\"}");
		ck_body(R(api("GET", S(fmt("%s?before=2017-02-30", path)), tokens[i], NULL)), 400,
			"{\"error\":\"before is invalid\"}");
		ck_body(R(api("GET", S(fmt("%s?after=last+week", path)), tokens[i], NULL)), 400,
			"{\"error\":\"after is invalid\"}");
		ck_body(R(api("GET", S(fmt("%s?per_page=x", path)), tokens[i], NULL)), 400,
			"{\"error\":\"per_page is invalid\"}");
	}
}
END_TEST

Suite *suite_users(void)
{
	Suite *s = suite_create("users");
	TCase *tc = tcase_create("users");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_users_require_auth);
	tcase_add_test(tc, test_users_admin_only);
	tcase_add_test(tc, test_user_current_normal);
	tcase_add_test(tc, test_user_current_admin);
	tcase_add_test(tc, test_user_current_sudo);
	tcase_add_test(tc, test_users_show_views);
	tcase_add_test(tc, test_users_show_errors);
	tcase_add_test(tc, test_users_list_views);
	tcase_add_test(tc, test_users_list_filters);
	tcase_add_test(tc, test_users_list_created);
	tcase_add_test(tc, test_users_list_pagination);
	tcase_add_test(tc, test_users_list_unfiltered);
	tcase_add_test(tc, test_users_create);
	tcase_add_test(tc, test_users_create_missing);
	tcase_add_test(tc, test_users_create_validation);
	tcase_add_test(tc, test_users_create_conflicts);
	tcase_add_test(tc, test_users_cli_create);
	tcase_add_test(tc, test_users_create_json);
	tcase_add_test(tc, test_users_update);
	tcase_add_test(tc, test_users_update_errors);
	tcase_add_test(tc, test_users_avatar);
	tcase_add_test(tc, test_users_block);
	tcase_add_test(tc, test_users_delete);
	tcase_add_test(tc, test_users_hard_delete);
	tcase_add_test(tc, test_users_events);
	suite_add_tcase(s, tc);
	return s;
}
