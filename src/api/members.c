/* Project and group members (GitLab 10.0's /projects/:id/members and /groups/:id/members),
 * written once for both scopes, and the lookup of the project or group that members.c and
 * access_requests.c share. A membership is a members row without requested_at. */
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "entity/member.h"
#include "http/pagination.h"
#include "http/router.h"

/* A substring pattern of p, its pattern characters taken literally. */

enum { ML_SOURCE_TYPE, ML_SOURCE_ID, ML_QUERY, ML_LIMIT, ML_OFFSET, ML_NPARAMS };
enum { MI_SOURCE_TYPE, MI_SOURCE_ID, MI_USER, MI_LEVEL, MI_EXPIRES_AT, MI_CREATED_BY, MI_NPARAMS };
/* members_insert's row: whether the user exists, then the member (NULLs when none) */
enum { MI_USER_EXISTS, MI_MEMBER, MI_NCOLS = MI_MEMBER + MEMBER_NCOLS };
enum { MT_ID, MT_REQUEST, MT_LAST_OWNER, MT_NCOLS };

const db_stmt members_stmts[] = {
	/* $1 source type, $2 source id, $3 query (name or username contains it, or the email
	 * is it), $4 limit, $5 offset; in the order members joined. */
	{"members_list",
	 "WITH f AS NOT MATERIALIZED (SELECT m.id FROM members m JOIN users u ON u.id = m.user_id"
	 " WHERE m.source_type = $1 AND m.source_id = $2 AND " SQL_MEMBER_ACTIVE("m") " AND ($3::text IS NULL OR u.username ILIKE " SQL_LIKE(
		 "$3") " OR u.name ILIKE " SQL_LIKE("$3") " OR lower(u.email) = lower($3)))"
							  "SELECT (SELECT count(*) FROM f), p.* FROM (SELECT 1) one LEFT JOIN LATERAL"
							  " (SELECT " MEMBER_COLS
							  " FROM f JOIN members m ON m.id = f.id JOIN users u"
							  " ON u.id = m.user_id ORDER BY m.id LIMIT $4 OFFSET $5) p ON true",
	 ML_NPARAMS, 1 + MEMBER_NCOLS},
	/* $1 source type, $2 source id, $3 user id */
	{"members_show",
	 "SELECT " MEMBER_COLS " FROM members m JOIN users u ON u.id = m.user_id"
	 " WHERE m.source_type = $1 AND m.source_id = $2 AND m.user_id = $3"
	 " AND " SQL_MEMBER_ACTIVE("m"),
	 3, MEMBER_NCOLS},
	/* $4 access level, $5 expires_at, $6 created by. A pending access request of the
	 * user becomes the membership (as GitLab's add_user). Column 0 says whether the
	 * user exists; no member columns when the user is a member already. */
	{"members_insert",
	 "WITH nu AS (SELECT id FROM users WHERE id = $3 AND NOT ghost),"
	 " ins AS (INSERT INTO members AS m (source_type, source_id, user_id, access_level,"
	 " expires_at, created_by) SELECT $1, $2, nu.id, $4, $5::date, $6 FROM nu"
	 " ON CONFLICT ON CONSTRAINT members_source_user_key DO UPDATE SET requested_at = NULL,"
	 " access_level = EXCLUDED.access_level, expires_at = EXCLUDED.expires_at,"
	 " created_by = coalesce(m.created_by, EXCLUDED.created_by), updated_at = now()"
	 " WHERE m.requested_at IS NOT NULL RETURNING m.*)"
	 "SELECT (SELECT count(*) FROM nu), p.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " MEMBER_COLS " FROM ins m JOIN users u ON u.id = m.user_id) p ON true",
	 MI_NPARAMS, MI_NCOLS},
	/* The member or access request of user $3, locked together with the source's owners
	 * (all in id order: concurrent removals cannot leave a group without an owner, nor
	 * deadlock): its id, whether it is a pending request, whether it is the last owner. */
	{"members_target",
	 "WITH l AS (SELECT m.id, m.user_id, m.access_level, m.requested_at FROM members m"
	 " WHERE m.source_type = $1 AND m.source_id = $2"
	 " AND (m.user_id = $3 OR (m.access_level = 50 AND m.requested_at IS NULL))"
	 " ORDER BY m.id FOR UPDATE)"
	 "SELECT t.id, t.requested_at IS NOT NULL, t.access_level = 50 AND t.requested_at IS NULL"
	 " AND (SELECT count(*) FROM l WHERE l.access_level = 50 AND l.requested_at IS NULL) = 1"
	 " FROM l t WHERE t.user_id = $3",
	 3, MT_NCOLS},
	/* $1 member id, $2 access level, $3 expires_at, $4 expires_at given */
	{"members_update",
	 "WITH m AS (UPDATE members SET access_level = $2, expires_at = CASE WHEN $4::boolean"
	 " THEN $3::date ELSE expires_at END, updated_at = now() WHERE id = $1 RETURNING *)"
	 "SELECT " MEMBER_COLS " FROM m JOIN users u ON u.id = m.user_id",
	 4, MEMBER_NCOLS},
	{"members_delete", "DELETE FROM members WHERE id = $1", 1, 0},
	{NULL, NULL, 0, 0},
};

