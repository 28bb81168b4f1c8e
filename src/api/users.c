/* Users: GET/POST/PUT/DELETE /users, block/unblock, GET /user. */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api/api.h"
#include "db/settings.h"
#include "auth/auth.h"
#include "core/crypto.h"
#include "core/files.h"
#include "core/log.h"
#include "core/validate.h"
#include "db/queue.h"
#include "entity/entity.h"
#include "core/deps.h"
#include "entity/user.h"
#include "http/pagination.h"
#include "http/router.h"

/* The page's ids come from the primary key; the view's columns are computed only for
 * those rows, fetched one by one (LATERAL ... OFFSET 0), which stays the plan for any
 * LIMIT: statements run with generic plans (db.c). */
#define USERS_PAGE(ids, cols)                                                                      \
	" LEFT JOIN LATERAL (SELECT " cols " FROM (" ids ") pg CROSS JOIN LATERAL"                 \
	" (SELECT * FROM users WHERE id = pg.id OFFSET 0) u ORDER BY u.id DESC) p ON true"

/* USERS_LIST's custom attributes filter ($10) */
#define USERS_ATTRIBUTES_MATCH                                                                     \
	SQL_CUSTOM_ATTRIBUTES_MATCH("$10", "user_custom_attributes", "user_id", "u.id")

#define USERS_LIST(cols)                                                                                                                                 \
	"WITH f AS NOT MATERIALIZED (SELECT u.id FROM users u WHERE NOT u.ghost"                                                                         \
	" AND ($1::boolean IS NOT TRUE OR u.state = 'active')"                                                                                           \
	" AND ($2::boolean IS NOT TRUE OR u.state = 'blocked')"                                                                                          \
	" AND ($3::text IS NULL OR u.username ILIKE " SQL_LIKE("$3") " OR u.name ILIKE " SQL_LIKE("$3") " OR ($13::boolean AND u.email ILIKE " SQL_LIKE( \
		"$3") ") OR lower(u.email) = lower($3))"                                                                                                 \
		      " AND ($4::text IS NULL OR lower(u.username) = lower($4))"                                                                         \
		      " AND ($5::text IS NULL OR EXISTS (SELECT 1 FROM identities i WHERE i.user_id = u.id"                                              \
		      "      AND i.extern_uid = $5 AND i.provider = $6::text))"                                                                          \
		      " AND ($7::boolean IS NOT TRUE OR u.external)"                                                                                     \
		      " AND ($8::timestamptz IS NULL OR u.created_at < $8::timestamptz)"                                                                 \
		      " AND ($9::timestamptz IS NULL OR u.created_at > $9::timestamptz)"                                                                 \
		      " AND " USERS_ATTRIBUTES_MATCH ")"                                                                                                 \
		      "SELECT (SELECT count(*) FROM f), p.* FROM (SELECT 1) one" USERS_PAGE(                                                             \
			      "SELECT id FROM f ORDER BY id DESC LIMIT $11 OFFSET $12", cols)

/* No filter: the page from the index of live users, the total from the counter. */
#define USERS_LIST_ALL(cols)                                                                            \
	"SELECT (SELECT value FROM counters WHERE name = 'users'), p.* FROM (SELECT 1) one" USERS_PAGE( \
		"SELECT id FROM users WHERE NOT ghost ORDER BY id DESC LIMIT $1 OFFSET $2", cols)

/* USERS_LIST's parameters: the filters (before UL_LIMIT), the page, and whether the
 * caller is an admin (search matches email substrings only for admins; the custom
 * attributes, a jsonb object the user's must hold, are theirs only); USERS_LIST_ALL's
 * are the page's alone */
