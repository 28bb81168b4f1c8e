/* Snippets of users (GitLab 10.8's lib/api/snippets.rb, Entities::PersonalSnippet):
 * the caller's own list, the public list, show, raw, create, update, delete, and the
 * user agent detail for admins. Personal snippets are the rows of snippets without a
 * project. Every route needs a signed-in caller (10.8's authenticate!). Who reads one
 * is 10.8's PersonalSnippetPolicy: a public snippet anyone, an internal one any user
 * who is not external, a private one its author; admins all. Its author and admins
 * change and remove it; external users create none. Also the user agent details of
 * issues and snippets that the issue and snippet modules record and show. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "db/access.h"
#include "db/settings.h"
#include "entity/entity.h"
#include "entity/snippet.h"
#include "entity/user_agent_detail.h"

/* Personal snippet s may be read by the caller (`me`). */
#define SQL_PERSONAL_SNIPPET_VISIBLE                                                               \
	"(s.visibility = 20 OR (s.visibility = 10 AND me.id IS NOT NULL AND NOT me.external)"      \
	" OR me.admin OR s.author_id = me.id)"

/* The list statements: $1..$3 the caller (SQL_ME), then limit and offset. */
enum { UL_LIMIT = ME_NPARAMS, UL_OFFSET, UL_NPARAMS };
enum { US_ID = ME_NPARAMS, US_NPARAMS };
enum { USHOW_AUTHOR = PERSONAL_SNIPPET_NCOLS, USHOW_CONTENT, USHOW_VISIBILITY, USHOW_NCOLS };
enum { UA_TYPE, UA_ID, UA_USER_AGENT, UA_IP, UA_NPARAMS };

/* A page of the personal snippets that WHERE (of s and me) picks, newest first
 * (10.8's Snippet.fresh). */
#define PERSONAL_SNIPPETS_PAGE(WHERE)                                                              \
	"WITH " SQL_ME ", f AS (SELECT s.id FROM snippets s, me WHERE s.project_id IS NULL"        \
	" AND " WHERE ")"                                                                          \
	" SELECT (SELECT count(*) FROM f), x.* FROM (SELECT 1) one LEFT JOIN LATERAL"              \
	" (SELECT " PERSONAL_SNIPPET_COLS " FROM " PERSONAL_SNIPPET_FROM                           \
	" WHERE s.id IN (SELECT id FROM f)"                                                        \
	" ORDER BY s.created_at DESC, s.id DESC LIMIT $4 OFFSET $5) x ON true"

const db_stmt user_snippets_stmts[] = {
	{"user_snippets_mine", PERSONAL_SNIPPETS_PAGE("s.author_id = me.id"), UL_NPARAMS,
	 1 + PERSONAL_SNIPPET_NCOLS},
	{"user_snippets_public", PERSONAL_SNIPPETS_PAGE("s.visibility = 20"), UL_NPARAMS,
	 1 + PERSONAL_SNIPPET_NCOLS},
	/* $1..$3 the caller, $4 the snippet: when the caller may read it, with its
	 * author's id, its content and its visibility */
	{"user_snippets_show",
	 "WITH " SQL_ME " SELECT " PERSONAL_SNIPPET_COLS ", s.author_id, s.content, s.visibility"
	 " FROM " PERSONAL_SNIPPET_FROM ", me"
	 " WHERE s.id = $4 AND s.project_id IS NULL AND " SQL_PERSONAL_SNIPPET_VISIBLE,
	 US_NPARAMS, USHOW_NCOLS},
	/* any snippet, a project's too (10.8's Snippet.find_by!), with its detail */
	{"user_snippets_user_agent_detail",
	 "SELECT s.id, " USER_AGENT_DETAIL_COLS
	 " FROM snippets s" USER_AGENT_DETAIL_JOIN("Snippet", "s.id") " WHERE s.id = $1",
	 1, 1 + USER_AGENT_DETAIL_NCOLS},
	/* one per record: a second create of the same record keeps the first */
	{"user_agent_details_insert",
	 "INSERT INTO user_agent_details (subject_type, subject_id, user_agent, ip_address)"
	 " VALUES ($1, $2, $3, $4) ON CONFLICT (subject_type, subject_id) DO NOTHING",
	 UA_NPARAMS, 0},
	{NULL, NULL, 0, 0},
};

