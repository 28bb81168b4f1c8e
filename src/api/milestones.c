/* Milestones of projects and groups (spec 4.7): list, show, create, edit (state_event
 * close or activate), and the issues and merge requests of a milestone, each handler
 * written once for both scopes (r->project or r->group). iids are per project or per
 * group; titles are unique within one. As GitLab 10.0: reading needs what reading the
 * project or group needs; creating and editing needs a developer of the project, a
 * master of the group (auth/access.h). */
#include <string.h>

#include "api/api.h"
#include "entity/milestone.h"
#include "http/pagination.h"

/* The milestone's parent: project $1 or group $2. */
#define PARENT(M) "(" M ".project_id = $1::bigint OR " M ".group_id = $2::bigint)"

/* The parameters: the parent's (PARENT), then the statement's own */
enum { MP_PROJECT, MP_GROUP, MP_NPARAMS };
enum { MLS_STATE = MP_NPARAMS, MLS_IIDS, MLS_SEARCH, MLS_LIMIT, MLS_OFFSET, MLS_NPARAMS };
enum { MIN_TITLE = MP_NPARAMS, MIN_DESCRIPTION, MIN_DUE_DATE, MIN_START_DATE, MIN_NPARAMS };
enum {
	MUP_ID,
	MUP_TITLE,
	MUP_HAS_DESCRIPTION,
	MUP_DESCRIPTION,
	MUP_HAS_DUE_DATE,
	MUP_DUE_DATE,
	MUP_HAS_START_DATE,
	MUP_START_DATE,
	MUP_STATE_EVENT,
	MUP_NPARAMS
};

const db_stmt milestones_stmts[] = {
	/* $3 state, $4 iids, $5 search (title or description), $6 limit, $7 offset */
	{"milestones_list",
	 "WITH f AS (SELECT m.id FROM milestones m WHERE " PARENT(
		 "m") " AND ($3::text IS NULL OR m.state = $3) AND ($4::bigint[] IS NULL OR m.iid = ANY ($4))"
		      " AND ($5::text IS NULL OR m.title ILIKE " SQL_LIKE("$5") " OR m.description ILIKE " SQL_LIKE(
			      "$5") "))"
				    " SELECT (SELECT count(*) FROM f), pg.* FROM (SELECT 1) one LEFT JOIN LATERAL"
				    " (SELECT " MILESTONE_COLS
				    " FROM f JOIN milestones m ON m.id = f.id ORDER BY m.id"
				    " LIMIT $6 OFFSET $7) pg ON true",
	 MLS_NPARAMS, 1 + MILESTONE_NCOLS},
	{"milestones_get",
	 "SELECT " MILESTONE_COLS " FROM milestones m WHERE m.id = $3 AND " PARENT("m"), 3,
	 MILESTONE_NCOLS},
	{"milestones_lock",
	 "SELECT " MILESTONE_COLS
	 " FROM milestones m WHERE m.id = $3 AND " PARENT("m") " FOR UPDATE",
	 3, MILESTONE_NCOLS},
	/* $3 title, $4 description, $5 due date, $6 start date */
	{"milestones_insert",
	 "WITH m AS (INSERT INTO milestones (project_id, group_id, iid, title, description,"
	 " due_date, start_date) VALUES ($1, $2, CASE WHEN $1::bigint IS NOT NULL"
	 " THEN next_iid('milestones', 'Project', $1) ELSE next_iid('milestones', 'Namespace', $2)"
	 " END, $3, $4, $5::date, $6::date) RETURNING *) SELECT " MILESTONE_COLS " FROM m",
	 MIN_NPARAMS, MILESTONE_NCOLS},
	/* $1 id, $2 title (NULL: kept), $3/$4 description given/value, $5/$6 due date,
	 * $7/$8 start date, $9 state event */
	{"milestones_update",
	 "WITH m AS (UPDATE milestones m SET title = coalesce($2, m.title),"
	 " description = CASE WHEN $3::boolean THEN $4 ELSE m.description END,"
	 " due_date = CASE WHEN $5::boolean THEN $6::date ELSE m.due_date END,"
	 " start_date = CASE WHEN $7::boolean THEN $8::date ELSE m.start_date END,"
	 " state = CASE $9::text WHEN 'close' THEN 'closed' WHEN 'activate' THEN 'active'"
	 " ELSE m.state END, updated_at = now() WHERE m.id = $1 RETURNING *)"
	 " SELECT " MILESTONE_COLS " FROM m",
	 MUP_NPARAMS, MILESTONE_NCOLS},
	{NULL, NULL, 0, 0},
};

