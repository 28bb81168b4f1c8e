#include "db/db.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/metrics.h"

static const db_stmt tx_stmts[] = {
	{"tx_begin", "BEGIN", 0, 0},
	{"tx_commit", "COMMIT", 0, 0},
	{"tx_rollback", "ROLLBACK", 0, 0},
	{"tx_begin_snapshot", "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", 0, 0},
	{"tx_savepoint", "SAVEPOINT tx_mark", 0, 0},
	{"tx_rollback_to", "ROLLBACK TO SAVEPOINT tx_mark", 0, 0},
	{NULL, NULL, 0, 0},
};

/* The shape PostgreSQL finds for prepared statement s: 0 with *np and *nc, or -1. */
static int shape(PGconn *conn, const db_stmt *s, int *np, int *nc)
{
	PGresult *res = PQdescribePrepared(conn, s->name);
	int rc = PQresultStatus(res) == PGRES_COMMAND_OK ? 0 : -1;
	*np = PQnparams(res);
	*nc = PQnfields(res);
	PQclear(res);
	return rc;
}

/* Prepares s and checks its shape: 0, or -1 (logged); *prepared whether it was prepared
 * (a shape that differs fails with the statement prepared). */
static int prepare_one(PGconn *conn, const db_stmt *s, bool *prepared)
{
	PGresult *res = PQprepare(conn, s->name, s->sql, 0, NULL);
	*prepared = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!*prepared) {
		log_error("prepare %s: %s", s->name, PQresultErrorMessage(res));
		PQclear(res);
		return -1;
	}
	PQclear(res);
	int np, nc;
	if (shape(conn, s, &np, &nc) < 0) {
		log_error("describe %s: %s", s->name, PQerrorMessage(conn));
		return -1;
	}
	if (np != s->nparams || nc != s->ncols) {
		log_error("statement %s takes %d parameters and answers %d columns; its table "
			  "declares %d and %d",
			  s->name, np, nc, s->nparams, s->ncols);
		return -1;
	}
	return 0;
}

/* A connection whose connect_timeout defaults to 5 s (the conninfo may override it),
 * so that a database that does not answer gives 503s, not hung workers; 1 s for a
 * replica's, whose reads the primary takes meanwhile. */
static PGconn *open_conn(const db *d)
{
	const char *keys[] = {"connect_timeout", "dbname", NULL};
	const char *values[] = {d->replica ? "1" : "5", d->conninfo, NULL};
	return PQconnectdbParams(keys, values, 1);
}

/* The session's settings, on a new connection. 0, or -1. */
static int setup(db *d)
{
	/* Generic plans: planned once per connection, not at every execution (the custom
	 * plans PostgreSQL otherwise keeps for LIMIT $n statements cost more to plan than
	 * to run). Statements are written so that their generic plan is the good one. No JIT:
	 * it compiles for tens of milliseconds on statements that run in one. A random page
	 * read costs about what a sequential one does (a working set in memory, or an SSD):
	 * with the default 4, a lookup by key in a small table (ci_runners for each job of a
	 * page) is planned as a scan of the whole table for every row (jobs_list_project:
	 * 4.5M -> 3.3M instructions in PostgreSQL). */
	PGresult *res = PQexec(d->conn, "SET TIME ZONE 'UTC'; SET statement_timeout = '30s'; "
					"SET plan_cache_mode = force_generic_plan; SET jit = off; "
					"SET random_page_cost = 1.1");
	bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	PQclear(res);
	if (!ok)
		return -1;
	if (d->ready)
		memset(d->ready, 0, (size_t)(d->mask + 1) * sizeof(*d->ready));
	d->prepared = true;
	return 0;
}

