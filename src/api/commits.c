/* Commits (spec 4.7, GitLab 10's lib/api/commits.rb and commit_statuses.rb): the history,
 * one commit, its diff, comments and statuses, commits made with actions and
 * cherry-picks. The git work is git/commits.c's; what the repository API's modules share
 * (read and push rules, the repository, the committer) is here, declared in api.h. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/validate.h"
#include "entity/entity.h"
#include "entity/user.h"
#include "git/hooks.h"
#include "git/commits.h"
#include "git/graph.h"
#include "git/refs.h"
#include "core/deps.h"

/* The columns of a commit status (Entities::CommitStatus), then its author. */
#define STATUS_COLS                                                                                 \
	"s.id, s.sha, s.ref, s.status, s.name, s.target_url, s.description, iso8601(s.created_at)," \
	" iso8601(s.started_at), iso8601(s.finished_at), s.allow_failure, s.coverage, " USER_COLS
#define STATUS_NCOLS (12 + USER_NCOLS)
/* A commit comment (Entities::CommitNote), then its author. */
#define NOTE_COLS "n.note, n.path, n.line, n.line_type, iso8601(n.created_at), " USER_COLS
#define NOTE_NCOLS (5 + USER_NCOLS)

/* GitLab's composite status of a set of statuses (HasStatus.status_sql) over l. */
#define SQL_COMPOSITE                                                                              \
	"CASE WHEN count(*) = 0 THEN NULL"                                                         \
	" WHEN count(*) = count(*) FILTER (WHERE status = 'skipped') THEN 'skipped'"               \
	" WHEN count(*) = count(*) FILTER (WHERE status = 'success' OR (status = 'failed'"         \
	" AND allow_failure)) THEN 'success'"                                                      \
	" WHEN count(*) = count(*) FILTER (WHERE status = 'created') THEN 'created'"               \
	" WHEN count(*) = count(*) FILTER (WHERE status IN ('success', 'skipped')"                 \
	" OR (status = 'failed' AND allow_failure)) THEN 'success'"                                \
	" WHEN count(*) = count(*) FILTER (WHERE status IN ('success', 'skipped', 'canceled')"     \
	" OR (status = 'failed' AND allow_failure)) THEN 'canceled'"                               \
	" WHEN count(*) = count(*) FILTER (WHERE status IN ('created', 'skipped', 'pending'))"     \
	" THEN 'pending'"                                                                          \
	" WHEN count(*) FILTER (WHERE status IN ('running', 'pending', 'created')) > 0"            \
	" THEN 'running'"                                                                          \
	" WHEN count(*) FILTER (WHERE status = 'manual') > 0 THEN 'manual' ELSE 'failed' END"

enum { CU_NAME, CU_EMAIL, CU_NCOLS };
enum {
	CSL_PROJECT,
	CSL_SHA,
	CSL_REF,
	CSL_STAGE,
	CSL_NAME,
	CSL_ALL,
	CSL_LIMIT,
	CSL_OFFSET,
	CSL_NPARAMS
};
enum { CSO_PROJECT, CSO_SHA, CSO_NAME, CSO_REF, CSO_AUTHOR, CSO_NPARAMS };
enum { CSO_ID, CSO_STATUS, CSO_NCOLS };
enum {
	CSI_PROJECT,
	CSI_SHA,
	CSI_REF,
	CSI_NAME,
	CSI_STATUS,
	CSI_TARGET_URL,
	CSI_DESCRIPTION,
	CSI_COVERAGE,
	CSI_AUTHOR,
	CSI_NPARAMS
};
enum { CSU_ID, CSU_STATUS, CSU_TARGET_URL, CSU_DESCRIPTION, CSU_COVERAGE, CSU_NPARAMS };
enum {
	CNI_PROJECT,
	CNI_COMMIT,
	CNI_AUTHOR,
	CNI_NOTE,
	CNI_PATH,
	CNI_LINE,
	CNI_LINE_TYPE,
	CNI_NPARAMS
};

