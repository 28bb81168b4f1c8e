#include "http/cache.h"

#include <string.h>

#include "core/log.h"
#include "http/router.h"

/* The hit being verified (cache_verify): the request and the answer the cache had for
 * it, secrets opened. A worker serves one request at a time. */
static struct {
	const request *r;
	cache_entry e;
} verifying;

bool cache_serve(request *r)
{
	verifying.r = NULL;
	for (const param *p = r->params; p; p = p->next)
		if (p->source == SRC_BODY)
			return false; /* a GET with a body: not worth a key of its own */
	const char *key = cache_response_key(r->ctx.a, r->path, r->query, r->cred.token_digest,
					     r->cred.oauth, r->cred.sudo);
	cache_entry e;
	switch (cache_lookup(r->cache, &r->ctx, key, &r->deps, &e)) {
	case CACHE_SKIP:
		return false;
	case CACHE_HIT:
		r->status = e.status;
		buf_append(&r->headers, e.headers, e.headers_len);
		respond_header(r, "X-Collabd-Cache", "hit");
		r->body = e.body;
		r->body_len = e.body_len;
		return true;
	case CACHE_VERIFY:
		verifying.r = r;
		verifying.e = e;
		break;
	case CACHE_FILL:
		break;
	}
	r->cache_key = key;
	return false;
}

int cache_finish(request *r, int rc)
{
	if (!r->cache_key)
		return rc;
	const char *key = r->cache_key;
	r->cache_key = NULL;
	cache_entry now = {.status = r->status,
			   .headers = r->headers.data ? r->headers.data : "",
			   .headers_len = r->headers.len,
			   .body = r->body,
			   .body_len = r->body_len};
	if (verifying.r != r) {
		if (rc < 0) {
			r->ctx.deps = NULL;
			return rc; /* the dispatcher rolls back */
		}
		if (cache_keep(r->cache, &r->ctx, key, &now))
			respond_header(r, "X-Collabd-Cache", "miss");
		return rc;
	}
	verifying.r = NULL;
	const cache_entry *had = &verifying.e;
	const char *what = cache_verified(r->cache, &r->ctx, key, had, rc < 0 ? NULL : &now);
	if (!what) {
		respond_header(r, "X-Collabd-Cache", "hit");
		return rc;
	}
	log_error("response cache verification failed: %s %s (route %s %s), key %s with %d "
		  "dependencies: %s differs from the cached response (status %d, %zu bytes; now "
		  "%d, %zu bytes)",
		  r->method, r->path, r->route ? r->route->method : "-",
		  r->route ? r->route->pattern : "-", key, had->ndeps, what, had->status,
		  had->body_len, rc < 0 ? rc : r->status, r->body ? r->body_len : 0);
	r->headers.len = 0;
	respond_error(r, ERR_INTERNAL);
	return ERR_INTERNAL;
}
