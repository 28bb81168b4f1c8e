/* The background process and its jobs. */
#include "background.h"

#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "entry.h"
#include "db/queue.h"
#include "db/replica.h"
#include "api/api.h"
#include "ci/job.h"
#include "ci/pipeline.h"
#include "ci/schedules.h"
#include "git/archive.h"
#include "git/refs.h"
#include "git/repo.h"
#include "hooks_sender.h"

const db_stmt background_stmts[] = {
	/* The rows of a project that DELETE /projects/:id marked; what refers to it goes
	 * with it (cascades and the members/notification settings trigger). */
	{"background_delete_project", "DELETE FROM projects WHERE id = $1 AND pending_delete", 1,
	 0},
	/* Memberships past their expires_at date (GitLab 10's RemoveExpiredMembersWorker);
	 * access already ends on that date (SQL_MEMBER_ACTIVE). */
	{"background_remove_expired_members",
	 "DELETE FROM members WHERE expires_at <= current_date AND requested_at IS NULL", 0, 0},
	{NULL, NULL, 0, 0},
};

/* A path under the storage path as the API queued it: relative, without empty, "." or
 * ".." components. */
static bool safe_relative(const char *p)
{
	if (!p || !*p || *p == '/')
		return false;
	for (const char *s = p; *s;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)s[i] < 0x20)
				return false;
		s += n;
		if (*s == '/')
			s++;
	}
	return true;
}

