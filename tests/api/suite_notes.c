/* API suite: notes (4.9) on issues, project snippets and merge requests: the note
 * record, the five routes of each, their errors, pages and order, who may read, write,
 * edit and delete them (visibility, roles, confidential issues, locked discussions), the
 * creation time that admins and owners may give, the note that is only an emoji (an
 * award), and the "commented on" event. Issues and snippets are fixtures in SQL
 * (client.h). */
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const note_fields[] = {
	"id",     "body",        "attachment",    "author",       "created_at", "updated_at",
	"system", "noteable_id", "noteable_type", "noteable_iid", NULL,
};

/* A project of the given visibility made by a new user: its id, the owner's token and
 * id. */
typedef struct {
	long long id;
	char *owner_tok;
	long long owner;
} fx_project;

static void make_project(fx_project *p, const char *visibility)
{
	p->owner_tok = make_user("nown", &p->owner, NULL);
	p->id = api_project(p->owner_tok, visibility, NULL);
}

/* A new user who is a member of project p at level (0: no member). */
static char *member(const fx_project *p, int level, long long *id)
{
	long long uid;
	char *tok = make_user("nmem", &uid, NULL);
	if (level)
		fixture_member("Project", p->id, uid, level);
	if (id)
		*id = uid;
	return tok;
}

/* METHOD /projects/<project><suffix> as tok: the response's status. */
static long call(const char *method, long long project, const char *suffix, const char *tok,
		 const char *form)
{
	char *path = fmt("/projects/%lld%s", project, suffix);
	resp *r = api(method, path, tok, form);
	long status = r->status;
	resp_free(r);
	free(path);
	return status;
}

/* POST a note with body to /projects/<project>/<parent>/notes as tok: its id (asserts
 * 201 and the note record). */
static long long post_note(long long project, const char *parent, const char *tok, const char *body)
{
	char *path = fmt("/projects/%lld/%s/notes", project, parent);
	char *form = fmt("body=%s", body);
	resp *r = api("POST", path, tok, form);
	ck_status(r, 201);
	ck_fields(r->json, note_fields);
	long long id = jint(r->json, "id");
	resp_free(r);
	free(form);
	free(path);
	return id;
}

static long long user_notes_count(long long issue)
{
	return sql_int("SELECT user_notes_count FROM issues WHERE id = %lld", issue);
}

START_TEST(test_notes_require_auth)
{
	fx_project p;
	make_project(&p, "public");
	long long iid;
	fixture_issue(p.id, p.owner, "open", false, &iid);
	char *path = fmt("/projects/%lld/issues/%lld/notes", p.id, iid);
	resp *r = api("GET", path, NULL, NULL);
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	r = api("POST", path, NULL, "body=hi");
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM notes WHERE noteable_type = 'Issue'"
			" AND noteable_id IN (SELECT id FROM issues WHERE project_id = %lld)",
			p.id),
		0);
	free(path);
	free(p.owner_tok);
}
END_TEST

/* The note record, and a note through its life: created, listed, shown, edited, deleted;
 * the issue's user_notes_count and the "commented on" event follow. */
START_TEST(test_notes_issue_life)
{
	fx_project p;
	make_project(&p, "private");
	long long dev_id;
	char *dev = member(&p, 30, &dev_id);
	long long iid;
	long long issue = fixture_issue(p.id, p.owner, "first", false, &iid);
	char *base = fmt("/projects/%lld/issues/%lld/notes", p.id, iid);

	resp *r = api("POST", base, dev, "body=Hello+%C3%A9");
	ck_status(r, 201);
	ck_fields(r->json, note_fields);
	long long id = jint(r->json, "id");
	ck_jstr(r, "body", "Hello \xc3\xa9");
	ck_assert(jnull(r->json, "attachment"));
	ck_assert_int_eq(jint(jget(r->json, "author"), "id"), dev_id);
	ck_assert(!jbool(r->json, "system"));
	ck_assert_int_eq(jint(r->json, "noteable_id"), issue);
	ck_jstr(r, "noteable_type", "Issue");
	ck_assert_int_eq(jint(r->json, "noteable_iid"), iid);
	char *created = strdup(jstr(r->json, "created_at"));
	ck_assert_int_eq(strlen(created), 24); /* 2017-09-05T10:12:35.123Z */
	resp_free(r);
	ck_assert_int_eq(user_notes_count(issue), 1);

	r = api("GET", base, dev, NULL);
	ck_status(r, 200);
	ck_pages(r, base, "", 1, 20, 1);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_fields(json_object_array_get_idx(r->json, 0), note_fields);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), id);
	resp_free(r);

	char *one = fmt("%s/%lld", base, id);
	r = api("GET", one, p.owner_tok, NULL);
	ck_status(r, 200);
	ck_fields(r->json, note_fields);
	ck_jstr(r, "created_at", created);
	resp_free(r);

	/* the event, with the note in it */
	char *events = fmt("/projects/%lld/events?target_type=note", p.id);
	r = api("GET", events, dev, NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	json_object *e = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(e, "action_name"), "commented on");
	ck_assert_str_eq(jstr(e, "target_type"), "Note");
	ck_assert_int_eq(jint(e, "target_id"), id);
	ck_assert_int_eq(jint(e, "target_iid"), iid);
	ck_assert_int_eq(jint(e, "author_id"), dev_id);
	ck_fields(jget(e, "note"), note_fields);
	ck_assert_str_eq(jstr(jget(e, "note"), "body"), "Hello \xc3\xa9");
	resp_free(r);

	/* edited by its author: the note and its event */
	r = api("PUT", one, dev, "body=edited");
	ck_status(r, 200);
	ck_fields(r->json, note_fields);
	ck_jstr(r, "body", "edited");
	ck_jstr(r, "created_at", created);
	resp_free(r);
	r = api("GET", events, dev, NULL);
	ck_assert_str_eq(jstr(jget(json_object_array_get_idx(r->json, 0), "note"), "body"),
			 "edited");
	resp_free(r);
	ck_assert_int_eq(user_notes_count(issue), 1);

	/* deleted: gone with its event */
	r = api("DELETE", one, dev, NULL);
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	resp_free(r);
	r = api("GET", one, dev, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	r = api("GET", events, dev, NULL);
	ck_body(r, 200, "[]");
	resp_free(r);
	ck_assert_int_eq(user_notes_count(issue), 0);
	r = api("GET", base, dev, NULL);
	ck_body(r, 200, "[]");
	ck_pages(r, base, "", 0, 20, 1);
	resp_free(r);
	free(events);
	free(created);
	free(one);
	free(base);
	free(dev);
	free(p.owner_tok);
}
END_TEST

