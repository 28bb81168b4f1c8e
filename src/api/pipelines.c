/* Pipelines (spec 4.2; GitLab 10's lib/api/pipelines.rb): the list with its filters,
 * one pipeline, a new pipeline for a ref (ci/pipeline.c), retry and cancel. Reading
 * (read_pipeline): reporters and up, or anyone who sees the project when its jobs are
 * public (public_jobs; guests of a private project too). Creating, retrying and
 * canceling (create_pipeline, update_pipeline): developers and up, and on a protected
 * branch those its protection lets push or merge. */
#include <string.h>

#include "api/api.h"
#include "ci/job.h"
#include "ci/pipeline.h"
#include "core/validate.h"
#include "entity/entity.h"
#include "entity/pipeline.h"
#include "git/refs.h"

/* The filters of the list, $2..$8 (see pipelines_stmts). */
#define LIST_FILTERS                                                                               \
	" p.project_id = $1 AND ($2::text[] IS NULL OR p.status = ANY ($2::text[]))"               \
	" AND ($3::text[] IS NULL OR p.id IN (SELECT max(q.id) FROM ci_pipelines q"                \
	" WHERE q.project_id = $1 AND q.ref = ANY ($3::text[]) GROUP BY q.ref))"                   \
	" AND ($4::text IS NULL OR p.status = $4) AND ($5::text IS NULL OR p.ref = $5)"            \
	" AND ($6::boolean IS NULL OR (p.yaml_errors IS NOT NULL) = $6)"                           \
	" AND ($7::text IS NULL OR p.user_id IN (SELECT id FROM users WHERE name = $7))"           \
	" AND ($8::text IS NULL OR p.user_id IN (SELECT id FROM users WHERE lower(username) ="     \
	" lower($8)))"

/* The list's parameters (see pipelines_stmts) */
enum {
	PL_PROJECT,
	PL_STATUSES,
	PL_REFS,
	PL_STATUS,
	PL_REF,
	PL_YAML_ERRORS,
	PL_NAME,
	PL_USERNAME,
	PL_LIMIT,
	PL_OFFSET,
	PL_NPARAMS
};

/* A page of the list in one order (ORDER: the ORDER BY list), ties by id the same way. */
#define LIST(NAME, ORDER)                                                                             \
	{                                                                                             \
		"pipelines_list_" NAME,                                                               \
			"WITH f AS (SELECT p.id FROM ci_pipelines p WHERE" LIST_FILTERS ")"           \
			" SELECT (SELECT count(*) FROM f), x.* FROM (SELECT 1) one LEFT JOIN LATERAL" \
			" (SELECT " PIPELINE_BASIC_COLS                                               \
			" FROM ci_pipelines p WHERE p.id IN (SELECT id FROM f)"                       \
			" ORDER BY " ORDER " LIMIT $9 OFFSET $10) x ON true",                         \
			PL_NPARAMS, 1 + PIPELINE_BASIC_NCOLS                                          \
	}

