/* Small helpers shared by the presenters. */
#ifndef COLLABD_ENTITY_H
#define COLLABD_ENTITY_H

#include <json-c/json.h>
#include <stdbool.h>

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* Adds key: the string, or JSON null when s is NULL. The key is not copied: a constant,
 * or a string that outlives the object (the request's arena). */
void json_put_str(json_object *o, const char *key, const char *s);
void json_put_int(json_object *o, const char *key, long long v);
void json_put_bool(json_object *o, const char *key, bool v);
/* Adds key: integer parsed from s, or null when s is NULL. */
void json_put_int_or_null(json_object *o, const char *key, const char *s);
/* The text[] column value (PostgreSQL's array text) as a JSON array of its strings. */
void entity_text_array_write(jw *w, ctx *c, const char *array);
/* URL of an uploaded avatar, or NULL when there is none. */
const char *entity_avatar_url(ctx *c, const char *kind, const char *id, const char *file);
/* Writes "web_url": the page of a project's record, EXTERNAL_URL/PATH/KIND/IID, where
 * PATH is the project's full path, or NULL for the route's project (r->project: a list
 * of one project reads no path). */
void entity_web_url_write(jw *w, ctx *c, const char *path, const char *kind, const char *iid);

#endif
