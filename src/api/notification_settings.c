/* Notification settings (4.13): the caller's global setting and one per group or
 * project. Reading never writes: a setting that was never stored shows its default
 * level (participating for the global one, global for a group or project, as GitLab);
 * the first PUT stores it. The handlers are written once; a scope says where the
 * setting hangs and which statements find it. */
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "auth/access.h"
#include "core/validate.h"
#include "entity/notification_setting.h"

/* Every statement answers one row per source found: the source's id, whether the
 * caller may see it, the level, then the 12 events, then the notification email
 * (global setting only). No row: no such source. */
enum {
	NS_COL_SOURCE,
	NS_COL_VISIBLE,
	NS_COL_LEVEL,
	NS_COL_EVENTS,
	NS_COL_EMAIL = NS_COL_EVENTS + NOTIFICATION_EVENT_COUNT,
	NS_NCOLS
};

/* $1 the caller, $2 the group or project (the route's scope: found and visible) */
#define SOURCE_SHOW(TYPE)                                                                          \
	"SELECT $2::bigint, true, coalesce(s.level, 'global'), " NOTIFICATION_EVENT_COLS(          \
		"s.") ", NULL::text FROM (SELECT 1) one LEFT JOIN notification_settings s"         \
		      " ON s.user_id = $1 AND s.source_type = '" TYPE "' AND s.source_id = $2"

/* The upsert of a setting: level L (NULL keeps it) and the events given in J, a JSON
 * object of booleans. A new row takes the events only with the custom level (GitLab
 * clears them when it creates a setting of another level); an existing row keeps the
 * events not given. FROM is a one-row relation with the user (uid) and the source
 * (sid); nothing is written when it is empty. */
#define NS_EVENT_NEW(L, J, C)                                                                      \
	"CASE WHEN coalesce(" L "::text, d.level) = 'custom'"                                      \
	" THEN coalesce((" J "::jsonb ->> '" C "')::boolean, false) ELSE false END"
#define NS_EVENT_SET(L, J, C) C " = coalesce((" J "::jsonb ->> '" C "')::boolean, ns." C ")"
#define NS_EACH_EVENT(M, L, J)                                                                                                                                           \
	M(L, J, "new_note")                                                                                                                                              \
	", " M(L, J, "new_issue") ", " M(L, J, "reopen_issue") ", " M(L, J, "close_issue") ", " M(L, J, "reassign_issue") ", " M(L, J, "new_merge_request") ", " M(      \
		L, J,                                                                                                                                                    \
		"reopen_merge_request") ", " M(L, J,                                                                                                                     \
					       "close_merge_request") ", " M(L, J,                                                                                       \
									     "reassign_merge_request") ", " M(L,                                                         \
													      J,                                                         \
													      "merge_merge_request") ", " M(L,                           \
																	    J,                           \
																	    "failed_pipeline") ", " M(L, \
																				      J, \
																				      "success_pipeline")
#define NS_UPSERT(TYPE, DEFAULT, FROM, L, J)                                                                                 \
	"ins AS (INSERT INTO notification_settings AS ns (user_id, source_type, source_id, level, " NOTIFICATION_EVENT_COLS( \
		"") ") SELECT f.uid, '" TYPE "', f.sid, coalesce(" L "::text,"                                               \
		    " d.level), " NS_EACH_EVENT(                                                                             \
			    NS_EVENT_NEW, L,                                                                                 \
			    J) " FROM " FROM " f,"                                                                           \
			       " (SELECT '" DEFAULT "'::text AS level) d"                                                    \
			       " ON CONFLICT (user_id, source_type, source_id) DO UPDATE SET"                                \
			       " level = coalesce(" L "::text, ns.level), " NS_EACH_EVENT(                                   \
				       NS_EVENT_SET, L,                                                                      \
				       J) ","                                                                                \
					  " updated_at = now() RETURNING ns.level, " NOTIFICATION_EVENT_COLS(                \
						  "ns.") ")"

/* $1 the caller, $2 the source, $3 level, $4 events */
#define SOURCE_UPDATE(TYPE)                                                                        \
	"WITH " NS_UPSERT(TYPE, "global", "(SELECT $1::bigint AS uid, $2::bigint AS sid)", "$3",   \
			  "$4") " SELECT $2::bigint, true, ins.*, NULL::text FROM ins"

/* The notification email shown: the stored one while it is still one of the user's
 * emails (only the primary one in collabd), else the primary email, as GitLab resets it
 * when the email changes. */
#define NOTIFICATION_EMAIL(U)                                                                      \
	"CASE WHEN lower(" U ".notification_email) = lower(" U ".email)"                           \
	" THEN " U ".notification_email ELSE " U ".email END"

const db_stmt notification_settings_stmts[] = {
	{"ns_project_show", SOURCE_SHOW("Project"), 2, NS_NCOLS},
	{"ns_project_update", SOURCE_UPDATE("Project"), 4, NS_NCOLS},
	{"ns_group_show", SOURCE_SHOW("Namespace"), 2, NS_NCOLS},
	{"ns_group_update", SOURCE_UPDATE("Namespace"), 4, NS_NCOLS},
	/* $1 the user */
	{"ns_global_show",
	 "SELECT 0, true, coalesce(s.level, 'participating'), " NOTIFICATION_EVENT_COLS("s.") ", " NOTIFICATION_EMAIL(
		 "u") " FROM users u LEFT JOIN notification_settings s"
		      " ON s.user_id = u.id AND s.source_type = 'Global' AND s.source_id = 0 WHERE u.id = $1",
	 1, NS_NCOLS},
	/* $1 the user, $2 notification email (NULL keeps it; nothing is written unless it
	 * is the user's), $3 level, $4 events */
	{"ns_global_update",
	 "WITH u AS (SELECT id, email, notification_email FROM users WHERE id = $1"
	 "  AND ($2::text IS NULL OR lower($2) = lower(email)) FOR UPDATE),"
	 " e AS (UPDATE users SET notification_email = u.email, updated_at = now() FROM u"
	 "  WHERE users.id = u.id AND $2 IS NOT NULL), " NS_UPSERT(
		 "Global", "participating", "(SELECT u.id AS uid, 0 AS sid FROM u)", "$3",
		 "$4") " SELECT 0, true, ins.*, CASE WHEN $2 IS NOT NULL THEN u.email ELSE " NOTIFICATION_EMAIL("u") " END FROM u, ins",
	 4, NS_NCOLS},
	{NULL, NULL, 0, 0},
};

