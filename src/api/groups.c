/* Groups (4.2) and namespaces. */
#include "api/api.h"

const db_stmt groups_stmts[] = {
	{NULL, NULL},
};
