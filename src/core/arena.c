#include "core/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK 16384

struct block {
	struct block *next;
	size_t size;
	size_t used;
	_Alignas(16) unsigned char data[];
};

struct cleanup {
	struct cleanup *next;
	arena_cleanup_fn fn;
	void *ptr;
};

struct arena {
	struct block *head;
	struct block *first;
	struct block *big; /* the blocks of one big allocation each */
	struct cleanup *cleanups;
};

static struct block *block_new(size_t size)
{
	struct block *b = malloc(sizeof(*b) + size);
	if (!b)
		abort();
	b->next = NULL;
	b->size = size;
	b->used = 0;
	return b;
}

arena *arena_new(void)
{
	arena *a = calloc(1, sizeof(*a));
	if (!a)
		abort();
	a->first = a->head = block_new(ARENA_BLOCK);
	return a;
}

void arena_reset(arena *a)
{
	while (a->cleanups) {
		struct cleanup *c = a->cleanups;
		a->cleanups = c->next;
		c->fn(c->ptr);
	}
	struct block *b = a->head;
	while (b && b != a->first) {
		struct block *next = b->next;
		free(b);
		b = next;
	}
	for (b = a->big; b;) {
		struct block *next = b->next;
		free(b);
		b = next;
	}
	a->big = NULL;
	a->head = a->first;
	a->first->next = NULL;
	a->first->used = 0;
}

void arena_destroy(arena *a)
{
	if (!a)
		return;
	arena_reset(a);
	free(a->first);
	free(a);
}

/* size bytes (a multiple of 16) of a, not zeroed. A request larger than a quarter of a
 * block gets a block of its own, on a list of its own: the head keeps its free room for
 * the small allocations that follow (a blob's bytes or a response body would otherwise
 * leave the rest of the head unused and start a new one for the next small string). */
static void *take(arena *a, size_t size)
{
	struct block *b = a->head;
	if (b->size - b->used < size) {
		if (size > ARENA_BLOCK / 4) {
			b = block_new(size);
			b->next = a->big;
			a->big = b;
		} else {
			/* New blocks go in front; the first block stays at the tail so that
			 * reset can keep it. */
			b = block_new(ARENA_BLOCK);
			b->next = a->head;
			a->head = b;
		}
	}
	void *p = b->data + b->used;
	b->used += size;
	return p;
}

void *arena_alloc(arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	void *p = take(a, size);
	memset(p, 0, size);
	return p;
}

void *arena_alloc_uninit(arena *a, size_t size)
{
	return take(a, (size + 15) & ~(size_t)15);
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
	char *p = arena_alloc_uninit(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void arena_defer(arena *a, arena_cleanup_fn fn, void *ptr)
{
	struct cleanup *c = arena_alloc(a, sizeof(*c));
	c->fn = fn;
	c->ptr = ptr;
	c->next = a->cleanups;
	a->cleanups = c;
}

size_t arena_capacity(const arena *a)
{
	size_t n = 0;
	for (const struct block *b = a->head; b; b = b->next)
		n += b->size;
	for (const struct block *b = a->big; b; b = b->next)
		n += b->size;
	return n;
}
