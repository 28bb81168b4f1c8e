/* GPG keys: the caller's own (/user/gpg_keys) and, for admins, anyone's
 * (/users/:id/gpg_keys), as GitLab 10.8 has them: list, show, add, delete and revoke.
 * What a key holds is read by GPGME (git/gpg.h) when it is added and kept with it; a
 * key added makes the signatures of its key ids that were not verified be verified
 * again, a key revoked makes its signatures unknown_key (commit_signatures.c). */
#include <ctype.h>
#include <string.h>

#include "api/api.h"
#include "entity/gpg_key.h"
#include "git/gpg.h"
#include "http/pagination.h"

#define KEY_PREFIX "-----BEGIN PGP PUBLIC KEY BLOCK-----"
#define KEY_SUFFIX "-----END PGP PUBLIC KEY BLOCK-----"

/* gpg_keys_taken's row */
enum { GT_USER_EXISTS, GT_KEY, GT_FINGERPRINT, GT_KEYID, GT_NCOLS };
/* gpg_keys_insert's parameters */
enum { GI_USER, GI_KEY, GI_FINGERPRINT, GI_KEYID, GI_UIDS, GI_SUBKEYS, GI_NPARAMS };

const db_stmt gpg_keys_stmts[] = {
	/* $1 user id, $2 limit, $3 offset: the shape of keys.c's lists */
	{"gpg_keys_list",
	 "SELECT (SELECT count(*) FROM gpg_keys WHERE user_id = $1), p.* FROM users u"
	 " LEFT JOIN LATERAL (SELECT " GPG_KEY_COLS " FROM gpg_keys g WHERE g.user_id = u.id"
	 " ORDER BY g.id LIMIT $2 OFFSET $3) p ON true WHERE u.id = $1 AND NOT u.ghost",
	 3, 1 + GPG_KEY_NCOLS},
	{"gpg_keys_show",
	 "SELECT " GPG_KEY_COLS " FROM gpg_keys g WHERE g.id = $1 AND g.user_id = $2", 2,
	 GPG_KEY_NCOLS},
	/* $1 key id, $2 user id: no row when there is no such user, NULLs when the key is
	 * not the user's */
	{"gpg_keys_show_user",
	 "SELECT p.* FROM users u LEFT JOIN LATERAL (SELECT " GPG_KEY_COLS " FROM gpg_keys g"
	 " WHERE g.id = $1 AND g.user_id = u.id) p ON true WHERE u.id = $2 AND NOT u.ghost",
	 2, GPG_KEY_NCOLS},
	/* $1 user id, $2 key text, $3 fingerprint, $4 primary key id (NULL when none) */
	{"gpg_keys_taken",
	 "SELECT EXISTS (SELECT 1 FROM users WHERE id = $1 AND NOT ghost),"
	 " EXISTS (SELECT 1 FROM gpg_keys WHERE md5(key) = md5($2) AND key = $2),"
	 " EXISTS (SELECT 1 FROM gpg_keys WHERE fingerprint = $3),"
	 " EXISTS (SELECT 1 FROM gpg_keys WHERE primary_keyid = $4)",
	 4, GT_NCOLS},
	/* $1 user id, $2 key text, $3 fingerprint, $4 primary key id, $5 the user ids
	 * ([{name, email}] in the key's order), $6 the subkeys ([{keyid, fingerprint}]).
	 * The signatures of the key's ids that were not verified, or that lost their key,
	 * go: the next read verifies them with this key (GitLab's
	 * InvalidGpgSignatureUpdater). No row when there is no such user. */
	{"gpg_keys_insert",
	 "WITH u AS (SELECT id FROM users WHERE id = $1 AND NOT ghost),"
	 " ins AS (INSERT INTO gpg_keys AS g (user_id, key, fingerprint, primary_keyid, uid_names,"
	 " uid_emails) SELECT u.id, $2, $3, $4,"
	 " ARRAY(SELECT x->>'name' FROM jsonb_array_elements($5::jsonb) WITH ORDINALITY t(x, i)"
	 " ORDER BY i),"
	 " ARRAY(SELECT x->>'email' FROM jsonb_array_elements($5::jsonb) WITH ORDINALITY t(x, i)"
	 " ORDER BY i) FROM u RETURNING " GPG_KEY_COLS "),"
	 " sub AS (INSERT INTO gpg_key_subkeys (gpg_key_id, keyid, fingerprint)"
	 " SELECT ins.id, x->>'keyid', x->>'fingerprint' FROM ins, jsonb_array_elements($6::jsonb) x),"
	 " again AS (DELETE FROM gpg_signatures s WHERE EXISTS (SELECT 1 FROM ins)"
	 " AND s.gpg_key_primary_keyid IN (SELECT $4::text UNION ALL"
	 " SELECT x->>'keyid' FROM jsonb_array_elements($6::jsonb) x)"
	 " AND (s.verification_status <> 'verified'"
	 " OR (s.gpg_key_id IS NULL AND s.gpg_key_subkey_id IS NULL)))"
	 " SELECT * FROM ins",
	 GI_NPARAMS, GPG_KEY_NCOLS},
	/* $1 key id, $2 user id: no row when the user does not exist, NULL when the key is
	 * not the user's (404 User before 404 GPG Key). Its signatures keep their status
	 * without the key (the foreign keys' ON DELETE SET NULL). */
	{"gpg_keys_delete",
	 "WITH d AS (DELETE FROM gpg_keys WHERE id = $1 AND user_id = $2 RETURNING id)"
	 " SELECT (SELECT id FROM d) FROM users u WHERE u.id = $2 AND NOT u.ghost",
	 2, 1},
	/* $1 key id, $2 user id: the signatures made with the key or its subkeys become
	 * unknown_key, before the key goes (GitLab's GpgKey#revoke) */
	{"gpg_keys_revoke",
	 "UPDATE gpg_signatures s SET gpg_key_id = NULL, gpg_key_subkey_id = NULL,"
	 " verification_status = 'unknown_key', updated_at = now()"
	 " FROM gpg_keys g WHERE g.id = $1 AND g.user_id = $2"
	 " AND s.verification_status <> 'unknown_key' AND (s.gpg_key_id = g.id"
	 " OR s.gpg_key_subkey_id IN (SELECT sk.id FROM gpg_key_subkeys sk WHERE sk.gpg_key_id = g.id))",
	 2, 0},
	{NULL, NULL, 0, 0},
};

