/* The frame of project import and export (db/impexp.h): the maps, the typed readers of
 * an element, the writer of project.json's arrays, and project_members. */
#include "db/impexp.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/log.h"

const impexp_relation impexp_relations[] = {
#define REL(key, pass, import_fn, export_fn) {#key, pass, import_fn, export_fn},
#include "db/impexp_relations.def"
#undef REL
};
const int impexp_nrelations = (int)(sizeof(impexp_relations) / sizeof(impexp_relations[0]));

enum {
	MEMBER_EXPORT_ID,
	MEMBER_EXPORT_LEVEL,
	MEMBER_EXPORT_CREATED,
	MEMBER_EXPORT_UPDATED,
	MEMBER_EXPORT_USER_ID,
	MEMBER_EXPORT_EMAIL,
	MEMBER_EXPORT_USERNAME,
	MEMBER_EXPORT_NCOLS
};

enum {
	MEMBER_IN_PROJECT,
	MEMBER_IN_USER,
	MEMBER_IN_LEVEL,
	MEMBER_IN_CREATED,
	MEMBER_IN_UPDATED,
	MEMBER_IN_IMPORTER,
	MEMBER_IN_NPARAMS
};

const db_stmt db_impexp_stmts[] = {
	/* MembersMapper: the user of email $1 (case aside), NULL when none */
	{"impexp_user_by_email",
	 "SELECT (SELECT id FROM users WHERE lower(email) = lower($1) AND NOT ghost"
	 " ORDER BY id LIMIT 1)",
	 1, 1},
	/* $1 project, $2 user, $3 level, $4 created_at, $5 updated_at, $6 importer: a
	 * member already there (the importer) keeps the higher level */
	{"impexp_member_insert",
	 "INSERT INTO members AS m (source_type, source_id, user_id, access_level, created_at,"
	 " updated_at, created_by)"
	 " VALUES ('Project', $1, $2, $3, coalesce($4::timestamptz, now()),"
	 " coalesce($5::timestamptz, now()), $6)"
	 " ON CONFLICT (source_type, source_id, user_id) DO UPDATE"
	 " SET access_level = greatest(m.access_level, EXCLUDED.access_level),"
	 " requested_at = NULL",
	 MEMBER_IN_NPARAMS, 0},
	/* $1 project, $2 after this member id: a page of its members with their users */
	{"impexp_members_page",
	 "SELECT m.id, m.access_level, iso8601(m.created_at), iso8601(m.updated_at), u.id,"
	 " u.email, u.username FROM members m JOIN users u ON u.id = m.user_id"
	 " WHERE m.source_type = 'Project' AND m.source_id = $1 AND m.requested_at IS NULL"
	 " AND m.id > $2 ORDER BY m.id LIMIT 500",
	 2, MEMBER_EXPORT_NCOLS},
	{NULL, NULL, 0, 0},
};

/* ---- maps ---- */

/* Open addressing on (rel, key), at most half full, in the import's arena. */
struct impexp_map {
	arena *a;
	struct map_entry {
		const char *rel;
		long key;
		long value;
	} * slot;
	size_t cap, n;
};

static size_t map_hash(const char *rel, long key)
{
	uint64_t h = 1469598103934665603ULL;
	for (const char *s = rel; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h ^= (uint64_t)key * 0x9E3779B97F4A7C15ULL;
	return (size_t)(h ^ (h >> 29));
}

static struct map_entry *map_find(struct impexp_map *m, const char *rel, long key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = map_hash(rel, key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct map_entry *e = &m->slot[i];
		if (!e->rel || (e->key == key && strcmp(e->rel, rel) == 0))
			return e;
	}
}

static int map_put(struct impexp_map *m, const char *rel, long key, long value)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct map_entry *old = m->slot;
		size_t oldcap = m->cap;
		m->slot = arena_alloc(m->a, cap * sizeof(*m->slot));
		if (!m->slot)
			return ERR_INTERNAL;
		m->cap = cap;
		m->n = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].rel) {
				*map_find(m, old[i].rel, old[i].key) = old[i];
				m->n++;
			}
	}
	struct map_entry *e = map_find(m, rel, key);
	if (!e->rel) {
		e->rel = arena_strdup(m->a, rel);
		e->key = key;
		m->n++;
	}
	e->value = value;
	return 0;
}

struct impexp_map *impexp_map_new(arena *a)
{
	struct impexp_map *m = arena_alloc(a, sizeof(*m));
	if (m)
		m->a = a;
	return m;
}

long impexp_user(struct impexp_import *st, long exported_user_id, bool *matched)
{
	struct map_entry *e = map_find(st->users, "users", exported_user_id);
	bool found = e && e->rel && e->value > 0;
	if (matched)
		*matched = found;
	return found ? e->value : st->importer_id;
}

int impexp_map_put(struct impexp_import *st, const char *rel, long exported_id, long id)
{
	return map_put(st->ids, rel, exported_id, id);
}

long impexp_map_get(struct impexp_import *st, const char *rel, long exported_id)
{
	struct map_entry *e = map_find(st->ids, rel, exported_id);
	return e && e->rel ? e->value : 0;
}

/* ---- reading an element ---- */

const char *impexp_str(json_object *rec, const char *key)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(rec, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

bool impexp_int(json_object *rec, const char *key, long long *out)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(rec, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	errno = 0;
	long long n = json_object_get_int64(v);
	if (errno)
		return false;
	*out = n;
	return true;
}

bool impexp_bool(json_object *rec, const char *key, bool def)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(rec, key, &v) || !json_object_is_type(v, json_type_boolean))
		return def;
	return json_object_get_boolean(v);
}

