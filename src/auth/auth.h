/* Credentials: private, personal access, impersonation and OAuth tokens, and sudo. */
#ifndef COLLABD_AUTH_H
#define COLLABD_AUTH_H

#include "auth/scope.h"
#include "db/db.h"
#include "entity/user.h"
#include "http/request.h"

extern const db_stmt auth_stmts[];

/* The columns and FROM clause that turn a token digest ($1) and a flag "sent as OAuth"
 * ($2) into the caller's row: USER_COLS then kind and scopes. Statements that fetch a
 * record together with the caller (one round trip) embed these; AUTH_SELECT is for the
 * routes that present the caller's own record (ROUTE_CALLER_RECORD), AUTH_LEAN for all
 * the others. */
#define AUTH_NCOLS (USER_NCOLS + 3)
#define AUTH_SELECT                                                                            \
	USER_COLS ", t.kind, t.scopes::text, CASE WHEN u.is_admin THEN (SELECT p.sealed FROM "   \
		  "tokens p WHERE p.user_id = u.id AND p.kind = 'private') END"
/* Column (after USER_COLS) of the sealed private token, shown to admins by GET /user. */
#define AUTH_COL_PRIVATE_TOKEN (USER_NCOLS + 2)
/* What the dispatcher and the handlers need of the caller, and no more: every column
 * of AUTH_SELECT costs at each execution of every statement that embeds it. Last, the
 * users' epoch for the presenters' copies of users (r->users_epoch), read once a request
 * with the caller (a subplan each in every USER_REF, it cost more than the list): the
 * statements that embed AUTH_LEAN present no such copy and leave it NULL (unknown: the
 * presenters read it if they need it). */
#define AUTH_LEAN_COLS                                                                         \
	"u.id, u.username, u.is_admin, u.external, u.email, u.can_create_group, t.kind,"        \
	" t.scopes::text"
#define AUTH_LEAN AUTH_LEAN_COLS ", NULL::bigint"
enum auth_lean_col {
	AL_ID, AL_USERNAME, AL_IS_ADMIN, AL_EXTERNAL, AL_EMAIL, AL_CAN_CREATE_GROUP, AL_KIND,
	AL_SCOPES, AL_USERS_EPOCH, AUTH_LEAN_NCOLS
};
#define AUTH_FROM                                                                                \
	"tokens t JOIN users u ON u.id = t.user_id WHERE t.digest = $1 AND "                      \
	"(t.kind = 'oauth') = $2::boolean AND NOT t.revoked AND "                                  \
	"(t.expires_at IS NULL OR t.expires_at > current_date) AND u.state = 'active' AND NOT u.ghost"

/* Reads the credential the request carries (header or parameter) into r->token_digest
 * and r->oauth, and the sudo value into r->sudo. */
void auth_read_credentials(request *r);
/* Full authentication for a route with the given flags: looks the token up (all of the
 * caller's record with ROUTE_CALLER_RECORD, AUTH_LEAN otherwise), checks scope, applies
 * sudo, enforces ROUTE_AUTH and ROUTE_ADMIN. 0 or an ERR_ code. */
int auth_authenticate(request *r, unsigned flags);
/* Whether a route with these flags authenticates with auth_authenticate_project: a
 * project's route, with a token and no sudo. */
bool auth_with_project(const request *r, unsigned flags);
/* auth_authenticate and the statement of scope_project in one round trip: the caller
 * found by token with the route's project (:id), locked as lock says. 0 with *res the
 * row to read the scope from (scope_project_row at AUTH_LEAN_NCOLS), NULL when :id
 * names no project, or an ERR_ code of authentication. */
int auth_authenticate_project(request *r, unsigned flags, scope_lock lock, PGresult **res);
/* Same checks for a caller row already fetched at column col of row (AUTH_SELECT
 * columns; all NULL, or no row, when the token matched nothing). */
int auth_accept_row(request *r, unsigned flags, PGresult *res, int row, int col);
/* The same for AUTH_LEAN columns; r->ctx.user->res stays NULL. */
int auth_accept_lean(request *r, unsigned flags, PGresult *res, int row, int col);
/* Parameters $1 and $2 for statements embedding AUTH_FROM. */
void auth_params(request *r, const char **values);
/* 1 when the caller may use sudo etc.: an admin. */
static inline int auth_is_admin(const request *r)
{
	return r->ctx.user && r->ctx.user->admin;
}

#endif
