/* API suite: several instances on one database (DESIGN.md, "Several instances on one
 * database"). 2 x 8 threads, each with its own libcurl handle, the even ones talking to
 * instance 1 and the odd ones to instance 2 (through the per-instance nginx ports that
 * tests/api/run lists in COLLABD_INSTANCE_URLS, not through the round-robin upstream),
 * race on the writes that must stay consistent across instances:
 *  - project creation in one group with colliding paths and names: one 201 per path or
 *    name, 400 "has already been taken" for the others; the group lists exactly the
 *    created projects, every one readable by id and path, its repository on disk once;
 *  - projects and subgroups created in one group by the same users at once: all 201
 *    (no deadlock between the locks of the two);
 *  - project members added by both instances at once (each user twice): one 201 and one
 *    409 per user, the member list equals the successful adds;
 *  - the same SSH key added by two users at once: one 201;
 *  - stars and unstars of one project: star_count equals the stars the responses
 *    report and the stars that exist afterwards;
 *  - forks of one project by 16 users at once: 16 projects, forks_count 16;
 *  - deletions (each project deleted twice, from both instances): one 202 per project,
 *    and the background processes of both instances run each queued job exactly once
 *    (the "background job N (kind) done" lines of collabd-1.log and collabd-2.log).
 * The per-project counters collabd keeps are star_count and forks_count; iid counters
 * come with issues and merge requests, which collabd does not serve yet.
 *
 * The threads never assert (Check's assertions belong to the test's own thread): they
 * keep every response, and the test checks them once they have all finished. */
#include <curl/curl.h>
#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"

#define NTHREADS 16 /* 2 x 8: thread n talks to instance n % 2 */
#define MAXOPS 16   /* requests one thread makes in a test, at most */

static const char *const TAKEN_PATH = "{\"message\":{\"path\":[\"has already been taken\"]}}";
static const char *const TAKEN_NAME = "{\"message\":{\"name\":[\"has already been taken\"]}}";
static const char *const TAKEN_BOTH =
	"{\"message\":{\"name\":[\"has already been taken\"],\"path\":[\"has already been taken\"]}}";
static const char *const MEMBER_EXISTS = "{\"message\":\"Member already exists\"}";
static const char *const TAKEN_KEY = "{\"message\":{\"fingerprint\":[\"has already been taken\"]}}";
static const char *const ACCEPTED = "{\"message\":\"202 Accepted\"}";
static const char *const PROJECT_NOT_FOUND = "{\"message\":\"404 Project Not Found\"}";

/* ---- the two instances ---- */

static char *instances[2];

/* METHOD /api/v4<path> on instance i, from the test's thread. */
static resp *on(int i, const char *method, const char *path, const char *token, const char *form)
{
	char *url = fmt("%s/api/v4%s", instances[i], path);
	char *auth = token ? fmt("PRIVATE-TOKEN: %s", token) : NULL;
	const char *headers[] = {auth, NULL};
	resp *r = R(http_request(method, url, headers, form, form ? strlen(form) : 0,
				 form ? "application/x-www-form-urlencoded" : NULL));
	free(url);
	free(auth);
	return r;
}

/* The base URLs of the two instances, from COLLABD_INSTANCE_URLS; both must answer. */
static void load_instances(void)
{
	const char *e = getenv("COLLABD_INSTANCE_URLS");
	ck_assert_msg(e != NULL, "COLLABD_INSTANCE_URLS must name one URL per instance");
	char *copy = S(strdup(e)), *save = NULL;
	int n = 0;
	for (char *u = strtok_r(copy, " ", &save); u; u = strtok_r(NULL, " ", &save)) {
		ck_assert_msg(n < 2, "more than two instance URLs: %s", e);
		instances[n++] = u;
	}
	ck_assert_msg(n == 2, "two instance URLs expected: %s", e);
	for (int i = 0; i < 2; i++) {
		resp *r = on(i, "GET", "/version", admin_token(), NULL);
		ck_assert_msg(r->status == 200, "instance %d (%s): %ld %s", i + 1, instances[i],
			      r->status, r->body);
	}
}

/* ---- the threads ---- */

typedef struct th th;
struct th {
	int n;            /* 0 .. NTHREADS - 1 */
	const char *base; /* the URL of its instance */
	CURL *curl;       /* its own handle, reused for every request */
	void *ctx;        /* the test's inputs */
	void (*body)(th *);
	pthread_barrier_t *go;
	resp *r[MAXOPS]; /* the responses, in the order of the requests */
	int nr;
	bool overflow;
};

struct sink {
	char *data;
	size_t len;
};

