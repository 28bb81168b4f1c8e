/* A JSON writer: appends a JSON text to a buffer of the request's arena as the
 * presenter goes, with no tree to build, serialise and free. Its output is byte for byte
 * json-c's with JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE (respond_json's):
 * no spaces, the same string escapes, the same numbers. The caller keeps the shape
 * right (a key before each member's value, begins and ends paired); commas are the
 * writer's. */
#ifndef COLLABD_JW_H
#define COLLABD_JW_H

#include <json-c/json.h>
#include <stdbool.h>

#include "core/buf.h"

typedef struct {
	buf b;
	bool comma; /* a value was written at this level: the next one needs a comma */
} jw;

/* An empty writer whose buffer (cap bytes to start with) belongs to a. */
void jw_init(jw *w, arena *a, size_t cap);
void jw_begin_object(jw *w);
void jw_end_object(jw *w);
void jw_begin_array(jw *w);
void jw_end_array(jw *w);
/* The key of the next member ("key":), written as it is: a presenter's constant, with
 * nothing to escape. */
void jw_key(jw *w, const char *key);
/* Values. jw_str writes null for NULL. */
void jw_str(jw *w, const char *s);
void jw_int(jw *w, long long v);
/* A string value: the base64 of the n bytes at p (buf_put_base64), written straight into
 * the buffer, with no base64 text made first. */
void jw_base64(jw *w, const void *p, size_t n);
void jw_bool(jw *w, bool v);
void jw_null(jw *w);
/* A value that is already a JSON text (written by a jw, or another value's text). */
void jw_raw(jw *w, const char *json, size_t len);
/* A json-c value, serialised as respond_json() would (null for NULL). */
void jw_json(jw *w, json_object *o);
/* One string value made of several parts, each escaped: jw_str_begin, any number of
 * jw_str_part, jw_str_end. */
void jw_str_begin(jw *w);
void jw_str_part(jw *w, const char *s);
void jw_str_end(jw *w);

/* Members: the key, then the value (jw_put_str writes null for NULL; jw_put_int_or_null
 * the integer of the decimal text s, or null). */
void jw_put_str(jw *w, const char *key, const char *s);
void jw_put_int(jw *w, const char *key, long long v);
void jw_put_bool(jw *w, const char *key, bool v);
void jw_put_int_or_null(jw *w, const char *key, const char *s);
void jw_put_base64(jw *w, const char *key, const void *p, size_t n);
/* A time as GitLab writes it, 2017-07-19T11:04:06.123Z, of s: a timestamptz as
 * PostgreSQL prints it in UTC with DateStyle ISO (2017-07-19 11:04:06.123456+00: its
 * printing costs half of iso8601()'s to_char), or text already in that form; null for
 * NULL. */
void jw_put_time(jw *w, const char *key, const char *s);

#endif
