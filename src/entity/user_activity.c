#include "entity/user_activity.h"

#include "core/deps.h"
#include "db/db.h"
#include "entity/entity.h"

json_object *entity_user_activity(ctx *c, const PGresult *res, int row, int col)
{
	/* a day's first activity bumps only its user's key, and a user entering the list
	 * no set: no cached copy could know */
	deps_none(c);
	json_object *o = json_object_new_object();
	json_put_str(o, "username", db_val(res, row, col));
	json_put_str(o, "last_activity_on", db_val(res, row, col + 1));
	json_put_str(o, "last_activity_at", db_val(res, row, col + 1));
	return o;
}
