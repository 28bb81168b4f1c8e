/* Pipeline creation (ci/pipeline.h): GitLab 10's Ci::CreatePipelineService and its
 * checks, in the caller's transaction. */
#include "ci/pipeline.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "ci/job.h"
#include "ci/yaml.h"
#include "core/buf.h"
#include "core/log.h"
#include "db/ci.h"
#include "git/commits.h"

#define ZERO_SHA "0000000000000000000000000000000000000000"

static const char *json_text(ctx *c, json_object *o)
{
	return arena_strdup(c->a, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
}

/* [ci skip] or [skip ci] in any case, with ' ', '_' or '-' (GitLab 10's SKIP_PATTERN). */
static bool skip_ci(const char *message)
{
	regex_t re;
	if (regcomp(&re, "\\[(ci[ _-]skip|skip[ _-]ci)\\]", REG_EXTENDED | REG_ICASE | REG_NOSUB))
		return false;
	bool skip = message && regexec(&re, message, 0, NULL, 0) == 0;
	regfree(&re);
	return skip;
}

typedef struct {
	const char *name;
	const char *value;
} var;

/* GitLab 10's ExpandVariables: $NAME, ${NAME} and %NAME% replaced by their values (an
 * unknown name by nothing). */
static const char *expand(ctx *c, const char *s, const var *vars, int n)
{
	buf b;
	buf_init(&b, c->a, strlen(s) + 16);
	for (const char *p = s; *p;) {
		const char *start = NULL;
		size_t len = 0, skip = 0;
		if (p[0] == '$' && p[1] == '{') {
			start = p + 2;
			len = strspn(start, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					    "0123456789_");
			skip = start[len] == '}' && len ? 3 + len : 0;
		} else if (p[0] == '$' || p[0] == '%') {
			start = p + 1;
			len = strspn(start, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					    "0123456789_");
			if (len && isdigit((unsigned char)start[0]))
				len = 0;
			skip = len ? 1 + len : 0;
			if (p[0] == '%')
				skip = len && start[len] == '%' ? 2 + len : 0;
		}
		if (!skip) {
			buf_putc(&b, *p++);
			continue;
		}
		for (int i = n - 1; i >= 0; i--)
			if (strlen(vars[i].name) == len && strncmp(vars[i].name, start, len) == 0) {
				buf_puts(&b, vars[i].value);
				break;
			}
		p += skip;
	}
	return buf_cstr(&b);
}

/* The variables an environment's name may use: the predefined ones GitLab 10 gave a
 * job, then the file's, then the pipeline's (later ones win). */
static int job_vars(ctx *c, const ci_job *j, const char *ref, bool tag, const char *sha,
		    const char *pipeline_id, const char *project_id, const char *full_path,
		    json_object *pipeline_vars, var **out)
{
	size_t nv = json_object_array_length(j->variables);
	size_t np = pipeline_vars ? json_object_array_length(pipeline_vars) : 0;
	var *v = arena_alloc(c->a, sizeof(var) * (20 + nv + np));
	int n = 0;
	const char *slash = strrchr(full_path, '/');
	const char *slug = ci_slug(c->a, ref);
	v[n++] = (var){"CI", "true"};
	v[n++] = (var){"GITLAB_CI", "true"};
	v[n++] = (var){"CI_COMMIT_SHA", sha};
	v[n++] = (var){"CI_COMMIT_REF_NAME", ref};
	v[n++] = (var){"CI_COMMIT_REF_SLUG", slug};
	v[n++] = (var){"CI_BUILD_REF", sha};
	v[n++] = (var){"CI_BUILD_REF_NAME", ref};
	v[n++] = (var){"CI_BUILD_REF_SLUG", slug};
	if (tag) {
		v[n++] = (var){"CI_COMMIT_TAG", ref};
		v[n++] = (var){"CI_BUILD_TAG", ref};
	}
	v[n++] = (var){"CI_JOB_NAME", j->name};
	v[n++] = (var){"CI_JOB_STAGE", j->stage};
	v[n++] = (var){"CI_BUILD_NAME", j->name};
	v[n++] = (var){"CI_BUILD_STAGE", j->stage};
	v[n++] = (var){"CI_PIPELINE_ID", pipeline_id};
	v[n++] = (var){"CI_PROJECT_ID", project_id};
	v[n++] = (var){"CI_PROJECT_PATH", full_path};
	v[n++] = (var){"CI_PROJECT_NAME", slash ? slash + 1 : full_path};
	v[n++] = (var){"CI_PROJECT_NAMESPACE",
		       slash ? arena_strndup(c->a, full_path, (size_t)(slash - full_path)) : ""};
	json_object *lists[2] = {j->variables, pipeline_vars};
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; lists[l] && i < json_object_array_length(lists[l]); i++) {
			json_object *e = json_object_array_get_idx(lists[l], i), *k, *val;
			if (json_object_object_get_ex(e, "key", &k) &&
			    json_object_object_get_ex(e, "value", &val))
				v[n++] = (var){json_object_get_string(k),
					       json_object_get_string(val)};
		}
	*out = v;
	return n;
}

