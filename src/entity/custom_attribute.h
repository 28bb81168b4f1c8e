/* Presenter of a custom attribute (GitLab 10.8's Entities::CustomAttribute): key, value;
 * and the custom_attributes member that the records of users, groups and projects carry
 * for admins who ask (with_custom_attributes). The owner's presenter declares what the
 * response depends on: an attribute's change bumps its owner's key
 * (sql/0054_custom_attributes.sql). */
#ifndef COLLABD_ENTITY_CUSTOM_ATTRIBUTE_H
#define COLLABD_ENTITY_CUSTOM_ATTRIBUTE_H

#include <json-c/json.h>

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The attribute whose key and value are columns col and col + 1 of row. */
void entity_custom_attribute_write(jw *w, ctx *c, const PGresult *res, int row, int col);
json_object *entity_custom_attribute(ctx *c, const PGresult *res, int row, int col);
/* The JSON array (text in c's arena) of the attributes of rows [from, to) of res (key
 * and value at col and col + 1; a row whose key is NULL is none). */
const char *entity_custom_attributes_text(ctx *c, const PGresult *res, int from, int to, int col);
/* Adds the custom_attributes member, the array text attrs, to the record o. */
void entity_add_custom_attributes(json_object *o, const char *attrs);

#endif
