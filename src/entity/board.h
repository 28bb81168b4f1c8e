/* Presenters of issue boards: GitLab 10's Entities::Board (id and its label lists) and
 * Entities::List (id, label as LabelBasic, position). */
#ifndef COLLABD_ENTITY_BOARD_H
#define COLLABD_ENTITY_BOARD_H

#include "entity/label.h"
#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The columns a list record reads, from board_lists bl and its label l. */
#define BOARD_LIST_COLS "bl.id, bl.position, " LABEL_BASIC_COLS
#define BOARD_LIST_NCOLS (2 + LABEL_BASIC_NCOLS)

json_object *entity_board_list(ctx *c, const PGresult *res, int row, int col);
/* Board id with the lists of rows [from, to) of res (BOARD_LIST_COLS at col). */
json_object *entity_board(ctx *c, long long id, const PGresult *res, int from, int to, int col);

#endif
