/* API suite: environments (spec 4.6, GitLab 10's lib/api/environments.rb): GET/POST
 * /projects/:id/environments, PUT/DELETE /projects/:id/environments/:environment_id and
 * POST .../stop; the model's rules (name, slug, external_url), who may do what, and the
 * deployments that a job with an environment records when it succeeds (the trigger of
 * sql/0027_environments.sql, driven by changing jobs' status in SQL, and end to end: a
 * pushed .gitlab-ci.yml whose jobs a runner runs through the runner protocol). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

static const char *const ENV_FIELDS[] = {"id", "name", "slug", "external_url", NULL};
#define SHA "0123456789abcdef0123456789abcdef01234567"

/* ---- fixtures ---- */

typedef struct {
	long long id;
	char *owner;
	long long owner_id;
	char *path;
} fx_project;

static void project(fx_project *p, const char *visibility)
{
	p->owner = S(make_user("env_own", &p->owner_id, NULL));
	p->id = api_project(p->owner, visibility, &p->path);
	S(p->path);
}

static char *member(long long pid, int level)
{
	long long uid;
	char *token = S(make_user("env_m", &uid, NULL));
	if (level)
		fixture_member("Project", pid, uid, level);
	return token;
}

static char *epath(long long pid, const char *suffix)
{
	return S(fmt("/projects/%lld/environments%s", pid, suffix));
}

static char *one(long long pid, long long eid, const char *suffix)
{
	return S(fmt("/projects/%lld/environments/%lld%s", pid, eid, suffix));
}

/* Creates environment name (form-encoded) with url (NULL: none) as token; its id. */
static long long add(long long pid, const char *token, const char *name, const char *url)
{
	resp *r = R(
		api("POST", epath(pid, ""), token,
		    url ? S(fmt("name=%s&external_url=%s", name, url)) : S(fmt("name=%s", name))));
	ck_status(r, 201);
	return jint(r->json, "id");
}

static void ck_matches(const char *s, const char *pattern)
{
	regex_t re;
	ck_assert_int_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	int rc = regexec(&re, s, 0, NULL, 0);
	regfree(&re);
	ck_assert_msg(rc == 0, "\"%s\" does not match %s", s, pattern);
}

static void ck_ids(resp *r, const long long *want, size_t n)
{
	ck_status(r, 200);
	ck_assert_msg(json_object_array_length(r->json) == n, "%zu ids expected: %s", n, r->body);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(jint(json_object_array_get_idx(r->json, i), "id"), want[i]);
}

static long long pipeline(long long pid, long long uid)
{
	return sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, status, user_id)"
		       " VALUES (%lld, 'master', '" SHA "', 'running', %lld) RETURNING id",
		       pid, uid);
}

/* A job of pipeline pl named name in stage_idx, status and `when` as given, with
 * environment env (NULL: none) and the options' environment JSON opts (NULL: none). */
static long long job(long long pid, long long pl, long long uid, const char *name, int stage,
		     const char *status, const char *when, const char *env, const char *opts)
{
	long long id = sql_int(
		"INSERT INTO commit_statuses (project_id, sha, ref, name, stage, status, author_id,"
		" pipeline_id, stage_idx, \"when\")"
		" VALUES (%lld, '" SHA "', 'master', '%s', 'deploy',"
		" '%s', %lld, %lld, %d, '%s') RETURNING id",
		pid, name, status, uid, pl, stage, when);
	free(sql_value("INSERT INTO ci_builds (id, project_id, pipeline_id, environment, options)"
		       " VALUES (%lld, %lld, %lld, %s, %s)",
		       id, pid, pl, env ? S(fmt("'%s'", env)) : "NULL",
		       opts ? S(fmt("jsonb_build_object('environment', '%s'::jsonb)", opts))
			    : "'{}'"));
	return id;
}

/* Column col of environment id, as text (caller does not free). */
static const char *env_column(const char *col, long long id)
{
	return S(sql_value("SELECT %s FROM environments WHERE id = %lld", col, id));
}

static long long count_deployments(long long env_id)
{
	return sql_int("SELECT count(*) FROM deployments WHERE environment_id = %lld", env_id);
}

