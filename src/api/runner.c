/* The runner protocol (GitLab 10's lib/api/runner.rb; gitlab-runner 10's
 * network/gitlab.go is the client): registration with the instance's shared
 * registration token or a project's runners_token, verify and unregister; the job
 * request that runners poll, which hands a pending job to one runner; the job's
 * updates, its trace in chunks, and its artifacts.
 *
 * Credentials are not a user's: a runner sends its own token (`token`), a job the token
 * it was given with the job (`token` or the JOB-TOKEN header), valid while the job runs.
 * Both are stored as digests; a runner's also sealed with the instance key (admins see
 * it again). Job status changes are transitions in SQL (UPDATE ... WHERE status =
 * <expected>) followed by ci_process_pipeline() (sql/0022_ci.sql), in one transaction.
 *
 * Files: the trace is <storage_path>/ci/traces/<project id>/<job id>.log, whose length
 * ci_builds.trace_size records (a patch is written at that offset, so bytes left by a
 * patch whose transaction failed are overwritten by the next); artifacts are
 * <storage_path>/ci/artifacts/<project id>/<job id>/artifacts.zip, written to a
 * temporary file and renamed there when the upload's transaction commits, and sent by
 * nginx from /_internal/ci/. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "core/crypto.h"
#include "core/files.h"
#include "core/log.h"
#include "entity/commit.h"
#include "entity/entity.h"
#include "git/commits.h"
#include "git/repo.h"

/* A job's timeout in seconds, GitLab 10's default projects.build_timeout (there is no
 * such column here): runner_info.timeout and each step's. */
#define JOB_TIMEOUT 3600
/* The longest trace tail searched for the coverage (GitLab reads the whole trace; a
 * coverage line is printed at the end). */
#define COVERAGE_TAIL (1 << 20)

/* The columns of runner_job_auth. */
enum {
	JA_PROJECT_ID,
	JA_STATUS,
	JA_TRACE_SIZE,
	JA_TOKEN_OK,
	JA_PIPELINE_ID,
	JA_PENDING_DELETE,
	JA_ERASED,
	JA_NCOLS
};

/* The job row of the payload: enum of its columns. */
enum {
	J_ID,
	J_NAME,
	J_STAGE,
	J_PROJECT_ID,
	J_PROJECT_NAME,
	J_REF,
	J_SHA,
	J_BEFORE_SHA,
	J_TAG,
	J_OPTIONS,
	J_YAML_VARS,
	J_PROTECTED,
	J_PIPELINE_ID,
	J_PIPELINE_VARS,
	J_SOURCE,
	J_NS_ID,
	J_NS_PATH,
	J_PROJECT_PATH,
	J_VISIBILITY,
	J_USER_ID,
	J_USER_EMAIL,
	J_USER_LOGIN,
	J_USER_NAME,
	J_RUNNER_ID,
	J_RUNNER_DESCRIPTION,
	J_RUNNER_TAGS,
	J_ENV_NAME,
	J_TRIGGER_VARS,
	J_SCHEDULE_ID,
	J_WHEN,
	J_REF_SLUG,
	J_PATH_SLUG,
	J_CONFIG_PATH,
	J_ENV_SLUG,
	J_ENV_URL,
	J_NCOLS
};

/* A runner's info (runner_info), in runner_register's and runner_request's parameters */
enum { RI_NAME, RI_VERSION, RI_REVISION, RI_PLATFORM, RI_ARCHITECTURE, RI_COUNT };
enum {
	RR_REGISTRATION,
	RR_DIGEST,
	RR_SEALED,
	RR_DESCRIPTION,
	RR_ACTIVE,
	RR_LOCKED,
	RR_RUN_UNTAGGED,
	RR_TAG_LIST,
	RR_INFO,
	RR_NPARAMS = RR_INFO + RI_COUNT
};
enum { RP_ID, RP_DUE, RP_TIME, RP_ACTIVE, RP_NCOLS };
enum { RQ_RUNNER, RQ_JOB_DIGEST, RQ_INFO, RQ_NPARAMS = RQ_INFO + RI_COUNT };
enum { RQ_ID, RQ_ACTIVE, RQ_JOB, RQ_PIPELINE, RQ_TIME, RQ_NCOLS };
enum { RV_SRC, RV_KEY, RV_VALUE_SEALED, RV_NCOLS };
enum { RD_ID, RD_NAME, RD_FILE, RD_SIZE, RD_NCOLS };
enum { RF_PIPELINE, RF_COVERAGE_REGEX, RF_NCOLS };
enum { RA_PROJECT, RA_FILE, RA_ALLOWED, RA_PENDING_DELETE, RA_ERASED, RA_NCOLS };

