/* Activity events (4.14): GET /events (the caller's own), GET /users/:id/events and
 * GET /projects/:id/events, and events_record(), which the other modules call to write
 * an event in the transaction of the action that causes it.
 *
 * As GitLab 10's EventsFinder, an event of a project is shown only to callers who can
 * read the project, and the events of a project being deleted are gone; an event
 * without a project is shown with its author. Newest first (created_at, then id), or
 * oldest first with sort=asc. */
#include <string.h>

#include "api/api.h"
#include "auth/access.h"
#include "entity/event.h"
#include "http/pagination.h"

/* $5 action, $6 target type, $7 before, $8 after (dates, UTC days: before is exclusive
 * of its day, after of its own day too, as GitLab: created_at > after.end_of_day). */
#define EVENTS_FILTERS                                                                             \
	" AND ($5::text IS NULL OR e.action = $5) AND ($6::text IS NULL OR e.target_type = $6)"    \
	" AND ($7::date IS NULL OR e.created_at < ($7::date)::timestamp AT TIME ZONE 'UTC')"       \
	" AND ($8::date IS NULL OR e.created_at >= ($8::date + 1)::timestamp AT TIME ZONE 'UTC')"

/* The events whose target the caller may not read are left out, as GitLab 10's
 * Event#visible_to_user?: those of a confidential issue, and of the notes on one, are for
 * admins, the issue's author and assignees, and reporters and up of its project (tp);
 * those of the notes on a snippet follow the snippet's visibility (members, its author
 * and admins see private ones). */
#define SQL_TP_LEVEL                                                                               \
	"(" SQL_PROJECT_ACCESS(                                                                    \
		"tp") " + CASE WHEN EXISTS (SELECT 1"                                              \
		      " FROM namespaces own WHERE own.id = tp.namespace_id AND own.kind = 'user'"  \
		      " AND own.owner_id = me.id) THEN 40 ELSE 0 END)"
#define SQL_ISSUE_READABLE(I)                                                                      \
	"coalesce(NOT " I ".confidential OR me.admin OR " I                                        \
	".author_id = me.id OR EXISTS (SELECT 1"                                                   \
	" FROM issue_assignees ia WHERE ia.issue_id = " I ".id AND ia.user_id = me.id)"            \
	" OR " SQL_TP_LEVEL " >= 20, false)"
#define SQL_SNIPPET_READABLE(S)                                                                    \
	"coalesce(" S ".visibility = 20 OR (" S ".visibility = 10 AND me.id IS NOT NULL"           \
	" AND NOT me.external) OR me.admin OR " S ".author_id = me.id OR " SQL_TP_LEVEL " >= 10,"  \
	" false)"
#define EVENTS_READABLE                                                                                   \
	" AND NOT (e.target_type = 'Issue' AND EXISTS (SELECT 1 FROM me, issues ti"                       \
	" JOIN projects tp ON tp.id = ti.project_id WHERE ti.id = e.target_id"                            \
	" AND NOT " SQL_ISSUE_READABLE(                                                                   \
		"ti") "))"                                                                                \
		      " AND NOT (e.target_type = 'Note' AND EXISTS (SELECT 1 FROM me, notes tn"           \
		      " JOIN projects tp ON tp.id = tn.project_id"                                        \
		      " LEFT JOIN issues ti ON tn.noteable_type = 'Issue' AND ti.id = tn.noteable_id"     \
		      " LEFT JOIN snippets ts ON tn.noteable_type = 'Snippet' AND ts.id = tn.noteable_id" \
		      " WHERE tn.id = e.target_id AND ((ti.id IS NOT NULL AND NOT " SQL_ISSUE_READABLE(   \
			      "ti") ")"                                                                   \
				    " OR (ts.id IS NOT NULL AND NOT " SQL_SNIPPET_READABLE(               \
					    "ts") "))))"

/* The page of the filtered events f with their authors: $9 ascending, $10 limit,
 * $11 offset. */
