/* Project snippets (GitLab 10's lib/api/project_snippets.rb; the spec shows only their
 * notes, which hang on them): list, show, create, update, delete and the raw content.
 * A snippet is seen, in a project the caller sees, when it is public, internal to a
 * signed-in user who is not external, the caller's own, or the caller is a member of
 * the project (or an admin) -- GitLab 10's SnippetsFinder and ProjectSnippetPolicy.
 * Reporters and up create them; their authors, masters and up change and remove them.
 * With snippets turned off on the project every route answers 403. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "db/settings.h"
#include "entity/entity.h"
#include "entity/snippet.h"
#include "entity/user_agent_detail.h"

/* Snippet s may be seen by the caller (`me`); M: the SQL of whether they are a member
 * of its project. */
#define SQL_SNIPPET_VISIBLE(M)                                                                     \
	"(s.visibility = 20 OR (s.visibility = 10 AND me.id IS NOT NULL AND NOT me.external)"      \
	" OR me.admin OR s.author_id = me.id OR " M ")"

/* The caller's parameters (caller_params): SQL_ME's, whether they are a member, the
 * project; then the statement's own */
enum { SC_MEMBER = ME_NPARAMS, SC_PROJECT, SC_NPARAMS };
enum { SL_LIMIT = SC_NPARAMS, SL_OFFSET, SL_NPARAMS };
enum { SS_ID = SC_NPARAMS, SS_NPARAMS };
enum { SHOW_AUTHOR = SNIPPET_NCOLS, SHOW_CONTENT, SHOW_VISIBILITY, SHOW_NCOLS };
enum {
	SI_PROJECT,
	SI_AUTHOR,
	SI_TITLE,
	SI_FILE_NAME,
	SI_CONTENT,
	SI_DESCRIPTION,
	SI_VISIBILITY,
	SI_NPARAMS
};
enum {
	SU_ID,
	SU_TITLE,
	SU_FILE_NAME,
	SU_CONTENT,
	SU_HAS_DESCRIPTION,
	SU_DESCRIPTION,
	SU_VISIBILITY,
	SU_NPARAMS
};

const db_stmt snippets_stmts[] = {
	{"snippets_enabled", "SELECT snippets_enabled FROM projects WHERE id = $1", 1, 1},
	/* $1..$3 the caller (SQL_ME), $4 whether they are a member of the project, $5 the
	 * project, $6 limit, $7 offset; newest first */
	{"snippets_list",
	 "WITH " SQL_ME ", f AS (SELECT s.id FROM snippets s, me WHERE s.project_id = $5"
	 " AND " SQL_SNIPPET_VISIBLE(
		 "$4::boolean") ")"
				" SELECT (SELECT count(*) FROM f), x.* FROM (SELECT 1) one LEFT JOIN LATERAL"
				" (SELECT " SNIPPET_COLS " FROM " SNIPPET_FROM
				" WHERE s.id IN (SELECT id FROM f)"
				" ORDER BY s.id DESC LIMIT $6 OFFSET $7) x ON true",
	 SL_NPARAMS, 1 + SNIPPET_NCOLS},
	/* $1..$3 the caller, $4 member, $5 project, $6 snippet: the snippet when the caller
	 * sees it, with its author's id and its content */
	{"snippets_show",
	 "WITH " SQL_ME " SELECT " SNIPPET_COLS ", s.author_id, s.content, s.visibility"
	 " FROM " SNIPPET_FROM ", me"
	 " WHERE s.id = $6 AND s.project_id = $5 AND " SQL_SNIPPET_VISIBLE("$4::boolean"),
	 SS_NPARAMS, SHOW_NCOLS},
	{"snippets_insert",
	 "INSERT INTO snippets (project_id, author_id, title, file_name, content, description,"
	 " visibility) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
	 SI_NPARAMS, 1},
	/* $1 snippet; $2..$4 title, file_name, content or NULL; $5 whether the description is
	 * given, $6 it; $7 visibility or NULL */
	{"snippets_update",
	 "UPDATE snippets SET title = coalesce($2, title), file_name = coalesce($3, file_name),"
	 " content = coalesce($4, content),"
	 " description = CASE WHEN $5::boolean THEN $6 ELSE description END,"
	 " visibility = coalesce($7::smallint, visibility), updated_at = now() WHERE id = $1",
	 SU_NPARAMS, 0},
	{"snippets_delete", "DELETE FROM snippets WHERE id = $1", 1, 0},
	/* $1 project, $2 snippet: its id and its user agent detail (NULLs: none) */
	{"snippets_user_agent_detail",
	 "SELECT s.id, " USER_AGENT_DETAIL_COLS " FROM snippets s" USER_AGENT_DETAIL_JOIN(
		 "Snippet", "s.id") " WHERE s.project_id = $1 AND s.id = $2",
	 2, 1 + USER_AGENT_DETAIL_NCOLS},
	{NULL, NULL, 0, 0},
};

