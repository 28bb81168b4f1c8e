/* Deploy keys (GitLab 10.8's lib/api/deploy_keys.rb): every deploy key for admins, and a
 * project's for those who administer it (masters and up, admins: 403 to the others who
 * see the project). A deploy key is a row of keys without a user (sql/0044), enabled on
 * projects through deploy_keys_projects, which holds can_push. What a key may do over
 * git is auth/access.h's can_git_deploy_key (collabd shell and hook).
 *
 * As 10.8: a key added to a project where it already is comes back as it is; a key
 * already enabled on a project the caller is authorized on (any level) is enabled here
 * too (User#accessible_deploy_keys); any other key whose fingerprint is taken, by a
 * user's key or a deploy key the caller cannot reach, is the 400 "has already been
 * taken". A key that is not on the project is 10.8's RecordNotFound ("404 Not found"),
 * but for enable, whose key must be one the caller can reach ("404 Deploy Key Not
 * Found"). DELETE takes the key off the project, and a key off its last project is
 * deleted (sql/0044, as 10.8 documents it; its code deleted the key from every project). */
#include <string.h>

#include "api/api.h"
#include "core/sshkey.h"
#include "entity/key.h"
#include "http/pagination.h"

/* A deploy key reachable by $1 (user id): enabled on a project they are authorized on
 * (project_authorizations, any level), as 10.8's User#project_deploy_keys. */
#define ACCESSIBLE(K)                                                                              \
	"EXISTS (SELECT 1 FROM deploy_keys_projects ad JOIN project_authorizations pa"             \
	" ON pa.project_id = ad.project_id AND pa.user_id = $1 AND pa.expires_at > current_date"   \
	" WHERE ad.deploy_key_id = " K ".id)"

enum { DF_ID, DF_LINKED, DF_ACCESSIBLE, DF_NCOLS };
enum { DI_PROJECT, DI_TITLE, DI_KEY, DI_FINGERPRINT, DI_CAN_PUSH, DI_CREATOR, DI_NPARAMS };

const db_stmt deploy_keys_stmts[] = {
	/* $1 limit, $2 offset */
	{"deploy_keys_all",
	 "SELECT (SELECT count(*) FROM keys WHERE deploy), x.* FROM (SELECT 1) one"
	 " LEFT JOIN LATERAL (SELECT " KEY_COLS " FROM keys k WHERE k.deploy ORDER BY k.id"
	 " LIMIT $1 OFFSET $2) x ON true",
	 2, 1 + KEY_NCOLS},
	/* $1 project, $2 limit, $3 offset */
	{"deploy_keys_list",
	 "SELECT (SELECT count(*) FROM deploy_keys_projects WHERE project_id = $1), x.*"
	 " FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " DEPLOY_KEY_COLS
	 " FROM deploy_keys_projects dk JOIN keys k ON k.id = dk.deploy_key_id"
	 " WHERE dk.project_id = $1 ORDER BY dk.id LIMIT $2 OFFSET $3) x ON true",
	 3, 1 + DEPLOY_KEY_NCOLS},
	/* $1 project, $2 key */
	{"deploy_keys_show",
	 "SELECT " DEPLOY_KEY_COLS " FROM deploy_keys_projects dk JOIN keys k"
	 " ON k.id = dk.deploy_key_id WHERE dk.project_id = $1 AND dk.deploy_key_id = $2",
	 2, DEPLOY_KEY_NCOLS},
	/* $1 caller, $2 project, $3 the key's text: the deploy key with that text, whether
	 * it is on the project, whether the caller reaches it. Both lookups lock the key FOR
	 * KEY SHARE until the route's transaction ends: a key taken off its last project at
	 * the same moment (sql/0044's trigger locks it FOR UPDATE) is then either gone
	 * before, or sees the link made here. */
	{"deploy_keys_find_text",
	 "SELECT k.id, EXISTS (SELECT 1 FROM deploy_keys_projects d WHERE d.deploy_key_id = k.id"
	 " AND d.project_id = $2), " ACCESSIBLE("k") " FROM keys k WHERE k.deploy AND k.key = $3"
						     " FOR KEY SHARE OF k",
	 3, DF_NCOLS},
	/* $1 caller, $2 key id: the key when the caller reaches it */
	{"deploy_keys_accessible",
	 "SELECT " KEY_COLS
	 " FROM keys k WHERE k.id = $2 AND k.deploy AND " ACCESSIBLE("k") " FOR KEY SHARE OF k",
	 2, KEY_NCOLS},
	/* $1 project, $2 key, $3 can_push: the key enabled on the project (no change when it
	 * already is) */
	{"deploy_keys_link",
	 "INSERT INTO deploy_keys_projects (project_id, deploy_key_id, can_push)"
	 " VALUES ($1, $2, $3) ON CONFLICT (project_id, deploy_key_id) DO NOTHING",
	 3, 0},
	/* a new key and its link (enum DI_*) */
	{"deploy_keys_insert",
	 "WITH k AS (INSERT INTO keys (title, key, fingerprint, deploy, creator_id)"
	 " VALUES ($2, $3, $4, true, $6) RETURNING *),"
	 " dk AS (INSERT INTO deploy_keys_projects (project_id, deploy_key_id, can_push)"
	 " SELECT $1, k.id, $5 FROM k RETURNING *)"
	 " SELECT " DEPLOY_KEY_COLS " FROM k, dk",
	 DI_NPARAMS, DEPLOY_KEY_NCOLS},
	/* $1 project, $2 key, $3 can_push or NULL */
	{"deploy_keys_update_link",
	 "UPDATE deploy_keys_projects SET can_push = coalesce($3::boolean, can_push),"
	 " updated_at = now() WHERE project_id = $1 AND deploy_key_id = $2 RETURNING id",
	 3, 1},
	/* $1 title, $2 key: a key's title is the same on every project */
	{"deploy_keys_update_title",
	 "UPDATE keys SET title = $1, updated_at = now() WHERE id = $2 AND deploy", 2, 0},
	/* $1 project, $2 key */
	{"deploy_keys_unlink",
	 "DELETE FROM deploy_keys_projects WHERE project_id = $1 AND deploy_key_id = $2"
	 " RETURNING id",
	 2, 1},
	{NULL, NULL, 0, 0},
};

