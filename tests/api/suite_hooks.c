/* API suite: webhooks (issue 31 items 1-4). Project hooks (masters) and system hooks
 * (admins): shapes, defaults, validation, 401/403/404, pagination, the token never shown.
 * Delivery, against receivers this suite runs on loopback ports (with
 * allow_local_requests_from_hooks_and_services on): each event once with its header,
 * token and payload; a receiver failing twice gets the event three times; the order per
 * hook; a delivery left by a sender that died is sent; local addresses refused at
 * creation (a literal) and at delivery (a name) with the setting off; no redirect
 * followed. */
#include <dirent.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"

/* ---- a receiver: a small HTTP server on a loopback port, in a thread ---- */

#define RCV_MAX 64

typedef struct {
	char *path;
	char *headers; /* the request's header lines, as sent */
	char *body;
	json_object *json;
} rcv_req;

typedef struct {
	int fd;
	int port;
	pthread_t thread;
	pthread_mutex_t lock;
	bool stop;
	int statuses[RCV_MAX]; /* the answer to request i (0: 200; -1: none, the connection
				* held open, its peer's port in hung_port) */
	int hung_fd;
	int hung_port;
	const char *location; /* sent with 3xx answers */
	rcv_req reqs[RCV_MAX];
	int n;
} receiver;

/* The value of header name in h (raw lines), malloc'd, or NULL. */
static char *header_of(const char *h, const char *name)
{
	size_t n = strlen(name);
	for (const char *l = h; l && *l;) {
		const char *e = strstr(l, "\r\n");
		if (!e)
			break;
		if ((size_t)(e - l) > n && strncasecmp(l, name, n) == 0 && l[n] == ':') {
			const char *v = l + n + 1;
			while (*v == ' ')
				v++;
			return strndup(v, (size_t)(e - v));
		}
		l = e + 2;
	}
	return NULL;
}

/* The size of the request in buf so far when it is complete (headers and the body
 * Content-Length announces), else 0; *end: where its headers end. */
static size_t complete(const char *buf, size_t len, char **end)
{
	*end = strstr(buf, "\r\n\r\n");
	if (!*end)
		return 0;
	const char *first = strstr(buf, "\r\n");
	char *cl = header_of(first + 2, "Content-Length");
	size_t want = (size_t)(*end + 4 - buf) + (cl ? strtoul(cl, NULL, 10) : 0);
	free(cl);
	return len >= want ? want : 0;
}

static void serve_one(receiver *rv, int cfd)
{
	enum { CAP = 1 << 20 };
	char *buf = malloc(CAP), *end = NULL;
	size_t len = 0;
	buf[0] = '\0';
	while (len < CAP - 1 && !complete(buf, len, &end)) {
		struct pollfd p = {.fd = cfd, .events = POLLIN};
		if (poll(&p, 1, 5000) <= 0)
			break;
		ssize_t k = read(cfd, buf + len, CAP - 1 - len);
		if (k <= 0)
			break;
		len += (size_t)k;
		buf[len] = '\0';
	}
	int status = 200;
	bool hang = false;
	if (complete(buf, len, &end)) {
		pthread_mutex_lock(&rv->lock);
		if (rv->n < RCV_MAX) {
			rcv_req *q = &rv->reqs[rv->n];
			char *sp1 = strchr(buf, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
			q->path = sp1 && sp2 ? strndup(sp1 + 1, (size_t)(sp2 - sp1 - 1))
					     : strdup("");
			char *first = strstr(buf, "\r\n") + 2;
			q->headers = strndup(first, (size_t)(end + 2 - first));
			q->body = strdup(end + 4);
			q->json = json_tokener_parse(q->body);
			if (rv->statuses[rv->n])
				status = rv->statuses[rv->n];
			if (status < 0) {
				struct sockaddr_in peer;
				socklen_t pl = sizeof(peer);
				getpeername(cfd, (struct sockaddr *)&peer, &pl);
				rv->hung_fd = cfd;
				rv->hung_port = ntohs(peer.sin_port);
				hang = true;
			}
			rv->n++;
		}
		pthread_mutex_unlock(&rv->lock);
	}
	if (hang) {
		free(buf);
		return;
	}
	bool redirect = status / 100 == 3 && rv->location;
	char *answer = fmt("HTTP/1.1 %d X\r\nContent-Length: 0\r\nConnection: close\r\n%s%s%s\r\n",
			   status, redirect ? "Location: " : "", redirect ? rv->location : "",
			   redirect ? "\r\n" : "");
	ssize_t w = write(cfd, answer, strlen(answer));
	(void)w;
	free(answer);
	free(buf);
	close(cfd);
}

static void *rcv_loop(void *arg)
{
	receiver *rv = arg;
	for (;;) {
		pthread_mutex_lock(&rv->lock);
		bool stop = rv->stop;
		pthread_mutex_unlock(&rv->lock);
		if (stop)
			break;
		struct pollfd p = {.fd = rv->fd, .events = POLLIN};
		if (poll(&p, 1, 100) <= 0)
			continue;
		int cfd = accept(rv->fd, NULL, NULL);
		if (cfd >= 0)
			serve_one(rv, cfd);
	}
	return NULL;
}

/* A receiver answering statuses[i] to its request i (then 200). */
static receiver *rcv_start(const int *statuses, int n)
{
	receiver *rv = calloc(1, sizeof(*rv));
	for (int i = 0; i < n && i < RCV_MAX; i++)
		rv->statuses[i] = statuses[i];
	rv->fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert(rv->fd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	ck_assert(bind(rv->fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	ck_assert(listen(rv->fd, 16) == 0);
	socklen_t l = sizeof(a);
	getsockname(rv->fd, (struct sockaddr *)&a, &l);
	rv->port = ntohs(a.sin_port);
	pthread_mutex_init(&rv->lock, NULL);
	ck_assert(pthread_create(&rv->thread, NULL, rcv_loop, rv) == 0);
	return rv;
}

static int rcv_count(receiver *rv)
{
	pthread_mutex_lock(&rv->lock);
	int n = rv->n;
	pthread_mutex_unlock(&rv->lock);
	return n;
}

/* Waits at most seconds for rv to have n requests: true when it has. */
static bool rcv_wait(receiver *rv, int n, int seconds)
{
	for (int i = 0; i < seconds * 10; i++) {
		if (rcv_count(rv) >= n)
			return true;
		usleep(100000);
	}
	return rcv_count(rv) >= n;
}

static void rcv_stop(receiver *rv)
{
	pthread_mutex_lock(&rv->lock);
	rv->stop = true;
	pthread_mutex_unlock(&rv->lock);
	pthread_join(rv->thread, NULL);
	close(rv->fd);
	if (rv->hung_fd > 0)
		close(rv->hung_fd);
	for (int i = 0; i < rv->n; i++) {
		free(rv->reqs[i].path);
		free(rv->reqs[i].headers);
		free(rv->reqs[i].body);
		json_object_put(rv->reqs[i].json);
	}
	free(rv);
}

static char *rcv_url(receiver *rv, const char *host, const char *path)
{
	return fmt("http://%s:%d%s", host, rv->port, path);
}

/* ---- fixtures ---- */

static void allow_local(bool on)
{
	resp *r = R(api("PUT", "/application/settings", admin_token(),
			on ? "allow_local_requests_from_hooks_and_services=true"
			   : "allow_local_requests_from_hooks_and_services=false"));
	ck_status(r, 200);
	ck_assert(jbool(r->json, "allow_local_requests_from_hooks_and_services") == on);
}

typedef struct {
	long long id;
	char *token; /* its owner's */
	char *path;  /* full path */
} proj;

static void project(proj *p)
{
	p->token = S(make_user("hk", NULL, NULL));
	p->id = api_project(p->token, "private", &p->path);
	S(p->path);
}

/* A commit on branch through the API (a push job follows): its id. */
static const char *commit(const proj *p, const char *branch, const char *file)
{
	resp *r = R(api("POST", S(fmt("/projects/%lld/repository/files/%s", p->id, S(enc(file)))),
			p->token,
			S(fmt("branch=%s&commit_message=%s&content=hello", branch,
			      S(enc(S(fmt("add %s", file))))))));
	ck_status(r, 201);
	r = R(api("GET", S(fmt("/projects/%lld/repository/branches/%s", p->id, branch)), p->token,
		  NULL));
	ck_status(r, 200);
	return jstr(jget(r->json, "commit"), "id");
}

static long long add_hook(const proj *p, const char *form)
{
	resp *r = R(api("POST", S(fmt("/projects/%lld/hooks", p->id)), p->token, form));
	ck_status(r, 201);
	return jint(r->json, "id");
}

static const char *const project_hook_fields[] = {"id",
						  "url",
						  "created_at",
						  "push_events",
						  "tag_push_events",
						  "merge_requests_events",
						  "repository_update_events",
						  "enable_ssl_verification",
						  "project_id",
						  "issues_events",
						  "confidential_issues_events",
						  "note_events",
						  "pipeline_events",
						  "wiki_page_events",
						  "job_events",
						  NULL};
static const char *const system_hook_fields[] = {"id",
						 "url",
						 "created_at",
						 "push_events",
						 "tag_push_events",
						 "merge_requests_events",
						 "repository_update_events",
						 "enable_ssl_verification",
						 NULL};

/* ---- project hooks: the API ---- */

START_TEST(test_hooks_project_crud)
{
	proj p;
	project(&p);
	const char *hooks = S(fmt("/projects/%lld/hooks", p.id));
	resp *r = R(api("POST", hooks, p.token,
			"url=http://example.com/hook&token=s3cret-token&issues_events=true"));
	ck_status(r, 201);
	ck_fields(r->json, project_hook_fields);
	ck_assert(!strstr(r->body, "s3cret-token"));
	ck_jstr(r, "url", "http://example.com/hook");
	ck_assert_int_eq(jint(r->json, "project_id"), p.id);
	/* 10.8's defaults: push events and TLS verification on, the rest off */
	ck_assert(jbool(r->json, "push_events") && jbool(r->json, "enable_ssl_verification"));
	ck_assert(jbool(r->json, "issues_events"));
	ck_assert(!jbool(r->json, "tag_push_events") && !jbool(r->json, "note_events") &&
		  !jbool(r->json, "job_events") && !jbool(r->json, "pipeline_events") &&
		  !jbool(r->json, "wiki_page_events") && !jbool(r->json, "merge_requests_events") &&
		  !jbool(r->json, "confidential_issues_events"));
	long long id = jint(r->json, "id");
	/* kept sealed, not as sent */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM web_hooks WHERE id = %lld AND token_sealed"
				 " IS NOT NULL AND strpos(token_sealed, 's3cret-token') = 0",
				 id),
			 1);
	r = R(api("GET", S(fmt("%s/%lld", hooks, id)), p.token, NULL));
	ck_status(r, 200);
	ck_fields(r->json, project_hook_fields);
	ck_assert(!strstr(r->body, "s3cret"));
	r = R(api("PUT", S(fmt("%s/%lld", hooks, id)), p.token,
		  "url=https://example.org/h2&push_events=false&job_events=true"
		  "&enable_ssl_verification=false"));
	ck_status(r, 200);
	ck_jstr(r, "url", "https://example.org/h2");
	ck_assert(!jbool(r->json, "push_events") && jbool(r->json, "job_events") &&
		  !jbool(r->json, "enable_ssl_verification") && jbool(r->json, "issues_events"));
	/* the token kept when none is given */
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM web_hooks WHERE id = %lld AND token_sealed IS NOT NULL",
			id),
		1);
	/* PUT requires url, as 10.8's project_hook_properties */
	r = R(api("PUT", S(fmt("%s/%lld", hooks, id)), p.token, "push_events=true"));
	ck_status(r, 400);
	/* pagination */
	add_hook(&p, "url=http://example.com/2");
	add_hook(&p, "url=http://example.com/3");
	r = R(api("GET", S(fmt("%s?per_page=2&page=2", hooks)), p.token, NULL));
	ck_status(r, 200);
	ck_pages(r, hooks, "", 3, 2, 2);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
}
END_TEST

