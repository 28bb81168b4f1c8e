/* Runners (spec 4.1; GitLab 10's lib/api/runners.rb): the runners a user may use, all of
 * them for admins, one runner's details, its update and removal, and the runners of a
 * project, enabled and disabled there. Registration (POST /runners with a registration
 * token) belongs to the runner protocol.
 *
 * Who may do what, as GitLab 10: the specific runners a user may use are those of the
 * projects in their own namespace or where they are master or up (User#ci_authorized_
 * runners); they see those, update them, remove those that serve one project only, and
 * enable them in another project they master, unless the runner is locked. A shared
 * runner is seen by anyone, its token by admins only; admins do everything. Online means
 * contacted within the last hour. */
#include <string.h>

#include "api/api.h"
#include "entity/runner.h"

/* The projects whose specific runners user $1 may use (GitLab 10's User#ci_projects_union:
 * personal projects, and those where the user is master or owner). */
#define SQL_CI_PROJECTS                                                                            \
	"SELECT pa.project_id FROM project_authorizations pa WHERE pa.user_id = $1"                \
	" AND pa.access_level >= 40 AND pa.expires_at > current_date"                              \
	" UNION ALL SELECT up.id FROM projects up JOIN namespaces un ON un.id = up.namespace_id"   \
	" WHERE un.kind = 'user' AND un.owner_id = $1"
/* Runner R is one of those (ci_authorized_runners.exists?(R)). */
#define SQL_CI_AUTHORIZED(R)                                                                       \
	"(NOT " R ".is_shared AND EXISTS (SELECT 1 FROM ci_runner_projects arp JOIN projects ap"   \
	" ON ap.id = arp.project_id AND NOT ap.pending_delete WHERE arp.runner_id = " R ".id"      \
	" AND arp.project_id IN (" SQL_CI_PROJECTS ")))"
/* Runner R is in scope S (NULL: any): Ci::Runner's scopes. */
#define SQL_RUNNER_SCOPE(R, S)                                                                     \
	"(" S "::text IS NULL OR (" S " = 'active' AND " R ".active)"                              \
	" OR (" S " = 'paused' AND NOT " R ".active)"                                              \
	" OR (" S " = 'online' AND " R ".contacted_at > now() - interval '1 hour')"                \
	" OR (" S " = 'specific' AND NOT " R ".is_shared)"                                         \
	" OR (" S " = 'shared' AND " R ".is_shared))"
/* A page of the runners f holds, oldest first; $L limit and $O offset. */
#define SQL_RUNNER_PAGE(L, O)                                                                      \
	" SELECT (SELECT count(*) FROM f), x.* FROM (SELECT 1) one LEFT JOIN LATERAL"              \
	" (SELECT " RUNNER_COLS("r") " FROM ci_runners r WHERE r.id IN (SELECT id FROM f)"         \
				     " ORDER BY r.id LIMIT " L " OFFSET " O ") x ON true"

#define SQL_RUNNER_SHOW                                                                            \
	"SELECT " RUNNER_DETAIL_COLS("r") ", " SQL_CI_AUTHORIZED(                                  \
		"r") ","                                                                           \
		     " (SELECT count(*) FROM ci_runner_projects c WHERE c.runner_id = r.id)"       \
		     " FROM ci_runners r WHERE r.id = $2"

enum { RLP_PROJECT, RLP_SHARED, RLP_SCOPE, RLP_LIMIT, RLP_OFFSET, RLP_NPARAMS };
enum {
	RU_ID,
	RU_HAS_DESCRIPTION,
	RU_DESCRIPTION,
	RU_ACTIVE,
	RU_TAG_LIST,
	RU_RUN_UNTAGGED,
	RU_LOCKED,
	RU_ACCESS_LEVEL,
	RU_NPARAMS
};

