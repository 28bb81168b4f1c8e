/* Presenters for users: the summary embedded everywhere, and the list, single,
 * self and admin views of the user record. */
#ifndef COLLABD_ENTITY_USER_H
#define COLLABD_ENTITY_USER_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/columns.h"
#include "db/db.h"
#include "db/user_refs.h"

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