const db_stmt runner_stmts[] = {
	{"runner_settings_token", "SELECT runners_token_sealed FROM ci_settings WHERE id = 1", 0,
	 1},
	/* $1 digest, $2 sealed: made once, by whoever comes first */
	{"runner_settings_token_set",
	 "UPDATE ci_settings SET runners_token_digest = $1, runners_token_sealed = $2"
	 " WHERE id = 1 AND runners_token_digest IS NULL",
	 2, 0},
	/* $1 the registration token's digest (the shared one, or a project's runners
	 * token), $2 $3 the new runner's token digest and sealed, $4 description, $5 active,
	 * $6 locked, $7 run_untagged, $8 tag_list (a JSON array), $9..$13 info (name,
	 * version, revision, platform, architecture): the runner's id, none when the
	 * registration token is no one's */
	{"runner_register",
	 "WITH src AS (SELECT NULL::bigint AS project_id FROM ci_settings"
	 "  WHERE id = 1 AND runners_token_digest = $1"
	 " UNION ALL SELECT id FROM projects WHERE runners_token_digest = $1"
	 "  AND NOT pending_delete LIMIT 1),"
	 " rn AS (INSERT INTO ci_runners (token_digest, token_sealed, description, active,"
	 "  is_shared, locked, run_untagged, tag_list, name, version, revision, platform,"
	 "  architecture)"
	 "  SELECT $2, $3, $4, coalesce($5::boolean, true), src.project_id IS NULL,"
	 "  coalesce($6::boolean, false), coalesce($7::boolean, true),"
	 "  ARRAY(SELECT jsonb_array_elements_text($8::jsonb)), $9, $10, $11, $12, $13 FROM src"
	 "  RETURNING id),"
	 " rp AS (INSERT INTO ci_runner_projects (runner_id, project_id)"
	 "  SELECT rn.id, src.project_id FROM rn, src WHERE src.project_id IS NOT NULL)"
	 " SELECT id FROM rn",
	 RR_NPARAMS, 1},
	{"runner_verify", "SELECT id FROM ci_runners WHERE token_digest = $1", 1, 1},
	{"runner_delete", "DELETE FROM ci_runners WHERE token_digest = $1 RETURNING id", 1, 1},
	/* POST /jobs/request's first statement, all that an idle poll costs: $1 the runner's
	 * token digest. The runner (none: not found); whether runner_request must run:
	 * the runner's contacted_at is due (once a minute) or it is active and some job is
	 * pending (a probe of the pending index, not whether this runner may take it);
	 * the time for X-GitLab-Last-Update; whether the runner is active. */
	{"runner_poll",
	 "SELECT rn.id, rn.contacted_at IS NULL OR rn.contacted_at < now() - interval '1 minute'"
	 " OR (rn.active AND EXISTS (SELECT 1 FROM commit_statuses cs"
	 "  WHERE cs.status = 'pending' AND cs.pipeline_id IS NOT NULL)),"
	 " extract(epoch FROM now())::bigint::text, rn.active"
	 " FROM (SELECT 1) one LEFT JOIN ci_runners rn ON rn.token_digest = $1",
	 1, RP_NCOLS},
	/* POST /jobs/request in one statement: $1 the runner's token digest, $2 the digest
	 * of the token the job gets, $3..$7 the runner's info. The runner (none: not
	 * found), whether it is active, the job it took (NULL: none), that job's pipeline,
	 * and the queue's time for X-GitLab-Last-Update. contacted_at (and the info) is
	 * written at most once a minute. The job is the oldest pending one the runner may
	 * take, locked SKIP LOCKED from the pending index: two runners never take one job,
	 * and neither waits for the other. Whether the runner may take a job is a
	 * subquery per job, in the pending index's order, so that the scan stops at the
	 * first one: as joins, the planner takes the runner's conditions (tags,
	 * protected) for very selective and joins every pending job, then sorts them
	 * (75 ms with 10,000 pending, instead of 0.3 ms). */
	{"runner_request",
	 "WITH rn AS (SELECT id, active, is_shared, run_untagged, tag_list, access_level,"
	 "  contacted_at FROM ci_runners WHERE token_digest = $1),"
	 " touch AS (UPDATE ci_runners c SET contacted_at = now(),"
	 "  name = coalesce($3, c.name), version = coalesce($4, c.version),"
	 "  revision = coalesce($5, c.revision), platform = coalesce($6, c.platform),"
	 "  architecture = coalesce($7, c.architecture)"
	 "  FROM rn WHERE c.id = rn.id"
	 "  AND (rn.contacted_at IS NULL OR rn.contacted_at < now() - interval '1 minute')),"
	 " job AS (SELECT cs.id FROM commit_statuses cs"
	 "  WHERE cs.status = 'pending' AND cs.pipeline_id IS NOT NULL"
	 "  AND (SELECT rn.active AND p.jobs_enabled AND NOT p.pending_delete"
	 "   AND CASE WHEN rn.is_shared THEN p.shared_runners_enabled"
	 "    ELSE EXISTS (SELECT 1 FROM ci_runner_projects rp WHERE rp.runner_id = rn.id"
	 "     AND rp.project_id = p.id) END"
	 "   AND b.tag_list <@ rn.tag_list AND (rn.run_untagged OR b.tag_list <> '{}')"
	 "   AND (rn.access_level = 'not_protected' OR b.protected)"
	 "   FROM rn, ci_builds b JOIN projects p ON p.id = cs.project_id WHERE b.id = cs.id)"
	 "  ORDER BY cs.id LIMIT 1 FOR UPDATE OF cs SKIP LOCKED),"
	 " claim AS (UPDATE commit_statuses cs SET status = 'running', started_at = now(),"
	 "  updated_at = now() WHERE cs.id = (SELECT id FROM job) AND cs.status = 'pending'"
	 "  RETURNING cs.id, cs.pipeline_id),"
	 " given AS (UPDATE ci_builds b SET runner_id = (SELECT id FROM rn), token_digest = $2"
	 "  FROM claim WHERE b.id = claim.id)"
	 " SELECT rn.id, rn.active, (SELECT id FROM claim), (SELECT pipeline_id FROM claim),"
	 " extract(epoch FROM now())::bigint::text FROM (SELECT 1) one LEFT JOIN rn ON true",
	 RQ_NPARAMS, RQ_NCOLS},
	/* a job taken whose payload could not be made fails: back in the queue, it would
	 * be the first every runner takes again */
	{"runner_drop",
	 "UPDATE commit_statuses SET status = 'failed', finished_at = now(), updated_at = now()"
	 " WHERE id = $1 AND status = 'running'",
	 1, 0},
	{"runner_process", "SELECT ci_process_pipeline($1)", 1, 1},
	/* $1 the job: what its payload shows (J_ columns). Whether its ref is protected is
	 * the ref's protection now, as GitLab 10's Project#protected_for?(ref) when the
	 * variables are made, not what it was when the pipeline was created (ci_builds.protected,
	 * which picks the runners): a branch protected since gets the protected variables, one
	 * unprotected since no longer does. A tag is never protected (there are no protected
	 * tags here). The runner's tags as ActsAsTaggableOn's TagList#to_s joins them; the
	 * environment only when it exists (Ci::Build#persisted_environment), with the job's
	 * url unexpanded (the runner expands it) or else the environment's. */
	{"runner_job",
	 "SELECT cs.id, cs.name, cs.stage, cs.project_id, p.name, cs.ref, cs.sha, pl.before_sha,"
	 " b.tag, b.options, b.yaml_variables,"
	 " NOT b.tag AND branch_push_level(cs.project_id, cs.ref) IS NOT NULL,"
	 " pl.id, pl.variables, pl.source,"
	 " n.id, n.full_path, p.path, p.visibility, u.id, u.email, u.username, u.name, r.id,"
	 " r.description, array_to_string(r.tag_list, ', '), e.name, tr.variables,"
	 " pl.pipeline_schedule_id, cs.\"when\", ci_ref_slug(cs.ref),"
	 " ci_ref_slug(n.full_path || '/' || p.path),"
	 " coalesce(nullif(p.ci_config_path, ''), '.gitlab-ci.yml'), e.slug,"
	 " coalesce(CASE WHEN jsonb_typeof(b.options -> 'environment') = 'object'"
	 "  THEN b.options -> 'environment' ->> 'url' END, e.external_url)"
	 " FROM commit_statuses cs JOIN ci_builds b ON b.id = cs.id"
	 " JOIN ci_pipelines pl ON pl.id = cs.pipeline_id JOIN projects p ON p.id = cs.project_id"
	 " JOIN namespaces n ON n.id = p.namespace_id"
	 " LEFT JOIN users u ON u.id = coalesce(cs.author_id, pl.user_id)"
	 " LEFT JOIN ci_runners r ON r.id = b.runner_id"
	 " LEFT JOIN ci_trigger_requests tr ON tr.id = coalesce(b.trigger_request_id,"
	 "  pl.trigger_request_id)"
	 " LEFT JOIN environments e ON e.project_id = cs.project_id AND e.name = b.environment"
	 " WHERE cs.id = $1",
	 1, J_NCOLS},
	/* The secret variables of a job: $1 the project's namespace, $2 the project, $3 the
	 * pipeline's schedule, $4 whether the ref is protected. src 1: the groups', root
	 * first (a subgroup's value wins), 2: the project's, 3: the schedule's; value
	 * sealed. */
	{"runner_job_variables",
	 "SELECT src, key, value_sealed FROM ("
	 " SELECT 1 AS src, t.depth, g.id, g.key, g.value_sealed, g.protected FROM namespaces n"
	 "  CROSS JOIN LATERAL unnest(n.traversal_ids) WITH ORDINALITY AS t(gid, depth)"
	 "  JOIN ci_group_variables g ON g.group_id = t.gid WHERE n.id = $1 AND n.kind = 'group'"
	 " UNION ALL SELECT 2, 0, id, key, value_sealed, protected FROM ci_variables"
	 "  WHERE project_id = $2"
	 " UNION ALL SELECT 3, 0, id, key, value_sealed, false FROM ci_pipeline_schedule_variables"
	 "  WHERE pipeline_schedule_id = $3) v"
	 " WHERE NOT protected OR $4::boolean ORDER BY src, depth, id",
	 4, RV_NCOLS},
	/* $1 the job: the jobs of earlier stages of its pipeline (or those of them that
	 * options.dependencies names) that have artifacts */
	{"runner_job_dependencies",
	 "SELECT d.id, d.name, db.artifacts_file, db.artifacts_size"
	 " FROM commit_statuses j JOIN ci_builds jb ON jb.id = j.id"
	 " JOIN commit_statuses d ON d.pipeline_id = j.pipeline_id AND d.stage_idx < j.stage_idx"
	 "  AND NOT d.retried"
	 " JOIN ci_builds db ON db.id = d.id AND db.artifacts_file IS NOT NULL"
	 " WHERE j.id = $1 AND (jsonb_typeof(jb.options->'dependencies') IS DISTINCT FROM 'array'"
	 "  OR d.name IN (SELECT jsonb_array_elements_text(jb.options->'dependencies')))"
	 " ORDER BY d.stage_idx, d.id",
	 1, RD_NCOLS},
	/* $1 the job, $2 the digest of the token sent: the job's project, status, trace
	 * size, whether the token is the job's, its pipeline, whether its project is being
	 * deleted, whether it was erased (JA_ columns); locked: the job's writers (trace
	 * patches, updates) go one at a time */
	{"runner_job_auth",
	 "SELECT b.project_id, cs.status, b.trace_size, b.token_digest = $2, cs.pipeline_id,"
	 " p.pending_delete, b.erased_at IS NOT NULL"
	 " FROM ci_builds b JOIN commit_statuses cs ON cs.id = b.id"
	 " JOIN projects p ON p.id = b.project_id WHERE b.id = $1"
	 " FOR UPDATE OF b",
	 2, JA_NCOLS},
	{"runner_trace_size", "UPDATE ci_builds SET trace_size = $2 WHERE id = $1", 2, 0},
	/* $1 the job, $2 success or failed: the pipeline and the coverage regex, none when
	 * the job was no longer running */
	{"runner_job_finish",
	 "UPDATE commit_statuses cs SET status = $2, finished_at = now(), updated_at = now()"
	 " FROM ci_builds b WHERE cs.id = $1 AND b.id = cs.id AND cs.status = 'running'"
	 " RETURNING cs.pipeline_id, b.options->>'coverage'",
	 2, RF_NCOLS},
	{"runner_job_coverage",
	 "UPDATE commit_statuses SET coverage = ci_trace_coverage($2, $3) WHERE id = $1", 3, 0},
	{"runner_job_touch",
	 "UPDATE commit_statuses SET updated_at = now() WHERE id = $1 AND status = 'running'"
	 " AND updated_at < now() - interval '1 minute'",
	 1, 0},
	/* $1 the job, $2 file name, $3 size, $4 seconds until it expires (NULL: never) */
	{"runner_artifacts_set",
	 "UPDATE ci_builds SET artifacts_file = $2, artifacts_size = $3,"
	 " artifacts_expire_at = now() + $4::bigint * interval '1 second' WHERE id = $1",
	 4, 0},
	/* $1 the job whose artifacts are asked for, $2 the digest of the token sent: its
	 * project, its archive's file name, whether the token is that of a running job of
	 * its pipeline that may have them (itself, or one of a later stage), whether its
	 * project is being deleted, whether it was erased */
	{"runner_artifacts_get",
	 "SELECT d.project_id, d.artifacts_file,"
	 " EXISTS (SELECT 1 FROM ci_builds t"
	 "  JOIN commit_statuses tc ON tc.id = t.id WHERE t.token_digest = $2"
	 "  AND tc.status = 'running' AND t.pipeline_id = d.pipeline_id"
	 "  AND (t.id = d.id OR tc.stage_idx > dc.stage_idx)),"
	 " p.pending_delete, d.erased_at IS NOT NULL"
	 " FROM ci_builds d JOIN commit_statuses dc ON dc.id = d.id"
	 " JOIN projects p ON p.id = d.project_id WHERE d.id = $1",
	 2, RA_NCOLS},
	{NULL, NULL, 0, 0},
};

