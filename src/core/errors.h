/* The expected failures: handlers, database access (db/), repository operations (git/),
 * CI (ci/) and access decisions return 0 or one of these, so that `< 0` is a failure
 * everywhere and a code means the same thing in every layer. The one table that maps
 * them to an HTTP status and body is http/response.c's; the command line, the hooks and
 * the shell print them. The codes after ERR_URI_TOO_LONG are answers of the layers below
 * api/ that their callers turn into GitLab's words: they never reach the table (500 if
 * one did). */
#ifndef COLLABD_ERRORS_H
#define COLLABD_ERRORS_H

enum {
	ERR_MISSING = -1,      /* 400 {"message":"400 (Bad request) \"x\" not given"} */
	ERR_INVALID = -2,      /* 400 {"error":"x is invalid"} (detail is the text) */
	ERR_VALIDATION = -3,   /* 400 {"message":{field:[...]}} (request's validation) */
	ERR_BAD_REQUEST = -4,  /* 400 {"message":"400 (Bad request) detail"} */
	ERR_UNAUTHORIZED = -5, /* 401 {"message":"401 Unauthorized"} */
	ERR_FORBIDDEN = -6,    /* 403 {"message":"403 Forbidden"} or detail */
	ERR_SCOPE = -7,        /* 403 insufficient_scope */
	ERR_NOT_FOUND = -8,    /* 404 {"message":"404 <detail> Not Found"} */
	ERR_NO_ROUTE = -9,     /* 404 {"error":"404 Not Found"} */
	ERR_SUDO_NOT_FOUND =
		-10,            /* 404 {"message":"404 Not Found: No user id or username for: x"} */
	ERR_CONFLICT = -11,     /* 409 {"message":detail} */
	ERR_TOO_LARGE = -12,    /* 413 */
	ERR_UNAVAILABLE = -13,  /* 503: database unreachable */
	ERR_INTERNAL = -14,     /* 500, logged with the request id, nothing internal shown */
	ERR_OAUTH = -15,        /* OAuth error body {"error":detail,...} with status in detail */
	ERR_NOT_MODIFIED = -16, /* 304, no body */
	ERR_URI_TOO_LONG = -17, /* 414 {"message":"414 Request-URI Too Large"} */
	ERR_MOVED = -18,        /* a ref moved (or appeared) meanwhile: compare-and-swap lost */
	ERR_REFUSED = -19,  /* refused: it does not apply (the function says why in *msg, *why) */
	ERR_EXISTS = -20,   /* a name is taken already (a ref, when another writer was first) */
	ERR_BAD_NAME = -21, /* a name no ref may take (it collides with another ref's path) */
};

#endif
