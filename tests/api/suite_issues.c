/* API suite: issues (spec 4.5 and the issue operations of GitLab 10): the three lists
 * with every filter and their pagination, one issue, create, edit (state events, labels,
 * milestone, assignee, confidentiality, with the system notes and events GitLab writes),
 * delete, move, subscriptions, time tracking, the access matrix (guest, reporter,
 * developer, master, owner, admin, non-member; private, internal, public; confidential),
 * the project's open_issues_count, and iids from two instances at once. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const ISSUE_FIELDS[] = {"id",
					   "iid",
					   "project_id",
					   "title",
					   "description",
					   "state",
					   "created_at",
					   "updated_at",
					   "closed_at",
					   "closed_by",
					   "labels",
					   "milestone",
					   "assignees",
					   "author",
					   "assignee",
					   "user_notes_count",
					   "upvotes",
					   "downvotes",
					   "due_date",
					   "confidential",
					   "discussion_locked",
					   "web_url",
					   "time_stats",
					   NULL};
static const char *const SINGLE_FIELDS[] = {"id",
					    "iid",
					    "project_id",
					    "title",
					    "description",
					    "state",
					    "created_at",
					    "updated_at",
					    "closed_at",
					    "closed_by",
					    "labels",
					    "milestone",
					    "assignees",
					    "author",
					    "assignee",
					    "user_notes_count",
					    "upvotes",
					    "downvotes",
					    "due_date",
					    "confidential",
					    "discussion_locked",
					    "web_url",
					    "time_stats",
					    "_links",
					    "subscribed",
					    NULL};

/* ---- a project with one user per role ---- */

typedef struct {
	long long id;
	char *path;
	char *owner, *guest, *reporter, *developer, *master, *stranger, *admin;
	long long owner_id, guest_id, reporter_id, developer_id, master_id, stranger_id;
	char *owner_name, *guest_name, *reporter_name;
} world;

static char *user(const char *prefix, long long *id, char **name)
{
	char *n;
	char *t = S(make_user(prefix, id, &n));
	S(n);
	if (name)
		*name = n;
	return t;
}

static void make_world(world *w, const char *visibility)
{
	memset(w, 0, sizeof(*w));
	w->owner = user("iown", &w->owner_id, &w->owner_name);
	w->id = api_project(w->owner, visibility, &w->path);
	S(w->path);
	w->guest = user("igst", &w->guest_id, &w->guest_name);
	w->reporter = user("irep", &w->reporter_id, &w->reporter_name);
	w->developer = user("idev", &w->developer_id, NULL);
	w->master = user("imas", &w->master_id, NULL);
	w->stranger = user("istr", &w->stranger_id, NULL);
	w->admin = (char *)admin_token();
	sql_member("Project", w->id, w->guest_id, 10);
	sql_member("Project", w->id, w->reporter_id, 20);
	sql_member("Project", w->id, w->developer_id, 30);
	sql_member("Project", w->id, w->master_id, 40);
}

static const char *P(const world *w, const char *suffix)
{
	return S(fmt("/projects/%lld%s", w->id, suffix));
}

/* Creates an issue with form (url-encoded) as token; the response, asserted 201. */
static resp *create(const world *w, const char *token, const char *form)
{
	resp *r = R(api("POST", P(w, "/issues"), token, form));
	ck_assert_msg(r->status == 201, "create: %ld %s", r->status, r->body);
	return r;
}

static long long create_iid(const world *w, const char *token, const char *form)
{
	return jint(create(w, token, form)->json, "iid");
}

static const char *I(const world *w, long long iid, const char *suffix)
{
	return S(fmt("/projects/%lld/issues/%lld%s", w->id, iid, suffix));
}

static long long open_count(const world *w)
{
	resp *r = R(api("GET", P(w, ""), w->owner, NULL));
	ck_status(r, 200);
	return jint(r->json, "open_issues_count");
}

/* The iids of a list response, "3,1". */
static const char *iids_of(resp *r)
{
	ck_assert_msg(r->status == 200, "%ld %s", r->status, r->body);
	char *out = S(calloc(1, 4096));
	for (size_t i = 0; i < json_object_array_length(r->json); i++)
		snprintf(out + strlen(out), 4096 - strlen(out), "%s%lld", i ? "," : "",
			 jint(json_object_array_get_idx(r->json, i), "iid"));
	return out;
}

#define ck_iids(r, want)                                                                           \
	do {                                                                                       \
		const char *got_ = iids_of(r);                                                     \
		ck_assert_msg(strcmp(got_, (want)) == 0, "iids: expected %s, got %s", (want),      \
			      got_);                                                               \
	} while (0)

/* The system notes of an issue, oldest first, joined by '|'. */
static const char *notes_of(long long issue_id)
{
	return S(sql_value("SELECT coalesce(string_agg(note, '|' ORDER BY id), '') FROM notes"
			   " WHERE noteable_type = 'Issue' AND noteable_id = %lld AND system",
			   issue_id));
}

/* ---- create and show ---- */

