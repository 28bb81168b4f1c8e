/* Search (GitLab 10.5+'s API::Search): GET /search, /groups/:id/search and
 * /projects/:id/search, signed in, with 10.8's scopes for each, paginated.
 *
 * Records (projects, issues, merge requests, milestones, notes, snippets) are found by
 * their text with ILIKE, which sql/0046's trigram indexes serve, among what the caller
 * may read: the access model's rules (db/access.h) in each statement, confidential
 * issues as the lists show them; newest change first (updated_at), projects newest
 * first (id), as GitLab's SearchResults. "#12" finds issue 12, "!12" (or "#12") merge
 * request 12. Blobs, wiki blobs and commits are searched in a project's repository at
 * its default branch (git/search.h); GitLab 10 searched them across projects only with
 * Elasticsearch, and answers the global and group scopes with its 400. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "db/access.h"
#include "entity/entity.h"
#include "entity/issue.h"
#include "entity/merge_request.h"
#include "entity/milestone.h"
#include "entity/note.h"
#include "entity/project.h"
#include "entity/snippet.h"
#include "git/refs.h"
#include "git/repo.h"
#include "git/search.h"
#include "http/pagination.h"

/* The most blob runs and commits a repository search collects, and so pages over. */
#define SEARCH_GIT_MAX 1000

/* Every statement's parameters: the caller, what is sought (text, or an iid), the page,
 * then the project or the group of the route (the global statements stop before it). */
enum { SP_ME, SP_QUERY = SP_ME + ME_NPARAMS, SP_LIMIT, SP_OFFSET, SP_SCOPE, SP_NPARAMS };

/* The projects searched, as vp, at each level, those where COND: every project the
 * caller sees (not being deleted), a group's (its subgroups' too), or the route's
 * project, which the route's scope has found and checked the caller sees (auth/scope.h),
 * by its key. One statement per level, so that each has a plan fit for it: a project's
 * search reads the project's rows by their project's index, not every project. */
#define VP_ALL(COND)                                                                               \
	"vp AS (SELECT p.id, p.namespace_id, p.visibility FROM me, projects p"                     \
	"  WHERE NOT p.pending_delete AND " COND " AND " SQL_PROJECT_LISTED("p") ")"
#define VP_GROUP(COND)                                                                             \
	"vp AS (SELECT p.id, p.namespace_id, p.visibility FROM me, projects p"                     \
	"  WHERE NOT p.pending_delete AND p.namespace_id IN (SELECT g.id FROM namespaces g"        \
	"   WHERE g.traversal_ids @> ARRAY[$7::bigint]) AND " COND                                 \
	"  AND " SQL_PROJECT_LISTED("p") ")"
#define VP_PROJECT(COND)                                                                           \
	"vp AS (SELECT p.id, p.namespace_id, p.visibility FROM projects p"                         \
	"  WHERE p.id = $7::bigint AND " COND ")"
/* The WITH list of a statement over the projects VP(COND) gives. rep: the projects where
 * the caller is a reporter or more; mine: a member. */
#define SEARCH_PROJECTS(VP, COND)                                                                     \
	"WITH " SQL_ME ", mine AS (" SQL_MY_PROJECTS "),"                                             \
	" rep AS (SELECT pa.project_id AS id FROM me JOIN project_authorizations pa"                  \
	"  ON pa.user_id = me.id WHERE pa.expires_at > current_date AND pa.access_level >= 20), " VP( \
		COND)
/* The caller reads everything of project row P: an admin, a reporter or more, or the
 * owner of its personal namespace (GitLab's confidential issues and private code). */
#define READS_ALL(P)                                                                               \
	"(me.admin OR " P ".id IN (SELECT id FROM rep) OR EXISTS (SELECT 1 FROM namespaces own"    \
	" WHERE own.id = " P ".namespace_id AND own.kind = 'user' AND own.owner_id = me.id))"