/* ---- the source: shared with access_requests.c ---- */

void member_source_of(request *r, member_source *out)
{
	memset(out, 0, sizeof(*out));
	out->project = r->project != NULL;
	if (out->project) {
		const project_scope *p = r->project;
		out->source_type = "Project";
		out->id = p->id;
		out->ns_owner_id = p->ns_owner_id;
		out->visibility = p->visibility;
		out->request_access_enabled = p->request_access_enabled;
		out->pa = p->pa;
	} else {
		const group_scope *g = r->group;
		out->source_type = "Namespace";
		out->id = g->id;
		out->visibility = g->visibility;
		out->request_access_enabled = g->request_access_enabled;
		out->ga = g->ga;
	}
}

bool member_source_can_admin(const member_source *s)
{
	return s->project ? can_admin_project_members(&s->pa) : can_admin_group(&s->ga);
}

int member_source_event(request *r, const member_source *s, const char *user_id, bool joined)
{
	if (!s->project || (s->ns_owner_id && strcmp(s->ns_owner_id, user_id) == 0))
		return 0;
	const char *action = joined ? "joined" : "left";
	return events_record(r, s->id, user_id, action, action, NULL, NULL, NULL, NULL);
}

int member_user_id(request *r, const char **out)
{
	long long id;
	int rc = param_int(r, "user_id", &id);
	if (rc == 1)
		return fail_missing(r, "user_id");
	if (rc < 0)
		return rc;
	*out = arena_printf(r->ctx.a, "%lld", id);
	return 0;
}

int member_target(request *r, const char **user_id, member_source *s)
{
	int rc = member_user_id(r, user_id);
	if (rc < 0)
		return rc;
	member_source_of(r, s);
	return 0;
}

int member_access_level(request *r, const member_source *s, const char **out)
{
	long long level;
	int rc = param_int(r, "access_level", &level);
	if (rc != 0)
		return rc;
	*out = param_str(r, "access_level");
	if (access_level_parse(*out, !s->project) == 0)
		return fail_validation(r, "access_level", "is not included in the list");
	return 0;
}

/* ---- members ---- */

static bool is_caller(request *r, const char *user_id)
{
	return strcmp(api_caller_id(r), user_id) == 0;
}

/* The membership attributes of POST and PUT, checked after the source and the caller's
 * right to change it (as GitLab validates the member record): access_level (required)
 * and expires_at, a date that is not in the past, or empty to clear it (PUT). */