static size_t collect(char *p, size_t size, size_t n, void *ud)
{
	struct sink *s = ud;
	size_t add = size * n;
	char *grown = realloc(s->data, s->len + add + 1);
	if (!grown)
		return 0;
	s->data = grown;
	memcpy(s->data + s->len, p, add);
	s->len += add;
	s->data[s->len] = '\0';
	return add;
}

/* METHOD /api/v4<path> on the thread's instance with its handle, as token, with an
 * optional form body; the response is kept in t->r. */
static void treq(th *t, const char *method, const char *path, const char *token, const char *form)
{
	if (t->nr == MAXOPS) {
		t->overflow = true;
		return;
	}
	CURL *c = t->curl;
	curl_easy_reset(c);
	char *url = fmt("%s/api/v4%s", t->base, path);
	char *auth = fmt("PRIVATE-TOKEN: %s", token);
	struct curl_slist *h = curl_slist_append(NULL, auth);
	h = curl_slist_append(h, "Expect:");
	if (form) {
		h = curl_slist_append(h, "Content-Type: application/x-www-form-urlencoded");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, form);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(form));
	}
	struct sink b = {calloc(1, 1), 0};
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	CURLcode rc = curl_easy_perform(c);
	resp *r = calloc(1, sizeof(*r));
	if (rc != CURLE_OK) {
		r->status = -1;
		free(b.data);
		r->body = strdup(curl_easy_strerror(rc));
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
		r->body = b.data;
		r->body_len = b.len;
		r->json = b.len ? json_tokener_parse(b.data) : NULL;
	}
	curl_slist_free_all(h);
	free(auth);
	free(url);
	t->r[t->nr++] = r;
}

static void *thread_main(void *arg)
{
	th *t = arg;
	pthread_barrier_wait(t->go);
	t->body(t);
	return NULL;
}

/* Runs body in NTHREADS threads that start together (thread n on instance n % 2) and
 * waits for all of them; ts[n] holds what thread n received. */
static void run_threads(th ts[NTHREADS], void (*body)(th *), void *ctx)
{
	pthread_barrier_t go;
	ck_assert(pthread_barrier_init(&go, NULL, NTHREADS) == 0);
	pthread_t ids[NTHREADS];
	memset(ts, 0, sizeof(th) * NTHREADS);
	for (int n = 0; n < NTHREADS; n++) {
		ts[n] = (th){.n = n,
			     .base = instances[n % 2],
			     .curl = curl_easy_init(),
			     .ctx = ctx,
			     .body = body,
			     .go = &go};
		ck_assert(ts[n].curl != NULL);
	}
	for (int n = 0; n < NTHREADS; n++)
		ck_assert(pthread_create(&ids[n], NULL, thread_main, &ts[n]) == 0);
	for (int n = 0; n < NTHREADS; n++)
		pthread_join(ids[n], NULL);
	pthread_barrier_destroy(&go);
	for (int n = 0; n < NTHREADS; n++) {
		curl_easy_cleanup(ts[n].curl);
		ts[n].curl = NULL;
		ck_assert_msg(!ts[n].overflow, "thread %d made more than %d requests", n, MAXOPS);
		for (int i = 0; i < ts[n].nr; i++)
			R(ts[n].r[i]);
	}
}

/* Thread n's response to its request i, asserted to exist. */
static resp *got(th ts[NTHREADS], int n, int i)
{
	ck_assert_msg(i < ts[n].nr, "thread %d made %d requests, not %d", n, ts[n].nr, i + 1);
	return ts[n].r[i];
}

/* Asserts that r is status with exactly the JSON body json (member order aside); the
 * message names the request as the format what says. */
static void ck_is(resp *r, long status, const char *json, const char *what, ...)
	__attribute__((format(printf, 4, 5)));
static void ck_is(resp *r, long status, const char *json, const char *what, ...)
{
	json_object *want = json_tokener_parse(json);
	ck_assert(want != NULL);
	bool same = r->status == status && r->json && json_object_equal(r->json, want);
	json_object_put(want);
	if (same)
		return;
	va_list ap;
	va_start(ap, what);
	char *w = NULL;
	if (vasprintf(&w, what, ap) < 0)
		w = NULL;
	va_end(ap);
	ck_assert_msg(false, "%s: expected %ld %s, got %ld %s", w ? w : what, status, json,
		      r->status, r->body);
}

/* ---- fixtures ---- */

