/* API suite: search (GitLab 10.5+'s API::Search): GET /search, /groups/:id/search and
 * /projects/:id/search with 10.8's scopes, only what the caller may read (private
 * projects, confidential issues, private code), "#iid", pagination, the repository's
 * blobs, wiki blobs and commits at the default branch, and the errors. Every test seeks
 * a word of its own (unique), so other suites' records never match. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

typedef struct {
	char *word;             /* what the test seeks */
	char *owner, *stranger; /* tokens */
	long long owner_id, stranger_id;
	long long priv, pub; /* projects of owner, both with the word in their name */
	char *pub_path;
} fx;

static void setup(fx *f)
{
	f->word = S(unique("quokka"));
	f->owner = S(make_user("so", &f->owner_id, NULL));
	f->stranger = S(make_user("ss", &f->stranger_id, NULL));
	f->priv = api_project(f->owner, "private", NULL);
	f->pub = api_project(f->owner, "public", &f->pub_path);
	S(f->pub_path);
	ck_code(R(api("PUT", S(fmt("/projects/%lld", f->priv)), f->owner,
		      S(fmt("name=%s-private", f->word)))),
		200);
	ck_code(R(api("PUT", S(fmt("/projects/%lld", f->pub)), f->owner,
		      S(fmt("name=%s-public&description=about", f->word)))),
		200);
}

static resp *search(const char *token, const char *base, const char *scope, const char *q)
{
	return R(api("GET", S(fmt("%s?scope=%s&search=%s", base, scope, S(enc(q)))), token, NULL));
}

/* The values of member key of the list r, joined with commas. */
static const char *values(resp *r, const char *key)
{
	ck_assert_msg(r->status == 200, "%ld %s", r->status, r->body);
	size_t n = json_object_array_length(r->json);
	char *out = S(strdup(""));
	for (size_t i = 0; i < n; i++) {
		json_object *v = jget(json_object_array_get_idx(r->json, i), key);
		out = S(fmt("%s%s%s", out, i ? "," : "", json_object_get_string(v)));
	}
	return out;
}

static long long issue(const fx *f, long long project, const char *title, bool confidential)
{
	resp *r = R(api("POST", S(fmt("/projects/%lld/issues", project)), f->owner,
			S(fmt("title=%s&confidential=%s", S(enc(title)),
			      confidential ? "true" : "false"))));
	ck_status(r, 201);
	return jint(r->json, "iid");
}

