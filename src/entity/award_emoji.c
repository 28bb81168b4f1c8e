#include "entity/award_emoji.h"

#include "db/db.h"
#include "entity/entity.h"
#include "entity/user.h"
#include "core/deps.h"

json_object *entity_award_emoji(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* award emoji have no key in the response cache */
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "name", db_val(res, row, col + 1));
	json_object_object_add(o, "user", entity_user(c, res, row, col + 6, USER_VIEW_BASIC));
	json_put_str(o, "created_at", db_val(res, row, col + 2));
	json_put_str(o, "updated_at", db_val(res, row, col + 3));
	json_put_int_or_null(o, "awardable_id", db_val(res, row, col + 4));
	json_put_str(o, "awardable_type", db_val(res, row, col + 5));
	return o;
}