START_TEST(test_hooks_project_delete)
{
	proj p;
	project(&p);
	long long id = add_hook(&p, "url=http://example.com/hook");
	const char *one = S(fmt("/projects/%lld/hooks/%lld", p.id, id));
	resp *r = R(api("DELETE", one, p.token, NULL));
	ck_status(r, 204);
	r = R(api("GET", one, p.token, NULL));
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	r = R(api("DELETE", one, p.token, NULL));
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	r = R(api("PUT", one, p.token, "url=http://example.com/x"));
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
}
END_TEST

START_TEST(test_hooks_project_access)
{
	proj p, other;
	project(&p);
	project(&other);
	long long id = add_hook(&p, "url=http://example.com/hook");
	const char *hooks = S(fmt("/projects/%lld/hooks", p.id));
	const char *one = S(fmt("%s/%lld", hooks, id));
	resp *r = R(api("GET", hooks, NULL, NULL));
	ck_status(r, 401);
	/* a developer may not; a stranger does not see the private project */
	long long dev_id;
	char *dev = S(make_user("hkd", &dev_id, NULL));
	fixture_member("Project", p.id, dev_id, 30);
	r = R(api("GET", hooks, dev, NULL));
	ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
	r = R(api("POST", hooks, dev, "url=http://example.com/x"));
	ck_status(r, 403);
	r = R(api("DELETE", one, dev, NULL));
	ck_status(r, 403);
	r = R(api("GET", hooks, other.token, NULL));
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	/* a master may; an admin too */
	long long master_id;
	char *master = S(make_user("hkm", &master_id, NULL));
	fixture_member("Project", p.id, master_id, 40);
	r = R(api("GET", one, master, NULL));
	ck_status(r, 200);
	r = R(api("GET", hooks, admin_token(), NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	/* another project's hook is not found through this one */
	r = R(api("GET", S(fmt("/projects/%lld/hooks/%lld", other.id, id)), other.token, NULL));
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	r = R(api("GET", S(fmt("%s/abc", hooks)), p.token, NULL));
	ck_status(r, 400);
}
END_TEST

START_TEST(test_hooks_project_validation)
{
	proj p;
	project(&p);
	const char *hooks = S(fmt("/projects/%lld/hooks", p.id));
	resp *r = R(api("POST", hooks, p.token, "push_events=true"));
	ck_status(r, 400);
	static const char *const bad[] = {"ftp://example.com/x",
					  "example.com/hook",
					  "http://",
					  "http:///x",
					  "http://exa mple.com/",
					  "javascript:alert(1)",
					  "http://example.com:99999/",
					  NULL};
	for (int i = 0; bad[i]; i++) {
		r = R(api("POST", hooks, p.token, S(fmt("url=%s", S(enc(bad[i]))))));
		ck_assert_msg(r->status == 422, "%s: %ld %s", bad[i], r->status, r->body);
		ck_jstr(r, "message", "Invalid url given");
	}
	char *long_url = S(malloc(2100));
	strcpy(long_url, "http://example.com/");
	memset(long_url + 19, 'a', 2000);
	long_url[2019] = '\0';
	r = R(api("POST", hooks, p.token, S(fmt("url=%s", long_url))));
	ck_status(r, 422);
	r = R(api("POST", hooks, p.token, "url=http://example.com/&push_events=maybe"));
	ck_status(r, 400);
	r = R(api("POST", hooks, p.token, "url=http://example.com/&token=a%0Ab"));
	ck_status(r, 404);
	r = R(api("POST", hooks, p.token, "url=http://example.com/&token=a%0DX-Evil:%201"));
	ck_status(r, 404);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM web_hooks WHERE project_id = %lld", p.id),
			 0);
}
END_TEST

/* ---- system hooks: the API ---- */

START_TEST(test_hooks_system_crud)
{
	long long uid;
	char *user = S(make_user("hks", &uid, NULL));
	resp *r = R(api("GET", "/hooks", NULL, NULL));
	ck_status(r, 401);
	r = R(api("GET", "/hooks", user, NULL));
	ck_status(r, 403);
	r = R(api("POST", "/hooks", user, "url=http://example.com/x"));
	ck_status(r, 403);
	r = R(api("POST", "/hooks", admin_token(), "token=t0ken-sys"));
	ck_status(r, 400);
	r = R(api("POST", "/hooks", admin_token(), "url=gopher://example.com/"));
	ck_status(r, 400);
	ck_assert(jget(jget(r->json, "message"), "url") != NULL);
	r = R(api("POST", "/hooks", admin_token(),
		  "url=http://example.com/sys&token=t0ken-sys&tag_push_events=true"
		  "&enable_ssl_verification=false"));
	ck_status(r, 201);
	ck_fields(r->json, system_hook_fields);
	ck_assert(!strstr(r->body, "t0ken-sys"));
	ck_assert(jbool(r->json, "push_events") && jbool(r->json, "tag_push_events") &&
		  !jbool(r->json, "enable_ssl_verification"));
	long long id = jint(r->json, "id");
	r = R(api("GET", "/hooks?per_page=100", admin_token(), NULL));
	ck_status(r, 200);
	bool found = false;
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *h = json_object_array_get_idx(r->json, i);
		ck_fields(h, system_hook_fields);
		found = found || jint(h, "id") == id;
	}
	ck_assert(found);
	ck_assert(!strstr(r->body, "t0ken-sys"));
	long long total = sql_int("SELECT count(*) FROM web_hooks WHERE project_id IS NULL");
	r = R(api("GET", "/hooks?per_page=1", admin_token(), NULL));
	ck_pages(r, "/hooks", "", total, 1, 1);
	r = R(api("DELETE", S(fmt("/hooks/%lld", id)), user, NULL));
	ck_status(r, 403);
	r = R(api("DELETE", S(fmt("/hooks/%lld", id)), admin_token(), NULL));
	ck_status(r, 204);
	r = R(api("DELETE", S(fmt("/hooks/%lld", id)), admin_token(), NULL));
	ck_body(r, 404, "{\"message\":\"404 System hook Not Found\"}");
	r = R(api("GET", S(fmt("/hooks/%lld", id)), admin_token(), NULL));
	ck_body(r, 404, "{\"message\":\"404 System hook Not Found\"}");
	r = R(api("GET", "/hooks/x1", admin_token(), NULL));
	ck_status(r, 400);
	/* a project hook is not a system hook */
	proj p;
	project(&p);
	long long ph = add_hook(&p, "url=http://example.com/p");
	r = R(api("GET", S(fmt("/hooks/%lld", ph)), admin_token(), NULL));
	ck_status(r, 404);
}
END_TEST

/* GET /hooks/:id: the sample event, answered and delivered with "System Hook" */
START_TEST(test_hooks_system_test_event)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0);
	resp *r = R(api("POST", "/hooks", admin_token(),
			S(fmt("url=%s&token=sys-tok", S(rcv_url(rv, "127.0.0.1", "/sys"))))));
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	r = R(api("GET", S(fmt("/hooks/%lld", id)), admin_token(), NULL));
	ck_body(r, 200,
		"{\"event_name\":\"project_create\",\"name\":\"Ruby\",\"path\":\"ruby\","
		"\"project_id\":1,\"owner_name\":\"Someone\",\"owner_email\":\"example@gitlabhq.com\"}");
	ck_assert_msg(rcv_wait(rv, 1, 20), "the test event was not delivered");
	rcv_req *q = &rv->reqs[0];
	ck_assert_str_eq(q->path, "/sys");
	ck_assert_str_eq(S(header_of(q->headers, "X-Gitlab-Event")), "System Hook");
	ck_assert_str_eq(S(header_of(q->headers, "X-Gitlab-Token")), "sys-tok");
	ck_assert_str_eq(S(header_of(q->headers, "Content-Type")), "application/json");
	ck_assert_str_eq(jstr(q->json, "event_name"), "project_create");
	R(api("DELETE", S(fmt("/hooks/%lld", id)), admin_token(), NULL));
	rcv_stop(rv);
}
END_TEST

