/* Webhooks' deliveries (db/webhooks.h). */
#include "db/webhooks.h"

#include "db/queue.h"

/* The flag of web_hooks each event needs, and its header (GitLab 10.8's WebHookService:
 * "#{hook_name.humanize} Hook"; jobs are "Job Hook" since 9.3). */
static const struct {
	const char *flag;
	const char *header;
} events[WEBHOOK_NEVENTS] = {
	[WEBHOOK_PUSH] = {"push_events", "Push Hook"},
	[WEBHOOK_TAG_PUSH] = {"tag_push_events", "Tag Push Hook"},
	[WEBHOOK_ISSUE] = {"issues_events", "Issue Hook"},
	[WEBHOOK_CONFIDENTIAL_ISSUE] = {"confidential_issues_events", "Issue Hook"},
	[WEBHOOK_MERGE_REQUEST] = {"merge_requests_events", "Merge Request Hook"},
	[WEBHOOK_NOTE] = {"note_events", "Note Hook"},
	[WEBHOOK_JOB] = {"job_events", "Job Hook"},
	[WEBHOOK_PIPELINE] = {"pipeline_events", "Pipeline Hook"},
	[WEBHOOK_WIKI_PAGE] = {"wiki_page_events", "Wiki Page Hook"},
	[WEBHOOK_SYSTEM] = {"system", "System Hook"},
};

/* The flag column named by text $2 of a web_hooks row w (no column name is ever built
 * from input: the CASE lists them); every statement that uses it takes the flag as $2. */
#define HOOK_FLAG                                                                                  \
	"CASE $2::text WHEN 'push_events' THEN w.push_events"                                      \
	" WHEN 'tag_push_events' THEN w.tag_push_events"                                           \
	" WHEN 'issues_events' THEN w.issues_events"                                               \
	" WHEN 'confidential_issues_events' THEN w.confidential_issues_events"                     \
	" WHEN 'merge_requests_events' THEN w.merge_requests_events"                               \
	" WHEN 'note_events' THEN w.note_events WHEN 'job_events' THEN w.job_events"               \
	" WHEN 'pipeline_events' THEN w.pipeline_events"                                           \
	" WHEN 'wiki_page_events' THEN w.wiki_page_events ELSE false END"

enum { WQ_PROJECT, WQ_FLAG, WQ_HEADER, WQ_PAYLOAD, WQ_SYSTEM_PAYLOAD, WQ_NPARAMS };

const db_stmt db_webhooks_stmts[] = {
	/* One delivery per hook that wants the event, in hook order; the NOTIFY wakes the
	 * background processes at commit. System hooks: every system event, and the pushes
	 * of their flags (10.8's SystemHooksService :push_hooks, :tag_push_hooks). */
	{"webhooks_queue",
	 "WITH ins AS (INSERT INTO web_hook_deliveries (hook_id, event, payload)"
	 " SELECT w.id, CASE WHEN w.project_id IS NULL THEN 'System Hook' ELSE $3::text END,"
	 " CASE WHEN w.project_id IS NULL THEN $5::jsonb ELSE $4::jsonb END"
	 " FROM web_hooks w WHERE (w.project_id = $1::bigint AND $4 IS NOT NULL AND " HOOK_FLAG ")"
	 " OR (w.project_id IS NULL AND $5 IS NOT NULL AND ($2::text = 'system'"
	 " OR ($2::text = 'push_events' AND w.push_events)"
	 " OR ($2::text = 'tag_push_events' AND w.tag_push_events)))"
	 " ORDER BY w.id RETURNING 1)"
	 " SELECT pg_notify('" QUEUE_CHANNEL "', 'hooks') FROM (SELECT 1 FROM ins LIMIT 1) x",
	 WQ_NPARAMS, 1},
	/* The deliveries of a push, queued in its transaction without their payload, which
	 * the push job builds (webhooks_fill): $1 project, $2 flag, $3 header, $4 key. */
	{"webhooks_queue_push",
	 "INSERT INTO web_hook_deliveries (hook_id, event, build_key)"
	 " SELECT w.id, CASE WHEN w.project_id IS NULL THEN 'System Hook' ELSE $3::text END, $4"
	 " FROM web_hooks w WHERE (w.project_id = $1::bigint OR w.project_id IS NULL)"
	 " AND " HOOK_FLAG " ORDER BY w.id",
	 4, 0},
	/* The repository_update deliveries of a push for the system hooks that want it
	 * (10.8's :repository_update_hooks), filled in by the push job: $1 key */
	{"webhooks_queue_repository_update",
	 "INSERT INTO web_hook_deliveries (hook_id, event, build_key)"
	 " SELECT w.id, 'System Hook', $1 FROM web_hooks w"
	 " WHERE w.project_id IS NULL AND w.repository_update_events ORDER BY w.id",
	 1, 0},
	/* $1 key, $2 the project hooks' payload, $3 the system hooks' */
	{"webhooks_fill",
	 "WITH u AS (UPDATE web_hook_deliveries d SET payload = CASE WHEN d.event = 'System Hook'"
	 " THEN $3::jsonb ELSE $2::jsonb END, build_key = NULL WHERE d.build_key = $1 RETURNING 1)"
	 " SELECT pg_notify('" QUEUE_CHANNEL "', 'hooks') FROM (SELECT 1 FROM u LIMIT 1) x",
	 3, 1},
	/* $1 hook, $2 header, $3 payload */
	{"webhooks_queue_one",
	 "WITH ins AS (INSERT INTO web_hook_deliveries (hook_id, event, payload)"
	 " VALUES ($1::bigint, $2, $3::jsonb) RETURNING 1)"
	 " SELECT pg_notify('" QUEUE_CHANNEL "', 'hooks') FROM ins",
	 3, 1},
	/* $1 project, $2 user, $3 the push's key */
	{"webhooks_push_context",
	 "SELECT p.id, p.name, p.description, p.avatar, n.name, n.full_path, p.path, p.visibility,"
	 " p.default_branch, u.id, u.name, u.username, u.email, u.avatar,"
	 " EXISTS (SELECT 1 FROM web_hook_deliveries d WHERE d.build_key = $3)"
	 " FROM projects p JOIN namespaces n ON n.id = p.namespace_id"
	 " LEFT JOIN users u ON u.id = $2::bigint WHERE p.id = $1::bigint",
	 3, WPC_NCOLS},
	/* $1 project, $2 the flag of the event, $3 user: the same columns, HAS_HOOKS whether
	 * a hook of the project wants it */
	{"webhooks_event_context",
	 "SELECT p.id, p.name, p.description, p.avatar, n.name, n.full_path, p.path, p.visibility,"
	 " p.default_branch, u.id, u.name, u.username, u.email, u.avatar,"
	 " EXISTS (SELECT 1 FROM web_hooks w WHERE w.project_id = p.id AND " HOOK_FLAG ")"
	 " FROM projects p JOIN namespaces n ON n.id = p.namespace_id"
	 " LEFT JOIN users u ON u.id = $3::bigint WHERE p.id = $1::bigint",
	 3, WPC_NCOLS},
	{NULL, NULL, 0, 0},
};

