/* API suite: discussions (GitLab 10.8's lib/api/discussions.rb) of issues, project
 * snippets and merge requests: the shapes, a discussion through its life, the notes it
 * shares with the notes API, pagination by discussion, the readers of the noteable
 * (confidential issues, snippets' visibility), locked discussions, who edits and
 * deletes, and the resolution of a merge request's discussions. */
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const discussion_fields[] = {"id", "individual_note", "notes", NULL};
/* a note of an issue's or a snippet's discussion: not resolvable, so neither resolved
 * nor resolved_by (10.8's Entities::Note) */
static const char *const note_fields[] = {
	"id",         "type",         "body",   "attachment",  "author",
	"created_at", "updated_at",   "system", "noteable_id", "noteable_type",
	"resolvable", "noteable_iid", NULL,
};
static const char *const mr_note_fields[] = {
	"id",         "type",       "body",        "attachment",   "author",
	"created_at", "updated_at", "system",      "noteable_id",  "noteable_type",
	"resolvable", "resolved",   "resolved_by", "noteable_iid", NULL,
};
static const char *const notes_api_fields[] = {
	"id",     "body",        "attachment",    "author",       "created_at", "updated_at",
	"system", "noteable_id", "noteable_type", "noteable_iid", NULL,
};

typedef struct {
	long long id;
	char *owner_tok;
	long long owner;
} fx_project;

static void make_project(fx_project *p, const char *visibility)
{
	p->owner_tok = S(make_user("down", &p->owner, NULL));
	p->id = api_project(p->owner_tok, visibility, NULL);
}

/* A new user who is a member of project p at level (0: no member). */
static char *member(const fx_project *p, int level, long long *id)
{
	long long uid;
	char *tok = S(make_user("dmem", &uid, NULL));
	if (level)
		fixture_member("Project", p->id, uid, level);
	if (id)
		*id = uid;
	return tok;
}

static json_object *nth(json_object *a, size_t i)
{
	return json_object_array_get_idx(a, i);
}

static size_t len(json_object *a)
{
	return json_object_array_length(a);
}

/* A merge request of p by author: its iid. */
static long long fixture_mr(const fx_project *p, long long author)
{
	return sql_int("INSERT INTO merge_requests (target_project_id, iid, source_project_id,"
		       " source_branch, target_branch, title, state, merge_status, author_id)"
		       " VALUES (%lld, next_iid('merge_requests', 'Project', %lld), %lld, 'f',"
		       " 'master', 'm', 'opened', 'can_be_merged', %lld) RETURNING iid",
		       p->id, p->id, p->id, author);
}

/* POST base with body as tok: the new discussion's id (asserts 201). */
static char *start(const char *base, const char *tok, const char *body)
{
	resp *r = R(api("POST", base, tok, S(fmt("body=%s", body))));
	ck_status(r, 201);
	return S(strdup(jstr(r->json, "id")));
}

START_TEST(test_discussions_require_auth)
{
	fx_project p;
	make_project(&p, "public");
	long long iid;
	fixture_issue(p.id, p.owner, "open", false, &iid);
	char *base = S(fmt("/projects/%lld/issues/%lld/discussions", p.id, iid));
	const char *unauth = "{\"message\":\"401 Unauthorized\"}";
	ck_body(R(api("GET", base, NULL, NULL)), 401, unauth);
	ck_body(R(api("POST", base, NULL, "body=hi")), 401, unauth);
	ck_body(R(api("GET", S(fmt("%s/abc", base)), NULL, NULL)), 401, unauth);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE project_id = %lld", p.id), 0);
}
END_TEST

/* A discussion of an issue through its life: started, answered, listed with the issue's
 * individual notes, shown, a note shown, edited, deleted; the notes API shows the same
 * notes. */
