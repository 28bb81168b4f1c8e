/* API suite: project snippets (GitLab 10's lib/api/project_snippets.rb): GET/POST
 * /projects/:id/snippets, GET/PUT/DELETE /projects/:id/snippets/:snippet_id and GET
 * .../raw; who sees which snippet (visibility, authorship, membership), who may write,
 * and snippets turned off on a project. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const SNIPPET_FIELDS[] = {"id",      "title",      "file_name",  "description",
					     "author",  "updated_at", "created_at", "project_id",
					     "web_url", NULL};
static const char *const USER_FIELDS[] = {"id",         "name",    "username", "state",
					  "avatar_url", "web_url", NULL};

/* ---- fixtures ---- */

typedef struct {
	long long id;
	char *owner;
	long long owner_id;
	char *owner_name;
	char *path;
} fx;

static void project(fx *f, const char *visibility)
{
	f->owner = S(make_user("snp_own", &f->owner_id, &f->owner_name));
	S(f->owner_name);
	f->id = api_project(f->owner, visibility, &f->path);
	S(f->path);
}

static char *member(long long pid, int level, long long *id)
{
	long long uid;
	char *token = S(make_user("snp_m", &uid, NULL));
	if (level)
		fixture_member("Project", pid, uid, level);
	if (id)
		*id = uid;
	return token;
}

static char *spath(long long pid, const char *suffix)
{
	return S(fmt("/projects/%lld/snippets%s", pid, suffix));
}

static char *one(long long pid, long long sid, const char *suffix)
{
	return S(fmt("/projects/%lld/snippets/%lld%s", pid, sid, suffix));
}

/* Creates a snippet as token with that visibility; its id. */
static long long add(long long pid, const char *token, const char *title, const char *visibility)
{
	resp *r = R(api(
		"POST", spath(pid, ""), token,
		S(fmt("title=%s&file_name=a.rb&code=puts%%201&visibility=%s", title, visibility))));
	ck_status(r, 201);
	return jint(r->json, "id");
}

/* The ids of a list response, in order, compared with want[0..n). */
static void ck_ids(resp *r, const long long *want, size_t n)
{
	ck_status(r, 200);
	ck_assert_msg(json_object_array_length(r->json) == n, "%zu ids expected: %s", n, r->body);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(jint(json_object_array_get_idx(r->json, i), "id"), want[i]);
}

/* ---- tests ---- */

