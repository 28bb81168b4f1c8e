#include "entity/note.h"

#include "db/db.h"
#include "entity/entity.h"
#include "entity/user.h"
#include "http/cache.h"

json_object *entity_note(request *r, const PGresult *res, int row, int col)
{
	cache_depend_none(r); /* notes have no key in the response cache */
	json_object *o = json_object_new_object();
#define V(i) db_val(res, row, col + (i))
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "body", V(1));
	json_put_str(o, "attachment", V(2));
	json_object_object_add(o, "author",
			       V(9) ? entity_user(r, res, row, col + 9, USER_VIEW_BASIC) : NULL);
	json_put_str(o, "created_at", V(3));
	json_put_str(o, "updated_at", V(4));
	json_put_bool(o, "system", db_bool(res, row, col + 5));
	json_put_int_or_null(o, "noteable_id", V(6));
	json_put_str(o, "noteable_type", V(7));
	json_put_int_or_null(o, "noteable_iid", V(8));
#undef V
	return o;
}