json_object *impexp_array(json_object *rec, const char *key)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(rec, key, &v) || !json_object_is_type(v, json_type_array))
		return NULL;
	return v;
}

const char *impexp_by_author(ctx *c, const char *text, const char *author_name,
			     const char *created_at, bool matched)
{
	if (matched)
		return text;
	return arena_printf(c->a, "%s\n\n *By %s on %s (imported from GitLab project)*",
			    text ? text : "", author_name ? author_name : "Unknown",
			    created_at ? created_at : "");
}

/* ---- writing project.json ---- */

int impexp_emit(struct impexp_export *st, json_object *rec)
{
	int rc = 0;
	if (!st->err) {
		const char *s = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN);
		if (!s || fprintf(st->json, "%s%s", st->count ? "," : "", s) < 0)
			st->err = errno ? errno : EIO;
		else
			st->count++;
	}
	json_object_put(rec);
	if (st->err)
		rc = -1;
	return rc;
}

/* ---- project_members (pass 1): the user map ---- */

int impexp_members_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	long long exported_id, level;
	json_object *user = NULL;
	if (!impexp_int(rec, "user_id", &exported_id) || !impexp_int(rec, "access_level", &level) ||
	    !json_object_object_get_ex(rec, "user", &user) ||
	    !json_object_is_type(user, json_type_object)) {
		*why = "project_members: an element has no user_id, access_level or user";
		return -1;
	}
	/* a project's levels (10.8's ProjectMember): the owner is the namespace's */
	if (level != 10 && level != 20 && level != 30 && level != 40) {
		*why = arena_printf(st->a, "project_members: access level %lld is invalid", level);
		return -1;
	}
	const char *email = impexp_str(user, "email");
	if (!email)
		return 0; /* nobody to match: their records fall to the importer */
	const char *v[1] = {email};
	int err;
	PGresult *res = db_query(c, "impexp_user_by_email", 1, v, &err);
	if (!res) {
		*why = "project_members: the users cannot be read";
		return err;
	}
	long long id = db_int(res, 0, 0);
	if (!db_val(res, 0, 0))
		return 0;
	if (map_put(st->users, "users", (long)exported_id, (long)id) < 0)
		return ERR_INTERNAL;
	const char *m[] = {[MEMBER_IN_PROJECT] = arena_printf(c->a, "%ld", st->project_id),
			   [MEMBER_IN_USER] = arena_printf(c->a, "%lld", id),
			   [MEMBER_IN_LEVEL] = arena_printf(c->a, "%lld", level),
			   [MEMBER_IN_CREATED] = impexp_str(rec, "created_at"),
			   [MEMBER_IN_UPDATED] = impexp_str(rec, "updated_at"),
			   [MEMBER_IN_IMPORTER] = arena_printf(c->a, "%ld", st->importer_id)};
	DB_PARAMS(m, MEMBER_IN_NPARAMS);
	if (!db_query(c, "impexp_member_insert", MEMBER_IN_NPARAMS, m, &err)) {
		*why = arena_printf(st->a, "project_members: member %lld cannot be added",
				    exported_id);
		return err;
	}
	return 0;
}

int impexp_members_export(ctx *c, struct impexp_export *st, const char **why)
{
	const char *after = "0";
	for (;;) {
		const char *v[2] = {arena_printf(c->a, "%ld", st->project_id), after};
		int err;
		PGresult *res = db_query(c, "impexp_members_page", 2, v, &err);
		if (!res) {
			*why = "the members cannot be read";
			return err;
		}
		int n = PQntuples(res);
		for (int i = 0; i < n; i++) {
			json_object *m = json_object_new_object();
			json_object *u = json_object_new_object();
			long long uid = db_int(res, i, MEMBER_EXPORT_USER_ID);
			json_object_object_add(
				m, "id", json_object_new_int64(db_int(res, i, MEMBER_EXPORT_ID)));
			json_object_object_add(
				m, "access_level",
				json_object_new_int64(db_int(res, i, MEMBER_EXPORT_LEVEL)));
			json_object_object_add(m, "source_id",
					       json_object_new_int64(st->project_id));
			json_object_object_add(m, "source_type", json_object_new_string("Project"));
			json_object_object_add(m, "user_id", json_object_new_int64(uid));
			json_object_object_add(m, "notification_level", json_object_new_int(3));
			json_object_object_add(
				m, "created_at",
				json_object_new_string(db_val(res, i, MEMBER_EXPORT_CREATED)));
			json_object_object_add(
				m, "updated_at",
				json_object_new_string(db_val(res, i, MEMBER_EXPORT_UPDATED)));
			json_object_object_add(m, "created_by_id", NULL);
			json_object_object_add(m, "invite_email", NULL);
			json_object_object_add(m, "invite_token", NULL);
			json_object_object_add(m, "invite_accepted_at", NULL);
			json_object_object_add(m, "requested_at", NULL);
			json_object_object_add(u, "id", json_object_new_int64(uid));
			json_object_object_add(
				u, "email",
				json_object_new_string(db_val(res, i, MEMBER_EXPORT_EMAIL)));
			json_object_object_add(
				u, "username",
				json_object_new_string(db_val(res, i, MEMBER_EXPORT_USERNAME)));
			json_object_object_add(m, "user", u);
			if (impexp_emit(st, m) < 0) {
				*why = "project.json cannot be written";
				return -1;
			}
		}
		if (n < 500)
			return 0;
		after = arena_strdup(c->a, PQgetvalue(res, n - 1, MEMBER_EXPORT_ID));
	}
}
