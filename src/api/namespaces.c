/* Namespaces: GET /namespaces and GET /namespaces/:id (GitLab 10.0). A namespace is a
 * user's own (kind 'user') or a group. */
#include <string.h>

#include "api/api.h"
#include "auth/access.h"
#include "entity/group.h"

/* members_count_with_descendants is for those who administer the group. */
#define NS_COLS NAMESPACE_COLS("(me.admin OR " SQL_GROUP_ACCESS("n") " >= 50)")

/* A page of the namespaces of from (a FROM list that yields namespaces n), by id; $4 search,
 * $5 limit, $6 offset. */
#define NAMESPACES_LIST(from)                                                                                       \
	"WITH " SQL_ME ", f AS NOT MATERIALIZED (SELECT n.id FROM " from                                            \
	" WHERE $4::text IS NULL OR n.name ILIKE " SQL_LIKE("$4") " OR n.path ILIKE " SQL_LIKE(                     \
		"$4") ")"                                                                                           \
		      "SELECT (SELECT count(*) FROM f), x.* FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " NS_COLS \
		      " FROM (SELECT id FROM f ORDER BY id LIMIT $5 OFFSET $6) pg"                                  \
		      " CROSS JOIN LATERAL (SELECT * FROM namespaces WHERE id = pg.id OFFSET 0) n CROSS JOIN me"    \
		      " ORDER BY n.id) x ON true"

enum { NL_SEARCH = ME_NPARAMS, NL_LIMIT, NL_OFFSET, NL_NPARAMS };
enum { NS_ID = ME_NPARAMS, NS_PATH, NS_NPARAMS };
/* namespaces_show's row: the namespace, then whether the caller may see it */
enum { NS_VISIBLE = NAMESPACE_NCOLS, NS_NCOLS };

const db_stmt namespaces_stmts[] = {
	/* admins: every namespace */
	{"namespaces_list_all", NAMESPACES_LIST("namespaces n"), NL_NPARAMS, 1 + NAMESPACE_NCOLS},
	/* GitLab 10's User#namespaces: the caller's own and the groups they are a member of */
	{"namespaces_list_mine",
	 NAMESPACES_LIST(
		 "(SELECT o.id FROM me JOIN namespaces o ON o.owner_id = me.id"
		 " AND o.kind = 'user' UNION ALL SELECT m.source_id FROM me JOIN members m"
		 " ON m.user_id = me.id AND m.source_type = 'Namespace'"
		 " AND " SQL_MEMBER_ACTIVE("m") ") mine CROSS JOIN LATERAL (SELECT * FROM"
						" namespaces WHERE id = mine.id OFFSET 0) n"),
	 NL_NPARAMS, 1 + NAMESPACE_NCOLS},
	/* One namespace by id ($4) or full path ($5), and whether the caller may see it: their
	 * own, a group they may see, or any for admins. */
	{"namespaces_show",
	 "WITH " SQL_ME " SELECT " NS_COLS ", me.admin OR n.owner_id = me.id OR (n.kind = 'group'"
	 " AND " SQL_GROUP_VISIBLE(
		 "n") ") FROM me, namespaces n"
		      " WHERE n.id = $4::bigint OR lower(n.full_path) = lower($5::text)",
	 NS_NPARAMS, NS_NCOLS},
	{NULL, NULL, 0, 0},
};

static json_object *present(ctx *c, const PGresult *res, int row, int col)
{
	return entity_namespace(c, res, row, col);
}

static int namespaces_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	const char *search = param_str(r, "search");
	const char *v[] = {[NL_SEARCH] = search && *search ? search : NULL,
			   [NL_LIMIT] = pagination_limit(r, &pg),
			   [NL_OFFSET] = pagination_offset(r, &pg)};
	DB_PARAMS(v, NL_NPARAMS);
	access_me_params(&r->ctx, v);
	int err;
	PGresult *res = db_query(
		&r->ctx, r->ctx.user->admin ? "namespaces_list_all" : "namespaces_list_mine",
		NL_NPARAMS, v, &err);
	if (!res)
		return err;
	api_respond_page(r, &pg, res, present);
	return 0;
}

static int namespaces_show(request *r)
{
	const char *ref = param_str(r, "id");
	size_t n = strlen(ref);
	bool digits = n > 0 && n <= 18 && strspn(ref, "0123456789") == n;
	const char *v[] = {[NS_ID] = digits ? ref : NULL, [NS_PATH] = digits ? NULL : ref};
	DB_PARAMS(v, NS_NPARAMS);
	access_me_params(&r->ctx, v);
	int err;
	PGresult *res = db_query(&r->ctx, "namespaces_show", NS_NPARAMS, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0 || !db_bool(res, 0, NS_VISIBLE))
		return fail_not_found(r, "Namespace");
	respond_json(r, 200, entity_namespace(&r->ctx, res, 0, 0));
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route namespaces_routes[] = {
	{"GET", V4 "/namespaces", namespaces_list, AUTH, NULL},
	{"GET", V4 "/namespaces/:id", namespaces_show, AUTH, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
