#include "core/json_stream.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
	ST_START,       /* before the object's '{' */
	ST_KEY,         /* before a member's name (or the '}' of an empty object) */
	ST_KEY_TEXT,    /* inside the name: the tokener has it */
	ST_COLON,       /* before ':' */
	ST_VALUE,       /* before a member's value */
	ST_SCALAR,      /* inside a member's value that is not an array */
	ST_FIRST,       /* after an array's '[' */
	ST_ELEMENT,     /* inside an element */
	ST_ELEMENT_END, /* after an element: ',' or ']' */
	ST_MEMBER_END,  /* after a member: ',' or '}' */
	ST_DONE,        /* after the object: white space only */
	ST_FAILED,
} state;

struct json_stream {
	state st;
	json_tokener *tok;
	size_t max_record;
	size_t fed; /* bytes of the current value given to the tokener */
	json_stream_fn fn;
	void *arg;
	char *key;  /* the current member's name */
	long index; /* the current element's */
	int rc;     /* what stopped the reading */
	char error[256];
};

static int fail(json_stream *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(json_stream *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->error, sizeof(s->error), fmt, ap);
	va_end(ap);
	s->st = ST_FAILED;
	s->rc = JSON_STREAM_ERROR;
	return s->rc;
}

json_stream *json_stream_new(int max_depth, size_t max_record, json_stream_fn fn, void *arg)
{
	json_stream *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	/* json-c counts the value itself as a level */
	s->tok = json_tokener_new_ex(max_depth < 1 ? 1 : max_depth);
	if (!s->tok) {
		free(s);
		return NULL;
	}
	json_tokener_set_flags(s->tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS |
					       JSON_TOKENER_VALIDATE_UTF8);
	s->max_record = max_record;
	s->fn = fn;
	s->arg = arg;
	return s;
}

void json_stream_free(json_stream *s)
{
	if (!s)
		return;
	json_tokener_free(s->tok);
	free(s->key);
	free(s);
}

