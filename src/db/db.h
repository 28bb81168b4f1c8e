/* The worker's one PostgreSQL connection, its statement registry, and the one way to
 * run SQL: a named prepared statement with text parameters. */
#ifndef COLLABD_DB_H
#define COLLABD_DB_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/ctx.h"

/* SQL text: "contains p" for LIKE, p (a parameter such as "$2") with its LIKE
 * metacharacters (backslash, %, _) escaped, so that a search matches what was typed. */
#define SQL_LIKE(p)                                                                                \
	"'%' || replace(replace(replace(" p ", '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'"

/* A statement and its shape: the parameters it takes ($1..$nparams) and the columns it
 * answers (0 for a command without RETURNING). db_connect compares the shape with what
 * PostgreSQL finds when it prepares the statement (PQdescribePrepared), as the master
 * does at start-up: a mismatch fails there, not as wrong JSON on one combination of
 * flags. A statement whose columns are read through an enum declares that enum's count,
 * so that a column added to one and not the other is caught. `collabd statements`
 * prints the shapes found. */
typedef struct {
	const char *name;
	const char *sql;
	int nparams;
	int ncols;
} db_stmt;

/* The parameter array v of a statement of n parameters, indexed by the enum of its
 * parameters ([XX_NAME] = ...) whose last member, XX_NPARAMS, is n: v holds exactly n
 * values, checked at build time (a parameter added to the statement and not to v, or
 * the other way round, does not compile). */
