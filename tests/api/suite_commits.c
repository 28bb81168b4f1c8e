/* API suite: commits (spec 4.7): the history, one commit, commits made with actions (and
 * their compare-and-swap on the branch), cherry-picks, diffs, comments and statuses,
 * with access per role on private and public projects. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const COMMIT_FIELDS[] = {"id",
					    "short_id",
					    "title",
					    "created_at",
					    "parent_ids",
					    "message",
					    "author_name",
					    "author_email",
					    "authored_date",
					    "committer_name",
					    "committer_email",
					    "committed_date",
					    NULL};
static const char *const DETAIL_FIELDS[] = {"id",
					    "short_id",
					    "title",
					    "created_at",
					    "parent_ids",
					    "message",
					    "author_name",
					    "author_email",
					    "authored_date",
					    "committer_name",
					    "committer_email",
					    "committed_date",
					    "stats",
					    "status",
					    NULL};

/* A project of a new owner with the given visibility. */
typedef struct {
	long long id;
	long long owner;
	char *token;
} fx;

static void project(fx *f, const char *visibility)
{
	f->token = S(make_user("cm", &f->owner, NULL));
	f->id = api_project(f->token, visibility, NULL);
}

/* POST /repository/commits with one JSON body; the response. */
static resp *commit(const fx *f, const char *token, const char *json)
{
	return R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f->id)), token, json));
}

/* A commit on branch creating path with content: its id. */
static const char *commit_file(const fx *f, const char *branch, const char *path,
			       const char *content)
{
	resp *r = commit(f, f->token,
			 S(fmt("{\"branch\":\"%s\",\"commit_message\":\"add %s\",\"actions\":"
			       "[{\"action\":\"create\",\"file_path\":\"%s\",\"content\":\"%s\"}]}",
			       branch, path, path, content)));
	ck_status(r, 201);
	return jstr(r->json, "id");
}

static const char *branch_tip(const fx *f, const char *branch)
{
	resp *r = R(api("GET", S(fmt("/projects/%lld/repository/commits/%s", f->id, branch)),
			f->token, NULL));
	ck_status(r, 200);
	return jstr(r->json, "id");
}

static void ck_message(resp *r, const char *msg)
{
	ck_status(r, 400);
	ck_jstr(r, "message", msg);
}

START_TEST(test_commits_create_show)
{
	fx f;
	project(&f, "private");
	/* text and base64 in one commit, on the empty repository */
	resp *r = commit(&f, f.token,
			 "{\"branch\":\"master\",\"commit_message\":\"first\\n\\nbody\","
			 "\"author_name\":\"Ann Author\",\"author_email\":\"ann@example.com\","
			 "\"actions\":[{\"action\":\"create\",\"file_path\":\"README.md\","
			 "\"content\":\"hello\\nworld\\n\"},{\"action\":\"create\",\"file_path\":"
			 "\"dir/bin.dat\",\"content\":\"AAEC\",\"encoding\":\"base64\"}]}");
	ck_status(r, 201);
	ck_fields(r->json, DETAIL_FIELDS);
	ck_jstr(r, "title", "first");
	ck_jstr(r, "message", "first\n\nbody");
	ck_jstr(r, "author_name", "Ann Author");
	ck_jstr(r, "author_email", "ann@example.com");
	ck_assert(jnull(r->json, "status"));
	ck_assert_int_eq(json_object_array_length(jget(r->json, "parent_ids")), 0);
	ck_assert_int_eq(jint(jget(r->json, "stats"), "additions"), 2);
	ck_assert_int_eq(jint(jget(r->json, "stats"), "deletions"), 0);
	ck_assert_int_eq(jint(jget(r->json, "stats"), "total"), 2);
	const char *id = jstr(r->json, "id");
	ck_assert_int_eq(strlen(id), 40);
	ck_assert(strlen(jstr(r->json, "short_id")) == 11);
	ck_assert(strncmp(jstr(r->json, "short_id"), id, 11) == 0);
	ck_assert_msg(strlen(jstr(r->json, "created_at")) == 29, "%s", jstr(r->json, "created_at"));
	/* by hash, short hash and branch */
	const char *refs[] = {id, S(strndup(id, 8)), "master"};
	for (int i = 0; i < 3; i++) {
		resp *s =
			R(api("GET", S(fmt("/projects/%lld/repository/commits/%s", f.id, refs[i])),
			      f.token, NULL));
		ck_status(s, 200);
		ck_fields(s->json, DETAIL_FIELDS);
		ck_jstr(s, "id", id);
	}
	ck_body(R(api("GET", S(fmt("/projects/%lld/repository/commits/nope", f.id)), f.token,
		      NULL)),
		404, "{\"message\":\"404 Commit Not Found\"}");
	ck_body(R(api("GET",
		      S(fmt("/projects/%lld/repository/commits/%s", f.id,
			    "0123456789012345678901234567890123456789")),
		      f.token, NULL)),
		404, "{\"message\":\"404 Commit Not Found\"}");
	/* a second commit: update, move, delete */
	r = commit(
		&f, f.token,
		"{\"branch\":\"master\",\"commit_message\":\"second\",\"actions\":["
		"{\"action\":\"update\",\"file_path\":\"README.md\",\"content\":\"hello\\n\"},"
		"{\"action\":\"move\",\"previous_path\":\"dir/bin.dat\",\"file_path\":\"b.dat\"}]}");
	ck_status(r, 201);
	ck_assert_str_eq(
		json_object_get_string(json_object_array_get_idx(jget(r->json, "parent_ids"), 0)),
		id);
	ck_assert_int_eq(jint(jget(r->json, "stats"), "deletions"), 1);
	resp *d = R(api("GET", S(fmt("/projects/%lld/repository/commits/master/diff", f.id)),
			f.token, NULL));
	ck_status(d, 200);
	ck_assert_int_eq(json_object_array_length(d->json), 2);
	bool renamed = false, updated = false;
	for (size_t i = 0; i < 2; i++) {
		json_object *e = json_object_array_get_idx(d->json, i);
		static const char *const fields[] = {"old_path",     "new_path", "a_mode",
						     "b_mode",       "new_file", "renamed_file",
						     "deleted_file", "diff",     NULL};
		ck_fields(e, fields);
		if (jbool(e, "renamed_file")) {
			renamed = true;
			ck_assert_str_eq(jstr(e, "old_path"), "dir/bin.dat");
			ck_assert_str_eq(jstr(e, "new_path"), "b.dat");
		} else {
			updated = true;
			ck_assert_str_eq(jstr(e, "new_path"), "README.md");
			ck_assert_str_eq(jstr(e, "a_mode"), "100644");
			ck_assert_str_eq(
				jstr(e, "diff"),
				"--- a/README.md\n+++ b/README.md\n@@ -1,2 +1 @@\n hello\n-world\n");
		}
	}
	ck_assert(renamed && updated);
	r = commit(&f, f.token,
		   "{\"branch\":\"master\",\"commit_message\":\"third\",\"actions\":["
		   "{\"action\":\"delete\",\"file_path\":\"b.dat\"}]}");
	ck_status(r, 201);
	d = R(api("GET", S(fmt("/projects/%lld/repository/commits/master/diff", f.id)), f.token,
		  NULL));
	ck_status(d, 200);
	ck_assert(jbool(json_object_array_get_idx(d->json, 0), "deleted_file"));
	ck_assert_str_eq(jstr(json_object_array_get_idx(d->json, 0), "b_mode"), "0");
}
END_TEST

