/* API suite: activity events (4.14): GET /events, GET /users/:id/events and
 * GET /projects/:id/events; the event record; filters, order and pages; and which
 * events each caller may see. Projects are made through the API, which records their
 * "created" event now; the other events are fixtures in SQL dated 2017, each with a
 * target_title that names it, so that a list reads as the string of those names (an
 * event without a target_title, as the creation of a project, by its action_name). */
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const event_fields[] = {
	"title",           "project_id", "action_name",  "target_id",  "target_iid",
	"target_type",     "author_id",  "target_title", "created_at", "author",
	"author_username", "data",       NULL,
};
static const char *const author_fields[] = {"id",         "name",    "username", "state",
					    "avatar_url", "web_url", NULL};

/* An event of author in project (0: none) named title, at created_at (UTC). */
static void add_event(long long project, long long author, const char *action,
		      const char *action_name, const char *target_type, const char *title,
		      const char *created_at)
{
	char *project_sql = project ? fmt("%lld", project) : strdup("NULL");
	char *type_sql = target_type ? fmt("'%s'", target_type) : strdup("NULL");
	free(sql_value("INSERT INTO events (project_id, author_id, action, action_name, target_type,"
		       " target_id, target_iid, target_title, created_at) VALUES (%s, %lld, '%s',"
		       " '%s', %s, %s, %s, '%s', '%s')",
		       project_sql, author, action, action_name, type_sql,
		       target_type ? "77" : "NULL", target_type ? "7" : "NULL", title, created_at));
	free(project_sql);
	free(type_sql);
}

/* The names of the events of a list response, joined by ',' (caller frees). */
static char *titles(resp *r)
{
	ck_assert_msg(r->json && json_object_is_type(r->json, json_type_array), "not a list: %s",
		      r->body);
	char *out = strdup("");
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *e = json_object_array_get_idx(r->json, i);
		const char *t = jstr(e, "target_title");
		char *next = fmt("%s%s%s", out, i ? "," : "", t ? t : jstr(e, "action_name"));
		free(out);
		out = next;
	}
	return out;
}

/* GET path as token: asserts 200 and that the list is exactly want (names, in order). */
#define ck_list(path, token, want)                                                                 \
	do {                                                                                       \
		resp *r_ = api("GET", (path), (token), NULL);                                      \
		ck_status(r_, 200);                                                                \
		char *got_ = titles(r_);                                                           \
		ck_assert_msg(strcmp(got_, (want)) == 0, "GET %s: expected [%s], got [%s]",        \
			      (path), (want), got_);                                               \
		free(got_);                                                                        \
		resp_free(r_);                                                                     \
	} while (0)

START_TEST(test_events_require_auth)
{
	resp *r = api("GET", "/events", NULL, NULL);
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	r = api("GET", "/events", "no-such-token", NULL);
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	r = api("GET", "/users/1/events", NULL, NULL);
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
}
END_TEST

