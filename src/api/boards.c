/* Issue boards (spec 4.10: GitLab 10's lib/api/boards.rb). A project has one board,
 * made the first time its boards are listed, as GitLab 10's Boards::ListService did,
 * with the backlog and closed lists that the API never shows; the lists shown are those
 * of labels, at positions 0..n-1, kept so when one is added (last), moved or removed
 * (with its label too). Anyone who sees the project reads them; reporters and up add
 * and move lists (ProjectPolicy's admin_list); masters and up remove them, as the spec
 * says. The writing routes lock the project, so positions never race. */
#include <string.h>

#include "api/api.h"
#include "entity/board.h"
#include "entity/entity.h"

/* boards_page's rows: the count of all, then a board of the page (NULL for none) */
enum { BP_TOTAL, BP_ID, BP_NCOLS };

const db_stmt boards_stmts[] = {
	/* $1 project, $2 limit, $3 offset */
	{"boards_page",
	 "SELECT (SELECT count(*) FROM boards WHERE project_id = $1), x.id FROM (SELECT 1) one"
	 " LEFT JOIN LATERAL (SELECT b.id FROM boards b WHERE b.project_id = $1 ORDER BY b.id"
	 " LIMIT $2 OFFSET $3) x ON true",
	 3, BP_NCOLS},
	/* $1 boards (bigint[]): their label lists, by board and position */
	{"boards_lists",
	 "SELECT bl.board_id, " BOARD_LIST_COLS " FROM board_lists bl JOIN labels l"
	 " ON l.id = bl.label_id WHERE bl.board_id = ANY ($1::bigint[]) AND bl.list_type = 1"
	 " ORDER BY bl.board_id, bl.position",
	 1, 1 + BOARD_LIST_NCOLS},
	/* the project's row, locked: one default board however many ask at once */
	{"boards_lock", "SELECT id FROM projects WHERE id = $1 FOR UPDATE", 1, 1},
	{"boards_create_default",
	 "WITH b AS (INSERT INTO boards (project_id) SELECT $1 WHERE NOT EXISTS"
	 " (SELECT 1 FROM boards WHERE project_id = $1) RETURNING id),"
	 " l AS (INSERT INTO board_lists (board_id, list_type) SELECT b.id, t.type FROM b,"
	 " (VALUES (0::smallint), (2::smallint)) t(type))"
	 " SELECT count(*) FROM b",
	 1, 1},
	{"boards_find", "SELECT id FROM boards WHERE id = $2 AND project_id = $1", 2, 1},
	/* $1 board, $2 limit, $3 offset */
	{"boards_lists_page",
	 "SELECT (SELECT count(*) FROM board_lists WHERE board_id = $1 AND list_type = 1), x.*"
	 " FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " BOARD_LIST_COLS " FROM board_lists bl"
	 " JOIN labels l ON l.id = bl.label_id WHERE bl.board_id = $1 AND bl.list_type = 1"
	 " ORDER BY bl.position LIMIT $2 OFFSET $3) x ON true",
	 3, 1 + BOARD_LIST_NCOLS},
	/* $1 board, $2 list: a label list, and how many label lists the board has */
	{"boards_list_show",
	 "SELECT " BOARD_LIST_COLS ", (SELECT count(*) FROM board_lists c WHERE c.board_id = $1"
	 " AND c.list_type = 1) FROM board_lists bl JOIN labels l ON l.id = bl.label_id"
	 " WHERE bl.id = $2 AND bl.board_id = $1 AND bl.list_type = 1",
	 2, BOARD_LIST_NCOLS + 1},
	/* $1 project, $2 label: whether the project may use it */
	{"boards_label_available",
	 "SELECT EXISTS (SELECT 1 FROM (" SQL_AVAILABLE_LABELS("$1::bigint",
							       "NULL::bigint") ") l"
									       " WHERE l.id = $2)",
	 2, 1},
	/* $1 board, $2 label: a new list, last; no row when the label has one */
	{"boards_list_insert",
	 "INSERT INTO board_lists (board_id, label_id, list_type, position)"
	 " SELECT $1, $2, 1, coalesce(max(position) + 1, 0) FROM board_lists"
	 " WHERE board_id = $1 AND list_type = 1 ON CONFLICT DO NOTHING RETURNING id",
	 2, 1},
	/* $1 board, $2 list, $3 its position, $4 the new one: the lists between move by
	 * one */
	{"boards_list_move",
	 "UPDATE board_lists SET updated_at = now(), position = CASE WHEN id = $2 THEN $4::int"
	 " WHEN $3::int < $4::int THEN position - 1 ELSE position + 1 END"
	 " WHERE board_id = $1 AND list_type = 1 AND (id = $2"
	 " OR position BETWEEN least($3::int, $4::int) AND greatest($3::int, $4::int))",
	 4, 0},
	/* $1 board, $2 list: removed, the lists after it moved up one */
	{"boards_list_delete",
	 "WITH d AS (DELETE FROM board_lists WHERE id = $2 AND board_id = $1 AND list_type = 1"
	 " RETURNING position), s AS (UPDATE board_lists b SET position = b.position - 1,"
	 " updated_at = now() FROM d WHERE b.board_id = $1 AND b.list_type = 1"
	 " AND b.position > d.position) SELECT count(*) FROM d",
	 2, 1},
	{NULL, NULL, 0, 0},
};