static const char *payload_str(json_object *payload, const char *key)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(payload, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int remove_under_storage(ctx *c, const char *rel, const char **why)
{
	if (!safe_relative(rel)) {
		*why = "the payload has no safe relative path";
		return -1;
	}
	const char *abs = arena_printf(c->a, "%s/%s", c->cfg->storage_path, rel);
	if (repo_remove_dir(abs) < 0) {
		*why = arena_printf(c->a, "cannot remove %s: %s", rel, strerror(errno));
		return -1;
	}
	return 0;
}

/* remove_path {"path": "<relative path>"}: a directory tree under the storage path (the
 * namespace directory of a user or group removed before storage by project id). */
static int job_remove_path(ctx *c, json_object *payload, const char **why)
{
	return remove_under_storage(c, payload_str(payload, "path"), why);
}

/* The payload's project_id in decimal, or NULL. */
static const char *payload_project_id(ctx *c, json_object *payload, const char **why)
{
	json_object *id = NULL;
	if (!json_object_object_get_ex(payload, "project_id", &id) ||
	    !json_object_is_type(id, json_type_int) || json_object_get_int64(id) <= 0) {
		*why = "the payload has no project_id";
		return NULL;
	}
	return arena_printf(c->a, "%lld", (long long)json_object_get_int64(id));
}

/* remove_repository {"project_id": N}: the repository and wiki of a project whose rows
 * are gone (its group or user was removed). */
static int job_remove_repository(ctx *c, json_object *payload, const char **why)
{
	const char *id = payload_project_id(c, payload, why);
	if (!id)
		return -1;
	int rc = repo_remove(c, id);
	/* the cached archives and blobs beside it (git/archive.h) */
	if (archive_remove(c, id) < 0)
		rc = -1;
	if (rc < 0) {
		*why = arena_printf(c->a, "cannot remove the repository of project %s: %s", id,
				    strerror(errno));
		return -1;
	}
	return 0;
}

/* delete_project {"project_id": N}: the rows of a project that DELETE /projects/:id
 * marked pending_delete, and its repository and wiki. A job queued before storage by
 * project id also names "path" ("<ns>/<path>+N+deleted"), where that request moved them
 * aside. */
static int job_delete_project(ctx *c, json_object *payload, const char **why)
{
	const char *id = payload_project_id(c, payload, why);
	if (!id)
		return -1;
	const char *v[1] = {id};
	int err;
	if (!db_query(c, "background_delete_project", 1, v, &err)) {
		*why = "cannot delete the project's rows";
		return -1;
	}
	if (job_remove_repository(c, payload, why) < 0)
		return -1;
	const char *path = payload_str(payload, "path");
	if (!path)
		return 0;
	if (remove_under_storage(c, arena_printf(c->a, "%s.git", path), why) < 0)
		return -1;
	return remove_under_storage(c, arena_printf(c->a, "%s.wiki.git", path), why);
}

/* delete_merged_branches {"project_id": N}: DELETE /projects/:id/repository/merged_branches
 * (git/refs.c). */
static int job_delete_merged_branches(ctx *c, json_object *payload, const char **why)
{
	const char *id = payload_project_id(c, payload, why);
	return id ? refs_delete_merged(c, id, why) : -1;
}

/* housekeeping {"project_id": N}: POST /projects/:id/housekeeping (api/housekeeping.c).
 * Its row stays, and so the project's next request is refused (409), until gc is done. */
static int job_housekeeping(ctx *c, json_object *payload, const char **why)
{
	const char *id = payload_project_id(c, payload, why);
	if (!id)
		return -1;
	/* a failure is logged (repo_run) and not tried again: the next POST may */
	repo_gc(c, id);
	return 0;
}

/* push {"project_id", "ref", "before", "after", "user_id"} (git/hooks.c): merge requests'
 * head sha and merge_status (api/merge_requests.c), the push event of the webhooks
 * (hooks_sender.c), then the branch's or tag's pipeline (ci/pipeline.c), in the one
 * transaction that claimed the job: each push makes its pipeline and its webhook
 * deliveries exactly once. */
static int job_push(ctx *c, json_object *payload, const char **why)
{
	if (merge_requests_on_push(c, payload, why) < 0 ||
	    hooks_sender_on_push(c, payload, why) < 0)
		return -1;
	return ci_pipeline_on_push(c, payload, why);
}

/* The function of each kind (db/jobs.def). */
static int (*const jobs[JOB_NKINDS])(ctx *c, json_object *payload, const char **why) = {
#define JOB(NAME, kind, run) [JOB_##NAME] = run,
#include "db/jobs.def"
#undef JOB
};

int background_run_one(ctx *c)
{
	if (db_begin(c) < 0)
		return -1;
	queue_job job;
	int rc = queue_claim(c, &job);
	if (rc <= 0) {
		db_rollback(c);
		return rc < 0 ? -1 : 0;
	}
	const char *kind = queue_kind_name(job.kind);
	const char *why = NULL;
	/* a failed job is put back in the transaction that claimed it, after undoing what
	 * it did: another process cannot claim it in between and fail it a second time */
	tx_hook *mark;
	bool marked = db_savepoint(c, &mark) == 0;
	json_object *payload = json_tokener_parse(job.payload);
	rc = -1;
	if (!marked)
		why = "no savepoint";
	else if (!payload || !json_object_is_type(payload, json_type_object))
		why = "the payload is not a JSON object";
	else
		rc = jobs[job.kind](c, payload, &why);
	json_object_put(payload);
	if (rc == 0 && queue_finish(c, &job) == 0) {
		if (db_commit(c) == 0) {
			log_info("background job %s (%s) done", job.id, kind);
			return 1;
		}
		marked = false; /* the commit failed: nothing of it is left */
	}
	if (!why)
		why = "the transaction failed";
	log_warn("background job %s (%s) failed: %s", job.id, kind, why);
	if (marked && db_rollback_to(c, mark) == 0 && queue_retry(c, &job, why) == 0 &&
	    db_commit(c) == 0)
		return 1;
	db_rollback(c);
	return queue_retry(c, &job, why) == 0 ? 1 : -1;
}

/* Reads what arrived on the connection and drops the notifications (they only wake
 * us): true when there was one. */
static bool take_notifications(PGconn *conn)
{
	if (!conn || PQstatus(conn) != CONNECTION_OK)
		return false;
	PQconsumeInput(conn);
	bool any = false;
	PGnotify *n;
	while ((n = PQnotifies(conn))) {
		PQfreemem(n);
		any = true;
	}
	return any;
}

static bool stop_requested(int sfd)
{
	struct pollfd p = {.fd = sfd, .events = POLLIN};
	return poll(&p, 1, 0) > 0;
}

int background_run(const config *cfg, const unsigned char key[32], const db_stmt *const *statements)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	prctl(PR_SET_NAME, BACKGROUND_PROCESS_NAME);
	int sfd = entry_stop_signals();
	if (sfd < 0) {
		log_error("background setup: %s", strerror(errno));
		return 1;
	}
	db d;
	if (db_open(&d, cfg->database_url, statements) < 0)
		log_warn("background process starts without a database connection; retrying");
	db_pool pool; /* the reads of a job that reads much (an export) */
	if (db_pool_open(&pool, &d, cfg, statements) < 0)
		log_warn("database_replicas: the background process reads on the primary");
	db_pool *replicas = pool.n > 0 ? &pool : NULL;
	arena *a = arena_new();
	hooks_sender *sender = hooks_sender_new();
	if (!sender)
		log_error("background: webhooks cannot be sent (curl cannot be set up)");
	int listening = 0;     /* the backend that LISTENs for us (0: none) */
	time_t swept = 0;      /* when expired memberships were last removed */
	long long process = 0; /* our row of the process set (0: none yet) */
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	while (!stop_requested(sfd)) {
		/* 1. (re)connect and listen on this connection */
		if (db_ensure(&d) == 0 && listening != PQbackendPID(d.conn)) {
			ctx c;
			ctx_init(&c, a, cfg, &d, key);
			if (queue_listen(&c) == 0)
				listening = PQbackendPID(d.conn);
			arena_reset(a);
		}
		/* 2. expired memberships (access ends on the date already) and stuck CI jobs,
		 * every 10 s */
		if (d.conn && PQstatus(d.conn) == CONNECTION_OK && time(NULL) - swept >= 10) {
			ctx c;
			ctx_init(&c, a, cfg, &d, key);
			int err;
			/* and our row of the process set, joined again when it went */
			if (process <= 0 || queue_process_seen(&c, process, false) == 1)
				process = queue_process_join(&c, host, (long)getpid());
			if (db_query(&c, "background_remove_expired_members", 0, NULL, &err) &&
			    ci_jobs_drop_stuck(&c) >= 0)
				swept = time(NULL);
			if (replicas)
				db_pool_sweep(&c);
			arena_reset(a);
		}
		/* 3. the pipeline schedules that are due, one transaction each, every second:
		 * each is claimed by one process of all the instances (SKIP LOCKED) */
		for (;;) {
			ctx c;
			ctx_init(&c, a, cfg, &d, key);
			bool up = d.conn && PQstatus(d.conn) == CONNECTION_OK;
			int rc = up ? ci_schedules_fire_due(&c) : 0;
			arena_reset(a);
			if (rc != 1 || stop_requested(sfd))
				break;
		}
		/* 4. every due job, one transaction each (what was notified so far included) */
		take_notifications(d.conn);
		for (;;) {
			ctx c;
			ctx_init(&c, a, cfg, &d, key);
			c.pool = replicas;
			int rc = background_run_one(&c);
			arena_reset(a);
			if (rc != 1 || stop_requested(sfd))
				break;
		}
		/* 5. webhooks: claim the due deliveries, move those in flight on */
		ctx hc;
		ctx_init(&hc, a, cfg, &d, key);
		int flying = hooks_sender_step(sender, &hc);
		arena_reset(a);
		/* 6. a job queued meanwhile: at once; else wait for a notification, a stop, a
		 * webhook's transfer or the next poll */
		if (take_notifications(d.conn))
			continue;
		struct pollfd p[2] = {{.fd = sfd, .events = POLLIN}, {.fd = -1, .events = POLLIN}};
		if (d.conn && PQstatus(d.conn) == CONNECTION_OK)
			p[1].fd = PQsocket(d.conn);
		if (flying > 0) {
			/* the transfers move on, each one's end starting its hook's next, until
			 * none is left, a notification or a stop comes, or a second has passed
			 * (the schedules' and the sweep's turn) */
			time_t since = time(NULL);
			for (;;) {
				hooks_sender_wait(sender, p, 2, 1000);
				if ((p[0].revents | p[1].revents) & POLLIN)
					break;
				ctx_init(&hc, a, cfg, &d, key);
				flying = hooks_sender_step(sender, &hc);
				arena_reset(a);
				if (flying == 0 || time(NULL) - since >= 1)
					break;
			}
			if (p[0].revents & POLLIN)
				break;
			continue;
		}
		if (poll(p, 2, 1000) < 0 && errno != EINTR) {
			log_error("background poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents & POLLIN)
			break;
	}
	if (process > 0 && d.conn && PQstatus(d.conn) == CONNECTION_OK) {
		ctx c;
		ctx_init(&c, a, cfg, &d, key);
		queue_process_seen(&c, process, true);
	}
	hooks_sender_free(sender);
	arena_destroy(a);
	db_pool_close(&pool);
	db_close(&d);
	close(sfd);
	return 0;
}
