/* Presenters for users: the summary embedded everywhere, and the list, single,
 * self and admin views of the user record. */
#ifndef COLLABD_ENTITY_USER_H
#define COLLABD_ENTITY_USER_H

#include "core/jw.h"
#include "http/request.h"

/* The columns every user statement selects, in this order, from users u. */
#define USER_COLS                                                                                \
	"u.id, u.username, u.name, u.state, u.avatar, iso8601(u.created_at), u.email, u.is_admin, " \
	"u.bio, u.location, u.skype, u.linkedin, u.twitter, u.website_url, u.organization, "      \
	"iso8601(u.last_sign_in_at), iso8601(u.confirmed_at), u.theme_id, "                      \
	"u.last_activity_on::text, u.color_scheme_id, u.projects_limit, "                        \
	"iso8601(u.current_sign_in_at), "                                                       \
	"(SELECT json_agg(json_build_object('provider', i.provider, 'extern_uid', "             \
	"i.extern_uid) ORDER BY i.id)::text FROM identities i WHERE i.user_id = u.id), "          \
	"u.can_create_group, u.projects_limit > 0, u.external"
#define USER_NCOLS 26
/* The leading columns of USER_COLS that the single view reads (UC_ID..UC_ORGANIZATION). */
#define USER_SINGLE_COLS                                                                         \
	"u.id, u.username, u.name, u.state, u.avatar, iso8601(u.created_at), u.email, u.is_admin, " \
	"u.bio, u.location, u.skype, u.linkedin, u.twitter, u.website_url, u.organization"
#define USER_SINGLE_NCOLS 15
/* The leading columns of USER_COLS that the basic view reads. */
#define USER_BASIC_COLS "u.id, u.username, u.name, u.state, u.avatar"

enum user_col {
	UC_ID, UC_USERNAME, UC_NAME, UC_STATE, UC_AVATAR, UC_CREATED_AT, UC_EMAIL, UC_IS_ADMIN,
	UC_BIO, UC_LOCATION, UC_SKYPE, UC_LINKEDIN, UC_TWITTER, UC_WEBSITE_URL, UC_ORGANIZATION,
	UC_LAST_SIGN_IN_AT, UC_CONFIRMED_AT, UC_THEME_ID, UC_LAST_ACTIVITY_ON, UC_COLOR_SCHEME_ID,
	UC_PROJECTS_LIMIT, UC_CURRENT_SIGN_IN_AT, UC_IDENTITIES, UC_CAN_CREATE_GROUP,
	UC_CAN_CREATE_PROJECT, UC_EXTERNAL,
};
_Static_assert(UC_EXTERNAL + 1 == USER_NCOLS, "USER_COLS and enum user_col");
_Static_assert(UC_ORGANIZATION + 1 == USER_SINGLE_NCOLS, "USER_SINGLE_COLS and enum user_col");

enum user_view {
	USER_VIEW_BASIC,  /* id, name, username, state, avatar_url, web_url */
	USER_VIEW_SINGLE, /* basic + created_at and the profile strings */
	USER_VIEW_SELF,   /* the current user's own view (GET /user) */
	USER_VIEW_ADMIN,  /* self view + is_admin, for admins */
};

/* The user whose USER_COLS start at column col of row in res; it depends on the user's
 * key (response cache). */
json_object *entity_user(request *r, const PGresult *res, int row, int col, enum user_view view);
/* The same, written into w, for the basic and single views only. */
void entity_user_write(jw *w, request *r, const PGresult *res, int row, int col,
		       enum user_view view);
/* The basic view of the user at col, or null when the row has none there. */
void entity_user_summary_write(jw *w, request *r, const PGresult *res, int row, int col);
/* What a list of users depends on beyond its rows' records: which users it holds. */
void entity_user_list_depend(request *r);

#endif
