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

/* Every statement answers one row per source found: 0 the source's id, 1 whether the
 * caller may see it, 2 the level, then the 12 events, then the notification email
 * (global setting only). No row: no such source. */
#define NS_COL_LEVEL 2

/* The group or project that $4 names, and whether the caller may see it. */
#define PROJECT_SOURCE                                                                          \
	"src AS (" SQL_PROJECT_BY_REF("p.id, " SQL_PROJECT_VISIBLE("p") " AS visible", "$4") ")"
#define GROUP_SOURCE                                                                            \
	"src AS (" SQL_GROUP_BY_REF("g.id, " SQL_GROUP_VISIBLE("g") " AS visible", "$4") ")"

/* $1..$3 the caller (SQL_ME), $4 the source */
#define SOURCE_SHOW(SOURCE, TYPE)                                                               \
	"WITH " SQL_ME ", " SOURCE " SELECT src.id, src.visible, coalesce(s.level, 'global'), "    \
	NOTIFICATION_EVENT_COLS("s.") ", NULL::text FROM src LEFT JOIN notification_settings s"    \
	" ON s.user_id = $1 AND s.source_type = '" TYPE "' AND s.source_id = src.id"

/* The upsert of a setting: level L (NULL keeps it) and the events given in J, a JSON
 * object of booleans. A new row takes the events only with the custom level (GitLab
 * clears them when it creates a setting of another level); an existing row keeps the
 * events not given. FROM is a one-row relation with the user (uid) and the source
 * (sid); nothing is written when it is empty. */
#define NS_EVENT_NEW(L, J, C)                                                                   \
	"CASE WHEN coalesce(" L "::text, d.level) = 'custom'"                                    \
	" THEN coalesce((" J "::jsonb ->> '" C "')::boolean, false) ELSE false END"
#define NS_EVENT_SET(L, J, C) C " = coalesce((" J "::jsonb ->> '" C "')::boolean, ns." C ")"
#define NS_EACH_EVENT(M, L, J)                                                                  \
	M(L, J, "new_note") ", " M(L, J, "new_issue") ", " M(L, J, "reopen_issue") ", "          \
	M(L, J, "close_issue") ", " M(L, J, "reassign_issue") ", "                                \
	M(L, J, "new_merge_request") ", " M(L, J, "reopen_merge_request") ", "                    \
	M(L, J, "close_merge_request") ", " M(L, J, "reassign_merge_request") ", "                \
	M(L, J, "merge_merge_request") ", " M(L, J, "failed_pipeline") ", "                       \
	M(L, J, "success_pipeline")
#define NS_UPSERT(TYPE, DEFAULT, FROM, L, J)                                                    \
	"ins AS (INSERT INTO notification_settings AS ns (user_id, source_type, source_id, level, "  \
	NOTIFICATION_EVENT_COLS("") ") SELECT f.uid, '" TYPE "', f.sid, coalesce(" L "::text,"    \
	" d.level), " NS_EACH_EVENT(NS_EVENT_NEW, L, J) " FROM " FROM " f,"                         \
	" (SELECT '" DEFAULT "'::text AS level) d"                                                 \
	" ON CONFLICT (user_id, source_type, source_id) DO UPDATE SET"                             \
	" level = coalesce(" L "::text, ns.level), " NS_EACH_EVENT(NS_EVENT_SET, L, J) ","         \
	" updated_at = now() RETURNING ns.level, " NOTIFICATION_EVENT_COLS("ns.") ")"

/* $1..$3 the caller, $4 the source, $5 level, $6 events; nothing is written unless the
 * caller may see the source. */
#define SOURCE_UPDATE(SOURCE, TYPE)                                                             \
	"WITH " SQL_ME ", " SOURCE ", "                                                            \
	NS_UPSERT(TYPE, "global", "(SELECT me.id AS uid, src.id AS sid FROM me, src"               \
		  " WHERE src.visible)", "$5", "$6")                                                 \
	" SELECT src.id, src.visible, ins.*, NULL::text FROM src LEFT JOIN ins ON true"

/* The notification email shown: the stored one while it is still one of the user's
 * emails (only the primary one in collabd), else the primary email, as GitLab resets it
 * when the email changes. */
#define NOTIFICATION_EMAIL(U)                                                                   \
	"CASE WHEN lower(" U ".notification_email) = lower(" U ".email)"                         \
	" THEN " U ".notification_email ELSE " U ".email END"