enum {
	UL_ACTIVE,
	UL_BLOCKED,
	UL_SEARCH,
	UL_USERNAME,
	UL_EXTERN_UID,
	UL_PROVIDER,
	UL_EXTERNAL,
	UL_CREATED_BEFORE,
	UL_CREATED_AFTER,
	UL_CUSTOM_ATTRIBUTES,
	UL_LIMIT,
	UL_OFFSET,
	UL_ADMIN,
	UL_NPARAMS
};
enum {
	UI_USERNAME,
	UI_EMAIL,
	UI_NAME,
	UI_PASSWORD_HASH,
	UI_SKYPE,
	UI_LINKEDIN,
	UI_TWITTER,
	UI_WEBSITE_URL,
	UI_ORGANIZATION,
	UI_PROJECTS_LIMIT,
	UI_BIO,
	UI_LOCATION,
	UI_ADMIN,
	UI_CAN_CREATE_GROUP,
	UI_CONFIRMED,
	UI_EXTERNAL,
	UI_NPARAMS
};
enum {
	UU_ID,
	UU_USERNAME,
	UU_EMAIL,
	UU_NAME,
	UU_PASSWORD_HASH,
	UU_SKYPE,
	UU_LINKEDIN,
	UU_TWITTER,
	UU_WEBSITE_URL,
	UU_ORGANIZATION,
	UU_PROJECTS_LIMIT,
	UU_BIO,
	UU_LOCATION,
	UU_ADMIN,
	UU_CAN_CREATE_GROUP,
	UU_EXTERNAL,
	UU_NPARAMS
};
enum { UUC_ID, UUC_OLD_USERNAME, UUC_USERNAME, UUC_NAME, UUC_NCOLS };
enum { ULT_ID, ULT_USERNAME, ULT_NCOLS };

