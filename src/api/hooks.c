/* Webhooks: project hooks (GET/POST/PUT/DELETE /projects/:id/hooks[/:hook_id], masters)
 * and system hooks (GET/POST /hooks, GET /hooks/:id, which sends a test event, and
 * DELETE /hooks/:id; admins), as GitLab 10.8's API::ProjectHooks and API::SystemHooks.
 * What an event queues is db/webhooks.h; the background process sends it
 * (src/hooks_sender.c). */
#include <string.h>

#include "api/api.h"
#include "core/netcheck.h"
#include "db/settings.h"
#include "db/webhooks.h"
#include "entity/entity.h"
#include "entity/hook.h"
#include "entity/project.h"
#include "git/commits.h"

/* The flags a hook takes, in the order of hooks_insert's and hooks_update's parameters,
 * and which of them a system hook takes (10.8's API::SystemHooks params). */
static const struct {
	const char *name;
	bool system;
} flags[] = {
	{"push_events", true},
	{"tag_push_events", true},
	{"merge_requests_events", true},
	{"repository_update_events", true},
	{"enable_ssl_verification", true},
	{"issues_events", false},
	{"confidential_issues_events", false},
	{"note_events", false},
	{"job_events", false},
	{"pipeline_events", false},
	{"wiki_page_events", false},
};
#define NFLAGS ((int)(sizeof(flags) / sizeof(flags[0])))

/* hooks_insert's and hooks_update's parameters: the hook's project (NULL: a system hook),
 * then for update its id, then the input */
enum { HI_PROJECT, HI_URL, HI_TOKEN, HI_FLAGS, HI_NPARAMS = HI_FLAGS + NFLAGS };
enum { HU_PROJECT, HU_ID, HU_INPUT, HU_NPARAMS = HU_INPUT + HI_NPARAMS - 1 };

#define HOOK_INPUT_SET                                                                             \
	" push_events = coalesce($5::boolean, w.push_events),"                                     \
	" tag_push_events = coalesce($6::boolean, w.tag_push_events),"                             \
	" merge_requests_events = coalesce($7::boolean, w.merge_requests_events),"                 \
	" repository_update_events = coalesce($8::boolean, w.repository_update_events),"           \
	" enable_ssl_verification = coalesce($9::boolean, w.enable_ssl_verification),"             \
	" issues_events = coalesce($10::boolean, w.issues_events),"                                \
	" confidential_issues_events = coalesce($11::boolean, w.confidential_issues_events),"      \
	" note_events = coalesce($12::boolean, w.note_events),"                                    \
	" job_events = coalesce($13::boolean, w.job_events),"                                      \
	" pipeline_events = coalesce($14::boolean, w.pipeline_events),"                            \
	" wiki_page_events = coalesce($15::boolean, w.wiki_page_events)"

/* Ruby's Time#xmlschema of a timestamptz column, as 10.8's system events show times */
#define XS(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
#define ANY_SYSTEM_HOOK "EXISTS (SELECT 1 FROM web_hooks WHERE project_id IS NULL)"

/* The labels (Label#hook_attrs) of issuable id of type, a JSON array */
#define HOOK_LABELS(type, id)                                                                      \
	"(SELECT coalesce(json_agg(json_build_object('id', l.id, 'title', l.title,"                \
	" 'color', l.color, 'project_id', l.project_id, 'created_at', iso8601(l.created_at),"      \
	" 'updated_at', iso8601(l.updated_at), 'template', false, 'description',"                  \
	" l.description, 'type', CASE WHEN l.group_id IS NULL THEN 'ProjectLabel'"                 \
	" ELSE 'GroupLabel' END, 'group_id', l.group_id) ORDER BY l.title), '[]')"                 \
	" FROM label_links ll JOIN labels l ON l.id = ll.label_id"                                 \
	" WHERE ll.target_type = '" type "' AND ll.target_id = " id ")"

