/* API suite: project and group variables (spec 4.4; GitLab 10's lib/api/variables.rb and
 * group_variables.rb): list, show, create, update, delete in both scopes; the key rules,
 * duplicates, protected, values sealed at rest, pagination, and who may (masters and up,
 * admins; 403 for the others who see the project or group, 404 for those who do not). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const VAR_FIELDS[] = {"key", "value", "protected", NULL};

/* A private project (scope 0) or group (scope 1) with its owner. */
static void source(fx_source *s, int scope)
{
	fixture_source(s, scope, 0);
	S(s->path);
	S(s->owner_name);
	S(s->owner_token);
}

static char *vpath(const fx_source *s, const char *suffix)
{
	return S(source_path(s, S(fmt("/variables%s", suffix))));
}

/* A member of s at level (0: none): their token. */
static char *member(const fx_source *s, int level)
{
	long long uid;
	char *token = S(make_user("var_m", &uid, NULL));
	if (level)
		fixture_member(s->project ? "Project" : "Namespace", s->id, uid, level);
	return token;
}

static const char *what(const fx_source *s)
{
	return s->project ? "Variable" : "GroupVariable";
}

START_TEST(test_variables_crud)
{
	fx_source s;
	source(&s, _i);
	const char *tok = s.owner_token;
	resp *r = R(api("POST", vpath(&s, ""), tok, "key=DB_PASSWORD&value=s3cr%3Dt%20x"));
	ck_status(r, 201);
	ck_fields(r->json, VAR_FIELDS);
	ck_jstr(r, "key", "DB_PASSWORD");
	ck_jstr(r, "value", "s3cr=t x");
	ck_assert(!jbool(r->json, "protected"));
	/* sealed at rest: the value is nowhere in the row */
	const char *table = s.project ? "ci_variables" : "ci_group_variables";
	const char *col = s.project ? "project_id" : "group_id";
	ck_assert_int_eq(sql_int("SELECT count(*) FROM %s WHERE %s = %lld AND key = 'DB_PASSWORD'"
				 " AND value_sealed NOT LIKE '%%s3cr%%'",
				 table, col, s.id),
			 1);
	r = R(api_json("POST", vpath(&s, ""), tok,
		       "{\"key\":\"P_1\",\"value\":\"\",\"protected\":true}"));
	ck_body(r, 201, "{\"key\":\"P_1\",\"value\":\"\",\"protected\":true}");
	/* show */
	ck_body(R(api("GET", vpath(&s, "/DB_PASSWORD"), tok, NULL)), 200,
		"{\"key\":\"DB_PASSWORD\",\"value\":\"s3cr=t x\",\"protected\":false}");
	/* list, in the order they were made */
	r = R(api("GET", vpath(&s, ""), tok, NULL));
	ck_body(r, 200,
		"[{\"key\":\"DB_PASSWORD\",\"value\":\"s3cr=t x\",\"protected\":false},"
		"{\"key\":\"P_1\",\"value\":\"\",\"protected\":true}]");
	ck_pages(r, S(source_path(&s, "/variables")), "", 2, 20, 1);
	/* update: value, protected, either alone; the key in the body changes nothing */
	ck_body(R(api("PUT", vpath(&s, "/DB_PASSWORD"), tok, "value=new&key=OTHER")), 200,
		"{\"key\":\"DB_PASSWORD\",\"value\":\"new\",\"protected\":false}");
	ck_body(R(api("PUT", vpath(&s, "/DB_PASSWORD"), tok, "protected=true")), 200,
		"{\"key\":\"DB_PASSWORD\",\"value\":\"new\",\"protected\":true}");
	ck_body(R(api("PUT", vpath(&s, "/DB_PASSWORD"), tok, "protected=false&value=v2")), 200,
		"{\"key\":\"DB_PASSWORD\",\"value\":\"v2\",\"protected\":false}");
	ck_code(R(api("GET", vpath(&s, "/OTHER"), tok, NULL)), 404);
	/* delete */
	r = R(api("DELETE", vpath(&s, "/DB_PASSWORD"), tok, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	char *nf = S(fmt("{\"message\":\"404 %s Not Found\"}", what(&s)));
	ck_body(R(api("GET", vpath(&s, "/DB_PASSWORD"), tok, NULL)), 404, nf);
	ck_body(R(api("PUT", vpath(&s, "/DB_PASSWORD"), tok, "value=x")), 404, nf);
	ck_body(R(api("DELETE", vpath(&s, "/DB_PASSWORD"), tok, NULL)), 404, nf);
	ck_body(R(api("GET", vpath(&s, ""), tok, NULL)), 200,
		"[{\"key\":\"P_1\",\"value\":\"\",\"protected\":true}]");
	/* the same key in another project or group is another variable */
	fx_source o;
	source(&o, _i);
	ck_code(R(api("POST", vpath(&o, ""), o.owner_token, "key=P_1&value=other")), 201);
	ck_body(R(api("GET", vpath(&s, "/P_1"), tok, NULL)), 200,
		"{\"key\":\"P_1\",\"value\":\"\",\"protected\":true}");
	/* by full path too */
	char *by_path =
		S(fmt("%s/%s/variables/P_1", s.project ? "/projects" : "/groups", S(enc(s.path))));
	ck_code(R(api("GET", by_path, tok, NULL)), 200);
}
END_TEST

START_TEST(test_variables_errors)
{
	fx_source s;
	source(&s, _i);
	const char *tok = s.owner_token;
	char *p = vpath(&s, "");
	ck_body(R(api("POST", p, tok, "value=x")), 400,
		"{\"message\":\"400 (Bad request) \\\"key\\\" not given\"}");
	ck_body(R(api("POST", p, tok, "key=A")), 400,
		"{\"message\":\"400 (Bad request) \\\"value\\\" not given\"}");
	ck_body(R(api("POST", p, tok, "key=A&value=x&protected=maybe")), 400,
		"{\"error\":\"protected is invalid\"}");
	ck_body(R(api("POST", p, tok, "key=&value=x")), 400,
		"{\"message\":{\"key\":[\"can't be blank\","
		"\"can contain only letters, digits and '_'.\"]}}");
	ck_body(R(api("POST", p, tok, "key=A-B&value=x")), 400,
		"{\"message\":{\"key\":[\"can contain only letters, digits and '_'.\"]}}");
	ck_body(R(api("POST", p, tok, "key=%C3%A9t%C3%A9&value=x")), 400,
		"{\"message\":{\"key\":[\"can contain only letters, digits and '_'.\"]}}");
	char big[300];
	memset(big, 'K', 256);
	big[256] = '\0';
	ck_body(R(api("POST", p, tok, S(fmt("key=%s&value=x", big)))), 400,
		"{\"message\":{\"key\":[\"is too long (maximum is 255 characters)\"]}}");
	big[255] = '\0';
	ck_code(R(api("POST", p, tok, S(fmt("key=%s&value=x", big)))), 201);
	ck_code(R(api("POST", p, tok, "key=DUP&value=1")), 201);
	ck_body(R(api("POST", p, tok, "key=DUP&value=2")), 400,
		"{\"message\":{\"key\":[\"has already been taken\"]}}");
	ck_body(R(api("PUT", vpath(&s, "/DUP"), tok, "protected=x")), 400,
		"{\"error\":\"protected is invalid\"}");
	/* nothing changed by the refusals */
	ck_body(R(api("GET", vpath(&s, "/DUP"), tok, NULL)), 200,
		"{\"key\":\"DUP\",\"value\":\"1\",\"protected\":false}");
	const char *table = s.project ? "ci_variables" : "ci_group_variables";
	const char *col = s.project ? "project_id" : "group_id";
	ck_assert_int_eq(sql_int("SELECT count(*) FROM %s WHERE %s = %lld", table, col, s.id), 2);
	/* no token; an unknown project or group */
	ck_code(R(api("GET", p, NULL, NULL)), 401);
	ck_code(R(api("POST", p, NULL, "key=A&value=x")), 401);
	ck_body(R(api("GET", S(fmt("%s/999999999/variables", s.project ? "/projects" : "/groups")),
		      tok, NULL)),
		404,
		s.project ? "{\"message\":\"404 Project Not Found\"}"
			  : "{\"message\":\"404 Group Not Found\"}");
}
END_TEST

/* Every route as a caller: the status each answers. */
static void ck_access(const fx_source *s, const char *tok, long want)
{
	ck_code(R(api("GET", vpath(s, ""), tok, NULL)), want);
	ck_code(R(api("GET", vpath(s, "/SEEN"), tok, NULL)), want);
	ck_code(R(api("POST", vpath(s, ""), tok, "key=NEW_ONE&value=x")), want == 200 ? 201 : want);
	ck_code(R(api("PUT", vpath(s, "/SEEN"), tok, "value=y")), want);
	ck_code(R(api("DELETE", vpath(s, "/NEW_ONE"), tok, NULL)), want == 200 ? 204 : want);
}

START_TEST(test_variables_access)
{
	fx_source s;
	source(&s, _i);
	ck_code(R(api("POST", vpath(&s, ""), s.owner_token, "key=SEEN&value=v")), 201);
	ck_access(&s, member(&s, 10), 403);
	ck_access(&s, member(&s, 20), 403);
	ck_access(&s, member(&s, 30), 403);
	ck_access(&s, member(&s, 40), 200);
	if (!s.project)
		ck_access(&s, member(&s, 50), 200);
	ck_access(&s, s.owner_token, 200);
	long long aid;
	ck_access(&s, S(make_admin("var_adm", &aid)), 200);
	/* a non-member does not see the private project or group */
	ck_access(&s, member(&s, 0), 404);
	/* nor may anyone who sees a public one */
	fx_source pub;
	fixture_source(&pub, _i, 20);
	S(pub.path);
	S(pub.owner_name);
	S(pub.owner_token);
	ck_code(R(api("POST", vpath(&pub, ""), pub.owner_token, "key=SEEN&value=v")), 201);
	ck_access(&pub, member(&pub, 0), 403);
	/* nothing was left by the refusals: SEEN is y, made by the last who could */
	ck_body(R(api("GET", vpath(&s, "/SEEN"), s.owner_token, NULL)), 200,
		"{\"key\":\"SEEN\",\"value\":\"y\",\"protected\":false}");
	ck_body(R(api("GET", vpath(&pub, "/SEEN"), pub.owner_token, NULL)), 200,
		"{\"key\":\"SEEN\",\"value\":\"v\",\"protected\":false}");
	/* a project whose jobs are off has no variables to administer, for anyone */
	if (s.project) {
		ck_code(R(api("PUT", S(fmt("/projects/%lld", s.id)), s.owner_token,
			      "jobs_enabled=false")),
			200);
		ck_access(&s, s.owner_token, 403);
		ck_access(&s, S(make_admin("var_adm", &aid)), 403);
	}
}
END_TEST

START_TEST(test_variables_group_inherited)
{
	/* a master of the parent group administers a subgroup's variables */
	fx_source s;
	source(&s, 1);
	long long sub = fixture_subgroup(s.id, 0, NULL);
	char *p = S(fmt("/groups/%lld/variables", sub));
	long long uid;
	char *m = S(make_user("var_gm", &uid, NULL));
	fixture_member("Namespace", s.id, uid, 40);
	ck_code(R(api("POST", p, m, "key=SUB&value=1")), 201);
	char *d = S(make_user("var_gd", &uid, NULL));
	fixture_member("Namespace", s.id, uid, 30);
	ck_code(R(api("GET", p, d, NULL)), 403);
}
END_TEST

START_TEST(test_variables_pagination)
{
	fx_source s;
	source(&s, _i);
	for (int i = 0; i < 5; i++)
		ck_code(R(api("POST", vpath(&s, ""), s.owner_token,
			      S(fmt("key=K%d&value=%d", i, i)))),
			201);
	char *path = S(source_path(&s, "/variables"));
	for (int page = 1; page <= 3; page++) {
		resp *r = R(api("GET", S(fmt("%s?per_page=2&page=%d", vpath(&s, ""), page)),
				s.owner_token, NULL));
		ck_status(r, 200);
		size_t n = json_object_array_length(r->json);
		ck_assert_uint_eq(n, page < 3 ? 2 : 1);
		for (size_t k = 0; k < n; k++)
			ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, k), "key"),
					 S(fmt("K%d", (page - 1) * 2 + (int)k)));
		ck_pages(r, path, "", 5, 2, page);
	}
	ck_body(R(api("GET", S(fmt("%s?page=x", vpath(&s, ""))), s.owner_token, NULL)), 400,
		"{\"error\":\"page is invalid\"}");
}
END_TEST

Suite *suite_variables(void)
{
	Suite *s = suite_create("variables");
	TCase *tc = tcase_create("variables");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	/* _i: 0 project, 1 group */
	tcase_add_loop_test(tc, test_variables_crud, 0, 2);
	tcase_add_loop_test(tc, test_variables_errors, 0, 2);
	tcase_add_loop_test(tc, test_variables_access, 0, 2);
	tcase_add_test(tc, test_variables_group_inherited);
	tcase_add_loop_test(tc, test_variables_pagination, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
