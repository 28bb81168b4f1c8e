/* Credentials: private, personal access, impersonation and OAuth tokens, and sudo. */
#ifndef COLLABD_AUTH_H
#define COLLABD_AUTH_H

#include "auth/scope.h"
#include "db/credentials.h"
#include "db/db.h"
#include "entity/user.h"
#include "core/ctx.h"

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
