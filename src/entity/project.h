/* Presenters for projects: GitLab 10.0's BasicProjectDetails (the simple view, and what
 * anonymous callers get), Project (after create, edit, fork, star, archive; the projects
 * of a group) and ProjectWithAccess (GET /projects/:id and the lists, for a signed-in
 * caller), with the fields in the order of doc/api/projects.md. */
#ifndef COLLABD_ENTITY_PROJECT_H
#define COLLABD_ENTITY_PROJECT_H

#include <stdbool.h>

#include "http/request.h"

/* The columns the simple view reads, from projects p and its namespaces n, in this
 * order. The URLs are built from the namespace's full path and the project's path. */
#define PROJECT_BASIC_COLS                                                                     \
	"p.id, p.description, p.default_branch, p.name, p.path, n.full_path, n.full_name,"       \
	" coalesce((SELECT json_agg(t ORDER BY t) FROM unnest(p.tag_list) t)::text, '[]'),"      \
	" p.star_count, p.forks_count, iso8601(p.created_at), iso8601(p.last_activity_at)"
#define PROJECT_BASIC_NCOLS 12

/* The project a project P was forked from, as one JSON text (NULL when none or when it
 * is being deleted): the simple view's values. */
#define PROJECT_FORKED_FROM_COL(P)                                                             \
	"(SELECT json_build_object('id', f.id, 'description', f.description, 'default_branch',"  \
	" f.default_branch, 'tag_list', coalesce((SELECT json_agg(t ORDER BY t)"                \
	" FROM unnest(f.tag_list) t), '[]'::json), 'name', f.name, 'name_with_namespace',"       \
	" fn.full_name || ' / ' || f.name, 'path', f.path, 'namespace_full_path', fn.full_path,"  \
	" 'star_count', f.star_count, 'forks_count', f.forks_count, 'created_at',"              \
	" iso8601(f.created_at), 'last_activity_at', iso8601(f.last_activity_at))::text"        \
	" FROM projects f JOIN namespaces fn ON fn.id = f.namespace_id WHERE f.id = "           \
	P ".forked_from_id AND NOT f.pending_delete)"

/* Every column of the full record: the basic ones, then the rest. */
#define PROJECT_COLS                                                                           \
	PROJECT_BASIC_COLS ", p.visibility, p.archived, CASE WHEN n.kind = 'user' THEN"          \
	" (SELECT json_build_object('id', ou.id, 'name', ou.name, 'created_at',"                \
	" iso8601(ou.created_at))::text FROM users ou WHERE ou.id = n.owner_id) END,"           \
	" p.issues_enabled, p.merge_requests_enabled, p.jobs_enabled, p.wiki_enabled,"          \
	" p.snippets_enabled, p.resolve_outdated_diff_discussions, p.container_registry_enabled,"\
	" p.creator_id, n.id, n.name, n.path, n.kind, " PROJECT_FORKED_FROM_COL("p") ","        \
	" p.import_status, p.import_error, p.avatar, p.open_issues_count, p.runners_token_sealed,"\
	" p.public_jobs, p.ci_config_path, coalesce((SELECT json_agg(json_build_object("        \
	"'group_id', l.group_id, 'group_name', lg.name, 'group_access_level', l.group_access)"  \
	" ORDER BY l.id)::text FROM project_group_links l JOIN namespaces lg ON lg.id = l.group_id"\
	" WHERE l.project_id = p.id), '[]'), p.only_allow_merge_if_pipeline_succeeds,"          \
	" p.request_access_enabled, p.only_allow_merge_if_all_discussions_are_resolved,"        \
	" p.printing_merge_request_link_enabled, p.shared_runners_enabled, p.lfs_enabled,"      \
	" p.commit_count, p.storage_size, p.repository_size, p.lfs_objects_size,"               \
	" p.job_artifacts_size"
#define PROJECT_NCOLS 47

/* The level name GitLab keeps as an integer (NotificationSetting.levels); the default
 * setting is 'global'. */
#define PROJECT_NOTIFICATION_LEVEL(S)                                                          \
	"coalesce((SELECT CASE ns.level WHEN 'disabled' THEN 0 WHEN 'participating' THEN 1"      \
	" WHEN 'watch' THEN 2 WHEN 'global' THEN 3 WHEN 'mention' THEN 4 WHEN 'custom' THEN 5"    \
	" END FROM notification_settings ns WHERE ns.user_id = me.id AND " S "), 3)"

/* The caller's own membership of project P or group G (not an ancestor's), as SELECT
 * WHAT FROM members m ...: NULL when there is none. */
