/* The runner protocol (src/api/runner.c) driven by a client that sends what
 * gitlab-runner 10 sends (network/gitlab.go): JSON bodies with the runner's info, the
 * JOB-TOKEN header, Content-Range on trace patches, multipart artifacts. Pipelines and
 * jobs are SQL fixtures (the rows of sql/0022_ci.sql) until pipeline creation exists.
 * Every runner registered with tags gets a tag of its own test, and its jobs that tag,
 * so that a shared runner of one test never takes another test's job. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"

#define RUNNER_INFO                                                                                \
	"{\"name\":\"gitlab-runner\",\"version\":\"10.0.0\",\"revision\":\"c7fe4d5c\","            \
	"\"platform\":\"linux\",\"architecture\":\"amd64\",\"executor\":\"shell\","                \
	"\"features\":{\"variables\":true,\"image\":false,\"services\":false,"                     \
	"\"artifacts\":true,\"cache\":true}}"

static const char *const UA[] = {
	"User-Agent: gitlab-runner 10.0.0 (10-0-stable; go1.8.3; linux/amd64)",
	"Accept: application/json", NULL};

/* POST/PUT/DELETE /api/v4<path> with a JSON body, as the runner sends it. */
static resp *runner_call(const char *method, const char *path, const char *json)
{
	char *url = fmt("%s/api/v4%s", api_url(), path);
	resp *r = R(http_request(method, url, UA, json, strlen(json), "application/json"));
	free(url);
	return r;
}

/* The shared registration token, through the command line. */
static char *shared_token(void)
{
	char *cmd = S(fmt("'%s' runners-token", getenv("COLLABD_BIN")));
	FILE *f = popen(cmd, "r");
	ck_assert(f != NULL);
	char line[256] = "";
	ck_assert(fgets(line, sizeof(line), f) != NULL);
	ck_assert_int_eq(pclose(f), 0);
	line[strcspn(line, "\n")] = '\0';
	ck_assert_int_eq(strlen(line), 20);
	return S(strdup(line));
}

/* A project's runners_token (GET /projects/:id as its owner). */
static char *project_token(long long project, const char *owner)
{
	resp *r = R(api("GET", S(fmt("/projects/%lld", project)), owner, NULL));
	ck_status(r, 200);
	ck_assert(jstr(r->json, "runners_token") != NULL);
	return S(strdup(jstr(r->json, "runners_token")));
}

/* Registers a runner with registration token reg; extra JSON members (",\"x\":1"): its
 * token, and its id in *id unless NULL. */
static char *register_runner(const char *reg, const char *extra, long long *id)
{
	const char *more = extra ? extra : "";
	resp *r = runner_call("POST", "/runners",
			      S(fmt("{\"info\":" RUNNER_INFO ",\"token\":\"%s\","
				    "\"description\":\"test runner\"%s}",
				    reg, more)));
	ck_status(r, 201);
	ck_assert(jint(r->json, "id") > 0);
	ck_assert_int_eq(strlen(jstr(r->json, "token")), 20);
	if (id)
		*id = jint(r->json, "id");
	return S(strdup(jstr(r->json, "token")));
}

/* POST /jobs/request as the runner with token. */
static resp *request_job(const char *token)
{
	return runner_call("POST", "/jobs/request",
			   S(fmt("{\"info\":" RUNNER_INFO ",\"token\":\"%s\","
				 "\"last_update\":\"\"}",
				 token)));
}

/* ---- fixtures: a project of a new owner, its pipeline and jobs in SQL ---- */

typedef struct {
	long long id;
	char *owner;
	long long owner_id;
	char *path;
} fx;

static void project(fx *f, const char *visibility)
{
	f->owner = S(make_user("run", &f->owner_id, NULL));
	f->id = api_project(f->owner, visibility, &f->path);
	S(f->path);
}

/* A pipeline of project f on ref at sha (status created). */
static long long pipeline(fx *f, const char *ref, bool protected)
{
	return sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, user_id, protected)"
		       " VALUES (%lld, '%s', repeat('a', 40), %lld, %s) RETURNING id",
		       f->id, ref, f->owner_id, protected ? "true" : "false");
}

/* A job of pipeline p in stage idx; tags a text[] literal; options JSON. */
static long long job(fx *f, long long p, int idx, const char *name, const char *tags,
		     const char *options, bool allow_failure)
{
	long long id = sql_int(
		"INSERT INTO commit_statuses (project_id, sha, ref, name, stage, status,"
		" pipeline_id, stage_idx, author_id, allow_failure)"
		" SELECT project_id, sha, ref, '%s',"
		" 'stage%d', 'created', id, %d, user_id, %s FROM ci_pipelines WHERE id = %lld"
		" RETURNING id",
		name, idx, idx, allow_failure ? "true" : "false", p);
	free(sql_value("INSERT INTO ci_builds (id, project_id, pipeline_id, tag_list, options,"
		       " protected, yaml_variables) SELECT %lld, project_id, id, '%s', '%s',"
		       " protected, '[{\"key\":\"YAML_VAR\",\"value\":\"y\",\"public\":true}]'"
		       " FROM ci_pipelines WHERE id = %lld",
		       id, tags, options ? options : "{\"script\":[\"make\"]}", p));
	return id;
}

static void process(long long p)
{
	free(sql_value("SELECT ci_process_pipeline(%lld)", p));
}

static char *status_of(long long job_id)
{
	return S(sql_value("SELECT status FROM commit_statuses WHERE id = %lld", job_id));
}

static char *pipeline_status(long long p)
{
	return S(sql_value("SELECT status FROM ci_pipelines WHERE id = %lld", p));
}

/* ---- registration ---- */

START_TEST(test_runner_register)
{
	fx f;
	project(&f, "private");
	/* the shared token: a shared runner, tags as the runner sends them */
	long long id;
	char *tok = register_runner(shared_token(),
				    ",\"tag_list\":\"docker, linux,docker\","
				    "\"run_untagged\":false,\"locked\":true",
				    &id);
	ck_assert_str_eq(S(sql_value("SELECT is_shared::text || ' ' || tag_list::text || ' ' ||"
				     " run_untagged::text || ' ' || locked::text || ' ' ||"
				     " coalesce(version, '') || ' ' || description"
				     " FROM ci_runners WHERE id = %lld",
				     id)),
			 "true {docker,linux} false true 10.0.0 test runner");
	/* the token is stored as a digest, and sealed */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_runners WHERE token_digest ="
				 " encode(sha256('%s'::bytea), 'hex') AND token_sealed <> '%s'",
				 tok, tok),
			 1);
	/* a project's runners token: a specific runner of that project */
	long long pid;
	register_runner(project_token(f.id, f.owner), NULL, &pid);
	ck_assert_str_eq(S(sql_value("SELECT is_shared::text || ' ' || (SELECT string_agg("
				     "project_id::text, ',') FROM ci_runner_projects WHERE"
				     " runner_id = %lld) FROM ci_runners WHERE id = %lld",
				     pid, pid)),
			 S(fmt("false %lld", f.id)));
	/* an unknown token, none, bad values */
	long long before = sql_int("SELECT count(*) FROM ci_runners");
	ck_body(runner_call("POST", "/runners", "{\"token\":\"nope\"}"), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(runner_call("POST", "/runners", "{\"description\":\"x\"}"), 400,
		"{\"message\":\"400 (Bad request) \\\"token\\\" not given\"}");
	char *reg = shared_token();
	ck_code(runner_call("POST", "/runners",
			    S(fmt("{\"token\":\"%s\",\"active\":\"maybe\"}", reg))),
		400);
	ck_code(runner_call("POST", "/runners",
			    S(fmt("{\"token\":\"%s\",\"run_untagged\":false}", reg))),
		400);
	ck_code(runner_call("POST", "/runners",
			    S(fmt("{\"token\":\"%s\",\"tag_list\":\"%0300d\"}", reg, 0))),
		400);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_runners"), before);
	/* a form body works too */
	char *url = S(fmt("%s/api/v4/runners", api_url()));
	char *form = S(fmt("token=%s&tag_list[]=a&tag_list[]=b", shared_token()));
	resp *r = R(http_request("POST", url, NULL, form, strlen(form),
				 "application/x-www-form-urlencoded"));
	ck_status(r, 201);
	ck_assert_str_eq(S(sql_value("SELECT tag_list::text FROM ci_runners WHERE id = %lld",
				     jint(r->json, "id"))),
			 "{a,b}");
	/* the command line answers the same token every time */
	ck_assert_str_eq(shared_token(), shared_token());
}
END_TEST

START_TEST(test_runner_verify_and_unregister)
{
	char *tok = register_runner(shared_token(), NULL, NULL);
	char *body = S(fmt("{\"token\":\"%s\"}", tok));
	ck_code(runner_call("POST", "/runners/verify", body), 200);
	ck_body(runner_call("POST", "/runners/verify", "{\"token\":\"bad\"}"), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(runner_call("POST", "/runners/verify", "{}"), 400);
	ck_code(runner_call("DELETE", "/runners", "{\"token\":\"bad\"}"), 403);
	ck_code(runner_call("DELETE", "/runners", "{}"), 400);
	resp *r = runner_call("DELETE", "/runners", body);
	ck_status(r, 204);
	ck_assert_int_eq(r->body_len, 0);
	ck_code(runner_call("POST", "/runners/verify", body), 403);
	ck_code(runner_call("DELETE", "/runners", body), 403);
	ck_code(request_job(tok), 403);
}
END_TEST

/* ---- the job request ---- */

START_TEST(test_runner_request_none)
{
	fx f;
	project(&f, "private");
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);
	resp *r = request_job(tok);
	ck_status(r, 204);
	ck_assert(resp_header(r, "X-GitLab-Last-Update") != NULL);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_runners WHERE token_digest ="
				 " encode(sha256('%s'::bytea), 'hex') AND contacted_at IS NOT NULL",
				 tok),
			 1);
	/* contacted_at is written at most once a minute: the poll stays a read */
#define BY_TOKEN " WHERE token_digest = encode(sha256('%s'::bytea), 'hex')"
	free(sql_value("UPDATE ci_runners SET contacted_at = '2020-01-01', version = 'old'" BY_TOKEN,
		       tok));
	ck_code(request_job(tok), 204);
	ck_assert_str_eq(S(sql_value("SELECT version || ' ' || (contacted_at > now() -"
				     " interval '1 minute')::text FROM ci_runners" BY_TOKEN,
				     tok)),
			 "10.0.0 true");
	free(sql_value("UPDATE ci_runners SET contacted_at = now() - interval '30 seconds',"
		       " version = 'old'" BY_TOKEN,
		       tok));
	ck_code(request_job(tok), 204);
	ck_assert_str_eq(S(sql_value("SELECT version FROM ci_runners" BY_TOKEN, tok)), "old");