/* The caller reads the code (and so the merge requests) of project row P. */
#define READS_CODE(P)                                                                              \
	"(" P ".visibility = 20 OR (me.id IS NOT NULL AND " P ".visibility = 10"                   \
	" AND NOT me.external) OR " READS_ALL(P) ")"
/* $4 is the LIKE pattern of the text sought (like_pattern): made once, not for each row
 * and column as SQL_LIKE($4) is when the statement's generic plan runs. */
#define MATCHES(COL) COL " ILIKE $4::text"
/* The page of f (its ids, ordered by ORDER) with its count, each row's columns COLS
 * read FROM ..., whose record ALIAS is the page's row. */
#define SEARCH_PAGE(COLS, FROM, ALIAS, ORDER)                                                      \
	" SELECT (SELECT count(*) FROM f), pg.* FROM (SELECT 1) one LEFT JOIN LATERAL"             \
	" (SELECT " COLS " FROM (SELECT * FROM f ORDER BY " ORDER " LIMIT $5 OFFSET $6) f, " FROM  \
	"  WHERE " ALIAS ".id = f.id ORDER BY " ORDER ") pg ON true"

#define PROJECTS(VP, MATCH)                                                                        \
	SEARCH_PROJECTS(VP, MATCH)                                                                 \
	", f AS (SELECT id FROM vp)" SEARCH_PAGE(                                                  \
		PROJECT_BASIC_COLS, "projects p JOIN namespaces n ON n.id = p.namespace_id", "p",  \
		"f.id DESC")
#define ISSUES(VP, MATCH)                                                                          \
	SEARCH_PROJECTS(VP, "p.issues_enabled")                                                    \
	", f AS (SELECT i.id, i.updated_at FROM me, vp p JOIN issues i ON i.project_id = p.id"     \
	"  WHERE " MATCH " AND (NOT i.confidential OR i.author_id = me.id"                         \
	"  OR EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id"                     \
	"   AND a.user_id = me.id) OR " READS_ALL("p") "))" SEARCH_PAGE(                           \
		ISSUE_LIST_COLS, "issues i" ISSUE_JOINS, "i", "f.updated_at DESC, f.id DESC")
#define MERGE_REQUESTS(VP, MATCH)                                                                  \
	SEARCH_PROJECTS(VP, "p.merge_requests_enabled")                                            \
	", f AS (SELECT mr.id, mr.updated_at FROM me, vp p"                                        \
	"  JOIN merge_requests mr ON mr.target_project_id = p.id"                                  \
	"  WHERE " MATCH                                                                           \
	" AND " READS_CODE("p") ")" SEARCH_PAGE(MR_LIST_COLS(MR_PATH),                             \
						"merge_requests mr" MR_JOINS, "mr",                \
						"f.updated_at DESC, f.id DESC")
#define MILESTONES(VP, MATCH)                                                                      \
	SEARCH_PROJECTS(VP, "true")                                                                \
	", f AS (SELECT m.id, m.updated_at FROM vp p JOIN milestones m ON m.project_id = p.id"     \
	"  WHERE " MATCH                                                                           \
	")" SEARCH_PAGE(MILESTONE_COLS, "milestones m", "m", "f.updated_at DESC, f.id DESC")
/* Project P's snippet s the caller sees (api/snippets.c's rule). */
#define SNIPPET_SEEN(P)                                                                            \
	"(s.visibility = 20 OR (s.visibility = 10 AND me.id IS NOT NULL AND NOT me.external)"      \
	" OR me.admin OR s.author_id = me.id OR " P ".id IN (SELECT id FROM mine))"
#define SNIPPETS(VP, MATCH)                                                                        \
	SEARCH_PROJECTS(VP, "p.snippets_enabled")                                                  \
	", f AS (SELECT s.id, s.updated_at FROM me, vp p JOIN snippets s ON s.project_id = p.id"   \
	"  WHERE " MATCH                                                                           \
	" AND " SNIPPET_SEEN("p") ")" SEARCH_PAGE(SNIPPET_COLS, SNIPPET_FROM, "s",                 \
						  "f.updated_at DESC, f.id DESC")
