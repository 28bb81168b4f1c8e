/* Webhooks in the background process (hooks_sender.h). */
#include "hooks_sender.h"

#include <curl/curl.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "api/api.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/netcheck.h"
#include "db/settings.h"
#include "db/webhooks.h"
#include "entity/hook.h"
#include "git/commits.h"

/* the columns of hooks_sender_claim */
enum { SC_ID, SC_EVENT, SC_PAYLOAD, SC_ATTEMPTS, SC_URL, SC_TOKEN, SC_SSL, SC_NCOLS };

#define STR_(x) #x
#define STR(x) STR_(x)

const db_stmt hooks_sender_stmts[] = {
	/* At most $1 due deliveries, each the earliest unfinished one of its hook, that no
	 * other sender holds: leased for 20 s, twice the timeout (a sender that dies gives them back then). */
	{"hooks_sender_claim",
	 /* hk: the hooks with unfinished deliveries, one index probe each (a skip scan of
	  * web_hook_deliveries_hook_idx); heads: the earliest of each. The cost follows the
	  * hooks that wait, not the deliveries: a backlog of thousands behind a few hooks
	  * is not read at every claim. */
	 "WITH RECURSIVE hk AS ((SELECT hook_id FROM web_hook_deliveries"
	 "  WHERE state <> 'failed' ORDER BY hook_id LIMIT 1)"
	 " UNION ALL SELECT (SELECT e.hook_id FROM web_hook_deliveries e"
	 "  WHERE e.state <> 'failed' AND e.hook_id > hk.hook_id ORDER BY e.hook_id LIMIT 1)"
	 "  FROM hk WHERE hk.hook_id IS NOT NULL),"
	 " heads AS (SELECT h.id FROM hk CROSS JOIN LATERAL (SELECT e.id FROM web_hook_deliveries e"
	 "  WHERE e.hook_id = hk.hook_id AND e.state <> 'failed' ORDER BY e.id LIMIT 1) h),"
	 " due AS (SELECT d.id FROM web_hook_deliveries d WHERE d.id IN (SELECT id FROM heads)"
	 " AND d.payload IS NOT NULL AND d.next_attempt_at <= now()"
	 " AND (d.state = 'pending' OR d.locked_until <= now())"
	 " ORDER BY d.next_attempt_at, d.id LIMIT $1 FOR UPDATE OF d SKIP LOCKED)"
	 " UPDATE web_hook_deliveries d SET state = 'sending', attempts = d.attempts + 1,"
	 " locked_until = now() + interval '20 seconds' FROM due, web_hooks w"
	 " WHERE d.id = due.id AND w.id = d.hook_id RETURNING d.id, d.event, d.payload::text,"
	 " d.attempts, w.url, w.token_sealed, w.enable_ssl_verification",
	 1, SC_NCOLS},
	{"hooks_sender_done", "DELETE FROM web_hook_deliveries WHERE id = $1 AND state = 'sending'",
	 1, 0},
	/* $1 id, $2 the receiver's status (NULL: none), $3 what went wrong */
	{"hooks_sender_retry",
	 "UPDATE web_hook_deliveries SET state = CASE WHEN attempts >= " STR(
		 HOOKS_SENDER_MAX_ATTEMPTS) " THEN 'failed' ELSE 'pending' END,"
					    " next_attempt_at = now() + least(interval '1 hour',"
					    " interval '2 seconds' * power(2, least(attempts - 1, 20))),"
					    " locked_until = NULL, last_status = $2::integer, last_error = left($3, 1000)"
					    " WHERE id = $1 AND state = 'sending'",
	 3, 0},
	/* A job of a job event (entity/hook.h HJB_) */
	{"hooks_sender_job",
	 "SELECT cs.id, cs.name, cs.stage, cs.allow_failure, cs.ref, b.tag, p.before_sha, cs.sha,"
	 " cs.pipeline_id, p.status, p.duration, hook_time(p.started_at), hook_time(p.finished_at),"
	 " n.name || ' / ' || pr.name, cs.author_id FROM commit_statuses cs"
	 " JOIN ci_builds b ON b.id = cs.id JOIN ci_pipelines p ON p.id = cs.pipeline_id"
	 " JOIN projects pr ON pr.id = cs.project_id JOIN namespaces n ON n.id = pr.namespace_id"
	 " WHERE cs.id = $1::bigint",
	 1, HJB_NCOLS + 1},
	/* A pipeline of a pipeline event (entity/hook.h HPL_), its jobs as 10.8's
	 * Gitlab::DataBuilder::Pipeline#build_hook_attrs, then its user */
	{"hooks_sender_pipeline",
	 "SELECT p.id, p.ref, p.tag, p.sha, p.before_sha, hook_time(p.created_at),"
	 " (SELECT coalesce(json_agg(s.stage ORDER BY s.idx), '[]') FROM (SELECT stage,"
	 " min(stage_idx) AS idx FROM commit_statuses WHERE pipeline_id = p.id AND NOT retried"
	 " GROUP BY stage) s),"
	 " (SELECT coalesce(json_agg(json_build_object('id', cs.id, 'stage', cs.stage,"
	 " 'name', cs.name, 'status', cs.status, 'created_at', hook_time(cs.created_at),"
	 " 'started_at', hook_time(cs.started_at), 'finished_at', hook_time(cs.finished_at),"
	 " 'when', cs.\"when\", 'manual', cs.\"when\" = 'manual',"
	 " 'user', CASE WHEN u.id IS NOT NULL THEN json_build_object('name', u.name,"
	 " 'username', u.username, 'avatar_url', NULL) END,"
	 " 'runner', CASE WHEN r.id IS NOT NULL THEN json_build_object('id', r.id,"
	 " 'description', r.description, 'active', r.active, 'is_shared', r.is_shared) END,"
	 " 'artifacts_file', json_build_object('filename', b.artifacts_file,"
	 " 'size', b.artifacts_size)) ORDER BY cs.id), '[]')"
	 " FROM commit_statuses cs JOIN ci_builds b ON b.id = cs.id"
	 " LEFT JOIN users u ON u.id = cs.author_id LEFT JOIN ci_runners r ON r.id = b.runner_id"
	 " WHERE cs.pipeline_id = p.id AND NOT cs.retried),"
	 " p.user_id FROM ci_pipelines p WHERE p.id = $1::bigint",
	 1, HPL_NCOLS + 1},
	{NULL, NULL, 0, 0},
};

