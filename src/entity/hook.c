/* Presenters of webhooks (entity/hook.h). */
#include "entity/hook.h"

#include <stdlib.h>
#include <string.h>

#include "core/deps.h"
#include "db/webhooks.h"
#include "entity/commit.h"
#include "entity/entity.h"
#include "entity/merge_request.h"
#include "entity/project.h"

#define V(k) db_val(res, row, col + (k))

static void put_flag(json_object *o, const char *key, const PGresult *res, int row, int col)
{
	json_put_bool(o, key, db_bool(res, row, col));
}

json_object *entity_system_hook(ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* hooks are never kept in the response cache */
	json_object *o = json_object_new_object();
	json_put_int(o, "id", db_int(res, row, col + HC_ID));
	json_put_str(o, "url", V(HC_URL));
	json_put_str(o, "created_at", V(HC_CREATED_AT));
	put_flag(o, "push_events", res, row, col + HC_PUSH);
	put_flag(o, "tag_push_events", res, row, col + HC_TAG_PUSH);
	put_flag(o, "merge_requests_events", res, row, col + HC_MERGE_REQUESTS);
	put_flag(o, "repository_update_events", res, row, col + HC_REPOSITORY_UPDATE);
	put_flag(o, "enable_ssl_verification", res, row, col + HC_SSL);
	return o;
}

json_object *entity_project_hook(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = entity_system_hook(c, res, row, col);
	json_put_int_or_null(o, "project_id", V(HC_PROJECT_ID));
	put_flag(o, "issues_events", res, row, col + HC_ISSUES);
	put_flag(o, "confidential_issues_events", res, row, col + HC_CONFIDENTIAL_ISSUES);
	put_flag(o, "note_events", res, row, col + HC_NOTE);
	put_flag(o, "pipeline_events", res, row, col + HC_PIPELINE);
	put_flag(o, "wiki_page_events", res, row, col + HC_WIKI_PAGE);
	put_flag(o, "job_events", res, row, col + HC_JOB);
	return o;
}

json_object *entity_hook_commit(ctx *c, const git_commit *commit, const char *web_url,
				json_object *added, json_object *modified, json_object *removed)
{
	char sha[GIT_OID_HEXSZ + 1];
	git_oid_tostr(sha, sizeof(sha), git_commit_id(commit));
	const git_signature *author = git_commit_author(commit);
	json_object *o = json_object_new_object();
	json_put_str(o, "id", arena_strdup(c->a, sha));
	json_put_str(o, "message", git_commit_message(commit));
	json_put_str(o, "timestamp", entity_git_time(c, &author->when));
	json_put_str(o, "url", arena_printf(c->a, "%s/commit/%s", web_url, sha));
	json_object *a = json_object_new_object();
	json_put_str(a, "name", author->name);
	json_put_str(a, "email", author->email);
	json_object_object_add(o, "author", a);
	json_object_object_add(o, "added", added ? added : json_object_new_array());
	json_object_object_add(o, "modified", modified ? modified : json_object_new_array());
	json_object_object_add(o, "removed", removed ? removed : json_object_new_array());
	return o;
}

/* Project#hook_attrs of 10.8 (with the backward-compatible homepage, url, ssh_url and
 * http_url) of the WPC_ columns; repository: the part of it the payload repeats there. */
static json_object *hook_project(ctx *c, const PGresult *res, bool repository)
{
	int row = 0, col = 0;
	const char *ns = V(WPC_NAMESPACE_PATH), *path = V(WPC_PATH);
	const char *web = project_web_url(c, ns, path), *ssh = project_ssh_url(c, ns, path),
		   *http = project_http_url(c, ns, path);
	json_object *o = json_object_new_object();
	if (!repository)
		json_put_int(o, "id", db_int(res, 0, WPC_PROJECT_ID));
	json_put_str(o, "name", V(WPC_NAME));
	if (repository)
		json_put_str(o, "url", ssh);
	json_put_str(o, "description", V(WPC_DESCRIPTION) ? V(WPC_DESCRIPTION) : "");
	if (!repository) {
		json_put_str(o, "web_url", web);
		json_put_str(o, "avatar_url",
			     entity_avatar_url(c, "project", V(WPC_PROJECT_ID), V(WPC_AVATAR)));
	}
	json_put_str(o, "homepage", web);
	json_put_str(o, "git_ssh_url", ssh);
	json_put_str(o, "git_http_url", http);
	if (!repository)
		json_put_str(o, "namespace", V(WPC_NAMESPACE_NAME));
	json_put_int(o, "visibility_level", db_int(res, 0, WPC_VISIBILITY));
	if (repository)
		return o;
	json_put_str(o, "path_with_namespace", arena_printf(c->a, "%s/%s", ns, path));
	json_put_str(o, "default_branch", V(WPC_DEFAULT_BRANCH));
	json_put_str(o, "ci_config_path", NULL);
	json_put_str(o, "url", ssh);
	json_put_str(o, "ssh_url", ssh);
	json_put_str(o, "http_url", http);
	return o;
}

