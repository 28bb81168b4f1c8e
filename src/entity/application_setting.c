#include "entity/application_setting.h"

#include <string.h>

#include "auth/access.h"
#include "core/crypto.h"
#include "core/deps.h"
#include "db/settings.h"
#include "entity/entity.h"

/* A float column's text as a JSON number that stays a float (1 -> 1.0, as Ruby shows). */
static void write_float(jw *w, ctx *c, const char *s)
{
	if (!s) {
		jw_null(w);
		return;
	}
	if (!strpbrk(s, ".eE"))
		s = arena_printf(c->a, "%s.0", s);
	jw_raw(w, s, strlen(s));
}

static void write_levels(jw *w, ctx *c, const char *array)
{
	long long *levels = NULL;
	int n = array ? db_int_array(c->a, array, &levels) : 0;
	jw_begin_array(w);
	for (int i = 0; i < n; i++)
		jw_str(w, visibility_name((int)levels[i]));
	jw_end_array(w);
}

/* A text[] as its elements one a line (10.8's domain_whitelist_raw). */
static void write_lines(jw *w, ctx *c, const char *array)
{
	const char **items;
	int n = array ? db_text_array(c->a, array, &items) : 0;
	jw_str_begin(w);
	for (int i = 0; i < n; i++) {
		if (i)
			jw_str_part(w, "\n");
		jw_str_part(w, items[i]);
	}
	jw_str_end(w);
}

void entity_application_setting_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* the settings have no key in the response cache */
	jw_begin_object(w);
	jw_put_int(w, "id", db_int(res, row, col));
	for (int i = 0; i < SETTINGS_NFIELDS; i++) {
		const settings_field *f = &settings_fields[i];
		int k = col + SETTINGS_COL_FIRST + i;
		const char *v = db_val(res, row, k);
		jw_key(w, f->name);
		switch (f->kind) {
		case SETTING_BOOL:
			jw_bool(w, db_bool(res, row, k));
			break;
		case SETTING_INT:
			if (v)
				jw_int(w, db_int(res, row, k));
			else
				jw_null(w);
			break;
		case SETTING_FLOAT:
			write_float(w, c, v);
			break;
		case SETTING_STR:
			jw_str(w, v);
			break;
		case SETTING_SECRET:
			jw_str(w, v ? crypto_open(c->a, c->key, v) : NULL);
			break;
		case SETTING_VIS:
			jw_str(w, visibility_name((int)db_int(res, row, k)));
			break;
		case SETTING_STRS:
			entity_text_array_write(w, c, v ? v : "{}");
			break;
		case SETTING_LEVELS:
			write_levels(w, c, v);
			break;
		case SETTING_DOMAINS:
			write_lines(w, c, v);
			break;
		}
	}
	bool web = db_bool(res, row,
			   col + SETTINGS_COL_FIRST +
				   SETTING_F_password_authentication_enabled_for_web);
	jw_put_bool(w, "password_authentication_enabled", web);
	jw_put_bool(w, "signin_enabled", web);
	jw_end_object(w);
}
