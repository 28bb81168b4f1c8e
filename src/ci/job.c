#include "ci/job.h"

#include "core/arena.h"
#include "core/log.h"
#include "db/ci.h"

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
	return db_ci_pipeline_process(c, pipeline_id);
}

int ci_job_play(ctx *c, const char *job_id, long long user_id)
{
	const char *pipeline_id;
	int rc = db_ci_job_play(c, job_id, user_id, &pipeline_id);
	return rc < 0 ? rc : ci_pipeline_process(c, pipeline_id);
}

int ci_jobs_drop_stuck(ctx *c)
{
	int err = db_begin(c);
	if (err < 0)
		return err;
	PGresult *res = db_ci_jobs_drop_stuck(c, &err);
	int n = res ? PQntuples(res) : 0;
	for (int i = 0; res && i < n; i++)
		if ((err = ci_pipeline_process(c, db_val(res, i, 0))) < 0)
			res = NULL;
	if (res && (err = db_commit(c)) == 0) {
		if (n)
			log_info("stuck jobs failed in %d pipeline(s)", n);
		return n;
	}
	db_rollback(c);
	return err;
}
