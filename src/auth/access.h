/* The access model: visibility of projects and groups, membership levels, and the
 * abilities every handler asks about. Written once here; used by every handler.
 *
 * Levels: 10 guest, 20 reporter, 30 developer, 40 master, 50 owner (groups). A group
 * member's level applies to the group's projects and to its subgroups and their
 * projects; a project shared with a group gives that group's members
 * min(group_access, their level); the highest level wins; admins see and do everything.
 * Visibility: private (members only), internal (any signed-in user but external ones),
 * public (anyone, also without a token).
 *
 * In SQL the caller is the one-row relation `me` (id NULL when anonymous), built by
 * SQL_ME from the statement's parameters $1 (user id), $2 (admin), $3 (external) —
 * access_me_params() fills them — so that access checks and the record come back in one
 * statement. Those rules in SQL, and access_me_params(), are db/access.h's, pasted into
 * statements at compile time; here are the levels, the abilities decided from what a
 * statement returned, and the functions every handler asks. */
#ifndef COLLABD_ACCESS_H
#define COLLABD_ACCESS_H

#include <libpq-fe.h>
#include <stdbool.h>

#include "core/ctx.h"
#include "db/access.h"

enum access_level {
	ACCESS_NONE = 0,
	ACCESS_GUEST = 10,
	ACCESS_REPORTER = 20,
	ACCESS_DEVELOPER = 30,
	ACCESS_MASTER = 40,
	ACCESS_OWNER = 50,
};

enum visibility { VIS_PRIVATE = 0, VIS_INTERNAL = 10, VIS_PUBLIC = 20 };

/* The abilities, decided from what a statement returned about the caller. */
typedef struct {
	bool visible;     /* SQL_PROJECT_VISIBLE */
	bool group_owner; /* an owner of a group above the project */
	int level;        /* SQL_PROJECT_ACCESS */
	bool ns_owner;    /* the project is in the caller's own namespace */
	bool admin;
	bool archived;
} project_access;

typedef struct {
	bool visible; /* SQL_GROUP_VISIBLE */
	int level;    /* SQL_GROUP_ACCESS */
	bool admin;
} group_access;

/* The caller's levels on a project as a statement found them (raw, each once), from
 * which project_access_decide() derives a project_access in C: the rule of
 * SQL_PROJECT_ACCESS_COLS, for statements that would pay at every execution for the
 * expressions and subqueries of the macros. */
typedef struct {
	int member_level; /* the caller's own membership of the project */
	int group_level;  /* through the groups above the project */
	int shared_level; /* through the groups it is shared with (access_shared_level) */
	bool ns_owner;    /* the project is in the caller's own namespace */
} project_levels;

/* The abilities of caller c (NULL when anonymous) on a project of that visibility. */
void project_access_decide(project_access *out, const caller *c, int visibility, bool archived,
			   const project_levels *l);
/* The level a project shared with a group at link_access gives a caller whose level in
 * that group (or one above it) is level: least of the two, as project_authorizations
 * holds it (sql/0009). */
int access_shared_level(int link_access, int level);

bool can_read_project(const project_access *a);
bool can_update_project(const project_access *a);        /* master and up */
bool can_admin_project(const project_access *a);         /* owner: delete, transfer, archive */
bool can_admin_project_members(const project_access *a); /* master and up */
/* The level GitLab 10's ProjectPolicy compares for the tracker's abilities (labels,
 * boards, snippets, issues): owner for admins and the project's owners (of its personal
 * namespace or its group), else the caller's level on the project. */
int project_ability_level(const project_access *a);
bool can_read_group(const group_access *a);
/* A project's code (clone, fetch, files, commits, branches, tags), as GitLab 10's
 * download_code: admins, anyone who may see a public project, signed-in users who are
 * not external on an internal one, reporters and up (and the namespace's owner) on a
 * private one. c: the caller, NULL when anonymous. */
bool can_read_code(const project_access *a, int visibility, const caller *c);
/* The level the push rules compare with protected branches: a master's at least for
 * admins and the owner of a personal project's namespace. */
int code_push_level(const project_access *a);
/* Pushing (git push, commits, branches and tags through the API): a signed-in caller
 * with code_push_level developer or more, on a project that is not archived. Protected
 * branches come on top (branch_push_level in SQL). */
