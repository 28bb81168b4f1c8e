/* Badges of projects and groups (GitLab 10.8's /projects/:id/badges and
 * /groups/:id/badges), written once for both scopes. A project's list holds its own
 * badges (kind "project") and those of its group and the group's ancestors (kind
 * "group"), as GitLab's Project#badges; a group's, its own. Every badge shown has its
 * URLs rendered for a project: the route's, or for a group the newest of its projects
 * that the caller may see (GitLab's GroupProjectsFinder(...).first), none when it has
 * none. Anyone who may see the project (group) reads its badges; masters of a project
 * and owners of a group (10.8's admin_project and admin_group) change them. */
#include <ctype.h>
#include <string.h>

#include "api/api.h"
#include "db/access.h"
#include "entity/badge.h"
#include "git/refs.h"

/* The render parameters every presenting statement ends with: the project's full path,
 * id, default branch and the head of its default branch (NULLs: no project). */
enum { RENDER_PATH, RENDER_ID, RENDER_BRANCH, RENDER_SHA, RENDER_NPARAMS };

/* BADGE_COLS of badges row b with the render parameters from $N (N..N+3). */
#define COLS_AT(P, I, B, S) BADGE_COLS("b", P, I, B, S)

enum {
	BL_PROJECT,
	BL_NAMESPACE,
	BL_LIMIT,
	BL_OFFSET,
	BL_RENDER,
	BL_NPARAMS = BL_RENDER + RENDER_NPARAMS
};
enum { BG_GROUP, BG_LIMIT, BG_OFFSET, BG_RENDER, BG_NPARAMS = BG_RENDER + RENDER_NPARAMS };
enum {
	BS_ID,
	BS_PROJECT,
	BS_NAMESPACE,
	BS_GROUP,
	BS_RENDER,
	BS_NPARAMS = BS_RENDER + RENDER_NPARAMS
};
enum {
	BI_PROJECT,
	BI_GROUP,
	BI_LINK,
	BI_IMAGE,
	BI_RENDER,
	BI_NPARAMS = BI_RENDER + RENDER_NPARAMS
};
enum {
	BU_ID,
	BU_PROJECT,
	BU_GROUP,
	BU_LINK,
	BU_IMAGE,
	BU_RENDER,
	BU_NPARAMS = BU_RENDER + RENDER_NPARAMS
};
enum { BR_LINK, BR_IMAGE, BR_RENDER, BR_NPARAMS = BR_RENDER + RENDER_NPARAMS };
enum { GP_ID, GP_PATH, GP_BRANCH, GP_NCOLS };

/* The badges a project's list holds: $P its own, and its namespace $N's (a group) and
 * that group's ancestors' */
#define PROJECT_BADGES(P, N)                                                                       \
	"SELECT b.* FROM badges b WHERE b.project_id = " P                                         \
	" UNION ALL SELECT b.* FROM namespaces n"                                                  \
	" JOIN badges b ON b.group_id = ANY (n.traversal_ids) WHERE n.id = " N                     \
	" AND n.kind = 'group'"

