#include "entity/email.h"

#include "core/deps.h"
#include "db/db.h"
#include "entity/entity.h"

json_object *entity_email(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* emails have no key in the response cache */
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "email", db_val(res, row, col + 1));
	return o;
}