START_TEST(test_snippets_create_and_show)
{
	fx f;
	project(&f, "private");
	resp *r = R(api("POST", spath(f.id, ""), f.owner,
			"title=Hello&file_name=hello.rb&code=puts%20%22hi%22%0A&description=A%20d"
			"&visibility=internal"));
	ck_status(r, 201);
	ck_fields(r->json, SNIPPET_FIELDS);
	long long id = jint(r->json, "id");
	ck_jstr(r, "title", "Hello");
	ck_jstr(r, "file_name", "hello.rb");
	ck_jstr(r, "description", "A d");
	ck_assert_int_eq(jint(r->json, "project_id"), f.id);
	ck_jstr(r, "web_url", S(fmt("%s/%s/snippets/%lld", api_url(), f.path, id)));
	json_object *author = jget(r->json, "author");
	ck_fields(author, USER_FIELDS);
	ck_assert_int_eq(jint(author, "id"), f.owner_id);
	ck_assert_str_eq(jstr(author, "username"), f.owner_name);
	const char *t = jstr(r->json, "created_at");
	ck_assert_msg(t && strlen(t) == 24 && t[23] == 'Z', "created_at %s", t ? t : "null");
	ck_assert_int_eq(sql_int("SELECT visibility FROM snippets WHERE id = %lld", id), 10);
	/* show and raw */
	r = R(api("GET", one(f.id, id, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, SNIPPET_FIELDS);
	ck_jstr(r, "title", "Hello");
	r = R(api("GET", one(f.id, id, "/raw"), f.owner, NULL));
	ck_status(r, 200);
	ck_header(r, "Content-Type", "text/plain");
	ck_assert_str_eq(r->body, "puts \"hi\"\n");
	/* by the project's path too */
	r = R(api("GET", S(fmt("/projects/%s/snippets/%lld", S(enc(f.path)), id)), f.owner, NULL));
	ck_status(r, 200);
	/* not found, and not in another project */
	ck_body(R(api("GET", one(f.id, 999999999, ""), f.owner, NULL)), 404,
		"{\"message\":\"404 Snippet Not Found\"}");
	fx g;
	project(&g, "private");
	ck_code(R(api("GET", one(g.id, id, ""), g.owner, NULL)), 404);
	ck_code(R(api("GET", one(g.id, id, "/raw"), g.owner, NULL)), 404);
	ck_body(R(api("GET", spath(f.id, "/abc"), f.owner, NULL)), 400,
		"{\"error\":\"snippet_id is invalid\"}");
	ck_code(R(api("GET", spath(f.id, ""), NULL, NULL)), 401);
}
END_TEST

START_TEST(test_snippets_create_errors)
{
	fx f;
	project(&f, "private");
	const char *base = "title=t&file_name=f&code=c&visibility=public";
	ck_body(R(api("POST", spath(f.id, ""), f.owner, "file_name=f&code=c&visibility=public")),
		400, "{\"message\":\"400 (Bad request) \\\"title\\\" not given\"}");
	ck_body(R(api("POST", spath(f.id, ""), f.owner, "title=t&code=c&visibility=public")), 400,
		"{\"message\":\"400 (Bad request) \\\"file_name\\\" not given\"}");
	ck_body(R(api("POST", spath(f.id, ""), f.owner, "title=t&file_name=f&visibility=public")),
		400, "{\"message\":\"400 (Bad request) \\\"code\\\" not given\"}");
	ck_body(R(api("POST", spath(f.id, ""), f.owner, "title=t&file_name=f&code=c")), 400,
		"{\"message\":\"400 (Bad request) \\\"visibility\\\" not given\"}");
	ck_body(R(api("POST", spath(f.id, ""), f.owner, "title=t&file_name=f&code=c&visibility=x")),
		400, "{\"error\":\"visibility does not have a valid value\"}");
	ck_body(R(api("POST", spath(f.id, ""), f.owner,
		      "title=&file_name=f&code=&visibility=public")),
		400,
		"{\"message\":{\"title\":[\"can't be blank\"],\"content\":[\"can't be blank\"]}}");
	char *big = S(malloc(300));
	memset(big, 't', 256);
	big[256] = '\0';
	ck_body(R(api("POST", spath(f.id, ""), f.owner,
		      S(fmt("title=%s&file_name=f&code=c&visibility=public", big)))),
		400, "{\"message\":{\"title\":[\"is too long (maximum is 255 characters)\"]}}");
	/* content is taken for code, as later releases name it */
	resp *r = R(api("POST", spath(f.id, ""), f.owner,
			"title=t&file_name=f&content=later&visibility=private"));
	ck_status(r, 201);
	r = R(api("GET", one(f.id, jint(r->json, "id"), "/raw"), f.owner, NULL));
	ck_assert_str_eq(r->body, "later");
	/* 400 before 404 */
	ck_code(R(api("POST", "/projects/999999999/snippets", f.owner, "title=t")), 400);
	ck_code(R(api("POST", "/projects/999999999/snippets", f.owner, base)), 404);
	/* reporters and up */
	ck_code(R(api("POST", spath(f.id, ""), member(f.id, 10, NULL), base)), 403);
	ck_code(R(api("POST", spath(f.id, ""), member(f.id, 20, NULL), base)), 201);
	ck_code(R(api("POST", spath(f.id, ""), member(f.id, 0, NULL), base)), 404);
	fx pub;
	project(&pub, "public");
	ck_code(R(api("POST", spath(pub.id, ""), member(pub.id, 0, NULL), base)), 403);
	ck_code(R(api("POST", spath(pub.id, ""), admin_token(), base)), 201);
	/* only the reporter's and the content one were made */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM snippets WHERE project_id = %lld", f.id), 2);
}
END_TEST

START_TEST(test_snippets_visibility)
{
	fx f;
	project(&f, "public");
	long long pub = add(f.id, f.owner, "pub", "public");
	long long intl = add(f.id, f.owner, "int", "internal");
	long long priv = add(f.id, f.owner, "priv", "private");
	char *guest = member(f.id, 10, NULL);
	char *stranger = member(f.id, 0, NULL);
	long long ext_id;
	char *external = member(f.id, 0, &ext_id);
	free(sql_value("UPDATE users SET external = true WHERE id = %lld", ext_id));
	long long all[] = {priv, intl, pub}; /* newest first */
	ck_ids(R(api("GET", spath(f.id, ""), f.owner, NULL)), all, 3);
	ck_ids(R(api("GET", spath(f.id, ""), guest, NULL)), all, 3);
	ck_ids(R(api("GET", spath(f.id, ""), admin_token(), NULL)), all, 3);
	long long for_stranger[] = {intl, pub};
	ck_ids(R(api("GET", spath(f.id, ""), stranger, NULL)), for_stranger, 2);
	ck_ids(R(api("GET", spath(f.id, ""), external, NULL)), &pub, 1);
	ck_code(R(api("GET", one(f.id, priv, ""), stranger, NULL)), 404);
	ck_code(R(api("GET", one(f.id, priv, "/raw"), stranger, NULL)), 404);
	ck_code(R(api("GET", one(f.id, intl, ""), stranger, NULL)), 200);
	ck_code(R(api("GET", one(f.id, intl, ""), external, NULL)), 404);
	ck_code(R(api("GET", one(f.id, pub, "/raw"), external, NULL)), 200);
	/* an author sees their own private snippet without being a member any more */
	long long rid;
	char *rep = member(f.id, 20, &rid);
	long long mine = add(f.id, rep, "mine", "private");
	free(sql_value("DELETE FROM members WHERE user_id = %lld", rid));
	ck_code(R(api("GET", one(f.id, mine, ""), rep, NULL)), 200);
	ck_code(R(api("GET", one(f.id, mine, ""), stranger, NULL)), 404);
	/* a private project's snippets are not found by those who cannot see it */
	fx p;
	project(&p, "private");
	long long ps = add(p.id, p.owner, "x", "public");
	ck_body(R(api("GET", one(p.id, ps, ""), stranger, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
}
END_TEST

START_TEST(test_snippets_update)
{
	fx f;
	project(&f, "private");
	long long did;
	char *dev = member(f.id, 30, &did), *master = member(f.id, 40, NULL);
	char *other_dev = member(f.id, 30, NULL);
	resp *r = R(api("POST", spath(f.id, ""), dev,
			"title=t&file_name=f.c&code=int%20x%3B&visibility=private&description=d"));
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	r = R(api("PUT", one(f.id, id, ""), dev, "title=New&code=int%20y%3B&visibility=public"));
	ck_status(r, 200);
	ck_fields(r->json, SNIPPET_FIELDS);
	ck_jstr(r, "title", "New");
	ck_jstr(r, "file_name", "f.c");
	ck_jstr(r, "description", "d");
	ck_assert_int_eq(jint(jget(r->json, "author"), "id"), did);
	ck_assert_int_eq(sql_int("SELECT visibility FROM snippets WHERE id = %lld", id), 20);
	r = R(api("GET", one(f.id, id, "/raw"), dev, NULL));
	ck_assert_str_eq(r->body, "int y;");
	/* masters may; another developer may not */
	r = R(api("PUT", one(f.id, id, ""), master, "file_name=g.c&description="));
	ck_status(r, 200);
	ck_jstr(r, "file_name", "g.c");
	ck_jstr(r, "description", "");
	ck_body(R(api("PUT", one(f.id, id, ""), other_dev, "title=no")), 403,
		"{\"message\":\"403 Forbidden\"}");
	/* errors change nothing */
	ck_body(R(api("PUT", one(f.id, id, ""), dev, "description=only")), 400,
		"{\"error\":\"title, file_name, code, visibility are missing, at least one "
		"parameter must be provided\"}");
	ck_body(R(api("PUT", one(f.id, id, ""), dev, "visibility=secret")), 400,
		"{\"error\":\"visibility does not have a valid value\"}");
	ck_body(R(api("PUT", one(f.id, id, ""), dev, "title=&file_name=x")), 400,
		"{\"message\":{\"title\":[\"can't be blank\"]}}");
	ck_code(R(api("PUT", one(f.id, 999999999, ""), dev, "title=x")), 404);
	ck_code(R(api("PUT", spath(f.id, "/x"), dev, "title=x")), 400);
	r = R(api("GET", one(f.id, id, ""), dev, NULL));
	ck_jstr(r, "title", "New");
	ck_jstr(r, "file_name", "g.c");
}
END_TEST

START_TEST(test_snippets_delete)
{
	fx f;
	project(&f, "private");
	char *dev = member(f.id, 30, NULL), *other = member(f.id, 30, NULL);
	char *master = member(f.id, 40, NULL);
	long long a = add(f.id, dev, "a", "private"), b = add(f.id, dev, "b", "private");
	long long note = sql_int("INSERT INTO notes (note, noteable_type, noteable_id, author_id,"
				 " project_id) VALUES ('hi', 'Snippet', %lld, %lld, %lld)"
				 " RETURNING id",
				 a, f.owner_id, f.id);
	ck_body(R(api("DELETE", one(f.id, a, ""), other, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	resp *r = R(api("DELETE", one(f.id, a, ""), dev, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_code(R(api("DELETE", one(f.id, a, ""), dev, NULL)), 404);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE id = %lld", note), 0);
	ck_code(R(api("DELETE", one(f.id, b, ""), master, NULL)), 204);
	ck_code(R(api("DELETE", spath(f.id, "/zz"), master, NULL)), 400);
	ck_ids(R(api("GET", spath(f.id, ""), f.owner, NULL)), NULL, 0);
}
END_TEST

START_TEST(test_snippets_disabled)
{
	fx f;
	project(&f, "private");
	long long id = add(f.id, f.owner, "a", "private");
	free(sql_value("UPDATE projects SET snippets_enabled = false WHERE id = %lld", f.id));
	ck_body(R(api("GET", spath(f.id, ""), f.owner, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("GET", one(f.id, id, ""), f.owner, NULL)), 403);
	ck_code(R(api("GET", one(f.id, id, "/raw"), admin_token(), NULL)), 403);
	ck_code(R(api("POST", spath(f.id, ""), f.owner,
		      "title=t&file_name=f&code=c&visibility=public")),
		403);
	ck_code(R(api("PUT", one(f.id, id, ""), f.owner, "title=x")), 403);
	ck_code(R(api("DELETE", one(f.id, id, ""), f.owner, NULL)), 403);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM snippets WHERE project_id = %lld", f.id), 1);
}
END_TEST

START_TEST(test_snippets_pagination)
{
	fx f;
	project(&f, "private");
	long long ids[5];
	for (int i = 0; i < 5; i++)
		ids[4 - i] = add(f.id, f.owner, S(fmt("s%d", i)), "private");
	char *path = spath(f.id, "");
	for (int page = 1; page <= 3; page++) {
		resp *r = R(api("GET", S(fmt("%s?per_page=2&page=%d", path, page)), f.owner, NULL));
		ck_ids(r, ids + (page - 1) * 2, page < 3 ? 2 : 1);
		ck_pages(r, path, "", 5, 2, page);
	}
	ck_body(R(api("GET", S(fmt("%s?per_page=x", path)), f.owner, NULL)), 400,
		"{\"error\":\"per_page is invalid\"}");
}
END_TEST

Suite *suite_snippets(void)
{
	Suite *s = suite_create("snippets");
	TCase *tc = tcase_create("snippets");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_snippets_create_and_show);
	tcase_add_test(tc, test_snippets_create_errors);
	tcase_add_test(tc, test_snippets_visibility);
	tcase_add_test(tc, test_snippets_update);
	tcase_add_test(tc, test_snippets_delete);
	tcase_add_test(tc, test_snippets_disabled);
	tcase_add_test(tc, test_snippets_pagination);
	suite_add_tcase(s, tc);
	return s;
}
