/* Presenter of an SSH key: id, title, key, created_at. */
#ifndef COLLABD_ENTITY_KEY_H
#define COLLABD_ENTITY_KEY_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

#define KEY_COLS "k.id, k.title, k.key, iso8601(k.created_at)"
#define KEY_NCOLS 4

json_object *entity_key(ctx *c, const PGresult *res, int row, int col);

#endif
