#include "http/request.h"

#include "core/crypto.h"
#include "core/validate.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_PARAMS 512
#define MAX_JSON_DEPTH 16

void request_init(request *r, arena *a, const config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->ctx.a = a;
	r->ctx.cfg = cfg;
	r->status = 200;
	buf_init(&r->headers, a, 512);
}

void request_restart(request *r)
{
	r->status = 200;
	r->headers.len = 0;
	r->body = NULL;
	r->body_len = 0;
	r->content_type = NULL;
	r->validation = NULL;
	r->project = NULL;
	r->group = NULL;
	r->checked = NULL;
	r->prefetch = (db_call){0};
	r->prefetched = NULL;
	r->cache_key = NULL;
	r->ctx.user = NULL;
	r->ctx.err_detail = NULL;
	r->ctx.hooks = NULL;
	r->ctx.deps = NULL;
	r->ctx.project_ns = NULL;
	r->ctx.project_path = NULL;
	r->ctx.users_epoch = 0;
	r->ctx.settings_fresh = false;
}

const char *request_header(request *r, const char *cgi_name)
{
	if (!r->header_fn)
		return NULL;
	return r->header_fn(r->header_ctx, cgi_name);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

char *url_decode_n(arena *a, const char *s, size_t n, bool plus, size_t *len)
{
	char *out = arena_alloc(a, n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '%') {
			if (i + 2 >= n)
				return NULL;
			int h = hexval(s[i + 1]), l = hexval(s[i + 2]);
			if (h < 0 || l < 0)
				return NULL;
			c = (char)(h * 16 + l);
			if (c == '\0' && !len)
				return NULL;
			i += 2;
		} else if (c == '+' && plus) {
			c = ' ';
		}
		*o++ = c;
	}
	*o = '\0';
	if (len)
		*len = (size_t)(o - out);
	return out;
}

char *url_decode(arena *a, const char *s, size_t n, bool plus)
{
	return url_decode_n(a, s, n, plus, NULL);
}

static int param_count(request *r)
{
	int n = 0;
	for (param *p = r->params; p; p = p->next)
		n++;
	return n;
}

/* Adds value[0..len) (NUL bytes included). */
static void param_add_n(request *r, const char *name, const char *value, size_t len, bool array,
			enum param_source src, bool front)
{
	param *p = arena_alloc(r->ctx.a, sizeof(*p));
	p->name = name;
	p->value = value;
	p->len = len;
	p->file = false;
	p->array = array;
	p->source = src;
	if (front) {
		p->next = r->params;
		r->params = p;
		if (!r->params_tail)
			r->params_tail = p;
	} else {
		if (r->params_tail)
			r->params_tail->next = p;
		else
			r->params = p;
		r->params_tail = p;
	}
}

void param_add(request *r, const char *name, const char *value, bool array, enum param_source src,
	       bool front)
{
	param_add_n(r, name, value, value ? strlen(value) : 0, array, src, front);
}

/* Splits "a=1&b[]=2" into parameters. */
static int parse_urlencoded(request *r, const char *s, size_t n, enum param_source src)
{
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && s[j] != '&')
			j++;
		if (j > i) {
			const char *eq = memchr(s + i, '=', j - i);
			size_t klen = eq ? (size_t)(eq - (s + i)) : j - i;
			/* a name is no value: it holds no NUL */
			char *name = url_decode(r->ctx.a, s + i, klen, true);
			size_t vlen = 0;
			char *value = eq ? url_decode_n(r->ctx.a, eq + 1, (size_t)(s + j - eq - 1),
							true, &vlen)
					 : arena_strdup(r->ctx.a, "");
			if (!name || !value)
				return fail(r, ERR_BAD_REQUEST, "invalid percent-encoding");
			if (!valid_utf8(name, strlen(name)) || !valid_utf8(value, vlen))
				return fail(r, ERR_BAD_REQUEST,
					    "parameters must be valid UTF-8 text");
			size_t nl = strlen(name);
			bool array = nl > 2 && strcmp(name + nl - 2, "[]") == 0;
			if (array)
				name[nl - 2] = '\0';
			if (*name) {
				if (param_count(r) >= MAX_PARAMS)
					return fail(r, ERR_BAD_REQUEST, "too many parameters");
				param_add_n(r, name, value, vlen, array, src, false);
			}
		}
		i = j + 1;
	}
	return 0;
}

/* The parameter value of JSON value v (NULL for null) and its length: 0, or
 * ERR_BAD_REQUEST for a string that is not UTF-8. A string keeps its NUL bytes
 * (\u0000): whether a parameter may hold them is param_check_text's question. */
