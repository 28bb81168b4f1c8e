/* Branches (spec 4.8: GitLab 10's lib/api/branches.rb) and protected branches (GitLab
 * 10's lib/api/protected_branches.rb). The refs live in the repository (git/refs.h);
 * protections in protected_branches (sql/0011), whose SQL functions decide every push. */
#include <string.h>

#include "api/api.h"
#include "db/queue.h"
#include "core/validate.h"
#include "db/repos.h"
#include "entity/commit.h"
#include "entity/entity.h"
#include "git/hooks.h"
#include "git/refs.h"

#define PB_COLS "pb.name, pb.push_access_level, pb.merge_access_level"
enum { PB_NAME, PB_PUSH, PB_MERGE, PB_NCOLS };

const db_stmt branches_stmts[] = {
	/* $1 project, $2 branch: the level a push needs, NULL when not protected */
	{"branches_push_level", "SELECT branch_push_level($1, $2)", 2, 1},
	/* The legacy protect: $3/$4 the push/merge level, NULL for masters on a new
	 * protection and unchanged on an existing one. */
	{"branches_protect",
	 "INSERT INTO protected_branches AS pb (project_id, name, push_access_level,"
	 " merge_access_level) VALUES ($1, $2, coalesce($3::int, 40), coalesce($4::int, 40))"
	 " ON CONFLICT (project_id, name) DO UPDATE SET"
	 " push_access_level = coalesce($3::int, pb.push_access_level),"
	 " merge_access_level = coalesce($4::int, pb.merge_access_level), updated_at = now()",
	 4, 0},
	{"branches_unprotect", "DELETE FROM protected_branches WHERE project_id = $1 AND name = $2",
	 2, 0},
	/* $1 project, $2 limit, $3 offset */
	{"protected_branches_list",
	 "SELECT (SELECT count(*) FROM protected_branches WHERE project_id = $1), p.*"
	 " FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " PB_COLS " FROM protected_branches pb"
	 " WHERE pb.project_id = $1 ORDER BY pb.id LIMIT $2 OFFSET $3) p ON true",
	 3, 1 + PB_NCOLS},
	{"protected_branches_show",
	 "SELECT " PB_COLS " FROM protected_branches pb WHERE pb.project_id = $1 AND pb.name = $2",
	 2, PB_NCOLS},
	/* no row when the name is protected already */
	{"protected_branches_insert",
	 "INSERT INTO protected_branches AS pb (project_id, name, push_access_level,"
	 " merge_access_level) VALUES ($1, $2, $3, $4) ON CONFLICT (project_id, name) DO NOTHING"
	 " RETURNING " PB_COLS,
	 4, PB_NCOLS},
	{"protected_branches_delete",
	 "DELETE FROM protected_branches WHERE project_id = $1 AND name = $2 RETURNING id", 2, 1},
	{NULL, NULL, 0, 0},
};

static int open_repo(request *r, git_repository **repo)
{
	content_depend(r);
	return refs_open(&r->ctx, r->project->id, repo) < 0 ? ERR_INTERNAL : 0;
}

/* The branch records of names[0..n) (their commits in commits), as
 * Entities::RepoBranch; head is the default branch's commit (NULL: none). */
static int present_branches(request *r, git_repository *repo, const char *const *names,
			    git_commit *const *commits, int n, const git_oid *head,
			    json_object *out)
{
	if (n == 0)
		return 0;
	const char *v[2] = {r->project->id, refs_text_array(&r->ctx, names, n)};
	int err;
	PGresult *res = api_query(r, "branches_flags", 2, v, &err);
	if (!res)
		return err;
	for (int i = 0; i < n; i++) {
		json_object *o = json_object_new_object();
		json_put_str(o, "name", names[i]);
		json_object_object_add(o, "commit", entity_commit_kept(&r->ctx, commits[i]));
		json_put_bool(o, "merged",
			      head && refs_merged(repo, git_commit_id(commits[i]), head));
		json_put_bool(o, "protected", db_bool(res, i, BF_PROTECTED));
		json_put_bool(o, "developers_can_push", db_bool(res, i, BF_DEV_PUSH));
		json_put_bool(o, "developers_can_merge", db_bool(res, i, BF_DEV_MERGE));
		json_object_array_add(out, o);
	}
	return 0;
}