/* n users through the API: their tokens and ids. */
static void users(int n, const char *prefix, char **tokens, long long *ids)
{
	for (int i = 0; i < n; i++)
		tokens[i] = S(make_user(prefix, &ids[i], NULL));
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static const char *storage(void)
{
	const char *d = getenv("COLLABD_DIR");
	ck_assert_msg(d != NULL, "COLLABD_DIR must be set");
	return S(fmt("%s/storage", d));
}

/* ---- 1. projects created in one group from both instances ---- */

#define SLOTS 9 /* contested projects: path (k % 3 == 0), name (1) or both (2) collide */
#define OWN 2   /* projects of its own that each thread creates as well */

struct creates {
	char *token[NTHREADS];
	char *form[NTHREADS][SLOTS + OWN];
};

/* Thread n's request j (< SLOTS) is for slot (j + n / 2) % SLOTS: threads 2m and 2m + 1,
 * one on each instance, ask for the same one at the same time, and every thread asks for
 * every slot. */
static int slot_of(int n, int j)
{
	return (j + n / 2) % SLOTS;
}

static void creates_body(th *t)
{
	struct creates *c = t->ctx;
	for (int j = 0; j < SLOTS + OWN; j++)
		treq(t, "POST", "/projects", c->token[t->n], c->form[t->n][j]);
}

START_TEST(test_concurrent_project_creates)
{
	load_instances();
	char *gpath;
	long long gid = api_group(admin_token(), "private", &gpath);
	S(gpath);
	/* the creators: masters of the group, one per thread (no shared user row lock) */
	struct creates c;
	long long uid[NTHREADS];
	users(NTHREADS, "icr", c.token, uid);
	for (int n = 0; n < NTHREADS; n++)
		ck_code(on(n % 2, "POST", S(fmt("/groups/%lld/members", gid)), admin_token(),
			   S(fmt("user_id=%lld&access_level=40", uid[n]))),
			201);
	char *base[SLOTS];
	for (int k = 0; k < SLOTS; k++)
		base[k] = S(unique("ic"));
	char *own = S(unique("io"));
	for (int n = 0; n < NTHREADS; n++) {
		for (int j = 0; j < SLOTS; j++) {
			int k = slot_of(n, j);
			const char *b = base[k];
			c.form[n][j] = k % 3 == 0   ? S(fmt("namespace_id=%lld&path=%s&name=%s_n%d",
							    gid, b, b, n))
				       : k % 3 == 1 ? S(fmt("namespace_id=%lld&name=%s&path=%s-n%d",
							    gid, b, b, n))
						    : S(fmt("namespace_id=%lld&path=%s", gid, b));
		}
		for (int e = 0; e < OWN; e++)
			c.form[n][SLOTS + e] =
				S(fmt("namespace_id=%lld&path=%s-%d-%d", gid, own, n, e));
	}

	th ts[NTHREADS];
	run_threads(ts, creates_body, &c);

	/* one 201 per slot, the exact 400 for every other request */
	enum { CREATED = SLOTS + NTHREADS * OWN };
	long long ids[CREATED];
	const char *paths[CREATED];
	int made = 0, by_instance[2] = {0, 0};
	for (int k = 0; k < SLOTS; k++) {
		int wins = 0;
		for (int n = 0; n < NTHREADS; n++)
			for (int j = 0; j < SLOTS; j++) {
				if (slot_of(n, j) != k)
					continue;
				resp *r = got(ts, n, j);
				if (r->status == 201) {
					wins++;
					ids[made] = jint(r->json, "id");
					paths[made++] = jstr(r->json, "path");
					by_instance[n % 2]++;
					continue;
				}
				ck_is(r, 400,
				      k % 3 == 0   ? TAKEN_PATH
				      : k % 3 == 1 ? TAKEN_NAME
						   : TAKEN_BOTH,
				      "slot %d, thread %d (instance %d)", k, n, n % 2 + 1);
			}
		ck_assert_msg(wins == 1, "slot %d (%s): %d projects created", k, base[k], wins);
	}
	for (int n = 0; n < NTHREADS; n++)
		for (int e = 0; e < OWN; e++) {
			resp *r = got(ts, n, SLOTS + e);
			ck_assert_msg(r->status == 201, "thread %d, own project %d: %ld %s", n, e,
				      r->status, r->body);
			ids[made] = jint(r->json, "id");
			paths[made++] = jstr(r->json, "path");
		}
	ck_assert_int_eq(made, CREATED);
	printf("instances: contested projects created by instance 1: %d, instance 2: %d\n",
	       by_instance[0], by_instance[1]);
	for (int i = 0; i < made; i++) {
		ck_assert_msg(ids[i] > 0 && paths[i], "created project %d has no id or path", i);
		for (int k = 0; k < i; k++) {
			ck_assert_msg(ids[i] != ids[k], "id %lld given twice", ids[i]);
			ck_assert_msg(strcasecmp(paths[i], paths[k]) != 0, "path %s given twice",
				      paths[i]);
		}
	}

	/* the group lists exactly them */
	resp *r = R(
		api("GET", S(fmt("/groups/%lld/projects?per_page=100", gid)), admin_token(), NULL));
	ck_code(r, 200);
	ck_assert_msg(json_object_array_length(r->json) == (size_t)made,
		      "the group lists %zu projects, %d were created: %s",
		      json_object_array_length(r->json), made, r->body);
	const char *total = resp_header(r, "X-Total");
	ck_assert_msg(total && atoi(total) == made, "X-Total %s", total ? total : "(none)");
	bool listed[CREATED] = {false};
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *p = json_object_array_get_idx(r->json, i);
		int at = -1;
		for (int k = 0; k < made && at < 0; k++)
			if (ids[k] == jint(p, "id"))
				at = k;
		ck_assert_msg(at >= 0 && !listed[at],
			      "unexpected or repeated project in the list: %s",
			      json_object_to_json_string(p));
		listed[at] = true;
		ck_assert_str_eq(jstr(p, "path"), paths[at]);
	}

	/* every one readable by id and by path, through either instance */
	for (int i = 0; i < made; i++) {
		const char *full = S(fmt("%s/%s", gpath, paths[i]));
		r = on(i % 2, "GET", S(fmt("/projects/%lld", ids[i])), admin_token(), NULL);
		ck_code(r, 200);
		ck_assert_str_eq(jstr(r->json, "path_with_namespace"), full);
		r = on((i + 1) % 2, "GET", S(fmt("/projects/%s", S(enc(full)))), admin_token(),
		       NULL);
		ck_code(r, 200);
		ck_assert_int_eq(jint(r->json, "id"), ids[i]);
	}

	/* one repository on disk per project, stored by its id; none by the group's path */
	const char *dir = S(fmt("%s/%s", storage(), gpath));
	ck_assert_msg(!exists(dir), "%s exists", dir);
	for (int i = 0; i < made; i++) {
		const char *repo = S(repo_dir_of(ids[i]));
		ck_assert_msg(exists(S(fmt("%s/HEAD", repo))), "%s (project %s) is no repository",
			      repo, paths[i]);
	}
}
END_TEST