/* authorize_admin_project: 0 or ERR_FORBIDDEN. */
static int may_admin(request *r)
{
	return can_update_project(&r->project->pa) ? 0 : ERR_FORBIDDEN;
}

static int check_key_id(request *r)
{
	const char *id;
	return api_id(r, "key_id", &id);
}

static int deploy_keys_all(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	const char *v[2] = {pagination_limit(r, &pg), pagination_offset(r, &pg)};
	return api_page(r, &pg, "deploy_keys_all", 2, v, entity_key);
}

static int deploy_keys_list(request *r)
{
	page_req pg;
	int rc = may_admin(r);
	if (rc < 0 || (rc = pagination_parse(r, &pg)) < 0)
		return rc;
	const char *v[3] = {r->project->id, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	return api_page(r, &pg, "deploy_keys_list", 3, v, entity_deploy_key);
}

/* Answers status with key_id as the route's project has it. */
static int present(request *r, const char *key_id, int status)
{
	const char *v[2] = {r->project->id, key_id};
	PGresult *res;
	int rc = api_find(r, "deploy_keys_show", 2, v, NULL, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	respond_json(r, status, entity_deploy_key(&r->ctx, res, 0, 0));
	return 0;
}

static int deploy_keys_show(request *r)
{
	int rc = may_admin(r);
	return rc < 0 ? rc : present(r, param_str(r, "key_id"), 200);
}

static int check_create(request *r)
{
	const char *s;
	int rc;
	if ((rc = param_require(r, "key", &s)) < 0 || (rc = param_require(r, "title", &s)) < 0)
		return rc;
	bool b;
	return param_bool(r, "can_push", &b) < 0 ? fail_invalid(r, "can_push") : 0;
}

static int deploy_keys_create(request *r)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	const char *title, *text = param_str(r, "key");
	bool push = false;
	(void)param_bool(r, "can_push", &push);
	const char *can_push = push ? "true" : "false";
	param_text(r, "title", 255, &title);
	if (strlen(text) > 16384)
		fail_validation(r, "deploy_key.key", "is too long (maximum is 16384 characters)");
	sshkey k;
	if (!r->validation && sshkey_parse(r->ctx.a, text, &k) < 0) {
		fail_validation(r, "deploy_key.key", "is invalid");
		fail_validation(r, "deploy_key.fingerprint", "cannot be generated");
	}
	if (r->validation)
		return ERR_VALIDATION;
	/* the same key on this project, or one the caller reaches on another (10.8 compares
	 * the key's text, which both sides hold normalised) */
	const char *fv[3] = {api_caller_id(r), r->project->id, k.normalized};
	int err;
	PGresult *res = db_query(&r->ctx, "deploy_keys_find_text", 3, fv, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 1 && (db_bool(res, 0, DF_LINKED) || db_bool(res, 0, DF_ACCESSIBLE))) {
		const char *id = PQgetvalue(res, 0, DF_ID);
		if (!db_bool(res, 0, DF_LINKED)) {
			const char *lv[3] = {r->project->id, id, can_push};
			if (!db_query(&r->ctx, "deploy_keys_link", 3, lv, &err))
				return err;
		}
		return present(r, id, 201);
	}
	const char *v[DI_NPARAMS] = {
		[DI_PROJECT] = r->project->id, [DI_TITLE] = title,
		[DI_KEY] = k.normalized,       [DI_FINGERPRINT] = k.fingerprint,
		[DI_CAN_PUSH] = can_push,      [DI_CREATOR] = api_caller_id(r),
	};
	res = db_query(&r->ctx, "deploy_keys_insert", DI_NPARAMS, v, &err);
	if (!res) {
		if (err != ERR_CONFLICT)
			return err;
		r->ctx.err_detail = NULL;
		return fail_validation(r, "deploy_key.fingerprint", "has already been taken");
	}
	respond_json(r, 201, entity_deploy_key(&r->ctx, res, 0, 0));
	return 0;
}

static int check_update(request *r)
{
	int rc = check_key_id(r);
	if (rc < 0)
		return rc;
	bool b;
	if (param_bool(r, "can_push", &b) < 0)
		return fail_invalid(r, "can_push");
	if (!param_find(r, "title") && !param_find(r, "can_push"))
		return fail(r, ERR_INVALID,
			    "title, can_push are missing, at least one parameter must be provided");
	return 0;
}

static int deploy_keys_update(request *r)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	const char *key_id = param_str(r, "key_id"), *title = NULL, *can_push = NULL;
	bool push;
	if (param_bool(r, "can_push", &push) == 0)
		can_push = push ? "true" : "false";
	if (param_text(r, "title", 255, &title) == 0 && !*title)
		fail_validation(r, "deploy_key.title", "can't be blank");
	if (r->validation)
		return ERR_VALIDATION;
	const char *v[3] = {r->project->id, key_id, can_push};
	PGresult *res;
	if ((rc = api_find(r, "deploy_keys_update_link", 3, v, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	int err;
	const char *tv[2] = {title, key_id};
	if (title && !db_query(&r->ctx, "deploy_keys_update_title", 2, tv, &err))
		return err;
	return present(r, key_id, 200);
}

static int deploy_keys_enable(request *r)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	const char *v[2] = {api_caller_id(r), param_str(r, "key_id")};
	PGresult *res;
	if ((rc = api_find(r, "deploy_keys_accessible", 2, v, "Deploy Key", &res)) < 0)
		return rc;
	const char *lv[3] = {r->project->id, v[1], "false"};
	int err;
	if (!db_query(&r->ctx, "deploy_keys_link", 3, lv, &err))
		return err;
	respond_json(r, 201, entity_key(&r->ctx, res, 0, 0));
	return 0;
}

static int deploy_keys_delete(request *r)
{
	int rc = may_admin(r);
	if (rc < 0)
		return rc;
	const char *v[2] = {r->project->id, param_str(r, "key_id")};
	PGresult *res;
	if ((rc = api_find(r, "deploy_keys_unlink", 2, v, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_empty(r, 204);
	return 0;
}

#define DK V4 "/projects/:id/deploy_keys"

/* The module's routes (http/router.h), in the order they are matched. */
const route deploy_keys_routes[] = {
	{"GET", V4 "/deploy_keys", deploy_keys_all, ADMIN, NULL},
	{"GET", DK, deploy_keys_list, AUTH | PR, NULL},
	{"GET", DK "/:key_id", deploy_keys_show, AUTH | PR, check_key_id},
	{"POST", DK, deploy_keys_create, AUTH | PA, check_create},
	{"PUT", DK "/:key_id", deploy_keys_update, AUTH | PA, check_update},
	{"POST", DK "/:key_id/enable", deploy_keys_enable, AUTH | PA, check_key_id},
	{"DELETE", DK "/:key_id", deploy_keys_delete, AUTH | PA, check_key_id},
	{NULL, NULL, NULL, 0, NULL},
};
