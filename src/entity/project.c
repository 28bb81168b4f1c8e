#include "entity/project.h"

#include <stdlib.h>
#include <string.h>

#include "auth/access.h"
#include "db/db.h"
#include "entity/entity.h"
#include "http/cache.h"

const char *project_ssh_url(request *r, const char *ns, const char *path)
{
	return arena_printf(r->ctx.a, "git@%s:%s/%s.git", r->ctx.cfg->ssh_host, ns, path);
}

const char *project_http_url(request *r, const char *ns, const char *path)
{
	return arena_printf(r->ctx.a, "%s/%s/%s.git", r->ctx.cfg->external_url, ns, path);
}

const char *project_web_url(request *r, const char *ns, const char *path)
{
	return arena_printf(r->ctx.a, "%s/%s/%s", r->ctx.cfg->external_url, ns, path);
}

/* A JSON text of the statement, or NULL when it does not parse. */
static json_object *parse_json(const char *text)
{
	return text ? json_tokener_parse(text) : NULL;
}

static int compare_tags(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The tags of the text[] literal as a JSON array, sorted (byte order, as the database's
 * C collation; one order whatever the database's locale). */
static json_object *tag_list(request *r, const char *literal)
{
	const char **tags;
	int n = db_text_array(r->ctx.a, literal, &tags);
	json_object *list = json_object_new_array();
	if (n > 1)
		qsort(tags, (size_t)n, sizeof(*tags), compare_tags);
	for (int i = 0; i < n; i++)
		json_object_array_add(list, json_object_new_string(tags[i]));
	return list;
}

/* NotificationSetting.levels: the level GitLab keeps as an integer; the default
 * setting is 'global'. */
static int notification_level(const char *name)
{
	static const char *const levels[] = {"disabled", "participating", "watch", "global",
					     "mention", "custom"};
	for (size_t i = 0; i < sizeof(levels) / sizeof(*levels); i++)
		if (strcmp(name, levels[i]) == 0)
			return (int)i;
	return 3;
}

void project_caller_read(project_caller *out, request *r, const PGresult *res, int row, int col)
{
	memset(out, 0, sizeof(*out));
	out->project_notification = out->group_notification = 3;
	long long me = r->ctx.user ? r->ctx.user->id : 0;
	const char *owner = db_val(res, row, col + PC_NS_OWNER_ID);
	bool personal = strcmp(db_val(res, row, col + PC_NS_KIND), "user") == 0;
	out->levels.ns_owner = me && personal && owner && strtoll(owner, NULL, 10) == me;
	out->levels.member_level = (int)db_int(res, row, col + PC_MEMBER_LEVEL);
	/* {{group id, level}, ...}: the highest level, and the one of the project's group */
	long long *g;
	int n = db_int_array(r->ctx.a, db_val(res, row, col + PC_GROUP_LEVELS), &g);
	long long ns_id = db_int(res, row, col + PC_NS_ID);
	for (int i = 0; i + 1 < n; i += 2) {
		int level = (int)g[i + 1];
		if (level > out->levels.group_level)
			out->levels.group_level = level;
		if (g[i] == ns_id)
			out->own_group_level = level;
	}
	const char **settings;
	n = db_text_array(r->ctx.a, db_val(res, row, col + PC_NOTIFICATION_LEVELS), &settings);
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

json_object *entity_project_group_link(request *r, const PGresult *res, int row)
{
	cache_depend(r, CACHE_KEY_NAMESPACE(db_int(res, row, PLK_GROUP_ID)));
	json_object *o = json_object_new_object();
	json_put_int(o, "group_id", db_int(res, row, PLK_GROUP_ID));
	json_put_str(o, "group_name", db_val(res, row, PLK_GROUP_NAME));
	json_put_int(o, "group_access_level", db_int(res, row, PLK_GROUP_ACCESS));
	return o;
}

/* The permissions' project_access or group_access: the caller's own membership. */
static json_object *access_of(int level, int notification)
{
	if (!level)
		return NULL;
	json_object *o = json_object_new_object();
	json_put_int(o, "access_level", level);
	json_put_int(o, "notification_level", notification);
	return o;
}

json_object *entity_project(request *r, const PGresult *res, int row, int col, unsigned flags,
			    const project_extra *x)
{
#define V(c) db_val(res, row, col + (c))
#define I(c) db_int(res, row, col + (c))
#define B(c) db_bool(res, row, col + (c))
	cache_depend(r, CACHE_KEY_PROJECT(I(PC_ID)));
	cache_depend(r, CACHE_KEY_NAMESPACE(I(PC_NS_ID)));
	json_object *o = json_object_new_object();
	const char *ns = V(PC_NS_FULL_PATH), *path = V(PC_PATH);
	const char *full_path = arena_printf(r->ctx.a, "%s/%s", ns, path);
	const char *name_with_ns = arena_printf(r->ctx.a, "%s / %s", V(PC_NS_FULL_NAME), V(PC_NAME));
	json_put_int(o, "id", I(PC_ID));
	json_put_str(o, "description", V(PC_DESCRIPTION));
	json_put_str(o, "default_branch", V(PC_DEFAULT_BRANCH));
	if (!(flags & PROJECT_VIEW_FULL)) {
		json_object_object_add(o, "tag_list", tag_list(r, V(PC_TAG_LIST)));
		json_put_str(o, "ssh_url_to_repo", project_ssh_url(r, ns, path));
		json_put_str(o, "http_url_to_repo", project_http_url(r, ns, path));
		json_put_str(o, "web_url", project_web_url(r, ns, path));
		json_put_str(o, "name", V(PC_NAME));
		json_put_str(o, "name_with_namespace", name_with_ns);
		json_put_str(o, "path", path);
		json_put_str(o, "path_with_namespace", full_path);
		json_put_int(o, "star_count", I(PC_STAR_COUNT));
		json_put_int(o, "forks_count", I(PC_FORKS_COUNT));
		json_put_str(o, "created_at", V(PC_CREATED_AT));
		json_put_str(o, "last_activity_at", V(PC_LAST_ACTIVITY_AT));
		return o;
	}
	if (V(PC_NS_OWNER_ID))
		cache_depend(r, CACHE_KEY_USER(I(PC_NS_OWNER_ID)));
	if (V(PC_FORKED_FROM_ID)) {
		/* the source, shown or not: whether the caller may see it is the source's (its
		 * row; its namespace's place among the groups, which any namespace may change) */
		cache_depend(r, CACHE_KEY_PROJECT(I(PC_FORKED_FROM_ID)));
		if (!x || !x->forked_from)
			cache_depend(r, CACHE_SET_NAMESPACES);
	}
	bool issues = B(PC_ISSUES_ENABLED), mrs = B(PC_MERGE_REQUESTS_ENABLED);
	json_put_str(o, "visibility", visibility_name((int)I(PC_VISIBILITY)));
	json_put_str(o, "ssh_url_to_repo", project_ssh_url(r, ns, path));
	json_put_str(o, "http_url_to_repo", project_http_url(r, ns, path));
	json_put_str(o, "web_url", project_web_url(r, ns, path));
	json_object_object_add(o, "tag_list", tag_list(r, V(PC_TAG_LIST)));
	if (V(PC_OWNER))
		json_object_object_add(o, "owner", parse_json(V(PC_OWNER)));
	json_put_str(o, "name", V(PC_NAME));
	json_put_str(o, "name_with_namespace", name_with_ns);
	json_put_str(o, "path", path);
	json_put_str(o, "path_with_namespace", full_path);
	json_put_bool(o, "issues_enabled", issues);
	if (issues)
		json_put_int(o, "open_issues_count", I(PC_OPEN_ISSUES_COUNT));
	json_put_bool(o, "merge_requests_enabled", mrs);
	json_put_bool(o, "jobs_enabled", B(PC_JOBS_ENABLED));
	json_put_bool(o, "wiki_enabled", B(PC_WIKI_ENABLED));
	json_put_bool(o, "snippets_enabled", B(PC_SNIPPETS_ENABLED));
	json_put_bool(o, "resolve_outdated_diff_discussions", B(PC_RESOLVE_OUTDATED));
	json_put_bool(o, "container_registry_enabled", B(PC_CONTAINER_REGISTRY_ENABLED));
	json_put_str(o, "created_at", V(PC_CREATED_AT));
	json_put_str(o, "last_activity_at", V(PC_LAST_ACTIVITY_AT));
	json_put_int_or_null(o, "creator_id", V(PC_CREATOR_ID));
	json_object *nsobj = json_object_new_object();
	json_put_int(nsobj, "id", I(PC_NS_ID));
	json_put_str(nsobj, "name", V(PC_NS_NAME));
	json_put_str(nsobj, "path", V(PC_NS_PATH));
	json_put_str(nsobj, "kind", V(PC_NS_KIND));
	json_put_str(nsobj, "full_path", ns);
	json_object_object_add(o, "namespace", nsobj);
	if (x && x->forked_from)
		json_object_object_add(o, "forked_from_project", json_object_get(x->forked_from));
	json_put_str(o, "import_status", V(PC_IMPORT_STATUS));
	if (flags & PROJECT_CAN_ADMIN)
		json_put_str(o, "import_error", V(PC_IMPORT_ERROR));
	if ((flags & PROJECT_PERMISSIONS) && x && x->caller) {
		const project_caller *c = x->caller;
		json_object *perm = json_object_new_object();
		json_object_object_add(perm, "project_access",
				       access_of(c->levels.member_level, c->project_notification));
		json_object_object_add(perm, "group_access",
				       access_of(c->own_group_level, c->group_notification));
		json_object_object_add(o, "permissions", perm);
	}
	json_put_bool(o, "archived", B(PC_ARCHIVED));
	json_put_str(o, "avatar_url", entity_avatar_url(r, "project", V(PC_ID), V(PC_AVATAR)));
	json_put_bool(o, "shared_runners_enabled", B(PC_SHARED_RUNNERS_ENABLED));
	json_put_bool(o, "lfs_enabled", B(PC_LFS_ENABLED));
	json_put_int(o, "forks_count", I(PC_FORKS_COUNT));
	json_put_int(o, "star_count", I(PC_STAR_COUNT));
	if (flags & PROJECT_CAN_ADMIN) {
		const char *sealed = V(PC_RUNNERS_TOKEN);
		json_put_str(o, "runners_token", sealed ? cache_open_secret(r, sealed) : NULL);
	}
	json_put_bool(o, "public_jobs", B(PC_PUBLIC_JOBS));
	json_put_str(o, "ci_config_path", V(PC_CI_CONFIG_PATH));
	json_object *shared = x ? x->shared_with_groups : NULL;
	json_object_object_add(o, "shared_with_groups",
			       shared ? json_object_get(shared) : json_object_new_array());
	json_put_bool(o, "only_allow_merge_if_pipeline_succeeds",
		      B(PC_ONLY_ALLOW_MERGE_IF_PIPELINE_SUCCEEDS));
	json_put_bool(o, "only_allow_merge_if_all_discussions_are_resolved",
		      B(PC_ONLY_ALLOW_MERGE_IF_ALL_DISCUSSIONS_ARE_RESOLVED));
	json_put_bool(o, "printing_merge_request_link_enabled", B(PC_PRINTING_MR_LINK_ENABLED));
	json_put_str(o, "merge_method", V(PC_MERGE_METHOD));
	json_put_bool(o, "request_access_enabled", B(PC_REQUEST_ACCESS_ENABLED));
	if (flags & PROJECT_STATISTICS) {
		json_object *st = json_object_new_object();
		json_put_int(st, "commit_count", I(PC_COMMIT_COUNT));
		json_put_int(st, "storage_size", I(PC_STORAGE_SIZE));
		json_put_int(st, "repository_size", I(PC_REPOSITORY_SIZE));
		json_put_int(st, "lfs_objects_size", I(PC_LFS_OBJECTS_SIZE));
		json_put_int(st, "job_artifacts_size", I(PC_JOB_ARTIFACTS_SIZE));
		json_object_object_add(o, "statistics", st);
	}
	/* Links to the features the project has on (GitLab 10: issues_available? and
	 * mrs_available?) and to the rest. */
	const char *api = arena_printf(r->ctx.a, "%s/api/v4/projects/%s", r->ctx.cfg->external_url,
				       V(PC_ID));
	json_object *links = json_object_new_object();
	json_put_str(links, "self", api);
	if (issues)
		json_put_str(links, "issues", arena_printf(r->ctx.a, "%s/issues", api));
	if (mrs)
		json_put_str(links, "merge_requests", arena_printf(r->ctx.a, "%s/merge_requests", api));
	json_put_str(links, "repo_branches", arena_printf(r->ctx.a, "%s/repository/branches", api));
	json_put_str(links, "labels", arena_printf(r->ctx.a, "%s/labels", api));
	json_put_str(links, "events", arena_printf(r->ctx.a, "%s/events", api));
	json_put_str(links, "members", arena_printf(r->ctx.a, "%s/members", api));
	json_object_object_add(o, "_links", links);
#undef V
#undef I
#undef B
	return o;
}

void entity_project_list_depend(request *r, const char *order_by, bool search, bool by_user)
{
	cache_depend(r, CACHE_SET_PROJECTS);
	if (search || strcmp(order_by, "name") == 0 || strcmp(order_by, "path") == 0)
		cache_depend(r, CACHE_SET_PROJECT_TEXT);
	if (strcmp(order_by, "updated_at") == 0 || strcmp(order_by, "last_activity_at") == 0)
		cache_depend(r, CACHE_SET_PROJECT_TIMES);
	/* which private projects the caller sees through groups follows the groups' places
	 * (traversal_ids); search reads the namespaces' names, owned=true their owners */
	cache_depend(r, CACHE_SET_NAMESPACES);
	if (by_user)
		cache_depend(r, CACHE_SET_USERS);
}
