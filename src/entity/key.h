/* Presenters of an SSH key (id, title, key, created_at), a user's or a deploy key, and
 * of a deploy key on a project (with can_push). */
#ifndef COLLABD_ENTITY_KEY_H
#define COLLABD_ENTITY_KEY_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

#define KEY_COLS "k.id, k.title, k.key, iso8601(k.created_at)"
#define KEY_NCOLS 4

json_object *entity_key(ctx *c, const PGresult *res, int row, int col);

/* A deploy key as a project has it (GitLab 10.8's DeployKeysProject): the key's fields
 * (KEY_COLS of its row k), then can_push of its link dk to the project. */
#define DEPLOY_KEY_COLS KEY_COLS ", dk.can_push"
#define DEPLOY_KEY_NCOLS (KEY_NCOLS + 1)

json_object *entity_deploy_key(ctx *c, const PGresult *res, int row, int col);

#endif
