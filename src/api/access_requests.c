/* Access requests (4.11) for groups and projects. */
#include "api/api.h"

const db_stmt access_requests_stmts[] = {
	{NULL, NULL},
};
