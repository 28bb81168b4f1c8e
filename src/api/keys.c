/* SSH keys: the caller's own (/user/keys) and, for admins, anyone's (/users/:id/keys)
 * and any key with its user (/keys/:id). */
#include <string.h>

#include "api/api.h"
#include "auth/auth.h"
#include "core/sshkey.h"
#include "entity/key.h"
#include "entity/user.h"
#include "http/pagination.h"

const db_stmt keys_stmts[] = {
	/* $1 user id, $2 limit, $3 offset; first row carries the total, and the user's
	 * existence (a row with NULL key columns when the user has no keys). */
	{"keys_list",
	 "SELECT (SELECT count(*) FROM keys WHERE user_id = $1), p.* FROM users u"
	 " LEFT JOIN LATERAL (SELECT " KEY_COLS " FROM keys k WHERE k.user_id = u.id"
	 " ORDER BY k.id LIMIT $2 OFFSET $3) p ON true WHERE u.id = $1 AND NOT u.ghost",
	 3, 1 + KEY_NCOLS},
	{"keys_show", "SELECT " KEY_COLS " FROM keys k WHERE k.id = $1 AND k.user_id = $2", 2,
	 KEY_NCOLS},
	{"keys_insert",
	 "INSERT INTO keys AS k (user_id, title, key, fingerprint)"
	 " SELECT u.id, $2, $3, $4 FROM users u WHERE u.id = $1 AND NOT u.ghost"
	 " RETURNING " KEY_COLS,
	 4, KEY_NCOLS},
	/* $1 key id, $2 user id: no row when the user does not exist, NULL when the key
	 * is not the user's (as GitLab: 404 User before 404 Key) */
	{"keys_delete",
	 "WITH d AS (DELETE FROM keys WHERE id = $1 AND user_id = $2 RETURNING id)"
	 " SELECT (SELECT id FROM d) FROM users u WHERE u.id = $2 AND NOT u.ghost",
	 2, 1},
	/* GitLab 10.8's SSHKeyWithUser: the key, then its user (UserPublic) */
	{"keys_show_any",
	 "SELECT " KEY_COLS ", " USER_COLS " FROM keys k JOIN users u ON u.id = k.user_id"
	 " WHERE k.id = $1",
	 1, KEY_NCOLS + USER_NCOLS},
	{NULL, NULL, 0, 0},
};

/* ---- shared with emails.c (api.h) ---- */

int user_records_for(request *r, int (*fn)(request *r, const char *user_id))
{
	const char *id;
	int rc = api_id(r, "id", &id);
	return rc < 0 ? rc : fn(r, id);
}

int user_records_list(request *r, const char *stmt, const char *user_id, presenter_fn present)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	const char *v[3] = {user_id, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	PGresult *res;
	if ((rc = api_find(r, stmt, 3, v, "User", &res)) != 0)
		return rc < 0 ? rc : 0;
	api_respond_page(r, &pg, res, present);
	return 0;
}

int user_records_show_mine(request *r, const char *stmt, const char *path_param, const char *what,
			   presenter_fn present)
{
	const char *record_id;
	int rc = api_id(r, path_param, &record_id);
	if (rc < 0)
		return rc;
	const char *v[2] = {record_id, api_caller_id(r)};
	PGresult *res;
	if ((rc = api_find(r, stmt, 2, v, what, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_json(r, 200, present(&r->ctx, res, 0, 0));
	return 0;
}

/* ---- routes ---- */

static int list(request *r, const char *user_id)
{
	return user_records_list(r, "keys_list", user_id, entity_key);
}

static int keys_list_mine(request *r)
{
	return list(r, api_caller_id(r));
}

static int keys_list_user(request *r)
{
	return user_records_for(r, list);
}

static int keys_show_mine(request *r)
{
	return user_records_show_mine(r, "keys_show", "key_id", "Key", entity_key);
}

/* GET /keys/:id (admins, as 10.8): the key of any user, with that user. */
static int keys_show_any(request *r)
{
	const char *id;
	int rc = api_id(r, "id", &id);
	if (rc < 0)
		return rc;
	PGresult *res;
	if ((rc = api_find(r, "keys_show_any", 1, &id, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	json_object *o = entity_key(&r->ctx, res, 0, 0);
	json_object_object_add(o, "user", entity_user(&r->ctx, res, 0, KEY_NCOLS, USER_VIEW_SELF));
	respond_json(r, 200, o);
	return 0;
}

static int create(request *r, const char *user_id)
{
	const char *title, *text;
	int rc;
	if ((rc = param_require(r, "title", &title)) < 0 ||
	    (rc = param_require(r, "key", &text)) < 0)
		return rc;
	param_text(r, "title", 255, &title);
	if (strlen(text) > 16384) {
		fail_validation(r, "key", "is too long (maximum is 16384 characters)");
	}
	sshkey k;
	if (!r->validation && sshkey_parse(r->ctx.a, text, &k) < 0) {
		fail_validation(r, "key", "is invalid");
		fail_validation(r, "fingerprint", "cannot be generated");
	}
	if (r->validation)
		return ERR_VALIDATION;
	const char *v[4] = {user_id, title, k.normalized, k.fingerprint};
	int err;
	PGresult *res = db_query(&r->ctx, "keys_insert", 4, v, &err);
	if (!res) {
		if (err == ERR_CONFLICT) {
			r->ctx.err_detail = NULL;
			return fail_validation(r, "fingerprint", "has already been taken");
		}
		return err;
	}
	if (PQntuples(res) == 0)
		return fail_not_found(r, "User");
	if ((rc = hooks_system_key(&r->ctx, "key_create", PQgetvalue(res, 0, 0))) < 0)
		return rc;
	respond_json(r, 201, entity_key(&r->ctx, res, 0, 0));
	return 0;
}

static int keys_create_mine(request *r)
{
	return create(r, api_caller_id(r));
}

static int keys_create_user(request *r)
{
	return user_records_for(r, create);
}

static int delete_key(request *r, const char *user_id)
{
	const char *key_id;
	int rc = api_id(r, "key_id", &key_id);
	if (rc < 0)
		return rc;
	const char *v[2] = {key_id, user_id};
	PGresult *res;
	/* read before it goes; a key of another user rolls it back with the 404 */
	if ((rc = hooks_system_key(&r->ctx, "key_destroy", key_id)) < 0 ||
	    (rc = api_find(r, "keys_delete", 2, v, "User", &res)) < 0)
		return rc;
	if (PQgetisnull(res, 0, 0))
		return fail_not_found(r, "Key");
	respond_empty(r, 204);
	return 0;
}

static int keys_delete_mine(request *r)
{
	return delete_key(r, api_caller_id(r));
}

static int keys_delete_user(request *r)
{
	return user_records_for(r, delete_key);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route keys_routes[] = {
	{"GET", V4 "/user/keys", keys_list_mine, AUTH | RU, NULL},
	{"GET", V4 "/users/:id/keys", keys_list_user, ADMIN | RU, NULL},
	{"GET", V4 "/user/keys/:key_id", keys_show_mine, AUTH | RU, NULL},
	/* TX: the key_create / key_destroy system event goes with the write */
	{"POST", V4 "/user/keys", keys_create_mine, AUTH | TX, NULL},
	{"POST", V4 "/users/:id/keys", keys_create_user, ADMIN | TX, NULL},
	{"DELETE", V4 "/user/keys/:key_id", keys_delete_mine, AUTH | TX, NULL},
	{"DELETE", V4 "/users/:id/keys/:key_id", keys_delete_user, ADMIN | TX, NULL},
	{"GET", V4 "/keys/:id", keys_show_any, ADMIN, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