#define PROJECT_OWN_MEMBER(WHAT, TYPE, ID)                                                     \
	"(SELECT " WHAT " FROM members m WHERE m.source_type = '" TYPE "'"                      \
	" AND m.source_id = " ID " AND m.user_id = me.id AND m.requested_at IS NULL)"

/* ProjectWithAccess's permissions, right after PROJECT_COLS (the statement has `me`):
 * the caller's own membership of the project and of its group, each a level and the
 * notification level, NULL when there is none. */
#define PROJECT_PERMISSION_COLS                                                                \
	PROJECT_OWN_MEMBER("m.access_level", "Project", "p.id") ", "                           \
	PROJECT_OWN_MEMBER(PROJECT_NOTIFICATION_LEVEL("ns.source_type = 'Project'"             \
						      " AND ns.source_id = p.id"),             \
			   "Project", "p.id") ", "                                             \
	"CASE WHEN n.kind = 'group' THEN " PROJECT_OWN_MEMBER("m.access_level", "Namespace",    \
							      "n.id") " END, "                 \
	"CASE WHEN n.kind = 'group' THEN "                                                      \
	PROJECT_OWN_MEMBER(PROJECT_NOTIFICATION_LEVEL("ns.source_type = 'Namespace'"           \
						      " AND ns.source_id = n.id"),             \
			   "Namespace", "n.id") " END"
#define PROJECT_PERMISSION_NCOLS 4

enum project_col {
	PC_ID, PC_DESCRIPTION, PC_DEFAULT_BRANCH, PC_NAME, PC_PATH, PC_NS_FULL_PATH,
	PC_NS_FULL_NAME, PC_TAG_LIST, PC_STAR_COUNT, PC_FORKS_COUNT, PC_CREATED_AT,
	PC_LAST_ACTIVITY_AT,
	/* full record */
	PC_VISIBILITY, PC_ARCHIVED, PC_OWNER, PC_ISSUES_ENABLED, PC_MERGE_REQUESTS_ENABLED,
	PC_JOBS_ENABLED, PC_WIKI_ENABLED, PC_SNIPPETS_ENABLED, PC_RESOLVE_OUTDATED,
	PC_CONTAINER_REGISTRY_ENABLED, PC_CREATOR_ID, PC_NS_ID, PC_NS_NAME, PC_NS_PATH,
	PC_NS_KIND, PC_FORKED_FROM, PC_IMPORT_STATUS, PC_IMPORT_ERROR, PC_AVATAR,
	PC_OPEN_ISSUES_COUNT, PC_RUNNERS_TOKEN, PC_PUBLIC_JOBS, PC_CI_CONFIG_PATH,
	PC_SHARED_WITH_GROUPS, PC_ONLY_ALLOW_MERGE_IF_PIPELINE_SUCCEEDS,
	PC_REQUEST_ACCESS_ENABLED, PC_ONLY_ALLOW_MERGE_IF_ALL_DISCUSSIONS_ARE_RESOLVED,
	PC_PRINTING_MR_LINK_ENABLED, PC_SHARED_RUNNERS_ENABLED, PC_LFS_ENABLED,
	PC_COMMIT_COUNT, PC_STORAGE_SIZE, PC_REPOSITORY_SIZE, PC_LFS_OBJECTS_SIZE,
	PC_JOB_ARTIFACTS_SIZE,
	/* PROJECT_PERMISSION_COLS */
	PC_PROJECT_ACCESS = PROJECT_NCOLS, PC_PROJECT_NOTIFICATION, PC_GROUP_ACCESS,
	PC_GROUP_NOTIFICATION,
};

enum project_view {
	PROJECT_VIEW_BASIC = 0,      /* BasicProjectDetails: reads PROJECT_BASIC_COLS only */
	PROJECT_VIEW_FULL = 1 << 0,  /* Project: reads PROJECT_COLS */
	PROJECT_PERMISSIONS = 1 << 1, /* ProjectWithAccess: PROJECT_PERMISSION_COLS follow */
	PROJECT_CAN_ADMIN = 1 << 2,  /* runners_token and import_error (user_can_admin_project) */
	PROJECT_STATISTICS = 1 << 3, /* statistics=true */
};

/* The project whose columns start at column col of row, in the view that flags (enum
 * project_view) give. The runners token is opened with r->key. */
json_object *entity_project(request *r, const PGresult *res, int row, int col, unsigned flags);
/* git@<ssh_host>:<full path>.git, <external_url>/<full path>.git, <external_url>/<full
 * path> for the namespace full path ns and the project path, in r's arena. */
const char *project_ssh_url(request *r, const char *ns, const char *path);
const char *project_http_url(request *r, const char *ns, const char *path);
const char *project_web_url(request *r, const char *ns, const char *path);

#endif
