/* Presenter of a broadcast message. */
#ifndef COLLABD_ENTITY_BROADCAST_MESSAGE_H
#define COLLABD_ENTITY_BROADCAST_MESSAGE_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

#define BROADCAST_COLS                                                                             \
	"b.id, b.message, iso8601(b.starts_at), iso8601(b.ends_at), b.color, b.font, "             \
	"(b.starts_at <= now() AND b.ends_at > now())"
#define BROADCAST_NCOLS 7

json_object *entity_broadcast_message(ctx *c, const PGresult *res, int row, int col);

#endif