const db_stmt users_stmts[] = {
	{"users_list", USERS_LIST(USER_COLS), UL_NPARAMS, 1 + USER_NCOLS},
	{"users_list_basic", USERS_LIST(USER_BASIC_COLS), UL_NPARAMS, 1 + USER_BASIC_NCOLS},
	/* No filter: $1 limit, $2 offset */
	{"users_list_all", USERS_LIST_ALL(USER_COLS), 2, 1 + USER_NCOLS},
	{"users_list_all_basic", USERS_LIST_ALL(USER_BASIC_COLS), 2, 1 + USER_BASIC_NCOLS},
	/* The caller (by token: $1 digest, $2 oauth) and the user $3 in one round trip. */
	{"users_show_auth",
	 "SELECT c.*, p.* FROM (SELECT 1) one"
	 " LEFT JOIN (SELECT " AUTH_LEAN " FROM " AUTH_FROM ") c ON true"
	 " LEFT JOIN LATERAL (SELECT " USER_COLS " FROM users u WHERE u.id = $3 AND NOT u.ghost) p"
	 " ON true",
	 3, AUTH_LEAN_NCOLS + USER_NCOLS},
	{"users_show", "SELECT " USER_COLS " FROM users u WHERE u.id = $1 AND NOT u.ghost", 1,
	 USER_NCOLS},
	/* Emails are stored in lower case, as Devise does (case_insensitive_keys). */
	{"users_insert",
	 "INSERT INTO users (username, email, name, password_hash, skype, linkedin, twitter,"
	 " website_url, organization, projects_limit, bio, location, is_admin, can_create_group,"
	 " confirmed_at, external) VALUES ($1, lower($2), $3, $4, coalesce($5, ''), coalesce($6, ''),"
	 " coalesce($7, ''), coalesce($8, ''), $9, coalesce($10::integer, 100000), $11, $12,"
	 " coalesce($13::boolean, false), coalesce($14::boolean, true),"
	 " CASE WHEN $15::boolean THEN now() END, coalesce($16::boolean, false)) RETURNING id",
	 UI_NPARAMS, 1},
	{"users_identity_upsert",
	 "INSERT INTO identities (user_id, provider, extern_uid) VALUES ($1, $2, $3)"
	 " ON CONFLICT (user_id, provider) DO UPDATE SET extern_uid = EXCLUDED.extern_uid",
	 3, 0},
	{"users_private_token_insert",
	 "INSERT INTO tokens (user_id, kind, name, digest, sealed) VALUES ($1, 'private', "
	 "'private_token', $2, $3)",
	 3, 0},
	{"users_private_token", "SELECT sealed FROM tokens WHERE user_id = $1 AND kind = 'private'",
	 1, 1},
	/* the new file name, and the one it replaces */
	{"users_set_avatar",
	 "UPDATE users u SET avatar = $2, updated_at = now()"
	 " FROM (SELECT id, avatar FROM users WHERE id = $1 FOR UPDATE) o WHERE u.id = o.id"
	 " RETURNING o.avatar",
	 2, 1},
	/* $1 id, then as users_insert without confirmed; NULL keeps the column */
	{"users_update",
	 "UPDATE users SET username = coalesce($2, username), email = coalesce(lower($3), email),"
	 " name = coalesce($4, name), password_hash = coalesce($5, password_hash),"
	 " password_expires_at = CASE WHEN $5 IS NULL THEN password_expires_at ELSE now() END,"
	 " skype = coalesce($6, skype), linkedin = coalesce($7, linkedin),"
	 " twitter = coalesce($8, twitter), website_url = coalesce($9, website_url),"
	 " organization = coalesce($10, organization),"
	 " projects_limit = coalesce($11::integer, projects_limit), bio = coalesce($12, bio),"
	 " location = coalesce($13, location), is_admin = coalesce($14::boolean, is_admin),"
	 " can_create_group = coalesce($15::boolean, can_create_group),"
	 " external = coalesce($16::boolean, external), updated_at = now()"
	 " FROM (SELECT username AS old_username FROM users WHERE id = $1 FOR UPDATE) o"
	 " WHERE id = $1 AND NOT ghost RETURNING id, o.old_username, username, name",
	 UU_NPARAMS, UUC_NCOLS},
	/* The user's own namespace: created with the user, renamed with it. */
	{"users_namespace_insert",
	 "INSERT INTO namespaces (id, kind, name, path, owner_id, full_path, full_name,"
	 " visibility, traversal_ids) SELECT n, 'user', u.username, u.username, u.id, u.username,"
	 " u.name, 20, ARRAY[n] FROM users u, nextval('namespaces_id_seq') n WHERE u.id = $1",
	 1, 0},
	{"users_namespace_update",
	 "UPDATE namespaces SET name = $2, path = $2, full_path = $2, full_name = $3,"
	 " updated_at = now() WHERE owner_id = $1 AND kind = 'user'",
	 3, 0},
	/* Personal projects go with their user; their repositories are removed later. */
	{"users_delete_projects",
	 "WITH p AS (DELETE FROM projects WHERE namespace_id IN (SELECT id FROM namespaces"
	 " WHERE owner_id = $1 AND kind = 'user') RETURNING id)"
	 "INSERT INTO background_jobs (kind, payload) SELECT 'remove_repository',"
	 " jsonb_build_object('project_id', p.id) FROM p",
	 1, 0},
	{"users_set_state",
	 "WITH u AS (SELECT id, state FROM users WHERE id = $1 AND NOT ghost FOR UPDATE),"
	 " c AS (UPDATE users SET state = $2, updated_at = now() FROM u"
	 "       WHERE users.id = u.id AND u.state <> $2 RETURNING users.id)"
	 "SELECT (SELECT count(*) FROM c) FROM u",
	 2, 1},
	/* Soft delete: the ghost user inherits the contributions. */
	{"users_ghost_ensure",
	 "INSERT INTO users (username, email, name, ghost, projects_limit, can_create_group)"
	 " SELECT 'ghost' || CASE WHEN EXISTS (SELECT 1 FROM users WHERE lower(username) = 'ghost')"
	 "   THEN (SELECT (max(id) + 1)::text FROM users) ELSE '' END,"
	 "   'ghost' || (SELECT coalesce(max(id), 0) + 1 FROM users) || '@ghost.invalid',"
	 "   'Ghost User', true, 0, false"
	 " WHERE NOT EXISTS (SELECT 1 FROM users WHERE ghost) ON CONFLICT DO NOTHING",
	 0, 0},
	{"users_lock_target",
	 "SELECT id, username FROM users WHERE id = $1 AND NOT ghost FOR UPDATE", 1, ULT_NCOLS},
	{"users_move_contributions",
	 "UPDATE events SET author_id = (SELECT id FROM users WHERE ghost ORDER BY id LIMIT 1)"
	 " WHERE author_id = $1",
	 1, 0},
	{"users_delete_contributions", "DELETE FROM events WHERE author_id = $1", 1, 0},
	{"users_delete", "DELETE FROM users WHERE id = $1 AND NOT ghost", 1, 0},
	{NULL, NULL, 0, 0},
};

static json_object *present_basic(ctx *c, const PGresult *res, int row, int col)
{
	return entity_user(c, res, row, col, USER_VIEW_BASIC);
}

static json_object *present_admin(ctx *c, const PGresult *res, int row, int col)
{
	return entity_user(c, res, row, col, USER_VIEW_ADMIN);
}

