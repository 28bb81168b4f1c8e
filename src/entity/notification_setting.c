#include "entity/notification_setting.h"

#include <string.h>

#include "db/db.h"
#include "entity/entity.h"

const char *const notification_events[NOTIFICATION_EVENT_COUNT + 1] = {
	"new_note",
	"new_issue",
	"reopen_issue",
	"close_issue",
	"reassign_issue",
	"new_merge_request",
	"reopen_merge_request",
	"close_merge_request",
	"reassign_merge_request",
	"merge_merge_request",
	"failed_pipeline",
	"success_pipeline",
	NULL,
};

json_object *entity_notification_setting(const PGresult *res, int row, int col, bool global)
{
	json_object *o = json_object_new_object();
	const char *level = db_val(res, row, col);
	json_put_str(o, "level", level);
	/* GitLab shows the events only for the custom level, also on the global setting */
	if (level && strcmp(level, "custom") == 0) {
		json_object *events = json_object_new_object();
		for (int i = 0; i < NOTIFICATION_EVENT_COUNT; i++)
			json_put_bool(events, notification_events[i],
				      db_bool(res, row, col + 1 + i));
		json_object_object_add(o, "events", events);
	}
	if (global)
		json_put_str(o, "notification_email",
			     db_val(res, row, col + 1 + NOTIFICATION_EVENT_COUNT));
	return o;
}