/* ---- the shared registration token ---- */

int runner_registration_token(ctx *c, const char **out)
{
	int err;
	PGresult *res = db_query(c, "runner_settings_token", 0, NULL, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 1 && db_val(res, 0, 0)) {
		*out = crypto_open(c->a, c->key, db_val(res, 0, 0));
		return *out ? 0 : ERR_INTERNAL;
	}
	char token[TOKEN_LEN + 1];
	const char *sealed;
	if (crypto_token_sealed(c->a, c->key, token, &sealed) < 0)
		return ERR_INTERNAL;
	const char *v[2] = {crypto_sha256_hex(c->a, token, strlen(token)), sealed};
	if (!db_query(c, "runner_settings_token_set", 2, v, &err))
		return err;
	/* whoever made it first, its token */
	if (!(res = db_query(c, "runner_settings_token", 0, NULL, &err)))
		return err;
	if (PQntuples(res) != 1 || !db_val(res, 0, 0))
		return ERR_INTERNAL;
	*out = crypto_open(c->a, c->key, db_val(res, 0, 0));
	return *out ? 0 : ERR_INTERNAL;
}

/* ---- helpers ---- */

static const char *digest(request *r, const char *token)
{
	return crypto_sha256_hex(r->ctx.a, token, strlen(token));
}

/* The runner's `info` member (a JSON object, sent as JSON; or info[name]=... in a form):
 * field key of it, NULL when absent or not a string. */
static const char *info_field(request *r, json_object *info, const char *key)
{
	if (info) {
		json_object *v;
		if (json_object_object_get_ex(info, key, &v) &&
		    json_object_is_type(v, json_type_string))
			return arena_strdup(r->ctx.a, json_object_get_string(v));
		return NULL;
	}
	return param_str(r, arena_printf(r->ctx.a, "info[%s]", key));
}

static json_object *info_object(request *r)
{
	const char *s = param_str(r, "info");
	if (!s)
		return NULL;
	json_object *o = json_tokener_parse(s);
	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	return o ? request_own(r, o) : NULL;
}

/* The info fields name, version, revision, platform, architecture into v[0..RI_COUNT). */
static void runner_info(request *r, const char **v)
{
	static const char *const keys[] = {[RI_NAME] = "name",
					   [RI_VERSION] = "version",
					   [RI_REVISION] = "revision",
					   [RI_PLATFORM] = "platform",
					   [RI_ARCHITECTURE] = "architecture"};
	json_object *info = info_object(r);
	for (int i = 0; i < RI_COUNT; i++) {
		const char *s = info_field(r, info, keys[i]);
		v[i] = s && strlen(s) <= 255 ? s : NULL;
	}
}

/* The runner's token parameter, required: 0 with it, or ERR_MISSING. */
static int token_param(request *r, const char **out)
{
	const char *t = param_str(r, "token");
	if (!t || !*t)
		return fail_missing(r, "token");
	*out = t;
	return 0;
}

/* A job's token: the token parameter or the JOB-TOKEN header (GitLab's order);
 * NULL when neither. */
static const char *job_token(request *r)
{
	const char *t = param_str(r, "token");
	if (!t || !*t)
		t = request_header(r, "HTTP_JOB_TOKEN");
	return t && *t ? t : NULL;
}

/* GitLab 10's forbidden!(reason): its message parts joined with a space, the reason's
 * part beginning with one of its own. */
static int forbidden(request *r, const char *reason)
{
	return fail(r, ERR_FORBIDDEN, arena_printf(r->ctx.a, "403 Forbidden  - %s", reason));
}

/* A boolean parameter as text for SQL ("true"/"false"), NULL when absent; ERR_INVALID
 * when it is no boolean. */
static int bool_param(request *r, const char *name, const char **out)
{
	bool b;
	int rc = param_bool(r, name, &b);
	if (rc < 0)
		return rc;
	*out = rc == 1 ? NULL : b ? "true" : "false";
	return 0;
}

/* ---- POST /runners, DELETE /runners, POST /runners/verify ---- */

static int runners_check_register(request *r)
{
	const char *t, *b;
	int rc = token_param(r, &t);
	if (rc < 0 || (rc = bool_param(r, "active", &b)) < 0 ||
	    (rc = bool_param(r, "locked", &b)) < 0 || (rc = bool_param(r, "run_untagged", &b)) < 0)
		return rc;
	return 0;
}

static int runners_register(request *r)
{
	const char *token = NULL, *active, *locked, *run_untagged, *tags;
	int rc = token_param(r, &token);
	if (rc < 0 || (rc = bool_param(r, "active", &active)) < 0 ||
	    (rc = bool_param(r, "locked", &locked)) < 0 ||
	    (rc = bool_param(r, "run_untagged", &run_untagged)) < 0 ||
	    (rc = projects_read_tag_list(r, &tags)) < 0)
		return rc;
	if (!tags)
		tags = "[]";
	const char *description = NULL;
	if ((rc = param_text(r, "description", 255, &description)) < 0)
		return rc;
	/* GitLab 10: a runner that runs no untagged jobs needs tags */
	if (run_untagged && strcmp(run_untagged, "false") == 0 && strcmp(tags, "[]") == 0)
		return fail_validation(r, "tags_list",
				       "can not be empty when runner is not allowed to pick "
				       "untagged jobs");
	char fresh[TOKEN_LEN + 1];
	const char *sealed;
	if (crypto_token_sealed(r->ctx.a, r->ctx.key, fresh, &sealed) < 0)
		return ERR_INTERNAL;
	const char *v[RR_NPARAMS] = {[RR_REGISTRATION] = digest(r, token),
				     [RR_DIGEST] = digest(r, fresh),
				     [RR_SEALED] = sealed,
				     [RR_DESCRIPTION] = description,
				     [RR_ACTIVE] = active,
				     [RR_LOCKED] = locked,
				     [RR_RUN_UNTAGGED] = run_untagged,
				     [RR_TAG_LIST] = tags};
	runner_info(r, v + RR_INFO);
	int err;
	PGresult *res = db_query(&r->ctx, "runner_register", RR_NPARAMS, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) != 1)
		return ERR_FORBIDDEN;
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, 0, 0));
	json_put_str(o, "token", arena_strdup(r->ctx.a, fresh));
	respond_json(r, 201, o);
	return 0;
}

static int runners_check_token(request *r)
{
	const char *t;
	return token_param(r, &t);
}

/* Runs statement stmt on the runner of the token parameter: status when it names one,
 * 403 otherwise. */
static int runner_by_token(request *r, const char *stmt, int status)
{
	const char *token = NULL;
	int rc = token_param(r, &token);
	if (rc < 0)
		return rc;
	const char *v[1] = {digest(r, token)};
	int err;
	PGresult *res = db_query(&r->ctx, stmt, 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) != 1)
		return ERR_FORBIDDEN;
	respond_empty(r, status);
	return 0;
}

