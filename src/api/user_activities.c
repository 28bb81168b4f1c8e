/* GET /user/activities (GitLab 10.8, admins): the users active on or after a day, oldest
 * activity first. The days are recorded by db/activity.c. */
#include "api/api.h"
#include "entity/user_activity.h"
#include "http/pagination.h"

enum { UA_FROM, UA_LIMIT, UA_OFFSET, UA_NPARAMS };

/* The users whose last_activity_on is on or after $1 (a date; NULL: six months ago, 10.8's
 * default), as api_respond_page reads them: the total, then the record (NULLs on a page
 * past the end); sql/0055's index serves the filter and the order. */
#define UA_FILTER                                                                                  \
	" FROM users u WHERE u.last_activity_on >= coalesce($1::date,"                             \
	" (current_date - interval '6 months')::date)"

const db_stmt user_activities_stmts[] = {
	{"user_activities_list",
	 "SELECT (SELECT count(*)" UA_FILTER "), p.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " USER_ACTIVITY_COLS UA_FILTER " ORDER BY u.last_activity_on, u.id"
	 " LIMIT $2 OFFSET $3) p ON true",
	 UA_NPARAMS, 1 + USER_ACTIVITY_NCOLS},
	{NULL, NULL, 0, 0},
};

static int user_activities_list(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return rc;
	const char *from = NULL;
	if ((rc = param_date(r, "from", &from)) < 0)
		return rc;
	const char *v[UA_NPARAMS] = {
		[UA_FROM] = from,
		[UA_LIMIT] = pagination_limit(r, &pg),
		[UA_OFFSET] = pagination_offset(r, &pg),
	};
	return api_page(r, &pg, "user_activities_list", UA_NPARAMS, v, entity_user_activity);
}

const route user_activities_routes[] = {
	{"GET", V4 "/user/activities", user_activities_list, ADMIN | RU, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
