/* Presenter of an environment: GitLab 10's Entities::Environment (id, name, slug,
 * external_url). */
#ifndef COLLABD_ENTITY_ENVIRONMENT_H
#define COLLABD_ENTITY_ENVIRONMENT_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

#define ENVIRONMENT_COLS(E) E ".id, " E ".name, " E ".slug, " E ".external_url"
#define ENVIRONMENT_NCOLS 4

json_object *entity_environment(ctx *c, const PGresult *res, int row, int col);

#endif
