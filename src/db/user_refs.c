#include "db/user_refs.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

/* Open addressing, linear probing, at most half full; all of it forgotten when the
 * epoch grows or it holds REFS_MAX. The first copy a worker needs at an epoch brings
 * those of the first REFS_BULK users (all of them, on most instances) in one statement:
 * the users a list names are spread over the whole table, and read as they come up,
 * most requests of a worker's first minutes ran one more statement for them. */
#define REFS_MAX 65536
#define REFS_BULK "16384"
static struct {
	user_ref *slot;
	size_t cap, n;
	long long epoch;
	long long bulk_epoch; /* the epoch of the last bulk read, + 1; 0: none yet */
} refs;

/* The epoch, then users u's ids and fields (RF_*), as refs_keep reads them. */
#define REFS_SELECT                                                                                \
	"SELECT " USER_EPOCH                                                                       \
	", u.id, u.username, u.name, u.state, u.avatar, iso8601(u.created_at),"                    \
	" u.bio, u.location, u.skype, u.linkedin, u.twitter, u.website_url, u.organization"        \
	" FROM users u"

const db_stmt db_user_refs_stmts[] = {
	/* The users of ids $1 (bigint[]). */
	{"users_refs", REFS_SELECT " WHERE u.id = ANY ($1::bigint[])", 1, 2 + RF_N},
	/* The first REFS_BULK users. */
	{"users_refs_bulk", REFS_SELECT " ORDER BY u.id LIMIT " REFS_BULK, 0, 2 + RF_N},
	/* The epoch, when authentication did not read it (c->users_epoch). */
	{"users_epoch", "SELECT " USER_EPOCH, 0, 1},
	{0},
};

/* Forgets every copy. */
static void refs_clear(void)
{
	for (size_t i = 0; i < refs.cap; i++) {
		free(refs.slot[i].block);
		free(refs.slot[i].basic);
	}
	free(refs.slot);
	refs.slot = NULL;
	refs.cap = refs.n = 0;
}

static user_ref *refs_find(long long id)
{
	if (!refs.cap)
		return NULL;
	for (size_t i = (size_t)id & (refs.cap - 1);; i = (i + 1) & (refs.cap - 1)) {
		if (refs.slot[i].id == id)
			return &refs.slot[i];
		if (!refs.slot[i].id)
			return NULL;
	}
}

/* The slot of id, free or id's own, once there is room (NULL without memory). */
static user_ref *refs_slot(long long id)
{
	if (refs.n >= REFS_MAX)
		refs_clear();
	if (2 * (refs.n + 1) > refs.cap) {
		size_t cap = refs.cap ? 2 * refs.cap : 1024;
		user_ref *slot = calloc(cap, sizeof(*slot));
		if (!slot)
			return NULL;
		for (size_t i = 0; i < refs.cap; i++) {
			if (!refs.slot[i].id)
				continue;
			size_t j = (size_t)refs.slot[i].id & (cap - 1);
			while (slot[j].id)
				j = (j + 1) & (cap - 1);
			slot[j] = refs.slot[i];
		}
		free(refs.slot);
		refs.slot = slot;
		refs.cap = cap;
	}
	size_t i = (size_t)id & (refs.cap - 1);
	while (refs.slot[i].id && refs.slot[i].id != id)
		i = (i + 1) & (refs.cap - 1);
	return &refs.slot[i];
}

/* Forgets every copy when the epoch has grown past theirs. */
static void refs_at(long long epoch)
{
	if (epoch > refs.epoch) {
		refs_clear();
		refs.epoch = epoch;
	}
}

/* Keeps the users of got (users_refs' columns). */
static void refs_keep(const PGresult *got)
{
	for (int row = 0; row < PQntuples(got); row++) {
		refs_at(db_int(got, row, 0));
		long long id = db_int(got, row, 1);
		size_t len = 0;
		for (int f = 0; f < RF_N; f++)
			len += PQgetisnull(got, row, 2 + f)
				       ? 0
				       : (size_t)PQgetlength(got, row, 2 + f) + 1;
		user_ref *u = refs_slot(id);
		char *block = malloc(len ? len : 1);
		if (!u || !block) {
			free(block);
			break;
		}
		if (u->id) {
			free(u->block);
			free(u->basic);
		} else {
			refs.n++;
		}
		u->id = id;
		u->block = block;
		u->basic = NULL;
		for (int f = 0; f < RF_N; f++) {
			if (PQgetisnull(got, row, 2 + f)) {
				u->f[f] = NULL;
				continue;
			}
			size_t l = (size_t)PQgetlength(got, row, 2 + f);
			memcpy(block, PQgetvalue(got, row, 2 + f), l + 1);
			u->f[f] = block;
			block += l + 1;
		}
	}
}

/* Reads the users that column col of res refers to (USER_REF) and this worker lacks,
 * in one statement; the first time at an epoch, the first REFS_BULK users before. */
static void refs_fill(ctx *c, const PGresult *res, int col)
{
	int err;
	if (refs.bulk_epoch != refs.epoch + 1) {
		PGresult *all = db_query(c, "users_refs_bulk", 0, NULL, &err);
		if (all)
			refs_keep(all);
		refs.bulk_epoch = refs.epoch + 1;
	}
	buf ids;
	buf_init(&ids, c->a, 256);
	buf_putc(&ids, '{');
	int n = 0;
	for (int row = 0; row < PQntuples(res); row++) {
		if (PQgetisnull(res, row, col) ||
		    !PQgetisnull(res, row, col + 1 /* the username of USER_REF */))
			continue;
		long long id = db_int(res, row, col);
		if (id <= 0 || refs_find(id))
			continue;
		if (n++)
			buf_putc(&ids, ',');
		buf_put_int(&ids, id);
	}
	buf_putc(&ids, '}');
	if (!n)
		return;
	const char *v[1] = {buf_cstr(&ids)};
	PGresult *got = db_query(c, "users_refs", 1, v, &err);
	if (got)
		refs_keep(got);
}

user_ref *db_user_ref(ctx *c, const PGresult *res, int row, int col)
{
	if (!c->users_epoch) {
		int err;
		PGresult *e = db_query(c, "users_epoch", 0, NULL, &err);
		if (e && PQntuples(e) == 1)
			c->users_epoch = db_int(e, 0, 0);
		else
			refs_clear(); /* the copies read now bring the epoch */
	}
	refs_at(c->users_epoch);
	long long id = db_int(res, row, col);
	user_ref *u = refs_find(id);
	if (!u) {
		refs_fill(c, res, col);
		u = refs_find(id);
	}
	return u;
}