/* One branch record, answered with status. */
static int respond_branch(request *r, git_repository *repo, const char *name, git_commit *commit,
			  int status)
{
	const char *head_name;
	git_oid head;
	bool has_head = refs_head(&r->ctx, repo, &head_name, &head) == 0;
	json_object *list = request_own(r, json_object_new_array());
	int rc = present_branches(r, repo, &name, &commit, 1, has_head ? &head : NULL, list);
	if (rc < 0)
		return rc;
	respond_json(r, status, json_object_get(json_object_array_get_idx(list, 0)));
	return 0;
}

/* present_branches of a page of names, their commits and the default branch's head read
 * here (refs_present_fn). */
static int present_branch_page(request *r, git_repository *repo, const char *const *names, int n,
			       json_object *out)
{
	const char *head_name;
	git_oid head;
	bool has_head = refs_head(&r->ctx, repo, &head_name, &head) == 0;
	git_commit **commits = arena_alloc(r->ctx.a, (size_t)(n + 1) * sizeof(*commits));
	int rc = 0, got = 0;
	for (; got < n && rc == 0; got++)
		if (refs_branch_commit(repo, names[got], &commits[got]) != 0)
			rc = ERR_INTERNAL; /* listed a moment ago: a ref to no commit */
	if (rc == 0)
		rc = present_branches(r, repo, names, commits, n, has_head ? &head : NULL, out);
	for (int i = 0; i < got; i++)
		git_commit_free(commits[i]);
	return rc;
}

int branches_list_refs(request *r, bool tags, const char *search, refs_present_fn present)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	if (!can_read_code(&r->project->pa, r->project->visibility, r->ctx.user))
		return ERR_FORBIDDEN;
	git_repository *repo = NULL;
	if ((rc = open_repo(r, &repo)) < 0)
		return rc;
	const char **page;
	int total;
	int n = refs_page(&r->ctx, repo, tags, search, pg.offset, pg.per_page, &page, &total);
	if (n < 0)
		return ERR_INTERNAL;
	json_object *list = request_own(r, json_object_new_array());
	if ((rc = present(r, repo, page, n, list)) < 0)
		return rc;
	pagination_headers(r, &pg, total);
	respond_json(r, 200, json_object_get(list));
	return 0;
}

static int branches_list(request *r)
{
	/* search (GitLab 10.6): the names that contain it, case aside */
	return branches_list_refs(r, false, param_str(r, "search"), present_branch_page);
}

/* The branch of :branch and its commit: 0, or 404 Branch Not Found. */
static int find_branch(request *r, git_repository *repo, git_commit **commit)
{
	int e = refs_branch_commit(repo, param_str(r, "branch"), commit);
	if (e == ERR_NOT_FOUND)
		return fail_not_found(r, "Branch");
	return e < 0 ? ERR_INTERNAL : 0;
}

/* One branch's flags go with the project's statement (api_query). */
static int show_check(request *r)
{
	const char *name = param_str(r, "branch");
	const char **v = arena_alloc(r->ctx.a, 2 * sizeof(*v));
	v[0] = param_str(r, "id");
	v[1] = refs_text_array(&r->ctx, &name, 1);
	r->prefetch = (db_call){"branches_flags", 2, v};
	return 0;
}

static int branches_show(request *r)
{
	if (!can_read_code(&r->project->pa, r->project->visibility, r->ctx.user))
		return ERR_FORBIDDEN;
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	int rc = open_repo(r, &repo);
	if (rc == 0 && (rc = find_branch(r, repo, &commit)) == 0)
		rc = respond_branch(r, repo, param_str(r, "branch"), commit, 200);
	git_commit_free(commit);
	return rc;
}