#undef BY_TOKEN
	/* the value the runner sent comes back */
	r = runner_call("POST", "/jobs/request",
			S(fmt("{\"token\":\"%s\",\"last_update\":\"abc123\"}", tok)));
	ck_status(r, 204);
	ck_header(r, "X-GitLab-Last-Update", "abc123");
	ck_body(request_job("nope"), 403, "{\"message\":\"403 Forbidden\"}");
	ck_code(runner_call("POST", "/jobs/request", "{}"), 400);
	/* a paused runner gets nothing */
	long long p = pipeline(&f, "master", false);
	long long j = job(&f, p, 0, "build", "{}", NULL, false);
	process(p);
	free(sql_value("UPDATE ci_runners SET active = false WHERE token_digest ="
		       " encode(sha256('%s'::bytea), 'hex')",
		       tok));
	r = request_job(tok);
	ck_status(r, 204);
	/* GitLab 10: no_content! before the queue, no X-GitLab-Last-Update */
	ck_assert_ptr_null(resp_header(r, "X-GitLab-Last-Update"));
	ck_assert_str_eq(status_of(j), "pending");
	free(sql_value("UPDATE ci_runners SET active = true WHERE token_digest ="
		       " encode(sha256('%s'::bytea), 'hex')",
		       tok));
	ck_code(request_job(tok), 201);
	ck_assert_str_eq(status_of(j), "running");
}
END_TEST

START_TEST(test_runner_matching)
{
	fx f, other;
	project(&f, "private");
	project(&other, "private");
	char *tag = S(unique("t"));
	/* jobs: untagged, tagged with the test's tag, tagged with it and another */
	long long p = pipeline(&f, "master", false);
	long long untagged = job(&f, p, 0, "untagged", "{}", NULL, false);
	long long tagged = job(&f, p, 0, "tagged", S(fmt("{%s}", tag)), NULL, false);
	long long both = job(&f, p, 0, "both", S(fmt("{%s,extra}", tag)), NULL, false);
	process(p);
	/* a specific runner of another project takes none of them */
	char *foreign = register_runner(project_token(other.id, other.owner),
					S(fmt(",\"tag_list\":\"%s,extra\"", tag)), NULL);
	ck_code(request_job(foreign), 204);
	/* a shared runner with the tag, untagged jobs not allowed: the tagged job only */
	char *shared = register_runner(
		shared_token(), S(fmt(",\"tag_list\":\"%s\",\"run_untagged\":false", tag)), NULL);
	resp *r = request_job(shared);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), tagged);
	ck_code(request_job(shared), 204);
	/* projects that turn shared runners off get none */
	free(sql_value("UPDATE projects SET shared_runners_enabled = false WHERE id = %lld", f.id));
	char *shared2 = register_runner(
		shared_token(), S(fmt(",\"tag_list\":\"%s,extra\",\"run_untagged\":false", tag)),
		NULL);
	ck_code(request_job(shared2), 204);
	free(sql_value("UPDATE projects SET shared_runners_enabled = true WHERE id = %lld", f.id));
	r = request_job(shared2);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), both);
	/* a specific runner without tags runs the untagged job (locked to its project:
	 * that changes which projects it may serve, not which of their jobs) */
	char *mine = register_runner(project_token(f.id, f.owner), ",\"locked\":true", NULL);
	r = request_job(mine);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), untagged);
	/* a ref_protected runner takes only jobs of protected refs */
	long long p2 = pipeline(&f, "feature", false);
	long long unprot = job(&f, p2, 0, "u", "{}", NULL, false);
	long long p3 = pipeline(&f, "master", true);
	long long prot = job(&f, p3, 0, "p", "{}", NULL, false);
	process(p2);
	process(p3);
	long long rid;
	char *guard = register_runner(project_token(f.id, f.owner), NULL, &rid);
	free(sql_value("UPDATE ci_runners SET access_level = 'ref_protected' WHERE id = %lld",
		       rid));
	r = request_job(guard);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), prot);
	ck_code(request_job(guard), 204);
	ck_assert_str_eq(status_of(unprot), "pending");
	/* jobs turned off in the project: nothing */
	free(sql_value("UPDATE projects SET jobs_enabled = false WHERE id = %lld", f.id));
	ck_code(request_job(mine), 204);
	free(sql_value("UPDATE projects SET jobs_enabled = true WHERE id = %lld", f.id));
	r = request_job(mine);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), unprot);
}
END_TEST

START_TEST(test_runner_race)
{
	fx f;
	project(&f, "private");
	char *a = register_runner(project_token(f.id, f.owner), NULL, NULL);
	char *b = register_runner(project_token(f.id, f.owner), NULL, NULL);
	for (int round = 0; round < 3; round++) {
		long long p = pipeline(&f, "master", false);
		long long j = job(&f, p, 0, "one", "{}", NULL, false);
		process(p);
		/* eight requests at once, from two runners: one gets the job */
		int fds[8][2];
		pid_t kids[8];
		for (int i = 0; i < 8; i++) {
			ck_assert_int_eq(pipe(fds[i]), 0);
			kids[i] = fork();
			ck_assert(kids[i] >= 0);
			if (kids[i] == 0) {
				resp *r = request_job(i % 2 ? a : b);
				long long got = r->status == 201 ? jint(r->json, "id") : 0;
				if (r->status != 201 && r->status != 204)
					got = -r->status;
				ck_assert(write(fds[i][1], &got, sizeof(got)) == sizeof(got));
				_exit(0);
			}
			close(fds[i][1]);
		}
		int winners = 0;
		for (int i = 0; i < 8; i++) {
			long long got = -1;
			ck_assert(read(fds[i][0], &got, sizeof(got)) == sizeof(got));
			close(fds[i][0]);
			waitpid(kids[i], NULL, 0);
			ck_assert_msg(got == 0 || got == j, "request answered %lld", got);
			winners += got == j;
		}
		ck_assert_int_eq(winners, 1);
		ck_assert_str_eq(status_of(j), "running");
		/* the job was finished so the next round starts clean */
		free(sql_value("UPDATE commit_statuses SET status = 'canceled'"
			       " WHERE id = %lld",
			       j));
	}
}
END_TEST

/* The variable key of the payload's variables, NULL when absent; *public its flag. */
static const char *var(json_object *payload, const char *key, bool *public)
{
	json_object *vars = jget(payload, "variables");
	const char *found = NULL;
	for (size_t i = 0; vars && i < json_object_array_length(vars); i++) {
		json_object *v = json_object_array_get_idx(vars, i);
		if (strcmp(jstr(v, "key"), key) == 0) {
			found = jstr(v, "value");
			if (public)
				*public = jbool(v, "public");
		}
	}
	return found;
}

/* A variable key of project_id whose value is the project's runners token (sealed by
 * the server, as variable values are). */
static void secret_variable(long long project_id, const char *key, bool protected)
{
	free(sql_value("INSERT INTO ci_variables (project_id, key, value_sealed, protected)"
		       " SELECT id, '%s', runners_token_sealed, %s FROM projects WHERE id = %lld",
		       key, protected ? "true" : "false", project_id));
}

/* POST /projects/:id/protected_branches name (a name or a pattern), as the owner. */
static void protect_branch(fx *f, const char *name)
{
	ck_status(R(api("POST", S(fmt("/projects/%lld/protected_branches", f->id)), f->owner,
			S(fmt("name=%s", name)))),
		  201);
}

START_TEST(test_runner_payload)
{
	fx f;
	project(&f, "internal");
	/* a project variable, sealed with the instance key (one the server sealed: the
	 * project's runners token) */
	char *secret = project_token(f.id, f.owner);
	secret_variable(f.id, "SECRET", false);
	long long p = pipeline(&f, "feature/X_1", false);
	free(sql_value("UPDATE ci_pipelines SET variables = '[{\"key\":\"API_VAR\","
		       "\"value\":\"a\"}]' WHERE id = %lld",
		       p));
	long long first = job(&f, p, 0, "compile", "{}",
			      "{\"artifacts\":{\"paths\":[\"out/\"],\"expire_in\":\"1 week\"}}",
			      false);
	long long j = job(&f, p, 1, "rspec", "{}",
			  "{\"before_script\":[\"bundle\"],\"script\":[\"rspec\",\"echo ok\"],"
			  "\"after_script\":[\"cleanup\"],\"image\":\"ruby:2.4\","
			  "\"services\":[\"postgres:9.6\","
			  "{\"name\":\"redis\",\"alias\":\"cache\"}],"
			  "\"cache\":{\"key\":\"k\",\"paths\":[\"vendor/\"]}}",
			  false);
	process(p);
	/* the first stage ran and kept artifacts */
	free(sql_value("UPDATE commit_statuses SET status = 'success' WHERE id = %lld", first));
	free(sql_value("UPDATE ci_builds SET artifacts_file = 'artifacts.zip', artifacts_size = 7"
		       " WHERE id = %lld",
		       first));
	process(p);
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);
	resp *r = request_job(tok);
	ck_status(r, 201);
	json_object *o = r->json;
	static const char *const fields[] = {"id",          "token",        "allow_git_fetch",
					     "job_info",    "git_info",     "runner_info",
					     "variables",   "steps",        "image",
					     "services",    "artifacts",    "cache",
					     "credentials", "dependencies", NULL};
	ck_fields(o, fields);
	ck_assert_int_eq(jint(o, "id"), j);
	const char *job_tok = jstr(o, "token");
	ck_assert_int_eq(strlen(job_tok), 20);
	ck_assert(jbool(o, "allow_git_fetch"));
	ck_assert_str_eq(jstr(jget(o, "job_info"), "name"), "rspec");
	ck_assert_str_eq(jstr(jget(o, "job_info"), "stage"), "stage1");
	ck_assert_int_eq(jint(jget(o, "job_info"), "project_id"), f.id);
	json_object *git = jget(o, "git_info");
	ck_assert_msg(strstr(jstr(git, "repo_url"), S(fmt("gitlab-ci-token:%s@", job_tok))) &&
			      strstr(jstr(git, "repo_url"), S(fmt("/%s.git", f.path))),
		      "repo_url %s", jstr(git, "repo_url"));
	ck_assert_str_eq(jstr(git, "ref"), "feature/X_1");
	ck_assert_str_eq(jstr(git, "ref_type"), "branch");
	ck_assert_int_eq(strlen(jstr(git, "sha")), 40);
	ck_assert_int_eq(jint(jget(o, "runner_info"), "timeout"), 3600);
	/* steps: before_script + script, then after_script */
	ck_assert_str_eq(json_object_to_json_string_ext(jget(o, "steps"), JSON_C_TO_STRING_PLAIN),
			 "[{\"name\":\"script\",\"script\":[\"bundle\",\"rspec\",\"echo ok\"],"
			 "\"timeout\":3600,\"when\":\"on_success\",\"allow_failure\":false},"
			 "{\"name\":\"after_script\",\"script\":[\"cleanup\"],\"timeout\":3600,"
			 "\"when\":\"always\",\"allow_failure\":true}]");
	ck_assert_str_eq(jstr(jget(o, "image"), "name"), "ruby:2.4");
	ck_assert_int_eq(json_object_array_length(jget(o, "services")), 2);
	ck_assert_str_eq(jstr(json_object_array_get_idx(jget(o, "services"), 1), "alias"), "cache");
	ck_assert_str_eq(jstr(json_object_array_get_idx(jget(o, "cache"), 0), "policy"),
			 "pull-push");
	ck_assert_int_eq(json_object_array_length(jget(o, "artifacts")), 0);
	ck_assert_int_eq(json_object_array_length(jget(o, "credentials")), 0);
	json_object *deps = jget(o, "dependencies");
	ck_assert_int_eq(json_object_array_length(deps), 1);
	json_object *d = json_object_array_get_idx(deps, 0);
	ck_assert_int_eq(jint(d, "id"), first);
	ck_assert_str_eq(jstr(d, "name"), "compile");
	ck_assert_str_eq(jstr(jget(d, "artifacts_file"), "filename"), "artifacts.zip");
	ck_assert_int_eq(jint(jget(d, "artifacts_file"), "size"), 7);
	/* variables */
	bool pub = true;
	ck_assert_str_eq(var(o, "CI_JOB_TOKEN", &pub), job_tok);
	ck_assert(!pub);
	ck_assert_str_eq(var(o, "CI", NULL), "true");
	ck_assert_str_eq(var(o, "GITLAB_CI", NULL), "true");
	ck_assert_str_eq(var(o, "CI_JOB_ID", NULL), S(fmt("%lld", j)));
	ck_assert_str_eq(var(o, "CI_JOB_NAME", NULL), "rspec");
	ck_assert_str_eq(var(o, "CI_JOB_STAGE", NULL), "stage1");
	ck_assert_str_eq(var(o, "CI_COMMIT_REF_NAME", NULL), "feature/X_1");
	ck_assert_str_eq(var(o, "CI_COMMIT_REF_SLUG", NULL), "feature-x-1");
	ck_assert(var(o, "CI_COMMIT_TAG", NULL) == NULL);
	ck_assert_str_eq(var(o, "CI_PIPELINE_ID", NULL), S(fmt("%lld", p)));
	ck_assert_str_eq(var(o, "CI_PROJECT_ID", NULL), S(fmt("%lld", f.id)));
	ck_assert_str_eq(var(o, "CI_PROJECT_PATH", NULL), f.path);
	ck_assert_str_eq(var(o, "CI_PROJECT_VISIBILITY", NULL), "internal");
	ck_assert_str_eq(var(o, "CI_SERVER_NAME", NULL), "GitLab");
	ck_assert_str_eq(var(o, "GITLAB_USER_ID", NULL), S(fmt("%lld", f.owner_id)));
	ck_assert(var(o, "CI_RUNNER_ID", NULL) != NULL);
	ck_assert_str_eq(var(o, "YAML_VAR", &pub), "y");
	ck_assert(pub);
	ck_assert_str_eq(var(o, "API_VAR", NULL), "a");
	ck_assert_str_eq(var(o, "SECRET", &pub), secret);
	ck_assert(!pub);
}
END_TEST

