/* The statement and route tables of every module (modules.h). */
#include "modules.h"

#include "background.h"
#include "db/ci.h"
#include "db/credentials.h"
#include "db/custom_attributes.h"
#include "db/impexp.h"
#include "db/impexp_relations.h"
#include "db/queue.h"
#include "db/repos.h"
#include "db/scope.h"
#include "db/settings.h"
#include "db/user_refs.h"
#include "db/versions.h"
#include "db/replica.h"
#include "db/webhooks.h"
#include "entity/user.h"
#include "hook.h"
#include "hooks_sender.h"
#include "shell.h"
#include "db/activity.h"

#define MODULE(name)                                                                               \
	extern const db_stmt name##_stmts[];                                                       \
	extern const route name##_routes[];
#include "src/api/modules.def"
#undef MODULE

const db_stmt *const statements[] = {
	db_credentials_stmts,
	db_scope_stmts,
	queue_stmts,
	background_stmts,
	db_versions_stmts,
	db_replica_stmts,
	db_repos_stmts,
	hook_stmts,
	shell_stmts,
	db_ci_stmts,
	db_user_refs_stmts,
	db_settings_stmts,
	db_webhooks_stmts,
	hooks_sender_stmts,
	db_activity_stmts,
	db_custom_attributes_stmts,
	db_impexp_stmts,
	db_impexp_relations_stmts,
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