typedef struct {
	const char *show; /* statement names */
	const char *update;
	bool global;
} ns_scope;

static const ns_scope ns_global = {"ns_global_show", "ns_global_update", true};
static const ns_scope ns_group = {"ns_group_show", "ns_group_update", false};
static const ns_scope ns_project = {"ns_project_show", "ns_project_update", false};

static const char *const levels[] = {"disabled", "participating", "watch", "global",
				     "mention",  "custom",        NULL};

/* The leading parameters of sc's statements: the user, and the route's group or
 * project. */
static int source_params(request *r, const ns_scope *sc, const char **v)
{
	v[0] = api_caller_id(r);
	if (sc->global)
		return 1;
	v[1] = r->project ? r->project->id : r->group->id;
	return 2;
}

static int respond_setting(request *r, const ns_scope *sc, const PGresult *res)
{
	if (PQntuples(res) == 0)
		return ERR_INTERNAL;
	respond_json(r, 200, entity_notification_setting(res, 0, NS_COL_LEVEL, sc->global));
	return 0;
}

static int settings_show(request *r, const ns_scope *sc)
{
	const char *v[4];
	int n = source_params(r, sc, v), err;
	PGresult *res = db_query(&r->ctx, sc->show, n, v, &err);
	if (!res)
		return err;
	return respond_setting(r, sc, res);
}

/* GitLab's messages for a notification email: present, well formed, and one of the
 * user's emails. */
static int check_notification_email(request *r, const char *email)
{
	const char *own = r->ctx.user->email;
	if (!*email)
		fail_validation(r, "notification_email", "can't be blank");
	if (!valid_email(email))
		fail_validation(r, "notification_email", "is invalid");
	if (!own || strcasecmp(email, own) != 0)
		fail_validation(r, "notification_email", "is not an email you own");
	return r->validation ? ERR_VALIDATION : 0;
}

/* The input of an update, as GitLab checks it before it looks at the source: the
 * booleans' types first, then the level; events gets the booleans given. */
static int settings_input(request *r, json_object *events, const char **level)
{
	int rc;
	for (int i = 0; i < NOTIFICATION_EVENT_COUNT; i++) {
		bool on = false;
		if ((rc = param_bool(r, notification_events[i], &on)) < 0)
			return rc;
		if (rc == 0 && events)
			json_object_object_add(events, notification_events[i],
					       json_object_new_boolean(on));
	}
	*level = NULL;
	return (rc = param_oneof(r, "level", levels, level)) < 0 ? rc : 0;
}

static int notification_settings_check(request *r)
{
	const char *level;
	return settings_input(r, NULL, &level);
}

static int settings_update(request *r, const ns_scope *sc)
{
	const char *v[4];
	int n = source_params(r, sc, v), rc;
	json_object *events = request_own(r, json_object_new_object());
	const char *level;
	if ((rc = settings_input(r, events, &level)) < 0)
		return rc;
	const char *email = sc->global ? param_str(r, "notification_email") : NULL;
	if (email && (rc = check_notification_email(r, email)) < 0)
		return rc;
	if (sc->global)
		v[n++] = email;
	v[n++] = level;
	v[n++] = json_object_to_json_string_ext(events, JSON_C_TO_STRING_PLAIN);
	int err;
	PGresult *res = db_query(&r->ctx, sc->update, n, v, &err);
	if (!res)
		return err;
	if (sc->global && PQntuples(res) == 0) /* the email changed meanwhile */
		return fail_validation(r, "notification_email", "is not an email you own");
	return respond_setting(r, sc, res);
}

static int notification_settings_global_show(request *r)
{
	return settings_show(r, &ns_global);
}

static int notification_settings_global_update(request *r)
{
	return settings_update(r, &ns_global);
}

static int notification_settings_group_show(request *r)
{
	return settings_show(r, &ns_group);
}

static int notification_settings_group_update(request *r)
{
	return settings_update(r, &ns_group);
}

static int notification_settings_project_show(request *r)
{
	return settings_show(r, &ns_project);
}

static int notification_settings_project_update(request *r)
{
	return settings_update(r, &ns_project);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route notification_settings_routes[] = {
	{"GET", V4 "/notification_settings", notification_settings_global_show, AUTH, NULL},
	{"PUT", V4 "/notification_settings", notification_settings_global_update, AUTH, NULL},
	{"GET", V4 "/groups/:id/notification_settings", notification_settings_group_show, AUTH | GR,
	 NULL},
	{"PUT", V4 "/groups/:id/notification_settings", notification_settings_group_update,
	 AUTH | GR, notification_settings_check},
	{"GET", V4 "/projects/:id/notification_settings", notification_settings_project_show,
	 AUTH | PR, NULL},
	{"PUT", V4 "/projects/:id/notification_settings", notification_settings_project_update,
	 AUTH | PR, notification_settings_check},
	{NULL, NULL, NULL, 0, NULL},
};
