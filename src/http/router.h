/* The shape of a route and the matcher. Each API module has its table of routes
 * (src/api/<name>.c, <name>_routes); modules.h lists them. */
#ifndef COLLABD_ROUTER_H
#define COLLABD_ROUTER_H

#include <stddef.h>

#include "http/request.h"

typedef int (*handler_fn)(request *r);

enum route_flag {
	ROUTE_PUBLIC = 0,                 /* credentials optional: r->ctx.user may be NULL */
	ROUTE_AUTH = AUTH_USER,           /* 401 without valid credentials */
	ROUTE_ADMIN = AUTH_ADMIN,         /* 403 unless the caller is an admin (implies AUTH) */
	ROUTE_READ_USER = AUTH_READ_USER, /* also allowed to tokens with only the read_user
					   * scope */
	ROUTE_NO_AUTH = 1 << 3,           /* credentials are not looked at (OAuth token endpoint) */
	ROUTE_SELF_AUTH = 1 << 4,         /* handler authenticates inside its own statement */
	ROUTE_CALLER_RECORD = AUTH_CALLER_RECORD, /* the handler presents the caller's own record
				       * (r->ctx.user->res): authentication fetches all of it */
	ROUTE_CACHE = 1 << 6,         /* 200s kept in the response cache (cache/response.h): the
				   * handler names what they depend on */
	ROUTE_PROJECT = 1 << 7,       /* :id is a project the caller can see, found before the
				   * handler (r->project; 404 Project Not Found), auth/scope.h */
	ROUTE_GROUP = 1 << 8,         /* the same for a group (r->group; 404 Group Not Found) */
	ROUTE_TX = 1 << 9,            /* the handler runs in a transaction that the dispatcher
				   * begins, commits when the handler succeeds and rolls back
				   * when it fails; the scope is locked (FOR UPDATE) in it */
	ROUTE_KEY_SHARE = 1 << 10,    /* with ROUTE_TX and ROUTE_PROJECT: the project is locked
				    * FOR KEY SHARE instead (auth/scope.h SCOPE_KEY_SHARE): the
				    * route only adds or changes rows under it */
	ROUTE_NO_USER_REFS = 1 << 11, /* the handler presents no user by reference
				       * (entity/user.h USER_REF): authentication need not
				       * read the users' epoch (one that does reads it) */
	ROUTE_BYTES = 1 << 12,        /* a parameter of the route is bytes (a job's trace): its
				   * checks run param_check_text naming it, where the
				   * dispatcher runs it for every other route */
	ROUTE_NO_DB = 1 << 13,        /* the dispatcher does not wait for the database: the
				   * handler answers without it (health checks) */
	ROUTE_PRIMARY = 1 << 14,      /* a GET that writes outside a transaction: it runs on the
				   * primary, never on a read replica (db/replica.h) */
};

typedef struct route {
	const char *method;
	const char *pattern; /* /api/v4/users/:id ; a final *name takes the rest, an
			     * earlier one the segments before those the rest
			     * of the pattern matches */
	handler_fn handler;
	unsigned flags;
	/* The parameter checks GitLab's declarations make before an endpoint looks anything
	 * up (required and typed parameters): run before the scope, so that bad input is a
	 * 400 before any 404; NULL when none. Validation messages it leaves are dropped. */
	handler_fn check;
} route;

/* Finds the route for r->method and r->path in tables (each ended by a route whose
 * method is NULL; the list ended by NULL), the first that matches, and adds its
 * captures, decoded, to the parameter view. NULL when nothing matches (or a capture is
 * badly encoded). */
const route *router_match(const route *const *tables, request *r);
/* Prepares router_match for tables (static: kept by pointer), which then passes over the
 * routes whose pattern cannot fit the path's number of segments without matching them. */
void router_index(const route *const *tables);
/* The routes router_index was given, in their order: how many, and the position of rt
 * among them (router_count() for NULL or a route not among them): the route slots of
 * core/metrics.h. */
size_t router_count(void);
size_t router_position(const route *rt);
const route *router_at(size_t i);

#endif