START_TEST(test_notes_errors)
{
	fx_project p;
	make_project(&p, "public");
	long long iid, other_iid;
	fixture_issue(p.id, p.owner, "one", false, &iid);
	fixture_issue(p.id, p.owner, "two", false, &other_iid);
	char *base = fmt("/projects/%lld/issues/%lld/notes", p.id, iid);
	char *tok = p.owner_tok;
	char *parent = fmt("issues/%lld", iid);
	long long note = post_note(p.id, parent, tok, "x");
	free(parent);

	resp *r = api("POST", base, tok, NULL);
	ck_body(r, 400, "{\"message\":\"400 (Bad request) \\\"body\\\" not given\"}");
	resp_free(r);
	r = api("POST", base, tok, "body=");
	ck_body(r, 400, "{\"message\":\"400 (Bad request) \\\"body\\\" not given\"}");
	resp_free(r);
	r = api("POST", base, tok, "body=+%0A+");
	ck_body(r, 404, "{\"message\":\"404 Note {:note=>[\\\"can't be blank\\\"]} Not Found\"}");
	resp_free(r);
	r = api("POST", base, tok, "body=x&created_at=yesterday");
	ck_body(r, 400, "{\"error\":\"created_at is invalid\"}");
	resp_free(r);
	char *path = fmt("/projects/%lld/issues/abc/notes", p.id);
	r = api("GET", path, tok, NULL);
	ck_body(r, 400, "{\"error\":\"issue_iid is invalid\"}");
	resp_free(r);
	free(path);
	path = fmt("%s/xyz", base);
	r = api("GET", path, tok, NULL);
	ck_body(r, 400, "{\"error\":\"note_id is invalid\"}");
	resp_free(r);
	r = api("PUT", path, tok, "body=x");
	ck_body(r, 400, "{\"error\":\"note_id is invalid\"}");
	resp_free(r);
	free(path);
	path = fmt("%s?order_by=title", base);
	r = api("GET", path, tok, NULL);
	ck_body(r, 400, "{\"error\":\"order_by does not have a valid value\"}");
	resp_free(r);
	free(path);
	path = fmt("%s?sort=up", base);
	r = api("GET", path, tok, NULL);
	ck_body(r, 400, "{\"error\":\"sort does not have a valid value\"}");
	resp_free(r);
	free(path);
	/* no such issue, note, or project */
	path = fmt("/projects/%lld/issues/99999/notes", p.id);
	r = api("GET", path, tok, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	r = api("POST", path, tok, "body=x");
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	free(path);
	path = fmt("/projects/%lld/issues/%lld/notes/%lld", p.id, other_iid, note);
	r = api("GET", path, tok, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	r = api("PUT", path, tok, "body=moved");
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	r = api("DELETE", path, tok, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	free(path);
	r = api("GET", "/projects/999999999/issues/1/notes", tok, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	/* an edit without a body, or with a blank one */
	path = fmt("%s/%lld", base, note);
	r = api("PUT", path, tok, NULL);
	ck_body(r, 400, "{\"message\":\"400 (Bad request) \\\"body\\\" not given\"}");
	resp_free(r);
	r = api("PUT", path, tok, "body=%20");
	ck_body(r, 400, "{\"message\":\"Failed to save note {:note=>[\\\"can't be blank\\\"]}\"}");
	resp_free(r);
	r = api("GET", path, tok, NULL);
	ck_jstr(r, "body", "x");
	resp_free(r);
	free(path);
	free(base);
	free(tok);
}
END_TEST

/* GitLab's limit: 1,000,000 characters (not bytes). */
START_TEST(test_notes_body_limit)
{
	fx_project p;
	make_project(&p, "private");
	long long iid;
	long long issue = fixture_issue(p.id, p.owner, "long", false, &iid);
	char *base = fmt("/projects/%lld/issues/%lld/notes", p.id, iid);
	size_t n = 1000000;
	char *form = malloc(n + 32);
	strcpy(form, "body=");
	memset(form + 5, 'a', n - 1);
	strcpy(form + 5 + n - 1, "%C3%A9"); /* the millionth character, two bytes */
	resp *r = api("POST", base, p.owner_tok, form);
	ck_status(r, 201);
	ck_assert_int_eq(strlen(jstr(r->json, "body")), n + 1);
	char *one = fmt("%s/%lld", base, jint(r->json, "id"));
	resp_free(r);
	strcpy(form + 5 + n - 1, "aa");
	r = api("POST", base, p.owner_tok, form);
	ck_body(r, 404,
		"{\"message\":\"404 Note {:note=>[\\\"is too long (maximum is 1000000"
		" characters)\\\"]} Not Found\"}");
	resp_free(r);
	r = api("PUT", one, p.owner_tok, form);
	ck_body(r, 400,
		"{\"message\":\"Failed to save note {:note=>[\\\"is too long (maximum is"
		" 1000000 characters)\\\"]}\"}");
	resp_free(r);
	ck_assert_int_eq(user_notes_count(issue), 1);
	ck_assert_int_eq(sql_int("SELECT length(note) FROM notes WHERE noteable_id = %lld"
				 " AND noteable_type = 'Issue'",
				 issue),
			 n);
	free(one);
	free(form);
	free(base);
	free(p.owner_tok);
}
END_TEST

/* The ids of a list response, joined by ',' (caller frees). */
static char *ids(resp *r)
{
	ck_assert_msg(r->json && json_object_is_type(r->json, json_type_array), "not a list: %s",
		      r->body);
	char *out = strdup("");
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		char *next = fmt("%s%s%lld", out, i ? "," : "",
				 jint(json_object_array_get_idx(r->json, i), "id"));
		free(out);
		out = next;
	}
	return out;
}

START_TEST(test_notes_order_and_pages)
{
	fx_project p;
	make_project(&p, "private");
	long long iid;
	fixture_issue(p.id, p.owner, "paged", false, &iid);
	char *parent = fmt("issues/%lld", iid);
	long long a = post_note(p.id, parent, p.owner_tok, "a");
	long long b = post_note(p.id, parent, p.owner_tok, "b");
	long long c = post_note(p.id, parent, p.owner_tok, "c");
	/* created a < b < c; updated c < a < b */
	free(sql_value("UPDATE notes SET created_at = '2017-01-01', updated_at = '2017-02-02'"
		       " WHERE id = %lld; UPDATE notes SET created_at = '2017-01-02',"
		       " updated_at = '2017-02-03' WHERE id = %lld; UPDATE notes SET"
		       " created_at = '2017-01-03', updated_at = '2017-02-01' WHERE id = %lld",
		       a, b, c));
	char *base = fmt("/projects/%lld/issues/%lld/notes", p.id, iid);
	struct {
		const char *query;
		char *want;
	} cases[] = {
		{"", fmt("%lld,%lld,%lld", c, b, a)},
		{"?sort=asc", fmt("%lld,%lld,%lld", a, b, c)},
		{"?order_by=updated_at", fmt("%lld,%lld,%lld", b, a, c)},
		{"?order_by=updated_at&sort=asc", fmt("%lld,%lld,%lld", c, a, b)},
		{"?per_page=2&page=2", fmt("%lld", a)},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path = fmt("%s%s", base, cases[i].query);
		resp *r = api("GET", path, p.owner_tok, NULL);
		ck_status(r, 200);
		char *got = ids(r);
		ck_assert_msg(strcmp(got, cases[i].want) == 0, "GET %s: [%s], want [%s]", path, got,
			      cases[i].want);
		free(got);
		resp_free(r);
		free(path);
		free(cases[i].want);
	}
	char *path = fmt("%s?sort=asc&per_page=2", base);
	resp *r = api("GET", path, p.owner_tok, NULL);
	ck_pages(r, base, "sort=asc", 3, 2, 1);
	resp_free(r);
	free(path);
	path = fmt("%s?per_page=2&page=3", base);
	r = api("GET", path, p.owner_tok, NULL);
	ck_pages(r, base, "", 3, 2, 3);
	ck_body(r, 200, "[]");
	resp_free(r);
	free(path);
	free(base);
	free(parent);
	free(p.owner_tok);
}
END_TEST

/* The notes of one issue among others of its project: only its own, each with its
 * iid and id, counted alone; ties on created_at broken by id, in pages. */
START_TEST(test_notes_issue_list_own)
{
	fx_project p;
	make_project(&p, "private");
	long long iid1, iid2;
	long long one = fixture_issue(p.id, p.owner, "first", false, &iid1);
	long long two = fixture_issue(p.id, p.owner, "second", false, &iid2);
	char *parent1 = fmt("issues/%lld", iid1), *parent2 = fmt("issues/%lld", iid2);
	post_note(p.id, parent1, p.owner_tok, "x");
	long long a = post_note(p.id, parent2, p.owner_tok, "a");
	post_note(p.id, parent1, p.owner_tok, "y");
	long long b = post_note(p.id, parent2, p.owner_tok, "b");
	long long c = post_note(p.id, parent2, p.owner_tok, "c");
	free(sql_value("UPDATE notes SET created_at = '2017-01-01' WHERE noteable_type = 'Issue'"
		       " AND noteable_id = %lld",
		       two));
	char *base = fmt("/projects/%lld/issues/%lld/notes", p.id, iid2);
	struct {
		const char *query;
		char *want;
		long long page, per_page;
	} cases[] = {
		{"", fmt("%lld,%lld,%lld", c, b, a), 1, 20},
		{"?sort=asc", fmt("%lld,%lld,%lld", a, b, c), 1, 20},
		{"?per_page=2", fmt("%lld,%lld", c, b), 1, 2},
		{"?per_page=2&page=2", fmt("%lld", a), 2, 2},
		{"?per_page=2&page=3", strdup(""), 3, 2},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path = fmt("%s%s", base, cases[i].query);
		resp *r = api("GET", path, p.owner_tok, NULL);
		ck_status(r, 200);
		char *got = ids(r);
		ck_assert_msg(strcmp(got, cases[i].want) == 0, "GET %s: [%s], want [%s]", path, got,
			      cases[i].want);
		for (size_t k = 0; k < json_object_array_length(r->json); k++) {
			json_object *n = json_object_array_get_idx(r->json, k);
			ck_assert_int_eq(jint(n, "noteable_iid"), iid2);
			ck_assert_int_eq(jint(n, "noteable_id"), two);
			ck_assert_str_eq(jstr(n, "noteable_type"), "Issue");
		}
		ck_pages(r, base, strcmp(cases[i].query, "?sort=asc") == 0 ? "sort=asc" : "", 3,
			 cases[i].per_page, cases[i].page);
		free(got);
		resp_free(r);
		free(path);
		free(cases[i].want);
	}
	/* the first issue's, the same way */
	char *path = fmt("/projects/%lld/issues/%lld/notes", p.id, iid1);
	resp *r = api("GET", path, p.owner_tok, NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "noteable_iid"), iid1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "noteable_id"), one);
	ck_pages(r, path, "", 2, 20, 1);
	resp_free(r);
	free(path);
	free(base);
	free(parent1);
	free(parent2);
	free(p.owner_tok);
}
END_TEST

/* Who reads and comments: by visibility and role. */
START_TEST(test_notes_access_visibility)
{
	static const char *const vis[] = {"private", "internal", "public"};
	for (int v = 0; v < 3; v++) {
		fx_project p;
		make_project(&p, vis[v]);
		long long iid;
		fixture_issue(p.id, p.owner, "seen", false, &iid);
		char *sfx = fmt("/issues/%lld/notes", iid);
		char *outsider = member(&p, 0, NULL);
		char *guest = member(&p, 10, NULL);
		char *admin = make_admin("nadm", NULL);
		long want = v == 0 ? 404 : 200;
		ck_assert_int_eq(call("GET", p.id, sfx, outsider, NULL), want);
		ck_assert_int_eq(call("POST", p.id, sfx, outsider, "body=hi"),
				 want == 200 ? 201 : 404);
		ck_assert_int_eq(call("GET", p.id, sfx, guest, NULL), 200);
		ck_assert_int_eq(call("POST", p.id, sfx, guest, "body=hi"), 201);
		ck_assert_int_eq(call("GET", p.id, sfx, admin, NULL), 200);
		ck_assert_int_eq(call("POST", p.id, sfx, admin, "body=hi"), 201);
		if (v == 0) {
			char *path = fmt("/projects/%lld%s", p.id, sfx);
			resp *r = api("GET", path, outsider, NULL);
			ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
			resp_free(r);
			free(path);
		}
		free(admin);
		free(guest);
		free(outsider);
		free(sfx);
		free(p.owner_tok);
	}
}
END_TEST

/* A confidential issue's notes: reporters and up, its author and assignees, admins. */
START_TEST(test_notes_access_confidential)
{
	fx_project p;
	make_project(&p, "public");
	long long author_id, assignee_id;
	char *author = member(&p, 0, &author_id);
	char *assignee = member(&p, 0, &assignee_id);
	long long iid;
	long long issue = fixture_issue(p.id, author_id, "secret", true, &iid);
	fixture_issue_assign(issue, assignee_id);
	char *sfx = fmt("/issues/%lld/notes", iid);
	char *parent = fmt("issues/%lld", iid);
	long long note = post_note(p.id, parent, p.owner_tok, "hush");
	free(parent);
	char *one = fmt("%s/%lld", sfx, note);
	char *outsider = member(&p, 0, NULL);
	char *guest = member(&p, 10, NULL);
	char *reporter = member(&p, 20, NULL);
	char *admin = make_admin("nadm", NULL);
	const char *readers[] = {author, assignee, reporter, admin, p.owner_tok};
	for (size_t i = 0; i < 5; i++) {
		ck_assert_int_eq(call("GET", p.id, sfx, readers[i], NULL), 200);
		ck_assert_int_eq(call("GET", p.id, one, readers[i], NULL), 200);
		ck_assert_int_eq(call("POST", p.id, sfx, readers[i], "body=ok"), 201);
	}
	const char *others[] = {outsider, guest};
	for (size_t i = 0; i < 2; i++) {
		char *path = fmt("/projects/%lld%s", p.id, sfx);
		resp *r = api("GET", path, others[i], NULL);
		ck_body(r, 404, "{\"message\":\"404 Not found\"}");
		resp_free(r);
		free(path);
		ck_assert_int_eq(call("GET", p.id, one, others[i], NULL), 404);
		ck_assert_int_eq(call("POST", p.id, sfx, others[i], "body=no"), 404);
		ck_assert_int_eq(call("PUT", p.id, one, others[i], "body=no"), 404);
		ck_assert_int_eq(call("DELETE", p.id, one, others[i], NULL), 404);
	}
	ck_assert_int_eq(user_notes_count(issue), 6);
	/* issues turned off: no issue to comment on */
	free(sql_value("UPDATE projects SET issues_enabled = false WHERE id = %lld", p.id));
	ck_assert_int_eq(call("GET", p.id, sfx, p.owner_tok, NULL), 404);
	ck_assert_int_eq(call("POST", p.id, sfx, p.owner_tok, "body=x"), 404);
	free(admin);
	free(reporter);
	free(guest);
	free(outsider);
	free(one);
	free(sfx);
	free(assignee);
	free(author);
	free(p.owner_tok);
}
END_TEST

/* The issue's updated_at is long past (make_stale), or within the last minute (touched). */
static void make_stale(long long issue)
{
	free(sql_value("UPDATE issues SET updated_at = '2017-01-01' WHERE id = %lld", issue));
}

static bool touched(long long issue)
{
	return sql_int("SELECT count(*) FROM issues WHERE id = %lld"
		       " AND updated_at > now() - interval '1 minute'",
		       issue) == 1;
}

/* Edits and deletions: the note's author, masters, the owner and admins; and a locked
 * discussion takes comments from members only. */
START_TEST(test_notes_access_change)
{
	fx_project p;
	make_project(&p, "public");
	long long iid;
	long long issue = fixture_issue(p.id, p.owner, "talk", false, &iid);
	char *parent = fmt("issues/%lld", iid);
	char *guest = member(&p, 10, NULL);
	char *reporter = member(&p, 20, NULL);
	char *dev = member(&p, 30, NULL);
	char *master = member(&p, 40, NULL);
	char *outsider = member(&p, 0, NULL);
	char *admin = make_admin("nadm", NULL);
	long long note = post_note(p.id, parent, guest, "mine");
	char *one = fmt("/issues/%lld/notes/%lld", iid, note);
	const char *denied[] = {reporter, dev, outsider};
	for (size_t i = 0; i < 3; i++) {
		char *path = fmt("/projects/%lld%s", p.id, one);
		resp *r = api("PUT", path, denied[i], "body=theirs");
		ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
		resp_free(r);
		r = api("DELETE", path, denied[i], NULL);
		ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
		resp_free(r);
		free(path);
	}
	const char *allowed[] = {guest, master, p.owner_tok, admin};
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(call("PUT", p.id, one, allowed[i], "body=edit"), 200);
	ck_assert_int_eq(call("DELETE", p.id, one, master, NULL), 204);
	for (size_t i = 0; i < 4; i++) {
		long long n = post_note(p.id, parent, guest, "again");
		char *path = fmt("/issues/%lld/notes/%lld", iid, n);
		ck_assert_int_eq(call("DELETE", p.id, path, allowed[i], NULL), 204);
		free(path);
	}
	ck_assert_int_eq(user_notes_count(issue), 0);

	/* locked: members (any level) and admins still comment, others may not; a refused
	 * comment leaves nothing (the note, its count, its event, the issue's updated_at) */
	fixture_issue_lock(issue, true);
	make_stale(issue);
	long long notes_before =
		sql_int("SELECT count(*) FROM notes WHERE noteable_id = %lld", issue);
	long long events_before =
		sql_int("SELECT count(*) FROM events WHERE project_id = %lld", p.id);
	char *sfx = fmt("/%s/notes", parent);
	char *path = fmt("/projects/%lld%s", p.id, sfx);
	resp *r = api("POST", path, outsider, "body=late");
	ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
	resp_free(r);
	free(path);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE noteable_id = %lld", issue),
			 notes_before);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM events WHERE project_id = %lld", p.id),
			 events_before);
	ck_assert_int_eq(user_notes_count(issue), 0);
	ck_assert(!touched(issue));
	ck_assert_int_eq(call("GET", p.id, sfx, outsider, NULL), 200);
	ck_assert_int_eq(call("POST", p.id, sfx, guest, "body=in"), 201);
	ck_assert_int_eq(call("POST", p.id, sfx, admin, "body=in"), 201);
	fixture_issue_lock(issue, false);
	ck_assert_int_eq(call("POST", p.id, sfx, outsider, "body=open"), 201);
	free(sfx);
	free(one);
	free(admin);
	free(outsider);
	free(master);
	free(dev);
	free(reporter);
	free(guest);
	free(parent);
	free(p.owner_tok);
}
END_TEST

