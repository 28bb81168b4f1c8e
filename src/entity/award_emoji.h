/* Presenter of an award emoji (GitLab 10's Entities::AwardEmoji): id, name, user,
 * created_at, updated_at, awardable_id, awardable_type. */
#ifndef COLLABD_ENTITY_AWARD_EMOJI_H
#define COLLABD_ENTITY_AWARD_EMOJI_H

#include "entity/user.h"
#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The columns of award_emoji a and its user u. */
#define AWARD_COLS                                                                                 \
	"a.id, a.name, iso8601(a.created_at), iso8601(a.updated_at), a.awardable_id, "             \
	"a.awardable_type, " USER_BASIC_COLS
#define AWARD_NCOLS 11

json_object *entity_award_emoji(ctx *c, const PGresult *res, int row, int col);

#endif
