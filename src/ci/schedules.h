/* The pipelines of pipeline schedules (GitLab 10's PipelineScheduleWorker), fired by
 * the background process of every instance: each due schedule exactly once. */
#ifndef COLLABD_CI_SCHEDULES_H
#define COLLABD_CI_SCHEDULES_H

#include "core/ctx.h"
#include "db/db.h"

extern const db_stmt ci_schedules_stmts[];

/* The level on projects row P with which user U (an expression; NULL: none) runs a
 * pipeline there: 0 for no user or a blocked one, 50 for the owner of a personal
 * project's namespace, else their level (project_authorizations); admins are told
 * apart by the caller. Shared with trigger invocations (api/triggers.c). */
#define SQL_CI_USER_LEVEL(U, P)                                                                    \
	"(SELECT CASE WHEN cu.state <> 'active' THEN 0 WHEN EXISTS (SELECT 1 FROM namespaces cn"   \
	" WHERE cn.id = " P ".namespace_id AND cn.kind = 'user' AND cn.owner_id = cu.id) THEN 50"  \
	" ELSE coalesce((SELECT max(pa.access_level) FROM project_authorizations pa"               \
	" WHERE pa.user_id = cu.id AND pa.project_id = " P ".id"                                   \
	" AND pa.expires_at > current_date), 0) END FROM users cu WHERE cu.id = " U ")"
#define SQL_CI_USER_ADMIN(U)                                                                       \
	"coalesce((SELECT cu.is_admin AND cu.state = 'active' FROM users cu"                       \
	" WHERE cu.id = " U "), false)"

/* Fires the most overdue active schedule that no other process holds, in a transaction
 * of its own: its pipeline (source schedule, its ref and variables, its owner as the
 * user) when the owner may still run one on the ref (developers and up, the ref's
 * protection), none otherwise, and its next run set in any case. 1 when one was due, 0
 * when none is, -1 on a database failure (rolled back). */
int ci_schedules_fire_due(ctx *c);

#endif