static int runners_unregister(request *r)
{
	return runner_by_token(r, "runner_delete", 204);
}

static int runners_verify(request *r)
{
	return runner_by_token(r, "runner_verify", 200);
}

/* ---- the job payload (GitLab 10's Entities::JobRequest::Response) ---- */

static void add_var(json_object *vars, const char *key, const char *value, bool public)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "key", json_object_new_string(key));
	json_object_object_add(o, "value", json_object_new_string(value ? value : ""));
	json_object_object_add(o, "public", json_object_new_boolean(public));
	json_object_array_add(vars, o);
}

/* The members of arr (a JSON array of {key, value[, public]}) into vars. */
static void add_var_list(json_object *vars, json_object *arr, bool public)
{
	if (!arr || !json_object_is_type(arr, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i), *k, *v, *p;
		if (!json_object_is_type(e, json_type_object) ||
		    !json_object_object_get_ex(e, "key", &k) ||
		    !json_object_object_get_ex(e, "value", &v))
			continue;
		bool pub = json_object_object_get_ex(e, "public", &p) ? json_object_get_boolean(p)
								      : public;
		add_var(vars, json_object_get_string(k), json_object_get_string(v), pub);
	}
}

/* Parses a jsonb column, owned by the request; NULL for SQL NULL or bad JSON. */
static json_object *jsonb(request *r, const PGresult *res, int row, int col)
{
	const char *s = db_val(res, row, col);
	json_object *o = s ? json_tokener_parse(s) : NULL;
	return o ? request_own(r, o) : NULL;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v;
	return o && json_object_is_type(o, json_type_object) &&
			       json_object_object_get_ex(o, key, &v)
		       ? v
		       : NULL;
}

/* A copy of JSON value v (NULL: JSON null) for the payload. */
static json_object *copy(json_object *v)
{
	json_object *c = NULL;
	if (v && json_object_deep_copy(v, &c, NULL) != 0)
		return NULL;
	return c;
}

/* The strings of v (an array; a single string as one) appended to arr. */
static void add_lines(json_object *arr, json_object *v)
{
	if (!v)
		return;
	if (json_object_is_type(v, json_type_string)) {
		json_object_array_add(arr, json_object_new_string(json_object_get_string(v)));
		return;
	}
	if (!json_object_is_type(v, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i);
		json_object_array_add(arr, json_object_new_string(json_object_get_string(e)));
	}
}

static json_object *step(const char *name, json_object *script, const char *when, bool allow)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "script", script);
	json_object_object_add(o, "timeout", json_object_new_int(JOB_TIMEOUT));
	json_object_object_add(o, "when", json_object_new_string(when));
	json_object_object_add(o, "allow_failure", json_object_new_boolean(allow));
	return o;
}

/* An image or a service of options: {name, entrypoint} (Entities::JobRequest::Image),
 * with the alias and command of a service; a plain string is its name. */
static json_object *image(json_object *v, bool service)
{
	if (!v)
		return NULL;
	json_object *o = json_object_new_object();
	if (json_object_is_type(v, json_type_string)) {
		json_object_object_add(o, "name",
				       json_object_new_string(json_object_get_string(v)));
		json_object_object_add(o, "entrypoint", NULL);
		if (service) {
			json_object_object_add(o, "alias", NULL);
			json_object_object_add(o, "command", NULL);
		}
		return o;
	}
	json_object_object_add(o, "name", copy(member(v, "name")));
	json_object_object_add(o, "entrypoint", copy(member(v, "entrypoint")));
	if (service) {
		json_object_object_add(o, "alias", copy(member(v, "alias")));
		json_object_object_add(o, "command", copy(member(v, "command")));
	}
	return o;
}

/* What artifacts and cache share: {<first>, untracked, paths} of options' object src. */
static json_object *files_entry(json_object *src, const char *first)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, first, copy(member(src, first)));
	json_object *u = member(src, "untracked");
	json_object_object_add(o, "untracked", u ? copy(u) : json_object_new_boolean(false));
	json_object *paths = json_object_new_array();
	add_lines(paths, member(src, "paths"));
	json_object_object_add(o, "paths", paths);
	return o;
}

/* options.artifacts as Entities::JobRequest::Artifacts: [{name, untracked, paths, when,
 * expire_in}], [] when the job keeps none. */
static json_object *artifacts(json_object *a)
{
	json_object *arr = json_object_new_array();
	if (!a || !json_object_is_type(a, json_type_object))
		return arr;
	json_object *o = files_entry(a, "name");
	json_object *w = member(a, "when");
	json_object_object_add(o, "when", w ? copy(w) : json_object_new_string("on_success"));
	json_object_object_add(o, "expire_in", copy(member(a, "expire_in")));
	json_object_array_add(arr, o);
	return arr;
}

/* options.cache as Entities::JobRequest::Cache: [{key, untracked, paths, policy}]. */
static json_object *cache_list(json_object *c)
{
	json_object *arr = json_object_new_array();
	if (!c || !json_object_is_type(c, json_type_object))
		return arr;
	json_object *o = files_entry(c, "key");
	json_object *p = member(c, "policy");
	json_object_object_add(o, "policy", p ? copy(p) : json_object_new_string("pull-push"));
	json_object_array_add(arr, o);
	return arr;
}

/* The URL the runner clones from (Ci::Build#repo_url): the project's HTTP URL from the
 * configured external URL, with the job's token as gitlab-ci-token's password. */
static const char *repo_url(request *r, const PGresult *j, const char *token)
{
	const char *ext = r->ctx.cfg->external_url;
	const char *rest = strstr(ext, "://");
	size_t scheme = rest ? (size_t)(rest - ext) + 3 : 0;
	return arena_printf(r->ctx.a, "%.*sgitlab-ci-token:%s@%s/%s/%s.git", (int)scheme, ext,
			    token, ext + scheme, db_val(j, 0, J_NS_PATH),
			    db_val(j, 0, J_PROJECT_PATH));
}

/* The message of the job's commit, read from the repository (GitLab 10 reads it there
 * too: Ci::Pipeline#git_commit_message); NULL when the repository or the commit is not
 * there (nil in GitLab, an empty value to the runner). */
static const char *commit_message(request *r, const PGresult *j)
{
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	if (gitc_open(&r->ctx, db_val(j, 0, J_PROJECT_ID), &repo) != 0 ||
	    gitc_commit_by_id(&r->ctx, repo, db_val(j, 0, J_SHA), &commit) != 0)
		return NULL;
	return git_commit_message(commit);
}

/* The variables of the job in row 0 of j: GitLab 10.8's Ci::Build#variables, in its
 * order (a later one of the same key wins in the runner) and with its public flags:
 * persisted (the job's id, token and clone URL), predefined (the server, the job, the
 * commit and their deprecated CI_BUILD_ names), the project's, the pipeline's, the
 * runner's, yaml, the user's, group, project, trigger, pipeline, schedule, and the
 * environment's last.
 *
 * Left out as GitLab 10.8 leaves them out here: CI_REGISTRY, CI_REGISTRY_IMAGE,
 * CI_REGISTRY_USER and CI_REGISTRY_PASSWORD (there is no container registry),
 * CI_DEPLOY_USER and CI_DEPLOY_PASSWORD (there are no deploy tokens), GITLAB_FEATURES and
 * CHAT_* (Enterprise Edition), AUTO_DEVOPS_* and deployment services' variables (none
 * here). The runner adds its own: CI_SERVER, CI_PROJECT_DIR, CI_RUNNER_VERSION,
 * CI_RUNNER_REVISION, CI_RUNNER_EXECUTABLE_ARCH, CI_SHARED_ENVIRONMENT or
 * CI_DISPOSABLE_ENVIRONMENT. Later releases' (CI_COMMIT_BEFORE_SHA, CI_JOB_URL,
 * CI_PIPELINE_URL, CI_PIPELINE_IID, CI_SERVER_HOST...) are not given. */