/* The issue follows its comments (GitLab's touch: true): a new comment, an edit and a
 * deletion each move its updated_at to now, and its user_notes_count counts the new
 * comment once (sql/0023: one update of the issue by the counting trigger). A system
 * note does not count. */
START_TEST(test_notes_touch_issue)
{
	fx_project p;
	make_project(&p, "private");
	long long iid;
	long long issue = fixture_issue(p.id, p.owner, "touched", false, &iid);
	char *base = fmt("/projects/%lld/issues/%lld/notes", p.id, iid);
	make_stale(issue);
	resp *r = api("POST", base, p.owner_tok, "body=first");
	ck_status(r, 201);
	char *one = fmt("%s/%lld", base, jint(r->json, "id"));
	resp_free(r);
	ck_assert(touched(issue));
	ck_assert_int_eq(user_notes_count(issue), 1);
	/* a comment dated by the project's owner still touches the issue now */
	make_stale(issue);
	r = api("POST", base, p.owner_tok, "body=dated&created_at=2016-03-11T03:45:40Z");
	ck_status(r, 201);
	resp_free(r);
	ck_assert(touched(issue));
	ck_assert_int_eq(user_notes_count(issue), 2);
	make_stale(issue);
	r = api("PUT", one, p.owner_tok, "body=edited");
	ck_status(r, 200);
	resp_free(r);
	ck_assert(touched(issue));
	ck_assert_int_eq(user_notes_count(issue), 2);
	make_stale(issue);
	r = api("DELETE", one, p.owner_tok, NULL);
	ck_status(r, 204);
	resp_free(r);
	ck_assert(touched(issue));
	ck_assert_int_eq(user_notes_count(issue), 1);
	/* a system note is no comment: neither counted nor touching */
	make_stale(issue);
	free(sql_value(
		"INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, note,"
		" system) VALUES (%lld, 'Issue', %lld, NULL, 'changed the description', true)",
		p.id, issue));
	ck_assert(!touched(issue));
	ck_assert_int_eq(user_notes_count(issue), 1);
	free(one);
	free(base);
	free(p.owner_tok);
}
END_TEST

