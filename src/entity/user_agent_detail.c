#include "entity/user_agent_detail.h"

#include "core/deps.h"
#include "entity/entity.h"

json_object *entity_user_agent_detail(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* admins only: never cached */
	json_object *o = json_object_new_object();
	json_put_str(o, "user_agent", db_val(res, row, col));
	json_put_str(o, "ip_address", db_val(res, row, col + 1));
	json_put_bool(o, "akismet_submitted", db_bool(res, row, col + 2));
	return o;
}