START_TEST(test_search_projects_and_issues)
{
	fx f;
	setup(&f);
	/* projects: the stranger sees the public one only, the owner both, newest first */
	resp *r = search(f.stranger, "/search", "projects", f.word);
	ck_assert_str_eq(values(r, "id"), S(fmt("%lld", f.pub)));
	static const char *const basic[] = {"id",
					    "description",
					    "name",
					    "name_with_namespace",
					    "path",
					    "path_with_namespace",
					    "created_at",
					    "default_branch",
					    "tag_list",
					    "ssh_url_to_repo",
					    "http_url_to_repo",
					    "web_url",
					    "star_count",
					    "forks_count",
					    "last_activity_at",
					    NULL};
	ck_fields(json_object_array_get_idx(r->json, 0), basic);
	r = search(f.owner, "/search", "projects", f.word);
	ck_assert_str_eq(values(r, "id"), S(fmt("%lld,%lld", f.pub, f.priv)));
	/* any case, any part of the name */
	char *upper = S(strdup(f.word + 2));
	for (char *p = upper; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	r = search(f.owner, "/search", "projects", upper);
	ck_assert_int_eq(json_object_array_length(r->json), 2);

	/* issues: the private project's to its owner only; a confidential one to whom may
	 * read it; most recently changed first; #iid */
	long long i1 = issue(&f, f.pub, S(fmt("first %s", f.word)), false);
	long long i2 = issue(&f, f.pub, S(fmt("secret %s", f.word)), true);
	long long i3 = issue(&f, f.priv, S(fmt("private %s", f.word)), false);
	(void)i3;
	r = search(f.stranger, "/search", "issues", f.word);
	ck_assert_str_eq(values(r, "title"), S(fmt("first %s", f.word)));
	r = search(f.owner, "/search", "issues", f.word);
	ck_assert_str_eq(values(r, "title"),
			 S(fmt("private %s,secret %s,first %s", f.word, f.word, f.word)));
	static const char *const issue_fields[] = {"id",
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
	ck_fields(json_object_array_get_idx(r->json, 0), issue_fields);
	/* a reporter of the public project sees the confidential one */
	fixture_member("Project", f.pub, f.stranger_id, 20);
	r = search(f.stranger, "/search", "issues", f.word);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	/* pages, with the headers */
	r = R(api("GET", S(fmt("/search?scope=issues&search=%s&per_page=2&page=2", f.word)),
		  f.owner, NULL));
	ck_assert_str_eq(values(r, "title"), S(fmt("first %s", f.word)));
	ck_pages(r, "/search", S(fmt("scope=issues&search=%s", f.word)), 3, 2, 2);
	/* #iid in the project's search */
	r = search(f.owner, S(fmt("/projects/%lld/search", f.pub)), "issues", S(fmt("#%lld", i2)));
	ck_assert_str_eq(values(r, "iid"), S(fmt("%lld", i2)));
	r = search(f.owner, S(fmt("/projects/%lld/search", f.pub)), "issues", S(fmt("#%lld", i1)));
	ck_assert_str_eq(values(r, "iid"), S(fmt("%lld", i1)));
	/* nothing for a blank search or another word */
	ck_assert_str_eq(values(search(f.owner, "/search", "issues", "  "), "id"), "");
	ck_assert_str_eq(values(search(f.owner, "/search", "issues", S(unique("nothing"))), "id"),
			 "");
	/* LIKE's metacharacters are text */
	ck_assert_str_eq(values(search(f.owner, "/search", "issues", "%"), "id"), "");
}
END_TEST

START_TEST(test_search_mrs_milestones_snippets_notes)
{
	fx f;
	setup(&f);
	/* a merge request, in a private project too: the stranger sees the public one's */
	for (int k = 0; k < 2; k++) {
		long long p = k ? f.priv : f.pub;
		ck_code(R(api_json(
				"POST", S(fmt("/projects/%lld/repository/commits", p)), f.owner,
				"{\"branch\":\"master\",\"commit_message\":\"init\",\"actions\":"
				"[{\"action\":\"create\",\"file_path\":\"a\",\"content\":\"a\"}]}")),
			201);
		ck_code(R(api_json("POST", S(fmt("/projects/%lld/repository/commits", p)), f.owner,
				   "{\"branch\":\"topic\",\"start_branch\":\"master\","
				   "\"commit_message\":\"t\",\"actions\":[{\"action\":\"create\","
				   "\"file_path\":\"b\",\"content\":\"b\"}]}")),
			201);
		ck_code(R(api("POST", S(fmt("/projects/%lld/merge_requests", p)), f.owner,
			      S(fmt("source_branch=topic&target_branch=master&title=mr%d-%s", k,
				    f.word)))),
			201);
	}
	resp *r = search(f.stranger, "/search", "merge_requests", f.word);
	ck_assert_str_eq(values(r, "title"), S(fmt("mr0-%s", f.word)));
	r = search(f.owner, "/search", "merge_requests", f.word);
	ck_assert_str_eq(values(r, "title"), S(fmt("mr1-%s,mr0-%s", f.word, f.word)));
	ck_assert(jhas(json_object_array_get_idx(r->json, 0), "merge_status"));
	r = search(f.owner, S(fmt("/projects/%lld/search", f.pub)), "merge_requests", "!1");
	ck_assert_str_eq(values(r, "title"), S(fmt("mr0-%s", f.word)));
	/* a guest of the private project does not read its merge requests (code) */
	fixture_member("Project", f.priv, f.stranger_id, 10);
	r = search(f.stranger, "/search", "merge_requests", f.word);
	ck_assert_str_eq(values(r, "title"), S(fmt("mr0-%s", f.word)));

	/* milestones */
	ck_code(R(api("POST", S(fmt("/projects/%lld/milestones", f.pub)), f.owner,
		      S(fmt("title=ms-%s&description=d", f.word)))),
		201);
	r = search(NULL, "/search", "milestones", f.word);
	ck_status(r, 401);
	r = search(f.stranger, "/search", "milestones", f.word);
	ck_assert_str_eq(values(r, "title"), S(fmt("ms-%s", f.word)));
	static const char *const ms_fields[] = {"id",         "iid",         "project_id",
						"title",      "description", "state",
						"created_at", "updated_at",  "due_date",
						"start_date", NULL};
	ck_fields(json_object_array_get_idx(r->json, 0), ms_fields);

	/* snippets: titles and contents, the private one to its author */
	ck_code(R(api("POST", S(fmt("/projects/%lld/snippets", f.pub)), f.owner,
		      S(fmt("title=sn-%s&file_name=a.txt&code=hello&visibility=public", f.word)))),
		201);
	ck_code(R(api("POST", S(fmt("/projects/%lld/snippets", f.pub)), f.owner,
		      S(fmt("title=hidden&file_name=b.txt&code=x%sx&visibility=private", f.word)))),
		201);
	long long third;
	char *third_token = S(make_user("st", &third, NULL));
	r = search(third_token, "/search", "snippet_titles", f.word);
	ck_assert_str_eq(values(r, "title"), S(fmt("sn-%s", f.word)));
	ck_assert_str_eq(values(search(third_token, "/search", "snippet_blobs", f.word), "title"),
			 "");
	ck_assert_str_eq(values(search(f.owner, "/search", "snippet_blobs", f.word), "title"),
			 "hidden");

	/* notes: in a project's search only; a confidential issue's to whom may read it */
	long long ci = issue(&f, f.pub, "conf", true);
	long long oi = issue(&f, f.pub, "open", false);
	ck_code(R(api("POST", S(fmt("/projects/%lld/issues/%lld/notes", f.pub, ci)), f.owner,
		      S(fmt("body=c-%s", f.word)))),
		201);
	ck_code(R(api("POST", S(fmt("/projects/%lld/issues/%lld/notes", f.pub, oi)), f.owner,
		      S(fmt("body=o-%s", f.word)))),
		201);
	const char *ps = S(fmt("/projects/%lld/search", f.pub));
	r = search(third_token, ps, "notes", f.word);
	ck_assert_str_eq(values(r, "body"), S(fmt("o-%s", f.word)));
	ck_assert_str_eq(values(search(f.owner, ps, "notes", f.word), "body"),
			 S(fmt("o-%s,c-%s", f.word, f.word)));
	ck_code(search(f.owner, "/search", "notes", f.word), 400);
}
END_TEST

START_TEST(test_search_repository)
{
	fx f;
	setup(&f);
	/* the word on line 5 of a file of the default branch, and in a commit message */
	const char *content = S(fmt("one\\ntwo\\nthree\\nfour\\nsee %s here\\nsix\\nseven\\n"
				    "eight\\nnine\\nten\\n",
				    f.word));
	ck_code(R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f.pub)), f.owner,
			   S(fmt("{\"branch\":\"master\",\"commit_message\":\"add %s\",\"actions\":"
				 "[{\"action\":\"create\",\"file_path\":\"doc/notes.md\","
				 "\"content\":\"%s\"},{\"action\":\"create\",\"file_path\":"
				 "\"other\",\"content\":\"nothing\"}]}",
				 f.word, content)))),
		201);
	ck_code(R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f.pub)), f.owner,
			   "{\"branch\":\"master\",\"commit_message\":\"more\",\"actions\":"
			   "[{\"action\":\"create\",\"file_path\":\"x\",\"content\":\"x\"}]}")),
		201);
	const char *ps = S(fmt("/projects/%lld/search", f.pub));
	resp *r = search(f.stranger, ps, "blobs", f.word);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	json_object *b = json_object_array_get_idx(r->json, 0);
	static const char *const blob_fields[] = {"basename", "data",      "filename",   "id",
						  "ref",      "startline", "project_id", NULL};
	ck_fields(b, blob_fields);
	ck_assert_str_eq(jstr(b, "filename"), "doc/notes.md");
	ck_assert_str_eq(jstr(b, "basename"), "doc/notes");
	ck_assert_str_eq(jstr(b, "ref"), "master");
	ck_assert_int_eq(jint(b, "startline"), 3);
	ck_assert_str_eq(jstr(b, "data"), S(fmt("three\nfour\nsee %s here\nsix\nseven\n", f.word)));
	ck_assert_int_eq(jint(b, "project_id"), f.pub);
	ck_assert(jnull(b, "id"));
	/* commits: their detail */
	r = search(f.stranger, ps, "commits", f.word);
	ck_assert_str_eq(values(r, "title"), S(fmt("add %s", f.word)));
	ck_assert(jhas(json_object_array_get_idx(r->json, 0), "stats"));
	ck_assert(jhas(json_object_array_get_idx(r->json, 0), "status"));
	ck_assert_str_eq(values(search(f.stranger, ps, "commits", "MORE"), "title"), "more");
	/* wiki blobs */
	ck_code(R(api("POST", S(fmt("/projects/%lld/wikis", f.pub)), f.owner,
		      S(fmt("title=home&content=hello%%0Aand%%20%s%%0Aend", f.word)))),
		201);
	r = search(f.stranger, ps, "wiki_blobs", f.word);
	ck_assert_str_eq(values(r, "filename"), "home.md");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "basename"), "home");
	/* a project with no repository yet: nothing */
	ck_assert_str_eq(
		values(search(f.owner, S(fmt("/projects/%lld/search", f.priv)), "blobs", f.word),
		       "filename"),
		"");
	/* a guest of a private project reads no code: nothing, as GitLab */
	ck_code(R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f.priv)), f.owner,
			   S(fmt("{\"branch\":\"master\",\"commit_message\":\"%s\",\"actions\":"
				 "[{\"action\":\"create\",\"file_path\":\"a\",\"content\":\"%s\"}]}",
				 f.word, f.word)))),
		201);
	const char *pp = S(fmt("/projects/%lld/search", f.priv));
	ck_code(search(f.stranger, pp, "blobs", f.word), 404);
	fixture_member("Project", f.priv, f.stranger_id, 10);
	ck_assert_str_eq(values(search(f.stranger, pp, "blobs", f.word), "filename"), "");
	ck_assert_str_eq(values(search(f.stranger, pp, "commits", f.word), "title"), "");
	ck_assert_str_eq(values(search(f.owner, pp, "blobs", f.word), "filename"), "a");
	/* across projects, GitLab 10 needed Elasticsearch */
	r = search(f.owner, "/search", "blobs", f.word);
	ck_body(r, 400, "{\"message\":{\"error\":\"Scope not supported without Elasticsearch!\"}}");
}
END_TEST