const db_stmt pipelines_stmts[] = {
	/* $1 project, $2 statuses of the scope (running, pending, finished), $3 the names of
	 * the branches or tags (scope branches, tags: the newest pipeline of each), $4
	 * status, $5 ref, $6 with yaml errors or not, $7 the user's name, $8 username, $9
	 * limit, $10 offset */
	LIST("id_desc", "p.id DESC"),
	LIST("id_asc", "p.id ASC"),
	LIST("status_desc", "p.status DESC, p.id DESC"),
	LIST("status_asc", "p.status ASC, p.id ASC"),
	LIST("ref_desc", "p.ref DESC, p.id DESC"),
	LIST("ref_asc", "p.ref ASC, p.id ASC"),
	LIST("user_id_desc", "p.user_id DESC NULLS LAST, p.id DESC"),
	LIST("user_id_asc", "p.user_id ASC NULLS FIRST, p.id ASC"),
	/* The common request, no filter and the default order (id desc): the page straight
	 * from ci_pipelines_project (project_id, id), backwards, reading the page's rows
	 * only, and the count the project's row of ci_project_counts keeps (sql/0039); LIST's
	 * columns. The LIST statements materialise every pipeline of the project with all
	 * their filters, count them, join them back to the table and sort them all before
	 * the LIMIT (a project of 60 pipelines: 0.22 ms against 0.05 ms; of 960: 2.6 ms
	 * against 0.4 ms).
	 * $1 project, $2 limit, $3 offset */
	{"pipelines_list_plain",
	 "SELECT coalesce((SELECT c.pipelines FROM ci_project_counts c WHERE c.project_id = $1),"
	 " 0), x.*"
	 " FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " PIPELINE_BASIC_COLS
	 " FROM ci_pipelines p WHERE p.project_id = $1 ORDER BY p.id DESC LIMIT $2 OFFSET $3) x"
	 " ON true",
	 3, 1 + PIPELINE_BASIC_NCOLS},
	/* $1 project, $2 pipeline */
	{"pipelines_show",
	 "SELECT " PIPELINE_COLS " FROM " PIPELINE_FROM " WHERE p.project_id = $1 AND p.id = $2", 2,
	 PIPELINE_NCOLS},
	/* retry: the pipeline row locked, then its current failed and canceled jobs copied by
	 * $2 (RetryBuildService#reprocess), then its skipped jobs back to created (they run
	 * again when their stage comes) */
	{"pipelines_lock", "SELECT id FROM ci_pipelines WHERE id = $1 FOR UPDATE", 1, 1},
	{"pipelines_retry_jobs",
	 "SELECT ci_retry_job(cs.id, $2, false) FROM commit_statuses cs"
	 " WHERE cs.pipeline_id = $1 AND NOT cs.retried AND cs.status IN ('failed', 'canceled')"
	 " AND EXISTS (SELECT 1 FROM ci_builds b WHERE b.id = cs.id) ORDER BY cs.id",
	 2, 1},
	{"pipelines_unskip",
	 "UPDATE commit_statuses SET status = 'created', updated_at = now()"
	 " WHERE pipeline_id = $1 AND NOT retried AND status = 'skipped'",
	 1, 0},
	/* cancel: the jobs that have not finished; a transition from those states only, so
	 * that a runner that finishes a job at the same moment keeps its answer. Pending,
	 * running and manual jobs first, then (the pipeline locked) the created ones and
	 * those that became pending meanwhile, but for one a runner is taking at that moment
	 * (it runs): a runner that finishes a job takes its job's row, the pipeline, then the
	 * created jobs it enqueues, and a created job taken before the pipeline deadlocked
	 * with it */
	{"pipelines_cancel_jobs",
	 "UPDATE commit_statuses SET status = 'canceled', updated_at = now(),"
	 " finished_at = now() WHERE pipeline_id = $1 AND NOT retried"
	 " AND status IN ('pending', 'running', 'manual')",
	 1, 0},
	{"pipelines_cancel_created",
	 "UPDATE commit_statuses SET status = 'canceled', updated_at = now(),"
	 " finished_at = now() WHERE id IN (SELECT id FROM commit_statuses WHERE pipeline_id = $1"
	 " AND NOT retried AND status IN ('created', 'pending') FOR UPDATE SKIP LOCKED)",
	 1, 0},
	{NULL, NULL, 0, 0},
};

static const char *const SCOPES[] = {"running", "pending", "finished", "branches", "tags", NULL};
/* HasStatus::AVAILABLE_STATUSES */
static const char *const STATUSES[] = {"created",  "pending", "running", "success", "failed",
				       "canceled", "skipped", "manual",  NULL};
static const char *const ORDERS[] = {"id", "status", "ref", "user_id", NULL};
static const char *const SORTS[] = {"asc", "desc", NULL};

/* read_pipeline on the route's project (the rule of jobs, ci/job.h): 0 or ERR_FORBIDDEN. */
static int may_read(request *r)
{
	return ci_can_read_build(&r->project->pa, r->project->public_jobs, r->project->jobs_enabled)
		       ? 0
		       : ERR_FORBIDDEN;
}

/* The level that create_pipeline and update_pipeline compare (masters for admins and the
 * owner of a personal namespace); 0 for an anonymous caller or an archived project. */