json_object *entity_hook_push(ctx *c, const PGresult *res, const char *kind, const char *before,
			      const char *after, const char *ref, const char *checkout_sha,
			      const char *message, json_object *commits, long long total)
{
	int row = 0, col = 0;
	json_object *o = json_object_new_object();
	json_put_str(o, "object_kind", kind);
	json_put_str(o, "event_name", kind);
	json_put_str(o, "before", before);
	json_put_str(o, "after", after);
	json_put_str(o, "ref", ref);
	json_put_str(o, "checkout_sha", checkout_sha);
	json_put_str(o, "message", message);
	json_put_int_or_null(o, "user_id", V(WPC_USER_ID));
	json_put_str(o, "user_name", V(WPC_USER_NAME));
	json_put_str(o, "user_username", V(WPC_USERNAME));
	json_put_str(o, "user_email", V(WPC_USER_EMAIL));
	json_put_str(o, "user_avatar",
		     V(WPC_USER_ID)
			     ? entity_avatar_url(c, "user", V(WPC_USER_ID), V(WPC_USER_AVATAR))
			     : NULL);
	json_put_int(o, "project_id", db_int(res, 0, WPC_PROJECT_ID));
	json_object_object_add(o, "project", hook_project(c, res, false));
	json_object_object_add(o, "commits", commits ? commits : json_object_new_array());
	json_put_int(o, "total_commits_count", total);
	json_object_object_add(o, "repository", hook_project(c, res, true));
	return o;
}

json_object *entity_hook_repository_update(ctx *c, const PGresult *res, json_object *changes,
					   json_object *refs)
{
	int row = 0, col = 0;
	json_object *o = json_object_new_object();
	json_put_str(o, "event_name", "repository_update");
	json_put_int_or_null(o, "user_id", V(WPC_USER_ID));
	json_put_str(o, "user_name", V(WPC_USER_NAME));
	json_put_str(o, "user_email", V(WPC_USER_EMAIL));
	json_put_str(o, "user_avatar",
		     V(WPC_USER_ID)
			     ? entity_avatar_url(c, "user", V(WPC_USER_ID), V(WPC_USER_AVATAR))
			     : NULL);
	json_put_int(o, "project_id", db_int(res, 0, WPC_PROJECT_ID));
	json_object_object_add(o, "project", hook_project(c, res, false));
	json_object_object_add(o, "changes", changes);
	json_object_object_add(o, "refs", refs);
	return o;
}

/* Gitlab::HookData's user: name, username, avatar_url. */
static json_object *hook_user(ctx *c, const PGresult *res)
{
	int row = 0, col = 0;
	json_object *o = json_object_new_object();
	json_put_str(o, "name", V(WPC_USER_NAME));
	json_put_str(o, "username", V(WPC_USERNAME));
	json_put_str(o, "avatar_url",
		     V(WPC_USER_ID)
			     ? entity_avatar_url(c, "user", V(WPC_USER_ID), V(WPC_USER_AVATAR))
			     : NULL);
	return o;
}