const db_stmt runners_stmts[] = {
	/* $1 the caller, $2 scope, $3 limit, $4 offset: found from the caller's projects
	 * (SQL_CI_AUTHORIZED as a set), not by looking at every runner */
	{"runners_list",
	 "WITH f AS (SELECT DISTINCT r.id FROM ci_runner_projects arp JOIN projects ap"
	 " ON ap.id = arp.project_id AND NOT ap.pending_delete JOIN ci_runners r"
	 " ON r.id = arp.runner_id AND NOT r.is_shared"
	 " WHERE arp.project_id IN (" SQL_CI_PROJECTS
	 ") AND " SQL_RUNNER_SCOPE("r", "$2") ")" SQL_RUNNER_PAGE("$3", "$4"),
	 4, 1 + RUNNER_NCOLS},
	/* $1 scope, $2 limit, $3 offset */
	{"runners_list_all",
	 "WITH f AS (SELECT r.id FROM ci_runners r WHERE " SQL_RUNNER_SCOPE(
		 "r", "$1") ")" SQL_RUNNER_PAGE("$2", "$3"),
	 3, 1 + RUNNER_NCOLS},
	/* $1 project, $2 its shared_runners_enabled, $3 scope, $4 limit, $5 offset: its
	 * specific runners, and the shared ones when it uses them (the spec's rule; GitLab
	 * 10's owned_or_shared ignored the setting) */
	{"runners_list_project",
	 "WITH f AS (SELECT r.id FROM ci_runners r WHERE (r.id IN (SELECT runner_id"
	 " FROM ci_runner_projects WHERE project_id = $1) OR ($2::boolean AND r.is_shared))"
	 " AND " SQL_RUNNER_SCOPE("r", "$3") ")" SQL_RUNNER_PAGE("$4", "$5"),
	 RLP_NPARAMS, 1 + RUNNER_NCOLS},
	/* $1 the caller, $2 runner: its details, whether the caller may use it, the number of
	 * its projects; the same locked for the writes that follow in the route's
	 * transaction */
	{"runners_show", SQL_RUNNER_SHOW, 2, RUNNER_DETAIL_NCOLS + 2},
	{"runners_show_lock", SQL_RUNNER_SHOW " FOR UPDATE OF r", 2, RUNNER_DETAIL_NCOLS + 2},
	/* $1 runner, $2 the caller, $3 admin: its projects that the caller is authorized
	 * for (all of them for admins) */
	{"runners_projects",
	 "SELECT " RUNNER_PROJECT_COLS " FROM ci_runner_projects rp JOIN projects p"
	 " ON p.id = rp.project_id AND NOT p.pending_delete"
	 " JOIN namespaces n ON n.id = p.namespace_id"
	 " WHERE rp.runner_id = $1 AND ($3::boolean OR (n.kind = 'user' AND n.owner_id = $2)"
	 " OR EXISTS (SELECT 1 FROM project_authorizations pa WHERE pa.user_id = $2"
	 " AND pa.project_id = p.id AND pa.expires_at > current_date)) ORDER BY p.id",
	 3, RUNNER_PROJECT_NCOLS},
	/* $1 runner; $2 whether description is given, $3 it; $4 active, $5 tag_list (a JSON
	 * array), $6 run_untagged, $7 locked, $8 access_level, NULL keeps a value. Answers
	 * whether the result breaks Ci::Runner#tag_constraints. */
	{"runners_update",
	 "UPDATE ci_runners SET description = CASE WHEN $2::boolean THEN $3 ELSE description END,"
	 " active = coalesce($4::boolean, active),"
	 " tag_list = CASE WHEN $5::jsonb IS NULL THEN tag_list"
	 " ELSE ARRAY(SELECT jsonb_array_elements_text($5::jsonb)) END,"
	 " run_untagged = coalesce($6::boolean, run_untagged),"
	 " locked = coalesce($7::boolean, locked),"
	 " access_level = coalesce($8, access_level), updated_at = now()"
	 " WHERE id = $1 RETURNING NOT run_untagged AND cardinality(tag_list) = 0",
	 RU_NPARAMS, 1},
	{"runners_delete", "DELETE FROM ci_runners WHERE id = $1", 1, 0},
	/* $1 runner, $2 project: the runner enabled there (no row: it already was) */
	{"runners_enable",
	 "INSERT INTO ci_runner_projects (runner_id, project_id) VALUES ($1, $2)"
	 " ON CONFLICT DO NOTHING RETURNING runner_id",
	 2, 1},
	/* $1 runner, $2 project: the number of the runner's projects when it serves this one */
	{"runners_project_count",
	 "SELECT (SELECT count(*) FROM ci_runner_projects c WHERE c.runner_id = rp.runner_id)"
	 " FROM ci_runner_projects rp WHERE rp.runner_id = $1 AND rp.project_id = $2 FOR UPDATE",
	 2, 1},
	{"runners_disable",
	 "DELETE FROM ci_runner_projects WHERE runner_id = $1 AND project_id = $2", 2, 0},
	{NULL, NULL, 0, 0},
};

