/* API suite: templates (GitLab 10's API::Templates): licenses with popular and their
 * placeholders filled, .gitignore and .gitlab-ci.yml templates, open to anyone, paginated,
 * 404 for what there is none of. The stack's templates_path is what contrib/templates
 * installed: choosealicense.com's list, GitHub's .gitignore collection and our CI files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"

static json_object *find_key(json_object *list, const char *key)
{
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *o = json_object_array_get_idx(list, i);
		if (strcmp(jstr(o, "key"), key) == 0)
			return o;
	}
	return NULL;
}

START_TEST(test_licenses)
{
	static const char *const fields[] = {"key",         "name",       "nickname",
					     "featured",    "html_url",   "source_url",
					     "description", "conditions", "permissions",
					     "limitations", "content",    NULL};
	resp *r = R(api("GET", "/templates/licenses?per_page=100", NULL, NULL));
	ck_status(r, 200);
	size_t n = json_object_array_length(r->json);
	ck_assert_msg(n >= 10, "%zu licenses", n);
	ck_fields(json_object_array_get_idx(r->json, 0), fields);
	/* by key; hidden ones (0bsd) are not listed but can be read */
	for (size_t i = 1; i < n; i++)
		ck_assert_msg(strcmp(jstr(json_object_array_get_idx(r->json, i - 1), "key"),
				     jstr(json_object_array_get_idx(r->json, i), "key")) < 0,
			      "order at %zu", i);
	json_object *mit = find_key(r->json, "mit");
	ck_assert_msg(mit, "no mit in %s", r->body);
	ck_assert_str_eq(jstr(mit, "name"), "MIT License");
	ck_assert(jbool(mit, "featured"));
	ck_assert_str_eq(jstr(mit, "html_url"), "http://choosealicense.com/licenses/mit/");
	ck_assert(strstr(jstr(mit, "content"), "[year] [fullname]"));
	ck_assert(!find_key(r->json, "0bsd"));
	ck_pages(r, "/templates/licenses", "", (long long)n, 100, 1);
	r = R(api("GET", "/templates/licenses?per_page=2&page=2", NULL, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_pages(r, "/templates/licenses", "", (long long)n, 2, 2);

	/* popular: the featured ones only */
	r = R(api("GET", "/templates/licenses?popular=true", NULL, NULL));
	ck_status(r, 200);
	size_t np = json_object_array_length(r->json);
	ck_assert_msg(np >= 1 && np < n, "%zu popular of %zu", np, n);
	for (size_t i = 0; i < np; i++)
		ck_assert(jbool(json_object_array_get_idx(r->json, i), "featured"));
	ck_assert(find_key(r->json, "mit") && find_key(r->json, "apache-2.0"));
	r = R(api("GET", "/templates/licenses?popular=false", NULL, NULL));
	ck_assert_int_eq(atoll(resp_header(r, "X-Total")), (long long)n);
	ck_status(R(api("GET", "/templates/licenses?popular=maybe", NULL, NULL)), 400);
	ck_status(R(api("GET", "/templates/licenses?per_page=x", NULL, NULL)), 400);
}
END_TEST

START_TEST(test_license_placeholders)
{
	char year[8];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	snprintf(year, sizeof(year), "%d", tm.tm_year + 1900);

	resp *r = R(
		api("GET", "/templates/licenses/mit?fullname=Jane%20Doe&project=Proj", NULL, NULL));
	ck_status(r, 200);
	ck_jstr(r, "key", "mit");
	const char *c = jstr(r->json, "content");
	ck_assert_msg(strstr(c, S(fmt("Copyright (c) %s Jane Doe", year))), "%s", c);
	ck_assert(!strstr(c, "[year]") && !strstr(c, "[fullname]"));
	/* any case of the key */
	ck_status(R(api("GET", "/templates/licenses/MIT", NULL, NULL)), 200);
	/* no fullname: the caller's name; anonymous: left as it is */
	long long uid;
	char *token = S(make_user("lic", &uid, NULL));
	char *name = S(sql_value("SELECT name FROM users WHERE id = %lld", uid));
	r = R(api("GET", "/templates/licenses/mit", token, NULL));
	ck_assert_msg(strstr(jstr(r->json, "content"), S(fmt("%s %s", year, name))), "%s", r->body);
	r = R(api("GET", "/templates/licenses/mit", NULL, NULL));
	ck_assert(strstr(jstr(r->json, "content"), S(fmt("%s [fullname]", year))));
	/* GPL's project line and its <year> <name of author> */
	r = R(api("GET", "/templates/licenses/gpl-3.0?project=Proj&fullname=Jane", NULL, NULL));
	ck_status(r, 200);
	c = jstr(r->json, "content");
	ck_assert_msg(strstr(c, "    Proj\n"), "project line not filled");
	ck_assert_msg(strstr(c, S(fmt("Copyright (C) %s  Jane", year))), "author not filled");
	ck_assert(!strstr(c, "<one line to give"));
	/* a hidden license is still found by its key */
	ck_status(R(api("GET", "/templates/licenses/0bsd", NULL, NULL)), 200);
	r = R(api("GET", "/templates/licenses/no-such-license", NULL, NULL));
	ck_body(r, 404, "{\"message\":\"404 License Not Found\"}");
}
END_TEST

static void ck_template_kind(const char *kind, const char *name, const char *needle,
			     const char *missing)
{
	resp *r = R(api("GET", S(fmt("/templates/%s?per_page=100", kind)), NULL, NULL));
	ck_status(r, 200);
	size_t n = json_object_array_length(r->json);
	ck_assert_msg(n >= 5, "%zu %s", n, kind);
	static const char *const fields[] = {"key", "name", NULL};
	ck_fields(json_object_array_get_idx(r->json, 0), fields);
	long long total = atoll(resp_header(r, "X-Total"));
	ck_assert_int_ge(total, (long long)n);
	ck_assert_msg(find_key(r->json, name), "no %s in %s", name, r->body);
	r = R(api("GET", S(fmt("/templates/%s?per_page=3&page=2", kind)), NULL, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	ck_pages(r, S(fmt("/templates/%s", kind)), "", total, 3, 2);

	r = R(api("GET", S(fmt("/templates/%s/%s", kind, name)), admin_token(), NULL));
	ck_status(r, 200);
	static const char *const one[] = {"name", "content", NULL};
	ck_fields(r->json, one);
	ck_jstr(r, "name", name);
	ck_assert_msg(strstr(jstr(r->json, "content"), needle), "%s", r->body);
	r = R(api("GET", S(fmt("/templates/%s/NoSuchTemplate", kind)), NULL, NULL));
	ck_body(r, 404, S(fmt("{\"message\":\"404 %s Not Found\"}", missing)));
}

START_TEST(test_gitignores)
{
	ck_template_kind("gitignores", "C", "*.o", "gitignore");
	/* a category's (Global/) template, after the languages' */
	resp *r = R(api("GET", "/templates/gitignores/Vim", NULL, NULL));
	ck_status(r, 200);
	r = R(api("GET", "/templates/gitignores?per_page=100&page=1", NULL, NULL));
	json_object *first = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(first, "name"), "Actionscript");
	/* names are exact: no path tricks */
	ck_status(R(api("GET", "/templates/gitignores/..%2FGlobal%2FVim", NULL, NULL)), 404);
	ck_status(R(api("GET", "/templates/gitignores/c", NULL, NULL)), 404);
}
END_TEST

START_TEST(test_gitlab_ci_ymls)
{
	ck_template_kind("gitlab_ci_ymls", "Go", "go test", "gitlab_ci_yml");
	/* every CI template is a valid configuration for POST /ci/lint */
	resp *r = R(api("GET", "/templates/gitlab_ci_ymls?per_page=100", NULL, NULL));
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		const char *name = jstr(json_object_array_get_idx(r->json, i), "name");
		resp *t = R(api("GET", S(fmt("/templates/gitlab_ci_ymls/%s", S(enc(name)))), NULL,
				NULL));
		json_object *o = json_object_new_object();
		json_object_object_add(o, "content", json_object_get(jget(t->json, "content")));
		resp *l = R(api_json("POST", "/ci/lint", NULL, json_object_to_json_string(o)));
		json_object_put(o);
		ck_jstr(l, "status", "valid");
	}
}
END_TEST

Suite *suite_templates(void)
{
	Suite *s = suite_create("templates");
	TCase *tc = tcase_create("templates");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_licenses);
	tcase_add_test(tc, test_license_placeholders);
	tcase_add_test(tc, test_gitignores);
	tcase_add_test(tc, test_gitlab_ci_ymls);
	suite_add_tcase(s, tc);
	return s;
}