/* created_at is taken from admins and the project's owner only. */
START_TEST(test_notes_created_at)
{
	fx_project p;
	make_project(&p, "public");
	long long iid;
	fixture_issue(p.id, p.owner, "dated", false, &iid);
	char *base = fmt("/projects/%lld/issues/%lld/notes", p.id, iid);
	char *admin = make_admin("nadm", NULL);
	char *master = member(&p, 40, NULL);
	const char *form = "body=old&created_at=2016-03-11T03:45:40Z";
	resp *r = api("POST", base, admin, form);
	ck_status(r, 201);
	ck_jstr(r, "created_at", "2016-03-11T03:45:40.000Z");
	ck_assert(strcmp(jstr(r->json, "updated_at"), "2016-03-11T03:45:40.000Z") != 0);
	resp_free(r);
	r = api("POST", base, p.owner_tok, form);
	ck_status(r, 201);
	ck_jstr(r, "created_at", "2016-03-11T03:45:40.000Z");
	resp_free(r);
	r = api("POST", base, master, form);
	ck_status(r, 201);
	ck_assert(strncmp(jstr(r->json, "created_at"), "2016", 4) != 0);
	resp_free(r);
	free(master);
	free(admin);
	free(base);
	free(p.owner_tok);
}
END_TEST

static const char *const award_fields[] = {
	"id", "name", "user", "created_at", "updated_at", "awardable_id", "awardable_type", NULL};