/* developers_can_push / developers_can_merge of the protect route: the level each sets
 * ("30", "40"), NULL when absent. */
static int protect_levels(request *r, const char **push, const char **merge)
{
	const char *names[2] = {"developers_can_push", "developers_can_merge"};
	const char **out[2] = {push, merge};
	for (int i = 0; i < 2; i++) {
		bool yes;
		int rc = param_bool(r, names[i], &yes);
		if (rc < 0)
			return rc;
		*out[i] = rc == 1 ? NULL : yes ? "30" : "40";
	}
	return 0;
}

static int protect_check(request *r)
{
	const char *push, *merge;
	return protect_levels(r, &push, &merge);
}

/* PUT .../protect and .../unprotect: masters; the exact name of the branch. */
static int protect_or_unprotect(request *r, bool protect)
{
	const char *push = NULL, *merge = NULL;
	int rc = protect ? protect_levels(r, &push, &merge) : 0;
	if (rc < 0)
		return rc;
	if (!can_read_code(&r->project->pa, r->project->visibility, r->ctx.user) ||
	    !can_update_project(&r->project->pa))
		return ERR_FORBIDDEN;
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	if ((rc = open_repo(r, &repo)) < 0 || (rc = find_branch(r, repo, &commit)) < 0)
		goto cleanup;
	const char *name = param_str(r, "branch");
	const char *v[4] = {r->project->id, name, push, merge};
	int err;
	if (!db_query(&r->ctx, protect ? "branches_protect" : "branches_unprotect", protect ? 4 : 2,
		      v, &err)) {
		rc = err;
		goto cleanup;
	}
	rc = respond_branch(r, repo, name, commit, 200);
cleanup:
	git_commit_free(commit);
	return rc;
}

static int branches_protect(request *r)
{
	return protect_or_unprotect(r, true);
}

static int branches_unprotect(request *r)
{
	return protect_or_unprotect(r, false);
}

static int create_check(request *r)
{
	if (!param_str(r, "branch"))
		return fail_missing(r, "branch");
	if (!param_str(r, "ref"))
		return fail_missing(r, "ref");
	return 0;
}

/* Whether a protection covers branch, and whether the caller may push to it (no
 * protection: developers and up). */
static int protection_of(request *r, const char *branch, bool *protected, bool *may_push)
{
	const char *v[2] = {r->project->id, branch};
	int err;
	PGresult *res = db_query(&r->ctx, "branches_push_level", 2, v, &err);
	if (!res)
		return err;
	*protected = !PQgetisnull(res, 0, 0);
	*may_push = !*protected || code_push_level(&r->project->pa) >= db_int(res, 0, 0);
	return 0;
}

static int branches_create(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	int rc = create_check(r);
	if (rc < 0)
		return rc;
	if (!can_push_code(&r->project->pa, r->ctx.user))
		return ERR_FORBIDDEN;
	const char *name = param_str(r, "branch"), *ref = param_str(r, "ref");
	if (!valid_ref_name(name))
		return api_error(r, 400, "Branch name is invalid");
	git_repository *repo = NULL;
	git_commit *existing = NULL, *target = NULL;
	if ((rc = open_repo(r, &repo)) < 0)
		return rc;
	bool protected, allowed;
	int e = refs_branch_commit(repo, name, &existing);
	if (e == 0) {
		rc = api_error(r, 400, "Branch already exists");
	} else if (e != ERR_NOT_FOUND) {
		rc = ERR_INTERNAL;
	} else if ((rc = protection_of(r, name, &protected, &allowed)) < 0) {
		;
	} else if (!allowed) {
		rc = api_error(r, 400,
			       "You are not allowed to push code to protected branches on "
			       "this project.");
	} else if (!valid_ref_name(ref) || refs_resolve_commit(repo, ref, &target) != 0) {
		rc = api_error(r, 400, "Invalid reference name");
	} else if ((e = refs_branch_create(&r->ctx, repo, name, git_commit_id(target))) ==
		   ERR_EXISTS) {
		rc = api_error(r, 400, "Branch already exists"); /* another writer was first */
	} else if (e == ERR_BAD_NAME) {
		rc = api_error(r, 400, "Branch name is invalid");
	} else if (e < 0) {
		rc = ERR_INTERNAL;
	} else if ((rc = hooks_pushed(&r->ctx, repo, r->project,
				      arena_printf(r->ctx.a, "refs/heads/%s", name), NULL,
				      git_commit_id(target))) == 0) {
		rc = respond_branch(r, repo, name, target, 201);
	}
	git_commit_free(existing);
	git_commit_free(target);
	return rc;
}

