/* API suite: pipeline schedules (spec 4.3; GitLab 10's lib/api/pipeline_schedules.rb):
 * list (scope), show (last pipeline, variables), create, update, take_ownership,
 * delete, and the schedule variables; next_run_at as the cron and its zone name it,
 * recomputed on every save; GitLab's validation bodies; who may (reporters read,
 * developers create, masters and the owner change); pagination. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"

static const char *const SCHEDULE_FIELDS[] = {
	"id",         "description", "ref",   "cron", "cron_timezone", "next_run_at", "active",
	"created_at", "updated_at",  "owner", NULL};
static const char *const DETAILS_FIELDS[] = {"id",     "description",   "ref",
					     "cron",   "cron_timezone", "next_run_at",
					     "active", "created_at",    "updated_at",
					     "owner",  "last_pipeline", "variables",
					     NULL};

typedef struct {
	long long id;
	char *owner;
	long long owner_id;
	char *path;
} fx;

static void project(fx *f, const char *visibility)
{
	f->owner = S(make_user("sch_own", &f->owner_id, NULL));
	f->id = api_project(f->owner, visibility, &f->path);
	S(f->path);
}

static char *member(long long pid, int level, long long *id)
{
	long long uid;
	char *token = S(make_user("sch_m", &uid, NULL));
	if (level)
		fixture_member("Project", pid, uid, level);
	if (id)
		*id = uid;
	return token;
}

static char *spath(long long pid, const char *suffix)
{
	return S(fmt("/projects/%lld/pipeline_schedules%s", pid, suffix));
}

static char *one(long long pid, long long sid, const char *suffix)
{
	return S(fmt("/projects/%lld/pipeline_schedules/%lld%s", pid, sid, suffix));
}

static long long add(long long pid, const char *token, const char *form)
{
	resp *r = R(api("POST", spath(pid, ""), token, form));
	ck_status(r, 201);
	return jint(r->json, "id");
}

/* The database's idea of a UTC timestamp text as epoch seconds. */
static long long epoch(const char *iso)
{
	return sql_int("SELECT extract(epoch FROM '%s'::timestamptz)::bigint", iso);
}