static int json_scalar(request *r, json_object *v, const char **out, size_t *len)
{
	const char *t;
	switch (json_object_get_type(v)) {
	case json_type_null:
		*out = NULL;
		*len = 0;
		return 0;
	case json_type_boolean:
		t = json_object_get_boolean(v) ? "true" : "false";
		break;
	case json_type_string: {
		size_t n = (size_t)json_object_get_string_len(v);
		t = json_object_get_string(v);
		if (!valid_utf8(t, n))
			return fail(r, ERR_BAD_REQUEST, "parameters must be valid UTF-8 text");
		*out = arena_strndup(r->ctx.a, t, n);
		*len = n;
		return 0;
	}
	default:
		t = arena_strdup(r->ctx.a,
				 json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
		break;
	}
	*out = t;
	*len = strlen(t);
	return 0;
}

/* 1 when the JSON text (already parsed by json-c) has a \u escape of a lone UTF-16
 * surrogate: a high one not followed by a \u escape of a low one, or a low one alone.
 * json-c turns those into U+FFFD instead of failing. Escapes occur only inside strings,
 * and a backslash always starts one there, so a scan from escape to escape suffices. */
static bool json_lone_surrogate(const char *s, size_t n)
{
	bool in_string = false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"') {
			in_string = !in_string;
			continue;
		}
		if (!in_string || s[i] != '\\')
			continue;
		if (i + 1 >= n || s[i + 1] != 'u') {
			i++; /* a one-character escape: \" \\ \/ \b \f \n \r \t */
			continue;
		}
		unsigned u;
		if (i + 6 > n || sscanf(s + i + 2, "%4x", &u) != 1)
			return true; /* json-c accepted it: cannot happen */
		i += 5;
		if (u >= 0xDC00 && u <= 0xDFFF)
			return true;
		if (u < 0xD800 || u > 0xDBFF)
			continue;
		unsigned low;
		if (i + 7 > n || s[i + 1] != '\\' || s[i + 2] != 'u' ||
		    sscanf(s + i + 3, "%4x", &low) != 1 || low < 0xDC00 || low > 0xDFFF)
			return true;
		i += 6;
	}
	return false;
}

/* 1 when o holds a number that is not finite: json-c reads the literals NaN, Infinity
 * and -Infinity even in strict mode, and 1e400 as infinity. JSON has no such values. */
static bool json_non_finite(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_double:
		return !isfinite(json_object_get_double(o));
	case json_type_array: {
		size_t len = json_object_array_length(o);
		for (size_t i = 0; i < len; i++)
			if (json_non_finite(json_object_array_get_idx(o, i)))
				return true;
		return false;
	}
	case json_type_object: {
		json_object_object_foreach(o, key, val)
		{
			(void)key;
			if (json_non_finite(val))
				return true;
		}
		return false;
	}
	default:
		return false;
	}
}

static int parse_json(request *r, const char *body, size_t n)
{
	json_tokener *tok = json_tokener_new_ex(MAX_JSON_DEPTH);
	if (!tok)
		return ERR_INTERNAL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	json_object *root = json_tokener_parse_ex(tok, body, (int)n);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t used = tok->char_offset;
	json_tokener_free(tok);
	if (!root || jerr != json_tokener_success) {
		if (root)
			json_object_put(root);
		return fail(r, ERR_BAD_REQUEST, "malformed JSON body");
	}
	request_own(r, root);
	for (; used < n; used++)
		if (!isspace((unsigned char)body[used]))
			return fail(r, ERR_BAD_REQUEST, "malformed JSON body");
	if (json_non_finite(root) || json_lone_surrogate(body, n))
		return fail(r, ERR_BAD_REQUEST, "malformed JSON body");
	if (!json_object_is_type(root, json_type_object))
		return fail(r, ERR_BAD_REQUEST, "JSON body must be an object");
	int count = param_count(r); /* the query's; each member of the body adds one */
	json_object_object_foreach(root, key, val)
	{
		if (count++ >= MAX_PARAMS)
			return fail(r, ERR_BAD_REQUEST, "too many parameters");
		if (!valid_utf8(key, strlen(key)))
			return fail(r, ERR_BAD_REQUEST, "parameters must be valid UTF-8 text");
		if (json_object_is_type(val, json_type_array)) {
			/* one value past the bound is enough for param_array to refuse them */
			size_t len = json_object_array_length(val);
			if (len > PARAM_ARRAY_MAX + 1)
				len = PARAM_ARRAY_MAX + 1;
			for (size_t i = 0; i < len; i++) {
				const char *v;
				size_t vlen;
				int rc = json_scalar(r, json_object_array_get_idx(val, i), &v,
						     &vlen);
				if (rc < 0)
					return rc;
				param_add_n(r, arena_strdup(r->ctx.a, key), v, vlen, true, SRC_BODY,
					    false);
			}
		} else {
			const char *v;
			size_t vlen;
			int rc = json_scalar(r, val, &v, &vlen);
			if (rc < 0)
				return rc;
			param_add_n(r, arena_strdup(r->ctx.a, key), v, vlen, false, SRC_BODY,
				    false);
		}
	}
	return 0;
}

