/* API suite: users' secondary emails (GitLab 10.8's GET/POST /user/emails,
 * GET/DELETE /user/emails/:email_id, and the admins' GET/POST /users/:id/emails and
 * DELETE /users/:id/emails/:email_id): shapes, who may call, an address taken by anyone's
 * primary or secondary email, invalid addresses, pagination. */
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const EMAIL_FIELDS[] = {"id", "email", NULL};

static resp *post_email(const char *path, const char *token, const char *email)
{
	return R(api("POST", path, token, S(fmt("email=%s", S(enc(email))))));
}

static long long add_email(const char *path, const char *token, const char *email)
{
	resp *r = post_email(path, token, email);
	ck_status(r, 201);
	return jint(r->json, "id");
}

static long long total(const char *path, const char *token)
{
	resp *r = R(api("GET", path, token, NULL));
	ck_status(r, 200);
	const char *t = resp_header(r, "X-Total");
	ck_assert(t != NULL);
	return atoll(t);
}

START_TEST(test_emails_mine)
{
	char *token = S(make_user("eml_mine", NULL, NULL));
	const char *addr = S(unique("Eml.Mine"));
	const char *given = S(fmt("  %s@Example.COM ", addr));
	resp *r = post_email("/user/emails", token, given);
	ck_status(r, 201);
	ck_fields(r->json, EMAIL_FIELDS);
	long long id = jint(r->json, "id");
	char *lower = S(fmt("%s@example.com", addr));
	for (char *p = lower; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	ck_jstr(r, "email", lower);

	r = R(api("GET", S(fmt("/user/emails/%lld", id)), token, NULL));
	ck_status(r, 200);
	ck_fields(r->json, EMAIL_FIELDS);
	ck_jstr(r, "email", lower);
	r = R(api("GET", "/user/emails", token, NULL));
	ck_status(r, 200);
	ck_pages(r, "/user/emails", "", 1, 20, 1);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), id);

	ck_code(R(api("DELETE", S(fmt("/user/emails/%lld", id)), token, NULL)), 204);
	ck_body(R(api("GET", S(fmt("/user/emails/%lld", id)), token, NULL)), 404,
		"{\"message\":\"404 Email Not Found\"}");
	ck_body(R(api("DELETE", S(fmt("/user/emails/%lld", id)), token, NULL)), 404,
		"{\"message\":\"404 Email Not Found\"}");
	ck_assert_int_eq(total("/user/emails", token), 0);
	/* deleted, the address is free again */
	add_email("/user/emails", token, lower);
}
END_TEST

START_TEST(test_emails_auth)
{
	long long uid;
	char *token = S(make_user("eml_auth", &uid, NULL));
	long long eid = add_email("/user/emails", token, S(fmt("%s@example.com", S(unique("ea")))));
	struct {
		const char *method, *path, *form;
	} calls[] = {
		{"GET", "/user/emails", NULL},
		{"GET", S(fmt("/user/emails/%lld", eid)), NULL},
		{"POST", "/user/emails", "email=a@b.example"},
		{"DELETE", S(fmt("/user/emails/%lld", eid)), NULL},
		{"GET", S(fmt("/users/%lld/emails", uid)), NULL},
		{"POST", S(fmt("/users/%lld/emails", uid)), "email=c@d.example"},
		{"DELETE", S(fmt("/users/%lld/emails/%lld", uid, eid)), NULL},
	};
	const char *unauth = "{\"message\":\"401 Unauthorized\"}";
	const char *forbidden = "{\"message\":\"403 Forbidden\"}";
	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++) {
		ck_body(R(api(calls[i].method, calls[i].path, NULL, calls[i].form)), 401, unauth);
		ck_body(R(api(calls[i].method, calls[i].path, "bad-token", calls[i].form)), 401,
			unauth);
	}
	char *other = S(make_user("eml_auth_o", NULL, NULL));
	for (size_t i = 4; i < sizeof(calls) / sizeof(*calls); i++) {
		ck_body(R(api(calls[i].method, calls[i].path, other, calls[i].form)), 403,
			forbidden);
		ck_body(R(api(calls[i].method, calls[i].path, token, calls[i].form)), 403,
			forbidden);
	}
	/* another user's email is not one's own */
	ck_body(R(api("GET", S(fmt("/user/emails/%lld", eid)), other, NULL)), 404,
		"{\"message\":\"404 Email Not Found\"}");
	ck_body(R(api("DELETE", S(fmt("/user/emails/%lld", eid)), other, NULL)), 404,
		"{\"message\":\"404 Email Not Found\"}");
	ck_assert_int_eq(total("/user/emails", token), 1);
	ck_assert_int_eq(total("/user/emails", other), 0);
}
END_TEST