bool can_push_code(const project_access *a, const caller *c);
bool can_admin_group(const group_access *a); /* owner and up */

/* The wiki, as GitLab 10's ProjectPolicy: read_wiki for whoever sees the project (guests
 * and up of a private one), create_wiki (write pages, push) for developers and up,
 * admin_wiki (delete pages) for masters and up; none of them while wiki_enabled is off.
 * Admins and the owner of a personal namespace count as masters (code_push_level). */
bool can_read_wiki(const project_access *a, bool wiki_enabled);
bool can_create_wiki(const project_access *a, bool wiki_enabled, const caller *c);
bool can_admin_wiki(const project_access *a, bool wiki_enabled, const caller *c);
/* A git request (over HTTP or SSH) to a project's repository or, when wiki, its wiki:
 * pull (can_read_code, can_read_wiki) or push (can_push_code, can_create_wiki). */
bool can_git(const project_access *a, int visibility, bool wiki_enabled, const caller *c, bool wiki,
	     bool push);
/* The same request with a deploy key, which holds no user's abilities (GitLab 10.8's
 * GitAccess for a DeployKey): pull from a project it is enabled on (enabled), private
 * ones too; push where its link says can_push and the project is not archived; never a
 * wiki (10.8's wiki access asks a user's abilities). Protected branches come on top, at
 * DEPLOY_KEY_PUSH_LEVEL: none of them (10.8 skipped those checks for deploy keys; the
 * issue asks them, and a key has no level to pass one). */
bool can_git_deploy_key(bool enabled, bool can_push, bool archived, bool wiki, bool push);
#define DEPLOY_KEY_PUSH_LEVEL ACCESS_NONE

/* The tracker (issues, milestones), as GitLab 10's ProjectPolicy: tracker_level is the
 * caller's level for it (an owner's for admins and the owner of a personal namespace).
 * Reading issues: whoever sees the project, when its issues are enabled (guests and up
 * on a private one); confidential ones: reporters and up, their author and assignees
 * (the caller decides those two). admin_issue (labels, milestone, assignees, time
 * tracking, move): reporter and up; admin_milestone: developer and up; destroy_issue:
 * owners and admins. Nothing is written to an archived project. */
int tracker_level(const project_access *a);
bool can_read_issues(const project_access *a, bool issues_enabled);
bool can_read_confidential_issues(const project_access *a);
bool can_create_issue(const project_access *a, bool issues_enabled, const caller *c);
bool can_admin_issue(const project_access *a);
bool can_admin_project_milestones(const project_access *a);
bool can_destroy_issue(const project_access *a);
/* Group milestones: masters of the group and up (GitLab 10.0's admin_milestones). */
bool can_admin_group_milestones(const group_access *a);

/* Level names and values: "40" -> 40; 0 when s is not a valid level (owner only when
 * allow_owner). */
int access_level_parse(const char *s, bool allow_owner);
/* "private"/"internal"/"public" <-> 0/10/20; -1 when not one of them. */
int visibility_parse(const char *s);
const char *visibility_name(int v);

void project_access_read(project_access *out, const PGresult *res, int row, int col);
void group_access_read(group_access *out, const PGresult *res, int row, int col);

/* Membership changes, as GitLab 10's ProjectMemberPolicy and GroupMemberPolicy: those who
 * administer members may update and remove them, anyone may leave; but the owner of a
 * personal project's namespace and the last owner of a group can be neither changed nor
 * removed, not even by an admin. */
bool can_update_project_member(const project_access *a, bool target_is_ns_owner);
bool can_destroy_project_member(const project_access *a, bool target_is_ns_owner,
				bool target_is_self);
bool can_update_group_member(const group_access *a, bool target_is_last_owner);
bool can_destroy_group_member(const group_access *a, bool target_is_last_owner,
			      bool target_is_self);
/* Requesting access (visibility and request_access_enabled of the project or group, the
 * caller's external flag): a project that is public, or internal to a non-external
 * caller, whose owner, members, group members and admins may not ask; a group that is
 * public or internal to a non-external caller, when not a member of it or above. */
bool can_request_project_access(const project_access *a, int visibility, bool external,
				bool enabled);
bool can_request_group_access(const group_access *a, int visibility, bool external, bool enabled);

#endif