const db_stmt commits_stmts[] = {
	/* $1 user id: the committer of the API's commits */
	{"commits_user", "SELECT name, email FROM users WHERE id = $1", 1, CU_NCOLS},
	/* $1 project, $2 branch: the level a push needs (NULL: not protected) */
	{"commits_push_level", "SELECT branch_push_level($1, $2)", 2, 1},
	/* $1 an ISO 8601 date-time: Unix seconds */
	{"commits_epoch", "SELECT floor(extract(epoch FROM $1::timestamptz))::bigint", 1, 1},
	/* $1 project, $2 sha: the status of the commit, from the latest of each name */
	{"commits_status",
	 "WITH l AS (SELECT DISTINCT ON (name, ref) status, allow_failure FROM commit_statuses"
	 " WHERE project_id = $1 AND sha = $2 ORDER BY name, ref, id DESC)"
	 " SELECT " SQL_COMPOSITE " FROM l",
	 2, 1},
	/* $1 project, $2 sha, $3 ref, $4 stage, $5 name, $6 all, $7 limit, $8 offset */
	{"commits_statuses_list",
	 "WITH f AS (SELECT s.* FROM commit_statuses s WHERE s.project_id = $1 AND s.sha = $2"
	 " AND ($3::text IS NULL OR s.ref = $3) AND ($4::text IS NULL OR s.stage = $4)"
	 " AND ($5::text IS NULL OR s.name = $5) AND ($6::boolean OR s.id IN (SELECT max(x.id)"
	 " FROM commit_statuses x WHERE x.project_id = $1 AND x.sha = $2 GROUP BY x.name, x.ref)))"
	 " SELECT (SELECT count(*) FROM f), p.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " STATUS_COLS " FROM f s LEFT JOIN users u ON u.id = s.author_id"
	 " ORDER BY s.id LIMIT $7 OFFSET $8) p ON true",
	 CSL_NPARAMS, 1 + STATUS_NCOLS},
	/* $1 project, $2 sha, $3 name, $4 ref, $5 author: the pending or running status that
	 * a new state changes (GitLab's find_or_initialize_by on running_or_pending) */
	{"commits_status_open",
	 "SELECT id, status FROM commit_statuses WHERE project_id = $1 AND sha = $2 AND name = $3"
	 " AND ref = $4 AND author_id = $5 AND status IN ('pending', 'running')"
	 " ORDER BY id DESC LIMIT 1 FOR UPDATE",
	 CSO_NPARAMS, CSO_NCOLS},
	/* $1 project, $2 sha, $3 ref, $4 name, $5 status, $6 target_url, $7 description,
	 * $8 coverage, $9 author */
	{"commits_status_insert",
	 "INSERT INTO commit_statuses (project_id, sha, ref, name, status, target_url, description,"
	 " coverage, author_id, started_at, finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7,"
	 " $8::double precision, $9, CASE WHEN $5 = 'running' THEN now() END,"
	 " CASE WHEN $5 IN ('success', 'failed', 'canceled') THEN now() END) RETURNING id",
	 CSI_NPARAMS, 1},
	/* $1 id, $2 status, $3 target_url, $4 description, $5 coverage */
	{"commits_status_update",
	 "UPDATE commit_statuses SET status = $2, target_url = coalesce($3, target_url),"
	 " description = coalesce($4, description),"
	 " coverage = coalesce($5::double precision, coverage), updated_at = now(),"
	 " started_at = CASE WHEN $2 = 'running' THEN coalesce(started_at, now()) ELSE started_at END,"
	 " finished_at = CASE WHEN $2 IN ('success', 'failed', 'canceled') THEN now() END"
	 " WHERE id = $1",
	 CSU_NPARAMS, 0},
	{"commits_status_show",
	 "SELECT " STATUS_COLS " FROM commit_statuses s LEFT JOIN users u ON u.id = s.author_id"
	 " WHERE s.id = $1",
	 1, STATUS_NCOLS},
	/* $1 project, $2 commit, $3 limit, $4 offset */
	{"commits_notes_list",
	 "WITH f AS (SELECT n.* FROM notes n WHERE n.project_id = $1 AND n.noteable_type = 'Commit'"
	 " AND n.commit_id = $2)"
	 " SELECT (SELECT count(*) FROM f), p.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " NOTE_COLS " FROM f n LEFT JOIN users u ON u.id = n.author_id"
	 " ORDER BY n.created_at, n.id LIMIT $3 OFFSET $4) p ON true",
	 4, 1 + NOTE_NCOLS},
	/* $1 project, $2 commit, $3 author, $4 note, $5 path, $6 line, $7 line_type */
	{"commits_note_insert",
	 "WITH n AS (INSERT INTO notes (project_id, noteable_type, commit_id, author_id, note, path,"
	 " line, line_type) VALUES ($1, 'Commit', $2, $3, $4, $5, $6::integer, $7) RETURNING *)"
	 " SELECT " NOTE_COLS ", n.id FROM n LEFT JOIN users u ON u.id = n.author_id",
	 CNI_NPARAMS, NOTE_NCOLS + 1},
	{NULL, NULL, 0, 0},
};

