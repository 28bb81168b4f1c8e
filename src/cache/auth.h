/* The authentication cache and the authentication of a project's route: the caller and
 * the project found in one statement, or in none when this instance kept the row. */
#ifndef COLLABD_CACHE_AUTH_H
#define COLLABD_CACHE_AUTH_H

#include <stdbool.h>

#include "auth/auth.h"
#include "auth/scope.h"
#include "cache/store.h"

/* auth_authenticate and the statement of scope_project in one round trip: the caller
 * found by cr with the project id (the route's :id, a number or a path), locked as lock
 * says, the row kept in store (NULL: none) when id is a number; no_user_refs: the users'
 * epoch is not needed. prefetch (its stmt NULL: none) goes in the same round trip when
 * the project is only read, its result in *prefetched. 0 with *res the row to read the
 * scope from (scope_project_row at AUTH_LEAN_NCOLS), NULL when id names no project, or
 * an ERR_ code of authentication. */
int cache_auth_project(ctx *c, const credential *cr, unsigned need, const char *id, scope_lock lock,
		       bool no_user_refs, cache *store, const db_call *prefetch,
		       PGresult **prefetched, PGresult **res);

#endif
