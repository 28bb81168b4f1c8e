#include "worker.h"

#include <errno.h>
#include <fcgiapp.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "auth/auth.h"
#include "auth/scope.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/turns.h"
#include "db/replica.h"
#include "db/settings.h"
#include "entry.h"
#include "cache/auth.h"
#include "http/cache.h"
#include "http/router.h"
#include "modules.h"

static scope_lock route_lock(unsigned flags)
{
	return !(flags & ROUTE_TX)       ? SCOPE_READ
	       : flags & ROUTE_KEY_SHARE ? SCOPE_KEY_SHARE
					 : SCOPE_UPDATE;
}

/* The parameter checks of the route (400 before the scope's 404): text parameters
 * without NUL bytes (http/request.h param_check_text), then the route's own. */
static int check_params(request *r)
{
	if (!(r->route->flags & ROUTE_BYTES)) {
		int rc = param_check_text(r, NULL);
		if (rc < 0)
			return rc;
	}
	if (!r->route->check)
		return 0;
	int rc = r->route->check(r);
	if (rc == 0)
		r->validation = NULL;
	return rc;
}

/* Whether a route with these flags authenticates with cache_auth_project: a project's
 * route, with a token and no sudo. */
static bool with_project(const request *r, unsigned flags)
{
	return (flags & ROUTE_PROJECT) && r->cred.token_digest && !r->cred.sudo &&
	       !(flags & (ROUTE_NO_AUTH | ROUTE_SELF_AUTH | ROUTE_CALLER_RECORD));
}

/* rc, after the route's project was looked for: found (0), the presenters' URLs of its
 * records name its path. */
static int project_found(request *r, int rc)
{
	if (rc == 0) {
		r->ctx.project_ns = r->project->ns_full_path;
		r->ctx.project_path = r->project->path;
	}
	return rc;
}

/* The project or group of a scoped route, found and visible (locked in a writing
 * route's transaction: FOR UPDATE, or FOR KEY SHARE for ROUTE_KEY_SHARE), after the
 * parameter checks. A project's route with a token finds the caller and the project in
 * one statement (auth_authenticate_project): authentication's answer first, then the
 * checks', then the scope's. */
static int resolve_scope(request *r, unsigned flags)
{
	if (with_project(r, flags)) {
		/* the checks first, as they may name the statement the handler will run
		 * (r->prefetch, api_query), to send with the project's; their answer after
		 * authentication's */
		r->prefetch = (db_call){0};
		int check = check_params(r);
		if (check < 0 || (flags & ROUTE_TX))
			r->prefetch = (db_call){0};
		PGresult *res;
		int rc = cache_auth_project(&r->ctx, &r->cred, flags, param_str(r, "id"),
					    route_lock(flags), flags & ROUTE_NO_USER_REFS,
					    r->auth_cache, &r->prefetch, &r->prefetched, &res);
		if (rc < 0 || (rc = check) < 0)
			return rc;
		r->project = arena_alloc(r->ctx.a, sizeof(*r->project));
		if (!res) {
			r->ctx.err_detail = "Project";
			return ERR_NOT_FOUND;
		}
		return project_found(r,
				     scope_project_row(&r->ctx, res, AUTH_LEAN_NCOLS, r->project));
	}
	int rc = check_params(r);
	if (rc < 0)
		return rc;
	if (flags & ROUTE_PROJECT) {
		r->project = arena_alloc(r->ctx.a, sizeof(*r->project));
		return project_found(r, scope_project(&r->ctx, param_str(r, "id"),
						      route_lock(flags), r->project));
	}
	if (flags & ROUTE_GROUP) {
		r->group = arena_alloc(r->ctx.a, sizeof(*r->group));
		return scope_group(&r->ctx, param_str(r, "id"), route_lock(flags), r->group);
	}
	return 0;
}

/* The scope, then the handler. */
static int scoped(request *r)
{
	int rc = resolve_scope(r, r->route->flags);
	return rc < 0 ? rc : r->route->handler(r);
}

/* The turns of this worker's write transactions (worker_run's). */
static int write_turns = -1;

