/* Every handler of the route table, and the statement tables of the API modules. */
#ifndef COLLABD_API_H
#define COLLABD_API_H

#include "auth/access.h"
#include "db/db.h"
#include "entity/project.h"
#include "http/pagination.h"
#include "http/request.h"

/* users.c */
extern const db_stmt users_stmts[];
int users_list(request *r);
int users_show(request *r);
int users_create(request *r);
int users_update(request *r);
int users_delete(request *r);
int users_block(request *r);
int users_unblock(request *r);
int user_current(request *r);

/* keys.c */
extern const db_stmt keys_stmts[];
int keys_list_mine(request *r);
int keys_list_user(request *r);
int keys_show_mine(request *r);
int keys_create_mine(request *r);
int keys_create_user(request *r);
int keys_delete_mine(request *r);
int keys_delete_user(request *r);

/* tokens.c: impersonation tokens and the OAuth token endpoint */
extern const db_stmt tokens_stmts[];
int impersonation_tokens_list(request *r);
int impersonation_tokens_show(request *r);
int impersonation_tokens_create(request *r);
int impersonation_tokens_revoke(request *r);
int oauth_token(request *r);
/* Shared by impersonation tokens and the command line's personal access tokens. */
int tokens_create(request *r, const char *kind);

/* broadcast_messages.c */
extern const db_stmt broadcast_stmts[];
int broadcast_messages_list(request *r);
int broadcast_messages_show(request *r);
int broadcast_messages_create(request *r);
int broadcast_messages_update(request *r);
int broadcast_messages_delete(request *r);

/* events.c */
extern const db_stmt events_stmts[];
int events_list_mine(request *r);
int events_list_user(request *r);

/* events.c: events are written in the same transaction as the action that causes
 * them. action is the filter value (created, joined, left, ...), action_name what the
 * API shows; project_id and the target columns may be NULL. */
int events_record(request *r, const char *project_id, const char *author_id, const char *action,
		  const char *action_name, const char *target_type, const char *target_id,
		  const char *target_iid, const char *target_title);
int events_list_project(request *r);

/* projects.c (4.1 and the project operations of GitLab 10.0) */
extern const db_stmt projects_stmts[];
int projects_list(request *r);
int projects_list_user(request *r);
int projects_show(request *r);
int projects_create(request *r);
int projects_create_for_user(request *r);
int projects_update(request *r);
int projects_delete(request *r);
int projects_fork(request *r);
int projects_star(request *r);
int projects_unstar(request *r);
int projects_archive(request *r);
int projects_unarchive(request *r);
/* A page of the projects the caller may see, with every filter, sort and view of
 * GET /projects; limited to the personal projects of user (an id or username; 404 User
 * Not Found when there is none) or to the projects of group_id (an id: its own projects
 * and those shared with it) when not NULL. */
int projects_list_scoped(request *r, const char *user, const char *group_id);
/* What the project records of rows [0, n) of res (PROJECT_COLS at col; a row without a
 * project has NULL there) leave out, fetched in at most two statements for the projects
 * that have it: x[i] gets row i's fork source and shared_with_groups (caller NULL);
 * shared_level[i], when shared_level is not NULL, the level those links give r's
 * caller. */
int projects_extras(request *r, const PGresult *res, int n, int col, project_extra *x,
		    int *shared_level);

/* groups.c (4.2) */
extern const db_stmt groups_stmts[];
int groups_list(request *r);
int groups_projects(request *r);
int groups_show(request *r);
int groups_create(request *r);
int groups_transfer_project(request *r);
int groups_update(request *r);
int groups_delete(request *r);
/* Removes the groups that user_id owns alone (no other direct owner), with their
 * subgroups and projects, inside the caller's transaction (hard deletion of a user). */
int groups_delete_solely_owned(request *r, const char *user_id);

/* namespaces.c */
extern const db_stmt namespaces_stmts[];
int namespaces_list(request *r);
int namespaces_show(request *r);

/* members.c: project and group members; access_requests.c (4.11). Each handler serves
 * both /projects/:id/... and /groups/:id/...: the route's pattern gives the scope. */
