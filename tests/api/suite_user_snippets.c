/* API suite: snippets of users (GitLab 10.8's lib/api/snippets.rb): GET /snippets,
 * /snippets/public, /snippets/:id and its raw content, POST, PUT and DELETE; who reads
 * which (anonymous, another user, an external one, admins), the default visibility and
 * the restricted levels of the application settings, the errors and pagination; and
 * the user agent details (admins) of personal snippets, project snippets and issues. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const FIELDS[] = {"id",      "title",      "file_name",  "description",
				     "author",  "updated_at", "created_at", "project_id",
				     "web_url", "raw_url",    NULL};

static char *one(long long id, const char *suffix)
{
	return S(fmt("/snippets/%lld%s", id, suffix));
}

/* Creates a personal snippet as token with that visibility (NULL: the default); its
 * id. */
static long long add(const char *token, const char *title, const char *visibility)
{
	char *form = S(fmt("title=%s&file_name=a.rb&content=puts%%201%s%s", title,
			   visibility ? "&visibility=" : "", visibility ? visibility : ""));
	resp *r = R(api("POST", "/snippets", token, form));
	ck_status(r, 201);
	return jint(r->json, "id");
}

static void ck_ids(resp *r, const long long *want, size_t n)
{
	ck_status(r, 200);
	ck_assert_msg(json_object_array_length(r->json) == n, "%zu ids expected: %s", n, r->body);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(jint(json_object_array_get_idx(r->json, i), "id"), want[i]);
}

/* Whether the list r holds id. */
static bool holds(resp *r, long long id)
{
	ck_status(r, 200);
	for (size_t i = 0; i < json_object_array_length(r->json); i++)
		if (jint(json_object_array_get_idx(r->json, i), "id") == id)
			return true;
	return false;
}

static const char *const WITH_AGENT[] = {"User-Agent: snippet-tester/1.0", NULL};

/* METHOD path as token with a User-Agent and a form body. */
static resp *with_agent(const char *method, const char *path, const char *token, const char *form)
{
	const char *h[] = {WITH_AGENT[0], S(fmt("PRIVATE-TOKEN: %s", token)), NULL};
	return R(api_h(method, path, h, form, form ? "application/x-www-form-urlencoded" : NULL));
}

/* ---- tests ---- */

START_TEST(test_user_snippets_create_and_show)
{
	long long uid;
	char *name;
	char *token = S(make_user("usn", &uid, &name));
	S(name);
	resp *r = R(api("POST", "/snippets", token,
			"title=Hello&file_name=hello.rb&content=puts%20%22hi%22%0A"
			"&description=greets&visibility=internal"));
	ck_status(r, 201);
	ck_fields(r->json, FIELDS);
	long long id = jint(r->json, "id");
	ck_jstr(r, "title", "Hello");
	ck_jstr(r, "file_name", "hello.rb");
	ck_jstr(r, "description", "greets");
	ck_assert(jnull(r->json, "project_id"));
	ck_assert_int_eq(jint(jget(r->json, "author"), "id"), uid);
	ck_assert_str_eq(jstr(jget(r->json, "author"), "username"), name);
	char *web = S(fmt("/snippets/%lld", id));
	const char *url = jstr(r->json, "web_url");
	ck_assert_msg(strlen(url) > strlen(web) && !strcmp(url + strlen(url) - strlen(web), web),
		      "web_url %s", url);
	ck_assert_str_eq(jstr(r->json, "raw_url"), S(fmt("%s/raw", url)));
	ck_assert_int_eq(sql_int("SELECT visibility FROM snippets WHERE id = %lld", id), 10);

	resp *g = R(api("GET", one(id, ""), token, NULL));
	ck_status(g, 200);
	ck_fields(g->json, FIELDS);
	ck_assert_str_eq(g->body, r->body);

	resp *raw = R(api("GET", one(id, "/raw"), token, NULL));
	ck_status(raw, 200);
	ck_assert_str_eq(raw->body, "puts \"hi\"\n");
	ck_assert_str_eq(resp_header(raw, "Content-Type"), "text/plain");

	/* not a project snippet's route, nor a personal snippet a project's */
	long long pid = api_project(token, "private", NULL);
	long long psn = fixture_snippet(pid, uid, 20);
	ck_body(R(api("GET", one(psn, ""), token, NULL)), 404, "{\"message\":\"404 Not found\"}");
	ck_code(R(api("GET", S(fmt("/projects/%lld/snippets/%lld", pid, id)), token, NULL)), 404);
}
END_TEST