typedef struct {
	bool jobs_enabled;
	const char *config_path;
	const char *full_path;
	bool protected_branch;
} project_info;

static int project_of(ctx *c, const char *project_id, const char *ref, project_info *out)
{
	int err;
	PGresult *res = db_ci_pipeline_project(c, project_id, ref, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_NOT_FOUND;
	const char *path = db_val(res, 0, PP_CONFIG_PATH);
	*out = (project_info){db_bool(res, 0, PP_JOBS_ENABLED),
			      path && *path ? path : ".gitlab-ci.yml", db_val(res, 0, PP_FULL_PATH),
			      db_bool(res, 0, PP_PROTECTED)};
	return 0;
}

static bool tag_exists(ctx *c, git_repository *repo, const char *name)
{
	const char *full = arena_printf(c->a, "refs/tags/%s", name);
	git_reference *r = NULL;
	if (!git_reference_is_valid_name(full) || git_reference_lookup(&r, repo, full) < 0)
		return false;
	git_reference_free(r);
	return true;
}

/* What the pipeline row needs besides the spec. */
typedef struct {
	const char *sha;
	bool tag;
	bool protected_ref;
	const char *status;
	const char *yaml_errors;
	const char *committed_at;
} row;

static int insert_pipeline(ctx *c, const ci_pipeline_spec *s, const row *w, const char **id)
{
	const char *v[] = {
		[PI_PROJECT] = s->project_id,
		[PI_REF] = s->ref,
		[PI_SHA] = w->sha,
		[PI_BEFORE_SHA] = s->before_sha ? s->before_sha : ZERO_SHA,
		[PI_TAG] = w->tag ? "true" : "false",
		[PI_PROTECTED] = w->protected_ref ? "true" : "false",
		[PI_SOURCE] = s->source,
		[PI_STATUS] = w->status,
		[PI_YAML_ERRORS] = w->yaml_errors,
		[PI_USER] = s->user_id ? arena_printf(c->a, "%lld", s->user_id) : NULL,
		[PI_TRIGGER_REQUEST] = s->trigger_request_id,
		[PI_SCHEDULE] = s->schedule_id,
		[PI_VARIABLES] = s->variables ? json_text(c, s->variables) : NULL,
		[PI_COMMITTED_AT] = w->committed_at,
	};
	DB_PARAMS(v, PI_NPARAMS);
	return db_ci_pipeline_insert(c, v, id);
}

static int refuse(const char **why, const char *text)
{
	*why = text;
	return ERR_REFUSED;
}

int ci_pipeline_create(ctx *c, const ci_pipeline_spec *s, long long *id, const char **why)
{
	*id = 0;
	*why = NULL;
	project_info pi = {0};
	int rc = project_of(c, s->project_id, s->ref, &pi);
	if (rc < 0)
		return rc;
	if (!pi.jobs_enabled)
		return refuse(why, "Pipeline is disabled");
	/* a push's or a trigger's pipeline is kept when its file is invalid (failed, with
	 * yaml_errors) or says [ci skip] (skipped); the API, the web and schedules answer
	 * the error instead, and run whatever the commit says */
	bool push = strcmp(s->source, "push") == 0;
	bool save_on_errors = push || strcmp(s->source, "trigger") == 0;

	git_repository *repo = NULL;
	if (gitc_open(c, s->project_id, &repo) != 0)
		return refuse(why, "Reference not found");
	row w = {.status = "created"};
	git_oid branch_oid;
	bool branch = gitc_branch_exists(repo, s->ref, &branch_oid);
	w.tag = !branch && tag_exists(c, repo, s->ref);
	if (!branch && !w.tag)
		return refuse(why, "Reference not found");
	w.protected_ref = branch && pi.protected_branch;
	git_commit *commit = NULL;
	if (gitc_commit_of(c, repo, s->sha ? s->sha : s->ref, &commit) != 0 || !commit)
		return refuse(why, "Commit not found");
	char sha[GIT_OID_HEXSZ + 1];
	git_oid_tostr(sha, sizeof(sha), git_commit_id(commit));
	w.sha = arena_strdup(c->a, sha);
	w.committed_at =
		arena_printf(c->a, "%lld", (long long)git_commit_committer(commit)->when.time);

	git_blob *blob = NULL;
	if (gitc_blob_at(c, repo, commit, pi.config_path, &blob) != 0)
		return refuse(why, "Missing .gitlab-ci.yml file");
	size_t len = (size_t)git_blob_rawsize(blob);
	const char *text = git_blob_rawcontent(blob);
	ci_config cf;
	const char *yaml_err = ci_yaml_problem(c->a, text, len, &cf);
	const char *pid;
	if (yaml_err) {
		if (!save_on_errors)
			return refuse(why, yaml_err);
		w.status = "failed";
		w.yaml_errors = yaml_err;
		if ((rc = insert_pipeline(c, s, &w, &pid)) < 0)
			return rc;
		*id = atoll(pid);
		return 0;
	}
	if (push && skip_ci(git_commit_message(commit))) {
		w.status = "skipped";
		if ((rc = insert_pipeline(c, s, &w, &pid)) < 0)
			return rc;
		*id = atoll(pid);
		return 0;
	}
	bool *selected = arena_alloc(c->a, sizeof(bool) * (size_t)(cf.njobs + 1));
	int nsel = 0;
	for (int i = 0; i < cf.njobs; i++)
		if ((selected[i] =
			     ci_job_selected(&cf.jobs[i], s->ref, w.tag, s->source, pi.full_path)))
			nsel++;
	if (nsel == 0)
		return refuse(why, "No stages / jobs for this pipeline.");
	if ((rc = insert_pipeline(c, s, &w, &pid)) < 0)
		return rc;
	const char *user = s->user_id ? arena_printf(c->a, "%lld", s->user_id) : NULL;
	for (int i = 0; i < cf.njobs; i++) {
		if (!selected[i])
			continue;
		const ci_job *j = &cf.jobs[i];
		const char *env = NULL;
		if (j->environment) {
			var *vars;
			int nv = job_vars(c, j, s->ref, w.tag, w.sha, pid, s->project_id,
					  pi.full_path, s->variables, &vars);
			env = expand(c, j->environment, vars, nv);
		}
		const char *v[] = {
			[PJ_PROJECT] = s->project_id,
			[PJ_PIPELINE] = pid,
			[PJ_SHA] = w.sha,
			[PJ_REF] = s->ref,
			[PJ_NAME] = j->name,
			[PJ_STAGE] = j->stage,
			[PJ_STAGE_IDX] = arena_printf(c->a, "%d", j->stage_idx),
			[PJ_WHEN] = j->when,
			[PJ_ALLOW_FAILURE] = j->allow_failure ? "true" : "false",
			[PJ_USER] = user,
			[PJ_TAG] = w.tag ? "true" : "false",
			[PJ_PROTECTED] = w.protected_ref ? "true" : "false",
			[PJ_TAG_LIST] = json_text(c, j->tags),
			[PJ_OPTIONS] = json_text(c, j->options),
			[PJ_YAML_VARIABLES] = json_text(c, j->variables),
			[PJ_ENVIRONMENT] = env,
			[PJ_TRIGGER_REQUEST] = s->trigger_request_id,
		};
		DB_PARAMS(v, PJ_NPARAMS);
		if ((rc = db_ci_job_insert(c, v)) < 0)
			return rc;
	}
	rc = ci_pipeline_process(c, pid);
	if (rc < 0)
		return rc;
	*id = atoll(pid);
	return 0;
}

int ci_may_run_on_ref(ctx *c, const char *project_id, int level, bool admin, const char *ref,
		      bool tag, bool *ok)
{
	*ok = admin || level >= 30;
	if (!*ok || admin || tag)
		return 0;
	return db_ci_ref_allowed(c, project_id, ref, level, ok);
}

static const char *member_str(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int ci_pipeline_on_push(ctx *c, json_object *payload, const char **why)
{
	json_object *pid = NULL, *uid = NULL;
	const char *ref = member_str(payload, "ref"), *after = member_str(payload, "after");
	if (!json_object_object_get_ex(payload, "project_id", &pid) ||
	    !json_object_is_type(pid, json_type_int) || !ref || !after) {
		*why = "the payload has no project_id, ref and after";
		return ERR_INTERNAL;
	}
	const char *name;
	if (strncmp(ref, "refs/heads/", 11) == 0)
		name = ref + 11;
	else if (strncmp(ref, "refs/tags/", 10) == 0)
		name = ref + 10;
	else
		return 0;
	if (strcmp(after, ZERO_SHA) == 0)
		return 0; /* a deletion runs nothing */
	json_object_object_get_ex(payload, "user_id", &uid);
	ci_pipeline_spec s = {
		.project_id = arena_printf(c->a, "%lld", (long long)json_object_get_int64(pid)),
		.ref = arena_strdup(c->a, name),
		.sha = arena_strdup(c->a, after),
		.before_sha = member_str(payload, "before"),
		.source = "push",
		.user_id = uid && json_object_is_type(uid, json_type_int)
				   ? (long long)json_object_get_int64(uid)
				   : 0,
	};
	if (s.before_sha)
		s.before_sha = arena_strdup(c->a, s.before_sha);
	long long id;
	const char *refused = NULL;
	int rc = ci_pipeline_create(c, &s, &id, &refused);
	if (rc == ERR_NOT_FOUND)
		return 0; /* the project is gone */
	if (rc < 0 && rc != ERR_REFUSED) {
		*why = "cannot create the pipeline";
		return ERR_INTERNAL;
	}
	if (rc == ERR_REFUSED)
		log_info("push of project %s %s: no pipeline: %s", s.project_id, ref, refused);
	else
		log_info("push of project %s %s: pipeline %lld", s.project_id, ref, id);
	return 0;
}