static const char *find_ci(const char *hay, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = hay; p + n <= end; p++)
		if (strncasecmp(p, needle, n) == 0)
			return p;
	return NULL;
}

/* Value of attribute attr="..." (or attr=token) in a header, in a. */
static char *header_attr(arena *a, const char *h, const char *end, const char *attr)
{
	const char *p = h;
	size_t al = strlen(attr);
	while ((p = find_ci(p, end, attr)) != NULL) {
		if ((p == h || p[-1] == ';' || p[-1] == ' ') && p + al < end && p[al] == '=') {
			p += al + 1;
			if (*p == '"') {
				const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
				return q ? arena_strndup(a, p + 1, (size_t)(q - p - 1)) : NULL;
			}
			const char *q = p;
			while (q < end && *q != ';' && *q != ' ' && *q != '\r')
				q++;
			return arena_strndup(a, p, (size_t)(q - p));
		}
		p += al;
	}
	return NULL;
}

static int parse_multipart(request *r, const char *ctype, const char *body, size_t n)
{
	char *boundary = header_attr(r->ctx.a, ctype, ctype + strlen(ctype), "boundary");
	if (!boundary || !*boundary || strlen(boundary) > 200)
		return fail(r, ERR_BAD_REQUEST, "multipart body without boundary");
	char *delim = arena_printf(r->ctx.a, "--%s", boundary);
	size_t dl = strlen(delim);
	const char *end = body + n;
	const char *p = NULL;
	/* find the first delimiter */
	for (const char *q = body; q + dl <= end; q++)
		if (memcmp(q, delim, dl) == 0) {
			p = q;
			break;
		}
	if (!p)
		return fail(r, ERR_BAD_REQUEST, "malformed multipart body");
	for (;;) {
		p += dl;
		if (p + 2 <= end && p[0] == '-' && p[1] == '-')
			return 0; /* closing delimiter */
		if (p + 2 > end || p[0] != '\r' || p[1] != '\n')
			return fail(r, ERR_BAD_REQUEST, "malformed multipart body");
		p += 2;
		const char *hend = NULL;
		for (const char *q = p; q + 4 <= end; q++)
			if (memcmp(q, "\r\n\r\n", 4) == 0) {
				hend = q;
				break;
			}
		if (!hend)
			return fail(r, ERR_BAD_REQUEST, "malformed multipart body");
		const char *disp = find_ci(p, hend, "content-disposition:");
		char *name = disp ? header_attr(r->ctx.a, disp, hend, "name") : NULL;
		char *filename = disp ? header_attr(r->ctx.a, disp, hend, "filename") : NULL;
		const char *data = hend + 4, *next = NULL;
		for (const char *q = data; q + dl + 2 <= end; q++)
			if (q[0] == '\r' && q[1] == '\n' && memcmp(q + 2, delim, dl) == 0) {
				next = q;
				break;
			}
		if (!next || !name)
			return fail(r, ERR_BAD_REQUEST, "malformed multipart body");
		if (param_count(r) >= MAX_PARAMS)
			return fail(r, ERR_BAD_REQUEST, "too many parameters");
		size_t nl = strlen(name);
		bool array = nl > 2 && strcmp(name + nl - 2, "[]") == 0;
		if (array)
			name[nl - 2] = '\0';
		/* Files keep their bytes; the view carries text, so a file part is kept
		 * under its name and its filename under name.filename. */
		size_t vlen = (size_t)(next - data);
		char *value = arena_strndup(r->ctx.a, data, vlen);
		if (!filename && !valid_utf8(value, vlen))
			return fail(r, ERR_BAD_REQUEST, "parameters must be valid UTF-8 text");
		if (!valid_utf8(name, strlen(name)) ||
		    (filename && !valid_utf8(filename, strlen(filename))))
			return fail(r, ERR_BAD_REQUEST, "parameters must be valid UTF-8 text");
		param_add_n(r, name, value, vlen, array, SRC_BODY, false);
		r->params_tail->file = filename != NULL;
		if (filename)
			param_add(r, arena_printf(r->ctx.a, "%s.filename", name), filename, false,
				  SRC_BODY, false);
		p = next + 2;
	}
}