const db_stmt badges_stmts[] = {
	/* In the order they were made, as GitLab's default scope. */
	{"badges_list_project",
	 "WITH f AS NOT MATERIALIZED (" PROJECT_BADGES(
		 "$1",
		 "$2") ")"
		       " SELECT (SELECT count(*) FROM f), p.* FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " COLS_AT(
			       "$5", "$6", "$7", "$8") " FROM f b ORDER BY b.created_at, b.id"
						       " LIMIT $3 OFFSET $4) p ON true",
	 BL_NPARAMS, 1 + BADGE_NCOLS},
	{"badges_list_group",
	 "WITH f AS NOT MATERIALIZED (SELECT b.* FROM badges b WHERE b.group_id = $1)"
	 " SELECT (SELECT count(*) FROM f), p.* FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " COLS_AT(
		 "$4", "$5", "$6", "$7") " FROM f b ORDER BY b.created_at, b.id"
					 " LIMIT $2 OFFSET $3) p ON true",
	 BG_NPARAMS, 1 + BADGE_NCOLS},
	/* Badge $1 of project $2 (with namespace $3's) or of group $4. */
	{"badges_show",
	 "SELECT " COLS_AT("$5", "$6", "$7", "$8") " FROM (" PROJECT_BADGES(
		 "$2",
		 "$3") " UNION ALL SELECT b.* FROM badges b WHERE b.group_id = $4) b WHERE b.id = $1",
	 BS_NPARAMS, BADGE_NCOLS},
	{"badges_insert",
	 "INSERT INTO badges AS b (project_id, group_id, link_url, image_url)"
	 " VALUES ($1, $2, $3, $4) RETURNING " COLS_AT("$5", "$6", "$7", "$8"),
	 BI_NPARAMS, BADGE_NCOLS},
	/* Badge $1 of project $2 or group $3, its URLs changed where given. */
	{"badges_update",
	 "UPDATE badges AS b SET link_url = coalesce($4, b.link_url),"
	 " image_url = coalesce($5, b.image_url), updated_at = now()"
	 " WHERE b.id = $1 AND (b.project_id = $2 OR b.group_id = $3)"
	 " RETURNING " COLS_AT("$6", "$7", "$8", "$9"),
	 BU_NPARAMS, BADGE_NCOLS},
	{"badges_delete",
	 "DELETE FROM badges WHERE id = $1 AND (project_id = $2 OR group_id = $3) RETURNING id", 3,
	 1},
	{"badges_render",
	 "SELECT " BADGE_DETAILS_COLS("$1::text", "$2::text", "$3", "$4", "$5", "$6"), BR_NPARAMS,
	 BADGE_DETAILS_NCOLS},
	/* The project a group's badges are rendered for: of those of group $4 and those
	 * shared with it that the caller may see, the newest. */
	{"badges_group_project",
	 "WITH " SQL_ME " SELECT p.id, n.full_path || '/' || p.path, p.default_branch"
	 " FROM me, projects p JOIN namespaces n ON n.id = p.namespace_id"
	 " WHERE (p.namespace_id = $4 OR p.id IN (SELECT l.project_id FROM project_group_links l"
	 " WHERE l.group_id = $4)) AND NOT p.pending_delete AND " SQL_PROJECT_VISIBLE(
		 "p") " ORDER BY p.id DESC LIMIT 1",
	 ME_NPARAMS + 1, GP_NCOLS},
	{NULL, NULL, 0, 0},
};

/* The project or group of the route, and what its badges are rendered with. */
typedef struct {
	const char *project_id;   /* a project's badges, else NULL */
	const char *namespace_id; /* a project's group, whose badges it shows, else NULL */
	const char *group_id;     /* a group's badges, else NULL */
	bool can_admin;
	const char *render[RENDER_NPARAMS];
} badge_source;

static void source_of(request *r, badge_source *out)
{
	memset(out, 0, sizeof(*out));
	if (r->project) {
		const project_scope *p = r->project;
		out->project_id = p->id;
		if (p->ns_kind && strcmp(p->ns_kind, "group") == 0)
			out->namespace_id = p->namespace_id;
		out->can_admin = can_update_project(&p->pa);
	} else {
		out->group_id = r->group->id;
		out->can_admin = can_admin_group(&r->group->ga);
	}
}

/* The render parameters of project id at full path with default branch branch, as
 * 10.8's Project reads them from its repository: the branch and its head when the
 * branch exists, else empty. */
static int render_project(request *r, const char *id, const char *path, const char *branch,
			  badge_source *s)
{
	s->render[RENDER_PATH] = path;
	s->render[RENDER_ID] = id;
	if (!branch)
		return 0;
	git_repository *repo;
	int rc = refs_open(&r->ctx, id, &repo);
	if (rc < 0 || !repo)
		return rc;
	git_commit *commit;
	if ((rc = refs_branch_commit(repo, branch, &commit)) == ERR_NOT_FOUND)
		return 0;
	if (rc < 0)
		return rc;
	char *sha = arena_alloc(r->ctx.a, GIT_OID_HEXSZ + 1);
	git_oid_tostr(sha, GIT_OID_HEXSZ + 1, git_commit_id(commit));
	git_commit_free(commit);
	s->render[RENDER_BRANCH] = branch;
	s->render[RENDER_SHA] = sha;
	return 0;
}

