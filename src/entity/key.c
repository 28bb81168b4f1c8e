#include "entity/key.h"

#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

json_object *entity_key(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* SSH keys have no key in the response cache */
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "title", db_val(res, row, col + 1));
	json_put_str(o, "key", db_val(res, row, col + 2));
	json_put_str(o, "created_at", db_val(res, row, col + 3));
	return o;
}

json_object *entity_deploy_key(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = entity_key(c, res, row, col);
	json_put_bool(o, "can_push", db_bool(res, row, col + KEY_NCOLS));
	return o;
}
