#include "entity/gpg_key.h"

#include "core/deps.h"
#include "db/db.h"
#include "entity/entity.h"

json_object *entity_gpg_key(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* GPG keys have no key in the response cache */
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "key", db_val(res, row, col + 1));
	json_put_str(o, "created_at", db_val(res, row, col + 2));
	return o;
}

json_object *entity_gpg_signature(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* nor their signatures */
	json_object *o = json_object_new_object();
	json_put_int_or_null(o, "gpg_key_id", db_val(res, row, col));
	json_put_str(o, "gpg_key_primary_keyid", db_val(res, row, col + 1));
	json_put_str(o, "gpg_key_user_name", db_val(res, row, col + 2));
	json_put_str(o, "gpg_key_user_email", db_val(res, row, col + 3));
	json_put_str(o, "verification_status", db_val(res, row, col + 4));
	json_put_int_or_null(o, "gpg_key_subkey_id", db_val(res, row, col + 5));
	return o;
}
