/* API suite: award emoji on issues, project snippets, merge requests and their notes:
 * the award record, list (with pages), show, award and take back; names and aliases;
 * the issue's upvotes and downvotes; no votes on one's own; who may do what; and the
 * errors GitLab 10 gives. Issues and snippets are fixtures in SQL (client.h). */
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const award_fields[] = {
	"id", "name", "user", "created_at", "updated_at", "awardable_id", "awardable_type", NULL};
static const char *const user_fields[] = {"id",         "name",    "username", "state",
					  "avatar_url", "web_url", NULL};

/* A public project by a new user, and an issue of it by that user. */
typedef struct {
	long long id;
	char *owner_tok;
	long long owner;
	long long issue;
	long long iid;
} fx;

static void make_fx(fx *f, const char *visibility, bool confidential)
{
	f->owner_tok = make_user("aown", &f->owner, NULL);
	f->id = api_project(f->owner_tok, visibility, NULL);
	f->issue = fixture_issue(f->id, f->owner, "awarded", confidential, &f->iid);
}

static char *member(const fx *f, int level, long long *id)
{
	long long uid;
	char *tok = make_user("amem", &uid, NULL);
	if (level)
		fixture_member("Project", f->id, uid, level);
	if (id)
		*id = uid;
	return tok;
}

/* POST name to path as tok: the award's id (asserts 201 and the record). */
static long long award(const char *path, const char *tok, const char *name)
{
	char *form = fmt("name=%s", name);
	resp *r = api("POST", path, tok, form);
	ck_status(r, 201);
	ck_fields(r->json, award_fields);
	long long id = jint(r->json, "id");
	resp_free(r);
	free(form);
	return id;
}

static long long votes(long long issue, const char *which)
{
	return sql_int("SELECT %s FROM issues WHERE id = %lld", which, issue);
}

START_TEST(test_award_emoji_issue)
{
	fx f;
	make_fx(&f, "private", false);
	long long dev_id;
	char *dev = member(&f, 30, &dev_id);
	char *base = fmt("/projects/%lld/issues/%lld/award_emoji", f.id, f.iid);

	resp *r = api("POST", base, dev, "name=thumbsup");
	ck_status(r, 201);
	ck_fields(r->json, award_fields);
	ck_jstr(r, "name", "thumbsup");
	ck_jstr(r, "awardable_type", "Issue");
	ck_assert_int_eq(jint(r->json, "awardable_id"), f.issue);
	ck_fields(jget(r->json, "user"), user_fields);
	ck_assert_int_eq(jint(jget(r->json, "user"), "id"), dev_id);
	ck_assert_int_eq(strlen(jstr(r->json, "created_at")), 24);
	long long up = jint(r->json, "id");
	resp_free(r);
	ck_assert_int_eq(votes(f.issue, "upvotes"), 1);
	long long down = award(base, dev, "-1"); /* an alias: stored by the emoji's name */
	ck_assert_int_eq(votes(f.issue, "downvotes"), 1);
	award(base, f.owner_tok, "tada");

	r = api("GET", base, dev, NULL);
	ck_status(r, 200);
	ck_pages(r, base, "", 3, 20, 1);
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	json_object *second = json_object_array_get_idx(r->json, 1);
	ck_fields(second, award_fields);
	ck_assert_int_eq(jint(second, "id"), down);
	ck_assert_str_eq(jstr(second, "name"), "thumbsdown");
	resp_free(r);
	char *path = fmt("%s?per_page=2&page=2", base);
	r = api("GET", path, dev, NULL);
	ck_pages(r, base, "", 3, 2, 2);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "name"), "tada");
	resp_free(r);
	free(path);

	char *one = fmt("%s/%lld", base, up);
	r = api("GET", one, f.owner_tok, NULL);
	ck_status(r, 200);
	ck_fields(r->json, award_fields);
	ck_jstr(r, "name", "thumbsup");
	resp_free(r);
	r = api("DELETE", one, dev, NULL);
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	resp_free(r);
	r = api("GET", one, dev, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	ck_assert_int_eq(votes(f.issue, "upvotes"), 0);
	ck_assert_int_eq(votes(f.issue, "downvotes"), 1);
	/* awarded again after taking it back */
	award(base, dev, "thumbsup");
	ck_assert_int_eq(votes(f.issue, "upvotes"), 1);
	free(one);
	free(base);
	free(dev);
	free(f.owner_tok);
}
END_TEST