static int write_level(request *r)
{
	if (!r->ctx.user || r->project->pa.archived)
		return 0;
	return code_push_level(&r->project->pa);
}

/* The common request: no filter, id desc (pipelines_list_plain, the same rows in the
 * same order as the general statement's). */
static bool plain(request *r)
{
	const char *order = param_str(r, "order_by"), *sort = param_str(r, "sort");
	return !param_str(r, "scope") && !param_str(r, "status") && !param_str(r, "ref") &&
	       !param_str(r, "yaml_errors") && !param_str(r, "name") && !param_str(r, "username") &&
	       (!order || strcmp(order, "id") == 0) && (!sort || strcmp(sort, "desc") == 0);
}

static int check_list(request *r)
{
	const char *v;
	int rc;
	if ((rc = param_oneof(r, "scope", SCOPES, &v)) < 0 ||
	    (rc = param_oneof(r, "status", STATUSES, &v)) < 0 ||
	    (rc = param_oneof(r, "order_by", ORDERS, &v)) < 0 ||
	    (rc = param_oneof(r, "sort", SORTS, &v)) < 0)
		return rc;
	bool b;
	if ((rc = param_bool(r, "yaml_errors", &b)) < 0)
		return fail_invalid(r, "yaml_errors");
	/* the common request's statement goes with the project's (api_query) */
	page_req pg;
	if (pagination_parse(r, &pg) == 0 && plain(r)) {
		const char **pv = arena_alloc(r->ctx.a, 3 * sizeof(*pv));
		pv[0] = param_str(r, "id");
		pv[1] = pagination_limit(r, &pg);
		pv[2] = pagination_offset(r, &pg);
		r->prefetch = (db_call){"pipelines_list_plain", 3, pv};
	}
	return 0;
}

/* The names of the branches (tags) of the project, as a text[] literal. */
static int ref_names(request *r, bool tags, const char **out)
{
	git_repository *repo;
	if (refs_open(&r->ctx, r->project->id, &repo) < 0)
		return ERR_INTERNAL;
	const char **names;
	int n = tags ? refs_tag_names(&r->ctx, repo, &names)
		     : refs_branch_names(&r->ctx, repo, &names);
	if (n < 0)
		return ERR_INTERNAL;
	*out = refs_text_array(&r->ctx, names, n);
	return 0;
}

/* The LIST statement of each order_by, descending and ascending. */
static const struct {
	const char *order, *desc, *asc;
} list_orders[] = {
	{"id", "pipelines_list_id_desc", "pipelines_list_id_asc"},
	{"status", "pipelines_list_status_desc", "pipelines_list_status_asc"},
	{"ref", "pipelines_list_ref_desc", "pipelines_list_ref_asc"},
	{"user_id", "pipelines_list_user_id_desc", "pipelines_list_user_id_asc"},
};

/* The statement of order and sort (checked by pipelines_check_list: id's otherwise). */
static const char *list_stmt(const char *order, const char *sort)
{
	size_t k = 0;
	for (size_t i = 0; i < sizeof(list_orders) / sizeof(*list_orders); i++)
		if (strcmp(order, list_orders[i].order) == 0)
			k = i;
	return strcmp(sort, "asc") == 0 ? list_orders[k].asc : list_orders[k].desc;
}

