/* POST /projects/:id/housekeeping (GitLab 9.0+): git gc of the project's repository by the
 * background process, for masters and up (admin_project). GitLab answered 201 with the
 * id of the job it queued and 409 while its lease held; here 409 while the project's
 * housekeeping is queued or running (the project is locked for the check: ROUTE_TX). */
#include "api/api.h"
#include "auth/access.h"
#include "db/queue.h"

const db_stmt housekeeping_stmts[] = {
	{NULL, NULL, 0, 0},
};

static int housekeeping_start(request *r)
{
	if (!can_update_project(&r->project->pa)) /* masters and up */
		return ERR_FORBIDDEN;
	const char *id;
	int rc = queue_enqueue_once(&r->ctx, JOB_HOUSEKEEPING,
				    arena_printf(r->ctx.a, "{\"project_id\": %s}", r->project->id),
				    &id);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return fail(r, ERR_CONFLICT,
			    "Somebody already triggered housekeeping for this project and it has"
			    " not finished yet");
	respond_json(r, 201, json_object_new_string(id));
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route housekeeping_routes[] = {
	{"POST", V4 "/projects/:id/housekeeping", housekeeping_start, AUTH | PW, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
