/* Credentials: private, personal access, impersonation and OAuth tokens, and sudo. */
#ifndef COLLABD_AUTH_H
#define COLLABD_AUTH_H

#include "auth/scope.h"
#include "db/db.h"
#include "entity/user.h"
#include "core/ctx.h"

extern const db_stmt auth_stmts[];

/* The columns of auth_versions: a key, its version. */
enum { AV_KEY, AV_VERSION, AV_NCOLS };

/* The columns and FROM clause that turn a token digest ($1) and a flag "sent as OAuth"
 * ($2) into the caller's row: USER_COLS then kind and scopes. Statements that fetch a
 * record together with the caller (one round trip) embed these; AUTH_SELECT is for the
 * routes that present the caller's own record (ROUTE_CALLER_RECORD), AUTH_LEAN for all
 * the others. */
#define AUTH_NCOLS (USER_NCOLS + 3)
#define AUTH_SELECT                                                                                \
	USER_COLS ", t.kind, t.scopes::text, CASE WHEN u.is_admin THEN (SELECT p.sealed FROM "     \
		  "tokens p WHERE p.user_id = u.id AND p.kind = 'private') END"
/* Column (after USER_COLS) of the sealed private token, shown to admins by GET /user. */
#define AUTH_COL_PRIVATE_TOKEN (USER_NCOLS + 2)
/* What the dispatcher and the handlers need of the caller, and no more: every column
 * of AUTH_SELECT costs at each execution of every statement that embeds it. Last, the
 * users' epoch for the presenters' copies of users (r->users_epoch), read once a request
 * with the caller (a subplan each in every USER_REF, it cost more than the list): the
 * statements that embed AUTH_LEAN present no such copy and leave it NULL (unknown: the
 * presenters read it if they need it). */
#define AUTH_LEAN_COLS                                                                             \
	"u.id, u.username, u.is_admin, u.external, u.email, u.can_create_group, t.kind,"           \
	" t.scopes::text"
#define AUTH_LEAN AUTH_LEAN_COLS ", NULL::bigint"
enum auth_lean_col {
	AL_ID,
	AL_USERNAME,
	AL_IS_ADMIN,
	AL_EXTERNAL,
	AL_EMAIL,
	AL_CAN_CREATE_GROUP,
	AL_KIND,
	AL_SCOPES,
	AL_USERS_EPOCH,
	AUTH_LEAN_NCOLS
};
#define AUTH_FROM                                                                                  \
	"tokens t JOIN users u ON u.id = t.user_id WHERE t.digest = $1 AND "                       \
	"(t.kind = 'oauth') = $2::boolean AND NOT t.revoked AND "                                  \
	"(t.expires_at IS NULL OR t.expires_at > current_date) AND u.state = 'active' AND NOT u.ghost"

/* What a request presents to be someone. */
typedef struct credential {
	const char *token_digest; /* hex SHA-256 of the token sent, NULL when none */
	bool oauth;               /* sent as Bearer/access_token */
	const char *sudo;         /* the sudo value (header or parameter), NULL when none */
	bool reading;             /* a GET: what a read_user token may do */
} credential;

/* What a route asks of its caller (http/router.h's ROUTE_ flags of the same values). */
enum auth_need {
	AUTH_USER = 1 << 0,          /* 401 without valid credentials */
	AUTH_ADMIN = 1 << 1,         /* 403 unless the caller is an admin */
	AUTH_READ_USER = 1 << 2,     /* also allowed to tokens with only the read_user scope */
	AUTH_CALLER_RECORD = 1 << 5, /* all of the caller's record is read (c->user->res) */
};

/* Full authentication for a route needing need: looks the token up (all of the caller's
 * record with AUTH_CALLER_RECORD, AUTH_LEAN otherwise), checks scope, applies sudo,
 * enforces AUTH_USER and AUTH_ADMIN; the caller in c->user. 0 or an ERR_ code. */
int auth_authenticate(ctx *c, const credential *cr, unsigned need);
/* Same checks for a caller row already fetched at column col of row (AUTH_SELECT
 * columns; all NULL, or no row, when the token matched nothing). */
int auth_accept_row(ctx *c, const credential *cr, unsigned need, PGresult *res, int row, int col);
/* The same for AUTH_LEAN columns; c->user->res stays NULL. */
int auth_accept_lean(ctx *c, const credential *cr, unsigned need, PGresult *res, int row, int col);
/* Authentication and a handler's record in one round trip: runs stmt, whose first
 * columns are AUTH_LEAN's (from AUTH_FROM with $1 and $2) and whose $3 is arg, then
 * accepts its caller as auth_accept_lean; the record's columns start at AUTH_LEAN_NCOLS.
 * 0 with *res, or an ERR_ code. */
int auth_query(ctx *c, const credential *cr, unsigned need, const char *stmt, const char *arg,
	       PGresult **res);
/* Parameters $1 and $2 for statements embedding AUTH_FROM. */
void auth_params(const credential *cr, const char **values);
/* Whether the caller is an admin. */
static inline bool auth_is_admin(const ctx *c)
{
	return c->user && c->user->admin;
}

#endif