json_object *entity_hook_wiki_page(ctx *c, const PGresult *res, const char *action,
				   const char *title, const char *slug, const char *format,
				   const char *content, size_t content_len, const char *message)
{
	int row = 0, col = 0;
	const char *ns = V(WPC_NAMESPACE_PATH), *path = V(WPC_PATH);
	const char *web = project_web_url(c, ns, path);
	json_object *o = json_object_new_object();
	json_put_str(o, "object_kind", "wiki_page");
	json_object_object_add(o, "user", hook_user(c, res));
	json_object_object_add(o, "project", hook_project(c, res, false));
	json_object *w = json_object_new_object();
	json_put_str(w, "web_url", arena_printf(c->a, "%s/wikis/home", web));
	json_put_str(w, "git_ssh_url",
		     arena_printf(c->a, "git@%s:%s/%s.wiki.git", c->cfg->ssh_host, ns, path));
	json_put_str(w, "git_http_url",
		     arena_printf(c->a, "%s/%s/%s.wiki.git", c->cfg->external_url, ns, path));
	json_put_str(w, "path_with_namespace", arena_printf(c->a, "%s/%s.wiki", ns, path));
	json_put_str(w, "default_branch", "master");
	json_object_object_add(o, "wiki", w);
	json_object *a = json_object_new_object();
	json_put_str(a, "title", title);
	json_object_object_add(a, "content",
			       content ? json_object_new_string_len(content, (int)content_len)
				       : NULL);
	json_put_str(a, "format", format);
	json_put_str(a, "message", message);
	json_put_str(a, "slug", slug);
	json_put_str(a, "url", arena_printf(c->a, "%s/wikis/%s", web, slug));
	json_put_str(a, "action", action);
	json_object_object_add(o, "object_attributes", a);
	return o;
}

/* A JSON text column as a value (NULL: def). */
static json_object *json_col(const PGresult *res, int col, json_object *def)
{
	const char *t = db_val(res, 0, col);
	json_object *o = t ? json_tokener_parse(t) : NULL;
	return o ? o : def;
}

static void put_int_col(json_object *o, const char *key, const PGresult *res, int col)
{
	json_put_int_or_null(o, key, db_val(res, 0, col));
}

/* Issue#hook_attrs of 10.8 (and the event's action unless NULL). */
static json_object *issue_attrs(ctx *c, const PGresult *ctxres, const PGresult *issue,
				const char *action)
{
	const PGresult *res = issue;
	int row = 0, col = 0;
	json_object *a = json_object_new_object();
	put_int_col(a, "id", res, HIS_ID);
	json_put_str(a, "title", V(HIS_TITLE));
	json_object *ids = json_col(res, HIS_ASSIGNEE_IDS, json_object_new_array());
	json_object_object_add(a, "assignee_ids", ids);
	json_object *first = json_object_array_length(ids) > 0 ? json_object_array_get_idx(ids, 0)
							       : NULL;
	json_object_object_add(a, "assignee_id", first ? json_object_get(first) : NULL);
	put_int_col(a, "author_id", res, HIS_AUTHOR_ID);
	put_int_col(a, "project_id", res, HIS_PROJECT_ID);
	json_put_str(a, "created_at", V(HIS_CREATED_AT));
	json_put_str(a, "updated_at", V(HIS_UPDATED_AT));
	json_put_str(a, "closed_at", V(HIS_CLOSED_AT));
	json_put_str(a, "branch_name", NULL);
	json_put_str(a, "description", V(HIS_DESCRIPTION));
	put_int_col(a, "milestone_id", res, HIS_MILESTONE_ID);
	json_put_str(a, "state", V(HIS_STATE));
	put_int_col(a, "iid", res, HIS_IID);
	json_put_bool(a, "confidential", db_bool(res, 0, HIS_CONFIDENTIAL));
	json_put_bool(a, "discussion_locked", db_bool(res, 0, HIS_LOCKED));
	json_put_str(a, "due_date", V(HIS_DUE_DATE));
	put_int_col(a, "moved_to_id", res, HIS_MOVED_TO_ID);
	put_int_col(a, "time_estimate", res, HIS_TIME_ESTIMATE);
	put_int_col(a, "total_time_spent", res, HIS_TIME_SPENT);
	json_put_str(a, "human_total_time_spent", NULL);
	json_put_str(a, "human_time_estimate", NULL);
	const char *ns = db_val(ctxres, 0, WPC_NAMESPACE_PATH), *path = db_val(ctxres, 0, WPC_PATH);
	json_put_str(a, "url",
		     arena_printf(c->a, "%s/issues/%s", project_web_url(c, ns, path), V(HIS_IID)));
	if (action)
		json_put_str(a, "action", action);
	return a;
}

