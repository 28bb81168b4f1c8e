/* Presenter of a notification setting (global, group or project). */
#ifndef COLLABD_ENTITY_NOTIFICATION_SETTING_H
#define COLLABD_ENTITY_NOTIFICATION_SETTING_H

#include <stdbool.h>

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The 12 custom events, in the order of NOTIFICATION_EVENT_COLS; NULL-terminated. */
#define NOTIFICATION_EVENT_COUNT 12
extern const char *const notification_events[NOTIFICATION_EVENT_COUNT + 1];

/* The event columns of notification_settings, each prefixed with P (a string literal:
 * "s." for a row aliased s, "" for an INSERT column list). */
#define NOTIFICATION_EVENT_COLS(P)                                                                 \
	P "new_note, " P "new_issue, " P "reopen_issue, " P "close_issue, " P "reassign_issue, " P \
	  "new_merge_request, " P "reopen_merge_request, " P "close_merge_request, " P             \
	  "reassign_merge_request, " P "merge_merge_request, " P "failed_pipeline, " P             \
	  "success_pipeline"

/* The setting whose level is at column col of row, followed by the event columns (NULL
 * reads as false) and, when global, the notification email: {level}, with events when
 * the level is custom, and notification_email for the global setting. */
json_object *entity_notification_setting(const PGresult *res, int row, int col, bool global);

#endif
