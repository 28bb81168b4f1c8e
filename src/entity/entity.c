#include "entity/entity.h"

#include <stdlib.h>

#include "db/db.h"

/* The keys are the presenters' constants (or strings of the request's arena, which
 * outlives the response's JSON): json-c need not copy them. */
static void put(json_object *o, const char *key, json_object *v)
{
	json_object_object_add_ex(o, key, v, JSON_C_OBJECT_KEY_IS_CONSTANT);
}

void json_put_str(json_object *o, const char *key, const char *s)
{
	put(o, key, s ? json_object_new_string(s) : NULL);
}

void json_put_int(json_object *o, const char *key, long long v)
{
	put(o, key, json_object_new_int64(v));
}

void json_put_bool(json_object *o, const char *key, bool v)
{
	put(o, key, json_object_new_boolean(v));
}

void json_put_int_or_null(json_object *o, const char *key, const char *s)
{
	put(o, key, s ? json_object_new_int64(strtoll(s, NULL, 10)) : NULL);
}

const char *entity_avatar_url(ctx *c, const char *kind, const char *id, const char *file)
{
	if (!file)
		return NULL;
	return arena_printf(c->a, "%s/uploads/-/system/%s/avatar/%s/%s", c->cfg->external_url, kind,
			    id, file);
}

void entity_text_array_write(jw *w, ctx *c, const char *array)
{
	const char **items;
	int n = db_text_array(c->a, array, &items);
	jw_begin_array(w);
	for (int k = 0; k < n; k++)
		jw_str(w, items[k]);
	jw_end_array(w);
}

void entity_web_url_write(jw *w, ctx *c, const char *path, const char *kind, const char *iid)
{
	jw_key(w, "web_url");
	jw_str_begin(w);
	jw_str_part(w, c->cfg->external_url);
	jw_str_part(w, "/");
	if (path) {
		jw_str_part(w, path);
	} else {
		jw_str_part(w, c->project_ns);
		jw_str_part(w, "/");
		jw_str_part(w, c->project_path);
	}
	jw_str_part(w, "/");
	jw_str_part(w, kind);
	jw_str_part(w, "/");
	jw_str_part(w, iid);
	jw_str_end(w);
}