/* ---- user agent details (api.h) ---- */

int user_agent_record(request *r, const char *type, const char *id)
{
	/* 10.8's UserAgentDetail requires both: without them it keeps none */
	const char *agent = request_header(r, "HTTP_USER_AGENT");
	const char *ip = request_header(r, "REMOTE_ADDR");
	if (!agent || !*agent || !ip || !*ip)
		return 0;
	const char *v[] = {[UA_TYPE] = type, [UA_ID] = id, [UA_USER_AGENT] = agent, [UA_IP] = ip};
	DB_PARAMS(v, UA_NPARAMS);
	int err;
	return db_query(&r->ctx, "user_agent_details_insert", UA_NPARAMS, v, &err) ? 0 : err;
}

int user_agent_respond(request *r, const PGresult *res, int col)
{
	if (PQgetisnull(res, 0, col))
		return fail_not_found(r, "UserAgentDetail");
	respond_json(r, 200, entity_user_agent_detail(&r->ctx, res, 0, col));
	return 0;
}

/* ---- helpers ---- */

/* The personal snippet id when the caller may read it: 0 with its row (USHOW_NCOLS);
 * when none, api_find's answer for what (GitLab 10.8 finds with find in show: "404 Not
 * found", 1; elsewhere it answers not_found!('Snippet')). */
static int find_snippet_as(request *r, const char *id, const char *what, PGresult **out)
{
	const char *v[US_NPARAMS];
	access_me_params(&r->ctx, v);
	v[US_ID] = id;
	return api_find(r, "user_snippets_show", US_NPARAMS, v, what, out);
}

static int find_snippet_id(request *r, const char *id, PGresult **out)
{
	return find_snippet_as(r, id, "Snippet", out);
}

static int find_snippet(request *r, PGresult **out)
{
	const char *id;
	int rc = api_id(r, "id", &id);
	return rc < 0 ? rc : find_snippet_id(r, id, out);
}

/* find_snippet for a change: ERR_FORBIDDEN unless the caller is its author or an
 * admin (update_personal_snippet, destroy_personal_snippet). */
static int find_own_snippet(request *r, PGresult **out)
{
	int rc = find_snippet(r, out);
	if (rc < 0)
		return rc;
	return API_CALLER_ADMIN(r) || db_int(*out, 0, USHOW_AUTHOR) == r->ctx.user->id
		       ? 0
		       : ERR_FORBIDDEN;
}

static int present(request *r, const char *id, int status)
{
	PGresult *res;
	int rc = find_snippet_id(r, id, &res);
	if (rc < 0)
		return rc;
	respond_json(r, status, entity_personal_snippet(&r->ctx, res, 0, 0));
	return 0;
}

static int list(request *r, const char *stmt)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	const char *v[UL_NPARAMS];
	access_me_params(&r->ctx, v);
	v[UL_LIMIT] = pagination_limit(r, &pg);
	v[UL_OFFSET] = pagination_offset(r, &pg);
	return api_page(r, &pg, stmt, UL_NPARAMS, v, entity_personal_snippet);
}

/* ---- routes ---- */

static int user_snippets_mine(request *r)
{
	return list(r, "user_snippets_mine");
}

static int user_snippets_public(request *r)
{
	return list(r, "user_snippets_public");
}

static int user_snippets_check_id(request *r)
{
	const char *id;
	return api_id(r, "id", &id);
}

