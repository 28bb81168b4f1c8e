#include "entity/runner.h"

#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

json_object *entity_runner(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* runners have no key in the response cache */
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "description", db_val(res, row, col + 1));
	json_put_bool(o, "active", db_bool(res, row, col + 2));
	json_put_bool(o, "is_shared", db_bool(res, row, col + 3));
	json_put_str(o, "name", db_val(res, row, col + 4));
	return o;
}

json_object *entity_runner_details(ctx *c, const PGresult *res, int row, int col, bool show_token,
				   const PGresult *projects)
{
	json_object *o = entity_runner(c, res, row, col);
#define V(c) db_val(res, row, col + RUNNER_NCOLS + (c))
	json_object *tags = json_object_new_array();
	const char **t;
	int n = db_text_array(c->a, V(0), &t);
	for (int i = 0; i < n; i++)
		json_object_array_add(tags, json_object_new_string(t[i]));
	json_object_object_add(o, "tag_list", tags);
	json_put_bool(o, "run_untagged", db_bool(res, row, col + RUNNER_NCOLS + 1));
	json_put_bool(o, "locked", db_bool(res, row, col + RUNNER_NCOLS + 2));
	json_put_str(o, "version", V(3));
	json_put_str(o, "revision", V(4));
	json_put_str(o, "platform", V(5));
	json_put_str(o, "architecture", V(6));
	json_put_str(o, "contacted_at", V(7));
	if (show_token)
		json_put_str(o, "token", V(8) ? deps_open_secret(c, V(8)) : NULL);
	json_object *list = json_object_new_array();
	for (int i = 0; projects && i < PQntuples(projects); i++) {
		json_object *p = json_object_new_object();
		json_put_int(p, "id", db_int(projects, i, 0));
		json_put_str(p, "name", db_val(projects, i, 1));
		json_put_str(p, "name_with_namespace", db_val(projects, i, 2));
		json_put_str(p, "path", db_val(projects, i, 3));
		json_put_str(p, "path_with_namespace", db_val(projects, i, 4));
		json_object_array_add(list, p);
	}
	json_object_object_add(o, "projects", list);
	json_put_str(o, "access_level", V(9));
#undef V
	return o;
}
