#include "entity/broadcast_message.h"

#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

json_object *entity_broadcast_message(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* active follows the clock; messages have no key */
	json_object *o = json_object_new_object();
	json_put_str(o, "message", db_val(res, row, col + 1));
	json_put_str(o, "starts_at", db_val(res, row, col + 2));
	json_put_str(o, "ends_at", db_val(res, row, col + 3));
	json_put_str(o, "color", db_val(res, row, col + 4));
	json_put_str(o, "font", db_val(res, row, col + 5));
	json_put_int(o, "id", db_int(res, row, col));
	json_put_bool(o, "active", db_bool(res, row, col + 6));
	return o;
}