/* ---- 1b. projects and subgroups of one group, by the same users at once ---- */

#define MIXED 3 /* projects (even threads) or subgroups (odd threads) each thread creates */

struct mixed {
	char *token[NTHREADS / 2]; /* user m: threads 2m (projects) and 2m + 1 (subgroups) */
	char *form[NTHREADS][MIXED];
};

static void mixed_body(th *t)
{
	struct mixed *c = t->ctx;
	for (int i = 0; i < MIXED; i++)
		treq(t, "POST", t->n % 2 ? "/groups" : "/projects", c->token[t->n / 2],
		     c->form[t->n][i]);
}

START_TEST(test_concurrent_projects_and_subgroups)
{
	load_instances();
	char *gpath;
	long long gid = api_group(admin_token(), "private", &gpath);
	S(gpath);
	/* each user owns the group: creates projects in it from one instance and subgroups
	 * of it from the other, at the same time */
	struct mixed c;
	long long uid[NTHREADS / 2];
	users(NTHREADS / 2, "imx", c.token, uid);
	for (int m = 0; m < NTHREADS / 2; m++)
		ck_code(on(m % 2, "POST", S(fmt("/groups/%lld/members", gid)), admin_token(),
			   S(fmt("user_id=%lld&access_level=50", uid[m]))),
			201);
	char *base = S(unique("mx"));
	for (int n = 0; n < NTHREADS; n++)
		for (int i = 0; i < MIXED; i++)
			c.form[n][i] =
				n % 2 ? S(fmt("name=%s-g%d-%d&path=%s-g%d-%d&parent_id=%lld", base,
					      n, i, base, n, i, gid))
				      : S(fmt("namespace_id=%lld&path=%s-p%d-%d", gid, base, n, i));

	th ts[NTHREADS];
	run_threads(ts, mixed_body, &c);

	for (int n = 0; n < NTHREADS; n++)
		for (int i = 0; i < MIXED; i++) {
			resp *r = got(ts, n, i);
			ck_assert_msg(r->status == 201, "thread %d (instance %d), %s %d: %ld %s", n,
				      n % 2 + 1, n % 2 ? "subgroup" : "project", i, r->status,
				      r->body);
		}
	resp *r = R(
		api("GET", S(fmt("/groups/%lld/projects?per_page=100", gid)), admin_token(), NULL));
	ck_code(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), NTHREADS / 2 * MIXED);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM namespaces WHERE parent_id = %lld", gid),
			 NTHREADS / 2 * MIXED);
}
END_TEST

/* ---- 2. members added from both instances ---- */

#define MUSERS 24 /* users added; each twice, by threads 2m and 2m + 1 (m = user % 8) */
#define MPER (MUSERS / (NTHREADS / 2))

