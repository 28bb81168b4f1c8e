/* Pipeline triggers (spec 4.3a; GitLab 10's lib/api/triggers.rb): list, show, create,
 * update, take_ownership and delete, for those with admin_build on the project
 * (masters and up, admins; 403 otherwise). A trigger's token is random, stored as its
 * digest (to find the trigger of an invocation) and sealed (to show it again): in full
 * to the trigger's owner, its first four characters to the others, as GitLab's
 * Ci::Trigger#short_token (GitLab 10.0's API showed it to every master; its UI, and its
 * API from 11.0, masked it). Deletion marks deleted_at (GitLab 10's paranoid
 * triggers): a deleted trigger is gone from the API and its token runs nothing, while
 * the pipelines it made keep their trigger request. A trigger that is not there is
 * GitLab 10's 404 "404 Not found" (ActiveRecord's RecordNotFound). And the invocation of
 * a trigger by its token, which makes a pipeline (below). */
#include <string.h>

#include "api/api.h"
#include "ci/pipeline.h"
#include "db/ci.h"
#include "core/crypto.h"
#include "core/validate.h"
#include "entity/ci_settings.h"
#include "entity/pipeline.h"

enum { TI_PROJECT, TI_OWNER, TI_DESCRIPTION, TI_DIGEST, TI_SEALED, TI_NPARAMS };
enum { TK_ID, TK_PROJECT, TK_OWNER, TK_LEVEL, TK_ADMIN, TK_NCOLS };

const db_stmt triggers_stmts[] = {
	/* $1 project, $2 limit, $3 offset */
	{"triggers_list",
	 "SELECT (SELECT count(*) FROM ci_triggers WHERE project_id = $1 AND deleted_at IS NULL),"
	 " x.* FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " TRIGGER_COLS " FROM " TRIGGER_FROM
	 " WHERE t.project_id = $1 AND t.deleted_at IS NULL ORDER BY t.id LIMIT $2 OFFSET $3) x"
	 " ON true",
	 3, 1 + TRIGGER_NCOLS},
	{"triggers_show",
	 "SELECT " TRIGGER_COLS " FROM " TRIGGER_FROM " WHERE t.project_id = $1 AND t.id = $2"
	 " AND t.deleted_at IS NULL",
	 2, TRIGGER_NCOLS},
	/* $1 project, $2 owner, $3 description, $4 token digest, $5 sealed token */
	{"triggers_insert",
	 "INSERT INTO ci_triggers (project_id, owner_id, description, token_digest, token_sealed)"
	 " VALUES ($1, $2, $3, $4, $5) RETURNING id",
	 TI_NPARAMS, 1},
	/* $3 the description or NULL, $4 the new owner or NULL */
	{"triggers_update",
	 "UPDATE ci_triggers SET description = coalesce($3, description),"
	 " owner_id = coalesce($4::bigint, owner_id), updated_at = now()"
	 " WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id",
	 4, 1},
	{"triggers_delete",
	 "UPDATE ci_triggers SET deleted_at = now(), updated_at = now()"
	 " WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id",
	 2, 1},
	/* The trigger of token digest $1 in project $2 (an id or a full path), with its
	 * owner, the level they run pipelines with there and whether they are an admin */
	{"triggers_by_token",
	 "SELECT t.id, p.id, t.owner_id, coalesce(" SQL_CI_USER_LEVEL("t.owner_id", "p") ", 0), " SQL_CI_USER_ADMIN(
		 "t.owner_id") " FROM ci_triggers t"
			       " JOIN projects p ON p.id = t.project_id AND NOT p.pending_delete"
			       " JOIN namespaces n ON n.id = p.namespace_id"
			       " WHERE t.token_digest = $1 AND t.deleted_at IS NULL"
			       " AND (p.id = CASE WHEN $2 ~ '^[0-9]{1,18}$' THEN $2::bigint END"
			       " OR lower(n.full_path || '/' || p.path) = lower($2))",
	 2, TK_NCOLS},
	/* an invocation of trigger $1 with its variables $2 (a JSON object) */
	{"triggers_request",
	 "WITH used AS (UPDATE ci_triggers SET last_used = now() WHERE id = $1)"
	 " INSERT INTO ci_trigger_requests (trigger_id, variables) VALUES ($1, $2::jsonb)"
	 " RETURNING id",
	 2, 1},
	{"triggers_pipeline", "SELECT " PIPELINE_COLS " FROM " PIPELINE_FROM " WHERE p.id = $1", 1,
	 PIPELINE_NCOLS},
	{NULL, NULL, 0, 0},
};