START_TEST(test_search_groups_and_errors)
{
	fx f;
	setup(&f);
	char *gpath;
	long long g = fixture_group(0, &gpath);
	S(gpath);
	long long sub = fixture_subgroup(g, 0, NULL);
	long long gp = fixture_group_project(sub, 0, NULL);
	fixture_member("Namespace", g, f.owner_id, 50);
	ck_code(R(api("PUT", S(fmt("/projects/%lld", gp)), f.owner,
		      S(fmt("name=%s-in-group", f.word)))),
		200);
	const char *gs = S(fmt("/groups/%lld/search", g));
	/* the group's projects (its subgroups' too), not the owner's others */
	resp *r = search(f.owner, gs, "projects", f.word);
	ck_assert_str_eq(values(r, "id"), S(fmt("%lld", gp)));
	r = search(f.owner, S(fmt("/groups/%s/-/search", S(enc(gpath)))), "projects", f.word);
	ck_assert_str_eq(values(r, "id"), S(fmt("%lld", gp)));
	/* a private group is not found by a stranger */
	ck_code(search(f.stranger, gs, "projects", f.word), 404);
	ck_code(search(f.owner, "/groups/999999999/search", "projects", f.word), 404);
	/* scopes each level takes */
	ck_code(search(f.owner, gs, "snippet_titles", f.word), 400);
	ck_code(search(f.owner, S(fmt("/projects/%lld/search", f.pub)), "projects", f.word), 400);
	r = search(f.owner, "/search", "users", f.word);
	ck_body(r, 400, "{\"error\":\"scope does not have a valid value\"}");
	/* what must be given */
	r = R(api("GET", "/search?scope=projects", f.owner, NULL));
	ck_body(r, 400, "{\"message\":\"400 (Bad request) \\\"search\\\" not given\"}");
	r = R(api("GET", S(fmt("/search?search=%s", f.word)), f.owner, NULL));
	ck_body(r, 400, "{\"message\":\"400 (Bad request) \\\"scope\\\" not given\"}");
	ck_code(R(api("GET", S(fmt("/search?scope=projects&search=%s&page=x", f.word)), f.owner,
		      NULL)),
		400);
	ck_code(search(NULL, "/search", "projects", f.word), 401);
	ck_code(search(NULL, gs, "projects", f.word), 401);
	ck_code(search(f.stranger, S(fmt("/projects/%lld/search", f.priv)), "issues", f.word), 404);
}
END_TEST