int worker_transaction(request *r, handler_fn fn)
{
	ctx *c = &r->ctx;
	turns_take(write_turns);
	int rc = db_begin(c);
	bool begun = rc >= 0;
	if (begun)
		rc = fn(r);
	/* the turn is for the work: the COMMIT waits for its WAL flush without one, and
	 * others work meanwhile (a writer waiting for its row lock holds a turn; the
	 * transaction it waits for is done with its own) */
	turns_give(write_turns);
	if (!begun)
		return rc;
	/* an answer of 400 and up (a 409 or 403 with a body of its own) changes nothing */
	if (rc < 0 || r->status >= 400) {
		db_rollback(c);
		return rc;
	}
	int err = db_commit(c);
	if (err < 0) {
		r->headers.len = 0; /* what the handler meant to answer did not happen */
		return err;
	}
	return rc;
}

/* The parameter checks, the scope and the handler, in their transaction when the route
 * has one. */
static int run_handler(request *r, const route *rt)
{
	return rt->flags & ROUTE_TX ? worker_transaction(r, scoped) : scoped(r);
}

/* Whether the route only reads, outside a transaction: it may run on a read replica. */
static bool reads_only(const route *rt)
{
	return strcmp(rt->method, "GET") == 0 &&
	       !(rt->flags & (ROUTE_TX | ROUTE_NO_DB | ROUTE_PRIMARY));
}

/* The route's cached answer, or its authentication and handler on r->ctx.db. */
static int run_route(request *r, const route *rt)
{
	if (r->cache && (rt->flags & ROUTE_CACHE) && cache_serve(r))
		return 0;
	int rc = 0;
	if (!(rt->flags & ROUTE_NO_AUTH)) {
		bool deferred =
			((rt->flags & ROUTE_SELF_AUTH) && r->cred.token_digest && !r->cred.sudo) ||
			with_project(r, rt->flags);
		if (!deferred)
			rc = auth_authenticate(&r->ctx, &r->cred, rt->flags);
	}
	if (rc == 0)
		rc = run_handler(r, rt);
	if (r->cache_key && rc < 0)
		db_rollback(&r->ctx); /* the snapshot the cached route ran in */
	return cache_finish(r, rc);
}

/* A read on a replica (db/replica.h), or on the primary when the caller's last write is
 * not replayed there yet or no replica is fresh. A replica that fails under it, or does
 * not know the caller's token (made a moment ago, on the primary), or meets a statement
 * that writes: the request runs again on the primary. */
static int run_read(request *r, const route *rt)
{
	db *primary = r->ctx.db;
	db_pool *pool = r->ctx.pool;
	r->ctx.db = db_pool_for_read(pool, &r->ctx, r->cred.token_digest);
	bool replica = r->ctx.db != primary;
	int rc = run_route(r, rt);
	if (replica && (rc == ERR_UNAVAILABLE || rc == ERR_UNAUTHORIZED)) {
		if (db_in_transaction(&r->ctx))
			db_rollback(&r->ctx);
		if (!r->ctx.db->conn || PQstatus(r->ctx.db->conn) != CONNECTION_OK)
			db_pool_failed(pool, r->ctx.db);
		r->ctx.db = primary;
		request_restart(r);
		metrics_add(METRIC_DB_READS_RETRIED, 1);
		replica = false;
		rc = run_route(r, rt);
	}
	metrics_add(replica ? METRIC_DB_READS_REPLICA : METRIC_DB_READS_PRIMARY, 1);
	return rc;
}