/* ---- shared with files.c ---- */

bool content_can_read(request *r)
{
	return can_read_code(&r->project->pa, r->project->visibility, r->ctx.user);
}

int content_read(request *r)
{
	return content_can_read(r) ? 0 : ERR_FORBIDDEN;
}

int content_can_push(request *r)
{
	if (!content_can_read(r) || !can_push_code(&r->project->pa, r->ctx.user))
		return ERR_FORBIDDEN;
	return 0;
}

int content_may_push_branch(request *r, const char *branch, bool *out)
{
	const char *v[2] = {r->project->id, branch};
	int err;
	PGresult *res = db_query(&r->ctx, "commits_push_level", 2, v, &err);
	if (!res)
		return err;
	const char *need = db_val(res, 0, 0);
	int level = code_push_level(&r->project->pa);
	*out = need ? level >= atoi(need) : level >= ACCESS_DEVELOPER;
	return 0;
}

void content_depend(request *r)
{
	long long id = atoll(r->project->id);
	deps_add(&r->ctx, CACHE_KEY_PROJECT(id));
	deps_add(&r->ctx, CACHE_KEY_NAMESPACE(atoll(r->project->namespace_id)));
	deps_add(&r->ctx, CACHE_KEY_REPOSITORY(id));
}

int content_repo(request *r, git_repository **out)
{
	content_depend(r);
	int rc = gitc_open(&r->ctx, r->project->id, out);
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, "Repository");
	return rc < 0 ? ERR_INTERNAL : 0;
}

int content_committer(request *r, const char **name, const char **email)
{
	const char *v[1] = {api_caller_id(r)};
	int err;
	PGresult *res = db_query(&r->ctx, "commits_user", 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_UNAUTHORIZED;
	*name = db_val(res, 0, CU_NAME);
	*email = db_val(res, 0, CU_EMAIL);
	return 0;
}

void content_error(request *r, int status, const char *message)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "message", json_object_new_string(message));
	respond_json(r, status, o);
}

int content_write(request *r, git_repository *repo, gitc_commit_req *req, git_commit **out)
{
	bool allowed;
	int rc = content_may_push_branch(r, req->branch, &allowed);
	if (rc < 0)
		return rc;
	if (!allowed) {
		content_error(r, 400, "You are not allowed to push into this branch");
		return 1;
	}
	if ((rc = content_committer(r, &req->committer_name, &req->committer_email)) < 0)
		return rc;
	const char *msg = NULL;
	bool existed = gitc_branch_exists(repo, req->branch, NULL);
	rc = gitc_commit_create(&r->ctx, repo, req, out, &msg);
	if (rc == ERR_REFUSED) {
		content_error(r, 400, msg);
		return 1;
	}
	if (rc == ERR_MOVED) {
		content_error(r, 400,
			      "You are attempting to update a file that has changed since "
			      "you started editing it.");
		return 1;
	}
	if (rc < 0)
		return ERR_INTERNAL;
	/* the branch moved from the new commit's parent (compare-and-swap), or was made */
	return hooks_pushed(&r->ctx, repo, r->project,
			    arena_printf(r->ctx.a, "refs/heads/%s", req->branch),
			    existed ? git_commit_parent_id(*out, 0) : NULL, git_commit_id(*out));
}

/* ---- commits ---- */

/* The commit of :sha, or 404 Commit Not Found. */
static int find_commit(request *r, git_repository *repo, git_commit **out)
{
	const char *sha = param_str(r, "sha");
	int rc = gitc_commit_of(&r->ctx, repo, sha, out);
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, "Commit");
	return rc < 0 ? ERR_INTERNAL : 0;
}

static const char *sha_of(request *r, git_commit *c)
{
	char *s = arena_alloc(r->ctx.a, GIT_OID_HEXSZ + 1);
	git_oid_tostr(s, GIT_OID_HEXSZ + 1, git_commit_id(c));
	return s;
}

static int epoch_param(request *r, const char *name, long long *out)
{
	const char *v;
	int rc = param_datetime(r, name, &v);
	if (rc != 0)
		return rc;
	const char *p[1] = {v};
	PGresult *res = db_query(&r->ctx, "commits_epoch", 1, p, NULL);
	if (!res || PQntuples(res) != 1)
		return fail_invalid(r, name);
	*out = db_int(res, 0, 0);
	return 0;
}

static int commits_check_list(request *r)
{
	long long t;
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = epoch_param(r, "since", &t)) < 0 ||
	    (rc = epoch_param(r, "until", &t)) < 0)
		return rc;
	return 0;
}

