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
/* Room for extra more bytes (and the NUL after them) without another allocation. */
void buf_reserve(buf *b, size_t extra);
void buf_append(buf *b, const char *s, size_t n);
void buf_puts(buf *b, const char *s);
void buf_putc(buf *b, char c);
/* Appends v in decimal (no printf: a few instructions a digit). */
void buf_put_int(buf *b, long long v);
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s percent-encoded as a URL query component. */
void buf_urlencode(buf *b, const char *s);
/* Appends the standard base64 (RFC 4648, padded, no line breaks) of the n bytes at p,
 * encoded in place: no copy of the text to append. */
void buf_put_base64(buf *b, const void *p, size_t n);
/* NUL-terminated contents, owned by the arena. */
const char *buf_cstr(buf *b);

#endif
