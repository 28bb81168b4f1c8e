/* API suite: milestones of projects and groups (spec 4.7): list (state, iids[], search,
 * pages), show, create, edit (state_event close/activate), the milestone's issues and
 * merge requests, iids per project and per group, dates validated, and who may do what. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const PROJECT_FIELDS[] = {"id",         "iid",         "project_id",
					     "title",      "description", "state",
					     "created_at", "updated_at",  "due_date",
					     "start_date", NULL};
static const char *const GROUP_FIELDS[] = {"id",          "iid",        "group_id",   "title",
					   "description", "state",      "created_at", "updated_at",
					   "due_date",    "start_date", NULL};

static fx_source srcs[8];
static size_t nsrcs;

static void release_all(void)
{
	release();
	while (nsrcs)
		fixture_source_free(&srcs[--nsrcs]);
}

/* A private project (scope 0) or group (scope 1) of a new owner. */
static fx_source *source(int scope)
{
	ck_assert(nsrcs < sizeof(srcs) / sizeof(*srcs));
	fx_source *s = &srcs[nsrcs++];
	fixture_source(s, scope, 0);
	return s;
}

static const char *M(const fx_source *s, const char *suffix)
{
	return S(source_path(s, S(fmt("/milestones%s", suffix))));
}

/* A member of s at level (a new user); their token. */
static const char *member(const fx_source *s, int level, long long *id)
{
	char *name;
	char *t = S(make_user("msm", id, &name));
	S(name);
	sql_member(s->project ? "Project" : "Namespace", s->id, *id, level);
	return t;
}

