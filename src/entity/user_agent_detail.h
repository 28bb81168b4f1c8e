/* Presenter of the user agent detail of an issue or a snippet: GitLab 10.8's
 * Entities::UserAgentDetail (user_agent, ip_address, akismet_submitted), the
 * user_agent_details rows of sql/0050. */
#ifndef COLLABD_ENTITY_USER_AGENT_DETAIL_H
#define COLLABD_ENTITY_USER_AGENT_DETAIL_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The user agent detail of the record of type T ('Issue', 'Snippet') whose id is ID, as
 * a statement joins it (LEFT JOIN: NULLs when none was recorded), and its columns. */
#define USER_AGENT_DETAIL_JOIN(T, ID)                                                              \
	" LEFT JOIN user_agent_details uad ON uad.subject_type = '" T "'"                          \
	" AND uad.subject_id = " ID
#define USER_AGENT_DETAIL_COLS "uad.user_agent, uad.ip_address, uad.submitted"
#define USER_AGENT_DETAIL_NCOLS 3

/* {user_agent, ip_address, akismet_submitted}. */
json_object *entity_user_agent_detail(ctx *c, const PGresult *res, int row, int col);

#endif