/* admin_build on the route's project (its jobs on): 0 or ERR_FORBIDDEN. */
static int may_admin(request *r)
{
	if (project_ability_level(&r->project->pa) < ACCESS_MASTER)
		return ERR_FORBIDDEN;
	return ci_jobs_enabled(r);
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
	respond_json(r, status, entity_trigger(&r->ctx, res, 0, 0));
	return 0;
}

static int triggers_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = may_admin(r)) < 0)
		return rc;
	const char *v[3] = {r->project->id, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	return api_page(r, &pg, "triggers_list", 3, v, entity_trigger);
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
	const char *sealed;
	if (crypto_token_sealed(r->ctx.a, r->ctx.key, token, &sealed) < 0)
		return ERR_INTERNAL;
	const char *v[] = {[TI_PROJECT] = r->project->id,
			   [TI_OWNER] = api_caller_id(r),
			   [TI_DESCRIPTION] = param_str(r, "description"),
			   [TI_DIGEST] = crypto_sha256_hex(r->ctx.a, token, strlen(token)),
			   [TI_SEALED] = sealed};
	DB_PARAMS(v, TI_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx, "triggers_insert", TI_NPARAMS, v, &err);
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

/* GitLab 10 answers it 200 (status :ok), where its other POST routes answer 201. */
static int triggers_take_ownership(request *r)
{
	return update(r, NULL, api_caller_id(r), 200);
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

/* ---- invocation: POST /projects/:id/trigger/pipeline ---- */

/* The variables of an invocation as a JSON object {KEY: value}: `variables[KEY]=value`
 * of a form or query, or a JSON body's object `variables`. 0 with *out (an empty object
 * when none); 1 when it answered GitLab's 400 for a value that is no string; or an ERR_
 * code: ERR_INVALID for anything but a map ("variables is invalid") or too many of them,
 * ERR_VALIDATION for a key that breaks the rules of variable keys. */
static int trigger_variables(request *r, json_object **out)
{
	json_object *vars = request_own(r, json_object_new_object());
	*out = vars;
	bool strings = true;
	for (param *p = r->params; p; p = p->next) {
		size_t n = strlen(p->name);
		if (strcmp(p->name, "variables") == 0) {
			if (!p->value)
				continue; /* a JSON null: none */
			json_object *o = p->array ? NULL : json_tokener_parse(p->value);
			if (!o || !json_object_is_type(o, json_type_object)) {
				json_object_put(o);
				return fail_invalid(r, "variables");
			}
			json_object_object_foreach(o, k, v)
			{
				if (!json_object_is_type(v, json_type_string))
					strings = false;
				else
					json_object_object_add(vars, k, json_object_get(v));
			}
			json_object_put(o);
		} else if (strncmp(p->name, "variables[", 10) == 0 && n > 11 &&
			   p->name[n - 1] == ']') {
			const char *key = arena_strndup(r->ctx.a, p->name + 10, n - 11);
			json_object_object_add(vars, key,
					       json_object_new_string(p->value ? p->value : ""));
		}
	}
	if (!strings) {
		api_error(r, 400, "variables needs to be a map of key-valued strings");
		return 1;
	}
	/* as many as an array parameter may have: a bound no client meets */
	if (json_object_object_length(vars) > PARAM_ARRAY_MAX)
		return fail(r, ERR_INVALID, "variables has too many values");
	json_object_object_foreach(vars, key, val)
	{
		(void)val;
		variables_validate_key(r, key);
		if (r->validation) {
			r->validation = NULL;
			fail_validation(r, "variables", "is invalid");
			return ERR_VALIDATION;
		}
	}
	return 0;
}

static int check_invoke(request *r)
{
	if (!param_str(r, "ref"))
		return fail_missing(r, "ref");
	return param_str(r, "token") ? 0 : fail_missing(r, "token");
}

/* A trigger's token runs a pipeline of its project on ref, as its owner (GitLab 10's
 * PipelineTriggerService): no user authentication, the token is the credential, and a
 * token that is no trigger's, or one of another project than :id, is GitLab's 404
 * "404 Not Found". The owner must still be allowed to run it (developers and up, the
 * ref's protection); a trigger whose owner is gone runs as a developer would. The
 * request is recorded with its variables (ci_trigger_requests), the trigger's last_used
 * set, and the answer is the pipeline (201), or 400 {"message":{"base":[why]}} when
 * none is made. */
static int triggers_invoke(request *r)
{
	json_object *vars;
	int rc = trigger_variables(r, &vars);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *token = param_str(r, "token"), *ref = param_str(r, "ref");
	const char *v[2] = {crypto_sha256_hex(r->ctx.a, token, strlen(token)), param_str(r, "id")};
	int err;
	PGresult *t = db_query(&r->ctx, "triggers_by_token", 2, v, &err);
	if (!t)
		return err;
	if (PQntuples(t) == 0)
		return api_error(r, 404, "404 Not Found");
	/* GitLab's answer for a ref that is not there, before anything is recorded */
	if (!valid_ref_name(ref))
		return fail_validation(r, "base", "Reference not found");
	const char *project = db_val(t, 0, TK_PROJECT);
	bool owned = db_val(t, 0, TK_OWNER) != NULL, ok;
	int level = owned ? (int)db_int(t, 0, TK_LEVEL) : ACCESS_DEVELOPER;
	bool admin = owned && db_bool(t, 0, TK_ADMIN);
	if ((rc = ci_may_run_on_ref(&r->ctx, project, level, admin, ref, false, &ok)) < 0)
		return rc;
	if (!ok && (level >= ACCESS_DEVELOPER || admin))
		return fail_validation(r, "base",
				       arena_printf(r->ctx.a,
						    "Insufficient permissions"
						    " for protected ref '%s'",
						    ref));
	if (!ok)
		return fail_validation(r, "base",
				       "Insufficient permissions to create a new pipeline");
	/* the request, with the variables as given */
	const char *q[2] = {db_val(t, 0, TK_ID),
			    json_object_to_json_string_ext(vars, JSON_C_TO_STRING_PLAIN)};
	PGresult *req = db_query(&r->ctx, "triggers_request", 2, q, &err);
	if (!req)
		return err;
	json_object *list = request_own(r, json_object_new_array());
	json_object_object_foreach(vars, key, val)
	{
		json_object *e = json_object_new_object();
		json_object_object_add(e, "key", json_object_new_string(key));
		json_object_object_add(e, "value", json_object_get(val));
		json_object_array_add(list, e);
	}
	ci_pipeline_spec s = {
		.project_id = project,
		.ref = ref,
		.source = "trigger",
		.user_id = owned ? db_int(t, 0, TK_OWNER) : 0,
		.trigger_request_id = db_val(req, 0, 0),
		.variables = json_object_array_length(list) ? list : NULL,
	};
	long long id;
	const char *why = NULL;
	rc = ci_pipeline_create(&r->ctx, &s, &id, &why);
	if (rc == ERR_REFUSED)
		return fail_validation(r, "base", why ? why : "No pipeline created");
	if (rc < 0)
		return rc;
	const char *pv[1] = {arena_printf(r->ctx.a, "%lld", id)};
	PGresult *res = db_query(&r->ctx, "triggers_pipeline", 1, pv, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_INTERNAL;
	respond_json(r, 201, entity_pipeline(&r->ctx, res, 0, 0));
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
	/* the token is the credential: no user's is looked at */
	{"POST", V4 "/projects/:id/trigger/pipeline", triggers_invoke, ROUTE_NO_AUTH | TX,
	 check_invoke},
	{"POST", V4 "/projects/:id/ref/:ref/trigger/pipeline", triggers_invoke, ROUTE_NO_AUTH | TX,
	 check_invoke},
	{NULL, NULL, NULL, 0, NULL},
};
