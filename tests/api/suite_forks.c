/* API suite: GET /projects/:id/forks (GitLab 10.8's ForkProjectsFinder): a project's
 * direct forks that the caller may see, with the parameters, views and pagination of
 * GET /projects; 404 for a source the caller may not see. Every name a test makes is
 * unique: other suites share the database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

struct user {
	long long id;
	char *name;
	char *token;
};

static struct user new_user(const char *prefix)
{
	struct user u;
	u.token = S(make_user(prefix, &u.id, &u.name));
	S(u.name);
	return u;
}

static resp *get(const char *path, const char *token)
{
	return R(api("GET", path, token, NULL));
}

/* POST /projects/:id/fork as token (into their own namespace): the fork's id. */
static long long fork_of(long long src, const char *token)
{
	resp *r = R(api("POST", S(fmt("/projects/%lld/fork", src)), token, NULL));
	ck_status(r, 201);
	return jint(r->json, "id");
}

static void put(long long id, const char *token, const char *form)
{
	ck_code(R(api("PUT", S(fmt("/projects/%lld", id)), token, form)), 200);
}

/* The ids of a list response, in order, as "1,2,3". */
static char *ids_of(resp *r)
{
	ck_assert_msg(r->json && json_object_is_type(r->json, json_type_array), "not an array: %s",
		      r->body);
	char *s = S(calloc(1, 4096));
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		size_t n = strlen(s);
		snprintf(s + n, 4096 - n, "%s%lld", i ? "," : "",
			 jint(json_object_array_get_idx(r->json, i), "id"));
	}
	return s;
}

#define ck_ids(r, ...)                                                                             \
	do {                                                                                       \
		resp *r_ = (r);                                                                    \
		ck_status(r_, 200);                                                                \
		const char *got_ = ids_of(r_), *want_ = S(fmt(__VA_ARGS__));                       \
		ck_assert_msg(strcmp(got_, want_) == 0, "ids: expected [%s], got [%s]", want_,     \
			      got_);                                                               \
	} while (0)

/* A public source with three forks (the newest first in the default order): a public
 * one (f1), a private one (f2, its owner's only) and an internal one (f3), and a fork
 * of f1 (not the source's). */
struct family {
	struct user owner, u1, u2, u3;
	long long src, f1, f2, f3, grandchild;
	char *path;
};

static void family(struct family *f, const char *prefix)
{
	f->owner = new_user(S(fmt("%s_o", prefix)));
	f->u1 = new_user(S(fmt("%s_1", prefix)));
	f->u2 = new_user(S(fmt("%s_2", prefix)));
	f->u3 = new_user(S(fmt("%s_3", prefix)));
	f->path = S(unique("fksrc-"));
	resp *r = R(api("POST", "/projects", f->owner.token,
			S(fmt("path=%s&visibility=public", f->path))));
	ck_status(r, 201);
	f->src = jint(r->json, "id");
	f->f1 = fork_of(f->src, f->u1.token);
	f->f2 = fork_of(f->src, f->u2.token);
	put(f->f2, f->u2.token, "visibility=private");
	f->f3 = fork_of(f->src, f->u3.token);
	put(f->f3, f->u3.token, "visibility=internal");
	struct user g = new_user(S(fmt("%s_g", prefix)));
	f->grandchild = fork_of(f->f1, g.token);
}

static const char *forks_path(const struct family *f)
{
	return S(fmt("/projects/%lld/forks", f->src));
}