/* A note that is only an emoji awards it (when the caller may award it). */
START_TEST(test_notes_emoji_award)
{
	fx_project p;
	make_project(&p, "public");
	long long iid;
	long long issue = fixture_issue(p.id, p.owner, "vote", false, &iid);
	char *base = fmt("/projects/%lld/issues/%lld/notes", p.id, iid);
	long long dev_id;
	char *dev = member(&p, 30, &dev_id);
	char *other = member(&p, 0, NULL);

	resp *r = api("POST", base, dev, "body=:thumbsup:");
	ck_status(r, 201);
	ck_fields(r->json, award_fields);
	ck_jstr(r, "name", "thumbsup");
	ck_jstr(r, "awardable_type", "Issue");
	ck_assert_int_eq(jint(r->json, "awardable_id"), issue);
	ck_assert_int_eq(jint(jget(r->json, "user"), "id"), dev_id);
	resp_free(r);
	r = api("POST", base, dev, "body=:thumbsup:");
	ck_body(r, 404,
		"{\"message\":\"404 Note {:name=>[\\\"has already been taken\\\"]} Not"
		" Found\"}");
	resp_free(r);
	/* an alias, with a final newline */
	r = api("POST", base, other, "body=:%2B1:%0A");
	ck_status(r, 201);
	ck_jstr(r, "name", "thumbsup");
	resp_free(r);
	ck_assert_int_eq(sql_int("SELECT upvotes FROM issues WHERE id = %lld", issue), 2);
	ck_assert_int_eq(user_notes_count(issue), 0);
	/* no vote on one's own issue: a note; nor is anything else an award */
	const char *notes[] = {":thumbsup:", ":nosuchemoji:", "well+:smile:", ":smile:+:smile:"};
	for (size_t i = 0; i < 4; i++) {
		char *form = fmt("body=%s", notes[i]);
		r = api("POST", base, i == 0 ? p.owner_tok : dev, form);
		ck_status(r, 201);
		ck_fields(r->json, note_fields);
		resp_free(r);
		free(form);
	}
	ck_assert_int_eq(user_notes_count(issue), 4);
	/* the author may award other emoji */
	r = api("POST", base, p.owner_tok, "body=:smile:");
	ck_status(r, 201);
	ck_fields(r->json, award_fields);
	ck_jstr(r, "name", "smile");
	resp_free(r);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM award_emoji WHERE awardable_type = 'Issue'"
				 " AND awardable_id = %lld",
				 issue),
			 3);
	free(other);
	free(dev);
	free(base);
	free(p.owner_tok);
}
END_TEST

