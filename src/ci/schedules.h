/* The pipelines of pipeline schedules (GitLab 10's PipelineScheduleWorker), fired by
 * the background process of every instance: each due schedule exactly once. */
#ifndef COLLABD_CI_SCHEDULES_H
#define COLLABD_CI_SCHEDULES_H

#include "core/ctx.h"

/* Fires the most overdue active schedule that no other process holds, in a transaction
 * of its own: its pipeline (source schedule, its ref and variables, its owner as the
 * user) when the owner may still run one on the ref (developers and up, the ref's
 * protection), none otherwise, and its next run set in any case. 1 when one was due, 0
 * when none is, or the database's ERR_ code (rolled back). */
int ci_schedules_fire_due(ctx *c);

#endif
