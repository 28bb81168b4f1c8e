#include "entity/merge_request.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "db/db.h"
#include "entity/entity.h"
#include "entity/issue.h"
#include "http/cache.h"

bool entity_merge_request_wip(const char *title)
{
	if (!title)
		return false;
	while (isspace((unsigned char)*title))
		title++;
	static const char *const prefixes[] = {"[WIP]", "WIP:", "WIP ", "WIP-", "(WIP)", NULL};
	for (int i = 0; prefixes[i]; i++)
		if (strncasecmp(title, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* The user summary at col, or null when the row has none there. */
static json_object *user_or_null(request *r, const PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? NULL : entity_user(r, res, row, col, USER_VIEW_BASIC);
}

static const char *web_url(request *r, const PGresult *res, int row, int col)
{
	return arena_printf(r->ctx.a, "%s/%s/merge_requests/%s", r->ctx.cfg->external_url,
			    db_val(res, row, col + MRC_PATH), db_val(res, row, col + MRC_IID));
}

json_object *entity_merge_request_simple(request *r, const PGresult *res, int row, int col)
{
	cache_depend_none(r); /* merge requests have no key in the response cache */
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
#define I(c) db_int(res, row, col + (c))
	json_put_int(o, "id", I(MRC_ID));
	json_put_int(o, "iid", I(MRC_IID));
	json_put_int(o, "project_id", I(MRC_TARGET_PROJECT));
	json_put_str(o, "title", V(MRC_TITLE));
	json_put_str(o, "description", V(MRC_DESCRIPTION));
	json_put_str(o, "state", V(MRC_STATE));
	json_put_str(o, "created_at", V(MRC_CREATED_AT));
	json_put_str(o, "updated_at", V(MRC_UPDATED_AT));
	json_put_str(o, "web_url", web_url(r, res, row, col));
	return o;
}

json_object *entity_merge_request_basic(request *r, const PGresult *res, int row, int col)
{
	cache_depend_none(r);
	json_object *o = json_object_new_object();
	json_put_int(o, "id", I(MRC_ID));
	json_put_int(o, "iid", I(MRC_IID));
	json_put_int(o, "project_id", I(MRC_TARGET_PROJECT));
	json_put_str(o, "title", V(MRC_TITLE));
	json_put_str(o, "description", V(MRC_DESCRIPTION));
	json_put_str(o, "state", V(MRC_STATE));
	json_put_str(o, "created_at", V(MRC_CREATED_AT));
	json_put_str(o, "updated_at", V(MRC_UPDATED_AT));
	json_put_str(o, "target_branch", V(MRC_TARGET_BRANCH));
	json_put_str(o, "source_branch", V(MRC_SOURCE_BRANCH));
	json_put_int(o, "upvotes", I(MRC_UPVOTES));
	json_put_int(o, "downvotes", I(MRC_DOWNVOTES));
	json_object_object_add(o, "author", user_or_null(r, res, row, col + MRC_AUTHOR));
	json_object_object_add(o, "assignee", user_or_null(r, res, row, col + MRC_ASSIGNEE));
	json_put_int_or_null(o, "source_project_id", V(MRC_SOURCE_PROJECT));
	json_put_int(o, "target_project_id", I(MRC_TARGET_PROJECT));
	json_object *labels = json_object_new_array();
	const char **titles;
	int n = db_text_array(r->ctx.a, V(MRC_LABELS), &titles);
	for (int k = 0; k < n; k++)
		json_object_array_add(labels, json_object_new_string(titles[k]));
	json_object_object_add(o, "labels", labels);
	json_put_bool(o, "work_in_progress", entity_merge_request_wip(V(MRC_TITLE)));
	json_object_object_add(o, "milestone", PQgetisnull(res, row, col + MRC_MILESTONE) ? NULL
					       : entity_milestone(r, res, row, col + MRC_MILESTONE));
	json_put_bool(o, "merge_when_pipeline_succeeds", db_bool(res, row, col + MRC_MWPS));
	json_put_str(o, "merge_status", V(MRC_MERGE_STATUS));
	json_put_str(o, "sha", V(MRC_SHA));
	json_put_str(o, "merge_commit_sha", V(MRC_MERGE_COMMIT_SHA));
	json_put_int(o, "user_notes_count", I(MRC_USER_NOTES_COUNT));
	json_object_object_add(o, "discussion_locked",
			       V(MRC_DISCUSSION_LOCKED) ? json_object_new_boolean(db_bool(
							  res, row, col + MRC_DISCUSSION_LOCKED))
							: NULL);
	json_put_bool(o, "should_remove_source_branch", db_bool(res, row, col + MRC_SHOULD_REMOVE));
	json_put_bool(o, "force_remove_source_branch", db_bool(res, row, col + MRC_FORCE_REMOVE));
	json_put_str(o, "web_url", web_url(r, res, row, col));
	json_object_object_add(o, "time_stats",
			       entity_time_stats(r, res, row, col + MRC_TIME_ESTIMATE));
	return o;
}

json_object *entity_merge_request(request *r, const PGresult *res, int row, int col)
{
	json_object *o = entity_merge_request_basic(r, res, row, col);
	json_put_bool(o, "subscribed", db_bool(res, row, col + MRC_SUBSCRIBED));
	json_object_object_add(o, "merged_by", user_or_null(r, res, row, col + MRC_MERGED_BY));
	json_put_str(o, "merged_at", V(MRC_MERGED_AT));
	json_object_object_add(o, "closed_by", user_or_null(r, res, row, col + MRC_CLOSED_BY));
	json_put_str(o, "closed_at", V(MRC_CLOSED_AT));
	/* the pipeline fields: pipelines are issue 9's */
	json_put_str(o, "latest_build_started_at", NULL);
	json_put_str(o, "latest_build_finished_at", NULL);
	json_put_str(o, "first_deployed_to_production_at", NULL);
	json_object_object_add(o, "pipeline", NULL);
	return o;
#undef V
#undef I
}
