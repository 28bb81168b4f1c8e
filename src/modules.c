/* The statement and route tables of every module (modules.h). */
#include "modules.h"

#include "auth/auth.h"
#include "auth/scope.h"
#include "background.h"
#include "db/queue.h"
#include "entity/user.h"
#include "hook.h"
#include "shell.h"
#include "db/ci.h"
#include "db/repos.h"
#include "db/user_refs.h"
#include "db/versions.h"

#define MODULE(name)                                                                               \
	extern const db_stmt name##_stmts[];                                                       \
	extern const route name##_routes[];
#include "src/api/modules.def"
#undef MODULE

const db_stmt *const statements[] = {
	auth_stmts,
	scope_stmts,
	queue_stmts,
	background_stmts,
	db_versions_stmts,
	db_repos_stmts,
	hook_stmts,
	shell_stmts,
	db_ci_stmts,
	db_user_refs_stmts,
#define MODULE(name) name##_stmts,
#include "src/api/modules.def"
#undef MODULE
	NULL,
};

const route *const route_tables[] = {
#define MODULE(name) name##_routes,
#include "src/api/modules.def"
#undef MODULE
	NULL,
};

const char *const route_table_names[] = {
#define MODULE(name) #name,
#include "src/api/modules.def"
#undef MODULE
	NULL,
};
