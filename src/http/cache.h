/* The response cache: each worker keeps, in memory, the 200 responses of the GET routes
 * flagged ROUTE_CACHE, under a digest of what determines them (the path and query, the
 * credential, sudo), with the keys they depend on (sql/0010_cache_keys.sql). A cached
 * response is served only after one statement finds the sum of its keys' versions
 * unchanged; the triggers of the migrations bump the versions in the transaction that
 * changes the rows, so a response is never older than the reader's snapshot, whichever
 * instance wrote. A response is kept from the second time its key is missed (one asked
 * for once costs what it costs without a cache); then the handler runs inside one read-only REPEATABLE READ
 * transaction that also reads the versions, so the response and the versions it is
 * stored with are of one snapshot.
 *
 * The presenters that read the rows declare the keys (src/entity/: a user record its
 * user, a project record its project, namespace, owner and fork source), and a list
 * the sets that decide which rows it holds and in what order; authentication names the
 * caller (and, with sudo, the set of users); key 0 is always named. A handler names no
 * key, except cache_depend_none() for something no key covers.
 *
 * With cache_verify (configuration), every hit also runs the handler in a snapshot, as a
 * miss does, and compares: a difference is logged as an error naming the route and the
 * key, and answered 500. */
#ifndef COLLABD_CACHE_H
#define COLLABD_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/deps.h"
#include "db/db.h"
#include "http/request.h"

/* A stored response, as cache_put() takes it and cache_get() copies it out. Secrets
 * (a private or runners token) are kept sealed, as in the database: the body holds
 * "\x01" N "\x01" where the secret sealed[N] opens (JSON has no raw control bytes). */
typedef struct {
	char key[65]; /* hex SHA-256 of what determines the response */
	time_t expires;
	long long deps[DEPS_MAX];
	int ndeps;
	long long sum; /* of the deps' versions when stored */
	int status;
	const char *headers; /* as r->headers: "Name: value\r\n"... */
	size_t headers_len;
	const char *body;
	size_t body_len;
	const char *sealed[DEPS_MAX_SECRETS];
	int nsealed;
} cache_entry;

/* The store, shared by the workers of an instance: the master makes it before it forks
 * them (and a new one for the workers of a reload). At most max_bytes of responses; the
 * oldest written go first. NULL when the memory cannot be had. */
typedef struct cache cache;
cache *cache_new(size_t max_bytes);
void cache_free(cache *c);
/* Copies the entry under key, unexpired at now (an expired one is dropped), into out
 * (its headers and body in arena a); false when there is none. */
bool cache_get(cache *c, const char *key, time_t now, arena *a, cache_entry *out);
void cache_remove(cache *c, const char *key);
/* Whether a response for key is worth keeping: false the first time key is asked for
 * (and remembered), true from the second (a few keys may push each other out). */
bool cache_admit(cache *c, const char *key);
/* Stores a copy of e under e->key, replacing any entry there. */
void cache_put(cache *c, const cache_entry *e);
/* body with every occurrence of plain[i] replaced by "\x01" i "\x01" (in a), its length
 * in *len; NULL when a secret is too short to be told from the rest (under 8 bytes). */
char *cache_mask_secrets(arena *a, const char *body, size_t body_len, const char *const *plain,
			 int n, size_t *len);
/* When an entry stored at now expires: at the end of the UTC day (a token's expiry, a
 * membership's, is a date: one valid now stays valid until then), or an hour from now
 * if sooner. */
time_t cache_expiry(time_t now);
/* The entries there (for tests). */
size_t cache_count(cache *c);

/* The dispatcher's side, for a ROUTE_CACHE route once the credentials are read:
 * cache_serve() answers from the cache (true) or starts the snapshot the handler runs
 * in (false); cache_finish() after the handler (rc its return) stores a 200 with the
 * versions read in that snapshot and ends it. Verifying a hit (cache_verify),
 * cache_finish() compares instead; on a difference it answers 500 itself and returns
 * ERR_INTERNAL (when the handler failed, rc < 0, only a dispatcher that takes its return
 * as the handler's turns that into the 500); otherwise rc. */
bool cache_serve(request *r);
int cache_finish(request *r, int rc);

extern const db_stmt cache_stmts[];

#endif