#define DB_PARAMS(v, n)                                                                            \
	_Static_assert(sizeof(v) / sizeof((v)[0]) == (n), #v ": the parameters of " #n)

/* A statement with its parameters, as db_defer keeps it. */
typedef struct db_call {
	const char *stmt;
	int n;
	const char *const *values;
} db_call;

#define DB_DEFER_MAX 8
/* The most statements sent in one round trip: BEGIN, the deferred ones, two more. */
#define DB_PIPELINE_MAX (DB_DEFER_MAX + 3)

typedef struct db {
	PGconn *conn;
	char *conninfo;
	const db_stmt *const *registry; /* statement tables, each ended by {NULL, NULL}; the
					  * list ended by NULL */
	bool prepared;                  /* the connection is usable (set up, not seen broken) */
	bool replica;                   /* a read replica's (db/replica.h): connects within 1 s,
					 * and a statement that writes fails as unavailable */
	/* The registry's statements and tx_begin & co. by name (open addressing, a power of
	 * two of slots, NULL for a free one), and whether each is prepared on the current
	 * connection: a statement is prepared the first time the connection runs it, in the
	 * same round trip (a reconnection, or a worker's start, prepares nothing at once). */
	const db_stmt **slots;
	bool *ready;
	unsigned mask;
	/* The BEGIN that db_begin or db_begin_snapshot asked for (tx_begin,
	 * tx_begin_snapshot) and that goes with the transaction's first statement, in one
	 * round trip; NULL when none is waiting. */
	const char *begin;
	/* Statements of the open transaction whose results nobody reads (db_defer), sent
	 * with its next statement or its COMMIT. */
	db_call defer[DB_DEFER_MAX];
	int ndefer;
} db;

/* Connects for the statements of registry (kept for reconnections), each prepared on
 * the connection the first time it runs there. 0, or -1 (logged). */
int db_open(db *d, const char *conninfo, const db_stmt *const *registry);
/* Sets d up for a read replica's connection (db/replica.h), without connecting: the
 * first db_ensure does. 0, or -1 (out of memory). */
int db_prepare_replica(db *d, const char *conninfo, const db_stmt *const *registry);
/* db_open, then prepares every statement of registry at once, checking each one's shape
 * (the master's start-up check, `collabd statements`). 0, or -1 (logged). */
int db_connect(db *d, const char *conninfo, const db_stmt *const *registry);
/* Re-establishes a broken connection; 0 when the connection is usable. */
int db_ensure(db *d);
/* As db_ensure, and first drops the connection if the server ended it while it was idle
 * (a database restart): what a worker calls before each request, so that the request's
 * first statement does not fail on a connection libpq has not yet seen closed. Only for
 * a connection that does not LISTEN (a notification would look like the end). */
int db_ensure_idle(db *d);
/* Prints every statement of d's registry whose shape differs from what PostgreSQL
 * finds (all of them when all), as "name params columns (declared params columns)";
 * the number that differ, or -1 when d is not connected. */
int db_describe(db *d, bool all, FILE *out);
void db_close(db *d);

/* Runs a prepared statement. The result belongs to c's arena. On failure returns
 * NULL and sets *err (when err is not NULL) to ERR_UNAVAILABLE (connection lost),
 * ERR_CONFLICT (unique violation; c->err_detail is the constraint name) or
 * ERR_INTERNAL. */
PGresult *db_query(ctx *c, const char *stmt, int n, const char *const *values, int *err);
/* db_query of stmt, with also sent right after it in the same round trip: also's result
 * in *also_res (c's arena) when both succeeded, else NULL (also's failure is not
 * reported: who runs it again meets it). For a statement whose parameters are known
 * before stmt's answer, and that may be run for nothing. */
PGresult *db_query_with(ctx *c, const char *stmt, int n, const char *const *values,
			const db_call *also, PGresult **also_res, int *err);
/* A statement of the open transaction whose result nobody reads (a row written for the
 * record, as an event): it goes with the transaction's next statement or its COMMIT, in
 * the same round trip, in order; when it fails, that statement or the commit fails with
 * its error. Outside a transaction it runs at once. values (and their strings) are
 * copied into c's arena. 0 or an ERR_ code. */
int db_defer(ctx *c, const char *stmt, int n, const char *const *values);
/* Transaction control through prepared BEGIN/COMMIT/ROLLBACK. 0 or an ERR_ code.
 * db_commit() runs the transaction's commit hooks once it committed, and its rollback
 * hooks (newest first) when the commit fails; db_rollback() runs the rollback hooks. */
int db_begin(ctx *c);
int db_commit(ctx *c);
/* A read-only transaction whose statements all see one snapshot (REPEATABLE READ). */
int db_begin_snapshot(ctx *c);
void db_rollback(ctx *c);
/* A savepoint in the open transaction (one at a time): db_rollback_to() undoes what
 * came after it, in the database and by the rollback hooks registered since, which run
 * (newest first); the commit hooks registered since are dropped. mark: the hooks before
 * it. 0 or an ERR_ code. */
int db_savepoint(ctx *c, tx_hook **mark);
int db_rollback_to(ctx *c, tx_hook *mark);
/* Whether a transaction is open (or failed and not yet rolled back) on c's connection. */
bool db_in_transaction(ctx *c);
/* Work outside the database tied to the open transaction: fn(arg) runs when it rolls
 * back (undo: a repository created, a ref moved) or when it commits (a file removed
 * that the rows no longer name). arg lives in c's arena. */
void db_on_rollback(ctx *c, void (*fn)(void *arg), void *arg);
void db_on_commit(ctx *c, void (*fn)(void *arg), void *arg);

/* Accessors on a row: NULL for SQL NULL. */
static inline const char *db_val(const PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? NULL : PQgetvalue(res, row, col);
}
long long db_int(const PGresult *res, int row, int col);
bool db_bool(const PGresult *res, int row, int col);
/* The elements of a one-dimensional array in PostgreSQL's text output ({a,"b c"}),
 * unquoted, in arena a; NULL elements are left out. Their number, or -1 when s is not
 * such a literal. */
int db_text_array(arena *a, const char *s, const char ***out);
/* The integers of an integer array of any dimensions ({{1,2},{3,4}}), in order, in
 * arena a; their number, or -1 when s is not such a literal. */
int db_int_array(arena *a, const char *s, long long **out);

/* The migrations of sql/, compiled in (db/migrations.c is generated by the build). */
struct migration {
	const char *version; /* file name without .sql */
	const char *sql;
};
extern const struct migration migrations[];
extern const int migrations_count;

/* Applies the migrations not yet recorded in schema_migrations, each in a
 * transaction, under an advisory lock; 0 or -1. */
int db_migrate(const char *conninfo);
/* 0 when every migration is applied, 1 when the schema is behind. */
int db_schema_check(PGconn *conn);

#endif
