#include "entity/entity.h"

#include <stdlib.h>

void json_put_str(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s ? json_object_new_string(s) : NULL);
}

void json_put_int(json_object *o, const char *key, long long v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

void json_put_bool(json_object *o, const char *key, bool v)
{
	json_object_object_add(o, key, json_object_new_boolean(v));
}

void json_put_int_or_null(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s ? json_object_new_int64(strtoll(s, NULL, 10)) : NULL);
}

const char *entity_avatar_url(request *r, const char *kind, const char *id, const char *file)
{
	if (!file)
		return NULL;
	return arena_printf(r->ctx.a, "%s/uploads/-/system/%s/avatar/%s/%s", r->ctx.cfg->external_url, kind,
			    id, file);
}
