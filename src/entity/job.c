#include "entity/job.h"

#include <string.h>

#include "db/db.h"
#include "entity/entity.h"

void entity_job_write(jw *w, ctx *c, const PGresult *res, int row, int col, const char *commit)
{
#define V(c) db_val(res, row, col + (c))
	jw_begin_object(w);
	jw_put_int(w, "id", db_int(res, row, col + JC_ID));
	jw_put_str(w, "status", V(JC_STATUS));
	jw_put_str(w, "stage", V(JC_STAGE));
	jw_put_str(w, "name", V(JC_NAME));
	jw_put_str(w, "ref", V(JC_REF));
	jw_put_bool(w, "tag", db_bool(res, row, col + JC_TAG));
	/* a float as GitLab shows it, written as PostgreSQL printed it (no 17-digit noise:
	 * json-c's json_object_new_double_s writes its text as it is) */
	const char *coverage = V(JC_COVERAGE);
	jw_key(w, "coverage");
	if (coverage)
		jw_raw(w, coverage, strlen(coverage));
	else
		jw_null(w);
	jw_put_time(w, "created_at", V(JC_CREATED_AT));
	jw_put_time(w, "started_at", V(JC_STARTED_AT));
	jw_put_time(w, "finished_at", V(JC_FINISHED_AT));
	jw_key(w, "user");
	if (V(JC_USER))
		entity_user_write(w, c, res, row, col + JC_USER, USER_VIEW_SINGLE);
	else
		jw_null(w);
	jw_key(w, "artifacts_file");
	if (V(JC_ARTIFACTS_FILE)) {
		jw_begin_object(w);
		jw_put_str(w, "filename", V(JC_ARTIFACTS_FILE));
		jw_put_int(w, "size",
			   V(JC_ARTIFACTS_SIZE) ? db_int(res, row, col + JC_ARTIFACTS_SIZE) : 0);
		jw_end_object(w);
	} else {
		jw_null(w);
	}
	jw_key(w, "commit");
	if (commit)
		jw_raw(w, commit, strlen(commit));
	else
		jw_null(w);
	jw_key(w, "runner");
	if (V(JC_RUNNER_ID)) {
		jw_begin_object(w);
		jw_put_int(w, "id", db_int(res, row, col + JC_RUNNER_ID));
		jw_put_str(w, "description", V(JC_RUNNER_DESCRIPTION));
		jw_put_bool(w, "active", db_bool(res, row, col + JC_RUNNER_ACTIVE));
		jw_put_bool(w, "is_shared", db_bool(res, row, col + JC_RUNNER_SHARED));
		jw_put_str(w, "name", V(JC_RUNNER_NAME));
		jw_end_object(w);
	} else {
		jw_null(w);
	}
	jw_key(w, "pipeline");
	jw_begin_object(w);
	jw_put_int(w, "id", db_int(res, row, col + JC_PIPELINE_ID));
	jw_put_str(w, "sha", V(JC_PIPELINE_SHA));
	jw_put_str(w, "ref", V(JC_PIPELINE_REF));
	jw_put_str(w, "status", V(JC_PIPELINE_STATUS));
	jw_end_object(w);
	jw_end_object(w);
#undef V
}