START_TEST(test_user_snippets_errors)
{
	long long uid;
	char *token = S(make_user("usn", &uid, NULL));
	const char *base = "title=t&file_name=f&content=c";
	ck_body(R(api("POST", "/snippets", token, "file_name=f&content=c")), 400,
		"{\"message\":\"400 (Bad request) \\\"title\\\" not given\"}");
	ck_body(R(api("POST", "/snippets", token, "title=t&content=c")), 400,
		"{\"message\":\"400 (Bad request) \\\"file_name\\\" not given\"}");
	ck_body(R(api("POST", "/snippets", token, "title=t&file_name=f")), 400,
		"{\"message\":\"400 (Bad request) \\\"content\\\" not given\"}");
	ck_body(R(api("POST", "/snippets", token, S(fmt("%s&visibility=secret", base)))), 400,
		"{\"error\":\"visibility does not have a valid value\"}");
	ck_body(R(api("POST", "/snippets", token, "title=&file_name=f&content=c")), 400,
		"{\"message\":{\"title\":[\"can't be blank\"]}}");
	ck_body(R(api("POST", "/snippets", token, "title=t&file_name=f&content=")), 400,
		"{\"message\":{\"content\":[\"can't be blank\"]}}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM snippets WHERE author_id = %lld", uid), 0);
	ck_body(R(api("GET", "/snippets/abc", token, NULL)), 400, "{\"error\":\"id is invalid\"}");
	ck_body(R(api("GET", "/snippets/999999999", token, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", "/snippets/999999999/raw", token, NULL)), 404,
		"{\"message\":\"404 Snippet Not Found\"}");
	ck_body(R(api("PUT", "/snippets/999999999", token, "title=x")), 404,
		"{\"message\":\"404 Snippet Not Found\"}");
	ck_body(R(api("DELETE", "/snippets/999999999", token, NULL)), 404,
		"{\"message\":\"404 Snippet Not Found\"}");
	long long id = add(token, "e", "private");
	ck_body(R(api("PUT", one(id, ""), token, "description=only")), 400,
		"{\"error\":\"title, file_name, content, visibility are missing, at least one "
		"parameter must be provided\"}");
	ck_body(R(api("PUT", one(id, ""), token, "visibility=nope")), 400,
		"{\"error\":\"visibility does not have a valid value\"}");
	ck_body(R(api("PUT", one(id, ""), token, "title=")), 400,
		"{\"message\":{\"title\":[\"can't be blank\"]}}");
	ck_assert_str_eq(S(sql_value("SELECT title FROM snippets WHERE id = %lld", id)), "e");
	/* anonymous: every route needs a user (10.8's authenticate!) */
	ck_body(R(api("GET", "/snippets", NULL, NULL)), 401, "{\"message\":\"401 Unauthorized\"}");
	ck_code(R(api("GET", "/snippets/public", NULL, NULL)), 401);
	ck_code(R(api("GET", one(id, ""), NULL, NULL)), 401);
	ck_code(R(api("POST", "/snippets", NULL, base)), 401);
}
END_TEST

START_TEST(test_user_snippets_visibility)
{
	long long aid;
	char *author = S(make_user("usn", &aid, NULL));
	char *other = S(make_user("usn", NULL, NULL));
	long long ext_id;
	char *external = S(make_user("usn", &ext_id, NULL));
	free(sql_value("UPDATE users SET external = true WHERE id = %lld", ext_id));
	long long priv = add(author, "p", "private");
	long long internal = add(author, "i", "internal");
	long long pub = add(author, "u", "public");
	const char *const who[] = {author, other, external, admin_token()};
	/* [who][private, internal, public] */
	static const int sees[4][3] = {{1, 1, 1}, {0, 1, 1}, {0, 0, 1}, {1, 1, 1}};
	const long long ids[3] = {priv, internal, pub};
	for (int w = 0; w < 4; w++)
		for (int k = 0; k < 3; k++) {
			resp *r = R(api("GET", one(ids[k], ""), who[w], NULL));
			ck_assert_msg(r->status == (sees[w][k] ? 200 : 404),
				      "who %d snippet %d: %ld", w, k, r->status);
			ck_code(R(api("GET", one(ids[k], "/raw"), who[w], NULL)),
				sees[w][k] ? 200 : 404);
		}
	/* the caller's own list, newest first; the public list: public ones, anyone's */
	const long long mine[3] = {pub, internal, priv};
	ck_ids(R(api("GET", "/snippets", author, NULL)), mine, 3);
	ck_ids(R(api("GET", "/snippets", other, NULL)), NULL, 0);
	for (int w = 0; w < 4; w++) {
		resp *r = R(api("GET", "/snippets/public?per_page=100", who[w], NULL));
		ck_assert(holds(r, pub));
		ck_assert(!holds(r, internal) && !holds(r, priv));
	}
	/* a public project snippet is no personal snippet */
	long long pid = api_project(author, "public", NULL);
	long long psn = fixture_snippet(pid, aid, 20);
	ck_assert(!holds(R(api("GET", "/snippets/public?per_page=100", other, NULL)), psn));
	ck_assert(!holds(R(api("GET", "/snippets?per_page=100", author, NULL)), psn));
	/* who changes and removes: the author and admins; others see 403 or 404 */
	ck_body(R(api("PUT", one(pub, ""), other, "title=x")), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("DELETE", one(internal, ""), other, NULL)), 403);
	ck_code(R(api("PUT", one(priv, ""), other, "title=x")), 404);
	ck_code(R(api("DELETE", one(priv, ""), other, NULL)), 404);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM snippets WHERE author_id = %lld"
				 " AND project_id IS NULL AND title IN ('p', 'i', 'u')",
				 aid),
			 3);
	resp *a = R(api("PUT", one(priv, ""), admin_token(), "title=by%20admin"));
	ck_status(a, 200);
	ck_jstr(a, "title", "by admin");
	ck_code(R(api("DELETE", one(priv, ""), admin_token(), NULL)), 204);
	/* external users create none */
	ck_body(R(api("POST", "/snippets", external, "title=t&file_name=f&content=c")), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM snippets WHERE author_id = %lld", ext_id),
			 0);
}
END_TEST

