#include "cache/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/log.h"

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
	uint64_t head; /* bytes ever written */
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
		buf_putc(&b, CACHE_SECRET_MARK);
		buf_putc(&b, (char)('0' + hit));
		buf_putc(&b, CACHE_SECRET_MARK);
		at += strlen(plain[hit]);
	}
	*len = b.len;
	return (char *)buf_cstr(&b);
}

/* An entry is kept at most this long whatever its keys say (a bound on what a change
 * made with the triggers disabled can leave behind). */
#define CACHE_MAX_AGE 3600

time_t cache_expiry(time_t now)
{
	time_t midnight = now - now % 86400 + 86400;
	return midnight < now + CACHE_MAX_AGE ? midnight : now + CACHE_MAX_AGE;
}