static unsigned name_hash(const char *name)
{
	unsigned h = 2166136261u; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

/* The slot of statement name in d's index, or -1 when the index has none of that name. */
static int slot_of(const db *d, const char *name)
{
	if (!d->slots)
		return -1;
	for (unsigned i = name_hash(name) & d->mask;; i = (i + 1) & d->mask) {
		if (!d->slots[i])
			return -1;
		if (strcmp(d->slots[i]->name, name) == 0)
			return (int)i;
	}
}

static void index_add(db *d, const db_stmt *s)
{
	unsigned i = name_hash(s->name) & d->mask;
	while (d->slots[i] && strcmp(d->slots[i]->name, s->name) != 0)
		i = (i + 1) & d->mask;
	d->slots[i] = s;
}

/* d's index of tx_stmts and the registry's statements. 0, or -1 (out of memory). */
static int build_index(db *d)
{
	size_t n = 0;
	for (const db_stmt *s = tx_stmts; s->name; s++)
		n++;
	for (int m = 0; d->registry[m]; m++)
		for (const db_stmt *s = d->registry[m]; s->name; s++)
			n++;
	size_t size = 16;
	while (size < 2 * n)
		size *= 2;
	d->slots = calloc(size, sizeof(*d->slots));
	d->ready = calloc(size, sizeof(*d->ready));
	if (!d->slots || !d->ready)
		return -1;
	d->mask = (unsigned)size - 1;
	for (const db_stmt *s = tx_stmts; s->name; s++)
		index_add(d, s);
	for (int m = 0; d->registry[m]; m++)
		for (const db_stmt *s = d->registry[m]; s->name; s++)
			index_add(d, s);
	return 0;
}

/* s prepared now and its shape checked (prepare_one), marked prepared in d's index when
 * it prepared. 0, or -1 (logged). */
static int prepare_indexed(db *d, const db_stmt *s)
{
	bool prepared;
	int rc = prepare_one(d->conn, s, &prepared);
	int slot = slot_of(d, s->name);
	if (slot >= 0)
		d->ready[slot] = prepared;
	return rc;
}

/* Every statement prepared now, each one's shape checked. 0, or -1 (logged). */
static int prepare_all(db *d)
{
	int failed = 0;
	for (const db_stmt *s = tx_stmts; s->name; s++)
		failed += prepare_indexed(d, s) < 0;
	for (int m = 0; d->registry[m]; m++)
		for (const db_stmt *s = d->registry[m]; s->name; s++)
			failed += prepare_indexed(d, s) < 0;
	return failed ? -1 : 0;
}

int db_describe(db *d, bool all, FILE *out)
{
	if (!d->conn || PQstatus(d->conn) != CONNECTION_OK)
		return -1;
	int differ = 0;
	for (int m = 0; d->registry[m]; m++) {
		for (const db_stmt *s = d->registry[m]; s->name; s++) {
			int np = -1, nc = -1;
			if (shape(d->conn, s, &np, &nc) < 0) { /* not prepared yet */
				PGresult *res = PQprepare(d->conn, s->name, s->sql, 0, NULL);
				bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
				PQclear(res);
				if (!ok || shape(d->conn, s, &np, &nc) < 0)
					np = nc = -1;
			}
			int slot = slot_of(d, s->name);
			if (slot >= 0 && np >= 0)
				d->ready[slot] = true;
			bool same = np == s->nparams && nc == s->ncols;
			differ += !same;
			if (all || !same)
				fprintf(out, "%s %d %d (declared %d %d)\n", s->name, np, nc,
					s->nparams, s->ncols);
		}
	}
	return differ;
}

int db_open(db *d, const char *conninfo, const db_stmt *const *registry)
{
	memset(d, 0, sizeof(*d));
	d->registry = registry;
	d->conninfo = strdup(conninfo);
	if (!d->conninfo || build_index(d) < 0) {
		log_error("database: out of memory");
		return -1;
	}
	d->conn = open_conn(d);
	if (PQstatus(d->conn) != CONNECTION_OK) {
		log_error("database: %s", PQerrorMessage(d->conn));
		return -1;
	}
	if (setup(d) < 0) {
		log_error("database: %s", PQerrorMessage(d->conn));
		return -1;
	}
	return 0;
}

int db_prepare_replica(db *d, const char *conninfo, const db_stmt *const *registry)
{
	memset(d, 0, sizeof(*d));
	d->registry = registry;
	d->replica = true;
	d->conninfo = strdup(conninfo);
	return d->conninfo && build_index(d) == 0 ? 0 : -1;
}

int db_connect(db *d, const char *conninfo, const db_stmt *const *registry)
{
	if (db_open(d, conninfo, registry) < 0)
		return -1;
	return prepare_all(d);
}

/* Whether the server ended an idle connection since its last statement: a backend that
 * stops (a database restart, pg_terminate_backend) sends its FATAL message and closes,
 * and libpq notices only at its next read, the request's first statement, which would
 * then fail. Nothing else comes on an idle connection that does not LISTEN: anything to
 * read, or a hang-up, is taken as its end (at worst a reconnection too many). */
static bool ended_while_idle(PGconn *conn)
{
	if (PQtransactionStatus(conn) != PQTRANS_IDLE)
		return false;
	struct pollfd p = {.fd = PQsocket(conn), .events = POLLIN};
	return poll(&p, 1, 0) > 0;
}

int db_ensure(db *d)
{
	if (d->conn && PQstatus(d->conn) == CONNECTION_OK && d->prepared)
		return 0;
	d->prepared = false;
	if (d->conn)
		PQfinish(d->conn);
	d->conn = open_conn(d);
	if (PQstatus(d->conn) != CONNECTION_OK)
		return -1;
	if (setup(d) < 0) {
		log_error("database: setting up the connection failed after reconnect");
		return -1;
	}
	log_info("database connection re-established");
	return 0;
}

int db_ensure_idle(db *d)
{
	if (d->conn && PQstatus(d->conn) == CONNECTION_OK && ended_while_idle(d->conn)) {
		log_info(
			"database: the server ended the connection while it was idle; reconnecting");
		PQfinish(d->conn);
		d->conn = NULL;
	}
	return db_ensure(d);
}

void db_close(db *d)
{
	if (d->conn)
		PQfinish(d->conn);
	free(d->conninfo);
	free(d->slots);
	free(d->ready);
	memset(d, 0, sizeof(*d));
}

static void clear_result(void *res)
{
	PQclear(res);
}

static bool result_ok(const PGresult *res)
{
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	return st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK;
}

/* The slot of stmt when it is not yet prepared on d's connection (db_open's lazy
 * preparation), else -1 (prepared, or a name the index does not have: it runs as it is
 * and fails as such). */
static int unprepared(const db *d, const char *stmt)
{
	int i = slot_of(d, stmt);
	return i >= 0 && !d->ready[i] ? i : -1;
}

/* calls[0..k-1] sent at once (libpq's pipeline mode), one round trip, each preceded by
 * its preparation when it is the first time the connection runs it: their results in
 * res[0..k-1] (NULL for none), or -1 when the connection failed (res all NULL). A
 * statement after a failed one does not run (PGRES_PIPELINE_ABORTED). */
static int exec_pipeline_all(db *d, const db_call *calls, int k, PGresult **res)
{
	/* what was sent, in order: a call's index, or -1 - slot for a preparation */
	int sent[2 * DB_PIPELINE_MAX], nsent = 0;
	for (int i = 0; i < k; i++)
		res[i] = NULL;
	metrics_add(METRIC_DB_ROUND_TRIPS, 1);
	if (!PQenterPipelineMode(d->conn))
		goto broken;
	for (int i = 0; i < k; i++) {
		int slot = unprepared(d, calls[i].stmt);
		for (int j = 0; j < nsent && slot >= 0; j++)
			if (sent[j] == -1 - slot)
				slot = -1; /* an earlier call of this pipeline prepares it */
		if (slot >= 0) {
			if (!PQsendPrepare(d->conn, d->slots[slot]->name, d->slots[slot]->sql, 0,
					   NULL))
				goto broken;
			sent[nsent++] = -1 - slot;
		}
		if (!PQsendQueryPrepared(d->conn, calls[i].stmt, calls[i].n, calls[i].values, NULL,
					 NULL, 0))
			goto broken;
		sent[nsent++] = i;
	}
	if (!PQpipelineSync(d->conn))
		goto broken;
	/* each one's result followed by a NULL, then the sync's; a NULL after a NULL: the
	 * connection is gone */
	int op = 0, nulls = 0;
	for (;;) {
		PGresult *x = PQgetResult(d->conn);
		if (!x) {
			op++;
			if (++nulls > 1)
				break;
			continue;
		}
		nulls = 0;
		if (PQresultStatus(x) == PGRES_PIPELINE_SYNC) {
			PQclear(x);
			break;
		}
		if (op < nsent && sent[op] < 0) {
			if (PQresultStatus(x) == PGRES_COMMAND_OK)
				d->ready[-1 - sent[op]] = true;
			else if (PQresultStatus(x) != PGRES_PIPELINE_ABORTED)
				log_error("prepare %s: %s", d->slots[-1 - sent[op]]->name,
					  PQresultErrorMessage(x));
			PQclear(x);
		} else if (op < nsent && !res[sent[op]]) {
			res[sent[op]] = x;
		} else {
			PQclear(x);
		}
	}
	if (!PQexitPipelineMode(d->conn)) {
		for (int i = 0; i < k; i++) {
			PQclear(res[i]);
			res[i] = NULL;
		}
		goto broken;
	}
	return 0;
broken:
	d->prepared = false; /* a connection in an unknown state: the next db_ensure opens
			      * another */
	return -1;
}

/* The same, answering the result of the last call, or the first failure before it, or
 * NULL when the connection failed. */
static PGresult *exec_pipeline(db *d, const db_call *calls, int k)
{
	PGresult *res[DB_PIPELINE_MAX];
	if (exec_pipeline_all(d, calls, k, res) < 0)
		return NULL;
	PGresult *out = NULL;
	for (int i = 0; i < k; i++) {
		if (!out && (i == k - 1 || !result_ok(res[i]))) {
			out = res[i];
			const char *state = out ? PQresultErrorField(out, PG_DIAG_SQLSTATE) : NULL;
			if (i < k - 1 && state && strncmp(state, "57P", 3) != 0 &&
			    strncmp(state, "08", 2) != 0 && PQstatus(d->conn) == CONNECTION_OK)
				log_info("statement %s (sent with %s) failed: %s", calls[i].stmt,
					 calls[k - 1].stmt,
					 PQresultErrorField(out, PG_DIAG_MESSAGE_PRIMARY));
		} else {
			PQclear(res[i]);
		}
	}
	return out;
}

/* The statements waiting for the next round trip, taken into calls: the transaction's
 * BEGIN (d->begin) and its deferred statements (d->defer). Their number. */
static int waiting(db *d, db_call *calls)
{
	int k = 0;
	if (d->begin)
		calls[k++] = (db_call){d->begin, 0, NULL};
	for (int i = 0; i < d->ndefer; i++)
		calls[k++] = d->defer[i];
	d->begin = NULL;
	d->ndefer = 0;
	return k;
}

/* Statement stmt, after the transaction's BEGIN when one is waiting (d->begin) and its
 * deferred statements (d->defer): all in one round trip. */
static PGresult *exec_prepared(db *d, const char *stmt, int n, const char *const *values)
{
	if (!d->begin && !d->ndefer && unprepared(d, stmt) < 0) {
		metrics_add(METRIC_DB_ROUND_TRIPS, 1);
		return PQexecPrepared(d->conn, stmt, n, values, NULL, NULL, 0);
	}
	db_call calls[DB_PIPELINE_MAX];
	int k = waiting(d, calls);
	calls[k++] = (db_call){stmt, n, values};
	return exec_pipeline(d, calls, k);
}

/* res, the result of stmt (NULL: the connection failed), as db_query answers it. */
static PGresult *finish(ctx *c, const char *stmt, PGresult *res, int *err)
{
	db *d = c->db;
	int e = ERR_INTERNAL;
	if (!res) {
		e = ERR_UNAVAILABLE;
		goto fail;
	}
	arena_defer(c->a, clear_result, res);
	ExecStatusType st = PQresultStatus(res);
	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
		return res;
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	if (PQstatus(d->conn) != CONNECTION_OK) {
		e = ERR_UNAVAILABLE;
	} else if (state && strcmp(state, "23505") == 0) {
		const char *cn = PQresultErrorField(res, PG_DIAG_CONSTRAINT_NAME);
		e = ERR_CONFLICT;
		c->err_detail = arena_strdup(c->a, cn ? cn : "");
	} else if (state && (strncmp(state, "22", 2) == 0 || strcmp(state, "23514") == 0)) {
		/* data exceptions (bad timestamp, out of range): the input was bad */
		e = ERR_INVALID;
		c->err_detail = "a parameter has an invalid value";
		log_info("statement %s: %s", stmt,
			 PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY));
	} else if (d->replica && state && strcmp(state, "25006") == 0) {
		/* a statement that writes, run on a replica: the request goes to the primary */
		log_warn("statement %s writes, on a replica's read-only connection", stmt);
		e = ERR_UNAVAILABLE;
	} else if (state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)) {
		e = ERR_UNAVAILABLE;
	} else if (state && (strncmp(state, "57P", 3) == 0 || strncmp(state, "08", 2) == 0)) {
		e = ERR_UNAVAILABLE;
	} else {
		log_error("statement %s failed: %s", stmt, PQresultErrorMessage(res));
	}