static int read_member_input(request *r, const member_source *s, const char **level,
			     const char **expires_at, bool *expires_given)
{
	int rc = member_access_level(r, s, level);
	if (rc == 1)
		return fail_missing(r, "access_level");
	if (rc == ERR_INVALID)
		return rc;
	*expires_at = NULL;
	*expires_given = false;
	const char *e = param_str(r, "expires_at");
	if (e && *e) {
		char today[11];
		time_t now = time(NULL);
		struct tm tm;
		strftime(today, sizeof(today), "%Y-%m-%d", gmtime_r(&now, &tm));
		if (strcmp(e, today) < 0)
			fail_validation(r, "expires_at", "cannot be a date in the past");
		*expires_at = e;
	}
	*expires_given = e != NULL;
	return r->validation ? ERR_VALIDATION : 0;
}

/* The types GitLab's parameter declarations check before anything else: user_id and
 * access_level integers, expires_at a date. */
static int check_types(request *r, const char **user_id)
{
	long long n;
	int rc = member_user_id(r, user_id);
	if (rc < 0)
		return rc;
	if ((rc = param_int(r, "access_level", &n)) == 1)
		return fail_missing(r, "access_level");
	if (rc < 0)
		return rc;
	const char *e = param_str(r, "expires_at"), *date;
	if (e && *e && (rc = param_date(r, "expires_at", &date)) < 0)
		return rc;
	return 0;
}

/* The target of POST and PUT (check_types), in a source the caller may administer: 0,
 * ERR_FORBIDDEN, or the types' error. */
static int admin_target(request *r, const char **user_id, member_source *s)
{
	int rc = check_types(r, user_id);
	if (rc < 0)
		return rc;
	member_source_of(r, s);
	return member_source_can_admin(s) ? 0 : ERR_FORBIDDEN;
}

static int members_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	member_source s;
	member_source_of(r, &s);
	const char *query = param_str(r, "query");
	const char *v[] = {[ML_SOURCE_TYPE] = s.source_type,
			   [ML_SOURCE_ID] = s.id,
			   [ML_QUERY] = query && *query ? query : NULL,
			   [ML_LIMIT] = pagination_limit(r, &pg),
			   [ML_OFFSET] = pagination_offset(r, &pg)};
	DB_PARAMS(v, ML_NPARAMS);
	return api_page(r, &pg, "members_list", ML_NPARAMS, v, entity_member);
}

int members_check_user(request *r)
{
	const char *user_id;
	return member_user_id(r, &user_id);
}

static int members_show(request *r)
{
	const char *user_id;
	member_source s;
	int rc = member_target(r, &user_id, &s);
	if (rc < 0)
		return rc;
	const char *v[3] = {s.source_type, s.id, user_id};
	PGresult *res;
	if ((rc = api_find(r, "members_show", 3, v, "Member", &res)) < 0)
		return rc;
	respond_json(r, 200, entity_member(&r->ctx, res, 0, 0));
	return 0;
}

static int members_check(request *r)
{
	const char *user_id;
	return check_types(r, &user_id);
}

static int members_add(request *r)
{
	const char *user_id, *level, *expires_at;
	member_source s;
	int rc = admin_target(r, &user_id, &s);
	if (rc < 0)
		return rc;
	bool expires_given;
	if ((rc = read_member_input(r, &s, &level, &expires_at, &expires_given)) < 0)
		return rc;
	const char *v[] = {[MI_SOURCE_TYPE] = s.source_type,
			   [MI_SOURCE_ID] = s.id,
			   [MI_USER] = user_id,
			   [MI_LEVEL] = level,
			   [MI_EXPIRES_AT] = expires_at,
			   [MI_CREATED_BY] = api_caller_id(r)};
	DB_PARAMS(v, MI_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx, "members_insert", MI_NPARAMS, v, &err);
	if (!res)
		return err == ERR_CONFLICT ? fail(r, ERR_CONFLICT, "Member already exists") : err;
	if (db_int(res, 0, MI_USER_EXISTS) == 0)
		return fail_not_found(r, "User");
	if (PQgetisnull(res, 0, MI_MEMBER))
		return fail(r, ERR_CONFLICT, "Member already exists");
	if ((rc = member_source_event(r, &s, user_id, true)) < 0 ||
	    (rc = hooks_system_member(&r->ctx, s.project, true, s.id, user_id)) < 0)
		return rc;
	respond_json(r, 201, entity_member(&r->ctx, res, 0, MI_MEMBER));
	return 0;
}