json_object *entity_hook_issue(ctx *c, const PGresult *ctxres, const PGresult *issue,
			       const char *action)
{
	const PGresult *res = issue;
	json_object *o = json_object_new_object();
	json_put_str(o, "object_kind", "issue");
	json_object_object_add(o, "user", hook_user(c, ctxres));
	json_object_object_add(o, "project", hook_project(c, ctxres, false));
	json_object_object_add(o, "object_attributes", issue_attrs(c, ctxres, issue, action));
	json_object_object_add(o, "labels", json_col(res, HIS_LABELS, json_object_new_array()));
	json_object_object_add(o, "changes", json_object_new_object());
	json_object_object_add(o, "repository", hook_project(c, ctxres, true));
	json_object *assignees = json_col(res, HIS_ASSIGNEES, NULL);
	if (assignees && json_object_array_length(assignees) > 0)
		json_object_object_add(o, "assignees", assignees);
	else
		json_object_put(assignees);
	return o;
}

json_object *entity_hook_note(ctx *c, const PGresult *ctxres, const PGresult *note,
			      const char *noteable_key, json_object *noteable, const char *url_path)
{
	const PGresult *res = note;
	int row = 0, col = 0;
	json_object *o = json_object_new_object();
	json_put_str(o, "object_kind", "note");
	json_object_object_add(o, "user", hook_user(c, ctxres));
	json_put_int(o, "project_id", db_int(ctxres, 0, WPC_PROJECT_ID));
	json_object_object_add(o, "project", hook_project(c, ctxres, false));
	json_object_object_add(o, "repository", hook_project(c, ctxres, true));
	json_object *a = json_object_new_object();
	put_int_col(a, "id", res, HNO_ID);
	json_put_str(a, "note", V(HNO_NOTE));
	json_put_str(a, "noteable_type", V(HNO_NOTEABLE_TYPE));
	put_int_col(a, "author_id", res, HNO_AUTHOR_ID);
	json_put_str(a, "created_at", V(HNO_CREATED_AT));
	json_put_str(a, "updated_at", V(HNO_UPDATED_AT));
	put_int_col(a, "project_id", res, HNO_PROJECT_ID);
	json_put_str(a, "attachment", NULL);
	json_put_str(a, "line_code", V(HNO_LINE_CODE));
	json_put_str(a, "commit_id", V(HNO_COMMIT_ID) ? V(HNO_COMMIT_ID) : "");
	put_int_col(a, "noteable_id", res, HNO_NOTEABLE_ID);
	json_put_bool(a, "system", db_bool(res, 0, HNO_SYSTEM));
	json_put_str(a, "st_diff", NULL);
	const char *ns = db_val(ctxres, 0, WPC_NAMESPACE_PATH), *path = db_val(ctxres, 0, WPC_PATH);
	json_put_str(a, "url",
		     arena_printf(c->a, "%s/%s#note_%s", project_web_url(c, ns, path), url_path,
				  V(HNO_ID)));
	json_object_object_add(o, "object_attributes", a);
	json_object_object_add(o, noteable_key, noteable);
	return o;
}

json_object *entity_hook_issue_note(ctx *c, const PGresult *ctxres, const PGresult *note,
				    const PGresult *issue)
{
	return entity_hook_note(c, ctxres, note, "issue", issue_attrs(c, ctxres, issue, NULL),
				arena_printf(c->a, "issues/%s", db_val(issue, 0, HIS_IID)));
}

json_object *entity_hook_last_commit(ctx *c, const git_commit *commit, const char *web_url)
{
	json_object *o = entity_hook_commit(c, commit, web_url, NULL, NULL, NULL);
	json_object_object_del(o, "added");
	json_object_object_del(o, "modified");
	json_object_object_del(o, "removed");
	return o;
}