static void set_status(long long job_id, const char *status)
{
	free(sql_value("UPDATE commit_statuses SET status = '%s' WHERE id = %lld", status, job_id));
}

/* ---- tests ---- */

START_TEST(test_environments_create)
{
	fx_project p;
	project(&p, "private");
	resp *r = R(api("POST", epath(p.id, ""), p.owner,
			"name=production&external_url=https://example.com/app"));
	ck_status(r, 201);
	ck_fields(r->json, ENV_FIELDS);
	ck_jstr(r, "name", "production");
	ck_jstr(r, "slug", "production");
	ck_jstr(r, "external_url", "https://example.com/app");
	long long id = jint(r->json, "id");
	ck_assert_str_eq(S(sql_value("SELECT state FROM environments WHERE id = %lld", id)),
			 "available");
	/* slugs: lower case, dashes, env- before a non-letter, a random suffix when changed */
	r = R(api("POST", epath(p.id, ""), p.owner, "name=Review/Feature%201"));
	ck_status(r, 201);
	ck_matches(jstr(r->json, "slug"), "^review-feature-1-[a-z0-9]{6}$");
	ck_assert(jnull(r->json, "external_url"));
	r = R(api("POST", epath(p.id, ""), p.owner, "name=1st"));
	ck_matches(jstr(r->json, "slug"), "^env-1st-[a-z0-9]{6}$");
	r = R(api("POST", epath(p.id, ""), p.owner,
		  "name=abcdefghijklmnopqrstuvwxyz&external_url="));
	ck_status(r, 201);
	ck_matches(jstr(r->json, "slug"), "^abcdefghijklmnopq-[a-z0-9]{6}$");
	ck_assert(jnull(r->json, "external_url"));
	r = R(api("POST", epath(p.id, ""), p.owner, "name=staging--x-"));
	ck_matches(jstr(r->json, "slug"), "^staging-x-[a-z0-9]{6}$");
	r = R(api_json("POST", epath(p.id, ""), p.owner,
		       "{\"name\":\"${CI} x.y_z\",\"external_url\":\"ssh://host:22/x\"}"));
	ck_status(r, 201);
	ck_matches(jstr(r->json, "slug"), "^env-ci-x-y-z-[a-z0-9]{6}$");
	/* errors: nothing made */
	long long before =
		sql_int("SELECT count(*) FROM environments WHERE project_id = %lld", p.id);
	ck_body(R(api("POST", epath(p.id, ""), p.owner, "external_url=https://x.org")), 400,
		"{\"message\":\"400 (Bad request) \\\"name\\\" not given\"}");
	ck_body(R(api("POST", epath(p.id, ""), p.owner, "name=production")), 400,
		"{\"message\":{\"name\":[\"has already been taken\"]}}");
	ck_body(R(api("POST", epath(p.id, ""), p.owner, "name=a*b")), 400,
		"{\"message\":{\"name\":[\"can contain only letters, digits, '-', '_', '/', '$', "
		"'{', '}', '.' and spaces\"]}}");
	ck_body(R(api("POST", epath(p.id, ""), p.owner, "name=")), 400,
		"{\"message\":{\"name\":[\"can't be blank\",\"can contain only letters, digits, "
		"'-', '_', '/', '$', '{', '}', '.' and spaces\"]}}");
	ck_body(R(api("POST", epath(p.id, ""), p.owner, "name=x&external_url=notaurl")), 400,
		"{\"message\":{\"external_url\":[\"must be a valid URL\"]}}");
	ck_body(R(api("POST", epath(p.id, ""), p.owner, "name=x&external_url=ftp://x.org")), 400,
		"{\"message\":{\"external_url\":[\"must be a valid URL\"]}}");
	ck_body(R(api("POST", epath(p.id, ""), p.owner,
		      "name=x&external_url=https://example.com/app")),
		400, "{\"message\":{\"external_url\":[\"has already been taken\"]}}");
	char *long_name = S(calloc(1, 257));
	memset(long_name, 'a', 256);
	ck_body(R(api("POST", epath(p.id, ""), p.owner, S(fmt("name=%s", long_name)))), 400,
		"{\"message\":{\"name\":[\"is too long (maximum is 255 characters)\"]}}");
	ck_body(R(api("POST", epath(p.id, ""), p.owner, "name=y&slug=y")), 400,
		"{\"error\":\"slug is automatically generated and cannot be changed\"}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM environments WHERE project_id = %lld", p.id),
			 before);
	/* the same name in another project */
	fx_project q;
	project(&q, "private");
	add(q.id, q.owner, "production", "https://example.com/app");
	/* who may: developers and up */
	ck_code(R(api("POST", epath(p.id, ""), member(p.id, 10), "name=g")), 403);
	ck_code(R(api("POST", epath(p.id, ""), member(p.id, 20), "name=g")), 403);
	ck_code(R(api("POST", epath(p.id, ""), member(p.id, 30), "name=dev")), 201);
	ck_code(R(api("POST", epath(p.id, ""), member(p.id, 40), "name=master")), 201);
	ck_code(R(api("POST", epath(p.id, ""), admin_token(), "name=admin")), 201);
	ck_body(R(api("POST", epath(p.id, ""), member(p.id, 0), "name=out")), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_code(R(api("POST", epath(p.id, ""), NULL, "name=anon")), 401);
	/* not in an archived project */
	free(sql_value("UPDATE projects SET archived = true WHERE id = %lld", p.id));
	ck_code(R(api("POST", epath(p.id, ""), p.owner, "name=archived")), 403);
}
END_TEST

