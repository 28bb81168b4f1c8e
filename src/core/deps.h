/* What a response depends on, as a cached copy of it must know: the keys of the rows it
 * was made from (a version each in the database, bumped by the triggers of the
 * migrations in the transaction that changes the rows, sql/0010_cache_keys.sql), whether
 * it shows something no key names, and the secrets it shows, opened from their sealed
 * form. The presenters and authentication name the keys through the context (ctx->deps:
 * NULL when no response is being kept, and then naming one costs nothing); the response
 * cache (src/cache/) reads the list. */
#ifndef COLLABD_DEPS_H
#define COLLABD_DEPS_H

#include <stdbool.h>

#include "core/ctx.h"

/* The keys of rows: id * 16 + kind (sql/0010_cache_keys.sql). */
#define CACHE_KEY_ALL 0LL
#define CACHE_KEY_USER(id)                                                                         \
	((long long)(id)*16 + 1) /* user, identities, tokens,
							   * memberships, notification
							   * settings, stars */
#define CACHE_KEY_PROJECT(id)                                                                      \
	((long long)(id)*16 + 2)                         /* project, its links, members,
							   * stars */
#define CACHE_KEY_NAMESPACE(id) ((long long)(id)*16 + 3) /* one namespace row */
#define CACHE_KEY_REPOSITORY(id)                                                                   \
	((long long)(id)*16 + 4) /* a project's refs and
							    * protected branches
							    * (sql/0023) */
#define CACHE_KEY_USER_VIEWS                                                                       \
	5LL /* kind 5 of id 0: any user's basic or single view
				  * (entity/user.h USER_EPOCH) */
/* The sets a list's rows and order come from (negative: each is summed over its stripes
 * in the database). Bumped when a row enters or leaves, or changes a column that lists
 * filter or sort on; not by what is only shown (stars, activity: the rows' keys). */
#define CACHE_SET_USERS (-1LL)         /* users and identities */
#define CACHE_SET_PROJECTS (-2LL)      /* projects (and group links): who sees which */
#define CACHE_SET_NAMESPACES (-3LL)    /* namespaces: names, owners, paths */
#define CACHE_SET_PROJECT_TEXT (-4LL)  /* projects' name, path, description */
#define CACHE_SET_PROJECT_TIMES (-5LL) /* projects' updated_at, last_activity_at */

/* The most keys a kept response may depend on, and secrets it may show. */
#define DEPS_MAX 512
#define DEPS_MAX_SECRETS 4

typedef struct dep_list {
	long long keys[DEPS_MAX];
	int n;
	bool none;                            /* depends on something no key names: not kept */
	const char *plain[DEPS_MAX_SECRETS];  /* secrets shown, opened ... */
	const char *sealed[DEPS_MAX_SECRETS]; /* ... from these */
	int nsecrets;
} dep_list;

/* The response being made depends on key (a CACHE_KEY_ or CACHE_SET_) / on something no
 * key names. No-ops when c->deps is NULL. */
void deps_add(ctx *c, long long key);
void deps_none(ctx *c);
/* Sorts d's keys, each once. */
void deps_compact(dep_list *d);
/* Opens the sealed secret (crypto_open with the instance key) for the response being
 * made; a kept copy of the response keeps it sealed. NULL when it does not open. */
const char *deps_open_secret(ctx *c, const char *sealed);

#endif
