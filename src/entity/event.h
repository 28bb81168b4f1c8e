/* Presenter of an activity event. */
#ifndef COLLABD_ENTITY_EVENT_H
#define COLLABD_ENTITY_EVENT_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* events e joined to its author u */
#define EVENT_COLS                                                                                 \
	"e.id, e.project_id, e.action_name, e.target_id, e.target_iid, e.target_type, "            \
	"e.author_id, e.target_title, iso8601(e.created_at), e.data::text, "                       \
	"u.id, u.username, u.name, u.state, u.avatar"
#define EVENT_NCOLS 15

json_object *entity_event(ctx *c, const PGresult *res, int row, int col);

#endif
