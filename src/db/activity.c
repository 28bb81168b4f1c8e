#include "db/activity.h"

#include <stdio.h>

const db_stmt db_activity_stmts[] = {
	/* $1 user id; WHERE asked again after a concurrent writer's commit (read committed):
	 * the second of two writes of a day changes no row */
	{"users_activity_record",
	 "UPDATE users SET last_activity_on = current_date WHERE id = $1"
	 " AND last_activity_on IS DISTINCT FROM current_date",
	 1, 0},
	{NULL, NULL, 0, 0},
};

int db_activity_record(ctx *c, long long user_id)
{
	char id[24];
	snprintf(id, sizeof(id), "%lld", user_id);
	const char *v[1] = {id};
	int err;
	return db_query(c, "users_activity_record", 1, v, &err) ? 0 : err;
}
