/* The response cache: an instance keeps, in memory (cache/store.h), the 200 responses of
 * the GET routes flagged ROUTE_CACHE, under a digest of what determines them (the path
 * and query, the credential, sudo), with the keys they depend on (core/deps.h). A kept
 * response is served only after one statement finds the sum of its keys' versions
 * unchanged; the triggers of the migrations bump the versions in the transaction that
 * changes the rows, so a response is never older than the reader's snapshot, whichever
 * instance wrote. A response is kept from the second time its key is missed (one asked
 * for once costs what it costs without a cache); then the handler runs inside one
 * read-only REPEATABLE READ transaction that also reads the versions, so the response
 * and the versions it is stored with are of one snapshot.
 *
 * The presenters that read the rows name the keys (src/entity/: a user record its user,
 * a project record its project, namespace, owner and fork source), and a list the sets
 * that decide which rows it holds and in what order; authentication names the caller
 * (and, with sudo, the set of users); key 0 is always named. A handler names no key,
 * except deps_none() for something no key covers.
 *
 * With cache_verify (configuration), every hit also runs the handler in a snapshot, as a
 * miss does, and compares: the dispatcher logs a difference as an error naming the
 * route and the key, and answers 500. */
#ifndef COLLABD_CACHE_RESPONSE_H
#define COLLABD_CACHE_RESPONSE_H

#include <stdbool.h>

#include "cache/store.h"
#include "core/ctx.h"

/* What determines the response of a GET: the path and query as sent, the credential
 * (its digest, and whether it came as an OAuth token) and sudo. A digest, so that a
 * token sent in the query is not kept. In a. */
const char *cache_response_key(arena *a, const char *path, const char *query,
			       const char *token_digest, bool oauth, const char *sudo);

enum cache_lookup {
	CACHE_SKIP,   /* not kept (asked for the first time, or no snapshot): run as
		       * without a cache */
	CACHE_HIT,    /* *out is the answer, still true, its secrets opened */
	CACHE_FILL,   /* a snapshot is open with c->deps collecting (d, key 0 named): run
		       * the handler, then cache_keep() */
	CACHE_VERIFY, /* a hit being verified (cache_verify): as CACHE_FILL, with *out what
		       * the cache answered, for cache_verified() */
};
/* Looks key up in store for a request of context c, whose dependencies go to d. */
enum cache_lookup cache_lookup(cache *store, ctx *c, const char *key, dep_list *d,
			       cache_entry *out);
/* After the handler of a CACHE_FILL whose answer is *e (its status, headers, body; key,
 * deps and secrets taken from key and c->deps): keeps it, when it is a 200 that no key
 * misses, with the versions read in the snapshot, and ends the snapshot. Whether it was
 * kept. */
bool cache_keep(cache *store, ctx *c, const char *key, cache_entry *e);
/* After the handler of a CACHE_VERIFY whose answer is *now (failed: now NULL): NULL when
 * it is the one the cache had (the snapshot ends), else what differs (the entry is
 * dropped, the snapshot rolled back). */
const char *cache_verified(cache *store, ctx *c, const char *key, const cache_entry *had,
			   const cache_entry *now);

#endif