static int users_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	bool active = false, blocked = false, external = false;
	if ((rc = param_bool(r, "active", &active)) < 0 ||
	    (rc = param_bool(r, "blocked", &blocked)) < 0 ||
	    (rc = param_bool(r, "external", &external)) < 0)
		return rc;
	const char *before = NULL, *after = NULL;
	if ((rc = param_datetime(r, "created_before", &before)) < 0 ||
	    (rc = param_datetime(r, "created_after", &after)) < 0)
		return rc;
	const char *extern_uid = param_str(r, "extern_uid"), *provider = param_str(r, "provider");
	if (extern_uid && !provider)
		return fail_missing(r, "provider");
	if (provider && !extern_uid)
		return fail_missing(r, "extern_uid");
	/* Filters on identities and the external flag are for admins, as in GitLab. */
	if ((external || extern_uid) && !auth_is_admin(&r->ctx))
		return ERR_FORBIDDEN;
	const char *attr_filter;
	bool attrs;
	if ((rc = custom_attributes_filter(r, &attr_filter)) < 0 ||
	    (rc = custom_attributes_wanted(r, &attrs)) < 0)
		return rc;
	const char *v[] = {
		[UL_ACTIVE] = active ? "true" : NULL,
		[UL_BLOCKED] = blocked ? "true" : NULL,
		[UL_SEARCH] = param_str(r, "search"),
		[UL_USERNAME] = param_str(r, "username"),
		[UL_EXTERN_UID] = extern_uid,
		[UL_PROVIDER] = provider,
		[UL_EXTERNAL] = external ? "true" : NULL,
		[UL_CREATED_BEFORE] = before,
		[UL_CREATED_AFTER] = after,
		[UL_CUSTOM_ATTRIBUTES] = attr_filter,
		[UL_LIMIT] = pagination_limit(r, &pg),
		[UL_OFFSET] = pagination_offset(r, &pg),
		[UL_ADMIN] = auth_is_admin(&r->ctx) ? "true" : "false",
	};
	DB_PARAMS(v, UL_NPARAMS);
	_Static_assert(UL_OFFSET == UL_LIMIT + 1, "USERS_LIST_ALL's $1 and $2");
	entity_user_list_depend(&r->ctx);
	bool filtered = false;
	for (int i = 0; i < UL_LIMIT; i++)
		filtered = filtered || v[i];
	int err;
	bool admin = auth_is_admin(&r->ctx);
	PGresult *res = filtered ? db_query(&r->ctx, admin ? "users_list" : "users_list_basic",
					    UL_NPARAMS, v, &err)
				 : db_query(&r->ctx,
					    admin ? "users_list_all" : "users_list_all_basic", 2,
					    v + UL_LIMIT, &err);
	if (!res)
		return err;
	presenter_fn present = auth_is_admin(&r->ctx) ? present_admin : present_basic;
	if (attrs)
		return custom_attributes_respond_page(r, &pg, res, present, CA_USER, UC_ID);
	api_respond_page(r, &pg, res, present);
	return 0;
}

static int users_show(request *r)
{
	const char *id;
	int rc = api_id(r, "id", &id);
	if (rc < 0)
		return rc;
	PGresult *res;
	int col, err;
	if (!r->ctx.user && r->cred.token_digest) {
		/* authentication and the record in one statement */
		if ((rc = auth_query(&r->ctx, &r->cred, r->route->flags, "users_show_auth", id,
				     &res)) < 0)
			return rc;
		col = AUTH_LEAN_NCOLS;
	} else {
		const char *v[1] = {id};
		res = db_query(&r->ctx, "users_show", 1, v, &err);
		if (!res)
			return err;
		col = 0;
	}
	if (PQntuples(res) == 0 || PQgetisnull(res, 0, col + UC_ID))
		return fail_not_found(r, "User");
	enum user_view view = auth_is_admin(&r->ctx) ? USER_VIEW_ADMIN : USER_VIEW_SINGLE;
	json_object *o = entity_user(&r->ctx, res, 0, col, view);
	bool attrs;
	if ((rc = custom_attributes_wanted(r, &attrs)) < 0 ||
	    (attrs && (rc = custom_attributes_add(r, CA_USER, id, o)) < 0)) {
		json_object_put(o);
		return rc;
	}
	respond_json(r, 200, o);
	return 0;
}