/* One delivery in flight; its memory is its own (the background's arena is reset
 * between steps). */
typedef struct transfer {
	char *id;
	CURL *easy;
	struct curl_slist *headers;
	char *body;
	bool allow_local;
	bool blocked; /* a connection to a local address was refused */
	char error[CURL_ERROR_SIZE];
	struct transfer *next;
} transfer;

struct hooks_sender {
	CURLM *multi;
	transfer *flying;
	int n;
};

hooks_sender *hooks_sender_new(void)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return NULL;
	hooks_sender *s = calloc(1, sizeof(*s));
	if (!s || !(s->multi = curl_multi_init())) {
		free(s);
		return NULL;
	}
	return s;
}

static void transfer_free(hooks_sender *s, transfer *t)
{
	if (t->easy) {
		curl_multi_remove_handle(s->multi, t->easy);
		curl_easy_cleanup(t->easy);
	}
	curl_slist_free_all(t->headers);
	free(t->body);
	free(t->id);
	free(t);
}

void hooks_sender_free(hooks_sender *s)
{
	if (!s)
		return;
	while (s->flying) {
		transfer *t = s->flying;
		s->flying = t->next;
		transfer_free(s, t); /* leased: sent again when the lease ends */
	}
	curl_multi_cleanup(s->multi);
	free(s);
	curl_global_cleanup();
}

/* The address check, on the address the connection is about to be made to. */
static curl_socket_t open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *addr)
{
	transfer *t = arg;
	(void)purpose;
	if (!t->allow_local && netcheck_local_addr(&addr->addr)) {
		t->blocked = true;
		return CURL_SOCKET_BAD;
	}
	return socket(addr->family, addr->socktype, addr->protocol);
}

/* The receiver's answer is not kept. */
static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

/* A header value that cannot break the request: no control character. */
static bool header_safe(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			return false;
	return true;
}

static int record(ctx *c, const char *id, long status, const char *why)
{
	int err;
	if (!why) {
		const char *v[1] = {id};
		metrics_add(METRIC_WEBHOOK_DELIVERIES, 1);
		return db_query(c, "hooks_sender_done", 1, v, &err) ? 0 : err;
	}
	const char *v[3] = {id, status ? arena_printf(c->a, "%ld", status) : NULL, why};
	metrics_add(METRIC_WEBHOOK_FAILURES, 1);
	log_warn("webhook delivery %s failed: %s", id, why);
	return db_query(c, "hooks_sender_retry", 3, v, &err) ? 0 : err;
}