static int commits_list(request *r)
{
	page_req pg;
	long long since = LLONG_MIN, until = LLONG_MAX;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = epoch_param(r, "since", &since)) < 0 ||
	    (rc = epoch_param(r, "until", &until)) < 0 || (rc = content_read(r)) < 0)
		return rc;
	git_repository *repo;
	if ((rc = content_repo(r, &repo)) < 0)
		return rc;
	const char *ref = param_str(r, "ref_name");
	const char *path = param_str(r, "path");
	json_object *list;
	long long total;
	rc = gitc_log(&r->ctx, repo, ref && *ref ? ref : NULL, since, until,
		      path && *path ? path : NULL, pg.offset, pg.per_page, &list, &total);
	if (rc < 0 && rc != ERR_NOT_FOUND) { /* no such ref: no commits */
		json_object_put(list);
		return ERR_INTERNAL;
	}
	pagination_headers(r, &pg, total);
	respond_json(r, 200, list);
	return 0;
}

/* The status of a commit (RepoCommitDetail's status). */
static int add_status(request *r, json_object *o, const char *sha)
{
	const char *v[2] = {r->project->id, sha};
	int err;
	PGresult *res = db_query(&r->ctx, "commits_status", 2, v, &err);
	if (!res)
		return err;
	json_put_str(o, "status", db_val(res, 0, 0));
	return 0;
}

int commits_detail_json(request *r, git_repository *repo, git_commit *c, json_object **out)
{
	json_object *o = gitc_commit_json(&r->ctx, repo, c, true);
	int rc = add_status(r, o, sha_of(r, c));
	if (rc < 0) {
		json_object_put(o);
		return rc;
	}
	*out = o;
	return 0;
}

static int respond_commit(request *r, int status, git_repository *repo, git_commit *c, bool detail)
{
	json_object *o;
	if (detail) {
		int rc = commits_detail_json(r, repo, c, &o);
		if (rc < 0)
			return rc;
	} else {
		o = gitc_commit_json(&r->ctx, repo, c, false);
	}
	respond_json(r, status, o);
	return 0;
}

static int commits_show(request *r)
{
	int rc = content_read(r);
	git_repository *repo;
	git_commit *c;
	if (rc < 0 || (rc = content_repo(r, &repo)) < 0 || (rc = find_commit(r, repo, &c)) < 0)
		return rc;
	return respond_commit(r, 200, repo, c, true);
}

static int commits_diff(request *r)
{
	int rc = content_read(r);
	git_repository *repo;
	git_commit *c;
	if (rc < 0 || (rc = content_repo(r, &repo)) < 0 || (rc = find_commit(r, repo, &c)) < 0)
		return rc;
	json_object *list;
	if (gitc_commit_diff_json(&r->ctx, repo, c, &list) < 0)
		return ERR_INTERNAL;
	respond_json(r, 200, list);
	return 0;
}

/* The actions of a commit from the JSON body (each element of actions an object). */
static int read_actions(request *r, gitc_action **out, size_t *n)
{
	static const char *const kinds[] = {"create", "delete", "move", "update", NULL};
	const char **items;
	int count = param_array(r, "actions", &items);
	if (count < 0)
		return count;
	if (count == 0)
		return fail_missing(r, "actions");
	gitc_action *acts = arena_alloc(r->ctx.a, sizeof(*acts) * (size_t)count);
	for (int i = 0; i < count; i++) {
		json_object *o = items[i] ? request_own(r, json_tokener_parse(items[i])) : NULL;
		if (!o || !json_object_is_type(o, json_type_object))
			return fail_invalid(r, "actions");
		json_object *v;
		const char *s[5] = {NULL};
		static const char *const keys[] = {"action", "file_path", "previous_path",
						   "content", "encoding"};
		for (int k = 0; k < 5; k++)
			if (json_object_object_get_ex(o, keys[k], &v) && v) {
				if (!json_object_is_type(v, json_type_string))
					return fail_invalid(r, arena_printf(r->ctx.a, "actions[%s]",
									    keys[k]));
				s[k] = json_object_get_string(v);
				if (strlen(s[k]) != (size_t)json_object_get_string_len(v))
					return fail_invalid(r, arena_printf(r->ctx.a, "actions[%s]",
									    keys[k]));
			}
		if (!s[0])
			return fail_missing(r, "actions[action]");
		int kind = -1;
		for (int k = 0; kinds[k]; k++)
			if (strcmp(s[0], kinds[k]) == 0)
				kind = k;
		if (kind < 0)
			return fail_not_valid_value(r, "actions[action]");
		if (!s[1])
			return fail_missing(r, "actions[file_path]");
		if (s[4] && strcmp(s[4], "text") != 0 && strcmp(s[4], "base64") != 0)
			return fail_not_valid_value(r, "actions[encoding]");
		gitc_action *a = &acts[i];
		a->kind = kind == 0   ? GITC_CREATE
			  : kind == 1 ? GITC_DELETE
			  : kind == 2 ? GITC_MOVE
				      : GITC_UPDATE;
		a->file_path = s[1];
		a->previous_path = s[2];
		a->content = s[3];
		a->content_len = s[3] ? strlen(s[3]) : 0;
		if ((a->kind == GITC_CREATE || a->kind == GITC_UPDATE) && !s[3])
			return fail_missing(r, "actions[content]");
		if (s[3] && s[4] && strcmp(s[4], "base64") == 0) {
			char *d = gitc_unbase64(&r->ctx, s[3], &a->content_len);
			if (!d)
				return fail_invalid(r, "actions[content]");
			a->content = d;
		}
	}
	*out = acts;
	*n = (size_t)count;
	return 0;
}

