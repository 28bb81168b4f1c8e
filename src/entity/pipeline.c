#include "entity/pipeline.h"

#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

json_object *entity_pipeline_basic(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* pipelines have no key in the response cache */
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "sha", db_val(res, row, col + 1));
	json_put_str(o, "ref", db_val(res, row, col + 2));
	json_put_str(o, "status", db_val(res, row, col + 3));
	return o;
}

void entity_pipeline_basic_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* pipelines have no key in the response cache */
	jw_begin_object(w);
	jw_put_int(w, "id", db_int(res, row, col));
	jw_put_str(w, "sha", db_val(res, row, col + 1));
	jw_put_str(w, "ref", db_val(res, row, col + 2));
	jw_put_str(w, "status", db_val(res, row, col + 3));
	jw_end_object(w);
}

json_object *entity_pipeline(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = entity_pipeline_basic(c, res, row, col);
#define V(c) db_val(res, row, col + (c))
	json_put_str(o, "before_sha", V(4));
	json_put_bool(o, "tag", db_bool(res, row, col + 5));
	json_put_str(o, "yaml_errors", V(6));
	json_object_object_add(o, "user",
			       V(14) ? entity_user(c, res, row, col + 14, USER_VIEW_BASIC) : NULL);
	json_put_str(o, "created_at", V(7));
	json_put_str(o, "updated_at", V(8));
	json_put_str(o, "started_at", V(9));
	json_put_str(o, "finished_at", V(10));
	json_put_str(o, "committed_at", V(11));
	json_put_int_or_null(o, "duration", V(12));
	json_put_str(o, "coverage", V(13));
#undef V
	return o;
}