static int pipelines_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = may_read(r)) < 0)
		return rc;
	const char *v[PL_NPARAMS] = {[PL_PROJECT] = r->project->id};
	const char *scope = param_str(r, "scope");
	if (scope && strcmp(scope, "running") == 0)
		v[PL_STATUSES] = "{running}";
	else if (scope && strcmp(scope, "pending") == 0)
		v[PL_STATUSES] = "{pending}";
	else if (scope && strcmp(scope, "finished") == 0)
		v[PL_STATUSES] = "{success,failed,canceled}";
	else if (scope && (rc = ref_names(r, strcmp(scope, "tags") == 0, &v[PL_REFS])) < 0)
		return rc;
	v[PL_STATUS] = param_str(r, "status");
	v[PL_REF] = param_str(r, "ref");
	bool yaml_errors;
	if (param_bool(r, "yaml_errors", &yaml_errors) == 0)
		v[PL_YAML_ERRORS] = yaml_errors ? "true" : "false";
	v[PL_NAME] = param_str(r, "name");
	v[PL_USERNAME] = param_str(r, "username");
	v[PL_LIMIT] = pagination_limit(r, &pg);
	v[PL_OFFSET] = pagination_offset(r, &pg);
	const char *order = param_str(r, "order_by"), *sort = param_str(r, "sort");
	if (!order)
		order = "id";
	if (!sort)
		sort = "desc";
	int err;
	PGresult *res;
	if (plain(r))
		res = api_query(r, "pipelines_list_plain", 3,
				(const char *[]){v[PL_PROJECT], v[PL_LIMIT], v[PL_OFFSET]}, &err);
	else
		res = db_query(&r->ctx, list_stmt(order, sort), PL_NPARAMS, v, &err);
	if (!res)
		return err;
	int n = PQntuples(res);
	jw w;
	jw_init(&w, r->ctx.a, (size_t)n * 128 + 16);
	jw_begin_array(&w);
	for (int i = 0; i < n; i++)
		if (!PQgetisnull(res, i, 1))
			entity_pipeline_basic_write(&w, &r->ctx, res, i, 1);
	jw_end_array(&w);
	pagination_headers(r, &pg, n ? db_int(res, 0, 0) : 0);
	respond_jw(r, 200, &w);
	return 0;
}

static int check_id(request *r)
{
	const char *id;
	return api_id(r, "pipeline_id", &id);
}

/* Pipeline :pipeline_id of the route's project (or id when not NULL): 0 with its row,
 * or 404 "404 Not found" (GitLab 10's answer to a record it cannot find). */
static int find_pipeline(request *r, const char *id, PGresult **out)
{
	const char *v[2] = {r->project->id, id ? id : param_str(r, "pipeline_id")};
	return api_find(r, "pipelines_show", 2, v, NULL, out);
}