START_TEST(test_environments_list)
{
	fx_project p;
	project(&p, "private");
	long long a = add(p.id, p.owner, "production", "https://a.example.com");
	long long b = add(p.id, p.owner, "staging", NULL);
	long long c = add(p.id, p.owner, "review", NULL);
	resp *r = R(api("GET", epath(p.id, ""), p.owner, NULL));
	ck_ids(r, (long long[]){a, b, c}, 3);
	ck_fields(json_object_array_get_idx(r->json, 0), ENV_FIELDS);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "external_url"),
			 "https://a.example.com");
	r = R(api("GET", epath(p.id, "?per_page=2"), p.owner, NULL));
	ck_ids(r, (long long[]){a, b}, 2);
	ck_pages(r, S(fmt("/projects/%lld/environments", p.id)), "", 3, 2, 1);
	r = R(api("GET", epath(p.id, "?per_page=2&page=2"), p.owner, NULL));
	ck_ids(r, (long long[]){c}, 1);
	ck_pages(r, S(fmt("/projects/%lld/environments", p.id)), "", 3, 2, 2);
	ck_body(R(api("GET", epath(p.id, "?page=x"), p.owner, NULL)), 400,
		"{\"error\":\"page is invalid\"}");
	/* reporters and up */
	ck_code(R(api("GET", epath(p.id, ""), member(p.id, 10), NULL)), 403);
	ck_ids(R(api("GET", epath(p.id, ""), member(p.id, 20), NULL)), (long long[]){a, b, c}, 3);
	ck_ids(R(api("GET", epath(p.id, ""), admin_token(), NULL)), (long long[]){a, b, c}, 3);
	ck_code(R(api("GET", epath(p.id, ""), member(p.id, 0), NULL)), 404);
	ck_code(R(api("GET", epath(p.id, ""), NULL, NULL)), 401);
	/* an empty list, by path */
	fx_project q;
	project(&q, "public");
	r = R(api("GET", S(fmt("/projects/%s/environments", S(enc(q.path)))), q.owner, NULL));
	ck_ids(r, NULL, 0);
	ck_pages(r, S(fmt("/projects/%s/environments", S(enc(q.path)))), "", 0, 20, 1);
	ck_code(R(api("GET", epath(q.id, ""), member(q.id, 0), NULL)), 403);
}
END_TEST

