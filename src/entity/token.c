#include "entity/token.h"

#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

json_object *entity_token(ctx *c, const PGresult *res, int row, int col, const char *token)
{
	deps_add(c, CACHE_KEY_USER(db_int(res, row, col + 5))); /* tokens bump their user */
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "name", db_val(res, row, col + 1));
	json_put_bool(o, "revoked", db_bool(res, row, col + 2));
	json_put_str(o, "created_at", db_val(res, row, col + 3));
	const char *scopes = db_val(res, row, col + 4);
	json_object *s = scopes ? json_tokener_parse(scopes) : NULL;
	json_object_object_add(o, "scopes", s ? s : json_object_new_array());
	json_put_int(o, "user_id", db_int(res, row, col + 5));
	json_put_bool(o, "active", db_bool(res, row, col + 6));
	json_put_str(o, "expires_at", db_val(res, row, col + 7));
	json_put_bool(o, "impersonation", db_bool(res, row, col + 8));
	if (token)
		json_put_str(o, "token", token);
	return o;
}