/* GitLab's render_api_error!({error: message}, 400). */
static int board_error(request *r, const char *message)
{
	json_object *o = json_object_new_object(), *m = json_object_new_object();
	json_put_str(m, "error", message);
	json_object_object_add(o, "message", m);
	respond_json(r, 400, o);
	return 0;
}

/* The project's default board, made (with its backlog and closed lists) when it has
 * none, in a transaction of its own. */
static int ensure_board(request *r)
{
	const char *v[1] = {r->project->id};
	int err, rc = db_begin(&r->ctx);
	if (rc < 0)
		return rc;
	if (!db_query(&r->ctx, "boards_lock", 1, v, &err) ||
	    !db_query(&r->ctx, "boards_create_default", 1, v, &err)) {
		db_rollback(&r->ctx);
		return err;
	}
	return db_commit(&r->ctx);
}

static int boards_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	const char *v[3] = {r->project->id, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	int err;
	PGresult *res = db_query(&r->ctx, "boards_page", 3, v, &err);
	if (!res)
		return err;
	if (db_int(res, 0, BP_TOTAL) == 0) {
		if ((rc = ensure_board(r)) < 0)
			return rc;
		if (!(res = db_query(&r->ctx, "boards_page", 3, v, &err)))
			return err;
	}
	int n = PQntuples(res) == 1 && PQgetisnull(res, 0, BP_ID) ? 0 : PQntuples(res);
	const char **ids = arena_alloc(r->ctx.a, (size_t)(n + 1) * sizeof(*ids));
	for (int i = 0; i < n; i++)
		ids[i] = db_val(res, i, BP_ID);
	buf b;
	buf_init(&b, r->ctx.a, 64);
	buf_putc(&b, '{');
	for (int i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? "," : "", ids[i]);
	buf_putc(&b, '}');
	const char *lv[1] = {buf_cstr(&b)};
	PGresult *lists = db_query(&r->ctx, "boards_lists", 1, lv, &err);
	if (!lists)
		return err;
	json_object *out = json_object_new_array();
	int row = 0, nl = PQntuples(lists);
	for (int i = 0; i < n; i++) {
		long long id = db_int(res, i, 1);
		int from = row;
		while (row < nl && db_int(lists, row, 0) == id)
			row++;
		json_object_array_add(out, entity_board(&r->ctx, id, lists, from, row, 1));
	}
	pagination_headers(r, &pg, db_int(res, 0, 0));
	respond_json(r, 200, out);
	return 0;
}

/* :board_id is the project's board: 0 or 404 Board Not Found. */
static int find_board(request *r)
{
	const char *v[2] = {r->project->id, param_str(r, "board_id")};
	int err;
	PGresult *res = db_query(&r->ctx, "boards_find", 2, v, &err);
	if (!res)
		return err;
	return PQntuples(res) ? 0 : fail_not_found(r, "Board");
}

/* The label list :list_id of the board: 0 with its row (and the board's number of
 * label lists after its columns), or 404 List Not Found. */
static int find_list(request *r, PGresult **out)
{
	const char *v[2] = {param_str(r, "board_id"), param_str(r, "list_id")};
	int err;
	PGresult *res = db_query(&r->ctx, "boards_list_show", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_not_found(r, "List");
	*out = res;
	return 0;
}

static int boards_check_board(request *r)
{
	const char *id;
	return api_id(r, "board_id", &id);
}

static int boards_check_list(request *r)
{
	const char *id;
	int rc = api_id(r, "board_id", &id);
	return rc < 0 ? rc : api_id(r, "list_id", &id);
}

static int boards_lists(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = find_board(r)) < 0)
		return rc;
	const char *v[3] = {param_str(r, "board_id"), pagination_limit(r, &pg),
			    pagination_offset(r, &pg)};
	int err;
	PGresult *res = db_query(&r->ctx, "boards_lists_page", 3, v, &err);
	if (!res)
		return err;
	api_respond_page(r, &pg, res, entity_board_list);
	return 0;
}

