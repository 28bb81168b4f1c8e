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
	"w.id, w.url, iso8601(w.created_at), w.push_events, w.tag_push_events,"                    \
	" w.merge_requests_events, w.repository_update_events, w.enable_ssl_verification,"         \
	" w.project_id, w.issues_events, w.confidential_issues_events, w.note_events,"             \
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

/* The repository_update system event (Gitlab::DataBuilder::Repository.update) of a push
 * to the project by the user of row 0 of res (WPC_): changes, an array of {before, after,
 * ref}, and refs, the refs' names (both taken over). */
json_object *entity_hook_repository_update(ctx *c, const PGresult *res, json_object *changes,
					   json_object *refs);

/* The wiki page event (WikiPage#hook_attrs and Gitlab::DataBuilder::WikiPage) of a page of
 * the project by the user of row 0 of res (WPC_ columns): action create, update or
 * delete. */
json_object *entity_hook_wiki_page(ctx *c, const PGresult *res, const char *action,
				   const char *title, const char *slug, const char *format,
				   const char *content, size_t content_len, const char *message);

/* The columns of an issue of an issue event (api/hooks.c hooks_issue_row) */
enum {
	HIS_ID,
	HIS_IID,
	HIS_PROJECT_ID,
	HIS_TITLE,
	HIS_DESCRIPTION,
	HIS_STATE,
	HIS_CONFIDENTIAL,
	HIS_AUTHOR_ID,
	HIS_MILESTONE_ID,
	HIS_CREATED_AT,
	HIS_UPDATED_AT,
	HIS_CLOSED_AT,
	HIS_DUE_DATE,
	HIS_TIME_ESTIMATE,
	HIS_TIME_SPENT,
	HIS_MOVED_TO_ID,
	HIS_LOCKED,
	HIS_ASSIGNEE_IDS,
	HIS_ASSIGNEES,
	HIS_LABELS,
	HIS_NCOLS
};
/* The issue event (Gitlab::DataBuilder::Issuable) of the issue of row 0 of issue
 * (HIS_ columns; HIS_ASSIGNEES and HIS_LABELS JSON arrays of the users' and labels'
 * hook attributes) by the user of row 0 of ctxres (WPC_ columns): action open, close,
 * reopen or update. */
json_object *entity_hook_issue(ctx *c, const PGresult *ctxres, const PGresult *issue,
			       const char *action);

/* The columns of a note of a note event (api/hooks.c hooks_note_row) */
enum {
	HNO_ID,
	HNO_NOTE,
	HNO_NOTEABLE_TYPE,
	HNO_AUTHOR_ID,
	HNO_CREATED_AT,
	HNO_UPDATED_AT,
	HNO_PROJECT_ID,
	HNO_NOTEABLE_ID,
	HNO_SYSTEM,
	HNO_COMMIT_ID,
	HNO_LINE_CODE,
	HNO_NCOLS
};
/* The note event (Gitlab::DataBuilder::Note) of a comment on an issue: the note of row 0
 * of note (HNO_), the issue of row 0 of issue (HIS_), the project and user of ctxres. */
json_object *entity_hook_issue_note(ctx *c, const PGresult *ctxres, const PGresult *note,
				    const PGresult *issue);
/* The same of a comment on another noteable: noteable_key "merge_request", "commit" or
 * "snippet" with its hook attributes noteable (taken over) and the note's page url_path
 * under the project's web_url ("merge_requests/3", "commit/<sha>", "snippets/5"). */
json_object *entity_hook_note(ctx *c, const PGresult *ctxres, const PGresult *note,
			      const char *noteable_key, json_object *noteable,
			      const char *url_path);

/* Commit#hook_attrs without the changed files (a merge request's last_commit, a
 * commented commit): id, message, timestamp, url, author. */
json_object *entity_hook_last_commit(ctx *c, const git_commit *commit, const char *web_url);

/* The columns of a merge request of a merge request event (api/hooks.c hooks_mr_row) */
enum {
	HMR_ID,
	HMR_IID,
	HMR_TARGET_BRANCH,
	HMR_SOURCE_BRANCH,
	HMR_SOURCE_PROJECT_ID,
	HMR_AUTHOR_ID,
	HMR_ASSIGNEE_ID,
	HMR_TITLE,
	HMR_CREATED_AT,
	HMR_UPDATED_AT,
	HMR_MILESTONE_ID,
	HMR_STATE,
	HMR_MERGE_STATUS,
	HMR_TARGET_PROJECT_ID,
	HMR_DESCRIPTION,
	HMR_MERGE_COMMIT_SHA,
	HMR_MWPS,
	HMR_MERGE_USER_ID,
	HMR_TIME_ESTIMATE,
	HMR_TIME_SPENT,
	HMR_SHA,
	HMR_LOCKED,
	HMR_ASSIGNEE, /* JSON: the assignee's hook attributes, NULL without one */
	HMR_LABELS,   /* JSON array of Label#hook_attrs */
	HMR_NCOLS
};
/* MergeRequest#hook_attrs of 10.8 of row 0 of mr (HMR_): source and target are the
 * projects of row 0 of source (NULL: gone) and target (WPC_ columns), last_commit
 * (taken over; NULL: null) the source branch's head; action added unless NULL. */
json_object *entity_hook_mr_attrs(ctx *c, const PGresult *mr, const PGresult *source,
				  const PGresult *target, json_object *last_commit,
				  const char *action);
