/* Presenters for users: the summary embedded everywhere, and the list, single,
 * self and admin views of the user record. */
#ifndef COLLABD_ENTITY_USER_H
#define COLLABD_ENTITY_USER_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"
#include "db/user_refs.h"

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

/* A user by reference, in place of USER_BASIC_COLS (USER_REF) or USER_SINGLE_COLS
 * (USER_SINGLE_REF) of users u: the id ID (an expression, NULL for none), the username
 * NULL. The presenters read such a user from the worker's copies of user records, kept
 * while the users' epoch (db/user_refs.h USER_EPOCH) stays the same and read, for those it lacks, in
 * one statement per result column; a statement with many rows then joins no users. The
 * epoch is the sum of the response cache's versions of key 0 and of
 * CACHE_KEY_USER_VIEWS, which a transaction that changes a column of a user's basic or
 * single view, or deletes a user, bumps at its commit (sql/0033_user_refs.sql). It is
 * read once a request, with the caller (c->users_epoch, auth/auth.h AUTH_LEAN), or by
 * the first copy a request needs: a copy is never older than that statement's snapshot,
 * the one a response cache miss runs in (cache/response.h). */

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

enum user_view {
	USER_VIEW_BASIC,  /* id, name, username, state, avatar_url, web_url */
	USER_VIEW_SINGLE, /* basic + created_at and the profile strings */
	USER_VIEW_SELF,   /* the current user's own view (GET /user) */
	USER_VIEW_ADMIN,  /* self view + is_admin, for admins */
};

/* The user whose USER_COLS start at column col of row in res; it depends on the user's
 * key (response cache). */
json_object *entity_user(ctx *c, const PGresult *res, int row, int col, enum user_view view);
/* The same, written into w, for the basic and single views only. */
void entity_user_write(jw *w, ctx *c, const PGresult *res, int row, int col, enum user_view view);
/* The basic view of the user at col, or null when the row has none there. */
void entity_user_summary_write(jw *w, ctx *c, const PGresult *res, int row, int col);
/* Whether the row has a user at col that entity_user_write shows as a record: not a
 * reference to a user removed since the statement read it (a list of users leaves it
 * out, where one user is null). */
bool entity_user_present(ctx *c, const PGresult *res, int row, int col);
/* What a list of users depends on beyond its rows' records: which users it holds. */
void entity_user_list_depend(ctx *c);

#endif
