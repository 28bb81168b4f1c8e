#include "auth/scope.h"

#include <string.h>

#include "db/repos.h"

bool scope_ref_is_id(const char *ref)
{
	size_t n = ref ? strspn(ref, "0123456789") : 0;
	return n > 0 && n <= 18 && ref[n] == '\0';
}

static int not_found(ctx *c, const char *what)
{
	c->err_detail = what;
	return ERR_NOT_FOUND;
}

static const char *text(ctx *c, const PGresult *res, int col)
{
	return PQgetisnull(res, 0, col) ? NULL : arena_strdup(c->a, PQgetvalue(res, 0, col));
}

int scope_project_ref(ctx *c, const char *ref, const char **v, bool *by_path)
{
	v[0] = v[1] = NULL;
	*by_path = false;
	if (scope_ref_is_id(ref)) {
		v[0] = ref;
		return 0;
	}
	const char *slash = ref ? strrchr(ref, '/') : NULL;
	if (!slash || slash == ref || !slash[1])
		return not_found(c, "Project");
	v[0] = arena_strndup(c->a, ref, (size_t)(slash - ref));
	v[1] = slash + 1;
	*by_path = true;
	return 0;
}

/* The scope in row 0 of res (SCOPE_PROJECT_COLS from col), whoever may see it. */
static int read_row(ctx *c, const PGresult *res, int col, project_scope *out)
{
	memset(out, 0, sizeof(*out));
	if (PQntuples(res) == 0 || PQgetisnull(res, 0, col + PS_ID))
		return not_found(c, "Project");
	project_access_read(&out->pa, res, 0, col + PS_ACCESS);
	out->id = text(c, res, col + PS_ID);
	out->namespace_id = text(c, res, col + PS_NAMESPACE_ID);
	out->ns_full_path = text(c, res, col + PS_NS_FULL_PATH);
	out->ns_kind = text(c, res, col + PS_NS_KIND);
	out->ns_owner_id = text(c, res, col + PS_NS_OWNER_ID);
	out->path = text(c, res, col + PS_PATH);
	out->name = text(c, res, col + PS_NAME);
	out->forked_from_id = text(c, res, col + PS_FORKED_FROM_ID);
	out->default_branch = text(c, res, col + PS_DEFAULT_BRANCH);
	out->description = text(c, res, col + PS_DESCRIPTION);
	out->visibility = (int)db_int(res, 0, col + PS_VISIBILITY);
	out->ns_visibility = (int)db_int(res, 0, col + PS_NS_VISIBILITY);
	out->request_access_enabled = db_bool(res, 0, col + PS_REQUEST_ACCESS_ENABLED);
	out->shared_runners_enabled = db_bool(res, 0, col + PS_SHARED_RUNNERS_ENABLED);
	out->wiki_enabled = db_bool(res, 0, col + PS_WIKI_ENABLED);
	out->public_jobs = db_bool(res, 0, col + PS_PUBLIC_JOBS);
	out->jobs_enabled = db_bool(res, 0, col + PS_JOBS_ENABLED);
	out->merge_requests_enabled = db_bool(res, 0, col + PS_MERGE_REQUESTS_ENABLED);
	out->issues_enabled = db_bool(res, 0, col + PS_ISSUES_ENABLED);
	out->repository_storage = text(c, res, col + PS_REPOSITORY_STORAGE);
	out->repository_read_only = db_bool(res, 0, col + PS_REPOSITORY_READ_ONLY);
	/* what finds the repository of this project in this unit of work asks no more */
	db_repos_storage_known(c, out->id, out->repository_storage, out->repository_read_only);
	return 0;
}

int scope_project_row(ctx *c, const PGresult *res, int col, project_scope *out)
{
	int rc = read_row(c, res, col, out);
	if (rc == 0 && !can_read_project(&out->pa)) {
		memset(out, 0, sizeof(*out));
		return not_found(c, "Project");
	}
	return rc;
}