#define EVENTS_PAGE                                                                                \
	" LEFT JOIN LATERAL (SELECT " EVENT_COLS " FROM f e JOIN users u ON u.id = e.author_id"    \
	" ORDER BY CASE WHEN $9::boolean THEN e.created_at END ASC,"                               \
	" CASE WHEN $9::boolean THEN e.id END ASC, e.created_at DESC, e.id DESC"                   \
	" LIMIT $10 OFFSET $11) pg ON true"

/* events_by_author's and events_by_project's parameters: SQL_ME's, the author or the
 * project, the filters, the page */
enum {
	EV_WHO = ME_NPARAMS,
	EV_ACTION,
	EV_TARGET,
	EV_BEFORE,
	EV_AFTER,
	EV_ASC,
	EV_LIMIT,
	EV_OFFSET,
	EV_NPARAMS
};
enum {
	EI_PROJECT,
	EI_AUTHOR,
	EI_ACTION,
	EI_ACTION_NAME,
	EI_TARGET_TYPE,
	EI_TARGET_ID,
	EI_TARGET_IID,
	EI_TARGET_TITLE,
	EI_DATA,
	EI_NPARAMS
};

const db_stmt events_stmts[] = {
	/* $1..$3 the caller (SQL_ME), $4 the author's id or username, then as above. The
	 * visibility of each project the author has events in is decided once (pv). */
	{"events_by_author",
	 "WITH " SQL_ME ", a AS (SELECT u.id FROM users u WHERE NOT u.ghost"
	 "  AND (u.id = (CASE WHEN $4::text ~ '^[0-9]{1,18}$' THEN $4::bigint END)"
	 "  OR lower(u.username) = (CASE WHEN $4 !~ '^[0-9]+$' THEN lower($4) END))),"
	 " pv AS (SELECT p.id FROM me, projects p WHERE p.id IN (SELECT e.project_id FROM events e, a"
	 "  WHERE e.author_id = a.id) AND NOT p.pending_delete AND " SQL_PROJECT_VISIBLE(
		 "p") "),"
		      " f AS (SELECT e.* FROM events e, a WHERE e.author_id = a.id"
		      "  AND (e.project_id IS NULL OR e.project_id IN (SELECT id FROM pv))" EVENTS_FILTERS
			      EVENTS_READABLE ")"
		      " SELECT (SELECT count(*) FROM f), pg.* FROM a" EVENTS_PAGE,
	 EV_NPARAMS, 1 + EVENT_NCOLS},
	/* $1..$3 the caller, $4 the project (the route's scope), then as above. */
	{"events_by_project",
	 "WITH " SQL_ME
	 ", f AS (SELECT e.* FROM events e WHERE e.project_id = $4::bigint" EVENTS_FILTERS
		 EVENTS_READABLE ")"
	 " SELECT (SELECT count(*) FROM f), pg.* FROM (SELECT 1) one" EVENTS_PAGE,
	 EV_NPARAMS, 1 + EVENT_NCOLS},
	{"events_insert",
	 "INSERT INTO events (project_id, author_id, action, action_name, target_type, target_id,"
	 " target_iid, target_title, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)",
	 EI_NPARAMS, 0},
	{NULL, NULL, 0, 0},
};

int events_record(request *r, const char *project_id, const char *author_id, const char *action,
		  const char *action_name, const char *target_type, const char *target_id,
		  const char *target_iid, const char *target_title)
{
	return events_record_data(r, project_id, author_id, action, action_name, target_type,
				  target_id, target_iid, target_title, NULL);
}

int events_record_data(request *r, const char *project_id, const char *author_id,
		       const char *action, const char *action_name, const char *target_type,
		       const char *target_id, const char *target_iid, const char *target_title,
		       const char *data)
{
	const char *v[] = {[EI_PROJECT] = project_id,
			   [EI_AUTHOR] = author_id,
			   [EI_ACTION] = action,
			   [EI_ACTION_NAME] = action_name,
			   [EI_TARGET_TYPE] = target_type,
			   [EI_TARGET_ID] = target_id,
			   [EI_TARGET_IID] = target_iid,
			   [EI_TARGET_TITLE] = target_title,
			   [EI_DATA] = data};
	DB_PARAMS(v, EI_NPARAMS);
	/* nothing reads it back: it goes with the transaction's next statement or commit */
	return db_defer(&r->ctx, "events_insert", EI_NPARAMS, v);
}