const char *webhook_event_header(webhook_event ev)
{
	return ev >= 0 && ev < WEBHOOK_NEVENTS ? events[ev].header : NULL;
}

int webhooks_queue(ctx *c, const char *project_id, webhook_event ev, const char *payload,
		   const char *system_payload)
{
	if (ev < 0 || ev >= WEBHOOK_NEVENTS)
		return ERR_INVALID;
	const char *v[WQ_NPARAMS] = {
		[WQ_PROJECT] = project_id,
		[WQ_FLAG] = events[ev].flag,
		[WQ_HEADER] = events[ev].header,
		[WQ_PAYLOAD] = payload,
		[WQ_SYSTEM_PAYLOAD] = system_payload,
	};
	DB_PARAMS(v, WQ_NPARAMS);
	int err;
	return db_query(c, "webhooks_queue", WQ_NPARAMS, v, &err) ? 0 : err;
}

int webhooks_queue_one(ctx *c, const char *hook_id, webhook_event ev, const char *payload)
{
	if (ev < 0 || ev >= WEBHOOK_NEVENTS)
		return ERR_INVALID;
	const char *v[3] = {hook_id, events[ev].header, payload};
	int err;
	return db_query(c, "webhooks_queue_one", 3, v, &err) ? 0 : err;
}

int webhooks_queue_system(ctx *c, json_object *payload)
{
	if (!payload)
		return ERR_INTERNAL;
	const char *text =
		arena_strdup(c->a, json_object_to_json_string_ext(payload, JSON_C_TO_STRING_PLAIN));
	json_object_put(payload);
	return webhooks_queue(c, NULL, WEBHOOK_SYSTEM, NULL, text);
}

int webhooks_queue_push(ctx *c, const char *project_id, webhook_event ev, const char *key)
{
	if (ev != WEBHOOK_PUSH && ev != WEBHOOK_TAG_PUSH)
		return ERR_INVALID;
	const char *v[4] = {project_id, events[ev].flag, events[ev].header, key};
	/* no answer to wait for: it goes with the push's next statement */
	return db_defer(c, "webhooks_queue_push", 4, v);
}

int webhooks_queue_repository_update(ctx *c, const char *key)
{
	const char *v[1] = {key};
	return db_defer(c, "webhooks_queue_repository_update", 1, v);
}

int webhooks_fill(ctx *c, const char *key, const char *payload, const char *system_payload)
{
	const char *v[3] = {key, payload, system_payload};
	int err;
	return db_query(c, "webhooks_fill", 3, v, &err) ? 0 : err;
}

int webhooks_push_context(ctx *c, const char *project_id, const char *user_id, const char *key,
			  PGresult **out)
{
	const char *v[3] = {project_id, user_id, key};
	int err;
	PGresult *res = db_query(c, "webhooks_push_context", 3, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_NOT_FOUND;
	*out = res;
	return 0;
}

int webhooks_event_context(ctx *c, const char *project_id, const char *user_id, webhook_event ev,
			   PGresult **out)
{
	if (ev < 0 || ev >= WEBHOOK_NEVENTS)
		return ERR_INVALID;
	const char *v[3] = {project_id, events[ev].flag, user_id};
	int err;
	PGresult *res = db_query(c, "webhooks_event_context", 3, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0 || !db_bool(res, 0, WPC_HAS_HOOKS))
		return 0;
	*out = res;
	return 1;
}
