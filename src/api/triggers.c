/* Pipeline triggers (spec 4.3a; GitLab 10's lib/api/triggers.rb): list, show, create,
 * update, take_ownership and delete, for those with admin_build on the project
 * (masters and up, admins; 403 otherwise). A trigger's token is random, stored as its
 * digest (to find the trigger of an invocation) and sealed (to show it again): in full
 * to the trigger's owner, its first four characters to the others, as GitLab's
 * Ci::Trigger#short_token. Deletion marks deleted_at (GitLab 10's paranoid triggers): a
 * deleted trigger is gone from the API and its token runs nothing, while the pipelines
 * it made keep their trigger request. A trigger that is not there is GitLab 10's 404
 * "404 Not found" (ActiveRecord's RecordNotFound). */
#include <string.h>

#include "api/api.h"
#include "core/crypto.h"
#include "entity/ci_settings.h"

const db_stmt triggers_stmts[] = {
	/* $1 project, $2 limit, $3 offset */
	{"triggers_list",
	 "SELECT (SELECT count(*) FROM ci_triggers WHERE project_id = $1 AND deleted_at IS NULL),"
	 " x.* FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " TRIGGER_COLS " FROM " TRIGGER_FROM
	 " WHERE t.project_id = $1 AND t.deleted_at IS NULL ORDER BY t.id LIMIT $2 OFFSET $3) x"
	 " ON true", 3, 1 + TRIGGER_NCOLS},
	{"triggers_show",
	 "SELECT " TRIGGER_COLS " FROM " TRIGGER_FROM " WHERE t.project_id = $1 AND t.id = $2"
	 " AND t.deleted_at IS NULL", 2, TRIGGER_NCOLS},
	/* $1 project, $2 owner, $3 description, $4 token digest, $5 sealed token */
	{"triggers_insert",
	 "INSERT INTO ci_triggers (project_id, owner_id, description, token_digest, token_sealed)"
	 " VALUES ($1, $2, $3, $4, $5) RETURNING id", 5, 1},
	/* $3 the description or NULL, $4 the new owner or NULL */
	{"triggers_update",
	 "UPDATE ci_triggers SET description = coalesce($3, description),"
	 " owner_id = coalesce($4::bigint, owner_id), updated_at = now()"
	 " WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id", 4, 1},
	{"triggers_delete",
	 "UPDATE ci_triggers SET deleted_at = now(), updated_at = now()"
	 " WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id", 2, 1},
	{NULL, NULL, 0, 0},
};

/* admin_build on the route's project: 0 or ERR_FORBIDDEN. */
static int may_admin(request *r)
{
	return project_ability_level(&r->project->pa) >= ACCESS_MASTER ? 0 : ERR_FORBIDDEN;
}

static int not_found(request *r)
{
	return api_error(r, 404, "404 Not found");
}

/* Answers trigger id of the route's project with status. */
static int present(request *r, const char *id, int status)
{
	const char *v[2] = {r->project->id, id};
	int err;
	PGresult *res = db_query(&r->ctx, "triggers_show", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return not_found(r);
	respond_json(r, status, entity_trigger(r, res, 0, 0));
	return 0;
}

static int triggers_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = may_admin(r)) < 0)
		return rc;
	const char *v[3] = {r->project->id, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	int err;
	PGresult *res = db_query(&r->ctx, "triggers_list", 3, v, &err);
	if (!res)
		return err;
	api_respond_page(r, &pg, res, entity_trigger);
	return 0;
}

static int check_id(request *r)
{
	const char *id;
	return api_id(r, "trigger_id", &id);
}

static int triggers_show(request *r)
{
	int rc = may_admin(r);
	return rc < 0 ? rc : present(r, param_str(r, "trigger_id"), 200);
}

static int check_create(request *r)
{
	return param_str(r, "description") ? 0 : fail_missing(r, "description");
}

static int triggers_create(request *r)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	char token[TOKEN_LEN + 1];
	if (crypto_token(token) < 0)
		return ERR_INTERNAL;
	const char *sealed = crypto_seal(r->ctx.a, r->ctx.key, token);
	if (!sealed)
		return ERR_INTERNAL;
	const char *v[5] = {r->project->id, arena_printf(r->ctx.a, "%lld", r->ctx.user->id),
			    param_str(r, "description"),
			    crypto_sha256_hex(r->ctx.a, token, strlen(token)), sealed};
	int err;
	PGresult *res = db_query(&r->ctx, "triggers_insert", 5, v, &err);
	if (!res)
		return err;
	return present(r, db_val(res, 0, 0), 201);
}

/* Updates the route's trigger (description or owner, NULL: unchanged) and answers it. */
static int update(request *r, const char *description, const char *owner, int status)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	const char *v[4] = {r->project->id, param_str(r, "trigger_id"), description, owner};
	int err;
	PGresult *res = db_query(&r->ctx, "triggers_update", 4, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return not_found(r);
	return present(r, v[1], status);
}

static int triggers_update(request *r)
{
	return update(r, param_str(r, "description"), NULL, 200);
}

static int triggers_take_ownership(request *r)
{
	return update(r, NULL, arena_printf(r->ctx.a, "%lld", r->ctx.user->id), 201);
}

static int triggers_delete(request *r)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	const char *v[2] = {r->project->id, param_str(r, "trigger_id")};
	int err;
	PGresult *res = db_query(&r->ctx, "triggers_delete", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return not_found(r);
	respond_empty(r, 204);
	return 0;
}

#define T V4 "/projects/:id/triggers"
const route triggers_routes[] = {
	{"GET", T, triggers_list, AUTH | PR, NULL},
	{"GET", T "/:trigger_id", triggers_show, AUTH | PR, check_id},
	{"POST", T, triggers_create, AUTH | PA, check_create},
	{"PUT", T "/:trigger_id", triggers_update, AUTH | PA, check_id},
	{"POST", T "/:trigger_id/take_ownership", triggers_take_ownership, AUTH | PA, check_id},
	{"DELETE", T "/:trigger_id", triggers_delete, AUTH | PA, check_id},
	{NULL, NULL, NULL, 0, NULL},
};