static int present_user(request *r, const char *id, int status)
{
	const char *v[1] = {id};
	int err;
	PGresult *res = db_query(&r->ctx, "users_show", 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_not_found(r, "User");
	respond_json(r, status, entity_user(&r->ctx, res, 0, 0, USER_VIEW_ADMIN));
	return 0;
}

static int user_current(request *r)
{
	caller *c = r->ctx.user;
	json_object *o = entity_user(&r->ctx, c->res, c->row, c->col,
				     c->admin ? USER_VIEW_ADMIN : USER_VIEW_SELF);
	if (c->admin) {
		/* The authentication row carries the sealed token; after sudo, fetch it. */
		const char *sealed = NULL;
		if (!c->impersonated) {
			sealed = db_val(c->res, c->row, c->col + AUTH_COL_PRIVATE_TOKEN);
		} else {
			const char *v[1] = {arena_printf(r->ctx.a, "%lld", c->id)};
			int err;
			PGresult *res = db_query(&r->ctx, "users_private_token", 1, v, &err);
			if (!res) {
				json_object_put(o);
				return err;
			}
			sealed = PQntuples(res) ? db_val(res, 0, 0) : NULL;
		}
		json_put_str(o, "private_token", sealed ? deps_open_secret(&r->ctx, sealed) : NULL);
	}
	respond_json(r, 200, o);
	return 0;
}

#define AVATAR_MAX (200 * 1024)
/* A user's avatars, under the storage path; avatar_url is external_url/ this /name. */
#define AVATAR_DIR "uploads/-/system/user/avatar/%s"

/* An avatar is an image of at most 200 KB, as in GitLab: a file name with an image
 * extension, and bytes that are an image of one of those types whatever the name says
 * (a name is no type: nginx would send a.html.png cut to 100 characters as HTML). */
static void read_avatar(request *r, user_input *in)
{
	const char *data, *filename;
	size_t len;
	if (param_file(r, "avatar", &data, &len, &filename) != 0)
		return;
	const char *ext = strrchr(filename, '.');
	static const char *const images[] = {".png", ".jpg",  ".jpeg", ".gif",
					     ".bmp", ".tiff", ".ico"};
	bool image = false;
	for (size_t i = 0; ext && i < sizeof(images) / sizeof(*images); i++)
		image = image || strcasecmp(ext, images[i]) == 0;
	const char *type = files_image_type(data, len);
	if (!image || !type) {
		fail_validation(r, "avatar",
				"You are not allowed to upload this file type. Allowed types: png, "
				"jpg, jpeg, gif, bmp, tiff, ico");
		return;
	}
	if (len > AVATAR_MAX) {
		fail_validation(r, "avatar", "is too big (should be at most 200 KB)");
		return;
	}
	in->avatar = data;
	in->avatar_len = len;
	in->avatar_type = type;
}

/* Queues the removal of path (relative to the storage path) for when c's transaction
 * commits. 0 or an ERR_ code. */
static int remove_at_commit(ctx *c, const char *path)
{
	json_object *payload = json_object_new_object();
	json_object_object_add(payload, "path", json_object_new_string(path));
	int rc = queue_enqueue(c, JOB_REMOVE_PATH, json_object_to_json_string(payload));
	json_object_put(payload);
	return rc;
}

static void discard_file(void *path)
{
	if (unlink(path) < 0 && errno != ENOENT)
		log_warn("cannot remove avatar %s: %s", (const char *)path, strerror(errno));
}

/* Writes the avatar under a new random name with the extension of its type, records
 * it, and queues the removal of the file it replaces, inside the transaction; the file
 * is removed if the transaction rolls back. */
static int save_avatar(ctx *c, const char *id, const user_input *in)
{
	if (!in->avatar)
		return 0;
	char token[TOKEN_LEN + 1];
	if (crypto_token(token) < 0)
		return ERR_INTERNAL;
	const char *dir = arena_printf(c->a, AVATAR_DIR, id);
	const char *name = arena_printf(c->a, "%s.%s", token, in->avatar_type);
	const char *path = arena_printf(c->a, "%s/%s/%s", c->cfg->storage_path, dir, name);
	if (files_write(path, in->avatar, in->avatar_len) < 0) {
		log_error("cannot write avatar: %s", strerror(errno));
		return ERR_INTERNAL;
	}
	db_on_rollback(c, discard_file, (void *)path);
	const char *v[2] = {id, name};
	int err;
	PGresult *res = db_query(c, "users_set_avatar", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0 || PQgetisnull(res, 0, 0))
		return 0;
	return remove_at_commit(c, arena_printf(c->a, "%s/%s", dir, PQgetvalue(res, 0, 0)));
}

/* A unique violation as GitLab words it: ERR_CONFLICT with c->err_detail the message,
 * or a field's ERR_VALIDATION through problem. Any other err as it is. */
static int conflict_for(ctx *c, int err, user_problem_fn *problem, void *arg)
{
	if (err != ERR_CONFLICT)
		return err;
	const char *constraint = c->err_detail ? c->err_detail : "";
	c->err_detail = NULL;
	if (strcmp(constraint, "users_email_key") == 0)
		c->err_detail = "Email has already been taken";
	else if (strcmp(constraint, "users_username_key") == 0 ||
		 strcmp(constraint, "namespaces_full_path_key") == 0)
		c->err_detail = "Username has already been taken";
	else if (strncmp(constraint, "identities_", 11) == 0) {
		problem(arg, "extern_uid", "has already been taken");
		return ERR_VALIDATION;
	}
	return ERR_CONFLICT;
}

static int save_identity(ctx *c, const char *id, const user_input *in, user_problem_fn *problem,
			 void *arg)
{
	if (!in->extern_uid)
		return 0;
	const char *v[3] = {id, in->provider, in->extern_uid};
	int err;
	return db_query(c, "users_identity_upsert", 3, v, &err)
		       ? 0
		       : conflict_for(c, err, problem, arg);
}

/* A problem of a request's user fields goes to its 400 validation body. */
static void report_problem(void *r, const char *field, const char *message)
{
	fail_validation(r, field, message);
}

int users_check(ctx *c, user_input *in, bool create, user_problem_fn *problem, void *arg)
{
	int verr = 0;
	if (in->name && !*in->name) {
		problem(arg, "name", "can't be blank");
		verr = ERR_VALIDATION;
	}
	if (in->username && !valid_namespace_path(in->username)) {
		problem(arg, "username",
			"can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or "
			"end in '.', '.git' or '.atom'.");
		verr = ERR_VALIDATION;
	} else if (in->username && path_reserved_top_level(in->username)) {
		problem(arg, "username", arena_printf(c->a, "%s is a reserved name", in->username));
		verr = ERR_VALIDATION;
	}
	if (in->email && !valid_email(in->email)) {
		problem(arg, "email", "is invalid");
		verr = ERR_VALIDATION;
	}
	if (create && !in->password && !in->reset_password) {
		c->err_detail = "password, reset_password are missing, at least one parameter must "
				"be provided";
		return ERR_INVALID;
	}
	if (in->password && !in->reset_password) {
		size_t n = strlen(in->password);
		const char *why = n < 8     ? "is too short (minimum is 8 characters)"
				  : n > 128 ? "is too long (maximum is 128 characters)"
					    : NULL;
		if (why) {
			problem(arg, "password", why);
			verr = ERR_VALIDATION;
		} else if (!(in->password_hash = crypto_password_hash(c->a, in->password))) {
			return ERR_INTERNAL;
		}
	}
	return verr;
}

static const char *bool_text(request *r, const char *name, int *rc)
{
	bool b;
	int x = param_bool(r, name, &b);
	if (x < 0) {
		*rc = x;
		return NULL;
	}
	return x == 0 ? (b ? "true" : "false") : NULL;
}

static int read_user_input(request *r, user_input *in, bool create)
{
	memset(in, 0, sizeof(*in));
	int rc = 0;
	if (create) {
		const char *dummy;
		if ((rc = param_require(r, "email", &dummy)) < 0 ||
		    (rc = param_require(r, "username", &dummy)) < 0 ||
		    (rc = param_require(r, "name", &dummy)) < 0)
			return rc;
	}
	in->admin = bool_text(r, "admin", &rc);
	if (rc < 0)
		return rc;
	in->can_create_group = bool_text(r, "can_create_group", &rc);
	if (rc < 0)
		return rc;
	in->external = bool_text(r, "external", &rc);
	if (rc < 0)
		return rc;
	long long limit;
	int x = param_int(r, "projects_limit", &limit);
	if (x < 0)
		return x;
	if (x == 0) {
		if (limit < 0 || limit > 2147483647LL)
			fail_validation(r, "projects_limit", "must be greater than or equal to 0");
		in->projects_limit = param_str(r, "projects_limit");
	}
	int verr = 0;
	static const char *texts[] = {"skype",       "linkedin",     "twitter",
				      "website_url", "organization", "bio",
				      "location",    "extern_uid",   "provider"};
	const char **slots[] = {&in->skype,       &in->linkedin,     &in->twitter,
				&in->website_url, &in->organization, &in->bio,
				&in->location,    &in->extern_uid,   &in->provider};
	for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++)
		if (param_text(r, texts[i], 255, slots[i]) == ERR_VALIDATION)
			verr = ERR_VALIDATION;
	bool name_ok = param_text(r, "name", 255, &in->name) != ERR_VALIDATION;
	if (!name_ok)
		verr = ERR_VALIDATION;
	in->username = param_str(r, "username");
	in->email = param_str(r, "email");
	in->password = param_str(r, "password");
	if ((x = param_bool(r, "reset_password", &in->reset_password)) < 0)
		return x;
	/* a name too long is not also blank */
	const char *name = in->name;
	if (!name_ok)
		in->name = NULL;
	x = users_check(&r->ctx, in, create, report_problem, r);
	in->name = name;
	if (x < 0 && x != ERR_VALIDATION)
		return x;
	read_avatar(r, in);
	if ((in->extern_uid == NULL) != (in->provider == NULL))
		return fail_missing(r, in->extern_uid ? "provider" : "extern_uid");
	if (r->validation)
		return ERR_VALIDATION;
	return verr;
}