START_TEST(test_emails_admin)
{
	long long uid;
	char *token = S(make_user("eml_adm", &uid, NULL));
	const char *base = S(fmt("/users/%lld/emails", uid));
	long long eid = add_email(base, admin_token(), S(fmt("%s@example.com", S(unique("adm")))));
	resp *r = R(api("GET", base, admin_token(), NULL));
	ck_status(r, 200);
	ck_pages(r, base, "", 1, 20, 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), eid);
	/* the user sees it as their own */
	ck_code(R(api("GET", S(fmt("/user/emails/%lld", eid)), token, NULL)), 200);
	/* another user's id in the path is not this email's user */
	long long other;
	S(make_user("eml_adm_o", &other, NULL));
	ck_body(R(api("DELETE", S(fmt("/users/%lld/emails/%lld", other, eid)), admin_token(),
		      NULL)),
		404, "{\"message\":\"404 Email Not Found\"}");
	const char *nu = "{\"message\":\"404 User Not Found\"}";
	ck_body(R(api("GET", "/users/999999999/emails", admin_token(), NULL)), 404, nu);
	ck_body(post_email("/users/999999999/emails", admin_token(), "x@nouser.example"), 404, nu);
	ck_body(R(api("DELETE", S(fmt("/users/999999999/emails/%lld", eid)), admin_token(), NULL)),
		404, nu);
	ck_body(R(api("GET", "/users/abc/emails", admin_token(), NULL)), 400,
		"{\"error\":\"id is invalid\"}");
	ck_body(R(api("DELETE", S(fmt("%s/abc", base)), admin_token(), NULL)), 400,
		"{\"error\":\"email_id is invalid\"}");
	ck_code(R(api("DELETE", S(fmt("%s/%lld", base, eid)), admin_token(), NULL)), 204);
	ck_assert_int_eq(total(base, admin_token()), 0);
}
END_TEST

START_TEST(test_emails_invalid)
{
	char *token = S(make_user("eml_inv", NULL, NULL));
	const char *invalid = "{\"message\":{\"email\":[\"is invalid\"]}}";
	ck_body(post_email("/user/emails", token, "no-at-sign"), 400, invalid);
	ck_body(post_email("/user/emails", token, "a b@c.example"), 400, invalid);
	ck_body(post_email("/user/emails", token, "a@b@c"), 400, invalid);
	ck_body(post_email("/user/emails", token, "   "), 400,
		"{\"message\":{\"email\":[\"can't be blank\",\"is invalid\"]}}");
	ck_code(R(api("POST", "/user/emails", token, NULL)), 400);
	ck_body(R(api("GET", "/user/emails/abc", token, NULL)), 400,
		"{\"error\":\"email_id is invalid\"}");
	ck_assert_int_eq(total("/user/emails", token), 0);
}
END_TEST

