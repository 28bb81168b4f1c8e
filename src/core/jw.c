#include "core/jw.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void jw_init(jw *w, arena *a, size_t cap)
{
	buf_init(&w->b, a, cap);
	w->comma = false;
}

/* buf_append, without a call when the buffer has room. */
static inline void put(buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		buf_append(b, s, n);
		return;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* The separator before a value or a key. */
static void sep(jw *w)
{
	if (w->comma)
		put(&w->b, ",", 1);
}

void jw_begin_object(jw *w)
{
	sep(w);
	buf_putc(&w->b, '{');
	w->comma = false;
}

void jw_end_object(jw *w)
{
	buf_putc(&w->b, '}');
	w->comma = true;
}

void jw_begin_array(jw *w)
{
	sep(w);
	buf_putc(&w->b, '[');
	w->comma = false;
}

void jw_end_array(jw *w)
{
	buf_putc(&w->b, ']');
	w->comma = true;
}

/* The bytes a string holds as they are: all but the controls under 0x20 (and the NUL
 * that ends it), '"' (0x22) and '\\' (0x5c). */
static const unsigned char plain[256] = {
	[0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0xff] = 1};

/* Whether any of the 8 bytes of x is under 0x20, '"' or '\\' (the classic test for a zero
 * byte, applied to x - 0x20.., x ^ '"'.. and x ^ '\\'..; it may also flag a plain byte
 * above one that needs escaping, never miss one). */
static bool word_needs_escape(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
	return (((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) |
		((backslash - ones) & ~backslash)) &
	       highs;
}

/* s escaped as json-c's json_escape_str() does with JSON_C_TO_STRING_NOSLASHESCAPE: the
 * two-character escapes of \b \n \r \t \f " and \, \u00xx (lower-case hex) for the other
 * bytes under 0x20, every other byte as it is. Plain runs are found 8 bytes at a time. */
static void escape(buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *run = p;
	const unsigned char *end = p + strlen(s);
	for (;;) {
		for (uint64_t x; end - p >= 8 && (memcpy(&x, p, 8), !word_needs_escape(x));)
			p += 8;
		while (plain[*p])
			p++;
		if (p > run)
			put(b, (const char *)run, (size_t)(p - run));
		unsigned char c = *p;
		if (c == '\0')
			return;
		run = ++p;
		char e[6] = {'\\', 0};
		size_t n = 2;
		switch (c) {
		case '\b':
			e[1] = 'b';
			break;
		case '\n':
			e[1] = 'n';
			break;
		case '\r':
			e[1] = 'r';
			break;
		case '\t':
			e[1] = 't';
			break;
		case '\f':
			e[1] = 'f';
			break;
		case '"':
			e[1] = '"';
			break;
		case '\\':
			e[1] = '\\';
			break;
		default:
			memcpy(e + 1, "u00", 3);
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			n = 6;
		}
		put(b, e, n);
	}
}

void jw_key(jw *w, const char *key)
{
	sep(w);
	put(&w->b, "\"", 1);
	put(&w->b, key, strlen(key));
	put(&w->b, "\":", 2);
	w->comma = false;
}

void jw_str_begin(jw *w)
{
	sep(w);
	put(&w->b, "\"", 1);
}

void jw_str_part(jw *w, const char *s)
{
	escape(&w->b, s);
}

void jw_str_end(jw *w)
{
	put(&w->b, "\"", 1);
	w->comma = true;
}

void jw_str(jw *w, const char *s)
{
	if (!s) {
		jw_null(w);
		return;
	}
	jw_str_begin(w);
	escape(&w->b, s);
	jw_str_end(w);
}

void jw_base64(jw *w, const void *p, size_t n)
{
	/* the base64 alphabet and '=' are all plain: nothing to escape, nothing to scan */
	sep(w);
	buf_reserve(&w->b, (n + 2) / 3 * 4 + 2);
	put(&w->b, "\"", 1);
	buf_put_base64(&w->b, p, n);
	put(&w->b, "\"", 1);
	w->comma = true;
}

void jw_int(jw *w, long long v)
{
	sep(w);
	buf_put_int(&w->b, v);
	w->comma = true;
}

void jw_bool(jw *w, bool v)
{
	jw_raw(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_null(jw *w)
{
	jw_raw(w, "null", 4);
}

void jw_raw(jw *w, const char *json, size_t len)
{
	sep(w);
	put(&w->b, json, len);
	w->comma = true;
}

void jw_json(jw *w, json_object *o)
{
	size_t len = 0;
	const char *s = json_object_to_json_string_length(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	jw_raw(w, s, len);
}

void jw_put_str(jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_str(w, s);
}

void jw_put_base64(jw *w, const char *key, const void *p, size_t n)
{
	jw_key(w, key);
	jw_base64(w, p, n);
}

void jw_put_time(jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	/* YYYY-MM-DD HH:MM:SS[.f{1,6}]+00: milliseconds, truncated as to_char's MS */
	if (!s || strlen(s) < 22 || s[10] != ' ' || s[13] != ':' || s[16] != ':') {
		jw_str(w, s);
		return;
	}
	const char *f = s + 19;
	char ms[4] = "000";
	if (*f == '.') {
		f++;
		for (int i = 0; i < 3 && f[i] >= '0' && f[i] <= '9'; i++)
			ms[i] = f[i];
		while (*f >= '0' && *f <= '9')
			f++;
	}
	if (strcmp(f, "+00") != 0) { /* another zone, a BC date: as it is */
		jw_str(w, s);
		return;
	}
	char out[32];
	memcpy(out, s, 10);
	out[10] = 'T';
	memcpy(out + 11, s + 11, 8);
	out[19] = '.';
	memcpy(out + 20, ms, 3);
	out[23] = 'Z';
	out[24] = '\0';
	jw_str(w, out);
}

void jw_put_int(jw *w, const char *key, long long v)
{
	jw_key(w, key);
	jw_int(w, v);
}

void jw_put_bool(jw *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_bool(w, v);
}

void jw_put_int_or_null(jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	if (s)
		jw_int(w, strtoll(s, NULL, 10));
	else
		jw_null(w);
}