START_TEST(test_events_record_shape)
{
	long long uid;
	char *name;
	char *tok = make_user("evs", &uid, &name);
	long long p = fixture_project(tok, "public", NULL);
	add_event(p, uid, "created", "created", NULL, "made", "2017-03-01 10:00:00.123+00");
	add_event(p, uid, "created", "opened", "Issue", "issue", "2017-03-02 10:00:00+00");
	free(sql_value(
		"INSERT INTO events (project_id, author_id, action, action_name, target_type,"
		" target_id, target_title, data, created_at) VALUES (%lld, %lld, 'commented',"
		" 'commented on', 'Note', 5, 'note', '{\"note\": {\"id\": 5, \"body\": \"hi\"}}',"
		" '2017-03-03 10:00:00+00')",
		p, uid));
	resp *r = api("GET", "/events", tok, NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 4);

	/* POST /projects recorded the creation of the project */
	json_object *created = json_object_array_get_idx(r->json, 0);
	ck_fields(created, event_fields);
	ck_assert_int_eq(jint(created, "project_id"), p);
	ck_assert_str_eq(jstr(created, "action_name"), "created");
	ck_assert_int_eq(jint(created, "author_id"), uid);
	ck_assert(jnull(created, "target_type") && jnull(created, "target_title"));
	ck_assert_str_eq(jstr(created, "author_username"), name);

	json_object *note = json_object_array_get_idx(r->json, 1);
	const char *const note_fields[] = {
		"title",           "project_id", "action_name",  "target_id",  "target_iid",
		"target_type",     "author_id",  "target_title", "created_at", "author",
		"author_username", "data",       "note",         NULL,
	};
	ck_fields(note, note_fields);
	ck_assert_str_eq(jstr(note, "action_name"), "commented on");
	ck_assert_str_eq(jstr(note, "target_type"), "Note");
	ck_assert_str_eq(jstr(jget(note, "note"), "body"), "hi");
	ck_assert(jnull(note, "data"));

	json_object *issue = json_object_array_get_idx(r->json, 2);
	ck_fields(issue, event_fields);
	ck_assert(jnull(issue, "title"));
	ck_assert_int_eq(jint(issue, "project_id"), p);
	ck_assert_str_eq(jstr(issue, "action_name"), "opened");
	ck_assert_int_eq(jint(issue, "target_id"), 77);
	ck_assert_int_eq(jint(issue, "target_iid"), 7);
	ck_assert_str_eq(jstr(issue, "target_type"), "Issue");
	ck_assert_int_eq(jint(issue, "author_id"), uid);
	ck_assert_str_eq(jstr(issue, "target_title"), "issue");
	ck_assert_str_eq(jstr(issue, "created_at"), "2017-03-02T10:00:00.000Z");
	ck_assert_str_eq(jstr(issue, "author_username"), name);
	json_object *author = jget(issue, "author");
	ck_fields(author, author_fields);
	ck_assert_int_eq(jint(author, "id"), uid);
	ck_assert_str_eq(jstr(author, "username"), name);
	ck_assert_str_eq(jstr(author, "state"), "active");
	char *web = fmt("%s/%s", api_url(), name);
	ck_assert_str_eq(jstr(author, "web_url"), web);
	free(web);

	json_object *made = json_object_array_get_idx(r->json, 3);
	ck_fields(made, event_fields);
	ck_assert(jnull(made, "target_id") && jnull(made, "target_iid") &&
		  jnull(made, "target_type"));
	ck_assert_str_eq(jstr(made, "created_at"), "2017-03-01T10:00:00.123Z");
	resp_free(r);
	free(name);
	free(tok);
}
END_TEST

/* Newest first by created_at, then by id; sort=asc reverses; pages with every header. */
START_TEST(test_events_order_and_pages)
{
	long long uid;
	char *tok = make_user("evo", &uid, NULL);
	long long p = fixture_project(tok, "private", NULL);
	add_event(p, uid, "pushed", "pushed to", NULL, "e3", "2017-03-03 10:00:00+00");
	add_event(p, uid, "pushed", "pushed to", NULL, "e1", "2017-03-01 10:00:00+00");
	add_event(p, uid, "pushed", "pushed to", NULL, "e2a", "2017-03-02 10:00:00+00");
	add_event(p, uid, "pushed", "pushed to", NULL, "e2b", "2017-03-02 10:00:00+00");
	add_event(p, uid, "pushed", "pushed to", NULL, "e4", "2017-03-04 10:00:00+00");
	ck_list("/events", tok, "created,e4,e3,e2b,e2a,e1");
	ck_list("/events?sort=desc", tok, "created,e4,e3,e2b,e2a,e1");
	ck_list("/events?sort=asc", tok, "e1,e2a,e2b,e3,e4,created");

	resp *r = api("GET", "/events?per_page=2", tok, NULL);
	ck_pages(r, "/events", "", 6, 2, 1);
	resp_free(r);
	ck_list("/events?per_page=2&page=2", tok, "e3,e2b");
	r = api("GET", "/events?sort=asc&per_page=2&page=3", tok, NULL);
	ck_pages(r, "/events", "sort=asc", 6, 2, 3);
	char *got = titles(r);
	ck_assert_str_eq(got, "e4,created");
	free(got);
	resp_free(r);
	r = api("GET", "/events?per_page=2&page=4", tok, NULL);
	ck_pages(r, "/events", "", 6, 2, 4);
	ck_body(r, 200, "[]");
	resp_free(r);
	char *path = fmt("/projects/%lld/events", p);
	char *query = fmt("%s?action=pushed&per_page=3&page=2", path);
	r = api("GET", query, tok, NULL);
	ck_pages(r, path, "action=pushed", 5, 3, 2);
	got = titles(r);
	ck_assert_str_eq(got, "e2a,e1");
	free(got);
	resp_free(r);
	free(query);
	free(path);
	/* a user without events: an empty first page */
	char *empty = make_user("evo", NULL, NULL);
	r = api("GET", "/events", empty, NULL);
	ck_pages(r, "/events", "", 0, 20, 1);
	ck_body(r, 200, "[]");
	resp_free(r);
	free(empty);
	free(tok);
}
END_TEST