const db_stmt hooks_stmts[] = {
	/* $1 project (NULL: the system hooks), $2 limit, $3 offset */
	{"hooks_list",
	 "SELECT (SELECT count(*) FROM web_hooks WHERE project_id IS NOT DISTINCT FROM $1::bigint),"
	 " p.* FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " HOOK_COLS " FROM web_hooks w"
	 " WHERE w.project_id IS NOT DISTINCT FROM $1::bigint ORDER BY w.id LIMIT $2 OFFSET $3)"
	 " p ON true",
	 3, 1 + HOOK_NCOLS},
	/* $1 project (NULL: a system hook), $2 id */
	{"hooks_show",
	 "SELECT " HOOK_COLS " FROM web_hooks w WHERE w.id = $2::bigint"
	 " AND w.project_id IS NOT DISTINCT FROM $1::bigint",
	 2, HOOK_NCOLS},
	/* 10.8's defaults for what is not given: push events and TLS verification on */
	{"hooks_insert",
	 "INSERT INTO web_hooks AS w (project_id, url, token_sealed, push_events, tag_push_events,"
	 " merge_requests_events, repository_update_events, enable_ssl_verification,"
	 " issues_events, confidential_issues_events, note_events, job_events, pipeline_events,"
	 " wiki_page_events) VALUES ($1::bigint, $2, nullif($3, ''), coalesce($4::boolean, true),"
	 " coalesce($5::boolean, false), coalesce($6::boolean, false),"
	 " coalesce($7::boolean, false), coalesce($8::boolean, true),"
	 " coalesce($9::boolean, false), coalesce($10::boolean, false),"
	 " coalesce($11::boolean, false), coalesce($12::boolean, false),"
	 " coalesce($13::boolean, false), coalesce($14::boolean, false)) RETURNING " HOOK_COLS,
	 HI_NPARAMS, HOOK_NCOLS},
	/* $1 project, $2 id, $3 url, $4 token sealed (NULL: kept, '': none), then the flags
	 * (NULL: kept) */
	{"hooks_update",
	 "UPDATE web_hooks w SET url = $3, token_sealed = CASE WHEN $4::text IS NULL THEN"
	 " w.token_sealed ELSE nullif($4, '') END," HOOK_INPUT_SET ", updated_at = now()"
	 " WHERE w.id = $2::bigint AND w.project_id = $1::bigint RETURNING " HOOK_COLS,
	 HU_NPARAMS, HOOK_NCOLS},
	/* The rows of the system events, none when there is no system hook (nothing to
	 * queue, no payload to build). */
	{"hooks_sys_project",
	 "SELECT " XS("p.created_at") ", " XS(
		 "p.updated_at") ", p.name, p.path,"
				 " n.full_path || '/' || p.path, p.id, p.visibility,"
				 " CASE WHEN n.kind = 'user' THEN u.name ELSE n.name END,"
				 " CASE WHEN n.kind = 'user' THEN u.email END"
				 " FROM projects p JOIN namespaces n ON n.id = p.namespace_id"
				 " LEFT JOIN users u ON u.id = n.owner_id"
				 " WHERE p.id = $1::bigint AND " ANY_SYSTEM_HOOK,
	 1, SPJ_NCOLS},
	{"hooks_sys_user",
	 "SELECT " XS("created_at") ", " XS(
		 "updated_at") ", name, email, id, username FROM users"
			       " WHERE id = $1::bigint AND " ANY_SYSTEM_HOOK,
	 1, SUS_NCOLS},
	{"hooks_sys_group",
	 "SELECT " XS("created_at") ", " XS(
		 "updated_at") ", name, path, full_path, id"
			       " FROM namespaces WHERE id = $1::bigint AND kind = 'group' AND " ANY_SYSTEM_HOOK,
	 1, SGR_NCOLS},
	/* $1 'Project' or 'Namespace', $2 its id, $3 the user */
	{"hooks_sys_member",
	 "SELECT " XS("m.created_at") ", " XS(
		 "m.updated_at") ", m.access_level, m.source_id,"
				 " coalesce(p.name, g.name), coalesce(p.path, g.path), pn.full_path || '/' || p.path,"
				 " p.visibility, u.id, u.name, u.username, u.email FROM members m"
				 " JOIN users u ON u.id = m.user_id"
				 " LEFT JOIN projects p ON m.source_type = 'Project' AND p.id = m.source_id"
				 " LEFT JOIN namespaces pn ON pn.id = p.namespace_id"
				 " LEFT JOIN namespaces g ON m.source_type = 'Namespace' AND g.id = m.source_id"
				 " WHERE m.source_type = $1 AND m.source_id = $2::bigint AND m.user_id = $3::bigint"
				 " AND m.requested_at IS NULL AND " ANY_SYSTEM_HOOK,
	 3, SME_NCOLS},
	{"hooks_sys_key",
	 "SELECT " XS("k.created_at") ", " XS(
		 "k.updated_at") ", k.key, k.id, u.username"
				 " FROM keys k LEFT JOIN users u ON u.id = k.user_id"
				 " WHERE k.id = $1::bigint AND " ANY_SYSTEM_HOOK,
	 1, SKE_NCOLS},
	/* An issue of an issue event, with its assignees' ids and hook attributes and its
	 * labels' (Label#hook_attrs) as JSON arrays */
	{"hooks_issue_row",
	 "SELECT i.id, i.iid, i.project_id, i.title, i.description, i.state, i.confidential,"
	 " i.author_id, i.milestone_id, iso8601(i.created_at), iso8601(i.updated_at),"
	 " iso8601(i.closed_at), to_char(i.due_date, 'YYYY-MM-DD'), i.time_estimate,"
	 " i.total_time_spent, i.moved_to_id, coalesce(i.discussion_locked, false),"
	 " (SELECT coalesce(json_agg(a.user_id ORDER BY a.user_id), '[]') FROM issue_assignees a"
	 " WHERE a.issue_id = i.id),"
	 " (SELECT json_agg(json_build_object('name', u.name, 'username', u.username,"
	 " 'avatar_url', NULL) ORDER BY u.id) FROM issue_assignees a JOIN users u"
	 " ON u.id = a.user_id WHERE a.issue_id = i.id),"
	 " " HOOK_LABELS("Issue", "i.id") " FROM issues i WHERE i.id = $1::bigint",
	 1, HIS_NCOLS},
	{"hooks_note_row",
	 "SELECT n.id, n.note, n.noteable_type, n.author_id, iso8601(n.created_at),"
	 " iso8601(n.updated_at), n.project_id, n.noteable_id, n.system, n.commit_id, NULL"
	 " FROM notes n WHERE n.id = $1::bigint",
	 1, HNO_NCOLS},
	/* A merge request of a merge request or note event, with its assignee's and labels'
	 * hook attributes as JSON */
	{"hooks_mr_row",
	 "SELECT m.id, m.iid, m.target_branch, m.source_branch, m.source_project_id, m.author_id,"
	 " m.assignee_id, m.title, iso8601(m.created_at), iso8601(m.updated_at), m.milestone_id,"
	 " m.state, m.merge_status, m.target_project_id, m.description, m.merge_commit_sha,"
	 " m.merge_when_pipeline_succeeds, m.merge_user_id, m.time_estimate, m.total_time_spent,"
	 " m.sha, coalesce(m.discussion_locked, false),"
	 " (SELECT json_build_object('name', u.name, 'username', u.username, 'avatar_url', NULL)"
	 " FROM users u WHERE u.id = m.assignee_id),"
	 " " HOOK_LABELS("MergeRequest", "m.id") " FROM merge_requests m WHERE m.id = $1::bigint",
	 1, HMR_NCOLS},
	{"hooks_snippet_row",
	 "SELECT s.id, s.title, s.content, s.author_id, s.project_id, iso8601(s.created_at),"
	 " iso8601(s.updated_at), s.file_name, s.visibility FROM snippets s"
	 " WHERE s.id = $1::bigint AND s.project_id IS NOT NULL",
	 1, HSN_NCOLS},
	{"hooks_delete",
	 "DELETE FROM web_hooks WHERE id = $2::bigint"
	 " AND project_id IS NOT DISTINCT FROM $1::bigint RETURNING id",
	 2, 1},
	{NULL, NULL, 0, 0},
};

