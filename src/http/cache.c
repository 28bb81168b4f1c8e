#include "http/cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/crypto.h"
#include "core/log.h"
#include "http/router.h"

const db_stmt cache_stmts[] = {
	/* $1 the keys of rows (a bigint[]), $2 the sets (their numbers, a bigint[]): the sum
	 * of their versions, a set's being the sum of its 64 stripes, keys -(n * 64 + 64) to
	 * -(n * 64 + 1) (sql/0010_cache_keys.sql); a key never bumped is 0 */
	{"cache_versions",
	 "SELECT ((SELECT coalesce(sum(v), 0) FROM cache_epochs WHERE k = ANY ($1::bigint[]))"
	 " + (SELECT coalesce(sum(e.v), 0) FROM unnest($2::bigint[]) s (n) JOIN cache_epochs e"
	 " ON e.k BETWEEN -(s.n * 64 + 64) AND -(s.n * 64 + 1)))::text", 2, 1},
	{NULL, NULL, 0, 0},
};

/* The store: one shared mapping per instance (created by the master, inherited by the
 * workers it forks), under one process-shared robust mutex. Entries are records written
 * one after the other into a ring of data (the oldest overwritten first); an index of
 * buckets of WAYS slots maps a key's hash to the position of its record. A position is
 * a count of bytes ever written: the record at pos is still there until head passes
 * pos + data_size, and it holds its own key, which is checked. */
#define WAYS 4
/* The doorkeeper: the hashes of keys missed once, direct-mapped. A response is stored
 * at its key's second miss: one asked for once (a random page, another user's record)
 * costs nothing more than without a cache. */
#define SEEN 65536

struct slot {
	uint64_t hash; /* 0: empty */
	uint64_t pos;
};

struct record {
	uint32_t size; /* of the whole record, aligned */
	int32_t status;
	uint64_t pos;
	char key[65];
	int32_t ndeps;
	int64_t expires;
	long long sum;
	uint64_t headers_len;
	uint64_t body_len;
	int32_t nsealed;
	/* the ndeps deps, then headers, body, then the nsealed sealed secrets, each
	 * followed by a NUL byte */
};

struct cache {
	pthread_mutex_t lock;
	size_t map_size;
	size_t nbuckets; /* a power of two */
	size_t data_size;
	uint64_t head;   /* bytes ever written */
	uint64_t seen[SEEN];
	struct slot *slots;
	char *data;
};

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

cache *cache_new(size_t max_bytes)
{
	if (max_bytes < 65536)
		max_bytes = 65536;
	size_t nbuckets = 1;
	while (nbuckets * WAYS * 1024 < max_bytes)
		nbuckets *= 2;
	size_t index = ALIGN8(sizeof(cache)) + nbuckets * WAYS * sizeof(struct slot);
	size_t map_size = index + max_bytes;
	void *m = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		log_error("response cache: mmap of %zu bytes: %s", map_size, strerror(errno));
		return NULL;
	}
	cache *c = m;
	pthread_mutexattr_t at;
	pthread_mutexattr_init(&at);
	pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&c->lock, &at);
	pthread_mutexattr_destroy(&at);
	c->map_size = map_size;
	c->nbuckets = nbuckets;
	c->slots = (struct slot *)((char *)m + ALIGN8(sizeof(cache)));
	c->data = (char *)m + index;
	c->data_size = max_bytes;
	return c;
}

void cache_free(cache *c)
{
	if (c)
		munmap(c, c->map_size);
}

/* Takes the lock; a worker that died holding it may have left anything half written:
 * everything is dropped then. */
static void lock(cache *c)
{
	if (pthread_mutex_lock(&c->lock) == EOWNERDEAD) {
		memset(c->slots, 0, c->nbuckets * WAYS * sizeof(struct slot));
		pthread_mutex_consistent(&c->lock);
	}
}

static void unlock(cache *c)
{
	pthread_mutex_unlock(&c->lock);
}

