/* Presenters of the CI settings: project and group variables (GitLab 10's
 * Entities::Variable), pipeline triggers (Entities::Trigger) and pipeline schedules
 * (Entities::PipelineSchedule and PipelineScheduleDetails) with their variables.
 * Values and tokens are read sealed (core/crypto.h) and opened here. */
#ifndef COLLABD_ENTITY_CI_SETTINGS_H
#define COLLABD_ENTITY_CI_SETTINGS_H

#include "entity/user.h"
#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* A variable of ci_variables, ci_group_variables (protected shown) or
 * ci_pipeline_schedule_variables (not) v. */
#define CI_VARIABLE_COLS "v.key, v.value_sealed, v.protected"
#define CI_VARIABLE_NCOLS 3
#define SCHEDULE_VARIABLE_COLS "v.key, v.value_sealed"
#define SCHEDULE_VARIABLE_NCOLS 2
json_object *entity_ci_variable(ctx *c, const PGresult *res, int row, int col);
json_object *entity_schedule_variable(ctx *c, const PGresult *res, int row, int col);

/* A trigger t with its owner u (LEFT JOIN: none when the owner's account is gone). */
#define TRIGGER_FROM "ci_triggers t LEFT JOIN users u ON u.id = t.owner_id"
#define TRIGGER_COLS                                                                               \
	"t.id, t.token_sealed, t.description, iso8601(t.created_at), iso8601(t.updated_at),"       \
	" iso8601(t.deleted_at), iso8601(t.last_used), " USER_BASIC_COLS
#define TRIGGER_NCOLS 12
/* The trigger; its token in full to its owner (and to anyone for a trigger that has no
 * owner), else its first four characters (GitLab's Ci::Trigger#short_token). */
json_object *entity_trigger(ctx *c, const PGresult *res, int row, int col);

/* A schedule s with its owner u. */
#define SCHEDULE_FROM "ci_pipeline_schedules s LEFT JOIN users u ON u.id = s.owner_id"
#define SCHEDULE_COLS                                                                              \
	"s.id, s.description, s.ref, s.cron, s.cron_timezone, iso8601(s.next_run_at), s.active,"   \
	" iso8601(s.created_at), iso8601(s.updated_at), " USER_BASIC_COLS
#define SCHEDULE_NCOLS 14
/* The details add its latest pipeline and its variables (a JSON array of {key,
 * value_sealed}). */
#define SCHEDULE_DETAILS_COLS                                                                      \
	SCHEDULE_COLS                                                                              \
	", (SELECT json_build_object('id', lp.id, 'sha', lp.sha, 'ref', lp.ref,"                   \
	" 'status', lp.status)::text FROM ci_pipelines lp WHERE lp.pipeline_schedule_id = s.id"    \
	" ORDER BY lp.id DESC LIMIT 1), (SELECT coalesce(json_agg(json_build_object('key',"        \
	" sv.key, 'value_sealed', sv.value_sealed) ORDER BY sv.id), '[]')::text"                   \
	" FROM ci_pipeline_schedule_variables sv WHERE sv.pipeline_schedule_id = s.id)"
#define SCHEDULE_DETAILS_NCOLS (SCHEDULE_NCOLS + 2)
json_object *entity_schedule(ctx *c, const PGresult *res, int row, int col);
json_object *entity_schedule_details(ctx *c, const PGresult *res, int row, int col);

#endif