START_TEST(test_issues_create_show)
{
	world w;
	make_world(&w, "private");
	ck_assert_int_eq(open_count(&w), 0);
	resp *r =
		create(&w, w.owner,
		       "title=First&description=Some+text&labels=ui,bug,%20ui&due_date=2030-01-02");
	ck_fields(r->json, SINGLE_FIELDS);
	ck_assert_int_eq(jint(r->json, "iid"), 1);
	ck_assert_int_eq(jint(r->json, "project_id"), w.id);
	ck_jstr(r, "title", "First");
	ck_jstr(r, "description", "Some text");
	ck_jstr(r, "state", "opened");
	ck_jstr(r, "due_date", "2030-01-02");
	ck_assert(jnull(r->json, "closed_at") && jnull(r->json, "milestone") &&
		  jnull(r->json, "assignee") && jnull(r->json, "discussion_locked"));
	ck_assert_str_eq(json_object_to_json_string(jget(r->json, "labels")),
			 "[ \"bug\", \"ui\" ]");
	ck_assert_int_eq(json_object_array_length(jget(r->json, "assignees")), 0);
	ck_assert_str_eq(jstr(jget(r->json, "author"), "username"), w.owner_name);
	ck_assert(!jbool(r->json, "confidential"));
	ck_assert(jbool(r->json, "subscribed")); /* the author takes part */
	ck_assert_int_eq(jint(r->json, "user_notes_count"), 0);
	ck_assert_str_eq(jstr(r->json, "web_url"), S(fmt("%s/%s/issues/1", api_url(), w.path)));
	ck_assert_str_eq(jstr(jget(r->json, "_links"), "notes"),
			 S(fmt("%s/api/v4/projects/%lld/issues/1/notes", api_url(), w.id)));
	ck_assert_int_eq(jint(jget(r->json, "time_stats"), "time_estimate"), 0);
	/* the labels were made with GitLab's default color */
	ck_assert_str_eq(S(sql_value("SELECT string_agg(title || color, ',' ORDER BY title) FROM"
				     " labels WHERE project_id = %lld",
				     w.id)),
			 "bug#428bca,ui#428bca");
	/* labels as a JSON array, as python-gitlab sends them */
	resp *j = R(api_json("POST", P(&w, "/issues"), w.owner,
			     "{\"title\":\"J\",\"labels\":[\"ui\",\"new\"]}"));
	ck_status(j, 201);
	ck_assert_str_eq(json_object_to_json_string(jget(j->json, "labels")),
			 "[ \"new\", \"ui\" ]");
	ck_code(R(api("DELETE", S(fmt("/projects/%lld/issues/%lld", w.id, jint(j->json, "iid"))),
		      w.owner, NULL)),
		204);
	/* iids follow each other; the project's count follows */
	ck_assert_int_eq(create_iid(&w, w.guest, "title=Second"), 3);
	ck_assert_int_eq(open_count(&w), 2);
	/* show */
	r = R(api("GET", I(&w, 1, ""), w.guest, NULL));
	ck_status(r, 200);
	ck_fields(r->json, SINGLE_FIELDS);
	ck_jstr(r, "title", "First");
	ck_assert(!jbool(r->json, "subscribed"));
	ck_code(R(api("GET", I(&w, 2, ""), w.owner, NULL)), 404); /* deleted: not reused */
	ck_body(R(api("GET", I(&w, 99, ""), w.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", P(&w, "/issues/x"), w.owner, NULL)), 400,
		"{\"error\":\"issue_iid is invalid\"}");
	/* errors */
	ck_body(R(api("POST", P(&w, "/issues"), w.owner, "description=x")), 400,
		"{\"message\":\"400 (Bad request) \\\"title\\\" not given\"}");
	ck_body(R(api("POST", P(&w, "/issues"), w.owner, "title=a&confidential=maybe")), 400,
		"{\"error\":\"confidential is invalid\"}");
	ck_body(R(api("POST", P(&w, "/issues"), w.owner, "title=a&due_date=tomorrow")), 400,
		"{\"error\":\"due_date is invalid\"}");
	ck_body(R(api("POST", P(&w, "/issues"), w.owner, "title=a&assignee_ids[]=x")), 400,
		"{\"error\":\"assignee_ids is invalid\"}");
	char *long_title = S(calloc(1, 300));
	memset(long_title, 'a', 256);
	ck_body(R(api("POST", P(&w, "/issues"), w.owner, S(fmt("title=%s", long_title)))), 400,
		"{\"message\":{\"title\":[\"is too long (maximum is 255 characters)\"]}}");
	ck_code(R(api("POST", P(&w, "/issues"), NULL, "title=a")), 401);
	ck_code(R(api("GET", I(&w, 1, ""), NULL, NULL)), 401);
	ck_body(R(api("POST", P(&w, "/issues"), w.stranger, "title=a")), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("GET", I(&w, 1, ""), w.stranger, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	/* nothing was written by the failures */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM issues WHERE project_id = %lld", w.id), 2);
	/* the events */
	r = R(api("GET", P(&w, "/events?target_type=issue"), w.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	json_object *e = json_object_array_get_idx(r->json, 2);
	ck_assert_str_eq(jstr(e, "action_name"), "opened");
	ck_assert_str_eq(jstr(e, "target_type"), "Issue");
	ck_assert_str_eq(jstr(e, "target_title"), "First");
	ck_assert_int_eq(jint(e, "target_iid"), 1);
}
END_TEST

/* due_date as GitLab 10 casts it to the date column: a date-time is its calendar date as
 * written, on create and edit; what is no date stays 400 and changes nothing. */
START_TEST(test_issues_due_date_forms)
{
	world w;
	make_world(&w, "private");
	resp *r = create(&w, w.owner, "title=d&due_date=2020-01-01T10:00:00%2B02:00");
	ck_jstr(r, "due_date", "2020-01-01");
	long long iid = jint(r->json, "iid");
	const char *one = P(&w, S(fmt("/issues/%lld", iid)));
	r = R(api("PUT", one, w.owner, "due_date=2020-01-05T23:59:59Z"));
	ck_status(r, 200);
	ck_jstr(r, "due_date", "2020-01-05");
	ck_body(R(api("PUT", one, w.owner, "due_date=2020-01-05T99:00:00Z")), 400,
		"{\"error\":\"due_date is invalid\"}");
	ck_jstr(R(api("GET", one, w.owner, NULL)), "due_date", "2020-01-05");
}
END_TEST

/* What only reporters and up may set, guests' issues leave out; created_at is the
 * owner's and admins'. */
START_TEST(test_issues_create_privileged_fields)
{
	world w;
	make_world(&w, "private");
	long long ms = jint(R(api("POST", P(&w, "/milestones"), w.owner, "title=v1"))->json, "id");
	const char *form = S(fmt("title=g&labels=x&milestone_id=%lld&assignee_ids[]=%lld"
				 "&created_at=2016-01-01T00:00:00Z",
				 ms, w.reporter_id));
	resp *r = create(&w, w.guest, form);
	ck_assert_int_eq(json_object_array_length(jget(r->json, "labels")), 0);
	ck_assert(jnull(r->json, "milestone") && jnull(r->json, "assignee"));
	ck_assert(strncmp(jstr(r->json, "created_at"), "2016", 4) != 0);
	r = create(&w, w.reporter, form);
	ck_assert_int_eq(json_object_array_length(jget(r->json, "labels")), 1);
	ck_assert_str_eq(jstr(jget(r->json, "milestone"), "title"), "v1");
	ck_assert_int_eq(jint(jget(r->json, "assignee"), "id"), w.reporter_id);
	ck_assert_int_eq(jint(json_object_array_get_idx(jget(r->json, "assignees"), 0), "id"),
			 w.reporter_id);
	ck_assert(strncmp(jstr(r->json, "created_at"), "2016", 4) != 0);
	r = create(&w, w.owner, form);
	ck_jstr(r, "created_at", "2016-01-01T00:00:00.000Z");
	/* an assignee who cannot see the project is left out; a milestone of another
	 * project too */
	world o;
	make_world(&o, "private");
	long long other_ms =
		jint(R(api("POST", P(&o, "/milestones"), o.owner, "title=v9"))->json, "id");
	r = create(&w, w.owner,
		   S(fmt("title=h&assignee_id=%lld&milestone_id=%lld", w.stranger_id, other_ms)));
	ck_assert(jnull(r->json, "assignee") && jnull(r->json, "milestone"));
}
END_TEST

/* ---- edit ---- */

START_TEST(test_issues_edit)
{
	world w;
	make_world(&w, "private");
	resp *r = create(&w, w.guest, "title=Bug");
	long long id = jint(r->json, "id");
	ck_status(R(api("PUT", I(&w, 1, ""), w.owner, "labels=a")), 200);
	long long ms = jint(R(api("POST", P(&w, "/milestones"), w.owner, "title=m1"))->json, "id");
	/* errors first: nothing changes */
	ck_body(R(api("PUT", I(&w, 1, ""), w.owner, NULL)), 400,
		"{\"error\":\"title, description, assignee_ids, assignee_id, milestone_id, "
		"discussion_locked, labels, created_at, due_date, confidential, state_event are "
		"missing, at least one parameter must be provided\"}");
	ck_body(R(api("PUT", I(&w, 1, ""), w.owner, "state_event=shut")), 400,
		"{\"error\":\"state_event does not have a valid value\"}");
	ck_body(R(api("PUT", I(&w, 1, ""), w.owner, "title=")), 400,
		"{\"message\":{\"title\":[\"can't be blank\"]}}");
	ck_body(R(api("PUT", I(&w, 9, ""), w.owner, "title=x")), 404,
		"{\"message\":\"404 Not found\"}");
	/* another guest may not; the author (a guest) may */
	world g = w;
	long long g2;
	char *guest2 = user("igs2", &g2, NULL);
	sql_member("Project", w.id, g2, 10);
	ck_body(R(api("PUT", I(&g, 1, ""), guest2, "title=x")), 403,
		"{\"message\":\"403 Forbidden\"}");
	r = R(api("PUT", I(&w, 1, ""), w.guest, "title=Bug2&labels=zz"));
	ck_status(r, 200);
	ck_jstr(r, "title", "Bug2");
	ck_assert_str_eq(json_object_to_json_string(jget(r->json, "labels")), "[ \"a\" ]");
	/* close: state, closed_at, closed_by, the count, the note and the event */
	ck_assert_int_eq(open_count(&w), 1);
	r = R(api("PUT", I(&w, 1, ""), w.reporter, "state_event=close"));
	ck_status(r, 200);
	ck_jstr(r, "state", "closed");
	ck_assert(!jnull(r->json, "closed_at"));
	ck_assert_int_eq(jint(jget(r->json, "closed_by"), "id"), w.reporter_id);
	ck_assert_int_eq(open_count(&w), 0);
	/* closing again changes nothing */
	ck_status(R(api("PUT", I(&w, 1, ""), w.reporter, "state_event=close")), 200);
	ck_assert_str_eq(strchr(notes_of(id), '|') + 1,
			 "changed title from **Bug** to **Bug2**|closed");
	r = R(api("PUT", I(&w, 1, ""), w.guest, "state_event=reopen"));
	ck_jstr(r, "state", "opened");
	ck_assert(jnull(r->json, "closed_at") && jnull(r->json, "closed_by"));
	ck_assert_int_eq(open_count(&w), 1);
	/* labels, milestone, assignee, confidentiality: GitLab's notes */
	long long la =
		sql_int("SELECT id FROM labels WHERE project_id = %lld AND title = 'a'", w.id);
	r = R(api("PUT", I(&w, 1, ""), w.reporter,
		  S(fmt("labels=b,c&milestone_id=%lld&assignee_ids[]=%lld&confidential=true"
			"&description=d&due_date=2031-05-06&discussion_locked=true",
			ms, w.developer_id))));
	ck_status(r, 200);
	ck_assert_str_eq(json_object_to_json_string(jget(r->json, "labels")), "[ \"b\", \"c\" ]");
	ck_assert_str_eq(jstr(jget(r->json, "milestone"), "title"), "m1");
	ck_assert_int_eq(jint(jget(r->json, "assignee"), "id"), w.developer_id);
	ck_assert(jbool(r->json, "confidential") && jbool(r->json, "discussion_locked"));
	ck_jstr(r, "description", "d");
	ck_jstr(r, "due_date", "2031-05-06");
	long long lb =
		sql_int("SELECT id FROM labels WHERE project_id = %lld AND title = 'b'", w.id);
	long long lc =
		sql_int("SELECT id FROM labels WHERE project_id = %lld AND title = 'c'", w.id);
	long long ms_iid = sql_int("SELECT iid FROM milestones WHERE id = %lld", ms);
	char *dev_name = sql_value("SELECT username FROM users WHERE id = %lld", w.developer_id);
	S(dev_name);
	ck_assert_str_eq(
		notes_of(id),
		S(fmt("added ~%lld label|changed title from **Bug** to **Bug2**|closed|reopened|"
		      "changed milestone to %%%lld|added ~%lld ~%lld and "
		      "removed ~%lld labels|assigned to @%s|made the issue confidential",
		      la, ms_iid, lb, lc, la, dev_name)));
	ck_assert_int_eq(open_count(&w), 0); /* confidential issues are not counted */
	/* clearing */
	r = R(api("PUT", I(&w, 1, ""), w.owner,
		  "labels=&milestone_id=0&assignee_id=0&confidential=false&due_date="));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(jget(r->json, "labels")), 0);
	ck_assert(jnull(r->json, "milestone") && jnull(r->json, "assignee") &&
		  jnull(r->json, "due_date"));
	ck_assert_str_eq(strstr(notes_of(id), "confidential|") + strlen("confidential|"),
			 S(fmt("removed milestone|removed ~%lld ~%lld labels|removed assignee|"
			       "made the issue visible to everyone",
			       lb, lc)));
	ck_assert_int_eq(open_count(&w), 1);
	/* events of the state changes */
	r = R(api("GET", P(&w, "/events?target_type=issue&sort=asc"), w.owner, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 1), "action_name"), "closed");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 2), "action_name"), "reopened");
	r = R(api("GET", P(&w, "/events?action=closed"), w.owner, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
}
END_TEST

/* A title edited: GitLab's "changed title" system note, as a merge request's (the one
 * update path of issuable.c); none when the title stays. */
START_TEST(test_issues_title_note)
{
	world w;
	make_world(&w, "private");
	long long id = jint(create(&w, w.guest, "title=Old%20one")->json, "id");
	ck_status(R(api("PUT", I(&w, 1, ""), w.guest, "title=New%20one")), 200);
	ck_assert_str_eq(notes_of(id), "changed title from **Old one** to **New one**");
	ck_status(R(api("PUT", I(&w, 1, ""), w.reporter, "title=New%20one&description=x")), 200);
	ck_assert_str_eq(notes_of(id), "changed title from **Old one** to **New one**");
	/* refused: no note */
	ck_status(R(api("PUT", I(&w, 1, ""), w.guest, "title=")), 400);
	ck_assert_str_eq(notes_of(id), "changed title from **Old one** to **New one**");
}
END_TEST

/* ---- delete ---- */

START_TEST(test_issues_delete)
{
	world w;
	make_world(&w, "public");
	long long id = jint(create(&w, w.guest, "title=x&labels=l")->json, "id");
	create(&w, w.guest, "title=y");
	ck_assert_int_eq(open_count(&w), 2);
	ck_body(R(api("DELETE", I(&w, 1, ""), w.master, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("DELETE", I(&w, 1, ""), w.guest, NULL)), 403);
	ck_code(R(api("DELETE", I(&w, 1, ""), w.stranger, NULL)), 403);
	ck_code(R(api("DELETE", I(&w, 1, ""), w.owner, NULL)), 204);
	ck_body(R(api("DELETE", I(&w, 1, ""), w.owner, NULL)), 404,
		"{\"message\":\"404 Issue Not Found\"}");
	ck_code(R(api("GET", I(&w, 1, ""), w.owner, NULL)), 404);
	ck_assert_int_eq(open_count(&w), 1);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM label_links WHERE target_id = %lld", id), 0);
	ck_code(R(api("DELETE", I(&w, 2, ""), w.admin, NULL)), 204);
	ck_assert_int_eq(open_count(&w), 0);
	/* iids are not reused */
	ck_assert_int_eq(create_iid(&w, w.guest, "title=z"), 3);
}
END_TEST

/* ---- who sees what ---- */

START_TEST(test_issues_access_matrix)
{
	static const char *const vis[] = {"private", "internal", "public"};
	for (int v = 0; v < 3; v++) {
		world w;
		make_world(&w, vis[v]);
		create(&w, w.owner, "title=open");
		/* confidential, by the reporter, assigned to the developer */
		create(&w, w.reporter,
		       S(fmt("title=secret&confidential=true&assignee_id=%lld", w.developer_id)));
		long long g3;
		char *gauthor = user("igau", &g3, NULL);
		sql_member("Project", w.id, g3, 10);
		create(&w, gauthor, "title=mine&confidential=true");
		struct {
			const char *who, *token;
			const char *list; /* iids listed, or NULL: 404 */
		} cells[] = {
			{"guest", w.guest, "1"},
			{"guest author", gauthor, "3,1"},
			{"reporter", w.reporter, "3,2,1"},
			{"developer", w.developer, "3,2,1"},
			{"master", w.master, "3,2,1"},
			{"owner", w.owner, "3,2,1"},
			{"admin", w.admin, "3,2,1"},
			{"non-member", w.stranger, v == 0 ? NULL : "1"},
		};
		for (size_t c = 0; c < sizeof(cells) / sizeof(*cells); c++) {
			resp *r = R(api("GET", P(&w, "/issues"), cells[c].token, NULL));
			if (!cells[c].list) {
				ck_assert_msg(r->status == 404, "%s %s: %ld", vis[v], cells[c].who,
					      r->status);
				continue;
			}
			const char *got = iids_of(r);
			ck_assert_msg(strcmp(got, cells[c].list) == 0, "%s %s: %s", vis[v],
				      cells[c].who, got);
			ck_pages(r, S(fmt("/projects/%lld/issues", w.id)), "",
				 (long long)(strlen(cells[c].list) + 1) / 2, 20, 1);
			/* one issue: the confidential one is a 404 to those who do not see it */
			r = R(api("GET", I(&w, 2, ""), cells[c].token, NULL));
			bool sees = strchr(cells[c].list, '2') != NULL;
			ck_assert_msg(r->status == (sees ? 200 : 404), "%s %s show: %ld", vis[v],
				      cells[c].who, r->status);
			/* who may create: anyone who sees the project */
			r = R(api("POST", P(&w, "/issues"), cells[c].token, "title=c"));
			ck_assert_msg(r->status == 201, "%s %s create: %ld", vis[v], cells[c].who,
				      r->status);
			long long iid = jint(r->json, "iid");
			/* delete: the owner and admins */
			r = R(api("DELETE", I(&w, iid, ""), cells[c].token, NULL));
			bool owner = strcmp(cells[c].who, "owner") == 0 ||
				     strcmp(cells[c].who, "admin") == 0;
			ck_assert_msg(r->status == (owner ? 204 : 403), "%s %s delete: %ld", vis[v],
				      cells[c].who, r->status);
			if (!owner)
				ck_code(R(api("DELETE", I(&w, iid, ""), w.owner, NULL)), 204);
		}
		/* the count leaves the confidential ones out */
		ck_assert_int_eq(open_count(&w), 1);
	}
}
END_TEST

/* A project whose issues are off: lists are empty, one issue is not found, creating is
 * forbidden. */
START_TEST(test_issues_disabled)
{
	world w;
	make_world(&w, "public");
	create(&w, w.owner, "title=a");
	ck_code(R(api("PUT", P(&w, ""), w.owner, "issues_enabled=false")), 200);
	resp *r = R(api("GET", P(&w, "/issues"), w.owner, NULL));
	ck_iids(r, "");
	ck_code(R(api("GET", I(&w, 1, ""), w.owner, NULL)), 404);
	ck_code(R(api("POST", P(&w, "/issues"), w.owner, "title=b")), 403);
}
END_TEST

/* ---- the filters ---- */

START_TEST(test_issues_filters)
{
	world w;
	make_world(&w, "private");
	long long ms = jint(R(api("POST", P(&w, "/milestones"), w.owner, "title=rel"))->json, "id");
	/* 1: bug, milestone, by the owner, assigned to the reporter */
	create(&w, w.owner,
	       S(fmt("title=Crash+on+start&labels=bug,p1&milestone_id=%lld"
		     "&assignee_ids[]=%lld",
		     ms, w.reporter_id)));
	/* 2: by the reporter, bug; 3: closed, no labels, with a word in its description */
	create(&w, w.reporter, "title=Slow&labels=bug");
	create(&w, w.reporter, "title=Docs&description=the+needle+is+here");
	ck_code(R(api("PUT", I(&w, 3, ""), w.owner, "state_event=close")), 200);
	const char *base = S(fmt("/projects/%lld/issues", w.id));
	struct {
		const char *query, *want;
	} cases[] = {
		{"", "3,2,1"},
		{"state=opened", "2,1"},
		{"state=closed", "3"},
		{"state=all", "3,2,1"},
		{"labels=bug", "2,1"},
		{"labels=bug,p1", "1"},
		{"labels=bug,nope", ""},
		{"labels=No+Label", "3"},
		{"milestone=rel", "1"},
		{"milestone=No+Milestone", "3,2"},
		{"milestone=Any+Milestone", "1"},
		{"milestone=other", ""},
		{S(fmt("author_id=%lld", w.reporter_id)), "3,2"},
		{S(fmt("assignee_id=%lld", w.reporter_id)), "1"},
		{"assignee_id=0", "3,2"},
		{"iids[]=1&iids[]=3", "3,1"},
		{"search=needle", "3"},
		{"search=SLOW", "2"},
		{"search=%25", ""},
		{"sort=asc", "1,2,3"},
		{"order_by=updated_at", "3,2,1"},
		{"order_by=updated_at&sort=asc", "1,2,3"},
		{"scope=created-by-me", "1"},
		{"scope=assigned-to-me", ""},
		{"created_after=2000-01-01T00:00:00Z", "3,2,1"},
		{"created_before=2000-01-01T00:00:00Z", ""},
		{"my_reaction_emoji=thumbsup", ""},
		{"my_reaction_emoji=None", "3,2,1"},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		resp *r = R(api("GET", S(fmt("%s?%s", base, cases[c].query)), w.owner, NULL));
		const char *got = iids_of(r);
		ck_assert_msg(strcmp(got, cases[c].want) == 0, "%s: expected %s, got %s",
			      cases[c].query, cases[c].want, got);
	}
	/* the caller's award */
	long long id1 = sql_int("SELECT id FROM issues WHERE project_id = %lld AND iid = 1", w.id);
	free(sql_value("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id)"
		       " VALUES ('thumbsup', %lld, 'Issue', %lld) RETURNING id",
		       w.owner_id, id1));
	ck_iids(R(api("GET", S(fmt("%s?my_reaction_emoji=thumbsup", base)), w.owner, NULL)), "1");
	ck_iids(R(api("GET", S(fmt("%s?my_reaction_emoji=thumbsup", base)), w.reporter, NULL)), "");
	resp *r = R(api("GET", I(&w, 1, ""), w.reporter, NULL));
	ck_assert_int_eq(jint(r->json, "upvotes"), 1);
	/* bad values */
	ck_body(R(api("GET", S(fmt("%s?state=open", base)), w.owner, NULL)), 400,
		"{\"error\":\"state does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?order_by=title", base)), w.owner, NULL)), 400,
		"{\"error\":\"order_by does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?sort=up", base)), w.owner, NULL)), 400,
		"{\"error\":\"sort does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?scope=mine", base)), w.owner, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?author_id=me", base)), w.owner, NULL)), 400,
		"{\"error\":\"author_id is invalid\"}");
	ck_body(R(api("GET", S(fmt("%s?iids[]=a", base)), w.owner, NULL)), 400,
		"{\"error\":\"iids is invalid\"}");
	ck_body(R(api("GET", S(fmt("%s?created_after=yesterday", base)), w.owner, NULL)), 400,
		"{\"error\":\"created_after is invalid\"}");
	/* pages */
	r = R(api("GET", S(fmt("%s?per_page=2&state=all", base)), w.owner, NULL));
	ck_iids(r, "3,2");
	ck_pages(r, base, "state=all", 3, 2, 1);
	r = R(api("GET", S(fmt("%s?per_page=2&page=2&state=all", base)), w.owner, NULL));
	ck_iids(r, "1");
	ck_pages(r, base, "state=all", 3, 2, 2);
	r = R(api("GET", S(fmt("%s?page=5", base)), w.owner, NULL));
	ck_iids(r, "");
}
END_TEST