static uint64_t hash_of(const char *key)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h ? h : 1;
}

static struct slot *bucket_of(cache *c, uint64_t h)
{
	return &c->slots[(h & (c->nbuckets - 1)) * WAYS];
}

/* The record slot s points to, when it is still in the ring; NULL when overwritten. */
static struct record *record_at(cache *c, const struct slot *s)
{
	/* the bytes at a record's place are written again once head passes pos + data_size */
	if (!s->hash || c->head > s->pos + c->data_size)
		return NULL;
	struct record *rec = (struct record *)(c->data + s->pos % c->data_size);
	return rec->pos == s->pos ? rec : NULL;
}

/* The slot holding key (hash h), NULL when none. */
static struct slot *find(cache *c, const char *key, uint64_t h)
{
	struct slot *b = bucket_of(c, h);
	for (int i = 0; i < WAYS; i++) {
		if (b[i].hash != h)
			continue;
		struct record *rec = record_at(c, &b[i]);
		if (!rec) {
			b[i].hash = 0;
			continue;
		}
		if (strcmp(rec->key, key) == 0)
			return &b[i];
	}
	return NULL;
}

bool cache_get(cache *c, const char *key, time_t now, arena *a, cache_entry *out)
{
	uint64_t h = hash_of(key);
	lock(c);
	struct slot *s = find(c, key, h);
	struct record *rec = s ? record_at(c, s) : NULL;
	if (rec && rec->expires <= now) {
		s->hash = 0;
		rec = NULL;
	}
	if (rec) {
		memset(out, 0, sizeof(*out));
		memcpy(out->key, rec->key, sizeof(out->key));
		out->expires = (time_t)rec->expires;
		out->ndeps = rec->ndeps;
		const long long *deps = (const long long *)(rec + 1);
		memcpy(out->deps, deps, sizeof(*deps) * (size_t)rec->ndeps);
		out->sum = rec->sum;
		out->status = rec->status;
		const char *p = (const char *)(deps + rec->ndeps);
		out->headers_len = rec->headers_len;
		out->headers = arena_strndup(a, p, rec->headers_len);
		p += rec->headers_len + 1;
		out->body_len = rec->body_len;
		char *body = arena_alloc(a, rec->body_len + 1);
		memcpy(body, p, rec->body_len);
		out->body = body;
		p += rec->body_len + 1;
		out->nsealed = rec->nsealed;
		for (int i = 0; i < rec->nsealed; i++) {
			out->sealed[i] = arena_strdup(a, p);
			p += strlen(p) + 1;
		}
	}
	unlock(c);
	return rec != NULL;
}

bool cache_admit(cache *c, const char *key)
{
	uint64_t h = hash_of(key);
	uint64_t *s = &c->seen[h % SEEN];
	if (__atomic_load_n(s, __ATOMIC_RELAXED) == h)
		return true;
	__atomic_store_n(s, h, __ATOMIC_RELAXED);
	return false;
}

void cache_remove(cache *c, const char *key)
{
	lock(c);
	struct slot *s = find(c, key, hash_of(key));
	if (s)
		s->hash = 0;
	unlock(c);
}

