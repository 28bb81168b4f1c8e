#include "cache/auth.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/metrics.h"

/* The authentication cache (auth_cache_mb): auth_project's row for a token and a
 * project id, in a store the workers of an instance share (cache/store.h), with the
 * sum of the versions of the keys it was read from (AUTH_PROJECT_KEYS), read in the
 * statement that read the row (auth_project_fill). A request that finds the row reads
 * those versions and the users' epoch (auth_versions, in the round trip of the
 * handler's prefetched statement, where auth_project would go): unchanged, the row
 * stands for auth_project's; changed, auth_project_fill reads it again. So a revoked
 * token, a blocked user, a membership or a visibility changed through any instance is
 * seen by the next request, as without the cache; a token or membership that expires
 * (a date) by the end of the UTC day the row was read (cache_expiry). A writing route
 * locks the project in its transaction before it reads the versions (auth_cache_find).
 * Only routes by project id: a path may come to name another project. With
 * cache_verify, every row found is
 * also read again by auth_project and compared (a difference is logged and answered
 * 500). */
#define AUTH_ROW_NCOLS (AUTH_LEAN_NCOLS + SCOPE_PROJECT_NCOLS)

static const char *auth_cache_key(ctx *c, const credential *cr, const char *project_id)
{
	const char *s =
		arena_printf(c->a, "auth\n%s\n%d\n%s", cr->token_digest, cr->oauth, project_id);
	return crypto_sha256_hex(c->a, s, strlen(s));
}

/* Row 0 of res (AUTH_ROW_NCOLS columns, the users' epoch left out: it is read at each
 * request) as the store keeps it: per column 'n' (NULL) or 'v' and the text, then NUL. */
static char *auth_row_pack(ctx *c, const PGresult *res, size_t *len)
{
	buf b;
	buf_init(&b, c->a, 512);
	for (int i = 0; i < AUTH_ROW_NCOLS; i++) {
		bool null = i == AL_USERS_EPOCH || PQgetisnull(res, 0, i);
		buf_putc(&b, null ? 'n' : 'v');
		if (!null)
			buf_puts(&b, PQgetvalue(res, 0, i));
		buf_putc(&b, '\0');
	}
	*len = b.len;
	return b.data;
}

static void clear_row(void *res)
{
	PQclear(res);
}

/* The row auth_row_pack packed, as a result of one row (freed with the arena). */
static PGresult *auth_row_unpack(ctx *c, const char *p, size_t len)
{
	PGresult *res = PQmakeEmptyPGresult(NULL, PGRES_TUPLES_OK);
	if (!res)
		return NULL;
	arena_defer(c->a, clear_row, res);
	PGresAttDesc cols[AUTH_ROW_NCOLS];
	for (int i = 0; i < AUTH_ROW_NCOLS; i++)
		cols[i] = (PGresAttDesc){
			.name = "c", .format = 0, .typid = 25, .typlen = -1, .atttypmod = -1};
	if (!PQsetResultAttrs(res, AUTH_ROW_NCOLS, cols))
		return NULL;
	const char *end = p + len;
	for (int i = 0; i < AUTH_ROW_NCOLS; i++) {
		if (p >= end)
			return NULL;
		size_t n = strlen(p + 1);
		if (!PQsetvalue(res, 0, i, *p == 'n' ? NULL : (char *)p + 1,
				*p == 'n' ? -1 : (int)n))
			return NULL;
		p += n + 2;
	}
	return res;
}

/* The keys the row of res depends on (AUTH_PROJECT_KEYS) into deps: their number, or 0
 * when the row is not one to keep (no caller, no project). */
static int auth_row_deps(const PGresult *res, long long *deps)
{
	int id = AUTH_LEAN_NCOLS + PS_ID;
	int ns = AUTH_LEAN_NCOLS + PS_NAMESPACE_ID;
	if (PQntuples(res) != 1 || PQgetisnull(res, 0, AL_ID) || PQgetisnull(res, 0, id) ||
	    PQgetisnull(res, 0, ns))
		return 0;
	deps[0] = CACHE_KEY_ALL;
	deps[1] = CACHE_KEY_USER(db_int(res, 0, AL_ID));
	deps[2] = CACHE_KEY_PROJECT(db_int(res, 0, id));
	deps[3] = CACHE_KEY_NAMESPACE(db_int(res, 0, ns));
	return 4;
}

/* Keeps the row auth_project_fill read (its last column the versions' sum). */
static void auth_cache_put(ctx *c, cache *store, const char *key, const PGresult *res)
{
	cache_entry e = {.expires = cache_expiry(time(NULL)), .status = 200, .headers = ""};
	e.ndeps = auth_row_deps(res, e.deps);
	if (!e.ndeps || PQgetisnull(res, 0, AUTH_ROW_NCOLS))
		return;
	e.sum = db_int(res, 0, AUTH_ROW_NCOLS);
	e.body = auth_row_pack(c, res, &e.body_len);
	snprintf(e.key, sizeof(e.key), "%s", key);
	cache_put(store, &e);
}

