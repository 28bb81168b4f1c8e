/* Pipeline schedules (spec 4.3; GitLab 10's lib/api/pipeline_schedules.rb) and their
 * variables. As GitLab 10's policies: reporters and up read them (403 otherwise),
 * developers and up create them; a schedule is changed, taken over and deleted by
 * masters and up and by its owner while a developer (update_pipeline_schedule,
 * admin_pipeline_schedule); none of it while the project's jobs are off. Every save
 * computes next_run_at again: the first time after now that its cron names in its time
 * zone (ci/cron.h), as GitLab's Ci::PipelineSchedule#set_next_run_at; the background
 * process fires the schedules that are due (ci/schedules.c). The list is newest first;
 * the single record adds the last pipeline and the variables, whose values are sealed
 * with the instance key. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "ci/cron.h"
#include "core/crypto.h"
#include "core/validate.h"
#include "entity/ci_settings.h"

enum { LK_ID, LK_OWNER, LK_DESCRIPTION, LK_REF, LK_CRON, LK_ZONE, LK_NCOLS };
enum {
	SI_PROJECT,
	SI_OWNER,
	SI_DESCRIPTION,
	SI_REF,
	SI_CRON,
	SI_ZONE,
	SI_NEXT_RUN,
	SI_ACTIVE,
	SI_NPARAMS
};
enum {
	SU_ID,
	SU_DESCRIPTION,
	SU_REF,
	SU_CRON,
	SU_ZONE,
	SU_NEXT_RUN,
	SU_ACTIVE,
	SU_OWNER,
	SU_NPARAMS
};

const db_stmt pipeline_schedules_stmts[] = {
	/* $1 project, $2 active (NULL: all), $3 limit, $4 offset */
	{"schedules_list",
	 "WITH f AS (SELECT id FROM ci_pipeline_schedules WHERE project_id = $1"
	 " AND ($2::boolean IS NULL OR active = $2))"
	 " SELECT (SELECT count(*) FROM f), x.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " SCHEDULE_COLS " FROM " SCHEDULE_FROM " WHERE s.id IN (SELECT id FROM f)"
	 " ORDER BY s.id DESC LIMIT $3 OFFSET $4) x ON true",
	 4, 1 + SCHEDULE_NCOLS},
	{"schedules_show",
	 "SELECT " SCHEDULE_DETAILS_COLS " FROM " SCHEDULE_FROM
	 " WHERE s.project_id = $1 AND s.id = $2",
	 2, SCHEDULE_DETAILS_NCOLS},
	/* what a change is checked against, the row locked */
	{"schedules_lock",
	 "SELECT id, owner_id, description, ref, cron, cron_timezone FROM ci_pipeline_schedules"
	 " WHERE project_id = $1 AND id = $2 FOR UPDATE",
	 2, LK_NCOLS},
	/* $1 project, $2 owner, $3 description, $4 ref, $5 cron, $6 zone, $7 next run
	 * (epoch), $8 active */
	{"schedules_insert",
	 "INSERT INTO ci_pipeline_schedules (project_id, owner_id, description, ref, cron,"
	 " cron_timezone, next_run_at, active) VALUES ($1, $2, $3, $4, $5, $6,"
	 " to_timestamp($7::double precision), $8) RETURNING id",
	 SI_NPARAMS, 1},
	/* $1 schedule, $2 description, $3 ref, $4 cron, $5 zone, $6 next run (epoch),
	 * $7 active or NULL, $8 owner or NULL */
	{"schedules_update",
	 "UPDATE ci_pipeline_schedules SET description = $2, ref = $3, cron = $4,"
	 " cron_timezone = $5, next_run_at = to_timestamp($6::double precision),"
	 " active = coalesce($7::boolean, active), owner_id = coalesce($8::bigint, owner_id),"
	 " updated_at = now() WHERE id = $1",
	 SU_NPARAMS, 0},
	{"schedules_delete", "DELETE FROM ci_pipeline_schedules WHERE id = $1", 1, 0},
	/* $1 schedule, $2 key, $3 sealed value: no row when the key is taken */
	{"schedules_var_insert",
	 "INSERT INTO ci_pipeline_schedule_variables AS v (pipeline_schedule_id, key,"
	 " value_sealed) VALUES ($1, $2, $3) ON CONFLICT (pipeline_schedule_id, key) DO NOTHING"
	 " RETURNING " SCHEDULE_VARIABLE_COLS,
	 3, SCHEDULE_VARIABLE_NCOLS},
	{"schedules_var_update",
	 "UPDATE ci_pipeline_schedule_variables v SET value_sealed = $3, updated_at = now()"
	 " WHERE v.pipeline_schedule_id = $1 AND v.key = $2 RETURNING " SCHEDULE_VARIABLE_COLS,
	 3, SCHEDULE_VARIABLE_NCOLS},
	{"schedules_var_delete",
	 "DELETE FROM ci_pipeline_schedule_variables v WHERE v.pipeline_schedule_id = $1"
	 " AND v.key = $2 RETURNING " SCHEDULE_VARIABLE_COLS,
	 2, SCHEDULE_VARIABLE_NCOLS},
	{NULL, NULL, 0, 0},
};

