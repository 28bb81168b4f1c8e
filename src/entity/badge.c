#include "entity/badge.h"

#include "core/deps.h"
#include "db/db.h"
#include "entity/entity.h"

json_object *entity_badge_details(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* badges have no key in the response cache */
	json_object *o = json_object_new_object();
	json_put_str(o, "link_url", db_val(res, row, col));
	json_put_str(o, "image_url", db_val(res, row, col + 1));
	json_put_str(o, "rendered_link_url", db_val(res, row, col + 2));
	json_put_str(o, "rendered_image_url", db_val(res, row, col + 3));
	return o;
}

json_object *entity_badge(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = entity_badge_details(c, res, row, col);
	json_put_int(o, "id", db_int(res, row, col + BADGE_DETAILS_NCOLS));
	json_put_str(o, "kind",
		     db_bool(res, row, col + BADGE_DETAILS_NCOLS + 1) ? "project" : "group");
	return o;
}