static const char *const VISIBILITIES[] = {"private", "internal", "public", NULL};

/* Snippets are on in the route's project: 0 or ERR_FORBIDDEN. */
static int snippets_on(request *r)
{
	const char *v[1] = {r->project->id};
	int err;
	PGresult *res = db_query(&r->ctx, "snippets_enabled", 1, v, &err);
	if (!res)
		return err;
	return PQntuples(res) && db_bool(res, 0, 0) ? 0 : ERR_FORBIDDEN;
}

static bool is_member(request *r)
{
	return project_ability_level(&r->project->pa) >= ACCESS_GUEST;
}

/* $1..$5 of the statements that look at snippets as the caller. */
static void caller_params(request *r, const char **v)
{
	access_me_params(&r->ctx, v);
	v[SC_MEMBER] = is_member(r) ? "true" : "false";
	v[SC_PROJECT] = r->project->id;
}

/* Snippet id, when the caller sees it: 0 with its row, or 404 Snippet. */
static int find_snippet_id(request *r, const char *id, PGresult **out)
{
	const char *v[SS_NPARAMS];
	caller_params(r, v);
	v[SS_ID] = id;
	return api_find(r, "snippets_show", SS_NPARAMS, v, "Snippet", out);
}

/* The snippet of :snippet_id that the caller sees, in a project whose snippets are on: 0
 * with its row, ERR_FORBIDDEN, or 404 Snippet. */
static int find_snippet(request *r, PGresult **out)
{
	int rc = snippets_on(r);
	return rc < 0 ? rc : find_snippet_id(r, param_str(r, "snippet_id"), out);
}

/* The caller may change and remove snippet row 0 of res: its author, masters and up. */
static bool can_admin_snippet(request *r, const PGresult *res)
{
	return project_ability_level(&r->project->pa) >= ACCESS_MASTER ||
	       db_int(res, 0, SHOW_AUTHOR) == r->ctx.user->id;
}

/* find_snippet for a change: ERR_FORBIDDEN unless the caller may change it. */
static int find_own_snippet(request *r, PGresult **out)
{
	int rc = find_snippet(r, out);
	return rc < 0 ? rc : can_admin_snippet(r, *out) ? 0 : ERR_FORBIDDEN;
}

static int present(request *r, const char *id, int status)
{
	PGresult *res;
	int rc = find_snippet_id(r, id, &res);
	if (rc < 0)
		return rc;
	respond_json(r, status, entity_snippet(&r->ctx, res, 0, 0));
	return 0;
}

/* ---- routes ---- */

static int snippets_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = snippets_on(r)) < 0)
		return rc;
	const char *v[SL_NPARAMS];
	caller_params(r, v);
	v[SL_LIMIT] = pagination_limit(r, &pg);
	v[SL_OFFSET] = pagination_offset(r, &pg);
	return api_page(r, &pg, "snippets_list", SL_NPARAMS, v, entity_snippet);
}

static int snippets_check_id(request *r)
{
	const char *id;
	return api_id(r, "snippet_id", &id);
}

static int snippets_show(request *r)
{
	PGresult *res;
	int rc = find_snippet(r, &res);
	if (rc < 0)
		return rc;
	respond_json(r, 200, entity_snippet(&r->ctx, res, 0, 0));
	return 0;
}

/* ---- shared with the personal snippets (api.h) ---- */