START_TEST(test_user_snippets_update_delete)
{
	char *token = S(make_user("usn", NULL, NULL));
	long long id = add(token, "before", "private");
	resp *r = R(api("PUT", one(id, ""), token,
			"title=after&file_name=b.py&content=print(1)&visibility=public"
			"&description=d"));
	ck_status(r, 200);
	ck_fields(r->json, FIELDS);
	ck_jstr(r, "title", "after");
	ck_jstr(r, "file_name", "b.py");
	ck_jstr(r, "description", "d");
	ck_assert_str_eq(R(api("GET", one(id, "/raw"), token, NULL))->body, "print(1)");
	ck_assert_int_eq(sql_int("SELECT visibility FROM snippets WHERE id = %lld", id), 20);
	/* what is not given stays */
	ck_status(R(api("PUT", one(id, ""), token, "title=again")), 200);
	ck_assert_str_eq(S(sql_value("SELECT file_name || content || description FROM snippets"
				     " WHERE id = %lld",
				     id)),
			 "b.pyprint(1)d");
	ck_code(R(api("DELETE", one(id, ""), token, NULL)), 204);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM snippets WHERE id = %lld", id), 0);
	ck_code(R(api("GET", one(id, ""), token, NULL)), 404);
}
END_TEST

/* default_snippet_visibility and restricted_visibility_levels (application settings) */
START_TEST(test_user_snippets_settings)
{
	char *token = S(make_user("usn", NULL, NULL));
	resp *g = R(api("GET", "/application/settings", admin_token(), NULL));
	ck_status(g, 200);
	const char *was = S(strdup(jstr(g->json, "default_snippet_visibility")));
	ck_code(R(api("PUT", "/application/settings", admin_token(),
		      "default_snippet_visibility=public")),
		200);
	long long dflt = add(token, "d", NULL);
	ck_code(R(api("PUT", "/application/settings", admin_token(),
		      "restricted_visibility_levels[]=public")),
		200);
	resp *refused = R(
		api("POST", "/snippets", token, "title=t&file_name=f&content=c&visibility=public"));
	resp *changed =
		R(api("PUT", one(add(token, "r", "private"), ""), token, "visibility=public"));
	resp *by_admin = R(api("POST", "/snippets", admin_token(),
			       "title=t&file_name=f&content=c&visibility=public"));
	ck_code(R(api("PUT", "/application/settings", admin_token(),
		      S(fmt("default_snippet_visibility=%s", was)))),
		200);
	ck_code(R(api_json("PUT", "/application/settings", admin_token(),
			   "{\"restricted_visibility_levels\":[]}")),
		200);
	ck_assert_int_eq(sql_int("SELECT visibility FROM snippets WHERE id = %lld", dflt), 20);
	ck_body(refused, 400,
		"{\"message\":{\"visibility_level\":[\"Public has been restricted by your GitLab "
		"administrator\"]}}");
	ck_status(changed, 400);
	ck_status(by_admin, 201);
	ck_code(R(api("DELETE", one(jint(by_admin->json, "id"), ""), admin_token(), NULL)), 204);
}
END_TEST

