/* Webhooks' deliveries: what an event queues for the project hooks and system hooks
 * that want it (sql/0043_web_hooks.sql), in the transaction that makes the event. The
 * background process sends them (src/hooks_sender.c).
 *
 * Under db/ as the job queue is: only statements over a ctx's connection, called from
 * api/ (system events of API writes) and the background process (push events), naming
 * neither. */
#ifndef COLLABD_WEBHOOKS_H
#define COLLABD_WEBHOOKS_H

#include <json-c/json.h>

#include "core/ctx.h"
#include "db/db.h"

/* The events a hook may want, each with the X-Gitlab-Event header its project hooks get
 * (system hooks always get "System Hook") and the flag of web_hooks that selects them. */
typedef enum {
	WEBHOOK_PUSH,               /* push_events; system hooks with push_events too */
	WEBHOOK_TAG_PUSH,           /* tag_push_events; system hooks with tag_push_events */
	WEBHOOK_ISSUE,              /* issues_events */
	WEBHOOK_CONFIDENTIAL_ISSUE, /* confidential_issues_events */
	WEBHOOK_MERGE_REQUEST,      /* merge_requests_events */
	WEBHOOK_NOTE,               /* note_events */
	WEBHOOK_JOB,                /* job_events */
	WEBHOOK_PIPELINE,           /* pipeline_events */
	WEBHOOK_WIKI_PAGE,          /* wiki_page_events */
	WEBHOOK_SYSTEM,             /* project_create, user_create, ...: every system hook */
	WEBHOOK_NEVENTS
} webhook_event;

/* The header GitLab 10.8 sends with ev to a project hook ("Push Hook", "Job Hook", ...);
 * "System Hook" for WEBHOOK_SYSTEM. */
const char *webhook_event_header(webhook_event ev);

extern const db_stmt db_webhooks_stmts[];

/* Queues, in c's open transaction and in one statement, a delivery of ev for each hook
 * that wants it: the hooks of project_id (a decimal id, NULL for none) with ev's flag get
 * payload (a JSON object, text), the system hooks that want ev get system_payload (NULL:
 * none gets it). The background processes are woken at commit. 0 or an ERR_ code. */
int webhooks_queue(ctx *c, const char *project_id, webhook_event ev, const char *payload,
		   const char *system_payload);

/* The deliveries of a push (ev WEBHOOK_PUSH or WEBHOOK_TAG_PUSH) of project_id for the
 * hooks that want it, queued in the push's transaction (so in push order) without their
 * payload: the `push` job builds it and hands it to webhooks_fill with the same key (a
 * token the job's payload carries). 0 or an ERR_ code. */
int webhooks_queue_push(ctx *c, const char *project_id, webhook_event ev, const char *key);
/* The repository_update deliveries of a push (all its refs) for the system hooks with
 * repository_update_events, queued as webhooks_queue_push's after them, for the push job
 * to fill in (key). 0 or an ERR_ code. */
int webhooks_queue_repository_update(ctx *c, const char *key);
/* Fills in the deliveries of key: the project hooks get payload, the system hooks
 * system_payload; they are due from the commit. 0 or an ERR_ code. */
int webhooks_fill(ctx *c, const char *key, const char *payload, const char *system_payload);

/* A delivery of ev with payload to hook hook_id alone (the test of GET /hooks/:id), in c's
 * open transaction. 0 or an ERR_ code. */
int webhooks_queue_one(ctx *c, const char *hook_id, webhook_event ev, const char *payload);

/* The same for a JSON object built by a presenter, which it releases (NULL: nothing is
 * queued, ERR_INTERNAL): a system event (WEBHOOK_SYSTEM) for every system hook. */
int webhooks_queue_system(ctx *c, struct json_object *payload);

/* The columns webhooks_push_context reads: the project and the pusher of a push, as the
 * push payload shows them (entity/hook.h). */
enum {
	WPC_PROJECT_ID,
	WPC_NAME,
	WPC_DESCRIPTION,
	WPC_AVATAR,
	WPC_NAMESPACE_NAME,
	WPC_NAMESPACE_PATH, /* the namespace's full path */
	WPC_PATH,
	WPC_VISIBILITY,
	WPC_DEFAULT_BRANCH,
	WPC_USER_ID,
	WPC_USER_NAME,
	WPC_USERNAME,
	WPC_USER_EMAIL,
	WPC_USER_AVATAR,
	WPC_HAS_HOOKS, /* the push queued deliveries (its key has some to fill in) */
	WPC_NCOLS
};
/* The project and user of a push (decimal ids) and whether key has deliveries to fill
 * in: 0 with one row in *out, ERR_NOT_FOUND when the project is gone, or an ERR_ code.
 * The user's columns are NULL when the account is gone. */
int webhooks_push_context(ctx *c, const char *project_id, const char *user_id, const char *key,
			  PGresult **out);

/* The project and user of a project event ev (decimal ids) when a hook of the project
 * wants it: 1 with the row (WPC_ columns) in *out, 0 when none does (nothing to build),
 * or an ERR_ code. */
int webhooks_event_context(ctx *c, const char *project_id, const char *user_id, webhook_event ev,
			   PGresult **out);

#endif
