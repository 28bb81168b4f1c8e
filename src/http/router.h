/* The route table's shape and the matcher. The table itself is src/api/routes.c. */
#ifndef COLLABD_ROUTER_H
#define COLLABD_ROUTER_H

#include <stddef.h>

#include "http/request.h"

typedef int (*handler_fn)(request *r);

enum route_flag {
	ROUTE_PUBLIC = 0,         /* credentials optional: r->user may be NULL */
	ROUTE_AUTH = 1 << 0,      /* 401 without valid credentials */
	ROUTE_ADMIN = 1 << 1,     /* 403 unless the caller is an admin (implies AUTH) */
	ROUTE_READ_USER = 1 << 2, /* also allowed to tokens with only the read_user scope */
	ROUTE_NO_AUTH = 1 << 3,   /* credentials are not looked at (OAuth token endpoint) */
	ROUTE_SELF_AUTH = 1 << 4, /* handler authenticates inside its own statement */
	ROUTE_CALLER_RECORD = 1 << 5, /* the handler presents the caller's own record
				       * (r->user->res): authentication fetches all of it */
	ROUTE_CACHE = 1 << 6,     /* 200s kept in the response cache (http/cache.h): the
				   * handler names what they depend on */
};

typedef struct route {
	const char *method;
	const char *pattern; /* /api/v4/users/:id ; a final *name takes the rest */
	handler_fn handler;
	unsigned flags;
} route;

extern const route routes[];
extern const size_t routes_count;

/* Finds the route for r->method and r->path and adds its captures, decoded, to the
 * parameter view. NULL when nothing matches (or a capture is badly encoded). */
const route *router_match(const route *table, size_t n, request *r);

#endif