/* admin_project: masters of the route's project and admins. */
static int may_admin(request *r)
{
	return project_ability_level(&r->project->pa) >= ACCESS_MASTER ? 0 : ERR_FORBIDDEN;
}

/* The route check of :hook_id (system hooks: :id), an integer. */
static int check_hook_id(request *r)
{
	const char *id;
	return api_id(r, "hook_id", &id);
}

static int check_system_id(request *r)
{
	const char *id;
	return api_id(r, "id", &id);
}

/* What is wrong with url for a hook, in GitLab's words, or NULL: an http(s) URL, and
 * unless local requests are allowed, no literal local address (a name is checked on the
 * address connected to, at delivery). */
static const char *url_problem(request *r, const char *url)
{
	char host[256];
	if (strlen(url) > 2000) /* GitLab's web_hooks.url column */
		return "is too long (maximum is 2000 characters)";
	if (!netcheck_http_url(url, host, sizeof(host)))
		return "must be a valid URL";
	if (netcheck_local_host(host) && !settings_allow_local_requests(&r->ctx))
		return "is blocked: Requests to the local network are not allowed";
	return NULL;
}

/* Reads the input of a hook into v (HI_ layout from v[HI_URL]): the url (required), the
 * token sealed ('' for an empty one), the flags the scope takes. 0, 1 when it answered
 * (a bad url or token, each scope as 10.8 answers it), or an ERR_ code. */