/* ---- delivery ---- */

START_TEST(test_hooks_push_delivered)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0), *other = rcv_start(NULL, 0);
	proj p;
	project(&p);
	add_hook(&p, S(fmt("url=%s&token=tok-push", S(rcv_url(rv, "127.0.0.1", "/push")))));
	/* a hook without push events gets nothing */
	add_hook(&p, S(fmt("url=%s&push_events=false&tag_push_events=true",
			   S(rcv_url(other, "127.0.0.1", "/tags")))));
	const char *sha = S(strdup(commit(&p, "master", "a.txt")));
	ck_assert_msg(rcv_wait(rv, 1, 30), "the push event was not delivered");
	usleep(1500000);
	ck_assert_int_eq(rcv_count(rv), 1);
	rcv_req *q = &rv->reqs[0];
	ck_assert_str_eq(S(header_of(q->headers, "X-Gitlab-Event")), "Push Hook");
	ck_assert_str_eq(S(header_of(q->headers, "X-Gitlab-Token")), "tok-push");
	ck_assert_str_eq(S(header_of(q->headers, "Content-Type")), "application/json");
	json_object *e = q->json;
	ck_assert_msg(e, "not JSON: %s", q->body);
	ck_assert_str_eq(jstr(e, "object_kind"), "push");
	ck_assert_str_eq(jstr(e, "ref"), "refs/heads/master");
	ck_assert_str_eq(jstr(e, "after"), sha);
	ck_assert_str_eq(jstr(e, "checkout_sha"), sha);
	ck_assert_str_eq(jstr(e, "before"), "0000000000000000000000000000000000000000");
	ck_assert_int_eq(jint(e, "project_id"), p.id);
	ck_assert_int_eq(jint(e, "total_commits_count"), 1);
	ck_assert(jhas(e, "user_id") && jhas(e, "user_name") && jhas(e, "user_username") &&
		  jhas(e, "user_email") && jhas(e, "user_avatar"));
	json_object *project = jget(e, "project");
	ck_assert_str_eq(jstr(project, "path_with_namespace"), p.path);
	ck_assert(jhas(project, "web_url") && jhas(project, "git_http_url") &&
		  jhas(project, "git_ssh_url") && jhas(project, "default_branch") &&
		  jhas(project, "visibility_level") && jhas(project, "namespace"));
	json_object *repo = jget(e, "repository");
	ck_assert(jhas(repo, "name") && jhas(repo, "url") && jhas(repo, "homepage"));
	json_object *commits = jget(e, "commits");
	ck_assert_int_eq(json_object_array_length(commits), 1);
	json_object *c0 = json_object_array_get_idx(commits, 0);
	ck_assert_str_eq(jstr(c0, "id"), sha);
	ck_assert_str_eq(jstr(c0, "message"), "add a.txt");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(jget(c0, "added"), 0)),
			 "a.txt");
	ck_assert(jhas(jget(c0, "author"), "email") && jhas(c0, "timestamp") && jhas(c0, "url"));
	/* a second commit: its own event, one commit, "before" the first */
	const char *sha2 = S(strdup(commit(&p, "master", "b.txt")));
	ck_assert(rcv_wait(rv, 2, 30));
	ck_assert_str_eq(jstr(rv->reqs[1].json, "before"), sha);
	ck_assert_str_eq(jstr(rv->reqs[1].json, "after"), sha2);
	ck_assert_int_eq(rcv_count(other), 0);
	rcv_stop(rv);
	rcv_stop(other);
}
END_TEST

START_TEST(test_hooks_tag_push_delivered)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0);
	proj p;
	project(&p);
	const char *sha = S(strdup(commit(&p, "master", "a.txt")));
	add_hook(&p, S(fmt("url=%s&push_events=false&tag_push_events=true",
			   S(rcv_url(rv, "127.0.0.1", "/tags")))));
	resp *r = R(api("POST", S(fmt("/projects/%lld/repository/tags", p.id)), p.token,
			"tag_name=v1.0&ref=master&message=release%20one"));
	ck_status(r, 201);
	ck_assert_msg(rcv_wait(rv, 1, 30), "the tag push event was not delivered");
	rcv_req *q = &rv->reqs[0];
	ck_assert_str_eq(S(header_of(q->headers, "X-Gitlab-Event")), "Tag Push Hook");
	ck_assert(!header_of(q->headers, "X-Gitlab-Token"));
	ck_assert_str_eq(jstr(q->json, "object_kind"), "tag_push");
	ck_assert_str_eq(jstr(q->json, "ref"), "refs/tags/v1.0");
	ck_assert_str_eq(jstr(q->json, "checkout_sha"), sha);
	ck_assert_str_eq(jstr(q->json, "message"), "release one");
	usleep(1000000);
	ck_assert_int_eq(rcv_count(rv), 1);
	rcv_stop(rv);
}
END_TEST

/* system hooks get pushes (their push_events) as "System Hook", besides the project's
 * project_create */
START_TEST(test_hooks_system_push)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0);
	resp *r = R(api("POST", "/hooks", admin_token(),
			S(fmt("url=%s", S(rcv_url(rv, "127.0.0.1", "/sys"))))));
	ck_status(r, 201);
	long long hid = jint(r->json, "id");
	proj p;
	project(&p);
	commit(&p, "master", "a.txt");
	/* other suites' pushes may come too: find this project's */
	bool seen = false;
	for (int i = 0; i < 300 && !seen; i++) {
		pthread_mutex_lock(&rv->lock);
		for (int k = 0; k < rv->n && !seen; k++)
			if (rv->reqs[k].json && jint(rv->reqs[k].json, "project_id") == p.id &&
			    jstr(rv->reqs[k].json, "object_kind")) {
				seen = true;
				ck_assert_str_eq(
					S(header_of(rv->reqs[k].headers, "X-Gitlab-Event")),
					"System Hook");
				ck_assert_str_eq(jstr(rv->reqs[k].json, "event_name"), "push");
				ck_assert_str_eq(jstr(rv->reqs[k].json, "object_kind"), "push");
			}
		pthread_mutex_unlock(&rv->lock);
		if (!seen)
			usleep(100000);
	}
	ck_assert_msg(seen, "the system hook did not get the push");
	R(api("DELETE", S(fmt("/hooks/%lld", hid)), admin_token(), NULL));
	rcv_stop(rv);
}
END_TEST

/* The requests of rv about project id whose event_name is event: their count, the first
 * in *out. */
static int events_of(receiver *rv, long long id, const char *event, rcv_req **out)
{
	int n = 0;
	pthread_mutex_lock(&rv->lock);
	for (int k = 0; k < rv->n; k++) {
		json_object *e = rv->reqs[k].json;
		if (e && jint(e, "project_id") == id && jstr(e, "event_name") &&
		    strcmp(jstr(e, "event_name"), event) == 0 && n++ == 0)
			*out = &rv->reqs[k];
	}
	pthread_mutex_unlock(&rv->lock);
	return n;
}

/* repository_update (10.8's PostReceive) to the system hooks that want it, once a push */
START_TEST(test_hooks_repository_update)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0), *other = rcv_start(NULL, 0);
	resp *r = R(api("POST", "/hooks", admin_token(),
			S(fmt("url=%s&push_events=false&repository_update_events=true",
			      S(rcv_url(rv, "127.0.0.1", "/sys"))))));
	ck_status(r, 201);
	long long hid = jint(r->json, "id");
	r = R(api("POST", "/hooks", admin_token(),
		  S(fmt("url=%s&push_events=false", S(rcv_url(other, "127.0.0.1", "/other"))))));
	ck_status(r, 201);
	long long oid = jint(r->json, "id");
	proj p;
	project(&p);
	const char *sha = S(strdup(commit(&p, "master", "a.txt")));
	rcv_req *q = NULL;
	for (int i = 0; i < 300 && events_of(rv, p.id, "repository_update", &q) == 0; i++)
		usleep(100000);
	ck_assert_msg(q, "the system hook did not get repository_update");
	usleep(1000000);
	ck_assert_int_eq(events_of(rv, p.id, "repository_update", &q), 1);
	ck_assert_str_eq(S(header_of(q->headers, "X-Gitlab-Event")), "System Hook");
	json_object *e = q->json;
	ck_assert(jhas(e, "user_name") && jhas(e, "user_email") && jhas(e, "user_id"));
	ck_assert_str_eq(jstr(jget(e, "project"), "path_with_namespace"), p.path);
	json_object *changes = jget(e, "changes");
	ck_assert_int_eq(json_object_array_length(changes), 1);
	json_object *ch = json_object_array_get_idx(changes, 0);
	ck_assert_str_eq(jstr(ch, "ref"), "refs/heads/master");
	ck_assert_str_eq(jstr(ch, "after"), sha);
	ck_assert(jhas(ch, "before"));
	json_object *refs = jget(e, "refs");
	ck_assert_int_eq(json_object_array_length(refs), 1);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(refs, 0)),
			 "refs/heads/master");
	/* neither a push event to it (push_events off) nor repository_update to the other */
	ck_assert_int_eq(events_of(rv, p.id, "push", &q), 0);
	ck_assert_int_eq(events_of(other, p.id, "repository_update", &q), 0);
	R(api("DELETE", S(fmt("/hooks/%lld", hid)), admin_token(), NULL));
	R(api("DELETE", S(fmt("/hooks/%lld", oid)), admin_token(), NULL));
	rcv_stop(rv);
	rcv_stop(other);
}
END_TEST

/* The system events of the API's writes, in order, each once, with 10.8's fields. */
static bool xmlschema(const char *s)
{
	if (!s || strlen(s) != 20 || s[19] != 'Z' || s[10] != 'T')
		return false;
	return true;
}

/* The payload of the first request of rv past *from whose event_name is event; *from
 * moves past it (the events come in order). */