int users_insert(ctx *c, const user_input *in, bool confirmed, user_problem_fn *problem, void *arg,
		 const char **id_out)
{
	char token[TOKEN_LEN + 1];
	const char *sealed;
	if (crypto_token_sealed(c->a, c->key, token, &sealed) < 0)
		return ERR_INTERNAL;
	/* what is not given: the application settings' defaults for new users */
	const char *limit = in->projects_limit;
	if (!limit)
		limit = arena_printf(c->a, "%ld", settings_default_projects_limit(c));
	const char *external = in->external;
	if (!external)
		external = settings_user_default_external(c) ? "true" : "false";
	const char *v[UI_NPARAMS] = {
		[UI_USERNAME] = in->username,
		[UI_EMAIL] = in->email,
		[UI_NAME] = in->name,
		[UI_PASSWORD_HASH] = in->password_hash,
		[UI_SKYPE] = in->skype,
		[UI_LINKEDIN] = in->linkedin,
		[UI_TWITTER] = in->twitter,
		[UI_WEBSITE_URL] = in->website_url,
		[UI_ORGANIZATION] = in->organization,
		[UI_PROJECTS_LIMIT] = limit,
		[UI_BIO] = in->bio,
		[UI_LOCATION] = in->location,
		[UI_ADMIN] = in->admin,
		[UI_CAN_CREATE_GROUP] = in->can_create_group,
		[UI_CONFIRMED] = confirmed ? "true" : "false",
		[UI_EXTERNAL] = external,
	};
	int err, rc;
	PGresult *res = db_query(c, "users_insert", UI_NPARAMS, v, &err);
	if (!res)
		return conflict_for(c, err, problem, arg);
	const char *id = arena_strdup(c->a, PQgetvalue(res, 0, 0));
	const char *nv[1] = {id};
	if (!db_query(c, "users_namespace_insert", 1, nv, &err))
		return conflict_for(c, err, problem, arg);
	if ((rc = save_identity(c, id, in, problem, arg)) < 0 || (rc = save_avatar(c, id, in)) < 0)
		return rc;
	const char *tv[3] = {id, crypto_sha256_hex(c->a, token, strlen(token)), sealed};
	if (!db_query(c, "users_private_token_insert", 3, tv, &err))
		return err;
	*id_out = id;
	return 0;
}