START_TEST(test_events_filters)
{
	long long uid;
	char *tok = make_user("evf", &uid, NULL);
	long long p = fixture_project(tok, "public", NULL);
	add_event(p, uid, "created", "created", NULL, "project", "2017-03-01 00:00:00+00");
	add_event(p, uid, "created", "opened", "Issue", "issue", "2017-03-01 23:59:59+00");
	add_event(p, uid, "closed", "closed", "Issue", "closing", "2017-03-02 12:00:00+00");
	add_event(p, uid, "commented", "commented on", "Note", "note", "2017-03-03 00:00:00+00");
	add_event(p, uid, "merged", "accepted", "MergeRequest", "merge", "2017-03-04 08:00:00+00");
	ck_list("/events?action=created", tok, "created,issue,project");
	ck_list("/events?action=closed", tok, "closing");
	ck_list("/events?action=joined", tok, "");
	ck_list("/events?target_type=issue", tok, "closing,issue");
	ck_list("/events?target_type=merge_request", tok, "merge");
	ck_list("/events?target_type=note", tok, "note");
	ck_list("/events?action=created&target_type=issue", tok, "issue");
	/* before: earlier days only; after: later days only (UTC) */
	ck_list("/events?before=2017-03-02", tok, "issue,project");
	ck_list("/events?after=2017-03-02", tok, "created,merge,note");
	ck_list("/events?after=2017-03-01&before=2017-03-03", tok, "closing");
	ck_list("/events?after=2017-03-02&before=2017-03-03", tok, "");
	char *path = fmt("/projects/%lld/events?action=created&sort=asc", p);
	ck_list(path, tok, "project,issue,created");
	free(path);
	path = fmt("/users/%lld/events?target_type=issue&before=2017-03-02", uid);
	ck_list(path, tok, "issue");
	free(path);

	static const char *const bad[][2] = {
		{"action=opened", "{\"error\":\"action does not have a valid value\"}"},
		{"action=CREATED", "{\"error\":\"action does not have a valid value\"}"},
		{"target_type=Issue", "{\"error\":\"target_type does not have a valid value\"}"},
		{"target_type=commit", "{\"error\":\"target_type does not have a valid value\"}"},
		{"before=2017-02-30", "{\"error\":\"before is invalid\"}"},
		{"after=yesterday", "{\"error\":\"after is invalid\"}"},
		{"sort=newest", "{\"error\":\"sort does not have a valid value\"}"},
	};
	char *paths[] = {strdup("/events"), fmt("/users/%lld/events", uid),
			 fmt("/projects/%lld/events", p)};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		for (int j = 0; j < 3; j++) {
			char *q = fmt("%s?%s", paths[j], bad[i][0]);
			resp *r = api("GET", q, tok, NULL);
			ck_body(r, 400, bad[i][1]);
			resp_free(r);
			free(q);
		}
	for (int j = 0; j < 3; j++)
		free(paths[j]);
	free(tok);
}
END_TEST

