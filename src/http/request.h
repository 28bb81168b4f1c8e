/* One HTTP request as the worker sees it: what came in (method, path, parameter view,
 * headers), who is asking (after authentication), and what goes out (status, headers,
 * body). Everything lives in the request's arena. */
#ifndef COLLABD_REQUEST_H
#define COLLABD_REQUEST_H

#include <json-c/json.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/config.h"
#include "core/ctx.h"
#include "core/deps.h"
#include "core/errors.h"
#include "core/jw.h"
#include "auth/auth.h"
#include "db/db.h"

enum param_source { SRC_PATH, SRC_QUERY, SRC_BODY };

typedef struct param {
	const char *name;  /* without a trailing [] */
	const char *value; /* NULL for a JSON null */
	bool array;        /* sent as name[] or as a JSON array element */
	enum param_source source;
	size_t len; /* bytes of value: NUL bytes may be among them (a file part, a
			    * job's trace; param_check_text refuses them elsewhere) */
	bool file;  /* a file part of a multipart body: bytes, not text */
	struct param *next;
} param;

struct route;
struct project_scope;
struct group_scope;

typedef struct request {
	ctx ctx; /* arena, database, configuration, key, caller (core/ctx.h) */

	/* what came in */
	const char *method; /* GET for HEAD requests too */
	bool head;
	const char *path;  /* raw path, percent-encoded as sent */
	const char *query; /* raw query string, may be "" */
	param *params;     /* path captures first, then query, then body */
	param *params_tail;
	const char *(*header_fn)(void *hctx, const char *cgi_name);
	void *header_ctx;
	const char *raw_body; /* the body as sent (a job's trace patch: text/plain) */
	size_t raw_body_len;
	const struct route *route;
	const char *request_id;
	struct project_scope *project; /* ROUTE_PROJECT: the project of :id (auth/scope.h) */
	/* The statement that a reading route's parameter checks expect its handler to run
	 * (strings in the arena), sent in the round trip that finds the caller and the
	 * project, before any access is decided, and its result (NULL: none, or it failed):
	 * api_query answers it only to a handler that asks for exactly that statement with
	 * those parameters, so it must only read. */
	db_call prefetch;
	PGresult *prefetched;
	struct group_scope *group; /* ROUTE_GROUP: the group of :id */
	/* What a route's check parsed at some cost (in the arena), for its handler to take
	 * instead of parsing it again: a commit's decoded actions. NULL when none. */
	void *checked;

	/* who asks (the caller is ctx.user, found from cred) */
	credential cred;

	/* what goes out */
	int status;
	buf headers;
	const char *body;
	size_t body_len;
	const char *content_type; /* of a body that is not JSON (raw file bytes); NULL: JSON */
	json_object *validation;  /* for ERR_VALIDATION */

	/* the response cache (cache/response.h): the worker's, NULL when off */
	struct cache *cache;
	const char *cache_key; /* set while a ROUTE_CACHE request runs in its snapshot */
	dep_list deps;         /* what it depends on (ctx.deps points here meanwhile) */
	/* the authentication cache (auth/auth.c): the worker's, NULL when off */
	struct cache *auth_cache;
} request;

/* Sets up r for a new request in arena a. */
void request_init(request *r, arena *a, const config *cfg);
/* Forgets what a request's run so far found and answered (the caller, its scope, the
 * response), keeping what came in: to run it again on another connection. */
void request_restart(request *r);
/* The longest request URI (path and query) accepted: what fits in the request line of
 * the shipped nginx (large_client_header_buffers 4 8k, nginx/collabd.conf), whose
 * fastcgi_buffer_size holds the Link header of any such URI (every query parameter,
 * at most three times longer once encoded, in each of four URLs). Longer: 414. */
#define REQUEST_URI_MAX 8192

/* Reads method, URI, content type and body into r. Returns 0 or an ERR_ code when the
 * URI is too long (ERR_URI_TOO_LONG) or the body cannot be parsed (malformed JSON, bad
 * multipart). */
int request_parse(request *r, const char *method, const char *uri, const char *content_type,
		  const char *body, size_t body_len);
/* Reads the credential the request carries (header or parameter) and the sudo value into
 * r->cred. */
void request_read_credentials(request *r);
/* Header by its CGI name (HTTP_PRIVATE_TOKEN); NULL when absent. */
const char *request_header(request *r, const char *cgi_name);