enum {
	MC_ID,
	MC_IID,
	MC_PROJECT_ID,
	MC_GROUP_ID,
	MC_TITLE,
	MC_DESCRIPTION,
	MC_STATE,
	MC_CREATED_AT,
	MC_UPDATED_AT,
	MC_DUE_DATE,
	MC_START_DATE
};

/* The route's parent as the statements' $1 and $2. */
static void parent(request *r, const char **v)
{
	v[MP_PROJECT] = r->project ? r->project->id : NULL;
	v[MP_GROUP] = r->project ? NULL : r->group->id;
}

static bool can_admin(request *r)
{
	return r->project ? can_admin_project_milestones(&r->project->pa)
			  : can_admin_group_milestones(&r->group->ga);
}

/* GitLab's parent.milestones.find: 404 "Not found" */
static int not_found(request *r)
{
	return api_error(r, 404, "404 Not found");
}

/* ---- list ---- */

static int read_list(request *r, page_req *pg, const char **state, const char **iids,
		     const char **search)
{
	static const char *const states[] = {"active", "closed", "all", NULL};
	*state = NULL;
	int rc = pagination_parse(r, pg);
	if (rc < 0 || (rc = param_oneof(r, "state", states, state)) < 0)
		return rc;
	if (*state && strcmp(*state, "all") == 0)
		*state = NULL;
	const char **ids;
	int n = param_array(r, "iids", &ids);
	if (n < 0)
		return n;
	*iids = NULL;
	if (n > 0) {
		buf b;
		buf_init(&b, r->ctx.a, 64);
		buf_puts(&b, "{");
		for (int i = 0; i < n; i++) {
			long long x;
			char *end;
			if (!ids[i] || !*ids[i] || (x = strtoll(ids[i], &end, 10), *end))
				return fail_invalid(r, "iids");
			buf_printf(&b, "%s%lld", i ? "," : "", x);
		}
		buf_puts(&b, "}");
		*iids = buf_cstr(&b);
	}
	const char *s = param_str(r, "search");
	*search = s && *s ? s : NULL;
	return 0;
}

static int check_list(request *r)
{
	page_req pg;
	const char *state, *iids, *search;
	return read_list(r, &pg, &state, &iids, &search);
}

static int milestones_list(request *r)
{
	page_req pg;
	const char *v[MLS_NPARAMS];
	int rc = read_list(r, &pg, &v[MLS_STATE], &v[MLS_IIDS], &v[MLS_SEARCH]);
	if (rc < 0)
		return rc;
	parent(r, v);
	v[MLS_LIMIT] = pagination_limit(r, &pg);
	v[MLS_OFFSET] = pagination_offset(r, &pg);
	int err;
	PGresult *res = db_query(&r->ctx, "milestones_list", MLS_NPARAMS, v, &err);
	if (!res)
		return err;
	api_respond_page_jw(r, &pg, res, entity_milestone_write, 512);
	return 0;
}

/* ---- one milestone ---- */

static int check_id(request *r)
{
	const char *id;
	return api_id(r, "milestone_id", &id);
}

/* The milestone :milestone_id of the route's parent (locked for a change when lock):
 * 0 with its row, 1 when there is none. */