/* Each level has statements of its own (a project's, a group's, every project's): each
 * finds only its own projects' records, by the same rules of access. */
START_TEST(test_search_each_level)
{
	fx f;
	setup(&f);
	long long g = fixture_group(0, NULL);
	long long gp = fixture_group_project(g, 0, NULL);
	fixture_member("Namespace", g, f.owner_id, 50);
	issue(&f, f.pub, S(fmt("first %s", f.word)), false);
	issue(&f, f.pub, S(fmt("secret %s", f.word)), true);
	issue(&f, f.priv, S(fmt("private %s", f.word)), false);
	issue(&f, gp, S(fmt("grouped %s", f.word)), false);
	const char *ps = S(fmt("/projects/%lld/search", f.pub));
	const char *gs = S(fmt("/groups/%lld/search", g));
	/* a project's: its own issues, a confidential one to whom may read it */
	ck_assert_str_eq(values(search(f.stranger, ps, "issues", f.word), "title"),
			 S(fmt("first %s", f.word)));
	ck_assert_str_eq(values(search(f.owner, ps, "issues", f.word), "title"),
			 S(fmt("secret %s,first %s", f.word, f.word)));
	ck_assert_str_eq(values(search(f.stranger, ps, "issues", "#2"), "title"), "");
	ck_assert_str_eq(values(search(f.owner, ps, "issues", "#2"), "title"),
			 S(fmt("secret %s", f.word)));
	fixture_member("Project", f.pub, f.stranger_id, 20);
	ck_assert_str_eq(values(search(f.stranger, ps, "issues", f.word), "title"),
			 S(fmt("secret %s,first %s", f.word, f.word)));
	/* a group's: its projects' only */
	ck_assert_str_eq(values(search(f.owner, gs, "issues", f.word), "title"),
			 S(fmt("grouped %s", f.word)));
	ck_assert_str_eq(values(search(f.owner, gs, "issues", "#1"), "title"),
			 S(fmt("grouped %s", f.word)));
	/* milestones at each level */
	for (int k = 0; k < 2; k++)
		ck_code(R(api("POST", S(fmt("/projects/%lld/milestones", k ? gp : f.priv)), f.owner,
			      S(fmt("title=ms%d-%s", k, f.word)))),
			201);
	ck_assert_str_eq(values(search(f.owner, gs, "milestones", f.word), "title"),
			 S(fmt("ms1-%s", f.word)));
	ck_assert_str_eq(values(search(f.owner, S(fmt("/projects/%lld/search", f.priv)),
				       "milestones", f.word),
				"title"),
			 S(fmt("ms0-%s", f.word)));
	ck_assert_str_eq(values(search(f.owner, ps, "milestones", f.word), "title"), "");
	/* a private project's merge requests: not to a guest (no code), to its owner */
	ck_code(R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f.priv)), f.owner,
			   "{\"branch\":\"master\",\"commit_message\":\"init\",\"actions\":"
			   "[{\"action\":\"create\",\"file_path\":\"a\",\"content\":\"a\"}]}")),
		201);
	ck_code(R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f.priv)), f.owner,
			   "{\"branch\":\"topic\",\"start_branch\":\"master\","
			   "\"commit_message\":\"t\",\"actions\":[{\"action\":\"create\","
			   "\"file_path\":\"b\",\"content\":\"b\"}]}")),
		201);
	ck_code(R(api("POST", S(fmt("/projects/%lld/merge_requests", f.priv)), f.owner,
		      S(fmt("source_branch=topic&target_branch=master&title=mr-%s", f.word)))),
		201);
	const char *pp = S(fmt("/projects/%lld/search", f.priv));
	fixture_member("Project", f.priv, f.stranger_id, 10);
	ck_assert_str_eq(values(search(f.stranger, pp, "merge_requests", f.word), "title"), "");
	ck_assert_str_eq(values(search(f.stranger, pp, "merge_requests", "!1"), "title"), "");
	ck_assert_str_eq(values(search(f.owner, pp, "merge_requests", f.word), "title"),
			 S(fmt("mr-%s", f.word)));
	/* the tracker or merge requests turned off: nothing, even for the owner */
	ck_code(R(api("PUT", S(fmt("/projects/%lld", f.pub)), f.owner, "issues_enabled=false")),
		200);
	ck_assert_str_eq(values(search(f.owner, ps, "issues", f.word), "title"), "");
	ck_code(R(api("PUT", S(fmt("/projects/%lld", f.priv)), f.owner,
		      "merge_requests_enabled=false")),
		200);
	ck_assert_str_eq(values(search(f.owner, pp, "merge_requests", f.word), "title"), "");
}
END_TEST

