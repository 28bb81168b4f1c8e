/* Presenter of a CI job: GitLab 10's Entities::Job (id, status, stage, name, ref, tag,
 * coverage, created_at, started_at, finished_at, user, artifacts_file, commit, runner,
 * pipeline). A job is a commit_statuses row s with its ci_builds row b (sql/0022_ci.sql),
 * its pipeline p, runner rn (or none) and user (or none: a reference, USER_REF). */
#ifndef COLLABD_ENTITY_JOB_H
#define COLLABD_ENTITY_JOB_H

#include "entity/user.h"
#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The pipeline p and runner rn of the job s, b (its ci_builds row). */
#define JOB_JOINS                                                                                  \
	" JOIN ci_pipelines p ON p.id = s.pipeline_id"                                             \
	" LEFT JOIN ci_runners rn ON rn.id = b.runner_id"
#define JOB_FROM "commit_statuses s JOIN ci_builds b ON b.id = s.id" JOB_JOINS
/* The job's artifacts archive may be downloaded: uploaded, not erased, not expired
 * (GitLab 10's Ci::Build#artifacts?, whose file check is the download's). */
#define SQL_JOB_ARTIFACTS                                                                          \
	"(b.artifacts_file IS NOT NULL AND b.erased_at IS NULL"                                    \
	" AND (b.artifacts_expire_at IS NULL OR b.artifacts_expire_at > now()))"
#define JOB_COLS                                                                                   \
	"s.id, s.name, s.stage, s.ref, b.tag, s.status, s.coverage::text, s.created_at,"           \
	" s.started_at, s.finished_at, s.sha, p.id, p.ref, p.sha, p.status,"                       \
	" rn.id, rn.description, rn.active, rn.is_shared, rn.name,"                                \
	" CASE WHEN " SQL_JOB_ARTIFACTS                                                            \
	" THEN b.artifacts_file END, b.artifacts_size, " USER_SINGLE_REF("s.author_id")

enum job_col {
	JC_ID,
	JC_NAME,
	JC_STAGE,
	JC_REF,
	JC_TAG,
	JC_STATUS,
	JC_COVERAGE,
	JC_CREATED_AT,
	JC_STARTED_AT,
	JC_FINISHED_AT,
	JC_SHA,
	JC_PIPELINE_ID,
	JC_PIPELINE_REF,
	JC_PIPELINE_SHA,
	JC_PIPELINE_STATUS,
	JC_RUNNER_ID,
	JC_RUNNER_DESCRIPTION,
	JC_RUNNER_ACTIVE,
	JC_RUNNER_SHARED,
	JC_RUNNER_NAME,
	JC_ARTIFACTS_FILE,
	JC_ARTIFACTS_SIZE,
	JC_USER,
};
#define JOB_NCOLS (JC_USER + USER_SINGLE_NCOLS)

/* The job whose JOB_COLS start at column col of row in res, written into w, with commit
 * (the JSON text of its commit's record, gitc_commit_json; NULL when the repository
 * lacks it: null). */
void entity_job_write(jw *w, ctx *c, const PGresult *res, int row, int col, const char *commit);

#endif
