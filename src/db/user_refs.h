/* The worker's copies of user records: the fields of users' basic and single views,
 * for the rows that name a user by reference (USER_REF below), kept while the
 * users' epoch (USER_EPOCH) stays the same. */
#ifndef COLLABD_DB_USER_REFS_H
#define COLLABD_DB_USER_REFS_H

#include <stddef.h>

#include "db/db.h"

/* The users' epoch: the sum of the versions of key 0 and of CACHE_KEY_USER_VIEWS
 * (core/deps.h), which a transaction that changes a column of a user's basic or single
 * view, or deletes a user, bumps at its commit (sql/0033_user_refs.sql). */
#define USER_EPOCH "(SELECT sum(ue.v) FROM cache_epochs ue WHERE ue.k IN (0, 5))"

/* The fields of a user's basic and single views, as the columns of USER_SINGLE_COLS
 * (db_user_refs_stmts' order): username .. organization, without email and is_admin. */
enum {
	RF_USERNAME,
	RF_NAME,
	RF_STATE,
	RF_AVATAR,
	RF_CREATED_AT,
	RF_BIO,
	RF_LOCATION,
	RF_SKYPE,
	RF_LINKEDIN,
	RF_TWITTER,
	RF_WEBSITE_URL,
	RF_ORGANIZATION,
	RF_N
};

typedef struct {
	long long id;  /* 0: a free slot */
	char *f[RF_N]; /* in one allocation with the entry's strings */
	char *block;
	char *basic; /* the basic view as JSON, once written (NULL: not yet) */
	size_t basic_len;
} user_ref;

/* A user by reference (the presenters read it from these copies), in place of the
 * basic (USER_REF) or single (USER_SINGLE_REF) columns of a user, entity/user.h: the
 * id ID (an expression, NULL for none), then the username NULL. */
#define USER_REF(ID) ID ", NULL::text, NULL::text, NULL::text, NULL::text"
#define USER_SINGLE_REF(ID)                                                                        \
	USER_REF(ID)                                                                               \
	", NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text,"                         \
	" NULL::text, NULL::text, NULL::text, NULL::text, NULL::text"

extern const db_stmt db_user_refs_stmts[];

/* The copy of the user that row's USER_REF at col refers to (an id, its username NULL),
 * read when missing, with those of the other rows of res this worker lacks, in one
 * statement; NULL when there is no such user. The copies are forgotten when the epoch
 * (c->users_epoch, read now when unknown) has grown past theirs. u->basic may keep the
 * user's basic view once written (malloc'd, freed with the copy). */
user_ref *db_user_ref(ctx *c, const PGresult *res, int row, int col);

#endif