static int read_input(request *r, bool system, const char **v)
{
	int rc = param_require(r, "url", &v[HI_URL - 1]);
	if (rc < 0)
		return rc;
	for (int i = 0; i < NFLAGS; i++) {
		bool b;
		if (!flags[i].system && system)
			continue;
		if ((rc = param_bool(r, flags[i].name, &b)) < 0)
			return rc;
		if (rc == 0)
			v[HI_FLAGS - 1 + i] = b ? "true" : "false";
	}
	const char *problem = url_problem(r, v[HI_URL - 1]);
	if (problem) {
		if (system)
			return fail_validation(r, "url", problem);
		return api_error(r, 422, "Invalid url given") + 1;
	}
	/* 10.8 refuses a newline; any control character would break the header it is
	 * sent in */
	const char *token = param_str(r, "token");
	bool bad_token = false;
	for (const char *t = token; t && *t; t++)
		bad_token = bad_token || (unsigned char)*t < 0x20 || *t == 0x7f;
	if (bad_token) {
		if (system)
			return fail_validation(r, "token", "is invalid");
		return api_error(r, 404, "404 Project hook {:token=>[\"is invalid\"]} Not Found") +
		       1;
	}
	if (token && *token && !(token = crypto_seal(r->ctx.a, r->ctx.key, token)))
		return ERR_INTERNAL;
	v[HI_TOKEN - 1] = token;
	return 0;
}

static int hooks_project_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = may_admin(r)) < 0)
		return rc;
	const char *v[3] = {r->project->id, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	return api_page(r, &pg, "hooks_list", 3, v, entity_project_hook);
}

