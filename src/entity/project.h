/* Presenters for projects: GitLab 10.0's BasicProjectDetails (the simple view, and what
 * anonymous callers get), Project (after create, edit, fork, star, archive; the projects
 * of a group) and ProjectWithAccess (GET /projects/:id and the lists, for a signed-in
 * caller), with the fields in the order of doc/api/projects.md. */
#ifndef COLLABD_ENTITY_PROJECT_H
#define COLLABD_ENTITY_PROJECT_H

#include <stdbool.h>

#include "auth/access.h"
#include "core/jw.h"
#include "core/ctx.h"
#include "db/db.h"

/* The columns the simple view reads, from projects p and its namespaces n, in this
 * order. The URLs are built from the namespace's full path and the project's path; the
 * tags come as the text[] literal and are sorted by the presenter; the namespace's id
 * names what the record depends on in the response cache. */
#define PROJECT_BASIC_COLS                                                                         \
	"p.id, p.description, p.default_branch, p.name, p.path, n.full_path, n.full_name,"         \
	" p.tag_list::text, p.star_count, p.forks_count, iso8601(p.created_at),"                   \
	" iso8601(p.last_activity_at), n.id"
#define PROJECT_BASIC_NCOLS 13

/* Every column of the full record: the basic ones, then the rest. A statement pays for
 * each column, join and subquery at every execution (the executor's start-up of its
 * plan), so the record holds what most projects need and no more: the owner of a
 * personal project as one text[] {id, name, created_at} (a subquery costs less than a
 * join that widens every row above it); of the fork source and of the groups the
 * project is shared with only whether there are any (forked_from_id, shared): the
 * handler fetches those apart, for the projects that have them (projects_extras()). */
#define PROJECT_COLS PROJECT_COLS_SHARED(PROJECT_SHARED)
/* Whether any: the count the row keeps (sql/0041), without a probe of the links. */
#define PROJECT_SHARED "p.group_links_count > 0"
/* PROJECT_COLS with SHARED as the column of the groups the project is shared with: whether
 * there are any (PROJECT_SHARED), or the links themselves (PROJECT_SHARED_LINKS). */
#define PROJECT_COLS_SHARED(SHARED)                                                                \
	PROJECT_BASIC_COLS                                                                         \
	", p.visibility, p.archived, CASE WHEN n.kind = 'user' THEN"                               \
	" (SELECT ARRAY[ou.id::text, ou.name, iso8601(ou.created_at)]::text FROM users ou"         \
	" WHERE ou.id = n.owner_id) END,"                                                          \
	" p.issues_enabled, p.merge_requests_enabled, p.jobs_enabled, p.wiki_enabled,"             \
	" p.snippets_enabled, p.resolve_outdated_diff_discussions, p.container_registry_enabled,"  \
	" p.creator_id, n.name, n.path, n.kind, p.forked_from_id,"                                 \
	" p.import_status, p.import_error, p.avatar, p.open_issues_count, p.runners_token_sealed," \
	" p.public_jobs, p.ci_config_path,"                                                        \
	" " SHARED ","                                                                             \
	" p.only_allow_merge_if_pipeline_succeeds,"                                                \
	" p.request_access_enabled, p.only_allow_merge_if_all_discussions_are_resolved,"           \
	" p.printing_merge_request_link_enabled, p.shared_runners_enabled, p.lfs_enabled,"         \
	" p.commit_count, p.storage_size, p.repository_size, p.lfs_objects_size,"                  \
	" p.job_artifacts_size, n.owner_id, p.merge_method, n.parent_id, p.repository_storage"
#define PROJECT_NCOLS 51

/* What the statement knows of the caller (whose id is the SQL expression ME, NULL when
 * anonymous) and the project of PROJECT_COLS, right after them, each found once: their
 * own membership level of the project (NULL when none); their memberships of the
 * project's group and the groups above it as {{group id, level}, ...} (NULL for a
 * personal project); their notification settings of the project and of its namespace
 * as {Project:level,Namespace:level} (NULL for none). project_caller_read() reads them
 * back; the groups the project is shared with come apart (projects_extras()). */