int scope_project(ctx *c, const char *ref, scope_lock lock, project_scope *out)
{
	memset(out, 0, sizeof(*out));
	const char *v[2];
	bool by_path;
	int rc = scope_project_ref(c, ref, v, &by_path);
	if (rc < 0)
		return rc;
	int err;
	PGresult *res = db_scope_project(c, v, by_path, lock, &err);
	if (!res)
		return err;
	return scope_project_row(c, res, 0, out);
}

int scope_project_deploy_key(ctx *c, const char *key_id, const char *ref, bool lock,
			     project_scope *out, bool *can_push)
{
	memset(out, 0, sizeof(*out));
	*can_push = false;
	const char *v[2];
	bool by_path;
	int rc = scope_project_ref(c, ref, v, &by_path);
	if (rc < 0)
		return rc;
	int err;
	PGresult *res = db_scope_project_deploy_key(c, v, by_path, lock, key_id, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0 || PQgetisnull(res, 0, PS_DEPLOY_KEY_CAN_PUSH))
		return not_found(c, "Project");
	*can_push = db_bool(res, 0, PS_DEPLOY_KEY_CAN_PUSH);
	return read_row(c, res, 0, out);
}

/* Who looks for a repository's project: a caller (key_id NULL) or a deploy key. */
static int find_repository(ctx *c, const char *key_id, const char *ref, project_scope *out,
			   bool *can_push)
{
	return key_id ? scope_project_deploy_key(c, key_id, ref, false, out, can_push)
		      : scope_project(c, ref, SCOPE_READ, out);
}

static int repository(ctx *c, const char *key_id, const char *full, project_scope *out, bool *wiki,
		      bool *can_push)
{
	*wiki = false;
	int rc = find_repository(c, key_id, full, out, can_push);
	size_t n = full ? strlen(full) : 0;
	if (rc != ERR_NOT_FOUND || n <= 5 || strcmp(full + n - 5, ".wiki") != 0 ||
	    scope_ref_is_id(full))
		return rc;
	rc = find_repository(c, key_id, arena_strndup(c->a, full, n - 5), out, can_push);
	*wiki = rc == 0;
	return rc;
}

int scope_project_repository(ctx *c, const char *full, project_scope *out, bool *wiki)
{
	bool can_push;
	return repository(c, NULL, full, out, wiki, &can_push);
}

int scope_deploy_key_repository(ctx *c, const char *key_id, const char *full, project_scope *out,
				bool *wiki, bool *can_push)
{
	return repository(c, key_id, full, out, wiki, can_push);
}

static int vis_or_none(const PGresult *res, int col)
{
	return PQgetisnull(res, 0, col) ? -1 : (int)db_int(res, 0, col);
}

int scope_group(ctx *c, const char *ref, scope_lock lock, group_scope *out)
{
	memset(out, 0, sizeof(*out));
	if (!ref || !*ref)
		return not_found(c, "Group");
	bool id = scope_ref_is_id(ref);
	int err;
	PGresult *res =
		db_scope_group(c, id ? ref : NULL, id ? NULL : ref, lock != SCOPE_READ, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return not_found(c, "Group");
	group_access_read(&out->ga, res, 0, GS_ACCESS);
	if (!can_read_group(&out->ga))
		return not_found(c, "Group");
	out->res = res;
	out->id = PQgetvalue(res, 0, GC_ID);
	out->full_path = PQgetvalue(res, 0, GC_FULL_PATH);
	out->visibility = (int)db_int(res, 0, GC_VISIBILITY);
	out->request_access_enabled = db_bool(res, 0, GC_REQUEST_ACCESS_ENABLED);
	out->root = PQgetisnull(res, 0, GC_PARENT_ID);
	out->parent_vis = vis_or_none(res, GS_PARENT_VIS);
	out->child_vis = vis_or_none(res, GS_CHILD_VIS);
	out->project_vis = vis_or_none(res, GS_PROJECT_VIS);
	return 0;
}