/* Fills s's render parameters: the route's project, or the group's project. */
static int source_render(request *r, badge_source *s)
{
	if (r->project) {
		const project_scope *p = r->project;
		return render_project(r, p->id,
				      arena_printf(r->ctx.a, "%s/%s", p->ns_full_path, p->path),
				      p->default_branch, s);
	}
	const char *v[ME_NPARAMS + 1];
	access_me_params(&r->ctx, v);
	v[ME_NPARAMS] = s->group_id;
	int err;
	PGresult *res = db_query(&r->ctx, "badges_group_project", ME_NPARAMS + 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return 0;
	return render_project(r, db_val(res, 0, GP_ID), db_val(res, 0, GP_PATH),
			      db_val(res, 0, GP_BRANCH), s);
}

/* The length of the placeholder at s ("%{project_id}"), 0 when none starts there. */
static size_t placeholder_len(const char *s)
{
	static const char *const names[] = {"project_path", "project_id", "default_branch",
					    "commit_sha"};
	if (strncmp(s, "%{", 2) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		size_t n = strlen(names[i]);
		if (strncmp(s + 2, names[i], n) == 0 && s[2 + n] == '}')
			return n + 3;
	}
	return 0;
}

/* GitLab 10.8's UrlPlaceholderValidator (http, https): with its placeholders taken as
 * plain text, u is an absolute URI as Ruby's URI.regexp reads RFC 2396: the scheme,
 * then URI characters only (an escape is % and two hex digits), one # at most before
 * the fragment. Spaces, quotes, braces, non-ASCII bytes make it invalid. */
static bool badge_url_valid(const char *u)
{
	const char *s;
	if (strncmp(u, "http:", 5) == 0)
		s = u + 5;
	else if (strncmp(u, "https:", 6) == 0)
		s = u + 6;
	else
		return false;
	bool fragment = false;
	while (*s) {
		unsigned char ch = (unsigned char)*s;
		size_t n;
		if (ch == '%' && (n = placeholder_len(s)) > 0) {
			s += n;
			continue;
		}
		if (ch == '%') {
			if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]))
				return false;
			s += 3;
			continue;
		}
		if (ch == '#') {
			if (fragment)
				return false;
			fragment = true;
		} else if (!(ch < 128 && (isalnum(ch) || strchr("-_.!~*'();/?:@&=+$,[]", ch)))) {
			return false;
		}
		s++;
	}
	return true;
}

/* link_url and image_url (required unless update): given ones valid, else the 400 of
 * GitLab's validation ("must be a valid URL"); 0, ERR_MISSING or ERR_VALIDATION. */
static int read_urls(request *r, bool update, const char **link, const char **image)
{
	*link = param_str(r, "link_url");
	*image = param_str(r, "image_url");
	if (!update && !*link)
		return fail_missing(r, "link_url");
	if (!update && !*image)
		return fail_missing(r, "image_url");
	if (*link && !badge_url_valid(*link))
		fail_validation(r, "link_url", "must be a valid URL");
	if (*image && !badge_url_valid(*image))
		fail_validation(r, "image_url", "must be a valid URL");
	return r->validation ? ERR_VALIDATION : 0;
}

static void put_render(const badge_source *s, const char **v)
{
	memcpy(v, s->render, sizeof(s->render));
}

static int badges_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	badge_source s;
	source_of(r, &s);
	if ((rc = source_render(r, &s)) < 0)
		return rc;
	const char *limit = pagination_limit(r, &pg), *offset = pagination_offset(r, &pg);
	if (s.project_id) {
		const char *v[BL_NPARAMS] = {s.project_id, s.namespace_id, limit, offset};
		put_render(&s, v + BL_RENDER);
		return api_page(r, &pg, "badges_list_project", BL_NPARAMS, v, entity_badge);
	}
	const char *v[BG_NPARAMS] = {s.group_id, limit, offset};
	put_render(&s, v + BG_RENDER);
	return api_page(r, &pg, "badges_list_group", BG_NPARAMS, v, entity_badge);
}

