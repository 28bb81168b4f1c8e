#include "entity/project.h"

#include <stdlib.h>
#include <string.h>

#include "auth/access.h"
#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

const char *project_ssh_url(ctx *c, const char *ns, const char *path)
{
	return arena_printf(c->a, "git@%s:%s/%s.git", c->cfg->ssh_host, ns, path);
}

const char *project_http_url(ctx *c, const char *ns, const char *path)
{
	return arena_printf(c->a, "%s/%s/%s.git", c->cfg->external_url, ns, path);
}

const char *project_web_url(ctx *c, const char *ns, const char *path)
{
	return arena_printf(c->a, "%s/%s/%s", c->cfg->external_url, ns, path);
}

/* <external_url>/api/v4/projects/<id>, in r's arena. */
static const char *project_api_url(ctx *c, const char *id)
{
	buf b;
	buf_init(&b, c->a, 128);
	buf_puts(&b, c->cfg->external_url);
	buf_puts(&b, "/api/v4/projects/");
	buf_puts(&b, id);
	return buf_cstr(&b);
}

static int compare_tags(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The tags of the text[] literal as a JSON array, sorted (byte order, as the database's
 * C collation; one order whatever the database's locale). */
static void tag_list(jw *w, ctx *c, const char *literal)
{
	const char **tags;
	int n = db_text_array(c->a, literal, &tags);
	if (n > 1)
		qsort(tags, (size_t)n, sizeof(*tags), compare_tags);
	jw_begin_array(w);
	for (int i = 0; i < n; i++)
		jw_str(w, tags[i]);
	jw_end_array(w);
}

/* NotificationSetting.levels: the level GitLab keeps as an integer; the default
 * setting is 'global'. */
static int notification_level(const char *name)
{
	static const char *const levels[] = {"disabled", "participating", "watch",
					     "global",   "mention",       "custom"};
	for (size_t i = 0; i < sizeof(levels) / sizeof(*levels); i++)
		if (strcmp(name, levels[i]) == 0)
			return (int)i;
	return 3;
}

/* What both readers of the caller's standing start with. */
static void caller_init(project_caller *out, ctx *c, const PGresult *res, int row, int col)
{
	memset(out, 0, sizeof(*out));
	out->project_notification = out->group_notification = 3;
	long long me = c->user ? c->user->id : 0;
	const char *owner = db_val(res, row, col + PC_NS_OWNER_ID);
	bool personal = strcmp(db_val(res, row, col + PC_NS_KIND), "user") == 0;
	out->levels.ns_owner = me && personal && owner && strtoll(owner, NULL, 10) == me;
}

void project_caller_page_read(project_caller_page *out, ctx *c, const PGresult *res, int row,
			      int col)
{
	out->nmembers = db_int_array(c->a, db_val(res, row, col + PC_MEMBER_LEVEL), &out->members);
	out->nsettings =
		db_text_array(c->a, db_val(res, row, col + PC_NOTIFICATION_LEVELS), &out->settings);
}

void project_caller_read_list(project_caller *out, ctx *c, const project_caller_page *page,
			      const PGresult *res, int row, int col)
{
	caller_init(out, c, res, row, col);
	long long id = db_int(res, row, col + PC_ID), ns_id = db_int(res, row, col + PC_NS_ID);
	long long *m = page->members, *groups;
	int n = page->nmembers;
	int ngroups = db_int_array(c->a, db_val(res, row, col + PC_GROUP_LEVELS), &groups);
	/* {{0 project or 1 group, id, level}, ...}: the project's own membership; the highest
	 * level of the groups above it, and the one of its own group */
	for (int i = 0; i + 2 < n; i += 3) {
		int level = (int)m[i + 2];
		if (m[i] == 0) {
			if (m[i + 1] == id)
				out->levels.member_level = level;
			continue;
		}
		for (int k = 0; k < ngroups; k++) {
			if (groups[k] != m[i + 1])
				continue;
			if (level > out->levels.group_level)
				out->levels.group_level = level;
			if (m[i + 1] == ns_id)
				out->own_group_level = level;
		}
	}
	/* {Project:id:level, Namespace:id:level, ...}: the project's and its namespace's */
	const char **settings = page->settings;
	n = page->nsettings;
	for (int i = 0; i < n; i++) {
		bool project = strncmp(settings[i], "Project:", 8) == 0;
		const char *p = strchr(settings[i], ':');
		char *end;
		long long source = p ? strtoll(p + 1, &end, 10) : 0;
		if (!p || *end != ':' || source != (project ? id : ns_id))
			continue;
		if (project)
			out->project_notification = notification_level(end + 1);
		else
			out->group_notification = notification_level(end + 1);
	}
}

void project_caller_read(project_caller *out, ctx *c, const PGresult *res, int row, int col)
{
	caller_init(out, c, res, row, col);
	out->levels.member_level = (int)db_int(res, row, col + PC_MEMBER_LEVEL);
	/* {{group id, level}, ...}: the highest level, and the one of the project's group */
	long long *g;
	int n = db_int_array(c->a, db_val(res, row, col + PC_GROUP_LEVELS), &g);
	long long ns_id = db_int(res, row, col + PC_NS_ID);
	for (int i = 0; i + 1 < n; i += 2) {
		int level = (int)g[i + 1];
		if (level > out->levels.group_level)
			out->levels.group_level = level;
		if (g[i] == ns_id)
			out->own_group_level = level;
	}
	const char **settings;
	n = db_text_array(c->a, db_val(res, row, col + PC_NOTIFICATION_LEVELS), &settings);
	for (int i = 0; i < n; i++) {
		const char *level = strchr(settings[i], ':');
		if (!level)
			continue;
		if (strncmp(settings[i], "Project:", 8) == 0)
			out->project_notification = notification_level(level + 1);
		else
			out->group_notification = notification_level(level + 1);
	}
}

void entity_project_group_link(jw *w, ctx *c, long long group_id, const char *name,
			       long long access)
{
	deps_add(c, CACHE_KEY_NAMESPACE(group_id));
	jw_begin_object(w);
	jw_put_int(w, "group_id", group_id);
	jw_put_str(w, "group_name", name);
	jw_put_int(w, "group_access_level", access);
	jw_end_object(w);
}

/* The permissions' project_access or group_access: the caller's own membership. */
static void access_of(jw *w, int level, int notification)
{
	if (!level) {
		jw_null(w);
		return;
	}
	jw_begin_object(w);
	jw_put_int(w, "access_level", level);
	jw_put_int(w, "notification_level", notification);
	jw_end_object(w);
}

/* The project's URLs: ssh_url_to_repo, http_url_to_repo, web_url. */
static void urls(jw *w, ctx *c, const char *ns, const char *path)
{
	const char *ext = c->cfg->external_url;
	jw_key(w, "ssh_url_to_repo");
	jw_str_begin(w);
	jw_str_part(w, "git@");
	jw_str_part(w, c->cfg->ssh_host);
	jw_str_part(w, ":");
	jw_str_part(w, ns);
	jw_str_part(w, "/");
	jw_str_part(w, path);
	jw_str_part(w, ".git");
	jw_str_end(w);
	const char *keys[] = {"http_url_to_repo", "web_url"};
	for (int i = 0; i < 2; i++) {
		jw_key(w, keys[i]);
		jw_str_begin(w);
		jw_str_part(w, ext);
		jw_str_part(w, "/");
		jw_str_part(w, ns);
		jw_str_part(w, "/");
		jw_str_part(w, path);
		if (i == 0)
			jw_str_part(w, ".git");
		jw_str_end(w);
	}
}

/* A member key: "<ns> / <name>" or "<ns>/<path>" as one string. */
static void joined(jw *w, const char *key, const char *a, const char *between, const char *b)
{
	jw_key(w, key);
	jw_str_begin(w);
	jw_str_part(w, a);
	jw_str_part(w, between);
	jw_str_part(w, b);
	jw_str_end(w);
}

/* A member of _links: the project's API URL api, then suffix. */
static void link(jw *w, const char *key, const char *api, const char *suffix)
{
	jw_key(w, key);
	jw_str_begin(w);
	jw_str_part(w, api);
	jw_str_part(w, suffix);
	jw_str_end(w);
}

/* 10.8's custom_attributes member (BasicProjectDetails, if: :with_custom_attributes);
 * the project's key, which the record depends on, covers them. */
static void custom_attributes(jw *w, const project_extra *x)
{
	if (x && x->custom_attributes) {
		jw_key(w, "custom_attributes");
		jw_raw(w, x->custom_attributes, strlen(x->custom_attributes));
	}
}

void entity_project_write(jw *w, ctx *c, const PGresult *res, int row, int col, unsigned flags,
			  const project_extra *x)
{
#define V(c) db_val(res, row, col + (c))
#define I(c) db_int(res, row, col + (c))
#define B(c) db_bool(res, row, col + (c))
	deps_add(c, CACHE_KEY_PROJECT(I(PC_ID)));
	deps_add(c, CACHE_KEY_NAMESPACE(I(PC_NS_ID)));
	const char *ns = V(PC_NS_FULL_PATH), *path = V(PC_PATH);
	jw_begin_object(w);
	jw_put_int(w, "id", I(PC_ID));
	jw_put_str(w, "description", V(PC_DESCRIPTION));
	jw_put_str(w, "default_branch", V(PC_DEFAULT_BRANCH));
	if (!(flags & PROJECT_VIEW_FULL)) {
		jw_key(w, "tag_list");
		tag_list(w, c, V(PC_TAG_LIST));
		urls(w, c, ns, path);
		jw_put_str(w, "name", V(PC_NAME));
		joined(w, "name_with_namespace", V(PC_NS_FULL_NAME), " / ", V(PC_NAME));
		jw_put_str(w, "path", path);
		joined(w, "path_with_namespace", ns, "/", path);
		jw_put_int(w, "star_count", I(PC_STAR_COUNT));
		jw_put_int(w, "forks_count", I(PC_FORKS_COUNT));
		jw_put_str(w, "created_at", V(PC_CREATED_AT));
		jw_put_str(w, "last_activity_at", V(PC_LAST_ACTIVITY_AT));
		custom_attributes(w, x);
		jw_end_object(w);
		return;
	}
	if (V(PC_NS_OWNER_ID))
		deps_add(c, CACHE_KEY_USER(I(PC_NS_OWNER_ID)));
	if (V(PC_FORKED_FROM_ID)) {
		/* the source, shown or not: whether the caller may see it is the source's (its
		 * row; its namespace's place among the groups, which any namespace may change) */
		deps_add(c, CACHE_KEY_PROJECT(I(PC_FORKED_FROM_ID)));
		if (!x || !x->forked_from)
			deps_add(c, CACHE_SET_NAMESPACES);
	}
	bool issues = B(PC_ISSUES_ENABLED), mrs = B(PC_MERGE_REQUESTS_ENABLED);
	jw_put_str(w, "visibility", visibility_name((int)I(PC_VISIBILITY)));
	urls(w, c, ns, path);
	jw_key(w, "tag_list");
	tag_list(w, c, V(PC_TAG_LIST));
	const char **owner;
	if (V(PC_OWNER) && db_text_array(c->a, V(PC_OWNER), &owner) == 3) {
		jw_key(w, "owner");
		jw_begin_object(w);
		jw_put_int_or_null(w, "id", owner[0]);
		jw_put_str(w, "name", owner[1]);
		jw_put_str(w, "created_at", owner[2]);
		jw_end_object(w);
	}
	jw_put_str(w, "name", V(PC_NAME));
	joined(w, "name_with_namespace", V(PC_NS_FULL_NAME), " / ", V(PC_NAME));
	jw_put_str(w, "path", path);
	joined(w, "path_with_namespace", ns, "/", path);
	jw_put_bool(w, "issues_enabled", issues);
	if (issues)
		jw_put_int(w, "open_issues_count", I(PC_OPEN_ISSUES_COUNT));
	jw_put_bool(w, "merge_requests_enabled", mrs);
	jw_put_bool(w, "jobs_enabled", B(PC_JOBS_ENABLED));
	jw_put_bool(w, "wiki_enabled", B(PC_WIKI_ENABLED));
	jw_put_bool(w, "snippets_enabled", B(PC_SNIPPETS_ENABLED));
	jw_put_bool(w, "resolve_outdated_diff_discussions", B(PC_RESOLVE_OUTDATED));
	jw_put_bool(w, "container_registry_enabled", B(PC_CONTAINER_REGISTRY_ENABLED));
	jw_put_str(w, "created_at", V(PC_CREATED_AT));
	jw_put_str(w, "last_activity_at", V(PC_LAST_ACTIVITY_AT));
	jw_put_int_or_null(w, "creator_id", V(PC_CREATOR_ID));
	jw_key(w, "namespace");
	jw_begin_object(w);
	jw_put_int(w, "id", I(PC_NS_ID));
	jw_put_str(w, "name", V(PC_NS_NAME));
	jw_put_str(w, "path", V(PC_NS_PATH));
	jw_put_str(w, "kind", V(PC_NS_KIND));
	jw_put_str(w, "full_path", ns);
	jw_put_int_or_null(w, "parent_id", V(PC_NS_PARENT_ID)); /* 10.8's NamespaceBasic */
	jw_end_object(w);
	if (x && x->forked_from) {
		jw_key(w, "forked_from_project");
		jw_raw(w, x->forked_from, strlen(x->forked_from));
	}
	jw_put_str(w, "import_status", V(PC_IMPORT_STATUS));
	if (flags & PROJECT_CAN_ADMIN)
		jw_put_str(w, "import_error", V(PC_IMPORT_ERROR));
	if ((flags & PROJECT_PERMISSIONS) && x && x->caller) {
		const project_caller *pc = x->caller;
		jw_key(w, "permissions");
		jw_begin_object(w);
		jw_key(w, "project_access");
		access_of(w, pc->levels.member_level, pc->project_notification);
		jw_key(w, "group_access");
		access_of(w, pc->own_group_level, pc->group_notification);
		jw_end_object(w);
	}
	jw_put_bool(w, "archived", B(PC_ARCHIVED));
	jw_put_str(w, "avatar_url", entity_avatar_url(c, "project", V(PC_ID), V(PC_AVATAR)));
	jw_put_bool(w, "shared_runners_enabled", B(PC_SHARED_RUNNERS_ENABLED));
	jw_put_bool(w, "lfs_enabled", B(PC_LFS_ENABLED));
	jw_put_int(w, "forks_count", I(PC_FORKS_COUNT));
	jw_put_int(w, "star_count", I(PC_STAR_COUNT));
	if (flags & PROJECT_CAN_ADMIN) {
		const char *sealed = V(PC_RUNNERS_TOKEN);
		jw_put_str(w, "runners_token", sealed ? deps_open_secret(c, sealed) : NULL);
	}
	jw_put_bool(w, "public_jobs", B(PC_PUBLIC_JOBS));
	jw_put_str(w, "ci_config_path", V(PC_CI_CONFIG_PATH));
	jw_key(w, "shared_with_groups");
	if (x && x->shared_with_groups)
		jw_raw(w, x->shared_with_groups, strlen(x->shared_with_groups));
	else
		jw_raw(w, "[]", 2);
	jw_put_bool(w, "only_allow_merge_if_pipeline_succeeds",
		    B(PC_ONLY_ALLOW_MERGE_IF_PIPELINE_SUCCEEDS));
	jw_put_bool(w, "only_allow_merge_if_all_discussions_are_resolved",
		    B(PC_ONLY_ALLOW_MERGE_IF_ALL_DISCUSSIONS_ARE_RESOLVED));
	jw_put_bool(w, "printing_merge_request_link_enabled", B(PC_PRINTING_MR_LINK_ENABLED));
	jw_put_str(w, "merge_method", V(PC_MERGE_METHOD));
	jw_put_bool(w, "request_access_enabled", B(PC_REQUEST_ACCESS_ENABLED));
	/* 10.8: `expose :repository_storage, if: current_user.admin?` */
	if (c->user && c->user->admin)
		jw_put_str(w, "repository_storage", V(PC_REPOSITORY_STORAGE));
	if (flags & PROJECT_STATISTICS) {
		jw_key(w, "statistics");
		jw_begin_object(w);
		jw_put_int(w, "commit_count", I(PC_COMMIT_COUNT));
		jw_put_int(w, "storage_size", I(PC_STORAGE_SIZE));
		jw_put_int(w, "repository_size", I(PC_REPOSITORY_SIZE));
		jw_put_int(w, "lfs_objects_size", I(PC_LFS_OBJECTS_SIZE));
		jw_put_int(w, "job_artifacts_size", I(PC_JOB_ARTIFACTS_SIZE));
		jw_end_object(w);
	}
	custom_attributes(w, x);
	/* Links to the features the project has on (GitLab 10: issues_available? and
	 * mrs_available?) and to the rest. */
	const char *api = project_api_url(c, V(PC_ID));
	jw_key(w, "_links");
	jw_begin_object(w);
	jw_put_str(w, "self", api);
	if (issues)
		link(w, "issues", api, "/issues");
	if (mrs)
		link(w, "merge_requests", api, "/merge_requests");
	link(w, "repo_branches", api, "/repository/branches");
	link(w, "labels", api, "/labels");
	link(w, "events", api, "/events");
	link(w, "members", api, "/members");
	jw_end_object(w);
	jw_end_object(w);
#undef V
#undef I
#undef B
}

json_object *entity_project(ctx *c, const PGresult *res, int row, int col, unsigned flags,
			    const project_extra *x)
{
	jw w;
	jw_init(&w, c->a, 2048);
	entity_project_write(&w, c, res, row, col, flags, x);
	return json_tokener_parse(buf_cstr(&w.b));
}

void entity_project_list_depend(ctx *c, const char *order_by, bool search, bool by_user)
{
	deps_add(c, CACHE_SET_PROJECTS);
	if (search || strcmp(order_by, "name") == 0 || strcmp(order_by, "path") == 0)
		deps_add(c, CACHE_SET_PROJECT_TEXT);
	if (strcmp(order_by, "updated_at") == 0 || strcmp(order_by, "last_activity_at") == 0)
		deps_add(c, CACHE_SET_PROJECT_TIMES);
	/* which private projects the caller sees through groups follows the groups' places
	 * (traversal_ids); search reads the namespaces' names, owned=true their owners */
	deps_add(c, CACHE_SET_NAMESPACES);
	if (by_user)
		deps_add(c, CACHE_SET_USERS);
}
