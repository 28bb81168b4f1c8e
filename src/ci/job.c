#include "ci/job.h"

#include "core/arena.h"

const db_stmt ci_job_stmts[] = {
	/* the player becomes the job's user, as GitLab 10's PlayBuildService did */
	{"ci_job_play",
	 "UPDATE commit_statuses SET status = 'pending', queued_at = now(), updated_at = now(),"
	 " author_id = $2 WHERE id = $1 AND pipeline_id IS NOT NULL AND status = 'manual'"
	 " RETURNING pipeline_id",
	 2, 1},
	{"ci_pipeline_process", "SELECT ci_process_pipeline($1)", 1, 1},
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
	return db_query(c, "ci_pipeline_process", 1, (const char *[]){pipeline_id}, &err) ? 0
											 : err;
}

int ci_job_play(ctx *c, const char *job_id, long long user_id)
{
	const char *v[2] = {job_id, arena_printf(c->a, "%lld", user_id)};
	int err;
	PGresult *res = db_query(c, "ci_job_play", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return 1;
	return ci_pipeline_process(c, db_val(res, 0, 0));
}
