#include "config.h"

#include "api/api.h"
#include "entity/entity.h"

int version_show(request *r)
{
	json_object *o = json_object_new_object();
	json_put_str(o, "version", "10.0.0-collabd");
	json_put_str(o, "revision", GIT_REVISION);
	respond_json(r, 200, o);
	return 0;
}