static int user_snippets_show(request *r)
{
	const char *id;
	PGresult *res;
	int rc = api_id(r, "id", &id);
	if (rc < 0 || (rc = find_snippet_as(r, id, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_json(r, 200, entity_personal_snippet(&r->ctx, res, 0, 0));
	return 0;
}

static int user_snippets_raw(request *r)
{
	PGresult *res;
	int rc = find_snippet(r, &res);
	if (rc < 0)
		return rc;
	snippet_respond_raw(r, res, USHOW_CONTENT);
	return 0;
}

static int user_snippets_check_create(request *r)
{
	return snippet_check_create(r, false);
}

static int user_snippets_create(request *r)
{
	/* create_personal_snippet: not for external users */
	if (r->ctx.user->external && !API_CALLER_ADMIN(r))
		return ERR_FORBIDDEN;
	const char *title, *file_name, *content, *visibility;
	int rc = snippet_input(r, false, &title, &file_name, &content, &visibility);
	if (rc < 0)
		return rc;
	if (!*content)
		fail_validation(r, "content", "can't be blank");
	int level = visibility ? atoi(visibility) : settings_default_snippet_visibility(&r->ctx);
	if (!visibility)
		visibility = arena_printf(r->ctx.a, "%d", level);
	settings_refuse_visibility(r, API_CALLER_ADMIN(r), level);
	if (r->validation)
		return ERR_VALIDATION;
	const char *id;
	if ((rc = snippet_insert(r, NULL, title, file_name, content, visibility, &id)) < 0)
		return rc;
	return present(r, id, 201);
}

static int user_snippets_check_update(request *r)
{
	return snippet_check_update(r, false);
}

static int user_snippets_update(request *r)
{
	PGresult *res;
	int rc = find_own_snippet(r, &res);
	if (rc < 0)
		return rc;
	const char *title, *file_name, *content, *visibility;
	if ((rc = snippet_input(r, false, &title, &file_name, &content, &visibility)) < 0)
		return rc;
	if (content && !*content)
		fail_validation(r, "content", "can't be blank");
	if (visibility && atoi(visibility) != db_int(res, 0, USHOW_VISIBILITY))
		settings_refuse_visibility(r, API_CALLER_ADMIN(r), atoi(visibility));
	if (r->validation)
		return ERR_VALIDATION;
	if ((rc = snippet_update(r, db_val(res, 0, 0), title, file_name, content, visibility)) < 0)
		return rc;
	return present(r, db_val(res, 0, 0), 200);
}

static int user_snippets_delete(request *r)
{
	PGresult *res;
	int rc = find_own_snippet(r, &res);
	return rc < 0 ? rc : snippet_delete(r, db_val(res, 0, 0));
}

static int user_snippets_user_agent_detail(request *r)
{
	const char *id;
	int rc = api_id(r, "id", &id);
	if (rc < 0)
		return rc;
	PGresult *res;
	if ((rc = api_find(r, "user_snippets_user_agent_detail", 1, &id, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	return user_agent_respond(r, res, 1);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route user_snippets_routes[] = {
	{"GET", V4 "/snippets", user_snippets_mine, AUTH, NULL},
	{"GET", V4 "/snippets/public", user_snippets_public, AUTH, NULL},
	{"GET", V4 "/snippets/:id", user_snippets_show, AUTH, user_snippets_check_id},
	{"GET", V4 "/snippets/:id/raw", user_snippets_raw, AUTH, user_snippets_check_id},
	{"GET", V4 "/snippets/:id/user_agent_detail", user_snippets_user_agent_detail, ADMIN,
	 user_snippets_check_id},
	{"POST", V4 "/snippets", user_snippets_create, AUTH | TX, user_snippets_check_create},
	{"PUT", V4 "/snippets/:id", user_snippets_update, AUTH | TX, user_snippets_check_update},
	{"DELETE", V4 "/snippets/:id", user_snippets_delete, AUTH | TX, user_snippets_check_id},
	{NULL, NULL, NULL, 0, NULL},
};