START_TEST(test_user_snippets_pagination)
{
	char *token = S(make_user("usn", NULL, NULL));
	long long ids[5];
	for (int i = 0; i < 5; i++)
		ids[4 - i] = add(token, S(fmt("s%d", i)), "private");
	for (int page = 1; page <= 3; page++) {
		resp *r = R(api("GET", S(fmt("/snippets?per_page=2&page=%d", page)), token, NULL));
		ck_ids(r, ids + (page - 1) * 2, page < 3 ? 2 : 1);
		ck_pages(r, "/snippets", "", 5, 2, page);
	}
	ck_body(R(api("GET", "/snippets?per_page=x", token, NULL)), 400,
		"{\"error\":\"per_page is invalid\"}");
	/* the public list: newest first, paginated the same way */
	long long older = add(token, "pub1", "public");
	long long newer = add(token, "pub2", "public");
	resp *p = R(api("GET", "/snippets/public?per_page=1", token, NULL));
	ck_ids(p, &newer, 1);
	ck_assert(atoll(resp_header(p, "X-Total")) >= 2);
	ck_assert_str_eq(resp_header(p, "X-Per-Page"), "1");
	ck_assert_str_eq(resp_header(p, "X-Next-Page"), "2");
	ck_ids(R(api("GET", "/snippets/public?per_page=1&page=2", token, NULL)), &older, 1);
}
END_TEST