START_TEST(test_award_emoji_errors)
{
	fx f;
	make_fx(&f, "public", false);
	char *dev = member(&f, 30, NULL);
	char *base = fmt("/projects/%lld/issues/%lld/award_emoji", f.id, f.iid);
	resp *r = api("POST", base, dev, NULL);
	ck_body(r, 400, "{\"message\":\"400 (Bad request) \\\"name\\\" not given\"}");
	resp_free(r);
	r = api("POST", base, dev, "name=nosuchemoji");
	ck_body(r, 404,
		"{\"message\":\"404 Award Emoji {:name=>[\\\"is not included in the"
		" list\\\"]} Not Found\"}");
	resp_free(r);
	award(base, dev, "smile");
	r = api("POST", base, dev, "name=smile");
	ck_body(r, 404,
		"{\"message\":\"404 Award Emoji {:name=>[\\\"has already been taken\\\"]}"
		" Not Found\"}");
	resp_free(r);
	/* no votes on one's own issue; other emoji are fine */
	r = api("POST", base, f.owner_tok, "name=thumbsup");
	ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
	resp_free(r);
	r = api("POST", base, f.owner_tok, "name=%2B1");
	ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
	resp_free(r);
	award(base, f.owner_tok, "heart");
	ck_assert_int_eq(votes(f.issue, "upvotes"), 0);
	/* ids */
	char *path = fmt("/projects/%lld/issues/x/award_emoji", f.id);
	r = api("GET", path, dev, NULL);
	ck_body(r, 400, "{\"error\":\"issue_iid is invalid\"}");
	resp_free(r);
	free(path);
	path = fmt("%s/y", base);
	r = api("GET", path, dev, NULL);
	ck_body(r, 400, "{\"error\":\"award_id is invalid\"}");
	resp_free(r);
	r = api("DELETE", path, dev, NULL);
	ck_body(r, 400, "{\"error\":\"award_id is invalid\"}");
	resp_free(r);
	free(path);
	path = fmt("%s/99999999", base);
	r = api("GET", path, dev, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	r = api("DELETE", path, dev, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	free(path);
	path = fmt("/projects/%lld/issues/99999/award_emoji", f.id);
	r = api("GET", path, dev, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	r = api("POST", path, dev, "name=smile");
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	free(path);
	r = api("GET", base, NULL, NULL);
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	/* an award of another issue is not found through this one */
	long long other_iid;
	fixture_issue(f.id, f.owner, "other", false, &other_iid);
	char *other = fmt("/projects/%lld/issues/%lld/award_emoji", f.id, other_iid);
	long long there = award(other, dev, "smile");
	path = fmt("%s/%lld", base, there);
	r = api("GET", path, dev, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	r = api("DELETE", path, dev, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	free(path);
	free(other);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM award_emoji WHERE awardable_type = 'Issue'"
				 " AND awardable_id = %lld",
				 f.issue),
			 2);
	free(base);
	free(dev);
	free(f.owner_tok);
}
END_TEST

/* Taking back: the award's user or an admin (others: 401, as GitLab). */
START_TEST(test_award_emoji_delete_access)
{
	fx f;
	make_fx(&f, "public", false);
	char *dev = member(&f, 30, NULL);
	char *master = member(&f, 40, NULL);
	char *admin = make_admin("aadm", NULL);
	char *base = fmt("/projects/%lld/issues/%lld/award_emoji", f.id, f.iid);
	long long id = award(base, dev, "thumbsup");
	char *one = fmt("%s/%lld", base, id);
	const char *denied[] = {master, f.owner_tok};
	for (int i = 0; i < 2; i++) {
		resp *r = api("DELETE", one, denied[i], NULL);
		ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
		resp_free(r);
	}
	ck_assert_int_eq(votes(f.issue, "upvotes"), 1);
	resp *r = api("DELETE", one, admin, NULL);
	ck_status(r, 204);
	resp_free(r);
	ck_assert_int_eq(votes(f.issue, "upvotes"), 0);
	free(one);
	free(base);
	free(admin);
	free(master);
	free(dev);
	free(f.owner_tok);
}
END_TEST

/* Who sees and awards: by visibility, and a confidential issue's readers. */
START_TEST(test_award_emoji_access)
{
	fx f;
	make_fx(&f, "private", false);
	char *outsider = member(&f, 0, NULL);
	char *guest = member(&f, 10, NULL);
	char *base = fmt("/projects/%lld/issues/%lld/award_emoji", f.id, f.iid);
	resp *r = api("GET", base, outsider, NULL);
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
	resp_free(r);
	award(base, guest, "smile");
	free(base);

	fx c;
	make_fx(&c, "public", true);
	long long assignee_id;
	char *cout = member(&c, 0, NULL);
	char *cguest = member(&c, 10, NULL);
	char *creporter = member(&c, 20, NULL);
	char *cassignee = member(&c, 0, &assignee_id);
	fixture_issue_assign(c.issue, assignee_id);
	base = fmt("/projects/%lld/issues/%lld/award_emoji", c.id, c.iid);
	long long id = award(base, creporter, "smile");
	char *one = fmt("%s/%lld", base, id);
	const char *hidden[] = {cout, cguest};
	for (int i = 0; i < 2; i++) {
		r = api("GET", base, hidden[i], NULL);
		ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
		resp_free(r);
		r = api("GET", one, hidden[i], NULL);
		ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
		resp_free(r);
		r = api("POST", base, hidden[i], "name=heart");
		ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
		resp_free(r);
		r = api("DELETE", one, hidden[i], NULL);
		ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
		resp_free(r);
	}
	award(base, cassignee, "heart");
	r = api("GET", base, cassignee, NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	resp_free(r);
	free(one);
	free(base);
	free(cassignee);
	free(creporter);
	free(cguest);
	free(cout);
	free(c.owner_tok);
	free(guest);
	free(outsider);
	free(f.owner_tok);
}
END_TEST

/* The owner of a personal project reads its confidential issues (a master-level reader,
 * as GitLab 10's IssuePolicy: reporters and up), whoever wrote them: they award on such
 * an issue and on its notes, list and take back their awards; a guest still may not. */
START_TEST(test_award_emoji_owner_confidential)
{
	fx f;
	f.owner_tok = make_user("aown", &f.owner, NULL);
	f.id = api_project(f.owner_tok, "private", NULL);
	long long dev_id;
	char *dev = member(&f, 30, &dev_id);
	char *guest = member(&f, 10, NULL);
	/* by the developer, through the API, confidential, assigned to nobody */
	char *path = fmt("/projects/%lld/issues", f.id);
	resp *r = api("POST", path, dev, "title=secret&confidential=true");
	ck_status(r, 201);
	ck_assert(jbool(r->json, "confidential"));
	long long iid = jint(r->json, "iid");
	resp_free(r);
	free(path);
	path = fmt("/projects/%lld/issues/%lld/notes", f.id, iid);
	r = api("POST", path, dev, "body=hush");
	ck_status(r, 201);
	long long note = jint(r->json, "id");
	resp_free(r);
	free(path);
	char *base = fmt("/projects/%lld/issues/%lld/award_emoji", f.id, iid);
	char *on_note = fmt("/projects/%lld/issues/%lld/notes/%lld/award_emoji", f.id, iid, note);
	const char *paths[] = {base, on_note};
	for (int i = 0; i < 2; i++) {
		long long id = award(paths[i], f.owner_tok, "thumbsup");
		r = api("GET", paths[i], f.owner_tok, NULL);
		ck_status(r, 200);
		ck_assert_int_eq(json_object_array_length(r->json), 1);
		resp_free(r);
		char *one = fmt("%s/%lld", paths[i], id);
		r = api("GET", one, f.owner_tok, NULL);
		ck_status(r, 200);
		ck_jstr(r, "name", "thumbsup");
		resp_free(r);
		r = api("POST", paths[i], guest, "name=heart");
		ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
		resp_free(r);
		r = api("DELETE", one, f.owner_tok, NULL);
		ck_status(r, 204);
		resp_free(r);
		award(paths[i], f.owner_tok, "tada");
		free(one);
	}
	free(on_note);
	free(base);
	/* their own confidential issue: any emoji but a vote, which nobody gives what they
	 * wrote (10.8's Awardable#user_can_award?): that one is the 404 */
	path = fmt("/projects/%lld/issues", f.id);
	r = api("POST", path, f.owner_tok, "title=mine&confidential=true");
	ck_status(r, 201);
	iid = jint(r->json, "iid");
	resp_free(r);
	free(path);
	base = fmt("/projects/%lld/issues/%lld/award_emoji", f.id, iid);
	award(base, f.owner_tok, "smile");
	r = api("POST", base, f.owner_tok, "name=thumbsup");
	ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
	resp_free(r);
	award(base, dev, "thumbsup");
	r = api("GET", base, f.owner_tok, NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	resp_free(r);
	free(base);
	free(guest);
	free(dev);
	free(f.owner_tok);
}
END_TEST

/* Awards on notes (of issues and snippets) and on snippets. */
START_TEST(test_award_emoji_notes_and_snippets)
{
	fx f;
	make_fx(&f, "public", false);
	char *dev = member(&f, 30, NULL);
	char *notes = fmt("/projects/%lld/issues/%lld/notes", f.id, f.iid);
	resp *r = api("POST", notes, dev, "body=a+comment");
	ck_status(r, 201);
	long long note = jint(r->json, "id");
	resp_free(r);
	char *base = fmt("%s/%lld/award_emoji", notes, note);
	r = api("POST", base, f.owner_tok, "name=thumbsup");
	ck_status(r, 201);
	ck_jstr(r, "awardable_type", "Note");
	ck_assert_int_eq(jint(r->json, "awardable_id"), note);
	long long id = jint(r->json, "id");
	resp_free(r);
	/* the note's author does not vote on it */
	r = api("POST", base, dev, "name=thumbsup");
	ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
	resp_free(r);
	ck_assert_int_eq(votes(f.issue, "upvotes"), 0); /* a note's votes are not the issue's */
	r = api("GET", base, dev, NULL);
	ck_status(r, 200);
	ck_pages(r, base, "", 1, 20, 1);
	resp_free(r);
	char *one = fmt("%s/%lld", base, id);
	r = api("GET", one, dev, NULL);
	ck_status(r, 200);
	ck_jstr(r, "name", "thumbsup");
	resp_free(r);
	/* an award of the note is not one of the issue */
	char *wrong = fmt("/projects/%lld/issues/%lld/award_emoji/%lld", f.id, f.iid, id);
	r = api("GET", wrong, dev, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	free(wrong);
	char *missing = fmt("%s/99999999/award_emoji", notes);
	r = api("GET", missing, dev, NULL);
	ck_body(r, 404, "{\"message\":\"404 Not found\"}");
	resp_free(r);
	free(missing);
	/* the note goes, with its awards */
	char *note_path = fmt("%s/%lld", notes, note);
	r = api("DELETE", note_path, dev, NULL);
	ck_status(r, 204);
	resp_free(r);
	free(note_path);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM award_emoji WHERE id = %lld", id), 0);

	/* snippets and their notes */
	long long pub = fixture_snippet(f.id, f.owner, 20);
	long long priv = fixture_snippet(f.id, f.owner, 0);
	char *outsider = member(&f, 0, NULL);
	char *sbase = fmt("/projects/%lld/snippets/%lld/award_emoji", f.id, pub);
	r = api("POST", sbase, outsider, "name=rocket");
	ck_status(r, 201);
	ck_jstr(r, "awardable_type", "Snippet");
	ck_assert_int_eq(jint(r->json, "awardable_id"), pub);
	resp_free(r);
	r = api("POST", sbase, f.owner_tok, "name=thumbsup");
	ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
	resp_free(r);
	char *snotes = fmt("/projects/%lld/snippets/%lld/notes", f.id, pub);
	r = api("POST", snotes, f.owner_tok, "body=see");
	ck_status(r, 201);
	char *snote = fmt("%s/%lld/award_emoji", snotes, jint(r->json, "id"));
	resp_free(r);
	award(snote, outsider, "eyes");
	r = api("GET", snote, outsider, NULL);
	ck_status(r, 200);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "awardable_type"), "Note");
	resp_free(r);
	char *pbase = fmt("/projects/%lld/snippets/%lld/award_emoji", f.id, priv);
	r = api("GET", pbase, outsider, NULL);
	ck_body(r, 404, "{\"message\":\"404 Award Emoji Not Found\"}");
	resp_free(r);
	award(pbase, dev, "smile");
	free(pbase);
	free(snote);
	free(snotes);
	free(sbase);
	free(outsider);
	free(one);
	free(base);
	free(notes);
	free(dev);
	free(f.owner_tok);
}
END_TEST

START_TEST(test_award_emoji_merge_requests)
{
	fx f;
	make_fx(&f, "public", false);
	const char *mr = "{\"message\":\"404 Not found\"}";
	const char *paths[] = {"merge_requests/1/award_emoji",
			       "merge_requests/1/notes/1/award_emoji"};
	for (int i = 0; i < 2; i++) {
		char *base = fmt("/projects/%lld/%s", f.id, paths[i]);
		char *one = fmt("%s/1", base);
		resp *r = api("GET", base, f.owner_tok, NULL);
		ck_body(r, 404, mr);
		resp_free(r);
		r = api("GET", one, f.owner_tok, NULL);
		ck_body(r, 404, mr);
		resp_free(r);
		r = api("POST", base, f.owner_tok, "name=smile");
		ck_body(r, 404, mr);
		resp_free(r);
		r = api("DELETE", one, f.owner_tok, NULL);
		ck_body(r, 404, mr);
		resp_free(r);
		r = api("POST", base, f.owner_tok, NULL);
		ck_body(r, 400, "{\"message\":\"400 (Bad request) \\\"name\\\" not given\"}");
		resp_free(r);
		free(one);
		free(base);
	}
	free(f.owner_tok);
}
END_TEST

Suite *suite_award_emoji(void)
{
	Suite *s = suite_create("award_emoji");
	TCase *tc = tcase_create("award_emoji");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_award_emoji_issue);
	tcase_add_test(tc, test_award_emoji_errors);
	tcase_add_test(tc, test_award_emoji_delete_access);
	tcase_add_test(tc, test_award_emoji_access);
	tcase_add_test(tc, test_award_emoji_owner_confidential);
	tcase_add_test(tc, test_award_emoji_notes_and_snippets);
	tcase_add_test(tc, test_award_emoji_merge_requests);
	suite_add_tcase(s, tc);
	return s;
}
