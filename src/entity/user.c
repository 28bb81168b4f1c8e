#include "entity/user.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "db/db.h"
#include "entity/entity.h"
#include "core/deps.h"

json_object *entity_user(ctx *c, const PGresult *res, int row, int col, enum user_view view)
{
	deps_add(c, CACHE_KEY_USER(db_int(res, row, col + UC_ID)));
	json_object *o = json_object_new_object();
#define V(c) db_val(res, row, col + (c))
	json_put_int(o, "id", db_int(res, row, col + UC_ID));
	json_put_str(o, "name", V(UC_NAME));
	json_put_str(o, "username", V(UC_USERNAME));
	json_put_str(o, "state", V(UC_STATE));
	json_put_str(o, "avatar_url", entity_avatar_url(c, "user", V(UC_ID), V(UC_AVATAR)));
	json_put_str(o, "web_url", arena_printf(c->a, "%s/%s", c->cfg->external_url, V(UC_USERNAME)));
	if (view == USER_VIEW_BASIC)
		return o;
	json_put_str(o, "created_at", V(UC_CREATED_AT));
	json_put_str(o, "bio", V(UC_BIO));
	json_put_str(o, "location", V(UC_LOCATION));
	json_put_str(o, "skype", V(UC_SKYPE));
	json_put_str(o, "linkedin", V(UC_LINKEDIN));
	json_put_str(o, "twitter", V(UC_TWITTER));
	json_put_str(o, "website_url", V(UC_WEBSITE_URL));
	json_put_str(o, "organization", V(UC_ORGANIZATION));
	if (view == USER_VIEW_SINGLE)
		return o;
	json_put_str(o, "last_sign_in_at", V(UC_LAST_SIGN_IN_AT));
	json_put_str(o, "confirmed_at", V(UC_CONFIRMED_AT));
	json_put_str(o, "last_activity_on", V(UC_LAST_ACTIVITY_ON));
	json_put_str(o, "email", V(UC_EMAIL));
	json_put_int(o, "theme_id", db_int(res, row, col + UC_THEME_ID));
	json_put_int(o, "color_scheme_id", db_int(res, row, col + UC_COLOR_SCHEME_ID));
	json_put_int(o, "projects_limit", db_int(res, row, col + UC_PROJECTS_LIMIT));
	json_put_str(o, "current_sign_in_at", V(UC_CURRENT_SIGN_IN_AT));
	const char *ids = V(UC_IDENTITIES);
	json_object *identities = ids ? json_tokener_parse(ids) : NULL;
	json_object_object_add(o, "identities", identities ? identities : json_object_new_array());
	json_put_bool(o, "can_create_group", db_bool(res, row, col + UC_CAN_CREATE_GROUP));
	json_put_bool(o, "can_create_project", db_bool(res, row, col + UC_CAN_CREATE_PROJECT));
	json_put_bool(o, "two_factor_enabled", false);
	json_put_bool(o, "external", db_bool(res, row, col + UC_EXTERNAL));
	if (view == USER_VIEW_ADMIN)
		json_put_bool(o, "is_admin", db_bool(res, row, col + UC_IS_ADMIN));
#undef V
	return o;
}

/* ---- the worker's copies of user records (USER_REF) ---- */

/* The fields of a user's basic and single views, as the columns of USER_SINGLE_COLS
 * (entity_user_stmts' order): username .. organization, without email and is_admin. */
enum { RF_USERNAME, RF_NAME, RF_STATE, RF_AVATAR, RF_CREATED_AT, RF_BIO, RF_LOCATION,
       RF_SKYPE, RF_LINKEDIN, RF_TWITTER, RF_WEBSITE_URL, RF_ORGANIZATION, RF_N };

typedef struct {
	long long id; /* 0: a free slot */
	char *f[RF_N]; /* in one allocation with the entry's strings */
	char *block;
	char *basic;   /* the basic view as JSON, once written (NULL: not yet) */
	size_t basic_len;
} user_ref;

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
#define REFS_SELECT                                                                             \
	"SELECT " USER_EPOCH ", u.id, u.username, u.name, u.state, u.avatar, iso8601(u.created_at)," \
	" u.bio, u.location, u.skype, u.linkedin, u.twitter, u.website_url, u.organization"    \
	" FROM users u"