void cache_put(cache *c, const cache_entry *e)
{
	size_t sealed_len = 0;
	for (int i = 0; i < e->nsealed; i++)
		sealed_len += strlen(e->sealed[i]) + 1;
	if (e->ndeps > DEPS_MAX || e->ndeps < 0)
		return;
	size_t size = ALIGN8(sizeof(struct record) + sizeof(*e->deps) * (size_t)e->ndeps +
			     e->headers_len + e->body_len + 2 + sealed_len);
	if (size > c->data_size / 4 || e->nsealed > DEPS_MAX_SECRETS || e->nsealed < 0 ||
	    strlen(e->key) >= sizeof(((struct record *)0)->key))
		return;
	uint64_t h = hash_of(e->key);
	lock(c);
	struct slot *s = find(c, e->key, h);
	if (!s) {
		/* an empty way, or the one whose record is the oldest */
		struct slot *b = bucket_of(c, h);
		s = &b[0];
		for (int i = 0; i < WAYS; i++) {
			if (!record_at(c, &b[i])) {
				s = &b[i];
				break;
			}
			if (b[i].pos < s->pos)
				s = &b[i];
		}
	}
	size_t off = c->head % c->data_size;
	if (off + size > c->data_size)
		c->head += c->data_size - off; /* records do not wrap: on from the start */
	struct record *rec = (struct record *)(c->data + c->head % c->data_size);
	memset(rec, 0, sizeof(*rec));
	rec->size = (uint32_t)size;
	rec->status = e->status;
	rec->pos = c->head;
	strcpy(rec->key, e->key);
	rec->ndeps = e->ndeps;
	rec->expires = (int64_t)e->expires;
	rec->sum = e->sum;
	long long *deps = (long long *)(rec + 1);
	memcpy(deps, e->deps, sizeof(*e->deps) * (size_t)e->ndeps);
	rec->headers_len = e->headers_len;
	rec->body_len = e->body_len;
	rec->nsealed = e->nsealed;
	char *p = (char *)(deps + e->ndeps);
	memcpy(p, e->headers, e->headers_len);
	p[e->headers_len] = '\0';
	p += e->headers_len + 1;
	memcpy(p, e->body, e->body_len);
	p[e->body_len] = '\0';
	p += e->body_len + 1;
	for (int i = 0; i < e->nsealed; i++) {
		size_t n = strlen(e->sealed[i]) + 1;
		memcpy(p, e->sealed[i], n);
		p += n;
	}
	s->hash = h;
	s->pos = c->head;
	c->head += size;
	unlock(c);
}

size_t cache_count(cache *c)
{
	lock(c);
	size_t n = 0;
	for (size_t i = 0; i < c->nbuckets * WAYS; i++)
		n += c->slots[i].hash && record_at(c, &c->slots[i]);
	unlock(c);
	return n;
}

#define SECRET_MARK '\x01'

char *cache_mask_secrets(arena *a, const char *body, size_t body_len, const char *const *plain,
			 int n, size_t *len)
{
	for (int i = 0; i < n; i++)
		if (strlen(plain[i]) < 8)
			return NULL;
	buf b;
	buf_init(&b, a, body_len + 16);
	for (size_t at = 0; at < body_len;) {
		int hit = -1;
		for (int i = 0; i < n && hit < 0; i++) {
			size_t m = strlen(plain[i]);
			if (at + m <= body_len && memcmp(body + at, plain[i], m) == 0)
				hit = i;
		}
		if (hit < 0) {
			buf_putc(&b, body[at++]);
			continue;
		}
		buf_putc(&b, SECRET_MARK);
		buf_putc(&b, (char)('0' + hit));
		buf_putc(&b, SECRET_MARK);
		at += strlen(plain[hit]);
	}
	*len = b.len;
	return (char *)buf_cstr(&b);
}

/* e's body with its secrets opened, in r's arena; NULL when one does not open. */
static const char *unmask_secrets(request *r, const cache_entry *e, size_t *len)
{
	buf b;
	buf_init(&b, r->ctx.a, e->body_len + 64);
	for (size_t at = 0; at < e->body_len; at++) {
		if (e->body[at] != SECRET_MARK) {
			buf_putc(&b, e->body[at]);
			continue;
		}
		int i = at + 2 < e->body_len ? e->body[at + 1] - '0' : -1;
		if (i < 0 || i >= e->nsealed || e->body[at + 2] != SECRET_MARK)
			return NULL;
		const char *plain = crypto_open(r->ctx.a, r->ctx.key, e->sealed[i]);
		if (!plain)
			return NULL;
		buf_puts(&b, plain);
		at += 2;
	}
	*len = b.len;
	return buf_cstr(&b);
}

