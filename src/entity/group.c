#include "entity/group.h"

#include "auth/access.h"
#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

json_object *entity_group(ctx *c, const PGresult *res, int row, int col, int stats_col)
{
	deps_add(c, CACHE_KEY_NAMESPACE(db_int(res, row, col + GC_ID)));
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
	json_put_int(o, "id", db_int(res, row, col + GC_ID));
	json_put_str(o, "name", V(GC_NAME));
	json_put_str(o, "path", V(GC_PATH));
	json_put_str(o, "description", V(GC_DESCRIPTION));
	json_put_str(o, "visibility", visibility_name((int)db_int(res, row, col + GC_VISIBILITY)));
	json_put_bool(o, "lfs_enabled", db_bool(res, row, col + GC_LFS_ENABLED));
	json_put_str(o, "avatar_url", entity_avatar_url(c, "group", V(GC_ID), V(GC_AVATAR)));
	json_put_str(o, "web_url",
		     arena_printf(c->a, "%s/groups/%s", c->cfg->external_url, V(GC_FULL_PATH)));
	json_put_bool(o, "request_access_enabled",
		      db_bool(res, row, col + GC_REQUEST_ACCESS_ENABLED));
	json_put_str(o, "full_name", V(GC_FULL_NAME));
	json_put_str(o, "full_path", V(GC_FULL_PATH));
	json_put_int_or_null(o, "parent_id", V(GC_PARENT_ID));
#undef V
	const char *stats = stats_col >= 0 ? db_val(res, row, stats_col) : NULL;
	if (stats) {
		deps_none(c); /* sums over the group's projects: no key of one row */
		json_object *s = json_tokener_parse(stats);
		if (s)
			json_object_object_add(o, "statistics", s);
	}
	return o;
}

json_object *entity_namespace(ctx *c, const PGresult *res, int row, int col)
{
	deps_add(c, CACHE_KEY_NAMESPACE(db_int(res, row, col)));
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "name", db_val(res, row, col + 1));
	json_put_str(o, "path", db_val(res, row, col + 2));
	json_put_str(o, "kind", db_val(res, row, col + 3));
	json_put_str(o, "full_path", db_val(res, row, col + 4));
	json_put_int_or_null(o, "parent_id", db_val(res, row, col + 5));
	const char *members = db_val(res, row, col + 6);
	if (members)
		deps_none(c); /* counts the members of groups below: no key of one row */
	if (members)
		json_put_int_or_null(o, "members_count_with_descendants", members);
	return o;
}