/* ---- the plain project list ----
 * GET /projects/:id/issues with no filter (state all, created_at desc), or only a state,
 * has a statement of its own for callers who see every issue of the project (reporters
 * and up, the namespace's owner, admins). Its answers are compared with the general
 * statement's, asked for the same issues through a filter that keeps them all
 * (created_after), byte for byte: the same body, the same pagination headers. */

/* The list of w's issues as token: the plain request (query: "" or "state=...", with
 * page and per_page in pg), compared with the general statement's answer; the plain
 * one, its pagination asserted (total issues of per_page, page). */
static resp *plain_list(const world *w, const char *token, const char *query, const char *pg,
			long long total, long long per_page, long long page)
{
	const char *base = P(w, "/issues");
	const char *sep = *query && *pg ? "&" : "";
	resp *a = R(api("GET", S(fmt("%s?%s%s%s", base, query, sep, pg)), token, NULL));
	resp *b = R(api("GET",
			S(fmt("%s?%s%screated_after=2000-01-01T00:00:00Z%s%s", base, query,
			      *query ? "&" : "", *pg ? "&" : "", pg)),
			token, NULL));
	ck_assert_msg(a->status == 200, "%s?%s%s%s: %ld %s", base, query, sep, pg, a->status,
		      a->body);
	ck_same_answer(a, b, S(fmt("%s?%s%s%s", base, query, sep, pg)));
	ck_pages(a, base, query, total, per_page, page);
	return a;
}

