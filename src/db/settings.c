#include "db/settings.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

#define SETTINGS_ENTRY(name, kind, col) {#name, kind, #col},
const settings_field settings_fields[SETTINGS_NFIELDS] = {SETTINGS_FIELDS(SETTINGS_ENTRY)};
#undef SETTINGS_ENTRY

#define SETTINGS_COLUMN(name, kind, col) ", s." #col
#define SETTINGS_SELECT "s.id" SETTINGS_FIELDS(SETTINGS_COLUMN)
#define SETTINGS_RECORD(name, kind, col) ", r." #col
#define SETTINGS_TARGET(name, kind, col) ", " #col

/* The columns of settings_current, what the getters read. */
enum {
	SC_VERSION,
	SC_ALLOW_LOCAL,
	SC_MAX_ATTACHMENT,
	SC_PROJECT_VIS,
	SC_GROUP_VIS,
	SC_SNIPPET_VIS,
	SC_RESTRICTED,
	SC_BRANCH_PROTECTION,
	SC_PROJECTS_LIMIT,
	SC_USER_EXTERNAL,
	SC_PASSWORD_GIT,
	SC_MAX_IMPORT,
	SC_NCOLS
};

const db_stmt db_settings_stmts[] = {
	{"settings_show", "SELECT " SETTINGS_SELECT " FROM application_settings s WHERE s.id = 1",
	 0, SETTINGS_NCOLS},
	{"settings_lock",
	 "SELECT " SETTINGS_SELECT " FROM application_settings s WHERE s.id = 1 FOR UPDATE", 0,
	 SETTINGS_NCOLS},
	/* $1 the changed columns as a JSON object: the row read back into itself with them */
	{"settings_update",
	 "UPDATE application_settings AS s SET (version, updated_at" SETTINGS_FIELDS(SETTINGS_TARGET) ") = (SELECT s.version + 1, now()" SETTINGS_FIELDS(
		 SETTINGS_RECORD) " FROM jsonb_populate_record(s, $1::jsonb) r) WHERE s.id = 1 RETURNING " SETTINGS_SELECT,
	 1, SETTINGS_NCOLS},
	/* $1 the version the worker has: no row while it is the database's */
	{"settings_current",
	 "SELECT version, allow_local_requests_from_hooks_and_services, max_attachment_size,"
	 " default_project_visibility, default_group_visibility, default_snippet_visibility,"
	 " restricted_visibility_levels::text, default_branch_protection, default_projects_limit,"
	 " user_default_external, password_authentication_enabled_for_git, max_import_size"
	 " FROM application_settings WHERE id = 1 AND version <> $1::bigint",
	 1, SC_NCOLS},
	{NULL, NULL, 0, 0},
};

/* The worker's copy; version 0: none yet (the row's versions start at 1). Until one is
 * read, GitLab 10.8's defaults. */
static struct {
	long long version;
	bool allow_local;
	long max_attachment;
	int project_vis, group_vis, snippet_vis;
	unsigned restricted; /* bit level / 10 */
	int branch_protection;
	long projects_limit;
	bool user_external;
	bool password_git;
	long max_import;
} copy = {0, false, 10, 0, 0, 0, 0, 2, 100000, false, true, 50};

PGresult *db_settings_read(ctx *c, bool lock, int *err)
{
	return db_query(c, lock ? "settings_lock" : "settings_show", 0, NULL, err);
}

PGresult *db_settings_update(ctx *c, const char *changes, int *err)
{
	const char *v[1] = {changes};
	PGresult *res = db_query(c, "settings_update", 1, v, err);
	/* read again by the next unit of work: this one's transaction may yet roll back */
	copy.version = 0;
	return res;
}

/* The copy, compared with the row once per unit of work. */
static void settings_refresh(ctx *c)
{
	if (c->settings_fresh || !c->db)
		return;
	char have[24];
	snprintf(have, sizeof(have), "%lld", copy.version);
	const char *v[1] = {have};
	int err;
	PGresult *res = db_query(c, "settings_current", 1, v, &err);
	if (!res) {
		log_error("application settings: not read; the copy of version %lld stands",
			  copy.version);
		return;
	}
	c->settings_fresh = true;
	if (PQntuples(res) != 1)
		return;
	copy.version = db_int(res, 0, SC_VERSION);
	copy.allow_local = db_bool(res, 0, SC_ALLOW_LOCAL);
	copy.max_attachment = (long)db_int(res, 0, SC_MAX_ATTACHMENT);
	copy.project_vis = (int)db_int(res, 0, SC_PROJECT_VIS);
	copy.group_vis = (int)db_int(res, 0, SC_GROUP_VIS);
	copy.snippet_vis = (int)db_int(res, 0, SC_SNIPPET_VIS);
	long long *levels;
	int n = db_int_array(c->a, db_val(res, 0, SC_RESTRICTED), &levels);
	copy.restricted = 0;
	for (int i = 0; i < n; i++)
		if (levels[i] >= 0 && levels[i] <= 20 && levels[i] % 10 == 0)
			copy.restricted |= 1u << (levels[i] / 10);
	copy.branch_protection = (int)db_int(res, 0, SC_BRANCH_PROTECTION);
	copy.projects_limit = (long)db_int(res, 0, SC_PROJECTS_LIMIT);
	copy.user_external = db_bool(res, 0, SC_USER_EXTERNAL);
	copy.password_git = db_bool(res, 0, SC_PASSWORD_GIT);
	copy.max_import = (long)db_int(res, 0, SC_MAX_IMPORT);
}

bool settings_allow_local_requests(ctx *c)
{
	settings_refresh(c);
	return copy.allow_local;
}

long settings_max_attachment_size(ctx *c)
{
	settings_refresh(c);
	return copy.max_attachment;
}

long settings_max_import_size(ctx *c)
{
	settings_refresh(c);
	return copy.max_import;
}

int settings_default_project_visibility(ctx *c)
{
	settings_refresh(c);
	return copy.project_vis;
}

int settings_default_group_visibility(ctx *c)
{
	settings_refresh(c);
	return copy.group_vis;
}

int settings_default_snippet_visibility(ctx *c)
{
	settings_refresh(c);
	return copy.snippet_vis;
}

bool settings_visibility_restricted(ctx *c, int level)
{
	settings_refresh(c);
	return level >= 0 && level <= 20 && level % 10 == 0 &&
	       (copy.restricted >> (level / 10)) & 1;
}

int settings_default_branch_protection(ctx *c)
{
	settings_refresh(c);
	return copy.branch_protection;
}

long settings_default_projects_limit(ctx *c)
{
	settings_refresh(c);
	return copy.projects_limit;
}

bool settings_user_default_external(ctx *c)
{
	settings_refresh(c);
	return copy.user_external;
}

bool settings_password_authentication_for_git(ctx *c)
{
	settings_refresh(c);
	return copy.password_git;
}
