#include "entity/project_impexp.h"

#include <string.h>

#include "core/deps.h"
#include "entity/entity.h"

static json_object *identity(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* the statuses change outside any request: never kept */
#define V(k) db_val(res, row, col + (k))
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col + PIS_ID));
	json_put_str(o, "description", V(PIS_DESCRIPTION));
	json_put_str(o, "name", V(PIS_NAME));
	json_put_str(o, "name_with_namespace",
		     arena_printf(c->a, "%s / %s", V(PIS_NS_FULL_NAME), V(PIS_NAME)));
	json_put_str(o, "path", V(PIS_PATH));
	json_put_str(o, "path_with_namespace",
		     arena_printf(c->a, "%s/%s", V(PIS_NS_FULL_PATH), V(PIS_PATH)));
	json_put_str(o, "created_at", V(PIS_CREATED_AT));
	return o;
}

json_object *entity_project_import_status(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = identity(c, res, row, col);
	json_put_str(o, "import_status", V(PIS_STATUS));
	if (V(PIS_ERROR))
		json_put_str(o, "import_error", V(PIS_ERROR));
	return o;
}

json_object *entity_project_export_status(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = identity(c, res, row, col);
	const char *status = V(PIS_STATUS);
	json_put_str(o, "export_status", status);
	if (status && strcmp(status, "finished") == 0) {
		json_object *links = json_object_new_object();
		json_put_str(links, "api_url",
			     arena_printf(c->a, "%s/api/v4/projects/%s/export/download",
					  c->cfg->external_url, V(PIS_ID)));
		json_put_str(links, "web_url",
			     arena_printf(c->a, "%s/%s/%s/download_export", c->cfg->external_url,
					  V(PIS_NS_FULL_PATH), V(PIS_PATH)));
		json_object_object_add(o, "_links", links);
	}
	return o;
#undef V
}