static int job_variables(request *r, const PGresult *j, const char *token, json_object **out)
{
	const config *cfg = r->ctx.cfg;
	json_object *vars = json_object_new_array();
	*out = vars;
	const char *full = arena_printf(r->ctx.a, "%s/%s", db_val(j, 0, J_NS_PATH),
					db_val(j, 0, J_PROJECT_PATH));
	const char *ref = db_val(j, 0, J_REF);
	const char *ref_slug = db_val(j, 0, J_REF_SLUG);
	bool tag = db_bool(j, 0, J_TAG);
	bool manual = strcmp(db_val(j, 0, J_WHEN), "manual") == 0;
	bool triggered = db_val(j, 0, J_TRIGGER_VARS) ||
			 strcmp(db_val(j, 0, J_SOURCE), "trigger") == 0;
	static const char *const vis[] = {"private", "internal", "public"};
	long long v = db_int(j, 0, J_VISIBILITY);
	/* persisted_variables */
	add_var(vars, "CI_JOB_ID", db_val(j, 0, J_ID), true);
	add_var(vars, "CI_JOB_TOKEN", token, false);
	add_var(vars, "CI_BUILD_ID", db_val(j, 0, J_ID), true);
	add_var(vars, "CI_BUILD_TOKEN", token, false);
	add_var(vars, "CI_REPOSITORY_URL", repo_url(r, j, token), false);
	/* predefined_variables */
	add_var(vars, "CI", "true", true);
	add_var(vars, "GITLAB_CI", "true", true);
	add_var(vars, "CI_SERVER_NAME", "GitLab", true);
	add_var(vars, "CI_SERVER_VERSION", API_VERSION, true);
	add_var(vars, "CI_SERVER_REVISION", GIT_REVISION, true);
	add_var(vars, "CI_JOB_NAME", db_val(j, 0, J_NAME), true);
	add_var(vars, "CI_JOB_STAGE", db_val(j, 0, J_STAGE), true);
	add_var(vars, "CI_COMMIT_SHA", db_val(j, 0, J_SHA), true);
	add_var(vars, "CI_COMMIT_REF_NAME", ref, true);
	add_var(vars, "CI_COMMIT_REF_SLUG", ref_slug, true);
	if (tag)
		add_var(vars, "CI_COMMIT_TAG", ref, true);
	if (triggered)
		add_var(vars, "CI_PIPELINE_TRIGGERED", "true", true);
	if (manual)
		add_var(vars, "CI_JOB_MANUAL", "true", true);
	/* legacy_variables: the names before 9.0 that 10.8 still gives */
	add_var(vars, "CI_BUILD_REF", db_val(j, 0, J_SHA), true);
	add_var(vars, "CI_BUILD_BEFORE_SHA", db_val(j, 0, J_BEFORE_SHA), true);
	add_var(vars, "CI_BUILD_REF_NAME", ref, true);
	add_var(vars, "CI_BUILD_REF_SLUG", ref_slug, true);
	add_var(vars, "CI_BUILD_NAME", db_val(j, 0, J_NAME), true);
	add_var(vars, "CI_BUILD_STAGE", db_val(j, 0, J_STAGE), true);
	if (tag)
		add_var(vars, "CI_BUILD_TAG", ref, true);
	if (triggered)
		add_var(vars, "CI_BUILD_TRIGGERED", "true", true);
	if (manual)
		add_var(vars, "CI_BUILD_MANUAL", "true", true);
	/* Project#predefined_variables */
	add_var(vars, "CI_PROJECT_ID", db_val(j, 0, J_PROJECT_ID), true);
	add_var(vars, "CI_PROJECT_NAME", db_val(j, 0, J_PROJECT_PATH), true);
	add_var(vars, "CI_PROJECT_PATH", full, true);
	add_var(vars, "CI_PROJECT_PATH_SLUG", db_val(j, 0, J_PATH_SLUG), true);
	add_var(vars, "CI_PROJECT_NAMESPACE", db_val(j, 0, J_NS_PATH), true);
	add_var(vars, "CI_PROJECT_URL", arena_printf(r->ctx.a, "%s/%s", cfg->external_url, full),
		true);
	add_var(vars, "CI_PROJECT_VISIBILITY", v >= 20 ? vis[2] : v >= 10 ? vis[1] : vis[0], true);
	/* Ci::Pipeline#predefined_variables */
	const char *message = commit_message(r, j);
	add_var(vars, "CI_PIPELINE_ID", db_val(j, 0, J_PIPELINE_ID), true);
	add_var(vars, "CI_CONFIG_PATH", db_val(j, 0, J_CONFIG_PATH), true);
	add_var(vars, "CI_PIPELINE_SOURCE", db_val(j, 0, J_SOURCE), true);
	add_var(vars, "CI_COMMIT_MESSAGE", message, true);
	add_var(vars, "CI_COMMIT_TITLE",
		message ? entity_commit_full_title(&r->ctx, message) : NULL, true);
	add_var(vars, "CI_COMMIT_DESCRIPTION",
		message ? entity_commit_description(&r->ctx, message) : NULL, true);
	/* Ci::Runner#predefined_variables */
	if (db_val(j, 0, J_RUNNER_ID)) {
		add_var(vars, "CI_RUNNER_ID", db_val(j, 0, J_RUNNER_ID), true);
		add_var(vars, "CI_RUNNER_DESCRIPTION", db_val(j, 0, J_RUNNER_DESCRIPTION), true);
		add_var(vars, "CI_RUNNER_TAGS", db_val(j, 0, J_RUNNER_TAGS), true);
	}
	add_var_list(vars, jsonb(r, j, 0, J_YAML_VARS), true);
	/* user_variables */
	if (db_val(j, 0, J_USER_ID)) {
		add_var(vars, "GITLAB_USER_ID", db_val(j, 0, J_USER_ID), true);
		add_var(vars, "GITLAB_USER_EMAIL", db_val(j, 0, J_USER_EMAIL), true);
		add_var(vars, "GITLAB_USER_LOGIN", db_val(j, 0, J_USER_LOGIN), true);
		add_var(vars, "GITLAB_USER_NAME", db_val(j, 0, J_USER_NAME), true);
	}

	const char *pv[4] = {db_val(j, 0, J_NS_ID), db_val(j, 0, J_PROJECT_ID),
			     db_val(j, 0, J_SCHEDULE_ID),
			     db_bool(j, 0, J_PROTECTED) ? "true" : "false"};
	int err;
	PGresult *res = db_query(&r->ctx, "runner_job_variables", 4, pv, &err);
	if (!res)
		return err;
	int n = PQntuples(res), i = 0;
	for (int pass = 1; pass <= 3; pass++) {
		if (pass == 3) {
			/* a trigger's variables ({"KEY": "value"}), then the pipeline's */
			json_object *tv = jsonb(r, j, 0, J_TRIGGER_VARS);
			if (tv && json_object_is_type(tv, json_type_object)) {
				json_object_object_foreach(tv, key, val)
					add_var(vars, key, json_object_get_string(val), false);
			}
			add_var_list(vars, jsonb(r, j, 0, J_PIPELINE_VARS), false);
		}
		for (; i < n && db_int(res, i, RV_SRC) == pass; i++) {
			const char *plain =
				crypto_open(r->ctx.a, r->ctx.key, db_val(res, i, RV_VALUE_SEALED));
			if (!plain)
				return ERR_INTERNAL;
			add_var(vars, db_val(res, i, RV_KEY), plain, false);
		}
	}
	/* persisted_environment_variables: the url unexpanded, after the name and slug it
	 * may use */
	if (db_val(j, 0, J_ENV_NAME)) {
		add_var(vars, "CI_ENVIRONMENT_NAME", db_val(j, 0, J_ENV_NAME), true);
		add_var(vars, "CI_ENVIRONMENT_SLUG", db_val(j, 0, J_ENV_SLUG), true);
		if (db_val(j, 0, J_ENV_URL))
			add_var(vars, "CI_ENVIRONMENT_URL", db_val(j, 0, J_ENV_URL), true);
	}
	return 0;
}