START_TEST(test_environments_update)
{
	fx_project p, q;
	project(&p, "private");
	project(&q, "private");
	long long a = add(p.id, p.owner, "production", "https://a.example.com");
	add(p.id, p.owner, "staging", "https://s.example.com");
	long long other = add(q.id, q.owner, "elsewhere", NULL);
	resp *r = R(api("PUT", one(p.id, a, ""), p.owner,
			"name=Prod%20Env&external_url=https://b.example.com"));
	ck_status(r, 200);
	ck_fields(r->json, ENV_FIELDS);
	ck_jstr(r, "name", "Prod Env");
	ck_jstr(r, "slug", "production"); /* never changes */
	ck_jstr(r, "external_url", "https://b.example.com");
	r = R(api("PUT", one(p.id, a, ""), p.owner, "external_url="));
	ck_status(r, 200);
	ck_assert(jnull(r->json, "external_url"));
	ck_jstr(r, "name", "Prod Env");
	/* nothing given: unchanged; its own name again is no duplicate */
	r = R(api("PUT", one(p.id, a, ""), p.owner, NULL));
	ck_status(r, 200);
	ck_jstr(r, "name", "Prod Env");
	ck_code(R(api("PUT", one(p.id, a, ""), p.owner, "name=Prod%20Env")), 200);
	/* errors: nothing changed */
	ck_body(R(api("PUT", one(p.id, a, ""), p.owner, "name=staging")), 400,
		"{\"message\":{\"name\":[\"has already been taken\"]}}");
	ck_body(R(api("PUT", one(p.id, a, ""), p.owner, "external_url=https://s.example.com")), 400,
		"{\"message\":{\"external_url\":[\"has already been taken\"]}}");
	ck_body(R(api("PUT", one(p.id, a, ""), p.owner, "name=a%3Fb&external_url=x")), 400,
		"{\"message\":{\"name\":[\"can contain only letters, digits, '-', '_', '/', '$', "
		"'{', '}', '.' and spaces\"],\"external_url\":[\"must be a valid URL\"]}}");
	ck_body(R(api("PUT", one(p.id, a, ""), p.owner, "slug=x")), 400,
		"{\"error\":\"slug is automatically generated and cannot be changed\"}");
	ck_assert_str_eq(S(sql_value("SELECT name || coalesce(external_url, '-') FROM environments"
				     " WHERE id = %lld",
				     a)),
			 "Prod Env-");
	ck_body(R(api("PUT", one(p.id, other, ""), p.owner, "name=x")), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("PUT", epath(p.id, "/abc"), p.owner, "name=x")), 400,
		"{\"error\":\"environment_id is invalid\"}");
	/* who may */
	ck_code(R(api("PUT", one(p.id, a, ""), member(p.id, 20), "name=r")), 403);
	ck_code(R(api("PUT", one(p.id, a, ""), member(p.id, 30), "name=d")), 403);
	ck_code(R(api("PUT", one(p.id, a, ""), member(p.id, 40), "name=d")), 200);
	ck_code(R(api("PUT", one(p.id, a, ""), member(p.id, 0), "name=o")), 404);
	ck_code(R(api("PUT", one(p.id, a, ""), NULL, "name=o")), 401);
}
END_TEST