static void lifecycle(int scope)
{
	fx_source *s = source(scope);
	const char *const *fields = scope == 0 ? PROJECT_FIELDS : GROUP_FIELDS;
	resp *r = R(api("POST", M(s, ""), s->owner_token,
			"title=v1.0&description=first&start_date=2030-01-01&due_date=2030-02-01"));
	ck_status(r, 201);
	ck_fields(r->json, fields);
	ck_assert_int_eq(jint(r->json, "iid"), 1);
	ck_assert_int_eq(jint(r->json, scope == 0 ? "project_id" : "group_id"), s->id);
	ck_jstr(r, "title", "v1.0");
	ck_jstr(r, "state", "active");
	ck_jstr(r, "start_date", "2030-01-01");
	ck_jstr(r, "due_date", "2030-02-01");
	long long id = jint(r->json, "id");
	r = R(api("POST", M(s, ""), s->owner_token, "title=v2.0"));
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "iid"), 2);
	ck_assert(jnull(r->json, "due_date") && jnull(r->json, "description"));
	long long id2 = jint(r->json, "id");
	/* errors */
	ck_body(R(api("POST", M(s, ""), s->owner_token, "description=x")), 400,
		"{\"message\":\"400 (Bad request) \\\"title\\\" not given\"}");
	ck_body(R(api("POST", M(s, ""), s->owner_token, "title=v1.0")), 400,
		"{\"message\":\"Failed to create milestone {:title=>[\\\"has already been taken\\\"]}\"}");
	ck_body(R(api("POST", M(s, ""), s->owner_token,
		      "title=x&start_date=2030-03-01&due_date=2030-02-01")),
		400,
		"{\"message\":\"Failed to create milestone {:due_date=>[\\\"must be greater than "
		"start date\\\"]}\"}");
	ck_body(R(api("POST", M(s, ""), s->owner_token, "title=x&due_date=soon")), 400,
		"{\"error\":\"due_date is invalid\"}");
	ck_code(R(api("POST", M(s, ""), NULL, "title=y")), 401);
	/* show */
	r = R(api("GET", M(s, S(fmt("/%lld", id))), s->owner_token, NULL));
	ck_status(r, 200);
	ck_fields(r->json, fields);
	ck_jstr(r, "description", "first");
	ck_body(R(api("GET", M(s, "/999999999"), s->owner_token, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", M(s, "/x"), s->owner_token, NULL)), 400,
		"{\"error\":\"milestone_id is invalid\"}");
	/* edit */
	ck_body(R(api("PUT", M(s, S(fmt("/%lld", id))), s->owner_token, NULL)), 400,
		"{\"error\":\"title, description, due_date, start_date, state_event are missing, "
		"at least one parameter must be provided\"}");
	ck_body(R(api("PUT", M(s, S(fmt("/%lld", id))), s->owner_token, "state_event=open")), 400,
		"{\"error\":\"state_event does not have a valid value\"}");
	ck_body(R(api("PUT", M(s, S(fmt("/%lld", id))), s->owner_token, "start_date=2031-01-01")),
		400,
		"{\"message\":\"Failed to update milestone {:due_date=>[\\\"must be greater than "
		"start date\\\"]}\"}");
	ck_body(R(api("PUT", M(s, S(fmt("/%lld", id2))), s->owner_token, "title=v1.0")), 400,
		"{\"message\":\"Failed to update milestone {:title=>[\\\"has already been taken\\\"]}\"}");
	r = R(api("PUT", M(s, S(fmt("/%lld", id))), s->owner_token,
		  "title=v1.1&state_event=close&due_date="));
	ck_status(r, 200);
	ck_jstr(r, "title", "v1.1");
	ck_jstr(r, "state", "closed");
	ck_assert(jnull(r->json, "due_date"));
	ck_jstr(r, "description", "first");
	/* lists */
	const char *base = M(s, "");
	ck_assert_int_eq(json_object_array_length(R(api("GET", base, s->owner_token, NULL))->json),
			 2);
	r = R(api("GET", S(fmt("%s?state=closed", base)), s->owner_token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "title"), "v1.1");
	r = R(api("GET", S(fmt("%s?state=active", base)), s->owner_token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	r = R(api("GET", S(fmt("%s?iids[]=2", base)), s->owner_token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), id2);
	r = R(api("GET", S(fmt("%s?search=FIRST", base)), s->owner_token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_body(R(api("GET", S(fmt("%s?state=done", base)), s->owner_token, NULL)), 400,
		"{\"error\":\"state does not have a valid value\"}");
	r = R(api("GET", S(fmt("%s?per_page=1&page=2", base)), s->owner_token, NULL));
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), id2);
	ck_pages(r, base, "", 2, 1, 2);
	r = R(api("PUT", M(s, S(fmt("/%lld", id))), s->owner_token, "state_event=activate"));
	ck_jstr(r, "state", "active");
	/* merge requests: none kept yet */
	r = R(api("GET", M(s, S(fmt("/%lld/merge_requests", id))), s->owner_token, NULL));
	ck_body(r, 200, "[]");
	ck_pages(r, S(source_path(s, S(fmt("/milestones/%lld/merge_requests", id)))), "", 0, 20, 1);
	ck_code(R(api("GET", M(s, "/999999999/merge_requests"), s->owner_token, NULL)), 404);
}

START_TEST(test_milestones_project)
{
	lifecycle(0);
}
END_TEST

START_TEST(test_milestones_group)
{
	lifecycle(1);
}
END_TEST

/* Who may: developers of a project (masters of a group) create and edit; guests read;
 * others do not see it. */
/* Dates as GitLab 10 casts them: a date, or a date-time whose calendar date is taken as
 * written (time and offset dropped), stored and shown as YYYY-MM-DD, in a form or a JSON
 * body; what is no date (nor date-time) is 400 and changes nothing. */
static void dates(int scope)
{
	fx_source *s = source(scope);
	resp *r = R(api(
		"POST", M(s, ""), s->owner_token,
		"title=d&start_date=2019-12-31T10:00:00%2B02:00&due_date=2020-01-01T00:00:00Z"));
	ck_status(r, 201);
	ck_jstr(r, "start_date", "2019-12-31");
	ck_jstr(r, "due_date", "2020-01-01");
	const char *one = M(s, S(fmt("/%lld", jint(r->json, "id"))));
	r = R(api("PUT", one, s->owner_token, "due_date=2020-02-01T23:30:00-05:00"));
	ck_status(r, 200);
	ck_jstr(r, "due_date", "2020-02-01");
	r = R(api_json("PUT", one, s->owner_token,
		       "{\"due_date\":\"2020-03-01T10:00:00.000Z\",\"start_date\":\"2020-02-15\"}"));
	ck_status(r, 200);
	ck_jstr(r, "due_date", "2020-03-01");
	ck_jstr(r, "start_date", "2020-02-15");
	/* the day as written, not in UTC (2020-03-01, which would pass): after the due date */
	ck_body(R(api("PUT", one, s->owner_token, "start_date=2020-03-02T01:00:00%2B09:00")), 400,
		"{\"message\":\"Failed to update milestone {:due_date=>[\\\"must be greater than "
		"start date\\\"]}\"}");
	static const char *const bad[] = {"2020-01-01Tnoon",
					  "2020-13-01T00:00:00Z",
					  "2020-01-01T24:00:00Z",
					  "2020-01-01T10:00:00%2B99:00",
					  "2020-01-01x",
					  "soon",
					  NULL};
	for (int i = 0; bad[i]; i++) {
		ck_body(R(api("PUT", one, s->owner_token, S(fmt("due_date=%s", bad[i])))), 400,
			"{\"error\":\"due_date is invalid\"}");
		ck_body(R(api("POST", M(s, ""), s->owner_token,
			      S(fmt("title=bad%d&start_date=%s", i, bad[i])))),
			400, "{\"error\":\"start_date is invalid\"}");
	}
	r = R(api("GET", one, s->owner_token, NULL));
	ck_jstr(r, "due_date", "2020-03-01");
	ck_jstr(r, "start_date", "2020-02-15");
	ck_assert_int_eq(
		json_object_array_length(R(api("GET", M(s, ""), s->owner_token, NULL))->json), 1);
}

START_TEST(test_milestones_dates)
{
	dates(0);
	dates(1);
}
END_TEST

START_TEST(test_milestones_access)
{
	for (int scope = 0; scope < 2; scope++) {
		fx_source *s = source(scope);
		long long id;
		const char *guest = member(s, 10, &id), *reporter = member(s, 20, &id),
			   *developer = member(s, 30, &id), *master = member(s, 40, &id);
		long long sid;
		char *sname, *stranger = S(make_user("mst", &sid, &sname));
		S(sname);
		ck_code(R(api("POST", M(s, ""), guest, "title=a")), 403);
		ck_code(R(api("POST", M(s, ""), reporter, "title=a")), 403);
		ck_code(R(api("POST", M(s, ""), developer, "title=a")), scope == 0 ? 201 : 403);
		ck_code(R(api("POST", M(s, ""), master, "title=b")), 201);
		resp *r = R(api("GET", M(s, ""), guest, NULL));
		ck_status(r, 200);
		ck_assert_int_eq(json_object_array_length(r->json), scope == 0 ? 2 : 1);
		long long mid = jint(json_object_array_get_idx(r->json, 0), "id");
		ck_code(R(api("PUT", M(s, S(fmt("/%lld", mid))), reporter, "title=z")), 403);
		ck_code(R(api("PUT", M(s, S(fmt("/%lld", mid))), master, "title=z")), 200);
		ck_body(R(api("GET", M(s, ""), stranger, NULL)), 404,
			scope == 0 ? "{\"message\":\"404 Project Not Found\"}"
				   : "{\"message\":\"404 Group Not Found\"}");
		ck_code(R(api("GET", M(s, S(fmt("/%lld", mid))), admin_token(), NULL)), 200);
	}
	/* a milestone of another project is not found through this one */
	fx_source *a = source(0), *b = source(0);
	resp *r = R(api("POST", M(a, ""), a->owner_token, "title=x"));
	ck_body(R(api("GET", M(b, S(fmt("/%lld", jint(r->json, "id")))), b->owner_token, NULL)),
		404, "{\"message\":\"404 Not found\"}");
}
END_TEST

/* The issues of a milestone: a project's; a group's, across its projects (by title). */
START_TEST(test_milestones_issues)
{
	fx_source *s = source(0);
	long long ms = jint(R(api("POST", M(s, ""), s->owner_token, "title=m"))->json, "id");
	const char *issues = S(source_path(s, "/issues"));
	ck_code(R(api("POST", issues, s->owner_token, S(fmt("title=in&milestone_id=%lld", ms)))),
		201);
	ck_code(R(api("POST", issues, s->owner_token, "title=out")), 201);
	ck_code(R(api("POST", issues, s->owner_token,
		      S(fmt("title=in2&milestone_id=%lld&confidential=true", ms)))),
		201);
	resp *r = R(api("GET", M(s, S(fmt("/%lld/issues", ms))), s->owner_token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 1), "title"), "in");
	ck_pages(r, S(source_path(s, S(fmt("/milestones/%lld/issues", ms)))), "", 2, 20, 1);
	/* a guest does not see the confidential one */
	long long gid;
	const char *guest = member(s, 10, &gid);
	r = R(api("GET", M(s, S(fmt("/%lld/issues", ms))), guest, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_code(R(api("GET", M(s, "/999999999/issues"), s->owner_token, NULL)), 404);
	/* a group milestone's issues: those of its projects with a milestone of that title */
	fx_source *g = source(1);
	long long p = fixture_group_project(g->id, 0, NULL);
	long long gm = jint(R(api("POST", M(g, ""), g->owner_token, "title=gm"))->json, "id");
	const char *pi = S(fmt("/projects/%lld/issues", p));
	ck_code(R(api("POST", pi, g->owner_token, S(fmt("title=g1&milestone_id=%lld", gm)))), 201);
	ck_code(R(api("POST", pi, g->owner_token, "title=g2")), 201);
	r = R(api("GET", M(g, S(fmt("/%lld/issues", gm))), g->owner_token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "title"), "g1");
	ck_assert_int_eq(jint(jget(json_object_array_get_idx(r->json, 0), "milestone"), "group_id"),
			 g->id);
}
END_TEST

Suite *suite_milestones(void)
{
	Suite *s = suite_create("milestones");
	TCase *tc = tcase_create("milestones");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release_all);
	tcase_add_test(tc, test_milestones_project);
	tcase_add_test(tc, test_milestones_group);
	tcase_add_test(tc, test_milestones_access);
	tcase_add_test(tc, test_milestones_dates);
	tcase_add_test(tc, test_milestones_issues);
	suite_add_tcase(s, tc);
	return s;
}