/* The assignee the lists show, kept on the issue's row (sql/0038_issue_assignee.sql)
 * through every way issue_assignees changes: the API, a second row (the lowest id shows),
 * a row moved to another issue, the assignee's removal. */
static long long list_assignee(const world *w, long long iid)
{
	resp *r = R(api("GET", P(w, "/issues?per_page=100"), w->owner, NULL));
	ck_status(r, 200);
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *o = json_object_array_get_idx(r->json, i);
		if (jint(o, "iid") != iid)
			continue;
		json_object *a = jget(o, "assignee"), *all = jget(o, "assignees");
		ck_assert_int_eq(json_object_array_length(all),
				 a && !json_object_is_type(a, json_type_null));
		return jnull(o, "assignee") ? 0 : jint(a, "id");
	}
	ck_abort_msg("issue %lld not listed", iid);
	return -1;
}

START_TEST(test_issues_assignee_row)
{
	world w;
	make_world(&w, "private");
	long long one =
		create_iid(&w, w.owner, S(fmt("title=one&assignee_ids[]=%lld", w.reporter_id)));
	long long two = create_iid(&w, w.owner, "title=two");
	ck_assert_int_eq(list_assignee(&w, one), w.reporter_id);
	ck_assert_int_eq(list_assignee(&w, two), 0);
	ck_code(R(api("PUT", I(&w, one, ""), w.owner,
		      S(fmt("assignee_ids[]=%lld", w.developer_id)))),
		200);
	ck_assert_int_eq(list_assignee(&w, one), w.developer_id);
	ck_code(R(api("PUT", I(&w, two, ""), w.owner, S(fmt("assignee_id=%lld", w.master_id)))),
		200);
	ck_assert_int_eq(list_assignee(&w, two), w.master_id);
	/* a second assignee of a lower id (GitLab 10 CE shows one: the lowest) */
	long long id_one =
		sql_int("SELECT id FROM issues WHERE project_id = %lld AND iid = %lld", w.id, one);
	long long id_two =
		sql_int("SELECT id FROM issues WHERE project_id = %lld AND iid = %lld", w.id, two);
	free(sql_value("INSERT INTO issue_assignees (issue_id, user_id) VALUES (%lld, %lld)",
		       id_one, w.owner_id));
	ck_assert_int_eq(list_assignee(&w, one), w.owner_id);
	/* moved to the other issue: both change */
	free(sql_value(
		"UPDATE issue_assignees SET issue_id = %lld WHERE issue_id = %lld AND user_id = %lld",
		id_two, id_one, w.owner_id));
	ck_assert_int_eq(list_assignee(&w, one), w.developer_id);
	ck_assert_int_eq(list_assignee(&w, two), w.owner_id);
	/* unassigned; the assignee removed */
	ck_code(R(api("PUT", I(&w, two, ""), w.owner, "assignee_id=0")), 200);
	ck_assert_int_eq(list_assignee(&w, two), 0);
	ck_code(R(api("DELETE", S(fmt("/users/%lld", w.developer_id)), w.admin, NULL)), 204);
	ck_assert_int_eq(list_assignee(&w, one), 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM issues i WHERE i.project_id = %lld AND"
				 " i.assignee_id IS DISTINCT FROM (SELECT min(a.user_id)"
				 " FROM issue_assignees a WHERE a.issue_id = i.id)",
				 w.id),
			 0);
}
END_TEST

