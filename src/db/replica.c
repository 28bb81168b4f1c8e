#include "db/replica.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"

/* How long a replica's position and lag are taken as read (the position only grows, so
 * an older reading is a lower bound: a caller past it makes the replica be asked again). */
#define CHECK_INTERVAL 0.1
/* How long a replica whose connection failed is left alone: 1 s, doubled at each
 * failure in a row up to 16 s (a standby that does not answer at all costs a worker its
 * connect timeout, 1 s, at most once in that time). */
#define RETRY_MAX 16.0

/* The columns of replica_position, replica_sticky_get. */
enum { RP_LSN, RP_LAG, RP_NCOLS };
enum { RS_ALL, RS_CALLER, RS_NCOLS };

const db_stmt db_replica_stmts[] = {
	/* On a replica: its replayed position, and its lag in seconds: none when all the WAL
	 * it received is replayed, else the age of the last transaction it replayed
	 * (GitLab EE's measure); a standby without a WAL receiver (cut off from the
	 * primary) as far behind. A server not in recovery is the primary itself: it has
	 * all it inserted (its write position may stay behind that until the WAL writer's
	 * next round: the commit of replica_sticky's unlogged upsert is not flushed). */
	{"replica_position",
	 "SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()"
	 " ELSE pg_current_wal_insert_lsn() END)::text,"
	 " (CASE WHEN NOT pg_is_in_recovery() THEN 0"
	 " WHEN NOT EXISTS (SELECT 1 FROM pg_stat_wal_receiver) THEN 1e9"
	 " WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0"
	 " ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 1e9)"
	 " END)::float8::text",
	 0, RP_NCOLS},
	/* On the primary: the position everyone waits for (user 0, see sql/0059), and the
	 * position of the user whom the token of digest $1 names */
	{"replica_sticky_get",
	 "SELECT (SELECT lsn FROM replica_sticky WHERE user_id = 0)::text,"
	 " (SELECT max(s.lsn) FROM tokens t JOIN replica_sticky s ON s.user_id = t.user_id"
	 " WHERE t.digest = $1)::text",
	 1, RS_NCOLS},
	/* user 0's row, when a crash emptied the table: the position now */
	{"replica_sticky_all",
	 "INSERT INTO replica_sticky (user_id, lsn) VALUES (0, pg_current_wal_insert_lsn())"
	 " ON CONFLICT (user_id) DO UPDATE SET lsn = replica_sticky.lsn RETURNING lsn::text",
	 0, 1},
	/* After a request of user $1 with the token of digest $2 (either NULL): the
	 * position now, past the commit of what it wrote, for the user and the token's
	 * owner (with sudo, another): each user once (the position is volatile, read per
	 * row, so DISTINCT over both would let a user through twice) */
	{"replica_sticky_note",
	 "INSERT INTO replica_sticky (user_id, lsn, at)"
	 " SELECT u, pg_current_wal_insert_lsn(), now() FROM (SELECT DISTINCT u FROM"
	 " unnest(ARRAY[$1::bigint, (SELECT user_id FROM tokens WHERE digest = $2 LIMIT 1)]) u"
	 " WHERE u > 0) d"
	 " ON CONFLICT (user_id) DO UPDATE SET lsn = greatest(replica_sticky.lsn, excluded.lsn),"
	 " at = excluded.at",
	 2, 0},
	/* positions older than any replica may lag ($1 seconds) and a margin */
	{"replica_sticky_sweep",
	 "DELETE FROM replica_sticky WHERE user_id > 0"
	 " AND at < now() - make_interval(secs => greatest($1::float8 * 2, 600))",
	 1, 0},
	{"replica_primary_lsn", "SELECT pg_current_wal_insert_lsn()::text", 0, 1},
	{NULL, NULL, 0, 0},
};