/* The payload of job id, whose token is token. */
static int job_payload(request *r, const char *id, const char *token, json_object **out)
{
	const char *v[1] = {id};
	int err;
	PGresult *j = db_query(&r->ctx, "runner_job", 1, v, &err);
	if (!j)
		return err;
	if (PQntuples(j) != 1)
		return ERR_INTERNAL;
	json_object *opts = jsonb(r, j, 0, J_OPTIONS);
	json_object *o = json_object_new_object();
	request_own(r, o);
	json_put_int(o, "id", db_int(j, 0, J_ID));
	json_put_str(o, "token", token);
	json_put_bool(o, "allow_git_fetch", true);

	json_object *info = json_object_new_object();
	json_put_str(info, "name", db_val(j, 0, J_NAME));
	json_put_str(info, "stage", db_val(j, 0, J_STAGE));
	json_put_int(info, "project_id", db_int(j, 0, J_PROJECT_ID));
	json_put_str(info, "project_name", db_val(j, 0, J_PROJECT_NAME));
	json_object_object_add(o, "job_info", info);

	json_object *git = json_object_new_object();
	json_put_str(git, "repo_url", repo_url(r, j, token));
	json_put_str(git, "ref", db_val(j, 0, J_REF));
	json_put_str(git, "sha", db_val(j, 0, J_SHA));
	json_put_str(git, "before_sha", db_val(j, 0, J_BEFORE_SHA));
	json_put_str(git, "ref_type", db_bool(j, 0, J_TAG) ? "tag" : "branch");
	json_object_object_add(o, "git_info", git);

	json_object *ri = json_object_new_object();
	json_put_int(ri, "timeout", JOB_TIMEOUT);
	json_object_object_add(o, "runner_info", ri);

	json_object *vars;
	int rc = job_variables(r, j, token, &vars);
	json_object_object_add(o, "variables", vars);
	if (rc < 0)
		return rc;

	json_object *steps = json_object_new_array();
	json_object *script = json_object_new_array();
	add_lines(script, member(opts, "before_script"));
	add_lines(script, member(opts, "script"));
	json_object_array_add(steps, step("script", script, "on_success", false));
	json_object *after = member(opts, "after_script");
	if (after) {
		json_object *lines = json_object_new_array();
		add_lines(lines, after);
		json_object_array_add(steps, step("after_script", lines, "always", true));
	}
	json_object_object_add(o, "steps", steps);

	json_object_object_add(o, "image", image(member(opts, "image"), false));
	json_object *services = json_object_new_array();
	json_object *sv = member(opts, "services");
	if (sv && json_object_is_type(sv, json_type_array))
		for (size_t i = 0; i < json_object_array_length(sv); i++)
			json_object_array_add(services,
					      image(json_object_array_get_idx(sv, i), true));
	json_object_object_add(o, "services", services);
	json_object_object_add(o, "artifacts", artifacts(member(opts, "artifacts")));
	json_object_object_add(o, "cache", cache_list(member(opts, "cache")));
	json_object_object_add(o, "credentials", json_object_new_array());

	PGresult *deps = db_query(&r->ctx, "runner_job_dependencies", 1, v, &err);
	if (!deps)
		return err;
	json_object *darr = json_object_new_array();
	for (int i = 0; i < PQntuples(deps); i++) {
		json_object *d = json_object_new_object();
		json_put_int(d, "id", db_int(deps, i, RD_ID));
		json_put_str(d, "name", db_val(deps, i, RD_NAME));
		/* the taking job's own token: it may download its dependencies' archives
		 * while it runs (a finished job's token no longer works) */
		json_put_str(d, "token", token);
		json_object *f = json_object_new_object();
		json_put_str(f, "filename", db_val(deps, i, RD_FILE));
		json_put_int(f, "size", db_int(deps, i, RD_SIZE));
		json_object_object_add(d, "artifacts_file", f);
		json_object_array_add(darr, d);
	}
	json_object_object_add(o, "dependencies", darr);
	*out = o;
	return 0;
}

/* ---- POST /jobs/request ---- */

/* No job for the runner: 204, X-GitLab-Last-Update the runner's last_update (it sends
 * it back; it only tells that nothing was pending then; GitLab 10's are hex digits) or
 * now. A paused runner gets none, as from GitLab 10 (no_content! before the queue). */
static int no_job(request *r, const char *now, bool active)
{
	const char *last = param_str(r, "last_update");
	if (active)
		respond_header(r, "X-GitLab-Last-Update",
			       last && *last && strlen(last) < 64 &&
					       strspn(last, "0123456789abcdefABCDEF") ==
						       strlen(last)
				       ? last
				       : now);
	respond_empty(r, 204);
	return 0;
}

static int jobs_request(request *r)
{
	const char *token = NULL;
	int rc = token_param(r, &token);
	if (rc < 0)
		return rc;
	const char *v[RQ_NPARAMS] = {[RQ_RUNNER] = digest(r, token)};
	int err;
	PGresult *res = db_query(&r->ctx, "runner_poll", 1, v, &err);
	if (!res)
		return err;
	if (!db_val(res, 0, RP_ID))
		return ERR_FORBIDDEN;
	if (!db_bool(res, 0, RP_DUE))
		return no_job(r, db_val(res, 0, RP_TIME), db_bool(res, 0, RP_ACTIVE));
	/* the token a job would get, made beforehand so that taking the job is one
	 * statement: getrandom and a digest cost less than a round trip */
	char job_tok[TOKEN_LEN + 1];
	if (crypto_token(job_tok) < 0)
		return ERR_INTERNAL;
	v[RQ_JOB_DIGEST] = digest(r, job_tok);
	runner_info(r, v + RQ_INFO);
	res = db_query(&r->ctx, "runner_request", RQ_NPARAMS, v, &err);
	if (!res)
		return err;
	if (!db_val(res, 0, RQ_ID))
		return ERR_FORBIDDEN;
	const char *job = db_val(res, 0, RQ_JOB);
	if (!job)
		return no_job(r, db_val(res, 0, RQ_TIME), db_bool(res, 0, RQ_ACTIVE));
	const char *pv[1] = {db_val(res, 0, RQ_PIPELINE)};
	json_object *payload = NULL;
	rc = db_query(&r->ctx, "runner_process", 1, pv, &err) ? 0 : err;
	if (rc == 0)
		rc = job_payload(r, job, arena_strdup(r->ctx.a, job_tok), &payload);
	if (rc < 0) {
		/* taken but not handed out (a variable sealed with another key, the
		 * database gone): the job fails, as GitLab's runner_system_failure */
		log_error("job %s: no payload for its runner; the job fails", job);
		const char *jv[1] = {job};
		if (db_query(&r->ctx, "runner_drop", 1, jv, NULL))
			db_query(&r->ctx, "runner_process", 1, pv, NULL);
		return rc;
	}
	respond_json(r, 201, json_object_get(payload)); /* also the request's */
	return 0;
}

/* ---- the job's own routes ---- */

typedef struct {
	const char *id;
	const char *project_id;
	const char *status;
	long long trace_size;
	const char *pipeline_id;
} job_ref;

/* An id as the number it is ("05" and "+5" are job 5): what the paths of its files
 * are made of, so that one job has one trace and one archive. */
static const char *canonical_id(request *r, const char *id)
{
	return arena_printf(r->ctx.a, "%lld", strtoll(id, NULL, 10));
}

/* What a job's route answers when the job is not running: GitLab 10's reason, and
 * whether the job's status goes with it (Job-Status: the runner stops a job whose
 * update or trace is refused so). */
typedef struct {
	const char *reason;
	bool status_header;
} not_running;

/* PUT /jobs/:id, PATCH /jobs/:id/trace (job_forbidden!) */
static const not_running UPDATE_REFUSED = {"Job is not running", true};
static const not_running AUTHORIZE_REFUSED = {"Job is not running", false};
static const not_running UPLOAD_REFUSED = {"Job is not running!", false};

/* The running job of :id for the token sent, locked (in the route's transaction): 0;
 * 1 when it answered 404 (no such job); ERR_FORBIDDEN when the token is not the job's
 * (403 Forbidden), its project is being deleted or it was erased, or it does not run
 * (refused's reason), in GitLab 10's order (authenticate_job!). */
static int job_auth(request *r, const char *token, const not_running *refused, job_ref *out)
{
	const char *id;
	int rc = api_id(r, "id", &id);
	if (rc < 0)
		return rc;
	const char *v[2] = {id, token ? digest(r, token) : NULL};
	int err;
	PGresult *res = db_query(&r->ctx, "runner_job_auth", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) != 1) {
		api_error(r, 404, "404 Not Found");
		return 1;
	}
	if (!token || !db_bool(res, 0, JA_TOKEN_OK))
		return ERR_FORBIDDEN;
	if (db_bool(res, 0, JA_PENDING_DELETE))
		return forbidden(r, "Project has been deleted!");
	if (db_bool(res, 0, JA_ERASED))
		return forbidden(r, "Job has been erased!");
	if (strcmp(db_val(res, 0, JA_STATUS), "running") != 0) {
		if (refused->status_header)
			respond_header(r, "Job-Status", db_val(res, 0, JA_STATUS));
		return forbidden(r, refused->reason);
	}
	out->id = canonical_id(r, id);
	out->project_id = db_val(res, 0, JA_PROJECT_ID);
	out->status = db_val(res, 0, JA_STATUS);
	out->trace_size = db_int(res, 0, JA_TRACE_SIZE);
	out->pipeline_id = db_val(res, 0, JA_PIPELINE_ID);
	return 0;
}

