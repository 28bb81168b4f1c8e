#include "auth/access.h"

#include <stdlib.h>
#include <string.h>

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
	return a->admin || a->ns_owner || a->group_level >= ACCESS_OWNER;
}

bool can_admin_project_members(const project_access *a)
{
	return can_update_project(a);
}

bool can_read_group(const group_access *a)
{
	return a->admin || a->visible;
}

bool can_admin_group(const group_access *a)
{
	return a->admin || a->level >= ACCESS_OWNER;
}

void access_me_params(request *r, const char **v)
{
	if (!r->user) {
		v[0] = v[1] = v[2] = NULL;
		return;
	}
	v[0] = arena_printf(r->a, "%lld", r->user->id);
	v[1] = r->user->admin ? "true" : "false";
	v[2] = r->user->external ? "true" : "false";
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