static int branches_delete(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	if (!can_push_code(&r->project->pa, r->ctx.user))
		return ERR_FORBIDDEN;
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	int rc = open_repo(r, &repo);
	if (rc < 0 || (rc = find_branch(r, repo, &commit)) < 0)
		goto cleanup;
	const char *name = param_str(r, "branch"), *head_name;
	git_oid head;
	bool protected, allowed;
	if (refs_head(&r->ctx, repo, &head_name, &head) == 0 && strcmp(head_name, name) == 0) {
		rc = api_error(r, 405, "Cannot remove HEAD branch");
	} else if ((rc = protection_of(r, name, &protected, &allowed)) < 0) {
		;
	} else if (protected) { /* nobody deletes a protected branch, as GitLab 10 */
		rc = api_error(r, 405, "Protected branch cant be removed");
	} else {
		int e = refs_branch_delete(&r->ctx, repo, name, git_commit_id(commit));
		if (e == ERR_NOT_FOUND || e == ERR_MOVED)
			rc = api_error(r, 400, "Failed to remove branch");
		else if (e < 0)
			rc = ERR_INTERNAL;
		else if ((rc = hooks_pushed(&r->ctx, repo, r->project,
					    arena_printf(r->ctx.a, "refs/heads/%s", name),
					    git_commit_id(commit), NULL)) == 0)
			respond_empty(r, 204);
	}
cleanup:
	git_commit_free(commit);
	return rc;
}

/* DELETE .../merged_branches: the background process does it (git/refs.c). */
static int branches_delete_merged(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	if (!can_push_code(&r->project->pa, r->ctx.user))
		return ERR_FORBIDDEN;
	const char *payload = arena_printf(r->ctx.a, "{\"project_id\": %s}", r->project->id);
	int rc = queue_enqueue(&r->ctx, JOB_DELETE_MERGED_BRANCHES, payload);
	if (rc < 0)
		return rc;
	return api_error(r, 202, "202 Accepted");
}

/* ---- protected branches: masters and up, reads included ---- */

static const char *level_description(int level)
{
	return level == 30 ? "Developers + Masters" : level == 0 ? "No one" : "Masters";
}

static json_object *access_levels(int level)
{
	json_object *list = json_object_new_array(), *o = json_object_new_object();
	json_put_int(o, "access_level", level);
	json_put_str(o, "access_level_description", level_description(level));
	json_object_array_add(list, o);
	return list;
}

/* Entities::ProtectedBranch: name, push_access_levels, merge_access_levels. */
static json_object *present_protected(ctx *c, const PGresult *res, int row, int col)
{
	(void)c;
	json_object *o = json_object_new_object();
	json_put_str(o, "name", db_val(res, row, col + PB_NAME));
	json_object_object_add(o, "push_access_levels",
			       access_levels((int)db_int(res, row, col + PB_PUSH)));
	json_object_object_add(o, "merge_access_levels",
			       access_levels((int)db_int(res, row, col + PB_MERGE)));
	return o;
}