#define PROJECT_CALLER_COLS(ME)                                                                         \
	"(SELECT m.access_level FROM members m WHERE m.source_type = 'Project'"                         \
	" AND m.source_id = p.id AND m.user_id = " ME " AND " SQL_MEMBER_ACTIVE(                        \
		"m") "),"                                                                               \
		     " CASE WHEN n.kind = 'group' THEN ARRAY(SELECT ARRAY[m.source_id, m.access_level]" \
		     " FROM members m WHERE m.user_id = " ME " AND m.source_type = 'Namespace'"         \
		     " AND m.source_id = ANY (n.traversal_ids) AND " SQL_MEMBER_ACTIVE(                 \
			     "m") ")::text END,"                                                        \
				  " ARRAY[(SELECT 'Project:' || s.level FROM notification_settings s"   \
				  " WHERE s.user_id = " ME                                              \
				  " AND s.source_type = 'Project' AND s.source_id = p.id),"             \
				  " (SELECT 'Namespace:' || s.level FROM notification_settings s"       \
				  " WHERE s.user_id = " ME                                              \
				  " AND s.source_type = 'Namespace' AND s.source_id = n.id)]::text"
#define PROJECT_CALLER_NCOLS 3
/* The same three columns for the rows of a list (project_caller_read_list() reads them),
 * with what the caller has found once for the page, not with subqueries on every row:
 * the caller's (me's) memberships of any group and of the page's projects (PAGE, a SQL
 * set of their ids) as {{0 (project) or 1 (group), id, level}, ...}; the traversal_ids of
 * the project's group (NULL for a personal project); the caller's notification settings
 * of any namespace and of the page's projects as {Project:id:level,Namespace:id:level,...}. */
#define PROJECT_CALLER_LIST_COLS(PAGE)                                                                 \
	"(SELECT array_agg(ARRAY[CASE WHEN m.source_type = 'Project' THEN 0 ELSE 1 END,"               \
	" m.source_id, m.access_level])::text FROM me cm JOIN members m ON m.user_id = cm.id"          \
	" WHERE " SQL_MEMBER_ACTIVE(                                                                   \
		"m") " AND (m.source_type = 'Namespace'"                                               \
		     " OR (m.source_type = 'Project' AND m.source_id IN (" PAGE ")))),"                \
		     " CASE WHEN n.kind = 'group' THEN n.traversal_ids::text END,"                     \
		     " (SELECT array_agg(s.source_type || ':' || s.source_id || ':' || s.level)::text" \
		     " FROM me cs JOIN notification_settings s ON s.user_id = cs.id"                   \
		     " WHERE s.source_type = 'Namespace' OR (s.source_type = 'Project'"                \
		     " AND s.source_id IN (" PAGE ")))"

/* PROJECT_CALLER_LIST_COLS with the page's projects as IDS, a SQL bigint[] evaluated once
 * (= ANY of an InitPlan costs less at each execution than IN of a hashed subquery). */
#define PROJECT_CALLER_LIST_COLS_ANY(IDS)                                                              \
	"(SELECT array_agg(ARRAY[CASE WHEN m.source_type = 'Project' THEN 0 ELSE 1 END,"               \
	" m.source_id, m.access_level])::text FROM me cm JOIN members m ON m.user_id = cm.id"          \
	" WHERE " SQL_MEMBER_ACTIVE(                                                                   \
		"m") " AND (m.source_type = 'Namespace'"                                               \
		     " OR (m.source_type = 'Project' AND m.source_id = ANY (" IDS ")))),"              \
		     " CASE WHEN n.kind = 'group' THEN n.traversal_ids::text END,"                     \
		     " (SELECT array_agg(s.source_type || ':' || s.source_id || ':' || s.level)::text" \
		     " FROM me cs JOIN notification_settings s ON s.user_id = cs.id"                   \
		     " WHERE s.source_type = 'Namespace' OR (s.source_type = 'Project'"                \
		     " AND s.source_id = ANY (" IDS ")))"