static json_object *next_event(receiver *rv, int *from, const char *event)
{
	for (int i = *from; i < rcv_count(rv); i++) {
		json_object *e = rv->reqs[i].json;
		if (e && jstr(e, "event_name") && strcmp(jstr(e, "event_name"), event) == 0) {
			ck_assert_str_eq(S(header_of(rv->reqs[i].headers, "X-Gitlab-Event")),
					 "System Hook");
			ck_assert_msg(xmlschema(jstr(e, "created_at")) &&
					      xmlschema(jstr(e, "updated_at")),
				      "times: %s", rv->reqs[i].body);
			*from = i + 1;
			return e;
		}
	}
	ck_abort_msg("no %s event after request %d", event, *from);
	return NULL;
}

/* A new ed25519 public key from ssh-keygen (keys are unique across users). */
static char *new_public_key(void)
{
	char dir[] = "/tmp/hkkey.XXXXXX";
	ck_assert(mkdtemp(dir) != NULL);
	char *cmd = fmt("ssh-keygen -q -t ed25519 -N '' -C ev -f %s/k && cat %s/k.pub; rm -rf %s",
			dir, dir, dir);
	FILE *f = popen(cmd, "r");
	char line[1024] = "";
	ck_assert(f && fgets(line, sizeof(line), f));
	pclose(f);
	free(cmd);
	line[strcspn(line, "\n")] = '\0';
	return strdup(line);
}

START_TEST(test_hooks_system_events)
{
	allow_local(true);
	long long member_id;
	char *member_name;
	char *member = S(make_user("hkmb", &member_id, &member_name));
	S(member_name);
	(void)member;
	receiver *rv = rcv_start(NULL, 0);
	resp *r = R(api("POST", "/hooks", admin_token(),
			S(fmt("url=%s", S(rcv_url(rv, "127.0.0.1", "/events"))))));
	ck_status(r, 201);
	long long hid = jint(r->json, "id");
	/* user_create */
	char *uname = S(unique("hkev"));
	r = R(api("POST", "/users", admin_token(),
		  S(fmt("username=%s&name=Ev%%20User&email=%s@example.com&password=secret123"
			"&skip_confirmation=true",
			uname, uname))));
	ck_status(r, 201);
	long long uid = jint(r->json, "id");
	r = R(api("POST", S(fmt("/users/%lld/impersonation_tokens", uid)), admin_token(),
		  "name=t&scopes[]=api"));
	ck_status(r, 201);
	const char *tok = S(strdup(jstr(r->json, "token")));
	/* key_create */
	r = R(api("POST", "/user/keys", tok,
		  S(fmt("title=k&key=%s", S(enc(S(new_public_key())))))));
	ck_status(r, 201);
	long long kid = jint(r->json, "id");
	/* project_create, project_rename */
	char *pname = S(unique("hkp"));
	r = R(api("POST", "/projects", tok, S(fmt("name=%s", pname))));
	ck_status(r, 201);
	long long pid = jint(r->json, "id");
	char *old_full = S(strdup(jstr(r->json, "path_with_namespace")));
	r = R(api("PUT", S(fmt("/projects/%lld", pid)), tok, S(fmt("path=%s-moved", pname))));
	ck_status(r, 200);
	char *new_full = S(strdup(jstr(r->json, "path_with_namespace")));
	/* user_add_to_team, user_remove_from_team */
	r = R(api("POST", S(fmt("/projects/%lld/members", pid)), tok,
		  S(fmt("user_id=%lld&access_level=40", member_id))));
	ck_status(r, 201);
	r = R(api("DELETE", S(fmt("/projects/%lld/members/%lld", pid, member_id)), tok, NULL));
	ck_status(r, 204);
	/* group_create, user_add_to_group, user_remove_from_group, project_transfer */
	char *gpath = S(unique("hkg"));
	r = R(api("POST", "/groups", admin_token(), S(fmt("name=%s&path=%s", gpath, gpath))));
	ck_status(r, 201);
	long long gid = jint(r->json, "id");
	r = R(api("POST", S(fmt("/groups/%lld/members", gid)), admin_token(),
		  S(fmt("user_id=%lld&access_level=30", member_id))));
	ck_status(r, 201);
	r = R(api("DELETE", S(fmt("/groups/%lld/members/%lld", gid, member_id)), admin_token(),
		  NULL));
	ck_status(r, 204);
	r = R(api("POST", S(fmt("/groups/%lld/projects/%lld", gid, pid)), admin_token(), NULL));
	ck_status(r, 201);
	/* key_destroy, project_destroy, group_destroy, user_destroy */
	r = R(api("DELETE", S(fmt("/user/keys/%lld", kid)), tok, NULL));
	ck_status(r, 204);
	r = R(api("DELETE", S(fmt("/projects/%lld", pid)), admin_token(), NULL));
	ck_status(r, 202);
	r = R(api("DELETE", S(fmt("/groups/%lld", gid)), admin_token(), NULL));
	ck_status(r, 204);
	r = R(api("DELETE", S(fmt("/users/%lld", uid)), admin_token(), NULL));
	ck_status(r, 204);
	ck_assert_msg(rcv_wait(rv, 14, 40), "%d events", rcv_count(rv));
	int at = 0;
	json_object *e = next_event(rv, &at, "user_create");
	ck_assert_str_eq(jstr(e, "username"), uname);
	ck_assert_int_eq(jint(e, "user_id"), uid);
	ck_assert_str_eq(jstr(e, "name"), "Ev User");
	ck_assert_str_eq(jstr(e, "email"), S(fmt("%s@example.com", uname)));
	e = next_event(rv, &at, "key_create");
	ck_assert_int_eq(jint(e, "id"), kid);
	ck_assert_str_eq(jstr(e, "username"), uname);
	ck_assert(strncmp(jstr(e, "key"), "ssh-ed25519 ", 12) == 0);
	e = next_event(rv, &at, "project_create");
	ck_assert_int_eq(jint(e, "project_id"), pid);
	ck_assert_str_eq(jstr(e, "path_with_namespace"), old_full);
	ck_assert_str_eq(jstr(e, "owner_name"), "Ev User");
	ck_assert_str_eq(jstr(e, "owner_email"), S(fmt("%s@example.com", uname)));
	ck_assert_str_eq(jstr(e, "project_visibility"), "private");
	e = next_event(rv, &at, "project_rename");
	ck_assert_str_eq(jstr(e, "path_with_namespace"), new_full);
	ck_assert_str_eq(jstr(e, "old_path_with_namespace"), old_full);
	e = next_event(rv, &at, "user_add_to_team");
	ck_assert_int_eq(jint(e, "user_id"), member_id);
	ck_assert_int_eq(jint(e, "project_id"), pid);
	ck_assert_str_eq(jstr(e, "access_level"), "Master");
	ck_assert_str_eq(jstr(e, "project_path_with_namespace"), new_full);
	e = next_event(rv, &at, "user_remove_from_team");
	ck_assert_int_eq(jint(e, "user_id"), member_id);
	e = next_event(rv, &at, "group_create");
	ck_assert_int_eq(jint(e, "group_id"), gid);
	ck_assert_str_eq(jstr(e, "path"), gpath);
	e = next_event(rv, &at, "user_add_to_group");
	ck_assert_int_eq(jint(e, "group_id"), gid);
	ck_assert_str_eq(jstr(e, "group_access"), "Developer");
	ck_assert_str_eq(jstr(e, "user_username"), member_name);
	next_event(rv, &at, "user_remove_from_group");
	e = next_event(rv, &at, "project_transfer");
	ck_assert_str_eq(jstr(e, "old_path_with_namespace"), new_full);
	ck_assert_str_eq(jstr(e, "path_with_namespace"), S(fmt("%s/%s-moved", gpath, pname)));
	e = next_event(rv, &at, "key_destroy");
	ck_assert_int_eq(jint(e, "id"), kid);
	e = next_event(rv, &at, "project_destroy");
	ck_assert_int_eq(jint(e, "project_id"), pid);
	e = next_event(rv, &at, "group_destroy");
	ck_assert_int_eq(jint(e, "group_id"), gid);
	e = next_event(rv, &at, "user_destroy");
	ck_assert_int_eq(jint(e, "user_id"), uid);
	/* a write that fails queues nothing: a key of nobody */
	int before = rcv_count(rv);
	r = R(api("DELETE", S(fmt("/users/%lld/keys/%lld", member_id, kid)), admin_token(), NULL));
	ck_status(r, 404);
	usleep(1500000);
	ck_assert_int_eq(rcv_count(rv), before);
	R(api("DELETE", S(fmt("/hooks/%lld", hid)), admin_token(), NULL));
	rcv_stop(rv);
}
END_TEST

START_TEST(test_hooks_wiki_page)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0), *other = rcv_start(NULL, 0);
	proj p;
	project(&p);
	add_hook(&p, S(fmt("url=%s&push_events=false&wiki_page_events=true&token=wk",
			   S(rcv_url(rv, "127.0.0.1", "/wiki")))));
	add_hook(&p, S(fmt("url=%s", S(rcv_url(other, "127.0.0.1", "/push-only")))));
	const char *wikis = S(fmt("/projects/%lld/wikis", p.id));
	resp *r = R(api("POST", wikis, p.token, "title=Hook%20Page&content=first%20text"));
	ck_status(r, 201);
	r = R(api("PUT", S(fmt("%s/Hook-Page", wikis)), p.token, "content=second%20text"));
	ck_status(r, 200);
	r = R(api("DELETE", S(fmt("%s/Hook-Page", wikis)), p.token, NULL));
	ck_status(r, 204);
	ck_assert_msg(rcv_wait(rv, 3, 30), "%d wiki events", rcv_count(rv));
	static const char *const actions[] = {"create", "update", "delete"};
	for (int i = 0; i < 3; i++) {
		rcv_req *q = &rv->reqs[i];
		ck_assert_str_eq(S(header_of(q->headers, "X-Gitlab-Event")), "Wiki Page Hook");
		ck_assert_str_eq(S(header_of(q->headers, "X-Gitlab-Token")), "wk");
		ck_assert_str_eq(jstr(q->json, "object_kind"), "wiki_page");
		json_object *a = jget(q->json, "object_attributes");
		ck_assert_str_eq(jstr(a, "action"), actions[i]);
		ck_assert_str_eq(jstr(a, "slug"), "Hook-Page");
		ck_assert_str_eq(jstr(a, "title"), "Hook Page");
		ck_assert_str_eq(jstr(a, "format"), "markdown");
		ck_assert(jhas(a, "url") && jhas(a, "message"));
		ck_assert_str_eq(jstr(jget(q->json, "project"), "path_with_namespace"), p.path);
		ck_assert_str_eq(jstr(jget(q->json, "wiki"), "path_with_namespace"),
				 S(fmt("%s.wiki", p.path)));
		ck_assert(jhas(jget(q->json, "user"), "username"));
	}
	ck_assert_str_eq(jstr(jget(rv->reqs[0].json, "object_attributes"), "content"),
			 "first text");
	ck_assert_str_eq(jstr(jget(rv->reqs[1].json, "object_attributes"), "content"),
			 "second text");
	usleep(1000000);
	ck_assert_int_eq(rcv_count(other), 0);
	rcv_stop(rv);
	rcv_stop(other);
}
END_TEST