static int find(request *r, bool lock, PGresult **out)
{
	const char *v[3];
	int rc = api_id(r, "milestone_id", &v[2]);
	if (rc < 0)
		return rc;
	parent(r, v);
	int err;
	PGresult *res = db_query(&r->ctx, lock ? "milestones_lock" : "milestones_get", 3, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return 1;
	*out = res;
	return 0;
}

static int milestones_show(request *r)
{
	PGresult *res;
	int rc = find(r, false, &res);
	if (rc != 0)
		return rc < 0 ? rc : not_found(r);
	api_respond_record(r, 200, entity_milestone_write, res, 0, 0);
	return 0;
}

/* ---- create and edit ---- */

struct milestone_input {
	const char *title, *description, *due_date, *start_date, *state_event;
	bool due_given, start_given;
};

/* A date parameter: empty clears it (NULL), otherwise YYYY-MM-DD. */
static int read_date(request *r, const char *name, const char **out, bool *given)
{
	const char *s = param_str(r, name);
	*out = NULL;
	*given = s != NULL;
	if (!s || !*s)
		return 0;
	int rc = param_date(r, name, out);
	return rc < 0 ? rc : 0;
}

static int read_input(request *r, bool create, struct milestone_input *in)
{
	static const char *const events[] = {"close", "activate", NULL};
	memset(in, 0, sizeof(*in));
	int rc;
	if (create && (rc = param_require(r, "title", &in->title)) < 0)
		return rc;
	if ((rc = read_date(r, "due_date", &in->due_date, &in->due_given)) < 0 ||
	    (rc = read_date(r, "start_date", &in->start_date, &in->start_given)) < 0 ||
	    (!create && (rc = param_oneof(r, "state_event", events, &in->state_event)) < 0))
		return rc;
	if (!create)
		in->title = param_str(r, "title");
	in->description = param_str(r, "description");
	if (!create && !in->title && !in->description && !in->due_given && !in->start_given &&
	    !in->state_event)
		return fail(r, ERR_INVALID,
			    "title, description, due_date, start_date, state_event"
			    " are missing, at least one parameter must be provided");
	return 0;
}

static int check_create(request *r)
{
	struct milestone_input in;
	return read_input(r, true, &in);
}

static int check_update(request *r)
{
	struct milestone_input in;
	const char *id;
	int rc = api_id(r, "milestone_id", &id);
	return rc < 0 ? rc : read_input(r, false, &in);
}

/* GitLab's 400 "Failed to create milestone {:title=>[\"has already been taken\"]}". */
static int invalid(request *r, const char *verb, const char *field, const char *message)
{
	return api_error(r, 400,
			 arena_printf(r->ctx.a, "Failed to %s milestone {:%s=>[\"%s\"]}", verb,
				      field, message));
}

/* The errors of the milestone's validations, before it is written: 0 or answered. */
static int validate(request *r, const char *verb, const char *title, const char *due,
		    const char *start, bool *answered)
{
	*answered = true;
	if (title && !*title)
		return invalid(r, verb, "title", "can't be blank");
	if (title && strlen(title) > 255)
		return invalid(r, verb, "title", "is too long (maximum is 255 characters)");
	if (due && start && strcmp(start, due) > 0)
		return invalid(r, verb, "due_date", "must be greater than start date");
	*answered = false;
	return 0;
}

static int milestones_create(request *r)
{
	struct milestone_input in;
	int rc = read_input(r, true, &in);
	if (rc < 0)
		return rc;
	if (!can_admin(r))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	bool answered;
	if ((rc = validate(r, "create", in.title, in.due_date, in.start_date, &answered)) < 0 ||
	    answered)
		return rc;
	const char *v[] = {[MIN_TITLE] = in.title,
			   [MIN_DESCRIPTION] = in.description,
			   [MIN_DUE_DATE] = in.due_date,
			   [MIN_START_DATE] = in.start_date};
	DB_PARAMS(v, MIN_NPARAMS);
	parent(r, v);
	int err;
	PGresult *res = db_query(&r->ctx, "milestones_insert", MIN_NPARAMS, v, &err);
	if (!res) {
		if (err == ERR_CONFLICT)
			return invalid(r, "create", "title", "has already been taken");
		return err;
	}
	api_respond_record(r, 201, entity_milestone_write, res, 0, 0);
	return 0;
}

static int milestones_update(request *r)
{
	struct milestone_input in;
	int rc = read_input(r, false, &in);
	if (rc < 0)
		return rc;
	PGresult *old;
	if ((rc = find(r, true, &old)) != 0)
		return rc < 0 ? rc : not_found(r);
	if (!can_admin(r))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	const char *due = in.due_given ? in.due_date : db_val(old, 0, MC_DUE_DATE);
	const char *start = in.start_given ? in.start_date : db_val(old, 0, MC_START_DATE);
	bool answered;
	if ((rc = validate(r, "update", in.title, due, start, &answered)) < 0 || answered)
		return rc;
	const char *v[] = {[MUP_ID] = db_val(old, 0, MC_ID),
			   [MUP_TITLE] = in.title,
			   [MUP_HAS_DESCRIPTION] = in.description ? "true" : "false",
			   [MUP_DESCRIPTION] = in.description,
			   [MUP_HAS_DUE_DATE] = in.due_given ? "true" : "false",
			   [MUP_DUE_DATE] = in.due_date,
			   [MUP_HAS_START_DATE] = in.start_given ? "true" : "false",
			   [MUP_START_DATE] = in.start_date,
			   [MUP_STATE_EVENT] = in.state_event};
	DB_PARAMS(v, MUP_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx, "milestones_update", MUP_NPARAMS, v, &err);
	if (!res) {
		if (err == ERR_CONFLICT)
			return invalid(r, "update", "title", "has already been taken");
		return err;
	}
	api_respond_record(r, 200, entity_milestone_write, res, 0, 0);
	return 0;
}

/* ---- the milestone's issues and merge requests ---- */

static int milestones_issues(request *r)
{
	PGresult *m;
	int rc = find(r, false, &m);
	if (rc != 0)
		return rc < 0 ? rc : not_found(r);
	return issues_list_page(r, r->project ? r->project->id : NULL,
				r->project ? NULL : r->group->id, "all", db_val(m, 0, MC_TITLE));
}

static int milestones_merge_requests(request *r)
{
	PGresult *m;
	int rc = find(r, false, &m);
	if (rc != 0)
		return rc < 0 ? rc : not_found(r);
	return merge_requests_list_page(r, r->project ? r->project->id : NULL,
					r->project ? NULL : r->group->id, "all",
					db_val(m, 0, MC_TITLE));
}

static int check_issues(request *r)
{
	int rc = check_id(r);
	if (rc < 0)
		return rc;
	page_req pg;
	return pagination_parse(r, &pg);
}

#define PM V4 "/projects/:id/milestones"
#define GM V4 "/groups/:id/milestones"

/* The module's routes (http/router.h), in the order they are matched. */
const route milestones_routes[] = {
	{"GET", PM, milestones_list, AUTH | PR, check_list},
	{"GET", GM, milestones_list, AUTH | GR, check_list},
	{"GET", PM "/:milestone_id", milestones_show, AUTH | PR, check_id},
	{"GET", GM "/:milestone_id", milestones_show, AUTH | GR, check_id},
	{"POST", PM, milestones_create, AUTH | PW, check_create},
	{"POST", GM, milestones_create, AUTH | GW, check_create},
	{"PUT", PM "/:milestone_id", milestones_update, AUTH | PW, check_update},
	{"PUT", GM "/:milestone_id", milestones_update, AUTH | GW, check_update},
	{"GET", PM "/:milestone_id/issues", milestones_issues, AUTH | PR, check_issues},
	{"GET", GM "/:milestone_id/issues", milestones_issues, AUTH | GR, check_issues},
	{"GET", PM "/:milestone_id/merge_requests", milestones_merge_requests, AUTH | PR,
	 check_issues},
	{"GET", GM "/:milestone_id/merge_requests", milestones_merge_requests, AUTH | GR,
	 check_issues},
	{NULL, NULL, NULL, 0, NULL},
};