static int protected_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	if (!can_update_project(&r->project->pa))
		return ERR_FORBIDDEN;
	const char *v[3] = {r->project->id, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	return api_page(r, &pg, "protected_branches_list", 3, v, present_protected);
}

static int protected_show(request *r)
{
	if (!can_update_project(&r->project->pa))
		return ERR_FORBIDDEN;
	const char *v[2] = {r->project->id, param_str(r, "name")};
	int err;
	PGresult *res = db_query(&r->ctx, "protected_branches_show", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return api_error(r, 404, "404 Not found"); /* GitLab's RecordNotFound */
	respond_json(r, 200, present_protected(&r->ctx, res, 0, 0));
	return 0;
}

/* push_access_level / merge_access_level: 0, 30 or 40 (default 40). */
static int protected_level(request *r, const char *name, const char **out)
{
	static const char *const levels[] = {"0", "30", "40", NULL};
	int rc = param_oneof(r, name, levels, out);
	if (rc == 1)
		*out = "40";
	return rc < 0 ? rc : 0;
}

static int protected_check(request *r)
{
	const char *name = param_str(r, "name"), *push, *merge;
	if (!name || !*name)
		return fail_missing(r, "name");
	int rc = protected_level(r, "push_access_level", &push);
	return rc < 0 ? rc : protected_level(r, "merge_access_level", &merge);
}

static int protected_create(request *r)
{
	const char *name = param_str(r, "name"), *push, *merge;
	int rc = protected_check(r);
	if (rc < 0)
		return rc;
	if (!can_update_project(&r->project->pa))
		return ERR_FORBIDDEN;
	if (!valid_ref_pattern(name))
		return api_error(r, 400, "Branch name is invalid");
	protected_level(r, "push_access_level", &push);
	protected_level(r, "merge_access_level", &merge);
	const char *v[4] = {r->project->id, name, push, merge};
	int err;
	PGresult *res = db_query(&r->ctx, "protected_branches_insert", 4, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail(r, ERR_CONFLICT,
			    arena_printf(r->ctx.a, "Protected branch '%s' already exists", name));
	respond_json(r, 201, present_protected(&r->ctx, res, 0, 0));
	return 0;
}

static int protected_delete(request *r)
{
	if (!can_update_project(&r->project->pa))
		return ERR_FORBIDDEN;
	const char *v[2] = {r->project->id, param_str(r, "name")};
	int err;
	PGresult *res = db_query(&r->ctx, "protected_branches_delete", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return api_error(r, 404, "404 Not found");
	respond_empty(r, 204);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route branches_routes[] = {
	{"GET", V4 "/projects/:id/repository/branches", branches_list, PRN, NULL},
	{"GET", V4 "/projects/:id/repository/branches/:branch", branches_show, PRN | ROUTE_CACHE,
	 show_check},
	{"PUT", V4 "/projects/:id/repository/branches/:branch/protect", branches_protect, AUTH | PW,
	 protect_check},
	{"PUT", V4 "/projects/:id/repository/branches/:branch/unprotect", branches_unprotect,
	 AUTH | PW, NULL},
	{"POST", V4 "/projects/:id/repository/branches", branches_create, AUTH | PW, create_check},
	{"DELETE", V4 "/projects/:id/repository/branches/:branch", branches_delete, AUTH | PW,
	 NULL},
	{"DELETE", V4 "/projects/:id/repository/merged_branches", branches_delete_merged, AUTH | PW,
	 NULL},
	{"GET", V4 "/projects/:id/protected_branches", protected_list, AUTH | PRN, NULL},
	{"GET", V4 "/projects/:id/protected_branches/:name", protected_show, AUTH | PRN, NULL},
	{"POST", V4 "/projects/:id/protected_branches", protected_create, AUTH | PW,
	 protected_check},
	{"DELETE", V4 "/projects/:id/protected_branches/:name", protected_delete, AUTH | PW, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