START_TEST(test_runner_protected_variables)
{
	fx f;
	project(&f, "private");
	char *secret = project_token(f.id, f.owner);
	secret_variable(f.id, "OPEN", false);
	secret_variable(f.id, "PROT", true);
	/* a group's variable, and its parent's: the project is in the subgroup */
	long long g = fixture_group(0, NULL);
	long long sub = fixture_subgroup(g, 0, NULL);
	long long gp = fixture_group_project(sub, 0, NULL);
	fixture_member("Project", gp, f.owner_id, 40);
	char *gsecret = project_token(gp, f.owner);
	free(sql_value("INSERT INTO ci_group_variables (group_id, key, value_sealed)"
		       " SELECT %lld, 'ROOT_VAR', runners_token_sealed FROM projects"
		       " WHERE id = %lld",
		       g, gp));
	free(sql_value("INSERT INTO ci_group_variables (group_id, key, value_sealed)"
		       " SELECT %lld, 'SUB_VAR', runners_token_sealed FROM projects"
		       " WHERE id = %lld",
		       sub, gp));
	char *gtok = register_runner(gsecret, NULL, NULL);
	fx gf = {gp, f.owner, f.owner_id, NULL};
	long long gpl = pipeline(&gf, "master", false);
	job(&gf, gpl, 0, "g", "{}", NULL, false);
	process(gpl);
	resp *gr = request_job(gtok);
	ck_status(gr, 201);
	ck_assert_str_eq(var(gr->json, "ROOT_VAR", NULL), gsecret);
	ck_assert_str_eq(var(gr->json, "SUB_VAR", NULL), gsecret);
	ck_assert(var(gr->json, "OPEN", NULL) == NULL);
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);
	long long p = pipeline(&f, "feature", false);
	job(&f, p, 0, "a", "{}", NULL, false);
	process(p);
	resp *r = request_job(tok);
	ck_status(r, 201);
	ck_assert_str_eq(var(r->json, "OPEN", NULL), secret);
	ck_assert(var(r->json, "PROT", NULL) == NULL);
	protect_branch(&f, "master");
	long long p2 = pipeline(&f, "master", true);
	job(&f, p2, 0, "b", "{}", NULL, false);
	process(p2);
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_str_eq(var(r->json, "PROT", NULL), secret);
}
END_TEST

/* Gitlab::Utils.slugify, for the expected values. */
static char *slug_of(const char *s)
{
	char *out = S(strdup(s));
	for (char *p = out; *p; p++) {
		char c = (char)tolower((unsigned char)*p);
		*p = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '-';
	}
	out[strlen(out) > 63 ? 63 : strlen(out)] = '\0';
	char *start = out;
	while (*start == '-')
		start++;
	for (size_t n = strlen(start); n && start[n - 1] == '-'; n--)
		start[n - 1] = '\0';
	return start;
}

/* The keys of the payload's variables, in order, joined by spaces. */
static char *var_keys(json_object *payload)
{
	json_object *vars = jget(payload, "variables");
	size_t len = 1;
	for (size_t i = 0; i < json_object_array_length(vars); i++)
		len += strlen(jstr(json_object_array_get_idx(vars, i), "key")) + 1;
	char *out = S(calloc(1, len));
	for (size_t i = 0; i < json_object_array_length(vars); i++) {
		if (i)
			strcat(out, " ");
		strcat(out, jstr(json_object_array_get_idx(vars, i), "key"));
	}
	return out;
}

/* GitLab 10.8's predefined variables (Ci::Build#variables), in its order, with its values
 * and public flags, from what the database and the repository hold. */
