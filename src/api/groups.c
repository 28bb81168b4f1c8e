/* Groups (4.2): the list, details, create, update, delete, a group's projects and the
 * transfer of a project into a group. Namespaces are in namespaces.c.
 *
 * A group is a namespaces row of kind 'group'; nested groups keep traversal_ids (root
 * down to self), full_path and full_name, recomputed for the whole subtree on a rename.
 * Its projects' repositories are stored by project id (git/repo.h): a rename or a
 * transfer moves nothing on disk. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "db/settings.h"
#include "auth/access.h"
#include "db/queue.h"
#include "core/validate.h"
#include "entity/entity.h"
#include "entity/group.h"
#include "entity/project.h"

/* The page of the groups of from (a FROM list that yields namespaces g) for which cond
 * holds, by the sort key (from the whitelist below): $4 search, $5 ids to skip, $6 limit,
 * $7 offset, $8 statistics, $9 custom attributes (a jsonb object the group's must hold). */
#define GROUPS_ATTRIBUTES_MATCH                                                                    \
	SQL_CUSTOM_ATTRIBUTES_MATCH("$9", "group_custom_attributes", "group_id", "g.id")
#define GROUPS_LIST(from, cond, key, dir)                                                                                 \
	"WITH " SQL_ME ", mygroups AS (" SQL_MY_GROUPS "),"                                                               \
	" f AS NOT MATERIALIZED (SELECT g.id, " key " AS k FROM me, " from                                                \
	" WHERE g.kind = 'group' AND " cond                                                                               \
	" AND ($4::text IS NULL OR g.name ILIKE " SQL_LIKE("$4") " OR g.path ILIKE " SQL_LIKE(                            \
		"$4") ")"                                                                                                 \
		      " AND ($5::bigint[] IS NULL OR g.id <> ALL ($5::bigint[]))"                                         \
		      " AND " GROUPS_ATTRIBUTES_MATCH ")"                                                                 \
		      "SELECT (SELECT count(*) FROM f), p.* FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " GROUP_COLS    \
		      ", " GROUP_STATISTICS_COL(                                                                          \
			      "$8::boolean") " FROM (SELECT id, k FROM f ORDER BY k " dir                                 \
					     ", id " dir " LIMIT $6 OFFSET $7) pg"                                        \
					     " CROSS JOIN LATERAL (SELECT * FROM namespaces WHERE id = pg.id OFFSET 0) g" \
					     " ORDER BY pg.k " dir ", pg.id " dir ") p ON true"

/* The groups whose ids the query ids yields, fetched one by one. */
#define GROUPS_BY_ID(ids)                                                                          \
	"(" ids ") gi CROSS JOIN LATERAL (SELECT * FROM namespaces WHERE id = gi.id OFFSET 0) g"

/* The groups of GET /groups, as GitLab 10's GroupsFinder: every one for admins, those
 * the caller may see (all_available, and for anonymous callers), those they own
 * (owned=true), or those they belong to. */
/* The lists' columns: the total, the group, its statistics; their parameters, SQL_ME's
 * first. */
#define GL_NCOLS (1 + GROUP_NCOLS + 1)
enum {
	GL_SEARCH = ME_NPARAMS,
	GL_SKIP,
	GL_LIMIT,
	GL_OFFSET,
	GL_STATISTICS,
	GL_CUSTOM_ATTRIBUTES,
	GL_NPARAMS
};
/* The subgroups' lists (GET /groups/:id/subgroups): the same, then the parent group. */
enum { GL_PARENT = GL_NPARAMS, GS_NPARAMS };
#define GROUPS_LIST_OF(name, from, cond) GROUPS_LIST_N(name, from, cond, GL_NPARAMS)
/* The same lists of the children of group $10 only. */
#define SUBGROUPS_LIST_OF(name, from, cond)                                                        \
	GROUPS_LIST_N("sub_" name, from, cond " AND g.parent_id = $10::bigint", GS_NPARAMS)
