#include "entity/issue.h"

#include <stdio.h>
#include <string.h>

#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

const char *entity_human_duration(arena *a, long long seconds)
{
	static const struct {
		const char *unit;
		long long seconds;
	} units[] = {{"mo", 4LL * 5 * 8 * 3600},
		     {"w", 5LL * 8 * 3600},
		     {"d", 8LL * 3600},
		     {"h", 3600},
		     {"m", 60},
		     {"s", 1}};
	if (seconds == 0)
		return NULL;
	char out[128];
	size_t n = 0;
	if (seconds < 0) {
		out[n++] = '-';
		seconds = -seconds;
	}
	for (size_t k = 0; k < sizeof(units) / sizeof(*units); k++) {
		long long q = seconds / units[k].seconds;
		if (q == 0)
			continue;
		seconds -= q * units[k].seconds;
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%lld%s",
				      n > 0 && out[n - 1] != '-' ? " " : "", q, units[k].unit);
	}
	out[n] = '\0';
	return arena_strdup(a, out);
}

void entity_time_stats_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	long long estimate = db_int(res, row, col), spent = db_int(res, row, col + 1);
	jw_begin_object(w);
	jw_put_int(w, "time_estimate", estimate);
	jw_put_int(w, "total_time_spent", spent);
	jw_put_str(w, "human_time_estimate", entity_human_duration(c->a, estimate));
	jw_put_str(w, "human_total_time_spent", entity_human_duration(c->a, spent));
	jw_end_object(w);
}

/* key: api's URL of issue iid, with suffix. */
static void issue_link(jw *w, const char *key, const char *api, const char *iid, const char *suffix)
{
	jw_key(w, key);
	jw_str_begin(w);
	jw_str_part(w, api);
	jw_str_part(w, "/issues/");
	jw_str_part(w, iid);
	jw_str_part(w, suffix);
	jw_str_end(w);
}

void entity_issuable_head_write(jw *w, const PGresult *res, int row, int col)
{
	jw_put_int(w, "id", db_int(res, row, col + IH_ID));
	jw_put_int(w, "iid", db_int(res, row, col + IH_IID));
	jw_put_int(w, "project_id", db_int(res, row, col + IH_PROJECT_ID));
	jw_put_str(w, "title", db_val(res, row, col + IH_TITLE));
	jw_put_str(w, "description", db_val(res, row, col + IH_DESCRIPTION));
	jw_put_str(w, "state", db_val(res, row, col + IH_STATE));
	jw_put_time(w, "created_at", db_val(res, row, col + IH_CREATED_AT));
	jw_put_time(w, "updated_at", db_val(res, row, col + IH_UPDATED_AT));
}

/* The list view; when single, the single view: the same members, then _links and
 * subscribed. */
static void write_issue(jw *w, ctx *c, const PGresult *res, int row, int col, bool single)
{
	deps_none(c); /* issues have no key in the response cache */
#define V(c) db_val(res, row, col + (c))
#define I(c) db_int(res, row, col + (c))
	jw_begin_object(w);
	entity_issuable_head_write(w, res, row, col);
	jw_put_time(w, "closed_at", V(IC_CLOSED_AT));
	jw_key(w, "closed_by");
	entity_user_summary_write(w, c, res, row, col + IC_CLOSED_BY);
	jw_key(w, "labels");
	entity_text_array_write(w, c, V(IC_LABELS));
	jw_key(w, "milestone");
	entity_milestone_write(w, c, res, row, col + IC_MILESTONE);
	/* the assignee twice: the only one of assignees, and assignee */
	jw_key(w, "assignees");
	jw_begin_array(w);
	if (entity_user_present(c, res, row, col + IC_ASSIGNEE))
		entity_user_write(w, c, res, row, col + IC_ASSIGNEE, USER_VIEW_BASIC);
	jw_end_array(w);
	jw_key(w, "author");
	entity_user_summary_write(w, c, res, row, col + IC_AUTHOR);
	jw_key(w, "assignee");
	entity_user_summary_write(w, c, res, row, col + IC_ASSIGNEE);
	jw_put_int(w, "user_notes_count", I(IC_USER_NOTES_COUNT));
	jw_put_int(w, "upvotes", I(IC_UPVOTES));
	jw_put_int(w, "downvotes", I(IC_DOWNVOTES));
	jw_put_str(w, "due_date", V(IC_DUE_DATE));
	jw_put_bool(w, "confidential", db_bool(res, row, col + IC_CONFIDENTIAL));
	jw_key(w, "discussion_locked");
	if (V(IC_DISCUSSION_LOCKED))
		jw_bool(w, db_bool(res, row, col + IC_DISCUSSION_LOCKED));
	else
		jw_null(w);
	entity_web_url_write(w, c, V(IC_PATH), "issues", V(IC_IID));
	jw_key(w, "time_stats");
	entity_time_stats_write(w, c, res, row, col + IC_TIME_ESTIMATE);
	if (single) {
		const char *api = arena_printf(c->a, "%s/api/v4/projects/%s", c->cfg->external_url,
					       V(IC_PROJECT_ID));
		jw_key(w, "_links");
		jw_begin_object(w);
		issue_link(w, "self", api, V(IC_IID), "");
		issue_link(w, "notes", api, V(IC_IID), "/notes");
		issue_link(w, "award_emoji", api, V(IC_IID), "/award_emoji");
		jw_put_str(w, "project", api);
		jw_end_object(w);
		jw_put_bool(w, "subscribed", db_bool(res, row, col + IC_SUBSCRIBED));
	}
	jw_end_object(w);
#undef V
#undef I
}

void entity_issue_basic_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	write_issue(w, c, res, row, col, false);
}

void entity_issue_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	write_issue(w, c, res, row, col, true);
}