struct adds {
	const char *path;  /* /projects/:id/members */
	const char *token; /* the project's owner */
	char *form[NTHREADS][MPER];
};

/* The level thread n adds its users with: each instance its own, so that the list shows
 * whose add won. */
static int add_level(int n)
{
	return n % 2 ? 30 : 20;
}

static void adds_body(th *t)
{
	struct adds *c = t->ctx;
	for (int i = 0; i < MPER; i++)
		treq(t, "POST", c->path, c->token, c->form[t->n][i]);
}

START_TEST(test_concurrent_member_adds)
{
	load_instances();
	long long owner;
	char *owner_token = S(make_user("imo", &owner, NULL));
	long long pid = api_project(owner_token, "private", NULL);
	char *tokens[MUSERS];
	long long uid[MUSERS];
	users(MUSERS, "imu", tokens, uid);
	struct adds c;
	c.path = S(fmt("/projects/%lld/members", pid));
	c.token = owner_token;
	for (int n = 0; n < NTHREADS; n++)
		for (int i = 0; i < MPER; i++)
			c.form[n][i] = S(fmt("user_id=%lld&access_level=%d", uid[n / 2 + 8 * i],
					     add_level(n)));

	th ts[NTHREADS];
	run_threads(ts, adds_body, &c);

	/* per user: one 201 (with the level its thread asked for) and one 409 */
	int level[MUSERS] = {0};
	for (int u = 0; u < MUSERS; u++) {
		int a = 2 * (u % 8), i = u / 8, wins = 0;
		for (int n = a; n <= a + 1; n++) {
			resp *r = got(ts, n, i);
			if (r->status == 201) {
				wins++;
				ck_assert_int_eq(jint(r->json, "id"), uid[u]);
				ck_assert_int_eq(jint(r->json, "access_level"), add_level(n));
				level[u] = add_level(n);
			} else {
				ck_is(r, 409, MEMBER_EXISTS, "user %d, thread %d (instance %d)", u,
				      n, n % 2 + 1);
			}
		}
		ck_assert_msg(wins == 1, "user %d added %d times", u, wins);
	}

	/* the list: the owner and exactly the users added, at the level that won */
	resp *r = R(api("GET", S(fmt("%s?per_page=100", c.path)), owner_token, NULL));
	ck_code(r, 200);
	ck_assert_msg(json_object_array_length(r->json) == MUSERS + 1, "members: %s", r->body);
	bool seen[MUSERS] = {false}, owner_seen = false;
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *m = json_object_array_get_idx(r->json, i);
		long long id = jint(m, "id");
		if (id == owner) {
			ck_assert_msg(!owner_seen, "the owner is listed twice: %s", r->body);
			owner_seen = true;
			continue;
		}
		int u = -1;
		for (int k = 0; k < MUSERS && u < 0; k++)
			if (uid[k] == id)
				u = k;
		ck_assert_msg(u >= 0 && !seen[u], "unexpected or repeated member %lld: %s", id,
			      r->body);
		seen[u] = true;
		ck_assert_msg(jint(m, "access_level") == level[u],
			      "member %lld: level %lld, the add that won gave %d", id,
			      jint(m, "access_level"), level[u]);
	}
	ck_assert_msg(owner_seen, "the owner is not listed: %s", r->body);
}
END_TEST

/* ---- 3. the same key added by two users at once ---- */

#define KPER 3 /* keys each pair of threads contends for */