/* The row kept under key for project id, if the versions of its keys are still those it
 * was read with: 0 with it in *out (NULL: none, or no longer so), or an ERR_ code. A
 * reading route reads the versions in the round trip of its prefetched statement
 * (r->prefetched); a writing route's transaction first locks the project as the row's
 * statement would have (FOR UPDATE, FOR KEY SHARE), and reads them in the next
 * statement, after any writer it waited for. */
static int auth_cache_find(ctx *c, cache *store, const db_call *prefetch, PGresult **prefetched,
			   const char *key, scope_lock lock, const char *id, PGresult **out)
{
	*out = NULL;
	cache_entry e;
	if (!cache_get(store, key, time(NULL), c->a, &e))
		return 0;
	long long keys[DEPS_MAX + 1];
	memcpy(keys, e.deps, (size_t)e.ndeps * sizeof(keys[0]));
	keys[e.ndeps] = CACHE_KEY_USER_VIEWS;
	int err;
	PGresult *q;
	if (lock != SCOPE_READ) {
		PGresult *locked = db_credentials_lock(c, id, lock, keys, e.ndeps + 1, &q, &err);
		if (!locked)
			return err;
		if (!q)
			return ERR_INTERNAL; /* the transaction cannot go on */
		if (PQntuples(locked) != 1)
			return 0; /* gone: the row's statement tells */
	} else {
		bool with = prefetch->stmt && !db_in_transaction(c);
		q = db_credentials_versions(c, keys, e.ndeps + 1, with ? prefetch : NULL,
					    prefetched, &err);
	}
	if (!q)
		return err;
	long long sum = 0, epoch = 0;
	for (int i = 0; i < PQntuples(q); i++) {
		long long k = db_int(q, i, AV_KEY), ver = db_int(q, i, AV_VERSION);
		for (int j = 0; j < e.ndeps; j++)
			if (e.deps[j] == k)
				sum += ver;
		if (k == CACHE_KEY_ALL || k == CACHE_KEY_USER_VIEWS)
			epoch += ver;
	}
	if (sum != e.sum) {
		cache_remove(store, key);
		return 0;
	}
	*out = auth_row_unpack(c, e.body, e.body_len);
	if (*out)
		c->users_epoch = epoch;
	return 0;
}

/* cache_verify: the row found against auth_project's. A writer that commits between
 * the versions' check and this read makes them differ rightly: the kept row was the
 * database's when its versions were checked, which a second check that finds them
 * moved shows. */
static int auth_cache_verify(ctx *c, cache *store, const char *key, const credential *cr,
			     const char *const *ref, const PGresult *found)
{
	int err;
	PGresult *q = db_credentials_project(c, cr->token_digest, cr->oauth, ref, false, SCOPE_READ,
					     DB_AUTH_PROJECT, NULL, NULL, &err);
	if (!q)
		return err;
	size_t a_len = 0, b_len = 0;
	const char *a = PQntuples(q) == 1 ? auth_row_pack(c, q, &a_len) : "";
	const char *b = auth_row_pack(c, found, &b_len);
	if (a_len != b_len || memcmp(a, b, a_len) != 0) {
		db_call none = {0};
		PGresult *prefetched = NULL, *again = NULL;
		if ((err = auth_cache_find(c, store, &none, &prefetched, key, SCOPE_READ, ref[0],
					   &again)) < 0)
			return err;
		if (!again)
			return 0;
		log_error("authentication cache: the row kept for project %s is not the database's",
			  ref[0]);
		return ERR_INTERNAL;
	}
	return 0;
}

int cache_auth_project(ctx *c, const credential *cr, unsigned need, const char *id, scope_lock lock,
		       bool no_user_refs, cache *store, const db_call *prefetch,
		       PGresult **prefetched, PGresult **res)
{
	*prefetched = NULL;
	*res = NULL;
	const char *ref[2];
	bool by_path;
	if (scope_project_ref(c, id, ref, &by_path) < 0)
		return auth_authenticate(c, cr, need); /* a path that names no project */
	db_auth_read what = DB_AUTH_PROJECT;
	const char *key = NULL;
	PGresult *q = NULL;
	int err;
	if (store && !by_path) {
		key = auth_cache_key(c, cr, ref[0]);
		if ((err = auth_cache_find(c, store, prefetch, prefetched, key, lock, ref[0], &q)) <
		    0)
			return err;
		metrics_add(q ? METRIC_AUTH_CACHE_HITS : METRIC_AUTH_CACHE_MISSES, 1);
		if (q && c->cfg->cache_verify && (err = auth_cache_verify(c, store, key, cr, ref, q)) < 0)
			return err;
		what = DB_AUTH_PROJECT_FILL;
	} else if (lock == SCOPE_READ && !by_path && no_user_refs) {
		what = DB_AUTH_PROJECT_NO_EPOCH;
	}
	if (!q) {
		bool with = prefetch->stmt && !*prefetched && lock == SCOPE_READ && !by_path &&
			    !db_in_transaction(c);
		q = db_credentials_project(c, cr->token_digest, cr->oauth, ref, by_path, lock, what,
					   with ? prefetch : NULL, prefetched, &err);
		if (!q)
			return err;
		if (key)
			auth_cache_put(c, store, key, q);
	}
	int rc = auth_accept_lean(c, cr, need, q, 0, 0);
	if (rc == 0)
		*res = q;
	return rc;
}