fail:
	if (e == ERR_UNAVAILABLE)
		log_warn("statement %s: database unavailable", stmt);
	if (err)
		*err = e;
	return NULL;
}

static bool usable(db *d)
{
	if (d->conn && PQstatus(d->conn) == CONNECTION_OK)
		return true;
	d->begin = NULL;
	d->ndefer = 0;
	return false;
}

PGresult *db_query(ctx *c, const char *stmt, int n, const char *const *values, int *err)
{
	return finish(c, stmt, usable(c->db) ? exec_prepared(c->db, stmt, n, values) : NULL, err);
}

PGresult *db_query_with(ctx *c, const char *stmt, int n, const char *const *values,
			const db_call *also, PGresult **also_res, int *err)
{
	db *d = c->db;
	*also_res = NULL;
	if (!usable(d))
		return finish(c, stmt, NULL, err);
	db_call calls[DB_PIPELINE_MAX];
	PGresult *res[DB_PIPELINE_MAX];
	int k = waiting(d, calls);
	calls[k++] = (db_call){stmt, n, values};
	calls[k++] = *also;
	if (exec_pipeline_all(d, calls, k, res) < 0)
		return finish(c, stmt, NULL, err);
	/* stmt's answer: the first failure of those before it, or its own */
	PGresult *out = NULL;
	for (int i = 0; i < k - 1; i++) {
		if (!out && (i == k - 2 || !result_ok(res[i])))
			out = res[i];
		else
			PQclear(res[i]);
	}
	if (result_ok(out) && result_ok(res[k - 1])) {
		arena_defer(c->a, clear_result, res[k - 1]);
		*also_res = res[k - 1];
	} else {
		PQclear(res[k - 1]);
	}
	return finish(c, stmt, out, err);
}

