#include "entity/project.h"

#include "auth/access.h"
#include "core/crypto.h"
#include "db/db.h"
#include "entity/entity.h"

const char *project_ssh_url(request *r, const char *ns, const char *path)
{
	return arena_printf(r->a, "git@%s:%s/%s.git", r->cfg->ssh_host, ns, path);
}

const char *project_http_url(request *r, const char *ns, const char *path)
{
	return arena_printf(r->a, "%s/%s/%s.git", r->cfg->external_url, ns, path);
}

const char *project_web_url(request *r, const char *ns, const char *path)
{
	return arena_printf(r->a, "%s/%s/%s", r->cfg->external_url, ns, path);
}

/* A JSON text of the statement, or fallback (a new empty array) when it does not parse. */
static json_object *parse_json(const char *text, bool array)
{
	json_object *o = text ? json_tokener_parse(text) : NULL;
	if (!o && array)
		o = json_object_new_array();
	return o;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;
	json_object_object_get_ex(o, key, &v);
	return v;
}

/* The simple view (BasicProjectDetails) of the fork source, from the JSON object that
 * PROJECT_FORKED_FROM_COL made: the same fields in the same order as entity_project. */
static json_object *forked_from(request *r, const char *text)
{
	json_object *src = parse_json(text, false);
	if (!src)
		return NULL;
	const char *ns = json_object_get_string(get(src, "namespace_full_path"));
	const char *path = json_object_get_string(get(src, "path"));
	json_object *o = json_object_new_object();
	static const char *const head[] = {"id", "description", "default_branch", "tag_list"};
	for (size_t i = 0; i < sizeof(head) / sizeof(*head); i++)
		json_object_object_add(o, head[i], json_object_get(get(src, head[i])));
	json_put_str(o, "ssh_url_to_repo", project_ssh_url(r, ns, path));
	json_put_str(o, "http_url_to_repo", project_http_url(r, ns, path));
	json_put_str(o, "web_url", project_web_url(r, ns, path));
	json_object_object_add(o, "name", json_object_get(get(src, "name")));
	json_object_object_add(o, "name_with_namespace",
			       json_object_get(get(src, "name_with_namespace")));
	json_put_str(o, "path", path);
	json_put_str(o, "path_with_namespace", arena_printf(r->a, "%s/%s", ns, path));
	static const char *const tail[] = {"star_count", "forks_count", "created_at",
					   "last_activity_at"};
	for (size_t i = 0; i < sizeof(tail) / sizeof(*tail); i++)
		json_object_object_add(o, tail[i], json_object_get(get(src, tail[i])));
	json_object_put(src);
	return o;
}

static json_object *access_of(const PGresult *res, int row, int level_col, int notif_col)
{
	if (PQgetisnull(res, row, level_col))
		return NULL;
	json_object *o = json_object_new_object();
	json_put_int(o, "access_level", db_int(res, row, level_col));
	json_put_int(o, "notification_level", db_int(res, row, notif_col));
	return o;
}

json_object *entity_project(request *r, const PGresult *res, int row, int col, unsigned flags)
{
#define V(c) db_val(res, row, col + (c))
#define I(c) db_int(res, row, col + (c))
#define B(c) db_bool(res, row, col + (c))
	json_object *o = json_object_new_object();
	const char *ns = V(PC_NS_FULL_PATH), *path = V(PC_PATH);
	const char *full_path = arena_printf(r->a, "%s/%s", ns, path);
	const char *name_with_ns = arena_printf(r->a, "%s / %s", V(PC_NS_FULL_NAME), V(PC_NAME));
	json_put_int(o, "id", I(PC_ID));
	json_put_str(o, "description", V(PC_DESCRIPTION));
	json_put_str(o, "default_branch", V(PC_DEFAULT_BRANCH));
	if (!(flags & PROJECT_VIEW_FULL)) {
		json_object_object_add(o, "tag_list", parse_json(V(PC_TAG_LIST), true));
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
	bool issues = B(PC_ISSUES_ENABLED), mrs = B(PC_MERGE_REQUESTS_ENABLED);
	json_put_str(o, "visibility", visibility_name((int)I(PC_VISIBILITY)));
	json_put_str(o, "ssh_url_to_repo", project_ssh_url(r, ns, path));
	json_put_str(o, "http_url_to_repo", project_http_url(r, ns, path));
	json_put_str(o, "web_url", project_web_url(r, ns, path));
	json_object_object_add(o, "tag_list", parse_json(V(PC_TAG_LIST), true));
	if (V(PC_OWNER))
		json_object_object_add(o, "owner", parse_json(V(PC_OWNER), false));
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
	if (V(PC_FORKED_FROM))
		json_object_object_add(o, "forked_from_project", forked_from(r, V(PC_FORKED_FROM)));
	json_put_str(o, "import_status", V(PC_IMPORT_STATUS));
	if (flags & PROJECT_CAN_ADMIN)
		json_put_str(o, "import_error", V(PC_IMPORT_ERROR));
	if (flags & PROJECT_PERMISSIONS) {
		json_object *perm = json_object_new_object();
		json_object_object_add(perm, "project_access",
				       access_of(res, row, col + PC_PROJECT_ACCESS,
						 col + PC_PROJECT_NOTIFICATION));
		json_object_object_add(perm, "group_access",
				       access_of(res, row, col + PC_GROUP_ACCESS,
						 col + PC_GROUP_NOTIFICATION));
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
		json_put_str(o, "runners_token", sealed ? crypto_open(r->a, r->key, sealed) : NULL);
	}
	json_put_bool(o, "public_jobs", B(PC_PUBLIC_JOBS));
	json_put_str(o, "ci_config_path", V(PC_CI_CONFIG_PATH));
	json_object_object_add(o, "shared_with_groups", parse_json(V(PC_SHARED_WITH_GROUPS), true));
	json_put_bool(o, "only_allow_merge_if_pipeline_succeeds",
		      B(PC_ONLY_ALLOW_MERGE_IF_PIPELINE_SUCCEEDS));
	json_put_bool(o, "only_allow_merge_if_all_discussions_are_resolved",
		      B(PC_ONLY_ALLOW_MERGE_IF_ALL_DISCUSSIONS_ARE_RESOLVED));
	json_put_bool(o, "printing_merge_request_link_enabled", B(PC_PRINTING_MR_LINK_ENABLED));
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
	const char *api = arena_printf(r->a, "%s/api/v4/projects/%s", r->cfg->external_url,
				       V(PC_ID));
	json_object *links = json_object_new_object();
	json_put_str(links, "self", api);
	if (issues)
		json_put_str(links, "issues", arena_printf(r->a, "%s/issues", api));
	if (mrs)
		json_put_str(links, "merge_requests", arena_printf(r->a, "%s/merge_requests", api));
	json_put_str(links, "repo_branches", arena_printf(r->a, "%s/repository/branches", api));
	json_put_str(links, "labels", arena_printf(r->a, "%s/labels", api));
	json_put_str(links, "events", arena_printf(r->a, "%s/events", api));
	json_put_str(links, "members", arena_printf(r->a, "%s/members", api));
	json_object_object_add(o, "_links", links);
#undef V
#undef I
#undef B
	return o;
}
