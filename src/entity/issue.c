#include "entity/issue.h"

#include <stdio.h>
#include <string.h>

#include "db/db.h"
#include "entity/entity.h"
#include "http/cache.h"

const char *entity_human_duration(arena *a, long long seconds)
{
	static const struct {
		const char *unit;
		long long seconds;
	} units[] = {{"mo", 4LL * 5 * 8 * 3600}, {"w", 5LL * 8 * 3600}, {"d", 8LL * 3600},
		     {"h", 3600}, {"m", 60}, {"s", 1}};
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

json_object *entity_time_stats(request *r, const PGresult *res, int row, int col)
{
	long long estimate = db_int(res, row, col), spent = db_int(res, row, col + 1);
	json_object *o = json_object_new_object();
	json_put_int(o, "time_estimate", estimate);
	json_put_int(o, "total_time_spent", spent);
	json_put_str(o, "human_time_estimate", entity_human_duration(r->ctx.a, estimate));
	json_put_str(o, "human_total_time_spent", entity_human_duration(r->ctx.a, spent));
	return o;
}

/* The user summary at col, or null when the row has none there. */
static json_object *user_or_null(request *r, const PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? NULL : entity_user(r, res, row, col, USER_VIEW_BASIC);
}

json_object *entity_issue_basic(request *r, const PGresult *res, int row, int col)
{
	cache_depend_none(r); /* issues have no key in the response cache */
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
#define I(c) db_int(res, row, col + (c))
	json_put_int(o, "id", I(IC_ID));
	json_put_int(o, "iid", I(IC_IID));
	json_put_int(o, "project_id", I(IC_PROJECT_ID));
	json_put_str(o, "title", V(IC_TITLE));
	json_put_str(o, "description", V(IC_DESCRIPTION));
	json_put_str(o, "state", V(IC_STATE));
	json_put_str(o, "created_at", V(IC_CREATED_AT));
	json_put_str(o, "updated_at", V(IC_UPDATED_AT));
	json_put_str(o, "closed_at", V(IC_CLOSED_AT));
	json_object_object_add(o, "closed_by", user_or_null(r, res, row, col + IC_CLOSED_BY));
	json_object *labels = json_object_new_array();
	const char **titles;
	int n = db_text_array(r->ctx.a, V(IC_LABELS), &titles);
	for (int k = 0; k < n; k++)
		json_object_array_add(labels, json_object_new_string(titles[k]));
	json_object_object_add(o, "labels", labels);
	json_object_object_add(o, "milestone", PQgetisnull(res, row, col + IC_MILESTONE) ? NULL
					       : entity_milestone(r, res, row, col + IC_MILESTONE));
	json_object *assignee = user_or_null(r, res, row, col + IC_ASSIGNEE);
	json_object *assignees = json_object_new_array();
	if (assignee)
		json_object_array_add(assignees, json_object_get(assignee));
	json_object_object_add(o, "assignees", assignees);
	json_object_object_add(o, "author", user_or_null(r, res, row, col + IC_AUTHOR));
	json_object_object_add(o, "assignee", assignee);
	json_put_int(o, "user_notes_count", I(IC_USER_NOTES_COUNT));
	json_put_int(o, "upvotes", I(IC_UPVOTES));
	json_put_int(o, "downvotes", I(IC_DOWNVOTES));
	json_put_str(o, "due_date", V(IC_DUE_DATE));
	json_put_bool(o, "confidential", db_bool(res, row, col + IC_CONFIDENTIAL));
	json_object_object_add(o, "discussion_locked",
			       V(IC_DISCUSSION_LOCKED) ? json_object_new_boolean(db_bool(
							 res, row, col + IC_DISCUSSION_LOCKED))
						       : NULL);
	json_put_str(o, "web_url", arena_printf(r->ctx.a, "%s/%s/issues/%s", r->ctx.cfg->external_url,
						V(IC_PATH), V(IC_IID)));
	json_object_object_add(o, "time_stats", entity_time_stats(r, res, row, col + IC_TIME_ESTIMATE));
#undef V
#undef I
	return o;
}

json_object *entity_issue(request *r, const PGresult *res, int row, int col)
{
	json_object *o = entity_issue_basic(r, res, row, col);
	const char *api = arena_printf(r->ctx.a, "%s/api/v4/projects/%s", r->ctx.cfg->external_url,
				       db_val(res, row, col + IC_PROJECT_ID));
	const char *iid = db_val(res, row, col + IC_IID);
	json_object *links = json_object_new_object();
	json_put_str(links, "self", arena_printf(r->ctx.a, "%s/issues/%s", api, iid));
	json_put_str(links, "notes", arena_printf(r->ctx.a, "%s/issues/%s/notes", api, iid));
	json_put_str(links, "award_emoji", arena_printf(r->ctx.a, "%s/issues/%s/award_emoji", api, iid));
	json_put_str(links, "project", api);
	json_object_object_add(o, "_links", links);
	json_put_bool(o, "subscribed", db_bool(res, row, col + IC_SUBSCRIBED));
	return o;
}