const char *json_stream_error(const json_stream *s)
{
	return s->error;
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* What is being read, for the messages. */
static const char *where(json_stream *s)
{
	static char buf[160];
	if (s->st == ST_KEY_TEXT || !s->key)
		return "a member's name";
	if (s->st == ST_ELEMENT)
		snprintf(buf, sizeof(buf), "element %ld of \"%.100s\"", s->index, s->key);
	else
		snprintf(buf, sizeof(buf), "\"%.100s\"", s->key);
	return buf;
}

/* Gives the tokener up to n bytes of the current value: the bytes it took in *used;
 * *done once it is whole, with the value in *out (NULL for JSON's null). 0 or
 * JSON_STREAM_ERROR. */
static int take(json_stream *s, const char *p, size_t n, size_t *used, json_object **out,
		bool *done)
{
	*out = NULL;
	*done = false;
	size_t room = s->max_record - s->fed;
	/* one byte past the bound decides: a value of exactly max_record bytes may end
	 * with the delimiter after it */
	size_t give = n < room + 1 ? n : room + 1;
	if (give > (size_t)0x7fffffff)
		give = 0x7fffffff;
	json_object *v = json_tokener_parse_ex(s->tok, p, (int)give);
	enum json_tokener_error e = json_tokener_get_error(s->tok);
	if (v || e == json_tokener_success) {
		*used = json_tokener_get_parse_end(s->tok);
		s->fed += *used;
		json_tokener_reset(s->tok);
		if (s->fed > s->max_record) {
			json_object_put(v);
			return fail(s, "%s is larger than %zu bytes", where(s), s->max_record);
		}
		*out = v;
		*done = true;
		return 0;
	}
	if (e == json_tokener_continue) {
		*used = give;
		s->fed += give;
		if (s->fed > s->max_record)
			return fail(s, "%s is larger than %zu bytes", where(s), s->max_record);
		return 0;
	}
	if (e == json_tokener_error_depth)
		return fail(s, "%s is nested too deeply", where(s));
	return fail(s, "%s is not valid JSON: %s", where(s), json_tokener_error_desc(e));
}

static void begin_value(json_stream *s, state st)
{
	json_tokener_reset(s->tok);
	s->fed = 0;
	s->st = st;
}

int json_stream_feed(json_stream *s, const char *data, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (s->st == ST_FAILED)
			return s->rc;
		char c = data[i];
		switch (s->st) {
		case ST_START:
			if (space(c)) {
				i++;
			} else if (c == '{') {
				i++;
				s->st = ST_KEY;
			} else {
				return fail(s, "the document is not a JSON object");
			}
			break;
		case ST_KEY:
			if (space(c)) {
				i++;
			} else if (c == '"') {
				begin_value(s, ST_KEY_TEXT);
			} else if (c == '}' && !s->key) {
				i++;
				s->st = ST_DONE;
			} else {
				return fail(s, "a member's name is expected");
			}
			break;
		case ST_KEY_TEXT:
		case ST_SCALAR:
		case ST_ELEMENT: {
			size_t used = 0;
			json_object *v;
			bool done;
			if (take(s, data + i, n - i, &used, &v, &done) < 0)
				return s->rc;
			i += used;
			if (s->st == ST_KEY_TEXT) {
				if (!done)
					break;
				if (!json_object_is_type(v, json_type_string)) {
					json_object_put(v);
					return fail(s, "a member's name is not a string");
				}
				free(s->key);
				s->key = strdup(json_object_get_string(v));
				json_object_put(v);
				if (!s->key)
					return fail(s, "out of memory");
				s->st = ST_COLON;
			} else if (done) {
				long index = s->st == ST_ELEMENT ? s->index : -1;
				int rc = s->fn(s->arg, s->key, index, v);
				json_object_put(v);
				if (rc != 0) {
					snprintf(s->error, sizeof(s->error), "stopped at %s",
						 where(s));
					s->st = ST_FAILED;
					s->rc = rc;
					return rc;
				}
				s->st = s->st == ST_ELEMENT ? ST_ELEMENT_END : ST_MEMBER_END;
				s->index++;
			}
			break;
		}
		case ST_COLON:
			if (space(c))
				i++;
			else if (c == ':') {
				i++;
				s->st = ST_VALUE;
			} else
				return fail(s, "':' is expected after \"%.100s\"", s->key);
			break;
		case ST_VALUE:
			if (space(c)) {
				i++;
			} else if (c == '[') {
				i++;
				s->index = 0;
				s->st = ST_FIRST;
			} else {
				begin_value(s, ST_SCALAR);
			}
			break;
		case ST_FIRST:
			if (space(c))
				i++;
			else if (c == ']') {
				i++;
				s->st = ST_MEMBER_END;
			} else
				begin_value(s, ST_ELEMENT);
			break;
		case ST_ELEMENT_END:
			if (space(c))
				i++;
			else if (c == ',') {
				i++;
				/* an element must follow: the tokener refuses a ']' */
				begin_value(s, ST_ELEMENT);
			} else if (c == ']') {
				i++;
				s->st = ST_MEMBER_END;
			} else
				return fail(s, "',' or ']' is expected after %s", where(s));
			break;
		case ST_MEMBER_END:
			if (space(c))
				i++;
			else if (c == ',') {
				i++;
				s->st = ST_KEY;
			} else if (c == '}') {
				i++;
				s->st = ST_DONE;
			} else
				return fail(s, "',' or '}' is expected after \"%.100s\"", s->key);
			break;
		case ST_DONE:
			if (!space(c))
				return fail(s, "there is more after the object");
			i++;
			break;
		case ST_FAILED:
			return s->rc;
		}
	}
	return s->st == ST_FAILED ? s->rc : 0;
}

int json_stream_end(json_stream *s)
{
	if (s->st == ST_FAILED)
		return s->rc;
	if (s->st != ST_DONE)
		return fail(s, "the document ends before its object does");
	return 0;
}