static int level(request *r)
{
	return project_ability_level(&r->project->pa);
}

/* read_pipeline_schedule (none while the project's jobs are off): 0 or ERR_FORBIDDEN. */
static int may_read(request *r)
{
	return level(r) >= ACCESS_REPORTER ? ci_jobs_enabled(r) : ERR_FORBIDDEN;
}

/* Answers the schedule id of the route's project with status. */
static int present(request *r, const char *id, int status)
{
	const char *v[2] = {r->project->id, id};
	PGresult *res;
	int rc = api_find(r, "schedules_show", 2, v, "PipelineSchedule", &res);
	if (rc < 0)
		return rc;
	respond_json(r, status, entity_schedule_details(&r->ctx, res, 0, 0));
	return 0;
}

/* The route's schedule, locked, when the caller may change it (update and admin
 * pipeline_schedule: masters and up, or its owner while a developer): 0 with its row,
 * or 404 PipelineSchedule, or ERR_FORBIDDEN. */
static int find_for_change(request *r, PGresult **out)
{
	int rc = may_read(r);
	if (rc < 0)
		return rc;
	const char *v[2] = {r->project->id, param_str(r, "pipeline_schedule_id")};
	PGresult *res;
	if ((rc = api_find(r, "schedules_lock", 2, v, "PipelineSchedule", &res)) < 0)
		return rc;
	bool owner = db_val(res, 0, LK_OWNER) && db_int(res, 0, LK_OWNER) == r->ctx.user->id;
	if (level(r) < ACCESS_MASTER && !(owner && level(r) >= ACCESS_DEVELOPER))
		return ERR_FORBIDDEN;
	*out = res;
	return 0;
}

/* The model's validations of a schedule, in GitLab 10's order (CronValidator and the
 * presence of cron, CronTimezoneValidator and the presence of cron_timezone, the
 * presence of ref and description; a zone that is none makes the cron invalid too, as
 * rufus-scheduler parses them together), left in r; the next run in *next (epoch
 * seconds, text) when they pass. */
static void validate(request *r, const char *description, const char *ref, const char *cron,
		     const char *zone, const char **next)
{
	ci_cron c;
	bool zone_ok = ci_cron_zone_valid(zone);
	if (ci_cron_parse(cron, &c) < 0 || !zone_ok)
		fail_validation(r, "cron", " is invalid syntax");
	if (!*cron)
		fail_validation(r, "cron", "can't be blank");
	if (!zone_ok)
		fail_validation(r, "cron_timezone", " is invalid syntax");
	if (!*zone)
		fail_validation(r, "cron_timezone", "can't be blank");
	if (!*ref)
		fail_validation(r, "ref", "can't be blank");
	else if (!valid_ref_name(ref))
		fail_validation(r, "ref", "is invalid");
	if (!*description)
		fail_validation(r, "description", "can't be blank");
	if (r->validation)
		return;
	time_t t;
	if (ci_cron_next(&c, zone, time(NULL), &t) < 0)
		*next = NULL; /* never (February 30th): no run */
	else
		*next = arena_printf(r->ctx.a, "%lld", (long long)t);
}

static int check_id(request *r)
{
	const char *id;
	return api_id(r, "pipeline_schedule_id", &id);
}

/* active when given: 0 with *out "true"/"false" or NULL, or ERR_INVALID. */
static int active_param(request *r, const char **out)
{
	bool b;
	int rc = param_bool(r, "active", &b);
	if (rc < 0)
		return fail_invalid(r, "active");
	*out = rc == 0 ? (b ? "true" : "false") : NULL;
	return 0;
}

static const char *const SCOPES[] = {"active", "inactive", NULL};

