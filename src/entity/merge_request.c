#include "entity/merge_request.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "db/db.h"
#include "entity/entity.h"
#include "entity/issue.h"
#include "core/deps.h"

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

#define V(c) db_val(res, row, col + (c))
#define I(c) db_int(res, row, col + (c))
#define B(c) db_bool(res, row, col + (c))

/* The members the simple view begins with, and the list view too. */
static void head_members(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* merge requests have no key in the response cache */
	entity_issuable_head_write(w, res, row, col);
}

void entity_merge_request_simple_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	jw_begin_object(w);
	head_members(w, c, res, row, col);
	entity_web_url_write(w, c, V(MRC_PATH), "merge_requests", V(MRC_IID));
	jw_end_object(w);
}

/* The members of the list view, in an object begun. */
static void basic_members(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	head_members(w, c, res, row, col);
	jw_put_str(w, "target_branch", V(MRC_TARGET_BRANCH));
	jw_put_str(w, "source_branch", V(MRC_SOURCE_BRANCH));
	jw_put_int(w, "upvotes", I(MRC_UPVOTES));
	jw_put_int(w, "downvotes", I(MRC_DOWNVOTES));
	jw_key(w, "author");
	entity_user_summary_write(w, c, res, row, col + MRC_AUTHOR);
	jw_key(w, "assignee");
	entity_user_summary_write(w, c, res, row, col + MRC_ASSIGNEE);
	jw_put_int_or_null(w, "source_project_id", V(MRC_SOURCE_PROJECT));
	jw_put_int(w, "target_project_id", I(MRC_TARGET_PROJECT));
	jw_key(w, "labels");
	entity_text_array_write(w, c, V(MRC_LABELS));
	jw_put_bool(w, "work_in_progress", entity_merge_request_wip(V(MRC_TITLE)));
	jw_key(w, "milestone");
	entity_milestone_write(w, c, res, row, col + MRC_MILESTONE);
	jw_put_bool(w, "merge_when_pipeline_succeeds", B(MRC_MWPS));
	jw_put_str(w, "merge_status", V(MRC_MERGE_STATUS));
	jw_put_str(w, "sha", V(MRC_SHA));
	jw_put_str(w, "merge_commit_sha", V(MRC_MERGE_COMMIT_SHA));
	jw_put_int(w, "user_notes_count", I(MRC_USER_NOTES_COUNT));
	jw_key(w, "discussion_locked");
	if (V(MRC_DISCUSSION_LOCKED))
		jw_bool(w, B(MRC_DISCUSSION_LOCKED));
	else
		jw_null(w);
	jw_put_bool(w, "should_remove_source_branch", B(MRC_SHOULD_REMOVE));
	jw_put_bool(w, "force_remove_source_branch", B(MRC_FORCE_REMOVE));
	entity_web_url_write(w, c, V(MRC_PATH), "merge_requests", V(MRC_IID));
	jw_key(w, "time_stats");
	entity_time_stats_write(w, c, res, row, col + MRC_TIME_ESTIMATE);
}

void entity_merge_request_basic_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	jw_begin_object(w);
	basic_members(w, c, res, row, col);
	jw_end_object(w);
}

void entity_merge_request_begin(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	jw_begin_object(w);
	basic_members(w, c, res, row, col);
	jw_put_bool(w, "subscribed", B(MRC_SUBSCRIBED));
	jw_key(w, "merged_by");
	entity_user_summary_write(w, c, res, row, col + MRC_MERGED_BY);
	jw_put_time(w, "merged_at", V(MRC_MERGED_AT));
	jw_key(w, "closed_by");
	entity_user_summary_write(w, c, res, row, col + MRC_CLOSED_BY);
	jw_put_time(w, "closed_at", V(MRC_CLOSED_AT));
	/* the pipeline fields: pipelines are issue 9's */
	jw_put_str(w, "latest_build_started_at", NULL);
	jw_put_str(w, "latest_build_finished_at", NULL);
	jw_put_str(w, "first_deployed_to_production_at", NULL);
	jw_key(w, "pipeline");
	jw_null(w);
}

#undef V
#undef I
#undef B

void entity_merge_request_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	entity_merge_request_begin(w, c, res, row, col);
	jw_end_object(w);
}
