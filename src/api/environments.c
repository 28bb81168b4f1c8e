/* Environments (spec 4.6; GitLab 10's lib/api/environments.rb): list, create, update,
 * delete and stop. Reporters and up read them (read_environment), developers and up
 * create them (create_environment) and stop them (create_deployment), masters and up
 * update and delete them (update_environment: ProjectPolicy's master rule in 10.x). The
 * model's rules (name format, slug, external_url) are SQL functions of
 * sql/0027_environments.sql, which the deployments a successful job records use too. */
#include <string.h>

#include "api/api.h"
#include "core/validate.h"
#include "entity/environment.h"

#define ENV_FIELD_MAX 255

enum { EC_NAME_VALID, EC_URL_VALID, EC_NAME_TAKEN, EC_URL_TAKEN, EC_NCOLS };

const db_stmt environments_stmts[] = {
	/* $1 project, $2 limit, $3 offset; oldest first */
	{"environments_list",
	 "WITH f AS (SELECT id FROM environments WHERE project_id = $1)"
	 " SELECT (SELECT count(*) FROM f), x.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " ENVIRONMENT_COLS("e") " FROM environments e WHERE e.id IN (SELECT id FROM f)"
					   " ORDER BY e.id LIMIT $2 OFFSET $3) x ON true",
	 3, 1 + ENVIRONMENT_NCOLS},
	/* $1 project, $2 name, $3 external_url (either NULL when not checked), $4 the
	 * environment that keeps them (NULL for a new one): the name's and the URL's format,
	 * and whether another environment of the project has them */
	{"environments_check",
	 "SELECT ci_environment_name_valid($2), ci_environment_url_valid($3),"
	 " EXISTS (SELECT 1 FROM environments WHERE project_id = $1 AND name = $2"
	 " AND id IS DISTINCT FROM $4::bigint),"
	 " EXISTS (SELECT 1 FROM environments WHERE project_id = $1 AND external_url = $3"
	 " AND id IS DISTINCT FROM $4::bigint)",
	 4, EC_NCOLS},
	{"environments_insert",
	 "INSERT INTO environments (project_id, name, slug, external_url)"
	 " VALUES ($1, $2, ci_environment_slug($2), $3)"
	 " RETURNING " ENVIRONMENT_COLS("environments"),
	 3, ENVIRONMENT_NCOLS},
	/* $1 project, $2 environment, locked for the route's change */
	{"environments_find",
	 "SELECT " ENVIRONMENT_COLS("e") " FROM environments e"
					 " WHERE e.project_id = $1 AND e.id = $2 FOR UPDATE",
	 2, ENVIRONMENT_NCOLS},
	/* $1 environment, $2 name or NULL, $3 whether external_url is given, $4 it */
	{"environments_update",
	 "UPDATE environments SET name = coalesce($2, name),"
	 " external_url = CASE WHEN $3::boolean THEN $4 ELSE external_url END, updated_at = now()"
	 " WHERE id = $1 RETURNING " ENVIRONMENT_COLS("environments"),
	 4, ENVIRONMENT_NCOLS},
	{"environments_delete", "DELETE FROM environments WHERE id = $1", 1, 0},
	/* $1 environment, $2 the caller (sql/0027's ci_environment_stop) */
	{"environments_stop", "SELECT ci_environment_stop($1, $2)", 2, 1},
	{NULL, NULL, 0, 0},
};

/* The caller's level for the environment abilities (ProjectPolicy: admins and the owner of
 * a personal namespace count as owners); nothing is written to an archived project. */
static int env_level(request *r)
{
	return project_ability_level(&r->project->pa);
}

/* Whether the caller may change the route's environments with an ability of level. */
static bool can_write(request *r, int level)
{
	return env_level(r) >= level && !r->project->pa.archived;
}

/* external_url as the model keeps it: NULL when absent or blank (nullify_external_url). */
static const char *external_url(request *r)
{
	const char *url = param_str(r, "external_url");
	return url && *url ? url : NULL;
}

/* The model's validations of name (when not NULL) and url (when not NULL) for environment
 * id (NULL: a new one) of the route's project, left in r's validation object. */
static int env_validate(request *r, const char *name, const char *url, const char *id)
{
	const char *v[4] = {r->project->id, name, url, id};
	int err;
	PGresult *res = db_query(&r->ctx, "environments_check", 4, v, &err);
	if (!res)
		return err;
	if (name) {
		if (!*name)
			fail_validation(r, "name", "can't be blank");
		if (db_bool(res, 0, EC_NAME_TAKEN))
			fail_validation(r, "name", "has already been taken");
		if (utf8_chars(name) > ENV_FIELD_MAX)
			fail_validation(r, "name", "is too long (maximum is 255 characters)");
		if (!db_bool(res, 0, EC_NAME_VALID))
			fail_validation(r, "name",
					"can contain only letters, digits, '-', '_', '/', '$', "
					"'{', '}', '.' and spaces");
	}
	if (url) {
		if (db_bool(res, 0, EC_URL_TAKEN))
			fail_validation(r, "external_url", "has already been taken");
		if (utf8_chars(url) > ENV_FIELD_MAX)
			fail_validation(r, "external_url",
					"is too long (maximum is 255 characters)");
		if (!db_bool(res, 0, EC_URL_VALID))
			fail_validation(r, "external_url", "must be a valid URL");
	}
	return r->validation ? ERR_VALIDATION : 0;
}