static int check_list(request *r)
{
	const char *scope;
	int rc = param_oneof(r, "scope", SCOPES, &scope);
	return rc < 0 ? rc : 0;
}

static int schedules_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = may_read(r)) < 0)
		return rc;
	const char *scope = NULL, *active = NULL;
	if (param_oneof(r, "scope", SCOPES, &scope) == 0)
		active = strcmp(scope, "active") == 0 ? "true" : "false";
	const char *v[4] = {r->project->id, active, pagination_limit(r, &pg),
			    pagination_offset(r, &pg)};
	return api_page(r, &pg, "schedules_list", 4, v, entity_schedule);
}

static int schedules_show(request *r)
{
	int rc = may_read(r);
	return rc < 0 ? rc : present(r, param_str(r, "pipeline_schedule_id"), 200);
}

static int check_create(request *r)
{
	static const char *const required[] = {"description", "ref", "cron"};
	for (size_t i = 0; i < 3; i++)
		if (!param_str(r, required[i]))
			return fail_missing(r, required[i]);
	const char *active;
	return active_param(r, &active);
}

static int schedules_create(request *r)
{
	if (level(r) < ACCESS_DEVELOPER)
		return ERR_FORBIDDEN;
	int rc = ci_jobs_enabled(r);
	if (rc < 0)
		return rc;
	const char *zone = param_str(r, "cron_timezone"), *active = NULL, *next = NULL;
	rc = active_param(r, &active);
	if (rc < 0)
		return rc;
	if (!zone)
		zone = "UTC";
	const char *description = param_str(r, "description"), *ref = param_str(r, "ref"),
		   *cron = param_str(r, "cron");
	validate(r, description, ref, cron, zone, &next);
	if (r->validation)
		return ERR_VALIDATION;
	const char *v[] = {[SI_PROJECT] = r->project->id,
			   [SI_OWNER] = api_caller_id(r),
			   [SI_DESCRIPTION] = description,
			   [SI_REF] = ref,
			   [SI_CRON] = cron,
			   [SI_ZONE] = zone,
			   [SI_NEXT_RUN] = next,
			   [SI_ACTIVE] = active ? active : "true"};
	DB_PARAMS(v, SI_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx, "schedules_insert", SI_NPARAMS, v, &err);
	if (!res)
		return err;
	return present(r, db_val(res, 0, 0), 201);
}

/* Saves the locked schedule row 0 of lk with the attributes given (NULL: unchanged),
 * validated and rescheduled, and answers it with status. */
static int save(request *r, const PGresult *lk, const char *owner, int status)
{
	const char *active = NULL;
	int rc = active_param(r, &active);
	if (rc < 0)
		return rc;
#define GIVEN(name, col) (param_str(r, name) ? param_str(r, name) : db_val(lk, 0, col))
	const char *description = GIVEN("description", LK_DESCRIPTION), *ref = GIVEN("ref", LK_REF),
		   *cron = GIVEN("cron", LK_CRON), *zone = GIVEN("cron_timezone", LK_ZONE),
		   *next = NULL;
#undef GIVEN
	validate(r, description, ref, cron, zone, &next);
	if (r->validation)
		return ERR_VALIDATION;
	const char *v[] = {[SU_ID] = db_val(lk, 0, LK_ID),
			   [SU_DESCRIPTION] = description,
			   [SU_REF] = ref,
			   [SU_CRON] = cron,
			   [SU_ZONE] = zone,
			   [SU_NEXT_RUN] = next,
			   [SU_ACTIVE] = active,
			   [SU_OWNER] = owner};
	DB_PARAMS(v, SU_NPARAMS);
	int err;
	if (!db_query(&r->ctx, "schedules_update", SU_NPARAMS, v, &err))
		return err;
	return present(r, v[SU_ID], status);
}

static int check_update(request *r)
{
	int rc = check_id(r);
	const char *active;
	return rc < 0 ? rc : active_param(r, &active);
}

static int schedules_update(request *r)
{
	PGresult *lk;
	int rc = find_for_change(r, &lk);
	return rc < 0 ? rc : save(r, lk, NULL, 200);
}