START_TEST(test_issues_list_plain)
{
	world w;
	make_world(&w, "private");
	long long ms = jint(R(api("POST", P(&w, "/milestones"), w.owner, "title=rel"))->json, "id");
	/* 1: labels, milestone, assignee; 2: confidential, by the guest; 3: closed; 4:
	 * confidential, by the developer, assigned to them; 5: plain */
	create(&w, w.owner,
	       S(fmt("title=one&labels=p1,bug&milestone_id=%lld&assignee_ids[]=%lld", ms,
		     w.reporter_id)));
	create(&w, w.guest, "title=two&confidential=true");
	create(&w, w.guest, "title=three&description=d");
	ck_code(R(api("PUT", I(&w, 3, ""), w.owner, "state_event=close")), 200);
	create(&w, w.developer,
	       S(fmt("title=four&labels=zeta,alpha&confidential=true"
		     "&assignee_ids[]=%lld",
		     w.developer_id)));
	create(&w, w.owner, "title=five");
	/* created_at ties, broken by id: 1, then 4, 3, 2 (one time), then 5 */
	free(sql_value("UPDATE issues SET created_at = CASE iid WHEN 1 THEN '2020-01-03'"
		       " WHEN 5 THEN '2020-01-01' ELSE '2020-01-02' END::timestamptz"
		       " WHERE project_id = %lld",
		       w.id));
	const char *everyone[] = {w.reporter, w.developer, w.master, w.owner, w.admin};
	for (size_t c = 0; c < sizeof(everyone) / sizeof(*everyone); c++) {
		resp *r = plain_list(&w, everyone[c], "", "", 5, 20, 1);
		ck_iids(r, "1,4,3,2,5");
		ck_fields(json_object_array_get_idx(r->json, 0), ISSUE_FIELDS);
	}
	/* the page's issues as one issue shows them */
	resp *r = plain_list(&w, w.reporter, "", "", 5, 20, 1);
	json_object *one = json_object_array_get_idx(r->json, 0);
	json_object *labels = jget(one, "labels");
	ck_assert_int_eq(json_object_array_length(labels), 2);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(labels, 0)), "bug");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(labels, 1)), "p1");
	ck_assert_str_eq(jstr(jget(one, "milestone"), "title"), "rel");
	ck_assert_int_eq(jint(jget(one, "assignee"), "id"), w.reporter_id);
	ck_assert_str_eq(jstr(one, "web_url"), S(fmt("%s/%s/issues/1", api_url(), w.path)));
	ck_assert_int_eq(jint(jget(json_object_array_get_idx(r->json, 2), "closed_by"), "id"),
			 w.owner_id);
	/* pages, and one past the end */
	ck_iids(plain_list(&w, w.reporter, "", "per_page=2", 5, 2, 1), "1,4");
	ck_iids(plain_list(&w, w.reporter, "", "per_page=2&page=2", 5, 2, 2), "3,2");
	ck_iids(plain_list(&w, w.reporter, "", "per_page=2&page=3", 5, 2, 3), "5");
	ck_iids(plain_list(&w, w.reporter, "", "per_page=2&page=4", 5, 2, 4), "");
	/* the defaults said, and the state */
	ck_iids(plain_list(&w, w.reporter, "state=all", "", 5, 20, 1), "1,4,3,2,5");
	ck_iids(plain_list(&w, w.reporter, "order_by=created_at&sort=desc", "", 5, 20, 1),
		"1,4,3,2,5");
	ck_iids(plain_list(&w, w.reporter, "scope=all", "", 5, 20, 1), "1,4,3,2,5");
	ck_iids(plain_list(&w, w.reporter, "state=opened", "", 4, 20, 1), "1,4,2,5");
	ck_iids(plain_list(&w, w.reporter, "state=opened", "per_page=3&page=2", 4, 3, 2), "5");
	ck_iids(plain_list(&w, w.admin, "state=closed", "", 1, 20, 1), "3");
	/* who does not see every issue gets the general list: the guest their own
	 * confidential one, not the developer's; a stranger nothing */
	resp *g = R(api("GET", P(&w, "/issues"), w.guest, NULL));
	ck_iids(g, "1,3,2,5");
	ck_pages(g, P(&w, "/issues"), "", 4, 20, 1);
	g = R(api("GET", S(fmt("%s?state=opened&per_page=1&page=2", P(&w, "/issues"))), w.guest,
		  NULL));
	ck_iids(g, "2");
	ck_pages(g, P(&w, "/issues"), "state=opened", 3, 1, 2);
	ck_code(R(api("GET", P(&w, "/issues"), w.stranger, NULL)), 404);
	/* a reporter whose membership has ended is a stranger again */
	free(sql_value("UPDATE members SET expires_at = current_date WHERE source_type = 'Project'"
		       " AND source_id = %lld AND user_id = %lld",
		       w.id, w.reporter_id));
	ck_code(R(api("GET", P(&w, "/issues"), w.reporter, NULL)), 404);
	/* the same project public: a non-member sees the issues that are not confidential */
	ck_code(R(api("PUT", P(&w, ""), w.owner, "visibility=public")), 200);
	ck_iids(R(api("GET", P(&w, "/issues"), w.stranger, NULL)), "1,3,5");
	ck_iids(R(api("GET", P(&w, "/issues"), w.reporter, NULL)), "1,3,5");
	/* issues off: nothing, counted 0, on both paths */
	ck_code(R(api("PUT", P(&w, ""), w.owner, "issues_enabled=false")), 200);
	ck_iids(plain_list(&w, w.owner, "", "", 0, 20, 1), "");
	ck_iids(plain_list(&w, w.owner, "state=opened", "", 0, 20, 1), "");
}
END_TEST

/* The iids of project id among the issues of r, in order: "3,1". */
static const char *iids_in(resp *r, long long id)
{
	ck_assert_msg(r->status == 200, "%ld %s", r->status, r->body);
	char *out = S(calloc(1, 4096));
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *o = json_object_array_get_idx(r->json, i);
		if (jint(o, "project_id") == id)
			snprintf(out + strlen(out), 4096 - strlen(out), "%s%lld", *out ? "," : "",
				 jint(o, "iid"));
	}
	return out;
}

/* GET /issues?scope=all with no filter but the state has its own statements
 * (issues_list_all_state and _any): the same answers as the general one's (a filter that
 * changes nothing takes that one), pages and X-Total included, in every state, for an
 * admin, members of every level, a stranger and an external user; the confidential
 * issues that each may read (authored, assigned, as a reporter or more) and no other;
 * nothing of a project whose issues are off; counts that follow a close, a reopen and a
 * confidential issue made plain. */
static void ck_all_same(const char *token)
{
	static const char *const states[] = {"state=opened", "state=closed", "state=all", NULL};
	for (int s = 0; states[s]; s++) {
		const char *base = S(fmt("/issues?scope=all&%s", states[s]));
		const char *general = S(fmt("%s&created_after=1970-01-01T00:00:00Z", base));
		ck_same_list(base, general, token, "per_page=20");
		for (int page = 1; page <= 3; page++)
			ck_same_list(base, general, token, S(fmt("per_page=2&page=%d", page)));
	}
	ck_same_list("/issues?scope=all", "/issues?scope=all&created_after=1970-01-01T00:00:00Z",
		     token, "per_page=5");
}