static int hooks_project_show(request *r)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	const char *v[2] = {r->project->id, param_str(r, "hook_id")};
	PGresult *res;
	if ((rc = api_find(r, "hooks_show", 2, v, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_json(r, 200, entity_project_hook(&r->ctx, res, 0, 0));
	return 0;
}

static int hooks_project_create(request *r)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	const char *v[HI_NPARAMS] = {[HI_PROJECT] = r->project->id};
	DB_PARAMS(v, HI_NPARAMS);
	if ((rc = read_input(r, false, v + 1)) != 0)
		return rc < 0 ? rc : 0;
	int err;
	PGresult *res = db_query(&r->ctx, "hooks_insert", HI_NPARAMS, v, &err);
	if (!res)
		return err;
	respond_json(r, 201, entity_project_hook(&r->ctx, res, 0, 0));
	return 0;
}

static int hooks_project_update(request *r)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	const char *v[HU_NPARAMS] = {
		[HU_PROJECT] = r->project->id, [HU_ID] = param_str(r, "hook_id")};
	DB_PARAMS(v, HU_NPARAMS);
	if ((rc = read_input(r, false, v + HU_INPUT)) != 0)
		return rc < 0 ? rc : 0;
	PGresult *res;
	if ((rc = api_find(r, "hooks_update", HU_NPARAMS, v, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_json(r, 200, entity_project_hook(&r->ctx, res, 0, 0));
	return 0;
}

static int hooks_project_delete(request *r)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	const char *v[2] = {r->project->id, param_str(r, "hook_id")};
	PGresult *res;
	if ((rc = api_find(r, "hooks_delete", 2, v, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_empty(r, 204);
	return 0;
}

static int hooks_system_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	const char *v[3] = {NULL, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	return api_page(r, &pg, "hooks_list", 3, v, entity_system_hook);
}

static int hooks_system_create(request *r)
{
	const char *v[HI_NPARAMS] = {0};
	DB_PARAMS(v, HI_NPARAMS);
	int rc = read_input(r, true, v + 1);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	int err;
	PGresult *res = db_query(&r->ctx, "hooks_insert", HI_NPARAMS, v, &err);
	if (!res)
		return err;
	respond_json(r, 201, entity_system_hook(&r->ctx, res, 0, 0));
	return 0;
}

/* GET /hooks/:id: 10.8 sends the hook a sample project_create event and answers with
 * it; here it is queued for that hook alone, in the request's transaction. */
static int hooks_system_test(request *r)
{
	const char *v[2] = {NULL, param_str(r, "id")};
	PGresult *res;
	int rc = api_find(r, "hooks_show", 2, v, "System hook", &res);
	if (rc < 0)
		return rc;
	json_object *data = entity_hook_system_test(&r->ctx);
	const char *text = arena_strdup(
		r->ctx.a, json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN));
	if ((rc = webhooks_queue_one(&r->ctx, v[1], WEBHOOK_SYSTEM, text)) < 0) {
		json_object_put(data);
		return rc;
	}
	respond_json(r, 200, data);
	return 0;
}

static int hooks_system_delete(request *r)
{
	const char *v[2] = {NULL, param_str(r, "id")};
	PGresult *res;
	int rc = api_find(r, "hooks_delete", 2, v, "System hook", &res);
	if (rc < 0)
		return rc;
	respond_empty(r, 204);
	return 0;
}

/* ---- system events (api.h) ---- */

/* Runs stmt for the event's row and queues what present makes of it for every system
 * hook: 0 (nothing when there is no system hook or no row) or an ERR_ code. */
typedef json_object *system_presenter(ctx *c, const PGresult *res, const void *arg);

static int system_event(ctx *c, const char *stmt, int n, const char *const *v,
			system_presenter *present, const void *arg)
{
	int err;
	PGresult *res = db_query(c, stmt, n, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return 0;
	return webhooks_queue_system(c, present(c, res, arg));
}

struct named_event {
	const char *event;
	const char *old_path;
	bool project;
};

static json_object *present_project(ctx *c, const PGresult *res, const void *arg)
{
	const struct named_event *e = arg;
	return entity_hook_system_project(c, res, e->event, e->old_path);
}

static json_object *present_user(ctx *c, const PGresult *res, const void *arg)
{
	return entity_hook_system_user(c, res, ((const struct named_event *)arg)->event);
}

static json_object *present_group(ctx *c, const PGresult *res, const void *arg)
{
	return entity_hook_system_group(c, res, ((const struct named_event *)arg)->event);
}

static json_object *present_member(ctx *c, const PGresult *res, const void *arg)
{
	const struct named_event *e = arg;
	return entity_hook_system_member(c, res, e->project, e->event);
}

static json_object *present_key(ctx *c, const PGresult *res, const void *arg)
{
	return entity_hook_system_key(c, res, ((const struct named_event *)arg)->event);
}

int hooks_system_project(ctx *c, const char *event, const char *project_id, const char *old_path)
{
	struct named_event e = {.event = event, .old_path = old_path};
	return system_event(c, "hooks_sys_project", 1, &project_id, present_project, &e);
}

int hooks_system_user(ctx *c, const char *event, const char *user_id)
{
	struct named_event e = {.event = event};
	return system_event(c, "hooks_sys_user", 1, &user_id, present_user, &e);
}

int hooks_system_group(ctx *c, const char *event, const char *group_id)
{
	struct named_event e = {.event = event};
	return system_event(c, "hooks_sys_group", 1, &group_id, present_group, &e);
}

int hooks_system_member(ctx *c, bool project, bool added, const char *source_id,
			const char *user_id)
{
	struct named_event e = {
		.event = project ? (added ? "user_add_to_team" : "user_remove_from_team")
				 : (added ? "user_add_to_group" : "user_remove_from_group"),
		.project = project};
	const char *v[3] = {project ? "Project" : "Namespace", source_id, user_id};
	return system_event(c, "hooks_sys_member", 3, v, present_member, &e);
}

int hooks_system_key(ctx *c, const char *event, const char *key_id)
{
	struct named_event e = {.event = event};
	return system_event(c, "hooks_sys_key", 1, &key_id, present_key, &e);
}

/* ---- project events (api.h) ---- */

int hooks_wiki_page(request *r, const char *action, const char *title, const char *slug,
		    const char *format, const char *content, size_t len, const char *message)
{
	PGresult *res;
	int rc = webhooks_event_context(&r->ctx, r->project->id, api_caller_id(r),
					WEBHOOK_WIKI_PAGE, &res);
	if (rc <= 0)
		return rc;
	json_object *e = entity_hook_wiki_page(&r->ctx, res, action, title, slug, format, content,
					       len, message);
	const char *text =
		arena_strdup(r->ctx.a, json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN));
	json_object_put(e);
	return webhooks_queue(&r->ctx, r->project->id, WEBHOOK_WIKI_PAGE, text, NULL);
}

int hooks_issue(request *r, const char *issue_id, const char *action)
{
	int err;
	const char *v[1] = {issue_id};
	PGresult *issue = db_query(&r->ctx, "hooks_issue_row", 1, v, &err);
	if (!issue)
		return err;
	if (PQntuples(issue) == 0)
		return 0;
	/* confidential issues go to the hooks that want those (10.8's
	 * confidential_issue_hooks), the others to issues_events */
	webhook_event ev = db_bool(issue, 0, HIS_CONFIDENTIAL) ? WEBHOOK_CONFIDENTIAL_ISSUE
							       : WEBHOOK_ISSUE;
	PGresult *res;
	int rc = webhooks_event_context(&r->ctx, r->project->id, api_caller_id(r), ev, &res);
	if (rc <= 0)
		return rc;
	json_object *e = entity_hook_issue(&r->ctx, res, issue, action);
	const char *text =
		arena_strdup(r->ctx.a, json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN));
	json_object_put(e);
	return webhooks_queue(&r->ctx, r->project->id, ev, text, NULL);
}

/* The text of an event's payload, which it releases. */
static const char *payload_text(ctx *c, json_object *e)
{
	const char *text =
		arena_strdup(c->a, json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN));
	json_object_put(e);
	return text;
}

/* Row 0 of statement stmt for id: 1 with it in *out, 0 when there is none, or an ERR_. */
static int one_row(ctx *c, const char *stmt, const char *id, PGresult **out)
{
	int err;
	const char *v[1] = {id};
	PGresult *res = db_query(c, stmt, 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return 0;
	*out = res;
	return 1;
}

/* Commit#hook_attrs (without its files) of sha in project_id's repository, NULL when
 * either is gone. */
static json_object *commit_attrs(ctx *c, const char *project_id, const PGresult *project,
				 const char *sha)
{
	git_repository *repo;
	git_commit *commit;
	if (!project_id || !sha || gitc_open(c, project_id, &repo) != 0 ||
	    gitc_commit_by_id(c, repo, sha, &commit) != 0)
		return NULL;
	const char *web = project_web_url(c, db_val(project, 0, WPC_NAMESPACE_PATH),
					  db_val(project, 0, WPC_PATH));
	return entity_hook_last_commit(c, commit, web);
}

/* MergeRequest#hook_attrs of row 0 of mr, its target project's columns in target. */
static int mr_attrs(ctx *c, const PGresult *mr, const PGresult *target, const char *action,
		    json_object **out)
{
	const char *source_id = db_val(mr, 0, HMR_SOURCE_PROJECT_ID);
	PGresult *source = NULL;
	if (source_id) {
		int rc = webhooks_push_context(c, source_id, NULL, NULL, &source);
		if (rc < 0 && rc != ERR_NOT_FOUND)
			return rc;
	}
	json_object *last = source ? commit_attrs(c, source_id, source, db_val(mr, 0, HMR_SHA))
				   : NULL;
	*out = entity_hook_mr_attrs(c, mr, source, target, last, action);
	return 0;
}

int hooks_merge_request_before(request *r, const char *mr_id, PGresult **old)
{
	*old = NULL;
	PGresult *res = NULL;
	int rc = webhooks_event_context(&r->ctx, r->project->id, api_caller_id(r),
					WEBHOOK_MERGE_REQUEST, &res);
	if (rc <= 0)
		return rc;
	rc = one_row(&r->ctx, "hooks_mr_row", mr_id, old);
	return rc < 0 ? rc : 0;
}

int hooks_merge_request_as(ctx *c, const char *project_id, const char *user_id, const char *mr_id,
			   const char *action, const PGresult *old, const char *oldrev)
{
	PGresult *res = NULL, *mr = NULL;
	int rc = webhooks_event_context(c, project_id, user_id, WEBHOOK_MERGE_REQUEST, &res);
	if (rc <= 0 || (rc = one_row(c, "hooks_mr_row", mr_id, &mr)) <= 0)
		return rc;
	json_object *attrs;
	if ((rc = mr_attrs(c, mr, res, action, &attrs)) < 0)
		return rc;
	if (oldrev)
		json_put_str(attrs, "oldrev", oldrev);
	json_object *e = entity_hook_merge_request(c, res, mr, old, attrs);
	return webhooks_queue(c, project_id, WEBHOOK_MERGE_REQUEST, payload_text(c, e), NULL);
}

int hooks_merge_request(request *r, const char *mr_id, const char *action, const PGresult *old)
{
	return hooks_merge_request_as(&r->ctx, r->project->id, api_caller_id(r), mr_id, action, old,
				      NULL);
}

int hooks_note(request *r, const char *note_id, const char *noteable_type, const char *noteable_id)
{
	bool issue_note = strcmp(noteable_type, "Issue") == 0;
	if (!issue_note && strcmp(noteable_type, "MergeRequest") != 0 &&
	    strcmp(noteable_type, "Commit") != 0 && strcmp(noteable_type, "Snippet") != 0)
		return 0;
	ctx *c = &r->ctx;
	PGresult *target = NULL;
	int rc;
	/* not on a confidential issue, whose comments 10.8's note hooks would leak to every
	 * hook (11.1 added confidential_note_events for them) */
	if (issue_note && ((rc = one_row(c, "hooks_issue_row", noteable_id, &target)) <= 0 ||
			   db_bool(target, 0, HIS_CONFIDENTIAL)))
		return rc < 0 ? rc : 0;
	PGresult *res = NULL, *note = NULL;
	rc = webhooks_event_context(c, r->project->id, api_caller_id(r), WEBHOOK_NOTE, &res);
	if (rc <= 0 || (rc = one_row(c, "hooks_note_row", note_id, &note)) <= 0)
		return rc;
	json_object *e;
	if (issue_note) {
		e = entity_hook_issue_note(c, res, note, target);
	} else if (strcmp(noteable_type, "MergeRequest") == 0) {
		json_object *attrs;
		if ((rc = one_row(c, "hooks_mr_row", noteable_id, &target)) <= 0 ||
		    (rc = mr_attrs(c, target, res, NULL, &attrs)) < 0)
			return rc;
		e = entity_hook_note(c, res, note, "merge_request", attrs,
				     arena_printf(c->a, "merge_requests/%s",
						  db_val(target, 0, HMR_IID)));
	} else if (strcmp(noteable_type, "Snippet") == 0) {
		if ((rc = one_row(c, "hooks_snippet_row", noteable_id, &target)) <= 0)
			return rc;
		e = entity_hook_note(c, res, note, "snippet", entity_hook_snippet(c, target),
				     arena_printf(c->a, "snippets/%s", noteable_id));
	} else {
		json_object *commit = commit_attrs(c, r->project->id, res, noteable_id);
		if (!commit)
			return 0;
		e = entity_hook_note(c, res, note, "commit", commit,
				     arena_printf(c->a, "commit/%s", noteable_id));
	}
	return webhooks_queue(c, r->project->id, WEBHOOK_NOTE, payload_text(c, e), NULL);
}

#define H V4 "/projects/:id/hooks"
/* The module's routes (http/router.h), in the order they are matched. */
const route hooks_routes[] = {
	{"GET", H, hooks_project_list, AUTH | PR, NULL},
	{"GET", H "/:hook_id", hooks_project_show, AUTH | PR, check_hook_id},
	{"POST", H, hooks_project_create, AUTH | PA, NULL},
	{"PUT", H "/:hook_id", hooks_project_update, AUTH | PA, check_hook_id},
	{"DELETE", H "/:hook_id", hooks_project_delete, AUTH | PA, check_hook_id},
	{"GET", V4 "/hooks", hooks_system_list, ADMIN, NULL},
	{"POST", V4 "/hooks", hooks_system_create, ADMIN | TX, NULL},
	{"GET", V4 "/hooks/:id", hooks_system_test, ADMIN | TX, check_system_id},
	{"DELETE", V4 "/hooks/:id", hooks_system_delete, ADMIN | TX, check_system_id},
	{NULL, NULL, NULL, 0, NULL},
};