void worker_dispatch_tables(request *r, const route *const *tables)
{
	const route *rt = router_match(tables, r);
	if (!rt) {
		respond_error(r, ERR_NO_ROUTE);
		return;
	}
	r->route = rt;
	if (!(rt->flags & ROUTE_NO_DB) && db_ensure_idle(r->ctx.db) < 0) {
		respond_error(r, ERR_UNAVAILABLE);
		return;
	}
	if (!(rt->flags & ROUTE_NO_AUTH))
		request_read_credentials(r);
	db *primary = r->ctx.db;
	bool replicas = r->ctx.pool && r->ctx.pool->n > 0;
	int rc = replicas && reads_only(rt) ? run_read(r, rt) : run_route(r, rt);
	if (db_in_transaction(&r->ctx)) {
		log_error("%s %s left a transaction open: rolled back", r->method, rt->pattern);
		db_rollback(&r->ctx);
		rc = ERR_INTERNAL;
		r->headers.len = 0;
	}
	/* what the caller wrote is read back from the primary until a replica has it */
	if (replicas && r->ctx.db == primary && !reads_only(rt) && !(rt->flags & ROUTE_NO_DB) &&
	    rc >= 0 && r->status < 400)
		db_replica_wrote(&r->ctx, r->ctx.user ? r->ctx.user->id : 0, r->cred.token_digest);
	r->ctx.db = primary;
	if (rc < 0) {
		if (rc == ERR_INTERNAL)
			log_error("%s %s failed", r->method, r->path);
		respond_error(r, rc);
	}
}

void worker_dispatch(request *r)
{
	worker_dispatch_tables(r, route_tables);
}

static const char *reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 201:
		return "Created";
	case 202:
		return "Accepted";
	case 204:
		return "No Content";
	case 304:
		return "Not Modified";
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 409:
		return "Conflict";
	case 412:
		return "Precondition Failed";
	case 413:
		return "Payload Too Large";
	case 414:
		return "URI Too Long";
	case 422:
		return "Unprocessable Entity";
	case 429:
		return "Too Many Requests";
	case 503:
		return "Service Unavailable";
	default:
		return "Internal Server Error";
	}
}

/* The response is sent as FastCGI records written here, all of them (STDOUT records of
 * the head and body, the empty one that ends the stream, END_REQUEST) in one writev,
 * where libfcgi's stream cuts it into a write(2) per 8 KiB, each a wake-up of nginx's
 * worker: five for a page of projects. FCGI_REC_MAX: a record's content at most, a
 * multiple of 8 (no padding but in the last). */
enum { FCGI_VERSION = 1, FCGI_END_REQUEST = 3, FCGI_STDOUT = 6, FCGI_REC_MAX = 65528 };

static void fcgi_record_header(unsigned char *h, int type, int id, size_t len)
{
	h[0] = FCGI_VERSION;
	h[1] = (unsigned char)type;
	h[2] = (unsigned char)(id >> 8);
	h[3] = (unsigned char)id;
	h[4] = (unsigned char)(len >> 8);
	h[5] = (unsigned char)len;
	h[6] = 0;
	h[7] = 0;
}

/* Writes the n entries of iov to fd, resuming after a partial write; stops at an error
 * (the web server gone: nothing more to do). */
static void write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n < IOV_MAX ? n : IOV_MAX);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
}

static void write_response(FCGX_Request *fr, request *r)
{
	bool has_body = r->body && r->status != 204 && r->status != 304;
	buf head;
	buf_init(&head, r->ctx.a, 256);
	buf_printf(&head, "Status: %d %s\r\n", r->status, reason(r->status));
	if (has_body)
		buf_printf(&head, "Content-Type: %s\r\nContent-Length: %zu\r\n",
			   r->content_type ? r->content_type : "application/json", r->body_len);
	if (r->request_id)
		buf_printf(&head, "X-Request-Id: %s\r\n", r->request_id);
	buf_append(&head, r->headers.data, r->headers.len);
	buf_append(&head, "\r\n", 2);
	/* the stream: the head, then the body; in records of at most FCGI_REC_MAX bytes */
	struct {
		const char *p;
		size_t len;
	} seg[2] = {{head.data, head.len}, {r->body, has_body && !r->head ? r->body_len : 0}};
	size_t total = seg[0].len + seg[1].len, records = (total + FCGI_REC_MAX - 1) / FCGI_REC_MAX;
	struct iovec *iov = arena_alloc(r->ctx.a, (records * 3 + 1) * sizeof(*iov));
	unsigned char *h = arena_alloc(r->ctx.a, (records + 3) * 8);
	int n = 0, s = 0;
	size_t off = 0;
	for (size_t i = 0; i < records; i++, h += 8) {
		size_t len = total - i * FCGI_REC_MAX < FCGI_REC_MAX ? total - i * FCGI_REC_MAX
								     : FCGI_REC_MAX;
		fcgi_record_header(h, FCGI_STDOUT, fr->requestId, len);
		iov[n++] = (struct iovec){h, 8};
		while (len > 0) {
			size_t take = seg[s].len - off < len ? seg[s].len - off : len;
			if (take > 0)
				iov[n++] = (struct iovec){(char *)seg[s].p + off, take};
			len -= take;
			off += take;
			if (off == seg[s].len) {
				s++;
				off = 0;
			}
		}
	}
	/* the end of the stream and of the request: application status 0, request
	 * complete */
	fcgi_record_header(h, FCGI_STDOUT, fr->requestId, 0);
	fcgi_record_header(h + 8, FCGI_END_REQUEST, fr->requestId, 8);
	memset(h + 16, 0, 8);
	iov[n++] = (struct iovec){h, 24};
	write_all(fr->ipcFd, iov, n);
}