json_object *entity_hook_mr_attrs(ctx *c, const PGresult *mr, const PGresult *source,
				  const PGresult *target, json_object *last_commit,
				  const char *action)
{
	const PGresult *res = mr;
	int row = 0, col = 0;
	json_object *a = json_object_new_object();
	put_int_col(a, "id", res, HMR_ID);
	json_put_str(a, "target_branch", V(HMR_TARGET_BRANCH));
	json_put_str(a, "source_branch", V(HMR_SOURCE_BRANCH));
	put_int_col(a, "source_project_id", res, HMR_SOURCE_PROJECT_ID);
	put_int_col(a, "author_id", res, HMR_AUTHOR_ID);
	put_int_col(a, "assignee_id", res, HMR_ASSIGNEE_ID);
	json_put_str(a, "title", V(HMR_TITLE));
	json_put_str(a, "created_at", V(HMR_CREATED_AT));
	json_put_str(a, "updated_at", V(HMR_UPDATED_AT));
	put_int_col(a, "milestone_id", res, HMR_MILESTONE_ID);
	json_put_str(a, "state", V(HMR_STATE));
	json_put_str(a, "merge_status", V(HMR_MERGE_STATUS));
	put_int_col(a, "target_project_id", res, HMR_TARGET_PROJECT_ID);
	put_int_col(a, "iid", res, HMR_IID);
	json_put_str(a, "description", V(HMR_DESCRIPTION));
	json_put_str(a, "merge_commit_sha", V(HMR_MERGE_COMMIT_SHA));
	json_put_bool(a, "merge_when_pipeline_succeeds", db_bool(res, 0, HMR_MWPS));
	put_int_col(a, "merge_user_id", res, HMR_MERGE_USER_ID);
	json_put_bool(a, "discussion_locked", db_bool(res, 0, HMR_LOCKED));
	put_int_col(a, "time_estimate", res, HMR_TIME_ESTIMATE);
	put_int_col(a, "total_time_spent", res, HMR_TIME_SPENT);
	json_put_str(a, "human_total_time_spent", NULL);
	json_put_str(a, "human_time_estimate", NULL);
	json_object_object_add(a, "source", source ? hook_project(c, source, false) : NULL);
	json_object_object_add(a, "target", hook_project(c, target, false));
	json_object_object_add(a, "last_commit", last_commit);
	json_put_bool(a, "work_in_progress", entity_merge_request_wip(V(HMR_TITLE)));
	const char *ns = db_val(target, 0, WPC_NAMESPACE_PATH), *path = db_val(target, 0, WPC_PATH);
	json_put_str(a, "url",
		     arena_printf(c->a, "%s/merge_requests/%s", project_web_url(c, ns, path),
				  V(HMR_IID)));
	if (action)
		json_put_str(a, "action", action);
	return a;
}

/* A column of a merge request as its hook attributes show it. */
static json_object *mr_value(const PGresult *res, int col)
{
	const char *v = db_val(res, 0, col);
	if (!v)
		return NULL;
	switch (col) {
	case HMR_ASSIGNEE_ID:
	case HMR_MILESTONE_ID:
	case HMR_TIME_ESTIMATE:
		return json_object_new_int64(strtoll(v, NULL, 10));
	case HMR_LOCKED:
		return json_object_new_boolean(db_bool(res, 0, col));
	case HMR_LABELS:
		return json_col(res, col, NULL);
	default:
		return json_object_new_string(v);
	}
}

json_object *entity_hook_merge_request(ctx *c, const PGresult *ctxres, const PGresult *mr,
				       const PGresult *old, json_object *attrs)
{
	/* the attributes 10.8's previous_changes (and its labels' and assignee's changes)
	 * may name after an update */
	static const struct {
		const char *key;
		int col;
	} tracked[] = {
		{"title", HMR_TITLE},
		{"description", HMR_DESCRIPTION},
		{"state", HMR_STATE},
		{"target_branch", HMR_TARGET_BRANCH},
		{"assignee_id", HMR_ASSIGNEE_ID},
		{"milestone_id", HMR_MILESTONE_ID},
		{"time_estimate", HMR_TIME_ESTIMATE},
		{"discussion_locked", HMR_LOCKED},
		{"updated_at", HMR_UPDATED_AT},
		{"labels", HMR_LABELS},
	};
	json_object *o = json_object_new_object();
	json_put_str(o, "object_kind", "merge_request");
	json_object_object_add(o, "user", hook_user(c, ctxres));
	json_object_object_add(o, "project", hook_project(c, ctxres, false));
	json_object_object_add(o, "object_attributes", attrs);
	json_object_object_add(o, "labels", json_col(mr, HMR_LABELS, json_object_new_array()));
	json_object *changes = json_object_new_object();
	for (size_t i = 0; old && i < sizeof(tracked) / sizeof(tracked[0]); i++) {
		int k = tracked[i].col;
		const char *was = db_val(old, 0, k), *is = db_val(mr, 0, k);
		if (was == is || (was && is && strcmp(was, is) == 0))
			continue;
		json_object *ch = json_object_new_object();
		json_object_object_add(ch, "previous", mr_value(old, k));
		json_object_object_add(ch, "current", mr_value(mr, k));
		json_object_object_add(changes, tracked[i].key, ch);
	}
	json_object_object_add(o, "changes", changes);
	json_object_object_add(o, "repository", hook_project(c, ctxres, true));
	json_object *assignee = json_col(mr, HMR_ASSIGNEE, NULL);
	if (assignee)
		json_object_object_add(o, "assignee", assignee);
	return o;
}