/* A project's comments (no system notes) on what the caller may read of it, as GitLab's
 * NotesFinder: issues (confidential ones by the usual rule), merge requests and commits
 * with the code, snippets they see. */
#define NOTES(VP, MATCH)                                                                                                             \
	SEARCH_PROJECTS(VP, "true")                                                                                                  \
	", f AS (SELECT n.id, n.updated_at FROM me, vp p"                                                                            \
	"  JOIN projects pf ON pf.id = p.id JOIN notes n ON n.project_id = p.id"                                                     \
	"  WHERE NOT n.system AND " MATCH " AND CASE n.noteable_type"                                                                \
	"  WHEN 'Issue' THEN pf.issues_enabled AND EXISTS (SELECT 1 FROM issues i"                                                   \
	"   WHERE i.id = n.noteable_id AND (NOT i.confidential OR i.author_id = me.id"                                               \
	"   OR EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id"                                                      \
	"   AND a.user_id = me.id) OR " READS_ALL(                                                                                   \
		"p") "))"                                                                                                            \
		     "  WHEN 'MergeRequest' THEN pf.merge_requests_enabled AND " READS_CODE("p") "  WHEN 'Commit' THEN " READS_CODE( \
			     "p") "  WHEN 'Snippet' THEN pf.snippets_enabled AND EXISTS (SELECT 1"                                   \
				  "   FROM snippets s WHERE s.id = n.noteable_id AND " SNIPPET_SEEN(                                 \
					  "p") ")"                                                                                   \
					       "  ELSE false END)" SEARCH_PAGE(                                                      \
						       NOTE_COLS, "notes n", "n",                                                    \
						       "f.updated_at DESC, f.id DESC")

/* A kind's statements at the levels named (the scopes GitLab 10.8 takes at each). */
#define AT_ALL(NAME, KIND, MATCH, NCOLS)                                                           \
	{                                                                                          \
		"search_" NAME, KIND(VP_ALL, MATCH), SP_SCOPE, 1 + NCOLS                           \
	}
#define AT_GROUP(NAME, KIND, MATCH, NCOLS)                                                         \
	{                                                                                          \
		"search_group_" NAME, KIND(VP_GROUP, MATCH), SP_NPARAMS, 1 + NCOLS                 \
	}
#define AT_PROJECT(NAME, KIND, MATCH, NCOLS)                                                       \
	{                                                                                          \
		"search_project_" NAME, KIND(VP_PROJECT, MATCH), SP_NPARAMS, 1 + NCOLS             \
	}

#define PROJECT_TEXT                                                                               \
	"(" MATCHES("p.name") " OR " MATCHES("p.path") " OR " MATCHES("p.description") ")"
#define ISSUE_TEXT "(" MATCHES("i.title") " OR " MATCHES("i.description") ")"
#define MR_TEXT "(" MATCHES("mr.title") " OR " MATCHES("mr.description") ")"
#define MILESTONE_TEXT "(" MATCHES("m.title") " OR " MATCHES("m.description") ")"
#define SNIPPET_TITLE_TEXT "(" MATCHES("s.title") " OR " MATCHES("s.file_name") ")"