START_TEST(test_commits_create_errors)
{
	fx f;
	project(&f, "private");
	commit_file(&f, "master", "a.txt", "a");
	const char *tip = branch_tip(&f, "master");
	const char *c = S(fmt("/projects/%lld/repository/commits", f.id));
	ck_body(R(api_json("POST", c, f.token, "{\"commit_message\":\"m\",\"actions\":[]}")), 400,
		"{\"message\":\"400 (Bad request) \\\"branch\\\" not given\"}");
	ck_body(R(api_json("POST", c, f.token, "{\"branch\":\"master\",\"actions\":[]}")), 400,
		"{\"message\":\"400 (Bad request) \\\"commit_message\\\" not given\"}");
	ck_body(R(api_json("POST", c, f.token, "{\"branch\":\"master\",\"commit_message\":\"m\"}")),
		400, "{\"message\":\"400 (Bad request) \\\"actions\\\" not given\"}");
	ck_body(commit(&f, f.token,
		       "{\"branch\":\"master\",\"commit_message\":\"m\",\"actions\":"
		       "[{\"action\":\"chmod\",\"file_path\":\"a.txt\"}]}"),
		400, "{\"error\":\"actions[action] does not have a valid value\"}");
	ck_message(commit(&f, f.token,
			  "{\"branch\":\"master\",\"commit_message\":\"m\",\"actions\":"
			  "[{\"action\":\"create\",\"file_path\":\"a.txt\",\"content\":\"x\"}]}"),
		   "A file with this name already exists");
	ck_message(commit(&f, f.token,
			  "{\"branch\":\"master\",\"commit_message\":\"m\",\"actions\":"
			  "[{\"action\":\"update\",\"file_path\":\"b.txt\",\"content\":\"x\"}]}"),
		   "A file with this name doesn't exist");
	ck_message(commit(&f, f.token,
			  "{\"branch\":\"master\",\"commit_message\":\"m\",\"actions\":"
			  "[{\"action\":\"delete\",\"file_path\":\"b.txt\"}]}"),
		   "A file with this name doesn't exist");
	ck_message(
		commit(&f, f.token,
		       "{\"branch\":\"master\",\"commit_message\":\"m\",\"actions\":"
		       "[{\"action\":\"create\",\"file_path\":\"c.txt\",\"content\":\"x\"},"
		       "{\"action\":\"move\",\"previous_path\":\"c.txt\",\"file_path\":\"a.txt\"}]}"),
		"A file with this name already exists");
	ck_message(commit(&f, f.token,
			  "{\"branch\":\"master\",\"commit_message\":\"m\",\"actions\":"
			  "[{\"action\":\"create\",\"file_path\":\"../x\",\"content\":\"x\"}]}"),
		   "Path cannot include directory traversal");
	ck_message(
		commit(&f, f.token,
		       "{\"branch\":\"feature\",\"start_branch\":\"nope\",\"commit_message\":\"m\","
		       "\"actions\":[{\"action\":\"create\",\"file_path\":\"n\",\"content\":\"x\"}]}"),
		"You can only create or edit files when you are on a branch");
	commit_file(&f, "master", "d.txt", "d");
	tip = branch_tip(&f, "master");
	ck_status(
		commit(&f, f.token,
		       "{\"branch\":\"feature\",\"start_branch\":\"master\",\"commit_message\":\"m\","
		       "\"actions\":[{\"action\":\"create\",\"file_path\":\"f\",\"content\":\"x\"}]}"),
		201);
	ck_message(
		commit(&f, f.token,
		       "{\"branch\":\"feature\",\"start_branch\":\"master\",\"commit_message\":\"m\","
		       "\"actions\":[{\"action\":\"create\",\"file_path\":\"g\",\"content\":\"x\"}]}"),
		"A branch called 'feature' already exists. Switch to that branch in order to "
		"make changes");
	ck_body(commit(&f, f.token,
		       "{\"branch\":\"master\",\"commit_message\":\"m\",\"actions\":[1]}"),
		400, "{\"error\":\"actions is invalid\"}");
	/* nothing moved */
	ck_assert_str_eq(branch_tip(&f, "master"), tip);
	/* the feature branch started from master */
	resp *r = R(api("GET", S(fmt("/projects/%lld/repository/commits/feature", f.id)), f.token,
			NULL));
	ck_assert_str_eq(
		json_object_get_string(json_object_array_get_idx(jget(r->json, "parent_ids"), 0)),
		tip);
}
END_TEST