/* BEGIN goes with the transaction's first statement (exec_prepared); a transaction
 * that runs none costs no round trip. */
static int begin(ctx *c, const char *stmt)
{
	c->hooks = NULL;
	if (!c->db->conn || PQstatus(c->db->conn) != CONNECTION_OK)
		return ERR_UNAVAILABLE;
	c->db->begin = stmt;
	return 0;
}

int db_defer(ctx *c, const char *stmt, int n, const char *const *values)
{
	db *d = c->db;
	if (d->ndefer == DB_DEFER_MAX || !db_in_transaction(c)) {
		int err;
		return db_query(c, stmt, n, values, &err) ? 0 : err;
	}
	const char **copy = arena_alloc(c->a, (size_t)(n > 0 ? n : 1) * sizeof(*copy));
	for (int i = 0; i < n; i++)
		copy[i] = values[i] ? arena_strdup(c->a, values[i]) : NULL;
	d->defer[d->ndefer++] = (db_call){stmt, n, copy};
	return 0;
}

int db_begin(ctx *c)
{
	return begin(c, "tx_begin");
}

int db_begin_snapshot(ctx *c)
{
	return begin(c, "tx_begin_snapshot");
}

/* Runs the hooks of the ending transaction that are for its outcome, newest first. */
static void run_hooks(ctx *c, bool committed)
{
	tx_hook *h = c->hooks;
	c->hooks = NULL;
	for (; h; h = h->next)
		if (h->on_commit == committed)
			h->fn(h->arg);
	c->hooks = NULL; /* what the hooks did is not part of any transaction */
}