/* What determines the response of a GET: the path and query as sent, the credential
 * (its digest, and whether it came as an OAuth token) and sudo. A digest, so that a
 * token sent in the query is not kept. */
static const char *key_of(request *r)
{
	buf b;
	buf_init(&b, r->ctx.a, 256);
	buf_puts(&b, r->path);
	buf_putc(&b, '?');
	buf_puts(&b, r->query ? r->query : "");
	buf_putc(&b, '\n');
	buf_puts(&b, r->token_digest ? r->token_digest : "-");
	buf_putc(&b, r->oauth ? 'o' : 'p');
	buf_putc(&b, '\n');
	buf_puts(&b, r->sudo ? r->sudo : "");
	return crypto_sha256_hex(r->ctx.a, b.data, b.len);
}

/* The sum of the versions of deps now (in the snapshot, if one is open); -1 on failure.
 * The keys of rows go as one array, the sets (negative) as their numbers in another. */
static long long versions(request *r, const long long *deps, int n)
{
	buf keys, sets;
	buf_init(&keys, r->ctx.a, 16 + (size_t)n * 8);
	buf_init(&sets, r->ctx.a, 32);
	buf_putc(&keys, '{');
	buf_putc(&sets, '{');
	for (int i = 0; i < n; i++) {
		buf *b = deps[i] < 0 ? &sets : &keys;
		if (b->len > 1)
			buf_putc(b, ',');
		buf_printf(b, "%lld", deps[i] < 0 ? -deps[i] : deps[i]);
	}
	buf_putc(&keys, '}');
	buf_putc(&sets, '}');
	const char *v[2] = {buf_cstr(&keys), buf_cstr(&sets)};
	PGresult *res = db_query(&r->ctx, "cache_versions", 2, v, NULL);
	if (!res || PQntuples(res) != 1)
		return -1;
	return db_int(res, 0, 0);
}

/* The hit being verified (cache_verify): the request and the answer the cache had for
 * it, secrets opened. A worker serves one request at a time. */
static struct {
	const request *r;
	cache_entry e;
} verifying;

/* Opens the snapshot a miss (or a verified hit) runs in, under key. */
static bool run_in_snapshot(request *r, const char *key, bool begun)
{
	if (!begun && db_begin_snapshot(&r->ctx) < 0)
		return false; /* runs uncached; the handler meets the same database */
	r->cache_key = key;
	r->deps.n = r->deps.nsecrets = 0;
	r->deps.none = false;
	r->ctx.deps = &r->deps;
	deps_add(&r->ctx, CACHE_KEY_ALL);
	return false;
}

bool cache_serve(request *r)
{
	verifying.r = NULL;
	for (const param *p = r->params; p; p = p->next)
		if (p->source == SRC_BODY)
			return false; /* a GET with a body: not worth a key of its own */
	const char *key = key_of(r);
	time_t now = time(NULL);
	cache_entry e;
	if (cache_get(r->cache, key, now, r->ctx.a, &e)) {
		/* verifying, the versions are read in the snapshot the handler then runs in:
		 * an entry found current there must be what the handler answers there */
		bool verify = r->ctx.cfg->cache_verify;
		if (verify && db_begin_snapshot(&r->ctx) < 0)
			return false;
		long long sum = versions(r, e.deps, e.ndeps);
		size_t len = e.body_len;
		const char *body = NULL;
		if (sum >= 0 && sum == e.sum) /* secrets opened only for an answer still true */
			body = e.nsealed ? unmask_secrets(r, &e, &len) : e.body;
		if (body && verify) {
			verifying.r = r;
			verifying.e = e;
			verifying.e.body = body;
			verifying.e.body_len = len;
			return run_in_snapshot(r, key, true);
		}
		if (body) {
			r->status = e.status;
			buf_append(&r->headers, e.headers, e.headers_len);
			respond_header(r, "X-Collabd-Cache", "hit");
			r->body = body;
			r->body_len = len;
			return true;
		}
		cache_remove(r->cache, key);
		if (verify)
			return run_in_snapshot(r, key, true);
	} else if (!cache_admit(r->cache, key)) {
		return false; /* the first time: not kept */
	}
	return run_in_snapshot(r, key, false);
}