static char *base64(const unsigned char *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc(4 * ((n + 2) / 3) + 1), *o = out;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

/* A fresh ed25519 public key line (random key bytes), URL-encoded for a form. */
static char *new_key_form(void)
{
	static const char type[] = "ssh-ed25519";
	unsigned char blob[4 + sizeof(type) - 1 + 4 + 32], *p = blob;
	size_t tn = sizeof(type) - 1;
	*p++ = 0, *p++ = 0, *p++ = 0, *p++ = (unsigned char)tn;
	memcpy(p, type, tn);
	p += tn;
	*p++ = 0, *p++ = 0, *p++ = 0, *p++ = 32;
	FILE *f = fopen("/dev/urandom", "rb");
	ck_assert(f != NULL);
	ck_assert(fread(p, 1, 32, f) == 32);
	fclose(f);
	char *b64 = S(base64(blob, sizeof(blob)));
	return S(enc(S(fmt("ssh-ed25519 %s race@collabd", b64))));
}

struct keys {
	char *token[NTHREADS];
	char *form[NTHREADS][KPER];
};

static void keys_body(th *t)
{
	struct keys *c = t->ctx;
	for (int i = 0; i < KPER; i++)
		treq(t, "POST", "/user/keys", c->token[t->n], c->form[t->n][i]);
}

START_TEST(test_concurrent_same_key)
{
	load_instances();
	struct keys c;
	long long uid[NTHREADS];
	users(NTHREADS, "iku", c.token, uid);
	/* key i of pair m goes to users 2m and 2m + 1 at once, one on each instance */
	for (int m = 0; m < NTHREADS / 2; m++)
		for (int i = 0; i < KPER; i++) {
			char *key = new_key_form();
			for (int n = 2 * m; n <= 2 * m + 1; n++)
				c.form[n][i] = S(fmt("title=k%d-%d-n%d&key=%s", m, i, n, key));
		}

	th ts[NTHREADS];
	run_threads(ts, keys_body, &c);

	long long mine[NTHREADS][KPER];
	int nmine[NTHREADS] = {0};
	for (int m = 0; m < NTHREADS / 2; m++)
		for (int i = 0; i < KPER; i++) {
			int wins = 0;
			for (int n = 2 * m; n <= 2 * m + 1; n++) {
				resp *r = got(ts, n, i);
				if (r->status == 201) {
					wins++;
					ck_assert_str_eq(jstr(r->json, "title"),
							 S(fmt("k%d-%d-n%d", m, i, n)));
					mine[n][nmine[n]++] = jint(r->json, "id");
				} else {
					ck_is(r, 400, TAKEN_KEY,
					      "key %d-%d, thread %d (instance %d)", m, i, n,
					      n % 2 + 1);
				}
			}
			ck_assert_msg(wins == 1, "key %d-%d added %d times", m, i, wins);
		}
	/* every user holds exactly the keys they were answered 201 for */
	for (int n = 0; n < NTHREADS; n++) {
		resp *r = on(n % 2, "GET", "/user/keys?per_page=100", c.token[n], NULL);
		ck_code(r, 200);
		ck_assert_msg(json_object_array_length(r->json) == (size_t)nmine[n],
			      "user %d: %d keys added, listed: %s", n, nmine[n], r->body);
		for (int i = 0; i < nmine[n]; i++) {
			bool found = false;
			for (size_t k = 0; k < json_object_array_length(r->json) && !found; k++)
				found = jint(json_object_array_get_idx(r->json, k), "id") ==
					mine[n][i];
			ck_assert_msg(found, "user %d: key %lld not listed: %s", n, mine[n][i],
				      r->body);
		}
	}
}
END_TEST

/* ---- 4. stars and unstars of one project ---- */

#define SUSERS (NTHREADS / 2) /* user m stars and unstars from threads 2m and 2m + 1 */
#define SOPS 9

struct stars {
	char *token[SUSERS];
	const char *star, *unstar;
};

/* Thread n's request i stars when (i + n) is even, else unstars: the two threads of a
 * user ask for opposite things at the same moment, and whichever ends last (an even
 * thread with a star, an odd one with an unstar) decides the user's star. */
static bool is_star(int n, int i)
{
	return (i + n) % 2 == 0;
}

static void stars_body(th *t)
{
	struct stars *c = t->ctx;
	for (int i = 0; i < SOPS; i++)
		treq(t, "POST", is_star(t->n, i) ? c->star : c->unstar, c->token[t->n / 2], NULL);
}

START_TEST(test_concurrent_stars)
{
	load_instances();
	char *owner_token = S(make_user("iso", NULL, NULL));
	long long pid = api_project(owner_token, "public", NULL);
	struct stars c;
	long long uid[SUSERS];
	users(SUSERS, "isu", c.token, uid);
	c.star = S(fmt("/projects/%lld/star", pid));
	c.unstar = S(fmt("/projects/%lld/unstar", pid));

	th ts[NTHREADS];
	run_threads(ts, stars_body, &c);

	/* 201 when the request changed something, 304 when not; per user the changes add up
	 * to their star (0 or 1) */
	long long total = 0;
	for (int m = 0; m < SUSERS; m++) {
		int net = 0;
		for (int n = 2 * m; n <= 2 * m + 1; n++)
			for (int i = 0; i < SOPS; i++) {
				resp *r = got(ts, n, i);
				ck_assert_msg(r->status == 201 || r->status == 304,
					      "user %d, thread %d, %s: %ld %s", m, n,
					      is_star(n, i) ? "star" : "unstar", r->status,
					      r->body);
				if (r->status == 201) {
					ck_assert_int_eq(jint(r->json, "id"), pid);
					net += is_star(n, i) ? 1 : -1;
				}
			}
		ck_assert_msg(net == 0 || net == 1, "user %d: %d stars added in all", m, net);
		long long rows = sql_int("SELECT count(*) FROM users_star_projects WHERE"
					 " user_id = %lld AND project_id = %lld",
					 uid[m], pid);
		ck_assert_msg(rows == net, "user %d: %lld stars stored, the responses added %d", m,
			      rows, net);
		resp *r = on(m % 2, "GET", "/projects?starred=true&simple=true", c.token[m], NULL);
		ck_code(r, 200);
		ck_assert_msg(json_object_array_length(r->json) == (size_t)net,
			      "user %d: starred projects %s, expected %d", m, r->body, net);
		total += net;
	}
	for (int i = 0; i < 2; i++) {
		resp *r = on(i, "GET", S(fmt("/projects/%lld", pid)), owner_token, NULL);
		ck_code(r, 200);
		ck_assert_msg(jint(r->json, "star_count") == total,
			      "star_count %lld on instance %d, %lld users starred it",
			      jint(r->json, "star_count"), i + 1, total);
	}
	ck_assert_int_eq(sql_int("SELECT count(*) FROM users_star_projects WHERE project_id = %lld",
				 pid),
			 total);
	printf("instances: %lld of %d users starred the project at the end\n", total, SUSERS);
}
END_TEST

/* ---- forks: the fork counter of one project ---- */

struct forks {
	char *token[NTHREADS]; /* one user per thread */
	const char *path;      /* POST /projects/:id/fork */
};

static void forks_body(th *t)
{
	struct forks *c = t->ctx;
	treq(t, "POST", c->path, c->token[t->n], NULL);
}

/* Every thread's user forks one project at once, half through each instance: 16 forks,
 * each its own project, and forks_count 16 on both instances. */
START_TEST(test_concurrent_forks)
{
	load_instances();
	char *owner_token = S(make_user("ifo", NULL, NULL));
	long long pid = api_project(owner_token, "public", NULL);
	struct forks c;
	long long uid[NTHREADS], ids[NTHREADS];
	users(NTHREADS, "ifu", c.token, uid);
	c.path = S(fmt("/projects/%lld/fork", pid));

	th ts[NTHREADS];
	run_threads(ts, forks_body, &c);

	for (int n = 0; n < NTHREADS; n++) {
		resp *r = got(ts, n, 0);
		ck_assert_msg(r->status == 201, "thread %d: %ld %s", n, r->status, r->body);
		ids[n] = jint(r->json, "id");
		ck_assert_int_ne(ids[n], pid);
		json_object *from = jget(r->json, "forked_from_project");
		ck_assert_msg(from && jint(from, "id") == pid, "thread %d: %s", n, r->body);
		ck_assert_int_eq(
			jint(jget(r->json, "namespace"), "id"),
			sql_int("SELECT id FROM namespaces WHERE owner_id = %lld AND kind = 'user'",
				uid[n]));
		for (int m = 0; m < n; m++)
			ck_assert_msg(ids[m] != ids[n], "threads %d and %d got project %lld", m, n,
				      ids[n]);
	}
	for (int i = 0; i < 2; i++) {
		resp *r = on(i, "GET", S(fmt("/projects/%lld", pid)), owner_token, NULL);
		ck_code(r, 200);
		ck_assert_msg(jint(r->json, "forks_count") == NTHREADS,
			      "forks_count %lld on instance %d after %d forks",
			      jint(r->json, "forks_count"), i + 1, NTHREADS);
	}
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE forked_from_id = %lld", pid),
			 NTHREADS);
}
END_TEST