START_TEST(test_runner_predefined_variables)
{
	fx f;
	project(&f, "internal");
	ck_status(R(api("PUT", S(fmt("/projects/%lld", f.id)), f.owner,
			"ci_config_path=ci/pipeline.yml")),
		  200);
	const char *msg = "Fix the frobnicator\\n\\nIt no longer spins.\\nSecond line.\\n";
	resp *c = R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f.id)), f.owner,
			     S(fmt("{\"branch\":\"master\",\"commit_message\":\"%s\","
				   "\"actions\":[{\"action\":\"create\",\"file_path\":\"a.txt\","
				   "\"content\":\"a\"}]}",
				   msg))));
	ck_status(c, 201);
	char *sha = S(strdup(jstr(c->json, "id")));
	resp *env = R(api("POST", S(fmt("/projects/%lld/environments", f.id)), f.owner,
			  "name=Production&external_url=https://prod.example.com"));
	ck_status(env, 201);
	char *env_slug = S(strdup(jstr(env->json, "slug")));
	resp *me = R(api("GET", "/user", f.owner, NULL));
	ck_status(me, 200);
	resp *version = R(api("GET", "/version", f.owner, NULL));
	ck_status(version, 200);

	/* a branch pipeline at the commit, its job deploying to the environment */
	long long p = pipeline(&f, "Feature/Frob_1", false);
	free(sql_value("UPDATE ci_pipelines SET sha = '%s', before_sha = repeat('b', 40)"
		       " WHERE id = %lld",
		       sha, p));
	long long j = job(&f, p, 0, "rspec", "{}", NULL, false);
	free(sql_value("UPDATE ci_builds SET environment = 'Production' WHERE id = %lld", j));
	/* a tag pipeline's manual job, whose environment's url is its own, and one whose
	 * environment does not exist yet (GitLab 10.8 gives none of its variables) */
	long long tp = pipeline(&f, "v1.0", false);
	free(sql_value("UPDATE ci_pipelines SET sha = '%s', tag = true WHERE id = %lld", sha, tp));
	long long tj = job(&f, tp, 0, "deploy", "{}",
			   "{\"script\":[\"make\"],\"environment\":{\"name\":\"Production\","
			   "\"url\":\"https://$CI_ENVIRONMENT_SLUG.example.com\"}}",
			   false);
	free(sql_value("UPDATE ci_builds SET tag = true, environment = 'Production'"
		       " WHERE id = %lld",
		       tj));
	long long nj = job(&f, tp, 0, "review", "{}", NULL, false);
	free(sql_value("UPDATE ci_builds SET tag = true, environment = 'review/x' WHERE id = %lld",
		       nj));
	process(p);
	process(tp);
	free(sql_value("UPDATE commit_statuses SET \"when\" = 'manual' WHERE id = %lld", tj));

	long long runner_id;
	char *tok = register_runner(project_token(f.id, f.owner), ",\"tag_list\":\"docker,linux\"",
				    &runner_id);
	resp *r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), j);
	json_object *o = r->json;
	const char *job_tok = jstr(o, "token");
	ck_assert_str_eq(var_keys(o),
			 "CI_JOB_ID CI_JOB_TOKEN CI_BUILD_ID CI_BUILD_TOKEN CI_REPOSITORY_URL"
			 " CI GITLAB_CI CI_SERVER_NAME CI_SERVER_VERSION CI_SERVER_REVISION"
			 " CI_JOB_NAME CI_JOB_STAGE CI_COMMIT_SHA CI_COMMIT_REF_NAME"
			 " CI_COMMIT_REF_SLUG CI_BUILD_REF CI_BUILD_BEFORE_SHA CI_BUILD_REF_NAME"
			 " CI_BUILD_REF_SLUG CI_BUILD_NAME CI_BUILD_STAGE CI_PROJECT_ID"
			 " CI_PROJECT_NAME CI_PROJECT_PATH CI_PROJECT_PATH_SLUG"
			 " CI_PROJECT_NAMESPACE CI_PROJECT_URL CI_PROJECT_VISIBILITY"
			 " CI_PIPELINE_ID CI_CONFIG_PATH CI_PIPELINE_SOURCE CI_COMMIT_MESSAGE"
			 " CI_COMMIT_TITLE CI_COMMIT_DESCRIPTION CI_RUNNER_ID"
			 " CI_RUNNER_DESCRIPTION CI_RUNNER_TAGS YAML_VAR GITLAB_USER_ID"
			 " GITLAB_USER_EMAIL GITLAB_USER_LOGIN GITLAB_USER_NAME"
			 " CI_ENVIRONMENT_NAME CI_ENVIRONMENT_SLUG CI_ENVIRONMENT_URL");
	/* every one public but the three that carry the job's token */
	json_object *vars = jget(o, "variables");
	for (size_t i = 0; i < json_object_array_length(vars); i++) {
		json_object *v = json_object_array_get_idx(vars, i);
		const char *k = jstr(v, "key");
		bool secret = strcmp(k, "CI_JOB_TOKEN") == 0 || strcmp(k, "CI_BUILD_TOKEN") == 0 ||
			      strcmp(k, "CI_REPOSITORY_URL") == 0;
		ck_assert_msg(jbool(v, "public") == !secret, "%s public", k);
	}
	const char *host = api_url() + strlen("http://");
	char *ns = S(strndup(f.path, strcspn(f.path, "/")));
	ck_assert_str_eq(var(o, "CI_JOB_ID", NULL), S(fmt("%lld", j)));
	ck_assert_str_eq(var(o, "CI_JOB_TOKEN", NULL), job_tok);
	ck_assert_str_eq(var(o, "CI_BUILD_ID", NULL), S(fmt("%lld", j)));
	ck_assert_str_eq(var(o, "CI_BUILD_TOKEN", NULL), job_tok);
	ck_assert_str_eq(var(o, "CI_REPOSITORY_URL", NULL),
			 S(fmt("http://gitlab-ci-token:%s@%s/%s.git", job_tok, host, f.path)));
	ck_assert_str_eq(var(o, "CI_REPOSITORY_URL", NULL), jstr(jget(o, "git_info"), "repo_url"));
	ck_assert_str_eq(var(o, "CI", NULL), "true");
	ck_assert_str_eq(var(o, "GITLAB_CI", NULL), "true");
	ck_assert_str_eq(var(o, "CI_SERVER_NAME", NULL), "GitLab");
	ck_assert_str_eq(var(o, "CI_SERVER_VERSION", NULL), jstr(version->json, "version"));
	ck_assert_str_eq(var(o, "CI_SERVER_REVISION", NULL), jstr(version->json, "revision"));
	ck_assert_str_eq(var(o, "CI_JOB_NAME", NULL), "rspec");
	ck_assert_str_eq(var(o, "CI_BUILD_NAME", NULL), "rspec");
	ck_assert_str_eq(var(o, "CI_JOB_STAGE", NULL), "stage0");
	ck_assert_str_eq(var(o, "CI_BUILD_STAGE", NULL), "stage0");
	ck_assert_str_eq(var(o, "CI_COMMIT_SHA", NULL), sha);
	ck_assert_str_eq(var(o, "CI_BUILD_REF", NULL), sha);
	char before[41];
	memset(before, 'b', 40);
	before[40] = '\0';
	ck_assert_str_eq(var(o, "CI_BUILD_BEFORE_SHA", NULL), before);
	ck_assert_str_eq(var(o, "CI_COMMIT_REF_NAME", NULL), "Feature/Frob_1");
	ck_assert_str_eq(var(o, "CI_BUILD_REF_NAME", NULL), "Feature/Frob_1");
	ck_assert_str_eq(var(o, "CI_COMMIT_REF_SLUG", NULL), "feature-frob-1");
	ck_assert_str_eq(var(o, "CI_BUILD_REF_SLUG", NULL), "feature-frob-1");
	ck_assert_str_eq(var(o, "CI_PROJECT_ID", NULL), S(fmt("%lld", f.id)));
	ck_assert_str_eq(var(o, "CI_PROJECT_NAME", NULL), strchr(f.path, '/') + 1);
	ck_assert_str_eq(var(o, "CI_PROJECT_PATH", NULL), f.path);
	ck_assert_str_eq(var(o, "CI_PROJECT_PATH_SLUG", NULL), slug_of(f.path));
	ck_assert_str_eq(var(o, "CI_PROJECT_NAMESPACE", NULL), ns);
	ck_assert_str_eq(var(o, "CI_PROJECT_URL", NULL), S(fmt("%s/%s", api_url(), f.path)));
	ck_assert_str_eq(var(o, "CI_PROJECT_VISIBILITY", NULL), "internal");
	ck_assert_str_eq(var(o, "CI_PIPELINE_ID", NULL), S(fmt("%lld", p)));
	ck_assert_str_eq(var(o, "CI_CONFIG_PATH", NULL), "ci/pipeline.yml");
	ck_assert_str_eq(var(o, "CI_PIPELINE_SOURCE", NULL), "push");
	ck_assert_str_eq(var(o, "CI_COMMIT_MESSAGE", NULL),
			 "Fix the frobnicator\n\nIt no longer spins.\nSecond line.\n");
	ck_assert_str_eq(var(o, "CI_COMMIT_TITLE", NULL), "Fix the frobnicator");
	ck_assert_str_eq(var(o, "CI_COMMIT_DESCRIPTION", NULL),
			 "\nIt no longer spins.\nSecond line.");
	ck_assert_str_eq(var(o, "CI_RUNNER_ID", NULL), S(fmt("%lld", runner_id)));
	ck_assert_str_eq(var(o, "CI_RUNNER_DESCRIPTION", NULL), "test runner");
	ck_assert_str_eq(var(o, "CI_RUNNER_TAGS", NULL), "docker, linux");
	ck_assert_str_eq(var(o, "GITLAB_USER_ID", NULL), S(fmt("%lld", f.owner_id)));
	ck_assert_str_eq(var(o, "GITLAB_USER_EMAIL", NULL), jstr(me->json, "email"));
	ck_assert_str_eq(var(o, "GITLAB_USER_LOGIN", NULL), jstr(me->json, "username"));
	ck_assert_str_eq(var(o, "GITLAB_USER_NAME", NULL), jstr(me->json, "name"));
	ck_assert_str_eq(var(o, "CI_ENVIRONMENT_NAME", NULL), "Production");
	ck_assert_str_eq(var(o, "CI_ENVIRONMENT_SLUG", NULL), env_slug);
	ck_assert_str_ne(env_slug, "production"); /* the environment's, not a slugify */
	ck_assert_str_eq(var(o, "CI_ENVIRONMENT_URL", NULL), "https://prod.example.com");
	ck_assert(var(o, "CI_COMMIT_TAG", NULL) == NULL);
	ck_assert(var(o, "CI_JOB_MANUAL", NULL) == NULL);

	/* the tag's manual job: the tag's and the manual job's variables, the url its own
	 * and unexpanded (the runner expands it) */
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), tj);
	o = r->json;
	ck_assert_str_eq(var(o, "CI_COMMIT_TAG", NULL), "v1.0");
	ck_assert_str_eq(var(o, "CI_BUILD_TAG", NULL), "v1.0");
	ck_assert_str_eq(var(o, "CI_COMMIT_REF_SLUG", NULL), "v1-0");
	ck_assert_str_eq(var(o, "CI_JOB_MANUAL", NULL), "true");
	ck_assert_str_eq(var(o, "CI_BUILD_MANUAL", NULL), "true");
	ck_assert_str_eq(var(o, "CI_ENVIRONMENT_URL", NULL),
			 "https://$CI_ENVIRONMENT_SLUG.example.com");
	ck_assert_str_eq(var(o, "CI_COMMIT_TITLE", NULL), "Fix the frobnicator");

	/* an environment not yet made: none of its variables */
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), nj);
	ck_assert(var(r->json, "CI_ENVIRONMENT_NAME", NULL) == NULL);
	ck_assert(var(r->json, "CI_ENVIRONMENT_SLUG", NULL) == NULL);
	ck_assert(var(r->json, "CI_ENVIRONMENT_URL", NULL) == NULL);
	ck_assert(var(r->json, "CI_JOB_MANUAL", NULL) == NULL);
}
END_TEST

/* A commit whose title is 100 characters or more: the description is the whole message;
 * one of a single line has none; a job whose commit is not in the repository gets empty
 * ones. */
START_TEST(test_runner_commit_variables)
{
	fx f;
	project(&f, "private");
	char title[121];
	memset(title, 'x', 120);
	title[120] = '\0';
	const char *msgs[] = {S(fmt("%s\\nmore", title)), "One line only"};
	const char *want_desc[] = {S(fmt("%s\nmore", title)), ""};
	long long jobs[3];
	for (int i = 0; i < 2; i++) {
		resp *c = R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f.id)),
				     f.owner,
				     S(fmt("{\"branch\":\"master\",\"commit_message\":\"%s\","
					   "\"actions\":[{\"action\":\"create\",\"file_path\":"
					   "\"f%d\",\"content\":\"a\"}]}",
					   msgs[i], i))));
		ck_status(c, 201);
		long long p = pipeline(&f, "master", false);
		free(sql_value("UPDATE ci_pipelines SET sha = '%s' WHERE id = %lld",
			       jstr(c->json, "id"), p));
		jobs[i] = job(&f, p, 0, "t", "{}", NULL, false);
		process(p);
	}
	long long p = pipeline(&f, "master", false); /* at a sha the repository lacks */
	jobs[2] = job(&f, p, 0, "t", "{}", NULL, false);
	process(p);
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);
	for (int i = 0; i < 3; i++) {
		resp *r = request_job(tok);
		ck_status(r, 201);
		ck_assert_int_eq(jint(r->json, "id"), jobs[i]);
		if (i == 2) {
			ck_assert_str_eq(var(r->json, "CI_COMMIT_MESSAGE", NULL), "");
			ck_assert_str_eq(var(r->json, "CI_COMMIT_TITLE", NULL), "");
			ck_assert_str_eq(var(r->json, "CI_COMMIT_DESCRIPTION", NULL), "");
			continue;
		}
		ck_assert_str_eq(var(r->json, "CI_COMMIT_TITLE", NULL), i == 0 ? title : msgs[1]);
		ck_assert_str_eq(var(r->json, "CI_COMMIT_DESCRIPTION", NULL), want_desc[i]);
	}
}
END_TEST

/* Protected variables follow the ref's protection when the job is handed out, not when
 * its pipeline was made: a branch protected since (by name or by a pattern) gets them,
 * one unprotected since does not. */
START_TEST(test_runner_protected_at_hand_out)
{
	fx f;
	project(&f, "private");
	char *secret = project_token(f.id, f.owner);
	secret_variable(f.id, "OPEN", false);
	secret_variable(f.id, "PROT", true);
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);

	/* made on an unprotected branch, taken after it was protected */
	long long p = pipeline(&f, "master", false);
	long long j = job(&f, p, 0, "a", "{}", NULL, false);
	process(p);
	protect_branch(&f, "master");
	resp *r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), j);
	ck_assert_str_eq(var(r->json, "PROT", NULL), secret);
	ck_assert_str_eq(var(r->json, "OPEN", NULL), secret);

	/* the same through a wildcard protection */
	p = pipeline(&f, "release/1.0", false);
	j = job(&f, p, 0, "b", "{}", NULL, false);
	process(p);
	protect_branch(&f, "release/*");
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), j);
	ck_assert_str_eq(var(r->json, "PROT", NULL), secret);

	/* made on a protected branch, taken after it was unprotected */
	protect_branch(&f, "stable");
	p = pipeline(&f, "stable", true);
	j = job(&f, p, 0, "c", "{}", NULL, false);
	process(p);
	ck_code(R(api("DELETE", S(fmt("/projects/%lld/protected_branches/stable", f.id)), f.owner,
		      NULL)),
		204);
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), j);
	ck_assert(var(r->json, "PROT", NULL) == NULL);
	ck_assert_str_eq(var(r->json, "OPEN", NULL), secret);

	/* a tag named as a protected branch is not that branch */
	p = pipeline(&f, "master", false);
	free(sql_value("UPDATE ci_pipelines SET tag = true WHERE id = %lld", p));
	j = job(&f, p, 0, "d", "{}", NULL, false);
	free(sql_value("UPDATE ci_builds SET tag = true WHERE id = %lld", j));
	process(p);
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), j);
	ck_assert(var(r->json, "PROT", NULL) == NULL);
}
END_TEST