/* A commit creating file n on branch from start (NULL: none), as JSON. */
static const char *commit_json(const char *branch, const char *start)
{
	json_object *o = json_object_new_object(), *acts = json_object_new_array(),
		    *act = json_object_new_object();
	json_object_object_add(o, "branch", json_object_new_string(branch));
	if (start)
		json_object_object_add(o, "start_branch", json_object_new_string(start));
	json_object_object_add(o, "commit_message", json_object_new_string("m"));
	json_object_object_add(act, "action", json_object_new_string("create"));
	json_object_object_add(act, "file_path", json_object_new_string("n"));
	json_object_object_add(act, "content", json_object_new_string("x"));
	json_object_array_add(acts, act);
	json_object_object_add(o, "actions", acts);
	char *s = S(strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)));
	json_object_put(o);
	return s;
}

/* Every name no branch may have, as the branch a commit goes to (GitLab 10's words for
 * a branch it would create, and for one that is not there), as the branch it starts
 * from, or as the branch of a cherry-pick: 400 (404) and no branch moves or appears; as
 * a ref to read from, a 404, never a 500. An empty repository's first commit too. */
START_TEST(test_commits_bad_branch_names)
{
	fx f, empty;
	project(&f, "private");
	project(&empty, "private");
	const char *sha = commit_file(&f, "master", "a.txt", "a");
	const char *branches = S(fmt("/projects/%lld/repository/branches", f.id));
	const char *before = R(api("GET", branches, f.token, NULL))->body;
	const char *pick = S(fmt("/projects/%lld/repository/commits/%s/cherry_pick", f.id, sha));
	for (const char *const *n = bad_ref_names; *n; n++) {
		const char *created = S(fmt("Something went wrong when we tried to create '%s' for "
					    "you: Branch name is invalid",
					    *n));
		const char *off = "You can only create or edit files when you are on a branch";
		resp *r = commit(&f, f.token, commit_json(*n, "master"));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), created) == 0,
			      "branch %s: %ld %s", *n, r->status, r->body);
		r = commit(&f, f.token, commit_json(*n, NULL));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), off) == 0,
			      "same branch %s: %ld %s", *n, r->status, r->body);
		r = commit(&f, f.token, commit_json("fresh", *n));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), off) == 0,
			      "start branch %s: %ld %s", *n, r->status, r->body);
		r = commit(&empty, empty.token, commit_json(*n, NULL));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), created) == 0,
			      "empty, branch %s: %ld %s", *n, r->status, r->body);
		ck_body(R(api("POST", pick, f.token, S(fmt("branch=%s", S(enc(*n)))))), 404,
			"{\"message\":\"404 Branch Not Found\"}");
		r = R(api("GET",
			  S(fmt("/projects/%lld/repository/commits?ref_name=%s", f.id, S(enc(*n)))),
			  f.token, NULL));
		ck_assert_msg(r->status == 404 || r->status == 400 || r->status == 200,
			      "list %s: %ld", *n, r->status);
		r = R(api("GET", S(fmt("/projects/%lld/repository/commits/%s", f.id, S(enc(*n)))),
			  f.token, NULL));
		ck_assert_msg(r->status == 404 || r->status == 400, "show %s: %ld", *n, r->status);
	}
	ck_assert_str_eq(R(api("GET", branches, f.token, NULL))->body, before);
	ck_assert_str_eq(branch_tip(&f, "master"), sha);
	ck_assert_str_eq(R(api("GET", S(fmt("/projects/%lld/repository/branches", empty.id)),
			       empty.token, NULL))
				 ->body,
			 "[]");
}
END_TEST