const db_stmt notification_settings_stmts[] = {
	{"ns_project_show", SOURCE_SHOW(PROJECT_SOURCE, "Project")},
	{"ns_project_update", SOURCE_UPDATE(PROJECT_SOURCE, "Project")},
	{"ns_group_show", SOURCE_SHOW(GROUP_SOURCE, "Namespace")},
	{"ns_group_update", SOURCE_UPDATE(GROUP_SOURCE, "Namespace")},
	/* $1 the user */
	{"ns_global_show",
	 "SELECT 0, true, coalesce(s.level, 'participating'), " NOTIFICATION_EVENT_COLS("s.") ", "
	 NOTIFICATION_EMAIL("u") " FROM users u LEFT JOIN notification_settings s"
	 " ON s.user_id = u.id AND s.source_type = 'Global' AND s.source_id = 0 WHERE u.id = $1"},
	/* $1 the user, $2 notification email (NULL keeps it; nothing is written unless it
	 * is the user's), $3 level, $4 events */
	{"ns_global_update",
	 "WITH u AS (SELECT id, email, notification_email FROM users WHERE id = $1"
	 "  AND ($2::text IS NULL OR lower($2) = lower(email)) FOR UPDATE),"
	 " e AS (UPDATE users SET notification_email = u.email, updated_at = now() FROM u"
	 "  WHERE users.id = u.id AND $2 IS NOT NULL), "
	 NS_UPSERT("Global", "participating", "(SELECT u.id AS uid, 0 AS sid FROM u)", "$3", "$4")
	 " SELECT 0, true, ins.*, CASE WHEN $2 IS NOT NULL THEN u.email ELSE "
	 NOTIFICATION_EMAIL("u") " END FROM u, ins"},
	{NULL, NULL},
};

typedef struct {
	const char *show;      /* statement names */
	const char *update;
	const char *not_found; /* "404 <what> Not Found" */
	bool global;
} ns_scope;

static const ns_scope scope_global = {"ns_global_show", "ns_global_update", NULL, true};
static const ns_scope scope_group = {"ns_group_show", "ns_group_update", "Group", false};
static const ns_scope scope_project = {"ns_project_show", "ns_project_update", "Project", false};

static const char *const levels[] = {"disabled", "participating", "watch", "global",
				     "mention", "custom", NULL};

/* The leading parameters of sc's statements: the user, or the caller and the source. */
static int source_params(request *r, const ns_scope *sc, const char **v)
{
	if (sc->global) {
		v[0] = arena_printf(r->a, "%lld", r->user->id);
		return 1;
	}
	access_me_params(r, v);
	const char *id = param_str(r, "id");
	v[3] = id ? id : "";
	return 4;
}

/* Answers the setting of the first row of res, or 404 when the caller cannot see the
 * source. */
static int respond_setting(request *r, const ns_scope *sc, const PGresult *res)
{
	if (PQntuples(res) == 0 || !db_bool(res, 0, 1))
		return fail_not_found(r, sc->not_found);
	respond_json(r, 200, entity_notification_setting(res, 0, NS_COL_LEVEL, sc->global));
	return 0;
}

static int settings_show(request *r, const ns_scope *sc)
{
	const char *v[4];
	int n = source_params(r, sc, v), err;
	PGresult *res = db_query(r, sc->show, n, v, &err);
	if (!res)
		return err;
	return respond_setting(r, sc, res);
}

/* GitLab's messages for a notification email: present, well formed, and one of the
 * user's emails. */
static int check_notification_email(request *r, const char *email)
{
	const char *own = r->user->email;
	if (!*email)
		fail_validation(r, "notification_email", "can't be blank");
	if (!valid_email(email))
		fail_validation(r, "notification_email", "is invalid");
	if (!own || strcasecmp(email, own) != 0)
		fail_validation(r, "notification_email", "is not an email you own");
	return r->validation ? ERR_VALIDATION : 0;
}

static int settings_update(request *r, const ns_scope *sc)
{
	const char *v[6];
	int n = source_params(r, sc, v), rc;
	/* as GitLab: the booleans' types first, then the level, then the email */
	json_object *events = request_own(r, json_object_new_object());
	for (int i = 0; i < NOTIFICATION_EVENT_COUNT; i++) {
		bool on = false;
		if ((rc = param_bool(r, notification_events[i], &on)) < 0)
			return rc;
		if (rc == 0)
			json_object_object_add(events, notification_events[i],
					       json_object_new_boolean(on));
	}
	const char *level = NULL;
	if ((rc = param_oneof(r, "level", levels, &level)) < 0)
		return rc;
	const char *email = sc->global ? param_str(r, "notification_email") : NULL;
	if (email && (rc = check_notification_email(r, email)) < 0)
		return rc;
	if (sc->global)
		v[n++] = email;
	v[n++] = level;
	v[n++] = json_object_to_json_string_ext(events, JSON_C_TO_STRING_PLAIN);
	int err;
	PGresult *res = db_query(r, sc->update, n, v, &err);
	if (!res)
		return err;
	if (sc->global && PQntuples(res) == 0) /* the email changed meanwhile */
		return fail_validation(r, "notification_email", "is not an email you own");
	return respond_setting(r, sc, res);
}

int notification_settings_global_show(request *r)
{
	return settings_show(r, &scope_global);
}

int notification_settings_global_update(request *r)
{
	return settings_update(r, &scope_global);
}

int notification_settings_group_show(request *r)
{
	return settings_show(r, &scope_group);
}

int notification_settings_group_update(request *r)
{
	return settings_update(r, &scope_group);
}

int notification_settings_project_show(request *r)
{
	return settings_show(r, &scope_project);
}

int notification_settings_project_update(request *r)
{
	return settings_update(r, &scope_project);
}