const db_stmt search_stmts[] = {
	AT_ALL("projects", PROJECTS, PROJECT_TEXT, PROJECT_BASIC_NCOLS),
	AT_GROUP("projects", PROJECTS, PROJECT_TEXT, PROJECT_BASIC_NCOLS),
	AT_ALL("issues", ISSUES, ISSUE_TEXT, ISSUE_NCOLS),
	AT_GROUP("issues", ISSUES, ISSUE_TEXT, ISSUE_NCOLS),
	AT_PROJECT("issues", ISSUES, ISSUE_TEXT, ISSUE_NCOLS),
	AT_ALL("issues_iid", ISSUES, "i.iid = $4::bigint", ISSUE_NCOLS),
	AT_GROUP("issues_iid", ISSUES, "i.iid = $4::bigint", ISSUE_NCOLS),
	AT_PROJECT("issues_iid", ISSUES, "i.iid = $4::bigint", ISSUE_NCOLS),
	AT_ALL("merge_requests", MERGE_REQUESTS, MR_TEXT, MR_NCOLS),
	AT_GROUP("merge_requests", MERGE_REQUESTS, MR_TEXT, MR_NCOLS),
	AT_PROJECT("merge_requests", MERGE_REQUESTS, MR_TEXT, MR_NCOLS),
	AT_ALL("merge_requests_iid", MERGE_REQUESTS, "mr.iid = $4::bigint", MR_NCOLS),
	AT_GROUP("merge_requests_iid", MERGE_REQUESTS, "mr.iid = $4::bigint", MR_NCOLS),
	AT_PROJECT("merge_requests_iid", MERGE_REQUESTS, "mr.iid = $4::bigint", MR_NCOLS),
	AT_ALL("milestones", MILESTONES, MILESTONE_TEXT, MILESTONE_NCOLS),
	AT_GROUP("milestones", MILESTONES, MILESTONE_TEXT, MILESTONE_NCOLS),
	AT_PROJECT("milestones", MILESTONES, MILESTONE_TEXT, MILESTONE_NCOLS),
	AT_PROJECT("notes", NOTES, MATCHES("n.note"), NOTE_NCOLS),
	AT_ALL("snippet_titles", SNIPPETS, SNIPPET_TITLE_TEXT, SNIPPET_NCOLS),
	AT_ALL("snippet_blobs", SNIPPETS, MATCHES("s.content"), SNIPPET_NCOLS),
	{NULL, NULL, 0, 0},
};

/* The iid of "#12" (issues) or "!12" and "#12" (merge requests) at the end of q, as
 * GitLab's /#(\d+)\z/ and /[#!](\d+)\z/; NULL when q does not end so. */
static const char *iid_of(request *r, const char *q, const char *marks)
{
	size_t n = strlen(q), d = n;
	while (d > 0 && isdigit((unsigned char)q[d - 1]))
		d--;
	if (d == n || d == 0 || !strchr(marks, q[d - 1]) || n - d > 18)
		return NULL;
	return arena_strdup(r->ctx.a, q + d);
}

/* The LIKE pattern that finds q anywhere, its metacharacters as text (SQL_LIKE's). */
static const char *like_pattern(request *r, const char *q)
{
	char *out = arena_alloc(r->ctx.a, 2 * strlen(q) + 3), *o = out;
	*o++ = '%';
	for (; *q; q++) {
		if (*q == '\\' || *q == '%' || *q == '_')
			*o++ = '\\';
		*o++ = *q;
	}
	*o++ = '%';
	*o = '\0';
	return out;
}

static json_object *present_project(ctx *c, const PGresult *res, int row, int col)
{
	return entity_project(c, res, row, col, PROJECT_VIEW_BASIC, NULL);
}

/* Runs the statement of kind (search_[group_|project_]KIND) for the route's level and
 * answers its page with write (or present). */
static int records(request *r, const page_req *pg, const char *kind, const char *query,
		   writer_fn write, presenter_fn present)
{
	const char *v[SP_NPARAMS];
	access_me_params(&r->ctx, v);
	v[SP_QUERY] = query;
	v[SP_LIMIT] = pagination_limit(r, pg);
	v[SP_OFFSET] = pagination_offset(r, pg);
	v[SP_SCOPE] = r->project ? r->project->id : r->group ? r->group->id : NULL;
	int nv = v[SP_SCOPE] ? SP_NPARAMS : SP_SCOPE;
	const char *stmt = arena_printf(r->ctx.a, "search_%s%s",
					r->project ? "project_"
					: r->group ? "group_"
						   : "",
					kind);
	if (present)
		return api_page(r, pg, stmt, nv, v, present);
	int err;
	PGresult *res = db_query(&r->ctx, stmt, nv, v, &err);
	if (!res)
		return err;
	api_respond_page_jw(r, pg, res, write, 1024);
	return 0;
}

static void empty_page(request *r, const page_req *pg)
{
	pagination_headers(r, pg, 0);
	respond_json(r, 200, json_object_new_array());
}

