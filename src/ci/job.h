/* What the CI pieces share about jobs (a job is a commit_statuses row with its ci_builds
 * row, sql/0022_ci.sql): who may read and change them, and the transitions that other
 * modules start too (the environments' stop action plays a manual job). Status changes
 * are UPDATEs guarded by the expected status, followed in the same transaction by
 * ci_process_pipeline() of the job's pipeline. */
#ifndef COLLABD_CI_JOB_H
#define COLLABD_CI_JOB_H

#include <stdbool.h>

#include "auth/access.h"
#include "core/ctx.h"

/* GitLab 10's read_build on a project (its jobs, traces and artifacts): admins,
 * reporters and up (the owner of a personal project's namespace), or anyone who sees the
 * project when its jobs are public (public_jobs); nobody while jobs_enabled is off. */
bool ci_can_read_build(const project_access *a, bool public_jobs, bool jobs_enabled);
/* update_build (cancel, retry, play): developers and up, admins; not on an archived
 * project, nor while jobs_enabled is off. */
bool ci_can_update_build(const project_access *a, bool jobs_enabled);

/* Plays manual job job_id as user_id (GitLab 10's PlayBuildService: the job becomes
 * pending, queued now, and the player is its user), then processes its pipeline. Call
 * inside a transaction. 0 when played, ERR_REFUSED when the job is no manual job
 * (GitLab's "Unplayable Job"), or another ERR_ code. */
int ci_job_play(ctx *c, const char *job_id, long long user_id);
/* ci_process_pipeline(pipeline_id) (sql/0022_ci.sql): starts what the finished stages
 * allow and recomputes the pipeline's status. 0 or an ERR_ code. */
int ci_pipeline_process(ctx *c, const char *pipeline_id);
/* GitLab 10's StuckCiJobsWorker, for the background process: fails the jobs running
 * with no word from their runner for an hour and those pending for a day, and processes
 * their pipelines, in a transaction of its own. The number of pipelines touched, or an
 * ERR_ code (rolled back). */
int ci_jobs_drop_stuck(ctx *c);

#endif