/* Starts the delivery of row i of res (hooks_sender_claim); one that cannot start is
 * recorded as failed at once. */
static void start(hooks_sender *s, ctx *c, PGresult *res, int i, bool allow_local)
{
	const char *id = PQgetvalue(res, i, SC_ID);
	const char *token = db_val(res, i, SC_TOKEN);
	if (token && !(token = crypto_open(c->a, c->key, token))) {
		record(c, id, 0, "the hook's token cannot be read with this instance key");
		return;
	}
	transfer *t = calloc(1, sizeof(*t));
	if (!t || !(t->id = strdup(id)) || !(t->body = strdup(PQgetvalue(res, i, SC_PAYLOAD))) ||
	    !(t->easy = curl_easy_init())) {
		if (t)
			transfer_free(s, t);
		record(c, id, 0, "out of memory");
		return;
	}
	t->allow_local = allow_local;
	const char *event = PQgetvalue(res, i, SC_EVENT);
	struct curl_slist *h = NULL;
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, arena_printf(c->a, "X-Gitlab-Event: %s", event));
	if (token && *token && header_safe(token))
		h = curl_slist_append(h, arena_printf(c->a, "X-Gitlab-Token: %s", token));
	h = curl_slist_append(h, "Expect:");
	t->headers = h;
	bool ssl = db_bool(res, i, SC_SSL);
	CURL *e = t->easy;
	curl_easy_setopt(e, CURLOPT_URL, PQgetvalue(res, i, SC_URL));
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_PROXY, ""); /* the address check is on the receiver's */
	curl_easy_setopt(e, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, ssl ? 1L : 0L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, ssl ? 2L : 0L);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_socket);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, t);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "GitLab/" API_VERSION);
	curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body);
	curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(t->body));
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error);
	curl_easy_setopt(e, CURLOPT_PRIVATE, t);
	if (curl_multi_add_handle(s->multi, e) != CURLM_OK) {
		transfer_free(s, t);
		record(c, id, 0, "the transfer cannot start");
		return;
	}
	t->next = s->flying;
	s->flying = t;
	s->n++;
}

static void claim(hooks_sender *s, ctx *c)
{
	if (s->n >= HOOKS_SENDER_MAX_FLIGHT)
		return;
	const char *v[1] = {arena_printf(c->a, "%d", HOOKS_SENDER_MAX_FLIGHT - s->n)};
	int err;
	PGresult *res = db_query(c, "hooks_sender_claim", 1, v, &err);
	if (!res || PQntuples(res) == 0)
		return;
	bool allow_local = settings_allow_local_requests(c);
	for (int i = 0; i < PQntuples(res); i++)
		start(s, c, res, i, allow_local);
}

/* Records the transfer of msg, which ended. */
static void finish(hooks_sender *s, ctx *c, CURLMsg *msg)
{
	transfer *t = NULL;
	curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&t);
	if (!t)
		return;
	for (transfer **p = &s->flying; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			s->n--;
			break;
		}
	long status = 0;
	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
	const char *why = NULL;
	if (t->blocked)
		why = "blocked: requests to the local network are not allowed";
	else if (msg->data.result != CURLE_OK)
		why = arena_strdup(c->a,
				   t->error[0] ? t->error : curl_easy_strerror(msg->data.result));
	else if (status < 200 || status > 299)
		why = arena_printf(c->a, "the receiver answered %ld", status);
	record(c, t->id, why && t->blocked ? 0 : status, why);
	transfer_free(s, t);
}

int hooks_sender_step(hooks_sender *s, ctx *c)
{
	if (!s)
		return 0;
	/* A delivery that ended makes its hook's next one due: claimed and started at once,
	 * pass after pass while transfers end (a hook's deliveries follow each other at the
	 * receiver's pace, not the background loop's), at most HOOKS_SENDER_PASSES times so
	 * that the jobs are not kept waiting. */
	for (int pass = 0; pass < HOOKS_SENDER_PASSES; pass++) {
		if (c->db->conn && PQstatus(c->db->conn) == CONNECTION_OK && !db_in_transaction(c))
			claim(s, c);
		if (s->n == 0)
			break;
		int running, ended = 0;
		curl_multi_perform(s->multi, &running);
		CURLMsg *msg;
		int left;
		while ((msg = curl_multi_info_read(s->multi, &left)))
			if (msg->msg == CURLMSG_DONE) {
				finish(s, c, msg);
				ended++;
			}
		if (ended == 0)
			break;
	}
	return s->n;
}