/* ---- job updates, trace, artifacts ---- */

/* PATCH /jobs/:id/trace as the runner sends it. */
static resp *patch_trace(long long id, const char *token, const char *range, const char *data)
{
	char *url = S(fmt("%s/api/v4/jobs/%lld/trace", api_url(), id));
	char *h1 = range ? S(fmt("Content-Range: %s", range)) : NULL;
	char *h2 = S(fmt("JOB-TOKEN: %s", token));
	const char *headers[] = {UA[0], h2, h1, NULL};
	return R(http_request("PATCH", url, headers, data, strlen(data), "text/plain"));
}

static resp *update_job(long long id, const char *token, const char *state, const char *trace)
{
	char *body = trace ? S(fmt("{\"info\":" RUNNER_INFO ",\"token\":\"%s\",\"state\":\"%s\","
				   "\"trace\":\"%s\"}",
				   token, state, trace))
			   : S(fmt("{\"info\":" RUNNER_INFO ",\"token\":\"%s\",\"state\":\"%s\"}",
				   token, state));
	return runner_call("PUT", S(fmt("/jobs/%lld", id)), body);
}

static char *trace_file(long long project_id, long long job_id)
{
	char *cmd = S(fmt("cat '%s/storage/ci/traces/%lld/%lld.log' 2>/dev/null",
			  getenv("COLLABD_DIR"), project_id, job_id));
	FILE *f = popen(cmd, "r");
	ck_assert(f != NULL);
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	pclose(f);
	return S(strdup(buf));
}

START_TEST(test_runner_trace_and_update)
{
	fx f;
	project(&f, "private");
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);
	long long p = pipeline(&f, "master", false);
	long long j = job(&f, p, 0, "build", "{}",
			  "{\"script\":[\"make\"],\"coverage\":\"/Coverage: \\\\d+\\\\.\\\\d+%/\"}",
			  false);
	long long next = job(&f, p, 1, "deploy", "{}", NULL, false);
	process(p);
	ck_assert_str_eq(pipeline_status(p), "pending");
	resp *r = request_job(tok);
	ck_status(r, 201);
	char *jt = S(strdup(jstr(r->json, "token")));
	ck_assert_str_eq(pipeline_status(p), "running");
	/* chunks: 0-5, then 6-... */
	r = patch_trace(j, jt, "0-6", "hello\n");
	ck_status(r, 202);
	ck_header(r, "Range", "0-6");
	ck_header(r, "Job-Status", "running");
	r = patch_trace(j, jt, "6-20", "Coverage: 12.5%\n");
	ck_status(r, 202);
	ck_header(r, "Range", "0-22");
	/* a gap or an overlap: 416 with the current range, nothing written */
	r = patch_trace(j, jt, "30-40", "later");
	ck_status(r, 416);
	ck_header(r, "Range", "0-22");
	ck_code(patch_trace(j, jt, "3-8", "again"), 416);
	ck_assert_str_eq(trace_file(f.id, j), "hello\nCoverage: 12.5%\n");
	ck_assert_int_eq(sql_int("SELECT trace_size FROM ci_builds WHERE id = %lld", j), 22);
	/* bad header, bad token, no job; the job first, as GitLab 10 (authenticate_job!),
	 * then the header, whose start alone it reads (to_i: "x" is 0) */
	ck_body(patch_trace(j, jt, NULL, "x"), 400,
		"{\"message\":\"400 Missing header Content-Range\"}");
	ck_body(patch_trace(j, "wrong", NULL, "x"), 403, "{\"message\":\"403 Forbidden\"}");
	r = patch_trace(j, jt, "x-y", "x");
	ck_status(r, 416);
	ck_header(r, "Range", "0-22");
	r = patch_trace(j, jt, " 22-and-more", "");
	ck_status(r, 202);
	ck_header(r, "Range", "0-22");
	ck_code(patch_trace(j, jt, "-22-0", "x"), 416);
	ck_code(patch_trace(j, jt, "99999999999999999999999-1", "x"), 416);
	ck_code(patch_trace(j, "wrong", "22-23", "x"), 403);
	ck_code(patch_trace(999999999, jt, "0-1", "x"), 404);
	ck_code(update_job(j, "wrong", "success", NULL), 403);
	ck_code(update_job(999999999, jt, "success", NULL), 404);
	ck_body(runner_call("PUT", "/jobs/abc", S(fmt("{\"token\":\"%s\"}", jt))), 400,
		"{\"error\":\"id is invalid\"}");
	/* the token is required (GitLab 10: requires :token), not a 403 */
	ck_body(runner_call("PUT", S(fmt("/jobs/%lld", j)), "{\"state\":\"success\"}"), 400,
		"{\"message\":\"400 (Bad request) \\\"token\\\" not given\"}");
	ck_assert_str_eq(status_of(j), "running");
	/* running: nothing changes */
	ck_code(update_job(j, jt, "running", NULL), 200);
	ck_assert_str_eq(status_of(j), "running");
	/* success: coverage from the trace, the next stage's job pending */
	ck_code(update_job(j, jt, "success", NULL), 200);
	ck_assert_str_eq(status_of(j), "success");
	ck_assert_str_eq(
		S(sql_value("SELECT coverage::text FROM commit_statuses WHERE id = %lld", j)),
		"12.5");
	ck_assert(sql_int("SELECT count(*) FROM commit_statuses WHERE id = %lld AND"
			  " finished_at IS NOT NULL",
			  j) == 1);
	ck_assert_str_eq(status_of(next), "pending");
	/* the job has ended: its update and its trace are refused with its status (GitLab
	 * 10's job_forbidden!), which stops the runner; nothing changes */
	r = update_job(j, jt, "failed", "overwritten");
	ck_body(r, 403, "{\"message\":\"403 Forbidden  - Job is not running\"}");
	ck_header(r, "Job-Status", "success");
	r = patch_trace(j, jt, "22-23", "x");
	ck_body(r, 403, "{\"message\":\"403 Forbidden  - Job is not running\"}");
	ck_header(r, "Job-Status", "success");
	ck_assert_str_eq(status_of(j), "success");
	ck_assert_str_eq(trace_file(f.id, j), "hello\nCoverage: 12.5%\n");
	/* the next job: its whole trace in the update replaces the file */
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), next);
	char *nt = S(strdup(jstr(r->json, "token")));
	ck_code(patch_trace(next, nt, "0-3", "abc"), 202);
	ck_code(update_job(next, nt, "success", "full trace\\n"), 200);
	ck_assert_str_eq(trace_file(f.id, next), "full trace\n");
	ck_assert_int_eq(sql_int("SELECT trace_size FROM ci_builds WHERE id = %lld", next), 11);
	ck_assert_str_eq(pipeline_status(p), "success");
	ck_assert(jnull(r->json, "image"));
}
END_TEST

START_TEST(test_runner_failure)
{
	fx f;
	project(&f, "private");
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);
	/* a failing job that may fail: the next stage runs, the pipeline succeeds */
	long long p = pipeline(&f, "master", false);
	long long lint = job(&f, p, 0, "lint", "{}", NULL, true);
	long long test = job(&f, p, 1, "test", "{}", NULL, false);
	process(p);
	resp *r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), lint);
	ck_code(update_job(lint, jstr(r->json, "token"), "failed", NULL), 200);
	ck_assert_str_eq(status_of(lint), "failed");
	ck_assert_str_eq(status_of(test), "pending");
	r = request_job(tok);
	ck_status(r, 201);
	ck_code(update_job(test, jstr(r->json, "token"), "success", NULL), 200);
	ck_assert_str_eq(pipeline_status(p), "success");
	/* a failing job that may not: the later stage is skipped, the pipeline fails */
	long long p2 = pipeline(&f, "master", false);
	long long a = job(&f, p2, 0, "a", "{}", NULL, false);
	long long b = job(&f, p2, 1, "b", "{}", NULL, false);
	process(p2);
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), a);
	ck_code(update_job(a, jstr(r->json, "token"), "failed", NULL), 200);
	ck_assert_str_eq(status_of(b), "skipped");
	ck_assert_str_eq(pipeline_status(p2), "failed");
	/* a job canceled while it runs: the runner's update answers 403 */
	long long p3 = pipeline(&f, "master", false);
	long long c = job(&f, p3, 0, "c", "{}", NULL, false);
	process(p3);
	r = request_job(tok);
	ck_status(r, 201);
	free(sql_value("UPDATE commit_statuses SET status = 'canceled' WHERE id = %lld", c));
	resp *u = update_job(c, jstr(r->json, "token"), "success", NULL);
	ck_body(u, 403, "{\"message\":\"403 Forbidden  - Job is not running\"}");
	ck_header(u, "Job-Status", "canceled");
	u = patch_trace(c, jstr(r->json, "token"), "0-1", "x");
	ck_status(u, 403);
	ck_header(u, "Job-Status", "canceled");
	ck_assert_str_eq(status_of(c), "canceled");
	/* an erased job, a project being deleted: 403 as GitLab */
	long long p4 = pipeline(&f, "master", false);
	long long e = job(&f, p4, 0, "e", "{}", NULL, false);
	process(p4);
	r = request_job(tok);
	ck_status(r, 201);
	free(sql_value("UPDATE ci_builds SET erased_at = now() WHERE id = %lld", e));
	ck_body(update_job(e, jstr(r->json, "token"), "success", NULL), 403,
		"{\"message\":\"403 Forbidden  - Job has been erased!\"}");
	free(sql_value("UPDATE ci_builds SET erased_at = NULL WHERE id = %lld", e));
	free(sql_value("UPDATE projects SET pending_delete = true WHERE id = %lld", f.id));
	ck_body(update_job(e, jstr(r->json, "token"), "success", NULL), 403,
		"{\"message\":\"403 Forbidden  - Project has been deleted!\"}");
	free(sql_value("UPDATE projects SET pending_delete = false WHERE id = %lld", f.id));
	ck_code(update_job(e, jstr(r->json, "token"), "success", NULL), 200);
	ck_assert_str_eq(pipeline_status(p4), "success");
	/* a payload that cannot be made (a variable sealed with another key): 500, and the
	 * job fails rather than block the queue */
	free(sql_value("INSERT INTO ci_variables (project_id, key, value_sealed)"
		       " VALUES (%lld, 'BROKEN', 'abcdef')",
		       f.id));
	long long p5 = pipeline(&f, "master", false);
	long long broken = job(&f, p5, 0, "broken", "{}", NULL, false);
	process(p5);
	ck_code(request_job(tok), 500);
	ck_assert_str_eq(status_of(broken), "failed");
	ck_assert_str_eq(pipeline_status(p5), "failed");
	ck_code(request_job(tok), 204);
}
END_TEST