#define GROUPS_LIST_N(name, from, cond, n)                                                         \
	{"groups_list_" name "_name_asc", GROUPS_LIST(from, cond, "lower(g.name)", "ASC"), n,      \
	 GL_NCOLS},                                                                                \
		{"groups_list_" name "_name_desc",                                                 \
		 GROUPS_LIST(from, cond, "lower(g.name)", "DESC"), n, GL_NCOLS},                   \
		{"groups_list_" name "_path_asc", GROUPS_LIST(from, cond, "lower(g.path)", "ASC"), \
		 n, GL_NCOLS},                                                                     \
	{                                                                                          \
		"groups_list_" name "_path_desc",                                                  \
			GROUPS_LIST(from, cond, "lower(g.path)", "DESC"), n, GL_NCOLS              \
	}
/* Every kind of list (GL_ALL ...) with LIST_OF. */
#define GROUPS_LISTS(LIST_OF)                                                                           \
	LIST_OF("all", "namespaces g", "true"),                                                         \
		LIST_OF("visible",                                                                      \
			"namespaces g LEFT JOIN (SELECT DISTINCT id FROM mygroups) mg ON mg.id = g.id", \
			SQL_GROUP_LISTED("g", "mg")),                                                   \
		LIST_OF("member", GROUPS_BY_ID("SELECT DISTINCT id FROM mygroups"), "true"),            \
		LIST_OF("owned",                                                                        \
			GROUPS_BY_ID("SELECT m.source_id AS id FROM me JOIN members m"                  \
				     " ON m.user_id = me.id AND m.source_type = 'Namespace'"            \
				     " AND m.access_level = 50 AND " SQL_MEMBER_ACTIVE("m")),           \
			"true")

/* Removes the groups that the query ids lists (one row, bigint[] a), their subgroups and
 * every project in them, and queues the removal of their repositories. Members,
 * notification settings and project links go with the rows (triggers, cascades); the
 * DELETEs run whether or not the rest reads them. The background processes are woken at
 * commit. */
#define GROUPS_DESTROY(ids)                                                                        \
	"WITH ids AS (" ids "),"                                                                   \
	" tree AS (SELECT n.id FROM namespaces n, ids WHERE n.traversal_ids && ids.a"              \
	"  AND n.kind = 'group' FOR UPDATE OF n),"                                                 \
	" dp AS (DELETE FROM projects WHERE namespace_id IN (SELECT id FROM tree) RETURNING id),"  \
	" dn AS (DELETE FROM namespaces WHERE id IN (SELECT id FROM tree) RETURNING id),"          \
	" j AS (INSERT INTO background_jobs (kind, payload) SELECT 'remove_repository',"           \
	"  jsonb_build_object('project_id', dp.id) FROM dp RETURNING id)"                          \
	"SELECT pg_notify('" QUEUE_CHANNEL "', j.id::text) FROM j"

/* How many projects of each kind GroupDetail shows (GitLab's later limit; 10.0 showed
 * them all). */
#define GROUP_DETAIL_PROJECTS "100"

enum {
	GI_NAME,
	GI_PATH,
	GI_DESCRIPTION,
	GI_VISIBILITY,
	GI_LFS_ENABLED,
	GI_REQUEST_ACCESS_ENABLED,
	GI_PARENT,
	GI_NPARAMS
};
/* groups_update: the group, then the attributes (NULL keeps one) */
enum {
	GU_ID,
	GU_NAME,
	GU_PATH,
	GU_DESCRIPTION,
	GU_VISIBILITY,
	GU_LFS_ENABLED,
	GU_REQUEST_ACCESS_ENABLED,
	GU_NPARAMS
};

