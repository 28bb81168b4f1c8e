/* The context below HTTP: what database access, repository operations and access
 * decisions need to act for a caller — an arena, the database connection, the
 * configuration, the instance key and the caller — whoever asks: a request (it carries
 * one, r->ctx), the background process, the command line, and the git hooks and the
 * SSH shell to come. Nothing here knows about HTTP. */
#ifndef COLLABD_CTX_H
#define COLLABD_CTX_H

#include <stdbool.h>

#include "core/arena.h"
#include "core/config.h"
#include "core/errors.h"

struct pg_result;
struct db;
struct db_pool;
struct dep_list;

/* The authenticated caller (auth_authenticate() for a request). */
typedef struct caller {
	long long id;
	bool admin;
	bool external;
	const char *username;
	const char *email;
	bool can_create_group;
	const char *scopes;     /* PostgreSQL text[] literal, e.g. {api} */
	const char *token_kind; /* private, personal, impersonation, oauth */
	struct pg_result *res;  /* the user row, columns as USER_COLS from col: only on
				   * ROUTE_CALLER_RECORD routes and after sudo, else NULL */
	int row;
	int col;
	bool impersonated; /* via sudo */
} caller;

/* Work outside the database that the open transaction must undo when it rolls back
 * (a repository created, HEAD moved) or finish when it commits (a file removed):
 * db_on_rollback() and db_on_commit() register them (db/db.h). */
typedef struct tx_hook {
	void (*fn)(void *arg);
	void *arg;
	bool on_commit; /* else on rollback */
	struct tx_hook *next;
} tx_hook;

/* The storage of a project's repository as this unit of work read it (db/repos.h). */
typedef struct storage_memo {
	const char *project_id;
	const char *storage;
	bool read_only;
	struct storage_memo *next;
} storage_memo;

typedef struct ctx {
	arena *a;
	const config *cfg;
	struct db *db;
	struct db_pool *pool;     /* the primary (db, when no replica is in use) and the read
				   * replicas (db/replica.h); NULL when there are none */
	const unsigned char *key; /* instance key, 32 bytes */
	caller *user;             /* NULL when anonymous (or the system itself) */
	const char *err_detail;   /* what the last ERR_ returned is about */
	tx_hook *hooks;           /* of the open transaction, newest first */
	struct dep_list *deps;    /* what the response being kept depends on (core/deps.h),
				   * NULL when none is being kept */
	/* The project a request is about (its route's :id): its namespace's full path and
	 * its path, which presenters put in the URLs of its records when a statement read
	 * no path for them. NULL: none. */
	const char *project_ns;
	const char *project_path;
	long long users_epoch; /* the users' epoch (entity/user.h USER_EPOCH) read with
				   * the caller; 0 until a statement read it */
	bool settings_fresh;   /* the worker's copy of the application settings was
				   * compared with the database's in this unit of work
				   * (db/settings.h) */
	storage_memo *storages; /* in a's arena, newest first (db/repos.h) */
} ctx;

static inline void ctx_init(ctx *c, arena *a, const config *cfg, struct db *db,
			    const unsigned char *key)
{
	*c = (ctx){.a = a, .cfg = cfg, .db = db, .key = key};
}

#endif