/* POST /jobs/:id/artifacts as gitlab-runner 10 sends it: multipart, part "file". */
static resp *upload_as(long long id, const char *token, const char *data, size_t n,
		       const char *query, const char *filename)
{
	const char *boundary = "a8f3c0e5d1b24e6f9c7d";
	size_t cap = n + 512;
	char *body = S(malloc(cap));
	int h = snprintf(body, cap,
			 "--%s\r\nContent-Disposition: form-data; name=\"file\";"
			 " filename=\"%s\"\r\nContent-Type: application/octet-stream"
			 "\r\n\r\n",
			 boundary, filename);
	memcpy(body + h, data, n);
	int t = snprintf(body + h + n, cap - h - n, "\r\n--%s--\r\n", boundary);
	char *url = S(fmt("%s/api/v4/jobs/%lld/artifacts%s", api_url(), id, query ? query : ""));
	char *th = S(fmt("JOB-TOKEN: %s", token));
	const char *headers[] = {UA[0], th, NULL};
	return R(http_request("POST", url, headers, body, h + n + t,
			      S(fmt("multipart/form-data; boundary=%s", boundary))));
}

static resp *upload(long long id, const char *token, const char *data, size_t n, const char *query)
{
	return upload_as(id, token, data, n, query, "artifacts.zip");
}

static resp *download(long long id, const char *token)
{
	char *url = S(fmt("%s/api/v4/jobs/%lld/artifacts", api_url(), id));
	char *th = S(fmt("JOB-TOKEN: %s", token));
	const char *headers[] = {UA[0], th, NULL};
	return R(http_request("GET", url, token ? headers : NULL, NULL, 0, NULL));
}

START_TEST(test_runner_artifacts)
{
	fx f;
	project(&f, "private");
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);
	long long p = pipeline(&f, "master", false);
	long long build = job(&f, p, 0, "build", "{}", NULL, false);
	long long test = job(&f, p, 1, "test", "{}", NULL, false);
	process(p);
	resp *r = request_job(tok);
	ck_status(r, 201);
	char *bt = S(strdup(jstr(r->json, "token")));
	/* authorize */
	char *auth = S(fmt("/jobs/%lld/artifacts/authorize", build));
	r = runner_call("POST", auth, S(fmt("{\"token\":\"%s\",\"filesize\":100}", bt)));
	ck_status(r, 200);
	ck_assert(jstr(r->json, "TempPath") != NULL);
	ck_body(runner_call("POST", auth, S(fmt("{\"token\":\"%s\",\"filesize\":1000000000}", bt))),
		413, "{\"message\":\"413 Request Entity Too Large\"}");
	ck_code(runner_call("POST", auth, "{\"token\":\"bad\",\"filesize\":1}"), 403);
	/* upload: binary bytes, NULs included */
	static const char zip[] = "PK\003\004\0\0binary\0data\377";
	size_t zn = sizeof(zip) - 1;
	ck_code(upload(build, "bad", zip, zn, NULL), 403);
	ck_code(upload(build, bt, zip, zn, "?expire_in=soon"), 400);
	char *aurl = S(fmt("/jobs/%lld/artifacts", build));
	ck_body(runner_call("POST", aurl, S(fmt("{\"token\":\"%s\"}", bt))), 400,
		"{\"message\":\"400 (Bad request) \\\"Missing artifacts file!\\\" not given\"}");
	ck_assert_str_eq(S(sql_value("SELECT coalesce(artifacts_file, 'none') FROM ci_builds"
				     " WHERE id = %lld",
				     build)),
			 "none");
	r = upload(build, bt, zip, zn, "?expire_in=1%20week");
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), build);
	ck_assert_str_eq(S(sql_value("SELECT artifacts_file || ' ' || artifacts_size || ' ' ||"
				     " (artifacts_expire_at - now() > interval '6 days')::text"
				     " FROM ci_builds WHERE id = %lld",
				     build)),
			 S(fmt("artifacts.zip %zu true", zn)));
	/* the uploaded file's name is kept when it is a plain one */
	ck_code(upload_as(build, bt, zip, zn, NULL, "../x/out.zip"), 201);
	ck_assert_str_eq(S(sql_value("SELECT artifacts_file || ' ' || (artifacts_expire_at IS NULL)"
				     " FROM ci_builds WHERE id = %lld",
				     build)),
			 "out.zip true");
	ck_assert(strstr(resp_header(download(build, bt), "Content-Disposition"), "=out.zip"));
	ck_code(upload_as(build, bt, zip, zn, "?expire_in=2%20days", "a b;c.zip"), 201);
	ck_assert_str_eq(
		S(sql_value("SELECT artifacts_file FROM ci_builds WHERE id = %lld", build)),
		"artifacts.zip");
	ck_code(upload(build, bt, zip, zn, "?expire_in=100000000%20years"), 400);
	r = upload(build, bt, zip, zn, "?expire_in=1%20week");
	ck_status(r, 201);
	/* an archive over max_body (10 MiB here) but within max_artifacts_size: its route
	 * alone takes it, through nginx and collabd */
	size_t big_n = 11 << 20;
	char *big = S(malloc(big_n));
	for (size_t i = 0; i < big_n; i++)
		big[i] = (char)(i * 7 + (i >> 12));
	ck_code(upload(build, bt, big, big_n, NULL), 201);
	r = download(build, bt);
	ck_status(r, 200);
	ck_assert(r->body_len == big_n && memcmp(r->body, big, big_n) == 0);
	char *huge = S(fmt("{\"token\":\"%s\",\"state\":\"running\",\"trace\":\"%0*d\"}", bt,
			   (int)big_n, 0));
	ck_code(runner_call("PUT", S(fmt("/jobs/%lld", build)), huge), 413);
	r = upload(build, bt, zip, zn, "?expire_in=1%20week");
	ck_status(r, 201);
	/* the job itself downloads them while it runs */
	r = download(build, bt);
	ck_status(r, 200);
	ck_assert_int_eq(r->body_len, zn);
	ck_assert(memcmp(r->body, zip, zn) == 0);
	ck_assert(strstr(resp_header(r, "Content-Disposition"), "artifacts.zip") != NULL);
	ck_code(update_job(build, bt, "success", NULL), 200);
	/* the finished job's token no longer works; nor does it upload or authorize */
	ck_code(download(build, bt), 403);
	ck_body(upload(build, bt, zip, zn, NULL), 403,
		"{\"message\":\"403 Forbidden  - Job is not running!\"}");
	ck_body(runner_call("POST", auth, S(fmt("{\"token\":\"%s\",\"filesize\":1}", bt))), 403,
		"{\"message\":\"403 Forbidden  - Job is not running\"}");
	/* the next stage depends on it: its payload names them, its token downloads them */
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), test);
	char *tt = S(strdup(jstr(r->json, "token")));
	json_object *d = json_object_array_get_idx(jget(r->json, "dependencies"), 0);
	ck_assert_int_eq(jint(d, "id"), build);
	ck_assert_str_eq(jstr(d, "token"), tt);
	ck_assert_int_eq(jint(jget(d, "artifacts_file"), "size"), zn);
	r = download(build, tt);
	ck_status(r, 200);
	ck_assert_int_eq(r->body_len, zn);
	ck_assert(memcmp(r->body, zip, zn) == 0);
	ck_code(download(build, NULL), 403);
	ck_code(download(build, "bad"), 403);
	ck_code(download(test, tt), 404); /* no artifacts */
	ck_code(download(999999999, tt), 404);
	/* erased, or its project being deleted: GitLab 10's 403s */
	free(sql_value("UPDATE ci_builds SET erased_at = now() WHERE id = %lld", build));
	ck_body(download(build, tt), 403,
		"{\"message\":\"403 Forbidden  - Job has been erased!\"}");
	free(sql_value("UPDATE ci_builds SET erased_at = NULL WHERE id = %lld", build));
	free(sql_value("UPDATE projects SET pending_delete = true WHERE id = %lld", f.id));
	ck_body(download(build, tt), 403,
		"{\"message\":\"403 Forbidden  - Project has been deleted!\"}");
	free(sql_value("UPDATE projects SET pending_delete = false WHERE id = %lld", f.id));
	ck_code(download(build, tt), 200);
	/* a job of another pipeline may not have them */
	long long p2 = pipeline(&f, "master", false);
	long long other = job(&f, p2, 1, "other", "{}", NULL, false);
	free(sql_value("UPDATE commit_statuses SET status = 'pending' WHERE id = %lld", other));
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), other);
	ck_code(download(build, jstr(r->json, "token")), 403);
	/* nginx does not serve the internal location to clients */
	ck_code(R(http_request("GET",
			       S(fmt("%s/_internal/ci/artifacts/%lld/%lld/artifacts.zip", api_url(),
				     f.id, build)),
			       NULL, NULL, 0, NULL)),
		404);
}
END_TEST

/* A job's id written otherwise in the path (a leading zero: the same number) is the
 * same job and the same files: its trace is the one the jobs API reads */
START_TEST(test_runner_id_spelling)
{
	fx f;
	project(&f, "private");
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);
	long long p = pipeline(&f, "master", false);
	long long build = job(&f, p, 0, "build", "{}", NULL, false);
	process(p);
	resp *r = request_job(tok);
	ck_status(r, 201);
	char *bt = S(strdup(jstr(r->json, "token")));
	char *url = S(fmt("%s/api/v4/jobs/0%lld/trace", api_url(), build));
	char *th = S(fmt("JOB-TOKEN: %s", bt));
	const char *headers[] = {UA[0], th, "Content-Range: 0-5", NULL};
	r = R(http_request("PATCH", url, headers, "hello\n", 6, "text/plain"));
	ck_status(r, 202);
	ck_code(patch_trace(build, bt, "6-11", "world\n"), 202);
	ck_assert_str_eq(trace_file(f.id, build), "hello\nworld\n");
	r = R(api("GET", S(fmt("/projects/%lld/jobs/%lld/trace", f.id, build)), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "hello\nworld\n");
}
END_TEST

/* A zip whose one file name holds content (made with zip(1) in the stack's directory):
 * its bytes, and their number in *n. */
static char *zip_of(const char *name, const char *content, size_t *n)
{
	char *dir = S(fmt("%s/zip-src-%d", getenv("COLLABD_DIR"), (int)getpid()));
	char *cmd = S(fmt("rm -rf '%s' && mkdir -p '%s' && cd '%s' && printf '%%s' '%s' > '%s'"
			  " && zip -q out.zip '%s'",
			  dir, dir, dir, content, name, name));
	ck_assert_int_eq(system(cmd), 0);
	FILE *fp = fopen(S(fmt("%s/out.zip", dir)), "rb");
	ck_assert(fp != NULL);
	char *b = S(malloc(1 << 16));
	*n = fread(b, 1, 1 << 16, fp);
	fclose(fp);
	ck_assert_int_eq(system(S(fmt("rm -rf '%s'", dir))), 0);
	return b;
}

/* A job that uploads its artifacts again: one file of the archive read through the jobs
 * API is the new archive's, not the one extracted from the first upload */