/* The actions the check decoded (r->checked), for the handler: an action's content is
 * up to max_body of JSON to parse and base64 to decode, done once. */
typedef struct {
	gitc_action *acts;
	size_t n;
} checked_actions;

static int commits_check_create(request *r)
{
	const char *s;
	int rc;
	checked_actions *c = arena_alloc(r->ctx.a, sizeof(*c));
	if ((rc = param_require(r, "branch", &s)) < 0 ||
	    (rc = param_require(r, "commit_message", &s)) < 0 ||
	    (rc = read_actions(r, &c->acts, &c->n)) < 0)
		return rc;
	r->checked = c;
	return 0;
}

static int commits_create(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	gitc_commit_req req = {0};
	int rc;
	if ((rc = param_require(r, "branch", &req.branch)) < 0 ||
	    (rc = param_require(r, "commit_message", &req.message)) < 0 ||
	    (rc = content_can_push(r)) < 0)
		return rc;
	const checked_actions *c = r->checked; /* set by the route's check */
	gitc_action *acts = c ? c->acts : NULL;
	req.nactions = c ? c->n : 0;
	if (!c && (rc = read_actions(r, &acts, &req.nactions)) < 0)
		return rc;
	req.actions = acts;
	req.start_branch = param_str(r, "start_branch");
	if (req.start_branch && !*req.start_branch)
		req.start_branch = NULL;
	req.author_name = param_str(r, "author_name");
	req.author_email = param_str(r, "author_email");
	git_repository *repo;
	git_commit *made;
	if ((rc = content_repo(r, &repo)) < 0)
		return rc;
	if ((rc = content_write(r, repo, &req, &made)) != 0)
		return rc < 0 ? rc : 0;
	return respond_commit(r, 201, repo, made, true);
}

static int commits_check_branch(request *r)
{
	const char *s;
	return param_require(r, "branch", &s);
}

static int commits_cherry_pick(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	const char *branch;
	int rc;
	if ((rc = param_require(r, "branch", &branch)) < 0 || (rc = content_can_push(r)) < 0)
		return rc;
	git_repository *repo;
	git_commit *c, *made;
	if ((rc = content_repo(r, &repo)) < 0 || (rc = find_commit(r, repo, &c)) < 0)
		return rc;
	if (!valid_ref_name(branch) || !gitc_branch_exists(repo, branch, NULL))
		return fail_not_found(r, "Branch");
	bool allowed;
	if ((rc = content_may_push_branch(r, branch, &allowed)) < 0)
		return rc;
	if (!allowed) {
		content_error(r, 400, "You are not allowed to push into this branch");
		return 0;
	}
	const char *name, *email, *msg = NULL;
	if ((rc = content_committer(r, &name, &email)) < 0)
		return rc;
	rc = gitc_cherry_pick(&r->ctx, repo, c, branch, name, email, &made, &msg);
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, "Branch");
	if (rc == ERR_REFUSED || rc == ERR_MOVED) {
		content_error(r, 400,
			      msg ? msg
				  : "You are attempting to update a file that has "
				    "changed since you started editing it.");
		return 0;
	}
	if (rc < 0)
		return ERR_INTERNAL;
	if ((rc = hooks_pushed(&r->ctx, repo, r->project,
			       arena_printf(r->ctx.a, "refs/heads/%s", branch),
			       git_commit_parent_id(made, 0), git_commit_id(made))) < 0)
		return rc;
	return respond_commit(r, 201, repo, made, false);
}

