/* Presenter of a milestone (a project's or a group's). */
#ifndef COLLABD_ENTITY_MILESTONE_H
#define COLLABD_ENTITY_MILESTONE_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The columns of a milestones row m, in this order (NULL throughout for a LEFT JOIN
 * without one). */
#define MILESTONE_COLS                                                                             \
	"m.id, m.iid, m.project_id, m.group_id, m.title, m.description, m.state,"                  \
	" m.created_at, m.updated_at, m.due_date::text, m.start_date::text"
#define MILESTONE_NCOLS 11

/* The milestone whose MILESTONE_COLS start at col of row: project_id or group_id (the one
 * it has), as GitLab 10's Entities::Milestone; null when the row has none there. */
void entity_milestone_write(jw *w, ctx *c, const PGresult *res, int row, int col);

#endif
