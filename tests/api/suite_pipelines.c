/* API suite: pipelines (spec 4.2): pipelines made by pushes (an API commit of
 * .gitlab-ci.yml, run by the background process), their jobs' rows and status, a file
 * with errors, [ci skip], the list's filters, order and pages, one pipeline, POST
 * /pipeline, retry and cancel, and access per role. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"

static const char *const BASIC_FIELDS[] = {"id", "sha", "ref", "status", NULL};
static const char *const FULL_FIELDS[] = {
	"id",           "sha",      "ref",        "status",     "before_sha", "tag",
	"yaml_errors",  "user",     "created_at", "updated_at", "started_at", "finished_at",
	"committed_at", "duration", "coverage",   NULL};
static const char *const USER_FIELDS[] = {"id",         "name",    "username", "state",
					  "avatar_url", "web_url", NULL};

/* build (stage build), test and a manual job (stage test), and deploy only for tags */
static const char *const CI_YML = "stages: [build, test, deploy]\n"
				  "variables: {GLOBAL: g}\n"
				  ".tpl: &tpl\n"
				  "  tags: [docker]\n"
				  "build:\n"
				  "  <<: *tpl\n"
				  "  stage: build\n"
				  "  script: make\n"
				  "  artifacts: {paths: [out/]}\n"
				  "test:\n"
				  "  script: [make check]\n"
				  "  variables: {LOCAL: l}\n"
				  "  environment: review/${CI_COMMIT_REF_SLUG}-$CI_JOB_NAME$NOPE\n"
				  "manual:\n"
				  "  script: [echo]\n"
				  "  when: manual\n"
				  "deploy:\n"
				  "  stage: deploy\n"
				  "  script: [ship]\n"
				  "  only: [tags]\n";

typedef struct {
	long long id;
	char *owner;
	long long owner_id;
	char *owner_name;
	char *path;
} fx;

static void project(fx *f, const char *visibility)
{
	f->owner = S(make_user("pl_own", &f->owner_id, &f->owner_name));
	S(f->owner_name);
	f->id = api_project(f->owner, visibility, &f->path);
	S(f->path);
}

static char *member(long long pid, int level, long long *id)
{
	long long uid;
	char *token = S(make_user("pl_m", &uid, NULL));
	if (level)
		fixture_member("Project", pid, uid, level);
	if (id)
		*id = uid;
	return token;
}

static char *P(const fx *f, const char *suffix)
{
	return S(fmt("/projects/%lld%s", f->id, suffix));
}

/* A commit on branch that creates (or updates) path with content: its id. */
static const char *commit(const fx *f, const char *branch, const char *action, const char *path,
			  const char *content, const char *message)
{
	json_object *o = json_object_new_object(), *a = json_object_new_object(),
		    *actions = json_object_new_array();
	json_object_object_add(o, "branch", json_object_new_string(branch));
	json_object_object_add(o, "commit_message", json_object_new_string(message));
	json_object_object_add(a, "action", json_object_new_string(action));
	json_object_object_add(a, "file_path", json_object_new_string(path));
	json_object_object_add(a, "content", json_object_new_string(content));
	json_object_array_add(actions, a);
	json_object_object_add(o, "actions", actions);
	char *body = S(strdup(json_object_to_json_string(o)));
	json_object_put(o);
	resp *r = R(api_json("POST", P(f, "/repository/commits"), f->owner, body));
	ck_status(r, 201);
	return jstr(r->json, "id");
}

/* A branch or tag (kind: branches, tags) made from master by POST /repository/<kind>. */
static void new_ref(const fx *f, const char *kind, const char *name_param)
{
	ck_status(R(api("POST", P(f, S(fmt("/repository/%s", kind))), f->owner,
			S(fmt("%s&ref=master", name_param)))),
		  201);
}

/* Waits (at most 20 s) until no push job of project pid waits: what its pushes made is
 * committed. */
static void wait_pushes(long long pid)
{
	for (int i = 0; i < 200; i++) {
		if (sql_int("SELECT count(*) FROM background_jobs WHERE kind = 'push'"
			    " AND payload->>'project_id' = '%lld'",
			    pid) == 0)
			return;
		usleep(100000);
	}
	ck_abort_msg("the push jobs of project %lld did not run", pid);
}

static long long npipelines(long long pid)
{
	return sql_int("SELECT count(*) FROM ci_pipelines WHERE project_id = %lld", pid);
}

/* POST /pipeline?ref=ref as token: the response. */
static resp *create(const fx *f, const char *token, const char *ref)
{
	return R(api("POST", P(f, S(fmt("/pipeline?ref=%s", ref))), token, NULL));
}

static long long create_ok(const fx *f, const char *ref)
{
	resp *r = create(f, f->owner, ref);
	ck_status(r, 201);
	return jint(r->json, "id");
}

static const char *job_status(long long pipeline, const char *name)
{
	return S(sql_value("SELECT status FROM commit_statuses WHERE pipeline_id = %lld"
			   " AND name = '%s' AND NOT retried",
			   pipeline, name));
}

/* The ids of a list response, in order, as "1,2,3". */
static const char *ids_of(resp *r)
{
	ck_assert_msg(r->json && json_object_is_type(r->json, json_type_array), "%s", r->body);
	char *out = S(calloc(1, 4096));
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *p = json_object_array_get_idx(r->json, i);
		ck_fields(p, BASIC_FIELDS);
		sprintf(out + strlen(out), "%s%lld", i ? "," : "", jint(p, "id"));
	}
	return out;
}

static void ck_base_error(resp *r, const char *message)
{
	ck_body(r, 400, S(fmt("{\"message\":{\"base\":[\"%s\"]}}", message)));
}

/* ---- pushes ---- */