START_TEST(test_hooks_issue)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0), *conf = rcv_start(NULL, 0);
	proj p;
	project(&p);
	add_hook(&p, S(fmt("url=%s&push_events=false&issues_events=true",
			   S(rcv_url(rv, "127.0.0.1", "/issues")))));
	add_hook(&p, S(fmt("url=%s&push_events=false&confidential_issues_events=true",
			   S(rcv_url(conf, "127.0.0.1", "/confidential")))));
	const char *issues = S(fmt("/projects/%lld/issues", p.id));
	resp *r = R(api("POST", issues, p.token, "title=Hooked&description=d&labels=bug"));
	ck_status(r, 201);
	long long iid = jint(r->json, "iid"), id = jint(r->json, "id");
	const char *one = S(fmt("%s/%lld", issues, iid));
	r = R(api("PUT", one, p.token, "title=Hooked%20again"));
	ck_status(r, 200);
	r = R(api("PUT", one, p.token, "state_event=close"));
	ck_status(r, 200);
	r = R(api("PUT", one, p.token, "state_event=reopen"));
	ck_status(r, 200);
	ck_assert_msg(rcv_wait(rv, 4, 30), "%d issue events", rcv_count(rv));
	static const char *const actions[] = {"open", "update", "close", "reopen"};
	static const char *const states[] = {"opened", "opened", "closed", "opened"};
	for (int i = 0; i < 4; i++) {
		rcv_req *q = &rv->reqs[i];
		ck_assert_str_eq(S(header_of(q->headers, "X-Gitlab-Event")), "Issue Hook");
		ck_assert_str_eq(jstr(q->json, "object_kind"), "issue");
		json_object *a = jget(q->json, "object_attributes");
		ck_assert_str_eq(jstr(a, "action"), actions[i]);
		ck_assert_str_eq(jstr(a, "state"), states[i]);
		ck_assert_int_eq(jint(a, "iid"), iid);
		ck_assert_int_eq(jint(a, "id"), id);
		ck_assert_int_eq(jint(a, "project_id"), p.id);
		ck_assert(jhas(a, "url") && jhas(a, "author_id") && jhas(a, "assignee_ids"));
		ck_assert_str_eq(jstr(jget(q->json, "project"), "path_with_namespace"), p.path);
		ck_assert(jhas(jget(q->json, "user"), "username"));
		json_object *labels = jget(q->json, "labels");
		ck_assert_int_eq(json_object_array_length(labels), 1);
		ck_assert_str_eq(jstr(json_object_array_get_idx(labels, 0), "title"), "bug");
	}
	ck_assert_str_eq(jstr(jget(rv->reqs[0].json, "object_attributes"), "title"), "Hooked");
	ck_assert_str_eq(jstr(jget(rv->reqs[1].json, "object_attributes"), "title"),
			 "Hooked again");
	ck_assert_int_eq(rcv_count(conf), 0);
	/* a confidential issue: the other hook only */
	r = R(api("POST", issues, p.token, "title=Secret&confidential=true"));
	ck_status(r, 201);
	ck_assert_msg(rcv_wait(conf, 1, 30), "the confidential issue was not sent");
	ck_assert_str_eq(S(header_of(conf->reqs[0].headers, "X-Gitlab-Event")), "Issue Hook");
	ck_assert(jbool(jget(conf->reqs[0].json, "object_attributes"), "confidential"));
	usleep(1000000);
	ck_assert_int_eq(rcv_count(rv), 4);
	rcv_stop(rv);
	rcv_stop(conf);
}
END_TEST

START_TEST(test_hooks_note)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0);
	proj p;
	project(&p);
	add_hook(&p, S(fmt("url=%s&push_events=false&note_events=true",
			   S(rcv_url(rv, "127.0.0.1", "/notes")))));
	const char *issues = S(fmt("/projects/%lld/issues", p.id));
	resp *r = R(api("POST", issues, p.token, "title=Commented"));
	ck_status(r, 201);
	long long iid = jint(r->json, "iid"), issue_id = jint(r->json, "id");
	r = R(api("POST", S(fmt("%s/%lld/notes", issues, iid)), p.token, "body=first%20comment"));
	ck_status(r, 201);
	long long note_id = jint(r->json, "id");
	ck_assert_msg(rcv_wait(rv, 1, 30), "the note event was not sent");
	rcv_req *q = &rv->reqs[0];
	ck_assert_str_eq(S(header_of(q->headers, "X-Gitlab-Event")), "Note Hook");
	ck_assert_str_eq(jstr(q->json, "object_kind"), "note");
	ck_assert_int_eq(jint(q->json, "project_id"), p.id);
	json_object *a = jget(q->json, "object_attributes");
	ck_assert_int_eq(jint(a, "id"), note_id);
	ck_assert_str_eq(jstr(a, "note"), "first comment");
	ck_assert_str_eq(jstr(a, "noteable_type"), "Issue");
	ck_assert_int_eq(jint(a, "noteable_id"), issue_id);
	ck_assert(strstr(jstr(a, "url"), S(fmt("/issues/%lld#note_%lld", iid, note_id))));
	ck_assert_int_eq(jint(jget(q->json, "issue"), "iid"), iid);
	ck_assert_str_eq(jstr(jget(q->json, "issue"), "title"), "Commented");
	/* a comment on a confidential issue is not sent (10.8 had no confidential note
	 * hooks) */
	r = R(api("POST", issues, p.token, "title=Hidden&confidential=true"));
	ck_status(r, 201);
	r = R(api("POST", S(fmt("%s/%lld/notes", issues, jint(r->json, "iid"))), p.token,
		  "body=secret"));
	ck_status(r, 201);
	usleep(1500000);
	ck_assert_int_eq(rcv_count(rv), 1);
	rcv_stop(rv);
}
END_TEST

/* The requests of rv with header event, in order: their count, at most max in out. */
static int with_header(receiver *rv, const char *event, rcv_req **out, int max)
{
	int n = 0;
	for (int i = 0; i < rcv_count(rv); i++) {
		char *h = header_of(rv->reqs[i].headers, "X-Gitlab-Event");
		if (h && strcmp(h, event) == 0 && n < max)
			out[n++] = &rv->reqs[i];
		free(h);
	}
	return n;
}

/* A branch from master with a commit of its own: the commit's id. */
static const char *feature_branch(const proj *p, const char *branch)
{
	commit(p, "master", "base.txt");
	resp *r = R(api("POST", S(fmt("/projects/%lld/repository/branches", p->id)), p->token,
			S(fmt("branch=%s&ref=master", branch))));
	ck_status(r, 201);
	const char *sha = S(strdup(commit(p, branch, S(fmt("%s.txt", branch)))));
	/* its push jobs done, so that none of them sees a request made afterwards */
	for (int i = 0; i < 300 && sql_int("SELECT count(*) FROM background_jobs WHERE kind ="
					   " 'push' AND (payload->>'project_id')::bigint = %lld",
					   p->id) > 0;
	     i++)
		usleep(100000);
	return sha;
}