static int users_create(request *r)
{
	user_input in;
	int rc = read_user_input(r, &in, true);
	if (rc < 0)
		return rc;
	bool skip = false;
	if ((rc = param_bool(r, "skip_confirmation", &skip)) < 0)
		return rc;
	const char *id;
	if ((rc = users_insert(&r->ctx, &in, skip, report_problem, r, &id)) < 0 ||
	    (rc = hooks_system_user(&r->ctx, "user_create", id)) < 0)
		return rc;
	return present_user(r, id, 201);
}

static int users_update(request *r)
{
	const char *id;
	int rc = api_id(r, "id", &id);
	if (rc < 0)
		return rc;
	user_input in;
	if ((rc = read_user_input(r, &in, false)) < 0)
		return rc;
	const char *v[] = {[UU_ID] = id,
			   [UU_USERNAME] = in.username,
			   [UU_EMAIL] = in.email,
			   [UU_NAME] = in.name,
			   [UU_PASSWORD_HASH] = in.password_hash,
			   [UU_SKYPE] = in.skype,
			   [UU_LINKEDIN] = in.linkedin,
			   [UU_TWITTER] = in.twitter,
			   [UU_WEBSITE_URL] = in.website_url,
			   [UU_ORGANIZATION] = in.organization,
			   [UU_PROJECTS_LIMIT] = in.projects_limit,
			   [UU_BIO] = in.bio,
			   [UU_LOCATION] = in.location,
			   [UU_ADMIN] = in.admin,
			   [UU_CAN_CREATE_GROUP] = in.can_create_group,
			   [UU_EXTERNAL] = in.external};
	DB_PARAMS(v, UU_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx, "users_update", UU_NPARAMS, v, &err);
	if (!res)
		return conflict_for(&r->ctx, err, report_problem, r);
	if (PQntuples(res) == 0)
		return fail_not_found(r, "User");
	const char *new_name = arena_strdup(r->ctx.a, PQgetvalue(res, 0, UUC_USERNAME));
	const char *nv[3] = {id, new_name, PQgetvalue(res, 0, UUC_NAME)};
	if (!db_query(&r->ctx, "users_namespace_update", 3, nv, &err))
		return conflict_for(&r->ctx, err, report_problem, r);
	if ((rc = save_identity(&r->ctx, id, &in, report_problem, r)) < 0 ||
	    (rc = save_avatar(&r->ctx, id, &in)) < 0)
		return rc;
	/* repositories are stored by project id: a new username moves nothing on disk */
	return present_user(r, id, 200);
}