START_TEST(test_push_makes_pipeline)
{
	fx f;
	project(&f, "private");
	const char *sha = commit(&f, "master", "create", ".gitlab-ci.yml", CI_YML, "add ci");
	wait_pushes(f.id);
	/* one pipeline, exactly once */
	ck_assert_int_eq(npipelines(f.id), 1);
	resp *r = R(api("GET", P(&f, "/pipelines"), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	json_object *p = json_object_array_get_idx(r->json, 0);
	ck_fields(p, BASIC_FIELDS);
	ck_assert_str_eq(jstr(p, "sha"), sha);
	ck_assert_str_eq(jstr(p, "ref"), "master");
	/* the first stage started: build pending, the others waiting */
	ck_assert_str_eq(jstr(p, "status"), "pending");
	long long id = jint(p, "id");
	ck_assert_str_eq(job_status(id, "build"), "pending");
	ck_assert_str_eq(job_status(id, "test"), "created");
	ck_assert_str_eq(job_status(id, "manual"), "created");
	/* deploy is only for tags */
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM commit_statuses WHERE pipeline_id = %lld", id), 3);
	ck_assert_str_eq(S(sql_value("SELECT source FROM ci_pipelines WHERE id = %lld", id)),
			 "push");
	/* the jobs' rows: stage, index, when, tags, options, variables, environment */
	ck_assert_str_eq(S(sql_value("SELECT concat_ws('|', cs.stage, cs.stage_idx, cs.\"when\","
				     " cs.allow_failure::text, b.tag_list::text,"
				     " b.options->>'script',"
				     " b.options->'artifacts'->>'paths', b.yaml_variables::text)"
				     " FROM commit_statuses cs JOIN ci_builds b ON b.id = cs.id"
				     " WHERE cs.pipeline_id = %lld AND cs.name = 'build'",
				     id)),
			 "build|0|on_success|false|{docker}|[\"make\"]|[\"out/\"]|"
			 "[{\"key\": \"GLOBAL\", \"value\": \"g\", \"public\": true}]");
	ck_assert_str_eq(S(sql_value("SELECT concat_ws('|', cs.stage_idx, b.environment,"
				     " b.yaml_variables::text) FROM commit_statuses cs"
				     " JOIN ci_builds b ON b.id = cs.id"
				     " WHERE cs.pipeline_id = %lld AND cs.name = 'test'",
				     id)),
			 "1|review/master-test|"
			 "[{\"key\": \"GLOBAL\", \"value\": \"g\", \"public\": true},"
			 " {\"key\": \"LOCAL\", \"value\": \"l\", \"public\": true}]");
	ck_assert_str_eq(S(sql_value("SELECT concat_ws('|', cs.\"when\", cs.allow_failure::text)"
				     " FROM commit_statuses cs WHERE cs.pipeline_id = %lld"
				     " AND cs.name = 'manual'",
				     id)),
			 "manual|true");
	/* the full record */
	r = R(api("GET", P(&f, S(fmt("/pipelines/%lld", id))), f.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, FULL_FIELDS);
	ck_fields(jget(r->json, "user"), USER_FIELDS);
	ck_assert_int_eq(jint(jget(r->json, "user"), "id"), f.owner_id);
	ck_jstr(r, "status", "pending");
	ck_jstr(r, "before_sha", "0000000000000000000000000000000000000000");
	ck_assert(!jbool(r->json, "tag"));
	ck_assert(jnull(r->json, "yaml_errors"));
	ck_assert(jnull(r->json, "started_at"));
	ck_assert(jnull(r->json, "finished_at"));
	ck_assert(jnull(r->json, "duration"));
	ck_assert(jnull(r->json, "coverage"));
	ck_assert(!jnull(r->json, "committed_at"));

	/* a second push: a second pipeline, its before_sha the first commit */
	const char *sha2 = commit(&f, "master", "create", "README", "hello", "readme");
	wait_pushes(f.id);
	ck_assert_int_eq(npipelines(f.id), 2);
	r = R(api("GET", P(&f, "/pipelines"), f.owner, NULL));
	p = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(p, "sha"), sha2);
	r = R(api("GET", P(&f, S(fmt("/pipelines/%lld", jint(p, "id")))), f.owner, NULL));
	ck_jstr(r, "before_sha", sha);

	/* a new branch and a tag run their pipelines; deploy runs for the tag */
	new_ref(&f, "branches", "branch=Feature/X_1");
	new_ref(&f, "tags", "tag_name=v1.0");
	wait_pushes(f.id);
	ck_assert_int_eq(npipelines(f.id), 4);
	/* the environment's name with the ref's slug */
	ck_assert_str_eq(S(sql_value("SELECT b.environment FROM ci_builds b JOIN ci_pipelines p"
				     " ON p.id = b.pipeline_id"
				     " JOIN commit_statuses cs ON cs.id = b.id"
				     " WHERE p.project_id = %lld AND p.ref = 'Feature/X_1'"
				     " AND cs.name = 'test'",
				     f.id)),
			 "review/feature-x-1-test");
	long long tag_id = sql_int("SELECT id FROM ci_pipelines WHERE project_id = %lld AND tag"
				   " AND ref = 'v1.0'",
				   f.id);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM commit_statuses WHERE pipeline_id = %lld",
				 tag_id),
			 4);
	r = R(api("GET", P(&f, S(fmt("/pipelines/%lld", tag_id))), f.owner, NULL));
	ck_assert(jbool(r->json, "tag"));
	/* a deleted branch runs nothing */
	ck_status(R(api("DELETE", P(&f, "/repository/branches/Feature%2FX_1"), f.owner, NULL)),
		  204);
	wait_pushes(f.id);
	ck_assert_int_eq(npipelines(f.id), 4);
}
END_TEST

START_TEST(test_git_push)
{
	fx f;
	project(&f, "private");
	char *work = git_work_new();
	const char *base = api_url();
	char *url = S(fmt("http://u:%s@%s/%s.git", f.owner, base + strlen("http://"), f.path));
	char *yml = S(fmt("%s/ci.yml", work));
	FILE *w = fopen(yml, "w");
	ck_assert_ptr_nonnull(w);
	fputs(CI_YML, w);
	fclose(w);
	/* one push of two branches and a tag: a pipeline for each, once */
	char *out = NULL;
	int rc = git_sh(work, &out,
			"init -q a && cp ci.yml a/.gitlab-ci.yml && git -C a add .gitlab-ci.yml &&"
			" git -C a commit -q -m ci && git -C a tag v2 && git -C a branch other &&"
			" git -C a push -q '%s' master other v2",
			url);
	ck_assert_msg(rc == 0, "git push: %s", out ? out : "");
	free(out);
	wait_pushes(f.id);
	ck_assert_int_eq(npipelines(f.id), 3);
	ck_assert_str_eq(S(sql_value("SELECT string_agg(ref || ':' || tag || ':' || source || ':'"
				     " || status, ',' ORDER BY ref) FROM ci_pipelines"
				     " WHERE project_id = %lld",
				     f.id)),
			 "master:false:push:pending,other:false:push:pending,v2:true:push:pending");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM commit_statuses cs JOIN ci_pipelines p"
				 " ON p.id = cs.pipeline_id WHERE p.project_id = %lld AND p.tag",
				 f.id),
			 4);
	/* deleting a branch runs nothing */
	out = NULL;
	rc = git_sh(work, &out, "-C a push -q '%s' :other", url);
	ck_assert_msg(rc == 0, "git push: %s", out ? out : "");
	free(out);
	wait_pushes(f.id);
	ck_assert_int_eq(npipelines(f.id), 3);
	git_work_remove(work);
}
END_TEST