/* A file's matching lines as runs with two lines of context each side, runs that touch
 * made one, any case; the pages of the runs. */
START_TEST(test_search_blob_runs)
{
	fx f;
	setup(&f);
	/* the word on lines 1, 4 (one run: 1-6) and 11 (a second: 9-12, the last line) */
	const char *content =
		S(fmt("%s one\\n2\\n3\\nfour %s\\n5\\n6\\n7\\n8\\n9\\n10\\nx%sx\\n12\\n", f.word,
		      f.word, f.word));
	ck_code(R(api_json(
			"POST", S(fmt("/projects/%lld/repository/commits", f.pub)), f.owner,
			S(fmt("{\"branch\":\"master\",\"commit_message\":\"c\",\"actions\":"
			      "[{\"action\":\"create\",\"file_path\":\"a.txt\",\"content\":\"%s\"},"
			      "{\"action\":\"create\",\"file_path\":\"b.txt\",\"content\":"
			      "\"%.4s\\n%s\"}]}",
			      content, f.word, f.word + 4)))),
		201);
	char *upper = S(strdup(f.word));
	for (char *p = upper; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	const char *ps = S(fmt("/projects/%lld/search", f.pub));
	resp *r = search(f.stranger, ps, "blobs", upper);
	ck_assert_str_eq(values(r, "startline"), "1,9");
	ck_assert_str_eq(values(r, "filename"), "a.txt,a.txt");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "data"),
			 S(fmt("%s one\n2\n3\nfour %s\n5\n6\n", f.word, f.word)));
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 1), "data"),
			 S(fmt("9\n10\nx%sx\n12\n", f.word)));
	/* b.txt holds the word split over two lines: not a match */
	r = R(api("GET", S(fmt("%s?scope=blobs&search=%s&per_page=1&page=2", ps, f.word)),
		  f.stranger, NULL));
	ck_assert_str_eq(values(r, "startline"), "9");
	ck_pages(r, ps, S(fmt("scope=blobs&search=%s", f.word)), 2, 1, 2);
}
END_TEST

Suite *suite_search(void)
{
	Suite *s = suite_create("search");
	TCase *tc = tcase_create("search");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_search_projects_and_issues);
	tcase_add_test(tc, test_search_mrs_milestones_snippets_notes);
	tcase_add_test(tc, test_search_repository);
	tcase_add_test(tc, test_search_groups_and_errors);
	tcase_add_test(tc, test_search_each_level);
	tcase_add_test(tc, test_search_blob_runs);
	suite_add_tcase(s, tc);
	return s;
}