static int list(request *r, const char *user_id)
{
	return user_records_list(r, "gpg_keys_list", user_id, entity_gpg_key);
}

static int gpg_keys_list_mine(request *r)
{
	return list(r, api_caller_id(r));
}

static int gpg_keys_list_user(request *r)
{
	return user_records_for(r, list);
}

static int gpg_keys_show_mine(request *r)
{
	return user_records_show_mine(r, "gpg_keys_show", "key_id", "GPG Key", entity_gpg_key);
}

static int show(request *r, const char *user_id)
{
	const char *key_id;
	int rc = api_id(r, "key_id", &key_id);
	if (rc < 0)
		return rc;
	const char *v[2] = {key_id, user_id};
	PGresult *res;
	if ((rc = api_find(r, "gpg_keys_show_user", 2, v, "User", &res)) != 0)
		return rc < 0 ? rc : 0;
	if (PQgetisnull(res, 0, 0))
		return fail_not_found(r, "GPG Key");
	respond_json(r, 200, entity_gpg_key(&r->ctx, res, 0, 0));
	return 0;
}

/* GET /users/:id/gpg_keys/:key_id: not in 10.8, which lists a user's keys to admins
 * only; later releases have it, and python-gitlab's UserGPGKeyManager.get calls it. Here
 * for admins as that list. */
static int gpg_keys_show_user(request *r)
{
	return user_records_for(r, show);
}

/* GitLab's GpgKey key format: one public key block, nothing before or after it. */
static bool armored_public_key(const char *key)
{
	size_t n = strlen(key), pre = strlen(KEY_PREFIX), suf = strlen(KEY_SUFFIX);
	if (n <= pre + suf || strncmp(key, KEY_PREFIX, pre) != 0)
		return false;
	const char *end = strstr(key + pre, KEY_SUFFIX);
	return end == key + n - suf && !strstr(key + pre, KEY_PREFIX);
}

/* The key as GitLab's GpgKey#key= keeps it: without surrounding whitespace. */
static const char *strip(request *r, const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return arena_strndup(r->ctx.a, s, n);
}

/* [{name, email}] and [{keyid, fingerprint}] of k, as the insert takes them */
static void key_json(request *r, const gpg_key_info *k, const char **uids, const char **subkeys)
{
	json_object *u = request_own(r, json_object_new_array());
	for (int i = 0; i < k->nuids; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(k->uids[i].name));
		json_object_object_add(o, "email", json_object_new_string(k->uids[i].email));
		json_object_array_add(u, o);
	}
	json_object *s = request_own(r, json_object_new_array());
	for (int i = 0; i < k->nsubkeys; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "keyid", json_object_new_string(k->subkeys[i].keyid));
		json_object_object_add(o, "fingerprint",
				       json_object_new_string(k->subkeys[i].fingerprint));
		json_object_array_add(s, o);
	}
	*uids = json_object_to_json_string_ext(u, JSON_C_TO_STRING_PLAIN);
	*subkeys = json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN);
}