const db_stmt groups_stmts[] = {
	GROUPS_LISTS(GROUPS_LIST_OF),
	GROUPS_LISTS(SUBGROUPS_LIST_OF),
	/* GroupDetail: the projects of group $4 (k 0) and those shared with it (k 1) that the
	 * caller may see, by id. */
	{"groups_detail_projects",
	 "WITH " SQL_ME " SELECT x.k, " PROJECT_COLS
	 " FROM ((SELECT 0 AS k, p.id FROM me, projects p"
	 " WHERE p.namespace_id = $4 AND NOT p.pending_delete AND " SQL_PROJECT_VISIBLE(
		 "p") " ORDER BY p.id LIMIT " GROUP_DETAIL_PROJECTS ") UNION ALL (SELECT 1, p.id"
		      " FROM me, project_group_links l JOIN projects p ON p.id = l.project_id"
		      " WHERE l.group_id = $4 AND NOT p.pending_delete AND " SQL_PROJECT_VISIBLE(
			      "p") " ORDER BY p.id LIMIT " GROUP_DETAIL_PROJECTS
				   ")) x JOIN projects p ON p.id = x.id"
				   " JOIN namespaces n ON n.id = p.namespace_id ORDER BY x.k, p.id",
	 4, 1 + PROJECT_NCOLS},
	/* (locked by the caller) */
	{"groups_insert",
	 "WITH par AS (SELECT id, traversal_ids, full_path, full_name FROM namespaces"
	 " WHERE id = $7::bigint AND kind = 'group'),"
	 " nid AS (SELECT nextval('namespaces_id_seq') AS id)"
	 "INSERT INTO namespaces (id, kind, name, path, parent_id, traversal_ids, full_path,"
	 " full_name, description, visibility, lfs_enabled, request_access_enabled)"
	 " SELECT nid.id, 'group', $1, $2, par.id, coalesce(par.traversal_ids, '{}') || nid.id,"
	 " coalesce(par.full_path || '/', '') || $2, coalesce(par.full_name || ' / ', '') || $1,"
	 " coalesce($3, ''), $4::smallint, coalesce($5::boolean, true),"
	 " coalesce($6::boolean, false) FROM nid LEFT JOIN par ON true"
	 " WHERE ($7::bigint IS NULL) = (par.id IS NULL) RETURNING id",
	 GI_NPARAMS, 1},
	{"groups_owner_insert",
	 "INSERT INTO members (source_type, source_id, user_id, access_level, created_by)"
	 " VALUES ('Namespace', $1, $2, 50, $2)",
	 2, 0},
	/* $1 id, then the attributes; NULL keeps one */
	{"groups_update",
	 "UPDATE namespaces SET name = coalesce($2, name), path = coalesce($3, path),"
	 " description = coalesce($4, description), visibility = coalesce($5::smallint, visibility),"
	 " lfs_enabled = coalesce($6::boolean, lfs_enabled),"
	 " request_access_enabled = coalesce($7::boolean, request_access_enabled),"
	 " updated_at = now() WHERE id = $1 AND kind = 'group'",
	 GU_NPARAMS, 0},
	/* After a rename of group $1: full paths and names of it and its subgroups. */
	{"groups_rebuild_paths",
	 "WITH g AS (SELECT n.full_path AS old_fp, n.full_name AS old_fn,"
	 " coalesce(pn.full_path || '/', '') || n.path AS new_fp,"
	 " coalesce(pn.full_name || ' / ', '') || n.name AS new_fn"
	 " FROM namespaces n LEFT JOIN namespaces pn ON pn.id = n.parent_id WHERE n.id = $1)"
	 "UPDATE namespaces d SET full_path = g.new_fp || substr(d.full_path, length(g.old_fp) + 1),"
	 " full_name = g.new_fn || substr(d.full_name, length(g.old_fn) + 1), updated_at = now()"
	 " FROM g WHERE d.traversal_ids @> ARRAY[$1::bigint]"
	 " AND (g.old_fp <> g.new_fp OR g.old_fn <> g.new_fn)",
	 1, 0},
	{"groups_destroy", GROUPS_DESTROY("SELECT ARRAY[$1::bigint] AS a"), 1, 1},
	/* Hard deletion of user $1: the groups they own alone go with them (GitLab's
	 * solo_owned_groups: no other direct owner). */
	{"groups_destroy_solely_owned",
	 GROUPS_DESTROY("SELECT coalesce(array_agg(m.source_id), '{}') AS a FROM members m"
			" WHERE m.source_type = 'Namespace' AND m.user_id = $1"
			" AND m.access_level = 50 AND m.requested_at IS NULL AND NOT EXISTS"
			" (SELECT 1 FROM members o WHERE o.source_type = 'Namespace'"
			" AND o.source_id = m.source_id AND o.access_level = 50"
			" AND o.requested_at IS NULL AND o.user_id <> $1)"),
	 1, 1},
	/* The project to transfer, by id ($1) or namespace path ($2) and path ($3). */
	/* A project moved into group $2 keeps its visibility up to the group's. */
	{"groups_transfer",
	 "UPDATE projects p SET namespace_id = g.id, visibility = least(p.visibility, g.visibility),"
	 " updated_at = now() FROM namespaces g WHERE p.id = $1 AND g.id = $2",
	 2, 0},
	{NULL, NULL, 0, 0},
};

