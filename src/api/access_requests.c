/* Access requests (4.11) for projects and groups, written once for both scopes: a members
 * row with requested_at set, which approval turns into a membership. */
#include <string.h>

#include "api/api.h"
#include "entity/member.h"
#include "http/pagination.h"

/* access_requests_delete's row */
enum { ARD_REQUESTED, ARD_DELETED, ARD_NCOLS };

const db_stmt access_requests_stmts[] = {
	/* $1 source type, $2 source id, $3 limit, $4 offset; oldest request first */
	{"access_requests_list",
	 "WITH f AS NOT MATERIALIZED (SELECT m.id FROM members m WHERE m.source_type = $1"
	 " AND m.source_id = $2 AND m.requested_at IS NOT NULL)"
	 "SELECT (SELECT count(*) FROM f), p.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " MEMBER_COLS " FROM f JOIN members m ON m.id = f.id JOIN users u"
	 " ON u.id = m.user_id ORDER BY m.id LIMIT $3 OFFSET $4) p ON true",
	 4, 1 + MEMBER_NCOLS},
	/* $3 the requester; a second request violates members_source_user_key */
	{"access_requests_insert",
	 "WITH m AS (INSERT INTO members (source_type, source_id, user_id, access_level,"
	 " requested_at) VALUES ($1, $2, $3, 30, now()) RETURNING *)"
	 "SELECT " MEMBER_COLS " FROM m JOIN users u ON u.id = m.user_id",
	 3, MEMBER_NCOLS},
	/* $3 the requester, $4 the access level it gets */
	{"access_requests_approve",
	 "WITH m AS (UPDATE members SET requested_at = NULL, access_level = $4, updated_at = now()"
	 " WHERE source_type = $1 AND source_id = $2 AND user_id = $3 AND requested_at IS NOT NULL"
	 " RETURNING *)"
	 "SELECT " MEMBER_COLS " FROM m JOIN users u ON u.id = m.user_id",
	 4, MEMBER_NCOLS},
	/* $3 the requester, $4 whether the caller may deny it: whether the request exists
	 * and whether it was removed */
	{"access_requests_delete",
	 "WITH q AS (SELECT id FROM members WHERE source_type = $1 AND source_id = $2"
	 " AND user_id = $3 AND requested_at IS NOT NULL),"
	 " d AS (DELETE FROM members WHERE id IN (SELECT id FROM q) AND $4::boolean RETURNING id)"
	 "SELECT (SELECT count(*) FROM q), (SELECT count(*) FROM d)",
	 4, ARD_NCOLS},
	{NULL, NULL, 0, 0},
};

static int access_requests_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	member_source s;
	member_source_of(r, &s);
	if (!member_source_can_admin(&s))
		return ERR_FORBIDDEN;
	const char *v[4] = {s.source_type, s.id, pagination_limit(r, &pg),
			    pagination_offset(r, &pg)};
	return api_page(r, &pg, "access_requests_list", 4, v, entity_access_request);
}

static int access_requests_create(request *r)
{
	member_source s;
	member_source_of(r, &s);
	bool external = r->ctx.user->external;
	bool allowed = s.project ? can_request_project_access(&s.pa, s.visibility, external,
							      s.request_access_enabled)
				 : can_request_group_access(&s.ga, s.visibility, external,
							    s.request_access_enabled);
	if (!allowed)
		return ERR_FORBIDDEN;
	const char *v[3] = {s.source_type, s.id, api_caller_id(r)};
	int err;
	PGresult *res = db_query(&r->ctx, "access_requests_insert", 3, v, &err);
	if (!res) {
		if (err != ERR_CONFLICT)
			return err;
		r->ctx.err_detail = NULL;
		return fail_validation(r, "user_id", "already exists in source");
	}
	respond_json(r, 201, entity_access_request(&r->ctx, res, 0, 0));
	return 0;
}

static int access_requests_check_approve(request *r)
{
	const char *user_id;
	long long n;
	int rc = member_user_id(r, &user_id);
	if (rc < 0 || (rc = param_int(r, "access_level", &n)) < 0)
		return rc;
	return 0;
}

static int access_requests_approve(request *r)
{
	const char *user_id;
	long long n;
	member_source s;
	int rc = member_target(r, &user_id, &s);
	if (rc < 0 || (rc = param_int(r, "access_level", &n)) < 0)
		return rc;
	if (!member_source_can_admin(&s))
		return ERR_FORBIDDEN;
	const char *level = "30";
	if ((rc = member_access_level(r, &s, &level)) < 0)
		return rc;
	const char *v[4] = {s.source_type, s.id, user_id, level};
	int err;
	PGresult *res = db_query(&r->ctx, "access_requests_approve", 4, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_not_found(r, "Access Request");
	if ((rc = member_source_event(r, &s, user_id, true)) < 0)
		return rc;
	respond_json(r, 200, entity_access_request_approved(&r->ctx, res, 0, 0));
	return 0;
}

static int access_requests_deny(request *r)
{
	const char *user_id;
	member_source s;
	int rc = member_target(r, &user_id, &s);
	if (rc < 0)
		return rc;
	/* the requester may withdraw their own request */
	bool allowed = member_source_can_admin(&s) || strcmp(api_caller_id(r), user_id) == 0;
	const char *v[4] = {s.source_type, s.id, user_id, allowed ? "true" : "false"};
	int err;
	PGresult *res = db_query(&r->ctx, "access_requests_delete", 4, v, &err);
	if (!res)
		return err;
	if (db_int(res, 0, ARD_REQUESTED) == 0)
		return fail_not_found(r, "Access Request");
	if (!allowed)
		return ERR_FORBIDDEN;
	respond_empty(r, 204);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route access_requests_routes[] = {
	{"GET", V4 "/groups/:id/access_requests", access_requests_list, AUTH | GR, NULL},
	{"GET", V4 "/projects/:id/access_requests", access_requests_list, AUTH | PR, NULL},
	{"POST", V4 "/groups/:id/access_requests", access_requests_create, AUTH | GW, NULL},
	{"POST", V4 "/projects/:id/access_requests", access_requests_create, AUTH | PW, NULL},
	{"PUT", V4 "/groups/:id/access_requests/:user_id/approve", access_requests_approve,
	 AUTH | GW, access_requests_check_approve},
	{"PUT", V4 "/projects/:id/access_requests/:user_id/approve", access_requests_approve,
	 AUTH | PW, access_requests_check_approve},
	{"DELETE", V4 "/groups/:id/access_requests/:user_id", access_requests_deny, AUTH | GW,
	 members_check_user},
	{"DELETE", V4 "/projects/:id/access_requests/:user_id", access_requests_deny, AUTH | PW,
	 members_check_user},
	{NULL, NULL, NULL, 0, NULL},
};
