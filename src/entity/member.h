/* Presenters of memberships (GitLab 10's Member and AccessRequester): a member is the
 * user summary with access_level and expires_at; an access request shows the requester
 * with created_at and requested_at, an approved one created_at and access_level. */
#ifndef COLLABD_ENTITY_MEMBER_H
#define COLLABD_ENTITY_MEMBER_H

#include "entity/user.h"
#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The columns every membership statement selects, in this order, from users u and
 * members m. */
#define MEMBER_COLS                                                                                \
	USER_BASIC_COLS ", m.access_level, m.expires_at::text, iso8601(m.created_at),"             \
			" iso8601(m.requested_at)"
#define MEMBER_NCOLS 9

/* id, username, name, state, avatar_url, web_url, access_level, expires_at */
json_object *entity_member(ctx *c, const PGresult *res, int row, int col);
/* id, username, name, state, created_at, requested_at */
json_object *entity_access_request(ctx *c, const PGresult *res, int row, int col);
/* id, username, name, state, created_at, access_level */
json_object *entity_access_request_approved(ctx *c, const PGresult *res, int row, int col);

#endif
