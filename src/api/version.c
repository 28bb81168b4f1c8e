#include "config.h"

#include "api/api.h"
#include "entity/entity.h"

static int version_show(request *r)
{
	json_object *o = json_object_new_object();
	json_put_str(o, "version", API_VERSION);
	json_put_str(o, "revision", GIT_REVISION);
	respond_json(r, 200, o);
	return 0;
}

const db_stmt version_stmts[] = {
	{NULL, NULL, 0, 0},
};

/* The module's routes (http/router.h), in the order they are matched. */
const route version_routes[] = {
	{"GET", V4 "/version", version_show, AUTH, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