/* ---- comments ---- */

static json_object *present_note(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = json_object_new_object();
#define NV(i) db_val(res, row, col + (i))
	json_put_str(o, "note", NV(0));
	json_put_str(o, "path", NV(1));
	json_put_int_or_null(o, "line", NV(2));
	json_put_str(o, "line_type", NV(3));
	json_object_object_add(o, "author",
			       NV(5) ? entity_user(c, res, row, col + 5, USER_VIEW_BASIC) : NULL);
	json_put_str(o, "created_at", NV(4));
#undef NV
	return o;
}

static int commits_comments(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	git_repository *repo;
	git_commit *c;
	if (rc < 0 || (rc = content_read(r)) < 0 || (rc = content_repo(r, &repo)) < 0 ||
	    (rc = find_commit(r, repo, &c)) < 0)
		return rc;
	const char *v[4] = {r->project->id, sha_of(r, c), pagination_limit(r, &pg),
			    pagination_offset(r, &pg)};
	return api_page(r, &pg, "commits_notes_list", 4, v, present_note);
}

static int commits_check_comment(request *r)
{
	const char *s;
	long long line;
	int rc;
	if ((rc = param_require(r, "note", &s)) < 0)
		return rc;
	if ((rc = param_int(r, "line", &line)) < 0)
		return rc;
	static const char *const types[] = {"new", "old", NULL};
	if ((rc = param_oneof(r, "line_type", types, &s)) < 0)
		return rc;
	return 0;
}

static int commits_comment(request *r)
{
	int rc = commits_check_comment(r);
	if (rc < 0 || (rc = content_read(r)) < 0)
		return rc;
	git_repository *repo;
	git_commit *c;
	if ((rc = content_repo(r, &repo)) < 0 || (rc = find_commit(r, repo, &c)) < 0)
		return rc;
	const char *note = param_str(r, "note");
	const char *path = param_str(r, "path"), *line_type = param_str(r, "line_type");
	const char *line_text = NULL;
	long long line = 0;
	/* the placement rule: a line of the commit's diff when the sha is the full hash */
	const char *sha = param_str(r, "sha");
	bool placed = false;
	if (path && *path && param_int(r, "line", &line) == 0 && line_type &&
	    strcmp(sha, sha_of(r, c)) == 0)
		placed = gitc_diff_has_line(&r->ctx, repo, c, path, line,
					    strcmp(line_type, "new") == 0);
	if (placed)
		line_text = arena_printf(r->ctx.a, "%lld", line);
	const char *v[] = {
		[CNI_PROJECT] = r->project->id,
		[CNI_COMMIT] = sha_of(r, c),
		[CNI_AUTHOR] = api_caller_id(r),
		[CNI_NOTE] = note,
		[CNI_PATH] = placed ? path : NULL,
		[CNI_LINE] = line_text,
		[CNI_LINE_TYPE] = placed ? line_type : NULL,
	};
	DB_PARAMS(v, CNI_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx, "commits_note_insert", CNI_NPARAMS, v, &err);
	if (!res)
		return err;
	if ((rc = hooks_note(r, db_val(res, 0, NOTE_NCOLS), "Commit", sha_of(r, c))) < 0)
		return rc;
	respond_json(r, 201, present_note(&r->ctx, res, 0, 0));
	return 0;
}

/* ---- statuses ---- */

static json_object *present_status(ctx *c, const PGresult *res, int row, int col)
{
	json_object *o = json_object_new_object();
#define SV(i) db_val(res, row, col + (i))
	json_put_int(o, "id", db_int(res, row, col));
	json_put_str(o, "sha", SV(1));
	json_put_str(o, "ref", SV(2));
	json_put_str(o, "status", SV(3));
	json_put_str(o, "name", SV(4));
	json_put_str(o, "target_url", SV(5));
	json_put_str(o, "description", SV(6));
	json_put_str(o, "created_at", SV(7));
	json_put_str(o, "started_at", SV(8));
	json_put_str(o, "finished_at", SV(9));
	json_put_bool(o, "allow_failure", db_bool(res, row, col + 10));
	json_object_object_add(o, "coverage",
			       SV(11) ? json_object_new_double(strtod(SV(11), NULL)) : NULL);
	json_object_object_add(o, "author",
			       SV(12) ? entity_user(c, res, row, col + 12, USER_VIEW_BASIC) : NULL);
#undef SV
	return o;
}