START_TEST(test_push_errors_and_skip)
{
	fx f;
	project(&f, "private");
	/* no configuration: no pipeline */
	commit(&f, "master", "create", "README", "x", "readme");
	wait_pushes(f.id);
	ck_assert_int_eq(npipelines(f.id), 0);
	/* an invalid file: a failed pipeline with GitLab 10's error */
	commit(&f, "master", "create", ".gitlab-ci.yml", "rspec:\n  stage: test\n", "bad ci");
	wait_pushes(f.id);
	ck_assert_int_eq(npipelines(f.id), 1);
	resp *r = R(api("GET", P(&f, "/pipelines?yaml_errors=true"), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	long long bad = jint(json_object_array_get_idx(r->json, 0), "id");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "status"), "failed");
	r = R(api("GET", P(&f, S(fmt("/pipelines/%lld", bad))), f.owner, NULL));
	ck_jstr(r, "yaml_errors", "jobs:rspec script can't be blank");
	ck_assert(!jnull(r->json, "finished_at"));
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM commit_statuses WHERE pipeline_id = %lld", bad), 0);
	/* YAML that does not parse */
	commit(&f, "master", "update", ".gitlab-ci.yml", "a: [b\n", "worse ci");
	wait_pushes(f.id);
	r = R(api("GET", P(&f, "/pipelines?yaml_errors=true"), f.owner, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	r = R(api("GET",
		  P(&f,
		    S(fmt("/pipelines/%lld", jint(json_object_array_get_idx(r->json, 0), "id")))),
		  f.owner, NULL));
	ck_assert_msg(strncmp(jstr(r->json, "yaml_errors"), "(<unknown>): ", 13) == 0, "%s",
		      r->body);
	r = R(api("GET", P(&f, "/pipelines?yaml_errors=false"), f.owner, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	/* [ci skip]: a skipped pipeline, no jobs */
	commit(&f, "master", "update", ".gitlab-ci.yml", "job:\n  script: x\n", "fix ci [ci skip]");
	wait_pushes(f.id);
	r = R(api("GET", P(&f, "/pipelines?status=skipped"), f.owner, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	long long skipped = jint(json_object_array_get_idx(r->json, 0), "id");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM commit_statuses WHERE pipeline_id = %lld",
				 skipped),
			 0);
	commit(&f, "master", "create", "b", "x", "Again [SKIP-CI]");
	wait_pushes(f.id);
	r = R(api("GET", P(&f, "/pipelines?status=skipped"), f.owner, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	/* every job excluded for pushes: no pipeline */
	commit(&f, "master", "update", ".gitlab-ci.yml", "job:\n  script: x\n  except: [pushes]\n",
	       "api only");
	wait_pushes(f.id);
	ck_assert_int_eq(npipelines(f.id), 4);
	/* but the API runs it (and ignores [ci skip]) */
	long long id = create_ok(&f, "master");
	ck_assert_str_eq(job_status(id, "job"), "pending");
	/* jobs turned off: no pipeline from a push */
	ck_status(R(api("PUT", P(&f, ""), f.owner, "jobs_enabled=false")), 200);
	commit(&f, "master", "update", ".gitlab-ci.yml", "job:\n  script: x\n", "on again");
	wait_pushes(f.id);
	ck_assert_int_eq(npipelines(f.id), 5);
	ck_base_error(create(&f, f.owner, "master"), "Pipeline is disabled");
}
END_TEST

/* ---- POST /pipeline ---- */

START_TEST(test_create)
{
	fx f;
	project(&f, "private");
	commit(&f, "master", "create", ".gitlab-ci.yml",
	       "build:\n  stage: build\n  script: x\n"
	       "only_api:\n  script: y\n  only: [api]\n"
	       "not_api:\n  script: z\n  except: [api]\n",
	       "ci");
	wait_pushes(f.id);
	long long before = npipelines(f.id);
	resp *r = create(&f, f.owner, "master");
	ck_status(r, 201);
	ck_fields(r->json, FULL_FIELDS);
	ck_jstr(r, "status", "pending");
	ck_jstr(r, "ref", "master");
	ck_jstr(r, "before_sha", "0000000000000000000000000000000000000000");
	ck_assert_int_eq(jint(jget(r->json, "user"), "id"), f.owner_id);
	long long id = jint(r->json, "id");
	ck_assert_int_eq(npipelines(f.id), before + 1);
	ck_assert_str_eq(S(sql_value("SELECT source FROM ci_pipelines WHERE id = %lld", id)),
			 "api");
	ck_assert_str_eq(S(sql_value("SELECT string_agg(name, ',' ORDER BY id) FROM commit_statuses"
				     " WHERE pipeline_id = %lld",
				     id)),
			 "build,only_api");
	/* ref as a form field too */
	r = R(api("POST", P(&f, "/pipeline"), f.owner, "ref=master"));
	ck_status(r, 201);

	/* errors: GitLab 10's 400s, nothing made */
	before = npipelines(f.id);
	ck_body(R(api("POST", P(&f, "/pipeline"), f.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"ref\\\" not given\"}");
	ck_base_error(create(&f, f.owner, "nope"), "Reference not found");
	/* refs no branch or tag can have: the same answer, nothing else */
	ck_base_error(create(&f, f.owner, "..%2F..%2Fetc"), "Reference not found");
	ck_base_error(create(&f, f.owner, "master%0A"), "Reference not found");
	ck_base_error(create(&f, f.owner, "HEAD"), "Reference not found");
	ck_base_error(create(&f, f.owner, S(fmt("%0*d", 3000, 7))), "Reference not found");
	ck_status(create(&f, f.owner, "a%00b"), 400);
	/* a project without a repository yet */
	fx e;
	project(&e, "private");
	ck_base_error(create(&e, e.owner, "master"), "Reference not found");
	ck_assert_int_eq(npipelines(e.id), 0);
	new_ref(&f, "branches", "branch=empty");
	/* a branch whose file has errors: the error, and no pipeline (the API keeps none) */
	commit(&f, "empty", "update", ".gitlab-ci.yml", "job:\n  script: x\n  when: later\n", "x");
	wait_pushes(f.id);
	before = npipelines(f.id);
	ck_base_error(create(&f, f.owner, "empty"),
		      "jobs:job when should be on_success, on_failure, always or manual");
	commit(&f, "empty", "delete", ".gitlab-ci.yml", "", "no ci");
	wait_pushes(f.id);
	ck_base_error(create(&f, f.owner, "empty"), "Missing .gitlab-ci.yml file");
	commit(&f, "empty", "create", ".gitlab-ci.yml", "job:\n  script: x\n  except: [api]\n",
	       "x");
	wait_pushes(f.id);
	before = npipelines(f.id);
	ck_base_error(create(&f, f.owner, "empty"), "No stages / jobs for this pipeline.");
	ck_assert_int_eq(npipelines(f.id), before);

	/* a tag */
	new_ref(&f, "tags", "tag_name=t1");
	r = create(&f, f.owner, "t1");
	ck_status(r, 201);
	ck_assert(jbool(r->json, "tag"));

	/* access: developers and up; 404 for who cannot see the project; 401 anonymous */
	char *guest = member(f.id, 10, NULL), *reporter = member(f.id, 20, NULL),
	     *developer = member(f.id, 30, NULL), *master = member(f.id, 40, NULL),
	     *stranger = member(f.id, 0, NULL);
	ck_body(create(&f, guest, "master"), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(create(&f, reporter, "master"), 403, "{\"message\":\"403 Forbidden\"}");
	ck_status(create(&f, developer, "master"), 201);
	ck_status(create(&f, master, "master"), 201);
	ck_status(create(&f, admin_token(), "master"), 201);
	ck_body(create(&f, stranger, "master"), 404, "{\"message\":\"404 Project Not Found\"}");
	ck_status(create(&f, NULL, "master"), 401);
	/* a protected branch: those who may push or merge */
	ck_status(R(api("POST", P(&f, "/protected_branches"), f.owner,
			"name=master&push_access_level=40&merge_access_level=40")),
		  201);
	ck_base_error(create(&f, developer, "master"),
		      "Insufficient permissions for protected ref");
	ck_status(create(&f, master, "master"), 201);
	ck_status(R(api("DELETE", P(&f, "/protected_branches/master"), f.owner, NULL)), 204);
	ck_status(R(api("POST", P(&f, "/protected_branches"), f.owner,
			"name=master&push_access_level=40&merge_access_level=30")),
		  201);
	ck_status(create(&f, developer, "master"), 201);
	/* an archived project */
	ck_status(R(api("POST", P(&f, "/archive"), f.owner, NULL)), 201);
	ck_status(create(&f, f.owner, "master"), 403);
}
END_TEST

/* ---- the list ---- */

/* Every name no branch or tag may have is a ref that is not there (GitLab's words), even
 * when git itself was made to hold such a branch: no pipeline is made. */
START_TEST(test_create_bad_ref_names)
{
	fx f;
	project(&f, "private");
	commit(&f, "master", "create", ".gitlab-ci.yml", "build:\n  script: x\n", "ci");
	wait_pushes(f.id);
	put_bad_branches(f.id);
	long long before = npipelines(f.id);
	for (const char *const *n = bad_ref_names; *n; n++) {
		resp *r = create(&f, f.owner, S(enc(*n)));
		ck_assert_msg(r->status == 400, "%s: %ld %s", *n, r->status, r->body);
		ck_base_error(r, "Reference not found");
	}
	ck_assert_int_eq(npipelines(f.id), before);
	create_ok(&f, "master");
}
END_TEST

START_TEST(test_list_filters)
{
	fx f;
	project(&f, "private");
	/* no push pipelines: only the ones made here */
	commit(&f, "master", "create", ".gitlab-ci.yml", "job:\n  script: x\n  except: [pushes]\n",
	       "ci");
	new_ref(&f, "branches", "branch=feature");
	new_ref(&f, "tags", "tag_name=v1");
	wait_pushes(f.id);
	ck_assert_int_eq(npipelines(f.id), 0);
	long long dev_id;
	char *dev = member(f.id, 30, &dev_id);
	char *dev_name = S(sql_value("SELECT username FROM users WHERE id = %lld", dev_id));
	long long m1 = create_ok(&f, "master");
	long long fe = create_ok(&f, "feature");
	long long t1 = create_ok(&f, "v1");
	resp *r = create(&f, dev, "master");
	ck_status(r, 201);
	long long m2 = jint(r->json, "id");
	/* m1 finished: canceled */
	ck_status(R(api("POST", P(&f, S(fmt("/pipelines/%lld/cancel", m1))), f.owner, NULL)), 200);
	/* fe failed with a yaml error (as a push's would be) */
	S(sql_value("UPDATE ci_pipelines SET yaml_errors = 'x', status = 'failed'"
		    " WHERE id = %lld",
		    fe));

	const char *list = P(&f, "/pipelines");
#define IDS(query, token) ids_of(R(api("GET", S(fmt("%s%s", list, query)), (token), NULL)))
	ck_assert_str_eq(IDS("", f.owner), S(fmt("%lld,%lld,%lld,%lld", m2, t1, fe, m1)));
	ck_assert_str_eq(IDS("?sort=asc", f.owner), S(fmt("%lld,%lld,%lld,%lld", m1, fe, t1, m2)));
	ck_assert_str_eq(IDS("?ref=master", f.owner), S(fmt("%lld,%lld", m2, m1)));
	ck_assert_str_eq(IDS("?scope=branches", f.owner), S(fmt("%lld,%lld", m2, fe)));
	ck_assert_str_eq(IDS("?scope=tags", f.owner), S(fmt("%lld", t1)));
	ck_assert_str_eq(IDS("?scope=finished", f.owner), S(fmt("%lld,%lld", fe, m1)));
	ck_assert_str_eq(IDS("?scope=pending", f.owner), S(fmt("%lld,%lld", m2, t1)));
	ck_assert_str_eq(IDS("?scope=running", f.owner), "");
	ck_assert_str_eq(IDS("?status=canceled", f.owner), S(fmt("%lld", m1)));
	ck_assert_str_eq(IDS("?status=failed&ref=feature", f.owner), S(fmt("%lld", fe)));
	ck_assert_str_eq(IDS("?yaml_errors=true", f.owner), S(fmt("%lld", fe)));
	ck_assert_str_eq(IDS("?yaml_errors=false", f.owner), S(fmt("%lld,%lld,%lld", m2, t1, m1)));
	ck_assert_str_eq(IDS(S(fmt("?username=%s", dev_name)), f.owner), S(fmt("%lld", m2)));
	ck_assert_str_eq(IDS(S(fmt("?username=%s", f.owner_name)), f.owner),
			 S(fmt("%lld,%lld,%lld", t1, fe, m1)));
	ck_assert_str_eq(IDS("?username=nobody_at_all", f.owner), "");
	char *dev_full = S(sql_value("SELECT name FROM users WHERE id = %lld", dev_id));
	ck_assert_str_eq(IDS(S(fmt("?name=%s", S(enc(dev_full)))), f.owner), S(fmt("%lld", m2)));
	ck_assert_str_eq(IDS("?order_by=ref&sort=asc", f.owner),
			 S(fmt("%lld,%lld,%lld,%lld", fe, m1, m2, t1)));
	ck_assert_str_eq(IDS("?order_by=status&sort=desc", f.owner),
			 S(fmt("%lld,%lld,%lld,%lld", m2, t1, fe, m1)));
	ck_assert_str_eq(IDS("?order_by=user_id&sort=asc", f.owner),
			 f.owner_id < dev_id ? S(fmt("%lld,%lld,%lld,%lld", m1, fe, t1, m2))
					     : S(fmt("%lld,%lld,%lld,%lld", m2, m1, fe, t1)));
	ck_assert_str_eq(IDS("?order_by=id&sort=desc", dev),
			 S(fmt("%lld,%lld,%lld,%lld", m2, t1, fe, m1)));
#undef IDS
	/* bad filters: 400, GitLab's bodies */
	ck_body(R(api("GET", S(fmt("%s?scope=all", list)), f.owner, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?status=done", list)), f.owner, NULL)), 400,
		"{\"error\":\"status does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?order_by=sha", list)), f.owner, NULL)), 400,
		"{\"error\":\"order_by does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?sort=up", list)), f.owner, NULL)), 400,
		"{\"error\":\"sort does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?yaml_errors=maybe", list)), f.owner, NULL)), 400,
		"{\"error\":\"yaml_errors is invalid\"}");
	/* pages */
	r = R(api("GET", S(fmt("%s?per_page=3&page=1", list)), f.owner, NULL));
	ck_assert_str_eq(ids_of(r), S(fmt("%lld,%lld,%lld", m2, t1, fe)));
	ck_pages(r, list, "", 4, 3, 1);
	r = R(api("GET", S(fmt("%s?ref=master&per_page=1&page=2", list)), f.owner, NULL));
	ck_assert_str_eq(ids_of(r), S(fmt("%lld", m1)));
	ck_pages(r, list, "ref=master", 2, 1, 2);
	ck_body(R(api("GET", S(fmt("%s?per_page=x", list)), f.owner, NULL)), 400,
		"{\"error\":\"per_page is invalid\"}");
}
END_TEST

