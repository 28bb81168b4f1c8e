#include "entity/job.h"

#include <stdlib.h>

#include "db/db.h"
#include "entity/entity.h"

json_object *entity_job(request *r, const PGresult *res, int row, int col, json_object *commit)
{
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
	json_put_int(o, "id", db_int(res, row, col + JC_ID));
	json_put_str(o, "status", V(JC_STATUS));
	json_put_str(o, "stage", V(JC_STAGE));
	json_put_str(o, "name", V(JC_NAME));
	json_put_str(o, "ref", V(JC_REF));
	json_put_bool(o, "tag", db_bool(res, row, col + JC_TAG));
	/* a float as GitLab shows it, written as PostgreSQL printed it (no 17-digit noise) */
	const char *coverage = V(JC_COVERAGE);
	json_object_object_add(o, "coverage",
			       coverage ? json_object_new_double_s(strtod(coverage, NULL), coverage)
					: NULL);
	json_put_str(o, "created_at", V(JC_CREATED_AT));
	json_put_str(o, "started_at", V(JC_STARTED_AT));
	json_put_str(o, "finished_at", V(JC_FINISHED_AT));
	json_object_object_add(o, "user",
			       V(JC_USER) ? entity_user(r, res, row, col + JC_USER, USER_VIEW_SINGLE)
					  : NULL);
	json_object *artifacts = NULL;
	if (V(JC_ARTIFACTS_FILE)) {
		artifacts = json_object_new_object();
		json_put_str(artifacts, "filename", V(JC_ARTIFACTS_FILE));
		json_put_int(artifacts, "size",
			     V(JC_ARTIFACTS_SIZE) ? db_int(res, row, col + JC_ARTIFACTS_SIZE) : 0);
	}
	json_object_object_add(o, "artifacts_file", artifacts);
	json_object_object_add(o, "commit", commit);
	json_object *runner = NULL;
	if (V(JC_RUNNER_ID)) {
		runner = json_object_new_object();
		json_put_int(runner, "id", db_int(res, row, col + JC_RUNNER_ID));
		json_put_str(runner, "description", V(JC_RUNNER_DESCRIPTION));
		json_put_bool(runner, "active", db_bool(res, row, col + JC_RUNNER_ACTIVE));
		json_put_bool(runner, "is_shared", db_bool(res, row, col + JC_RUNNER_SHARED));
		json_put_str(runner, "name", V(JC_RUNNER_NAME));
	}
	json_object_object_add(o, "runner", runner);
	json_object *pipeline = json_object_new_object();
	json_put_int(pipeline, "id", db_int(res, row, col + JC_PIPELINE_ID));
	json_put_str(pipeline, "sha", V(JC_PIPELINE_SHA));
	json_put_str(pipeline, "ref", V(JC_PIPELINE_REF));
	json_put_str(pipeline, "status", V(JC_PIPELINE_STATUS));
	json_object_object_add(o, "pipeline", pipeline);
#undef V
	return o;
}