const db_stmt entity_user_stmts[] = {
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
			len += PQgetisnull(got, row, 2 + f) ? 0 : (size_t)PQgetlength(got, row, 2 + f) + 1;
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
		if (PQgetisnull(res, row, col) || !PQgetisnull(res, row, col + UC_USERNAME))
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

/* The copy of the user that row's USER_REF at col refers to, read when missing; NULL
 * when there is no such user. */
static user_ref *refs_get(ctx *c, const PGresult *res, int row, int col)
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

/* The record of user id with fields f (RF_*). */
static void user_fields_write(jw *w, ctx *c, long long id, const char *id_text,
			      const char *const *f, enum user_view view)
{
	jw_begin_object(w);
	jw_put_int(w, "id", id);
	jw_put_str(w, "name", f[RF_NAME]);
	jw_put_str(w, "username", f[RF_USERNAME]);
	jw_put_str(w, "state", f[RF_STATE]);
	jw_put_str(w, "avatar_url", entity_avatar_url(c, "user", id_text, f[RF_AVATAR]));
	jw_key(w, "web_url");
	jw_str_begin(w);
	jw_str_part(w, c->cfg->external_url);
	jw_str_part(w, "/");
	jw_str_part(w, f[RF_USERNAME]);
	jw_str_end(w);
	if (view != USER_VIEW_BASIC) {
		jw_put_str(w, "created_at", f[RF_CREATED_AT]);
		jw_put_str(w, "bio", f[RF_BIO]);
		jw_put_str(w, "location", f[RF_LOCATION]);
		jw_put_str(w, "skype", f[RF_SKYPE]);
		jw_put_str(w, "linkedin", f[RF_LINKEDIN]);
		jw_put_str(w, "twitter", f[RF_TWITTER]);
		jw_put_str(w, "website_url", f[RF_WEBSITE_URL]);
		jw_put_str(w, "organization", f[RF_ORGANIZATION]);
	}
	jw_end_object(w);
}

void entity_user_write(jw *w, ctx *c, const PGresult *res, int row, int col,
		       enum user_view view)
{
	const char *f[RF_N], *id = db_val(res, row, col + UC_ID);
	long long id_num = db_int(res, row, col + UC_ID);
	if (id && PQgetisnull(res, row, col + UC_USERNAME)) {
		user_ref *u = refs_get(c, res, row, col);
		if (!u) {
			jw_null(w);
			return;
		}
		deps_add(c, CACHE_KEY_USER(id_num));
		if (view != USER_VIEW_BASIC) {
			user_fields_write(w, c, id_num, id, (const char *const *)u->f, view);
			return;
		}
		/* the basic view of a copy, as many lists show it for each row: written once */
		if (!u->basic) {
			jw t;
			jw_init(&t, c->a, 256);
			user_fields_write(&t, c, id_num, id, (const char *const *)u->f, view);
			u->basic = malloc(t.b.len);
			if (!u->basic) {
				jw_raw(w, t.b.data, t.b.len);
				return;
			}
			memcpy(u->basic, t.b.data, t.b.len);
			u->basic_len = t.b.len;
		}
		jw_raw(w, u->basic, u->basic_len);
		return;
	}
	static const int cols[RF_N] = {UC_USERNAME, UC_NAME, UC_STATE, UC_AVATAR,
				    UC_CREATED_AT, UC_BIO, UC_LOCATION, UC_SKYPE,
				    UC_LINKEDIN, UC_TWITTER, UC_WEBSITE_URL,
				    UC_ORGANIZATION};
	for (int i = 0; i < (view == USER_VIEW_BASIC ? RF_CREATED_AT : RF_N); i++)
		f[i] = db_val(res, row, col + cols[i]);
	deps_add(c, CACHE_KEY_USER(id_num));
	user_fields_write(w, c, id_num, id, f, view);
}

bool entity_user_present(ctx *c, const PGresult *res, int row, int col)
{
	if (PQgetisnull(res, row, col + UC_ID))
		return false;
	return !PQgetisnull(res, row, col + UC_USERNAME) || refs_get(c, res, row, col);
}

void entity_user_summary_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	if (PQgetisnull(res, row, col))
		jw_null(w);
	else
		entity_user_write(w, c, res, row, col, USER_VIEW_BASIC);
}

void entity_user_list_depend(ctx *c)
{
	deps_add(c, CACHE_SET_USERS);
}
