-- collabd schema: GET /user/activities (src/api/user_activities.c) lists the users whose
-- last_activity_on is on or after a date, oldest first: served by this index. The
-- column itself (sql/0001) is written at most once a day per user, by a git pull over
-- HTTP or SSH and by a sign-in (src/db/activity.c), as GitLab 10.8's
-- Users::ActivityService; sql/0033's trigger bumps only the user's own key for it.
CREATE INDEX users_last_activity_on_idx ON users (last_activity_on, id)
	WHERE last_activity_on IS NOT NULL;
