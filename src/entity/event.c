#include "entity/event.h"

#include "db/db.h"
#include "entity/entity.h"
#include "entity/user.h"
#include "core/deps.h"

json_object *entity_event(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* events have no key in the response cache */
	json_object *o = json_object_new_object();
	json_object_object_add(o, "title", NULL);
	json_put_int_or_null(o, "project_id", db_val(res, row, col + 1));
	json_put_str(o, "action_name", db_val(res, row, col + 2));
	json_put_int_or_null(o, "target_id", db_val(res, row, col + 3));
	json_put_int_or_null(o, "target_iid", db_val(res, row, col + 4));
	json_put_str(o, "target_type", db_val(res, row, col + 5));
	json_put_int(o, "author_id", db_int(res, row, col + 6));
	json_put_str(o, "target_title", db_val(res, row, col + 7));
	json_put_str(o, "created_at", db_val(res, row, col + 8));
	json_object_object_add(o, "author", entity_user(c, res, row, col + 10, USER_VIEW_BASIC));
	json_put_str(o, "author_username", db_val(res, row, col + 11));
	/* data holds the extra objects of some events: note, push_data */
	const char *data = db_val(res, row, col + 9);
	json_object *d = data ? json_tokener_parse(data) : NULL;
	if (d && json_object_is_type(d, json_type_object)) {
		json_object_object_foreach(d, key, val)
		{
			json_object_object_add(o, key, json_object_get(val));
		}
		json_object_put(d);
		json_object_object_add(o, "data", NULL);
	} else {
		if (d)
			json_object_put(d);
		json_object_object_add(o, "data", NULL);
	}
	return o;
}