/* The merge request event (Gitlab::DataBuilder of MergeRequests::BaseService#hook_data)
 * by the user of ctxres (WPC_, the target project): attrs from entity_hook_mr_attrs (taken
 * over), labels and assignee from mr, and changes: each HMR_ column that differs between
 * old and mr (row 0 each; old NULL: none) as {previous, current}. */
json_object *entity_hook_merge_request(ctx *c, const PGresult *ctxres, const PGresult *mr,
				       const PGresult *old, json_object *attrs);

/* The columns of a project snippet of a note event (api/hooks.c hooks_snippet_row) */
enum {
	HSN_ID,
	HSN_TITLE,
	HSN_CONTENT,
	HSN_AUTHOR_ID,
	HSN_PROJECT_ID,
	HSN_CREATED_AT,
	HSN_UPDATED_AT,
	HSN_FILE_NAME,
	HSN_VISIBILITY,
	HSN_NCOLS
};
/* Snippet#hook_attrs (its attributes) of row 0 of res */
json_object *entity_hook_snippet(ctx *c, const PGresult *res);

/* The columns of a pipeline of a pipeline event (hooks_sender.c) */
enum {
	HPL_ID,
	HPL_REF,
	HPL_TAG,
	HPL_SHA,
	HPL_BEFORE_SHA,
	HPL_CREATED_AT, /* as Ruby's Time#to_s, as the other times of CI events */
	HPL_STAGES,     /* JSON array of the stages' names, in order */
	HPL_BUILDS,     /* JSON array of the jobs' hook attributes */
	HPL_NCOLS
};
/* The pipeline event (Gitlab::DataBuilder::Pipeline) of the pipeline of row 0 of pl
 * (HPL_) when it became status (finished_at and duration then; NULL: null), by the user
 * of ctxres (WPC_), commit the sha's Commit#hook_attrs (taken over; NULL: null). */
json_object *entity_hook_pipeline(ctx *c, const PGresult *ctxres, const PGresult *pl,
				  const char *status, const char *finished_at, const char *duration,
				  json_object *commit);

/* The columns of a job of a job event (hooks_sender.c) */
enum {
	HJB_ID,
	HJB_NAME,
	HJB_STAGE,
	HJB_ALLOW_FAILURE,
	HJB_REF,
	HJB_TAG,
	HJB_BEFORE_SHA,
	HJB_SHA,
	HJB_PIPELINE_ID,
	HJB_PIPELINE_STATUS,
	HJB_PIPELINE_DURATION,
	HJB_PIPELINE_STARTED_AT,
	HJB_PIPELINE_FINISHED_AT,
	HJB_PROJECT_FULL_NAME,
	HJB_NCOLS
};
/* The job event (Gitlab::DataBuilder::Build, object_kind "build") of the job of row 0 of
 * job (HJB_) when it became status (its times and duration in seconds then; NULL: null),
 * started by the user of ctxres (WPC_), commit its sha's commit (NULL: gone). */
json_object *entity_hook_job(ctx *c, const PGresult *ctxres, const PGresult *job,
			     const char *status, const char *started_at, const char *finished_at,
			     json_object *duration, const git_commit *commit);

/* The sample event GET /hooks/:id sends (10.8's API::SystemHooks): a project_create of
 * project "Ruby". */
json_object *entity_hook_system_test(ctx *c);

/* The system events of 10.8's SystemHooksService, each from a row of its statement
 * (api/hooks.c) whose columns start at 0, named event; created_at and updated_at as
 * Ruby's xmlschema ("2012-07-21T07:30:54Z"). */
enum {
	SPJ_CREATED,
	SPJ_UPDATED,
	SPJ_NAME,
	SPJ_PATH,
	SPJ_FULL_PATH,
	SPJ_ID,
	SPJ_VISIBILITY,
	SPJ_OWNER_NAME,
	SPJ_OWNER_EMAIL,
	SPJ_NCOLS
};
/* project_create, project_destroy; project_rename and project_transfer with old_path (the
 * old path_with_namespace; NULL for the others) */
json_object *entity_hook_system_project(ctx *c, const PGresult *res, const char *event,
					const char *old_path);
enum { SUS_CREATED, SUS_UPDATED, SUS_NAME, SUS_EMAIL, SUS_ID, SUS_USERNAME, SUS_NCOLS };
/* user_create, user_destroy */
json_object *entity_hook_system_user(ctx *c, const PGresult *res, const char *event);
enum { SGR_CREATED, SGR_UPDATED, SGR_NAME, SGR_PATH, SGR_FULL_PATH, SGR_ID, SGR_NCOLS };
/* group_create, group_destroy */
json_object *entity_hook_system_group(ctx *c, const PGresult *res, const char *event);
enum {
	SME_CREATED,
	SME_UPDATED,
	SME_LEVEL,
	SME_SOURCE_ID,
	SME_SOURCE_NAME,
	SME_SOURCE_PATH,
	SME_SOURCE_FULL_PATH,
	SME_VISIBILITY,
	SME_USER_ID,
	SME_USER_NAME,
	SME_USERNAME,
	SME_USER_EMAIL,
	SME_NCOLS
};
/* user_add_to_team, user_remove_from_team (project: true), user_add_to_group,
 * user_remove_from_group */
json_object *entity_hook_system_member(ctx *c, const PGresult *res, bool project,
				       const char *event);
enum { SKE_CREATED, SKE_UPDATED, SKE_KEY, SKE_ID, SKE_USERNAME, SKE_NCOLS };
/* key_create, key_destroy */
json_object *entity_hook_system_key(ctx *c, const PGresult *res, const char *event);

#endif
