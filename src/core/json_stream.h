/* A reader of one large JSON object in bounded memory (a project export's project.json,
 * db/impexp.h): it scans the top-level object and hands each member whose value is not an
 * array, and each element of a member that is an array, to a callback, parsed by json-c's
 * json_tokener with a depth limit. Only one value is held at a time; one larger than
 * max_record bytes of text, or nested deeper than max_depth, stops the reading with an
 * error that names it. Fed in chunks of any size (a chunk may end anywhere: inside a
 * string, an escape, a number). */
#ifndef COLLABD_JSON_STREAM_H
#define COLLABD_JSON_STREAM_H

#include <json-c/json.h>
#include <stddef.h>

typedef struct json_stream json_stream;

/* What a value is handed to: key the member's name, index the element's position in its
 * array, or -1 for a member that is not an array; value is freed after the call (take a
 * reference to keep it), NULL for JSON's null. 0 to go on; anything else stops the reading, and
 * json_stream_feed returns it. */
typedef int (*json_stream_fn)(void *arg, const char *key, long index, json_object *value);

/* NULL when out of memory. max_depth: the nesting a value may have (1: a scalar or an
 * empty container). */
json_stream *json_stream_new(int max_depth, size_t max_record, json_stream_fn fn, void *arg);
void json_stream_free(json_stream *s);
/* Reads n more bytes: 0, JSON_STREAM_ERROR (json_stream_error says why) or what the
 * callback returned. After an error every feed returns it again. */
#define JSON_STREAM_ERROR (-1)
int json_stream_feed(json_stream *s, const char *data, size_t n);
/* The input is over: 0 when it was one whole object (and nothing but white space
 * after it), else JSON_STREAM_ERROR. */
int json_stream_end(json_stream *s);
/* Why the reading stopped ("" while it has not): in s, valid until it is freed. */
const char *json_stream_error(const json_stream *s);

#endif