START_TEST(test_issues_list_all)
{
	world w, pub, in, off;
	make_world(&w, "private");
	make_world(&pub, "public");
	make_world(&in, "internal");
	make_world(&off, "public");
	/* w: 1 plain, 2 confidential by the guest, 3 confidential assigned to the guest, 4
	 * confidential of the owner, 5 closed */
	create(&w, w.owner, "title=one");
	create(&w, w.guest, "title=two&confidential=true");
	create(&w, w.owner,
	       S(fmt("title=three&confidential=true&assignee_ids[]=%lld", w.guest_id)));
	create(&w, w.owner, "title=four&confidential=true");
	create(&w, w.owner, "title=five");
	ck_code(R(api("PUT", I(&w, 5, ""), w.owner, "state_event=close")), 200);
	/* pub: 1 plain, 2 confidential; in: 1 plain; off: one in a public project whose
	 * issues are then disabled */
	create(&pub, pub.owner, "title=p1");
	create(&pub, pub.owner, "title=p2&confidential=true");
	create(&in, in.owner, "title=i1");
	create(&off, off.owner, "title=o1");
	ck_code(R(api("PUT", P(&off, ""), off.owner, "issues_enabled=false")), 200);
	long long ext_id;
	const char *ext = user("iext", &ext_id, NULL);
	free(sql_value("UPDATE users SET external = true WHERE id = %lld", ext_id));
	const char *base = "/issues?scope=all&state=opened";
	const char *callers[] = {w.admin, w.guest, w.reporter, w.owner, w.stranger, ext};
	for (size_t c = 0; c < sizeof(callers) / sizeof(*callers); c++)
		ck_all_same(callers[c]);
	const char *newest = "/issues?scope=all&state=opened&per_page=100";
	const char *closed = "/issues?scope=all&state=closed&per_page=100";
	const char *every = "/issues?scope=all&per_page=100";
	ck_assert_str_eq(iids_in(R(api("GET", closed, w.reporter, NULL)), w.id), "5");
	ck_assert_str_eq(iids_in(R(api("GET", closed, w.stranger, NULL)), w.id), "");
	ck_assert_str_eq(iids_in(R(api("GET", every, w.reporter, NULL)), w.id), "5,4,3,2,1");
	ck_assert_str_eq(iids_in(R(api("GET", every, w.guest, NULL)), w.id), "5,3,2,1");
	ck_assert_str_eq(iids_in(R(api("GET", newest, w.guest, NULL)), w.id), "3,2,1");
	ck_assert_str_eq(iids_in(R(api("GET", newest, w.reporter, NULL)), w.id), "4,3,2,1");
	ck_assert_str_eq(iids_in(R(api("GET", newest, w.admin, NULL)), w.id), "4,3,2,1");
	ck_assert_str_eq(iids_in(R(api("GET", newest, w.stranger, NULL)), w.id), "");
	ck_assert_str_eq(iids_in(R(api("GET", newest, w.stranger, NULL)), pub.id), "1");
	ck_assert_str_eq(iids_in(R(api("GET", newest, pub.reporter, NULL)), pub.id), "2,1");
	ck_assert_str_eq(iids_in(R(api("GET", newest, w.stranger, NULL)), in.id), "1");
	ck_assert_str_eq(iids_in(R(api("GET", newest, ext, NULL)), in.id), "");
	ck_assert_str_eq(iids_in(R(api("GET", newest, ext, NULL)), pub.id), "1");
	ck_assert_str_eq(iids_in(R(api("GET", newest, w.admin, NULL)), off.id), "");
	/* a confidential issue made plain and another closed: the count follows at once */
	long long before = atoll(resp_header(R(api("GET", base, w.stranger, NULL)), "X-Total"));
	ck_code(R(api("PUT", S(fmt("/projects/%lld/issues/2", pub.id)), pub.owner,
		      "confidential=false")),
		200);
	ck_code(R(api("PUT", S(fmt("/projects/%lld/issues/1", in.id)), in.owner,
		      "state_event=close")),
		200);
	long long after = atoll(resp_header(R(api("GET", base, w.stranger, NULL)), "X-Total"));
	ck_assert_int_eq(after, before);
	ck_assert_str_eq(iids_in(R(api("GET", newest, w.stranger, NULL)), pub.id), "2,1");
	ck_assert_str_eq(iids_in(R(api("GET", newest, w.stranger, NULL)), in.id), "");
	ck_assert_str_eq(iids_in(R(api("GET", closed, w.stranger, NULL)), in.id), "1");
	/* a reopened issue and a confidential one closed, on both statements */
	ck_code(R(api("PUT", I(&w, 5, ""), w.owner, "state_event=reopen")), 200);
	ck_code(R(api("PUT", I(&w, 4, ""), w.owner, "state_event=close")), 200);
	ck_code(R(api("PUT", S(fmt("/projects/%lld/issues/2", pub.id)), pub.owner,
		      "state_event=close")),
		200);
	ck_all_same(w.stranger);
	ck_all_same(w.reporter);
	ck_all_same(w.admin);
	ck_assert_str_eq(iids_in(R(api("GET", closed, w.reporter, NULL)), w.id), "4");
	ck_assert_str_eq(iids_in(R(api("GET", closed, w.guest, NULL)), w.id), "");
}
END_TEST

/* The users of a list are references that each worker copies (entity/user.h USER_REF):
 * a rename, a new avatar or a block shows in every list at once, whichever worker
 * answers, and in one issue, its notes and the merge requests. */
/* The users' epoch that keeps the copies of users current, read with the caller: on a
 * project's route (auth_project) and on a route without a project (auth_token_lean); a
 * rename shows at once in each. */
START_TEST(test_issues_user_refs_epoch)
{
	world w;
	make_world(&w, "public");
	create(&w, w.guest, "title=one");
	const char *global = "/issues?scope=all&per_page=100";
	char *name = S(unique("epoch"));
	for (int round = 0; round < 2; round++) {
		const char *want = round ? name : w.guest_name;
		for (int i = 0; i < 12; i++) {
			resp *a = R(api("GET", P(&w, "/issues"), w.stranger, NULL));
			ck_assert_msg(a->status == 200, "%ld %s", a->status, a->body);
			json_object *one = json_object_array_get_idx(a->json, 0);
			ck_assert_str_eq(jstr(jget(one, "author"), "username"), want);
			resp *g = R(api("GET", global, w.guest, NULL));
			ck_assert_msg(g->status == 200, "%ld %s", g->status, g->body);
			bool seen = false;
			for (size_t k = 0; k < json_object_array_length(g->json); k++) {
				json_object *o = json_object_array_get_idx(g->json, k);
				if (jint(o, "project_id") != w.id)
					continue;
				ck_assert_str_eq(jstr(jget(o, "author"), "username"), want);
				seen = true;
			}
			ck_assert(seen);
		}
		if (!round)
			ck_code(R(api("PUT", S(fmt("/users/%lld", w.guest_id)), w.admin,
				      S(fmt("username=%s", name)))),
				200);
	}
}
END_TEST

START_TEST(test_issues_user_refs)
{
	world w;
	make_world(&w, "private");
	create(&w, w.guest, "title=one");
	ck_code(R(api("PUT", I(&w, 1, ""), w.owner, S(fmt("assignee_ids[]=%lld", w.reporter_id)))),
		200);
	ck_code(R(api("PUT", I(&w, 1, ""), w.developer, "state_event=close")), 200);
	ck_code(R(api("POST", I(&w, 1, "/notes"), w.reporter, "body=hi")), 201);
	/* every worker has copies of the three */
	for (int i = 0; i < 12; i++) {
		json_object *one = json_object_array_get_idx(
			R(api("GET", P(&w, "/issues"), w.owner, NULL))->json, 0);
		ck_assert_str_eq(jstr(jget(one, "author"), "username"), w.guest_name);
		ck_assert_str_eq(jstr(jget(one, "assignee"), "username"), w.reporter_name);
		ck_assert_int_eq(jint(jget(one, "closed_by"), "id"), w.developer_id);
		json_object *note = json_object_array_get_idx(
			R(api("GET", I(&w, 1, "/notes"), w.owner, NULL))->json, 0);
		ck_assert_str_eq(jstr(jget(note, "author"), "username"), w.reporter_name);
	}
	/* a user made after the workers read their copies (no epoch grows): read when named */
	long long late_id;
	char *late_name;
	char *late = user("ilate", &late_id, &late_name);
	sql_member("Project", w.id, late_id, 20);
	ck_code(R(api("POST", I(&w, 1, "/notes"), late, "body=late")), 201);
	for (int i = 0; i < 12; i++) {
		json_object *note = json_object_array_get_idx(
			R(api("GET", I(&w, 1, "/notes"), w.owner, NULL))->json, 0);
		ck_assert_str_eq(jstr(jget(note, "author"), "username"), late_name);
		ck_assert_int_eq(jint(jget(note, "author"), "id"), late_id);
	}
	char *name = S(unique("renamed"));
	ck_code(R(api("PUT", S(fmt("/users/%lld", w.reporter_id)), w.admin,
		      S(fmt("username=%s&name=Renamed%%20One", name)))),
		200);
	ck_code(R(api("POST", S(fmt("/users/%lld/block", w.guest_id)), w.admin, NULL)), 201);
	ck_code(R(api("PUT", S(fmt("/users/%lld", w.developer_id)), w.admin, "name=Closer")), 200);
	for (int i = 0; i < 12; i++) {
		resp *r = R(api("GET", P(&w, "/issues"), w.owner, NULL));
		json_object *one = json_object_array_get_idx(r->json, 0);
		ck_assert_str_eq(jstr(jget(one, "author"), "state"), "blocked");
		ck_assert_str_eq(jstr(jget(one, "assignee"), "username"), name);
		ck_assert_str_eq(jstr(jget(one, "assignee"), "name"), "Renamed One");
		ck_assert_str_eq(jstr(jget(one, "assignee"), "web_url"),
				 S(fmt("%s/%s", api_url(), name)));
		ck_assert_str_eq(jstr(jget(one, "closed_by"), "name"), "Closer");
		one = R(api("GET", I(&w, 1, ""), w.owner, NULL))->json;
		ck_assert_str_eq(jstr(jget(one, "assignee"), "username"), name);
		ck_assert_str_eq(jstr(jget(one, "author"), "state"), "blocked");
		/* newest first: the late user's, then the reporter's */
		json_object *note = json_object_array_get_idx(
			R(api("GET", I(&w, 1, "/notes"), w.owner, NULL))->json, 1);
		ck_assert_str_eq(jstr(note, "body"), "hi");
		ck_assert_str_eq(jstr(jget(note, "author"), "name"), "Renamed One");
	}
	/* a user removed: no author, no assignee */
	ck_code(R(api("DELETE", S(fmt("/users/%lld", w.reporter_id)), w.admin, NULL)), 204);
	for (int i = 0; i < 8; i++) {
		json_object *one = json_object_array_get_idx(
			R(api("GET", P(&w, "/issues"), w.owner, NULL))->json, 0);
		ck_assert(jnull(one, "assignee"));
	}
}
END_TEST