/* Notes on project snippets: read by the snippet's visibility. */
START_TEST(test_notes_snippets)
{
	fx_project p;
	make_project(&p, "public");
	long long outsider_id;
	char *outsider = member(&p, 0, &outsider_id);
	char *guest = member(&p, 10, NULL);
	long long pub = fixture_snippet(p.id, p.owner, 20);
	long long internal = fixture_snippet(p.id, p.owner, 10);
	long long priv = fixture_snippet(p.id, p.owner, 0);

	char *parent = fmt("snippets/%lld", pub);
	char *base = fmt("/projects/%lld/%s/notes", p.id, parent);
	resp *r = api("POST", base, outsider, "body=nice");
	ck_status(r, 201);
	ck_fields(r->json, note_fields);
	ck_jstr(r, "noteable_type", "Snippet");
	ck_assert_int_eq(jint(r->json, "noteable_id"), pub);
	ck_assert(jnull(r->json, "noteable_iid"));
	long long note = jint(r->json, "id");
	resp_free(r);
	r = api("GET", base, guest, NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	resp_free(r);
	char *one = fmt("%s/%lld", base, note);
	r = api("PUT", one, outsider, "body=nicer");
	ck_status(r, 200);
	ck_jstr(r, "body", "nicer");
	resp_free(r);
	r = api("PUT", one, guest, "body=mine");
	ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
	resp_free(r);
	/* the event of a snippet comment: no iid */
	char *events = fmt("/users/%lld/events", outsider_id);
	r = api("GET", events, outsider, NULL);
	ck_status(r, 200);
	json_object *e = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(e, "action_name"), "commented on");
	ck_assert(jnull(e, "target_iid"));
	ck_assert_str_eq(jstr(jget(e, "note"), "noteable_type"), "Snippet");
	resp_free(r);
	free(events);

	char *isfx = fmt("/snippets/%lld/notes", internal);
	char *psfx = fmt("/snippets/%lld/notes", priv);
	ck_assert_int_eq(call("GET", p.id, isfx, outsider, NULL), 200);
	ck_assert_int_eq(call("POST", p.id, isfx, outsider, "body=x"), 201);
	char *path = fmt("/projects/%lld%s", p.id, psfx);
	r = api("GET", path, outsider, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	free(path);
	ck_assert_int_eq(call("POST", p.id, psfx, outsider, "body=x"), 404);
	ck_assert_int_eq(call("GET", p.id, psfx, guest, NULL), 200);
	ck_assert_int_eq(call("POST", p.id, psfx, guest, "body=x"), 201);
	/* a snippet of another project, and one that does not exist */
	fx_project q;
	make_project(&q, "public");
	long long elsewhere = fixture_snippet(q.id, q.owner, 20);
	char *sfx = fmt("/snippets/%lld/notes", elsewhere);
	ck_assert_int_eq(call("GET", p.id, sfx, p.owner_tok, NULL), 404);
	ck_assert_int_eq(call("GET", q.id, sfx, p.owner_tok, NULL), 200);
	free(sfx);
	ck_assert_int_eq(call("GET", p.id, "/snippets/99999999/notes", p.owner_tok, NULL), 404);
	/* snippets turned off */
	free(sql_value("UPDATE projects SET snippets_enabled = false WHERE id = %lld", p.id));
	ck_assert_int_eq(call("GET", p.id, psfx, p.owner_tok, NULL), 404);
	char *onesfx = fmt("/%s/notes/%lld", parent, note);
	ck_assert_int_eq(call("DELETE", p.id, onesfx, outsider, NULL), 404);
	free(onesfx);
	free(q.owner_tok);
	free(psfx);
	free(isfx);
	free(one);
	free(base);
	free(parent);
	free(guest);
	free(outsider);
	free(p.owner_tok);
}
END_TEST

/* The number of events of project p that tok sees (GET /projects/:id/events), with
 * X-Total agreeing. */
static long long events_seen(long long p, const char *tok)
{
	char *path = fmt("/projects/%lld/events", p);
	resp *r = api("GET", path, tok, NULL);
	ck_status(r, 200);
	long long n = (long long)json_object_array_length(r->json);
	char *total = fmt("%lld", n);
	ck_header(r, "X-Total", total);
	free(total);
	resp_free(r);
	free(path);
	return n;
}

/* The events of notes on a confidential issue or a private snippet, and of the issue
 * itself, are for those who may read it; a note's event goes with its issue. */
START_TEST(test_notes_events_visibility)
{
	fx_project p;
	make_project(&p, "public");
	long long iid;
	long long issue = fixture_issue(p.id, p.owner, "secret", true, &iid);
	long long snippet = fixture_snippet(p.id, p.owner, 0);
	long long author_id;
	char *author = member(&p, 0, &author_id);
	char *outsider = member(&p, 0, NULL);
	char *guest = member(&p, 10, NULL);
	char *reporter = member(&p, 20, NULL);
	fixture_issue_assign(issue, author_id);
	/* the project's creation, then an issue event (as the issues module records them)
	 * and two comments */
	free(sql_value("INSERT INTO events (project_id, author_id, action, action_name,"
		       " target_type, target_id, target_iid, target_title) VALUES (%lld, %lld,"
		       " 'created', 'opened', 'Issue', %lld, %lld, 'secret')",
		       p.id, p.owner, issue, iid));
	char *parent = fmt("issues/%lld", iid);
	post_note(p.id, parent, author, "hidden");
	free(parent);
	parent = fmt("snippets/%lld", snippet);
	post_note(p.id, parent, reporter, "private");
	free(parent);
	ck_assert_int_eq(events_seen(p.id, p.owner_tok), 4);
	ck_assert_int_eq(events_seen(p.id, reporter), 4);
	ck_assert_int_eq(events_seen(p.id, guest), 2);  /* the snippet's note */
	ck_assert_int_eq(events_seen(p.id, author), 3); /* the issue's */
	ck_assert_int_eq(events_seen(p.id, outsider), 1);
	/* nor through the author's list */
	char *path = fmt("/users/%lld/events", author_id);
	resp *r = api("GET", path, outsider, NULL);
	ck_body(r, 200, "[]");
	resp_free(r);
	r = api("GET", path, reporter, NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	resp_free(r);
	free(path);
	/* once public, the snippet's comment is seen by all */
	free(sql_value("UPDATE snippets SET visibility = 20 WHERE id = %lld", snippet));
	ck_assert_int_eq(events_seen(p.id, outsider), 2);
	/* the issue goes, its notes with it, and their events */
	free(sql_value("DELETE FROM issues WHERE id = %lld", issue));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM events WHERE project_id = %lld"
				 " AND target_type = 'Note'",
				 p.id),
			 1);
	free(reporter);
	free(guest);
	free(outsider);
	free(author);
	free(p.owner_tok);
}
END_TEST