/* A unique violation of a change that raced another: the model's "has already been
 * taken" on the field of the constraint. */
static int env_taken(request *r, int err)
{
	if (err != ERR_CONFLICT)
		return err;
	const char *c = r->ctx.err_detail ? r->ctx.err_detail : "";
	return fail_validation(r, strstr(c, "slug") ? "slug" : "name", "has already been taken");
}

/* Environment :environment_id of the route's project, locked, when the caller may change
 * it with an ability of level: 0 with its row, ERR_FORBIDDEN, or GitLab's 404 for a
 * record that is not there (1). */
static int find_env(request *r, int level, PGresult **out)
{
	if (!can_write(r, level))
		return ERR_FORBIDDEN;
	const char *v[2] = {r->project->id, param_str(r, "environment_id")};
	int err;
	PGresult *res = db_query(&r->ctx, "environments_find", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return api_error(r, 404, "404 Not found") + 1;
	*out = res;
	return 0;
}

/* ---- routes ---- */

static int environments_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	if (env_level(r) < ACCESS_REPORTER)
		return ERR_FORBIDDEN;
	const char *v[3] = {r->project->id, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	return api_page(r, &pg, "environments_list", 3, v, entity_environment);
}

/* slug is made from the name: GitLab 10's `absence` declaration. */
static int check_no_slug(request *r)
{
	if (param_find(r, "slug"))
		return fail(r, ERR_INVALID,
			    "slug is automatically generated and cannot be changed");
	return 0;
}

static int environments_check_create(request *r)
{
	if (!param_find(r, "name") || !param_str(r, "name"))
		return fail_missing(r, "name");
	return check_no_slug(r);
}

static int environments_create(request *r)
{
	if (!can_write(r, ACCESS_DEVELOPER))
		return ERR_FORBIDDEN;
	const char *name = param_str(r, "name"), *url = external_url(r);
	int rc = env_validate(r, name, url, NULL);
	if (rc < 0)
		return rc;
	const char *v[3] = {r->project->id, name, url};
	int err;
	PGresult *res = db_query(&r->ctx, "environments_insert", 3, v, &err);
	if (!res)
		return env_taken(r, err);
	respond_json(r, 201, entity_environment(&r->ctx, res, 0, 0));
	return 0;
}

static int environments_check_id(request *r)
{
	const char *id;
	return api_id(r, "environment_id", &id);
}

static int environments_check_update(request *r)
{
	int rc = environments_check_id(r);
	return rc < 0 ? rc : check_no_slug(r);
}

static int environments_update(request *r)
{
	PGresult *env;
	int rc = find_env(r, ACCESS_MASTER, &env);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *name = param_str(r, "name"), *url = external_url(r);
	bool url_given = param_find(r, "external_url") != NULL;
	if ((rc = env_validate(r, name, url, db_val(env, 0, 0))) < 0)
		return rc;
	const char *v[4] = {db_val(env, 0, 0), name, url_given ? "true" : "false", url};
	int err;
	PGresult *res = db_query(&r->ctx, "environments_update", 4, v, &err);
	if (!res)
		return env_taken(r, err);
	respond_json(r, 200, entity_environment(&r->ctx, res, 0, 0));
	return 0;
}

static int environments_delete(request *r)
{
	PGresult *env;
	int rc = find_env(r, ACCESS_MASTER, &env);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	int err;
	if (!db_query(&r->ctx, "environments_delete", 1, (const char *[]){db_val(env, 0, 0)}, &err))
		return err;
	respond_empty(r, 204);
	return 0;
}

/* GitLab 10's Environment#stop_with_action!: stopped, and the on_stop job of its last
 * deployment played by the caller. */
static int environments_stop(request *r)
{
	PGresult *env;
	int rc = find_env(r, ACCESS_DEVELOPER, &env);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *v[2] = {db_val(env, 0, 0), api_caller_id(r)};
	int err;
	if (!db_query(&r->ctx, "environments_stop", 2, v, &err))
		return err;
	respond_json(r, 200, entity_environment(&r->ctx, env, 0, 0));
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. Creating,
 * stopping and removing only add or change rows under the project: locked FOR KEY
 * SHARE. */
const route environments_routes[] = {
	{"GET", V4 "/projects/:id/environments", environments_list, AUTH | PR, NULL},
	{"POST", V4 "/projects/:id/environments", environments_create, AUTH | PA,
	 environments_check_create},
	{"PUT", V4 "/projects/:id/environments/:environment_id", environments_update, AUTH | PA,
	 environments_check_update},
	{"DELETE", V4 "/projects/:id/environments/:environment_id", environments_delete, AUTH | PA,
	 environments_check_id},
	{"POST", V4 "/projects/:id/environments/:environment_id/stop", environments_stop, AUTH | PA,
	 environments_check_id},
	{NULL, NULL, NULL, 0, NULL},
};