/* The member of :user_id, locked for the change: its id and whether it is the last owner
 * of a group. ERR_NOT_FOUND when the user is no member (a pending request is none). */
static int lock_member(request *r, const member_source *s, const char *user_id,
		       const char **member_id, bool *last_owner)
{
	const char *v[3] = {s->source_type, s->id, user_id};
	int err;
	PGresult *res = db_query(&r->ctx, "members_target", 3, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0 || db_bool(res, 0, MT_REQUEST))
		return fail_not_found(r, "Member");
	*member_id = db_val(res, 0, MT_ID);
	*last_owner = !s->project && db_bool(res, 0, MT_LAST_OWNER);
	return 0;
}

static bool target_is_ns_owner(const member_source *s, const char *user_id)
{
	return s->project && s->ns_owner_id && strcmp(s->ns_owner_id, user_id) == 0;
}

static int members_update(request *r)
{
	const char *user_id, *member_id, *level, *expires_at;
	member_source s;
	int rc = admin_target(r, &user_id, &s);
	if (rc < 0)
		return rc;
	bool last_owner, expires_given;
	if ((rc = lock_member(r, &s, user_id, &member_id, &last_owner)) < 0)
		return rc;
	bool allowed = s.project ? can_update_project_member(&s.pa, target_is_ns_owner(&s, user_id))
				 : can_update_group_member(&s.ga, last_owner);
	if (!allowed)
		return ERR_FORBIDDEN;
	if ((rc = read_member_input(r, &s, &level, &expires_at, &expires_given)) < 0)
		return rc;
	const char *v[4] = {member_id, level, expires_at, expires_given ? "true" : "false"};
	int err;
	PGresult *res = db_query(&r->ctx, "members_update", 4, v, &err);
	if (!res)
		return err;
	respond_json(r, 200, entity_member(&r->ctx, res, 0, 0));
	return 0;
}

static int members_remove(request *r)
{
	const char *user_id, *member_id;
	member_source s;
	int rc = member_target(r, &user_id, &s);
	if (rc < 0)
		return rc;
	bool last_owner;
	if ((rc = lock_member(r, &s, user_id, &member_id, &last_owner)) < 0)
		return rc;
	bool self = is_caller(r, user_id);
	bool allowed =
		s.project ? can_destroy_project_member(&s.pa, target_is_ns_owner(&s, user_id), self)
			  : can_destroy_group_member(&s.ga, last_owner, self);
	if (!allowed)
		return ERR_FORBIDDEN;
	const char *v[1] = {member_id};
	int err;
	if ((rc = hooks_system_member(&r->ctx, s.project, false, s.id, user_id)) < 0)
		return rc;
	if (!db_query(&r->ctx, "members_delete", 1, v, &err))
		return err;
	if ((rc = member_source_event(r, &s, user_id, false)) < 0)
		return rc;
	respond_empty(r, 204);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route members_routes[] = {
	{"GET", V4 "/projects/:id/members", members_list, AUTH | PR, NULL},
	{"GET", V4 "/projects/:id/members/:user_id", members_show, AUTH | PR, members_check_user},
	{"POST", V4 "/projects/:id/members", members_add, AUTH | PW, members_check},
	{"PUT", V4 "/projects/:id/members/:user_id", members_update, AUTH | PW, members_check},
	{"DELETE", V4 "/projects/:id/members/:user_id", members_remove, AUTH | PW,
	 members_check_user},
	{"GET", V4 "/groups/:id/members", members_list, AUTH | GR, NULL},
	{"GET", V4 "/groups/:id/members/:user_id", members_show, AUTH | GR, members_check_user},
	{"POST", V4 "/groups/:id/members", members_add, AUTH | GW, members_check},
	{"PUT", V4 "/groups/:id/members/:user_id", members_update, AUTH | GW, members_check},
	{"DELETE", V4 "/groups/:id/members/:user_id", members_remove, AUTH | GW,
	 members_check_user},
	{NULL, NULL, NULL, 0, NULL},
};