json_object *entity_hook_snippet(ctx *c, const PGresult *res)
{
	(void)c;
	json_object *a = json_object_new_object();
	put_int_col(a, "id", res, HSN_ID);
	json_put_str(a, "title", db_val(res, 0, HSN_TITLE));
	json_put_str(a, "content", db_val(res, 0, HSN_CONTENT));
	put_int_col(a, "author_id", res, HSN_AUTHOR_ID);
	put_int_col(a, "project_id", res, HSN_PROJECT_ID);
	json_put_str(a, "created_at", db_val(res, 0, HSN_CREATED_AT));
	json_put_str(a, "updated_at", db_val(res, 0, HSN_UPDATED_AT));
	json_put_str(a, "file_name", db_val(res, 0, HSN_FILE_NAME));
	json_put_str(a, "expires_at", NULL);
	json_put_str(a, "type", "ProjectSnippet");
	put_int_col(a, "visibility_level", res, HSN_VISIBILITY);
	return a;
}

/* The label of 10.8's detailed status of a pipeline's status (Gitlab::Ci::Status) */
static const char *status_label(const char *status)
{
	if (!status)
		return NULL;
	if (strcmp(status, "success") == 0)
		return "passed";
	return status;
}

/* An integer column of row 0 as a number, NULL as null. */
static json_object *num(const char *v)
{
	return v ? json_object_new_int64(strtoll(v, NULL, 10)) : NULL;
}

json_object *entity_hook_pipeline(ctx *c, const PGresult *ctxres, const PGresult *pl,
				  const char *status, const char *finished_at, const char *duration,
				  json_object *commit)
{
	const PGresult *res = pl;
	int row = 0, col = 0;
	json_object *o = json_object_new_object();
	json_put_str(o, "object_kind", "pipeline");
	json_object *a = json_object_new_object();
	put_int_col(a, "id", res, HPL_ID);
	json_put_str(a, "ref", V(HPL_REF));
	json_put_bool(a, "tag", db_bool(res, 0, HPL_TAG));
	json_put_str(a, "sha", V(HPL_SHA));
	json_put_str(a, "before_sha", V(HPL_BEFORE_SHA));
	json_put_str(a, "status", status);
	json_put_str(a, "detailed_status", status_label(status));
	json_object_object_add(a, "stages", json_col(res, HPL_STAGES, json_object_new_array()));
	json_put_str(a, "created_at", V(HPL_CREATED_AT));
	json_put_str(a, "finished_at", finished_at);
	json_object_object_add(a, "duration", num(duration));
	json_object_object_add(o, "object_attributes", a);
	json_object_object_add(o, "user", hook_user(c, ctxres));
	json_object_object_add(o, "project", hook_project(c, ctxres, false));
	json_object_object_add(o, "commit", commit);
	json_object_object_add(o, "builds", json_col(res, HPL_BUILDS, json_object_new_array()));
	return o;
}

