/* Health checks and metrics (GitLab 10's HealthController, BasicHealthCheck and
 * MetricsController): /-/health, /-/readiness, /-/liveness and /-/metrics, answered only
 * to clients whose address is in monitoring_whitelist (GitLab's setting); to anyone else
 * they are the 404 of a path collabd does not serve, as GitLab's render_404.
 *
 * None of them waits for the database (ROUTE_NO_DB): /-/health and /-/liveness say that
 * the worker answers whatever else is down, /-/readiness asks the database and the
 * storage path itself, and /-/metrics leaves out what the database would have said. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api.h"
#include "core/cidr.h"
#include "core/files.h"
#include "core/log.h"
#include "core/metrics.h"
#include "entity/entity.h"

enum { MQ_KIND, MQ_JOBS, MQ_DUE, MQ_OLDEST_AGE, MQ_NCOLS };

const db_stmt monitoring_stmts[] = {
	{"monitoring_ping", "SELECT 1", 0, 1},
	/* the background queue by kind: jobs, those due, and the age in seconds of the
	 * oldest (a job retried keeps its created_at); and the webhook deliveries not given
	 * up as the kind web_hook */
	{"monitoring_queue",
	 "SELECT kind, count(*), count(*) FILTER (WHERE run_at <= now()),"
	 " extract(epoch FROM now() - min(created_at))::float8 FROM background_jobs"
	 " GROUP BY kind UNION ALL SELECT 'web_hook', count(*),"
	 " count(*) FILTER (WHERE next_attempt_at <= now()),"
	 " extract(epoch FROM now() - min(created_at))::float8 FROM web_hook_deliveries"
	 " WHERE state <> 'failed' HAVING count(*) > 0 ORDER BY 1",
	 0, MQ_NCOLS},
	{NULL, NULL, 0, 0},
};

/* Whether the client (nginx's REMOTE_ADDR) may ask: ERR_NO_ROUTE when it may not. */
static int whitelisted(request *r)
{
	return cidr_list_match(r->ctx.cfg->monitoring_whitelist, request_header(r, "REMOTE_ADDR"))
		       ? 0
		       : ERR_NO_ROUTE;
}

static void respond_text(request *r, int status, const char *type, const char *text, size_t n)
{
	r->status = status;
	r->body = text;
	r->body_len = n;
	r->content_type = type;
}

static int monitoring_health(request *r)
{
	int rc = whitelisted(r);
	if (rc < 0)
		return rc;
	static const char ok[] = "GitLab OK";
	respond_text(r, 200, "text/plain", ok, sizeof(ok) - 1);
	return 0;
}

/* One check's entry: {"status": "ok"|"failed"[, "message"][, "labels": {"shard"}]}. */
static void put_check(json_object *out, const char *name, const char *failure, const char *shard)
{
	json_object *o = json_object_new_object();
	json_put_str(o, "status", failure ? "failed" : "ok");
	if (failure)
		json_put_str(o, "message", failure);
	if (shard) {
		json_object *labels = json_object_new_object();
		json_put_str(labels, "shard", shard);
		json_object_object_add(o, "labels", labels);
	}
	json_object_object_add(out, name, o);
}

/* The database answers a statement: NULL, or what failed, in GitLab's words. */
static const char *db_check(request *r)
{
	int err;
	if (db_ensure_idle(r->ctx.db) < 0 || !db_query(&r->ctx, "monitoring_ping", 0, NULL, &err))
		return "unexpected Db check result: the database is unreachable";
	return NULL;
}

/* The storage path is there and takes a file (GitLab's FsShardsCheck, of its one
 * storage "default"): NULL, or what failed. */
static const char *storage_check(request *r)
{
	const char *root = r->ctx.cfg->storage_path;
	struct stat st;
	if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode))
		return "cannot stat storage";
	char tmp[FILES_TMP_MAX];
	int fd = files_temp(arena_printf(r->ctx.a, "%s/.readiness", root), tmp);
	if (fd < 0) {
		log_warn("readiness: cannot create a file under %s: %s", root, strerror(errno));
		return "cannot create test file";
	}
	files_abandon(fd, tmp);
	return NULL;
}