int db_commit(ctx *c)
{
	if (c->db->begin && !c->db->ndefer) { /* nothing ran */
		c->db->begin = NULL;
		run_hooks(c, true);
		return 0;
	}
	int err;
	PGresult *res = db_query(c, "tx_commit", 0, NULL, &err);
	if (!res) {
		db_rollback(c);
		return err;
	}
	/* COMMIT of a failed transaction answers ROLLBACK, not an error */
	if (strcmp(PQcmdStatus(res), "COMMIT") != 0) {
		run_hooks(c, false);
		return ERR_INTERNAL;
	}
	run_hooks(c, true);
	return 0;
}

void db_rollback(ctx *c)
{
	c->db->begin = NULL;
	c->db->ndefer = 0;
	if (c->db->conn && PQstatus(c->db->conn) == CONNECTION_OK &&
	    PQtransactionStatus(c->db->conn) != PQTRANS_IDLE)
		(void)db_query(c, "tx_rollback", 0, NULL, NULL);
	run_hooks(c, false);
}

int db_savepoint(ctx *c, tx_hook **mark)
{
	*mark = c->hooks;
	int err;
	return db_query(c, "tx_savepoint", 0, NULL, &err) ? 0 : err;
}

int db_rollback_to(ctx *c, tx_hook *mark)
{
	c->db->ndefer = 0;
	int err;
	if (!db_query(c, "tx_rollback_to", 0, NULL, &err))
		return err;
	/* the hooks registered since the savepoint: the rollback ones run, all are dropped */
	tx_hook *h = c->hooks;
	c->hooks = mark;
	for (; h && h != mark; h = h->next)
		if (!h->on_commit)
			h->fn(h->arg);
	return 0;
}