void hooks_sender_wait(hooks_sender *s, struct pollfd *fds, int n, int timeout_ms)
{
	struct curl_waitfd extra[4];
	if (n > 4)
		n = 4;
	for (int i = 0; i < n; i++)
		extra[i] = (struct curl_waitfd){.fd = fds[i].fd, .events = (short)fds[i].events};
	long curl_ms = -1;
	curl_multi_timeout(s->multi, &curl_ms);
	if (curl_ms >= 0 && curl_ms < timeout_ms)
		timeout_ms = (int)curl_ms;
	int numfds;
	curl_multi_wait(s->multi, extra, (unsigned)n, timeout_ms, &numfds);
	for (int i = 0; i < n; i++)
		fds[i].revents = extra[i].revents;
}

/* ---- push and tag push events ---- */

/* The paths commit added, modified and removed against its first parent. */
static void commit_paths(git_repository *repo, git_commit *commit, json_object **added,
			 json_object **modified, json_object **removed)
{
	*added = json_object_new_array();
	*modified = json_object_new_array();
	*removed = json_object_new_array();
	git_tree *tree = NULL, *parent_tree = NULL;
	git_commit *parent = NULL;
	git_diff *diff = NULL;
	if (git_commit_tree(&tree, commit) < 0)
		goto cleanup;
	if (git_commit_parentcount(commit) > 0 && git_commit_parent(&parent, commit, 0) == 0)
		git_commit_tree(&parent_tree, parent);
	if (git_diff_tree_to_tree(&diff, repo, parent_tree, tree, NULL) < 0)
		goto cleanup;
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		json_object *to = d->status == GIT_DELTA_ADDED     ? *added
				  : d->status == GIT_DELTA_DELETED ? *removed
								   : *modified;
		const char *path = d->status == GIT_DELTA_DELETED ? d->old_file.path
								  : d->new_file.path;
		json_object_array_add(to, json_object_new_string(path));
	}
cleanup:
	git_diff_free(diff);
	git_commit_free(parent);
	git_tree_free(parent_tree);
	git_tree_free(tree);
}

#define PUSH_COMMITS_SHOWN 20 /* 10.8's limit of the commits a push event lists */
#define ZERO_SHA "0000000000000000000000000000000000000000"

/* The commits of a branch push from before to after, oldest first: the newest
 * PUSH_COMMITS_SHOWN of them as payload commits in *out, their number in *total. A new
 * branch counts the commits no other branch has. */
static void branch_commits(ctx *c, git_repository *repo, const char *ref, const char *before,
			   const char *after, const char *web_url, json_object **out,
			   long long *total)
{
	*out = json_object_new_array();
	*total = 0;
	git_oid to, from, keep[PUSH_COMMITS_SHOWN];
	git_revwalk *walk = NULL;
	if (git_oid_fromstr(&to, after) < 0 || git_revwalk_new(&walk, repo) < 0)
		return;
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
	if (git_revwalk_push(walk, &to) < 0)
		goto cleanup;
	if (strcmp(before, ZERO_SHA) != 0 && git_oid_fromstr(&from, before) == 0) {
		git_revwalk_hide(walk, &from);
	} else {
		git_reference_iterator *it = NULL;
		git_reference *r;
		if (git_reference_iterator_glob_new(&it, repo, "refs/heads/*") == 0)
			while (git_reference_next(&r, it) == 0) {
				if (strcmp(git_reference_name(r), ref) != 0 &&
				    git_reference_target(r))
					git_revwalk_hide(walk, git_reference_target(r));
				git_reference_free(r);
			}
		git_reference_iterator_free(it);
	}
	/* newest first: the first PUSH_COMMITS_SHOWN are the ones shown */
	git_oid id;
	int n = 0;
	while (git_revwalk_next(&id, walk) == 0) {
		if (n < PUSH_COMMITS_SHOWN)
			keep[n++] = id;
		(*total)++;
	}
	for (int i = n - 1; i >= 0; i--) {
		git_commit *commit = NULL;
		if (git_commit_lookup(&commit, repo, &keep[i]) < 0)
			continue;
		json_object *a, *m, *r;
		commit_paths(repo, commit, &a, &m, &r);
		json_object_array_add(*out, entity_hook_commit(c, commit, web_url, a, m, r));
		git_commit_free(commit);
	}
cleanup:
	git_revwalk_free(walk);
}

