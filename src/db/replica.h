/* Read replicas: PostgreSQL standbys (streaming replication) that take the reads of
 * callers who would see nothing older there than on the primary. As GitLab EE's database
 * load balancing: a caller who wrote sticks to the primary until a replica has replayed
 * the primary's WAL position after that write. The position is kept per user in
 * replica_sticky (sql/0059), an unlogged table of the primary that every instance reads,
 * so the next request may go to any host; it is written after the caller's request
 * (db_pool_wrote), with the primary's WAL insert position then, which is past the commit
 * record of everything the request wrote.
 *
 * A read goes to a replica when it has replayed past the caller's position and lags at
 * most replica_max_lag (seconds: no WAL received and not replayed, or the age of the last
 * transaction it replayed; a standby whose WAL receiver is not running counts as behind);
 * otherwise, and when no replica answers, to the primary. The caches stay true: a
 * response or authentication read on a replica is kept with the versions read there, of
 * the same snapshot (cache/response.h), and a version never moves backwards on one
 * connection. A "replica" that is not in recovery (the primary itself, under a read-only
 * session: the test stacks run so) is at the primary's current position. */
#ifndef COLLABD_DB_REPLICA_H
#define COLLABD_DB_REPLICA_H

#include <stdint.h>

#include "core/config.h"
#include "db/db.h"

#define DB_REPLICAS_MAX 8

typedef struct db_replica {
	db d;
	bool up;            /* connected and set up */
	double retry_at;    /* a failed connection is tried again from then (monotonic s) */
	int failures;       /* in a row: each doubles the wait before the next try */
	double checked_at;  /* when its position and lag were last read */
	uint64_t replay;    /* its replayed WAL position then: a lower bound of it now */
	bool fresh;         /* it lagged at most replica_max_lag then */
} db_replica;

/* A process's connections: the primary (the caller's) and the replicas. */
typedef struct db_pool {
	db *primary;
	db_replica r[DB_REPLICAS_MAX];
	int n;
	int next; /* where the next search for a replica starts (round robin) */
	/* the position everyone waits for (replica_sticky's user 0) as read on the primary's
	 * connection of backend pid all_pid: it changes only when a crash empties the table,
	 * which ends that connection, so an anonymous read needs no statement there */
	uint64_t all;
	int all_pid;
	double max_lag;
} db_pool;

extern const db_stmt db_replica_stmts[];

/* The replicas of cfg->database_replicas, for the statements of registry (each
 * prepared on a replica the first time it runs there), beside primary. None is
 * connected yet: the first read does. 0, or -1 (a bad list, logged). */
int db_pool_open(db_pool *p, db *primary, const config *cfg, const db_stmt *const *registry);
void db_pool_close(db_pool *p);
/* The connection for a read outside a write transaction by the caller whose token has
 * digest (NULL: none sent): a replica that has replayed past that caller's last write
 * and is fresh, else p->primary. c is on the primary (c->db), which the caller's position
 * is read from. */
db *db_pool_for_read(db_pool *p, ctx *c, const char *digest);
/* The same for a read that must see everything the primary had at WAL position lsn (a
 * background job's, from the position of its claim). */
db *db_pool_at(db_pool *p, uint64_t lsn);
/* A replica's connection failed under a request: not tried again for a while. */
void db_pool_failed(db_pool *p, db *d);
/* After a request (or a push) of user_id (0: none known) with a token of digest (NULL:
 * none) that may have written: the primary's position now, for that user and the
 * token's owner. Nothing when c->cfg names no replica. c is on the primary. */
void db_replica_wrote(ctx *c, long long user_id, const char *digest);
/* The primary's WAL insert position now (c on the primary); 0 when it cannot be read. */
uint64_t db_pool_primary_lsn(ctx *c);
/* Removes the positions no replica can still be behind (older than the longest lag a
 * replica may have and a margin). c on the primary. */
void db_pool_sweep(ctx *c);
/* A pg_lsn's text (16/B374D848) as a number; false when it is not one. */
bool db_lsn_parse(const char *s, uint64_t *out);

#endif