/* A merge request that does not exist: the routes check parameters, then 404. */
START_TEST(test_notes_merge_requests)
{
	fx_project p;
	make_project(&p, "public");
	const char *mr = "{\"message\":\"404 Not found\"}";
	char *base = fmt("/projects/%lld/merge_requests/1/notes", p.id);
	char *one = fmt("%s/1", base);
	resp *r = api("GET", base, p.owner_tok, NULL);
	ck_body(r, 404, mr);
	resp_free(r);
	r = api("GET", one, p.owner_tok, NULL);
	ck_body(r, 404, mr);
	resp_free(r);
	r = api("POST", base, p.owner_tok, "body=x");
	ck_body(r, 404, mr);
	resp_free(r);
	r = api("PUT", one, p.owner_tok, "body=x");
	ck_body(r, 404, mr);
	resp_free(r);
	r = api("DELETE", one, p.owner_tok, NULL);
	ck_body(r, 404, mr);
	resp_free(r);
	r = api("POST", base, p.owner_tok, NULL);
	ck_body(r, 400, "{\"message\":\"400 (Bad request) \\\"body\\\" not given\"}");
	resp_free(r);
	char *path = fmt("/projects/%lld/merge_requests/x/notes", p.id);
	r = api("GET", path, p.owner_tok, NULL);
	ck_body(r, 400, "{\"error\":\"merge_request_iid is invalid\"}");
	resp_free(r);
	free(path);
	r = api("GET", base, NULL, NULL);
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	free(one);
	free(base);
	free(p.owner_tok);
}
END_TEST

/* An issue's list goes with the statement that finds the caller and the project
 * (prefetch): its answers are those of the same list asked for through the project's
 * path, which sends nothing ahead (ck_same_answer: body, status, pagination headers),
 * and they are right: a confidential issue for its assignee who is a guest, not for
 * another guest, in every order, in pages, and past the end. */