static int boards_list_show(request *r)
{
	PGresult *res;
	int rc = find_board(r);
	if (rc < 0 || (rc = find_list(r, &res)) < 0)
		return rc;
	respond_json(r, 200, entity_board_list(&r->ctx, res, 0, 0));
	return 0;
}

static int boards_check_create(request *r)
{
	const char *id;
	int rc = api_id(r, "board_id", &id);
	return rc < 0 ? rc : api_id(r, "label_id", &id);
}

static int boards_list_create(request *r)
{
	const char *v[2] = {r->project->id, param_str(r, "label_id")};
	int err;
	PGresult *res = db_query(&r->ctx, "boards_label_available", 2, v, &err);
	if (!res)
		return err;
	if (!db_bool(res, 0, 0))
		return board_error(r, "Label not found!");
	if (project_ability_level(&r->project->pa) < ACCESS_REPORTER)
		return ERR_FORBIDDEN;
	int rc = find_board(r);
	if (rc < 0)
		return rc;
	v[0] = param_str(r, "board_id");
	if (!(res = db_query(&r->ctx, "boards_list_insert", 2, v, &err)))
		return err;
	if (PQntuples(res) == 0)
		return fail_validation(r, "label_id", "has already been taken");
	const char *sv[2] = {v[0], db_val(res, 0, 0)};
	if (!(res = db_query(&r->ctx, "boards_list_show", 2, sv, &err)))
		return err;
	respond_json(r, 201, entity_board_list(&r->ctx, res, 0, 0));
	return 0;
}

static int boards_check_move(request *r)
{
	long long pos;
	int rc = boards_check_list(r);
	if (rc < 0)
		return rc;
	if ((rc = param_int(r, "position", &pos)) == 1)
		return fail_missing(r, "position");
	return rc < 0 ? rc : 0;
}

static int boards_list_move(request *r)
{
	PGresult *res;
	int rc = find_board(r);
	if (rc < 0 || (rc = find_list(r, &res)) < 0)
		return rc;
	if (project_ability_level(&r->project->pa) < ACCESS_REPORTER)
		return ERR_FORBIDDEN;
	long long to;
	param_int(r, "position", &to);
	long long from = db_int(res, 0, 1), count = db_int(res, 0, BOARD_LIST_NCOLS);
	if (to == from || to < 0 || to >= count)
		return board_error(r, "List could not be moved!");
	const char *v[4] = {param_str(r, "board_id"), db_val(res, 0, 0), db_val(res, 0, 1),
			    arena_printf(r->ctx.a, "%lld", to)};
	int err;
	if (!db_query(&r->ctx, "boards_list_move", 4, v, &err))
		return err;
	if ((rc = find_list(r, &res)) < 0)
		return rc;
	respond_json(r, 200, entity_board_list(&r->ctx, res, 0, 0));
	return 0;
}

static int boards_list_delete(request *r)
{
	if (project_ability_level(&r->project->pa) < ACCESS_MASTER)
		return ERR_FORBIDDEN;
	PGresult *res;
	int rc = find_board(r);
	if (rc < 0 || (rc = find_list(r, &res)) < 0)
		return rc;
	const char *v[2] = {param_str(r, "board_id"), db_val(res, 0, 0)};
	int err;
	if (!db_query(&r->ctx, "boards_list_delete", 2, v, &err))
		return err;
	respond_empty(r, 204);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route boards_routes[] = {
	/* on the primary: the first list makes the default board */
	{"GET", V4 "/projects/:id/boards", boards_list, AUTH | PR | ROUTE_PRIMARY, NULL},
	{"GET", V4 "/projects/:id/boards/:board_id/lists", boards_lists, AUTH | PR,
	 boards_check_board},
	{"GET", V4 "/projects/:id/boards/:board_id/lists/:list_id", boards_list_show, AUTH | PR,
	 boards_check_list},
	{"POST", V4 "/projects/:id/boards/:board_id/lists", boards_list_create, AUTH | PW,
	 boards_check_create},
	{"PUT", V4 "/projects/:id/boards/:board_id/lists/:list_id", boards_list_move, AUTH | PW,
	 boards_check_move},
	{"DELETE", V4 "/projects/:id/boards/:board_id/lists/:list_id", boards_list_delete,
	 AUTH | PW, boards_check_list},
	{NULL, NULL, NULL, 0, NULL},
};