/* GET /events is the caller's own events; GET /users/:id/events another user's, by id
 * or username; unknown users are 404. */
START_TEST(test_events_whose)
{
	long long a, b;
	char *a_name;
	char *ta = make_user("evw", &a, &a_name);
	char *tb = make_user("evw", &b, NULL);
	long long p = fixture_project(ta, "public", NULL);
	fixture_member("Project", p, b, 30);
	add_event(p, a, "created", "created", NULL, "by_a", "2017-03-01 10:00:00+00");
	add_event(p, b, "joined", "joined", NULL, "by_b", "2017-03-02 10:00:00+00");
	add_event(0, a, "updated", "updated", NULL, "no_project", "2017-03-03 10:00:00+00");
	ck_list("/events", ta, "created,no_project,by_a");
	ck_list("/events", tb, "by_b");
	char *path = fmt("/users/%lld/events", a);
	ck_list(path, tb, "created,no_project,by_a");
	free(path);
	path = fmt("/users/%s/events", a_name);
	ck_list(path, tb, "created,no_project,by_a");
	free(path);
	for (char *c = a_name; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	path = fmt("/users/%s/events", a_name);
	ck_list(path, tb, "created,no_project,by_a");
	free(path);
	path = fmt("/projects/%lld/events", p);
	ck_list(path, tb, "created,by_b,by_a");
	free(path);
	static const char *const missing[] = {"/users/0/events", "/users/999999999999/events",
					      "/users/no_such_user_x/events",
					      "/users/99999999999999999999/events", NULL};
	for (int i = 0; missing[i]; i++) {
		resp *r = api("GET", missing[i], ta, NULL);
		ck_body(r, 404, "{\"message\":\"404 User Not Found\"}");
		resp_free(r);
	}
	free(a_name);
	free(ta);
	free(tb);
}
END_TEST

/* A private project's events are seen by its members and admins only: GET
 * /projects/:id/events is 404 to others, and GET /users/:id/events leaves them out; an
 * author who lost access no longer sees them in GET /events either. */
START_TEST(test_events_private_project)
{
	long long owner, stranger, guest, former;
	char *t_owner = make_user("evp", &owner, NULL);
	char *t_stranger = make_user("evp", &stranger, NULL);
	char *t_guest = make_user("evp", &guest, NULL);
	char *t_former = make_user("evp", &former, NULL);
	char *full;
	long long priv = fixture_project(t_owner, "private", &full);
	long long pub = fixture_project(t_owner, "public", NULL);
	fixture_member("Project", priv, guest, 10);
	add_event(priv, owner, "created", "created", NULL, "secret", "2017-03-01 10:00:00+00");
	add_event(pub, owner, "created", "created", NULL, "open", "2017-03-02 10:00:00+00");
	add_event(priv, former, "pushed", "pushed to", NULL, "old_push", "2017-03-03 10:00:00+00");

	char *path = fmt("/projects/%lld/events", priv);
	char *e = enc(full);
	char *by_path = fmt("/projects/%s/events", e);
	struct {
		const char *path, *token;
	} denied[] = {{path, t_stranger}, {path, t_former}, {path, NULL}, {by_path, t_stranger}};
	for (size_t i = 0; i < sizeof(denied) / sizeof(*denied); i++) {
		resp *r = api("GET", denied[i].path, denied[i].token, NULL);
		ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
		resp_free(r);
	}
	ck_list(path, t_owner, "created,old_push,secret");
	ck_list(path, t_guest, "created,old_push,secret");
	ck_list(path, admin_token(), "created,old_push,secret");
	ck_list(by_path, t_guest, "created,old_push,secret");

	char *user_path = fmt("/users/%lld/events", owner);
	/* the two creations: the public project's, then the private one's */
	ck_list(user_path, t_stranger, "created,open");
	resp *r = api("GET", user_path, t_stranger, NULL);
	ck_pages(r, user_path, "", 2, 20, 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "project_id"), pub);
	resp_free(r);
	ck_list(user_path, t_guest, "created,created,open,secret");
	ck_list(user_path, admin_token(), "created,created,open,secret");
	ck_list("/events", t_owner, "created,created,open,secret");
	ck_list("/events", t_former, "");
	free(user_path);
	free(by_path);
	free(e);
	free(path);
	free(full);
	free(t_owner);
	free(t_stranger);
	free(t_guest);
	free(t_former);
}
END_TEST