enum { SHOW_TOKEN = RUNNER_NCOLS + 8, SHOW_AUTHORIZED = RUNNER_DETAIL_NCOLS, SHOW_NPROJECTS };

static const char *const USER_SCOPES[] = {"active", "paused", "online", NULL};
static const char *const ALL_SCOPES[] = {"specific", "shared", "active", "paused", "online", NULL};
static const char *const ACCESS_LEVELS[] = {"not_protected", "ref_protected", NULL};

static int forbidden(request *r, const char *why)
{
	return fail(r, ERR_FORBIDDEN, arena_printf(r->ctx.a, "403 Forbidden - %s", why));
}

/* Runner :id (Ci::Runner.find): 0 with its row (runners_show), or GitLab's 404 for a
 * record that is not there. */
static int find_runner(request *r, const char *id, PGresult **out)
{
	const char *v[2] = {api_caller_id(r), id};
	int err;
	const char *stmt = db_in_transaction(&r->ctx) ? "runners_show_lock" : "runners_show";
	PGresult *res = db_query(&r->ctx, stmt, 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return api_error(r, 404, "404 Not found") + 1;
	*out = res;
	return 0;
}

static int present_details(request *r, const PGresult *res)
{
	bool admin = r->ctx.user->admin;
	const char *v[3] = {db_val(res, 0, 0), api_caller_id(r), admin ? "true" : "false"};
	int err;
	PGresult *projects = db_query(&r->ctx, "runners_projects", 3, v, &err);
	if (!projects)
		return err;
	/* the token: to admins, and to whoever may see a specific runner */
	bool token = admin || !db_bool(res, 0, 3);
	respond_json(r, 200, entity_runner_details(&r->ctx, res, 0, 0, token, projects));
	return 0;
}

/* ---- /runners ---- */

/* The scope parameters (GitLab's `values:`; run before the admin check, as Grape's). */
static int runners_check_scope(request *r)
{
	const char *scope;
	int rc = param_oneof(r, "scope", USER_SCOPES, &scope);
	return rc < 0 ? rc : 0;
}

static int runners_check_scope_all(request *r)
{
	const char *scope;
	int rc = param_oneof(r, "scope", ALL_SCOPES, &scope);
	return rc < 0 ? rc : 0;
}

static int runners_page(request *r, const char *stmt, const char *const *scopes, bool mine)
{
	page_req pg;
	const char *scope = NULL;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = param_oneof(r, "scope", scopes, &scope)) < 0)
		return rc;
	const char *v[4];
	int n = 0;
	if (mine)
		v[n++] = api_caller_id(r);
	v[n++] = scope && *scope ? scope : NULL;
	v[n++] = pagination_limit(r, &pg);
	v[n++] = pagination_offset(r, &pg);
	return api_page(r, &pg, stmt, n, v, entity_runner);
}

static int runners_list(request *r)
{
	return runners_page(r, "runners_list", USER_SCOPES, true);
}

static int runners_list_all(request *r)
{
	return runners_page(r, "runners_list_all", ALL_SCOPES, false);
}

static int runners_check_id(request *r)
{
	const char *id;
	return api_id(r, "id", &id);
}

