#include "cache/response.h"

#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/crypto.h"
#include "core/metrics.h"
#include "db/versions.h"

/* e's body with its secrets opened, in c's arena; NULL when one does not open. */
static const char *unmask_secrets(ctx *c, const cache_entry *e, size_t *len)
{
	buf b;
	buf_init(&b, c->a, e->body_len + 64);
	for (size_t at = 0; at < e->body_len; at++) {
		if (e->body[at] != CACHE_SECRET_MARK) {
			buf_putc(&b, e->body[at]);
			continue;
		}
		int i = at + 2 < e->body_len ? e->body[at + 1] - '0' : -1;
		if (i < 0 || i >= e->nsealed || e->body[at + 2] != CACHE_SECRET_MARK)
			return NULL;
		const char *plain = crypto_open(c->a, c->key, e->sealed[i]);
		if (!plain)
			return NULL;
		buf_puts(&b, plain);
		at += 2;
	}
	*len = b.len;
	return buf_cstr(&b);
}

const char *cache_response_key(arena *a, const char *path, const char *query,
			       const char *token_digest, bool oauth, const char *sudo)
{
	buf b;
	buf_init(&b, a, 256);
	buf_puts(&b, path);
	buf_putc(&b, '?');
	buf_puts(&b, query ? query : "");
	buf_putc(&b, '\n');
	buf_puts(&b, token_digest ? token_digest : "-");
	buf_putc(&b, oauth ? 'o' : 'p');
	buf_putc(&b, '\n');
	buf_puts(&b, sudo ? sudo : "");
	return crypto_sha256_hex(a, b.data, b.len);
}

/* Opens the snapshot a miss (or a verified hit) runs in, d collecting what it depends
 * on; CACHE_SKIP when it cannot be had (the handler runs uncached and meets the same
 * database). */
static enum cache_lookup run_in_snapshot(ctx *c, dep_list *d, bool begun, enum cache_lookup then)
{
	if (!begun && db_begin_snapshot(c) < 0)
		return CACHE_SKIP;
	d->n = d->nsecrets = 0;
	d->none = false;
	c->deps = d;
	deps_add(c, CACHE_KEY_ALL);
	return then;
}

enum cache_lookup cache_lookup(cache *store, ctx *c, const char *key, dep_list *d, cache_entry *out)
{
	if (!cache_get(store, key, time(NULL), c->a, out)) {
		metrics_add(METRIC_RESPONSE_CACHE_MISSES, 1);
		return cache_admit(store, key) ? run_in_snapshot(c, d, false, CACHE_FILL)
					       : CACHE_SKIP; /* the first time: not kept */
	}
	/* verifying, the versions are read in the snapshot the handler then runs in: an
	 * entry found current there must be what the handler answers there */
	bool verify = c->cfg->cache_verify;
	if (verify && db_begin_snapshot(c) < 0)
		return CACHE_SKIP;
	long long sum = db_versions_sum(c, out->deps, out->ndeps);
	size_t len = out->body_len;
	const char *body = NULL;
	if (sum >= 0 && sum == out->sum) /* secrets opened only for an answer still true */
		body = out->nsealed ? unmask_secrets(c, out, &len) : out->body;
	metrics_add(body ? METRIC_RESPONSE_CACHE_HITS : METRIC_RESPONSE_CACHE_MISSES, 1);
	if (body) {
		out->body = body;
		out->body_len = len;
		return verify ? run_in_snapshot(c, d, true, CACHE_VERIFY) : CACHE_HIT;
	}
	cache_remove(store, key);
	return run_in_snapshot(c, d, verify, CACHE_FILL);
}

bool cache_keep(cache *store, ctx *c, const char *key, cache_entry *e)
{
	dep_list *d = c->deps;
	c->deps = NULL;
	bool store_it = e->status == 200 && !d->none && e->body;
	if (store_it)
		deps_compact(d);
	long long sum = store_it ? db_versions_sum(c, d->keys, d->n) : -1;
	if (db_commit(c) < 0 || sum < 0)
		return false;
	e->expires = cache_expiry(time(NULL));
	e->ndeps = d->n;
	e->sum = sum;
	e->nsealed = d->nsecrets;
	snprintf(e->key, sizeof(e->key), "%s", key);
	memcpy(e->deps, d->keys, sizeof(*e->deps) * (size_t)d->n);
	memcpy(e->sealed, d->sealed, sizeof(e->sealed));
	if (e->nsealed) {
		/* kept sealed, as in the database */
		e->body = cache_mask_secrets(c->a, e->body, e->body_len, d->plain, e->nsealed,
					     &e->body_len);
		if (!e->body)
			return false;
	}
	cache_put(store, e);
	return true;
}

const char *cache_verified(cache *store, ctx *c, const char *key, const cache_entry *had,
			   const cache_entry *now)
{
	c->deps = NULL;
	const char *what = !now                         ? "the handler failed"
			   : now->status != had->status ? "the status"
			   : now->headers_len != had->headers_len ||
					   (had->headers_len && memcmp(now->headers, had->headers,
								       had->headers_len) != 0)
				   ? "the headers"
			   : !now->body || now->body_len != had->body_len ||
					   memcmp(now->body, had->body, had->body_len) != 0
				   ? "the body"
				   : NULL;
	if (!what) {
		db_commit(c);
		return NULL;
	}
	cache_remove(store, key);
	db_rollback(c);
	return what;
}