static int statuses_list(request *r)
{
	page_req pg;
	bool all = false;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = param_bool(r, "all", &all)) < 0 || (rc = content_read(r)) < 0)
		return rc;
	git_repository *repo;
	git_commit *c;
	if ((rc = content_repo(r, &repo)) < 0 || (rc = find_commit(r, repo, &c)) < 0)
		return rc;
	const char *ref = param_str(r, "ref"), *stage = param_str(r, "stage"),
		   *name = param_str(r, "name");
	const char *v[] = {
		[CSL_PROJECT] = r->project->id,
		[CSL_SHA] = param_str(r, "sha"),
		[CSL_REF] = ref && *ref ? ref : NULL,
		[CSL_STAGE] = stage && *stage ? stage : NULL,
		[CSL_NAME] = name && *name ? name : NULL,
		[CSL_ALL] = all ? "true" : "false",
		[CSL_LIMIT] = pagination_limit(r, &pg),
		[CSL_OFFSET] = pagination_offset(r, &pg),
	};
	DB_PARAMS(v, CSL_NPARAMS);
	return api_page(r, &pg, "commits_statuses_list", CSL_NPARAMS, v, present_status);
}

static int statuses_check(request *r)
{
	static const char *const states[] = {"pending", "running",  "success",
					     "failed",  "canceled", NULL};
	const char *s;
	int rc = param_oneof(r, "state", states, &s);
	if (rc == 1)
		return fail_missing(r, "state");
	if (rc < 0)
		return rc;
	const char *cov = param_str(r, "coverage");
	if (cov && *cov) {
		char *end;
		strtod(cov, &end);
		if (*end)
			return fail_invalid(r, "coverage");
	}
	return 0;
}

/* The state machine of a commit status (GitLab 10's CommitStatus): the state that
 * applying state to cur leads to, or NULL with *event when the transition is refused. */
static const char *transition(const char *cur, const char *state, const char **event)
{
	bool open = strcmp(cur, "created") == 0 || strcmp(cur, "pending") == 0 ||
		    strcmp(cur, "running") == 0;
	if (strcmp(state, "pending") == 0) {
		*event = "enqueue";
		return strcmp(cur, "created") == 0 ? "pending" : NULL;
	}
	if (strcmp(state, "running") == 0) {
		*event = "run";
		return strcmp(cur, "created") == 0 || strcmp(cur, "pending") == 0 ? "running"
										  : NULL;
	}
	*event = strcmp(state, "success") == 0  ? "success"
		 : strcmp(state, "failed") == 0 ? "drop"
						: "cancel";
	return open ? state : NULL;
}

static int statuses_create(request *r)
{
	int rc = statuses_check(r);
	if (rc < 0)
		return rc;
	if (!content_can_read(r) || code_push_level(&r->project->pa) < ACCESS_DEVELOPER)
		return ERR_FORBIDDEN;
	git_repository *repo;
	git_commit *c;
	if ((rc = content_repo(r, &repo)) < 0 || (rc = find_commit(r, repo, &c)) < 0)
		return rc;
	const char *sha = sha_of(r, c);
	const char *ref = param_str(r, "ref");
	if (!ref || !*ref) {
		const char **names;
		int n = refs_containing(&r->ctx, repo, false, git_commit_id(c), &names);
		ref = n > 0 ? names[0] : NULL; /* the first branch by name */
	}
	if (!ref)
		return fail_not_found(r, "References for commit");
	const char *name = param_str(r, "name");
	if (!name || !*name)
		name = param_str(r, "context");
	if (!name || !*name)
		name = "default";
	const char *state = param_str(r, "state"), *target_url = param_str(r, "target_url"),
		   *description = param_str(r, "description"), *coverage = param_str(r, "coverage");
	if (coverage && !*coverage)
		coverage = NULL;
	const char *me = api_caller_id(r);
	const char *v[] = {[CSO_PROJECT] = r->project->id,
			   [CSO_SHA] = sha,
			   [CSO_NAME] = name,
			   [CSO_REF] = ref,
			   [CSO_AUTHOR] = me};
	DB_PARAMS(v, CSO_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx, "commits_status_open", CSO_NPARAMS, v, &err);
	if (!res)
		return err;
	const char *cur = PQntuples(res) ? db_val(res, 0, CSO_STATUS) : "created";
	const char *event, *next = transition(cur, state, &event);
	if (!next) {
		content_error(r, 400,
			      arena_printf(r->ctx.a,
					   "Cannot transition status via :%s from :%s "
					   "(Reason(s): Status cannot transition via \"%s\")",
					   event, cur, event));
		return 0;
	}
	const char *id;
	if (PQntuples(res)) {
		id = db_val(res, 0, CSO_ID);
		const char *u[] = {[CSU_ID] = id,
				   [CSU_STATUS] = next,
				   [CSU_TARGET_URL] = target_url,
				   [CSU_DESCRIPTION] = description,
				   [CSU_COVERAGE] = coverage};
		DB_PARAMS(u, CSU_NPARAMS);
		if (!db_query(&r->ctx, "commits_status_update", CSU_NPARAMS, u, &err))
			return err;
	} else {
		const char *in[] = {[CSI_PROJECT] = r->project->id,
				    [CSI_SHA] = sha,
				    [CSI_REF] = ref,
				    [CSI_NAME] = name,
				    [CSI_STATUS] = next,
				    [CSI_TARGET_URL] = target_url,
				    [CSI_DESCRIPTION] = description,
				    [CSI_COVERAGE] = coverage,
				    [CSI_AUTHOR] = me};
		DB_PARAMS(in, CSI_NPARAMS);
		PGresult *ins = db_query(&r->ctx, "commits_status_insert", CSI_NPARAMS, in, &err);
		if (!ins)
			return err;
		id = db_val(ins, 0, 0);
	}
	const char *s[1] = {id};
	if (!(res = db_query(&r->ctx, "commits_status_show", 1, s, &err)))
		return err;
	respond_json(r, 201, present_status(&r->ctx, res, 0, 0));
	return 0;
}