enum project_col {
	PC_ID,
	PC_DESCRIPTION,
	PC_DEFAULT_BRANCH,
	PC_NAME,
	PC_PATH,
	PC_NS_FULL_PATH,
	PC_NS_FULL_NAME,
	PC_TAG_LIST,
	PC_STAR_COUNT,
	PC_FORKS_COUNT,
	PC_CREATED_AT,
	PC_LAST_ACTIVITY_AT,
	PC_NS_ID,
	/* full record */
	PC_VISIBILITY,
	PC_ARCHIVED,
	PC_OWNER,
	PC_ISSUES_ENABLED,
	PC_MERGE_REQUESTS_ENABLED,
	PC_JOBS_ENABLED,
	PC_WIKI_ENABLED,
	PC_SNIPPETS_ENABLED,
	PC_RESOLVE_OUTDATED,
	PC_CONTAINER_REGISTRY_ENABLED,
	PC_CREATOR_ID,
	PC_NS_NAME,
	PC_NS_PATH,
	PC_NS_KIND,
	PC_FORKED_FROM_ID,
	PC_IMPORT_STATUS,
	PC_IMPORT_ERROR,
	PC_AVATAR,
	PC_OPEN_ISSUES_COUNT,
	PC_RUNNERS_TOKEN,
	PC_PUBLIC_JOBS,
	PC_CI_CONFIG_PATH,
	PC_SHARED,
	PC_ONLY_ALLOW_MERGE_IF_PIPELINE_SUCCEEDS,
	PC_REQUEST_ACCESS_ENABLED,
	PC_ONLY_ALLOW_MERGE_IF_ALL_DISCUSSIONS_ARE_RESOLVED,
	PC_PRINTING_MR_LINK_ENABLED,
	PC_SHARED_RUNNERS_ENABLED,
	PC_LFS_ENABLED,
	PC_COMMIT_COUNT,
	PC_STORAGE_SIZE,
	PC_REPOSITORY_SIZE,
	PC_LFS_OBJECTS_SIZE,
	PC_JOB_ARTIFACTS_SIZE,
	PC_NS_OWNER_ID,
	PC_MERGE_METHOD,
	PC_NS_PARENT_ID,
	PC_REPOSITORY_STORAGE,
	/* PROJECT_CALLER_COLS */
	PC_MEMBER_LEVEL = PROJECT_NCOLS,
	PC_GROUP_LEVELS,
	PC_NOTIFICATION_LEVELS,
};
/* The column lists and the enum agree (statements declare their counts from these). */
_Static_assert(PC_NS_ID + 1 == PROJECT_BASIC_NCOLS, "PROJECT_BASIC_COLS");
_Static_assert(PC_REPOSITORY_STORAGE + 1 == PROJECT_NCOLS, "PROJECT_COLS and enum project_col");
_Static_assert(PC_NOTIFICATION_LEVELS + 1 == PROJECT_NCOLS + PROJECT_CALLER_NCOLS,
	       "PROJECT_CALLER_COLS and enum project_col");

/* The group links of projects, for projects_extras(): $1 the projects' ids (a bigint[]),
 * $2 the caller's id; per link, in the order of the projects then of the links, the
 * project, the group, its name, the access it is given and the caller's level in that
 * group through it or a group above it (0 when none). */
#define PROJECT_LINKS_SELECT                                                                       \
	"SELECT l.project_id, l.group_id, lg.name, l.group_access, coalesce((SELECT"               \
	" max(m.access_level) FROM members m WHERE m.user_id = $2::bigint"                         \
	" AND m.source_type = 'Namespace' AND m.source_id = ANY (lg.traversal_ids)"                \
	" AND " SQL_MEMBER_ACTIVE(                                                                 \
		"m") "), 0) FROM project_group_links l JOIN namespaces lg"                         \
		     " ON lg.id = l.group_id WHERE l.project_id = ANY ($1::bigint[])"              \
		     " ORDER BY l.project_id, l.id"
enum {
	PLK_PROJECT_ID,
	PLK_GROUP_ID,
	PLK_GROUP_NAME,
	PLK_GROUP_ACCESS,
	PLK_CALLER_LEVEL,
	PLK_NCOLS
};
/* The same links of project p, for the caller whose id is the SQL expression ME, as the
 * column shared of PROJECT_COLS_SHARED: a JSON text [[group, name, access, caller's
 * level], ...] in the order of the links, NULL when there are none. A list has them in
 * its statement, rather than a second one for the projects that are shared, and looks
 * for them only in the rows whose count (sql/0041) says there are some. */