/* The owner becomes the caller; the schedule is saved (and rescheduled) as it is. */
static int schedules_take_ownership(request *r)
{
	PGresult *lk;
	int rc = find_for_change(r, &lk);
	if (rc < 0)
		return rc;
	/* only the owner changes: no attribute of the request counts */
	const char *v[] = {[SU_ID] = db_val(lk, 0, LK_ID),
			   [SU_DESCRIPTION] = db_val(lk, 0, LK_DESCRIPTION),
			   [SU_REF] = db_val(lk, 0, LK_REF),
			   [SU_CRON] = db_val(lk, 0, LK_CRON),
			   [SU_ZONE] = db_val(lk, 0, LK_ZONE),
			   [SU_NEXT_RUN] = NULL,
			   [SU_ACTIVE] = NULL,
			   [SU_OWNER] = api_caller_id(r)};
	DB_PARAMS(v, SU_NPARAMS);
	time_t t;
	if (ci_cron_next_of(v[SU_CRON], v[SU_ZONE], time(NULL), &t) == 0)
		v[SU_NEXT_RUN] = arena_printf(r->ctx.a, "%lld", (long long)t);
	int err;
	if (!db_query(&r->ctx, "schedules_update", SU_NPARAMS, v, &err))
		return err;
	return present(r, v[SU_ID], 201);
}

/* As the spec: the removed schedule, as it was. */
static int schedules_delete(request *r)
{
	PGresult *lk;
	int rc = find_for_change(r, &lk);
	if (rc < 0 || (rc = present(r, db_val(lk, 0, LK_ID), 200)) < 0)
		return rc;
	const char *v[1] = {db_val(lk, 0, LK_ID)};
	int err;
	return db_query(&r->ctx, "schedules_delete", 1, v, &err) ? 0 : err;
}

/* ---- variables ---- */

static int check_var_create(request *r)
{
	int rc = check_id(r);
	if (rc < 0)
		return rc;
	if (!param_str(r, "key"))
		return fail_missing(r, "key");
	return param_str(r, "value") ? 0 : fail_missing(r, "value");
}

static int schedules_var_create(request *r)
{
	PGresult *lk;
	int rc = find_for_change(r, &lk);
	if (rc < 0)
		return rc;
	const char *v[3] = {db_val(lk, 0, LK_ID), NULL, NULL};
	return variables_insert(r, "schedules_var_insert", v, 3, entity_schedule_variable);
}

static int check_var_update(request *r)
{
	int rc = check_id(r);
	if (rc < 0)
		return rc;
	return param_str(r, "value") ? 0 : fail_missing(r, "value");
}

static int schedules_var_update(request *r)
{
	PGresult *lk;
	int rc = find_for_change(r, &lk);
	if (rc < 0)
		return rc;
	const char *sealed = crypto_seal(r->ctx.a, r->ctx.key, param_str(r, "value"));
	if (!sealed)
		return ERR_INTERNAL;
	const char *v[3] = {db_val(lk, 0, LK_ID), param_str(r, "key"), sealed};
	PGresult *res;
	if ((rc = api_find(r, "schedules_var_update", 3, v, "Variable", &res)) < 0)
		return rc;
	respond_json(r, 200, entity_schedule_variable(&r->ctx, res, 0, 0));
	return 0;
}

/* GitLab 10 answers 202 with the removed variable. */
static int schedules_var_delete(request *r)
{
	PGresult *lk;
	int rc = find_for_change(r, &lk);
	if (rc < 0)
		return rc;
	const char *v[2] = {db_val(lk, 0, LK_ID), param_str(r, "key")};
	PGresult *res;
	if ((rc = api_find(r, "schedules_var_delete", 2, v, "Variable", &res)) < 0)
		return rc;
	respond_json(r, 202, entity_schedule_variable(&r->ctx, res, 0, 0));
	return 0;
}

#define S V4 "/projects/:id/pipeline_schedules"
#define S1 S "/:pipeline_schedule_id"
const route pipeline_schedules_routes[] = {
	{"GET", S, schedules_list, AUTH | PR, check_list},
	{"GET", S1, schedules_show, AUTH | PR, check_id},
	{"POST", S, schedules_create, AUTH | PA, check_create},
	{"PUT", S1, schedules_update, AUTH | PA, check_update},
	{"POST", S1 "/take_ownership", schedules_take_ownership, AUTH | PA, check_id},
	{"DELETE", S1, schedules_delete, AUTH | PA, check_id},
	{"POST", S1 "/variables", schedules_var_create, AUTH | PA, check_var_create},
	{"PUT", S1 "/variables/:key", schedules_var_update, AUTH | PA, check_var_update},
	{"DELETE", S1 "/variables/:key", schedules_var_delete, AUTH | PA, check_id},
	{NULL, NULL, NULL, 0, NULL},
};