int request_parse(request *r, const char *method, const char *uri, const char *content_type,
		  const char *body, size_t body_len)
{
	r->head = strcmp(method, "HEAD") == 0;
	r->method = r->head ? "GET" : arena_strdup(r->ctx.a, method);
	const char *q = strchr(uri, '?');
	r->path = q ? arena_strndup(r->ctx.a, uri, (size_t)(q - uri)) : arena_strdup(r->ctx.a, uri);
	r->query = q ? arena_strdup(r->ctx.a, q + 1) : "";
	if (strlen(uri) > REQUEST_URI_MAX)
		return ERR_URI_TOO_LONG;
	int rc = parse_urlencoded(r, r->query, strlen(r->query), SRC_QUERY);
	if (rc < 0)
		return rc;
	if (!body || body_len == 0)
		return 0;
	r->raw_body = body;
	r->raw_body_len = body_len;
	const char *ct = content_type ? content_type : "";
	if (strncasecmp(ct, "application/json", 16) == 0)
		return parse_json(r, body, body_len);
	if (strncasecmp(ct, "multipart/form-data", 19) == 0)
		return parse_multipart(r, ct, body, body_len);
	if (strncasecmp(ct, "application/x-www-form-urlencoded", 33) == 0 || !*ct) {
		if (memchr(body, '\0', body_len))
			return fail(r, ERR_BAD_REQUEST, "invalid form body");
		return parse_urlencoded(r, body, body_len, SRC_BODY);
	}
	return 0; /* other bodies (git packs, artifacts) are read by their handlers */
}

/* The last value wins, as in Rack; path captures, added in front, win over all. */
param *param_find(request *r, const char *name)
{
	param *found = NULL;
	for (param *p = r->params; p; p = p->next) {
		if (!p->array && strcmp(p->name, name) == 0) {
			if (p->source == SRC_PATH)
				return p;
			found = p;
		}
	}
	return found;
}

const char *param_str(request *r, const char *name)
{
	param *p = param_find(r, name);
	return p ? p->value : NULL;
}

int param_int(request *r, const char *name, long long *out)
{
	param *p = param_find(r, name);
	if (!p || !p->value)
		return 1;
	const char *s = p->value;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || errno || isspace((unsigned char)*s))
		return fail_invalid(r, name);
	*out = v;
	return 0;
}