/* Queues event (released here) as the payload of key's webhooks, and of the system
 * hooks too when to_system: 0, or -1 with *why = failure. */
static int queue_event(ctx *c, const char *key, json_object *event, bool to_system,
		       const char *failure, const char **why)
{
	const char *text =
		arena_strdup(c->a, json_object_to_json_string_ext(event, JSON_C_TO_STRING_PLAIN));
	json_object_put(event);
	if (webhooks_fill(c, key, text, to_system ? text : NULL) < 0) {
		*why = failure;
		return -1;
	}
	return 0;
}

/* The repository_update event of a push ({key, changes}, carried by its first job) for
 * the system hooks that want it. 0, or -1 with *why. */
static int repository_update(ctx *c, json_object *update, const char *project_id,
			     const char *user_id, const char **why)
{
	json_object *v, *changes;
	if (!json_object_object_get_ex(update, "key", &v) ||
	    !json_object_object_get_ex(update, "changes", &changes) ||
	    !json_object_is_type(changes, json_type_array) || !project_id) {
		*why = "the push job's repository_update lacks its key or changes";
		return -1;
	}
	const char *key = json_object_get_string(v);
	PGresult *res = NULL;
	int rc = webhooks_push_context(c, project_id, user_id, key, &res);
	if (rc == ERR_NOT_FOUND || (rc == 0 && !db_bool(res, 0, WPC_HAS_HOOKS)))
		return 0;
	if (rc < 0) {
		*why = "cannot read the project of the push";
		return -1;
	}
	json_object *refs = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(changes); i++) {
		json_object *ref;
		if (json_object_object_get_ex(json_object_array_get_idx(changes, i), "ref", &ref))
			json_object_array_add(refs, json_object_get(ref));
	}
	json_object *event = entity_hook_repository_update(c, res, json_object_get(changes), refs);
	return queue_event(c, key, event, true, "cannot queue the push's repository_update", why);
}

int hooks_sender_on_push(ctx *c, json_object *payload, const char **why)
{
	json_object *v;
	const char *project_id = NULL, *user_id = NULL, *ref = NULL, *before = NULL, *after = NULL,
		   *key = NULL;
	if (json_object_object_get_ex(payload, "project_id", &v))
		project_id = arena_printf(c->a, "%lld", (long long)json_object_get_int64(v));
	if (json_object_object_get_ex(payload, "user_id", &v))
		user_id = arena_printf(c->a, "%lld", (long long)json_object_get_int64(v));
	if (json_object_object_get_ex(payload, "ref", &v))
		ref = json_object_get_string(v);
	if (json_object_object_get_ex(payload, "before", &v))
		before = json_object_get_string(v);
	if (json_object_object_get_ex(payload, "after", &v))
		after = json_object_get_string(v);
	if (json_object_object_get_ex(payload, "hooks_key", &v))
		key = json_object_get_string(v);
	if (json_object_object_get_ex(payload, "repository_update", &v) &&
	    repository_update(c, v, project_id, user_id, why) < 0)
		return -1;
	if (!key)
		return 0; /* the push queued no delivery */
	if (!project_id || !ref || !before || !after) {
		*why = "the push job's payload lacks project_id, ref, before or after";
		return -1;
	}
	bool branch = strncmp(ref, "refs/heads/", 11) == 0,
	     tag = strncmp(ref, "refs/tags/", 10) == 0;
	if (!branch && !tag)
		return 0;
	PGresult *res;
	int rc = webhooks_push_context(c, project_id, user_id, key, &res);
	if (rc == ERR_NOT_FOUND)
		return 0; /* the project went meanwhile: nobody to tell */
	if (rc < 0) {
		*why = "cannot read the project of the push";
		return -1;
	}
	if (!db_bool(res, 0, WPC_HAS_HOOKS))
		return 0; /* no hook wanted it: no git work */
	git_repository *repo = NULL;
	if (gitc_open(c, project_id, &repo) < 0) {
		*why = "cannot open the repository of the push";
		return -1;
	}
	const char *web_url =
		project_web_url(c, db_val(res, 0, WPC_NAMESPACE_PATH), db_val(res, 0, WPC_PATH));
	bool removed = strcmp(after, ZERO_SHA) == 0;
	json_object *commits = NULL, *event;
	long long total = 0;
	const char *checkout_sha = NULL, *message = NULL;
	if (branch) {
		if (!removed) {
			branch_commits(c, repo, ref, before, after, web_url, &commits, &total);
			checkout_sha = after;
		}
		event = entity_hook_push(c, res, "push", before, after, ref, checkout_sha, NULL,
					 commits, total);
	} else {
		/* 10.8's GitTagPushService: the tagged commit and the tag's message */
		commits = json_object_new_array();
		git_object *obj = NULL, *target = NULL;
		if (!removed && git_revparse_single(&obj, repo, after) == 0) {
			if (git_object_type(obj) == GIT_OBJECT_TAG)
				message = arena_strdup(c->a, git_tag_message((git_tag *)obj));
			if (git_object_peel(&target, obj, GIT_OBJECT_COMMIT) == 0) {
				json_object *a, *m, *r;
				git_commit *commit = (git_commit *)target;
				char sha[GIT_OID_HEXSZ + 1];
				git_oid_tostr(sha, sizeof(sha), git_commit_id(commit));
				checkout_sha = arena_strdup(c->a, sha);
				commit_paths(repo, commit, &a, &m, &r);
				json_object_array_add(
					commits, entity_hook_commit(c, commit, web_url, a, m, r));
				total = 1;
			}
		}
		git_object_free(target);
		git_object_free(obj);
		event = entity_hook_push(c, res, "tag_push", before, after, ref, checkout_sha,
					 message, commits, total);
	}
	/* 10.8's system hooks get the same push data (it has event_name) */
	return queue_event(c, key, event, true, "cannot queue the push's webhooks", why);
}

