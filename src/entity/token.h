/* Presenter of an impersonation token (GitLab 10.0 ImpersonationToken). */
#ifndef COLLABD_ENTITY_TOKEN_H
#define COLLABD_ENTITY_TOKEN_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

#define TOKEN_COLS                                                                                   \
	"t.id, t.name, t.revoked, iso8601(t.created_at), array_to_json(t.scopes)::text, t.user_id, " \
	"(NOT t.revoked AND (t.expires_at IS NULL OR t.expires_at > current_date)), "                \
	"t.expires_at::text, t.kind = 'impersonation'"
#define TOKEN_NCOLS 9

/* token is the secret, shown only at creation; NULL otherwise. */
json_object *entity_token(ctx *c, const PGresult *res, int row, int col, const char *token);

#endif
