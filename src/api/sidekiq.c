/* What GitLab 10 showed of Sidekiq (lib/api/sidekiq_metrics.rb), admins only, filled from
 * collabd's own job queue (db/queue.h): GET /sidekiq/queue_metrics (each kind of
 * db/jobs.def as a queue: its jobs and the age of the oldest; the webhook deliveries the
 * queue web_hook), /sidekiq/process_metrics
 * (the background processes of every instance), /sidekiq/job_stats (jobs done, failed,
 * queued) and /sidekiq/compound_metrics (the three). */
#include <string.h>

#include "api/api.h"
#include "db/queue.h"
#include "entity/entity.h"

enum { SQ_KIND, SQ_BACKLOG, SQ_LATENCY, SQ_NCOLS };
enum { SP_HOST, SP_PID, SP_STARTED, SP_BUSY, SP_NCOLS };
enum { SJ_PROCESSED, SJ_FAILED, SJ_ENQUEUED, SJ_NCOLS };

const db_stmt sidekiq_stmts[] = {
	/* the job kinds', and the webhook deliveries not given up as the queue web_hook */
	{"sidekiq_queues",
	 "SELECT kind, count(*), extract(epoch FROM now() - min(created_at))::bigint"
	 " FROM background_jobs GROUP BY kind UNION ALL SELECT 'web_hook', count(*),"
	 " coalesce(extract(epoch FROM now() - min(created_at))::bigint, 0)"
	 " FROM web_hook_deliveries WHERE state <> 'failed'",
	 0, SQ_NCOLS},
	/* the processes seen in the last minute; busy while their connection is in a
	 * transaction (a job runs in one) */
	{"sidekiq_processes",
	 "SELECT p.hostname, p.pid, iso8601(p.started_at),"
	 " coalesce((SELECT a.xact_start IS NOT NULL FROM pg_stat_activity a"
	 " WHERE a.pid = p.backend_pid), false)"
	 " FROM background_processes p WHERE p.seen_at >= now() - interval '1 minute'"
	 " ORDER BY p.hostname, p.pid",
	 0, SP_NCOLS},
	{"sidekiq_jobs",
	 "SELECT (SELECT coalesce(sum(processed), 0) FROM background_job_stats),"
	 " (SELECT coalesce(sum(failed), 0) FROM background_job_stats),"
	 " (SELECT count(*) FROM background_jobs)",
	 0, SJ_NCOLS},
	{NULL, NULL, 0, 0},
};

/* {kind: {backlog, latency}} for every kind, those with no job too. */
static int queues(request *r, json_object *o)
{
	int err;
	PGresult *res = db_query(&r->ctx, "sidekiq_queues", 0, NULL, &err);
	if (!res)
		return err;
	json_object *q = json_object_new_object();
	for (int k = 0; k <= JOB_NKINDS; k++) {
		const char *name = k < JOB_NKINDS ? queue_kind_name(k) : "web_hook";
		long long backlog = 0, latency = 0;
		for (int i = 0; i < PQntuples(res); i++)
			if (strcmp(PQgetvalue(res, i, SQ_KIND), name) == 0) {
				backlog = db_int(res, i, SQ_BACKLOG);
				latency = db_int(res, i, SQ_LATENCY);
			}
		json_object *one = json_object_new_object();
		json_object_object_add(one, "backlog", json_object_new_int64(backlog));
		json_object_object_add(one, "latency", json_object_new_int64(latency));
		json_object_object_add(q, name, one);
	}
	json_object_object_add(o, "queues", q);
	return 0;
}

static int processes(request *r, json_object *o)
{
	int err;
	PGresult *res = db_query(&r->ctx, "sidekiq_processes", 0, NULL, &err);
	if (!res)
		return err;
	json_object *list = json_object_new_array();
	for (int i = 0; i < PQntuples(res); i++) {
		json_object *p = json_object_new_object(), *kinds = json_object_new_array();
		for (int k = 0; k < JOB_NKINDS; k++)
			json_object_array_add(kinds, json_object_new_string(queue_kind_name(k)));
		json_put_str(p, "hostname", PQgetvalue(res, i, SP_HOST));
		json_object_object_add(p, "pid", json_object_new_int64(db_int(res, i, SP_PID)));
		json_put_str(p, "tag", "collabd");
		json_put_str(p, "started_at", PQgetvalue(res, i, SP_STARTED));
		json_object_object_add(p, "queues", kinds);
		json_object_object_add(p, "labels", json_object_new_array());
		/* one job at a time */
		json_object_object_add(p, "concurrency", json_object_new_int(1));
		json_object_object_add(p, "busy", json_object_new_int(db_bool(res, i, SP_BUSY)));
		json_object_array_add(list, p);
	}
	json_object_object_add(o, "processes", list);
	return 0;
}

static int jobs(request *r, json_object *o)
{
	int err;
	PGresult *res = db_query(&r->ctx, "sidekiq_jobs", 0, NULL, &err);
	if (!res)
		return err;
	json_object *j = json_object_new_object();
	json_object_object_add(j, "processed", json_object_new_int64(db_int(res, 0, SJ_PROCESSED)));
	json_object_object_add(j, "failed", json_object_new_int64(db_int(res, 0, SJ_FAILED)));
	json_object_object_add(j, "enqueued", json_object_new_int64(db_int(res, 0, SJ_ENQUEUED)));
	json_object_object_add(o, "jobs", j);
	return 0;
}

/* Answers the object that parts (NULL-terminated) fill. */
static int respond_parts(request *r, int (*const *parts)(request *, json_object *))
{
	json_object *o = request_own(r, json_object_new_object());
	for (; *parts; parts++) {
		int rc = (*parts)(r, o);
		if (rc < 0)
			return rc;
	}
	respond_json(r, 200, json_object_get(o));
	return 0;
}

static int sidekiq_queue_metrics(request *r)
{
	static int (*const parts[])(request *, json_object *) = {queues, NULL};
	return respond_parts(r, parts);
}

static int sidekiq_process_metrics(request *r)
{
	static int (*const parts[])(request *, json_object *) = {processes, NULL};
	return respond_parts(r, parts);
}

static int sidekiq_job_stats(request *r)
{
	static int (*const parts[])(request *, json_object *) = {jobs, NULL};
	return respond_parts(r, parts);
}

static int sidekiq_compound_metrics(request *r)
{
	static int (*const parts[])(request *, json_object *) = {queues, processes, jobs, NULL};
	return respond_parts(r, parts);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route sidekiq_routes[] = {
	{"GET", V4 "/sidekiq/queue_metrics", sidekiq_queue_metrics, ADMIN, NULL},
	{"GET", V4 "/sidekiq/process_metrics", sidekiq_process_metrics, ADMIN, NULL},
	{"GET", V4 "/sidekiq/job_stats", sidekiq_job_stats, ADMIN, NULL},
	{"GET", V4 "/sidekiq/compound_metrics", sidekiq_compound_metrics, ADMIN, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