void snippet_respond_raw(request *r, const PGresult *res, int col)
{
	r->status = 200;
	r->body = PQgetvalue(res, 0, col);
	r->body_len = (size_t)PQgetlength(res, 0, col);
	r->content_type = "text/plain";
}

static int snippets_raw(request *r)
{
	PGresult *res;
	int rc = find_snippet(r, &res);
	if (rc < 0)
		return rc;
	snippet_respond_raw(r, res, SHOW_CONTENT);
	return 0;
}

/* The content: for a project snippet code, as GitLab 10 names it, or content, as later
 * releases (and the python-gitlab of today) do; for a personal one content. */
static const char *snippet_content(request *r, bool project)
{
	const char *code = project ? param_str(r, "code") : NULL;
	return code ? code : param_str(r, "content");
}

int snippet_input(request *r, bool project, const char **title, const char **file_name,
		  const char **content, const char **visibility)
{
	*title = param_str(r, "title");
	*file_name = param_str(r, "file_name");
	*content = snippet_content(r, project);
	*visibility = NULL;
	const char *vis;
	int rc = param_oneof(r, "visibility", VISIBILITIES, &vis);
	if (rc < 0)
		return rc;
	if (rc == 0)
		*visibility = arena_printf(r->ctx.a, "%d", visibility_parse(vis));
	if (*title && !**title)
		fail_validation(r, "title", "can't be blank");
	else if (*title && strlen(*title) > 255)
		fail_validation(r, "title", "is too long (maximum is 255 characters)");
	if (*file_name && strlen(*file_name) > 255)
		fail_validation(r, "file_name", "is too long (maximum is 255 characters)");
	return 0;
}

int snippet_check_create(request *r, bool project)
{
	/* GitLab 10's project snippets require a visibility; 10.8's personal ones do not */
	const char *const required[] = {"title", "file_name", project ? "code" : "content",
					project ? "visibility" : NULL};
	for (size_t i = 0; i < sizeof(required) / sizeof(*required); i++)
		if (required[i] &&
		    !(i == 2 ? snippet_content(r, project) : param_str(r, required[i])))
			return fail_missing(r, required[i]);
	const char *vis;
	int rc = param_oneof(r, "visibility", VISIBILITIES, &vis);
	return rc < 0 ? rc : 0;
}

int snippet_check_update(request *r, bool project)
{
	const char *id;
	int rc = api_id(r, project ? "snippet_id" : "id", &id);
	if (rc < 0)
		return rc;
	const char *vis;
	if ((rc = param_oneof(r, "visibility", VISIBILITIES, &vis)) < 0)
		return rc;
	bool content = project ? snippet_content(r, true) != NULL
			       : param_find(r, "content") != NULL;
	if (!param_find(r, "title") && !param_find(r, "file_name") && !content &&
	    !param_find(r, "visibility"))
		return fail(
			r, ERR_INVALID,
			arena_printf(r->ctx.a,
				     "title, file_name, %s, visibility are missing, at least one "
				     "parameter must be provided",
				     project ? "code" : "content"));
	return 0;
}

int snippet_insert(request *r, const char *project, const char *title, const char *file_name,
		   const char *content, const char *visibility, const char **id)
{
	const char *v[] = {
		[SI_PROJECT] = project,      [SI_AUTHOR] = api_caller_id(r),
		[SI_TITLE] = title,          [SI_FILE_NAME] = file_name,
		[SI_CONTENT] = content,      [SI_DESCRIPTION] = param_str(r, "description"),
		[SI_VISIBILITY] = visibility};
	DB_PARAMS(v, SI_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx, "snippets_insert", SI_NPARAMS, v, &err);
	if (!res)
		return err;
	*id = db_val(res, 0, 0);
	return user_agent_record(r, "Snippet", *id);
}

int snippet_update(request *r, const char *id, const char *title, const char *file_name,
		   const char *content, const char *visibility)
{
	const char *v[] = {[SU_ID] = id,
			   [SU_TITLE] = title,
			   [SU_FILE_NAME] = file_name,
			   [SU_CONTENT] = content,
			   [SU_HAS_DESCRIPTION] = param_find(r, "description") ? "true" : "false",
			   [SU_DESCRIPTION] = param_str(r, "description"),
			   [SU_VISIBILITY] = visibility};
	DB_PARAMS(v, SU_NPARAMS);
	int err;
	return db_query(&r->ctx, "snippets_update", SU_NPARAMS, v, &err) ? 0 : err;
}

