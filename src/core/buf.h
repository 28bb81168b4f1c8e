/* Growable byte buffer in an arena, for building bodies, URLs and SQL-free text. */
#ifndef COLLABD_BUF_H
#define COLLABD_BUF_H

#include <stddef.h>

#include "core/arena.h"

typedef struct {
	arena *a;
	char *data;
	size_t len;
	size_t cap;
} buf;

void buf_init(buf *b, arena *a, size_t cap);
void buf_append(buf *b, const char *s, size_t n);
void buf_puts(buf *b, const char *s);
void buf_putc(buf *b, char c);
/* Appends v in decimal (no printf: a few instructions a digit). */
void buf_put_int(buf *b, long long v);
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s percent-encoded as a URL query component. */
void buf_urlencode(buf *b, const char *s);
/* NUL-terminated contents, owned by the arena. */
const char *buf_cstr(buf *b);

#endif
