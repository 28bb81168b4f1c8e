/* Per-request memory: every allocation of a request comes from one arena and is
 * released at once by arena_reset(). Non-memory resources (PGresult, json_object)
 * are registered as cleanups and run, newest first, on reset. */
#ifndef COLLABD_ARENA_H
#define COLLABD_ARENA_H

#include <stddef.h>

typedef struct arena arena;
typedef void (*arena_cleanup_fn)(void *);

/* A new empty arena; aborts on out-of-memory. Free with arena_destroy(). */
arena *arena_new(void);
/* Runs the cleanups and releases all blocks but the first. */
void arena_reset(arena *a);
void arena_destroy(arena *a);

/* Zeroed memory owned by the arena. */
void *arena_alloc(arena *a, size_t size);
/* The same, not zeroed: for memory the caller writes whole before reading it (buffers,
 * copies), where zeroing megabytes first would be a pass over them for nothing. */
void *arena_alloc_uninit(arena *a, size_t size);
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs fn(ptr) at reset time. */
void arena_defer(arena *a, arena_cleanup_fn fn, void *ptr);
/* Bytes currently held by the arena's blocks (for tests and diagnostics). */
size_t arena_capacity(const arena *a);

#endif
