/* The columns of the records that statements of several layers select (a user, a
 * group): the SQL lists they paste, and the enums their readers index them by. Here,
 * below auth and entity, so that db/'s statements (credentials, scope) select the same
 * columns as the handlers' and the presenters read either. */
#ifndef COLLABD_DB_COLUMNS_H
#define COLLABD_DB_COLUMNS_H

/* The columns every user statement selects, in this order, from users u. */
#define USER_COLS                                                                                   \
	"u.id, u.username, u.name, u.state, u.avatar, iso8601(u.created_at), u.email, u.is_admin, " \
	"u.bio, u.location, u.skype, u.linkedin, u.twitter, u.website_url, u.organization, "        \
	"iso8601(u.last_sign_in_at), iso8601(u.confirmed_at), u.theme_id, "                         \
	"u.last_activity_on::text, u.color_scheme_id, u.projects_limit, "                           \
	"iso8601(u.current_sign_in_at), "                                                           \
	"(SELECT json_agg(json_build_object('provider', i.provider, 'extern_uid', "                 \
	"i.extern_uid) ORDER BY i.id)::text FROM identities i WHERE i.user_id = u.id), "            \
	"u.can_create_group, u.projects_limit > 0, u.external"
#define USER_NCOLS 26
/* The leading columns of USER_COLS that the single view reads (UC_ID..UC_ORGANIZATION). */
#define USER_SINGLE_COLS                                                                            \
	"u.id, u.username, u.name, u.state, u.avatar, iso8601(u.created_at), u.email, u.is_admin, " \
	"u.bio, u.location, u.skype, u.linkedin, u.twitter, u.website_url, u.organization"
#define USER_SINGLE_NCOLS 15
/* The leading columns of USER_COLS that the basic view reads. */
#define USER_BASIC_COLS "u.id, u.username, u.name, u.state, u.avatar"
#define USER_BASIC_NCOLS 5

enum user_col {
	UC_ID,
	UC_USERNAME,
	UC_NAME,
	UC_STATE,
	UC_AVATAR,
	UC_CREATED_AT,
	UC_EMAIL,
	UC_IS_ADMIN,
	UC_BIO,
	UC_LOCATION,
	UC_SKYPE,
	UC_LINKEDIN,
	UC_TWITTER,
	UC_WEBSITE_URL,
	UC_ORGANIZATION,
	UC_LAST_SIGN_IN_AT,
	UC_CONFIRMED_AT,
	UC_THEME_ID,
	UC_LAST_ACTIVITY_ON,
	UC_COLOR_SCHEME_ID,
	UC_PROJECTS_LIMIT,
	UC_CURRENT_SIGN_IN_AT,
	UC_IDENTITIES,
	UC_CAN_CREATE_GROUP,
	UC_CAN_CREATE_PROJECT,
	UC_EXTERNAL,
};
_Static_assert(UC_EXTERNAL + 1 == USER_NCOLS, "USER_COLS and enum user_col");
_Static_assert(UC_ORGANIZATION + 1 == USER_SINGLE_NCOLS, "USER_SINGLE_COLS and enum user_col");

/* The columns of a group, from namespaces g, in this order. */
#define GROUP_COLS                                                                                 \
	"g.id, g.name, g.path, g.description, g.visibility, g.lfs_enabled, g.avatar, "             \
	"g.request_access_enabled, g.full_name, g.full_path, g.parent_id"
#define GROUP_NCOLS 11

enum group_col {
	GC_ID,
	GC_NAME,
	GC_PATH,
	GC_DESCRIPTION,
	GC_VISIBILITY,
	GC_LFS_ENABLED,
	GC_AVATAR,
	GC_REQUEST_ACCESS_ENABLED,
	GC_FULL_NAME,
	GC_FULL_PATH,
	GC_PARENT_ID,
};
_Static_assert(GC_PARENT_ID + 1 == GROUP_NCOLS, "GROUP_COLS and enum group_col");

#endif