static int create(request *r, const char *user_id)
{
	const char *given = param_str(r, "key");
	if (!given)
		return fail_missing(r, "key");
	const char *key = strip(r, given);
	bool blank = !*key, armored = armored_public_key(key);
	gpg_key_info k = {0};
	if (armored) {
		int rc = gpg_key_read(&r->ctx, key, &k);
		if (rc < 0 && rc != ERR_INVALID)
			return rc;
	}
	const char *v[4] = {user_id, key, k.fingerprint, k.keyid};
	int err;
	PGresult *res = db_query(&r->ctx, "gpg_keys_taken", 4, v, &err);
	if (!res)
		return err;
	if (!db_bool(res, 0, GT_USER_EXISTS))
		return fail_not_found(r, "User");
	/* GitLab's GpgKey validations, in their order; the fingerprint's and the key id's
	 * only when the key itself passed */
	if (blank)
		fail_validation(r, "key", "can't be blank");
	if (db_bool(res, 0, GT_KEY))
		fail_validation(r, "key", "has already been taken");
	if (!armored)
		fail_validation(r, "key",
				"is invalid. A valid public GPG key begins with '" KEY_PREFIX
				"' and ends with '" KEY_SUFFIX "'");
	if (!r->validation) {
		if (!k.fingerprint)
			fail_validation(r, "fingerprint", "can't be blank");
		else if (db_bool(res, 0, GT_FINGERPRINT))
			fail_validation(r, "fingerprint", "has already been taken");
		if (!k.keyid)
			fail_validation(r, "primary_keyid", "can't be blank");
		else if (db_bool(res, 0, GT_KEYID))
			fail_validation(r, "primary_keyid", "has already been taken");
	}
	if (r->validation)
		return ERR_VALIDATION;
	const char *ins[GI_NPARAMS] = {[GI_USER] = user_id,
				       [GI_KEY] = key,
				       [GI_FINGERPRINT] = k.fingerprint,
				       [GI_KEYID] = k.keyid};
	key_json(r, &k, &ins[GI_UIDS], &ins[GI_SUBKEYS]);
	res = db_query(&r->ctx, "gpg_keys_insert", GI_NPARAMS, ins, &err);
	if (!res) {
		if (err == ERR_CONFLICT) { /* at the same moment, or a subkey of another key */
			r->ctx.err_detail = NULL;
			return fail_validation(r, "fingerprint", "has already been taken");
		}
		return err;
	}
	if (PQntuples(res) == 0)
		return fail_not_found(r, "User");
	respond_json(r, 201, entity_gpg_key(&r->ctx, res, 0, 0));
	return 0;
}

static int gpg_keys_create_mine(request *r)
{
	return create(r, api_caller_id(r));
}

static int gpg_keys_create_user(request *r)
{
	return user_records_for(r, create);
}

/* Removes the key (after revoking its signatures when revoke): 204, or 10.8's 202 of a
 * revocation, whose body is the status Grape's `status :accepted` returns. */
static int remove_key(request *r, const char *user_id, bool revoke)
{
	const char *key_id;
	int rc = api_id(r, "key_id", &key_id);
	if (rc < 0)
		return rc;
	const char *v[2] = {key_id, user_id};
	int err;
	if (revoke && !db_query(&r->ctx, "gpg_keys_revoke", 2, v, &err))
		return err;
	PGresult *res;
	if ((rc = api_find(r, "gpg_keys_delete", 2, v, "User", &res)) != 0)
		return rc < 0 ? rc : 0;
	if (PQgetisnull(res, 0, 0))
		return fail_not_found(r, "GPG Key");
	if (revoke)
		respond_json(r, 202, json_object_new_int(202));
	else
		respond_empty(r, 204);
	return 0;
}

static int delete_key(request *r, const char *user_id)
{
	return remove_key(r, user_id, false);
}

static int revoke_key(request *r, const char *user_id)
{
	return remove_key(r, user_id, true);
}

static int gpg_keys_delete_mine(request *r)
{
	return delete_key(r, api_caller_id(r));
}

static int gpg_keys_delete_user(request *r)
{
	return user_records_for(r, delete_key);
}

static int gpg_keys_revoke_mine(request *r)
{
	return revoke_key(r, api_caller_id(r));
}

static int gpg_keys_revoke_user(request *r)
{
	return user_records_for(r, revoke_key);
}

/* The module's routes (http/router.h), in the order they are matched. 10.8 lists a
 * user's keys for admins only. */
const route gpg_keys_routes[] = {
	{"GET", V4 "/user/gpg_keys", gpg_keys_list_mine, AUTH | RU, NULL},
	{"GET", V4 "/users/:id/gpg_keys", gpg_keys_list_user, ADMIN | RU, NULL},
	{"GET", V4 "/user/gpg_keys/:key_id", gpg_keys_show_mine, AUTH | RU, NULL},
	{"GET", V4 "/users/:id/gpg_keys/:key_id", gpg_keys_show_user, ADMIN | RU, NULL},
	{"POST", V4 "/user/gpg_keys", gpg_keys_create_mine, AUTH, NULL},
	{"POST", V4 "/users/:id/gpg_keys", gpg_keys_create_user, ADMIN, NULL},
	{"DELETE", V4 "/user/gpg_keys/:key_id", gpg_keys_delete_mine, AUTH, NULL},
	{"DELETE", V4 "/users/:id/gpg_keys/:key_id", gpg_keys_delete_user, ADMIN, NULL},
	/* TX: the signatures' new status goes with the key's removal */
	{"POST", V4 "/user/gpg_keys/:key_id/revoke", gpg_keys_revoke_mine, AUTH | TX, NULL},
	{"POST", V4 "/users/:id/gpg_keys/:key_id/revoke", gpg_keys_revoke_user, ADMIN | TX, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