/* Ends the connection of a request answered by write_response(). When the request has
 * been read to its end, closed at once; when it has not (a body refused unread), by
 * libfcgi's close, which reads what the web server still sends until it closes its end
 * (a connection closed with unread data resets the web server's, losing the response).
 * The worker then takes the next connection instead of waiting for nginx to close this
 * one. A connection kept (FCGI_KEEP_CONN) stays open. */
static void finish(FCGX_Request *fr, bool read_whole)
{
	if (fr->keepConnection) {
		FCGX_Free(fr, 0);
		return;
	}
	if (!read_whole || FCGX_GetChar(fr->in) != EOF) {
		FCGX_Free(fr, 1);
		return;
	}
	FCGX_Free(fr, 0);
	close(fr->ipcFd);
	fr->ipcFd = -1;
}

/* The largest body accepted for METHOD URI: max_body, or max_artifacts_size for a job's
 * artifacts upload (POST /api/v4/jobs/<id>/artifacts, whose nginx location allows as
 * much). */
static long long body_limit(const config *cfg, const char *method, const char *uri)
{
	static const char prefix[] = "/api/v4/jobs/";
	if (method && uri && strcmp(method, "POST") == 0 &&
	    strncmp(uri, prefix, sizeof(prefix) - 1) == 0) {
		const char *p = uri + sizeof(prefix) - 1;
		size_t digits = strspn(p, "0123456789");
		if (digits > 0 && (strcmp(p + digits, "/artifacts") == 0 ||
				   strncmp(p + digits, "/artifacts?", 11) == 0))
			return cfg->max_artifacts_size;
	}
	return cfg->max_body;
}

/* POST /api/v4/projects/import: its body may be as large as max_import_size (MB, 0: up to
 * nginx's ceiling for that location, IMPORT_BODY_CEILING) and the form's other fields. */
#define IMPORT_BODY_CEILING (1LL << 30)
static bool import_route(const char *method, const char *uri)
{
	static const char path[] = "/api/v4/projects/import";
	return method && uri && strcmp(method, "POST") == 0 &&
	       strncmp(uri, path, sizeof(path) - 1) == 0 &&
	       (uri[sizeof(path) - 1] == '\0' || uri[sizeof(path) - 1] == '?');
}

static long long import_body_limit(ctx *c)
{
	long long mb = settings_max_import_size(c);
	return mb > 0 && mb < (IMPORT_BODY_CEILING >> 20) ? (mb << 20) + (64 << 10)
							   : IMPORT_BODY_CEILING;
}

static const char *fcgi_header(void *hctx, const char *name)
{
	return FCGX_GetParam(name, ((FCGX_Request *)hctx)->envp);
}

