/* The job queue (db/queue.h). */
#include "db/queue.h"

#include <string.h>

#include "core/buf.h"

static const char *const kind_names[JOB_NKINDS] = {
#define JOB(NAME, kind, run) [JOB_##NAME] = #kind,
#include "db/jobs.def"
#undef JOB
};

/* the columns of queue_claim, of queue_enqueue_once */
enum { QC_ID, QC_KIND, QC_PAYLOAD, QC_ATTEMPTS, QC_NCOLS };
enum { QE_ID, QE_NOTIFIED, QE_NCOLS };

const db_stmt queue_stmts[] = {
	{"queue_listen", "LISTEN " QUEUE_CHANNEL, 0, 0},
	/* $1 kind, $2 payload (a JSON object) */
	{"queue_enqueue",
	 "WITH j AS (INSERT INTO background_jobs (kind, payload) VALUES ($1, $2::jsonb)"
	 " RETURNING id) SELECT pg_notify('" QUEUE_CHANNEL "', j.id::text) FROM j",
	 2, 1},
	/* the same unless a job of kind $1 with payload $2 is there: its id, or no row */
	{"queue_enqueue_once",
	 "WITH j AS (INSERT INTO background_jobs (kind, payload) SELECT $1, $2::jsonb"
	 " WHERE NOT EXISTS (SELECT 1 FROM background_jobs WHERE kind = $1 AND payload = $2::jsonb)"
	 " RETURNING id) SELECT j.id, pg_notify('" QUEUE_CHANNEL "', j.id::text) FROM j",
	 2, QE_NCOLS},
	/* The oldest due job of the kinds $1 (text[]) that no other process holds. */
	{"queue_claim",
	 "SELECT id, kind, payload::text, attempts FROM background_jobs WHERE run_at <= now()"
	 " AND kind = ANY ($1::text[]) ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED",
	 1, QC_NCOLS},
	/* removes job $1, counting it done (background_job_stats) */
	{"queue_finish",
	 "WITH d AS (DELETE FROM background_jobs WHERE id = $1 RETURNING kind)"
	 " INSERT INTO background_job_stats AS s (kind, processed) SELECT kind, 1 FROM d"
	 " ON CONFLICT (kind) DO UPDATE SET processed = s.processed + 1",
	 1, 0},
	/* $1 id, $2 why */
	{"queue_retry",
	 "WITH u AS (UPDATE background_jobs SET attempts = attempts + 1,"
	 " last_error = left($2, 1000), run_at = now() + least(interval '1 hour',"
	 " interval '5 seconds' * power(2, least(attempts, 20)))"
	 " WHERE id = $1 RETURNING kind)"
	 " INSERT INTO background_job_stats AS s (kind, failed) SELECT kind, 1 FROM u"
	 " ON CONFLICT (kind) DO UPDATE SET failed = s.failed + 1",
	 2, 0},
	/* the calling background process joins the process set ($1 hostname, $2 pid),
	 * dropping the rows of processes not seen for a minute: its row's id */
	{"queue_process_join",
	 "WITH gone AS (DELETE FROM background_processes WHERE seen_at < now() - interval '1 minute')"
	 " INSERT INTO background_processes (hostname, pid, backend_pid)"
	 " VALUES ($1, $2, pg_backend_pid()) RETURNING id",
	 2, 1},
	{"queue_process_seen",
	 "UPDATE background_processes SET seen_at = now(), backend_pid = pg_backend_pid()"
	 " WHERE id = $1 RETURNING id",
	 1, 1},
	{"queue_process_leave", "DELETE FROM background_processes WHERE id = $1", 1, 0},
	{NULL, NULL, 0, 0},
};

const char *queue_kind_name(int kind)
{
	return kind >= 0 && kind < JOB_NKINDS ? kind_names[kind] : NULL;
}

int queue_kind_parse(const char *name)
{
	for (int k = 0; name && k < JOB_NKINDS; k++)
		if (strcmp(name, kind_names[k]) == 0)
			return k;
	return -1;
}

int queue_enqueue(ctx *c, int kind, const char *payload)
{
	const char *name = queue_kind_name(kind);
	if (!name || !payload)
		return ERR_INVALID;
	const char *v[2] = {name, payload};
	int err;
	return db_query(c, "queue_enqueue", 2, v, &err) ? 0 : err;
}

int queue_enqueue_once(ctx *c, int kind, const char *payload, const char **id)
{
	const char *name = queue_kind_name(kind);
	if (!name || !payload)
		return ERR_INVALID;
	const char *v[2] = {name, payload};
	int err;
	PGresult *res = db_query(c, "queue_enqueue_once", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return 0;
	*id = arena_strdup(c->a, PQgetvalue(res, 0, QE_ID));
	return 1;
}

long long queue_process_join(ctx *c, const char *hostname, long pid)
{
	const char *v[2] = {hostname, arena_printf(c->a, "%ld", pid)};
	int err;
	PGresult *res = db_query(c, "queue_process_join", 2, v, &err);
	return res && PQntuples(res) == 1 ? db_int(res, 0, 0) : err;
}

int queue_process_seen(ctx *c, long long id, bool leave)
{
	const char *v[1] = {arena_printf(c->a, "%lld", id)};
	int err;
	PGresult *res =
		db_query(c, leave ? "queue_process_leave" : "queue_process_seen", 1, v, &err);
	if (!res)
		return err;
	return leave || PQntuples(res) == 1 ? 0 : 1;
}

int queue_listen(ctx *c)
{
	int err;
	return db_query(c, "queue_listen", 0, NULL, &err) ? 0 : err;
}

/* Every kind of db/jobs.def, as a text[] literal. */
static const char *kinds_array(ctx *c)
{
	buf b;
	buf_init(&b, c->a, 128);
	buf_putc(&b, '{');
	for (int k = 0; k < JOB_NKINDS; k++) {
		if (k)
			buf_putc(&b, ',');
		buf_puts(&b, kind_names[k]);
	}
	buf_putc(&b, '}');
	return buf_cstr(&b);
}

int queue_claim(ctx *c, queue_job *out)
{
	const char *v[1] = {kinds_array(c)};
	int err;
	PGresult *res = db_query(c, "queue_claim", 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return 0;
	out->id = arena_strdup(c->a, PQgetvalue(res, 0, QC_ID));
	out->kind = (job_kind)queue_kind_parse(PQgetvalue(res, 0, QC_KIND));
	out->payload = arena_strdup(c->a, PQgetvalue(res, 0, QC_PAYLOAD));
	out->attempts = db_int(res, 0, QC_ATTEMPTS);
	return 1;
}

int queue_finish(ctx *c, const queue_job *job)
{
	const char *v[1] = {job->id};
	int err;
	return db_query(c, "queue_finish", 1, v, &err) ? 0 : err;
}

int queue_retry(ctx *c, const queue_job *job, const char *why)
{
	const char *v[2] = {job->id, why};
	int err;
	return db_query(c, "queue_retry", 2, v, &err) ? 0 : err;
}
