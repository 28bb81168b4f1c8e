#include "auth/scope.h"

#include <string.h>

#include "entity/group.h"

/* The caller as `me` ($1..$3); the project (FIND: SCOPE_PROJECT_BY_ID with $4, or
 * SCOPE_PROJECT_BY_PATH with $4 and $5), locked as lock says. pending_delete is tested on p itself: when FOR UPDATE OF p waited for a
 * deletion, PostgreSQL rechecks the locked row's new version. */
#define PROJECT_SCOPE(FIND, lock)                                                                  \
	"WITH " SQL_ME ", " FIND " SELECT " SCOPE_PROJECT_COLS " FROM me, " SCOPE_PROJECT_FROM lock
#define BY_ID SCOPE_PROJECT_BY_ID("$4")
#define BY_PATH SCOPE_PROJECT_BY_PATH("$4", "$5")
enum {
	PS_ID,
	PS_NAMESPACE_ID,
	PS_NS_FULL_PATH,
	PS_NS_KIND,
	PS_NS_OWNER_ID,
	PS_PATH,
	PS_NAME,
	PS_FORKED_FROM_ID,
	PS_DEFAULT_BRANCH,
	PS_DESCRIPTION,
	PS_VISIBILITY,
	PS_NS_VISIBILITY,
	PS_REQUEST_ACCESS_ENABLED,
	PS_SHARED_RUNNERS_ENABLED,
	PS_WIKI_ENABLED,
	PS_PUBLIC_JOBS,
	PS_JOBS_ENABLED,
	PS_MERGE_REQUESTS_ENABLED,
	PS_ISSUES_ENABLED,
	PS_ACCESS,
	PS_NCOLS = PS_ACCESS + PROJECT_ACCESS_NCOLS,
};
_Static_assert(PS_NCOLS == SCOPE_PROJECT_NCOLS, "SCOPE_PROJECT_COLS and its columns");
_Static_assert((int)PS_ID == (int)SCOPE_PROJECT_COL_ID &&
		       (int)PS_NAMESPACE_ID == (int)SCOPE_PROJECT_COL_NAMESPACE_ID,
	       "SCOPE_PROJECT_COLS and its columns");

/* A group by id ($4) or full path ($5), with the caller's access and what a change of
 * visibility is checked against: the parent's visibility, the highest of its subgroups
 * and the highest of its projects. */
#define GROUP_SCOPE(lock)                                                                          \
	"WITH " SQL_ME " SELECT " GROUP_COLS ", " SQL_GROUP_ACCESS_COLS(                           \
		"g") ","                                                                           \
		     " (SELECT pg.visibility FROM namespaces pg WHERE pg.id = g.parent_id),"       \
		     " (SELECT max(c.visibility) FROM namespaces c WHERE c.parent_id = g.id),"     \
		     " (SELECT max(p.visibility) FROM projects p WHERE p.namespace_id = g.id"      \
		     "  AND NOT p.pending_delete)"                                                 \
		     " FROM me, namespaces g WHERE g.kind = 'group'"                               \
		     " AND (g.id = $4::bigint OR lower(g.full_path) = lower($5::text))" lock
enum {
	GS_ACCESS = GROUP_NCOLS,
	GS_PARENT_VIS = GROUP_NCOLS + GROUP_ACCESS_NCOLS,
	GS_CHILD_VIS,
	GS_PROJECT_VIS,
	GS_NCOLS,
};

/* The parameters: SQL_ME's, then the project's (group's) id, or its path: by id, the
 * path is left out */
enum { SP_ID = ME_NPARAMS, SP_BY_ID_NPARAMS, SP_PATH = SP_BY_ID_NPARAMS, SP_NPARAMS };
enum { SG_ID = ME_NPARAMS, SG_PATH, SG_NPARAMS };

const db_stmt scope_stmts[] = {
	{"scope_project", PROJECT_SCOPE(BY_ID, ""), SP_BY_ID_NPARAMS, PS_NCOLS},
	{"scope_project_lock", PROJECT_SCOPE(BY_ID, " FOR UPDATE OF p"), SP_BY_ID_NPARAMS,
	 PS_NCOLS},
	{"scope_project_key_share", PROJECT_SCOPE(BY_ID, " FOR KEY SHARE OF p"), SP_BY_ID_NPARAMS,
	 PS_NCOLS},
	{"scope_project_path", PROJECT_SCOPE(BY_PATH, ""), SP_NPARAMS, PS_NCOLS},
	{"scope_project_path_lock", PROJECT_SCOPE(BY_PATH, " FOR UPDATE OF p"), SP_NPARAMS,
	 PS_NCOLS},
	{"scope_project_path_key_share", PROJECT_SCOPE(BY_PATH, " FOR KEY SHARE OF p"), SP_NPARAMS,
	 PS_NCOLS},
	{"scope_group", GROUP_SCOPE(""), SG_NPARAMS, GS_NCOLS},
	{"scope_group_lock", GROUP_SCOPE(" FOR UPDATE OF g"), SG_NPARAMS, GS_NCOLS},
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

int scope_project_row(ctx *c, const PGresult *res, int col, project_scope *out)
{
	memset(out, 0, sizeof(*out));
	if (PQntuples(res) == 0 || PQgetisnull(res, 0, col + PS_ID))
		return not_found(c, "Project");
	project_access_read(&out->pa, res, 0, col + PS_ACCESS);
	if (!can_read_project(&out->pa))
		return not_found(c, "Project");
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
	return 0;
}

int scope_project(ctx *c, const char *ref, scope_lock lock, project_scope *out)
{
	memset(out, 0, sizeof(*out));
	const char *v[SP_NPARAMS];
	access_me_params(c, v);
	bool by_path;
	int rc = scope_project_ref(c, ref, v + SP_ID, &by_path);
	if (rc < 0)
		return rc;
	int err;
	static const char *const stmts[][2] = {
		[SCOPE_READ] = {"scope_project", "scope_project_path"},
		[SCOPE_UPDATE] = {"scope_project_lock", "scope_project_path_lock"},
		[SCOPE_KEY_SHARE] = {"scope_project_key_share", "scope_project_path_key_share"},
	};
	PGresult *res =
		db_query(c, stmts[lock][by_path], by_path ? SP_NPARAMS : SP_BY_ID_NPARAMS, v, &err);
	if (!res)
		return err;
	return scope_project_row(c, res, 0, out);
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
	const char *v[SG_NPARAMS];
	access_me_params(c, v);
	bool id = scope_ref_is_id(ref);
	v[SG_ID] = id ? ref : NULL;
	v[SG_PATH] = id ? NULL : ref;
	if (!ref || !*ref)
		return not_found(c, "Group");
	int err;
	PGresult *res = db_query(c, lock != SCOPE_READ ? "scope_group_lock" : "scope_group",
				 SG_NPARAMS, v, &err);
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
