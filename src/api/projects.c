/* Projects (4.1) and the project operations of GitLab 10.0. */
#include "api/api.h"

const db_stmt projects_stmts[] = {
	{NULL, NULL},
};
