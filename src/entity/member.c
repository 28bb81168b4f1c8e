#include "entity/member.h"

#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

enum {
	MC_ACCESS_LEVEL = 5, /* after USER_BASIC_COLS */
	MC_EXPIRES_AT,
	MC_CREATED_AT,
	MC_REQUESTED_AT,
};

json_object *entity_member(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = entity_user(c, res, row, col, USER_VIEW_BASIC);
	json_put_int(o, "access_level", db_int(res, row, col + MC_ACCESS_LEVEL));
	json_put_str(o, "expires_at", db_val(res, row, col + MC_EXPIRES_AT));
	return o;
}

/* The requester part both access request shapes share (a membership row: the user's
 * key, as for a member). */
static json_object *requester(ctx *c, const PGresult *res, int row, int col)
{
	deps_add(c, CACHE_KEY_USER(db_int(res, row, col + UC_ID)));
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col + UC_ID));
	json_put_str(o, "username", db_val(res, row, col + UC_USERNAME));
	json_put_str(o, "name", db_val(res, row, col + UC_NAME));
	json_put_str(o, "state", db_val(res, row, col + UC_STATE));
	json_put_str(o, "created_at", db_val(res, row, col + MC_CREATED_AT));
	return o;
}

json_object *entity_access_request(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = requester(c, res, row, col);
	json_put_str(o, "requested_at", db_val(res, row, col + MC_REQUESTED_AT));
	return o;
}

json_object *entity_access_request_approved(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = requester(c, res, row, col);
	json_put_int(o, "access_level", db_int(res, row, col + MC_ACCESS_LEVEL));
	return o;
}