static int runners_show(request *r)
{
	PGresult *res;
	int rc = find_runner(r, param_str(r, "id"), &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (!db_bool(res, 0, 3) && !r->ctx.user->admin && !db_bool(res, 0, SHOW_AUTHORIZED))
		return forbidden(r, "No access granted");
	return present_details(r, res);
}

static const char *bool_value(request *r, const char *name, int *rc)
{
	bool b;
	int x = param_bool(r, name, &b);
	if (x < 0)
		*rc = x;
	return x == 0 ? (b ? "true" : "false") : NULL;
}

static int runners_check_update(request *r)
{
	int rc = runners_check_id(r);
	if (rc < 0)
		return rc;
	const char *level, *tags;
	bool b;
	if ((rc = param_bool(r, "active", &b)) < 0 ||
	    (rc = param_bool(r, "run_untagged", &b)) < 0 ||
	    (rc = param_bool(r, "locked", &b)) < 0 ||
	    (rc = param_oneof(r, "access_level", ACCESS_LEVELS, &level)) < 0 ||
	    (rc = projects_read_tag_list(r, &tags)) < 0)
		return rc;
	static const char *const attrs[] = {"description", "active", "run_untagged", "locked",
					    "access_level"};
	if (tags) /* given, in either form */
		return 0;
	for (size_t i = 0; i < sizeof(attrs) / sizeof(*attrs); i++)
		if (param_find(r, attrs[i]))
			return 0;
	return fail(r, ERR_INVALID,
		    "description, active, tag_list, run_untagged, locked, access_level are "
		    "missing, at least one parameter must be provided");
}

/* Runner :id (find_runner) when the caller may change it (GitLab 10's
 * authenticate_update_runner!) or, when removal, remove it (authenticate_delete_runner!):
 * 0 with its row, 1 when it answered the 404, ERR_FORBIDDEN, or an ERR_ code. */
static int find_runner_to_change(request *r, bool removal, PGresult **out)
{
	int rc = find_runner(r, param_str(r, "id"), out);
	if (rc != 0 || r->ctx.user->admin)
		return rc;
	if (db_bool(*out, 0, 3))
		return forbidden(r, "Runner is shared");
	if (removal && db_int(*out, 0, SHOW_NPROJECTS) > 1)
		return forbidden(r, "Runner associated with more than one project");
	if (!db_bool(*out, 0, SHOW_AUTHORIZED))
		return forbidden(r, "No access granted");
	return 0;
}

static int runners_update(request *r)
{
	PGresult *res;
	int rc = find_runner_to_change(r, false, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *tags, *level = NULL;
	rc = 0;
	const char *active = bool_value(r, "active", &rc);
	const char *untagged = bool_value(r, "run_untagged", &rc);
	const char *locked = bool_value(r, "locked", &rc);
	if (rc < 0 || (rc = projects_read_tag_list(r, &tags)) < 0 ||
	    (rc = param_oneof(r, "access_level", ACCESS_LEVELS, &level)) < 0)
		return rc;
	const char *v[] = {[RU_ID] = db_val(res, 0, 0),
			   [RU_HAS_DESCRIPTION] = param_find(r, "description") ? "true" : "false",
			   [RU_DESCRIPTION] = param_str(r, "description"),
			   [RU_ACTIVE] = active,
			   [RU_TAG_LIST] = tags,
			   [RU_RUN_UNTAGGED] = untagged,
			   [RU_LOCKED] = locked,
			   [RU_ACCESS_LEVEL] = level};
	DB_PARAMS(v, RU_NPARAMS);
	int err;
	PGresult *up = db_query(&r->ctx, "runners_update", RU_NPARAMS, v, &err);
	if (!up)
		return err;
	if (PQntuples(up) && db_bool(up, 0, 0))
		return fail_validation(r, "tags_list",
				       "can not be empty when runner is not allowed to pick "
				       "untagged jobs");
	if ((rc = find_runner(r, db_val(res, 0, 0), &res)) != 0)
		return rc < 0 ? rc : 0;
	return present_details(r, res);
}

static int runners_delete(request *r)
{
	PGresult *res;
	int rc = find_runner_to_change(r, true, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	int err;
	if (!db_query(&r->ctx, "runners_delete", 1, (const char *[]){db_val(res, 0, 0)}, &err))
		return err;
	respond_empty(r, 204);
	return 0;
}

/* ---- /projects/:id/runners (masters and up: authorize_admin_project) ---- */

static int runners_project_list(request *r)
{
	page_req pg;
	const char *scope = NULL;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = param_oneof(r, "scope", ALL_SCOPES, &scope)) < 0)
		return rc;
	if (!can_update_project(&r->project->pa))
		return ERR_FORBIDDEN;
	const char *v[] = {[RLP_PROJECT] = r->project->id,
			   [RLP_SHARED] = r->project->shared_runners_enabled ? "true" : "false",
			   [RLP_SCOPE] = scope && *scope ? scope : NULL,
			   [RLP_LIMIT] = pagination_limit(r, &pg),
			   [RLP_OFFSET] = pagination_offset(r, &pg)};
	DB_PARAMS(v, RLP_NPARAMS);
	return api_page(r, &pg, "runners_list_project", RLP_NPARAMS, v, entity_runner);
}

static int runners_check_runner_id(request *r)
{
	const char *id;
	return api_id(r, "runner_id", &id);
}

static int runners_project_enable(request *r)
{
	if (!can_update_project(&r->project->pa))
		return ERR_FORBIDDEN;
	PGresult *res;
	int rc = find_runner(r, param_str(r, "runner_id"), &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	/* GitLab 10's authenticate_enable_runner! */
	if (db_bool(res, 0, 3))
		return forbidden(r, "Runner is shared");
	if (db_bool(res, 0, RUNNER_NCOLS + 2))
		return forbidden(r, "Runner is locked");
	if (!r->ctx.user->admin && !db_bool(res, 0, SHOW_AUTHORIZED))
		return forbidden(r, "No access granted");
	const char *v[2] = {db_val(res, 0, 0), r->project->id};
	int err;
	PGresult *in = db_query(&r->ctx, "runners_enable", 2, v, &err);
	if (!in)
		return err;
	if (PQntuples(in) == 0)
		return fail(r, ERR_CONFLICT, "Runner was already enabled for this project");
	respond_json(r, 201, entity_runner(&r->ctx, res, 0, 0));
	return 0;
}

static int runners_project_disable(request *r)
{
	if (!can_update_project(&r->project->pa))
		return ERR_FORBIDDEN;
	const char *v[2] = {param_str(r, "runner_id"), r->project->id};
	int err;
	PGresult *res = db_query(&r->ctx, "runners_project_count", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_not_found(r, "Runner");
	if (db_int(res, 0, 0) == 1)
		return forbidden(r, "Only one project associated with the runner. Please remove "
				    "the runner instead");
	if (!db_query(&r->ctx, "runners_disable", 2, v, &err))
		return err;
	respond_empty(r, 204);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched: /runners/all
 * before /runners/:id. */
const route runners_routes[] = {
	{"GET", V4 "/runners", runners_list, AUTH, runners_check_scope},
	{"GET", V4 "/runners/all", runners_list_all, ADMIN, runners_check_scope_all},
	{"GET", V4 "/runners/:id", runners_show, AUTH, runners_check_id},
	{"PUT", V4 "/runners/:id", runners_update, AUTH | TX, runners_check_update},
	{"DELETE", V4 "/runners/:id", runners_delete, AUTH | TX, runners_check_id},
	{"GET", V4 "/projects/:id/runners", runners_project_list, AUTH | PR,
	 runners_check_scope_all},
	{"POST", V4 "/projects/:id/runners", runners_project_enable, AUTH | PW,
	 runners_check_runner_id},
	{"DELETE", V4 "/projects/:id/runners/:runner_id", runners_project_disable, AUTH | PW,
	 runners_check_runner_id},
	{NULL, NULL, NULL, 0, NULL},
};
