/* Every module's statements; the worker prepares all of them at connect. */
#include "api/api.h"
#include "auth/auth.h"
#include "background.h"
#include "db/db.h"
#include "git/repo.h"
#include "http/cache.h"

const db_stmt *const db_registry[] = {
	auth_stmts,     users_stmts,   keys_stmts,    tokens_stmts,
	broadcast_stmts, events_stmts, projects_stmts, groups_stmts, namespaces_stmts,
	members_stmts, access_requests_stmts, notification_settings_stmts, background_stmts,
	cache_stmts,    repo_stmts,    NULL,
};
