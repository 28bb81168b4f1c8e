/* API suite: pipeline triggers (spec 4.3a; GitLab 10's lib/api/triggers.rb): list, show,
 * create, update, take_ownership, delete; the token in full to its owner only, stored
 * as a digest and sealed; who may (masters and up, admins); pagination; the invocation
 * by token (POST /projects/:id/trigger/pipeline) with variables, making a pipeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const TRIGGER_FIELDS[] = {"id",         "token",      "description",
					     "created_at", "updated_at", "deleted_at",
					     "last_used",  "owner",      NULL};
static const char *const USER_FIELDS[] = {"id",         "name",    "username", "state",
					  "avatar_url", "web_url", NULL};

typedef struct {
	long long id;
	char *owner;
	long long owner_id;
	char *owner_name;
	char *path;
} fx;

static void project(fx *f, const char *visibility)
{
	f->owner = S(make_user("trg_own", &f->owner_id, &f->owner_name));
	S(f->owner_name);
	f->id = api_project(f->owner, visibility, &f->path);
	S(f->path);
}

static char *member(long long pid, int level, long long *id)
{
	long long uid;
	char *token = S(make_user("trg_m", &uid, NULL));
	if (level)
		fixture_member("Project", pid, uid, level);
	if (id)
		*id = uid;
	return token;
}

static char *tpath(long long pid, const char *suffix)
{
	return S(fmt("/projects/%lld/triggers%s", pid, suffix));
}

static char *one(long long pid, long long tid, const char *suffix)
{
	return S(fmt("/projects/%lld/triggers/%lld%s", pid, tid, suffix));
}

/* A trigger made by token: its id, and its token in *out unless NULL (kept). */
static long long add(long long pid, const char *token, const char *description, char **out)
{
	resp *r = R(api("POST", tpath(pid, ""), token, S(fmt("description=%s", description))));
	ck_status(r, 201);
	if (out)
		*out = S(strdup(jstr(r->json, "token")));
	return jint(r->json, "id");
}

