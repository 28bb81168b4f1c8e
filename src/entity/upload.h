/* Presenter of a project's uploaded file (POST /projects/:id/uploads; GitLab 10's
 * FileUploader#to_h): alt, url, markdown. */
#ifndef COLLABD_ENTITY_UPLOAD_H
#define COLLABD_ENTITY_UPLOAD_H

#include <stdbool.h>

#include "core/ctx.h"
#include "core/jw.h"

/* Whether GitLab 10 links filename as an image (![...](...)): an image, a video or an
 * SVG by its extension. */
bool entity_upload_embedded(const char *filename);
/* {alt, url: /uploads/<secret>/<filename>, markdown} of the file stored under secret. */
json_object *entity_upload(ctx *c, const char *secret, const char *filename);

#endif
