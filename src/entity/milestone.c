#include "entity/milestone.h"

#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

void entity_milestone_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* milestones have no key in the response cache */
	if (PQgetisnull(res, row, col)) {
		jw_null(w);
		return;
	}
#define V(c) db_val(res, row, col + (c))
	jw_begin_object(w);
	jw_put_int(w, "id", db_int(res, row, col));
	jw_put_int(w, "iid", db_int(res, row, col + 1));
	if (V(2))
		jw_put_int_or_null(w, "project_id", V(2));
	else
		jw_put_int_or_null(w, "group_id", V(3));
	jw_put_str(w, "title", V(4));
	jw_put_str(w, "description", V(5));
	jw_put_str(w, "state", V(6));
	jw_put_time(w, "created_at", V(7));
	jw_put_time(w, "updated_at", V(8));
	jw_put_str(w, "due_date", V(9));
	jw_put_str(w, "start_date", V(10));
	jw_end_object(w);
#undef V
}
