/* Project and group variables (spec 4.4; GitLab 10's lib/api/variables.rb and
 * group_variables.rb), written once for both scopes (r->project or r->group): list,
 * show, create, update, delete. Values are sealed with the instance key. As GitLab 10:
 * every route needs admin_build, which masters of the project (the group) and up and
 * admins have (403 otherwise, and in a project whose jobs are off); the record is {key,
 * value, protected}; a key is at most 255 characters of [A-Za-z0-9_] and unique in its
 * project (group); an update may give the value, protected or both; deletion answers
 * 204. */
#include <string.h>

#include "api/api.h"
#include "core/crypto.h"
#include "entity/ci_settings.h"

/* One statement of each kind per scope, the same but for the table and its column. */
#define VAR_STMTS(P, TABLE, COL)                                                                   \
	{P "_list",                                                                                \
	 "SELECT (SELECT count(*) FROM " TABLE " WHERE " COL " = $1), x.* FROM (SELECT 1) one"     \
	 " LEFT JOIN LATERAL (SELECT " CI_VARIABLE_COLS " FROM " TABLE " v WHERE v." COL " = $1"   \
	 " ORDER BY v.id LIMIT $2 OFFSET $3) x ON true",                                           \
	 3, 1 + CI_VARIABLE_NCOLS},                                                                \
		{P "_show",                                                                        \
		 "SELECT " CI_VARIABLE_COLS " FROM " TABLE " v WHERE v." COL " = $1"               \
		 " AND v.key = $2",                                                                \
		 2, CI_VARIABLE_NCOLS}, /* no row when the key is taken */                         \
		{P "_insert",                                                                      \
		 "INSERT INTO " TABLE " AS v (" COL ", key, value_sealed, protected)"              \
		 " VALUES ($1, $2, $3, coalesce($4::boolean, false)) ON CONFLICT (" COL ", key)"   \
		 " DO NOTHING RETURNING " CI_VARIABLE_COLS,                                        \
		 4,                                                                                \
		 CI_VARIABLE_NCOLS}, /* $3 the new sealed value or NULL, $4 protected or NULL */   \
		{P "_update",                                                                      \
		 "UPDATE " TABLE " v SET value_sealed = coalesce($3, value_sealed),"               \
		 " protected = coalesce($4::boolean, protected) WHERE v." COL                      \
		 " = $1 AND v.key = $2"                                                            \
		 " RETURNING " CI_VARIABLE_COLS,                                                   \
		 4, CI_VARIABLE_NCOLS},                                                            \
	{                                                                                          \
		P "_delete", "DELETE FROM " TABLE " WHERE " COL " = $1 AND key = $2 RETURNING id", \
			2, 1                                                                       \
	}

const db_stmt variables_stmts[] = {
	VAR_STMTS("variables_project", "ci_variables", "project_id"),
	VAR_STMTS("variables_group", "ci_group_variables", "group_id"),
	{NULL, NULL, 0, 0},
};

int ci_jobs_enabled(request *r)
{
	return r->project->jobs_enabled ? 0 : ERR_FORBIDDEN;
}

/* The statements of a scope (VAR_STMTS' names), by kind. */
enum var_kind { VAR_LIST, VAR_SHOW, VAR_INSERT, VAR_UPDATE, VAR_DELETE, VAR_KINDS };
#define VAR_NAMES(P)                                                                               \
	{                                                                                          \
		[VAR_LIST] = P "_list", [VAR_SHOW] = P "_show", [VAR_INSERT] = P "_insert",        \
		[VAR_UPDATE] = P "_update", [VAR_DELETE] = P "_delete"                             \
	}
static const char *const project_var_stmts[VAR_KINDS] = VAR_NAMES("variables_project");
static const char *const group_var_stmts[VAR_KINDS] = VAR_NAMES("variables_group");

/* The route's scope: its statements, its id, and what its 404 names. */
typedef struct {
	const char *const *stmts;
	const char *id;
	const char *what;
} var_scope;

/* The scope of r, when the caller may administer its variables: 0, or ERR_FORBIDDEN. */
static int scope_of(request *r, var_scope *out)
{
	if (r->project) {
		*out = (var_scope){project_var_stmts, r->project->id, "Variable"};
		if (project_ability_level(&r->project->pa) < ACCESS_MASTER)
			return ERR_FORBIDDEN;
		return ci_jobs_enabled(r);
	}
	*out = (var_scope){group_var_stmts, r->group->id, "GroupVariable"};
	const group_access *ga = &r->group->ga;
	return ga->admin || ga->level >= ACCESS_MASTER ? 0 : ERR_FORBIDDEN;
}

void variables_validate_key(request *r, const char *key)
{
	size_t n = strlen(key);
	if (n == 0)
		fail_validation(r, "key", "can't be blank");
	if (n > 255)
		fail_validation(r, "key", "is too long (maximum is 255 characters)");
	bool ok = n > 0;
	for (size_t i = 0; i < n && ok; i++)
		ok = (key[i] >= 'a' && key[i] <= 'z') || (key[i] >= 'A' && key[i] <= 'Z') ||
		     (key[i] >= '0' && key[i] <= '9') || key[i] == '_';
	if (!ok)
		fail_validation(r, "key", "can contain only letters, digits and '_'.");
}

