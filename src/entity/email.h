/* Presenter of a user's secondary email address (GitLab 10.8's Entities::Email): id,
 * email. */
#ifndef COLLABD_ENTITY_EMAIL_H
#define COLLABD_ENTITY_EMAIL_H

#include <json-c/json.h>

#include "core/ctx.h"
#include "db/db.h"

#define EMAIL_COLS "e.id, e.email"
#define EMAIL_NCOLS 2

json_object *entity_email(ctx *c, const PGresult *res, int row, int col);

#endif