START_TEST(test_forks_list)
{
	struct family f;
	family(&f, "fk_list");
	const char *path = forks_path(&f);
	/* a stranger sees the public and internal forks, not the private one nor the fork of
	 * a fork */
	struct user stranger = new_user("fk_list_s");
	resp *r = get(path, stranger.token);
	ck_ids(r, "%lld,%lld", f.f3, f.f1);
	ck_pages(r, path, "", 2, 20, 1);
	json_object *o = json_object_array_get_idx(r->json, 1);
	/* the same record as GET /projects gives a caller: with permissions and the source */
	ck_assert(jhas(o, "permissions"));
	ck_assert(jhas(o, "owner"));
	ck_assert_int_eq(jint(jget(o, "forked_from_project"), "id"), f.src);
	ck_assert_str_eq(jstr(o, "path_with_namespace"), S(fmt("%s/%s", f.u1.name, f.path)));
	/* the private fork's owner and an admin see it too */
	ck_ids(get(path, f.u2.token), "%lld,%lld,%lld", f.f3, f.f2, f.f1);
	ck_ids(get(path, admin_token()), "%lld,%lld,%lld", f.f3, f.f2, f.f1);
	/* anonymous: the public one, in the basic view */
	r = get(path, NULL);
	ck_ids(r, "%lld", f.f1);
	o = json_object_array_get_idx(r->json, 0);
	ck_assert(!jhas(o, "permissions"));
	ck_assert(!jhas(o, "owner"));
	/* the forks of a fork are its own */
	ck_ids(get(S(fmt("/projects/%lld/forks", f.f1)), stranger.token), "%lld", f.grandchild);
	/* by full path, as every :id */
	ck_ids(get(S(fmt("/projects/%s/forks", S(enc(S(fmt("%s/%s", f.owner.name, f.path)))))),
		   stranger.token),
	       "%lld,%lld", f.f3, f.f1);
	/* a project without forks */
	r = get(S(fmt("/projects/%lld/forks", f.f3)), stranger.token);
	ck_ids(r, "%s", "");
	ck_pages(r, S(fmt("/projects/%lld/forks", f.f3)), "", 0, 20, 1);
	/* a deleted fork is gone from the list */
	ck_code(R(api("DELETE", S(fmt("/projects/%lld", f.f3)), f.u3.token, NULL)), 202);
	ck_ids(get(path, stranger.token), "%lld", f.f1);
}
END_TEST

START_TEST(test_forks_params)
{
	struct family f;
	family(&f, "fk_par");
	const char *path = forks_path(&f);
	const char *tok = f.u2.token;
	ck_ids(get(S(fmt("%s?order_by=id&sort=asc", path)), tok), "%lld,%lld,%lld", f.f1, f.f2,
	       f.f3);
	ck_ids(get(S(fmt("%s?visibility=private", path)), tok), "%lld", f.f2);
	ck_ids(get(S(fmt("%s?visibility=internal", path)), admin_token()), "%lld", f.f3);
	/* owned and membership: the caller's own fork only */
	ck_ids(get(S(fmt("%s?owned=true", path)), tok), "%lld", f.f2);
	ck_ids(get(S(fmt("%s?membership=true", path)), f.u1.token), "%lld", f.f1);
	ck_ids(get(S(fmt("%s?membership=true&order_by=id&sort=asc", path)), admin_token()), "%s",
	       "");
	/* starred */
	ck_code(R(api("POST", S(fmt("/projects/%lld/star", f.f3)), tok, NULL)), 201);
	ck_ids(get(S(fmt("%s?starred=true", path)), tok), "%lld", f.f3);
	/* archived */
	ck_code(R(api("POST", S(fmt("/projects/%lld/archive", f.f1)), f.u1.token, NULL)), 201);
	ck_ids(get(S(fmt("%s?archived=true", path)), tok), "%lld", f.f1);
	ck_ids(get(S(fmt("%s?archived=false", path)), tok), "%lld,%lld", f.f3, f.f2);
	/* features */
	put(f.f2, tok, "issues_enabled=false");
	put(f.f3, f.u3.token, "merge_requests_enabled=false");
	ck_ids(get(S(fmt("%s?with_issues_enabled=true", path)), tok), "%lld,%lld", f.f3, f.f1);
	ck_ids(get(S(fmt("%s?with_merge_requests_enabled=true", path)), tok), "%lld,%lld", f.f2,
	       f.f1);
	/* search: a fork renamed */
	const char *word = S(unique("fkword"));
	put(f.f3, f.u3.token, S(fmt("name=%s", word)));
	ck_ids(get(S(fmt("%s?search=%s", path, word)), tok), "%lld", f.f3);
	ck_ids(get(S(fmt("%s?order_by=name&sort=desc&search=%s", path, word)), tok), "%lld", f.f3);
	/* simple: the basic view; statistics for whoever may see them */
	resp *r = get(S(fmt("%s?simple=true", path)), tok);
	ck_status(r, 200);
	ck_assert(!jhas(json_object_array_get_idx(r->json, 0), "permissions"));
	ck_assert(!jhas(json_object_array_get_idx(r->json, 0), "owner"));
	r = get(S(fmt("%s?statistics=true&owned=true", path)), tok);
	ck_ids(r, "%lld", f.f2);
	ck_assert(jhas(json_object_array_get_idx(r->json, 0), "statistics"));
	/* bad values: 400, as GET /projects */
	ck_body(get(S(fmt("%s?order_by=stars", path)), tok), 400,
		"{\"error\":\"order_by does not have a valid value\"}");
	ck_body(get(S(fmt("%s?sort=up", path)), tok), 400,
		"{\"error\":\"sort does not have a valid value\"}");
	ck_body(get(S(fmt("%s?visibility=secret", path)), tok), 400,
		"{\"error\":\"visibility does not have a valid value\"}");
	ck_body(get(S(fmt("%s?archived=perhaps", path)), tok), 400,
		"{\"error\":\"archived is invalid\"}");
	ck_body(get(S(fmt("%s?membership=2x", path)), tok), 400,
		"{\"error\":\"membership is invalid\"}");
}
END_TEST