static int monitoring_readiness(request *r)
{
	int rc = whitelisted(r);
	if (rc < 0)
		return rc;
	const char *database = db_check(r), *storage = storage_check(r);
	json_object *o = json_object_new_object();
	put_check(o, "db_check", database, NULL);
	put_check(o, "fs_shards_check", storage, "default");
	respond_json(r, database || storage ? 503 : 200, o);
	return 0;
}

/* The worker answers: that is all liveness says (GitLab's checks' liveness is true
 * whatever they reach). */
static int monitoring_liveness(request *r)
{
	int rc = whitelisted(r);
	if (rc < 0)
		return rc;
	json_object *o = json_object_new_object();
	put_check(o, "db_check", NULL, NULL);
	put_check(o, "fs_shards_check", NULL, NULL);
	respond_json(r, 200, o);
	return 0;
}

static void route_label(size_t i, const char **method, const char **pattern, void *arg)
{
	(void)arg;
	const route *rt = router_at(i);
	*method = rt ? rt->method : "";
	*pattern = rt ? rt->pattern : "(none)"; /* the slot of requests no route matched */
}

/* The background queue's gauges, by kind, read now; false when the database is down. */
static bool queue_gauges(request *r, buf *out)
{
	int err;
	PGresult *res;
	if (db_ensure_idle(r->ctx.db) < 0 ||
	    !(res = db_query(&r->ctx, "monitoring_queue", 0, NULL, &err)))
		return false;
	static const struct {
		const char *name, *help;
		int col;
	} gauges[] = {
		{"collabd_background_jobs", "Jobs in the background queue, by kind", MQ_JOBS},
		{"collabd_background_jobs_due", "Jobs of the background queue due now, by kind",
		 MQ_DUE},
		{"collabd_background_oldest_job_age_seconds",
		 "Age of the oldest job in the background queue, by kind", MQ_OLDEST_AGE},
	};
	for (size_t g = 0; g < sizeof(gauges) / sizeof(*gauges); g++) {
		buf_printf(out, "# HELP %s %s\n# TYPE %s gauge\n", gauges[g].name, gauges[g].help,
			   gauges[g].name);
		for (int i = 0; i < PQntuples(res); i++) /* kinds are names of db/jobs.def */
			buf_printf(out, "%s{kind=\"%s\"} %s\n", gauges[g].name,
				   db_val(res, i, MQ_KIND), db_val(res, i, gauges[g].col));
	}
	return true;
}

static int monitoring_metrics(request *r)
{
	int rc = whitelisted(r);
	if (rc < 0)
		return rc;
	buf out;
	buf_init(&out, r->ctx.a, 16384);
	metrics_format(&out, route_label, NULL);
	metrics_format_gauge(&out, "collabd_workers", "Workers this instance runs (workers)",
			     r->ctx.cfg->workers);
	bool up = queue_gauges(r, &out);
	metrics_format_gauge(&out, "collabd_database_up",
			     "Whether the database answered this scrape", up ? 1 : 0);
	respond_text(r, 200, "text/plain; version=0.0.4", out.data, out.len);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route monitoring_routes[] = {
	{"GET", "/-/health", monitoring_health, ROUTE_NO_AUTH | ROUTE_NO_DB, NULL},
	{"GET", "/-/readiness", monitoring_readiness, ROUTE_NO_AUTH | ROUTE_NO_DB, NULL},
	{"GET", "/-/liveness", monitoring_liveness, ROUTE_NO_AUTH | ROUTE_NO_DB, NULL},
	{"GET", "/-/metrics", monitoring_metrics, ROUTE_NO_AUTH | ROUTE_NO_DB, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