/* GET /issues (created by the caller unless scope says otherwise) and
 * /groups/:id/issues (its projects and those of its subgroups). */
START_TEST(test_issues_global_and_group)
{
	long long uid, gid;
	char *gpath;
	char *u = user("iglo", &uid, NULL);
	gid = api_group(u, "private", &gpath);
	S(gpath);
	long long sub = fixture_subgroup(gid, 0, NULL);
	long long p1 = fixture_group_project(gid, 0, NULL);
	long long p2 = fixture_group_project(sub, 0, NULL);
	world w = {.id = p1};
	world w2 = {.id = p2};
	long long other;
	char *o = user("iglo2", &other, NULL);
	sql_member("Project", p1, other, 30);
	/* a word of this test's own: other tests' public issues are seen with scope=all */
	char *word = S(unique("w"));
	create(&w, u, S(fmt("title=a&description=%s", word)));
	create(&w2, u, S(fmt("title=b&description=%s", word)));
	create(&w, o, S(fmt("title=c&description=%s", word)));
	resp *r = R(api("GET", "/issues", u, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_pages(r, "/issues", "", 2, 20, 1);
	r = R(api("GET", S(fmt("/issues?scope=all&search=%s", word)), u, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	r = R(api("GET", "/issues", o, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "title"), "c");
	r = R(api("GET", S(fmt("/issues?scope=all&search=%s", word)), o, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 2); /* not the subgroup's */
	ck_code(R(api("GET", "/issues", NULL, NULL)), 401);
	/* the group's */
	const char *gp = S(fmt("/groups/%lld/issues", gid));
	r = R(api("GET", gp, u, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	ck_fields(json_object_array_get_idx(r->json, 0), ISSUE_FIELDS);
	r = R(api("GET", S(fmt("/groups/%lld/issues?scope=created-by-me&per_page=1", gid)), o,
		  NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	r = R(api("GET", S(fmt("/groups/%lld/issues", sub)), u, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	long long s3;
	char *stranger = user("iglo3", &s3, NULL);
	ck_body(R(api("GET", gp, stranger, NULL)), 404, "{\"message\":\"404 Group Not Found\"}");
}
END_TEST

/* ---- move ---- */

START_TEST(test_issues_move)
{
	world w, t;
	make_world(&w, "private");
	make_world(&t, "private");
	sql_member("Project", t.id, w.reporter_id, 20);
	sql_member("Project", t.id, w.guest_id, 10);
	free(sql_value(
		"INSERT INTO labels (project_id, title, color) VALUES (%lld, 'bug', '#ff0000')"
		" RETURNING id",
		t.id));
	create(&t, t.owner, "title=taken");
	resp *r = create(&w, w.owner, "title=Move+me&labels=bug,local");
	long long old_id = jint(r->json, "id");
	free(sql_value("INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, note)"
		       " VALUES (%lld, 'Issue', %lld, %lld, 'a comment') RETURNING id",
		       w.id, old_id, w.owner_id));
	const char *to = S(fmt("to_project_id=%lld", t.id));
	ck_body(R(api("POST", I(&w, 1, "/move"), w.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"to_project_id\\\" not given\"}");
	ck_body(R(api("POST", I(&w, 1, "/move"), w.owner, "to_project_id=999999999")), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("POST", I(&w, 7, "/move"), w.owner, to)), 404,
		"{\"message\":\"404 Issue Not Found\"}");
	/* the owner of the source is not a member of the target */
	ck_body(R(api("POST", I(&w, 1, "/move"), w.owner, to)), 400,
		"{\"message\":\"Cannot move issue due to insufficient permissions!\"}");
	ck_body(R(api("POST", I(&w, 1, "/move"), w.guest, to)), 400,
		"{\"message\":\"Cannot move issue due to insufficient permissions!\"}");
	ck_body(R(api("POST", I(&w, 1, "/move"), w.reporter, S(fmt("to_project_id=%lld", w.id)))),
		400, "{\"message\":\"Cannot move issue to project it originates from!\"}");
	ck_assert_int_eq(open_count(&w), 1);
	r = R(api("POST", I(&w, 1, "/move"), w.reporter, to));
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "project_id"), t.id);
	ck_assert_int_eq(jint(r->json, "iid"), 2);
	ck_jstr(r, "title", "Move me");
	ck_jstr(r, "state", "opened");
	ck_assert_str_eq(json_object_to_json_string(jget(r->json, "labels")), "[ \"bug\" ]");
	ck_assert_int_eq(jint(r->json, "user_notes_count"), 1);
	ck_assert_str_eq(jstr(jget(r->json, "author"), "username"), w.owner_name);
	long long new_id = jint(r->json, "id");
	/* the old one is closed and points at the new one */
	r = R(api("GET", I(&w, 1, ""), w.owner, NULL));
	ck_jstr(r, "state", "closed");
	ck_assert_int_eq(sql_int("SELECT moved_to_id FROM issues WHERE id = %lld", old_id), new_id);
	ck_assert_str_eq(notes_of(old_id), S(fmt("moved to %s#2", t.path)));
	ck_assert_str_eq(notes_of(new_id), S(fmt("moved from %s#1", w.path)));
	ck_assert_int_eq(open_count(&w), 0);
	ck_assert_int_eq(open_count(&t), 2);
	/* not twice */
	ck_body(R(api("POST", I(&w, 1, "/move"), w.reporter, to)), 400,
		"{\"message\":\"Cannot move issue due to insufficient permissions!\"}");
}
END_TEST

/* ---- subscriptions ---- */

START_TEST(test_issues_subscriptions)
{
	world w;
	make_world(&w, "private");
	create(&w, w.owner, "title=s");
	ck_code(R(api("POST", I(&w, 1, "/subscribe"), w.owner, NULL)), 304);
	resp *r = R(api("POST", I(&w, 1, "/subscribe"), w.guest, NULL));
	ck_status(r, 201);
	ck_fields(r->json, SINGLE_FIELDS);
	ck_assert(jbool(r->json, "subscribed"));
	ck_code(R(api("POST", I(&w, 1, "/subscribe"), w.guest, NULL)), 304);
	r = R(api("GET", I(&w, 1, ""), w.guest, NULL));
	ck_assert(jbool(r->json, "subscribed"));
	r = R(api("POST", I(&w, 1, "/unsubscribe"), w.guest, NULL));
	ck_status(r, 201);
	ck_assert(!jbool(r->json, "subscribed"));
	ck_code(R(api("POST", I(&w, 1, "/unsubscribe"), w.guest, NULL)), 304);
	/* the author may leave too */
	r = R(api("POST", I(&w, 1, "/unsubscribe"), w.owner, NULL));
	ck_status(r, 201);
	ck_assert(!jbool(R(api("GET", I(&w, 1, ""), w.owner, NULL))->json, "subscribed"));
	ck_body(R(api("POST", I(&w, 5, "/subscribe"), w.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_code(R(api("POST", I(&w, 1, "/subscribe"), w.stranger, NULL)), 404);
	ck_code(R(api("POST", I(&w, 1, "/subscribe"), NULL, NULL)), 401);
}
END_TEST

/* ---- participants ---- */

/* GET .../issues/:issue_iid/participants (GitLab 10.4+): the author, the assignees and
 * whoever commented, by id, in the basic user view, paginated; no one for a system note;
 * 404 for an issue the caller may not see (none, a confidential one, another's private
 * project). */
START_TEST(test_issues_participants)
{
	static const char *const USER_BASIC[] = {"id",         "name",    "username", "state",
						 "avatar_url", "web_url", NULL};
	world w;
	make_world(&w, "private");
	long long iid =
		create_iid(&w, w.owner, S(fmt("title=p&assignee_ids[]=%lld", w.developer_id)));
	ck_code(R(api("POST", I(&w, iid, "/notes"), w.reporter, "body=hi")), 201);
	ck_code(R(api("POST", I(&w, iid, "/notes"), w.guest, "body=me%20too")), 201);
	/* a system note by the master: not a participant */
	ck_code(R(api("PUT", I(&w, iid, ""), w.master, "title=p2")), 200);
	const char *path = S(fmt("/projects/%lld/issues/%lld/participants", w.id, iid));
	resp *r = R(api("GET", I(&w, iid, "/participants"), w.guest, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 4);
	long long want[] = {w.owner_id, w.guest_id, w.reporter_id, w.developer_id};
	for (int i = 0; i < 4; i++) {
		json_object *u = json_object_array_get_idx(r->json, i);
		ck_fields(u, USER_BASIC);
		ck_assert_int_eq(jint(u, "id"), want[i]);
	}
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 1), "username"), w.guest_name);
	ck_pages(r, path, "", 4, 20, 1);
	r = R(api("GET", I(&w, iid, "/participants?per_page=3&page=2"), w.guest, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), w.developer_id);
	ck_pages(r, path, "", 4, 3, 2);
	ck_code(R(api("GET", I(&w, iid, "/participants?per_page=x"), w.guest, NULL)), 400);
	/* none, none readable, no credentials, no integer */
	ck_body(R(api("GET", I(&w, 99, "/participants"), w.guest, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", I(&w, iid, "/participants"), w.stranger, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_code(R(api("GET", I(&w, iid, "/participants"), NULL, NULL)), 401);
	ck_body(R(api("GET", P(&w, "/issues/x/participants"), w.guest, NULL)), 400,
		"{\"error\":\"issue_iid is invalid\"}");
	/* a confidential issue: its author, assignees and reporters up see it, a guest not */
	long long secret = create_iid(&w, w.owner, "title=s&confidential=true");
	ck_body(R(api("GET", I(&w, secret, "/participants"), w.guest, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	r = R(api("GET", I(&w, secret, "/participants"), w.reporter, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), w.owner_id);
	/* on a public project, a stranger sees the participants of an open issue only */
	world pub;
	make_world(&pub, "public");
	long long open = create_iid(&pub, pub.owner, "title=o");
	long long hidden = create_iid(&pub, pub.owner, "title=h&confidential=true");
	ck_code(R(api("GET", I(&pub, open, "/participants"), pub.stranger, NULL)), 200);
	ck_body(R(api("GET", I(&pub, hidden, "/participants"), pub.stranger, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
}
END_TEST

/* ---- time tracking ---- */

START_TEST(test_issues_time_tracking)
{
	world w;
	make_world(&w, "private");
	long long id = jint(create(&w, w.guest, "title=t")->json, "id");
	ck_body(R(api("POST", I(&w, 1, "/time_estimate"), w.reporter, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"duration\\\" not given\"}");
	ck_body(R(api("POST", I(&w, 1, "/time_estimate"), w.guest, "duration=1h")), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("POST", I(&w, 1, "/time_estimate"), w.reporter, "duration=soon")), 400,
		"{\"message\":{\"time_estimate\":[\"has an invalid format\"]}}");
	ck_body(R(api("POST", I(&w, 8, "/time_estimate"), w.reporter, "duration=1h")), 404,
		"{\"message\":\"404 Not found\"}");
	resp *r = R(api("POST", I(&w, 1, "/time_estimate"), w.reporter, "duration=3w1h"));
	ck_body(r, 200,
		"{\"time_estimate\":435600,\"total_time_spent\":0,"
		"\"human_time_estimate\":\"3w 1h\",\"human_total_time_spent\":null}");
	r = R(api("POST", I(&w, 1, "/add_spent_time"), w.reporter, "duration=1d+2h30m"));
	ck_body(r, 201,
		"{\"time_estimate\":435600,\"total_time_spent\":37800,"
		"\"human_time_estimate\":\"3w 1h\",\"human_total_time_spent\":\"1d 2h 30m\"}");
	r = R(api("POST", I(&w, 1, "/add_spent_time"), w.reporter, "duration=-30m"));
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "total_time_spent"), 36000);
	ck_body(R(api("POST", I(&w, 1, "/add_spent_time"), w.reporter, "duration=-2d")), 400,
		"{\"message\":{\"time_spent\":[\"Time to subtract exceeds the total time spent\"]}}");
	r = R(api("GET", I(&w, 1, "/time_stats"), w.guest, NULL));
	ck_body(r, 200,
		"{\"time_estimate\":435600,\"total_time_spent\":36000,"
		"\"human_time_estimate\":\"3w 1h\",\"human_total_time_spent\":\"1d 2h\"}");
	r = R(api("GET", I(&w, 1, ""), w.guest, NULL));
	ck_assert_int_eq(jint(jget(r->json, "time_stats"), "total_time_spent"), 36000);
	ck_body(R(api("POST", I(&w, 1, "/reset_time_estimate"), w.reporter, NULL)), 200,
		"{\"time_estimate\":0,\"total_time_spent\":36000,\"human_time_estimate\":null,"
		"\"human_total_time_spent\":\"1d 2h\"}");
	ck_body(R(api("POST", I(&w, 1, "/reset_spent_time"), w.reporter, NULL)), 200,
		"{\"time_estimate\":0,\"total_time_spent\":0,\"human_time_estimate\":null,"
		"\"human_total_time_spent\":null}");
	ck_assert_str_eq(notes_of(id), "changed time estimate to 3w 1h|added 1d 2h 30m of time "
				       "spent|subtracted 30m of time spent|removed time "
				       "estimate|removed time spent");
	ck_code(R(api("GET", I(&w, 1, "/time_stats"), w.stranger, NULL)), 404);
}
END_TEST

/* ---- iids from two instances at once ---- */

#define PER_THREAD 8

struct racer {
	const char *base, *token;
	long long project;
	long long iids[PER_THREAD];
};

static void *race(void *arg)
{
	struct racer *t = arg;
	char *hdr = fmt("PRIVATE-TOKEN: %s", t->token);
	const char *headers[] = {hdr, NULL};
	char *url = fmt("%s/api/v4/projects/%lld/issues", t->base, t->project);
	for (int i = 0; i < PER_THREAD; i++) {
		resp *r = http_request("POST", url, headers, "title=race", 10,
				       "application/x-www-form-urlencoded");
		t->iids[i] = r->status == 201 ? jint(r->json, "iid") : -r->status;
		resp_free(r);
	}
	free(url);
	free(hdr);
	return NULL;
}

START_TEST(test_issues_concurrent_iids)
{
	world w;
	make_world(&w, "private");
	const char *e = getenv("COLLABD_INSTANCE_URLS");
	ck_assert_msg(e && *e, "COLLABD_INSTANCE_URLS must be set");
	char *urls = S(strdup(e)), *save = NULL;
	const char *base[2];
	base[0] = strtok_r(urls, " ", &save);
	base[1] = strtok_r(NULL, " ", &save);
	ck_assert(base[0] && base[1]);
	struct racer t[4];
	pthread_t ids[4];
	for (int n = 0; n < 4; n++) {
		t[n] = (struct racer){.base = base[n % 2], .token = w.owner, .project = w.id};
		ck_assert(pthread_create(&ids[n], NULL, race, &t[n]) == 0);
	}
	for (int n = 0; n < 4; n++)
		pthread_join(ids[n], NULL);
	bool seen[4 * PER_THREAD + 1] = {false};
	for (int n = 0; n < 4; n++)
		for (int i = 0; i < PER_THREAD; i++) {
			long long iid = t[n].iids[i];
			ck_assert_msg(iid >= 1 && iid <= 4 * PER_THREAD, "iid %lld", iid);
			ck_assert_msg(!seen[iid], "iid %lld twice", iid);
			seen[iid] = true;
		}
	ck_assert_int_eq(open_count(&w), 4 * PER_THREAD);
}
END_TEST

Suite *suite_issues(void)
{
	Suite *s = suite_create("issues");
	TCase *tc = tcase_create("issues");
	tcase_set_timeout(tc, 240);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_issues_create_show);
	tcase_add_test(tc, test_issues_due_date_forms);
	tcase_add_test(tc, test_issues_create_privileged_fields);
	tcase_add_test(tc, test_issues_edit);
	tcase_add_test(tc, test_issues_title_note);
	tcase_add_test(tc, test_issues_delete);
	tcase_add_test(tc, test_issues_access_matrix);
	tcase_add_test(tc, test_issues_disabled);
	tcase_add_test(tc, test_issues_filters);
	tcase_add_test(tc, test_issues_list_plain);
	tcase_add_test(tc, test_issues_assignee_row);
	tcase_add_test(tc, test_issues_list_all);
	tcase_add_test(tc, test_issues_user_refs);
	tcase_add_test(tc, test_issues_user_refs_epoch);
	tcase_add_test(tc, test_issues_global_and_group);
	tcase_add_test(tc, test_issues_move);
	tcase_add_test(tc, test_issues_participants);
	tcase_add_test(tc, test_issues_subscriptions);
	tcase_add_test(tc, test_issues_time_tracking);
	tcase_add_test(tc, test_issues_concurrent_iids);
	suite_add_tcase(s, tc);
	return s;
}
