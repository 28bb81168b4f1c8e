/* Custom attributes of users, groups and projects (sql/0054_custom_attributes.sql):
 * key/value text that admins set, one value per key and owner, removed with the owner.
 * Typed functions over a ctx's connection, for the API (api/custom_attributes.c and the
 * lists' filter) and for the project importer (project.json's custom_attributes). */
#ifndef COLLABD_DB_CUSTOM_ATTRIBUTES_H
#define COLLABD_DB_CUSTOM_ATTRIBUTES_H

#include "core/ctx.h"
#include "db/db.h"

/* Whose attributes: a user (not the ghost), a group (a namespace of kind group) or a
 * project (not pending deletion); the owner is named by its decimal id. */
typedef enum { CA_USER, CA_GROUP, CA_PROJECT, CA_NKINDS } ca_owner;

/* The longest key and value, in characters (GitLab's string columns). */
#define CA_MAX 255

/* SQL text: the record whose id is the expression ID has every attribute of the jsonb
 * object parameter P (a key sent twice: its last value), true for every record when P
 * is NULL; from TABLE, whose owner column is COL. Written so that a generic plan with P
 * NULL stays the plan the statement has without the filter: the planner estimates that
 * an integer <> 0 keeps nearly every row (where "P IS NULL OR ..." would have it keep one
 * in a hundred, and choose another plan), and the CASE runs the subquery only when P is
 * given. */
#define SQL_CUSTOM_ATTRIBUTES_MATCH(P, TABLE, COL, ID)                                             \
	"(CASE WHEN " P "::jsonb IS NULL THEN 1 WHEN " P "::jsonb <@ (SELECT"                      \
	" jsonb_object_agg(ca.key, ca.value) FROM " TABLE " ca WHERE ca." COL " = " ID ")"         \
	" THEN 1 ELSE 0 END) <> 0"

/* The columns of an attribute (rows of list, get, set), and of db_custom_attributes_of's
 * rows (the owner's id first). */
enum { CA_KEY, CA_VALUE, CA_NCOLS };
enum { CAO_OWNER, CAO_KEY, CAO_VALUE, CAO_NCOLS };

extern const db_stmt db_custom_attributes_stmts[];

/* Whether key and value are an attribute that can be stored: both non-empty, at most
 * CA_MAX characters. */
bool db_custom_attribute_valid(const char *key, const char *value);

/* The attributes of owner id, in the order they were made: 0 with the rows in *out (c's
 * arena; none when it has none), or ERR_NOT_FOUND when there is no such owner, or an
 * ERR_ code. */
int db_custom_attributes_list(ctx *c, ca_owner kind, const char *id, PGresult **out);
/* The attributes of the owners ids (a bigint[] literal): rows CAO_* ordered by owner, then
 * as list. 0 or an ERR_ code. */
int db_custom_attributes_of(ctx *c, ca_owner kind, const char *ids, PGresult **out);
/* Attribute key of owner id: 0 with it in row 0 of *out, 1 when the owner has none of
 * that key, ERR_NOT_FOUND when there is no such owner, or an ERR_ code. */
int db_custom_attributes_get(ctx *c, ca_owner kind, const char *id, const char *key,
			     PGresult **out);
/* Sets key of owner id to value (made or replaced; the owner's row is held FOR KEY SHARE
 * meanwhile): 0 with the attribute in row 0 of *out; ERR_INVALID when
 * db_custom_attribute_valid refuses them, ERR_NOT_FOUND when there is no such owner, or
 * an ERR_ code. */
int db_custom_attributes_set(ctx *c, ca_owner kind, const char *id, const char *key,
			     const char *value, PGresult **out);
/* Removes key of owner id: 0 when removed, 1 when the owner has none of that key,
 * ERR_NOT_FOUND when there is no such owner, or an ERR_ code. */
int db_custom_attributes_delete(ctx *c, ca_owner kind, const char *id, const char *key);

#endif
