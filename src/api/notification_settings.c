/* Notification settings (4.13): global, group and project. */
#include "api/api.h"

const db_stmt notification_settings_stmts[] = {
	{NULL, NULL},
};
