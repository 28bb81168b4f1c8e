/* Users' activity days (users.last_activity_on), as GitLab 10.8's Users::ActivityService
 * records them: a git pull (clone, fetch) over HTTP or SSH, and a sign-in (the OAuth
 * password grant, api/tokens.c, in its own statement). API requests record nothing, as
 * in 10.8. */
#ifndef COLLABD_DB_ACTIVITY_H
#define COLLABD_DB_ACTIVITY_H

#include "db/db.h"

/* Whether user row U has no activity recorded today: a column of the statements that
 * find a caller anyway (git over HTTP and SSH), so that a day's first pull alone costs
 * a statement more. */
#define SQL_ACTIVITY_STALE(U) "(" U ".last_activity_on IS DISTINCT FROM current_date)"

extern const db_stmt db_activity_stmts[];

/* Records today as user_id's last activity, for a caller whose row said
 * SQL_ACTIVITY_STALE: written unless another request wrote it meanwhile, so at most
 * once a day per user across workers and instances. The write bumps only the user's own
 * key in the caches (sql/0033: not the users' epoch nor the users set). 0 or an ERR_
 * code. */
int db_activity_record(ctx *c, long long user_id);

#endif
