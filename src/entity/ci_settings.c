#include "entity/ci_settings.h"

#include <string.h>

#include "core/crypto.h"
#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

/* What sealed opens to (NULL when it cannot be opened: it never leaks as such). */
static const char *open_sealed(ctx *c, const char *sealed)
{
	return sealed ? crypto_open(c->a, c->key, sealed) : NULL;
}

json_object *entity_ci_variable(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c);
	json_object *o = json_object_new_object();
	json_put_str(o, "key", db_val(res, row, col));
	json_put_str(o, "value", open_sealed(c, db_val(res, row, col + 1)));
	json_put_bool(o, "protected", db_bool(res, row, col + 2));
	return o;
}

json_object *entity_schedule_variable(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c);
	json_object *o = json_object_new_object();
	json_put_str(o, "key", db_val(res, row, col));
	json_put_str(o, "value", open_sealed(c, db_val(res, row, col + 1)));
	return o;
}

/* The user summary whose USER_BASIC_COLS start at col, or null. */
static json_object *owner(ctx *c, const PGresult *res, int row, int col)
{
	return db_val(res, row, col) ? entity_user(c, res, row, col, USER_VIEW_BASIC) : NULL;
}

json_object *entity_trigger(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c);
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
	json_put_int(o, "id", db_int(res, row, col));
	const char *token = open_sealed(c, V(1));
	bool mine = !V(7) || (c->user && db_int(res, row, col + 7) == c->user->id);
	if (token && !mine)
		token = arena_strndup(c->a, token, 4);
	json_put_str(o, "token", token);
	json_put_str(o, "description", V(2));
	json_put_str(o, "created_at", V(3));
	json_put_str(o, "updated_at", V(4));
	json_put_str(o, "deleted_at", V(5));
	json_put_str(o, "last_used", V(6));
	json_object_object_add(o, "owner", owner(c, res, row, col + 7));
#undef V
	return o;
}

json_object *entity_schedule(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c);
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "description", V(1));
	json_put_str(o, "ref", V(2));
	json_put_str(o, "cron", V(3));
	json_put_str(o, "cron_timezone", V(4));
	json_put_str(o, "next_run_at", V(5));
	json_put_bool(o, "active", db_bool(res, row, col + 6));
	json_put_str(o, "created_at", V(7));
	json_put_str(o, "updated_at", V(8));
	json_object_object_add(o, "owner", owner(c, res, row, col + 9));
#undef V
	return o;
}

json_object *entity_schedule_details(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = entity_schedule(c, res, row, col);
	const char *last = db_val(res, row, col + SCHEDULE_NCOLS);
	json_object_object_add(o, "last_pipeline", last ? json_tokener_parse(last) : NULL);
	json_object *vars = json_object_new_array();
	json_object *rows = json_tokener_parse(db_val(res, row, col + SCHEDULE_NCOLS + 1));
	size_t n = rows ? json_object_array_length(rows) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(rows, i), *k = NULL, *s = NULL;
		json_object_object_get_ex(e, "key", &k);
		json_object_object_get_ex(e, "value_sealed", &s);
		json_object *v = json_object_new_object();
		json_put_str(v, "key", arena_strdup(c->a, json_object_get_string(k)));
		json_put_str(v, "value", open_sealed(c, json_object_get_string(s)));
		json_object_array_add(vars, v);
	}
	json_object_put(rows);
	json_object_object_add(o, "variables", vars);
	return o;
}