/* ---- the repository's ---- */

/* The default branch's name and commit of repo (NULL: none, an empty repository). */
static const char *tip_of(request *r, git_repository *repo, git_oid *tip)
{
	const char *name;
	return repo && refs_head(&r->ctx, repo, &name, tip) == 0 ? name : NULL;
}

static int blobs(request *r, const page_req *pg, const char *query, bool wiki)
{
	git_repository *repo = NULL;
	int rc;
	if (wiki) {
		if (!can_read_wiki(&r->project->pa, r->project->wiki_enabled))
			return empty_page(r, pg), 0;
		rc = repo_wiki_open(&r->ctx, r->project->id, &repo);
		if (rc == ERR_NOT_FOUND)
			return empty_page(r, pg), 0; /* no page written yet */
	} else {
		if (!content_can_read(r))
			return empty_page(r, pg), 0;
		rc = content_repo(r, &repo);
	}
	if (rc < 0)
		return rc;
	git_oid tip;
	const char *ref = tip_of(r, repo, &tip);
	gsearch_blob *hits = NULL;
	int n = ref ? gsearch_blobs(&r->ctx, repo, &tip, query, SEARCH_GIT_MAX, &hits) : 0;
	if (n < 0)
		return n;
	pagination_headers(r, pg, n);
	json_object *a = json_object_new_array();
	long long project_id = atoll(r->project->id);
	for (long long i = pg->offset; i < n && i < pg->offset + pg->per_page; i++) {
		const gsearch_blob *h = &hits[i];
		/* GitLab's FoundBlob: basename is the path without its extension */
		const char *slash = strrchr(h->path, '/'), *dot = strrchr(h->path, '.');
		size_t base = dot && dot > (slash ? slash : h->path) ? (size_t)(dot - h->path)
								     : strlen(h->path);
		json_object *o = json_object_new_object();
		json_put_str(o, "basename", arena_strndup(r->ctx.a, h->path, base));
		json_put_str(o, "data", h->data);
		json_put_str(o, "filename", h->path);
		json_object_object_add(o, "id", NULL);
		json_put_str(o, "ref", ref);
		json_object_object_add(o, "startline", json_object_new_int(h->startline));
		json_object_object_add(o, "project_id", json_object_new_int64(project_id));
		json_object_array_add(a, o);
	}
	respond_json(r, 200, a);
	return 0;
}

static int commits(request *r, const page_req *pg, const char *query)
{
	if (!content_can_read(r))
		return empty_page(r, pg), 0;
	git_repository *repo;
	int rc = content_repo(r, &repo);
	if (rc < 0)
		return rc;
	git_oid tip, *found = NULL;
	int n = tip_of(r, repo, &tip)
			? gsearch_commits(&r->ctx, repo, &tip, query, SEARCH_GIT_MAX, &found)
			: 0;
	if (n < 0)
		return n;
	pagination_headers(r, pg, n);
	json_object *a = request_own(r, json_object_new_array());
	for (long long i = pg->offset; i < n && i < pg->offset + pg->per_page; i++) {
		git_commit *c;
		json_object *o;
		if (git_commit_lookup(&c, repo, &found[i]) < 0)
			return ERR_INTERNAL;
		rc = commits_detail_json(r, repo, c, &o);
		git_commit_free(c);
		if (rc < 0)
			return rc;
		json_object_array_add(a, o);
	}
	respond_json(r, 200, json_object_get(a));
	return 0;
}

/* ---- the routes ---- */

enum scope {
	S_PROJECTS,
	S_ISSUES,
	S_MERGE_REQUESTS,
	S_MILESTONES,
	S_NOTES,
	S_SNIPPET_TITLES,
	S_SNIPPET_BLOBS,
	S_WIKI_BLOBS,
	S_COMMITS,
	S_BLOBS,
	S_NSCOPES
};
static const char *const scope_names[S_NSCOPES + 1] = {
	"projects",      "issues",     "merge_requests", "milestones", "notes", "snippet_titles",
	"snippet_blobs", "wiki_blobs", "commits",        "blobs",      NULL};