/* ---- presenting ---- */

/* Adds GroupDetail's projects and shared_projects (GitLab's Entities::Project) of group
 * id to o. */
static int group_detail_projects(request *r, const char *id, json_object *o)
{
	const char *v[4];
	access_me_params(&r->ctx, v);
	v[3] = id;
	int err;
	PGresult *res = db_query(&r->ctx, "groups_detail_projects", 4, v, &err);
	if (!res)
		return err;
	project_extra *x = arena_alloc(r->ctx.a, (size_t)PQntuples(res) * sizeof(*x));
	int rc = projects_extras(r, res, PQntuples(res), 1, x, NULL);
	if (rc < 0)
		return rc;
	json_object *lists[2] = {json_object_new_array(), json_object_new_array()};
	for (int i = 0; i < PQntuples(res); i++)
		json_object_array_add(lists[db_int(res, i, 0) ? 1 : 0],
				      entity_project(&r->ctx, res, i, 1, PROJECT_VIEW_FULL, &x[i]));
	json_object_object_add(o, "projects", lists[0]);
	json_object_object_add(o, "shared_projects", lists[1]);
	return 0;
}

/* GroupDetail: the group with its projects and the projects shared with it that the
 * caller may see. */
static int present_group(request *r, const group_scope *g, int status, bool attrs)
{
	json_object *o = entity_group(&r->ctx, g->res, 0, 0, -1);
	request_own(r, o);
	int rc = attrs ? custom_attributes_add(r, CA_GROUP, g->id, o) : 0;
	if (rc == 0)
		rc = group_detail_projects(r, g->id, o);
	if (rc < 0)
		return rc;
	respond_json(r, status, json_object_get(o));
	return 0;
}

/* The same for group id after the write that changed it. */
static int present_detail(request *r, const char *id, int status)
{
	group_scope g;
	int rc = scope_group(&r->ctx, id, false, &g);
	return rc < 0 ? rc : present_group(r, &g, status, false);
}

static json_object *present_list_row(ctx *c, const PGresult *res, int row, int col)
{
	return entity_group(c, res, row, col, col + GROUP_NCOLS);
}

/* ---- GET /groups ---- */

/* skip_groups[] as a bigint[] literal; NULL when absent, ERR_INVALID when a value is not
 * an integer. */
static int skip_groups_param(request *r, const char **out)
{
	const char **vals;
	int n = param_array(r, "skip_groups", &vals);
	*out = NULL;
	if (n <= 0)
		return n;
	buf b;
	buf_init(&b, r->ctx.a, 64);
	buf_putc(&b, '{');
	for (int i = 0; i < n; i++) {
		const char *s = vals[i] ? vals[i] : "";
		size_t len = strlen(s);
		size_t start = s[0] == '-' ? 1 : 0;
		size_t digits = strspn(s + start, "0123456789");
		if (len == start || len - start > 18 || digits != len - start)
			return fail_invalid(r, "skip_groups");
		buf_printf(&b, "%s%s", i ? "," : "", s);
	}
	buf_putc(&b, '}');
	*out = buf_cstr(&b);
	return 0;
}

/* The statement of each kind of list (GROUPS_LIST_OF), by order (name, path) and sort
 * (asc, desc). */