START_TEST(test_hooks_merge_request)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0), *other = rcv_start(NULL, 0);
	proj p;
	project(&p);
	const char *head = feature_branch(&p, "feature");
	add_hook(&p, S(fmt("url=%s&push_events=false&merge_requests_events=true",
			   S(rcv_url(rv, "127.0.0.1", "/mr")))));
	add_hook(&p, S(fmt("url=%s&push_events=false&issues_events=true&note_events=true",
			   S(rcv_url(other, "127.0.0.1", "/other")))));
	resp *r = R(api("GET", "/user", p.token, NULL));
	ck_status(r, 200);
	long long me = jint(r->json, "id");
	const char *username = S(strdup(jstr(r->json, "username")));
	const char *mrs = S(fmt("/projects/%lld/merge_requests", p.id));
	r = R(api("POST", mrs, p.token,
		  S(fmt("source_branch=feature&target_branch=master&title=Hooked&labels=bug"
			"&assignee_id=%lld",
			me))));
	ck_status(r, 201);
	long long iid = jint(r->json, "iid"), id = jint(r->json, "id");
	const char *one = S(fmt("%s/%lld", mrs, iid));
	ck_status(R(api("PUT", one, p.token, "title=Hooked%20again")), 200);
	ck_status(R(api("PUT", one, p.token, "state_event=close")), 200);
	ck_status(R(api("PUT", one, p.token, "state_event=reopen")), 200);
	/* a push to its source branch: an update with the head before (RefreshService) */
	const char *head2 = S(strdup(commit(&p, "feature", "more.txt")));
	ck_assert_msg(rcv_wait(rv, 5, 30), "%d merge request events", rcv_count(rv));
	ck_status(R(api("PUT", S(fmt("%s/merge", one)), p.token, NULL)), 200);
	ck_assert_msg(rcv_wait(rv, 6, 30), "%d merge request events", rcv_count(rv));
	rcv_req *q[8];
	ck_assert_int_eq(with_header(rv, "Merge Request Hook", q, 8), 6);
	static const char *const actions[] = {"open",   "update", "close",
					      "reopen", "update", "merge"};
	static const char *const states[] = {"opened", "opened", "closed",
					     "opened", "opened", "merged"};
	for (int i = 0; i < 6; i++) {
		json_object *e = q[i]->json;
		ck_assert_str_eq(jstr(e, "object_kind"), "merge_request");
		json_object *a = jget(e, "object_attributes");
		ck_assert_str_eq(jstr(a, "action"), actions[i]);
		ck_assert_str_eq(jstr(a, "state"), states[i]);
		ck_assert_int_eq(jint(a, "iid"), iid);
		ck_assert_int_eq(jint(a, "id"), id);
		ck_assert_int_eq(jint(a, "target_project_id"), p.id);
		ck_assert_int_eq(jint(a, "source_project_id"), p.id);
		ck_assert_str_eq(jstr(a, "source_branch"), "feature");
		ck_assert_str_eq(jstr(a, "target_branch"), "master");
		ck_assert_int_eq(jint(a, "assignee_id"), me);
		ck_assert(strstr(jstr(a, "url"), S(fmt("/merge_requests/%lld", iid))));
		ck_assert_str_eq(jstr(jget(a, "source"), "path_with_namespace"), p.path);
		ck_assert_str_eq(jstr(jget(a, "target"), "path_with_namespace"), p.path);
		json_object *last = jget(a, "last_commit");
		ck_assert_str_eq(jstr(last, "id"), i < 4 ? head : head2);
		ck_assert_str_eq(jstr(last, "message"), i < 4 ? "add feature.txt" : "add more.txt");
		ck_assert(jhas(jget(last, "author"), "email"));
		ck_assert_str_eq(jstr(jget(e, "project"), "path_with_namespace"), p.path);
		ck_assert_str_eq(jstr(jget(e, "user"), "username"), username);
		ck_assert_str_eq(jstr(jget(e, "assignee"), "username"), username);
		json_object *labels = jget(e, "labels");
		ck_assert_int_eq(json_object_array_length(labels), 1);
		ck_assert_str_eq(jstr(json_object_array_get_idx(labels, 0), "title"), "bug");
		ck_assert(jhas(e, "changes") && jhas(e, "repository"));
	}
	ck_assert_str_eq(jstr(jget(q[0]->json, "object_attributes"), "title"), "Hooked");
	json_object *title = jget(jget(q[1]->json, "changes"), "title");
	ck_assert_str_eq(jstr(title, "previous"), "Hooked");
	ck_assert_str_eq(jstr(title, "current"), "Hooked again");
	json_object *state = jget(jget(q[2]->json, "changes"), "state");
	ck_assert_str_eq(jstr(state, "previous"), "opened");
	ck_assert_str_eq(jstr(state, "current"), "closed");
	ck_assert_str_eq(jstr(jget(q[4]->json, "object_attributes"), "oldrev"), head);
	ck_assert(!jhas(jget(q[1]->json, "object_attributes"), "oldrev"));
	ck_assert(jstr(jget(q[5]->json, "object_attributes"), "merge_commit_sha") != NULL);
	/* the hook without merge_requests_events got none of them */
	usleep(1000000);
	ck_assert_int_eq(with_header(other, "Merge Request Hook", q, 8), 0);
	ck_assert_int_eq(with_header(rv, "Merge Request Hook", q, 8), 6);
	rcv_stop(rv);
	rcv_stop(other);
}
END_TEST

/* comments on a merge request, a commit and a project snippet */
START_TEST(test_hooks_note_kinds)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0), *other = rcv_start(NULL, 0);
	proj p;
	project(&p);
	const char *head = feature_branch(&p, "topic");
	add_hook(&p, S(fmt("url=%s&push_events=false&note_events=true",
			   S(rcv_url(rv, "127.0.0.1", "/notes")))));
	add_hook(&p, S(fmt("url=%s&push_events=false&merge_requests_events=true",
			   S(rcv_url(other, "127.0.0.1", "/other")))));
	const char *base = S(fmt("/projects/%lld", p.id));
	resp *r = R(api("POST", S(fmt("%s/merge_requests", base)), p.token,
			"source_branch=topic&target_branch=master&title=Review"));
	ck_status(r, 201);
	long long iid = jint(r->json, "iid"), mr_id = jint(r->json, "id");
	r = R(api("POST", S(fmt("%s/merge_requests/%lld/notes", base, iid)), p.token,
		  "body=on%20the%20request"));
	ck_status(r, 201);
	long long mr_note = jint(r->json, "id");
	r = R(api("POST", S(fmt("%s/repository/commits/%s/comments", base, head)), p.token,
		  "note=on%20the%20commit"));
	ck_status(r, 201);
	r = R(api("POST", S(fmt("%s/snippets", base)), p.token,
		  "title=Snip&file_name=s.txt&code=x&visibility=private"));
	ck_status(r, 201);
	long long snippet = jint(r->json, "id");
	r = R(api("POST", S(fmt("%s/snippets/%lld/notes", base, snippet)), p.token,
		  "body=on%20the%20snippet"));
	ck_status(r, 201);
	long long snippet_note = jint(r->json, "id");
	ck_assert_msg(rcv_wait(rv, 3, 30), "%d note events", rcv_count(rv));
	rcv_req *q[8];
	ck_assert_int_eq(with_header(rv, "Note Hook", q, 8), 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_str_eq(jstr(q[i]->json, "object_kind"), "note");
		ck_assert_int_eq(jint(q[i]->json, "project_id"), p.id);
		ck_assert_str_eq(jstr(jget(q[i]->json, "project"), "path_with_namespace"), p.path);
	}
	json_object *a = jget(q[0]->json, "object_attributes");
	ck_assert_int_eq(jint(a, "id"), mr_note);
	ck_assert_str_eq(jstr(a, "noteable_type"), "MergeRequest");
	ck_assert_int_eq(jint(a, "noteable_id"), mr_id);
	ck_assert_str_eq(jstr(a, "note"), "on the request");
	ck_assert(strstr(jstr(a, "url"), S(fmt("/merge_requests/%lld#note_%lld", iid, mr_note))));
	json_object *mr = jget(q[0]->json, "merge_request");
	ck_assert_int_eq(jint(mr, "iid"), iid);
	ck_assert_str_eq(jstr(mr, "title"), "Review");
	ck_assert_str_eq(jstr(jget(mr, "last_commit"), "id"), head);
	ck_assert(!jhas(mr, "action"));
	a = jget(q[1]->json, "object_attributes");
	ck_assert_str_eq(jstr(a, "noteable_type"), "Commit");
	ck_assert_str_eq(jstr(a, "commit_id"), head);
	ck_assert_str_eq(jstr(a, "note"), "on the commit");
	ck_assert(strstr(jstr(a, "url"), S(fmt("/commit/%s#note_", head))));
	ck_assert_str_eq(jstr(jget(q[1]->json, "commit"), "id"), head);
	ck_assert_str_eq(jstr(jget(q[1]->json, "commit"), "message"), "add topic.txt");
	a = jget(q[2]->json, "object_attributes");
	ck_assert_int_eq(jint(a, "id"), snippet_note);
	ck_assert_str_eq(jstr(a, "noteable_type"), "Snippet");
	ck_assert_int_eq(jint(a, "noteable_id"), snippet);
	ck_assert(
		strstr(jstr(a, "url"), S(fmt("/snippets/%lld#note_%lld", snippet, snippet_note))));
	json_object *sn = jget(q[2]->json, "snippet");
	ck_assert_int_eq(jint(sn, "id"), snippet);
	ck_assert_str_eq(jstr(sn, "title"), "Snip");
	ck_assert_str_eq(jstr(sn, "file_name"), "s.txt");
	/* the hook without note_events got none of them */
	usleep(1000000);
	ck_assert_int_eq(with_header(other, "Note Hook", q, 8), 0);
	ck_assert_int_eq(with_header(rv, "Note Hook", q, 8), 3);
	rcv_stop(rv);
	rcv_stop(other);
}
END_TEST

/* ---- CI: a runner as gitlab-runner 10 talks ---- */

#define RUNNER_INFO                                                                                \
	"{\"name\":\"gitlab-runner\",\"version\":\"10.0.0\",\"revision\":\"c7fe4d5c\","            \
	"\"platform\":\"linux\",\"architecture\":\"amd64\",\"executor\":\"shell\","                \
	"\"features\":{\"variables\":true,\"artifacts\":true}}"

static resp *runner_call(const char *method, const char *path, const char *json)
{
	static const char *const ua[] = {
		"User-Agent: gitlab-runner 10.0.0 (10-0-stable; go1.8.3; linux/amd64)",
		"Accept: application/json", NULL};
	char *url = S(fmt("%s/api/v4%s", api_url(), path));
	return R(http_request(method, url, ua, json, strlen(json), "application/json"));
}

/* The status of the events of rv with header event, "a b c" in order, and the events. */
static char *statuses(receiver *rv, const char *event, const char *key, rcv_req **q, int *n)
{
	*n = with_header(rv, event, q, 16);
	char *out = S(strdup(""));
	for (int i = 0; i < *n; i++) {
		json_object *o = strcmp(key, "status") == 0 ? jget(q[i]->json, "object_attributes")
							    : q[i]->json;
		out = S(fmt("%s%s%s", out, i ? " " : "", jstr(o, key)));
	}
	return out;
}

/* a pipeline of one job run by a runner: pending, running, success, each to the hooks
 * that want pipeline or job events */