/* The list with no filter in the default order (its own statement, pipelines_list_plain,
 * that reads the page from the project's index) answers what the general statements
 * answer with a filter that keeps every pipeline: the same pipelines, order and pages. */
START_TEST(test_list_plain)
{
	fx f, g;
	project(&f, "private");
	project(&g, "private");
	/* seven pipelines of master, another project's in between */
	const char *statuses[] = {"success",  "failed",  "running", "pending",
				  "canceled", "skipped", "manual"};
	long long id[7];
	for (int i = 0; i < 7; i++) {
		id[i] = sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, status, user_id)"
				" VALUES (%lld, 'master', '%040d', '%s', %lld) RETURNING id",
				f.id, i, statuses[i], f.owner_id);
		if (i == 3)
			sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, status) VALUES"
				" (%lld, 'master', '%040d', 'success') RETURNING id",
				g.id, 9);
	}
	const char *list = P(&f, "/pipelines");
	const char *general = P(&f, "/pipelines?ref=master");
	resp *r = R(api("GET", list, f.owner, NULL));
	ck_assert_str_eq(ids_of(r), S(fmt("%lld,%lld,%lld,%lld,%lld,%lld,%lld", id[6], id[5], id[4],
					  id[3], id[2], id[1], id[0])));
	ck_pages(r, list, "", 7, 20, 1);
	ck_same_list(list, general, f.owner, "per_page=20");
	ck_same_list(list, P(&f, "/pipelines?order_by=id&sort=desc"), f.owner, "per_page=20");
	ck_same_list(list, P(&f, "/pipelines?yaml_errors=false"), f.owner, "per_page=20");
	/* pages of 3: 1 to 3, and 4 past the end (empty, the same headers) */
	for (int page = 1; page <= 4; page++) {
		const char *pg = S(fmt("per_page=3&page=%d", page));
		ck_same_list(list, general, f.owner, pg);
		r = R(api("GET", S(fmt("%s?%s", list, pg)), f.owner, NULL));
		const char *want[] = {S(fmt("%lld,%lld,%lld", id[6], id[5], id[4])),
				      S(fmt("%lld,%lld,%lld", id[3], id[2], id[1])),
				      S(fmt("%lld", id[0])), ""};
		ck_assert_str_eq(ids_of(r), want[page - 1]);
		ck_pages(r, list, "", 7, 3, page);
	}
	/* the other project's list: its own pipeline only */
	ck_assert_int_eq(
		json_object_array_length(R(api("GET", P(&g, "/pipelines"), g.owner, NULL))->json),
		1);
	/* who reads: a guest while the jobs are public (the same list), not once they are
	 * not; a stranger does not see the project; anonymous callers read a public
	 * project's with public jobs */
	char *guest = member(f.id, 10, NULL);
	ck_same_list(list, general, guest, "per_page=5&page=2");
	ck_body(R(api("GET", list, member(f.id, 0, NULL), NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_status(R(api("PUT", P(&f, ""), f.owner, "public_jobs=false")), 200);
	ck_body(R(api("GET", list, guest, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_same_list(list, general, member(f.id, 20, NULL), "per_page=20");
	ck_status(R(api("PUT", P(&f, ""), f.owner, "visibility=public&public_jobs=true")), 200);
	ck_same_list(list, general, NULL, "per_page=2&page=3");
	ck_status(R(api("PUT", P(&f, ""), f.owner, "public_jobs=false")), 200);
	ck_body(R(api("GET", list, NULL, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
}
END_TEST

/* ---- one pipeline, and who reads them ---- */

START_TEST(test_show_and_read_access)
{
	fx f;
	project(&f, "private");
	commit(&f, "master", "create", ".gitlab-ci.yml", "job:\n  script: x\n  except: [pushes]\n",
	       "ci");
	wait_pushes(f.id);
	long long id = create_ok(&f, "master");
	const char *one = P(&f, S(fmt("/pipelines/%lld", id)));
	const char *list = P(&f, "/pipelines");
	ck_body(R(api("GET", P(&f, "/pipelines/999999999"), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", P(&f, "/pipelines/abc"), f.owner, NULL)), 400,
		"{\"error\":\"pipeline_id is invalid\"}");
	/* another project's pipeline is not found here */
	fx g;
	project(&g, "private");
	ck_body(R(api("GET", P(&g, S(fmt("/pipelines/%lld", id))), g.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	/* private project, public jobs (the default): members read, strangers do not see it */
	char *guest = member(f.id, 10, NULL), *reporter = member(f.id, 20, NULL),
	     *stranger = member(f.id, 0, NULL);
	ck_status(R(api("GET", one, guest, NULL)), 200);
	ck_status(R(api("GET", list, guest, NULL)), 200);
	ck_status(R(api("GET", one, reporter, NULL)), 200);
	ck_status(R(api("GET", one, admin_token(), NULL)), 200);
	ck_body(R(api("GET", one, stranger, NULL)), 404, "{\"message\":\"404 Project Not Found\"}");
	ck_status(R(api("GET", one, NULL, NULL)), 404);
	/* jobs not public: reporters and up only */
	ck_status(R(api("PUT", P(&f, ""), f.owner, "public_jobs=false")), 200);
	ck_body(R(api("GET", one, guest, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("GET", list, guest, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_status(R(api("GET", one, reporter, NULL)), 200);
	/* a public project: anyone, signed in or not, while its jobs are public */
	ck_status(R(api("PUT", P(&f, ""), f.owner, "visibility=public&public_jobs=true")), 200);
	ck_status(R(api("GET", one, stranger, NULL)), 200);
	resp *r = R(api("GET", list, NULL, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(ids_of(r), S(fmt("%lld", id)));
	ck_status(R(api("PUT", P(&f, ""), f.owner, "public_jobs=false")), 200);
	ck_status(R(api("GET", one, NULL, NULL)), 403);
	ck_status(R(api("GET", one, stranger, NULL)), 403);
	ck_status(R(api("GET", one, reporter, NULL)), 200);
	/* a pipeline whose user is gone: user null */
	S(sql_value("UPDATE ci_pipelines SET user_id = NULL WHERE id = %lld", id));
	r = R(api("GET", one, f.owner, NULL));
	ck_status(r, 200);
	ck_assert(jnull(r->json, "user"));
	/* coverage: the average of the jobs' */
	S(sql_value("UPDATE commit_statuses SET coverage = 50.5 WHERE pipeline_id = %lld", id));
	r = R(api("GET", one, f.owner, NULL));
	ck_jstr(r, "coverage", "50.50");
}
END_TEST

/* ---- retry and cancel ---- */

START_TEST(test_retry_cancel)
{
	fx f;
	project(&f, "private");
	commit(&f, "master", "create", ".gitlab-ci.yml",
	       "build:\n  stage: build\n  script: x\n  except: [pushes]\n"
	       "test:\n  script: y\n  except: [pushes]\n"
	       "after:\n  stage: deploy\n  script: z\n  when: on_failure\n  except: [pushes]\n",
	       "ci");
	wait_pushes(f.id);
	long long id = create_ok(&f, "master");
	const char *cancel = P(&f, S(fmt("/pipelines/%lld/cancel", id)));
	const char *retry = P(&f, S(fmt("/pipelines/%lld/retry", id)));
	/* cancel: every unfinished job canceled, the pipeline canceled */
	resp *r = R(api("POST", cancel, f.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, FULL_FIELDS);
	ck_jstr(r, "status", "canceled");
	ck_assert(!jnull(r->json, "finished_at"));
	ck_assert_str_eq(job_status(id, "build"), "canceled");
	ck_assert_str_eq(job_status(id, "test"), "canceled");
	ck_assert_str_eq(job_status(id, "after"), "canceled");
	/* again: nothing more to cancel */
	r = R(api("POST", cancel, f.owner, NULL));
	ck_status(r, 200);
	ck_jstr(r, "status", "canceled");
	/* retry: canceled jobs copied (the old ones kept, retried), the first stage runs;
	 * the pipeline running again (GitLab 10's enqueue from canceled), its finished_at
	 * kept until it finishes again */
	r = R(api("POST", retry, f.owner, NULL));
	ck_status(r, 201);
	ck_jstr(r, "status", "running");
	ck_assert(!jnull(r->json, "finished_at"));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM commit_statuses WHERE pipeline_id = %lld"
				 " AND retried",
				 id),
			 3);
	ck_assert_str_eq(job_status(id, "build"), "pending");
	ck_assert_str_eq(job_status(id, "test"), "created");
	/* the copies: the same options, by the caller */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM commit_statuses cs JOIN ci_builds b"
				 " ON b.id = cs.id WHERE cs.pipeline_id = %lld AND NOT cs.retried"
				 " AND b.options->>'script' = '[\"x\"]' AND cs.author_id = %lld",
				 id, f.owner_id),
			 1);
	/* build fails: test skipped, after (on_failure) runs, the pipeline running */
	S(sql_value("UPDATE commit_statuses SET status = 'failed' WHERE pipeline_id = %lld"
		    " AND name = 'build' AND NOT retried; SELECT ci_process_pipeline(%lld)",
		    id, id));
	ck_assert_str_eq(job_status(id, "test"), "skipped");
	ck_assert_str_eq(job_status(id, "after"), "pending");
	S(sql_value("UPDATE commit_statuses SET status = 'success' WHERE pipeline_id = %lld"
		    " AND name = 'after' AND NOT retried; SELECT ci_process_pipeline(%lld)",
		    id, id));
	r = R(api("GET", P(&f, S(fmt("/pipelines/%lld", id))), f.owner, NULL));
	ck_jstr(r, "status", "failed");
	/* retry: the failed job again, the skipped one back to created */
	r = R(api("POST", retry, f.owner, NULL));
	ck_status(r, 201);
	ck_jstr(r, "status", "running"); /* a job done, one pending */
	ck_assert_str_eq(job_status(id, "build"), "pending");
	ck_assert_str_eq(job_status(id, "test"), "created");
	ck_assert_str_eq(job_status(id, "after"), "success");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM commit_statuses WHERE pipeline_id = %lld"
				 " AND retried",
				 id),
			 4);

	/* errors and access */
	ck_body(R(api("POST", P(&f, "/pipelines/999999999/retry"), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("POST", P(&f, "/pipelines/999999999/cancel"), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("POST", P(&f, "/pipelines/x/cancel"), f.owner, NULL)), 400,
		"{\"error\":\"pipeline_id is invalid\"}");
	char *reporter = member(f.id, 20, NULL), *developer = member(f.id, 30, NULL),
	     *master = member(f.id, 40, NULL), *stranger = member(f.id, 0, NULL);
	ck_body(R(api("POST", cancel, reporter, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("POST", retry, reporter, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_status(R(api("POST", cancel, stranger, NULL)), 404);
	ck_status(R(api("POST", cancel, NULL, NULL)), 401);
	ck_assert_str_eq(job_status(id, "build"), "pending"); /* nothing changed */
	/* a protected branch: developers may not, masters may */
	ck_status(R(api("POST", P(&f, "/protected_branches"), f.owner, "name=master")), 201);
	ck_body(R(api("POST", cancel, developer, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_assert_str_eq(job_status(id, "build"), "pending");
	r = R(api("POST", cancel, master, NULL));
	ck_status(r, 200);
	ck_jstr(r, "status", "canceled");
	ck_status(R(api("POST", retry, admin_token(), NULL)), 201);
	ck_status(R(api("DELETE", P(&f, "/protected_branches/master"), f.owner, NULL)), 204);
	r = R(api("POST", cancel, developer, NULL));
	ck_status(r, 200);
	ck_jstr(r, "status", "canceled");
}
END_TEST

/* The jobs of pipeline id as the API lists them (GET /pipelines/:id/jobs, query q):
 * "name:status" of each, newest first, joined by ",". */
static const char *listed_jobs(const fx *f, long long id, const char *q)
{
	resp *r = R(api("GET", P(f, S(fmt("/pipelines/%lld/jobs%s", id, q))), f->owner, NULL));
	ck_status(r, 200);
	ck_assert_msg(json_object_is_type(r->json, json_type_array), "%s", r->body);
	char *out = S(calloc(1, 4096));
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *j = json_object_array_get_idx(r->json, i);
		sprintf(out + strlen(out), "%s%s:%s", i ? "," : "", jstr(j, "name"),
			jstr(j, "status"));
	}
	return out;
}

/* python-gitlab's pipeline.cancel() and pipeline.retry() over HTTP: GitLab 10 answers a
 * cancel 200 (its `status 200`) and a retry 201; the retry copies the canceled jobs as
 * new ones (RetryPipelineService), the first stage pending at once, and the pipeline
 * leaves canceled (the event enqueue: running from a finished state). The old jobs stay,
 * retried: GitLab 10's pipeline.builds lists them too, the scope filters them out. */
START_TEST(test_cancel_then_retry_over_http)
{
	fx f;
	project(&f, "private");
	commit(&f, "master", "create", ".gitlab-ci.yml",
	       "one:\n  stage: build\n  script: x\n  except: [pushes]\n"
	       "two:\n  stage: test\n  script: y\n  except: [pushes]\n",
	       "ci");
	wait_pushes(f.id);
	long long id = create_ok(&f, "master");
	ck_assert_str_eq(listed_jobs(&f, id, ""), "two:created,one:pending");

	resp *r = R(api("POST", P(&f, S(fmt("/pipelines/%lld/cancel", id))), f.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, FULL_FIELDS);
	ck_jstr(r, "status", "canceled");
	ck_assert_int_eq(jint(r->json, "id"), id);
	ck_assert_str_eq(listed_jobs(&f, id, ""), "two:canceled,one:canceled");

	r = R(api("POST", P(&f, S(fmt("/pipelines/%lld/retry", id))), f.owner, NULL));
	ck_status(r, 201);
	ck_fields(r->json, FULL_FIELDS);
	ck_jstr(r, "status", "running");
	r = R(api("GET", P(&f, S(fmt("/pipelines/%lld", id))), f.owner, NULL));
	ck_jstr(r, "status", "running");
	ck_assert_str_eq(listed_jobs(&f, id, ""),
			 "two:created,one:pending,two:canceled,one:canceled");
	ck_assert_str_eq(listed_jobs(&f, id, "?scope[]=pending&scope[]=created"),
			 "two:created,one:pending");
	ck_assert_str_eq(listed_jobs(&f, id, "?scope=canceled"), "two:canceled,one:canceled");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM commit_statuses WHERE pipeline_id = %lld"
				 " AND retried AND status = 'canceled'",
				 id),
			 2);
	/* nothing left to retry: the same pipeline, no more copies */
	ck_status(R(api("POST", P(&f, S(fmt("/pipelines/%lld/retry", id))), f.owner, NULL)), 201);
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM commit_statuses WHERE pipeline_id = %lld", id), 4);
	/* canceled again: the new jobs, 200 */
	r = R(api("POST", P(&f, S(fmt("/pipelines/%lld/cancel", id))), f.owner, NULL));
	ck_status(r, 200);
	ck_jstr(r, "status", "canceled");
	ck_assert_str_eq(listed_jobs(&f, id, "?scope=canceled"),
			 "two:canceled,one:canceled,two:canceled,one:canceled");
}
END_TEST

/* Runs sql on c, which must succeed. */
static void exec_ok(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
		      "%s: %s", sql, PQerrorMessage(c));
	PQclear(r);
}

/* A job of pipeline p (SQL fixture): name, stage index, status; its id. */
static long long fixture_job(long long p, const char *name, int idx, const char *status)
{
	return sql_int("WITH s AS (INSERT INTO commit_statuses (project_id, sha, ref, name, stage,"
		       " status, pipeline_id, stage_idx) SELECT project_id, sha, ref, '%s',"
		       " 'stage%d', '%s', id, %d FROM ci_pipelines WHERE id = %lld"
		       " RETURNING id, project_id, pipeline_id)"
		       " INSERT INTO ci_builds (id, project_id, pipeline_id)"
		       " SELECT id, project_id, pipeline_id FROM s RETURNING id",
		       name, idx, status, idx, p);
}

/* A pipeline canceled while a runner finishes one of its jobs and enqueues a created one
 * (the runner's transaction played on a connection of its own, with runner.c's and
 * ci_process_pipeline's locks: its job's row, the pipeline, the created job): both
 * finish, no deadlock, and every job not finished is canceled */
START_TEST(test_cancel_while_runner_finishes)
{
	fx f;
	project(&f, "private");
	long long p = sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, status, user_id)"
			      " VALUES (%lld, 'master', repeat('a', 40), 'running', %lld)"
			      " RETURNING id",
			      f.id, f.owner_id);
	long long c = fixture_job(p, "again", 0, "created");
	long long k = fixture_job(p, "build", 0, "running");
	PGconn *db = PQconnectdb(getenv("COLLABD_DATABASE_URL"));
	ck_assert_msg(PQstatus(db) == CONNECTION_OK, "connect: %s", PQerrorMessage(db));
	exec_ok(db, "SET statement_timeout = '20s'");
	exec_ok(db, "BEGIN");
	exec_ok(db, S(fmt("UPDATE commit_statuses SET status = 'success', finished_at = now()"
			  " WHERE id = %lld",
			  k)));
	exec_ok(db, S(fmt("SELECT id FROM ci_pipelines WHERE id = %lld FOR UPDATE", p)));
	pid_t child = fork();
	ck_assert(child >= 0);
	if (child == 0) {
		resp *r = api("POST", P(&f, S(fmt("/pipelines/%lld/cancel", p))), f.owner, NULL);
		_exit(r && r->status == 200 ? 0 : 1);
	}
	usleep(700 * 1000); /* the cancel waits by now */
	exec_ok(db, S(fmt("UPDATE commit_statuses SET status = 'pending', queued_at = now()"
			  " WHERE id = %lld AND status = 'created'",
			  c)));
	exec_ok(db, "COMMIT");
	PQfinish(db);
	int st;
	ck_assert(waitpid(child, &st, 0) == child);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the cancel failed");
	ck_assert_str_eq(S(sql_value("SELECT status FROM commit_statuses WHERE id = %lld", k)),
			 "success");
	ck_assert_str_eq(S(sql_value("SELECT status FROM commit_statuses WHERE id = %lld", c)),
			 "canceled");
	ck_assert_str_eq(S(sql_value("SELECT status FROM ci_pipelines WHERE id = %lld", p)),
			 "canceled");
}
END_TEST

/* ---- POST /ci/lint: the pipelines' parser, its first error; anyone may ask ---- */

static resp *lint(const char *token, const char *yml)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "content", json_object_new_string(yml));
	resp *r = R(api_json("POST", "/ci/lint", token, json_object_to_json_string(o)));
	json_object_put(o);
	return r;
}

static void ck_lint(resp *r, const char *error)
{
	ck_status(r, 200);
	ck_jstr(r, "status", error ? "invalid" : "valid");
	json_object *errors = jget(r->json, "errors");
	ck_assert_int_eq(json_object_array_length(errors), error ? 1 : 0);
	if (error)
		ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(errors, 0)),
				 error);
}

START_TEST(test_ci_lint)
{
	const char *good = "stages: [build, test]\nb:\n  stage: build\n  script: make\n"
			   "t:\n  stage: test\n  script: [make check]\n";
	ck_lint(lint(NULL, good), NULL);
	ck_lint(lint(admin_token(), good), NULL);
	/* the texts a failed pipeline's yaml_errors shows (test_push_errors_and_skip) */
	ck_lint(lint(NULL, "rspec:\n  stage: test\n"), "jobs:rspec script can't be blank");
	resp *r = lint(NULL, "a: [b\n");
	ck_status(r, 200);
	ck_jstr(r, "status", "invalid");
	const char *e =
		json_object_get_string(json_object_array_get_idx(jget(r->json, "errors"), 0));
	ck_assert_msg(strncmp(e, "(<unknown>): ", 13) == 0, "%s", r->body);
	ck_lint(lint(NULL, ""), "Please provide content of .gitlab-ci.yml");
	ck_lint(lint(NULL, " \n\t\n"), "Please provide content of .gitlab-ci.yml");
	ck_lint(lint(NULL, "just text\n"), "Invalid configuration format");
	ck_lint(lint(NULL, "stages: [a]\nj:\n  stage: b\n  script: x\n"),
		"j job: stage parameter should be a");
	/* a form body too */
	r = R(api("POST", "/ci/lint", NULL, "content=j%3A%0A%20%20script%3A%20x%0A"));
	ck_lint(r, NULL);
	/* content not given */
	r = R(api("POST", "/ci/lint", NULL, NULL));
	ck_status(r, 400);
	ck_jstr(r, "message", "400 (Bad request) \"content\" not given");
}
END_TEST

Suite *suite_pipelines(void)
{
	Suite *s = suite_create("pipelines");
	TCase *tc = tcase_create("pipelines");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_push_makes_pipeline);
	tcase_add_test(tc, test_git_push);
	tcase_add_test(tc, test_push_errors_and_skip);
	tcase_add_test(tc, test_create);
	tcase_add_test(tc, test_create_bad_ref_names);
	tcase_add_test(tc, test_list_filters);
	tcase_add_test(tc, test_list_plain);
	tcase_add_test(tc, test_show_and_read_access);
	tcase_add_test(tc, test_retry_cancel);
	tcase_add_test(tc, test_cancel_then_retry_over_http);
	tcase_add_test(tc, test_cancel_while_runner_finishes);
	tcase_add_test(tc, test_ci_lint);
	suite_add_tcase(s, tc);
	return s;
}