enum list_kind { GL_ALL, GL_VISIBLE, GL_MEMBER, GL_OWNED };
#define LIST_NAMES(name)                                                                           \
	{                                                                                          \
		{"groups_list_" name "_name_asc", "groups_list_" name "_name_desc"},               \
		{                                                                                  \
			"groups_list_" name "_path_asc", "groups_list_" name "_path_desc"          \
		}                                                                                  \
	}
static const char *const list_stmts[2][4][2][2] = {
	{
		[GL_ALL] = LIST_NAMES("all"),
		[GL_VISIBLE] = LIST_NAMES("visible"),
		[GL_MEMBER] = LIST_NAMES("member"),
		[GL_OWNED] = LIST_NAMES("owned"),
	},
	{
		[GL_ALL] = LIST_NAMES("sub_all"),
		[GL_VISIBLE] = LIST_NAMES("sub_visible"),
		[GL_MEMBER] = LIST_NAMES("sub_member"),
		[GL_OWNED] = LIST_NAMES("sub_owned"),
	},
};

/* GET /groups, or with parent the children of that group (GET /groups/:id/subgroups),
 * as GitLab 10's GroupsFinder with parent. */
static int list(request *r, const char *parent)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	bool all_available = false, owned = false, statistics = false;
	if ((rc = param_bool(r, "all_available", &all_available)) < 0 ||
	    (rc = param_bool(r, "owned", &owned)) < 0 ||
	    (rc = param_bool(r, "statistics", &statistics)) < 0)
		return rc;
	static const char *const orders[] = {"name", "path", NULL};
	static const char *const sorts[] = {"asc", "desc", NULL};
	const char *order = "name", *sort = "asc", *skip;
	if ((rc = param_oneof(r, "order_by", orders, &order)) < 0 ||
	    (rc = param_oneof(r, "sort", sorts, &sort)) < 0 ||
	    (rc = skip_groups_param(r, &skip)) < 0)
		return rc;
	const char *attr_filter;
	bool attrs;
	if ((rc = custom_attributes_filter(r, &attr_filter)) < 0 ||
	    (rc = custom_attributes_wanted(r, &attrs)) < 0)
		return rc;
	const char *search = param_str(r, "search");
	if (search && !*search)
		search = NULL;
	/* GitLab 10's GroupsFinder: owned first; admins see every group; anonymous callers
	 * and all_available see what they may see; otherwise the caller's own groups. */
	bool admin = r->ctx.user && r->ctx.user->admin;
	enum list_kind which = owned                             ? GL_OWNED
			       : admin                           ? GL_ALL
			       : (!r->ctx.user || all_available) ? GL_VISIBLE
								 : GL_MEMBER;
	const char *v[GS_NPARAMS];
	access_me_params(&r->ctx, v);
	v[GL_PARENT] = parent;
	v[GL_SEARCH] = search;
	v[GL_SKIP] = skip;
	v[GL_LIMIT] = pagination_limit(r, &pg);
	v[GL_OFFSET] = pagination_offset(r, &pg);
	v[GL_STATISTICS] = statistics && admin ? "true" : "false";
	v[GL_CUSTOM_ATTRIBUTES] = attr_filter;
	const char *stmt = list_stmts[parent != NULL][which][strcmp(order, "path") == 0]
				     [strcmp(sort, "desc") == 0];
	int err;
	PGresult *res = db_query(&r->ctx, stmt, parent ? GS_NPARAMS : GL_NPARAMS, v, &err);
	if (!res)
		return err;
	if (attrs)
		return custom_attributes_respond_page(r, &pg, res, present_list_row, CA_GROUP,
						      GC_ID);
	api_respond_page(r, &pg, res, present_list_row);
	return 0;
}

static int groups_list(request *r)
{
	return list(r, NULL);
}

static int groups_subgroups(request *r)
{
	return list(r, r->group->id);
}

/* ---- GET /groups/:id ---- */

static int groups_show(request *r)
{
	bool attrs;
	int rc = custom_attributes_wanted(r, &attrs);
	return rc < 0 ? rc : present_group(r, r->group, 200, attrs);
}

