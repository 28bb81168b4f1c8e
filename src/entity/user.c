#include "entity/user.h"

#include "db/db.h"
#include "entity/entity.h"
#include "http/cache.h"

json_object *entity_user(request *r, const PGresult *res, int row, int col, enum user_view view)
{
	cache_depend(r, CACHE_KEY_USER(db_int(res, row, col + UC_ID)));
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
	json_put_int(o, "id", db_int(res, row, col + UC_ID));
	json_put_str(o, "name", V(UC_NAME));
	json_put_str(o, "username", V(UC_USERNAME));
	json_put_str(o, "state", V(UC_STATE));
	json_put_str(o, "avatar_url", entity_avatar_url(r, "user", V(UC_ID), V(UC_AVATAR)));
	json_put_str(o, "web_url", arena_printf(r->ctx.a, "%s/%s", r->ctx.cfg->external_url, V(UC_USERNAME)));
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

void entity_user_write(jw *w, request *r, const PGresult *res, int row, int col,
		       enum user_view view)
{
	cache_depend(r, CACHE_KEY_USER(db_int(res, row, col + UC_ID)));
#define V(c) db_val(res, row, col + (c))
	jw_begin_object(w);
	jw_put_int(w, "id", db_int(res, row, col + UC_ID));
	jw_put_str(w, "name", V(UC_NAME));
	jw_put_str(w, "username", V(UC_USERNAME));
	jw_put_str(w, "state", V(UC_STATE));
	jw_put_str(w, "avatar_url", entity_avatar_url(r, "user", V(UC_ID), V(UC_AVATAR)));
	jw_key(w, "web_url");
	jw_str_begin(w);
	jw_str_part(w, r->ctx.cfg->external_url);
	jw_str_part(w, "/");
	jw_str_part(w, V(UC_USERNAME));
	jw_str_end(w);
	if (view != USER_VIEW_BASIC) {
		jw_put_str(w, "created_at", V(UC_CREATED_AT));
		jw_put_str(w, "bio", V(UC_BIO));
		jw_put_str(w, "location", V(UC_LOCATION));
		jw_put_str(w, "skype", V(UC_SKYPE));
		jw_put_str(w, "linkedin", V(UC_LINKEDIN));
		jw_put_str(w, "twitter", V(UC_TWITTER));
		jw_put_str(w, "website_url", V(UC_WEBSITE_URL));
		jw_put_str(w, "organization", V(UC_ORGANIZATION));
	}
	jw_end_object(w);
#undef V
}

void entity_user_summary_write(jw *w, request *r, const PGresult *res, int row, int col)
{
	if (PQgetisnull(res, row, col))
		jw_null(w);
	else
		entity_user_write(w, r, res, row, col, USER_VIEW_BASIC);
}

void entity_user_list_depend(request *r)
{
	cache_depend(r, CACHE_SET_USERS);
}