int variables_insert(request *r, const char *stmt, const char **v, int n, presenter_fn present)
{
	const char *key = param_str(r, "key");
	variables_validate_key(r, key);
	if (r->validation)
		return ERR_VALIDATION;
	const char *sealed = crypto_seal(r->ctx.a, r->ctx.key, param_str(r, "value"));
	if (!sealed)
		return ERR_INTERNAL;
	v[1] = key;
	v[2] = sealed;
	int err;
	PGresult *res = db_query(&r->ctx, stmt, n, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_validation(r, "key", "has already been taken");
	respond_json(r, 201, present(&r->ctx, res, 0, 0));
	return 0;
}

/* protected, when given: 0 with *out "true"/"false" (NULL when absent), or
 * ERR_INVALID. */
static int protected_param(request *r, const char **out)
{
	bool b;
	int rc = param_bool(r, "protected", &b);
	if (rc < 0)
		return fail_invalid(r, "protected");
	*out = rc == 0 ? (b ? "true" : "false") : NULL;
	return 0;
}

static int variables_list(request *r)
{
	page_req pg;
	var_scope s;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = scope_of(r, &s)) < 0)
		return rc;
	const char *v[3] = {s.id, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	return api_page(r, &pg, s.stmts[VAR_LIST], 3, v, entity_ci_variable);
}

/* Runs the statement of kind (show, delete) on variable :key of the route's scope: 0
 * with its row, ERR_FORBIDDEN, 404 (Group)Variable, or an ERR_ code. */
static int find_var(request *r, enum var_kind kind, PGresult **out)
{
	var_scope s;
	int rc = scope_of(r, &s);
	if (rc < 0)
		return rc;
	const char *v[2] = {s.id, param_str(r, "key")};
	return api_find(r, s.stmts[kind], 2, v, s.what, out);
}

static int variables_show(request *r)
{
	PGresult *res;
	int rc = find_var(r, VAR_SHOW, &res);
	if (rc < 0)
		return rc;
	respond_json(r, 200, entity_ci_variable(&r->ctx, res, 0, 0));
	return 0;
}

static int check_create(request *r)
{
	if (!param_str(r, "key"))
		return fail_missing(r, "key");
	if (!param_str(r, "value"))
		return fail_missing(r, "value");
	const char *p;
	return protected_param(r, &p);
}

static int variables_create(request *r)
{
	var_scope s;
	int rc = scope_of(r, &s);
	if (rc < 0)
		return rc;
	const char *prot = NULL;
	if ((rc = protected_param(r, &prot)) < 0)
		return rc;
	const char *v[4] = {s.id, NULL, NULL, prot};
	return variables_insert(r, s.stmts[VAR_INSERT], v, 4, entity_ci_variable);
}

static int check_update(request *r)
{
	const char *p;
	return protected_param(r, &p);
}

static int variables_update(request *r)
{
	var_scope s;
	int rc = scope_of(r, &s);
	if (rc < 0)
		return rc;
	const char *prot = NULL, *value = param_str(r, "value"), *sealed = NULL;
	if ((rc = protected_param(r, &prot)) < 0)
		return rc;
	if (value && !(sealed = crypto_seal(r->ctx.a, r->ctx.key, value)))
		return ERR_INTERNAL;
	const char *v[4] = {s.id, param_str(r, "key"), sealed, prot};
	PGresult *res;
	if ((rc = api_find(r, s.stmts[VAR_UPDATE], 4, v, s.what, &res)) < 0)
		return rc;
	respond_json(r, 200, entity_ci_variable(&r->ctx, res, 0, 0));
	return 0;
}

static int variables_delete(request *r)
{
	PGresult *res;
	int rc = find_var(r, VAR_DELETE, &res);
	if (rc < 0)
		return rc;
	respond_empty(r, 204);
	return 0;
}

#define PV V4 "/projects/:id/variables"
#define GV V4 "/groups/:id/variables"
const route variables_routes[] = {
	{"GET", PV, variables_list, AUTH | PR, NULL},
	{"GET", PV "/:key", variables_show, AUTH | PR, NULL},
	{"POST", PV, variables_create, AUTH | PA, check_create},
	{"PUT", PV "/:key", variables_update, AUTH | PA, check_update},
	{"DELETE", PV "/:key", variables_delete, AUTH | PA, NULL},
	{"GET", GV, variables_list, AUTH | GR, NULL},
	{"GET", GV "/:key", variables_show, AUTH | GR, NULL},
	{"POST", GV, variables_create, AUTH | GW, check_create},
	{"PUT", GV "/:key", variables_update, AUTH | GW, check_update},
	{"DELETE", GV "/:key", variables_delete, AUTH | GW, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