static int users_delete(request *r)
{
	const char *id;
	int rc = api_id(r, "id", &id);
	if (rc < 0)
		return rc;
	bool hard = false;
	if ((rc = param_bool(r, "hard_delete", &hard)) < 0)
		return rc;
	const char *v[1] = {id};
	PGresult *res;
	if ((rc = api_find(r, "users_lock_target", 1, v, "User", &res)) < 0 ||
	    (rc = hooks_system_user(&r->ctx, "user_destroy", id)) < 0)
		return rc;
	int err = 0;
	if (!db_query(&r->ctx, "users_delete_projects", 1, v, &err))
		return err;
	if (hard) {
		/* as GitLab's DeleteUserService: the groups they own alone go too */
		if ((err = groups_delete_solely_owned(r, id)) < 0 ||
		    !db_query(&r->ctx, "users_delete_contributions", 1, v, &err))
			return err;
	} else if (!db_query(&r->ctx, "users_ghost_ensure", 0, NULL, &err) ||
		   !db_query(&r->ctx, "users_move_contributions", 1, v, &err)) {
		return err;
	}
	/* the avatars go with the user, once this commits */
	if (!db_query(&r->ctx, "users_delete", 1, v, &err) ||
	    (err = remove_at_commit(&r->ctx, arena_printf(r->ctx.a, AVATAR_DIR, id))) < 0)
		return err;
	respond_empty(r, 204);
	return 0;
}

static int set_state(request *r, const char *state)
{
	const char *id;
	int rc = api_id(r, "id", &id);
	if (rc < 0)
		return rc;
	const char *v[2] = {id, state};
	PGresult *res;
	if ((rc = api_find(r, "users_set_state", 2, v, "User", &res)) < 0)
		return rc;
	/* GitLab answers the state machine's result: true when the state changed. */
	respond_json(r, 201, json_object_new_boolean(db_int(res, 0, 0) > 0));
	return 0;
}

static int users_block(request *r)
{
	return set_state(r, "blocked");
}

static int users_unblock(request *r)
{
	return set_state(r, "active");
}

/* The module's routes (http/router.h), in the order they are matched. */
const route users_routes[] = {
	{"GET", V4 "/users", users_list, AUTH | RU | ROUTE_CACHE, NULL},
	{"GET", V4 "/users/:id", users_show, AUTH | RU | ROUTE_SELF_AUTH | ROUTE_CACHE, NULL},
	{"POST", V4 "/users", users_create, ADMIN | TX, NULL},
	{"PUT", V4 "/users/:id", users_update, ADMIN | TX, NULL},
	{"DELETE", V4 "/users/:id", users_delete, ADMIN | TX, NULL},
	{"GET", V4 "/user", user_current, AUTH | RU | ROUTE_CALLER_RECORD | ROUTE_CACHE, NULL},
	{"POST", V4 "/users/:id/block", users_block, ADMIN, NULL},
	{"POST", V4 "/users/:id/unblock", users_unblock, ADMIN, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
