#include "db/scope.h"

/* The caller as `me` ($1..$3); the project (FIND: SCOPE_PROJECT_BY_ID with $4, or
 * SCOPE_PROJECT_BY_PATH with $4 and $5), locked as lock says. pending_delete is tested
 * on p itself: when FOR UPDATE OF p waited for a deletion, PostgreSQL rechecks the
 * locked row's new version. */
#define PROJECT_SCOPE(FIND, lock)                                                                  \
	"WITH " SQL_ME ", " FIND " SELECT " SCOPE_PROJECT_COLS " FROM me, " SCOPE_PROJECT_FROM lock
#define BY_ID SCOPE_PROJECT_BY_ID("$4")
#define BY_PATH SCOPE_PROJECT_BY_PATH("$4", "$5")

/* The project as deploy key KEY reaches it: no caller (`me` anonymous: a deploy key
 * holds no user's access), and the key's link to the project. */
#define DEPLOY_KEY_SCOPE(FIND, KEY, lock)                                                          \
	"WITH " SQL_ME ", " FIND " SELECT " SCOPE_PROJECT_COLS ", dkl.can_push FROM me, "           \
	SCOPE_PROJECT_FROM " LEFT JOIN deploy_keys_projects dkl ON dkl.project_id = p.id"          \
			   " AND dkl.deploy_key_id = " KEY "::bigint" lock

/* A group by id ($4) or full path ($5): enum scope_group_col. */
#define GROUP_SCOPE(lock)                                                                          \
	"WITH " SQL_ME " SELECT " GROUP_COLS ", " SQL_GROUP_ACCESS_COLS(                           \
		"g") ","                                                                           \
		     " (SELECT pg.visibility FROM namespaces pg WHERE pg.id = g.parent_id),"       \
		     " (SELECT max(c.visibility) FROM namespaces c WHERE c.parent_id = g.id),"     \
		     " (SELECT max(p.visibility) FROM projects p WHERE p.namespace_id = g.id"      \
		     "  AND NOT p.pending_delete)"                                                 \
		     " FROM me, namespaces g WHERE g.kind = 'group'"                               \
		     " AND (g.id = $4::bigint OR lower(g.full_path) = lower($5::text))" lock

/* The parameters: SQL_ME's, then the project's (group's) id, or its path: by id, the
 * path is left out */
enum { SP_ID = ME_NPARAMS, SP_BY_ID_NPARAMS, SP_PATH = SP_BY_ID_NPARAMS, SP_NPARAMS };
enum { SG_ID = ME_NPARAMS, SG_PATH, SG_NPARAMS };

const db_stmt db_scope_stmts[] = {
	{"scope_project", PROJECT_SCOPE(BY_ID, ""), SP_BY_ID_NPARAMS, SCOPE_PROJECT_NCOLS},
	{"scope_project_lock", PROJECT_SCOPE(BY_ID, " FOR UPDATE OF p"), SP_BY_ID_NPARAMS,
	 SCOPE_PROJECT_NCOLS},
	{"scope_project_key_share", PROJECT_SCOPE(BY_ID, " FOR KEY SHARE OF p"), SP_BY_ID_NPARAMS,
	 SCOPE_PROJECT_NCOLS},
	{"scope_project_path", PROJECT_SCOPE(BY_PATH, ""), SP_NPARAMS, SCOPE_PROJECT_NCOLS},
	{"scope_project_path_lock", PROJECT_SCOPE(BY_PATH, " FOR UPDATE OF p"), SP_NPARAMS,
	 SCOPE_PROJECT_NCOLS},
	{"scope_project_path_key_share", PROJECT_SCOPE(BY_PATH, " FOR KEY SHARE OF p"), SP_NPARAMS,
	 SCOPE_PROJECT_NCOLS},
	/* the key's id follows the project's parameters */
	{"scope_project_deploy_key", DEPLOY_KEY_SCOPE(BY_ID, "$5", ""), SP_BY_ID_NPARAMS + 1,
	 SCOPE_DEPLOY_KEY_NCOLS},
	{"scope_project_deploy_key_lock", DEPLOY_KEY_SCOPE(BY_ID, "$5", " FOR UPDATE OF p"),
	 SP_BY_ID_NPARAMS + 1, SCOPE_DEPLOY_KEY_NCOLS},
	{"scope_project_path_deploy_key", DEPLOY_KEY_SCOPE(BY_PATH, "$6", ""), SP_NPARAMS + 1,
	 SCOPE_DEPLOY_KEY_NCOLS},
	{"scope_project_path_deploy_key_lock", DEPLOY_KEY_SCOPE(BY_PATH, "$6", " FOR UPDATE OF p"),
	 SP_NPARAMS + 1, SCOPE_DEPLOY_KEY_NCOLS},
	{"scope_group", GROUP_SCOPE(""), SG_NPARAMS, GS_NCOLS},
	{"scope_group_lock", GROUP_SCOPE(" FOR UPDATE OF g"), SG_NPARAMS, GS_NCOLS},
	{NULL, NULL, 0, 0},
};

PGresult *db_scope_project(ctx *c, const char *const *ref, bool by_path, scope_lock lock, int *err)
{
	static const char *const stmts[][2] = {
		[SCOPE_READ] = {"scope_project", "scope_project_path"},
		[SCOPE_UPDATE] = {"scope_project_lock", "scope_project_path_lock"},
		[SCOPE_KEY_SHARE] = {"scope_project_key_share", "scope_project_path_key_share"},
	};
	const char *v[SP_NPARAMS];
	DB_PARAMS(v, SP_NPARAMS);
	access_me_params(c, v);
	v[SP_ID] = ref[0];
	v[SP_PATH] = by_path ? ref[1] : NULL;
	return db_query(c, stmts[lock][by_path], by_path ? SP_NPARAMS : SP_BY_ID_NPARAMS, v, err);
}

PGresult *db_scope_project_deploy_key(ctx *c, const char *const *ref, bool by_path, bool lock,
				      const char *key_id, int *err)
{
	static const char *const stmts[][2] = {
		{"scope_project_deploy_key", "scope_project_path_deploy_key"},
		{"scope_project_deploy_key_lock", "scope_project_path_deploy_key_lock"},
	};
	const char *v[SP_NPARAMS + 1] = {NULL}; /* SQL_ME's: no caller */
	int n = by_path ? SP_NPARAMS : SP_BY_ID_NPARAMS;
	v[SP_ID] = ref[0];
	if (by_path)
		v[SP_PATH] = ref[1];
	v[n] = key_id;
	return db_query(c, stmts[lock][by_path], n + 1, v, err);
}

PGresult *db_scope_group(ctx *c, const char *id, const char *path, bool lock, int *err)
{
	const char *v[SG_NPARAMS];
	DB_PARAMS(v, SG_NPARAMS);
	access_me_params(c, v);
	v[SG_ID] = id;
	v[SG_PATH] = path;
	return db_query(c, lock ? "scope_group_lock" : "scope_group", SG_NPARAMS, v, err);
}
