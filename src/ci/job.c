#include "ci/job.h"

#include "core/arena.h"
#include "core/log.h"

const db_stmt ci_job_stmts[] = {
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
	{NULL, NULL, 0, 0},
};

bool ci_can_read_build(const project_access *a, bool public_jobs, bool jobs_enabled)
{
	if (a->admin)
		return true;
	if (!jobs_enabled || !a->visible)
		return false;
	return project_ability_level(a) >= ACCESS_REPORTER || public_jobs;
}

bool ci_can_update_build(const project_access *a, bool jobs_enabled)
{
	return jobs_enabled && !a->archived && project_ability_level(a) >= ACCESS_DEVELOPER;
}

int ci_pipeline_process(ctx *c, const char *pipeline_id)
{
	int err;
	return db_query(c, "ci_pipeline_process", 1, (const char *[]){pipeline_id}, &err) ? 0 : err;
}

int ci_job_play(ctx *c, const char *job_id, long long user_id)
{
	const char *v[2] = {job_id, arena_printf(c->a, "%lld", user_id)};
	int err;
	PGresult *res = db_query(c, "ci_job_play", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_REFUSED;
	return ci_pipeline_process(c, db_val(res, 0, 0));
}

int ci_jobs_drop_stuck(ctx *c)
{
	if (db_begin(c) < 0)
		return -1;
	int err;
	PGresult *res = db_query(c, "ci_jobs_drop_stuck", 0, NULL, &err);
	int n = res ? PQntuples(res) : 0;
	for (int i = 0; res && i < n; i++)
		if (ci_pipeline_process(c, db_val(res, i, 0)) < 0)
			res = NULL;
	if (!res || db_commit(c) < 0) {
		db_rollback(c);
		return -1;
	}
	if (n)
		log_info("stuck jobs failed in %d pipeline(s)", n);
	return n;
}