/* The User-Agent and client address of the request that made it, for admins. */
START_TEST(test_user_agent_detail_personal)
{
	char *token = S(make_user("usn", NULL, NULL));
	resp *c = with_agent("POST", "/snippets", token, "title=t&file_name=f&content=c");
	ck_status(c, 201);
	long long id = jint(c->json, "id");
	resp *d = R(api("GET", one(id, "/user_agent_detail"), admin_token(), NULL));
	ck_body(d, 200,
		"{\"user_agent\":\"snippet-tester/1.0\",\"ip_address\":\"127.0.0.1\","
		"\"akismet_submitted\":false}");
	ck_body(R(api("GET", one(id, "/user_agent_detail"), token, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("GET", one(id, "/user_agent_detail"), NULL, NULL)), 401);
	/* none recorded without a User-Agent */
	long long bare = add(token, "b", "private");
	ck_body(R(api("GET", one(bare, "/user_agent_detail"), admin_token(), NULL)), 404,
		"{\"message\":\"404 UserAgentDetail Not Found\"}");
	ck_body(R(api("GET", "/snippets/999999999/user_agent_detail", admin_token(), NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", "/snippets/x/user_agent_detail", admin_token(), NULL)), 400,
		"{\"error\":\"id is invalid\"}");
	/* it goes with its snippet */
	ck_code(R(api("DELETE", one(id, ""), token, NULL)), 204);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM user_agent_details WHERE subject_type ="
				 " 'Snippet' AND subject_id = %lld",
				 id),
			 0);
}
END_TEST

START_TEST(test_user_agent_detail_project)
{
	long long uid;
	char *token = S(make_user("usn", &uid, NULL));
	long long pid = api_project(token, "private", NULL);
	resp *s = with_agent("POST", S(fmt("/projects/%lld/snippets", pid)), token,
			     "title=t&file_name=f&code=c&visibility=private");
	ck_status(s, 201);
	long long sid = jint(s->json, "id");
	resp *i = with_agent("POST", S(fmt("/projects/%lld/issues", pid)), token, "title=bug");
	ck_status(i, 201);
	long long iid = jint(i->json, "iid");
	const char *want = "{\"user_agent\":\"snippet-tester/1.0\",\"ip_address\":\"127.0.0.1\","
			   "\"akismet_submitted\":false}";
	char *spath = S(fmt("/projects/%lld/snippets/%lld/user_agent_detail", pid, sid));
	char *ipath = S(fmt("/projects/%lld/issues/%lld/user_agent_detail", pid, iid));
	ck_body(R(api("GET", spath, admin_token(), NULL)), 200, want);
	ck_body(R(api("GET", ipath, admin_token(), NULL)), 200, want);
	/* the project's owner is no admin */
	ck_body(R(api("GET", spath, token, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("GET", ipath, token, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	/* none recorded; none such */
	long long bare_sn = fixture_snippet(pid, uid, 0);
	long long bare_iid;
	fixture_issue(pid, uid, "fixture", false, &bare_iid);
	ck_body(R(api("GET", S(fmt("/projects/%lld/snippets/%lld/user_agent_detail", pid, bare_sn)),
		      admin_token(), NULL)),
		404, "{\"message\":\"404 UserAgentDetail Not Found\"}");
	ck_body(R(api("GET", S(fmt("/projects/%lld/issues/%lld/user_agent_detail", pid, bare_iid)),
		      admin_token(), NULL)),
		404, "{\"message\":\"404 UserAgentDetail Not Found\"}");
	ck_code(R(api("GET", S(fmt("/projects/%lld/issues/99999/user_agent_detail", pid)),
		      admin_token(), NULL)),
		404);
	ck_code(R(api("GET", S(fmt("/projects/%lld/snippets/999999999/user_agent_detail", pid)),
		      admin_token(), NULL)),
		404);
	/* another project's snippet is not this one's */
	long long other = api_project(token, "private", NULL);
	ck_code(R(api("GET", S(fmt("/projects/%lld/snippets/%lld/user_agent_detail", other, sid)),
		      admin_token(), NULL)),
		404);
	ck_body(R(api("GET", S(fmt("/projects/%lld/issues/x/user_agent_detail", pid)),
		      admin_token(), NULL)),
		400, "{\"error\":\"issue_iid is invalid\"}");
	/* the issue's goes with it */
	ck_code(R(api("DELETE", S(fmt("/projects/%lld/issues/%lld", pid, iid)), token, NULL)), 204);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM user_agent_details WHERE subject_type ="
				 " 'Issue' AND subject_id = %lld",
				 jint(i->json, "id")),
			 0);
}
END_TEST

Suite *suite_user_snippets(void)
{
	Suite *s = suite_create("user_snippets");
	TCase *tc = tcase_create("user_snippets");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_user_snippets_create_and_show);
	tcase_add_test(tc, test_user_snippets_errors);
	tcase_add_test(tc, test_user_snippets_visibility);
	tcase_add_test(tc, test_user_snippets_update_delete);
	tcase_add_test(tc, test_user_snippets_settings);
	tcase_add_test(tc, test_user_snippets_pagination);
	tcase_add_test(tc, test_user_agent_detail_personal);
	tcase_add_test(tc, test_user_agent_detail_project);
	suite_add_tcase(s, tc);
	return s;
}
