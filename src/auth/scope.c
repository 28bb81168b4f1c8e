#include "auth/scope.h"

#include <string.h>

#include "entity/group.h"

/* The caller as `me` ($1..$3); the project by id ($4) or by the full path of its
 * namespace ($5) and its path ($6), one of the two given: each an index probe. Then
 * SQL_PROJECT_ACCESS_COLS. pending_delete is tested on p itself: when FOR UPDATE OF p
 * waited for a deletion, PostgreSQL rechecks the locked row's new version. */
#define PROJECT_SCOPE(lock)                                                                   \
	"WITH " SQL_ME ", t AS (SELECT id FROM projects WHERE id = $4::bigint"                  \
	" UNION ALL SELECT tp.id FROM namespaces tn JOIN projects tp ON tp.namespace_id = tn.id" \
	" WHERE lower(tn.full_path) = lower($5::text) AND lower(tp.path) = lower($6::text))"    \
	" SELECT p.id, p.namespace_id, n.full_path, n.kind,"                                    \
	" CASE WHEN n.kind = 'user' THEN n.owner_id END, p.path, p.name, p.forked_from_id,"    \
	" p.default_branch, p.description, p.visibility, n.visibility,"                         \
	" p.request_access_enabled, p.shared_runners_enabled, p.wiki_enabled, p.public_jobs,"     \
	" p.jobs_enabled, "                                                                      \
	SQL_PROJECT_ACCESS_COLS("p")                                                            \
	" FROM me, t JOIN projects p ON p.id = t.id AND NOT p.pending_delete"                   \
	" JOIN namespaces n ON n.id = p.namespace_id" lock
enum {
	PS_ID, PS_NAMESPACE_ID, PS_NS_FULL_PATH, PS_NS_KIND, PS_NS_OWNER_ID, PS_PATH, PS_NAME,
	PS_FORKED_FROM_ID, PS_DEFAULT_BRANCH, PS_DESCRIPTION, PS_VISIBILITY, PS_NS_VISIBILITY,
	PS_REQUEST_ACCESS_ENABLED, PS_SHARED_RUNNERS_ENABLED, PS_WIKI_ENABLED, PS_PUBLIC_JOBS,
	PS_JOBS_ENABLED, PS_ACCESS,
	PS_NCOLS = PS_ACCESS + PROJECT_ACCESS_NCOLS,
};

/* A group by id ($4) or full path ($5), with the caller's access and what a change of
 * visibility is checked against: the parent's visibility, the highest of its subgroups
 * and the highest of its projects. */
#define GROUP_SCOPE(lock)                                                                     \
	"WITH " SQL_ME " SELECT " GROUP_COLS ", " SQL_GROUP_ACCESS_COLS("g") ","                \
	" (SELECT pg.visibility FROM namespaces pg WHERE pg.id = g.parent_id),"                 \
	" (SELECT max(c.visibility) FROM namespaces c WHERE c.parent_id = g.id),"               \
	" (SELECT max(p.visibility) FROM projects p WHERE p.namespace_id = g.id"               \
	"  AND NOT p.pending_delete)"                                                          \
	" FROM me, namespaces g WHERE g.kind = 'group'"                                          \
	" AND (g.id = $4::bigint OR lower(g.full_path) = lower($5::text))" lock
enum {
	GS_ACCESS = GROUP_NCOLS,
	GS_PARENT_VIS = GROUP_NCOLS + GROUP_ACCESS_NCOLS,
	GS_CHILD_VIS,
	GS_PROJECT_VIS,
	GS_NCOLS,
};

const db_stmt scope_stmts[] = {
	{"scope_project", PROJECT_SCOPE(""), 6, PS_NCOLS},
	{"scope_project_lock", PROJECT_SCOPE(" FOR UPDATE OF p"), 6, PS_NCOLS},
	{"scope_project_key_share", PROJECT_SCOPE(" FOR KEY SHARE OF p"), 6, PS_NCOLS},
	{"scope_group", GROUP_SCOPE(""), 5, GS_NCOLS},
	{"scope_group_lock", GROUP_SCOPE(" FOR UPDATE OF g"), 5, GS_NCOLS},
	{NULL, NULL, 0, 0},
};

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