/* ---- 5. deletions and their background jobs ---- */

#define DPROJECTS 30 /* project p is deleted by threads 2m and 2m + 1, m = p % 8 */

struct deletes {
	char *path[DPROJECTS]; /* DELETE /projects/:id */
};

static void deletes_body(th *t)
{
	struct deletes *c = t->ctx;
	for (int p = t->n / 2; p < DPROJECTS; p += NTHREADS / 2)
		treq(t, "DELETE", c->path[p], admin_token(), NULL);
}

/* The id the last queued background job got (0: none yet). */
static long long last_job_id(void)
{
	return sql_int("SELECT CASE WHEN is_called THEN last_value ELSE 0 END"
		       " FROM background_jobs_id_seq");
}

/* Counts the "background job N (kind) done" and "... failed" lines of the instances'
 * logs for the jobs first..last (done[i] and failed[i] for job first + i), and which
 * instance did them. */
static void job_lines(long long first, long long last, int *done, int *failed, int by[2])
{
	const char *d = getenv("COLLABD_DIR");
	ck_assert(d != NULL);
	memset(done, 0, sizeof(int) * (size_t)(last - first + 1));
	memset(failed, 0, sizeof(int) * (size_t)(last - first + 1));
	by[0] = by[1] = 0;
	for (int i = 0; i < 2; i++) {
		char name[4096];
		snprintf(name, sizeof(name), "%s/collabd-%d.log", d, i + 1);
		FILE *f = fopen(name, "r");
		ck_assert_msg(f != NULL, "cannot open %s", name);
		char line[2048];
		while (fgets(line, sizeof(line), f)) {
			const char *at = strstr(line, "background job ");
			long long id;
			char kind[64], outcome[16];
			if (!at ||
			    sscanf(at, "background job %lld (%63[^)]) %15s", &id, kind, outcome) !=
				    3 ||
			    id < first || id > last)
				continue;
			if (strcmp(outcome, "done") == 0) {
				done[id - first]++;
				by[i]++;
			} else if (strcmp(outcome, "failed:") == 0) {
				failed[id - first]++;
			}
		}
		fclose(f);
	}
}