/* An address is one user's: no one's secondary nor anyone's primary may be added. */
START_TEST(test_emails_taken)
{
	long long uid;
	char *token = S(make_user("eml_tkn", &uid, NULL));
	char *other = S(make_user("eml_tkn_o", NULL, NULL));
	const char *taken = "{\"message\":{\"email\":[\"has already been taken\"]}}";
	const char *addr = S(fmt("%s@example.com", S(unique("tkn"))));
	add_email("/user/emails", token, addr);
	ck_body(post_email("/user/emails", token, addr), 400, taken);
	ck_body(post_email("/user/emails", other, S(fmt("  %s", addr))), 400, taken);
	char *upper = S(strdup(addr));
	upper[0] = (char)(upper[0] - 'a' + 'A');
	ck_body(post_email("/user/emails", other, upper), 400, taken);
	/* the primary address of any user */
	resp *r = R(api("GET", "/user", other, NULL));
	ck_status(r, 200);
	const char *primary = jstr(r->json, "email");
	ck_assert(primary != NULL);
	ck_body(post_email("/user/emails", token, primary), 400, taken);
	ck_body(post_email("/user/emails", other, primary), 400, taken);
	ck_body(post_email(S(fmt("/users/%lld/emails", uid)), admin_token(), primary), 400, taken);
	ck_assert_int_eq(total("/user/emails", token), 1);
	ck_assert_int_eq(total("/user/emails", other), 0);
}
END_TEST

/* The other way round: another user's secondary address is no one's primary (409 as a
 * primary address taken), and one's own secondary address made primary trades places
 * with the old primary. */
START_TEST(test_emails_primary)
{
	long long uid, oid;
	char *token = S(make_user("eml_pri", &uid, NULL));
	S(make_user("eml_pri_o", &oid, NULL));
	const char *theirs = S(fmt("%s@example.com", S(unique("pri_o"))));
	add_email(S(fmt("/users/%lld/emails", oid)), admin_token(), theirs);
	const char *taken = "{\"message\":\"Email has already been taken\"}";
	const char *u = S(unique("prinew"));
	ck_body(R(api("POST", "/users", admin_token(),
		      S(fmt("username=%s&name=N&password=s3cret-pass-1&email=%s", u,
			    S(enc(theirs)))))),
		409, taken);
	resp *none = R(api("GET", S(fmt("/users?username=%s", u)), admin_token(), NULL));
	ck_status(none, 200);
	ck_assert_int_eq(json_object_array_length(none->json), 0);
	ck_body(R(api("PUT", S(fmt("/users/%lld", uid)), admin_token(),
		      S(fmt("email=%s", S(enc(theirs)))))),
		409, taken);

	resp *r = R(api("GET", "/user", token, NULL));
	ck_status(r, 200);
	const char *old = S(strdup(jstr(r->json, "email")));
	const char *mine = S(fmt("%s@example.com", S(unique("pri_m"))));
	add_email("/user/emails", token, mine);
	r = R(api("PUT", S(fmt("/users/%lld", uid)), admin_token(),
		  S(fmt("email=%s", S(enc(mine))))));
	ck_status(r, 200);
	ck_jstr(r, "email", mine);
	r = R(api("GET", "/user/emails", token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "email"), old);
	ck_assert_int_eq(total(S(fmt("/users/%lld/emails", oid)), admin_token()), 1);
}
END_TEST

START_TEST(test_emails_pagination)
{
	char *token = S(make_user("eml_pg", NULL, NULL));
	const char *u = S(unique("pg"));
	long long ids[3];
	for (int i = 0; i < 3; i++)
		ids[i] = add_email("/user/emails", token, S(fmt("%s.%d@example.com", u, i)));
	resp *r = R(api("GET", "/user/emails?per_page=2&page=2", token, NULL));
	ck_status(r, 200);
	ck_pages(r, "/user/emails", "", 3, 2, 2);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), ids[2]);
	r = R(api("GET", "/user/emails?per_page=2", token, NULL));
	ck_pages(r, "/user/emails", "", 3, 2, 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), ids[0]);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 1), "id"), ids[1]);
	ck_code(R(api("GET", "/user/emails?per_page=abc", token, NULL)), 400);
}
END_TEST

Suite *suite_emails(void)
{
	Suite *s = suite_create("emails");
	TCase *tc = tcase_create("emails");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_emails_mine);
	tcase_add_test(tc, test_emails_auth);
	tcase_add_test(tc, test_emails_admin);
	tcase_add_test(tc, test_emails_invalid);
	tcase_add_test(tc, test_emails_taken);
	tcase_add_test(tc, test_emails_primary);
	tcase_add_test(tc, test_emails_pagination);
	suite_add_tcase(s, tc);
	return s;
}