/* r is not to be used until it has been tried again. */
static void down(db_replica *r, double now)
{
	double wait = 1;
	for (int i = 0; i < r->failures && wait < RETRY_MAX; i++)
		wait *= 2;
	r->failures++;
	r->up = false;
	r->fresh = false;
	r->retry_at = now + (wait < RETRY_MAX ? wait : RETRY_MAX);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

bool db_lsn_parse(const char *s, uint64_t *out)
{
	if (!s)
		return false;
	char *end;
	unsigned long long hi = strtoull(s, &end, 16);
	if (end == s || *end != '/' || hi > 0xffffffffULL)
		return false;
	const char *lo_s = end + 1;
	unsigned long long lo = strtoull(lo_s, &end, 16);
	if (end == lo_s || *end || lo > 0xffffffffULL)
		return false;
	*out = (uint64_t)hi << 32 | lo;
	return true;
}

int db_pool_open(db_pool *p, db *primary, const config *cfg, const db_stmt *const *registry)
{
	memset(p, 0, sizeof(*p));
	p->primary = primary;
	p->max_lag = cfg->replica_max_lag;
	const char *list = cfg->database_replicas ? cfg->database_replicas : "";
	while (*list) {
		const char *end = strchr(list, ';');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		while (len > 0 && (*list == ' ' || *list == '\t')) {
			list++;
			len--;
		}
		while (len > 0 && (list[len - 1] == ' ' || list[len - 1] == '\t'))
			len--;
		if (len > 0) {
			if (p->n == DB_REPLICAS_MAX) {
				log_error("database_replicas: more than %d replicas", DB_REPLICAS_MAX);
				return -1;
			}
			char *conninfo = strndup(list, len);
			if (!conninfo)
				return -1;
			int rc = db_prepare_replica(&p->r[p->n].d, conninfo, registry);
			free(conninfo);
			if (rc < 0)
				return -1;
			p->n++;
		}
		if (!end)
			break;
		list = end + 1;
	}
	return 0;
}

void db_pool_close(db_pool *p)
{
	for (int i = 0; i < p->n; i++)
		db_close(&p->r[i].d);
	p->n = 0;
}

void db_pool_failed(db_pool *p, db *d)
{
	for (int i = 0; i < p->n; i++)
		if (&p->r[i].d == d) {
			down(&p->r[i], now_s());
			d->prepared = false; /* reconnect before its next use */
		}
}

/* Reads replica r's position and lag (connecting first when needed). false when it
 * cannot be used now. */
static bool check(db_pool *p, db_replica *r, double now)
{
	if (!r->up && now < r->retry_at)
		return false;
	if (db_ensure_idle(&r->d) < 0) {
		down(r, now);
		return false;
	}
	r->up = true;
	/* the statement runs in a context of its own: its result is freed at once */
	arena *a = arena_new();
	ctx c;
	ctx_init(&c, a, NULL, &r->d, NULL);
	PGresult *res = db_query(&c, "replica_position", 0, NULL, NULL);
	uint64_t lsn = 0;
	bool ok = res && PQntuples(res) == 1 && db_lsn_parse(db_val(res, 0, RP_LSN), &lsn);
	double lag = ok ? strtod(PQgetvalue(res, 0, RP_LAG), NULL) : 1e9;
	arena_destroy(a);
	if (!ok) {
		down(r, now);
		return false;
	}
	r->failures = 0;
	r->checked_at = now;
	if (lsn > r->replay)
		r->replay = lsn;
	r->fresh = lag <= p->max_lag;
	return true;
}

db *db_pool_at(db_pool *p, uint64_t lsn)
{
	if (!p || p->n == 0)
		return p ? p->primary : NULL;
	double now = now_s();
	for (int k = 0; k < p->n; k++) {
		db_replica *r = &p->r[(p->next + k) % p->n];
		bool known = r->up && now - r->checked_at < CHECK_INTERVAL;
		if (!known || (r->fresh && r->replay < lsn))
			if (!check(p, r, now))
				continue;
		if (r->fresh && r->replay >= lsn) {
			p->next = (p->next + k + 1) % p->n;
			return &r->d;
		}
	}
	return p->primary;
}

db *db_pool_for_read(db_pool *p, ctx *c, const char *digest)
{
	if (!p || p->n == 0)
		return c->db;
	int pid = c->db->conn ? PQbackendPID(c->db->conn) : 0;
	if (!digest && p->all && pid && pid == p->all_pid)
		return db_pool_at(p, p->all);
	const char *v[1] = {digest};
	PGresult *res = db_query(c, "replica_sticky_get", 1, v, NULL);
	if (!res || PQntuples(res) != 1)
		return c->db;
	uint64_t all = 0, mine = 0;
	const char *all_s = db_val(res, 0, RS_ALL);
	if (!all_s) { /* emptied by a crash: everyone waits for the position now */
		PGresult *ins = db_query(c, "replica_sticky_all", 0, NULL, NULL);
		all_s = ins && PQntuples(ins) == 1 ? db_val(ins, 0, 0) : NULL;
	}
	if (!db_lsn_parse(all_s, &all))
		return c->db;
	p->all = all;
	p->all_pid = pid;
	const char *mine_s = db_val(res, 0, RS_CALLER);
	if (mine_s && !db_lsn_parse(mine_s, &mine))
		return c->db;
	return db_pool_at(p, all > mine ? all : mine);
}

void db_replica_wrote(ctx *c, long long user_id, const char *digest)
{
	const char *list = c->cfg ? c->cfg->database_replicas : NULL;
	if (!list || !list[strspn(list, " \t;")] || (user_id <= 0 && !digest))
		return;
	char id[24];
	snprintf(id, sizeof(id), "%lld", user_id);
	const char *v[2] = {user_id > 0 ? id : NULL, digest};
	(void)db_query(c, "replica_sticky_note", 2, v, NULL);
}

uint64_t db_pool_primary_lsn(ctx *c)
{
	PGresult *res = db_query(c, "replica_primary_lsn", 0, NULL, NULL);
	uint64_t lsn = 0;
	if (!res || PQntuples(res) != 1 || !db_lsn_parse(db_val(res, 0, 0), &lsn))
		return 0;
	return lsn;
}

void db_pool_sweep(ctx *c)
{
	char lag[32];
	snprintf(lag, sizeof(lag), "%g", c->cfg->replica_max_lag);
	const char *v[1] = {lag};
	(void)db_query(c, "replica_sticky_sweep", 1, v, NULL);
}
