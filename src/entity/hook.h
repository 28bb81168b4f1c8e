/* Presenters of webhooks: the hook records of the API (GitLab 10.8's Entities::Hook and
 * Entities::ProjectHook; the token is never shown) and the payloads the hooks receive
 * (doc/user/project/integrations/webhooks.md, doc/system_hooks/system_hooks.md). */
#ifndef COLLABD_ENTITY_HOOK_H
#define COLLABD_ENTITY_HOOK_H

#include <git2.h>
#include <json-c/json.h>

#include "core/ctx.h"
#include "db/db.h"

/* The columns of a hook record, of web_hooks w */
#define HOOK_COLS                                                                                  \
	"w.id, w.url, iso8601(w.created_at), w.push_events, w.tag_push_events,"                   \
	" w.merge_requests_events, w.repository_update_events, w.enable_ssl_verification,"        \
	" w.project_id, w.issues_events, w.confidential_issues_events, w.note_events,"            \
	" w.pipeline_events, w.wiki_page_events, w.job_events"
enum {
	HC_ID,
	HC_URL,
	HC_CREATED_AT,
	HC_PUSH,
	HC_TAG_PUSH,
	HC_MERGE_REQUESTS,
	HC_REPOSITORY_UPDATE,
	HC_SSL,
	HC_PROJECT_ID,
	HC_ISSUES,
	HC_CONFIDENTIAL_ISSUES,
	HC_NOTE,
	HC_PIPELINE,
	HC_WIKI_PAGE,
	HC_JOB,
	HOOK_NCOLS
};

/* A system hook (Entities::Hook) and a project hook (Entities::ProjectHook: the same and
 * its project's events) whose HOOK_COLS start at col. */
json_object *entity_system_hook(ctx *c, const PGresult *res, int row, int col);
json_object *entity_project_hook(ctx *c, const PGresult *res, int row, int col);

/* A commit of a push payload (Commit#hook_attrs): id, message, timestamp, url (its page
 * under the project's web_url), author, and the paths the commit added, modified and
 * removed against its first parent (arrays of strings, taken over). */
json_object *entity_hook_commit(ctx *c, const git_commit *commit, const char *web_url,
				json_object *added, json_object *modified, json_object *removed);

/* The push or tag push payload (Gitlab::DataBuilder::Push) of a push to project and by
 * user whose columns (db/webhooks.h WPC_*) are row 0 of res: kind "push" or "tag_push",
 * the ref's old and new ids, its full name, checkout_sha (NULL: null), the tag's message
 * (NULL: null), commits (an array of entity_hook_commit, taken over) and their total. */
json_object *entity_hook_push(ctx *c, const PGresult *res, const char *kind, const char *before,
			      const char *after, const char *ref, const char *checkout_sha,
			      const char *message, json_object *commits, long long total);

/* The sample event GET /hooks/:id sends (10.8's API::SystemHooks): a project_create of
 * project "Ruby". */
json_object *entity_hook_system_test(ctx *c);

#endif
