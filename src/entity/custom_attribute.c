#include "entity/custom_attribute.h"

#include <string.h>

#include "entity/entity.h"

void entity_custom_attribute_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	(void)c;
	jw_begin_object(w);
	jw_put_str(w, "key", db_val(res, row, col));
	jw_put_str(w, "value", db_val(res, row, col + 1));
	jw_end_object(w);
}

json_object *entity_custom_attribute(ctx *c, const PGresult *res, int row, int col)
{
	(void)c;
	json_object *o = json_object_new_object();
	json_put_str(o, "key", db_val(res, row, col));
	json_put_str(o, "value", db_val(res, row, col + 1));
	return o;
}

const char *entity_custom_attributes_text(ctx *c, const PGresult *res, int from, int to, int col)
{
	jw w;
	jw_init(&w, c->a, (size_t)(to - from) * 64 + 8);
	jw_begin_array(&w);
	for (int i = from; i < to; i++)
		if (!PQgetisnull(res, i, col))
			entity_custom_attribute_write(&w, c, res, i, col);
	jw_end_array(&w);
	return buf_cstr(&w.b);
}

void entity_add_custom_attributes(json_object *o, const char *attrs)
{
	json_object_object_add(o, "custom_attributes", json_tokener_parse(attrs));
}