/* The filter values of GitLab 10 (Event.actions, Event.target_types), and the class
 * names the target types are stored as. */
static const char *const actions[] = {"created", "updated",   "closed",  "reopened",
				      "pushed",  "commented", "merged",  "joined",
				      "left",    "destroyed", "expired", NULL};
static const char *const target_types[] = {"issue",   "milestone", "merge_request", "note",
					   "project", "snippet",   "user",          NULL};
static const char *const target_names[] = {"Issue",   "Milestone", "MergeRequest", "Note",
					   "Project", "Snippet",   "User",         NULL};

struct filters {
	page_req pg;
	const char *action, *target, *before, *after, *sort;
};

/* The page and the filters, as GitLab's parameter declarations check them. */
static int read_filters(request *r, struct filters *f)
{
	static const char *const sorts[] = {"asc", "desc", NULL};
	*f = (struct filters){.sort = "desc"};
	int rc = pagination_parse(r, &f->pg);
	if (rc < 0 || (rc = param_oneof(r, "action", actions, &f->action)) < 0 ||
	    (rc = param_oneof(r, "target_type", target_types, &f->target)) < 0 ||
	    (rc = param_date(r, "before", &f->before)) < 0 ||
	    (rc = param_date(r, "after", &f->after)) < 0 ||
	    (rc = param_oneof(r, "sort", sorts, &f->sort)) < 0)
		return rc;
	return 0;
}

static int events_check(request *r)
{
	struct filters f;
	return read_filters(r, &f);
}

/* Lists the events of stmt for who (a user reference, or the id of the route's
 * project); not_found names what a missing row means. */
static int list(request *r, const char *stmt, const char *who, const char *not_found)
{
	struct filters f;
	int rc = read_filters(r, &f);
	if (rc < 0)
		return rc;
	page_req pg = f.pg;
	const char *action = f.action, *target = f.target, *before = f.before, *after = f.after,
		   *sort = f.sort;
	if (target)
		for (int i = 0; target_types[i]; i++)
			if (target == target_types[i])
				target = target_names[i];
	const char *v[] = {
		[EV_WHO] = who ? who : "",
		[EV_ACTION] = action,
		[EV_TARGET] = target,
		[EV_BEFORE] = before,
		[EV_AFTER] = after,
		[EV_ASC] = strcmp(sort, "asc") == 0 ? "true" : "false",
		[EV_LIMIT] = pagination_limit(r, &pg),
		[EV_OFFSET] = pagination_offset(r, &pg),
	};
	DB_PARAMS(v, EV_NPARAMS);
	access_me_params(&r->ctx, v);
	int err;
	PGresult *res = db_query(&r->ctx, stmt, EV_NPARAMS, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_not_found(r, not_found);
	api_respond_page(r, &pg, res, entity_event);
	return 0;
}

static int events_list_mine(request *r)
{
	return list(r, "events_by_author", api_caller_id(r), "User");
}

static int events_list_user(request *r)
{
	return list(r, "events_by_author", param_str(r, "id"), "User");
}

static int events_list_project(request *r)
{
	return list(r, "events_by_project", r->project->id, "Project");
}

/* The module's routes (http/router.h), in the order they are matched. */
const route events_routes[] = {
	{"GET", V4 "/users/:id/events", events_list_user, AUTH | RU, NULL},
	{"GET", V4 "/events", events_list_mine, AUTH, NULL},
	{"GET", V4 "/projects/:id/events", events_list_project, ROUTE_PUBLIC | PR, events_check},
	{NULL, NULL, NULL, 0, NULL},
};
