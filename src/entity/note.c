#include "entity/note.h"

#include "db/db.h"
#include "entity/user.h"
#include "core/deps.h"

void entity_note_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* notes have no key in the response cache */
#define V(i) db_val(res, row, col + (i))
	jw_begin_object(w);
	jw_put_int(w, "id", db_int(res, row, col));
	jw_put_str(w, "body", V(1));
	jw_put_str(w, "attachment", V(2));
	jw_key(w, "author");
	entity_user_summary_write(w, c, res, row, col + 9);
	jw_put_time(w, "created_at", V(3));
	jw_put_time(w, "updated_at", V(4));
	jw_put_bool(w, "system", db_bool(res, row, col + 5));
	jw_put_int_or_null(w, "noteable_id", V(6));
	jw_put_str(w, "noteable_type", V(7));
	jw_put_int_or_null(w, "noteable_iid", V(8));
	jw_end_object(w);
#undef V
}