/* After the handler of a hit being verified: the answer it made (rc its return) must be
 * the one the cache had. */
static int verify_finish(request *r, const char *key, int rc)
{
	const cache_entry *e = &verifying.e;
	verifying.r = NULL;
	const char *what = rc < 0			  ? "the handler failed"
			   : r->status != e->status	  ? "the status"
			   : r->headers.len != e->headers_len ||
				     (e->headers_len &&
				      memcmp(r->headers.data, e->headers, e->headers_len) != 0)
				   ? "the headers"
			   : !r->body || r->body_len != e->body_len ||
				     memcmp(r->body, e->body, e->body_len) != 0
				   ? "the body"
				   : NULL;
	if (!what) {
		if (db_commit(&r->ctx) < 0)
			return rc;
		respond_header(r, "X-Collabd-Cache", "hit");
		return rc;
	}
	log_error("response cache verification failed: %s %s (route %s %s), key %s with %d "
		  "dependencies: %s differs from the cached response (status %d, %zu bytes; now "
		  "%d, %zu bytes)",
		  r->method, r->path, r->route ? r->route->method : "-",
		  r->route ? r->route->pattern : "-", key, e->ndeps, what, e->status, e->body_len,
		  rc < 0 ? rc : r->status, r->body ? r->body_len : 0);
	cache_remove(r->cache, key);
	db_rollback(&r->ctx);
	r->headers.len = 0;
	respond_error(r, ERR_INTERNAL);
	return ERR_INTERNAL;
}

/* An entry is kept at most this long whatever its keys say (a bound on what a change
 * made with the triggers disabled can leave behind). */
#define CACHE_MAX_AGE 3600

time_t cache_expiry(time_t now)
{
	time_t midnight = now - now % 86400 + 86400;
	return midnight < now + CACHE_MAX_AGE ? midnight : now + CACHE_MAX_AGE;
}

int cache_finish(request *r, int rc)
{
	if (!r->cache_key)
		return rc;
	const char *key = r->cache_key;
	r->cache_key = NULL;
	r->ctx.deps = NULL;
	if (verifying.r == r)
		return verify_finish(r, key, rc);
	if (rc < 0)
		return rc; /* the dispatcher rolls back */
	bool store = r->status == 200 && !r->deps.none && r->body;
	if (store)
		deps_compact(&r->deps);
	long long sum = store ? versions(r, r->deps.keys, r->deps.n) : -1;
	if (db_commit(&r->ctx) < 0 || sum < 0)
		return rc;
	cache_entry e = {.expires = cache_expiry(time(NULL)), .ndeps = r->deps.n, .sum = sum,
			 .status = r->status, .headers = r->headers.data ? r->headers.data : "",
			 .headers_len = r->headers.len, .body = r->body, .body_len = r->body_len,
			 .nsealed = r->deps.nsecrets};
	snprintf(e.key, sizeof(e.key), "%s", key);
	memcpy(e.deps, r->deps.keys, sizeof(*e.deps) * (size_t)r->deps.n);
	memcpy(e.sealed, r->deps.sealed, sizeof(e.sealed));
	if (e.nsealed) {
		/* kept sealed, as in the database */
		e.body = cache_mask_secrets(r->ctx.a, r->body, r->body_len, r->deps.plain, e.nsealed,
					    &e.body_len);
		if (!e.body)
			return rc;
	}
	cache_put(r->cache, &e);
	respond_header(r, "X-Collabd-Cache", "miss");
	return rc;
}