START_TEST(test_triggers_crud)
{
	fx f;
	project(&f, "private");
	resp *r = R(api("POST", tpath(f.id, ""), f.owner, "description=Deploy%20it"));
	ck_status(r, 201);
	ck_fields(r->json, TRIGGER_FIELDS);
	long long id = jint(r->json, "id");
	const char *token = S(strdup(jstr(r->json, "token")));
	ck_assert_uint_eq(strlen(token), 20);
	ck_jstr(r, "description", "Deploy it");
	ck_assert(jnull(r->json, "deleted_at"));
	ck_assert(jnull(r->json, "last_used"));
	const char *t = jstr(r->json, "created_at");
	ck_assert_msg(t && strlen(t) == 24 && t[23] == 'Z', "created_at %s", t ? t : "null");
	json_object *owner = jget(r->json, "owner");
	ck_fields(owner, USER_FIELDS);
	ck_assert_int_eq(jint(owner, "id"), f.owner_id);
	ck_assert_str_eq(jstr(owner, "username"), f.owner_name);
	/* stored as its digest and sealed, never in clear */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_triggers WHERE id = %lld AND token_digest"
				 " = encode(sha256('%s'::bytea), 'hex') AND token_sealed NOT LIKE"
				 " '%%%s%%'",
				 id, token, token),
			 1);
	/* show and list */
	r = R(api("GET", one(f.id, id, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, TRIGGER_FIELDS);
	ck_jstr(r, "token", token);
	long long id2 = add(f.id, f.owner, "second", NULL);
	r = R(api("GET", tpath(f.id, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_uint_eq(json_object_array_length(r->json), 2);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), id);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 1), "id"), id2);
	ck_pages(r, tpath(f.id, ""), "", 2, 20, 1);
	/* update */
	r = R(api("PUT", one(f.id, id, ""), f.owner, "description=Renamed"));
	ck_status(r, 200);
	ck_jstr(r, "description", "Renamed");
	ck_jstr(r, "token", token);
	r = R(api("PUT", one(f.id, id, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_jstr(r, "description", "Renamed");
	/* delete: gone from the API, its token kept out of use */
	r = R(api("DELETE", one(f.id, id, ""), f.owner, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_body(R(api("GET", one(f.id, id, ""), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("PUT", one(f.id, id, ""), f.owner, "description=x")), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("POST", one(f.id, id, "/take_ownership"), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("DELETE", one(f.id, id, ""), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	r = R(api("GET", tpath(f.id, ""), f.owner, NULL));
	ck_assert_uint_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_triggers WHERE id = %lld"
				 " AND deleted_at IS NOT NULL",
				 id),
			 1);
	/* not in another project */
	fx g;
	project(&g, "private");
	ck_body(R(api("GET", one(g.id, id2, ""), g.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
}
END_TEST

START_TEST(test_triggers_errors)
{
	fx f;
	project(&f, "private");
	ck_body(R(api("POST", tpath(f.id, ""), f.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"description\\\" not given\"}");
	ck_body(R(api("GET", tpath(f.id, "/abc"), f.owner, NULL)), 400,
		"{\"error\":\"trigger_id is invalid\"}");
	ck_body(R(api("PUT", tpath(f.id, "/abc"), f.owner, "description=x")), 400,
		"{\"error\":\"trigger_id is invalid\"}");
	ck_body(R(api("DELETE", tpath(f.id, "/abc"), f.owner, NULL)), 400,
		"{\"error\":\"trigger_id is invalid\"}");
	ck_body(R(api("POST", tpath(f.id, "/abc/take_ownership"), f.owner, NULL)), 400,
		"{\"error\":\"trigger_id is invalid\"}");
	ck_body(R(api("GET", one(f.id, 999999999, ""), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_code(R(api("GET", tpath(f.id, ""), NULL, NULL)), 401);
	ck_code(R(api("POST", tpath(f.id, ""), NULL, "description=x")), 401);
	ck_body(R(api("GET", "/projects/999999999/triggers", f.owner, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_triggers WHERE project_id = %lld", f.id),
			 0);
}
END_TEST

/* Every route as a caller on trigger tid: the status each answers. */
static void ck_access(long long pid, long long tid, const char *tok, long want)
{
	ck_code(R(api("GET", tpath(pid, ""), tok, NULL)), want);
	ck_code(R(api("GET", one(pid, tid, ""), tok, NULL)), want);
	ck_code(R(api("PUT", one(pid, tid, ""), tok, "description=by%20them")), want);
	resp *r = R(api("POST", tpath(pid, ""), tok, "description=theirs"));
	ck_code(r, want == 200 ? 201 : want);
	if (r->status == 201)
		ck_code(R(api("DELETE", one(pid, jint(r->json, "id"), ""), tok, NULL)), 204);
}

START_TEST(test_triggers_access)
{
	fx f;
	project(&f, "private");
	long long tid = add(f.id, f.owner, "t", NULL);
	ck_access(f.id, tid, member(f.id, 10, NULL), 403);
	ck_access(f.id, tid, member(f.id, 20, NULL), 403);
	ck_access(f.id, tid, member(f.id, 30, NULL), 403);
	ck_access(f.id, tid, member(f.id, 40, NULL), 200);
	ck_access(f.id, tid, f.owner, 200);
	long long aid;
	ck_access(f.id, tid, S(make_admin("trg_adm", &aid)), 200);
	ck_access(f.id, tid, member(f.id, 0, NULL), 404);
	fx p;
	project(&p, "public");
	long long ptid = add(p.id, p.owner, "t", NULL);
	ck_access(p.id, ptid, member(p.id, 0, NULL), 403);
	ck_code(R(api("POST", one(p.id, ptid, "/take_ownership"), member(p.id, 30, NULL), NULL)),
		403);
	/* none while the project's jobs are off */
	ck_code(R(api("PUT", S(fmt("/projects/%lld", f.id)), f.owner, "jobs_enabled=false")), 200);
	ck_access(f.id, tid, f.owner, 403);
	ck_code(R(api("POST", one(f.id, tid, "/take_ownership"), f.owner, NULL)), 403);
	ck_code(R(api("DELETE", one(f.id, tid, ""), f.owner, NULL)), 403);
}
END_TEST

START_TEST(test_triggers_token_and_ownership)
{
	fx f;
	project(&f, "private");
	char *token;
	long long tid = add(f.id, f.owner, "t", &token);
	long long mid;
	char *master = member(f.id, 40, &mid);
	/* another master sees the first four characters only */
	resp *r = R(api("GET", one(f.id, tid, ""), master, NULL));
	ck_status(r, 200);
	ck_jstr(r, "token", S(strndup(token, 4)));
	r = R(api("GET", tpath(f.id, ""), master, NULL));
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "token"),
			 S(strndup(token, 4)));
	/* taking it over: now theirs, in full to them, short to the former owner */
	r = R(api("POST", one(f.id, tid, "/take_ownership"), master, NULL));
	ck_status(r, 200);
	ck_fields(r->json, TRIGGER_FIELDS);
	ck_jstr(r, "token", token);
	ck_assert_int_eq(jint(jget(r->json, "owner"), "id"), mid);
	r = R(api("GET", one(f.id, tid, ""), f.owner, NULL));
	ck_jstr(r, "token", S(strndup(token, 4)));
	/* a trigger whose owner is gone shows its token to every master */
	free(sql_value("UPDATE ci_triggers SET owner_id = NULL WHERE id = %lld", tid));
	r = R(api("GET", one(f.id, tid, ""), f.owner, NULL));
	ck_jstr(r, "token", token);
	ck_assert(jnull(r->json, "owner"));
}
END_TEST

START_TEST(test_triggers_pagination)
{
	fx f;
	project(&f, "private");
	long long ids[5];
	for (int i = 0; i < 5; i++)
		ids[i] = add(f.id, f.owner, S(fmt("t%d", i)), NULL);
	char *path = tpath(f.id, "");
	for (int page = 1; page <= 3; page++) {
		resp *r = R(api("GET", S(fmt("%s?per_page=2&page=%d", path, page)), f.owner, NULL));
		ck_status(r, 200);
		size_t n = json_object_array_length(r->json);
		ck_assert_uint_eq(n, page < 3 ? 2 : 1);
		for (size_t k = 0; k < n; k++)
			ck_assert_int_eq(jint(json_object_array_get_idx(r->json, k), "id"),
					 ids[(page - 1) * 2 + k]);
		ck_pages(r, path, "", 5, 2, page);
	}
}
END_TEST

/* ---- invocation ---- */

static const char *const PIPELINE_FIELDS[] = {
	"id",           "sha",      "ref",        "status",     "before_sha", "tag",
	"yaml_errors",  "user",     "created_at", "updated_at", "started_at", "finished_at",
	"committed_at", "duration", "coverage",   NULL};

/* Commits a .gitlab-ci.yml with one job to master of project pid as token. */
static void ci_file(long long pid, const char *token)
{
	resp *r = R(api_json("POST", S(fmt("/projects/%lld/repository/commits", pid)), token,
			     "{\"branch\":\"master\",\"commit_message\":\"ci\",\"actions\":"
			     "[{\"action\":\"create\",\"file_path\":\".gitlab-ci.yml\","
			     "\"content\":\"test:\\n  script: echo $A\\n\"}]}"));
	ck_status(r, 201);
}

/* POST /projects/<ref>/trigger/pipeline with a form and no credential. */
static resp *invoke(const char *project, const char *form)
{
	return R(api("POST", S(fmt("/projects/%s/trigger/pipeline", project)), NULL, form));
}

static long long trigger_pipelines(long long pid)
{
	return sql_int("SELECT count(*) FROM ci_pipelines WHERE project_id = %lld AND source ="
		       " 'trigger'",
		       pid);
}

START_TEST(test_triggers_invoke)
{
	fx f;
	project(&f, "private");
	ci_file(f.id, f.owner);
	char *token;
	long long tid = add(f.id, f.owner, "t", &token);
	char *pid = S(fmt("%lld", f.id));
	resp *r = invoke(pid,
			 S(fmt("token=%s&ref=master&variables[A]=1&variables[B_2]=x%%20y", token)));
	ck_status(r, 201);
	ck_fields(r->json, PIPELINE_FIELDS);
	long long pl = jint(r->json, "id");
	ck_jstr(r, "ref", "master");
	ck_assert_uint_eq(strlen(jstr(r->json, "sha")), 40);
	ck_assert_int_eq(jint(jget(r->json, "user"), "id"), f.owner_id);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipelines p JOIN ci_trigger_requests q"
				 " ON q.id = p.trigger_request_id WHERE p.id = %lld AND p.source ="
				 " 'trigger' AND p.user_id = %lld AND q.trigger_id = %lld AND"
				 " q.variables = '{\"A\":\"1\",\"B_2\":\"x y\"}' AND p.variables @>"
				 " '[{\"key\":\"A\",\"value\":\"1\"},{\"key\":\"B_2\",\"value\":"
				 "\"x y\"}]'",
				 pl, f.owner_id, tid),
			 1);
	ck_assert_int_gt(
		sql_int("SELECT count(*) FROM commit_statuses WHERE pipeline_id = %lld", pl), 0);
	r = R(api("GET", one(f.id, tid, ""), f.owner, NULL));
	ck_assert(!jnull(r->json, "last_used"));
	/* a JSON body, the project's path, a credential that is not looked at */
	const char *hdr[] = {"PRIVATE-TOKEN: not-a-token", "Content-Type: application/json", NULL};
	r = R(api_h(
		"POST", S(fmt("/projects/%s/trigger/pipeline", S(enc(f.path)))), hdr,
		S(fmt("{\"token\":\"%s\",\"ref\":\"master\",\"variables\":{\"K\":\"v\"}}", token)),
		"application/json"));
	ck_status(r, 201);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipelines WHERE id = %lld AND variables"
				 " = '[{\"key\":\"K\",\"value\":\"v\"}]'",
				 jint(r->json, "id")),
			 1);
	/* the ref in the path (the webhook form) and no variables */
	r = R(api("POST",
		  S(fmt("/projects/%lld/ref/master/trigger/pipeline?token=%s", f.id, token)), NULL,
		  NULL));
	ck_status(r, 201);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_pipelines WHERE id = %lld AND variables"
				 " IS NULL",
				 jint(r->json, "id")),
			 1);
	ck_assert_int_eq(trigger_pipelines(f.id), 3);
}
END_TEST

/* Every name no branch or tag may have is a ref that is not there (GitLab's words),
 * even when git itself was made to hold such a branch: no pipeline, no trigger request;
 * in the path (the webhook form) too. */
START_TEST(test_triggers_invoke_bad_ref_names)
{
	fx f;
	project(&f, "private");
	ci_file(f.id, f.owner);
	char *token;
	add(f.id, f.owner, "t", &token);
	put_bad_branches(f.id);
	char *pid = S(fmt("%lld", f.id));
	for (const char *const *n = bad_ref_names; *n; n++) {
		const char *e = S(enc(*n));
		ck_body(invoke(pid, S(fmt("token=%s&ref=%s", token, e))), 400,
			"{\"message\":{\"base\":[\"Reference not found\"]}}");
		resp *r = R(api(
			"POST",
			S(fmt("/projects/%lld/ref/%s/trigger/pipeline?token=%s", f.id, e, token)),
			NULL, NULL));
		ck_assert_msg(r->status == 400 || r->status == 404, "path %s: %ld %s", *n,
			      r->status, r->body);
	}
	ck_assert_int_eq(trigger_pipelines(f.id), 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_trigger_requests q JOIN ci_triggers t"
				 " ON t.id = q.trigger_id WHERE t.project_id = %lld",
				 f.id),
			 0);
}
END_TEST

START_TEST(test_triggers_invoke_errors)
{
	fx f;
	project(&f, "private");
	ci_file(f.id, f.owner);
	char *token;
	long long tid = add(f.id, f.owner, "t", &token);
	char *pid = S(fmt("%lld", f.id));
	ck_body(invoke(pid, S(fmt("token=%s", token))), 400,
		"{\"message\":\"400 (Bad request) \\\"ref\\\" not given\"}");
	ck_body(invoke(pid, "ref=master"), 400,
		"{\"message\":\"400 (Bad request) \\\"token\\\" not given\"}");
	const char *nf = "{\"message\":\"404 Not Found\"}";
	ck_body(invoke(pid, "token=nope&ref=master"), 404, nf);
	ck_body(invoke("999999999", S(fmt("token=%s&ref=master", token))), 404, nf);
	/* a token of another project's trigger */
	fx g;
	project(&g, "private");
	ck_body(invoke(S(fmt("%lld", g.id)), S(fmt("token=%s&ref=master", token))), 404, nf);
	/* variables */
	ck_body(R(api_json("POST", S(fmt("/projects/%lld/trigger/pipeline", f.id)), NULL,
			   S(fmt("{\"token\":\"%s\",\"ref\":\"master\",\"variables\":{\"A\":1}}",
				 token)))),
		400, "{\"message\":\"variables needs to be a map of key-valued strings\"}");
	ck_body(invoke(pid, S(fmt("token=%s&ref=master&variables=abc", token))), 400,
		"{\"error\":\"variables is invalid\"}");
	ck_body(invoke(pid, S(fmt("token=%s&ref=master&variables[a-b]=1", token))), 400,
		"{\"message\":{\"variables\":[\"is invalid\"]}}");
	char *many = S(malloc(20 * 1001 + 1));
	many[0] = '\0';
	for (int i = 0, n = 0; i <= 1000; i++)
		n += sprintf(many + n, "\"V%d\":\"x\",", i);
	many[strlen(many) - 1] = '\0';
	ck_body(R(api_json("POST", S(fmt("/projects/%lld/trigger/pipeline", f.id)), NULL,
			   S(fmt("{\"token\":\"%s\",\"ref\":\"master\",\"variables\":{%s}}", token,
				 many)))),
		400, "{\"error\":\"variables has too many values\"}");
	/* no pipeline to make: GitLab's reasons */
	ck_body(invoke(pid, S(fmt("token=%s&ref=nowhere", token))), 400,
		"{\"message\":{\"base\":[\"Reference not found\"]}}");
	/* a project whose master has no .gitlab-ci.yml */
	fx e;
	project(&e, "private");
	ck_code(R(api_json("POST", S(fmt("/projects/%lld/repository/commits", e.id)), e.owner,
			   "{\"branch\":\"master\",\"commit_message\":\"r\",\"actions\":"
			   "[{\"action\":\"create\",\"file_path\":\"README\","
			   "\"content\":\"x\"}]}")),
		201);
	char *etoken;
	add(e.id, e.owner, "t", &etoken);
	ck_body(invoke(S(fmt("%lld", e.id)), S(fmt("token=%s&ref=master", etoken))), 400,
		"{\"message\":{\"base\":[\"Missing .gitlab-ci.yml file\"]}}");
	/* a master's trigger stops working for them once they are no longer a member */
	long long mid;
	char *master = member(f.id, 40, &mid);
	char *mtoken;
	add(f.id, master, "m", &mtoken);
	free(sql_value("DELETE FROM members WHERE source_type = 'Project' AND source_id = %lld"
		       " AND user_id = %lld",
		       f.id, mid));
	ck_body(invoke(pid, S(fmt("token=%s&ref=master", mtoken))), 400,
		"{\"message\":{\"base\":[\"Insufficient permissions to create a new pipeline\"]}}");
	/* a deleted trigger's token runs nothing */
	ck_code(R(api("DELETE", one(f.id, tid, ""), f.owner, NULL)), 204);
	ck_body(invoke(pid, S(fmt("token=%s&ref=master", token))), 404, nf);
	/* nothing was made by the refusals */
	ck_assert_int_eq(trigger_pipelines(f.id), 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_trigger_requests q JOIN ci_triggers t"
				 " ON t.id = q.trigger_id WHERE t.project_id = %lld",
				 f.id),
			 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_triggers WHERE project_id = %lld AND"
				 " last_used IS NOT NULL",
				 f.id),
			 0);
}
END_TEST

Suite *suite_triggers(void)
{
	Suite *s = suite_create("triggers");
	TCase *tc = tcase_create("triggers");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_triggers_crud);
	tcase_add_test(tc, test_triggers_errors);
	tcase_add_test(tc, test_triggers_access);
	tcase_add_test(tc, test_triggers_token_and_ownership);
	tcase_add_test(tc, test_triggers_pagination);
	tcase_add_test(tc, test_triggers_invoke);
	tcase_add_test(tc, test_triggers_invoke_errors);
	tcase_add_test(tc, test_triggers_invoke_bad_ref_names);
	suite_add_tcase(s, tc);
	return s;
}