bool db_in_transaction(ctx *c)
{
	return c->db->begin || c->db->ndefer ||
	       (c->db->conn && PQstatus(c->db->conn) == CONNECTION_OK &&
		PQtransactionStatus(c->db->conn) != PQTRANS_IDLE);
}

static void add_hook(ctx *c, void (*fn)(void *), void *arg, bool on_commit)
{
	tx_hook *h = arena_alloc(c->a, sizeof(*h));
	*h = (tx_hook){.fn = fn, .arg = arg, .on_commit = on_commit, .next = c->hooks};
	c->hooks = h;
}

void db_on_rollback(ctx *c, void (*fn)(void *arg), void *arg)
{
	add_hook(c, fn, arg, false);
}

void db_on_commit(ctx *c, void (*fn)(void *arg), void *arg)
{
	add_hook(c, fn, arg, true);
}

long long db_int(const PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? 0 : strtoll(PQgetvalue(res, row, col), NULL, 10);
}

bool db_bool(const PGresult *res, int row, int col)
{
	return !PQgetisnull(res, row, col) && PQgetvalue(res, row, col)[0] == 't';
}

int db_text_array(arena *a, const char *s, const char ***out)
{
	*out = NULL;
	size_t len = s ? strlen(s) : 0;
	if (len < 2 || s[0] != '{' || s[len - 1] != '}')
		return -1;
	/* at most one element per comma, and one more */
	size_t max = 1;
	for (const char *p = s; *p; p++)
		max += *p == ',';
	const char **v = arena_alloc(a, max * sizeof(*v));
	char *dst = arena_alloc(a, len); /* the unquoted elements, each ended by NUL */
	int n = 0;
	const char *p = s + 1;
	while (*p != '}') {
		char *e = dst;
		bool quoted = *p == '"';
		if (quoted) {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				*dst++ = *p;
			}
			if (*p++ != '"')
				return -1;
		} else {
			while (*p && *p != ',' && *p != '}')
				*dst++ = *p++;
		}
		*dst++ = '\0';
		if (quoted || strcmp(e, "NULL") != 0)
			v[n++] = e;
		if (*p == ',')
			p++;
		else if (*p != '}')
			return -1;
	}
	*out = v;
	return n;
}

