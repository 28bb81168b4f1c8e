/* Project and group members, written once for both scopes. */
#include "api/api.h"

const db_stmt members_stmts[] = {
	{NULL, NULL},
};