static int badges_show(request *r)
{
	const char *id;
	int rc = api_id(r, "badge_id", &id);
	if (rc < 0)
		return rc;
	badge_source s;
	source_of(r, &s);
	if ((rc = source_render(r, &s)) < 0)
		return rc;
	const char *v[BS_NPARAMS] = {id, s.project_id, s.namespace_id, s.group_id};
	put_render(&s, v + BS_RENDER);
	PGresult *res;
	if ((rc = api_find(r, "badges_show", BS_NPARAMS, v, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_json(r, 200, entity_badge(&r->ctx, res, 0, 0));
	return 0;
}

/* The route's source when the caller may change its badges (else ERR_FORBIDDEN), the
 * URLs of a create, render or update (read_urls) and the source rendered: 0 or an
 * ERR_ code. */
static int read_change(request *r, bool update, badge_source *s, const char **link,
		       const char **image)
{
	source_of(r, s);
	if (!s->can_admin)
		return ERR_FORBIDDEN;
	int rc = read_urls(r, update, link, image);
	if (rc < 0 || (rc = source_render(r, s)) < 0)
		return rc;
	return 0;
}

/* GET .../badges/render: what a badge of these URLs would show, nothing stored. */
static int badges_render(request *r)
{
	badge_source s;
	const char *link, *image;
	int rc = read_change(r, false, &s, &link, &image);
	if (rc < 0)
		return rc;
	const char *v[BR_NPARAMS] = {link, image};
	put_render(&s, v + BR_RENDER);
	int err;
	PGresult *res = db_query(&r->ctx, "badges_render", BR_NPARAMS, v, &err);
	if (!res)
		return err;
	respond_json(r, 200, entity_badge_details(&r->ctx, res, 0, 0));
	return 0;
}

static int badges_create(request *r)
{
	badge_source s;
	const char *link, *image;
	int rc = read_change(r, false, &s, &link, &image);
	if (rc < 0)
		return rc;
	const char *v[BI_NPARAMS] = {s.project_id, s.group_id, link, image};
	put_render(&s, v + BI_RENDER);
	int err;
	PGresult *res = db_query(&r->ctx, "badges_insert", BI_NPARAMS, v, &err);
	if (!res)
		return err;
	respond_json(r, 201, entity_badge(&r->ctx, res, 0, 0));
	return 0;
}

/* PUT and DELETE change the route's own badges only: a project's list shows its
 * group's badges, but they are the group owners' to change. */
static int badges_update(request *r)
{
	const char *id;
	int rc = api_id(r, "badge_id", &id);
	if (rc < 0)
		return rc;
	badge_source s;
	const char *link, *image;
	if ((rc = read_change(r, true, &s, &link, &image)) < 0)
		return rc;
	const char *v[BU_NPARAMS] = {id, s.project_id, s.group_id, link, image};
	put_render(&s, v + BU_RENDER);
	PGresult *res;
	if ((rc = api_find(r, "badges_update", BU_NPARAMS, v, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_json(r, 200, entity_badge(&r->ctx, res, 0, 0));
	return 0;
}

static int badges_delete(request *r)
{
	const char *id;
	int rc = api_id(r, "badge_id", &id);
	if (rc < 0)
		return rc;
	badge_source s;
	source_of(r, &s);
	if (!s.can_admin)
		return ERR_FORBIDDEN;
	const char *v[3] = {id, s.project_id, s.group_id};
	PGresult *res;
	if ((rc = api_find(r, "badges_delete", 3, v, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_empty(r, 204);
	return 0;
}

/* The parameter checks GitLab's declarations make before the project (group) is found:
 * an integer badge_id, the required URLs of POST and render. */
static int check_id(request *r)
{
	const char *id;
	return api_id(r, "badge_id", &id);
}

static int check_urls(request *r)
{
	if (!param_str(r, "link_url"))
		return fail_missing(r, "link_url");
	if (!param_str(r, "image_url"))
		return fail_missing(r, "image_url");
	return 0;
}

#define PB V4 "/projects/:id/badges"
#define GB V4 "/groups/:id/badges"

/* The module's routes (http/router.h), in the order they are matched: render before
 * :badge_id. */
const route badges_routes[] = {
	{"GET", PB, badges_list, ROUTE_PUBLIC | PR, NULL},
	{"GET", PB "/render", badges_render, AUTH | PR, check_urls},
	{"GET", PB "/:badge_id", badges_show, ROUTE_PUBLIC | PR, check_id},
	{"POST", PB, badges_create, AUTH | PA, check_urls},
	{"PUT", PB "/:badge_id", badges_update, AUTH | PA, check_id},
	{"DELETE", PB "/:badge_id", badges_delete, AUTH | PA, check_id},
	{"GET", GB, badges_list, ROUTE_PUBLIC | GR, NULL},
	{"GET", GB "/render", badges_render, AUTH | GR, check_urls},
	{"GET", GB "/:badge_id", badges_show, ROUTE_PUBLIC | GR, check_id},
	{"POST", GB, badges_create, AUTH | GW, check_urls},
	{"PUT", GB "/:badge_id", badges_update, AUTH | GW, check_id},
	{"DELETE", GB "/:badge_id", badges_delete, AUTH | GW, check_id},
	{NULL, NULL, NULL, 0, NULL},
};