/* GET .../commits/:sha/refs (GitLab 10.6): the branches, then the tags, that contain the
 * commit, as Kaminari.paginate_array pages them; type branch, tag or all. */
static int commits_refs(request *r)
{
	static const char *const types[] = {"branch", "tag", "all", NULL};
	const char *type = "all";
	page_req pg;
	int rc = param_oneof(r, "type", types, &type);
	if (rc < 0 || (rc = pagination_parse(r, &pg)) < 0 || (rc = content_read(r)) < 0)
		return rc;
	git_repository *repo;
	git_commit *c;
	if ((rc = content_repo(r, &repo)) < 0 || (rc = find_commit(r, repo, &c)) < 0)
		return rc;
	const char **names[2] = {NULL, NULL};
	int n[2] = {0, 0};
	for (int tags = 0; tags < 2; tags++) {
		if (strcmp(type, tags ? "branch" : "tag") == 0)
			continue;
		n[tags] = refs_containing(&r->ctx, repo, tags, git_commit_id(c), &names[tags]);
		if (n[tags] < 0)
			return n[tags];
	}
	long long total = n[0] + n[1];
	pagination_headers(r, &pg, total);
	json_object *a = json_object_new_array();
	for (long long i = pg.offset; i < total && i < pg.offset + pg.per_page; i++) {
		bool tag = i >= n[0];
		json_object *o = json_object_new_object();
		json_put_str(o, "type", tag ? "tag" : "branch");
		json_put_str(o, "name", tag ? names[1][i - n[0]] : names[0][i]);
		json_object_array_add(a, o);
	}
	respond_json(r, 200, a);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. Commits made
 * through the API are transactions that lock the project (ROUTE_TX): the branch moves
 * with the push event and job it records (git/hooks.h), or not at all; the branch's
 * compare-and-swap still decides between them and pushes. */
const route commits_routes[] = {
	{"GET", V4 "/projects/:id/repository/commits", commits_list, PRN | ROUTE_CACHE,
	 commits_check_list},
	{"POST", V4 "/projects/:id/repository/commits", commits_create, AUTH | PW,
	 commits_check_create},
	{"GET", V4 "/projects/:id/repository/commits/:sha", commits_show, PRN, NULL},
	{"POST", V4 "/projects/:id/repository/commits/:sha/cherry_pick", commits_cherry_pick,
	 AUTH | PW, commits_check_branch},
	{"GET", V4 "/projects/:id/repository/commits/:sha/diff", commits_diff, PRN, NULL},
	{"GET", V4 "/projects/:id/repository/commits/:sha/refs", commits_refs, PRN, NULL},
	{"GET", V4 "/projects/:id/repository/commits/:sha/comments", commits_comments, PRN, NULL},
	{"POST", V4 "/projects/:id/repository/commits/:sha/comments", commits_comment, AUTH | PW,
	 commits_check_comment},
	{"GET", V4 "/projects/:id/repository/commits/:sha/statuses", statuses_list, AUTH | PRN,
	 NULL},
	{"POST", V4 "/projects/:id/statuses/:sha", statuses_create, AUTH | PW, statuses_check},
	{NULL, NULL, NULL, 0, NULL},
};
