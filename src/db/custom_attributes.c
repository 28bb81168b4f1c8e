/* Custom attributes (db/custom_attributes.h): the same five statements for each kind of
 * owner, over its own table. */
#include "core/errors.h"
#include "core/validate.h"
#include "db/custom_attributes.h"

/* The owner $1 as a one-column row set (none when there is no such owner). */
#define CA_OWNER_USER "SELECT id FROM users WHERE id = $1::bigint AND NOT ghost"
#define CA_OWNER_GROUP "SELECT id FROM namespaces WHERE id = $1::bigint AND kind = 'group'"
#define CA_OWNER_PROJECT "SELECT id FROM projects WHERE id = $1::bigint AND NOT pending_delete"

/* list and get: one row with NULL columns when the owner has no (such) attribute, no row
 * when there is no owner; of: the attributes of the owners $1; set: no row when there is
 * no owner; delete: how many went (0 or 1), no row when there is no owner. */
#define CA_STMTS(kind, table, col, owner)                                                          \
	{"ca_" kind "_list",                                                                       \
	 "SELECT a.key, a.value FROM (" owner ") o LEFT JOIN " table " a ON a." col " = o.id"      \
	 " ORDER BY a.id",                                                                         \
	 1, CA_NCOLS},                                                                             \
		{"ca_" kind "_of",                                                                 \
		 "SELECT " col ", key, value FROM " table " WHERE " col " = ANY ($1::bigint[])"    \
		 " ORDER BY " col ", id",                                                          \
		 1, CAO_NCOLS},                                                                    \
		{"ca_" kind "_get",                                                                \
		 "SELECT a.key, a.value FROM (" owner ") o LEFT JOIN " table " a ON a." col        \
		 " = o.id AND a.key = $2",                                                         \
		 2, CA_NCOLS},                                                                     \
		{"ca_" kind "_set",                                                                \
		 "WITH o AS (" owner " FOR KEY SHARE) INSERT INTO " table " AS a (" col            \
		 ", key, value) SELECT o.id, $2, $3 FROM o ON CONFLICT (" col ", key)"             \
		 " DO UPDATE SET value = EXCLUDED.value, updated_at = now()"                       \
		 " RETURNING a.key, a.value",                                                      \
		 3, CA_NCOLS},                                                                     \
	{                                                                                          \
		"ca_" kind "_delete",                                                              \
			"WITH o AS (" owner "), d AS (DELETE FROM " table " a USING o"             \
			" WHERE a." col " = o.id AND a.key = $2 RETURNING a.id)"                   \
			" SELECT (SELECT count(*) FROM d) FROM o",                                 \
			2, 1                                                                       \
	}

const db_stmt db_custom_attributes_stmts[] = {
	CA_STMTS("user", "user_custom_attributes", "user_id", CA_OWNER_USER),
	CA_STMTS("group", "group_custom_attributes", "group_id", CA_OWNER_GROUP),
	CA_STMTS("project", "project_custom_attributes", "project_id", CA_OWNER_PROJECT),
	{NULL, NULL, 0, 0},
};

/* The statements of each kind, by operation. */
enum { OP_LIST, OP_OF, OP_GET, OP_SET, OP_DELETE, OP_N };
#define CA_NAMES(kind)                                                                             \
	{                                                                                          \
		"ca_" kind "_list", "ca_" kind "_of", "ca_" kind "_get", "ca_" kind "_set",        \
			"ca_" kind "_delete"                                                       \
	}
static const char *const names[CA_NKINDS][OP_N] = {
	[CA_USER] = CA_NAMES("user"),
	[CA_GROUP] = CA_NAMES("group"),
	[CA_PROJECT] = CA_NAMES("project"),
};

bool db_custom_attribute_valid(const char *key, const char *value)
{
	return key && value && *key && *value && utf8_chars(key) <= CA_MAX &&
	       utf8_chars(value) <= CA_MAX;
}

int db_custom_attributes_list(ctx *c, ca_owner kind, const char *id, PGresult **out)
{
	int err;
	PGresult *res = db_query(c, names[kind][OP_LIST], 1, &id, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_NOT_FOUND;
	*out = res;
	return 0;
}

int db_custom_attributes_of(ctx *c, ca_owner kind, const char *ids, PGresult **out)
{
	int err;
	PGresult *res = db_query(c, names[kind][OP_OF], 1, &ids, &err);
	if (!res)
		return err;
	*out = res;
	return 0;
}

int db_custom_attributes_get(ctx *c, ca_owner kind, const char *id, const char *key, PGresult **out)
{
	const char *v[2] = {id, key};
	int err;
	PGresult *res = db_query(c, names[kind][OP_GET], 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_NOT_FOUND;
	*out = res;
	return PQgetisnull(res, 0, CA_KEY) ? 1 : 0;
}

int db_custom_attributes_set(ctx *c, ca_owner kind, const char *id, const char *key,
			     const char *value, PGresult **out)
{
	if (!db_custom_attribute_valid(key, value))
		return ERR_INVALID;
	const char *v[3] = {id, key, value};
	int err;
	PGresult *res = db_query(c, names[kind][OP_SET], 3, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_NOT_FOUND;
	*out = res;
	return 0;
}

int db_custom_attributes_delete(ctx *c, ca_owner kind, const char *id, const char *key)
{
	const char *v[2] = {id, key};
	int err;
	PGresult *res = db_query(c, names[kind][OP_DELETE], 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_NOT_FOUND;
	return db_int(res, 0, 0) > 0 ? 0 : 1;
}
