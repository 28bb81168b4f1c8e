#include "core/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void buf_init(buf *b, arena *a, size_t cap)
{
	b->a = a;
	b->cap = cap ? cap : 64;
	b->data = arena_alloc_uninit(a, b->cap);
	b->data[0] = '\0';
	b->len = 0;
}

void buf_reserve(buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap * 2;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *d = arena_alloc_uninit(b->a, cap);
	memcpy(d, b->data, b->len);
	b->data = d;
	b->cap = cap;
}

void buf_append(buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_puts(buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void buf_put_int(buf *b, long long v)
{
	char d[24], *end = d + sizeof(d), *q = end;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do
		*--q = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--q = '-';
	buf_append(b, q, (size_t)(end - q));
}

void buf_putc(buf *b, char c)
{
	buf_reserve(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

void buf_printf(buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void buf_urlencode(buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~') {
			buf_putc(b, (char)c);
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			buf_append(b, e, 3);
		}
	}
}

void buf_put_base64(buf *b, const void *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = p;
	buf_reserve(b, (n + 2) / 3 * 4);
	char *o = b->data + b->len;
	for (size_t i = n / 3; i > 0; i--, s += 3) {
		unsigned v = (unsigned)s[0] << 16 | (unsigned)s[1] << 8 | s[2];
		o[0] = t[v >> 18];
		o[1] = t[v >> 12 & 63];
		o[2] = t[v >> 6 & 63];
		o[3] = t[v & 63];
		o += 4;
	}
	if (n % 3) {
		unsigned v = (unsigned)s[0] << 16 | (n % 3 == 2 ? (unsigned)s[1] << 8 : 0);
		o[0] = t[v >> 18];
		o[1] = t[v >> 12 & 63];
		o[2] = n % 3 == 2 ? t[v >> 6 & 63] : '=';
		o[3] = '=';
		o += 4;
	}
	*o = '\0';
	b->len = (size_t)(o - b->data);
}

const char *buf_cstr(buf *b)
{
	if (!b->data)
		return "";
	return b->data;
}
