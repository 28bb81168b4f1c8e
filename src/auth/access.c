#include "auth/access.h"

#include <stdlib.h>
#include <string.h>

#include "db/db.h"

static int max_level(int a, int b)
{
	return a > b ? a : b;
}

void project_access_decide(project_access *out, const caller *c, int visibility, bool archived,
			   const project_levels *l)
{
	out->group_owner = l->group_level >= ACCESS_OWNER;
	out->level = max_level(l->member_level, max_level(l->group_level, l->shared_level));
	out->ns_owner = c && l->ns_owner;
	out->admin = c && c->admin;
	out->archived = archived;
	out->visible =
		out->admin || visibility == VIS_PUBLIC ||
		(c && ((visibility == VIS_INTERNAL && !c->external) || out->level >= ACCESS_GUEST));
}

int access_shared_level(int link_access, int level)
{
	return link_access < level ? link_access : level;
}

bool can_read_project(const project_access *a)
{
	return a->admin || a->visible;
}

bool can_update_project(const project_access *a)
{
	return a->admin || a->level >= ACCESS_MASTER || a->ns_owner;
}

bool can_admin_project(const project_access *a)
{
	return a->admin || a->ns_owner || a->group_owner;
}

bool can_admin_project_members(const project_access *a)
{
	return can_update_project(a);
}

int project_ability_level(const project_access *a)
{
	if (a->admin || a->ns_owner || a->group_owner)
		return ACCESS_OWNER;
	return a->level;
}

bool can_read_code(const project_access *a, int visibility, const caller *c)
{
	return a->admin || a->ns_owner || visibility == VIS_PUBLIC ||
	       (c && visibility == VIS_INTERNAL && !c->external) || a->level >= ACCESS_REPORTER;
}

int code_push_level(const project_access *a)
{
	return (a->admin || a->ns_owner) && a->level < ACCESS_MASTER ? ACCESS_MASTER : a->level;
}

bool can_push_code(const project_access *a, const caller *c)
{
	return c && !a->archived && code_push_level(a) >= ACCESS_DEVELOPER;
}

bool can_read_wiki(const project_access *a, bool wiki_enabled)
{
	return wiki_enabled && can_read_project(a);
}

bool can_create_wiki(const project_access *a, bool wiki_enabled, const caller *c)
{
	return c && can_read_wiki(a, wiki_enabled) && code_push_level(a) >= ACCESS_DEVELOPER;
}

bool can_admin_wiki(const project_access *a, bool wiki_enabled, const caller *c)
{
	return c && can_read_wiki(a, wiki_enabled) && code_push_level(a) >= ACCESS_MASTER;
}

bool can_git(const project_access *a, int visibility, bool wiki_enabled, const caller *c, bool wiki,
	     bool push)
{
	if (wiki)
		return push ? can_create_wiki(a, wiki_enabled, c) : can_read_wiki(a, wiki_enabled);
	return push ? can_push_code(a, c) : can_read_code(a, visibility, c);
}

bool can_git_deploy_key(bool enabled, bool can_push, bool archived, bool wiki, bool push)
{
	return enabled && !wiki && (!push || (can_push && !archived));
}

bool can_read_group(const group_access *a)
{
	return a->admin || a->visible;
}

bool can_admin_group(const group_access *a)
{
	return a->admin || a->level >= ACCESS_OWNER;
}

int tracker_level(const project_access *a)
{
	return a->admin || a->ns_owner ? ACCESS_OWNER : a->level;
}

bool can_read_issues(const project_access *a, bool issues_enabled)
{
	return issues_enabled && can_read_project(a);
}

bool can_read_confidential_issues(const project_access *a)
{
	return tracker_level(a) >= ACCESS_REPORTER;
}

bool can_create_issue(const project_access *a, bool issues_enabled, const caller *c)
{
	return c && !a->archived && can_read_issues(a, issues_enabled);
}

bool can_admin_issue(const project_access *a)
{
	return !a->archived && tracker_level(a) >= ACCESS_REPORTER;
}

bool can_admin_project_milestones(const project_access *a)
{
	return !a->archived && tracker_level(a) >= ACCESS_DEVELOPER;
}

bool can_destroy_issue(const project_access *a)
{
	return can_admin_project(a);
}

bool can_admin_group_milestones(const group_access *a)
{
	return a->admin || a->level >= ACCESS_MASTER;
}

int access_level_parse(const char *s, bool allow_owner)
{
	if (!s)
		return 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || end == s)
		return 0;
	if (v == 10 || v == 20 || v == 30 || v == 40 || (allow_owner && v == 50))
		return (int)v;
	return 0;
}

int visibility_parse(const char *s)
{
	if (!s)
		return -1;
	if (strcmp(s, "private") == 0)
		return VIS_PRIVATE;
	if (strcmp(s, "internal") == 0)
		return VIS_INTERNAL;
	if (strcmp(s, "public") == 0)
		return VIS_PUBLIC;
	return -1;
}

const char *visibility_name(int v)
{
	return v == VIS_PUBLIC ? "public" : v == VIS_INTERNAL ? "internal" : "private";
}

void project_access_read(project_access *out, const PGresult *res, int row, int col)
{
	out->visible = db_bool(res, row, col);
	out->group_owner = db_bool(res, row, col + 1);
	out->level = (int)db_int(res, row, col + 2);
	out->ns_owner = db_bool(res, row, col + 3);
	out->admin = db_bool(res, row, col + 4);
	out->archived = db_bool(res, row, col + 5);
}

void group_access_read(group_access *out, const PGresult *res, int row, int col)
{
	out->visible = db_bool(res, row, col);
	out->level = (int)db_int(res, row, col + 1);
	out->admin = db_bool(res, row, col + 2);
}

bool can_update_project_member(const project_access *a, bool target_is_ns_owner)
{
	return !target_is_ns_owner && can_admin_project_members(a);
}

bool can_destroy_project_member(const project_access *a, bool target_is_ns_owner,
				bool target_is_self)
{
	return !target_is_ns_owner && (target_is_self || can_admin_project_members(a));
}

bool can_update_group_member(const group_access *a, bool target_is_last_owner)
{
	return !target_is_last_owner && can_admin_group(a);
}

bool can_destroy_group_member(const group_access *a, bool target_is_last_owner, bool target_is_self)
{
	return !target_is_last_owner && (target_is_self || can_admin_group(a));
}

static bool open_to(int visibility, bool external)
{
	return visibility == VIS_PUBLIC || (visibility == VIS_INTERNAL && !external);
}

bool can_request_project_access(const project_access *a, int visibility, bool external,
				bool enabled)
{
	return enabled && open_to(visibility, external) && !a->admin && !a->ns_owner &&
	       a->level < ACCESS_GUEST;
}

bool can_request_group_access(const group_access *a, int visibility, bool external, bool enabled)
{
	return enabled && open_to(visibility, external) && a->level < ACCESS_GUEST;
}
