/* The store of the response and authentication caches: each instance keeps, in memory
 * shared by its workers, entries under a digest of what determines them, with the keys
 * of rows they depend on (core/deps.h) and the sum of those keys' versions when they
 * were stored. What an entry holds, and when it is still true, is its user's business:
 * the response cache (cache/response.h) and the authentication cache (cache/auth.h). */
#ifndef COLLABD_CACHE_STORE_H
#define COLLABD_CACHE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/arena.h"
#include "core/deps.h"

/* A stored response, as cache_put() takes it and cache_get() copies it out. Secrets
 * (a private or runners token) are kept sealed, as in the database: the body holds
 * "\x01" N "\x01" where the secret sealed[N] opens (JSON has no raw control bytes). */
/* What stands for sealed[N] in a kept body: the mark, the digit N, the mark. */
#define CACHE_SECRET_MARK '\x01'

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

#endif