START_TEST(test_schedules_create_and_show)
{
	fx f;
	project(&f, "private");
	resp *r = R(api("POST", spath(f.id, ""), f.owner,
			"description=Nightly&ref=master&cron=0%204%20*%20*%20*"
			"&cron_timezone=Europe%2FBerlin"));
	ck_status(r, 201);
	ck_fields(r->json, DETAILS_FIELDS);
	long long id = jint(r->json, "id");
	ck_jstr(r, "description", "Nightly");
	ck_jstr(r, "ref", "master");
	ck_jstr(r, "cron", "0 4 * * *");
	ck_jstr(r, "cron_timezone", "Europe/Berlin");
	ck_assert(jbool(r->json, "active"));
	ck_assert(jnull(r->json, "last_pipeline"));
	ck_assert_uint_eq(json_object_array_length(jget(r->json, "variables")), 0);
	ck_assert_int_eq(jint(jget(r->json, "owner"), "id"), f.owner_id);
	/* the next 04:00 in Berlin, within a day from now */
	const char *next = jstr(r->json, "next_run_at");
	ck_assert_msg(next && strlen(next) == 24, "next_run_at %s", next ? next : "null");
	ck_assert_int_eq(sql_int("SELECT (extract(hour FROM '%s'::timestamptz AT TIME ZONE"
				 " 'Europe/Berlin') = 4 AND extract(minute FROM '%s'::timestamptz)"
				 " = 0 AND '%s'::timestamptz > now() AND '%s'::timestamptz <= now()"
				 " + interval '1 day')::int",
				 next, next, next, next),
			 1);
	/* default zone UTC, inactive from creation */
	r = R(api_json("POST", spath(f.id, ""), f.owner,
		       "{\"description\":\"d\",\"ref\":\"v1.0\",\"cron\":\"*/5 * * * *\","
		       "\"active\":false}"));
	ck_status(r, 201);
	ck_jstr(r, "cron_timezone", "UTC");
	ck_assert(!jbool(r->json, "active"));
	long long five = epoch(jstr(r->json, "next_run_at"));
	ck_assert_int_eq(five % 300, 0);
	ck_assert_int_le(five - time(NULL), 300);
	/* show, with a pipeline and variables */
	long long pl = sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, status,"
			       " pipeline_schedule_id) VALUES (%lld, 'master', '%040d', 'success',"
			       " %lld) RETURNING id",
			       f.id, 1, id);
	ck_code(R(api("POST", one(f.id, id, "/variables"), f.owner, "key=A&value=1")), 201);
	r = R(api("GET", one(f.id, id, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, DETAILS_FIELDS);
	json_object *last = jget(r->json, "last_pipeline");
	ck_assert_int_eq(jint(last, "id"), pl);
	ck_assert_str_eq(jstr(last, "status"), "success");
	ck_assert_str_eq(jstr(last, "ref"), "master");
	ck_assert_uint_eq(strlen(jstr(last, "sha")), 40);
	ck_assert_str_eq(json_object_to_json_string(jget(r->json, "variables")),
			 "[ { \"key\": \"A\", \"value\": \"1\" } ]");
	/* by the project's path */
	ck_code(R(api("GET", S(fmt("/projects/%s/pipeline_schedules/%lld", S(enc(f.path)), id)),
		      f.owner, NULL)),
		200);
}
END_TEST

START_TEST(test_schedules_list)
{
	fx f;
	project(&f, "private");
	long long a = add(f.id, f.owner, "description=a&ref=master&cron=0%201%20*%20*%20*");
	long long b = add(f.id, f.owner,
			  "description=b&ref=master&cron=0%201%20*%20*%20*"
			  "&active=false");
	long long c = add(f.id, f.owner, "description=c&ref=master&cron=0%201%20*%20*%20*");
	resp *r = R(api("GET", spath(f.id, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_uint_eq(json_object_array_length(r->json), 3);
	long long want[] = {c, b, a}; /* newest first */
	for (int i = 0; i < 3; i++) {
		json_object *e = json_object_array_get_idx(r->json, i);
		ck_fields(e, SCHEDULE_FIELDS);
		ck_assert_int_eq(jint(e, "id"), want[i]);
	}
	ck_pages(r, spath(f.id, ""), "", 3, 20, 1);
	r = R(api("GET", spath(f.id, "?scope=active"), f.owner, NULL));
	ck_assert_uint_eq(json_object_array_length(r->json), 2);
	ck_pages(r, spath(f.id, ""), "scope=active", 2, 20, 1);
	r = R(api("GET", spath(f.id, "?scope=inactive"), f.owner, NULL));
	ck_assert_uint_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), b);
	ck_body(R(api("GET", spath(f.id, "?scope=all"), f.owner, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	/* pages */
	for (int page = 1; page <= 2; page++) {
		r = R(api("GET", spath(f.id, S(fmt("?per_page=2&page=%d", page))), f.owner, NULL));
		ck_status(r, 200);
		ck_assert_uint_eq(json_object_array_length(r->json), page == 1 ? 2 : 1);
		ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"),
				 page == 1 ? c : a);
		ck_pages(r, spath(f.id, ""), "", 3, 2, page);
	}
}
END_TEST

START_TEST(test_schedules_errors)
{
	fx f;
	project(&f, "private");
	char *p = spath(f.id, "");
	ck_body(R(api("POST", p, f.owner, "ref=master&cron=*%20*%20*%20*%20*")), 400,
		"{\"message\":\"400 (Bad request) \\\"description\\\" not given\"}");
	ck_body(R(api("POST", p, f.owner, "description=d&cron=*%20*%20*%20*%20*")), 400,
		"{\"message\":\"400 (Bad request) \\\"ref\\\" not given\"}");
	ck_body(R(api("POST", p, f.owner, "description=d&ref=master")), 400,
		"{\"message\":\"400 (Bad request) \\\"cron\\\" not given\"}");
	ck_body(R(api("POST", p, f.owner,
		      "description=d&ref=master&cron=*%20*%20*%20*%20*"
		      "&active=maybe")),
		400, "{\"error\":\"active is invalid\"}");
	ck_body(R(api("POST", p, f.owner, "description=d&ref=master&cron=bad")), 400,
		"{\"message\":{\"cron\":[\" is invalid syntax\"]}}");
	ck_body(R(api("POST", p, f.owner, "description=d&ref=master&cron=61%20*%20*%20*%20*")), 400,
		"{\"message\":{\"cron\":[\" is invalid syntax\"]}}");
	ck_body(R(api("POST", p, f.owner,
		      "description=d&ref=master&cron=*%20*%20*%20*%20*"
		      "&cron_timezone=Mars%2FOlympus")),
		400,
		"{\"message\":{\"cron\":[\" is invalid syntax\"],"
		"\"cron_timezone\":[\" is invalid syntax\"]}}");
	ck_body(R(api("POST", p, f.owner,
		      "description=d&ref=master&cron=*%20*%20*%20*%20*"
		      "&cron_timezone=..%2F..%2Fetc%2Fpasswd")),
		400,
		"{\"message\":{\"cron\":[\" is invalid syntax\"],"
		"\"cron_timezone\":[\" is invalid syntax\"]}}");
	ck_body(R(api("POST", p, f.owner, "description=&ref=&cron=*%20*%20*%20*%20*")), 400,
		"{\"message\":{\"ref\":[\"can't be blank\"],"
		"\"description\":[\"can't be blank\"]}}");
	ck_body(R(api("POST", p, f.owner, "description=d&ref=m&cron=&cron_timezone=")), 400,
		"{\"message\":{\"cron\":[\" is invalid syntax\",\"can't be blank\"],"
		"\"cron_timezone\":[\" is invalid syntax\",\"can't be blank\"]}}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipeline_schedules WHERE project_id ="
				 " %lld",
				 f.id),
			 0);
	/* updates are validated as the whole record */
	long long id = add(f.id, f.owner, "description=d&ref=master&cron=0%201%20*%20*%20*");
	ck_body(R(api("PUT", one(f.id, id, ""), f.owner, "cron=x")), 400,
		"{\"message\":{\"cron\":[\" is invalid syntax\"]}}");
	ck_body(R(api("PUT", one(f.id, id, ""), f.owner, "cron_timezone=Nowhere")), 400,
		"{\"message\":{\"cron\":[\" is invalid syntax\"],"
		"\"cron_timezone\":[\" is invalid syntax\"]}}");
	ck_body(R(api("PUT", one(f.id, id, ""), f.owner, "description=")), 400,
		"{\"message\":{\"description\":[\"can't be blank\"]}}");
	ck_body(R(api("PUT", one(f.id, id, ""), f.owner, "active=x")), 400,
		"{\"error\":\"active is invalid\"}");
	resp *r = R(api("GET", one(f.id, id, ""), f.owner, NULL));
	ck_jstr(r, "cron", "0 1 * * *");
	ck_jstr(r, "description", "d");
	/* ids and what is not there */
	ck_body(R(api("GET", spath(f.id, "/abc"), f.owner, NULL)), 400,
		"{\"error\":\"pipeline_schedule_id is invalid\"}");
	ck_body(R(api("PUT", spath(f.id, "/abc"), f.owner, "ref=x")), 400,
		"{\"error\":\"pipeline_schedule_id is invalid\"}");
	const char *nf = "{\"message\":\"404 PipelineSchedule Not Found\"}";
	ck_body(R(api("GET", one(f.id, 999999999, ""), f.owner, NULL)), 404, nf);
	ck_body(R(api("PUT", one(f.id, 999999999, ""), f.owner, "ref=x")), 404, nf);
	ck_body(R(api("DELETE", one(f.id, 999999999, ""), f.owner, NULL)), 404, nf);
	ck_body(R(api("POST", one(f.id, 999999999, "/take_ownership"), f.owner, NULL)), 404, nf);
	ck_body(R(api("POST", one(f.id, 999999999, "/variables"), f.owner, "key=A&value=1")), 404,
		nf);
	fx g;
	project(&g, "private");
	ck_body(R(api("GET", one(g.id, id, ""), g.owner, NULL)), 404, nf);
	ck_code(R(api("GET", p, NULL, NULL)), 401);
	ck_code(R(api("POST", p, NULL, "description=d&ref=master&cron=*%20*%20*%20*%20*")), 401);
}
END_TEST

/* A schedule's ref is a branch or tag name: every name none may have is invalid, on
 * create and on update, and nothing is stored. */
START_TEST(test_schedules_bad_ref_names)
{
	fx f;
	project(&f, "private");
	char *p = spath(f.id, "");
	long long id = add(f.id, f.owner, "description=d&ref=master&cron=0%201%20*%20*%20*");
	for (const char *const *n = bad_ref_names; *n; n++) {
		const char *e = S(enc(*n));
		ck_body(R(api("POST", p, f.owner,
			      S(fmt("description=d&ref=%s&cron=*%%20*%%20*%%20*%%20*", e)))),
			400, "{\"message\":{\"ref\":[\"is invalid\"]}}");
		ck_body(R(api("PUT", one(f.id, id, ""), f.owner, S(fmt("ref=%s", e)))), 400,
			"{\"message\":{\"ref\":[\"is invalid\"]}}");
	}
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipeline_schedules WHERE project_id ="
				 " %lld",
				 f.id),
			 1);
	ck_jstr(R(api("GET", one(f.id, id, ""), f.owner, NULL)), "ref", "master");
}
END_TEST

START_TEST(test_schedules_update)
{
	fx f;
	project(&f, "private");
	long long id = add(f.id, f.owner, "description=d&ref=master&cron=0%201%20*%20*%20*");
	free(sql_value("UPDATE ci_pipeline_schedules SET next_run_at = now() - interval '1 year',"
		       " updated_at = now() - interval '1 day' WHERE id = %lld",
		       id));
	resp *r = R(api("PUT", one(f.id, id, ""), f.owner,
			"description=New&ref=v2&cron=30%2023%20*%20*%20*"
			"&cron_timezone=America%2FNew_York&active=false"));
	ck_status(r, 200);
	ck_fields(r->json, DETAILS_FIELDS);
	ck_jstr(r, "description", "New");
	ck_jstr(r, "ref", "v2");
	ck_jstr(r, "cron", "30 23 * * *");
	ck_jstr(r, "cron_timezone", "America/New_York");
	ck_assert(!jbool(r->json, "active"));
	const char *next = jstr(r->json, "next_run_at");
	ck_assert_int_eq(sql_int("SELECT (to_char('%s'::timestamptz AT TIME ZONE"
				 " 'America/New_York', 'HH24:MI') = '23:30' AND '%s'::timestamptz"
				 " > now())::int",
				 next, next),
			 1);
	ck_assert_int_eq(sql_int("SELECT (updated_at > now() - interval '1 hour')::int FROM"
				 " ci_pipeline_schedules WHERE id = %lld",
				 id),
			 1);
	/* any save reschedules: a past next_run_at is set again by an update of the
	 * description alone */
	free(sql_value("UPDATE ci_pipeline_schedules SET next_run_at = now() - interval '1 year'"
		       " WHERE id = %lld",
		       id));
	r = R(api("PUT", one(f.id, id, ""), f.owner, "description=Again&active=true"));
	ck_status(r, 200);
	ck_assert(jbool(r->json, "active"));
	ck_assert_str_eq(jstr(r->json, "next_run_at"), next);
	/* delete: the removed schedule, with its variables gone */
	ck_code(R(api("POST", one(f.id, id, "/variables"), f.owner, "key=A&value=1")), 201);
	r = R(api("DELETE", one(f.id, id, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, DETAILS_FIELDS);
	ck_assert_int_eq(jint(r->json, "id"), id);
	ck_jstr(r, "description", "Again");
	ck_code(R(api("GET", one(f.id, id, ""), f.owner, NULL)), 404);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipeline_schedule_variables WHERE"
				 " pipeline_schedule_id = %lld",
				 id),
			 0);
}
END_TEST

START_TEST(test_schedules_variables)
{
	fx f;
	project(&f, "private");
	long long id = add(f.id, f.owner, "description=d&ref=master&cron=0%201%20*%20*%20*");
	char *vp = one(f.id, id, "/variables");
	ck_body(R(api("POST", vp, f.owner, "key=TOKEN&value=s%20e")), 201,
		"{\"key\":\"TOKEN\",\"value\":\"s e\"}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipeline_schedule_variables WHERE"
				 " pipeline_schedule_id = %lld AND value_sealed NOT LIKE '%%s e%%'",
				 id),
			 1);
	ck_body(R(api("POST", vp, f.owner, "key=TOKEN&value=2")), 400,
		"{\"message\":{\"key\":[\"has already been taken\"]}}");
	ck_body(R(api("POST", vp, f.owner, "key=a.b&value=2")), 400,
		"{\"message\":{\"key\":[\"can contain only letters, digits and '_'.\"]}}");
	ck_body(R(api("POST", vp, f.owner, "value=2")), 400,
		"{\"message\":\"400 (Bad request) \\\"key\\\" not given\"}");
	ck_body(R(api("POST", vp, f.owner, "key=B")), 400,
		"{\"message\":\"400 (Bad request) \\\"value\\\" not given\"}");
	ck_body(R(api("PUT", one(f.id, id, "/variables/TOKEN"), f.owner, "value=new")), 200,
		"{\"key\":\"TOKEN\",\"value\":\"new\"}");
	ck_body(R(api("PUT", one(f.id, id, "/variables/TOKEN"), f.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"value\\\" not given\"}");
	ck_body(R(api("PUT", one(f.id, id, "/variables/NONE"), f.owner, "value=new")), 404,
		"{\"message\":\"404 Variable Not Found\"}");
	resp *r = R(api("GET", one(f.id, id, ""), f.owner, NULL));
	ck_assert_str_eq(json_object_to_json_string(jget(r->json, "variables")),
			 "[ { \"key\": \"TOKEN\", \"value\": \"new\" } ]");
	ck_body(R(api("DELETE", one(f.id, id, "/variables/TOKEN"), f.owner, NULL)), 202,
		"{\"key\":\"TOKEN\",\"value\":\"new\"}");
	ck_body(R(api("DELETE", one(f.id, id, "/variables/TOKEN"), f.owner, NULL)), 404,
		"{\"message\":\"404 Variable Not Found\"}");
	r = R(api("GET", one(f.id, id, ""), f.owner, NULL));
	ck_assert_uint_eq(json_object_array_length(jget(r->json, "variables")), 0);
}
END_TEST

/* What a caller may do with someone else's schedule sid: read (list and show), change
 * (update, variables, take_ownership, delete). Statuses expected. */
static void ck_access(long long pid, long long sid, const char *tok, long read, long change)
{
	ck_code(R(api("GET", spath(pid, ""), tok, NULL)), read);
	ck_code(R(api("GET", one(pid, sid, ""), tok, NULL)), read);
	ck_code(R(api("PUT", one(pid, sid, ""), tok, "description=theirs")), change);
	resp *r = R(api("POST", one(pid, sid, "/variables"), tok, "key=THEIRS&value=1"));
	ck_code(r, change == 200 ? 201 : change);
	ck_code(R(api("PUT", one(pid, sid, "/variables/THEIRS"), tok, "value=2")),
		change == 200   ? 200
		: change == 403 ? 403
				: change);
	ck_code(R(api("DELETE", one(pid, sid, "/variables/THEIRS"), tok, NULL)),
		change == 200 ? 202 : change);
}

START_TEST(test_schedules_access)
{
	fx f;
	project(&f, "private");
	long long sid = add(f.id, f.owner, "description=d&ref=master&cron=0%201%20*%20*%20*");
	const char *form = "description=m&ref=master&cron=0%201%20*%20*%20*";
	/* guests: nothing; reporters read; developers create, and change only their own */
	char *guest = member(f.id, 10, NULL);
	ck_access(f.id, sid, guest, 403, 403);
	ck_code(R(api("POST", spath(f.id, ""), guest, form)), 403);
	char *rep = member(f.id, 20, NULL);
	ck_access(f.id, sid, rep, 200, 403);
	ck_code(R(api("POST", spath(f.id, ""), rep, form)), 403);
	long long did;
	char *dev = member(f.id, 30, &did);
	ck_access(f.id, sid, dev, 200, 403);
	ck_code(R(api("POST", one(f.id, sid, "/take_ownership"), dev, NULL)), 403);
	ck_code(R(api("DELETE", one(f.id, sid, ""), dev, NULL)), 403);
	long long mine = add(f.id, dev, form);
	ck_access(f.id, mine, dev, 200, 200);
	/* masters change anyone's and take them over */
	long long mid;
	char *master = member(f.id, 40, &mid);
	ck_access(f.id, sid, master, 200, 200);
	resp *r = R(api("POST", one(f.id, mine, "/take_ownership"), master, NULL));
	ck_status(r, 201);
	ck_fields(r->json, DETAILS_FIELDS);
	ck_assert_int_eq(jint(jget(r->json, "owner"), "id"), mid);
	/* the developer no longer owns it */
	ck_code(R(api("PUT", one(f.id, mine, ""), dev, "description=x")), 403);
	long long aid;
	char *admin = S(make_admin("sch_adm", &aid));
	ck_access(f.id, sid, admin, 200, 200);
	ck_code(R(api("POST", one(f.id, sid, "/take_ownership"), admin, NULL)), 201);
	/* the owner of the project */
	ck_access(f.id, sid, f.owner, 200, 200);
	ck_code(R(api("DELETE", one(f.id, mine, ""), master, NULL)), 200);
	/* a non-member does not see a private project; sees a public one but may not read */
	ck_access(f.id, sid, member(f.id, 0, NULL), 404, 404);
	fx p;
	project(&p, "public");
	long long psid = add(p.id, p.owner, form);
	ck_access(p.id, psid, member(p.id, 0, NULL), 403, 403);
	/* refusals changed nothing */
	r = R(api("GET", one(p.id, psid, ""), p.owner, NULL));
	ck_jstr(r, "description", "m");
	ck_assert_uint_eq(json_object_array_length(jget(r->json, "variables")), 0);
	/* none of it while the project's jobs are off */
	ck_code(R(api("PUT", S(fmt("/projects/%lld", f.id)), f.owner, "jobs_enabled=false")), 200);
	ck_access(f.id, sid, f.owner, 403, 403);
	ck_code(R(api("POST", spath(f.id, ""), f.owner, form)), 403);
	ck_code(R(api("POST", one(f.id, sid, "/take_ownership"), f.owner, NULL)), 403);
	ck_code(R(api("DELETE", one(f.id, sid, ""), f.owner, NULL)), 403);
}
END_TEST

/* Commits a .gitlab-ci.yml with one job to master of project pid as token. */
static void ci_file(long long pid, const char *token)
{
	resp *r = R(api_json("POST", S(fmt("/projects/%lld/repository/commits", pid)), token,
			     "{\"branch\":\"master\",\"commit_message\":\"ci\",\"actions\":"
			     "[{\"action\":\"create\",\"file_path\":\".gitlab-ci.yml\","
			     "\"content\":\"test:\\n  script: echo hi\\n\"}]}"));
	ck_status(r, 201);
}

/* Waits (at most 30 s) until the SQL (a count) answers at least n. */
static bool wait_count(long long n, const char *sql)
{
	for (int i = 0; i < 300; i++) {
		if (sql_int("%s", sql) >= n)
			return true;
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return false;
}

START_TEST(test_schedules_fire)
{
	fx f;
	project(&f, "private");
	ci_file(f.id, f.owner);
	long long id = add(f.id, f.owner, "description=d&ref=master&cron=0%200%201%201%20*");
	ck_code(R(api("POST", one(f.id, id, "/variables"), f.owner, "key=SCHED_VAR&value=v%201")),
		201);
	long long idle = add(f.id, f.owner,
			     "description=i&ref=master&cron=0%200%201%201%20*"
			     "&active=false");
	/* due now: the background process of one of the two instances fires it, once */
	free(sql_value("UPDATE ci_pipeline_schedules SET next_run_at = now() - interval '1 minute'"
		       " WHERE id IN (%lld, %lld)",
		       id, idle));
	char *count =
		S(fmt("SELECT count(*) FROM ci_pipelines WHERE pipeline_schedule_id = %lld", id));
	ck_assert_msg(wait_count(1, count), "the due schedule made no pipeline");
	ck_assert(wait_count(1, S(fmt("SELECT count(*) FROM ci_pipeline_schedules WHERE id = %lld"
				      " AND next_run_at > now()",
				      id))));
	struct timespec ts = {3, 0};
	nanosleep(&ts, NULL);
	ck_assert_int_eq(sql_int("%s", count), 1);
	long long pl = sql_int("SELECT id FROM ci_pipelines WHERE pipeline_schedule_id = %lld", id);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipelines WHERE id = %lld AND source ="
				 " 'schedule' AND ref = 'master' AND user_id = %lld AND"
				 " variables @> '[{\"key\":\"SCHED_VAR\",\"value\":\"v 1\"}]'",
				 pl, f.owner_id),
			 1);
	ck_assert_int_gt(
		sql_int("SELECT count(*) FROM commit_statuses WHERE pipeline_id = %lld", pl), 0);
	/* the next run: the next January 1st, 00:00 UTC */
	ck_assert_int_eq(sql_int("SELECT (next_run_at = date_trunc('year', now()"
				 " AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 year')::int"
				 " FROM ci_pipeline_schedules WHERE id = %lld",
				 id),
			 1);
	resp *r = R(api("GET", one(f.id, id, ""), f.owner, NULL));
	ck_assert_int_eq(jint(jget(r->json, "last_pipeline"), "id"), pl);
	/* an inactive schedule is not fired */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipelines WHERE pipeline_schedule_id ="
				 " %lld",
				 idle),
			 0);
}
END_TEST

