#include "auth/auth.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth/scope.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/deps.h"

void auth_params(const credential *cr, const char **values)
{
	db_credentials_params(cr->token_digest, cr->oauth, values);
}

/* scopes is a text[] literal such as {api,read_user}. */
static bool has_scope(const char *scopes, const char *scope)
{
	size_t n = strlen(scope);
	const char *p = scopes ? scopes : "";
	while (*p) {
		if (*p == '{' || *p == ',') {
			p++;
			continue;
		}
		const char *e = p;
		while (*e && *e != ',' && *e != '}')
			e++;
		if ((size_t)(e - p) == n && strncmp(p, scope, n) == 0)
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}

static int auth_fail(ctx *c, int code, const char *detail)
{
	c->err_detail = detail;
	return code;
}

/* Where a row holds a caller's fields, from the column it starts at (-1: not there):
 * AUTH_SELECT's columns (the row is all of the user's record: c->user->res), the user
 * whom sudo names (USER_COLS, no token), AUTH_LEAN's (and the users' epoch when the
 * statement read it). */
enum caller_shape { CALLER_RECORD, CALLER_SUDO, CALLER_LEAN };
typedef struct {
	int id, admin, external, username, email, can_create_group, kind, scopes, users_epoch;
	bool record;
} caller_cols;
static const caller_cols caller_shapes[] = {
	[CALLER_RECORD] = {UC_ID, UC_IS_ADMIN, UC_EXTERNAL, UC_USERNAME, UC_EMAIL,
			   UC_CAN_CREATE_GROUP, AUTH_COL_KIND, AUTH_COL_SCOPES, -1, true},
	[CALLER_SUDO] = {UC_ID, UC_IS_ADMIN, UC_EXTERNAL, UC_USERNAME, UC_EMAIL,
			 UC_CAN_CREATE_GROUP, -1, -1, -1, true},
	[CALLER_LEAN] = {AL_ID, AL_IS_ADMIN, AL_EXTERNAL, AL_USERNAME, AL_EMAIL,
			 AL_CAN_CREATE_GROUP, AL_KIND, AL_SCOPES, AL_USERS_EPOCH, false},
};

static caller *caller_read(ctx *c, PGresult *res, int row, int col, enum caller_shape shape)
{
	const caller_cols *k = &caller_shapes[shape];
	caller *who = arena_alloc(c->a, sizeof(*who));
	who->id = db_int(res, row, col + k->id);
	who->admin = db_bool(res, row, col + k->admin);
	who->external = db_bool(res, row, col + k->external);
	who->username = db_val(res, row, col + k->username);
	who->email = db_val(res, row, col + k->email);
	who->can_create_group = db_bool(res, row, col + k->can_create_group);
	if (k->kind >= 0)
		who->token_kind = db_val(res, row, col + k->kind);
	if (k->scopes >= 0)
		who->scopes = db_val(res, row, col + k->scopes);
	if (k->users_epoch >= 0 && !PQgetisnull(res, row, col + k->users_epoch))
		c->users_epoch = db_int(res, row, col + k->users_epoch);
	if (k->record) {
		who->res = res;
		who->row = row;
		who->col = col;
	}
	return who;
}

/* As GitLab 10.0's sudo! (lib/api/helpers.rb): an admin, and only with the private
 * token; not with an OAuth, personal access or impersonation token. The messages are
 * its forbidden!(reason), "403 Forbidden" and " - reason" joined by a space. */
static int apply_sudo(ctx *c, const credential *cr)
{
	if (!c->user->admin)
		return auth_fail(c, ERR_FORBIDDEN, "403 Forbidden  - Must be admin to use sudo");
	if (!c->user->token_kind || strcmp(c->user->token_kind, "private") != 0)
		return auth_fail(
			c, ERR_FORBIDDEN,
			"403 Forbidden  - Private token must be specified in order to use sudo");
	int err;
	PGresult *res = db_credentials_sudo(c, cr->sudo, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return auth_fail(c, ERR_SUDO_NOT_FOUND, cr->sudo);
	caller *who = caller_read(c, res, 0, 0, CALLER_SUDO);
	who->scopes = c->user->scopes;
	who->token_kind = c->user->token_kind;
	who->impersonated = true;
	c->user = who;
	/* which user the name names changes with any user's rename */
	deps_add(c, CACHE_SET_USERS);
	deps_add(c, CACHE_KEY_USER(who->id));
	return 0;
}

/* The checks once c->user is c (NULL: no credential was sent): scope, sudo, the route's
 * flags. */
static int accept_caller(ctx *c, const credential *cr, unsigned need, caller *who)
{
	c->user = who;
	if (who) {
		deps_add(c, CACHE_KEY_USER(who->id));
		if (!has_scope(who->scopes, "api")) {
			bool read_only = (need & AUTH_READ_USER) && cr->reading &&
					 has_scope(who->scopes, "read_user");
			if (!read_only)
				return ERR_SCOPE;
		}
		if (cr->sudo) {
			int rc = apply_sudo(c, cr);
			if (rc < 0)
				return rc;
		}
	}
	if (!c->user && (need & (AUTH_USER | AUTH_ADMIN)))
		return ERR_UNAUTHORIZED;
	if ((need & AUTH_ADMIN) && !c->user->admin)
		return ERR_FORBIDDEN;
	return 0;
}

/* A credential was sent and it matched nothing: no row, or NULLs at col. */
static bool no_caller(const PGresult *res, int row, int col)
{
	return !res || PQntuples(res) <= row || PQgetisnull(res, row, col);
}

/* The checks for the caller in row at col, its columns as shape says. */
static int accept_shape(ctx *c, const credential *cr, unsigned need, PGresult *res, int row,
			int col, enum caller_shape shape)
{
	if (!cr->token_digest)
		return accept_caller(c, cr, need, NULL);
	if (no_caller(res, row, col + caller_shapes[shape].id))
		return ERR_UNAUTHORIZED;
	return accept_caller(c, cr, need, caller_read(c, res, row, col, shape));
}

int auth_accept_row(ctx *c, const credential *cr, unsigned need, PGresult *res, int row, int col)
{
	return accept_shape(c, cr, need, res, row, col, CALLER_RECORD);
}

int auth_accept_lean(ctx *c, const credential *cr, unsigned need, PGresult *res, int row, int col)
{
	return accept_shape(c, cr, need, res, row, col, CALLER_LEAN);
}

int auth_authenticate(ctx *c, const credential *cr, unsigned need)
{
	if (!cr->token_digest)
		return accept_caller(c, cr, need, NULL);
	bool record = need & AUTH_CALLER_RECORD;
	int err;
	PGresult *res = db_credentials_caller(c, cr->token_digest, cr->oauth, record, &err);
	if (!res)
		return err;
	return accept_shape(c, cr, need, res, 0, 0, record ? CALLER_RECORD : CALLER_LEAN);
}

int auth_query(ctx *c, const credential *cr, unsigned need, const char *stmt, const char *arg,
	       PGresult **res)
{
	int err;
	if (!(*res = db_credentials_with(c, cr->token_digest, cr->oauth, stmt, arg, &err)))
		return err;
	return auth_accept_lean(c, cr, need, *res, 0, 0);
}
