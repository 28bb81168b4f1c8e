/* The statements of git/ (db/repos.h). */
#include "db/repos.h"

#include <string.h>

const db_stmt db_repos_stmts[] = {
	/* $1 project, $2 the default branch to set when it has none */
	{"hooks_default_branch",
	 "UPDATE projects SET default_branch = $2, updated_at = now() WHERE id = $1", 2, 0},
	{"hooks_touch", "UPDATE projects SET last_activity_at = now() WHERE id = $1", 1, 0},
	/* $1 project, $2 branch, $3 push level, $4 merge level: a protection, unless the
	 * name has one already */
	{"hooks_protect_branch",
	 "INSERT INTO protected_branches (project_id, name, push_access_level,"
	 " merge_access_level) VALUES ($1, $2, $3::int, $4::int)"
	 " ON CONFLICT (project_id, name) DO NOTHING",
	 4, 0},
	/* $1 project: one more change of its refs (its repository's key in the response
	 * cache, bumped at the commit: sql/0023); nothing for a project removed meanwhile */
	{"hooks_refs_changed",
	 "INSERT INTO repository_refs AS x (project_id) SELECT id FROM projects WHERE id = $1"
	 " ON CONFLICT (project_id) DO UPDATE SET changes = x.changes + 1",
	 1, 0},
	/* $1 project, $2 author, $3 action_name, $4 data */
	{"hooks_event",
	 "INSERT INTO events (project_id, author_id, action, action_name, data)"
	 " VALUES ($1, $2, 'pushed', $3, $4::jsonb)",
	 4, 0},
	/* $1 project, $2 branch names (text[]): for each, in order, whether a protection
	 * covers it and whether one lets developers push / merge (GitLab's
	 * developers_can?). Read by api/branches.c and the merged-branches job
	 * (git/refs.c). */
	{"branches_flags",
	 "SELECT count(pb.id) > 0, coalesce(bool_or(pb.push_access_level = 30), false),"
	 " coalesce(bool_or(pb.merge_access_level = 30), false)"
	 " FROM unnest($2::text[]) WITH ORDINALITY b(name, i) LEFT JOIN protected_branches pb"
	 " ON pb.project_id = $1 AND protected_branch_matches(pb.name, b.name)"
	 " GROUP BY b.i ORDER BY b.i",
	 2, BF_NCOLS},
	/* Every project with the path its repository had before storage by id. */
	{"repo_legacy_list",
	 "SELECT p.id, n.full_path || '/' || p.path FROM projects p"
	 " JOIN namespaces n ON n.id = p.namespace_id ORDER BY p.id",
	 0, RL_NCOLS},
	/* $1 project: its repository's storage and whether it is read-only */
	{"repo_storage",
	 "SELECT repository_storage, repository_read_only FROM projects WHERE id = $1", 1,
	 RS_NCOLS},
	/* $1 a project's id (NULL: none) or $2 its full path: the project, locked for the
	 * move of its repository (collabd move-storage); waits for the transactions that
	 * lock it, as the API's repository writes do */
	{"repo_move_find",
	 "SELECT p.id, p.repository_storage, p.repository_read_only FROM projects p"
	 " JOIN namespaces n ON n.id = p.namespace_id"
	 " WHERE (p.id = $1::bigint OR ($1 IS NULL AND lower(n.full_path || '/' || p.path) ="
	 " lower($2))) AND NOT p.pending_delete FOR UPDATE OF p",
	 2, RM_NCOLS},
	/* $1 project, $2 read-only */
	{"repo_set_read_only",
	 "UPDATE projects SET repository_read_only = $2::boolean WHERE id = $1", 2, 0},
	/* $1 project, $2 storage: moved, and writable again */
	{"repo_set_storage",
	 "UPDATE projects SET repository_storage = $2, repository_read_only = false"
	 " WHERE id = $1",
	 2, 0},
	{NULL, NULL, 0, 0},
};

/* Runs a statement that answers no rows: 0 or its ERR_ code. */
static int run(ctx *c, const char *stmt, int n, const char *const *v)
{
	int err;
	return db_query(c, stmt, n, v, &err) ? 0 : err;
}

int db_repos_set_default_branch(ctx *c, const char *project_id, const char *branch)
{
	return run(c, "hooks_default_branch", 2, (const char *[]){project_id, branch});
}

int db_repos_protect_branch(ctx *c, const char *project_id, const char *branch, int push, int merge)
{
	const char *v[4] = {project_id, branch, arena_printf(c->a, "%d", push),
			    arena_printf(c->a, "%d", merge)};
	return run(c, "hooks_protect_branch", 4, v);
}

int db_repos_touch(ctx *c, const char *project_id)
{
	return run(c, "hooks_touch", 1, (const char *[]){project_id});
}

int db_repos_refs_changed(ctx *c, const char *project_id)
{
	return run(c, "hooks_refs_changed", 1, (const char *[]){project_id});
}

int db_repos_push_event(ctx *c, const char *project_id, const char *author_id,
			const char *action_name, const char *data)
{
	return run(c, "hooks_event", 4, (const char *[]){project_id, author_id, action_name, data});
}

PGresult *db_repos_branch_flags(ctx *c, const char *project_id, const char *names, int *err)
{
	return db_query(c, "branches_flags", 2, (const char *[]){project_id, names}, err);
}

PGresult *db_repos_legacy_list(ctx *c, int *err)
{
	return db_query(c, "repo_legacy_list", 0, NULL, err);
}

void db_repos_storage_known(ctx *c, const char *project_id, const char *storage, bool read_only)
{
	if (!project_id || !storage)
		return;
	for (storage_memo *m = c->storages; m; m = m->next)
		if (strcmp(m->project_id, project_id) == 0) {
			m->storage = arena_strdup(c->a, storage);
			m->read_only = read_only;
			return;
		}
	storage_memo *m = arena_alloc(c->a, sizeof(*m));
	*m = (storage_memo){arena_strdup(c->a, project_id), arena_strdup(c->a, storage), read_only,
			    c->storages};
	c->storages = m;
}

int db_repos_storage(ctx *c, const char *project_id, const char **storage, bool *read_only)
{
	for (const storage_memo *m = c->storages; m; m = m->next)
		if (strcmp(m->project_id, project_id) == 0) {
			*storage = m->storage;
			if (read_only)
				*read_only = m->read_only;
			return 0;
		}
	int err;
	PGresult *res = db_query(c, "repo_storage", 1, (const char *[]){project_id}, &err);
	if (!res)
		return err;
	if (PQntuples(res) != 1)
		return ERR_NOT_FOUND;
	*storage = db_val(res, 0, RS_STORAGE);
	if (read_only)
		*read_only = db_bool(res, 0, RS_READ_ONLY);
	db_repos_storage_known(c, project_id, *storage, db_bool(res, 0, RS_READ_ONLY));
	return 0;
}

PGresult *db_repos_move_find(ctx *c, const char *id, const char *full_path, int *err)
{
	return db_query(c, "repo_move_find", 2, (const char *[]){id, full_path}, err);
}

int db_repos_set_read_only(ctx *c, const char *project_id, bool read_only)
{
	int rc = run(c, "repo_set_read_only", 2,
		     (const char *[]){project_id, read_only ? "true" : "false"});
	c->storages = NULL; /* read again */
	return rc;
}

int db_repos_set_storage(ctx *c, const char *project_id, const char *storage)
{
	int rc = run(c, "repo_set_storage", 2, (const char *[]){project_id, storage});
	c->storages = NULL;
	return rc;
}