json_object *entity_hook_job(ctx *c, const PGresult *ctxres, const PGresult *job,
			     const char *status, const char *started_at, const char *finished_at,
			     json_object *duration, const git_commit *commit)
{
	const PGresult *res = job;
	int row = 0, col = 0;
	json_object *o = json_object_new_object();
	json_put_str(o, "object_kind", "build");
	json_put_str(o, "ref", V(HJB_REF));
	json_put_bool(o, "tag", db_bool(res, 0, HJB_TAG));
	json_put_str(o, "before_sha", V(HJB_BEFORE_SHA));
	json_put_str(o, "sha", V(HJB_SHA));
	put_int_col(o, "build_id", res, HJB_ID);
	json_put_str(o, "build_name", V(HJB_NAME));
	json_put_str(o, "build_stage", V(HJB_STAGE));
	json_put_str(o, "build_status", status);
	json_put_str(o, "build_started_at", started_at);
	json_put_str(o, "build_finished_at", finished_at);
	json_object_object_add(o, "build_duration", duration);
	json_put_bool(o, "build_allow_failure", db_bool(res, 0, HJB_ALLOW_FAILURE));
	json_put_int(o, "project_id", db_int(ctxres, 0, WPC_PROJECT_ID));
	json_put_str(o, "project_name", V(HJB_PROJECT_FULL_NAME));
	json_object *u = json_object_new_object();
	json_put_int_or_null(u, "id", db_val(ctxres, 0, WPC_USER_ID));
	json_put_str(u, "name", db_val(ctxres, 0, WPC_USER_NAME));
	json_put_str(u, "email", db_val(ctxres, 0, WPC_USER_EMAIL));
	json_object_object_add(o, "user", u);
	json_object *cm = json_object_new_object();
	put_int_col(cm, "id", res, HJB_PIPELINE_ID);
	json_put_str(cm, "sha", V(HJB_SHA));
	const git_signature *author = commit ? git_commit_author(commit) : NULL;
	json_put_str(cm, "message", commit ? git_commit_message(commit) : NULL);
	json_put_str(cm, "author_name", author ? author->name : NULL);
	json_put_str(cm, "author_email", author ? author->email : NULL);
	json_put_str(cm, "author_url",
		     author ? arena_printf(c->a, "mailto:%s", author->email) : NULL);
	json_put_str(cm, "status", V(HJB_PIPELINE_STATUS));
	json_object_object_add(cm, "duration", num(V(HJB_PIPELINE_DURATION)));
	json_put_str(cm, "started_at", V(HJB_PIPELINE_STARTED_AT));
	json_put_str(cm, "finished_at", V(HJB_PIPELINE_FINISHED_AT));
	json_object_object_add(o, "commit", cm);
	/* 10.8's repository of a job event: the project's name and addresses */
	const char *ns = db_val(ctxres, 0, WPC_NAMESPACE_PATH), *path = db_val(ctxres, 0, WPC_PATH);
	const char *desc = db_val(ctxres, 0, WPC_DESCRIPTION);
	json_object *r = json_object_new_object();
	json_put_str(r, "name", db_val(ctxres, 0, WPC_NAME));
	json_put_str(r, "url", project_ssh_url(c, ns, path));
	json_put_str(r, "description", desc ? desc : "");
	json_put_str(r, "homepage", project_web_url(c, ns, path));
	json_put_str(r, "git_http_url", project_http_url(c, ns, path));
	json_put_str(r, "git_ssh_url", project_ssh_url(c, ns, path));
	json_put_int(r, "visibility_level", db_int(ctxres, 0, WPC_VISIBILITY));
	json_object_object_add(o, "repository", r);
	return o;
}

json_object *entity_hook_system_test(ctx *c)
{
	(void)c;
	json_object *o = json_object_new_object();
	json_put_str(o, "event_name", "project_create");
	json_put_str(o, "name", "Ruby");
	json_put_str(o, "path", "ruby");
	json_put_int(o, "project_id", 1);
	json_put_str(o, "owner_name", "Someone");
	json_put_str(o, "owner_email", "example@gitlabhq.com");
	return o;
}

/* Member#human_access of 10.8 */
static const char *access_name(const char *level)
{
	switch (level ? atoi(level) : 0) {
	case 10:
		return "Guest";
	case 20:
		return "Reporter";
	case 30:
		return "Developer";
	case 40:
		return "Master";
	case 50:
		return "Owner";
	}
	return NULL;
}

static json_object *system_event(const PGresult *res, const char *event, int created, int updated)
{
	json_object *o = json_object_new_object();
	json_put_str(o, "event_name", event);
	json_put_str(o, "created_at", db_val(res, 0, created));
	json_put_str(o, "updated_at", db_val(res, 0, updated));
	return o;
}