START_TEST(test_notes_issue_list_prefetch)
{
	fx_project p;
	char *full_path;
	p.owner_tok = S(make_user("nown", &p.owner, NULL));
	p.id = api_project(p.owner_tok, "private", &full_path);
	char *by_path = S(enc(S(full_path)));
	long long assignee_id, author_id, reporter_id;
	char *assignee = S(member(&p, 10, &assignee_id));
	char *author = S(member(&p, 10, &author_id));
	char *reporter = S(member(&p, 20, &reporter_id));
	char *guest = S(member(&p, 10, NULL));
	char *outsider = S(member(&p, 0, NULL));
	long long iid, open_iid;
	long long issue = fixture_issue(p.id, author_id, "secret", true, &iid);
	fixture_issue(p.id, p.owner, "open", false, &open_iid);
	/* another assignee first: the guest is the second of two */
	fixture_issue_assign(issue, reporter_id);
	fixture_issue_assign(issue, assignee_id);
	char *parent = S(fmt("issues/%lld", iid));
	long long a = post_note(p.id, parent, p.owner_tok, "a");
	long long b = post_note(p.id, parent, p.owner_tok, "b");
	long long c = post_note(p.id, parent, p.owner_tok, "c");
	long long d = post_note(p.id, parent, p.owner_tok, "d");
	long long e = post_note(p.id, parent, p.owner_tok, "e");
	/* created a < b = c < d < e, updated e < d < b = c < a (ties broken by id) */
	free(sql_value(
		"UPDATE notes SET created_at = CASE id WHEN %lld THEN '2017-01-01'"
		" WHEN %lld THEN '2017-01-02' WHEN %lld THEN '2017-01-02'"
		" WHEN %lld THEN '2017-01-03' ELSE '2017-01-04' END::timestamptz,"
		" updated_at = CASE id WHEN %lld THEN '2017-02-05' WHEN %lld THEN '2017-02-04'"
		" WHEN %lld THEN '2017-02-04' WHEN %lld THEN '2017-02-02'"
		" ELSE '2017-02-01' END::timestamptz WHERE noteable_type = 'Issue'"
		" AND noteable_id = %lld",
		a, b, c, d, a, b, c, d, issue));
	char *list = S(fmt("/projects/%lld/issues/%lld/notes", p.id, iid));
	char *general = S(fmt("/projects/%s/issues/%lld/notes", by_path, iid));
	struct {
		const char *query;
		long long want[5];
	} orders[] = {
		{"", {e, d, c, b, a}},
		{"sort=asc", {a, b, c, d, e}},
		{"order_by=updated_at", {a, c, b, d, e}},
		{"order_by=updated_at&sort=asc", {e, d, b, c, a}},
		{"order_by=created_at&sort=desc", {e, d, c, b, a}},
	};
	const char *readers[] = {assignee, author, reporter, p.owner_tok};
	for (size_t o = 0; o < sizeof(orders) / sizeof(*orders); o++) {
		const char *q = orders[o].query;
		char *pa = S(fmt("%s%s%s", list, *q ? "?" : "", q));
		char *pb = S(fmt("%s%s%s", general, *q ? "?" : "", q));
		for (size_t k = 0; k < sizeof(readers) / sizeof(*readers); k++)
			ck_same_list(pa, pb, readers[k], "");
		/* the assignee, in pages of 2: the third has one note, the fourth none */
		for (int page = 1; page <= 4; page++) {
			const char *pg = S(fmt("per_page=2&page=%d", page));
			ck_same_list(pa, pb, assignee, pg);
			ck_same_list(pa, pb, guest, pg);
			resp *r = R(api("GET", S(fmt("%s%s%s", pa, *q ? "&" : "?", pg)), assignee,
					NULL));
			char *want = S(strdup(""));
			for (int i = 2 * (page - 1); i < 2 * page && i < 5; i++)
				want = S(
					fmt("%s%s%lld", want, *want ? "," : "", orders[o].want[i]));
			char *got = S(ids(r));
			ck_assert_msg(strcmp(got, want) == 0, "GET %s&%s: [%s], want [%s]", pa, pg,
				      got, want);
			ck_pages(r, list, q, 5, 2, page);
		}
		/* another guest: the issue is not there for them, on either path */
		ck_body(R(api("GET", pa, guest, NULL)), 404, "{\"message\":\"404 Not found\"}");
		ck_same_list(pa, pb, guest, "per_page=9&page=9");
		ck_same_list(pa, pb, outsider, "");
	}
	ck_body(R(api("GET", list, outsider, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	/* the issue that is not confidential is the guest's; one that does not exist nobody's */
	char *shown = S(fmt("/projects/%lld/issues/%lld/notes", p.id, open_iid));
	char *shown_general = S(fmt("/projects/%s/issues/%lld/notes", by_path, open_iid));
	ck_body(R(api("GET", shown, guest, NULL)), 200, "[]");
	ck_same_list(shown, shown_general, guest, "per_page=1");
	char *none = S(fmt("/projects/%lld/issues/99999/notes", p.id));
	ck_body(R(api("GET", none, p.owner_tok, NULL)), 404, "{\"message\":\"404 Not found\"}");
	ck_same_list(none, S(fmt("/projects/%s/issues/99999/notes", by_path)), p.owner_tok, "");
	/* an assignee no more: no more a reader */
	free(sql_value("DELETE FROM issue_assignees WHERE issue_id = %lld AND user_id = %lld",
		       issue, assignee_id));
	ck_body(R(api("GET", list, assignee, NULL)), 404, "{\"message\":\"404 Not found\"}");
	ck_same_list(list, general, assignee, "sort=asc");
	ck_same_list(list, general, reporter, "sort=asc");
	/* issues off: nobody's */
	free(sql_value("UPDATE projects SET issues_enabled = false WHERE id = %lld", p.id));
	ck_body(R(api("GET", list, p.owner_tok, NULL)), 404, "{\"message\":\"404 Not found\"}");
	ck_same_list(list, general, p.owner_tok, "");
}
END_TEST

Suite *suite_notes(void)
{
	Suite *s = suite_create("notes");
	TCase *tc = tcase_create("notes");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_notes_require_auth);
	tcase_add_test(tc, test_notes_issue_life);
	tcase_add_test(tc, test_notes_errors);
	tcase_add_test(tc, test_notes_body_limit);
	tcase_add_test(tc, test_notes_order_and_pages);
	tcase_add_test(tc, test_notes_issue_list_own);
	tcase_add_test(tc, test_notes_created_at);
	tcase_add_test(tc, test_notes_touch_issue);
	tcase_add_test(tc, test_notes_emoji_award);
	tcase_add_test(tc, test_notes_snippets);
	tcase_add_test(tc, test_notes_merge_requests);
	suite_add_tcase(s, tc);
	tc = tcase_create("access");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_notes_access_visibility);
	tcase_add_test(tc, test_notes_access_confidential);
	tcase_add_test(tc, test_notes_access_change);
	tcase_add_test(tc, test_notes_events_visibility);
	suite_add_tcase(s, tc);
	tc = tcase_create("prefetch");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_notes_issue_list_prefetch);
	suite_add_tcase(s, tc);
	return s;
}