/* ---- GET /groups/:id/projects ---- */

/* GitLab 10.0's GroupProjectsFinder: the group's own projects and those shared with it
 * (not its subgroups'), with the filters, sorts and views of GET /projects. */
static int groups_projects(request *r)
{
	return projects_list_scoped(r, NULL, r->group->id);
}

/* ---- POST /groups, PUT /groups/:id ---- */

/* The writable attributes; NULL when not sent. */
typedef struct {
	const char *name, *path, *description, *visibility, *lfs_enabled, *request_access_enabled;
	int vis; /* -1 when not sent */
} group_input;

static const char *bool_text(request *r, const char *name, int *rc)
{
	bool b;
	int x = param_bool(r, name, &b);
	if (x < 0)
		*rc = x;
	return x == 0 ? (b ? "true" : "false") : NULL;
}

/* GitLab 10's namespace name: letters, digits, '_', '.', dashes and spaces (UTF-8
 * letters are taken as letters). */
static bool valid_group_name(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (!(*p >= 0x80 || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || *p == '_' || *p == '.' || *p == '-' || *p == ' '))
			return false;
	return true;
}

/* Reads the attributes. Malformed values (not a boolean, an unknown visibility) fail at
 * once, as Grape does; model validations are recorded in r->validation for the caller
 * to return after its permission checks. */
static int read_group_input(request *r, group_input *in)
{
	memset(in, 0, sizeof(*in));
	in->vis = -1;
	int rc = 0;
	in->lfs_enabled = bool_text(r, "lfs_enabled", &rc);
	if (rc < 0)
		return rc;
	in->request_access_enabled = bool_text(r, "request_access_enabled", &rc);
	if (rc < 0)
		return rc;
	static const char *const visibilities[] = {"private", "internal", "public", NULL};
	if ((rc = param_oneof(r, "visibility", visibilities, &in->visibility)) < 0)
		return rc;
	if (in->visibility) {
		in->vis = visibility_parse(in->visibility);
		in->visibility = arena_printf(r->ctx.a, "%d", in->vis);
	}
	if (param_text(r, "name", 255, &in->name) == 0) {
		if (!*in->name)
			fail_validation(r, "name", "can't be blank");
		else if (!valid_group_name(in->name))
			fail_validation(
				r, "name",
				"can contain only letters, digits, '_', '.', dash and space.");
	}
	in->path = param_str(r, "path");
	if (in->path && !*in->path)
		fail_validation(r, "path", "can't be blank");
	else if (in->path && !valid_namespace_path(in->path))
		fail_validation(
			r, "path",
			"can contain only letters, digits, '_', '-' and '.'. Cannot start with "
			"'-' or end in '.', '.git' or '.atom'.");
	param_text(r, "description", 255, &in->description);
	return 0;
}

/* Visibility checks of GitLab 10's Group model: not above the parent's, not below a
 * subgroup's or a project's. */
static void check_visibility(request *r, int vis, int parent_vis, int child_vis, int project_vis)
{
	if (parent_vis >= 0 && vis > parent_vis)
		fail_validation(r, "visibility_level",
				arena_printf(r->ctx.a,
					     "%s is not allowed since the parent group has a %s "
					     "visibility.",
					     visibility_name(vis), visibility_name(parent_vis)));
	if (project_vis > vis)
		fail_validation(r, "visibility_level",
				arena_printf(r->ctx.a,
					     "%s is not allowed since this group contains projects "
					     "with higher visibility.",
					     visibility_name(vis)));
	if (child_vis > vis)
		fail_validation(
			r, "visibility_level",
			arena_printf(r->ctx.a,
				     "%s is not allowed since there are sub-groups with higher "
				     "visibility.",
				     visibility_name(vis)));
}

