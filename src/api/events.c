/* Activity events: GET /events (the caller's) and GET /users/:id/events. */
#include <string.h>

#include "api/api.h"
#include "auth/auth.h"
#include "entity/event.h"
#include "http/pagination.h"

/* Events of projects are shown only to callers who can read the project; until
 * projects exist, only events without a project, and all events to admins. */
#define EVENTS_FILTERED                                                                     \
	"WITH a AS (SELECT u.id FROM users u WHERE NOT u.ghost AND"                         \
	"  (u.id = (CASE WHEN $1 ~ '^[0-9]{1,18}$' THEN $1::bigint END) OR"                \
	"   lower(u.username) = lower($1))),"                                               \
	" f AS (SELECT e.* FROM events e, a WHERE e.author_id = a.id"                        \
	"  AND ($2::text IS NULL OR e.action = $2) AND ($3::text IS NULL OR e.target_type = $3)" \
	"  AND ($4::date IS NULL OR e.created_at < $4::date)"                               \
	"  AND ($5::date IS NULL OR e.created_at >= $5::date + 1)"                          \
	"  AND (e.project_id IS NULL OR $9::boolean))"

const db_stmt events_stmts[] = {
	/* $1 user id or username, $2 action, $3 target type, $4 before, $5 after, $6 asc,
	 * $7 limit, $8 offset, $9 caller is admin */
	{"events_by_author",
	 EVENTS_FILTERED "SELECT (SELECT count(*) FROM f), p.* FROM a LEFT JOIN LATERAL"
			 " (SELECT " EVENT_COLS " FROM f e JOIN users u ON u.id = e.author_id"
			 " ORDER BY CASE WHEN $6::boolean THEN e.created_at END ASC,"
			 " CASE WHEN $6::boolean THEN e.id END ASC,"
			 " e.created_at DESC, e.id DESC LIMIT $7 OFFSET $8) p ON true"},
	{"events_insert",
	 "INSERT INTO events (project_id, author_id, action, action_name, target_type, target_id,"
	 " target_iid, target_title) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"},
	{NULL, NULL},
};

int events_record(request *r, const char *project_id, const char *author_id, const char *action,
		  const char *action_name, const char *target_type, const char *target_id,
		  const char *target_iid, const char *target_title)
{
	const char *v[8] = {project_id, author_id, action, action_name, target_type, target_id,
			    target_iid, target_title};
	int err;
	return db_query(r, "events_insert", 8, v, &err) ? 0 : err;
}

static const char *const actions[] = {"created", "updated", "closed", "reopened", "pushed",
				      "commented", "merged", "joined", "left", "destroyed",
				      "expired", NULL};
static const char *const target_types[] = {"issue", "milestone", "merge_request", "note",
					   "project", "snippet", "user", NULL};
static const char *const target_names[] = {"Issue", "Milestone", "MergeRequest", "Note",
					   "Project", "Snippet", "User", NULL};

static int list(request *r, const char *who)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	const char *action = NULL, *target = NULL, *before = NULL, *after = NULL, *sort = "desc";
	static const char *const sorts[] = {"asc", "desc", NULL};
	if ((rc = param_oneof(r, "action", actions, &action)) < 0 ||
	    (rc = param_oneof(r, "target_type", target_types, &target)) < 0 ||
	    (rc = param_date(r, "before", &before)) < 0 || (rc = param_date(r, "after", &after)) < 0 ||
	    (rc = param_oneof(r, "sort", sorts, &sort)) < 0)
		return rc;
	if (target)
		for (int i = 0; target_types[i]; i++)
			if (target == target_types[i])
				target = target_names[i];
	const char *v[9] = {who, action, target, before, after,
			    strcmp(sort, "asc") == 0 ? "true" : "false", pagination_limit(r, &pg),
			    pagination_offset(r, &pg), auth_is_admin(r) ? "true" : "false"};
	int err;
	PGresult *res = db_query(r, "events_by_author", 9, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_not_found(r, "User");
	api_respond_page(r, &pg, res, entity_event);
	return 0;
}

int events_list_mine(request *r)
{
	return list(r, arena_printf(r->a, "%lld", r->user->id));
}

int events_list_user(request *r)
{
	const char *id = param_str(r, "id");
	return list(r, id ? id : "");
}