START_TEST(test_commits_list)
{
	fx f;
	project(&f, "private");
	const char *list = S(fmt("/projects/%lld/repository/commits", f.id));
	resp *r = R(api("GET", list, f.token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	const char *ids[3];
	ids[0] = commit_file(&f, "master", "one", "1");
	ids[1] = commit_file(&f, "master", "sub/two", "2");
	ids[2] = commit_file(&f, "master", "three", "3");
	ck_status(commit(&f, f.token,
			 "{\"branch\":\"other\",\"start_branch\":\"master\",\"commit_message\":"
			 "\"o\",\"actions\":[{\"action\":\"create\",\"file_path\":\"x\","
			 "\"content\":\"x\"}]}"),
		  201);
	r = R(api("GET", S(fmt("%s?per_page=2", list)), f.token, NULL));
	ck_status(r, 200);
	ck_pages(r, list, "", 3, 2, 1);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_fields(json_object_array_get_idx(r->json, 0), COMMIT_FIELDS);
	r = R(api("GET", S(fmt("%s?per_page=2&page=2", list)), f.token, NULL));
	ck_pages(r, list, "", 3, 2, 2);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "id"), ids[0]);
	/* path, ref_name, since and until */
	r = R(api("GET", S(fmt("%s?path=sub", list)), f.token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "id"), ids[1]);
	r = R(api("GET", S(fmt("%s?ref_name=other", list)), f.token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 4);
	r = R(api("GET", S(fmt("%s?ref_name=nope", list)), f.token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	r = R(api("GET", S(fmt("%s?since=2999-01-01T00:00:00Z", list)), f.token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	r = R(api("GET", S(fmt("%s?until=2999-01-01T00:00:00Z&since=2000-01-01", list)), f.token,
		  NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	ck_body(R(api("GET", S(fmt("%s?since=yesterday", list)), f.token, NULL)), 400,
		"{\"error\":\"since is invalid\"}");
}
END_TEST

START_TEST(test_commits_access)
{
	static const char *const vis[] = {"private", "public"};
	for (int v = 0; v < 2; v++) {
		fx f;
		project(&f, vis[v]);
		const char *tip = commit_file(&f, "master", "a", "a");
		long long uid[4];
		char *tok[4];
		int levels[4] = {10, 20, 30, 40};
		for (int i = 0; i < 4; i++) {
			tok[i] = S(make_user("cmr", &uid[i], NULL));
			fixture_member("Project", f.id, uid[i], levels[i]);
		}
		const char *show = S(fmt("/projects/%lld/repository/commits/%s", f.id, tip));
		const char *list = S(fmt("/projects/%lld/repository/commits", f.id));
		bool pub = v == 1;
		ck_code(R(api("GET", show, NULL, NULL)), pub ? 200 : 404);
		ck_code(R(api("GET", list, NULL, NULL)), pub ? 200 : 404);
		ck_code(R(api("GET", show, tok[0], NULL)), pub ? 200 : 403);
		ck_code(R(api("GET", S(fmt("%s/diff", show)), tok[0], NULL)), pub ? 200 : 403);
		for (int i = 1; i < 4; i++)
			ck_code(R(api("GET", show, tok[i], NULL)), 200);
#define body                                                                                       \
	"{\"branch\":\"master\",\"commit_message\":\"m\",\"actions\":"                             \
	"[{\"action\":\"create\",\"file_path\":\"%s\",\"content\":\"x\"}]}"
		ck_code(commit(&f, NULL, S(fmt(body, "n0"))), 401);
		ck_code(commit(&f, tok[0], S(fmt(body, "n1"))), 403);
		ck_code(commit(&f, tok[1], S(fmt(body, "n2"))), 403);
		ck_code(commit(&f, tok[2], S(fmt(body, "n3"))), 201);
		ck_code(commit(&f, tok[3], S(fmt(body, "n4"))), 201);
		ck_code(commit(&f, admin_token(), S(fmt(body, "n5"))), 201);
		/* a protected branch: masters only */
		free(sql_value("INSERT INTO protected_branches (project_id, name, push_access_level,"
			       " merge_access_level) VALUES (%lld, 'mast*', 40, 40)",
			       f.id));
		ck_message(commit(&f, tok[2], S(fmt(body, "n6"))),
			   "You are not allowed to push into this branch");
		ck_code(commit(&f, tok[3], S(fmt(body, "n7"))), 201);
		ck_code(commit(&f, f.token, S(fmt(body, "n8"))), 201);
		/* developers may start another branch */
		ck_code(commit(&f, tok[2],
			       "{\"branch\":\"dev\",\"start_branch\":\"master\",\"commit_message\":\"m\","
			       "\"actions\":[{\"action\":\"create\",\"file_path\":\"d\",\"content\":\"x\"}]}"),
			201);
#undef body
	}
}
END_TEST

/* ---- two writers from one base ---- */

struct racer {
	const fx *f;
	const char *body;
	long status;
	char message[256];
};

static void *race(void *arg)
{
	struct racer *x = arg;
	char *url = fmt("/projects/%lld/repository/commits", x->f->id);
	resp *r = api_json("POST", url, x->f->token, x->body);
	free(url);
	x->status = r->status;
	snprintf(x->message, sizeof(x->message), "%s",
		 r->json && jstr(r->json, "message") ? jstr(r->json, "message") : "");
	resp_free(r);
	return NULL;
}

START_TEST(test_commits_compare_and_swap)
{
	fx f;
	project(&f, "private");
	commit_file(&f, "master", "base", "b");
	const char *list = S(fmt("/projects/%lld/repository/commits", f.id));
	for (int round = 0; round < 6; round++) {
		resp *before = R(api("GET", list, f.token, NULL));
		long long n = atoll(resp_header(before, "X-Total"));
#define RACE                                                                                       \
	"{\"branch\":\"master\",\"commit_message\":\"race %d-%c\",\"actions\":"                    \
	"[{\"action\":\"create\",\"file_path\":\"same-%d\",\"content\":\"x\"}]}"
		struct racer x[2] = {{&f, S(fmt(RACE, round, 'a', round)), 0, ""},
				     {&f, S(fmt(RACE, round, 'b', round)), 0, ""}};
#undef RACE
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, race, &x[i]);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		int won = (x[0].status == 201) + (x[1].status == 201);
		int lost = (x[0].status == 400) + (x[1].status == 400);
		ck_assert_msg(won == 1 && lost == 1, "round %d: %ld %ld", round, x[0].status,
			      x[1].status);
		const char *msg = x[0].status == 400 ? x[0].message : x[1].message;
		ck_assert_msg(strcmp(msg,
				     "You are attempting to update a file that has changed since "
				     "you started editing it.") == 0 ||
				      strcmp(msg, "A file with this name already exists") == 0,
			      "%s", msg);
		resp *after = R(api("GET", list, f.token, NULL));
		ck_assert_int_eq(atoll(resp_header(after, "X-Total")), n + 1);
	}
}
END_TEST

/* API writes are pushes: each records what a push of its ref records (git/hooks.h). */
static json_object *last_event(const fx *f)
{
	resp *r = R(api("GET", S(fmt("/projects/%lld/events", f->id)), f->token, NULL));
	ck_status(r, 200);
	return json_object_array_get_idx(r->json, 0);
}

START_TEST(test_commits_push_events)
{
	fx f;
	project(&f, "private");
	resp *r = R(api("GET", S(fmt("/projects/%lld", f.id)), f.token, NULL));
	ck_assert(jnull(r->json, "default_branch"));
	/* the first commit, on a branch of an empty repository: it becomes the default */
	const char *first = commit_file(&f, "feature/one", "a.txt", "a");
	r = R(api("GET", S(fmt("/projects/%lld", f.id)), f.token, NULL));
	ck_assert_str_eq(jstr(r->json, "default_branch"), "feature/one");
	json_object *e = last_event(&f);
	ck_assert_str_eq(jstr(e, "action_name"), "pushed new");
	json_object *pd = jget(e, "push_data");
	ck_assert_str_eq(jstr(pd, "action"), "created");
	ck_assert_str_eq(jstr(pd, "ref_type"), "branch");
	ck_assert_str_eq(jstr(pd, "ref"), "feature/one");
	ck_assert_str_eq(jstr(pd, "commit_to"), first);
	ck_assert_str_eq(jstr(pd, "commit_title"), "add a.txt");
	ck_assert_int_eq(jint(pd, "commit_count"), 1);
	ck_assert(jnull(pd, "commit_from"));
	ck_assert_int_eq(jint(e, "author_id"), f.owner);
	/* the next: pushed to, from the previous tip; a push job for CI */
	const char *second = commit_file(&f, "feature/one", "b.txt", "b");
	pd = jget(e = last_event(&f), "push_data");
	ck_assert_str_eq(jstr(e, "action_name"), "pushed to");
	ck_assert_str_eq(jstr(pd, "commit_from"), first);
	ck_assert_str_eq(jstr(pd, "commit_to"), second);
	ck_assert(push_job_seen(f.id, "refs/heads/feature/one", second));
	/* a write refused (the file exists) records nothing */
	long long events = sql_int("SELECT count(*) FROM events WHERE project_id = %lld", f.id);
	r = commit(&f, f.token,
		   "{\"branch\":\"feature/one\",\"commit_message\":\"again\",\"actions\":"
		   "[{\"action\":\"create\",\"file_path\":\"a.txt\",\"content\":\"x\"}]}");
	ck_status(r, 400);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM events WHERE project_id = %lld", f.id),
			 events);
	/* a branch and a tag made and removed through the API */
	r = R(api("POST",
		  S(fmt("/projects/%lld/repository/branches?branch=b2&ref=%s", f.id, first)),
		  f.token, NULL));
	ck_status(r, 201);
	pd = jget(e = last_event(&f), "push_data");
	ck_assert_str_eq(jstr(e, "action_name"), "pushed new");
	ck_assert_str_eq(jstr(pd, "ref"), "b2");
	ck_assert_str_eq(jstr(pd, "commit_to"), first);
	r = R(api("DELETE", S(fmt("/projects/%lld/repository/branches/b2", f.id)), f.token, NULL));
	ck_status(r, 204);
	pd = jget(e = last_event(&f), "push_data");
	ck_assert_str_eq(jstr(e, "action_name"), "deleted");
	ck_assert_str_eq(jstr(pd, "action"), "removed");
	ck_assert_str_eq(jstr(pd, "commit_from"), first);
	ck_assert(jnull(pd, "commit_to"));
	r = R(api("POST", S(fmt("/projects/%lld/repository/tags?tag_name=v1&ref=%s", f.id, second)),
		  f.token, NULL));
	ck_status(r, 201);
	pd = jget(e = last_event(&f), "push_data");
	ck_assert_str_eq(jstr(pd, "ref_type"), "tag");
	ck_assert_str_eq(jstr(pd, "ref"), "v1");
	r = R(api("DELETE", S(fmt("/projects/%lld/repository/tags/v1", f.id)), f.token, NULL));
	ck_status(r, 204);
	pd = jget(e = last_event(&f), "push_data");
	ck_assert_str_eq(jstr(e, "action_name"), "deleted");
	ck_assert_str_eq(jstr(pd, "ref_type"), "tag");
}
END_TEST

START_TEST(test_commits_cherry_pick)
{
	fx f;
	project(&f, "private");
	commit_file(&f, "master", "a", "a");
	ck_status(
		commit(&f, f.token,
		       "{\"branch\":\"feature\",\"start_branch\":\"master\",\"commit_message\":\"feat\","
		       "\"actions\":[{\"action\":\"create\",\"file_path\":\"f\",\"content\":\"x\"}]}"),
		201);
	const char *feat = branch_tip(&f, "feature");
	const char *pick = S(fmt("/projects/%lld/repository/commits/%s/cherry_pick", f.id, feat));
	ck_body(R(api("POST", pick, f.token, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"branch\\\" not given\"}");
	ck_body(R(api("POST", pick, f.token, "branch=nope")), 404,
		"{\"message\":\"404 Branch Not Found\"}");
	ck_body(R(api("POST",
		      S(fmt("/projects/%lld/repository/commits/%s/cherry_pick", f.id, "abcdef1234")),
		      f.token, "branch=master")),
		404, "{\"message\":\"404 Commit Not Found\"}");
	resp *r = R(api("POST", pick, f.token, "branch=master"));
	ck_status(r, 201);
	ck_fields(r->json, COMMIT_FIELDS);
	ck_assert_msg(strstr(jstr(r->json, "message"),
			     S(fmt("(cherry picked from commit %s)", feat))),
		      "%s", r->body);
	ck_assert_str_eq(branch_tip(&f, "master"), jstr(r->json, "id"));
	ck_message(
		R(api("POST", pick, f.token, "branch=master")),
		"Sorry, we cannot cherry-pick this commit automatically. This commit may already "
		"have been cherry-picked, or a more recent commit may have updated some of its "
		"content.");
	long long uid;
	char *rep = S(make_user("cmp", &uid, NULL));
	fixture_member("Project", f.id, uid, 20);
	ck_code(R(api("POST", pick, rep, "branch=master")), 403);
}
END_TEST

START_TEST(test_commits_comments)
{
	static const char *const NOTE_FIELDS[] = {"note",   "path",       "line", "line_type",
						  "author", "created_at", NULL};
	fx f;
	project(&f, "public");
	const char *sha = commit_file(&f, "master", "doc.txt", "l1\\nl2\\n");
	const char *url = S(fmt("/projects/%lld/repository/commits/%s/comments", f.id, sha));
	resp *r = R(api("POST", url, f.token, "note=plain"));
	ck_status(r, 201);
	ck_fields(r->json, NOTE_FIELDS);
	ck_jstr(r, "note", "plain");
	ck_assert(jnull(r->json, "path") && jnull(r->json, "line") && jnull(r->json, "line_type"));
	ck_assert_int_eq(jint(jget(r->json, "author"), "id"), f.owner);
	r = R(api("POST", url, f.token, "note=on+a+line&path=doc.txt&line=2&line_type=new"));
	ck_status(r, 201);
	ck_jstr(r, "path", "doc.txt");
	ck_assert_int_eq(jint(r->json, "line"), 2);
	ck_jstr(r, "line_type", "new");
	/* not a line of the diff, or the sha a branch: at the end, no line */
	r = R(api("POST", url, f.token, "note=far&path=doc.txt&line=9&line_type=new"));
	ck_assert(jnull(r->json, "path") && jnull(r->json, "line"));
	r = R(api("POST", S(fmt("/projects/%lld/repository/commits/master/comments", f.id)),
		  f.token, "note=branch&path=doc.txt&line=2&line_type=new"));
	ck_status(r, 201);
	ck_assert(jnull(r->json, "path"));
	ck_body(R(api("POST", url, f.token, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"note\\\" not given\"}");
	ck_body(R(api("POST", url, f.token, "note=x&line_type=mid")), 400,
		"{\"error\":\"line_type does not have a valid value\"}");
	ck_code(R(api("POST", url, NULL, "note=x")), 401);
	r = R(api("GET", S(fmt("%s?per_page=3", url)), NULL, NULL));
	ck_status(r, 200);
	ck_pages(r, url, "", 4, 3, 1);
	ck_fields(json_object_array_get_idx(r->json, 0), NOTE_FIELDS);
	ck_body(R(api("GET", S(fmt("/projects/%lld/repository/commits/nope/comments", f.id)), NULL,
		      NULL)),
		404, "{\"message\":\"404 Commit Not Found\"}");
	/* a guest of a private project neither reads nor comments */
	fx p;
	project(&p, "private");
	const char *psha = commit_file(&p, "master", "a", "a");
	long long uid;
	char *guest = S(make_user("cmg", &uid, NULL));
	fixture_member("Project", p.id, uid, 10);
	const char *purl = S(fmt("/projects/%lld/repository/commits/%s/comments", p.id, psha));
	ck_code(R(api("GET", purl, guest, NULL)), 403);
	ck_code(R(api("POST", purl, guest, "note=x")), 403);
	ck_code(R(api("GET", purl, NULL, NULL)), 404);
}
END_TEST

START_TEST(test_commits_statuses)
{
	static const char *const STATUS_FIELDS[] = {
		"id",         "sha",         "ref",           "status",
		"name",       "target_url",  "description",   "created_at",
		"started_at", "finished_at", "allow_failure", "coverage",
		"author",     NULL};
	fx f;
	project(&f, "private");
	const char *sha = commit_file(&f, "master", "a", "a");
	const char *post = S(fmt("/projects/%lld/statuses/%s", f.id, sha));
	const char *list = S(fmt("/projects/%lld/repository/commits/%s/statuses", f.id, sha));
	resp *r = R(
		api("POST", post, f.token,
		    "state=pending&target_url=http%3A%2F%2Fci%2F1&description=wait&coverage=50.5"));
	ck_status(r, 201);
	ck_fields(r->json, STATUS_FIELDS);
	ck_jstr(r, "status", "pending");
	ck_jstr(r, "name", "default");
	ck_jstr(r, "ref", "master");
	ck_jstr(r, "sha", sha);
	ck_jstr(r, "target_url", "http://ci/1");
	ck_assert(jnull(r->json, "started_at"));
	long long id = jint(r->json, "id");
	ck_message(R(api("POST", post, f.token, "state=pending")),
		   "Cannot transition status via :enqueue from :pending (Reason(s): Status cannot "
		   "transition via \"enqueue\")");
	r = R(api("POST", post, f.token, "state=running"));
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), id);
	ck_jstr(r, "status", "running");
	ck_jstr(r, "description", "wait");
	ck_assert(!jnull(r->json, "started_at"));
	r = R(api("POST", post, f.token, "state=success"));
	ck_assert_int_eq(jint(r->json, "id"), id);
	ck_jstr(r, "status", "success");
	ck_assert(!jnull(r->json, "finished_at"));
	r = R(api("GET", S(fmt("/projects/%lld/repository/commits/%s", f.id, sha)), f.token, NULL));
	ck_jstr(r, "status", "success");
	/* a new one after a finished one; another name fails */
	ck_jstr(R(api("POST", post, f.token, "state=pending")), "status", "pending");
	ck_jstr(R(api("POST", post, f.token, "state=failed&context=lint")), "name", "lint");
	/* GitLab's composite status: one pending and one failed is running */
	r = R(api("GET", S(fmt("/projects/%lld/repository/commits/%s", f.id, sha)), f.token, NULL));
	ck_jstr(r, "status", "running");
	r = R(api("GET", list, f.token, NULL));
	ck_status(r, 200);
	ck_pages(r, list, "", 2, 20, 1);
	ck_fields(json_object_array_get_idx(r->json, 0), STATUS_FIELDS);
	r = R(api("GET", S(fmt("%s?all=true", list)), f.token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	r = R(api("GET", S(fmt("%s?name=lint", list)), f.token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	r = R(api("GET", S(fmt("%s?ref=other", list)), f.token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	/* errors and access */
	ck_body(R(api("POST", post, f.token, "state=done")), 400,
		"{\"error\":\"state does not have a valid value\"}");
	ck_body(R(api("POST", post, f.token, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"state\\\" not given\"}");
	ck_body(R(api("POST", S(fmt("/projects/%lld/statuses/abcdef12", f.id)), f.token,
		      "state=success")),
		404, "{\"message\":\"404 Commit Not Found\"}");
	ck_code(R(api("GET", list, NULL, NULL)), 401);
	long long uid[2];
	char *rep = S(make_user("cms", &uid[0], NULL)), *dev = S(make_user("cms", &uid[1], NULL));
	fixture_member("Project", f.id, uid[0], 20);
	fixture_member("Project", f.id, uid[1], 30);
	ck_code(R(api("GET", list, rep, NULL)), 200);
	ck_code(R(api("POST", post, rep, "state=success")), 403);
	ck_code(R(api("POST", post, dev, "state=success")), 201);
}
END_TEST

/* ---- GET .../commits/:sha/refs ---- */

static void ck_refs(resp *r, const char *const *want)
{
	ck_status(r, 200);
	size_t n = 0;
	while (want[n])
		n++;
	ck_assert_msg(json_object_array_length(r->json) == n, "%s", r->body);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(r->json, i);
		static const char *const fields[] = {"type", "name", NULL};
		ck_fields(o, fields);
		ck_assert_str_eq(S(fmt("%s:%s", jstr(o, "type"), jstr(o, "name"))), want[i]);
	}
}

START_TEST(test_commits_refs)
{
	fx f;
	project(&f, "private");
	const char *first = commit_file(&f, "master", "a", "a");
	/* b-old branches at first; master and z-new move on; a lightweight and an annotated
	 * tag at first, one tag at the new tip */
	ck_code(R(api("POST", S(fmt("/projects/%lld/repository/branches", f.id)), f.token,
		      "branch=b-old&ref=master")),
		201);
	const char *second = commit_file(&f, "master", "b", "b");
	ck_code(R(api("POST", S(fmt("/projects/%lld/repository/branches", f.id)), f.token,
		      "branch=z-new&ref=master")),
		201);
	ck_code(R(api("POST", S(fmt("/projects/%lld/repository/tags", f.id)), f.token,
		      S(fmt("tag_name=v1&ref=%s", first)))),
		201);
	ck_code(R(api("POST", S(fmt("/projects/%lld/repository/tags", f.id)), f.token,
		      S(fmt("tag_name=v1-annotated&ref=%s&message=one", first)))),
		201);
	ck_code(R(api("POST", S(fmt("/projects/%lld/repository/tags", f.id)), f.token,
		      "tag_name=v2&ref=master")),
		201);
	const char *base = S(fmt("/projects/%lld/repository/commits/%s/refs", f.id, first));
	static const char *const all_first[] = {"branch:b-old",
						"branch:master",
						"branch:z-new",
						"tag:v1",
						"tag:v1-annotated",
						"tag:v2",
						NULL};
	ck_refs(R(api("GET", base, f.token, NULL)), all_first);
	ck_refs(R(api("GET", S(fmt("%s?type=all", base)), f.token, NULL)), all_first);
	static const char *const branches[] = {"branch:b-old", "branch:master", "branch:z-new",
					       NULL};
	ck_refs(R(api("GET", S(fmt("%s?type=branch", base)), f.token, NULL)), branches);
	static const char *const tags_second[] = {"tag:v2", NULL};
	ck_refs(R(api("GET",
		      S(fmt("/projects/%lld/repository/commits/%s/refs?type=tag", f.id, second)),
		      f.token, NULL)),
		tags_second);
	static const char *const all_second[] = {"branch:master", "branch:z-new", "tag:v2", NULL};
	ck_refs(R(api("GET", S(fmt("/projects/%lld/repository/commits/master/refs", f.id)), f.token,
		      NULL)),
		all_second);
	/* pages over branches and tags together */
	resp *r = R(api("GET", S(fmt("%s?per_page=2&page=2", base)), f.token, NULL));
	static const char *const page2[] = {"branch:z-new", "tag:v1", NULL};
	ck_refs(r, page2);
	ck_pages(r, S(fmt("/projects/%lld/repository/commits/%s/refs", f.id, first)), "", 6, 2, 2);
	/* errors */
	ck_code(R(api("GET", S(fmt("%s?type=heads", base)), f.token, NULL)), 400);
	ck_code(R(api("GET", S(fmt("%s?page=x", base)), f.token, NULL)), 400);
	r = R(api("GET",
		  S(fmt("/projects/%lld/repository/commits/%s/refs", f.id,
			"0123456789012345678901234567890123456789")),
		  f.token, NULL));
	ck_body(r, 404, "{\"message\":\"404 Commit Not Found\"}");
	ck_code(R(api("GET", base, NULL, NULL)), 404);
	long long other;
	char *stranger = S(make_user("cmx", &other, NULL));
	ck_code(R(api("GET", base, stranger, NULL)), 404);
	ck_code(R(api("GET",
		      S(fmt("/projects/%lld/repository/commits/%s/refs", f.id + 100000, first)),
		      f.token, NULL)),
		404);
}
END_TEST

Suite *suite_commits(void)
{
	Suite *s = suite_create("commits");
	TCase *tc = tcase_create("commits");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_commits_create_show);
	tcase_add_test(tc, test_commits_create_errors);
	tcase_add_test(tc, test_commits_bad_branch_names);
	tcase_add_test(tc, test_commits_list);
	tcase_add_test(tc, test_commits_access);
	tcase_add_test(tc, test_commits_compare_and_swap);
	tcase_add_test(tc, test_commits_push_events);
	tcase_add_test(tc, test_commits_cherry_pick);
	tcase_add_test(tc, test_commits_comments);
	tcase_add_test(tc, test_commits_statuses);
	tcase_add_test(tc, test_commits_refs);
	suite_add_tcase(s, tc);
	return s;
}
