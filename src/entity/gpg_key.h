/* Presenters of a user's GPG key (GitLab 10.8's Entities::GPGKey: id, key, created_at)
 * and of a commit's signature as it was verified (Entities::CommitSignature). */
#ifndef COLLABD_ENTITY_GPG_KEY_H
#define COLLABD_ENTITY_GPG_KEY_H

#include <json-c/json.h>

#include "core/ctx.h"
#include "db/db.h"

#define GPG_KEY_COLS "g.id, g.key, iso8601(g.created_at)"
#define GPG_KEY_NCOLS 3

json_object *entity_gpg_key(ctx *c, const PGresult *res, int row, int col);

/* of a gpg_signatures row s */
#define GPG_SIGNATURE_COLS                                                                         \
	"s.gpg_key_id, s.gpg_key_primary_keyid, s.gpg_key_user_name, s.gpg_key_user_email,"        \
	" s.verification_status, s.gpg_key_subkey_id"
#define GPG_SIGNATURE_NCOLS 6

json_object *entity_gpg_signature(ctx *c, const PGresult *res, int row, int col);

#endif