START_TEST(test_environments_delete)
{
	fx_project p, q;
	project(&p, "private");
	project(&q, "private");
	long long a = add(p.id, p.owner, "production", NULL);
	long long b = add(p.id, p.owner, "staging", NULL);
	long long other = add(q.id, q.owner, "x", NULL);
	ck_code(R(api("DELETE", one(p.id, a, ""), member(p.id, 20), NULL)), 403);
	ck_code(R(api("DELETE", one(p.id, a, ""), member(p.id, 0), NULL)), 404);
	ck_code(R(api("DELETE", one(p.id, a, ""), NULL, NULL)), 401);
	ck_code(R(api("DELETE", one(p.id, other, ""), p.owner, NULL)), 404);
	ck_body(R(api("DELETE", epath(p.id, "/x1"), p.owner, NULL)), 400,
		"{\"error\":\"environment_id is invalid\"}");
	resp *r = R(api("DELETE", one(p.id, a, ""), p.owner, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM environments WHERE id = %lld", a), 0);
	ck_body(R(api("DELETE", one(p.id, a, ""), p.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	/* masters may, developers not (update_environment: masters in 10.x) */
	ck_code(R(api("DELETE", one(p.id, b, ""), member(p.id, 30), NULL)), 403);
	ck_code(R(api("DELETE", one(p.id, b, ""), member(p.id, 40), NULL)), 204);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM environments WHERE id = %lld", other), 1);
}
END_TEST

/* Every role on each change (GitLab 10.8's lib/api/environments.rb and ProjectPolicy):
 * create_environment (POST) and create_deployment (stop) are developers', and
 * update_environment (PUT, DELETE) masters'; the owner of a personal project and admins
 * count as owners. A refusal is 403 for a member who sees the project, before the
 * environment is looked up, and changes nothing. */
START_TEST(test_environments_roles)
{
	fx_project p;
	project(&p, "private");
	static const struct {
		int level;
		long put, del, stop, post;
	} rows[] = {
		{10, 403, 403, 403, 403},
		{20, 403, 403, 403, 403},
		{30, 403, 403, 200, 201},
		{40, 200, 204, 200, 201},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		char *t = member(p.id, rows[i].level);
		long long e = add(p.id, p.owner, S(fmt("env%zu", i)), NULL);
		ck_code(R(api("PUT", one(p.id, e, ""), t, S(fmt("name=renamed%zu", i)))),
			rows[i].put);
		ck_assert_str_eq(env_column("name", e), rows[i].put == 200 ? S(fmt("renamed%zu", i))
									   : S(fmt("env%zu", i)));
		ck_code(R(api("POST", one(p.id, e, "/stop"), t, NULL)), rows[i].stop);
		ck_assert_str_eq(env_column("state", e),
				 rows[i].stop == 200 ? "stopped" : "available");
		ck_code(R(api("DELETE", one(p.id, e, ""), t, NULL)), rows[i].del);
		ck_assert_int_eq(sql_int("SELECT count(*) FROM environments WHERE id = %lld", e),
				 rows[i].del == 204 ? 0 : 1);
		ck_code(R(api("POST", epath(p.id, ""), t, S(fmt("name=made%zu", i)))),
			rows[i].post);
		/* refused before the lookup: no 404 for an environment that is not there */
		if (rows[i].put == 403)
			ck_body(R(api("PUT", one(p.id, 999999999, ""), t, "name=x")), 403,
				"{\"message\":\"403 Forbidden\"}");
	}
	/* the owner of the personal project and an admin */
	long long e = add(p.id, p.owner, "mine", NULL);
	ck_code(R(api("PUT", one(p.id, e, ""), p.owner, "name=mine2")), 200);
	ck_code(R(api("PUT", one(p.id, e, ""), admin_token(), "name=mine3")), 200);
	ck_code(R(api("POST", one(p.id, e, "/stop"), admin_token(), NULL)), 200);
	ck_code(R(api("DELETE", one(p.id, e, ""), p.owner, NULL)), 204);
}
END_TEST

START_TEST(test_environments_deployments)
{
	fx_project p;
	project(&p, "private");
	long long pl = pipeline(p.id, p.owner_id);
	const char *opts = "{\"name\": \"review/feature\", \"url\": "
			   "\"https://$CI_ENVIRONMENT_SLUG.example.com/"
			   "${CI_COMMIT_REF_NAME}%UNSET%\","
			   " \"on_stop\": \"stop_review\"}";
	long long deploy = job(p.id, pl, p.owner_id, "deploy_review", 0, "running", "on_success",
			       "review/feature", opts);
	long long stop = job(p.id, pl, p.owner_id, "stop_review", 1, "manual", "manual",
			     "review/feature",
			     "{\"name\": \"review/feature\", \"action\": \"stop\"}");
	long long plain = job(p.id, pl, p.owner_id, "test", 0, "running", "on_success", NULL, NULL);
	/* nothing until a job succeeds */
	set_status(deploy, "failed");
	set_status(plain, "success");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM environments WHERE project_id = %lld", p.id),
			 0);
	set_status(deploy, "running");
	set_status(deploy, "success");
	resp *r = R(api("GET", epath(p.id, ""), p.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	json_object *env = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(env, "name"), "review/feature");
	const char *slug = jstr(env, "slug");
	ck_matches(slug, "^review-feature-[a-z0-9]{6}$");
	ck_assert_str_eq(jstr(env, "external_url"), S(fmt("https://%s.example.com/master", slug)));
	long long eid = jint(env, "id");
	ck_assert_str_eq(S(sql_value("SELECT concat_ws(' ', iid, ref, sha, tag, user_id,"
				     " deployable_id, on_stop) FROM deployments"
				     " WHERE environment_id = %lld",
				     eid)),
			 S(fmt("1 master " SHA " f %lld %lld stop_review", p.owner_id, deploy)));
	/* a retried job's success: a second deployment, numbered on */
	long long again = job(p.id, pl, p.owner_id, "deploy_review", 0, "pending", "on_success",
			      "review/feature", opts);
	set_status(again, "success");
	ck_assert_str_eq(S(sql_value("SELECT string_agg(iid::text, ',' ORDER BY iid)"
				     " FROM deployments WHERE project_id = %lld",
				     p.id)),
			 "1,2");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM environments WHERE project_id = %lld", p.id),
			 1);
	/* an environment of the API is found by name, its url taken from the job */
	long long prod = add(p.id, p.owner, "production", NULL);
	long long pj = job(p.id, pl, p.owner_id, "deploy_prod", 0, "running", "on_success",
			   "production",
			   "{\"name\": \"production\", \"url\": \"https://prod.example.com\"}");
	set_status(pj, "success");
	ck_assert_str_eq(env_column("external_url", prod), "https://prod.example.com");
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM deployments WHERE environment_id = %lld", prod), 1);
	/* a name the model refuses makes nothing; a url that is none is not kept */
	long long bad = job(p.id, pl, p.owner_id, "bad", 0, "running", "on_success", "a*b",
			    "{\"name\": \"a*b\"}");
	set_status(bad, "success");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM environments WHERE project_id = %lld", p.id),
			 2);
	long long nourl = job(p.id, pl, p.owner_id, "deploy_prod", 0, "running", "on_success",
			      "production", "{\"name\": \"production\", \"url\": \"not a url\"}");
	set_status(nourl, "success");
	ck_assert_str_eq(env_column("external_url", prod), "https://prod.example.com");
	/* the API's stop plays the last deployment's on_stop job */
	r = R(api("POST", one(p.id, eid, "/stop"), p.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, ENV_FIELDS);
	ck_assert_int_eq(jint(r->json, "id"), eid);
	ck_assert_str_eq(S(sql_value("SELECT state FROM environments WHERE id = %lld", eid)),
			 "stopped");
	ck_assert_str_eq(S(sql_value("SELECT status FROM commit_statuses WHERE id = %lld", stop)),
			 "pending");
	/* the stop job succeeds: stopped, no deployment */
	long long deployments = count_deployments(eid);
	free(sql_value("UPDATE environments SET state = 'available' WHERE id = %lld", eid));
	set_status(stop, "success");
	ck_assert_str_eq(S(sql_value("SELECT state FROM environments WHERE id = %lld", eid)),
			 "stopped");
	ck_assert_int_eq(count_deployments(eid), deployments);
	/* a new deployment makes it available again */
	long long redeploy = job(p.id, pl, p.owner_id, "deploy_review", 0, "running", "on_success",
				 "review/feature", opts);
	set_status(redeploy, "success");
	ck_assert_str_eq(S(sql_value("SELECT state FROM environments WHERE id = %lld", eid)),
			 "available");
}
END_TEST

START_TEST(test_environments_stop)
{
	fx_project p;
	project(&p, "private");
	/* no deployment: stopped at once */
	long long a = add(p.id, p.owner, "production", "https://a.example.com");
	ck_code(R(api("POST", one(p.id, a, "/stop"), member(p.id, 20), NULL)), 403);
	ck_code(R(api("POST", one(p.id, a, "/stop"), member(p.id, 0), NULL)), 404);
	ck_code(R(api("POST", one(p.id, a, "/stop"), NULL, NULL)), 401);
	ck_assert_str_eq(S(sql_value("SELECT state FROM environments WHERE id = %lld", a)),
			 "available");
	resp *r = R(api("POST", one(p.id, a, "/stop"), member(p.id, 30), NULL));
	ck_status(r, 200);
	ck_fields(r->json, ENV_FIELDS);
	ck_jstr(r, "external_url", "https://a.example.com");
	ck_assert_str_eq(S(sql_value("SELECT state FROM environments WHERE id = %lld", a)),
			 "stopped");
	/* stopping a stopped one answers it unchanged */
	ck_code(R(api("POST", one(p.id, a, "/stop"), p.owner, NULL)), 200);
	ck_body(R(api("POST", one(p.id, 999999999, "/stop"), p.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("POST", epath(p.id, "/x/stop"), p.owner, NULL)), 400,
		"{\"error\":\"environment_id is invalid\"}");
	/* an on_stop job that already ran is retried: a new pending copy */
	long long pl = pipeline(p.id, p.owner_id);
	const char *opts = "{\"name\": \"staging\", \"on_stop\": \"halt\"}";
	long long d =
		job(p.id, pl, p.owner_id, "deploy", 0, "running", "on_success", "staging", opts);
	long long halt = job(p.id, pl, p.owner_id, "halt", 1, "manual", "manual", "staging",
			     "{\"name\": \"staging\", \"action\": \"stop\"}");
	set_status(d, "success");
	set_status(halt, "canceled");
	long long env = sql_int("SELECT id FROM environments WHERE project_id = %lld"
				" AND name = 'staging'",
				p.id);
	ck_code(R(api("POST", one(p.id, env, "/stop"), p.owner, NULL)), 200);
	ck_assert_str_eq(S(sql_value("SELECT retried FROM commit_statuses WHERE id = %lld", halt)),
			 "t");
	ck_assert_str_eq(S(sql_value("SELECT status FROM commit_statuses WHERE pipeline_id = %lld"
				     " AND name = 'halt' AND NOT retried",
				     pl)),
			 "pending");
}
END_TEST

/* ---- end to end: a pushed .gitlab-ci.yml, a runner, a deployment, a stop ---- */

/* The runner protocol as gitlab-runner speaks it: JSON bodies. */
static resp *runner_call(const char *method, const char *path, const char *json)
{
	char *url = S(fmt("%s/api/v4%s", api_url(), path));
	return R(http_request(method, url, NULL, json, strlen(json), "application/json"));
}

static const char *shared_registration_token(void)
{
	FILE *f = popen(S(fmt("'%s' runners-token", getenv("COLLABD_BIN"))), "r");
	ck_assert(f != NULL);
	char line[256] = "";
	ck_assert(fgets(line, sizeof(line), f) != NULL);
	ck_assert_int_eq(pclose(f), 0);
	line[strcspn(line, "\n")] = '\0';
	return S(strdup(line));
}

/* The job runner token takes (POST /jobs/request): its id, and its token in *job_token. */
static long long take_job(const char *token, const char *name, char **job_token)
{
	resp *r = runner_call("POST", "/jobs/request",
			      S(fmt("{\"token\":\"%s\",\"last_update\":\"\"}", token)));
	ck_status(r, 201);
	ck_assert_str_eq(jstr(jget(r->json, "job_info"), "name"), name);
	*job_token = S(strdup(jstr(r->json, "token")));
	return jint(r->json, "id");
}

static void finish_job(long long id, const char *job_token)
{
	ck_code(runner_call("PUT", S(fmt("/jobs/%lld", id)),
			    S(fmt("{\"token\":\"%s\",\"state\":\"success\"}", job_token))),
		200);
}

START_TEST(test_environments_end_to_end)
{
	fx_project p;
	project(&p, "private");
	char *tag = S(unique("env"));
	char *yml = S(fmt("stages: [deploy]\n"
			  "deploy_review:\n"
			  "  stage: deploy\n"
			  "  tags: [%s]\n"
			  "  script: [deploy]\n"
			  "  environment:\n"
			  "    name: review/$CI_COMMIT_REF_NAME\n"
			  "    url: https://$CI_ENVIRONMENT_SLUG.example.com\n"
			  "    on_stop: stop_review\n"
			  "stop_review:\n"
			  "  stage: deploy\n"
			  "  tags: [%s]\n"
			  "  script: [stop]\n"
			  "  when: manual\n"
			  "  environment:\n"
			  "    name: review/$CI_COMMIT_REF_NAME\n"
			  "    action: stop\n",
			  tag, tag));
	char *work = git_work_new();
	char *out = NULL;
	const char *host = api_url() + strlen("http://");
	int rc = git_sh(work, &out, "clone -q 'http://u:%s@%s/%s.git' w", p.owner, host, p.path);
	ck_assert_msg(rc == 0, "clone: %s", out);
	free(out);
	FILE *fy = fopen(S(fmt("%s/w/.gitlab-ci.yml", work)), "w");
	ck_assert(fy != NULL);
	fputs(yml, fy);
	fclose(fy);
	rc = git_sh(work, &out,
		    "-C w add .gitlab-ci.yml && git -C w commit -q -m ci &&"
		    " git -C w push -q origin master && git -C w rev-parse HEAD");
	ck_assert_msg(rc == 0, "push: %s", out);
	char *sha = S(strndup(out + strlen(out) - 41, 40));
	free(out);
	git_work_remove(work);
	/* the background process makes the pipeline */
	long long pl = 0;
	for (int i = 0; i < 200 && !pl; i++) {
		pl = sql_int("SELECT coalesce(min(id), 0) FROM ci_pipelines"
			     " WHERE project_id = %lld",
			     p.id);
		if (!pl)
			usleep(100000);
	}
	ck_assert_msg(pl, "no pipeline");
	/* a runner of the tag deploys */
	resp *r = runner_call("POST", "/runners",
			      S(fmt("{\"token\":\"%s\",\"tag_list\":\"%s\","
				    "\"run_untagged\":false}",
				    shared_registration_token(), tag)));
	ck_status(r, 201);
	char *runner = S(strdup(jstr(r->json, "token")));
	char *jt;
	long long deploy = take_job(runner, "deploy_review", &jt);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM environments WHERE project_id = %lld", p.id),
			 0);
	finish_job(deploy, jt);
	r = R(api("GET", epath(p.id, ""), p.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	json_object *env = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(env, "name"), "review/master");
	const char *slug = jstr(env, "slug");
	ck_matches(slug, "^review-master-[a-z0-9]{6}$");
	ck_assert_str_eq(jstr(env, "external_url"), S(fmt("https://%s.example.com", slug)));
	long long eid = jint(env, "id");
	ck_assert_str_eq(S(sql_value("SELECT concat_ws(' ', iid, ref, sha, user_id, deployable_id,"
				     " on_stop) FROM deployments WHERE environment_id = %lld",
				     eid)),
			 S(fmt("1 master %s %lld %lld stop_review", sha, p.owner_id, deploy)));
	/* stop: the manual stop_review job is played, the runner runs it */
	r = R(api("POST", one(p.id, eid, "/stop"), p.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(env_column("state", eid), "stopped");
	long long stop = take_job(runner, "stop_review", &jt);
	finish_job(stop, jt);
	ck_assert_str_eq(env_column("state", eid), "stopped");
	ck_assert_int_eq(count_deployments(eid), 1);
	ck_assert_str_eq(S(sql_value("SELECT status FROM ci_pipelines WHERE id = %lld", pl)),
			 "success");
}
END_TEST

Suite *suite_environments(void)
{
	Suite *s = suite_create("environments");
	TCase *tc = tcase_create("environments");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_environments_create);
	tcase_add_test(tc, test_environments_list);
	tcase_add_test(tc, test_environments_update);
	tcase_add_test(tc, test_environments_delete);
	tcase_add_test(tc, test_environments_roles);
	tcase_add_test(tc, test_environments_deployments);
	tcase_add_test(tc, test_environments_stop);
	tcase_add_test(tc, test_environments_end_to_end);
	suite_add_tcase(s, tc);
	return s;
}