START_TEST(test_forks_pagination)
{
	struct family f;
	family(&f, "fk_pg");
	const char *path = forks_path(&f);
	resp *r = get(S(fmt("%s?per_page=2&order_by=id&sort=asc", path)), admin_token());
	ck_ids(r, "%lld,%lld", f.f1, f.f2);
	ck_pages(r, path, "order_by=id&sort=asc", 3, 2, 1);
	r = get(S(fmt("%s?per_page=2&page=2&order_by=id&sort=asc", path)), admin_token());
	ck_ids(r, "%lld", f.f3);
	ck_pages(r, path, "order_by=id&sort=asc", 3, 2, 2);
	/* past the end: empty, with the total */
	r = get(S(fmt("%s?per_page=2&page=5", path)), admin_token());
	ck_ids(r, "%s", "");
	ck_pages(r, path, "", 3, 2, 5);
	ck_code(get(S(fmt("%s?per_page=abc", path)), admin_token()), 400);
}
END_TEST

START_TEST(test_forks_not_found)
{
	struct user owner = new_user("fk_nf_o");
	struct user stranger = new_user("fk_nf_s");
	char *p = S(unique("fkpriv-"));
	resp *r = R(api("POST", "/projects", owner.token, S(fmt("path=%s&visibility=private", p))));
	ck_status(r, 201);
	long long priv = jint(r->json, "id");
	long long fork = fork_of(priv, admin_token());
	const char *nf = "{\"message\":\"404 Project Not Found\"}";
	const char *path = S(fmt("/projects/%lld/forks", priv));
	ck_body(get(path, stranger.token), 404, nf);
	ck_body(get(path, NULL), 404, nf);
	ck_body(get("/projects/999999999/forks", admin_token()), 404, nf);
	ck_body(get(S(fmt("/projects/%s/forks", S(enc("no/such-project")))), stranger.token), 404,
		nf);
	/* the source's members see its forks as the forks' rules allow: the admin's
	 * private fork is not the owner's to see */
	ck_ids(get(path, owner.token), "%s", "");
	ck_ids(get(path, admin_token()), "%lld", fork);
	ck_body(get(path, "bad-token"), 401, "{\"message\":\"401 Unauthorized\"}");
}
END_TEST

Suite *suite_forks(void)
{
	Suite *s = suite_create("forks");
	TCase *tc = tcase_create("forks");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_forks_list);
	tcase_add_test(tc, test_forks_params);
	tcase_add_test(tc, test_forks_pagination);
	tcase_add_test(tc, test_forks_not_found);
	suite_add_tcase(s, tc);
	return s;
}