/* The scopes GitLab 10.8 takes at each level, in its order. */
static const char *const global_scopes[] = {"projects",   "issues",         "merge_requests",
					    "milestones", "snippet_titles", "snippet_blobs",
					    "wiki_blobs", "blobs",          "commits",
					    NULL};
static const char *const group_scopes[] = {"projects",   "issues", "merge_requests", "milestones",
					   "wiki_blobs", "blobs",  "commits",        NULL};
static const char *const project_scopes[] = {"issues",     "merge_requests", "milestones", "notes",
					     "wiki_blobs", "commits",        "blobs",      NULL};

static int search(request *r, const char *const *allowed)
{
	const char *query, *scope;
	page_req pg;
	int rc;
	if ((rc = param_require(r, "search", &query)) == ERR_MISSING && param_str(r, "search"))
		query = ""; /* given empty: nothing is found */
	else if (rc < 0)
		return rc;
	if ((rc = param_require(r, "scope", &scope)) < 0 ||
	    (rc = param_oneof(r, "scope", allowed, &scope)) < 0 ||
	    (rc = pagination_parse(r, &pg)) < 0)
		return rc;
	int s = 0;
	while (strcmp(scope_names[s], scope) != 0)
		s++;
	bool repository = s == S_WIKI_BLOBS || s == S_COMMITS || s == S_BLOBS;
	if (repository && !r->project) {
		/* GitLab 10's answer where only Elasticsearch searched repositories */
		json_object *o = json_object_new_object(), *m = json_object_new_object();
		json_put_str(m, "error", "Scope not supported without Elasticsearch!");
		json_object_object_add(o, "message", m);
		respond_json(r, 400, o);
		return 0;
	}
	while (isspace((unsigned char)*query))
		query++;
	if (!*query)
		return empty_page(r, &pg), 0;
	const char *iid, *pattern = like_pattern(r, query);
	switch ((enum scope)s) {
	case S_PROJECTS:
		return records(r, &pg, "projects", pattern, NULL, present_project);
	case S_ISSUES:
		iid = iid_of(r, query, "#");
		return records(r, &pg, iid ? "issues_iid" : "issues", iid ? iid : pattern,
			       entity_issue_basic_write, NULL);
	case S_MERGE_REQUESTS:
		iid = iid_of(r, query, "#!");
		return records(r, &pg, iid ? "merge_requests_iid" : "merge_requests",
			       iid ? iid : pattern, entity_merge_request_basic_write, NULL);
	case S_MILESTONES:
		return records(r, &pg, "milestones", pattern, entity_milestone_write, NULL);
	case S_NOTES:
		return records(r, &pg, "notes", pattern, entity_note_write, NULL);
	case S_SNIPPET_TITLES:
		return records(r, &pg, "snippet_titles", pattern, NULL, entity_snippet);
	case S_SNIPPET_BLOBS:
		return records(r, &pg, "snippet_blobs", pattern, NULL, entity_snippet);
	case S_WIKI_BLOBS:
		return blobs(r, &pg, query, true);
	case S_BLOBS:
		return blobs(r, &pg, query, false);
	case S_COMMITS:
		return commits(r, &pg, query);
	case S_NSCOPES:
		break;
	}
	return ERR_INTERNAL;
}

static int search_global(request *r)
{
	return search(r, global_scopes);
}

static int search_group(request *r)
{
	return search(r, group_scopes);
}

static int search_project(request *r)
{
	return search(r, project_scopes);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route search_routes[] = {
	{"GET", V4 "/search", search_global, AUTH, NULL},
	{"GET", V4 "/groups/:id/search", search_group, AUTH | GR, NULL},
	{"GET", V4 "/groups/:id/-/search", search_group, AUTH | GR, NULL},
	{"GET", V4 "/projects/:id/search", search_project, AUTH | PR, NULL},
	{"GET", V4 "/projects/:id/-/search", search_project, AUTH | PR, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