START_TEST(test_discussions_issue_life)
{
	fx_project p;
	make_project(&p, "private");
	long long dev_id;
	char *dev = member(&p, 30, &dev_id);
	char *dev2 = member(&p, 30, NULL);
	long long iid;
	long long issue = fixture_issue(p.id, p.owner, "first", false, &iid);
	char *base = S(fmt("/projects/%lld/issues/%lld/discussions", p.id, iid));

	/* an individual note first, through the notes API */
	resp *r = R(api("POST", S(fmt("/projects/%lld/issues/%lld/notes", p.id, iid)), p.owner_tok,
			"body=plain"));
	ck_status(r, 201);
	long long plain = jint(r->json, "id");

	r = R(api("POST", base, dev, "body=Hello+%C3%A9"));
	ck_status(r, 201);
	ck_fields(r->json, discussion_fields);
	const char *did = S(strdup(jstr(r->json, "id")));
	ck_assert_int_eq(strlen(did), 40);
	ck_assert_int_eq(strspn(did, "0123456789abcdef"), 40);
	ck_assert(!jbool(r->json, "individual_note"));
	json_object *notes = jget(r->json, "notes");
	ck_assert_int_eq(len(notes), 1);
	json_object *n = nth(notes, 0);
	ck_fields(n, note_fields);
	long long first = jint(n, "id");
	ck_assert_str_eq(jstr(n, "type"), "DiscussionNote");
	ck_assert_str_eq(jstr(n, "body"), "Hello \xc3\xa9");
	ck_assert_int_eq(jint(jget(n, "author"), "id"), dev_id);
	ck_assert(!jbool(n, "resolvable"));
	ck_assert(!jbool(n, "system"));
	ck_assert_int_eq(jint(n, "noteable_id"), issue);
	ck_assert_str_eq(jstr(n, "noteable_type"), "Issue");
	ck_assert_int_eq(jint(n, "noteable_iid"), iid);
	/* the "commented on" event of a comment, as the notes API's */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM events WHERE target_type = 'Note'"
				 " AND target_id = %lld AND action = 'commented'",
				 first),
			 1);

	/* a reply */
	char *one = S(fmt("%s/%s", base, did));
	r = R(api("POST", S(fmt("%s/notes", one)), dev2, "body=reply"));
	ck_status(r, 201);
	ck_fields(r->json, note_fields);
	ck_jstr(r, "type", "DiscussionNote");
	ck_jstr(r, "body", "reply");
	long long second = jint(r->json, "id");
	ck_assert_int_eq(sql_int("SELECT user_notes_count FROM issues WHERE id = %lld", issue), 3);

	/* the list: the individual note's discussion, then this one, oldest first */
	r = R(api("GET", base, dev, NULL));
	ck_status(r, 200);
	ck_pages(r, base, "", 2, 20, 1);
	ck_assert_int_eq(len(r->json), 2);
	json_object *d0 = nth(r->json, 0), *d1 = nth(r->json, 1);
	ck_fields(d0, discussion_fields);
	ck_assert(jbool(d0, "individual_note"));
	ck_assert_int_eq(len(jget(d0, "notes")), 1);
	ck_assert_int_eq(jint(nth(jget(d0, "notes"), 0), "id"), plain);
	ck_assert(jnull(nth(jget(d0, "notes"), 0), "type"));
	ck_assert_str_eq(jstr(d1, "id"), did);
	ck_assert_int_eq(len(jget(d1, "notes")), 2);
	ck_assert_int_eq(jint(nth(jget(d1, "notes"), 0), "id"), first);
	ck_assert_int_eq(jint(nth(jget(d1, "notes"), 1), "id"), second);

	/* the notes API shows the discussion's notes, in its own shape */
	r = R(api("GET", S(fmt("/projects/%lld/issues/%lld/notes/%lld", p.id, iid, second)), dev,
		  NULL));
	ck_status(r, 200);
	ck_fields(r->json, notes_api_fields);
	ck_jstr(r, "body", "reply");

	/* one discussion, one note of it */
	r = R(api("GET", one, dev2, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(jstr(r->json, "id"), did);
	ck_assert_int_eq(len(jget(r->json, "notes")), 2);
	char *note2 = S(fmt("%s/notes/%lld", one, second));
	r = R(api("GET", note2, dev, NULL));
	ck_status(r, 200);
	ck_fields(r->json, note_fields);
	ck_assert_int_eq(jint(r->json, "id"), second);

	/* edits: the author, a master; not another developer */
	ck_body(R(api("PUT", note2, dev, "body=nope")), 403, "{\"message\":\"403 Forbidden\"}");
	r = R(api("PUT", note2, dev2, "body=edited"));
	ck_status(r, 200);
	ck_fields(r->json, note_fields);
	ck_jstr(r, "body", "edited");
	ck_jstr(r, "type", "DiscussionNote");
	ck_code(R(api("PUT", note2, p.owner_tok, "body=by+master")), 200);
	char *body = sql_value("SELECT note FROM notes WHERE id = %lld", second);
	ck_assert_str_eq(body, "by master");
	free(body);
	/* the event follows the edit */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM events WHERE target_type = 'Note'"
				 " AND target_id = %lld AND data->'note'->>'body' = 'by master'",
				 second),
			 1);

	/* deletion: not another developer; the author */
	ck_body(R(api("DELETE", note2, dev, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("DELETE", note2, dev2, NULL)), 204);
	ck_body(R(api("GET", note2, dev, NULL)), 404, "{\"message\":\"404 Not found\"}");
	r = R(api("GET", one, dev, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(len(jget(r->json, "notes")), 1);
	/* its last note gone, the discussion is gone */
	ck_code(R(api("DELETE", S(fmt("%s/notes/%lld", one, first)), p.owner_tok, NULL)), 204);
	ck_body(R(api("GET", one, dev, NULL)), 404, "{\"message\":\"404 Discussion Not Found\"}");
	ck_assert_int_eq(sql_int("SELECT user_notes_count FROM issues WHERE id = %lld", issue), 1);
}
END_TEST

/* Bad input: a clear 400 or 404, nothing added or changed. */
START_TEST(test_discussions_errors)
{
	fx_project p;
	make_project(&p, "public");
	long long iid;
	fixture_issue(p.id, p.owner, "e", false, &iid);
	char *base = S(fmt("/projects/%lld/issues/%lld/discussions", p.id, iid));
	char *did = start(base, p.owner_tok, "x");
	long long note = sql_int("SELECT id FROM notes WHERE discussion_id = '%s'", did);
	char *one = S(fmt("%s/%s", base, did));
	char *note_path = S(fmt("%s/notes/%lld", one, note));

	ck_body(R(api("POST", base, p.owner_tok, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"body\\\" not given\"}");
	ck_body(R(api("POST", base, p.owner_tok, "body=+++")), 400,
		"{\"message\":\"400 (Bad request) Note {:note=>[\\\"can't be blank\\\"]}\"}");
	ck_body(R(api("POST", S(fmt("%s/notes", one)), p.owner_tok, "body=%0A")), 400,
		"{\"message\":\"400 (Bad request) Note {:note=>[\\\"can't be blank\\\"]}\"}");
	ck_body(R(api("PUT", note_path, p.owner_tok, NULL)), 400,
		"{\"error\":\"body, resolved are missing, exactly one parameter must be provided\"}");
	ck_body(R(api("PUT", note_path, p.owner_tok, "body=a&resolved=true")), 400,
		"{\"error\":\"body, resolved are mutually exclusive\"}");
	ck_body(R(api("PUT", note_path, p.owner_tok, "resolved=maybe")), 400,
		"{\"error\":\"resolved is invalid\"}");
	ck_body(R(api("PUT", note_path, p.owner_tok, "body=+")), 400,
		"{\"message\":\"Failed to save note {:note=>[\\\"can't be blank\\\"]}\"}");
	/* an issue's note is not resolvable */
	ck_body(R(api("PUT", note_path, p.owner_tok, "resolved=true")), 400,
		"{\"message\":\"400 (Bad request) Note is not resolvable\"}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE project_id = %lld"
				 " AND (note <> 'x' OR resolved_at IS NOT NULL)",
				 p.id),
			 0);

	/* no such discussion, note, issue; ids that are no integers */
	const char *nodisc = "{\"message\":\"404 Discussion Not Found\"}";
	ck_body(R(api("GET", S(fmt("%s/deadbeef", base)), p.owner_tok, NULL)), 404, nodisc);
	ck_body(R(api("POST", S(fmt("%s/deadbeef/notes", base)), p.owner_tok, "body=a")), 404,
		nodisc);
	ck_body(R(api("GET", S(fmt("%s/notes/99999999", one)), p.owner_tok, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", S(fmt("/projects/%lld/issues/99999/discussions", p.id)), p.owner_tok,
		      NULL)),
		404, "{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", S(fmt("/projects/%lld/issues/x/discussions", p.id)), p.owner_tok,
		      NULL)),
		400, "{\"error\":\"issue_iid is invalid\"}");
	ck_body(R(api("PUT", S(fmt("%s/notes/x", one)), p.owner_tok, "body=a")), 400,
		"{\"error\":\"note_id is invalid\"}");
	ck_body(R(api("GET", S(fmt("/projects/99999999/issues/%lld/discussions", iid)), p.owner_tok,
		      NULL)),
		404, "{\"message\":\"404 Project Not Found\"}");

	/* an individual note (the notes API's) takes no reply */
	resp *r = R(api("POST", S(fmt("/projects/%lld/issues/%lld/notes", p.id, iid)), p.owner_tok,
			"body=plain"));
	ck_status(r, 201);
	char *plain =
		sql_value("SELECT discussion_id FROM notes WHERE id = %lld", jint(r->json, "id"));
	ck_body(R(api("POST", S(fmt("%s/%s/notes", base, plain)), p.owner_tok, "body=a")), 400,
		"{\"message\":\"400 (Bad request) Discussion is an individual note.\"}");
	r = R(api("GET", S(fmt("%s/%s", base, plain)), p.owner_tok, NULL));
	ck_status(r, 200);
	ck_assert(jbool(r->json, "individual_note"));
	free(plain);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE project_id = %lld", p.id), 2);
	/* the issue's discussions do not resolve (merge requests' only) */
	ck_code(R(api("PUT", one, p.owner_tok, "resolved=true")), 404);
}
END_TEST

/* Pages of discussions, not of notes. */
START_TEST(test_discussions_pages)
{
	fx_project p;
	make_project(&p, "public");
	long long iid;
	fixture_issue(p.id, p.owner, "p", false, &iid);
	char *base = S(fmt("/projects/%lld/issues/%lld/discussions", p.id, iid));
	char *a = start(base, p.owner_tok, "a");
	ck_code(R(api("POST", S(fmt("%s/%s/notes", base, a)), p.owner_tok, "body=a2")), 201);
	ck_code(R(api("POST", S(fmt("%s/%s/notes", base, a)), p.owner_tok, "body=a3")), 201);
	char *b = start(base, p.owner_tok, "b");
	char *c = start(base, p.owner_tok, "c");
	resp *r = R(api("GET", S(fmt("%s?per_page=2", base)), p.owner_tok, NULL));
	ck_status(r, 200);
	ck_pages(r, base, "", 3, 2, 1);
	ck_assert_int_eq(len(r->json), 2);
	ck_assert_str_eq(jstr(nth(r->json, 0), "id"), a);
	ck_assert_int_eq(len(jget(nth(r->json, 0), "notes")), 3);
	ck_assert_str_eq(jstr(nth(jget(nth(r->json, 0), "notes"), 2), "body"), "a3");
	ck_assert_str_eq(jstr(nth(r->json, 1), "id"), b);
	r = R(api("GET", S(fmt("%s?per_page=2&page=2", base)), p.owner_tok, NULL));
	ck_pages(r, base, "", 3, 2, 2);
	ck_assert_int_eq(len(r->json), 1);
	ck_assert_str_eq(jstr(nth(r->json, 0), "id"), c);
	ck_body(R(api("GET", S(fmt("%s?per_page=2&page=3", base)), p.owner_tok, NULL)), 200, "[]");
	ck_body(R(api("GET", S(fmt("%s?page=x", base)), p.owner_tok, NULL)), 400,
		"{\"error\":\"page is invalid\"}");
}
END_TEST

/* The readers: a confidential issue's discussions are its author's, its assignees' and
 * reporters' and up; a private project's nobody's outside; a locked issue takes
 * discussions and replies from members only. */
START_TEST(test_discussions_access)
{
	fx_project p;
	make_project(&p, "public");
	char *guest = member(&p, 10, NULL);
	char *reporter = member(&p, 20, NULL);
	long long assignee_id;
	char *assignee = member(&p, 10, &assignee_id);
	char *outsider = member(&p, 0, NULL);
	long long iid;
	long long issue = fixture_issue(p.id, p.owner, "secret", true, &iid);
	fixture_issue_assign(issue, assignee_id);
	char *base = S(fmt("/projects/%lld/issues/%lld/discussions", p.id, iid));
	char *did = start(base, reporter, "r");
	char *one = S(fmt("%s/%s", base, did));
	const char *nf = "{\"message\":\"404 Not found\"}";
	ck_body(R(api("GET", base, guest, NULL)), 404, nf);
	ck_body(R(api("GET", one, outsider, NULL)), 404, nf);
	ck_body(R(api("POST", base, guest, "body=x")), 404, nf);
	ck_body(R(api("POST", S(fmt("%s/notes", one)), outsider, "body=x")), 404, nf);
	ck_code(R(api("GET", one, assignee, NULL)), 200);
	ck_code(R(api("POST", S(fmt("%s/notes", one)), assignee, "body=y")), 201);
	ck_code(R(api("GET", base, p.owner_tok, NULL)), 200);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE noteable_id = %lld"
				 " AND noteable_type = 'Issue'",
				 issue),
			 2);

	/* a locked issue: members only */
	long long open_iid;
	long long open = fixture_issue(p.id, p.owner, "open", false, &open_iid);
	fixture_issue_lock(open, true);
	char *obase = S(fmt("/projects/%lld/issues/%lld/discussions", p.id, open_iid));
	ck_body(R(api("POST", obase, outsider, "body=x")), 403, "{\"message\":\"403 Forbidden\"}");
	char *odid = start(obase, guest, "g");
	ck_body(R(api("POST", S(fmt("%s/%s/notes", obase, odid)), outsider, "body=x")), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("GET", obase, outsider, NULL)), 200);

	/* a private project: 404 of the project */
	fx_project q;
	make_project(&q, "private");
	long long qiid;
	fixture_issue(q.id, q.owner, "q", false, &qiid);
	ck_body(R(api("GET", S(fmt("/projects/%lld/issues/%lld/discussions", q.id, qiid)), outsider,
		      NULL)),
		404, "{\"message\":\"404 Project Not Found\"}");
}
END_TEST