int db_int_array(arena *a, const char *s, long long **out)
{
	*out = NULL;
	if (!s || *s != '{')
		return -1;
	size_t max = 1;
	for (const char *p = s; *p; p++)
		max += *p == ',';
	long long *v = arena_alloc(a, max * sizeof(*v));
	int n = 0;
	for (const char *p = s; *p;) {
		if (*p == '-' || (*p >= '0' && *p <= '9')) {
			char *end;
			v[n++] = strtoll(p, &end, 10);
			p = end;
		} else if (*p == '{' || *p == '}' || *p == ',') {
			p++;
		} else {
			return -1;
		}
	}
	*out = v;
	return n;
}

static bool exec_ok(PGconn *c, const char *sql)
{
	PGresult *res = PQexec(c, sql);
	bool ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
	if (!ok)
		fprintf(stderr, "collabd: %s", PQresultErrorMessage(res));
	PQclear(res);
	return ok;
}

static int applied(PGconn *c, const char *version)
{
	const char *v[1] = {version};
	PGresult *res = PQexecParams(c, "SELECT 1 FROM schema_migrations WHERE version = $1", 1,
				     NULL, v, NULL, NULL, 0);
	int rc = PQresultStatus(res) != PGRES_TUPLES_OK ? -1 : PQntuples(res) > 0;
	PQclear(res);
	return rc;
}

int db_migrate(const char *conninfo)
{
	PGconn *c = PQconnectdb(conninfo);
	if (PQstatus(c) != CONNECTION_OK) {
		fprintf(stderr, "collabd: database: %s", PQerrorMessage(c));
		PQfinish(c);
		return -1;
	}
	int rc = 0;
	/* One migrator at a time, across instances. */
	if (!exec_ok(c, "SET client_min_messages = warning") ||
	    !exec_ok(c, "SELECT pg_advisory_lock(7001)") ||
	    !exec_ok(c, "CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, "
			"applied_at timestamptz NOT NULL DEFAULT now())")) {
		rc = -1;
		goto out;
	}
	for (int i = 0; i < migrations_count; i++) {
		const char *version = migrations[i].version;
		int a = applied(c, version);
		if (a < 0) {
			rc = -1;
			break;
		}
		if (a)
			continue;
		const char *v[1] = {version};
		bool ok = exec_ok(c, "BEGIN") && exec_ok(c, migrations[i].sql);
		if (ok) {
			PGresult *res = PQexecParams(
				c, "INSERT INTO schema_migrations (version) VALUES ($1)", 1, NULL,
				v, NULL, NULL, 0);
			ok = PQresultStatus(res) == PGRES_COMMAND_OK;
			PQclear(res);
		}
		ok = ok && exec_ok(c, "COMMIT");
		if (!ok) {
			exec_ok(c, "ROLLBACK");
			fprintf(stderr, "collabd: migration %s failed\n", version);
			rc = -1;
			break;
		}
		printf("applied %s\n", version);
	}
out:
	PQfinish(c);
	return rc;
}

int db_schema_check(PGconn *c)
{
	for (int i = 0; i < migrations_count; i++) {
		int a = applied(c, migrations[i].version);
		if (a <= 0)
			return a < 0 ? 1 : 1;
	}
	return 0;
}
