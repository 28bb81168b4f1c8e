#include "worker.h"

#include <errno.h>
#include <fcgiapp.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "auth/auth.h"
#include "auth/scope.h"
#include "core/log.h"
#include "http/cache.h"
#include "http/router.h"
#include "modules.h"

static scope_lock route_lock(unsigned flags)
{
	return !(flags & ROUTE_TX)	   ? SCOPE_READ
	       : flags & ROUTE_KEY_SHARE ? SCOPE_KEY_SHARE
					 : SCOPE_UPDATE;
}

/* The parameter checks of the route (400 before the scope's 404). */
static int check_params(request *r)
{
	if (!r->route->check)
		return 0;
	int rc = r->route->check(r);
	if (rc == 0)
		r->validation = NULL;
	return rc;
}

/* The project or group of a scoped route, found and visible (locked in a writing
 * route's transaction: FOR UPDATE, or FOR KEY SHARE for ROUTE_KEY_SHARE), after the
 * parameter checks. A project's route with a token finds the caller and the project in
 * one statement (auth_authenticate_project): authentication's answer first, then the
 * checks', then the scope's. */
static int resolve_scope(request *r, unsigned flags)
{
	if (auth_with_project(r, flags)) {
		/* the checks first, as they may name the statement the handler will run
		 * (r->prefetch, api_query), to send with the project's; their answer after
		 * authentication's */
		r->prefetch = (db_call){0};
		int check = check_params(r);
		if (check < 0 || (flags & ROUTE_TX))
			r->prefetch = (db_call){0};
		PGresult *res;
		int rc = auth_authenticate_project(r, flags, route_lock(flags), &res);
		if (rc < 0 || (rc = check) < 0)
			return rc;
		r->project = arena_alloc(r->ctx.a, sizeof(*r->project));
		if (!res) {
			r->ctx.err_detail = "Project";
			return ERR_NOT_FOUND;
		}
		return scope_project_row(&r->ctx, res, AUTH_LEAN_NCOLS, r->project);
	}
	int rc = check_params(r);
	if (rc < 0)
		return rc;
	if (flags & ROUTE_PROJECT) {
		r->project = arena_alloc(r->ctx.a, sizeof(*r->project));
		return scope_project(&r->ctx, param_str(r, "id"), route_lock(flags), r->project);
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

int worker_transaction(request *r, handler_fn fn)
{
	ctx *c = &r->ctx;
	int rc = db_begin(c);
	if (rc < 0)
		return rc;
	rc = fn(r);
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

void worker_dispatch_tables(request *r, const route *const *tables)
{
	int rc = 0;
	const route *rt = router_match(tables, r);
	if (!rt) {
		respond_error(r, ERR_NO_ROUTE);
		return;
	}
	r->route = rt;
	if (db_ensure_idle(r->ctx.db) < 0) {
		respond_error(r, ERR_UNAVAILABLE);
		return;
	}
	if (!(rt->flags & ROUTE_NO_AUTH))
		auth_read_credentials(r);
	if (r->cache && (rt->flags & ROUTE_CACHE) && cache_serve(r))
		return;
	if (!(rt->flags & ROUTE_NO_AUTH)) {
		bool deferred = ((rt->flags & ROUTE_SELF_AUTH) && r->token_digest && !r->sudo) ||
				auth_with_project(r, rt->flags);
		if (!deferred)
			rc = auth_authenticate(r, rt->flags);
	}
	if (rc == 0)
		rc = run_handler(r, rt);
	if (r->cache_key && rc < 0)
		db_rollback(&r->ctx); /* the snapshot the cached route ran in */
	rc = cache_finish(r, rc);
	if (db_in_transaction(&r->ctx)) {
		log_error("%s %s left a transaction open: rolled back", r->method, rt->pattern);
		db_rollback(&r->ctx);
		rc = ERR_INTERNAL;
		r->headers.len = 0;
	}
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
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 412: return "Precondition Failed";
	case 413: return "Payload Too Large";
	case 414: return "URI Too Long";
	case 422: return "Unprocessable Entity";
	case 429: return "Too Many Requests";
	case 503: return "Service Unavailable";
	default: return "Internal Server Error";
	}
}

static void write_response(FCGX_Request *fr, request *r)
{
	char head[256];
	bool has_body = r->body && r->status != 204 && r->status != 304;
	int n = snprintf(head, sizeof(head), "Status: %d %s\r\n", r->status, reason(r->status));
	FCGX_PutStr(head, n, fr->out);
	if (has_body) {
		n = snprintf(head, sizeof(head),
			     "Content-Type: %s\r\nContent-Length: %zu\r\n",
			     r->content_type ? r->content_type : "application/json", r->body_len);
		FCGX_PutStr(head, n, fr->out);
	}
	if (r->request_id) {
		n = snprintf(head, sizeof(head), "X-Request-Id: %s\r\n", r->request_id);
		FCGX_PutStr(head, n, fr->out);
	}
	FCGX_PutStr(r->headers.data, (int)r->headers.len, fr->out);
	FCGX_PutStr("\r\n", 2, fr->out);
	if (has_body && !r->head)
		FCGX_PutStr(r->body, (int)r->body_len, fr->out);
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

static const char *fcgi_header(void *hctx, const char *name)
{
	return FCGX_GetParam(name, ((FCGX_Request *)hctx)->envp);
}

static void handle(FCGX_Request *fr, request *r)
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
		return;
	}
	long long len = clen && *clen ? strtoll(clen, NULL, 10) : 0;
	if (len < 0 || len > body_limit(r->ctx.cfg, method, uri)) {
		respond_error(r, ERR_TOO_LARGE);
		return;
	}
	char *body = NULL;
	if (len > 0) {
		body = arena_alloc(r->ctx.a, (size_t)len + 1);
		int got = FCGX_GetStr(body, (int)len, fr->in);
		if (got != len) {
			respond_error(r, fail(r, ERR_BAD_REQUEST, "incomplete body"));
			return;
		}
	}
	int rc = request_parse(r, method, uri, ctype, body, (size_t)len);
	if (rc < 0) {
		respond_error(r, rc);
		return;
	}
	worker_dispatch(r);
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

int worker_run(const config *cfg, int listen_fd, const unsigned char key[32], cache *rc,
	       cache *ac)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	/* A request's memory (PGresults, JSON, arena blocks) goes back to malloc at its end;
	 * glibc's defaults would hand the top of the heap back to the kernel (brk) and unmap
	 * large blocks after nearly every request, and fault the pages in again on the next:
	 * keep up to what a few large responses take. */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 8 << 20);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	int sfd = signalfd(-1, &stop, SFD_CLOEXEC);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event lev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.fd = listen_fd};
	struct epoll_event sev = {.events = EPOLLIN, .data.fd = sfd};
	if (sfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, listen_fd, &lev) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &sev) < 0) {
		log_error("worker setup: %s", strerror(errno));
		return 1;
	}

	db d;
	if (db_connect(&d, cfg->database_url, statements) < 0)
		log_warn("worker starts without a database connection; requests get 503 until it is back");
	FCGX_Init();
	router_index(route_tables);
	FCGX_Request fr;
	FCGX_InitRequest(&fr, listen_fd, 0);
	arena *a = arena_new();
	while (wait_for_work(ep, sfd)) {
		if (FCGX_Accept_r(&fr) < 0)
			continue; /* another worker took it (EAGAIN) */
		request r;
		request_init(&r, a, cfg);
		ctx_init(&r.ctx, a, cfg, &d, key);
		r.cache = rc;
		r.auth_cache = ac;
		handle(&fr, &r);
		write_response(&fr, &r);
		FCGX_Finish_r(&fr);
		log_set_request_id(NULL);
		arena_reset(a);
	}
	arena_destroy(a);
	db_close(&d);
	close(ep);
	close(sfd);
	return 0;
}