static const char *ci_path(request *r, const char *kind, const char *project_id, const char *rest)
{
	return arena_printf(r->ctx.a, "%s/ci/%s/%s/%s", r->ctx.cfg->storage_path, kind, project_id,
			    rest);
}

static const char *trace_path(request *r, const job_ref *j)
{
	return ci_path(r, "traces", j->project_id, arena_printf(r->ctx.a, "%s.log", j->id));
}

/* Writes data[0..n) at offset off of the trace file and cuts it there: 0 or
 * ERR_INTERNAL (logged). */
static int trace_write(request *r, const job_ref *j, long long off, const char *data, size_t n)
{
	const char *path = trace_path(r, j);
	if (files_dirs(path) < 0) {
		log_error("trace %s: %s", path, strerror(errno));
		return ERR_INTERNAL;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		log_error("trace %s: %s", path, strerror(errno));
		return ERR_INTERNAL;
	}
	size_t done = 0;
	while (done < n) {
		ssize_t w = pwrite(fd, data + done, n - done, (off_t)(off + (long long)done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	int rc = done == n && ftruncate(fd, (off_t)(off + (long long)n)) == 0 ? 0 : -1;
	if (rc < 0)
		log_error("trace %s: %s", path, strerror(errno));
	close(fd);
	return rc < 0 ? ERR_INTERNAL : 0;
}

static int set_trace_size(request *r, const job_ref *j, long long size)
{
	const char *v[2] = {j->id, arena_printf(r->ctx.a, "%lld", size)};
	int err;
	return db_query(&r->ctx, "runner_trace_size", 2, v, &err) ? 0 : err;
}

/* The last COVERAGE_TAIL bytes of the trace as text PostgreSQL takes, for the coverage
 * regex (ci_trace_coverage) only: bytes outside printable ASCII (NUL, ANSI escapes,
 * invalid UTF-8) become '?', which no coverage pattern's digits match. The trace file
 * itself keeps every byte. */
static const char *trace_tail(request *r, const job_ref *j, long long size)
{
	long long from = size > COVERAGE_TAIL ? size - COVERAGE_TAIL : 0;
	size_t n = (size_t)(size - from);
	char *s = arena_alloc(r->ctx.a, n + 1);
	int fd = open(trace_path(r, j), O_RDONLY | O_CLOEXEC);
	ssize_t got = fd < 0 ? 0 : pread(fd, s, n, (off_t)from);
	if (fd >= 0)
		close(fd);
	if (got < 0)
		got = 0;
	for (ssize_t i = 0; i < got; i++)
		if ((unsigned char)s[i] >= 0x80 || (s[i] < 0x20 && s[i] != '\n' && s[i] != '\t'))
			s[i] = '?';
	s[got] = '\0';
	return s;
}

static int jobs_check_id(request *r)
{
	const char *id;
	return api_id(r, "id", &id);
}

/* GitLab 10's declarations of PUT /jobs/:id: token and id required; the trace is bytes
 * (NUL bytes and all: a runner's trace holds what the job printed), every other
 * parameter text. */
static int jobs_check_update(request *r)
{
	const char *t;
	int rc = token_param(r, &t);
	if (rc < 0 || (rc = jobs_check_id(r)) < 0)
		return rc;
	return param_check_text(r, "trace");
}

/* PUT /jobs/:id: state (running, success, failed), trace (the whole trace, replacing
 * what was sent before, byte for byte), failure_reason (taken, not kept: no runner
 * waits on it, and a newer runner's reasons are not refused). */
static int jobs_update(request *r)
{
	job_ref j;
	int rc = job_auth(r, param_str(r, "token"), &UPDATE_REFUSED, &j);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *trace;
	size_t trace_len;
	long long size = j.trace_size;
	if (param_bytes(r, "trace", &trace, &trace_len) == 0) {
		size = (long long)trace_len;
		if ((rc = trace_write(r, &j, 0, trace, trace_len)) < 0 ||
		    (rc = set_trace_size(r, &j, size)) < 0)
			return rc;
	}
	const char *state = param_str(r, "state");
	int err;
	if (state && (strcmp(state, "success") == 0 || strcmp(state, "failed") == 0)) {
		const char *v[2] = {j.id, state};
		PGresult *res = db_query(&r->ctx, "runner_job_finish", 2, v, &err);
		if (!res)
			return err;
		if (PQntuples(res) != 1)
			return ERR_FORBIDDEN;
		if (db_val(res, 0, RF_COVERAGE_REGEX)) {
			const char *cv[3] = {j.id, trace_tail(r, &j, size),
					     db_val(res, 0, RF_COVERAGE_REGEX)};
			if (!db_query(&r->ctx, "runner_job_coverage", 3, cv, &err))
				return err;
		}
		const char *pv[1] = {db_val(res, 0, RF_PIPELINE)};
		if (!db_query(&r->ctx, "runner_process", 1, pv, &err))
			return err;
	} else {
		const char *v[1] = {j.id};
		if (!db_query(&r->ctx, "runner_job_touch", 1, v, &err))
			return err;
	}
	respond_empty(r, 200);
	return 0;
}

/* The start of a Content-Range as GitLab 10 reads it (the part before '-', to_i): leading
 * white space, a sign and digits, anything else 0; -1 when it is no offset a trace can
 * have (negative, or past LLONG_MAX), which never matches the trace's size. */
static long long range_start(const char *range)
{
	const char *p = range;
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	bool negative = *p == '-';
	if (*p == '+' || *p == '-')
		p++;
	long long v = 0;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (LLONG_MAX - (*p - '0')) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return negative && v ? -1 : v;
}

/* PATCH /jobs/:id/trace with Content-Range: START-END and the bytes as the body (the
 * END gitlab-runner sends is START plus the patch's length, one past the last byte:
 * GitLab 10 reads only the START, and so does this). */
static int jobs_trace(request *r)
{
	job_ref j;
	int rc = job_auth(r, job_token(r), &UPDATE_REFUSED, &j);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *range = request_header(r, "HTTP_CONTENT_RANGE");
	if (!range)
		return api_error(r, 400, "400 Missing header Content-Range");
	long long start = range_start(range);
	if (start != j.trace_size) {
		respond_header(r, "Range", arena_printf(r->ctx.a, "0-%lld", j.trace_size));
		return api_error(r, 416, "416 Range Not Satisfiable");
	}
	size_t n = r->raw_body_len;
	if (n && (rc = trace_write(r, &j, start, r->raw_body, n)) < 0)
		return rc;
	long long size = start + (long long)n;
	if (n && (rc = set_trace_size(r, &j, size)) < 0)
		return rc;
	respond_header(r, "Job-Status", j.status);
	respond_header(r, "Range", arena_printf(r->ctx.a, "0-%lld", size));
	respond_empty(r, 202);
	return 0;
}

/* expire_in as GitLab's ChronicDuration reads it, in seconds: "3 days", "1 week 2
 * hours", "30 mins", "3600"; 1 for "never" or absent (no expiry), ERR_INVALID for
 * anything else. */
static int expire_seconds(request *r, long long *out)
{
	const char *s = param_str(r, "expire_in");
	if (!s || !*s || strcmp(s, "never") == 0)
		return 1;
	static const struct {
		const char *unit;
		long long secs;
	} units[] = {
		{"s", 1},          {"sec", 1},       {"secs", 1},        {"second", 1},
		{"seconds", 1},    {"m", 60},        {"min", 60},        {"mins", 60},
		{"minute", 60},    {"minutes", 60},  {"h", 3600},        {"hr", 3600},
		{"hrs", 3600},     {"hour", 3600},   {"hours", 3600},    {"d", 86400},
		{"day", 86400},    {"days", 86400},  {"w", 604800},      {"week", 604800},
		{"weeks", 604800}, {"mo", 2592000},  {"month", 2592000}, {"months", 2592000},
		{"y", 31557600},   {"yr", 31557600}, {"year", 31557600}, {"years", 31557600},
	};
	long long total = 0;
	const char *p = s;
	int parts = 0;
	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		if (!*p)
			break;
		if (strncmp(p, "and ", 4) == 0) {
			p += 4;
			continue;
		}
		if (!isdigit((unsigned char)*p))
			return fail(r, ERR_INVALID, "expire_in is invalid");
		char *e;
		long long n = strtoll(p, &e, 10);
		if (n > 1000000000)
			return fail(r, ERR_INVALID, "expire_in is invalid");
		p = e;
		while (*p == ' ')
			p++;
		size_t ul = 0;
		while (isalpha((unsigned char)p[ul]))
			ul++;
		long long mult = 0;
		if (ul == 0)
			mult = 1;
		for (size_t i = 0; i < sizeof(units) / sizeof(*units) && !mult; i++)
			if (strlen(units[i].unit) == ul && strncasecmp(p, units[i].unit, ul) == 0)
				mult = units[i].secs;
		if (!mult)
			return fail(r, ERR_INVALID, "expire_in is invalid");
		p += ul;
		/* at most a century: no date PostgreSQL cannot hold, no overflow */
		if (n * mult > 3155760000LL - total)
			return fail(r, ERR_INVALID, "expire_in is invalid");
		total += n * mult;
		parts++;
	}
	if (!parts)
		return fail(r, ERR_INVALID, "expire_in is invalid");
	*out = total;
	return 0;
}

static int too_large(request *r)
{
	return api_error(r, 413, "413 Request Entity Too Large");
}

/* POST /jobs/:id/artifacts/authorize (filesize): what GitLab's workhorse asks before an
 * upload. Here nginx buffers the body and collabd takes it: the answer names the
 * directory uploads pass through. */
static int jobs_artifacts_authorize(request *r)
{
	job_ref j;
	int rc = job_auth(r, job_token(r), &AUTHORIZE_REFUSED, &j);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	long long size;
	if ((rc = param_int(r, "filesize", &size)) < 0)
		return rc;
	if (rc == 0 && size >= r->ctx.cfg->max_artifacts_size)
		return too_large(r);
	json_object *o = json_object_new_object();
	json_put_str(o, "TempPath", ci_path(r, "artifacts", j.project_id, j.id));
	respond_json(r, 200, o);
	return 0;
}

/* An archive written beside its place, renamed there when the upload's transaction
 * commits, removed when it rolls back: a failed upload leaves the archive before it. */
typedef struct {
	const char *tmp, *path, *cache;
} staged_file;

static void staged_commit(void *arg)
{
	staged_file *s = arg;
	if (rename(s->tmp, s->path) < 0) {
		log_error("artifacts %s: %s", s->path, strerror(errno));
		unlink(s->tmp);
		return;
	}
	/* the files extracted from the archive it replaces (api/jobs.c names them by their
	 * archive, so this only frees the space) */
	repo_remove_dir(s->cache);
}

static void staged_abandon(void *arg)
{
	unlink(((staged_file *)arg)->tmp);
}

/* Writes data[0..n) into a new temporary file beside path, to become path when the
 * route's transaction commits: 0 or ERR_INTERNAL (logged). */
static int stage_file(request *r, const char *path, const char *cache, const char *data, size_t n)
{
	char tmp[FILES_TMP_MAX];
	int fd = files_temp(path, tmp);
	if (fd < 0) {
		log_error("artifacts %s: %s", path, strerror(errno));
		return ERR_INTERNAL;
	}
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(fd, data + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (done < n || fsync(fd) < 0) {
		log_error("artifacts %s: %s", tmp, strerror(errno));
		files_abandon(fd, tmp);
		return ERR_INTERNAL;
	}
	if (close(fd) < 0) {
		log_error("artifacts %s: %s", tmp, strerror(errno));
		unlink(tmp);
		return ERR_INTERNAL;
	}
	staged_file *s = arena_alloc(r->ctx.a, sizeof(*s));
	*s = (staged_file){arena_strdup(r->ctx.a, tmp), path, cache};
	db_on_commit(&r->ctx, staged_commit, s);
	db_on_rollback(&r->ctx, staged_abandon, s);
	return 0;
}

/* POST /jobs/:id/artifacts: the multipart part `file` (the archive), expire_in. */
static int jobs_artifacts_upload(request *r)
{
	job_ref j;
	int rc = job_auth(r, job_token(r), &UPLOAD_REFUSED, &j);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *data, *filename;
	size_t len;
	/* GitLab 10's bad_request!('Missing artifacts file!'), word for word */
	if (param_file(r, "file", &data, &len, &filename) != 0)
		return fail_missing(r, "Missing artifacts file!");
	if (len >= (size_t)r->ctx.cfg->max_artifacts_size)
		return too_large(r);
	long long expire = 0;
	if ((rc = expire_seconds(r, &expire)) < 0)
		return rc;
	const char *path = ci_path(r, "artifacts", j.project_id,
				   arena_printf(r->ctx.a, "%s/artifacts.zip", j.id));
	/* GitLab keeps the uploaded file's base name (shown as artifacts_file.filename and
	 * sent in Content-Disposition headers): a plain one only */
	const char *base = strrchr(filename, '/');
	base = base ? base + 1 : filename;
	size_t blen = strlen(base);
	if (!blen || blen > 255 || base[0] == '.' ||
	    strspn(base, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") !=
		    blen)
		base = "artifacts.zip";
	/* in place when the rows name it: a rollback leaves the archive before it */
	int staged = stage_file(r, path,
				arena_printf(r->ctx.a, "%s/cache/artifacts/%s/%s",
					     r->ctx.cfg->storage_path, j.project_id, j.id),
				data, len);
	if (staged < 0)
		return staged;
	const char *v[4] = {j.id, base, arena_printf(r->ctx.a, "%zu", len),
			    rc == 1 ? NULL : arena_printf(r->ctx.a, "%lld", expire)};
	int err;
	if (!db_query(&r->ctx, "runner_artifacts_set", 4, v, &err))
		return err;
	json_object *payload;
	if ((rc = job_payload(r, j.id, job_token(r), &payload)) < 0)
		return rc;
	respond_json(r, 201, json_object_get(payload)); /* also the request's */
	return 0;
}

/* GET /jobs/:id/artifacts: the archive, with the token of the job or of a running job
 * of a later stage of its pipeline; nginx sends the file. */
static int jobs_artifacts_download(request *r)
{
	const char *id;
	int rc = api_id(r, "id", &id);
	if (rc < 0)
		return rc;
	const char *token = job_token(r);
	const char *v[2] = {id, token ? digest(r, token) : NULL};
	int err;
	PGresult *res = db_query(&r->ctx, "runner_artifacts_get", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) != 1)
		return api_error(r, 404, "404 Not Found");
	if (!token || !db_bool(res, 0, RA_ALLOWED))
		return ERR_FORBIDDEN;
	if (db_bool(res, 0, RA_PENDING_DELETE))
		return forbidden(r, "Project has been deleted!");
	if (db_bool(res, 0, RA_ERASED))
		return forbidden(r, "Job has been erased!");
	const char *file = db_val(res, 0, RA_FILE);
	if (!file)
		return api_error(r, 404, "404 Not Found");
	respond_empty(r, 200);
	respond_header(r, "Content-Type", "application/octet-stream");
	/* GitLab's present_file!; the name was checked at upload */
	respond_header(r, "Content-Disposition",
		       arena_printf(r->ctx.a, "attachment; filename=%s", file));
	respond_header(r, "X-Accel-Redirect",
		       arena_printf(r->ctx.a, "/_internal/ci/artifacts/%s/%s/artifacts.zip",
				    db_val(res, 0, RA_PROJECT), canonical_id(r, id)));
	return 0;
}

/* The module's routes (http/router.h). Credentials are the runner's or the job's token,
 * never a user's: ROUTE_NO_AUTH. */
const route runner_routes[] = {
	{"POST", V4 "/runners", runners_register, ROUTE_NO_AUTH, runners_check_register},
	{"DELETE", V4 "/runners", runners_unregister, ROUTE_NO_AUTH, runners_check_token},
	{"POST", V4 "/runners/verify", runners_verify, ROUTE_NO_AUTH, runners_check_token},
	{"POST", V4 "/jobs/request", jobs_request, ROUTE_NO_AUTH, runners_check_token},
	{"PUT", V4 "/jobs/:id", jobs_update, ROUTE_NO_AUTH | TX | ROUTE_BYTES, jobs_check_update},
	{"PATCH", V4 "/jobs/:id/trace", jobs_trace, ROUTE_NO_AUTH | TX, jobs_check_id},
	{"POST", V4 "/jobs/:id/artifacts/authorize", jobs_artifacts_authorize, ROUTE_NO_AUTH | TX,
	 jobs_check_id},
	{"POST", V4 "/jobs/:id/artifacts", jobs_artifacts_upload, ROUTE_NO_AUTH | TX,
	 jobs_check_id},
	{"GET", V4 "/jobs/:id/artifacts", jobs_artifacts_download, ROUTE_NO_AUTH, jobs_check_id},
	{NULL, NULL, NULL, 0, NULL},
};