/* Answers the request of fr into r: true when its body (if any) has been read whole. */
static bool handle(FCGX_Request *fr, request *r)
{
	const char *method = FCGX_GetParam("REQUEST_METHOD", fr->envp);
	const char *uri = FCGX_GetParam("REQUEST_URI", fr->envp);
	const char *ctype = FCGX_GetParam("CONTENT_TYPE", fr->envp);
	const char *clen = FCGX_GetParam("CONTENT_LENGTH", fr->envp);
	r->header_fn = fcgi_header;
	r->header_ctx = fr;
	const char *rid = FCGX_GetParam("REQUEST_ID", fr->envp);
	static unsigned long counter;
	r->request_id = rid ? rid : arena_printf(r->ctx.a, "%d-%lu", (int)getpid(), ++counter);
	log_set_request_id(r->request_id);
	if (!method || !uri) {
		respond_error(r, fail(r, ERR_BAD_REQUEST, "incomplete request"));
		return false;
	}
	long long len = clen && *clen ? strtoll(clen, NULL, 10) : 0;
	long long limit = import_route(method, uri) ? import_body_limit(&r->ctx)
						    : body_limit(r->ctx.cfg, method, uri);
	if (len < 0 || len > limit) {
		respond_error(r, ERR_TOO_LARGE);
		return false;
	}
	char *body = NULL;
	if (len > 0) {
		/* not zeroed: up to max_body, all of it written by the read */
		body = arena_alloc_uninit(r->ctx.a, (size_t)len + 1);
		int got = FCGX_GetStr(body, (int)len, fr->in);
		if (got != len) {
			respond_error(r, fail(r, ERR_BAD_REQUEST, "incomplete body"));
			return false;
		}
		body[len] = '\0';
	}
	int rc = request_parse(r, method, uri, ctype, body, (size_t)len);
	if (rc < 0)
		respond_error(r, rc);
	else
		worker_dispatch(r);
	return true;
}

/* Waits for a connection or a stop signal. Each worker has its own epoll set holding
 * the shared listening socket with EPOLLEXCLUSIVE (a connection wakes one worker, not
 * all of them) and a signalfd for SIGTERM/SIGINT, which stay blocked otherwise: a
 * stopping worker finishes the request it has and takes no other. Returns 1 when a
 * connection may be accepted, 0 when the worker must stop. */
static int wait_for_work(int ep, int sfd)
{
	for (;;) {
		struct epoll_event ev[2];
		int n = epoll_wait(ep, ev, 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_error("epoll_wait: %s", strerror(errno));
			return 0;
		}
		bool ready = false;
		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == sfd)
				return 0;
			ready = true;
		}
		if (ready)
			return 1;
	}
}

int worker_run(const config *cfg, int listen_fd, const unsigned char key[32], cache *rc, cache *ac,
	       int turns)
{
	write_turns = turns;
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	/* A request's memory (PGresults, JSON, arena blocks) goes back to malloc at its end;
	 * glibc's defaults would hand the top of the heap back to the kernel (brk) and unmap
	 * large blocks after nearly every request, and fault the pages in again on the next:
	 * keep up to what a few large responses take. */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 8 << 20);
	int sfd = entry_stop_signals();
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event lev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.fd = listen_fd};
	struct epoll_event sev = {.events = EPOLLIN, .data.fd = sfd};
	if (sfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, listen_fd, &lev) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &sev) < 0) {
		log_error("worker setup: %s", strerror(errno));
		return 1;
	}

	db d;
	if (db_open(&d, cfg->database_url, statements) < 0)
		log_warn(
			"worker starts without a database connection; requests get 503 until it is back");
	db_pool pool;
	if (db_pool_open(&pool, &d, cfg, statements) < 0)
		log_warn("database_replicas: reads go to the primary");
	FCGX_Init();
	router_index(route_tables);
	FCGX_Request fr;
	FCGX_InitRequest(&fr, listen_fd, 0);
	arena *a = arena_new();
	while (wait_for_work(ep, sfd)) {
		if (FCGX_Accept_r(&fr) < 0)
			continue; /* another worker took it (EAGAIN) */
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		metrics_busy(true);
		request r;
		request_init(&r, a, cfg);
		ctx_init(&r.ctx, a, cfg, &d, key);
		r.ctx.pool = pool.n > 0 ? &pool : NULL;
		r.cache = rc;
		r.auth_cache = ac;
		bool read_whole = handle(&fr, &r);
		write_response(&fr, &r);
		finish(&fr, read_whole);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		metrics_request(router_position(r.route), r.status,
				(double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		metrics_busy(false);
		log_set_request_id(NULL);
		arena_reset(a);
	}
	arena_destroy(a);
	db_pool_close(&pool);
	db_close(&d);
	close(ep);
	close(sfd);
	return 0;
}