START_TEST(test_hooks_pipeline_and_job)
{
	allow_local(true);
	receiver *pl = rcv_start(NULL, 0), *jb = rcv_start(NULL, 0), *other = rcv_start(NULL, 0);
	proj p;
	project(&p);
	add_hook(&p, S(fmt("url=%s&push_events=false&pipeline_events=true",
			   S(rcv_url(pl, "127.0.0.1", "/pipeline")))));
	add_hook(&p, S(fmt("url=%s&push_events=false&job_events=true",
			   S(rcv_url(jb, "127.0.0.1", "/job")))));
	add_hook(&p, S(fmt("url=%s&push_events=false&issues_events=true&note_events=true"
			   "&merge_requests_events=true",
			   S(rcv_url(other, "127.0.0.1", "/other")))));
	/* the push of .gitlab-ci.yml makes the pipeline, its job pending */
	resp *r = R(api(
		"POST", S(fmt("/projects/%lld/repository/files/.gitlab-ci.yml", p.id)), p.token,
		"branch=master&commit_message=ci&content=build%3A%0A%20%20script%3A%20make%0A"));
	ck_status(r, 201);
	r = R(api("GET", S(fmt("/projects/%lld/repository/branches/master", p.id)), p.token, NULL));
	ck_status(r, 200);
	const char *sha = S(strdup(jstr(jget(r->json, "commit"), "id")));
	ck_assert_msg(rcv_wait(pl, 1, 30) && rcv_wait(jb, 1, 30), "no pipeline or job event");
	r = R(api("GET", S(fmt("/projects/%lld", p.id)), p.token, NULL));
	ck_status(r, 200);
	r = runner_call("POST", "/runners",
			S(fmt("{\"info\":" RUNNER_INFO ",\"token\":\"%s\",\"description\":\"hk\"}",
			      jstr(r->json, "runners_token"))));
	ck_status(r, 201);
	const char *runner = S(strdup(jstr(r->json, "token")));
	r = runner_call(
		"POST", "/jobs/request",
		S(fmt("{\"info\":" RUNNER_INFO ",\"token\":\"%s\",\"last_update\":\"\"}", runner)));
	ck_status(r, 201);
	long long job = jint(r->json, "id");
	const char *job_token = S(strdup(jstr(r->json, "token")));
	r = runner_call("PUT", S(fmt("/jobs/%lld", job)),
			S(fmt("{\"info\":" RUNNER_INFO ",\"token\":\"%s\",\"state\":\"success\"}",
			      job_token)));
	ck_status(r, 200);
	ck_assert_msg(rcv_wait(pl, 3, 30) && rcv_wait(jb, 3, 30), "%d pipeline, %d job events",
		      rcv_count(pl), rcv_count(jb));
	usleep(1000000);
	rcv_req *q[16];
	int n;
	ck_assert_str_eq(statuses(pl, "Pipeline Hook", "status", q, &n), "pending running success");
	for (int i = 0; i < n; i++) {
		json_object *e = q[i]->json;
		ck_assert_str_eq(jstr(e, "object_kind"), "pipeline");
		json_object *a = jget(e, "object_attributes");
		ck_assert_str_eq(jstr(a, "ref"), "master");
		ck_assert_str_eq(jstr(a, "sha"), sha);
		ck_assert(!jbool(a, "tag"));
		ck_assert_int_eq(json_object_array_length(jget(a, "stages")), 1);
		ck_assert_str_eq(
			json_object_get_string(json_object_array_get_idx(jget(a, "stages"), 0)),
			"test");
		ck_assert_str_eq(jstr(jget(e, "project"), "path_with_namespace"), p.path);
		ck_assert(jhas(jget(e, "user"), "username"));
		ck_assert_str_eq(jstr(jget(e, "commit"), "id"), sha);
		ck_assert_str_eq(jstr(jget(e, "commit"), "message"), "ci");
		json_object *builds = jget(e, "builds");
		ck_assert_int_eq(json_object_array_length(builds), 1);
		ck_assert_int_eq(jint(json_object_array_get_idx(builds, 0), "id"), job);
		ck_assert_str_eq(jstr(json_object_array_get_idx(builds, 0), "name"), "build");
	}
	ck_assert_str_eq(jstr(jget(q[2]->json, "object_attributes"), "detailed_status"), "passed");
	ck_assert(jstr(jget(q[2]->json, "object_attributes"), "finished_at") != NULL);
	ck_assert(jstr(jget(q[0]->json, "object_attributes"), "finished_at") == NULL);
	ck_assert_str_eq(statuses(jb, "Job Hook", "build_status", q, &n),
			 "pending running success");
	for (int i = 0; i < n; i++) {
		json_object *e = q[i]->json;
		ck_assert_str_eq(jstr(e, "object_kind"), "build");
		ck_assert_int_eq(jint(e, "build_id"), job);
		ck_assert_str_eq(jstr(e, "build_name"), "build");
		ck_assert_str_eq(jstr(e, "build_stage"), "test");
		ck_assert_str_eq(jstr(e, "ref"), "master");
		ck_assert_str_eq(jstr(e, "sha"), sha);
		ck_assert_int_eq(jint(e, "project_id"), p.id);
		ck_assert_str_eq(jstr(jget(e, "commit"), "sha"), sha);
		ck_assert_str_eq(jstr(jget(e, "commit"), "message"), "ci");
		ck_assert(jhas(e, "repository") && jhas(e, "user"));
	}
	ck_assert(jstr(q[0]->json, "build_started_at") == NULL);
	ck_assert(jstr(q[1]->json, "build_started_at") != NULL);
	ck_assert(jstr(q[1]->json, "build_finished_at") == NULL);
	ck_assert(jstr(q[2]->json, "build_finished_at") != NULL);
	/* each kind to its own hook only */
	ck_assert_int_eq(with_header(pl, "Job Hook", q, 16), 0);
	ck_assert_int_eq(with_header(jb, "Pipeline Hook", q, 16), 0);
	ck_assert_int_eq(rcv_count(other), 0);
	rcv_stop(pl);
	rcv_stop(jb);
	rcv_stop(other);
}
END_TEST

/* a receiver that fails twice gets the event three times, then it is done */
/* The sum over both instances (COLLABD_INSTANCE_URLS) of a counter of /-/metrics: the
 * background process of either may have sent a delivery. */
static double metric_sum(const char *name)
{
	const char *all = getenv("COLLABD_INSTANCE_URLS");
	ck_assert_msg(all && *all, "COLLABD_INSTANCE_URLS must be set");
	double sum = 0;
	for (const char *p = all; *p;) {
		size_t n = strcspn(p, " ");
		resp *r = R(http_request("GET", S(fmt("%.*s/-/metrics", (int)n, p)), NULL, NULL, 0,
					 NULL));
		ck_status(r, 200);
		size_t ln = strlen(name);
		for (const char *l = r->body; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
			if (strncmp(l, name, ln) == 0 && l[ln] == ' ')
				sum += strtod(l + ln + 1, NULL);
		p += n;
		p += strspn(p, " ");
	}
	return sum;
}

START_TEST(test_hooks_retry)
{
	allow_local(true);
	static const int st[] = {500, 503, 200};
	receiver *rv = rcv_start(st, 3);
	proj p;
	project(&p);
	long long hid = add_hook(&p, S(fmt("url=%s", S(rcv_url(rv, "127.0.0.1", "/r")))));
	double sent = metric_sum("collabd_webhook_deliveries_total");
	double failed = metric_sum("collabd_webhook_delivery_failures_total");
	const char *sha = S(strdup(commit(&p, "master", "a.txt")));
	ck_assert_msg(rcv_wait(rv, 3, 45), "only %d attempts", rcv_count(rv));
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(jstr(rv->reqs[i].json, "after"), sha);
	for (int i = 0;
	     i < 50 &&
	     sql_int("SELECT count(*) FROM web_hook_deliveries WHERE hook_id = %lld", hid);
	     i++)
		usleep(100000);
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM web_hook_deliveries WHERE hook_id = %lld", hid), 0);
	usleep(3000000);
	ck_assert_int_eq(rcv_count(rv), 3);
	/* counted in /-/metrics: two failed attempts, one delivery (other suites' deliveries
	 * may add to them meanwhile, never take away) */
	ck_assert_msg(metric_sum("collabd_webhook_delivery_failures_total") >= failed + 2,
		      "failures %f before", failed);
	ck_assert_msg(metric_sum("collabd_webhook_deliveries_total") >= sent + 1,
		      "deliveries %f before", sent);
	rcv_stop(rv);
}
END_TEST

/* the second event of a hook waits for the first, which fails once */
START_TEST(test_hooks_order)
{
	allow_local(true);
	static const int st[] = {500};
	receiver *rv = rcv_start(st, 1), *fine = rcv_start(NULL, 0);
	proj p;
	project(&p);
	add_hook(&p, S(fmt("url=%s", S(rcv_url(rv, "127.0.0.1", "/o")))));
	add_hook(&p, S(fmt("url=%s", S(rcv_url(fine, "127.0.0.1", "/f")))));
	const char *a = S(strdup(commit(&p, "master", "a.txt")));
	const char *b = S(strdup(commit(&p, "master", "b.txt")));
	const char *c = S(strdup(commit(&p, "master", "c.txt")));
	ck_assert_msg(rcv_wait(rv, 4, 45), "only %d requests", rcv_count(rv));
	ck_assert_str_eq(jstr(rv->reqs[0].json, "after"), a);
	ck_assert_str_eq(jstr(rv->reqs[1].json, "after"), a);
	ck_assert_str_eq(jstr(rv->reqs[2].json, "after"), b);
	ck_assert_str_eq(jstr(rv->reqs[3].json, "after"), c);
	/* the other hook was not held back by this one's failure */
	ck_assert(rcv_wait(fine, 3, 10));
	ck_assert_str_eq(jstr(fine->reqs[0].json, "after"), a);
	ck_assert_str_eq(jstr(fine->reqs[2].json, "after"), c);
	rcv_stop(rv);
	rcv_stop(fine);
}
END_TEST

/* A delivery a sender claimed and never finished (it died: the row still `sending`,
 * its lease over) is sent by the background processes that remain. */
START_TEST(test_hooks_crashed_sender)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0);
	proj p;
	project(&p);
	long long hid = add_hook(&p, S(fmt("url=%s&token=k", S(rcv_url(rv, "127.0.0.1", "/c")))));
	S(sql_value("INSERT INTO web_hook_deliveries (hook_id, event, payload, state, attempts,"
		    " locked_until) VALUES (%lld, 'Push Hook', '{\"object_kind\":\"push\","
		    "\"after\":\"left-behind\"}', 'sending', 1, now() - interval '1 second');"
		    " SELECT pg_notify('collabd_jobs', 'hooks')",
		    hid));
	ck_assert_msg(rcv_wait(rv, 1, 30), "the abandoned delivery was not sent");
	ck_assert_str_eq(jstr(rv->reqs[0].json, "after"), "left-behind");
	ck_assert_str_eq(S(header_of(rv->reqs[0].headers, "X-Gitlab-Token")), "k");
	rcv_stop(rv);
}
END_TEST

