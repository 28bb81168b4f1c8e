/* Firing due pipeline schedules (ci/schedules.h). */
#include "ci/schedules.h"

#include <json-c/json.h>
#include <string.h>
#include <time.h>

#include "ci/cron.h"
#include "ci/pipeline.h"
#include "core/crypto.h"
#include "core/log.h"
#include "db/ci.h"

/* The schedule's variables, opened, as [{key, value}] (the pipeline's variables); NULL
 * when a value cannot be opened. */
static json_object *variables(ctx *c, const char *sealed_list)
{
	json_object *in = json_tokener_parse(sealed_list);
	json_object *out = json_object_new_array();
	size_t n = in ? json_object_array_length(in) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(in, i), *k = NULL, *s = NULL;
		json_object_object_get_ex(e, "key", &k);
		json_object_object_get_ex(e, "value_sealed", &s);
		const char *value = crypto_open(c->a, c->key, json_object_get_string(s));
		if (!value) {
			json_object_put(out);
			out = NULL;
			break;
		}
		json_object *v = json_object_new_object();
		json_object_object_add(v, "key", json_object_new_string(json_object_get_string(k)));
		json_object_object_add(v, "value", json_object_new_string(value));
		json_object_array_add(out, v);
	}
	json_object_put(in);
	return out;
}

/* The pipeline of the due schedule of row 0 of res, when its owner may run it. 0 (a
 * pipeline made or, with a reason logged, not), or an ERR_ code. */
static int fire(ctx *c, const PGresult *res)
{
	const char *id = db_val(res, 0, DUE_ID), *project = db_val(res, 0, DUE_PROJECT),
		   *ref = db_val(res, 0, DUE_REF);
	int level = (int)db_int(res, 0, DUE_LEVEL);
	bool admin = db_bool(res, 0, DUE_ADMIN), ok = false;
	if (db_val(res, 0, DUE_OWNER)) {
		int rc = ci_may_run_on_ref(c, project, level, admin, ref, false, &ok);
		if (rc < 0)
			return rc;
	}
	if (!ok) {
		log_info("pipeline schedule %s: its owner may not run a pipeline on %s", id, ref);
		return 0;
	}
	json_object *vars = variables(c, db_val(res, 0, DUE_VARS));
	if (!vars) {
		log_warn("pipeline schedule %s: a variable cannot be opened", id);
		return 0;
	}
	ci_pipeline_spec s = {
		.project_id = project,
		.ref = ref,
		.source = "schedule",
		.user_id = db_int(res, 0, DUE_OWNER),
		.schedule_id = id,
		.variables = vars,
	};
	long long pipeline;
	const char *why = NULL;
	int rc = ci_pipeline_create(c, &s, &pipeline, &why);
	json_object_put(vars);
	if (rc == ERR_REFUSED) {
		log_info("pipeline schedule %s: no pipeline: %s", id, why ? why : "refused");
		return 0;
	}
	if (rc < 0)
		return rc;
	log_info("pipeline schedule %s: pipeline %lld", id, pipeline);
	return 0;
}

int ci_schedules_fire_due(ctx *c)
{
	int err = db_begin(c);
	if (err < 0)
		return err;
	PGresult *res = db_ci_schedule_due(c, &err);
	if (!res || PQntuples(res) == 0) {
		db_rollback(c);
		return res ? 0 : err;
	}
	/* the next run first: whatever fire() decides, this one is done. After the later of
	 * this host's time and the database's, which decides what is due: a clock behind
	 * cannot make the schedule due again at once */
	time_t next, now = time(NULL), db_now = (time_t)db_int(res, 0, DUE_NOW);
	const char *id = db_val(res, 0, DUE_ID), *at = NULL;
	if (ci_cron_next_of(db_val(res, 0, DUE_CRON), db_val(res, 0, DUE_ZONE),
			    db_now > now ? db_now : now, &next) == 0)
		at = arena_printf(c->a, "%lld", (long long)next);
	if (db_ci_schedule_next(c, id, at) == 0 && fire(c, res) == 0 && db_commit(c) == 0)
		return 1;
	db_rollback(c);
	/* a run that cannot be made (its repository unreadable) is not tried every second:
	 * the schedule waits for its next run all the same */
	log_warn("pipeline schedule %s: not fired (the transaction failed)", id);
	return (err = db_ci_schedule_next(c, id, at)) < 0 ? err : 1;
}
