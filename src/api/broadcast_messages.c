/* Broadcast messages (admin only). */
#include <string.h>

#include "api/api.h"
#include "core/validate.h"
#include "entity/broadcast_message.h"
#include "http/pagination.h"

/* broadcast_insert's parameters; broadcast_update's follow its id */
enum { BM_MESSAGE, BM_STARTS_AT, BM_ENDS_AT, BM_COLOR, BM_FONT, BM_NPARAMS };
enum { BU_ID, BU_INPUT, BU_NPARAMS = BU_INPUT + BM_NPARAMS };

const db_stmt broadcast_messages_stmts[] = {
	{"broadcast_list",
	 "SELECT (SELECT count(*) FROM broadcast_messages), p.* FROM (SELECT 1) one"
	 " LEFT JOIN LATERAL (SELECT " BROADCAST_COLS " FROM broadcast_messages b ORDER BY b.id"
	 " LIMIT $1 OFFSET $2) p ON true",
	 2, 1 + BROADCAST_NCOLS},
	{"broadcast_show", "SELECT " BROADCAST_COLS " FROM broadcast_messages b WHERE b.id = $1", 1,
	 BROADCAST_NCOLS},
	/* $1 message, $2 starts_at, $3 ends_at, $4 color, $5 font */
	{"broadcast_insert",
	 "INSERT INTO broadcast_messages AS b (message, starts_at, ends_at, color, font)"
	 " SELECT $1, s, coalesce($3::timestamptz, s + interval '1 hour'),"
	 " coalesce($4, '#E75E40'), coalesce($5, '#FFFFFF')"
	 " FROM coalesce($2::timestamptz, now()) s"
	 " WHERE coalesce($3::timestamptz, s + interval '1 hour') >= s RETURNING " BROADCAST_COLS,
	 BM_NPARAMS, BROADCAST_NCOLS},
	/* $1 id, then as insert; NULL keeps the value; ends before starts: no row */
	{"broadcast_update",
	 "WITH cur AS (SELECT * FROM broadcast_messages WHERE id = $1 FOR UPDATE),"
	 " u AS (UPDATE broadcast_messages AS b SET message = coalesce($2, cur.message),"
	 " starts_at = coalesce($3::timestamptz, cur.starts_at),"
	 " ends_at = coalesce($4::timestamptz, cur.ends_at), color = coalesce($5, cur.color),"
	 " font = coalesce($6, cur.font), updated_at = now() FROM cur WHERE b.id = cur.id"
	 " AND coalesce($4::timestamptz, cur.ends_at) >= coalesce($3::timestamptz, cur.starts_at)"
	 " RETURNING " BROADCAST_COLS ")"
	 "SELECT u.* FROM cur LEFT JOIN u ON true",
	 BU_NPARAMS, BROADCAST_NCOLS},
	{"broadcast_delete", "DELETE FROM broadcast_messages WHERE id = $1 RETURNING id", 1, 1},
	{NULL, NULL, 0, 0},
};

static int broadcast_messages_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	const char *v[2] = {pagination_limit(r, &pg), pagination_offset(r, &pg)};
	return api_page(r, &pg, "broadcast_list", 2, v, entity_broadcast_message);
}

/* Runs stmt on message :id: 0 with its row, 404 Broadcast Message, or an ERR_ code. */
static int find_message(request *r, const char *stmt, PGresult **out)
{
	const char *id;
	int rc = api_id(r, "id", &id);
	return rc < 0 ? rc : api_find(r, stmt, 1, &id, "Broadcast Message", out);
}

static int broadcast_messages_show(request *r)
{
	PGresult *res;
	int rc = find_message(r, "broadcast_show", &res);
	if (rc < 0)
		return rc;
	respond_json(r, 200, entity_broadcast_message(&r->ctx, res, 0, 0));
	return 0;
}

/* message, starts_at, ends_at, color, font: checked the same way for create and edit. */
static int read_input(request *r, const char **v, bool create)
{
	int rc;
	if (create && (rc = param_require(r, "message", &v[BM_MESSAGE])) < 0)
		return rc;
	if ((rc = param_datetime(r, "starts_at", &v[BM_STARTS_AT])) < 0 ||
	    (rc = param_datetime(r, "ends_at", &v[BM_ENDS_AT])) < 0)
		return rc;
	param_text(r, "message", 65535, &v[BM_MESSAGE]);
	if (v[BM_MESSAGE] && !*v[BM_MESSAGE])
		fail_validation(r, "message", "can't be blank");
	static const char *colors[] = {"color", "font"};
	for (int i = 0; i < 2; i++) {
		const char *c = param_str(r, colors[i]);
		if (c && *c && !valid_hex_color(c)) /* GitLab: allow_blank */
			fail_validation(r, colors[i], "must be a valid color code");
		v[BM_COLOR + i] = c;
	}
	return r->validation ? ERR_VALIDATION : 0;
}

static int broadcast_messages_create(request *r)
{
	const char *v[BM_NPARAMS] = {0};
	DB_PARAMS(v, BM_NPARAMS);
	int rc = read_input(r, v, true);
	if (rc < 0)
		return rc;
	int err;
	PGresult *res = db_query(&r->ctx, "broadcast_insert", BM_NPARAMS, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_validation(r, "ends_at", "must be after starts_at");
	respond_json(r, 201, entity_broadcast_message(&r->ctx, res, 0, 0));
	return 0;
}

static int broadcast_messages_update(request *r)
{
	const char *v[BU_NPARAMS] = {0};
	DB_PARAMS(v, BU_NPARAMS);
	int rc = api_id(r, "id", &v[BU_ID]);
	if (rc < 0 || (rc = read_input(r, v + BU_INPUT, false)) < 0)
		return rc;
	PGresult *res;
	if ((rc = api_find(r, "broadcast_update", BU_NPARAMS, v, "Broadcast Message", &res)) < 0)
		return rc;
	if (PQgetisnull(res, 0, 0))
		return fail_validation(r, "ends_at", "must be after starts_at");
	respond_json(r, 200, entity_broadcast_message(&r->ctx, res, 0, 0));
	return 0;
}

static int broadcast_messages_delete(request *r)
{
	PGresult *res;
	int rc = find_message(r, "broadcast_delete", &res);
	if (rc < 0)
		return rc;
	respond_empty(r, 204);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route broadcast_messages_routes[] = {
	{"GET", V4 "/broadcast_messages", broadcast_messages_list, ADMIN, NULL},
	{"GET", V4 "/broadcast_messages/:id", broadcast_messages_show, ADMIN, NULL},
	{"POST", V4 "/broadcast_messages", broadcast_messages_create, ADMIN, NULL},
	{"PUT", V4 "/broadcast_messages/:id", broadcast_messages_update, ADMIN, NULL},
	{"DELETE", V4 "/broadcast_messages/:id", broadcast_messages_delete, ADMIN, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