/* The process with the loopback TCP connection whose local port is port: its pid, or 0
 * (/proc/net/tcp for the socket's inode, then the process holding it). */
static int process_of_port(int port)
{
	FILE *f = fopen("/proc/net/tcp", "r");
	char line[512];
	unsigned long inode = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned lport = 0;
		unsigned long ino = 0;
		char local[64];
		if (sscanf(line, " %*d: %63s %*s %*s %*s %*s %*s %*s %*s %lu", local, &ino) == 2 &&
		    sscanf(strchr(local, ':') ? strchr(local, ':') + 1 : "", "%x", &lport) == 1 &&
		    (int)lport == port && strncmp(local, "0100007F", 8) == 0) {
			inode = ino;
			break;
		}
	}
	if (f)
		fclose(f);
	if (!inode)
		return 0;
	char want[64];
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	/* the descriptors of every process, read directly: quick enough to find the
	 * connection before the sender's 10 s timeout closes it, even on a loaded machine */
	int found = 0;
	DIR *procs = opendir("/proc");
	struct dirent *e;
	while (procs && !found && (e = readdir(procs))) {
		int pid = atoi(e->d_name);
		if (pid <= 0)
			continue;
		char dir[64];
		snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
		DIR *fds = opendir(dir);
		struct dirent *fd;
		while (fds && !found && (fd = readdir(fds))) {
			char link[340], target[128];
			snprintf(link, sizeof(link), "%s/%s", dir, fd->d_name);
			ssize_t n = readlink(link, target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = '\0';
				if (strcmp(target, want) == 0)
					found = pid;
			}
		}
		if (fds)
			closedir(fds);
	}
	if (procs)
		closedir(procs);
	return found;
}

/* The background process killed while it sends (SIGKILL: no chance to tidy up): its
 * master starts another, and the delivery, leased to the dead one, is sent again when
 * the lease ends, then done. */
START_TEST(test_hooks_killed_sender)
{
	allow_local(true);
	static const int st[] = {-1};
	receiver *rv = rcv_start(st, 1);
	proj p;
	project(&p);
	long long hid = add_hook(&p, S(fmt("url=%s", S(rcv_url(rv, "127.0.0.1", "/k")))));
	const char *sha = S(strdup(commit(&p, "master", "a.txt")));
	ck_assert_msg(rcv_wait(rv, 1, 30), "the push event was not sent");
	pthread_mutex_lock(&rv->lock);
	int port = rv->hung_port;
	pthread_mutex_unlock(&rv->lock);
	int pid = process_of_port(port);
	ck_assert_msg(pid > 0, "no process has the connection from port %d", port);
	char *comm = S(fmt("/proc/%d/comm", pid));
	FILE *f = fopen(comm, "r");
	char name[64] = "";
	ck_assert(f && fgets(name, sizeof(name), f));
	fclose(f);
	ck_assert_msg(strncmp(name, "collabd-bg", 10) == 0, "the sender is %s", name);
	ck_assert(kill(pid, SIGKILL) == 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM web_hook_deliveries WHERE hook_id = %lld"
				 " AND state = 'sending'",
				 hid),
			 1);
	ck_assert_msg(rcv_wait(rv, 2, 60), "the delivery was lost with its sender");
	ck_assert_str_eq(jstr(rv->reqs[1].json, "after"), sha);
	for (int i = 0;
	     i < 50 &&
	     sql_int("SELECT count(*) FROM web_hook_deliveries WHERE hook_id = %lld", hid);
	     i++)
		usleep(100000);
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM web_hook_deliveries WHERE hook_id = %lld", hid), 0);
	rcv_stop(rv);
}
END_TEST

/* literal local addresses: refused at creation unless allowed */
START_TEST(test_hooks_local_refused_at_creation)
{
	proj p;
	project(&p);
	const char *hooks = S(fmt("/projects/%lld/hooks", p.id));
	allow_local(false);
	static const char *const local[] = {"http://127.0.0.1:8080/",
					    "http://127.1/",
					    "http://10.1.2.3/",
					    "http://192.168.0.10/",
					    "http://172.16.5.4/",
					    "http://169.254.169.254/latest",
					    "http://0.0.0.0/",
					    "http://[::1]/",
					    "http://[::ffff:127.0.0.1]/",
					    "http://[fd00::1]/",
					    "http://[fe80::1]/",
					    "http://localhost:3000/",
					    "http://2130706433/",
					    NULL};
	for (int i = 0; local[i]; i++) {
		resp *r = R(api("POST", hooks, p.token, S(fmt("url=%s", S(enc(local[i]))))));
		ck_assert_msg(r->status == 422, "%s: %ld %s", local[i], r->status, r->body);
		ck_jstr(r, "message", "Invalid url given");
		r = R(api("POST", "/hooks", admin_token(), S(fmt("url=%s", S(enc(local[i]))))));
		ck_assert_msg(r->status == 400, "%s: %ld %s", local[i], r->status, r->body);
	}
	ck_assert_int_eq(sql_int("SELECT count(*) FROM web_hooks WHERE project_id = %lld", p.id),
			 0);
	/* a public address is fine */
	resp *r = R(api("POST", hooks, p.token, "url=http://93.184.216.34/"));
	ck_status(r, 201);
	allow_local(true);
	r = R(api("POST", hooks, p.token, "url=http://127.0.0.1:8080/"));
	ck_status(r, 201);
}
END_TEST

/* a name that resolves to a local address: refused when the connection is made */
START_TEST(test_hooks_local_refused_at_delivery)
{
	allow_local(true);
	receiver *rv = rcv_start(NULL, 0);
	proj p;
	project(&p);
	const char *url = S(fmt("http://localhost:%d/n", rv->port));
	long long hid = add_hook(&p, S(fmt("url=%s", S(enc(url)))));
	/* made while allowed; now off, the address the name resolves to is refused */
	allow_local(false);
	commit(&p, "master", "a.txt");
	bool tried = false;
	for (int i = 0; i < 300 && !tried; i++) {
		tried = sql_int("SELECT count(*) FROM web_hook_deliveries WHERE hook_id = %lld"
				" AND last_error LIKE 'blocked%%'",
				hid) > 0;
		if (!tried)
			usleep(100000);
	}
	ck_assert_msg(tried, "the delivery was not refused");
	ck_assert_int_eq(rcv_count(rv), 0);
	/* kept, and sent once allowed */
	allow_local(true);
	ck_assert_msg(rcv_wait(rv, 1, 30), "the refused delivery was lost");
	rcv_stop(rv);
}
END_TEST

START_TEST(test_hooks_no_redirect)
{
	allow_local(true);
	receiver *target = rcv_start(NULL, 0);
	static const int st[] = {302, 302, 302, 302, 302, 302, 302, 302};
	receiver *rv = rcv_start(st, 8);
	rv->location = S(rcv_url(target, "127.0.0.1", "/elsewhere"));
	proj p;
	project(&p);
	long long hid = add_hook(&p, S(fmt("url=%s", S(rcv_url(rv, "127.0.0.1", "/r")))));
	commit(&p, "master", "a.txt");
	ck_assert(rcv_wait(rv, 1, 30));
	bool recorded = false;
	for (int i = 0; i < 100 && !recorded; i++) {
		recorded = sql_int("SELECT count(*) FROM web_hook_deliveries WHERE hook_id = %lld"
				   " AND last_status = 302",
				   hid) > 0;
		if (!recorded)
			usleep(100000);
	}
	ck_assert_msg(recorded, "the 302 was not recorded as a failure");
	usleep(2000000);
	ck_assert_int_eq(rcv_count(target), 0);
	R(api("DELETE", S(fmt("/projects/%lld/hooks/%lld", p.id, hid)), p.token, NULL));
	rcv_stop(rv);
	rcv_stop(target);
}
END_TEST

static void teardown(void)
{
	release();
}

Suite *suite_hooks(void)
{
	Suite *s = suite_create("hooks");
	TCase *tc = tcase_create("hooks");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_hooks_project_crud);
	tcase_add_test(tc, test_hooks_project_delete);
	tcase_add_test(tc, test_hooks_project_access);
	tcase_add_test(tc, test_hooks_project_validation);
	tcase_add_test(tc, test_hooks_system_crud);
	tcase_add_test(tc, test_hooks_system_test_event);
	tcase_add_test(tc, test_hooks_push_delivered);
	tcase_add_test(tc, test_hooks_tag_push_delivered);
	tcase_add_test(tc, test_hooks_system_push);
	tcase_add_test(tc, test_hooks_repository_update);
	tcase_add_test(tc, test_hooks_system_events);
	tcase_add_test(tc, test_hooks_wiki_page);
	tcase_add_test(tc, test_hooks_issue);
	tcase_add_test(tc, test_hooks_note);
	tcase_add_test(tc, test_hooks_merge_request);
	tcase_add_test(tc, test_hooks_note_kinds);
	tcase_add_test(tc, test_hooks_pipeline_and_job);
	tcase_add_test(tc, test_hooks_retry);
	tcase_add_test(tc, test_hooks_order);
	tcase_add_test(tc, test_hooks_crashed_sender);
	tcase_add_test(tc, test_hooks_killed_sender);
	tcase_add_test(tc, test_hooks_local_refused_at_creation);
	tcase_add_test(tc, test_hooks_local_refused_at_delivery);
	tcase_add_test(tc, test_hooks_no_redirect);
	suite_add_tcase(s, tc);
	return s;
}
