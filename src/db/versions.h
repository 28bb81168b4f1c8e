/* The versions of the keys of rows (core/deps.h), which the triggers of the migrations
 * bump in the transaction that changes the rows (sql/0010_cache_keys.sql): what the
 * caches compare to know whether what they kept is still true. */
#ifndef COLLABD_DB_VERSIONS_H
#define COLLABD_DB_VERSIONS_H

#include "db/db.h"

extern const db_stmt db_versions_stmts[];

/* The sum of the versions of keys[0..n) now (in the snapshot, if one is open), a set's
 * (a negative key) being the sum of its stripes; -1 on failure. */
long long db_versions_sum(ctx *c, const long long *keys, int n);

#endif
