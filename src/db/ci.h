/* The statements of CI below api/ (ci/pipeline.c, ci/job.c, ci/schedules.c): a pipeline's
 * project and its rows written, the jobs' transitions that other modules start too, the
 * stuck jobs' sweep, the due schedules (sql/0022_ci.sql and after). Each function runs
 * one statement in the caller's transaction (if one is open). */
#ifndef COLLABD_DB_CI_H
#define COLLABD_DB_CI_H

#include <stdbool.h>

#include "db/db.h"

/* The level on projects row P with which user U (an expression; NULL: none) runs a
 * pipeline there: 0 for no user or a blocked one, 50 for the owner of a personal
 * project's namespace, else their level (project_authorizations); admins are told
 * apart by the caller. Shared with trigger invocations (api/triggers.c). */
#define SQL_CI_USER_LEVEL(U, P)                                                                    \
	"(SELECT CASE WHEN cu.state <> 'active' THEN 0 WHEN EXISTS (SELECT 1 FROM namespaces cn"   \
	" WHERE cn.id = " P ".namespace_id AND cn.kind = 'user' AND cn.owner_id = cu.id) THEN 50"  \
	" ELSE coalesce((SELECT max(pa.access_level) FROM project_authorizations pa"               \
	" WHERE pa.user_id = cu.id AND pa.project_id = " P ".id"                                   \
	" AND pa.expires_at > current_date), 0) END FROM users cu WHERE cu.id = " U ")"
#define SQL_CI_USER_ADMIN(U)                                                                       \
	"coalesce((SELECT cu.is_admin AND cu.state = 'active' FROM users cu"                       \
	" WHERE cu.id = " U "), false)"

extern const db_stmt db_ci_stmts[];

/* The columns of db_ci_pipeline_project. */
enum { PP_JOBS_ENABLED, PP_CONFIG_PATH, PP_FULL_PATH, PP_PROTECTED, PP_NCOLS };
/* The parameters of db_ci_pipeline_insert: committed_at in Unix seconds, variables a
 * JSON array, status failed or skipped sets finished_at. */
enum {
	PI_PROJECT,
	PI_REF,
	PI_SHA,
	PI_BEFORE_SHA,
	PI_TAG,
	PI_PROTECTED,
	PI_SOURCE,
	PI_STATUS,
	PI_YAML_ERRORS,
	PI_USER,
	PI_TRIGGER_REQUEST,
	PI_SCHEDULE,
	PI_VARIABLES,
	PI_COMMITTED_AT,
	PI_NPARAMS
};
/* The parameters of db_ci_job_insert: tag_list a JSON array of strings, options and
 * yaml_variables JSON. */
enum {
	PJ_PROJECT,
	PJ_PIPELINE,
	PJ_SHA,
	PJ_REF,
	PJ_NAME,
	PJ_STAGE,
	PJ_STAGE_IDX,
	PJ_WHEN,
	PJ_ALLOW_FAILURE,
	PJ_USER,
	PJ_TAG,
	PJ_PROTECTED,
	PJ_TAG_LIST,
	PJ_OPTIONS,
	PJ_YAML_VARIABLES,
	PJ_ENVIRONMENT,
	PJ_TRIGGER_REQUEST,
	PJ_NPARAMS
};
/* The columns of db_ci_schedule_due: the schedule, what its pipeline needs, its owner's
 * level (SQL_CI_USER_LEVEL) and whether they are an admin, its variables ([{key,
 * value_sealed}], JSON text), the database's time (epoch seconds). */
enum {
	DUE_ID,
	DUE_PROJECT,
	DUE_REF,
	DUE_CRON,
	DUE_ZONE,
	DUE_OWNER,
	DUE_LEVEL,
	DUE_ADMIN,
	DUE_VARS,
	DUE_NOW,
	DUE_NCOLS
};

/* Project project_id's jobs switch, configuration path, full path, and whether ref is a
 * protected branch (PP_ columns): the result (c's arena, no row when there is no such
 * project or it is being deleted), or NULL with *err. */
PGresult *db_ci_pipeline_project(ctx *c, const char *project_id, const char *ref, int *err);
/* Inserts the pipeline row v describes (PI_): 0 with its id in *id (c's arena), or an
 * ERR_ code. */
int db_ci_pipeline_insert(ctx *c, const char *const v[PI_NPARAMS], const char **id);
/* Inserts one job (commit_statuses and ci_builds rows, status created) that v describes
 * (PJ_). 0 or an ERR_ code. */
int db_ci_job_insert(ctx *c, const char *const v[PJ_NPARAMS]);
/* Whether level may push or merge to branch ref of project_id (true when it is not
 * protected): 0 with *ok, or an ERR_ code. */
int db_ci_ref_allowed(ctx *c, const char *project_id, const char *ref, int level, bool *ok);

/* ci_process_pipeline(pipeline_id) (sql/0022_ci.sql). 0 or an ERR_ code. */
int db_ci_pipeline_process(ctx *c, const char *pipeline_id);
/* Makes manual job job_id pending, queued now, with user_id as its user: 0 with its
 * pipeline's id in *pipeline_id (c's arena), ERR_REFUSED when it is no manual job of a
 * pipeline, or another ERR_ code. */
int db_ci_job_play(ctx *c, const char *job_id, long long user_id, const char **pipeline_id);
/* Fails at most 100 of the jobs running with no word from their runner for an hour and
 * of those pending for a day, none that another process holds: the result (c's arena)
 * holds the ids of their pipelines (column 0, one row each), or NULL with *err. */
PGresult *db_ci_jobs_drop_stuck(ctx *c, int *err);

/* The most overdue active schedule of a project not being deleted that no other
 * process holds, locked until the transaction ends (DUE_ columns; no row when none is
 * due), or NULL with *err. */
PGresult *db_ci_schedule_due(ctx *c, int *err);
/* Sets schedule_id's next run to next (epoch seconds, decimal; NULL: never). 0 or an
 * ERR_ code. */
int db_ci_schedule_next(ctx *c, const char *schedule_id, const char *next);

#endif