/* Public projects' events are readable without authentication; internal ones by
 * signed-in users who are not external. */
START_TEST(test_events_public_and_internal)
{
	long long owner, ext;
	char *t_owner = make_user("evi", &owner, NULL);
	char *t_other = make_user("evi", NULL, NULL);
	char *t_ext = make_user("evi", &ext, NULL);
	char *upath = fmt("/users/%lld", ext);
	resp *r = api("PUT", upath, admin_token(), "external=true");
	ck_status(r, 200);
	resp_free(r);
	free(upath);
	char *full;
	long long pub = fixture_project(t_owner, "public", &full);
	long long internal = fixture_project(t_owner, "internal", NULL);
	add_event(pub, owner, "created", "created", NULL, "pub", "2017-03-01 10:00:00+00");
	add_event(internal, owner, "created", "created", NULL, "int", "2017-03-02 10:00:00+00");

	char *path = fmt("/projects/%lld/events", pub);
	ck_list(path, NULL, "created,pub");
	r = api("GET", path, NULL, NULL);
	ck_pages(r, path, "", 2, 20, 1);
	resp_free(r);
	free(path);
	char *e = enc(full);
	path = fmt("/projects/%s/events", e);
	ck_list(path, NULL, "created,pub");
	free(path);
	r = api("GET", "/projects/0/events", NULL, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	r = api("GET", "/projects/no_such%2Fproject/events", t_owner, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	/* an invalid token is refused even where none is needed */
	path = fmt("/projects/%lld/events", pub);
	r = api("GET", path, "no-such-token", NULL);
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	free(path);

	path = fmt("/projects/%lld/events", internal);
	ck_list(path, t_other, "created,int");
	r = api("GET", path, NULL, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	r = api("GET", path, t_ext, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	free(path);
	path = fmt("/users/%lld/events", owner);
	ck_list(path, t_other, "created,created,int,pub");
	ck_list(path, t_ext, "created,pub");
	free(path);
	free(e);
	free(full);
	free(t_owner);
	free(t_other);
	free(t_ext);
}
END_TEST

/* The events of a project being deleted are gone from every list. */
START_TEST(test_events_pending_delete)
{
	long long uid;
	char *tok = make_user("evd", &uid, NULL);
	long long gone = fixture_project(tok, "public", NULL);
	long long kept = fixture_project(tok, "public", NULL);
	add_event(gone, uid, "created", "created", NULL, "gone", "2017-03-01 10:00:00+00");
	add_event(kept, uid, "created", "created", NULL, "kept", "2017-03-02 10:00:00+00");
	ck_list("/events", tok, "created,created,kept,gone");
	free(sql_value("UPDATE projects SET pending_delete = true WHERE id = %lld", gone));
	ck_list("/events", tok, "created,kept");
	char *path = fmt("/users/%lld/events", uid);
	ck_list(path, admin_token(), "created,kept");
	free(path);
	path = fmt("/projects/%lld/events", gone);
	resp *r = api("GET", path, admin_token(), NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	free(path);
	free(tok);
}
END_TEST

Suite *suite_events(void)
{
	Suite *s = suite_create("events");
	TCase *tc = tcase_create("events");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_events_require_auth);
	tcase_add_test(tc, test_events_record_shape);
	tcase_add_test(tc, test_events_order_and_pages);
	tcase_add_test(tc, test_events_filters);
	tcase_add_test(tc, test_events_whose);
	suite_add_tcase(s, tc);
	tc = tcase_create("visibility");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_events_private_project);
	tcase_add_test(tc, test_events_public_and_internal);
	tcase_add_test(tc, test_events_pending_delete);
	suite_add_tcase(s, tc);
	return s;
}