int scope_project(ctx *c, const char *ref, scope_lock lock, project_scope *out)
{
	memset(out, 0, sizeof(*out));
	const char *v[6];
	access_me_params(c, v);
	v[3] = v[4] = v[5] = NULL;
	if (scope_ref_is_id(ref)) {
		v[3] = ref;
	} else {
		const char *slash = ref ? strrchr(ref, '/') : NULL;
		if (!slash || slash == ref || !slash[1])
			return not_found(c, "Project");
		v[4] = arena_strndup(c->a, ref, (size_t)(slash - ref));
		v[5] = slash + 1;
	}
	int err;
	static const char *const stmts[] = {
		[SCOPE_READ] = "scope_project",
		[SCOPE_UPDATE] = "scope_project_lock",
		[SCOPE_KEY_SHARE] = "scope_project_key_share",
	};
	PGresult *res = db_query(c, stmts[lock], 6, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return not_found(c, "Project");
	project_access_read(&out->pa, res, 0, PS_ACCESS);
	if (!can_read_project(&out->pa))
		return not_found(c, "Project");
	out->id = text(c, res, PS_ID);
	out->namespace_id = text(c, res, PS_NAMESPACE_ID);
	out->ns_full_path = text(c, res, PS_NS_FULL_PATH);
	out->ns_kind = text(c, res, PS_NS_KIND);
	out->ns_owner_id = text(c, res, PS_NS_OWNER_ID);
	out->path = text(c, res, PS_PATH);
	out->name = text(c, res, PS_NAME);
	out->forked_from_id = text(c, res, PS_FORKED_FROM_ID);
	out->default_branch = text(c, res, PS_DEFAULT_BRANCH);
	out->description = text(c, res, PS_DESCRIPTION);
	out->visibility = (int)db_int(res, 0, PS_VISIBILITY);
	out->ns_visibility = (int)db_int(res, 0, PS_NS_VISIBILITY);
	out->request_access_enabled = db_bool(res, 0, PS_REQUEST_ACCESS_ENABLED);
	out->shared_runners_enabled = db_bool(res, 0, PS_SHARED_RUNNERS_ENABLED);
	out->wiki_enabled = db_bool(res, 0, PS_WIKI_ENABLED);
	out->public_jobs = db_bool(res, 0, PS_PUBLIC_JOBS);
	out->jobs_enabled = db_bool(res, 0, PS_JOBS_ENABLED);
	return 0;
}

int scope_project_repository(ctx *c, const char *full, project_scope *out, bool *wiki)
{
	*wiki = false;
	int rc = scope_project(c, full, SCOPE_READ, out);
	size_t n = full ? strlen(full) : 0;
	if (rc != ERR_NOT_FOUND || n <= 5 || strcmp(full + n - 5, ".wiki") != 0 ||
	    scope_ref_is_id(full))
		return rc;
	rc = scope_project(c, arena_strndup(c->a, full, n - 5), SCOPE_READ, out);
	*wiki = rc == 0;
	return rc;
}

static int vis_or_none(const PGresult *res, int col)
{
	return PQgetisnull(res, 0, col) ? -1 : (int)db_int(res, 0, col);
}

int scope_group(ctx *c, const char *ref, scope_lock lock, group_scope *out)
{
	memset(out, 0, sizeof(*out));
	const char *v[5];
	access_me_params(c, v);
	bool id = scope_ref_is_id(ref);
	v[3] = id ? ref : NULL;
	v[4] = id ? NULL : ref;
	if (!ref || !*ref)
		return not_found(c, "Group");
	int err;
	PGresult *res = db_query(c, lock != SCOPE_READ ? "scope_group_lock" : "scope_group", 5, v, &err);
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