int param_bool(request *r, const char *name, bool *out)
{
	param *p = param_find(r, name);
	if (!p || !p->value)
		return 1;
	static const char *yes[] = {"true", "1", "t", "yes", "y", "on"};
	static const char *no[] = {"false", "0", "f", "no", "n", "off"};
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++) {
		if (strcasecmp(p->value, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(p->value, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return fail_invalid(r, name);
}

int param_array(request *r, const char *name, const char ***out)
{
	int n = 0;
	*out = NULL;
	for (param *p = r->params; p; p = p->next)
		if (p->array && strcmp(p->name, name) == 0)
			n++;
	if (n > PARAM_ARRAY_MAX)
		return fail(r, ERR_INVALID,
			    arena_printf(r->ctx.a, "%s has too many values (at most %d)", name,
					 PARAM_ARRAY_MAX));
	const char **v = arena_alloc(r->ctx.a, sizeof(*v) * (size_t)(n + 1));
	int i = 0;
	for (param *p = r->params; p; p = p->next)
		if (p->array && strcmp(p->name, name) == 0)
			v[i++] = p->value;
	*out = v;
	return n;
}

/* The key of p when it is name[KEY] (KEY non-empty, without brackets), else NULL. */
static const char *map_key(request *r, const param *p, const char *name, size_t nl)
{
	size_t len = strlen(p->name);
	if (p->array || p->file || len < nl + 3 || strncmp(p->name, name, nl) != 0 ||
	    p->name[nl] != '[' || p->name[len - 1] != ']')
		return NULL;
	const char *key = p->name + nl + 1;
	size_t kl = len - nl - 2;
	if (memchr(key, '[', kl) || memchr(key, ']', kl))
		return NULL;
	return arena_strndup(r->ctx.a, key, kl);
}

int param_map(request *r, const char *name, const char ***keys, const char ***values)
{
	size_t nl = strlen(name);
	int n = 0;
	*keys = *values = NULL;
	for (param *p = r->params; p; p = p->next)
		if (map_key(r, p, name, nl))
			n++;
	const char **k = arena_alloc(r->ctx.a, sizeof(*k) * (size_t)(n + 1));
	const char **v = arena_alloc(r->ctx.a, sizeof(*v) * (size_t)(n + 1));
	int i = 0;
	for (param *p = r->params; p && i < n; p = p->next) {
		const char *key = map_key(r, p, name, nl);
		if (key) {
			k[i] = key;
			v[i++] = p->value ? p->value : "";
		}
	}
	*keys = k;
	*values = v;
	return n;
}

int param_require(request *r, const char *name, const char **out)
{
	const char *v = param_str(r, name);
	if (!v || !*v)
		return fail_missing(r, name);
	*out = v;
	return 0;
}

static void json_release(void *obj)
{
	json_object_put(obj);
}

json_object *request_own(request *r, json_object *obj)
{
	if (obj)
		arena_defer(r->ctx.a, json_release, obj);
	return obj;
}

int param_text(request *r, const char *name, size_t max, const char **out)
{
	const char *v = param_str(r, name);
	if (!v)
		return 1;
	if (utf8_chars(v) > max)
		return fail_validation(
			r, name,
			arena_printf(r->ctx.a, "is too long (maximum is %zu characters)", max));
	*out = v;
	return 0;
}

int param_datetime(request *r, const char *name, const char **out)
{
	const char *v = param_str(r, name);
	if (!v)
		return 1;
	if (!valid_datetime(v))
		return fail_invalid(r, name);
	*out = v;
	return 0;
}

/* GitLab 10 casts a date parameter as Rails does a date column (Date._parse): a
 * date-time such as a client's 2020-01-01T10:00:00+02:00 is that day, its time and
 * offset dropped, not converted. */
int param_date(request *r, const char *name, const char **out)
{
	const char *v = param_str(r, name);
	if (!v)
		return 1;
	if (!valid_datetime(v)) /* a date is one too */
		return fail_invalid(r, name);
	*out = strlen(v) == 10 ? v : arena_strndup(r->ctx.a, v, 10);
	return 0;
}

int param_oneof(request *r, const char *name, const char *const *allowed, const char **out)
{
	const char *v = param_str(r, name);
	if (!v)
		return 1;
	for (int i = 0; allowed[i]; i++)
		if (strcmp(v, allowed[i]) == 0) {
			*out = allowed[i];
			return 0;
		}
	return fail_not_valid_value(r, name);
}

int param_check_text(request *r, const char *bytes)
{
	for (param *p = r->params; p; p = p->next)
		if (p->value && !p->file && memchr(p->value, '\0', p->len) &&
		    !(bytes && strcmp(p->name, bytes) == 0))
			return fail_invalid(r, p->name);
	return 0;
}

int param_bytes(request *r, const char *name, const char **data, size_t *len)
{
	param *p = param_find(r, name);
	if (!p || !p->value)
		return 1;
	*data = p->value;
	*len = p->len;
	return 0;
}

int param_file(request *r, const char *name, const char **data, size_t *len, const char **filename)
{
	param *p = param_find(r, name);
	const char *fname = param_str(r, arena_printf(r->ctx.a, "%s.filename", name));
	if (!p || !p->value || !fname)
		return 1;
	*data = p->value;
	*len = p->len;
	*filename = fname;
	return 0;
}

void request_read_credentials(request *r)
{
	/* An empty value counts as absent, so that it does not hide the next source. */
	const char *token = request_header(r, "HTTP_PRIVATE_TOKEN");
	if (!token || !*token)
		token = param_str(r, "private_token");
	if (!token || !*token) {
		const char *h = request_header(r, "HTTP_AUTHORIZATION");
		token = NULL;
		if (h && strncasecmp(h, "Bearer ", 7) == 0) {
			token = h + 7;
			while (*token == ' ')
				token++;
		}
		if (!token || !*token)
			token = param_str(r, "access_token");
		r->cred.oauth = token && *token;
	}
	if (token && *token)
		r->cred.token_digest = crypto_sha256_hex(r->ctx.a, token, strlen(token));
	r->cred.reading = strcmp(r->method, "GET") == 0;
	r->cred.sudo = request_header(r, "HTTP_SUDO");
	if (!r->cred.sudo || !*r->cred.sudo)
		r->cred.sudo = param_str(r, "sudo");
	if (r->cred.sudo && !*r->cred.sudo)
		r->cred.sudo = NULL;
}
