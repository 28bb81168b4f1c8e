#include "entity/environment.h"

#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

json_object *entity_environment(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* environments have no key in the response cache */
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "name", db_val(res, row, col + 1));
	json_put_str(o, "slug", db_val(res, row, col + 2));
	json_put_str(o, "external_url", db_val(res, row, col + 3));
	return o;
}