START_TEST(test_schedules_fire_owner_without_rights)
{
	fx f;
	project(&f, "private");
	ci_file(f.id, f.owner);
	long long did;
	char *dev = member(f.id, 30, &did);
	long long id = add(f.id, dev, "description=d&ref=master&cron=0%200%201%201%20*");
	/* the owner is no longer a member: the schedule is passed over, and set for its
	 * next run */
	free(sql_value("DELETE FROM members WHERE source_type = 'Project' AND source_id = %lld"
		       " AND user_id = %lld",
		       f.id, did));
	free(sql_value("UPDATE ci_pipeline_schedules SET next_run_at = now() - interval '1 minute'"
		       " WHERE id = %lld",
		       id));
	ck_assert(wait_count(1, S(fmt("SELECT count(*) FROM ci_pipeline_schedules WHERE id = %lld"
				      " AND next_run_at > now()",
				      id))));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipelines WHERE pipeline_schedule_id ="
				 " %lld",
				 id),
			 0);
	/* taken over by the project's owner, it runs */
	ck_code(R(api("POST", one(f.id, id, "/take_ownership"), f.owner, NULL)), 201);
	free(sql_value("UPDATE ci_pipeline_schedules SET next_run_at = now() - interval '1 minute'"
		       " WHERE id = %lld",
		       id));
	ck_assert(wait_count(1, S(fmt("SELECT count(*) FROM ci_pipelines WHERE"
				      " pipeline_schedule_id = %lld AND user_id = %lld",
				      id, f.owner_id))));
}
END_TEST

Suite *suite_schedules(void)
{
	Suite *s = suite_create("schedules");
	TCase *tc = tcase_create("schedules");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_schedules_create_and_show);
	tcase_add_test(tc, test_schedules_list);
	tcase_add_test(tc, test_schedules_errors);
	tcase_add_test(tc, test_schedules_bad_ref_names);
	tcase_add_test(tc, test_schedules_update);
	tcase_add_test(tc, test_schedules_variables);
	tcase_add_test(tc, test_schedules_access);
	tcase_add_test(tc, test_schedules_fire);
	tcase_add_test(tc, test_schedules_fire_owner_without_rights);
	suite_add_tcase(s, tc);
	return s;
}
