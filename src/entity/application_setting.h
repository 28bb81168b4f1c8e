/* Presenter of the application settings (GitLab 10.8's Entities::ApplicationSetting). */
#ifndef COLLABD_ENTITY_APPLICATION_SETTING_H
#define COLLABD_ENTITY_APPLICATION_SETTING_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The row of db_settings_read (db/settings.h) from column col: the id, every field by
 * its API name (visibility levels by name, secrets opened), then 10.8's legacy names
 * of password_authentication_enabled_for_web (password_authentication_enabled,
 * signin_enabled). */
void entity_application_setting_write(jw *w, ctx *c, const PGresult *res, int row, int col);

#endif