json_object *entity_hook_system_project(ctx *c, const PGresult *res, const char *event,
					const char *old_path)
{
	(void)c;
	int row = 0, col = 0;
	json_object *o = system_event(res, event, SPJ_CREATED, SPJ_UPDATED);
	json_put_str(o, "name", V(SPJ_NAME));
	json_put_str(o, "path", V(SPJ_PATH));
	json_put_str(o, "path_with_namespace", V(SPJ_FULL_PATH));
	json_put_int(o, "project_id", db_int(res, 0, SPJ_ID));
	json_put_str(o, "owner_name", V(SPJ_OWNER_NAME));
	json_put_str(o, "owner_email", V(SPJ_OWNER_EMAIL) ? V(SPJ_OWNER_EMAIL) : "");
	json_put_str(o, "project_visibility", visibility_name(atoi(V(SPJ_VISIBILITY))));
	if (old_path)
		json_put_str(o, "old_path_with_namespace", old_path);
	return o;
}

json_object *entity_hook_system_user(ctx *c, const PGresult *res, const char *event)
{
	(void)c;
	int row = 0, col = 0;
	json_object *o = system_event(res, event, SUS_CREATED, SUS_UPDATED);
	json_put_str(o, "name", V(SUS_NAME));
	json_put_str(o, "email", V(SUS_EMAIL));
	json_put_int(o, "user_id", db_int(res, 0, SUS_ID));
	json_put_str(o, "username", V(SUS_USERNAME));
	return o;
}

json_object *entity_hook_system_group(ctx *c, const PGresult *res, const char *event)
{
	(void)c;
	int row = 0, col = 0;
	json_object *o = system_event(res, event, SGR_CREATED, SGR_UPDATED);
	json_put_str(o, "name", V(SGR_NAME));
	json_put_str(o, "path", V(SGR_PATH));
	json_put_str(o, "full_path", V(SGR_FULL_PATH));
	json_put_int(o, "group_id", db_int(res, 0, SGR_ID));
	/* a group has no owner record of its own in 10.8 (Group#owner is nil) */
	json_put_str(o, "owner_name", NULL);
	json_put_str(o, "owner_email", NULL);
	return o;
}

json_object *entity_hook_system_member(ctx *c, const PGresult *res, bool project, const char *event)
{
	(void)c;
	int row = 0, col = 0;
	json_object *o = system_event(res, event, SME_CREATED, SME_UPDATED);
	if (project) {
		json_put_str(o, "project_name", V(SME_SOURCE_NAME));
		json_put_str(o, "project_path", V(SME_SOURCE_PATH));
		json_put_str(o, "project_path_with_namespace", V(SME_SOURCE_FULL_PATH));
		json_put_int(o, "project_id", db_int(res, 0, SME_SOURCE_ID));
	} else {
		json_put_str(o, "group_name", V(SME_SOURCE_NAME));
		json_put_str(o, "group_path", V(SME_SOURCE_PATH));
		json_put_int(o, "group_id", db_int(res, 0, SME_SOURCE_ID));
	}
	json_put_str(o, "user_username", V(SME_USERNAME));
	json_put_str(o, "user_name", V(SME_USER_NAME));
	json_put_str(o, "user_email", V(SME_USER_EMAIL));
	json_put_int(o, "user_id", db_int(res, 0, SME_USER_ID));
	if (project) {
		json_put_str(o, "access_level", access_name(V(SME_LEVEL)));
		json_put_str(o, "project_visibility",
			     visibility_name(V(SME_VISIBILITY) ? atoi(V(SME_VISIBILITY)) : 0));
	} else {
		json_put_str(o, "group_access", access_name(V(SME_LEVEL)));
	}
	return o;
}

json_object *entity_hook_system_key(ctx *c, const PGresult *res, const char *event)
{
	(void)c;
	int row = 0, col = 0;
	json_object *o = system_event(res, event, SKE_CREATED, SKE_UPDATED);
	json_put_str(o, "key", V(SKE_KEY));
	json_put_int(o, "id", db_int(res, 0, SKE_ID));
	if (V(SKE_USERNAME))
		json_put_str(o, "username", V(SKE_USERNAME));
	return o;
}