/* A project snippet's discussions, read by the snippet's visibility. */
START_TEST(test_discussions_snippets)
{
	fx_project p;
	make_project(&p, "public");
	char *outsider = member(&p, 0, NULL);
	long long pub = fixture_snippet(p.id, p.owner, 20);
	long long priv = fixture_snippet(p.id, p.owner, 0);
	char *base = S(fmt("/projects/%lld/snippets/%lld/discussions", p.id, pub));
	resp *r = R(api("POST", base, outsider, "body=nice"));
	ck_status(r, 201);
	json_object *n = nth(jget(r->json, "notes"), 0);
	ck_fields(n, note_fields);
	ck_assert_str_eq(jstr(n, "noteable_type"), "Snippet");
	ck_assert(jnull(n, "noteable_iid"));
	r = R(api("GET", base, p.owner_tok, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(len(r->json), 1);
	char *pbase = S(fmt("/projects/%lld/snippets/%lld/discussions", p.id, priv));
	ck_body(R(api("GET", pbase, outsider, NULL)), 404, "{\"message\":\"404 Not found\"}");
	ck_body(R(api("POST", pbase, outsider, "body=x")), 404, "{\"message\":\"404 Not found\"}");
	ck_code(R(api("POST", pbase, p.owner_tok, "body=x")), 201);
	ck_body(R(api("GET", S(fmt("/projects/%lld/snippets/99999999/discussions", p.id)),
		      p.owner_tok, NULL)),
		404, "{\"message\":\"404 Not found\"}");
}
END_TEST

/* A merge request's discussions are resolvable: by developers and up, the note's and
 * the merge request's authors; a whole discussion or one note; not by a guest. */
START_TEST(test_discussions_merge_request_resolve)
{
	fx_project p;
	make_project(&p, "public");
	long long dev_id;
	char *dev = member(&p, 30, &dev_id);
	char *guest = member(&p, 10, NULL);
	long long mr_author_id;
	char *mr_author = member(&p, 10, &mr_author_id);
	long long iid = fixture_mr(&p, mr_author_id);
	char *base = S(fmt("/projects/%lld/merge_requests/%lld/discussions", p.id, iid));
	resp *r = R(api("POST", base, p.owner_tok, "body=review"));
	ck_status(r, 201);
	json_object *n = nth(jget(r->json, "notes"), 0);
	ck_fields(n, mr_note_fields);
	ck_assert(jbool(n, "resolvable"));
	ck_assert(!jbool(n, "resolved"));
	ck_assert(jnull(n, "resolved_by"));
	ck_assert_str_eq(jstr(n, "noteable_type"), "MergeRequest");
	ck_assert_int_eq(jint(n, "noteable_iid"), iid);
	char *did = S(strdup(jstr(r->json, "id")));
	char *one = S(fmt("%s/%s", base, did));
	r = R(api("POST", S(fmt("%s/notes", one)), guest, "body=me+too"));
	ck_status(r, 201);
	ck_fields(r->json, mr_note_fields);
	long long reply = jint(r->json, "id");

	/* a guest who wrote neither: 403, nothing resolved */
	ck_body(R(api("PUT", one, guest, "resolved=true")), 403, "{\"message\":\"403 Forbidden\"}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE discussion_id = '%s'"
				 " AND resolved_at IS NOT NULL",
				 did),
			 0);
	ck_body(R(api("PUT", one, dev, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"resolved\\\" not given\"}");
	ck_body(R(api("PUT", S(fmt("%s/deadbeef", base)), dev, "resolved=true")), 403,
		"{\"message\":\"403 Forbidden\"}");

	/* a developer resolves the discussion: every note */
	r = R(api("PUT", one, dev, "resolved=true"));
	ck_status(r, 200);
	ck_fields(r->json, discussion_fields);
	ck_assert_int_eq(len(jget(r->json, "notes")), 2);
	for (size_t i = 0; i < 2; i++) {
		json_object *x = nth(jget(r->json, "notes"), i);
		ck_assert(jbool(x, "resolved"));
		ck_assert_int_eq(jint(jget(x, "resolved_by"), "id"), dev_id);
	}
	/* and unresolves it */
	r = R(api("PUT", one, dev, "resolved=false"));
	ck_status(r, 200);
	ck_assert(!jbool(nth(jget(r->json, "notes"), 0), "resolved"));
	ck_assert(jnull(nth(jget(r->json, "notes"), 1), "resolved_by"));

	/* the merge request's author resolves one note */
	char *note_path = S(fmt("%s/notes/%lld", one, reply));
	r = R(api("PUT", note_path, mr_author, "resolved=true"));
	ck_status(r, 200);
	ck_fields(r->json, mr_note_fields);
	ck_assert(jbool(r->json, "resolved"));
	ck_assert_int_eq(jint(jget(r->json, "resolved_by"), "id"), mr_author_id);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE discussion_id = '%s'"
				 " AND resolved_at IS NOT NULL",
				 did),
			 1);
	/* the list shows it */
	r = R(api("GET", base, guest, NULL));
	ck_status(r, 200);
	json_object *ns = jget(nth(r->json, 0), "notes");
	ck_assert(!jbool(nth(ns, 0), "resolved"));
	ck_assert(jbool(nth(ns, 1), "resolved"));

	/* an individual note (the notes API's) of a merge request is not resolvable */
	r = R(api("POST", S(fmt("/projects/%lld/merge_requests/%lld/notes", p.id, iid)), dev,
		  "body=plain"));
	ck_status(r, 201);
	long long plain = jint(r->json, "id");
	char *pdid = sql_value("SELECT discussion_id FROM notes WHERE id = %lld", plain);
	r = R(api("GET", S(fmt("%s/%s", base, pdid)), dev, NULL));
	ck_status(r, 200);
	ck_assert(jbool(r->json, "individual_note"));
	n = nth(jget(r->json, "notes"), 0);
	ck_fields(n, note_fields);
	ck_assert(!jbool(n, "resolvable"));
	ck_body(R(api("PUT", S(fmt("%s/%s/notes/%lld", base, pdid, plain)), dev, "resolved=true")),
		400, "{\"message\":\"400 (Bad request) Note is not resolvable\"}");
	free(pdid);
}
END_TEST

/* A commit's discussions: its notes are the project's with the commit's hash (those
 * of commits.c's comments too), found by the full or a short hash or a branch; read as
 * the repository is; not resolvable. */
START_TEST(test_discussions_commits)
{
	fx_project p;
	make_project(&p, "private");
	long long dev_id;
	char *dev = member(&p, 30, &dev_id);
	char *guest = member(&p, 10, NULL);
	char *reporter = member(&p, 20, NULL);
	resp *r = R(api_json("POST", S(fmt("/projects/%lld/repository/commits", p.id)), p.owner_tok,
			     "{\"branch\":\"master\",\"commit_message\":\"add a\",\"actions\":"
			     "[{\"action\":\"create\",\"file_path\":\"a\",\"content\":\"a\"}]}"));
	ck_status(r, 201);
	const char *sha = S(strdup(jstr(r->json, "id")));
	char *base = S(fmt("/projects/%lld/repository/commits/%s/discussions", p.id, sha));

	r = R(api("POST", base, dev, "body=why%3F"));
	ck_status(r, 201);
	ck_fields(r->json, discussion_fields);
	ck_assert(!jbool(r->json, "individual_note"));
	json_object *n = nth(jget(r->json, "notes"), 0);
	ck_fields(n, note_fields);
	ck_assert_str_eq(jstr(n, "type"), "DiscussionNote");
	ck_assert_str_eq(jstr(n, "noteable_type"), "Commit");
	ck_assert(jnull(n, "noteable_id"));
	ck_assert(jnull(n, "noteable_iid"));
	ck_assert(!jbool(n, "resolvable"));
	long long first = jint(n, "id");
	char *did = S(strdup(jstr(r->json, "id")));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE id = %lld AND project_id = %lld"
				 " AND commit_id = '%s'",
				 first, p.id, sha),
			 1);
	/* the commit's comments show it */
	r = R(api("GET", S(fmt("/projects/%lld/repository/commits/%s/comments", p.id, sha)), dev,
		  NULL));
	ck_status(r, 200);
	ck_assert_int_eq(len(r->json), 1);
	ck_assert_str_eq(jstr(nth(r->json, 0), "note"), "why?");
	/* a comment made there is an individual note; by branch name, the same list */
	ck_code(R(api("POST", S(fmt("/projects/%lld/repository/commits/%s/comments", p.id, sha)),
		      p.owner_tok, "note=plain")),
		201);
	char *by_branch = S(fmt("/projects/%lld/repository/commits/master/discussions", p.id));
	/* a guest of a private project does not read its code (commits.c's 403) */
	ck_body(R(api("GET", by_branch, guest, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("POST", base, guest, "body=x")), 403, "{\"message\":\"403 Forbidden\"}");
	r = R(api("GET", by_branch, reporter, NULL));
	ck_status(r, 200);
	ck_pages(r, by_branch, "", 2, 20, 1);
	ck_assert_str_eq(jstr(nth(r->json, 0), "id"), did);
	ck_assert(jbool(nth(r->json, 1), "individual_note"));

	/* reply, edit, delete */
	char *one = S(fmt("%s/%s", base, did));
	r = R(api("POST", S(fmt("%s/notes", one)), reporter, "body=because"));
	ck_status(r, 201);
	long long second = jint(r->json, "id");
	char *note2 = S(fmt("%s/notes/%lld", one, second));
	ck_body(R(api("PUT", note2, dev, "body=x")), 403, "{\"message\":\"403 Forbidden\"}");
	r = R(api("PUT", note2, reporter, "body=edited"));
	ck_status(r, 200);
	ck_jstr(r, "body", "edited");
	ck_body(R(api("PUT", note2, reporter, "resolved=true")), 400,
		"{\"message\":\"400 (Bad request) Note is not resolvable\"}");
	r = R(api("GET", one, dev, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(len(jget(r->json, "notes")), 2);
	ck_code(R(api("DELETE", note2, p.owner_tok, NULL)), 204);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE id = %lld", second), 0);

	/* no such commit; a stranger to the private project */
	ck_body(R(api("GET",
		      S(fmt("/projects/%lld/repository/commits/%s/discussions", p.id,
			    "0123456789012345678901234567890123456789")),
		      dev, NULL)),
		404, "{\"message\":\"404 Commit Not Found\"}");
	char *outsider = member(&p, 0, NULL);
	ck_body(R(api("GET", base, outsider, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	/* another project's commit discussion is not this one's */
	fx_project q;
	make_project(&q, "public");
	ck_code(R(api("GET",
		      S(fmt("/projects/%lld/repository/commits/%s/discussions/%s", q.id, sha, did)),
		      q.owner_tok, NULL)),
		404);
}
END_TEST

/* A discussion's notes on an issue are comments to the project's note hooks, as the
 * notes API's (api/hooks.c hooks_note): one delivery queued for each. */
START_TEST(test_discussions_note_hook)
{
	fx_project p;
	make_project(&p, "public");
	long long hook = sql_int("INSERT INTO web_hooks (project_id, url, push_events, note_events)"
				 " VALUES (%lld, 'http://hook.invalid/', false, true) RETURNING id",
				 p.id);
	long long iid;
	fixture_issue(p.id, p.owner, "h", false, &iid);
	char *base = S(fmt("/projects/%lld/issues/%lld/discussions", p.id, iid));
	char *did = start(base, p.owner_tok, "hooked");
	ck_code(R(api("POST", S(fmt("%s/%s/notes", base, did)), p.owner_tok, "body=again")), 201);
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM web_hook_deliveries WHERE hook_id = %lld"
			" AND event = 'Note Hook' AND payload->'object_attributes'->>'note'"
			" IN ('hooked', 'again')",
			hook),
		2);
}
END_TEST

Suite *suite_discussions(void)
{
	Suite *s = suite_create("discussions");
	TCase *tc = tcase_create("discussions");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_discussions_require_auth);
	tcase_add_test(tc, test_discussions_issue_life);
	tcase_add_test(tc, test_discussions_errors);
	tcase_add_test(tc, test_discussions_pages);
	tcase_add_test(tc, test_discussions_access);
	tcase_add_test(tc, test_discussions_snippets);
	tcase_add_test(tc, test_discussions_merge_request_resolve);
	tcase_add_test(tc, test_discussions_commits);
	tcase_add_test(tc, test_discussions_note_hook);
	suite_add_tcase(s, tc);
	return s;
}
