/* The statements of authentication (auth/auth.h tells the rules): the caller that a
 * token names, alone or with the project of a route in one statement (db/scope.h's
 * columns), the user that sudo names, and what the authentication cache
 * (cache/auth.h) reads to know a row it kept still true: the versions of its keys, and
 * the project locked as the row's statement would have locked it. */
#ifndef COLLABD_DB_CREDENTIALS_H
#define COLLABD_DB_CREDENTIALS_H

#include <libpq-fe.h>
#include <stdbool.h>

#include "core/ctx.h"
#include "db/columns.h"
#include "db/db.h"
#include "db/scope.h"

extern const db_stmt db_credentials_stmts[];

/* The columns and FROM clause that turn a token digest ($1) and a flag "sent as OAuth"
 * ($2) into the caller's row: USER_COLS then kind and scopes. Statements that fetch a
 * record together with the caller (one round trip) embed these; AUTH_SELECT is for the
 * routes that present the caller's own record (ROUTE_CALLER_RECORD), AUTH_LEAN for all
 * the others. */
#define AUTH_NCOLS (USER_NCOLS + 3)
#define AUTH_SELECT                                                                                \
	USER_COLS ", t.kind, t.scopes::text, CASE WHEN u.is_admin THEN (SELECT p.sealed FROM "     \
		  "tokens p WHERE p.user_id = u.id AND p.kind = 'private') END"
/* Columns (after USER_COLS) of the token's kind and scopes, and of the sealed private
 * token, shown to admins by GET /user. */
#define AUTH_COL_KIND USER_NCOLS
#define AUTH_COL_SCOPES (USER_NCOLS + 1)
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
/* The parameters of AUTH_FROM, that a statement's own parameters follow. */
enum { AUTH_DIGEST, AUTH_OAUTH, AUTH_NPARAMS };

/* The columns of db_credentials_versions: a key, its version. */
enum { AV_KEY, AV_VERSION, AV_NCOLS };

/* What db_credentials_project reads after the caller (AUTH_LEAN's columns) and the
 * project (SCOPE_PROJECT_COLS from AUTH_LEAN_NCOLS); by path, always DB_AUTH_PROJECT. */
typedef enum db_auth_read {
	DB_AUTH_PROJECT,          /* nothing more */
	DB_AUTH_PROJECT_NO_EPOCH, /* nothing more, and the users' epoch is not needed: left
				   * NULL by a read (a subplan, 13% of the statement) */
	DB_AUTH_PROJECT_FILL,     /* last, the sum of the versions of the keys the row is
				   * read from (the authentication cache's) */
} db_auth_read;

/* $1 and $2 of AUTH_FROM (values[AUTH_DIGEST], values[AUTH_OAUTH]) for a token of
 * digest (NULL: none sent), sent as OAuth when oauth. */
void db_credentials_params(const char *digest, bool oauth, const char **values);
/* The caller that a token of digest names (sent as OAuth when oauth): AUTH_SELECT's
 * columns when record, else AUTH_LEAN_COLS and the users' epoch (enum auth_lean_col);
 * no row when it names nobody. In c's arena, or NULL with *err. */
PGresult *db_credentials_caller(ctx *c, const char *digest, bool oauth, bool record, int *err);
/* The user (not a ghost) whom sudo names, by id or by username without regard to case:
 * USER_COLS, no row when none. In c's arena, or NULL with *err. */
PGresult *db_credentials_sudo(ctx *c, const char *sudo, int *err);
/* stmt, another module's statement whose $1 and $2 are AUTH_FROM's and $3 arg, with
 * those values. In c's arena, or NULL with *err. */
PGresult *db_credentials_with(ctx *c, const char *digest, bool oauth, const char *stmt,
			      const char *arg, int *err);
/* The caller that a token names (as db_credentials_caller, lean) and the project that
 * ref names (scope_project_ref's values: its id, or, by_path, the full path of its
 * namespace and its path) with the caller's access, locked as lock says, and what
 * `what` asks: one row, the project's columns NULL when there is no such project; no
 * row when the token names nobody. With prefetch (NULL: none; only for a read by id)
 * in the same round trip, its result in *prefetched (db_query_with). In c's arena, or
 * NULL with *err. */
PGresult *db_credentials_project(ctx *c, const char *digest, bool oauth, const char *const *ref,
				 bool by_path, scope_lock lock, db_auth_read what,
				 const db_call *prefetch, PGresult **prefetched, int *err);
/* The versions of keys[0..n) (enum AV_*; a key never bumped has no row). With prefetch
 * (NULL: none) in the same round trip, its result in *prefetched. In c's arena, or NULL
 * with *err. */
PGresult *db_credentials_versions(ctx *c, const long long *keys, int n, const db_call *prefetch,
				  PGresult **prefetched, int *err);
/* Project id locked as db_credentials_project locks it with lock (SCOPE_UPDATE or
 * SCOPE_KEY_SHARE), no row when it is gone, then in the same round trip the versions
 * of keys[0..n) as db_credentials_versions, in *versions (NULL when they could not be
 * read). In c's arena, or NULL with *err. */
PGresult *db_credentials_lock(ctx *c, const char *id, scope_lock lock, const long long *keys, int n,
			      PGresult **versions, int *err);

#endif
