#include "entity/user.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "db/db.h"
#include "db/user_refs.h"
#include "entity/entity.h"
#include "core/deps.h"

json_object *entity_user(ctx *c, const PGresult *res, int row, int col, enum user_view view)
{
	deps_add(c, CACHE_KEY_USER(db_int(res, row, col + UC_ID)));
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
	json_put_int(o, "id", db_int(res, row, col + UC_ID));
	json_put_str(o, "name", V(UC_NAME));
	json_put_str(o, "username", V(UC_USERNAME));
	json_put_str(o, "state", V(UC_STATE));
	json_put_str(o, "avatar_url", entity_avatar_url(c, "user", V(UC_ID), V(UC_AVATAR)));
	json_put_str(o, "web_url",
		     arena_printf(c->a, "%s/%s", c->cfg->external_url, V(UC_USERNAME)));
	if (view == USER_VIEW_BASIC)
		return o;
	json_put_str(o, "created_at", V(UC_CREATED_AT));
	json_put_str(o, "bio", V(UC_BIO));
	json_put_str(o, "location", V(UC_LOCATION));
	json_put_str(o, "skype", V(UC_SKYPE));
	json_put_str(o, "linkedin", V(UC_LINKEDIN));
	json_put_str(o, "twitter", V(UC_TWITTER));
	json_put_str(o, "website_url", V(UC_WEBSITE_URL));
	json_put_str(o, "organization", V(UC_ORGANIZATION));
	if (view == USER_VIEW_SINGLE)
		return o;
	json_put_str(o, "last_sign_in_at", V(UC_LAST_SIGN_IN_AT));
	json_put_str(o, "confirmed_at", V(UC_CONFIRMED_AT));
	json_put_str(o, "last_activity_on", V(UC_LAST_ACTIVITY_ON));
	json_put_str(o, "email", V(UC_EMAIL));
	json_put_int(o, "theme_id", db_int(res, row, col + UC_THEME_ID));
	json_put_int(o, "color_scheme_id", db_int(res, row, col + UC_COLOR_SCHEME_ID));
	json_put_int(o, "projects_limit", db_int(res, row, col + UC_PROJECTS_LIMIT));
	json_put_str(o, "current_sign_in_at", V(UC_CURRENT_SIGN_IN_AT));
	const char *ids = V(UC_IDENTITIES);
	json_object *identities = ids ? json_tokener_parse(ids) : NULL;
	json_object_object_add(o, "identities", identities ? identities : json_object_new_array());
	json_put_bool(o, "can_create_group", db_bool(res, row, col + UC_CAN_CREATE_GROUP));
	json_put_bool(o, "can_create_project", db_bool(res, row, col + UC_CAN_CREATE_PROJECT));
	json_put_bool(o, "two_factor_enabled", false);
	json_put_bool(o, "external", db_bool(res, row, col + UC_EXTERNAL));
	if (view == USER_VIEW_ADMIN)
		json_put_bool(o, "is_admin", db_bool(res, row, col + UC_IS_ADMIN));
#undef V
	return o;
}

/* The record of user id with fields f (RF_*). */
static void user_fields_write(jw *w, ctx *c, long long id, const char *id_text,
			      const char *const *f, enum user_view view)
{
	jw_begin_object(w);
	jw_put_int(w, "id", id);
	jw_put_str(w, "name", f[RF_NAME]);
	jw_put_str(w, "username", f[RF_USERNAME]);
	jw_put_str(w, "state", f[RF_STATE]);
	jw_put_str(w, "avatar_url", entity_avatar_url(c, "user", id_text, f[RF_AVATAR]));
	jw_key(w, "web_url");
	jw_str_begin(w);
	jw_str_part(w, c->cfg->external_url);
	jw_str_part(w, "/");
	jw_str_part(w, f[RF_USERNAME]);
	jw_str_end(w);
	if (view != USER_VIEW_BASIC) {
		jw_put_str(w, "created_at", f[RF_CREATED_AT]);
		jw_put_str(w, "bio", f[RF_BIO]);
		jw_put_str(w, "location", f[RF_LOCATION]);
		jw_put_str(w, "skype", f[RF_SKYPE]);
		jw_put_str(w, "linkedin", f[RF_LINKEDIN]);
		jw_put_str(w, "twitter", f[RF_TWITTER]);
		jw_put_str(w, "website_url", f[RF_WEBSITE_URL]);
		jw_put_str(w, "organization", f[RF_ORGANIZATION]);
	}
	jw_end_object(w);
}

void entity_user_write(jw *w, ctx *c, const PGresult *res, int row, int col, enum user_view view)
{
	const char *f[RF_N], *id = db_val(res, row, col + UC_ID);
	long long id_num = db_int(res, row, col + UC_ID);
	if (id && PQgetisnull(res, row, col + UC_USERNAME)) {
		user_ref *u = db_user_ref(c, res, row, col);
		if (!u) {
			jw_null(w);
			return;
		}
		deps_add(c, CACHE_KEY_USER(id_num));
		if (view != USER_VIEW_BASIC) {
			user_fields_write(w, c, id_num, id, (const char *const *)u->f, view);
			return;
		}
		/* the basic view of a copy, as many lists show it for each row: written once */
		if (!u->basic) {
			jw t;
			jw_init(&t, c->a, 256);
			user_fields_write(&t, c, id_num, id, (const char *const *)u->f, view);
			u->basic = malloc(t.b.len);
			if (!u->basic) {
				jw_raw(w, t.b.data, t.b.len);
				return;
			}
			memcpy(u->basic, t.b.data, t.b.len);
			u->basic_len = t.b.len;
		}
		jw_raw(w, u->basic, u->basic_len);
		return;
	}
	static const int cols[RF_N] = {UC_USERNAME,   UC_NAME,    UC_STATE,       UC_AVATAR,
				       UC_CREATED_AT, UC_BIO,     UC_LOCATION,    UC_SKYPE,
				       UC_LINKEDIN,   UC_TWITTER, UC_WEBSITE_URL, UC_ORGANIZATION};
	for (int i = 0; i < (view == USER_VIEW_BASIC ? RF_CREATED_AT : RF_N); i++)
		f[i] = db_val(res, row, col + cols[i]);
	deps_add(c, CACHE_KEY_USER(id_num));
	user_fields_write(w, c, id_num, id, f, view);
}

bool entity_user_present(ctx *c, const PGresult *res, int row, int col)
{
	if (PQgetisnull(res, row, col + UC_ID))
		return false;
	return !PQgetisnull(res, row, col + UC_USERNAME) || db_user_ref(c, res, row, col);
}

void entity_user_summary_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	if (PQgetisnull(res, row, col))
		jw_null(w);
	else
		entity_user_write(w, c, res, row, col, USER_VIEW_BASIC);
}

void entity_user_list_depend(ctx *c)
{
	deps_add(c, CACHE_SET_USERS);
}