#define PROJECT_SHARED_LINKS(ME)                                                                                                         \
	"CASE WHEN p.group_links_count > 0 THEN (SELECT json_agg(json_build_array(l.group_id, lg.name, l.group_access, coalesce((SELECT" \
	" max(m.access_level) FROM members m WHERE m.user_id = " ME                                                                      \
	" AND m.source_type = 'Namespace' AND m.source_id = ANY (lg.traversal_ids)"                                                      \
	" AND " SQL_MEMBER_ACTIVE(                                                                                                       \
		"m") "), 0)) ORDER BY l.id)::text FROM project_group_links l"                                                            \
		     " JOIN namespaces lg ON lg.id = l.group_id WHERE l.project_id = p.id) END"

/* The caller's standing on a project, from PROJECT_CALLER_COLS. */
typedef struct {
	project_levels levels;    /* shared_level 0: the links come apart */
	int own_group_level;      /* membership of the project's own group, 0 when none */
	int project_notification; /* NotificationSetting levels (3, global, by default) */
	int group_notification;
} project_caller;

/* What the presenter adds to the record's columns, as JSON texts of the request's arena. */
typedef struct {
	const project_caller *caller;   /* for PROJECT_PERMISSIONS */
	const char *forked_from;        /* the fork source's simple view, NULL when none */
	const char *shared_with_groups; /* an array of entity_project_group_link()s, NULL for none */
	const char *custom_attributes;  /* with_custom_attributes: a JSON array, NULL: not shown */
} project_extra;

enum project_view {
	PROJECT_VIEW_BASIC = 0,       /* BasicProjectDetails: reads PROJECT_BASIC_COLS only */
	PROJECT_VIEW_FULL = 1 << 0,   /* Project: reads PROJECT_COLS */
	PROJECT_PERMISSIONS = 1 << 1, /* ProjectWithAccess: the permissions of x->caller */
	PROJECT_CAN_ADMIN = 1 << 2,   /* runners_token and import_error (user_can_admin_project) */
	PROJECT_STATISTICS = 1 << 3,  /* statistics=true */
};

/* Writes to w the project whose columns start at column col of row, in the view that
 * flags (enum project_view) give, with x's parts (x may be NULL for the simple view). The
 * runners token is opened with c->key. The record depends (response cache) on the
 * project's key and its namespace's; the full view also on the owner of a personal
 * project and the fork source (its simple view, when shown, declares its own). */
void entity_project_write(jw *w, ctx *c, const PGresult *res, int row, int col, unsigned flags,
			  const project_extra *x);
/* The same as a json-c object (the caller owns it), for a presenter that builds one. */
json_object *entity_project(ctx *c, const PGresult *res, int row, int col, unsigned flags,
			    const project_extra *x);
/* Writes one of shared_with_groups: the link to group_id (named name) giving access; it
 * depends on the group's key (its name). */
void entity_project_group_link(jw *w, ctx *c, long long group_id, const char *name,
			       long long access);
/* What a list of projects depends on beyond its rows' records (response cache): which
 * projects it holds and through which groups, their order by order_by ("id",
 * "created_at", "name", ...), what search reads, the users when it names one (by_user). */
void entity_project_list_depend(ctx *c, const char *order_by, bool search, bool by_user);
/* Reads the PROJECT_CALLER_COLS that follow the PROJECT_COLS at col of row, for r's
 * caller (whose id the statement was given). */
void project_caller_read(project_caller *out, ctx *c, const PGresult *res, int row, int col);
/* What PROJECT_CALLER_LIST_COLS hold for every row of a page alike, read once. */
typedef struct {
	long long *members; /* {0 or 1, id, level} triples */
	int nmembers;       /* their number of values */
	const char **settings;
	int nsettings;
} project_caller_page;
void project_caller_page_read(project_caller_page *out, ctx *c, const PGresult *res, int row,
			      int col);
/* The same as project_caller_read() from PROJECT_CALLER_LIST_COLS, with page read from
 * any row of the same result. */
void project_caller_read_list(project_caller *out, ctx *c, const project_caller_page *page,
			      const PGresult *res, int row, int col);
/* git@<ssh_host>:<full path>.git, <external_url>/<full path>.git, <external_url>/<full
 * path> for the namespace full path ns and the project path, in r's arena. */
const char *project_ssh_url(ctx *c, const char *ns, const char *path);
const char *project_http_url(ctx *c, const char *ns, const char *path);
const char *project_web_url(ctx *c, const char *ns, const char *path);

#endif
