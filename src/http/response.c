/* Responses and the error table. */
#include <stdio.h>
#include <string.h>

#include "http/request.h"

int fail(request *r, int code, const char *detail)
{
	r->ctx.err_detail = detail;
	return code;
}

int fail_missing(request *r, const char *attr)
{
	return fail(r, ERR_MISSING, attr);
}

int fail_invalid(request *r, const char *attr)
{
	return fail(r, ERR_INVALID, arena_printf(r->ctx.a, "%s is invalid", attr));
}

int fail_not_valid_value(request *r, const char *attr)
{
	return fail(r, ERR_INVALID, arena_printf(r->ctx.a, "%s does not have a valid value", attr));
}

int fail_not_found(request *r, const char *what)
{
	return fail(r, ERR_NOT_FOUND, what);
}

int fail_validation(request *r, const char *field, const char *message)
{
	if (!r->validation)
		r->validation = request_own(r, json_object_new_object());
	json_object *list = NULL;
	if (!json_object_object_get_ex(r->validation, field, &list)) {
		list = json_object_new_array();
		json_object_object_add(r->validation, field, list);
	}
	json_object_array_add(list, json_object_new_string(message));
	return ERR_VALIDATION;
}

void respond_header(request *r, const char *name, const char *value)
{
	buf_puts(&r->headers, name);
	buf_append(&r->headers, ": ", 2);
	buf_puts(&r->headers, value);
	buf_append(&r->headers, "\r\n", 2);
}

void respond_header_int(request *r, const char *name, long long value)
{
	buf_puts(&r->headers, name);
	buf_append(&r->headers, ": ", 2);
	buf_put_int(&r->headers, value);
	buf_append(&r->headers, "\r\n", 2);
}

void respond_json(request *r, int status, json_object *obj)
{
	r->status = status;
	request_own(r, obj);
	size_t len = 0;
	const char *s = json_object_to_json_string_length(
		obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	r->body = s;
	r->body_len = len;
}

void respond_jw(request *r, int status, jw *w)
{
	r->status = status;
	r->body = buf_cstr(&w->b);
	r->body_len = w->b.len;
}

void respond_empty(request *r, int status)
{
	r->status = status;
	r->body = NULL;
	r->body_len = 0;
}

static json_object *message(const char *key, const char *text)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, key, json_object_new_string(text));
	return o;
}

void respond_error(request *r, int code)
{
	const char *d = r->ctx.err_detail ? r->ctx.err_detail : "";
	switch (code) {
	case ERR_MISSING:
		respond_json(
			r, 400,
			message("message",
				arena_printf(r->ctx.a, "400 (Bad request) \"%s\" not given", d)));
		break;
	case ERR_INVALID:
		respond_json(r, 400, message("error", d));
		break;
	case ERR_VALIDATION: {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "message",
				       r->validation ? json_object_get(r->validation)
						     : json_object_new_object());
		respond_json(r, 400, o);
		break;
	}
	case ERR_BAD_REQUEST:
		respond_json(r, 400,
			     message("message", arena_printf(r->ctx.a, "400 (Bad request) %s", d)));
		break;
	case ERR_UNAUTHORIZED:
		respond_json(r, 401, message("message", "401 Unauthorized"));
		break;
	case ERR_FORBIDDEN:
		respond_json(r, 403, message("message", *d ? d : "403 Forbidden"));
		break;
	case ERR_SCOPE: {
		json_object *o = message("error", "insufficient_scope");
		json_object_object_add(
			o, "error_description",
			json_object_new_string(
				"The request requires higher privileges than provided by "
				"the access token."));
		json_object_object_add(o, "scope", json_object_new_string("api"));
		respond_json(r, 403, o);
		respond_header(
			r, "WWW-Authenticate",
			"Bearer realm=\"Protected by OAuth 2.0\", error=\"insufficient_scope\", "
			"scope=\"api\"");
		break;
	}
	case ERR_NOT_FOUND:
		respond_json(r, 404,
			     message("message", *d ? arena_printf(r->ctx.a, "404 %s Not Found", d)
						   : "404 Not Found"));
		break;
	case ERR_NO_ROUTE:
		respond_json(r, 404, message("error", "404 Not Found"));
		break;
	case ERR_SUDO_NOT_FOUND:
		respond_json(r, 404,
			     message("message",
				     arena_printf(r->ctx.a,
						  "404 Not Found: No user id or username for: %s",
						  d)));
		break;
	case ERR_CONFLICT:
		respond_json(r, 409, message("message", *d ? d : "409 Conflict"));
		break;
	case ERR_TOO_LARGE:
		respond_json(r, 413, message("message", "413 Request Entity Too Large"));
		break;
	case ERR_URI_TOO_LONG:
		respond_json(r, 414, message("message", "414 Request-URI Too Large"));
		break;
	case ERR_UNAVAILABLE:
		respond_json(r, 503, message("message", "503 Service Unavailable"));
		respond_header(r, "Retry-After", "1");
		break;
	case ERR_OAUTH: {
		/* detail: "<status> <error>" */
		int status = 400;
		char err[64] = "invalid_request";
		sscanf(d, "%d %63s", &status, err);
		json_object *o = message("error", err);
		const char *desc =
			strcmp(err, "invalid_grant") == 0
				? "The provided authorization grant is invalid, expired, "
				  "revoked, does not match the redirection URI used in the "
				  "authorization request, or was issued to another client."
			: strcmp(err, "unsupported_grant_type") == 0
				? "The authorization grant type is not supported by the "
				  "authorization server."
				: "The request is missing a required parameter, includes an "
				  "unsupported parameter value, or is otherwise malformed.";
		json_object_object_add(o, "error_description", json_object_new_string(desc));
		respond_json(r, status, o);
		break;
	}
	case ERR_NOT_MODIFIED:
		respond_empty(r, 304);
		break;
	default:
		respond_json(r, 500, message("message", "500 Internal Server Error"));
		break;
	}
}