/* Parameter view. Getters return 0 when found (writing *out), 1 when absent, or a
 * negative ERR_ code when the value is malformed (the request's detail says why). */
param *param_find(request *r, const char *name);
const char *param_str(request *r, const char *name);
int param_int(request *r, const char *name, long long *out);
int param_bool(request *r, const char *name, bool *out);
/* Array values (name[]=1&name[]=2, or a JSON array): their count, the values in a; or
 * ERR_INVALID ("name has too many values") beyond PARAM_ARRAY_MAX of them, so that no
 * handler's work on a list grows past a bound a client never meets. */
#define PARAM_ARRAY_MAX 1000
int param_array(request *r, const char *name, const char ***out);
/* A hash parameter as Rack reads one, name[KEY]=VALUE for each KEY (non-empty, without
 * brackets; custom_attributes[location]=Antarctica): their count (at most the request's
 * parameters, themselves bounded), the keys and values in the order sent (a JSON null
 * as ""). */
int param_map(request *r, const char *name, const char ***keys, const char ***values);
/* ERR_MISSING naming the attribute, when it is absent or empty. */
int param_require(request *r, const char *name, const char **out);
/* Text of at most max characters: 0, 1 when absent, ERR_VALIDATION when too long. */
int param_text(request *r, const char *name, size_t max, const char **out);
/* ISO 8601 date-time: 0, 1 when absent, ERR_INVALID when malformed. */
int param_datetime(request *r, const char *name, const char **out);
/* A date: YYYY-MM-DD, or an ISO 8601 date-time whose calendar date is taken as written
 * (*out: its YYYY-MM-DD, in r's arena); 0, 1 when absent, ERR_INVALID when malformed. */
int param_date(request *r, const char *name, const char **out);
/* One of the NULL-terminated allowed values: 0, 1 when absent, ERR_INVALID
 * ("name does not have a valid value") otherwise. */
int param_oneof(request *r, const char *name, const char *const *allowed, const char **out);
/* Text is any valid UTF-8 (the parsers refuse the rest), control characters included;
 * only a NUL byte, which no text column of PostgreSQL stores, makes a parameter invalid.
 * 0, or ERR_INVALID ("name is invalid") naming the first parameter with a NUL byte but
 * bytes (the one a route takes as bytes, NULL: none) and file parts. The dispatcher runs
 * it before every route's checks, but for ROUTE_BYTES routes, whose checks run it. */
int param_check_text(request *r, const char *bytes);
/* The bytes of a parameter, NUL bytes included: 0 with them, 1 when absent. */
int param_bytes(request *r, const char *name, const char **data, size_t *len);
/* A file part of a multipart body: 0 with its bytes and file name, or 1 when absent. */
int param_file(request *r, const char *name, const char **data, size_t *len, const char **filename);
/* Adds a parameter (used by the router for path captures and by the parsers). */
void param_add(request *r, const char *name, const char *value, bool array, enum param_source src,
	       bool front);

/* Failure helpers: record the detail, return the code. */
int fail(request *r, int code, const char *detail);
int fail_missing(request *r, const char *attr);
int fail_invalid(request *r, const char *attr);         /* "attr is invalid" */
int fail_not_valid_value(request *r, const char *attr); /* "attr does not have a valid value" */
int fail_not_found(request *r, const char *what);       /* "404 what Not Found" */
/* Adds message to field of the validation object; returns ERR_VALIDATION. */
int fail_validation(request *r, const char *field, const char *message);

/* Responses. The body is serialised now; obj is released with the arena. */
void respond_json(request *r, int status, json_object *obj);
/* The same with the JSON text w wrote (its buffer is the body). */
void respond_jw(request *r, int status, jw *w);
void respond_empty(request *r, int status);
void respond_header(request *r, const char *name, const char *value);
/* The same with a decimal value. */
void respond_header_int(request *r, const char *name, long long value);
/* Status and body for an ERR_ code, from the error table. */
void respond_error(request *r, int code);

/* Decodes %XX and (when plus) '+' in s[0..n) into a new string in a; NULL when an
 * escape is malformed or decodes to a NUL byte. */
char *url_decode(arena *a, const char *s, size_t n, bool plus);
/* The same keeping NUL bytes (%00), with the decoded length in *len. */
char *url_decode_n(arena *a, const char *s, size_t n, bool plus, size_t *len);
/* Own a json_object for the life of the request. */
json_object *request_own(request *r, json_object *obj);

#endif