START_TEST(test_background_work_once)
{
	load_instances();
	char *gpath;
	long long gid = api_group(admin_token(), "private", &gpath);
	S(gpath);
	struct deletes c;
	long long ids[DPROJECTS];
	const char *repos[DPROJECTS];
	for (int p = 0; p < DPROJECTS; p++) {
		char *full;
		ids[p] = fixture_group_project(gid, 0, &full);
		S(full);
		c.path[p] = S(fmt("/projects/%lld", ids[p]));
		repos[p] = S(repo_dir_of(ids[p]));
		ck_assert_msg(exists(repos[p]), "no repository for %s", full);
	}
	long long before = last_job_id();

	th ts[NTHREADS];
	run_threads(ts, deletes_body, &c);

	/* one 202 per project; the other request finds it gone */
	for (int p = 0; p < DPROJECTS; p++) {
		int m = p % (NTHREADS / 2), i = p / (NTHREADS / 2), accepted = 0;
		for (int n = 2 * m; n <= 2 * m + 1; n++) {
			resp *r = got(ts, n, i);
			if (r->status == 202) {
				ck_is(r, 202, ACCEPTED, "project %d, thread %d", p, n);
				accepted++;
			} else {
				ck_is(r, 404, PROJECT_NOT_FOUND,
				      "project %d, thread %d (instance %d)", p, n, n % 2 + 1);
			}
		}
		ck_assert_msg(accepted == 1, "project %d: %d deletions accepted", p, accepted);
	}
	/* one job per deletion */
	long long last = last_job_id();
	ck_assert_msg(last - before == DPROJECTS, "%lld jobs queued for %d deletions",
		      last - before, DPROJECTS);

	/* wait (30 s at most) until both background processes have done all of it: no job
	 * left, the rows gone, the repositories removed, every job logged */
	static int done[DPROJECTS], failed[DPROJECTS];
	int by[2];
	long long jobs = -1, rows = -1;
	int entries = -1, logged = 0;
	for (int tries = 0; tries < 150; tries++) {
		jobs = sql_int("SELECT count(*) FROM background_jobs WHERE id > %lld", before);
		rows = sql_int("SELECT count(*) FROM projects WHERE namespace_id = %lld", gid);
		entries = 0;
		for (int p = 0; p < DPROJECTS; p++)
			entries += exists(repos[p]);
		job_lines(before + 1, last, done, failed, by);
		logged = 0;
		for (int i = 0; i < DPROJECTS; i++)
			logged += done[i] > 0;
		if (jobs == 0 && rows == 0 && entries <= 0 && logged == DPROJECTS)
			break;
		usleep(200 * 1000);
	}
	ck_assert_msg(jobs == 0, "%lld jobs still queued after 30 s", jobs);
	ck_assert_msg(rows == 0, "%lld deleted projects still have rows after 30 s", rows);
	ck_assert_msg(entries <= 0, "%d repositories of deleted projects remain after 30 s",
		      entries);
	/* each job done exactly once, by one instance or the other, and none failed */
	for (int i = 0; i < DPROJECTS; i++) {
		ck_assert_msg(done[i] == 1, "job %lld done %d times", before + 1 + i, done[i]);
		ck_assert_msg(failed[i] == 0, "job %lld failed %d times", before + 1 + i,
			      failed[i]);
	}
	printf("instances: deletion jobs done by instance 1: %d, instance 2: %d\n", by[0], by[1]);
}
END_TEST

Suite *suite_instances(void)
{
	Suite *s = suite_create("instances");
	TCase *tc = tcase_create("instances");
	tcase_set_timeout(tc, 180);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_concurrent_project_creates);
	tcase_add_test(tc, test_concurrent_projects_and_subgroups);
	tcase_add_test(tc, test_concurrent_member_adds);
	tcase_add_test(tc, test_concurrent_same_key);
	tcase_add_test(tc, test_concurrent_stars);
	tcase_add_test(tc, test_concurrent_forks);
	tcase_add_test(tc, test_background_work_once);
	suite_add_tcase(s, tc);
	return s;
}