/* A unique violation of a namespaces index: the attribute that is taken. */
static int taken(request *r, int err)
{
	if (err != ERR_CONFLICT)
		return err;
	const char *c = r->ctx.err_detail ? r->ctx.err_detail : "";
	r->ctx.err_detail = NULL;
	if (strcmp(c, "namespaces_group_name_key") == 0)
		return fail_validation(r, "name", "has already been taken");
	if (strcmp(c, "namespaces_full_path_key") == 0)
		return fail_validation(r, "path", "has already been taken");
	return fail(r, ERR_CONFLICT, NULL);
}

/* The caller may create top-level groups: admins, and users whose can_create_group is
 * set. */
static bool can_create_group(request *r)
{
	return r->ctx.user->admin || r->ctx.user->can_create_group;
}

static int groups_create(request *r)
{
	const char *name, *path;
	int rc;
	if ((rc = param_require(r, "name", &name)) < 0 ||
	    (rc = param_require(r, "path", &path)) < 0)
		return rc;
	long long parent_id;
	int has_parent = param_int(r, "parent_id", &parent_id);
	if (has_parent < 0)
		return has_parent;
	group_input in;
	if ((rc = read_group_input(r, &in)) < 0)
		return rc;
	if (has_parent == 1 && !can_create_group(r))
		return ERR_FORBIDDEN;
	group_scope parent = {.parent_vis = -1};
	const char *parent_ref = has_parent == 0 ? param_str(r, "parent_id") : NULL;
	if (parent_ref) {
		/* a subgroup: the parent's owners (and admins) create it */
		if ((rc = scope_group(&r->ctx, parent_ref, true, &parent)) < 0)
			return rc;
		if (!can_admin_group(&parent.ga))
			return ERR_FORBIDDEN;
	}
	int vis = in.vis;
	if (vis < 0) {
		/* the instance's default (application settings), at most the parent's */
		vis = settings_default_group_visibility(&r->ctx);
		if (parent_ref && vis > parent.visibility)
			vis = parent.visibility;
	}
	check_visibility(r, vis, parent_ref ? parent.visibility : -1, -1, -1);
	settings_refuse_visibility(r, API_CALLER_ADMIN(r), vis);
	if (!r->validation &&
	    (parent_ref ? path_reserved_subgroup(path) : path_reserved_top_level(path)))
		fail_validation(r, "path", arena_printf(r->ctx.a, "%s is a reserved name", path));
	if (r->validation)
		return ERR_VALIDATION;
	const char *v[] = {[GI_NAME] = name,
			   [GI_PATH] = path,
			   [GI_DESCRIPTION] = in.description,
			   [GI_VISIBILITY] = arena_printf(r->ctx.a, "%d", vis),
			   [GI_LFS_ENABLED] = in.lfs_enabled,
			   [GI_REQUEST_ACCESS_ENABLED] = in.request_access_enabled,
			   [GI_PARENT] = parent_ref ? parent.id : NULL};
	DB_PARAMS(v, GI_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx, "groups_insert", GI_NPARAMS, v, &err);
	if (!res)
		return taken(r, err);
	if (PQntuples(res) == 0)
		return fail_not_found(r, "Group");
	const char *id = arena_strdup(r->ctx.a, PQgetvalue(res, 0, 0));
	const char *mv[2] = {id, api_caller_id(r)};
	if (!db_query(&r->ctx, "groups_owner_insert", 2, mv, &err))
		return err;
	int hr = hooks_system_group(&r->ctx, "group_create", id);
	if (hr < 0)
		return hr;
	return present_detail(r, id, 201);
}

static int groups_check_update(request *r)
{
	group_input in;
	return read_group_input(r, &in);
}

