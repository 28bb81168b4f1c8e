/* API suite: notification settings (4.13): the global setting, and the group and
 * project settings, which share one implementation and are tested through both. */
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const global_fields[] = {"level", "notification_email", NULL};
static const char *const custom_global_fields[] = {"level", "events", "notification_email", NULL};
static const char *const source_fields[] = {"level", NULL};
static const char *const custom_fields[] = {"level", "events", NULL};
static const char *const event_names[] = {
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

/* Asserts that r's events object holds exactly the 12 events, those named in on (a
 * NULL-terminated list) true and the others false. */
static void ck_events(resp *r, const char *const *on)
{
	json_object *ev = jget(r->json, "events");
	ck_fields(ev, event_names);
	for (int i = 0; event_names[i]; i++) {
		bool want = false;
		for (int j = 0; on[j]; j++)
			want = want || strcmp(on[j], event_names[i]) == 0;
		ck_assert_msg(jbool(ev, event_names[i]) == want, "%s: expected %d in %s",
			      event_names[i], want, r->body);
	}
}

/* A scope of the group/project tests: its path prefix and a source of each kind. */
typedef struct {
	const char *prefix;    /* "/projects" or "/groups" */
	const char *not_found; /* body of its 404 */
} scope;

static const scope projects = {"/projects", "{\"message\":\"404 Project Not Found\"}"};
static const scope groups = {"/groups", "{\"message\":\"404 Group Not Found\"}"};

/* A source of the scope that the token's user creates; its full path in *path. */
static long long own_source(const scope *sc, const char *token, const char *visibility, char **path)
{
	return sc == &projects ? fixture_project(token, visibility, path)
			       : api_group(token, visibility, path);
}

/* ---- global ---- */

START_TEST(test_global_default)
{
	char *name;
	char *tok = make_user("nsg", NULL, &name);
	resp *r = api("GET", "/notification_settings", tok, NULL);
	char *want = fmt("{\"level\":\"participating\",\"notification_email\":\"%s@example.com\"}",
			 name);
	ck_body(r, 200, want);
	resp_free(r);
	free(want);
	free(name);
	free(tok);
}
END_TEST

START_TEST(test_global_requires_auth)
{
	resp *r = api("GET", "/notification_settings", NULL, NULL);
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	r = api("PUT", "/notification_settings", NULL, "level=watch");
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	r = api("GET", "/notification_settings", "not-a-token", NULL);
	ck_status(r, 401);
	resp_free(r);
}
END_TEST

START_TEST(test_global_update_persists)
{
	char *name;
	char *tok = make_user("nsu", NULL, &name);
	char *want = fmt("{\"level\":\"watch\",\"notification_email\":\"%s@example.com\"}", name);
	resp *r = api("PUT", "/notification_settings", tok, "level=watch");
	ck_body(r, 200, want);
	resp_free(r);
	r = api("GET", "/notification_settings", tok, NULL);
	ck_body(r, 200, want);
	ck_fields(r->json, global_fields);
	resp_free(r);
	/* a PUT without attributes changes nothing */
	r = api("PUT", "/notification_settings", tok, NULL);
	ck_body(r, 200, want);
	resp_free(r);
	free(want);
	/* every level is accepted */
	static const char *const levels[] = {"disabled", "participating", "watch",
					     "global",   "mention",       NULL};
	for (int i = 0; levels[i]; i++) {
		char *form = fmt("level=%s", levels[i]);
		r = api("PUT", "/notification_settings", tok, form);
		ck_status(r, 200);
		ck_jstr(r, "level", levels[i]);
		ck_fields(r->json, global_fields);
		resp_free(r);
		free(form);
	}
	free(name);
	free(tok);
}
END_TEST

START_TEST(test_global_notification_email)
{
	char *name, *other;
	long long uid;
	char *tok = make_user("nse", &uid, &name);
	char *tok2 = make_user("nse", NULL, &other);
	/* the user's own email, in any case, is stored as the user's email */
	char *upper = fmt("level=mention&notification_email=%s%%40EXAMPLE.com", name);
	char *want = fmt("{\"level\":\"mention\",\"notification_email\":\"%s@example.com\"}", name);
	resp *r = api("PUT", "/notification_settings", tok, upper);
	ck_body(r, 200, want);
	resp_free(r);
	char *stored = sql_value("SELECT notification_email FROM users WHERE id = %lld", uid);
	char *own = fmt("%s@example.com", name);
	ck_assert_str_eq(stored, own);
	free(stored);

	/* another user's email: not owned; nothing else of the request is applied */
	char *form = fmt("level=watch&notification_email=%s%%40example.com", other);
	r = api("PUT", "/notification_settings", tok, form);
	ck_body(r, 400, "{\"message\":{\"notification_email\":[\"is not an email you own\"]}}");
	resp_free(r);
	free(form);
	r = api("PUT", "/notification_settings", tok, "notification_email=nonsense");
	ck_body(r, 400,
		"{\"message\":{\"notification_email\":[\"is invalid\",\"is not an email you own\"]}}");
	resp_free(r);
	r = api("PUT", "/notification_settings", tok, "level=watch&notification_email=");
	ck_body(r, 400,
		"{\"message\":{\"notification_email\":[\"can't be blank\",\"is invalid\","
		"\"is not an email you own\"]}}");
	resp_free(r);
	r = api("GET", "/notification_settings", tok, NULL);
	ck_body(r, 200, want);
	resp_free(r);
	free(want);
	free(upper);
	free(own);
	free(name);
	free(other);
	free(tok);
	free(tok2);
}
END_TEST

/* A stored notification email that is no longer the user's (the admin changed the email)
 * is shown as the user's email. */
START_TEST(test_global_email_follows_user)
{
	char *name;
	long long uid;
	char *tok = make_user("nsf", &uid, &name);
	char *form = fmt("notification_email=%s%%40example.com", name);
	resp *r = api("PUT", "/notification_settings", tok, form);
	ck_status(r, 200);
	resp_free(r);
	char *path = fmt("/users/%lld", uid);
	char *email = unique("moved");
	char *body = fmt("email=%s%%40example.org", email);
	r = api("PUT", path, admin_token(), body);
	ck_status(r, 200);
	resp_free(r);
	char *want = fmt("{\"level\":\"participating\",\"notification_email\":\"%s@example.org\"}",
			 email);
	r = api("GET", "/notification_settings", tok, NULL);
	ck_body(r, 200, want);
	resp_free(r);
	free(want);
	free(body);
	free(email);
	free(path);
	free(form);
	free(name);
	free(tok);
}
END_TEST

START_TEST(test_global_invalid_values)
{
	char *tok = make_user("nsi", NULL, NULL);
	resp *r = api("PUT", "/notification_settings", tok, "level=watch");
	ck_status(r, 200);
	resp_free(r);
	r = api("PUT", "/notification_settings", tok, "level=loud");
	ck_body(r, 400, "{\"error\":\"level does not have a valid value\"}");
	resp_free(r);
	r = api("PUT", "/notification_settings", tok, "level=WATCH");
	ck_body(r, 400, "{\"error\":\"level does not have a valid value\"}");
	resp_free(r);
	r = api("PUT", "/notification_settings", tok, "level=custom&new_note=perhaps");
	ck_body(r, 400, "{\"error\":\"new_note is invalid\"}");
	resp_free(r);
	r = api_json("PUT", "/notification_settings", tok,
		     "{\"level\":\"custom\",\"new_issue\":\"x\"}");
	ck_body(r, 400, "{\"error\":\"new_issue is invalid\"}");
	resp_free(r);
	/* nothing of a refused request was applied */
	r = api("GET", "/notification_settings", tok, NULL);
	ck_status(r, 200);
	ck_jstr(r, "level", "watch");
	ck_fields(r->json, global_fields);
	resp_free(r);
	free(tok);
}
END_TEST

START_TEST(test_global_custom_events)
{
	char *tok = make_user("nsc", NULL, NULL);
	resp *r = api("PUT", "/notification_settings", tok,
		      "level=custom&new_note=true&merge_merge_request=1&close_issue=false");
	ck_status(r, 200);
	ck_fields(r->json, custom_global_fields);
	ck_jstr(r, "level", "custom");
	static const char *const on[] = {"new_note", "merge_merge_request", NULL};
	ck_events(r, on);
	resp_free(r);
	r = api("GET", "/notification_settings", tok, NULL);
	ck_status(r, 200);
	ck_fields(r->json, custom_global_fields);
	ck_events(r, on);
	resp_free(r);
	/* another level hides the events, and keeps them for when custom comes back */
	r = api("PUT", "/notification_settings", tok, "level=disabled");
	ck_status(r, 200);
	ck_fields(r->json, global_fields);
	resp_free(r);
	r = api_json("PUT", "/notification_settings", tok,
		     "{\"level\":\"custom\",\"new_note\":false,\"success_pipeline\":true}");
	ck_status(r, 200);
	static const char *const on2[] = {"merge_merge_request", "success_pipeline", NULL};
	ck_events(r, on2);
	resp_free(r);
	free(tok);
}
END_TEST

/* ---- group and project: one implementation, tested through both ---- */

static void source_default_and_update(const scope *sc)
{
	long long uid;
	char *tok = make_user("nss", &uid, NULL);
	long long id = own_source(sc, tok, "private", NULL);
	char *path = fmt("%s/%lld/notification_settings", sc->prefix, id);
	resp *r = api("GET", path, tok, NULL);
	ck_body(r, 200, "{\"level\":\"global\"}");
	resp_free(r);
	/* reading stores nothing */
	long long stored =
		sql_int("SELECT count(*) FROM notification_settings WHERE user_id = %lld", uid);
	ck_assert_int_eq(stored, 0);

	r = api("PUT", path, tok, "level=watch");
	ck_body(r, 200, "{\"level\":\"watch\"}");
	resp_free(r);
	r = api("GET", path, tok, NULL);
	ck_body(r, 200, "{\"level\":\"watch\"}");
	ck_fields(r->json, source_fields);
	resp_free(r);
	r = api("PUT", path, tok, "level=custom&new_issue=true&failed_pipeline=yes");
	ck_status(r, 200);
	ck_fields(r->json, custom_fields);
	ck_jstr(r, "level", "custom");
	static const char *const on[] = {"new_issue", "failed_pipeline", NULL};
	ck_events(r, on);
	resp_free(r);
	r = api("GET", path, tok, NULL);
	ck_status(r, 200);
	ck_events(r, on);
	resp_free(r);
	stored = sql_int("SELECT count(*) FROM notification_settings WHERE user_id = %lld", uid);
	ck_assert_int_eq(stored, 1);
	/* the global setting is another one */
	r = api("GET", "/notification_settings", tok, NULL);
	ck_status(r, 200);
	ck_jstr(r, "level", "participating");
	resp_free(r);
	free(path);
	free(tok);
}

START_TEST(test_project_default_and_update)
{
	source_default_and_update(&projects);
}
END_TEST

START_TEST(test_group_default_and_update)
{
	source_default_and_update(&groups);
}
END_TEST

/* Settings are the caller's own: another user of the same source has their own. */
static void source_per_user(const scope *sc)
{
	char *tok = make_user("nsp", NULL, NULL);
	char *tok2 = make_user("nsp", NULL, NULL);
	long long id = own_source(sc, tok, "public", NULL);
	char *path = fmt("%s/%lld/notification_settings", sc->prefix, id);
	resp *r = api("PUT", path, tok, "level=mention");
	ck_body(r, 200, "{\"level\":\"mention\"}");
	resp_free(r);
	r = api("GET", path, tok2, NULL);
	ck_body(r, 200, "{\"level\":\"global\"}");
	resp_free(r);
	r = api("PUT", path, tok2, "level=disabled");
	ck_body(r, 200, "{\"level\":\"disabled\"}");
	resp_free(r);
	r = api("GET", path, tok, NULL);
	ck_body(r, 200, "{\"level\":\"mention\"}");
	resp_free(r);
	free(path);
	free(tok);
	free(tok2);
}

START_TEST(test_project_per_user)
{
	source_per_user(&projects);
}
END_TEST

START_TEST(test_group_per_user)
{
	source_per_user(&groups);
}
END_TEST

/* A new setting of another level than custom drops the events it was given (GitLab
 * clears them on create); an existing one keeps them. */
static void source_new_setting_events(const scope *sc)
{
	char *tok = make_user("nsn", NULL, NULL);
	long long id = own_source(sc, tok, "private", NULL);
	char *path = fmt("%s/%lld/notification_settings", sc->prefix, id);
	resp *r = api("PUT", path, tok, "level=watch&new_note=true");
	ck_body(r, 200, "{\"level\":\"watch\"}");
	resp_free(r);
	r = api("PUT", path, tok, "level=custom");
	static const char *const none[] = {NULL};
	ck_status(r, 200);
	ck_events(r, none);
	resp_free(r);
	r = api("PUT", path, tok, "level=watch&reopen_issue=true");
	ck_status(r, 200);
	resp_free(r);
	r = api("PUT", path, tok, "level=custom");
	static const char *const kept[] = {"reopen_issue", NULL};
	ck_events(r, kept);
	resp_free(r);
	free(path);
	free(tok);
}

START_TEST(test_project_new_setting_events)
{
	source_new_setting_events(&projects);
}
END_TEST

START_TEST(test_group_new_setting_events)
{
	source_new_setting_events(&groups);
}
END_TEST

/* By full path, URL-encoded, in any case; unknown ids and paths are 404. */
static void source_by_path(const scope *sc)
{
	char *full;
	char *tok = make_user("nsb", NULL, NULL);
	own_source(sc, tok, "private", &full);
	char *e = enc(full);
	char *path = fmt("%s/%s/notification_settings", sc->prefix, e);
	resp *r = api("PUT", path, tok, "level=watch");
	ck_body(r, 200, "{\"level\":\"watch\"}");
	resp_free(r);
	for (char *c = e; *c; c++) /* escapes are upper case already */
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	char *upper = fmt("%s/%s/notification_settings", sc->prefix, e);
	r = api("GET", upper, tok, NULL);
	ck_body(r, 200, "{\"level\":\"watch\"}");
	resp_free(r);
	static const char *const missing[] = {"/0",
					      "/999999999999",
					      "/no_such_thing",
					      "/no_such%2Fthing",
					      "/99999999999999999999",
					      NULL};
	for (int i = 0; missing[i]; i++) {
		char *p = fmt("%s%s/notification_settings", sc->prefix, missing[i]);
		r = api("GET", p, tok, NULL);
		ck_body(r, 404, sc->not_found);
		resp_free(r);
		r = api("PUT", p, tok, "level=watch");
		ck_body(r, 404, sc->not_found);
		resp_free(r);
		free(p);
	}
	free(upper);
	free(path);
	free(e);
	free(full);
	free(tok);
}

START_TEST(test_project_by_path)
{
	source_by_path(&projects);
}
END_TEST

START_TEST(test_group_by_path)
{
	source_by_path(&groups);
}
END_TEST

/* A private source the caller cannot see is 404 for GET and PUT, and PUT stores
 * nothing; a member, an admin, and anyone for a public or internal source may. */
static void source_visibility(const scope *sc)
{
	long long stranger_id, member_id;
	char *owner_tok = make_user("nsv", NULL, NULL);
	char *stranger = make_user("nsv", &stranger_id, NULL);
	char *member = make_user("nsv", &member_id, NULL);
	long long priv = own_source(sc, owner_tok, "private", NULL);
	long long internal = own_source(sc, owner_tok, "internal", NULL);
	fixture_member(sc == &projects ? "Project" : "Namespace", priv, member_id, 10);
	char *path = fmt("%s/%lld/notification_settings", sc->prefix, priv);
	resp *r = api("GET", path, stranger, NULL);
	ck_body(r, 404, sc->not_found);
	resp_free(r);
	r = api("PUT", path, stranger, "level=watch");
	ck_body(r, 404, sc->not_found);
	resp_free(r);
	long long stored = sql_int(
		"SELECT count(*) FROM notification_settings WHERE user_id = %lld", stranger_id);
	ck_assert_int_eq(stored, 0);
	r = api("PUT", path, member, "level=watch");
	ck_body(r, 200, "{\"level\":\"watch\"}");
	resp_free(r);
	r = api("PUT", path, admin_token(), "level=disabled");
	ck_body(r, 200, "{\"level\":\"disabled\"}");
	resp_free(r);
	r = api("GET", path, NULL, NULL);
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	r = api("PUT", path, NULL, "level=watch");
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	free(path);
	path = fmt("%s/%lld/notification_settings", sc->prefix, internal);
	r = api("PUT", path, stranger, "level=custom&new_note=true");
	ck_status(r, 200);
	resp_free(r);
	free(path);
	free(owner_tok);
	free(stranger);
	free(member);
}

START_TEST(test_project_visibility)
{
	source_visibility(&projects);
}
END_TEST

START_TEST(test_group_visibility)
{
	source_visibility(&groups);
}
END_TEST

START_TEST(test_source_invalid_values)
{
	char *tok = make_user("nsx", NULL, NULL);
	long long p = fixture_project(tok, "private", NULL);
	long long g = api_group(tok, "private", NULL);
	char *paths[] = {fmt("/projects/%lld/notification_settings", p),
			 fmt("/groups/%lld/notification_settings", g)};
	for (int i = 0; i < 2; i++) {
		resp *r = api("PUT", paths[i], tok, "level=custom&new_note=true");
		ck_status(r, 200);
		resp_free(r);
		r = api("PUT", paths[i], tok, "level=everything");
		ck_body(r, 400, "{\"error\":\"level does not have a valid value\"}");
		resp_free(r);
		r = api("PUT", paths[i], tok, "level=watch&failed_pipeline=2");
		ck_body(r, 400, "{\"error\":\"failed_pipeline is invalid\"}");
		resp_free(r);
		/* notification_email belongs to the global setting only: ignored here */
		r = api("PUT", paths[i], tok, "notification_email=nonsense");
		ck_status(r, 200);
		ck_fields(r->json, custom_fields);
		resp_free(r);
		r = api("GET", paths[i], tok, NULL);
		ck_status(r, 200);
		static const char *const on[] = {"new_note", NULL};
		ck_jstr(r, "level", "custom");
		ck_events(r, on);
		resp_free(r);
		free(paths[i]);
	}
	free(tok);
}
END_TEST

/* A project being deleted is not found. */
START_TEST(test_project_pending_delete)
{
	char *tok = make_user("nsd", NULL, NULL);
	long long p = fixture_project(tok, "public", NULL);
	free(sql_value("UPDATE projects SET pending_delete = true WHERE id = %lld", p));
	char *path = fmt("/projects/%lld/notification_settings", p);
	resp *r = api("GET", path, tok, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	r = api("PUT", path, tok, "level=watch");
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	free(path);
	free(tok);
}
END_TEST

Suite *suite_notifications(void)
{
	Suite *s = suite_create("notifications");
	TCase *tc = tcase_create("global");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_global_default);
	tcase_add_test(tc, test_global_requires_auth);
	tcase_add_test(tc, test_global_update_persists);
	tcase_add_test(tc, test_global_notification_email);
	tcase_add_test(tc, test_global_email_follows_user);
	tcase_add_test(tc, test_global_invalid_values);
	tcase_add_test(tc, test_global_custom_events);
	suite_add_tcase(s, tc);
	tc = tcase_create("sources");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_project_default_and_update);
	tcase_add_test(tc, test_group_default_and_update);
	tcase_add_test(tc, test_project_per_user);
	tcase_add_test(tc, test_group_per_user);
	tcase_add_test(tc, test_project_new_setting_events);
	tcase_add_test(tc, test_group_new_setting_events);
	tcase_add_test(tc, test_project_by_path);
	tcase_add_test(tc, test_group_by_path);
	tcase_add_test(tc, test_project_visibility);
	tcase_add_test(tc, test_group_visibility);
	tcase_add_test(tc, test_source_invalid_values);
	tcase_add_test(tc, test_project_pending_delete);
	suite_add_tcase(s, tc);
	return s;
}