int snippet_delete(request *r, const char *id)
{
	int err;
	if (!db_query(&r->ctx, "snippets_delete", 1, (const char *[]){id}, &err))
		return err;
	respond_empty(r, 204);
	return 0;
}

/* ---- routes ---- */

static int snippets_check_create(request *r)
{
	return snippet_check_create(r, true);
}

static int snippets_create(request *r)
{
	int rc = snippets_on(r);
	if (rc < 0)
		return rc;
	if (project_ability_level(&r->project->pa) < ACCESS_REPORTER)
		return ERR_FORBIDDEN;
	const char *title, *file_name, *content, *visibility;
	if ((rc = snippet_input(r, true, &title, &file_name, &content, &visibility)) < 0)
		return rc;
	if (!*content)
		fail_validation(r, "content", "can't be blank");
	if (visibility)
		settings_refuse_visibility(r, API_CALLER_ADMIN(r), atoi(visibility));
	if (r->validation)
		return ERR_VALIDATION;
	const char *id;
	if ((rc = snippet_insert(r, r->project->id, title, file_name, content, visibility, &id)) <
	    0)
		return rc;
	return present(r, id, 201);
}

static int snippets_check_update(request *r)
{
	return snippet_check_update(r, true);
}

static int snippets_update(request *r)
{
	PGresult *res;
	int rc = find_own_snippet(r, &res);
	if (rc < 0)
		return rc;
	const char *title, *file_name, *content, *visibility;
	if ((rc = snippet_input(r, true, &title, &file_name, &content, &visibility)) < 0)
		return rc;
	if (visibility && atoi(visibility) != db_int(res, 0, SHOW_VISIBILITY))
		settings_refuse_visibility(r, API_CALLER_ADMIN(r), atoi(visibility));
	if (r->validation)
		return ERR_VALIDATION;
	/* a blank code is ignored */
	if ((rc = snippet_update(r, db_val(res, 0, 0), title, file_name,
				 content && *content ? content : NULL, visibility)) < 0)
		return rc;
	return present(r, db_val(res, 0, 0), 200);
}

static int snippets_delete(request *r)
{
	PGresult *res;
	int rc = find_own_snippet(r, &res);
	return rc < 0 ? rc : snippet_delete(r, db_val(res, 0, 0));
}

/* GitLab 10.8's: admins only, any snippet of the project, snippets on or off
 * (Snippet.find_by!: "404 Not found") */
static int snippets_user_agent_detail(request *r)
{
	const char *v[2] = {r->project->id, NULL};
	int rc = api_id(r, "snippet_id", &v[1]);
	if (rc < 0)
		return rc;
	PGresult *res;
	if ((rc = api_find(r, "snippets_user_agent_detail", 2, v, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	return user_agent_respond(r, res, 1);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route snippets_routes[] = {
	{"GET", V4 "/projects/:id/snippets", snippets_list, AUTH | PR, NULL},
	{"GET", V4 "/projects/:id/snippets/:snippet_id", snippets_show, AUTH | PR,
	 snippets_check_id},
	{"GET", V4 "/projects/:id/snippets/:snippet_id/raw", snippets_raw, AUTH | PR,
	 snippets_check_id},
	{"POST", V4 "/projects/:id/snippets", snippets_create, AUTH | PW, snippets_check_create},
	{"PUT", V4 "/projects/:id/snippets/:snippet_id", snippets_update, AUTH | PW,
	 snippets_check_update},
	{"DELETE", V4 "/projects/:id/snippets/:snippet_id", snippets_delete, AUTH | PW,
	 snippets_check_id},
	{"GET", V4 "/projects/:id/snippets/:snippet_id/user_agent_detail",
	 snippets_user_agent_detail, ADMIN | PR, snippets_check_id},
	{NULL, NULL, NULL, 0, NULL},
};