static int pipelines_show(request *r)
{
	PGresult *res;
	int rc = may_read(r);
	if (rc < 0 || (rc = find_pipeline(r, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_json(r, 200, entity_pipeline(&r->ctx, res, 0, 0));
	return 0;
}

/* GitLab's render_api_error!(pipeline.errors.messages, 400): {"message":{"base":[why]}}. */
static int refused(request *r, const char *why)
{
	json_object *base = json_object_new_array();
	json_object_array_add(base, json_object_new_string(why));
	json_object *m = json_object_new_object();
	json_object_object_add(m, "base", base);
	json_object *o = json_object_new_object();
	json_object_object_add(o, "message", m);
	respond_json(r, 400, o);
	return 0;
}

static int check_create(request *r)
{
	const char *ref;
	return param_require(r, "ref", &ref);
}

static int pipelines_create(request *r)
{
	if (write_level(r) < ACCESS_DEVELOPER)
		return ERR_FORBIDDEN; /* create_pipeline */
	const char *ref = param_str(r, "ref");
	if (!valid_ref_name(ref)) /* what GitLab answers for a ref that is not there */
		return refused(r, "Reference not found");
	git_repository *repo;
	if (refs_open(&r->ctx, r->project->id, &repo) < 0)
		return ERR_INTERNAL;
	git_commit *head = NULL;
	bool branch = repo && refs_branch_commit(repo, ref, &head) == 0;
	git_commit_free(head);
	bool ok = true;
	int rc;
	if (branch && (rc = ci_may_run_on_ref(&r->ctx, r->project->id, write_level(r),
					      r->project->pa.admin, ref, false, &ok)) < 0)
		return rc;
	if (!ok)
		return refused(r, "Insufficient permissions for protected ref");
	ci_pipeline_spec s = {.project_id = r->project->id,
			      .ref = ref,
			      .source = "api",
			      .user_id = r->ctx.user->id};
	long long id;
	const char *why;
	rc = ci_pipeline_create(&r->ctx, &s, &id, &why);
	if (rc == ERR_REFUSED)
		return refused(r, why);
	if (rc < 0)
		return rc;
	PGresult *res;
	if ((rc = find_pipeline(r, arena_printf(r->ctx.a, "%lld", id), &res)) != 0)
		return rc < 0 ? rc : ERR_INTERNAL;
	respond_json(r, 201, entity_pipeline(&r->ctx, res, 0, 0));
	return 0;
}

/* The pipeline of the route that the caller may update (update_pipeline: a developer,
 * and on a protected branch one its protection lets push or merge), its row locked when
 * lock: 0 with its row, 1 when answered (404), or an ERR_ code. */
static int updatable(request *r, bool lock, PGresult **out)
{
	/* GitLab 10 authorizes on the project before it looks for the pipeline */
	int level = write_level(r);
	if (level < ACCESS_DEVELOPER)
		return ERR_FORBIDDEN;
	int rc = find_pipeline(r, NULL, out);
	if (rc != 0)
		return rc;
	const char *id = db_val(*out, 0, 0);
	int err;
	if (lock && !db_query(&r->ctx, "pipelines_lock", 1, (const char *[]){id}, &err))
		return err;
	bool ok;
	if ((rc = ci_may_run_on_ref(&r->ctx, r->project->id, level, r->project->pa.admin,
				    db_val(*out, 0, 2), db_bool(*out, 0, 5), &ok)) < 0)
		return rc;
	return ok ? 0 : ERR_FORBIDDEN;
}

/* Processes pipeline id and answers it with status (GitLab 10: 201 for a retry, the POST's
 * default, and 200 for a cancel, its explicit `status 200`). */
static int process_and_present(request *r, const char *id, int status)
{
	int rc = ci_pipeline_process(&r->ctx, id);
	if (rc < 0)
		return rc;
	PGresult *res;
	rc = find_pipeline(r, id, &res);
	if (rc != 0)
		return rc < 0 ? rc : ERR_INTERNAL;
	respond_json(r, status, entity_pipeline(&r->ctx, res, 0, 0));
	return 0;
}

/* Retry locks the pipeline first: two retries at once would copy the same jobs twice.
 * It changes only finished jobs, which no runner holds. */
static int pipelines_retry(request *r)
{
	PGresult *res;
	int rc = updatable(r, true, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *id = db_val(res, 0, 0);
	const char *v[2] = {id, api_caller_id(r)};
	int err;
	if (!db_query(&r->ctx, "pipelines_retry_jobs", 2, v, &err) ||
	    !db_query(&r->ctx, "pipelines_unskip", 1, v, &err))
		return err;
	return process_and_present(r, id, 201);
}

/* Cancel changes the jobs a runner may hold first and locks the pipeline after, then
 * changes the created jobs, in the order of a runner that finishes a job (sql/0022):
 * taking the pipeline first would wait on the runner's job row while the runner waits
 * on the pipeline, and taking a created job first would hold the row the runner
 * enqueues once it has the pipeline. */
static int pipelines_cancel(request *r)
{
	PGresult *res;
	int rc = updatable(r, false, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *id = db_val(res, 0, 0);
	int err;
	if (!db_query(&r->ctx, "pipelines_cancel_jobs", 1, (const char *[]){id}, &err) ||
	    !db_query(&r->ctx, "pipelines_lock", 1, (const char *[]){id}, &err) ||
	    !db_query(&r->ctx, "pipelines_cancel_created", 1, (const char *[]){id}, &err))
		return err;
	return process_and_present(r, id, 200);
}

/* The module's routes (http/router.h), in the order they are matched. Reads need no
 * credentials on a project whose jobs are public (GitLab 10: authenticate_non_get!). */
const route pipelines_routes[] = {
	{"GET", V4 "/projects/:id/pipelines", pipelines_list, PRN, check_list},
	{"GET", V4 "/projects/:id/pipelines/:pipeline_id", pipelines_show, PRN, check_id},
	{"POST", V4 "/projects/:id/pipeline", pipelines_create, AUTH | PA, check_create},
	{"POST", V4 "/projects/:id/pipelines/:pipeline_id/retry", pipelines_retry, AUTH | PA,
	 check_id},
	{"POST", V4 "/projects/:id/pipelines/:pipeline_id/cancel", pipelines_cancel, AUTH | PA,
	 check_id},
	{NULL, NULL, NULL, 0, NULL},
};
