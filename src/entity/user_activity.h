/* Presenter of a user's last activity day (GitLab 10.8's Entities::UserActivity):
 * username, last_activity_on, and the same date again as last_activity_at (10.8 keeps
 * that name for older clients). */
#ifndef COLLABD_ENTITY_USER_ACTIVITY_H
#define COLLABD_ENTITY_USER_ACTIVITY_H

#include <json-c/json.h>

#include "core/ctx.h"
#include "db/db.h"

#define USER_ACTIVITY_COLS "u.username, u.last_activity_on::text"
#define USER_ACTIVITY_NCOLS 2

json_object *entity_user_activity(ctx *c, const PGresult *res, int row, int col);

#endif