START_TEST(test_runner_artifacts_again)
{
	fx f;
	project(&f, "private");
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);
	long long p = pipeline(&f, "master", false);
	long long build = job(&f, p, 0, "build", "{}", NULL, false);
	process(p);
	resp *r = request_job(tok);
	ck_status(r, 201);
	char *bt = S(strdup(jstr(r->json, "token")));
	size_t n;
	char *one = zip_of("out.txt", "one", &n);
	ck_code(upload(build, bt, one, n, NULL), 201);
	char *file = S(fmt("/projects/%lld/jobs/%lld/artifacts/out.txt", f.id, build));
	r = R(api("GET", file, f.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "one");
	char *two = zip_of("out.txt", "two", &n);
	ck_code(upload(build, bt, two, n, NULL), 201);
	r = R(api("GET", file, f.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "two");
	/* an upload that fails (its answer cannot be made: a variable sealed with another
	 * key) changes nothing: the archive before it is still there */
	free(sql_value("INSERT INTO ci_variables (project_id, key, value_sealed)"
		       " VALUES (%lld, 'BROKEN', 'abcdef')",
		       f.id));
	char *three = zip_of("out.txt", "three", &n);
	ck_code(upload(build, bt, three, n, NULL), 500);
	r = R(api("GET", file, f.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "two");
	ck_code(R(api("GET", S(fmt("/projects/%lld/jobs/%lld/artifacts", f.id, build)), f.owner,
		      NULL)),
		200);
}
END_TEST

/* ---- git with the job token ---- */

START_TEST(test_runner_git_job_token)
{
	fx f;
	project(&f, "private");
	ck_code(R(api("POST", S(fmt("/projects/%lld/repository/files/README.md", f.id)), f.owner,
		      "branch=master&content=hello&commit_message=init")),
		201);
	char *tok = register_runner(project_token(f.id, f.owner), NULL, NULL);
	long long p = pipeline(&f, "master", false);
	long long j = job(&f, p, 0, "build", "{}", NULL, false);
	process(p);
	resp *r = request_job(tok);
	ck_status(r, 201);
	char *jt = S(strdup(jstr(r->json, "token")));
	const char *repo_url = jstr(jget(r->json, "git_info"), "repo_url");
	char *work = git_work_new();
	char *out = NULL;
	/* the payload's own URL, with the external URL replaced by the stack's */
	const char *at = strchr(repo_url, '@');
	ck_assert(at != NULL);
	const char *path = strchr(at, '/');
	char *url =
		S(fmt("http://gitlab-ci-token:%s@%s%s", jt, api_url() + strlen("http://"), path));
	int rc = git_sh(work, &out, "clone -q '%s' c", url);
	ck_assert_msg(rc == 0, "clone: %s", out);
	free(out);
	/* never a push */
	rc = git_sh(work, &out,
		    "-C c commit -q --allow-empty -m x && git -C c push -q origin master");
	ck_assert_msg(rc != 0, "push with a job token: %s", out);
	free(out);
	/* another user's private project stays hidden */
	fx other;
	project(&other, "private");
	rc = git_sh(work, &out, "clone -q 'http://gitlab-ci-token:%s@%s/%s.git' d", jt,
		    api_url() + strlen("http://"), other.path);
	ck_assert_int_ne(rc, 0);
	free(out);
	/* ... until the job's user may read it: a reporter of it */
	ck_code(R(api("POST", S(fmt("/projects/%lld/repository/files/f.txt", other.id)),
		      other.owner, "branch=master&content=x&commit_message=init")),
		201);
	fixture_member("Project", other.id, f.owner_id, 20);
	rc = git_sh(work, &out, "clone -q 'http://gitlab-ci-token:%s@%s/%s.git' d2 && cat d2/f.txt",
		    jt, api_url() + strlen("http://"), other.path);
	ck_assert_msg(rc == 0 && strcmp(out, "x") == 0, "clone as the job's user: %s", out);
	free(out);
	/* the job ends: the token stops */
	ck_code(update_job(j, jt, "success", NULL), 200);
	rc = git_sh(work, &out, "clone -q '%s' e", url);
	ck_assert_int_ne(rc, 0);
	ck_assert_msg(strstr(out, "401") || strstr(out, "uthentication"), "%s", out);
	free(out);
	git_work_remove(work);
}
END_TEST

/* ---- end to end: a push of .gitlab-ci.yml to a pipeline's success ---- */

/* Waits (at most 20 s) for project_id's first pipeline (the push job of the background
 * process makes it): its id. */
static long long wait_pipeline(long long project_id)
{
	for (int i = 0; i < 200; i++) {
		long long id = sql_int("SELECT coalesce(min(id), 0) FROM ci_pipelines"
				       " WHERE project_id = %lld",
				       project_id);
		if (id)
			return id;
		usleep(100000);
	}
	ck_abort_msg("no pipeline for project %lld", project_id);
	return 0;
}

START_TEST(test_runner_end_to_end)
{
	fx f;
	project(&f, "private");
	char *tag = S(unique("e2e"));
	char *yml = S(fmt("stages: [build, test]\n"
			  "variables: {GREETING: hello}\n"
			  "build:\n"
			  "  stage: build\n"
			  "  tags: [%s]\n"
			  "  script: [make]\n"
			  "  artifacts: {paths: [out/], expire_in: 1 week}\n"
			  "  coverage: '/total: \\d+%%/'\n"
			  "test:\n"
			  "  stage: test\n"
			  "  tags: [%s]\n"
			  "  script: [make check]\n",
			  tag, tag));
	/* the owner pushes the configuration over HTTP */
	char *work = git_work_new();
	char *out = NULL;
	const char *host = api_url() + strlen("http://");
	int rc = git_sh(work, &out, "clone -q 'http://u:%s@%s/%s.git' w", f.owner, host, f.path);
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
	long long p = wait_pipeline(f.id);
	ck_assert_str_eq(pipeline_status(p), "pending");

	/* a shared runner for the tag takes the build job */
	char *extra = S(fmt(",\"tag_list\":\"%s\",\"run_untagged\":false", tag));
	char *tok = register_runner(shared_token(), extra, NULL);
	resp *r = request_job(tok);
	ck_status(r, 201);
	ck_assert_str_eq(jstr(jget(r->json, "job_info"), "name"), "build");
	long long build = jint(r->json, "id");
	char *bt = S(strdup(jstr(r->json, "token")));
	json_object *git = jget(r->json, "git_info");
	ck_assert_str_eq(jstr(git, "sha"), sha);
	ck_assert_str_eq(jstr(git, "ref"), "master");
	ck_assert_str_eq(var(r->json, "GREETING", NULL), "hello");
	ck_assert_str_eq(var(r->json, "CI_COMMIT_SHA", NULL), sha);
	ck_assert_str_eq(var(r->json, "CI_RUNNER_TAGS", NULL), tag);
	ck_assert_str_eq(jstr(json_object_array_get_idx(jget(r->json, "steps"), 0), "name"),
			 "script");
	ck_assert_str_eq(jstr(json_object_array_get_idx(jget(r->json, "artifacts"), 0),
			      "expire_in"),
			 "1 week");
	ck_assert_str_eq(pipeline_status(p), "running");

	/* the runner clones with the job token, from the payload's URL */
	const char *url = jstr(git, "repo_url");
	const char *path = strchr(strchr(url, '@'), '/');
	char *clone = S(fmt("http://gitlab-ci-token:%s@%s%s", bt, host, path));
	rc = git_sh(work, &out, "clone -q '%s' job && git -C job rev-parse HEAD", clone);
	ck_assert_msg(rc == 0 && strstr(out, sha), "job clone: %s", out);
	free(out);

	/* trace in two patches, the archive, success */
	ck_code(patch_trace(build, bt, "0-6", "$ make"), 202);
	ck_code(patch_trace(build, bt, "6-20", "\ntotal: 87%\n"), 202);
	static const char zip[] = "PK\005\006 end to end";
	ck_code(upload(build, bt, zip, sizeof(zip) - 1, "?expire_in=1%20week"), 201);
	ck_code(update_job(build, bt, "success", NULL), 200);
	ck_assert_str_eq(status_of(build), "success");
	resp *pr = R(api("GET", S(fmt("/projects/%lld/pipelines/%lld", f.id, p)), f.owner, NULL));
	ck_status(pr, 200);
	ck_jstr(pr, "status", "running");

	/* the next stage: its job gets the build's archive */
	r = request_job(tok);
	ck_status(r, 201);
	ck_assert_str_eq(jstr(jget(r->json, "job_info"), "name"), "test");
	long long test = jint(r->json, "id");
	char *tt = S(strdup(jstr(r->json, "token")));
	json_object *dep = json_object_array_get_idx(jget(r->json, "dependencies"), 0);
	ck_assert_int_eq(jint(dep, "id"), build);
	r = download(build, tt);
	ck_status(r, 200);
	ck_assert_int_eq(r->body_len, sizeof(zip) - 1);
	ck_assert(memcmp(r->body, zip, sizeof(zip) - 1) == 0);
	ck_code(update_job(test, tt, "success", "ok\\n"), 200);
	pr = R(api("GET", S(fmt("/projects/%lld/pipelines/%lld", f.id, p)), f.owner, NULL));
	ck_status(pr, 200);
	ck_jstr(pr, "status", "success");
	ck_assert(!jnull(pr->json, "finished_at"));
	ck_assert_str_eq(
		S(sql_value("SELECT coverage::text FROM commit_statuses WHERE id = %lld", build)),
		"87");
	/* both tokens have stopped */
	rc = git_sh(work, &out, "clone -q 'http://gitlab-ci-token:%s@%s%s' after", tt, host, path);
	ck_assert_int_ne(rc, 0);
	free(out);
	ck_code(request_job(tok), 204);
	git_work_remove(work);
}
END_TEST

/* ---- a replay of gitlab-runner 10.8.2 ---- */

/* What gitlab-runner 10.8.2 sends (network/gitlab.go, common/network.go of v10.8.2):
 * doJSON's requests carry Content-Type: application/json, its User-Agent, and Accept:
 * application/json when it reads an answer; the info of registration has no executor
 * (getRunnerVersion(RunnerConfig{})), that of a job request and an update the shell
 * executor's; FeaturesInfo.Artifacts is tagged "features". PatchTrace sends the bytes as
 * text/plain with Content-Range "<offset>-<limit>" (limit: the length of the trace so
 * far) and JOB-TOKEN; the archive goes as multipart part "file" (CreateFormFile), the
 * token as JOB-TOKEN, expire_in in the query; DownloadArtifacts sends JOB-TOKEN alone. */
#define UA_10_8 "User-Agent: gitlab-runner 10.8.2 (10-8-stable; go1.9.4; linux/amd64)"
#define INFO_REGISTER_10_8                                                                         \
	"{\"name\":\"gitlab-runner\",\"version\":\"10.8.2\",\"revision\":\"44ab4d42\","            \
	"\"platform\":\"linux\",\"architecture\":\"amd64\",\"features\":{\"variables\":false,"     \
	"\"image\":false,\"services\":false,\"features\":false,\"cache\":false,"                   \
	"\"shared\":false}}"
#define INFO_10_8                                                                                  \
	"{\"name\":\"gitlab-runner\",\"version\":\"10.8.2\",\"revision\":\"44ab4d42\","            \
	"\"platform\":\"linux\",\"architecture\":\"amd64\",\"executor\":\"shell\","                \
	"\"features\":{\"variables\":true,\"image\":false,\"services\":false,"                     \
	"\"features\":true,\"cache\":true,\"shared\":true}}"

/* doJSON: METHOD /api/v4/<path> with a JSON body; accept when the runner reads the
 * answer's body. */
static resp *replay_json(const char *method, const char *path, const char *json, bool accept)
{
	const char *headers[] = {UA_10_8, accept ? "Accept: application/json" : NULL, NULL};
	return R(http_request(method, S(fmt("%s/api/v4/%s", api_url(), path)), headers, json,
			      strlen(json), "application/json"));
}

/* PatchTrace: the bytes of trace[offset..limit). */
static resp *replay_patch(long long id, const char *token, const char *trace, size_t offset,
			  size_t limit)
{
	const char *headers[] = {S(fmt("Content-Range: %zu-%zu", offset, limit)),
				 S(fmt("JOB-TOKEN: %s", token)), UA_10_8, NULL};
	return R(http_request("PATCH", S(fmt("%s/api/v4/jobs/%lld/trace", api_url(), id)), headers,
			      trace + offset, limit - offset, "text/plain"));
}

/* s[0..n) as a Go json.Marshal string: control characters, <, > and & as \u00XX. */
static char *go_json_string(const char *s, size_t n)
{
	char *out = S(malloc(n * 6 + 3)), *o = out;
	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c == '\n') {
			o += sprintf(o, "\\n");
		} else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
			o += sprintf(o, "\\u%04x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '"';
	*o = '\0';
	return out;
}

START_TEST(test_runner_replay_10_8)
{
	fx f;
	project(&f, "private");
	char *tag = S(unique("replay"));
	long long p = pipeline(&f, "master", false);
	long long build = job(&f, p, 0, "build", S(fmt("{%s}", tag)),
			      "{\"script\":[\"make\"],\"artifacts\":{\"paths\":[\"out/\"],"
			      "\"expire_in\":\"1 week\"}}",
			      false);
	long long test = job(&f, p, 1, "test", S(fmt("{%s}", tag)), NULL, false);
	process(p);

	/* gitlab-runner register, then verify */
	resp *r = replay_json(
		"POST", "runners",
		S(fmt("{\"description\":\"replay\",\"tag_list\":\"%s\","
		      "\"run_untagged\":false,\"locked\":true,\"info\":" INFO_REGISTER_10_8
		      ",\"token\":\"%s\"}",
		      tag, project_token(f.id, f.owner))),
		true);
	ck_status(r, 201);
	ck_header(r, "Content-Type", "application/json");
	char *tok = S(strdup(jstr(r->json, "token")));
	ck_code(replay_json("POST", "runners/verify", S(fmt("{\"token\":\"%s\"}", tok)), false),
		200);

	/* the first stage's job */
	char *request = S(fmt("{\"info\":" INFO_10_8 ",\"token\":\"%s\"}", tok));
	r = replay_json("POST", "jobs/request", request, true);
	ck_status(r, 201);
	ck_header(r, "Content-Type", "application/json");
	ck_assert_int_eq(jint(r->json, "id"), build);
	char *bt = S(strdup(jstr(r->json, "token")));
	ck_assert_str_eq(jstr(json_object_array_get_idx(jget(r->json, "artifacts"), 0),
			      "expire_in"),
			 "1 week");
	/* incrementalUpdate: the state first, without a trace */
	char *running =
		S(fmt("{\"info\":" INFO_10_8 ",\"token\":\"%s\",\"state\":\"running\"}", bt));
	ck_code(replay_json("PUT", S(fmt("jobs/%lld", build)), running, false), 200);
	/* the trace in patches: ANSI codes, a NUL byte, UTF-8 */
	static const char trace[] = "\x1b[0KRunning with gitlab-runner 10.8.2 (44ab4d42)\n"
				    "\x1b[0;m\x1b[0;33mUsing Shell executor...\x1b[0;m\n"
				    "\x1b[32;1m$ make\x1b[0;m\nbuilt <caf\xc3\xa9> & \0done\r\n"
				    "\x1b[0K\x1b[32;1mJob succeeded\n\x1b[0;m";
	size_t tn = sizeof(trace) - 1, cut1 = 50, cut2 = 120;
	ck_assert(cut2 < tn && trace[cut2 - 1] != '\0');
	r = replay_patch(build, bt, trace, 0, cut1);
	ck_status(r, 202);
	ck_header(r, "Job-Status", "running");
	ck_header(r, "Range", S(fmt("0-%zu", cut1)));
	r = replay_patch(build, bt, trace, cut1, cut2);
	ck_status(r, 202);
	ck_header(r, "Range", S(fmt("0-%zu", cut2)));
	/* a patch sent again (its answer lost): the range the runner resends from */
	r = replay_patch(build, bt, trace, cut1, cut2);
	ck_status(r, 416);
	ck_header(r, "Range", S(fmt("0-%zu", cut2)));
	r = replay_patch(build, bt, trace, cut2, tn);
	ck_status(r, 202);
	ck_header(r, "Range", S(fmt("0-%zu", tn)));

	/* artifacts-uploader: the archive as Go's multipart.Writer writes it */
	static const char zip[] = "PK\003\004replay\0\377archive";
	size_t zn = sizeof(zip) - 1;
	const char *boundary = "3f1e5a0c9b7d2e4f6a8c0b1d3e5f7a9c2b4d6e8f0a1c3e5b7d9f1a3c5e7b";
	char *part = S(fmt("--%s\r\nContent-Disposition: form-data; name=\"file\";"
			   " filename=\"artifacts.zip\"\r\nContent-Type: application/octet-stream"
			   "\r\n\r\n",
			   boundary));
	char *tail = S(fmt("\r\n--%s--\r\n", boundary));
	size_t bn = strlen(part) + zn + strlen(tail);
	char *body = S(malloc(bn));
	memcpy(body, part, strlen(part));
	memcpy(body + strlen(part), zip, zn);
	memcpy(body + strlen(part) + zn, tail, strlen(tail));
	const char *uh[] = {S(fmt("JOB-TOKEN: %s", bt)), UA_10_8, "Transfer-Encoding: chunked",
			    NULL};
	r = R(http_request(
		"POST", S(fmt("%s/api/v4/jobs/%lld/artifacts?expire_in=1+week", api_url(), build)),
		uh, body, bn, S(fmt("multipart/form-data; boundary=%s", boundary))));
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), build);

	/* the final update: the state and the whole trace, as JSON */
	char *final = S(fmt("{\"info\":" INFO_10_8 ",\"token\":\"%s\",\"state\":\"success\","
			    "\"trace\":%s}",
			    bt, go_json_string(trace, tn)));
	ck_assert_ptr_nonnull(strstr(final, "\\u001b[0K"));
	ck_assert_ptr_nonnull(strstr(final, "\\u0000done"));
	r = replay_json("PUT", S(fmt("jobs/%lld", build)), final, false);
	ck_status(r, 200);
	ck_assert_str_eq(status_of(build), "success");
	/* sent again (a retry after a lost answer): the job has ended, the runner stops */
	r = replay_json("PUT", S(fmt("jobs/%lld", build)), final, false);
	ck_body(r, 403, "{\"message\":\"403 Forbidden  - Job is not running\"}");
	ck_header(r, "Job-Status", "success");

	/* the second stage's job lists its dependency with its archive */
	r = replay_json("POST", "jobs/request", request, true);
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), test);
	char *tt = S(strdup(jstr(r->json, "token")));
	json_object *deps = jget(r->json, "dependencies");
	ck_assert_int_eq(json_object_array_length(deps), 1);
	json_object *dep = json_object_array_get_idx(deps, 0);
	ck_assert_int_eq(jint(dep, "id"), build);
	ck_assert_str_eq(jstr(dep, "name"), "build");
	ck_assert_str_eq(jstr(jget(dep, "artifacts_file"), "filename"), "artifacts.zip");
	ck_assert_int_eq(jint(jget(dep, "artifacts_file"), "size"), zn);
	/* artifacts-downloader with the dependency's token */
	const char *dh[] = {S(fmt("JOB-TOKEN: %s", jstr(dep, "token"))), NULL};
	r = R(http_request("GET", S(fmt("%s/api/v4/jobs/%lld/artifacts", api_url(), build)), dh,
			   NULL, 0, NULL));
	ck_status(r, 200);
	ck_assert(r->body_len == zn && memcmp(r->body, zip, zn) == 0);
	/* its updates: the state, an ANSI trace without NUL (what every job's final update
	 * was refused for), success */
	ck_code(replay_json("PUT", S(fmt("jobs/%lld", test)),
			    S(fmt("{\"info\":" INFO_10_8 ",\"token\":\"%s\",\"state\":\"running\"}",
				  tt)),
			    false),
		200);
	static const char ansi[] = "\x1b[0KRunning\n\x1b[32;1m$ make check\x1b[0;m\nok\n";
	r = replay_json("PUT", S(fmt("jobs/%lld", test)),
			S(fmt("{\"info\":" INFO_10_8 ",\"token\":\"%s\",\"state\":\"success\","
			      "\"trace\":%s}",
			      tt, go_json_string(ansi, sizeof(ansi) - 1))),
			false);
	ck_status(r, 200);

	/* the statuses, the trace byte for byte, the archive */
	ck_assert_str_eq(status_of(build), "success");
	ck_assert_str_eq(status_of(test), "success");
	ck_assert_str_eq(pipeline_status(p), "success");
	r = R(api("GET", S(fmt("/projects/%lld/jobs/%lld/trace", f.id, build)), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(r->body_len, tn);
	ck_assert(memcmp(r->body, trace, tn) == 0);
	r = R(api("GET", S(fmt("/projects/%lld/jobs/%lld/trace", f.id, test)), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(r->body_len, sizeof(ansi) - 1);
	ck_assert(memcmp(r->body, ansi, sizeof(ansi) - 1) == 0);
	ck_assert_int_eq(sql_int("SELECT trace_size FROM ci_builds WHERE id = %lld", build), tn);
	r = R(api("GET", S(fmt("/projects/%lld/jobs/%lld/artifacts", f.id, build)), f.owner, NULL));
	ck_status(r, 200);
	ck_assert(r->body_len == zn && memcmp(r->body, zip, zn) == 0);
	/* the runner polls again: nothing */
	r = replay_json("POST", "jobs/request", request, true);
	ck_status(r, 204);
	ck_assert_ptr_nonnull(resp_header(r, "X-GitLab-Last-Update"));
}
END_TEST

Suite *suite_runner(void)
{
	Suite *s = suite_create("runner");
	TCase *tc = tcase_create("runner");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_runner_register);
	tcase_add_test(tc, test_runner_verify_and_unregister);
	tcase_add_test(tc, test_runner_request_none);
	tcase_add_test(tc, test_runner_matching);
	tcase_add_test(tc, test_runner_race);
	tcase_add_test(tc, test_runner_payload);
	tcase_add_test(tc, test_runner_protected_variables);
	tcase_add_test(tc, test_runner_predefined_variables);
	tcase_add_test(tc, test_runner_commit_variables);
	tcase_add_test(tc, test_runner_protected_at_hand_out);
	tcase_add_test(tc, test_runner_trace_and_update);
	tcase_add_test(tc, test_runner_id_spelling);
	tcase_add_test(tc, test_runner_failure);
	tcase_add_test(tc, test_runner_artifacts);
	tcase_add_test(tc, test_runner_artifacts_again);
	tcase_add_test(tc, test_runner_git_job_token);
	tcase_add_test(tc, test_runner_end_to_end);
	tcase_add_test(tc, test_runner_replay_10_8);
	suite_add_tcase(s, tc);
	return s;
}