extern const db_stmt members_stmts[];
extern const db_stmt access_requests_stmts[];
int members_list(request *r);
int members_show(request *r);
int members_add(request *r);
int members_update(request *r);
int members_remove(request *r);
int access_requests_list(request *r);
int access_requests_create(request *r);
int access_requests_approve(request *r);
int access_requests_deny(request *r);

/* The project or group (:id, an integer or a URL-encoded full path) whose members a
 * route is about, with the caller's access to it. */
typedef struct {
	bool project;              /* else a group */
	const char *source_type;   /* members.source_type: "Project" or "Namespace" */
	const char *id;            /* the project's or group's id */
	const char *ns_owner_id;   /* a personal project's namespace owner, else NULL */
	int visibility;
	bool request_access_enabled;
	project_access pa;         /* when project */
	group_access ga;           /* when a group */
} member_source;
/* Finds :id for the route's scope: 0, or ERR_NOT_FOUND ("Project"/"Group") when it does
 * not exist or the caller cannot see it. */
int member_source_find(request *r, member_source *out);
/* The caller may add, update and approve members of s (masters of a project, owners of
 * a group, admins). */
bool member_source_can_admin(const member_source *s);
/* A new and a former project member: the joined/left event GitLab 10 records (author:
 * the member; none for groups, nor for the namespace owner of a personal project). */
int member_source_event(request *r, const member_source *s, const char *user_id, bool joined);
/* The integer path parameter :user_id in its canonical text ("007" is "7"): 0, or
 * ERR_MISSING/ERR_INVALID. */
int member_user_id(request *r, const char **out);
/* access_level for s: 0 with *out, 1 when absent, ERR_INVALID when not an integer,
 * ERR_VALIDATION when not a level of the scope (owner is for groups only). */
int member_access_level(request *r, const member_source *s, const char **out);

/* notification_settings.c (4.13) */
extern const db_stmt notification_settings_stmts[];
int notification_settings_global_show(request *r);
int notification_settings_global_update(request *r);
int notification_settings_group_show(request *r);
int notification_settings_group_update(request *r);
int notification_settings_project_show(request *r);
int notification_settings_project_update(request *r);

/* notification_settings.c and events.c: SELECT COLS of the project (projects p) or
 * group (namespaces g) that the :id parameter REF names, with the caller's `me` (SQL_ME)
 * in scope. As GitLab, digits are an id and anything else a full path, matched without
 * regard to case; a project being deleted is not found. At most one row. */
#define SQL_PROJECT_BY_REF(COLS, REF)                                                           \
	"SELECT " COLS " FROM me, projects p WHERE NOT p.pending_delete"                          \
	" AND p.id = (CASE WHEN " REF "::text ~ '^[0-9]{1,18}$' THEN " REF "::bigint END)"        \
	" UNION ALL SELECT " COLS " FROM me, namespaces n JOIN projects p"                        \
	" ON p.namespace_id = n.id AND NOT p.pending_delete WHERE " REF " !~ '^[0-9]+$'"           \
	" AND lower(n.full_path) = lower(substring(" REF " from '^(.*)/[^/]*$'))"                  \
	" AND lower(p.path) = lower(substring(" REF " from '/([^/]*)$'))"
#define SQL_GROUP_BY_REF(COLS, REF)                                                             \
	"SELECT " COLS " FROM me, namespaces g WHERE g.kind = 'group'"                            \
	" AND g.id = (CASE WHEN " REF "::text ~ '^[0-9]{1,18}$' THEN " REF "::bigint END)"        \
	" UNION ALL SELECT " COLS " FROM me, namespaces g WHERE g.kind = 'group'"                 \
	" AND " REF " !~ '^[0-9]+$' AND lower(g.full_path) = lower(" REF ")"

/* version.c */
int version_show(request *r);

/* A presenter of one record whose columns start at col. */
typedef json_object *(*presenter_fn)(request *r, const PGresult *res, int row, int col);
/* Answers a page of a list statement: column 0 of every row is the total, the record
 * starts at column 1 (a row whose column 1 is NULL is the empty page's placeholder). */
void api_respond_page(request *r, const page_req *pg, const PGresult *res, presenter_fn present);

/* Shared by handlers: an integer path/body id, ERR_INVALID ("name is invalid") when it
 * is not one. */
int api_id(request *r, const char *name, const char **out);

#endif