/* A string member of o, or NULL. */
static const char *member(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) && !json_object_is_type(v, json_type_null)
		       ? json_object_get_string(v)
		       : NULL;
}

int hooks_sender_on_ci(ctx *c, json_object *payload, const char **why)
{
	const char *kind = member(payload, "kind"), *id = member(payload, "id"),
		   *key = member(payload, "hooks_key"), *project_id = member(payload, "project_id"),
		   *status = member(payload, "status");
	if (!kind || !id || !key || !project_id || !status) {
		*why = "the ci_hook job's payload lacks kind, id, hooks_key, project_id or status";
		return -1;
	}
	bool job = strcmp(kind, "job") == 0;
	int err;
	const char *v[1] = {id};
	PGresult *row = db_query(c, job ? "hooks_sender_job" : "hooks_sender_pipeline", 1, v, &err);
	if (!row) {
		*why = "cannot read the job or pipeline of a CI event";
		return -1;
	}
	/* gone meanwhile (its project deleted): its deliveries went with the hooks */
	if (PQntuples(row) == 0)
		return 0;
	const char *user_id = db_val(row, 0, job ? HJB_NCOLS : HPL_NCOLS);
	PGresult *res = NULL;
	int rc = webhooks_push_context(c, project_id, user_id, key, &res);
	if (rc == ERR_NOT_FOUND || (rc == 0 && !db_bool(res, 0, WPC_HAS_HOOKS)))
		return 0;
	if (rc < 0) {
		*why = "cannot read the project of a CI event";
		return -1;
	}
	const char *sha = db_val(row, 0, job ? HJB_SHA : HPL_SHA);
	git_repository *repo;
	git_commit *commit = NULL;
	if (gitc_open(c, project_id, &repo) != 0 || gitc_commit_by_id(c, repo, sha, &commit) != 0)
		commit = NULL; /* a repository or commit gone: its part is null */
	json_object *event;
	if (job) {
		json_object *d = NULL, *dv;
		if (json_object_object_get_ex(payload, "duration", &dv) &&
		    !json_object_is_type(dv, json_type_null))
			d = json_object_new_double(json_object_get_double(dv));
		event = entity_hook_job(c, res, row, status, member(payload, "started_at"),
					member(payload, "finished_at"), d, commit);
	} else {
		const char *web = project_web_url(c, db_val(res, 0, WPC_NAMESPACE_PATH),
						  db_val(res, 0, WPC_PATH));
		event = entity_hook_pipeline(c, res, row, status, member(payload, "finished_at"),
					     member(payload, "duration"),
					     commit ? entity_hook_last_commit(c, commit, web)
						    : NULL);
	}
	return queue_event(c, key, event, false, "cannot queue a CI event's webhooks", why);
}
