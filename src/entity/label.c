#include "entity/label.h"

#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

json_object *entity_label_basic(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* labels have no key in the response cache */
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "name", db_val(res, row, col + 1));
	json_put_str(o, "color", db_val(res, row, col + 2));
	json_put_str(o, "description", db_val(res, row, col + 3));
	return o;
}

json_object *entity_label(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = entity_label_basic(c, res, row, col);
	json_put_int(o, "open_issues_count", db_int(res, row, col + 4));
	json_put_int(o, "closed_issues_count", db_int(res, row, col + 5));
	json_put_int(o, "open_merge_requests_count", db_int(res, row, col + 6));
	json_put_int_or_null(o, "priority", db_val(res, row, col + 7));
	json_put_bool(o, "subscribed", db_bool(res, row, col + 8));
	return o;
}