static int groups_update(request *r)
{
	group_input in;
	int rc = read_group_input(r, &in);
	if (rc < 0)
		return rc;
	const group_scope *g = r->group;
	if (!can_admin_group(&g->ga))
		return ERR_FORBIDDEN;
	if (in.vis >= 0)
		check_visibility(r, in.vis, g->parent_vis, g->child_vis, g->project_vis);
	if (in.vis >= 0 && in.vis != g->visibility)
		settings_refuse_visibility(r, API_CALLER_ADMIN(r), in.vis);
	if (in.path && !r->validation &&
	    (g->root ? path_reserved_top_level(in.path) : path_reserved_subgroup(in.path)))
		fail_validation(r, "path",
				arena_printf(r->ctx.a, "%s is a reserved name", in.path));
	if (r->validation)
		return ERR_VALIDATION;
	const char *v[] = {[GU_ID] = g->id,
			   [GU_NAME] = in.name,
			   [GU_PATH] = in.path,
			   [GU_DESCRIPTION] = in.description,
			   [GU_VISIBILITY] = in.visibility,
			   [GU_LFS_ENABLED] = in.lfs_enabled,
			   [GU_REQUEST_ACCESS_ENABLED] = in.request_access_enabled};
	DB_PARAMS(v, GU_NPARAMS);
	int err;
	if (!db_query(&r->ctx, "groups_update", GU_NPARAMS, v, &err))
		return taken(r, err);
	if ((in.name || in.path) && !db_query(&r->ctx, "groups_rebuild_paths", 1, v, &err))
		return taken(r, err);
	/* repositories are stored by project id: a new path moves nothing on disk */
	return present_detail(r, g->id, 200);
}

/* ---- DELETE /groups/:id ---- */

/* GitLab 10.0 removes the group in the request (Groups::DestroyService#execute) and
 * answers 204; the directories go in the background. */
static int groups_delete(request *r)
{
	const group_scope *g = r->group;
	if (!can_admin_group(&g->ga))
		return ERR_FORBIDDEN;
	const char *v[1] = {g->id};
	int err = hooks_system_group(&r->ctx, "group_destroy", g->id);
	if (err < 0)
		return err;
	if (!db_query(&r->ctx, "groups_destroy", 1, v, &err))
		return err;
	respond_empty(r, 204);
	return 0;
}

int groups_delete_solely_owned(request *r, const char *user_id)
{
	const char *v[1] = {user_id};
	int err;
	return db_query(&r->ctx, "groups_destroy_solely_owned", 1, v, &err) ? 0 : err;
}

/* ---- POST /groups/:id/projects/:project_id ---- */

static int groups_transfer_project(request *r)
{
	const group_scope *g = r->group;
	/* the project by id, or by namespace/path (an admin's route: every project shows) */
	project_scope p;
	int rc = scope_project(&r->ctx, param_str(r, "project_id"), true, &p);
	if (rc < 0)
		return rc;
	if (strcmp(p.namespace_id, g->id) == 0)
		return fail_validation(r, "new_namespace",
				       "Transfer failed, please contact an admin.");
	const char *tv[2] = {p.id, g->id};
	int err;
	if (!db_query(&r->ctx, "groups_transfer", 2, tv, &err)) {
		if (err == ERR_CONFLICT) {
			r->ctx.err_detail = NULL;
			err = fail_validation(r, "new_namespace",
					      "Project with same name or path in target namespace "
					      "already exists");
		}
		return err;
	}
	const char *old_path = arena_printf(r->ctx.a, "%s/%s", p.ns_full_path, p.path);
	if ((rc = hooks_system_project(&r->ctx, "project_transfer", p.id, old_path)) < 0)
		return rc;
	return present_detail(r, g->id, 201);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route groups_routes[] = {
	{"GET", V4 "/groups", groups_list, ROUTE_PUBLIC, NULL},
	{"GET", V4 "/groups/:id/projects", groups_projects, ROUTE_PUBLIC | GR, NULL},
	{"GET", V4 "/groups/:id/subgroups", groups_subgroups, ROUTE_PUBLIC | GR, NULL},
	{"GET", V4 "/groups/:id", groups_show, ROUTE_PUBLIC | GR, NULL},
	{"POST", V4 "/groups", groups_create, AUTH | TX, NULL},
	{"POST", V4 "/groups/:id/projects/:project_id", groups_transfer_project, ADMIN | GW, NULL},
	{"PUT", V4 "/groups/:id", groups_update, AUTH | GW, groups_check_update},
	{"DELETE", V4 "/groups/:id", groups_delete, AUTH | GW, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
