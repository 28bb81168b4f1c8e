/* The statements of CI below api/ (db/ci.h). */
#include "db/ci.h"

#include "core/arena.h"
#include "core/errors.h"

const db_stmt db_ci_stmts[] = {
	/* $1 project, $2 ref: its jobs switch, configuration path, full path, and whether
	 * the ref is a protected branch */
	{"ci_pipeline_project",
	 "SELECT p.jobs_enabled, p.ci_config_path, n.full_path || '/' || p.path,"
	 " branch_push_level(p.id, $2) IS NOT NULL"
	 " FROM projects p JOIN namespaces n ON n.id = p.namespace_id"
	 " WHERE p.id = $1 AND NOT p.pending_delete",
	 2, PP_NCOLS},
	/* PI_; committed_at in Unix seconds */
	{"ci_pipeline_insert",
	 "INSERT INTO ci_pipelines (project_id, ref, sha, before_sha, tag, protected, source,"
	 " status, yaml_errors, user_id, trigger_request_id, pipeline_schedule_id, variables,"
	 " committed_at, finished_at)"
	 " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb,"
	 " to_timestamp($14::double precision),"
	 " CASE WHEN $8 IN ('failed', 'skipped') THEN now() END) RETURNING id",
	 PI_NPARAMS, 1},
	/* one job (PJ_; tag_list a JSON array) */
	{"ci_pipeline_job",
	 "WITH s AS (INSERT INTO commit_statuses (project_id, sha, ref, name, stage, status,"
	 " allow_failure, author_id, pipeline_id, stage_idx, \"when\")"
	 " VALUES ($1, $3, $4, $5, $6, 'created', $9, $10, $2, $7, $8) RETURNING id)"
	 " INSERT INTO ci_builds (id, project_id, pipeline_id, tag, protected, tag_list, options,"
	 " yaml_variables, environment, trigger_request_id)"
	 " SELECT s.id, $1, $2, $11, $12, ARRAY(SELECT jsonb_array_elements_text($13::jsonb)),"
	 " $14::jsonb, $15::jsonb, $16, $17 FROM s",
	 PJ_NPARAMS, 0},
	/* $1 project, $2 branch, $3 level: whether the level may push or merge to it */
	{"ci_pipeline_ref_allowed",
	 "SELECT coalesce(branch_push_level($1, $2) <= $3 OR branch_merge_level($1, $2) <= $3,"
	 " true)",
	 3, 1},
	/* the player becomes the job's user, as GitLab 10's PlayBuildService did */
	{"ci_job_play",
	 "UPDATE commit_statuses SET status = 'pending', queued_at = now(), updated_at = now(),"
	 " author_id = $2 WHERE id = $1 AND pipeline_id IS NOT NULL AND status = 'manual'"
	 " RETURNING pipeline_id",
	 2, 1},
	{"ci_pipeline_process", "SELECT ci_process_pipeline($1)", 1, 1},
	/* GitLab 10's StuckCiJobsWorker: a running job whose runner sent nothing for an hour
	 * (a runner keeps updated_at fresh: api/runner.c) and a job pending for a day fail;
	 * at most 100 a sweep, none that another process holds. Their pipelines. */
	{"ci_jobs_drop_stuck",
	 "WITH s AS (UPDATE commit_statuses SET status = 'failed', finished_at = now(),"
	 " updated_at = now() WHERE id IN (SELECT id FROM commit_statuses"
	 " WHERE status IN ('running', 'pending') AND pipeline_id IS NOT NULL"
	 " AND updated_at < now() - CASE status WHEN 'running' THEN interval '1 hour'"
	 " ELSE interval '1 day' END ORDER BY updated_at LIMIT 100 FOR UPDATE SKIP LOCKED)"
	 " AND status IN ('running', 'pending') RETURNING pipeline_id)"
	 " SELECT DISTINCT pipeline_id FROM s",
	 0, 1},
	/* The most overdue active schedule that no other process holds, locked until the
	 * commit: what its pipeline needs, its owner's level and whether they are an admin,
	 * its variables ([{key, value_sealed}]). */
	{"ci_schedules_due",
	 "SELECT s.id, s.project_id, s.ref, s.cron, s.cron_timezone, s.owner_id,"
	 " coalesce(" SQL_CI_USER_LEVEL("s.owner_id", "p") ", 0), " SQL_CI_USER_ADMIN(
		 "s.owner_id") ", (SELECT coalesce(json_agg(json_build_object('key', v.key, 'value_sealed',"
			       " v.value_sealed) ORDER BY v.id), '[]')::text FROM ci_pipeline_schedule_variables v"
			       " WHERE v.pipeline_schedule_id = s.id), extract(epoch FROM now())::bigint"
			       " FROM ci_pipeline_schedules s JOIN projects p ON p.id = s.project_id"
			       " AND NOT p.pending_delete WHERE s.active AND s.next_run_at <= now()"
			       " ORDER BY s.next_run_at, s.id LIMIT 1 FOR UPDATE OF s SKIP LOCKED",
	 0, DUE_NCOLS},
	/* $2 the next run (epoch seconds; NULL: never) */
	{"ci_schedules_next",
	 "UPDATE ci_pipeline_schedules SET next_run_at = to_timestamp($2::double precision)"
	 " WHERE id = $1",
	 2, 0},
	{NULL, NULL, 0, 0},
};

PGresult *db_ci_pipeline_project(ctx *c, const char *project_id, const char *ref, int *err)
{
	const char *v[2] = {project_id, ref};
	return db_query(c, "ci_pipeline_project", 2, v, err);
}

int db_ci_pipeline_insert(ctx *c, const char *const v[PI_NPARAMS], const char **id)
{
	int err;
	PGresult *res = db_query(c, "ci_pipeline_insert", PI_NPARAMS, v, &err);
	if (!res)
		return err;
	*id = arena_strdup(c->a, PQgetvalue(res, 0, 0));
	return 0;
}

int db_ci_job_insert(ctx *c, const char *const v[PJ_NPARAMS])
{
	int err;
	return db_query(c, "ci_pipeline_job", PJ_NPARAMS, v, &err) ? 0 : err;
}

int db_ci_ref_allowed(ctx *c, const char *project_id, const char *ref, int level, bool *ok)
{
	const char *v[3] = {project_id, ref, arena_printf(c->a, "%d", level)};
	int err;
	PGresult *res = db_query(c, "ci_pipeline_ref_allowed", 3, v, &err);
	if (!res)
		return err;
	*ok = db_bool(res, 0, 0);
	return 0;
}

int db_ci_pipeline_process(ctx *c, const char *pipeline_id)
{
	int err;
	return db_query(c, "ci_pipeline_process", 1, (const char *[]){pipeline_id}, &err) ? 0 : err;
}

int db_ci_job_play(ctx *c, const char *job_id, long long user_id, const char **pipeline_id)
{
	const char *v[2] = {job_id, arena_printf(c->a, "%lld", user_id)};
	int err;
	PGresult *res = db_query(c, "ci_job_play", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_REFUSED;
	*pipeline_id = db_val(res, 0, 0);
	return 0;
}

PGresult *db_ci_jobs_drop_stuck(ctx *c, int *err)
{
	return db_query(c, "ci_jobs_drop_stuck", 0, NULL, err);
}

PGresult *db_ci_schedule_due(ctx *c, int *err)
{
	return db_query(c, "ci_schedules_due", 0, NULL, err);
}

int db_ci_schedule_next(ctx *c, const char *schedule_id, const char *next)
{
	const char *v[2] = {schedule_id, next};
	int err;
	return db_query(c, "ci_schedules_next", 2, v, &err) ? 0 : err;
}
