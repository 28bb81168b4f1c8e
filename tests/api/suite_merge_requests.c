/* API suite: merge requests (spec 4.6 and the operations of GitLab 10): create (its
 * errors: 400, 403, 404, 409, 422), the record's shape, the lists with their filters,
 * view=simple and pagination, edit with state events, system notes and events,
 * delete, subscriptions, participants, closes_issues, merge_when_pipeline_succeeds and
 * its cancellation, the access matrix on private and public projects, merge_status
 * from the background process after pushes, and the git flow with stock git: push a
 * branch, open a request, its commits and changes, a comment, the merge (stale sha 409,
 * conflicts 406, not mergeable 405, no rights 401), the merge commit on the target
 * branch, the issue it closes, the project's merge_method (ff: the target moved to the
 * source's head, refused with 406 once it cannot fast-forward; rebase_merge), two
 * instances merging at once, and a fork's request merged into its source. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

static const char *const BASIC_FIELDS[] = {"id",
					   "iid",
					   "project_id",
					   "title",
					   "description",
					   "state",
					   "created_at",
					   "updated_at",
					   "target_branch",
					   "source_branch",
					   "upvotes",
					   "downvotes",
					   "author",
					   "assignee",
					   "source_project_id",
					   "target_project_id",
					   "labels",
					   "work_in_progress",
					   "milestone",
					   "merge_when_pipeline_succeeds",
					   "merge_status",
					   "sha",
					   "merge_commit_sha",
					   "user_notes_count",
					   "discussion_locked",
					   "should_remove_source_branch",
					   "force_remove_source_branch",
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
					    "target_branch",
					    "source_branch",
					    "upvotes",
					    "downvotes",
					    "author",
					    "assignee",
					    "source_project_id",
					    "target_project_id",
					    "labels",
					    "work_in_progress",
					    "milestone",
					    "merge_when_pipeline_succeeds",
					    "merge_status",
					    "sha",
					    "merge_commit_sha",
					    "user_notes_count",
					    "discussion_locked",
					    "should_remove_source_branch",
					    "force_remove_source_branch",
					    "web_url",
					    "time_stats",
					    "subscribed",
					    "merged_by",
					    "merged_at",
					    "closed_by",
					    "closed_at",
					    "latest_build_started_at",
					    "latest_build_finished_at",
					    "first_deployed_to_production_at",
					    "pipeline",
					    NULL};
static const char *const SIMPLE_FIELDS[] = {"id",          "iid",   "project_id", "title",
					    "description", "state", "created_at", "updated_at",
					    "web_url",     NULL};

static char *work; /* git's scratch directory */

static void setup(void)
{
	work = git_work_new();
}

static void release_all(void)
{
	release();
	git_work_remove(work);
}

/* ---- a project with one user per role, and a repository ---- */

typedef struct {
	long long id;
	char *path;
	char *owner, *guest, *reporter, *developer, *master, *stranger, *admin;
	long long owner_id, guest_id, reporter_id, developer_id, master_id, stranger_id;
	char *developer_name;
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

static const char *P(const world *w, const char *suffix)
{
	return S(fmt("/projects/%lld%s", w->id, suffix));
}

static const char *M(const world *w, long long iid, const char *suffix)
{
	return S(fmt("/projects/%lld/merge_requests/%lld%s", w->id, iid, suffix));
}

/* A commit of one file (create or update) on branch (from start when not NULL) of
 * project id as token: the new commit's id. */
static const char *commit_to(long long id, const char *token, const char *branch, const char *start,
			     const char *action, const char *file, const char *content,
			     const char *message)
{
	resp *r = R(api_json(
		"POST", S(fmt("/projects/%lld/repository/commits", id)), token,
		S(fmt("{\"branch\":\"%s\",%s\"commit_message\":\"%s\",\"actions\":[{\"action\":"
		      "\"%s\",\"file_path\":\"%s\",\"content\":\"%s\"}]}",
		      branch, start ? S(fmt("\"start_branch\":\"%s\",", start)) : "", message,
		      action, file, content))));
	ck_assert_msg(r->status == 201, "commit: %ld %s", r->status, r->body);
	return jstr(r->json, "id");
}

static void make_world(world *w, const char *visibility)
{
	memset(w, 0, sizeof(*w));
	w->owner = user("mown", &w->owner_id, NULL);
	w->id = api_project(w->owner, visibility, &w->path);
	S(w->path);
	w->guest = user("mgst", &w->guest_id, NULL);
	w->reporter = user("mrep", &w->reporter_id, NULL);
	w->developer = user("mdev", &w->developer_id, &w->developer_name);
	w->master = user("mmas", &w->master_id, NULL);
	w->stranger = user("mstr", &w->stranger_id, NULL);
	w->admin = (char *)admin_token();
	sql_member("Project", w->id, w->guest_id, 10);
	sql_member("Project", w->id, w->reporter_id, 20);
	sql_member("Project", w->id, w->developer_id, 30);
	sql_member("Project", w->id, w->master_id, 40);
	commit_to(w->id, w->owner, "master", NULL, "create", "README.md", "hello\\n", "Initial");
}

/* A branch from master with one new file. */
static const char *branch(const world *w, const char *name, const char *file)
{
	return commit_to(w->id, w->developer, name, "master", "create", file, "content\\n",
			 S(fmt("Add %s", file)));
}

/* Creates a request with form as token; the response, asserted 201. */
static resp *create(const world *w, const char *token, const char *form)
{
	resp *r = R(api("POST", P(w, "/merge_requests"), token, form));
	ck_assert_msg(r->status == 201, "create: %ld %s", r->status, r->body);
	return r;
}

static long long create_iid(const world *w, const char *form)
{
	return jint(create(w, w->developer, form)->json, "iid");
}

/* The iids of a list response, "3,1". */
static const char *iids_of(resp *r)
{
	ck_assert_msg(json_object_is_type(r->json, json_type_array), "%s", r->body);
	char buf[1024] = "";
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, "%s%lld", i ? "," : "",
			 jint(json_object_array_get_idx(r->json, i), "iid"));
	}
	return S(strdup(buf));
}

static const char *list(const char *path, const char *token)
{
	resp *r = R(api("GET", path, token, NULL));
	ck_assert_msg(r->status == 200, "%s: %ld %s", path, r->status, r->body);
	return iids_of(r);
}

/* Waits (at most 30 s) until the request's merge_status is want. */
static void wait_status(const world *w, long long iid, const char *want)
{
	const char *got = NULL;
	for (int i = 0; i < 300; i++) {
		resp *r = R(api("GET", M(w, iid, ""), w->owner, NULL));
		ck_status(r, 200);
		got = jstr(r->json, "merge_status");
		if (got && strcmp(got, want) == 0)
			return;
		usleep(100000);
	}
	ck_abort_msg("merge_status: expected %s, got %s", want, got ? got : "(none)");
}

/* ---- create and the record ---- */

START_TEST(test_create_and_show)
{
	world w;
	make_world(&w, "private");
	const char *head = branch(&w, "feature", "a.txt");
	resp *r = create(
		&w, w.developer,
		"source_branch=feature&target_branch=master&title=Add%20a&description=Does%20a"
		"&labels=bug,ui&remove_source_branch=true");
	ck_fields(r->json, SINGLE_FIELDS);
	ck_assert_int_eq(jint(r->json, "iid"), 1);
	ck_assert_int_eq(jint(r->json, "project_id"), w.id);
	ck_assert_int_eq(jint(r->json, "source_project_id"), w.id);
	ck_assert_int_eq(jint(r->json, "target_project_id"), w.id);
	ck_jstr(r, "state", "opened");
	ck_jstr(r, "title", "Add a");
	ck_jstr(r, "description", "Does a");
	ck_jstr(r, "source_branch", "feature");
	ck_jstr(r, "target_branch", "master");
	ck_jstr(r, "merge_status", "unchecked");
	ck_jstr(r, "sha", head);
	ck_assert(jnull(r->json, "merge_commit_sha"));
	ck_assert(jbool(r->json, "force_remove_source_branch"));
	ck_assert(!jbool(r->json, "should_remove_source_branch"));
	ck_assert(!jbool(r->json, "work_in_progress"));
	ck_assert(jbool(r->json, "subscribed"));
	ck_assert_str_eq(jstr(jget(r->json, "author"), "username"), w.developer_name);
	ck_assert(jnull(r->json, "assignee"));
	ck_assert_str_eq(json_object_to_json_string(jget(r->json, "labels")),
			 "[ \"bug\", \"ui\" ]");
	ck_assert_str_eq(jstr(r->json, "web_url"),
			 S(fmt("%s/%s/merge_requests/1", api_url(), w.path)));
	/* the background process checks it */
	wait_status(&w, 1, "can_be_merged");

	/* one open request per pair of branches */
	r = R(api("POST", P(&w, "/merge_requests"), w.developer,
		  "source_branch=feature&target_branch=master&title=again"));
	ck_body(r, 409,
		"{\"message\":[\"Another open merge request already exists for this source branch: !1\"]}");
	/* errors of the parameters, then of the branches */
	ck_body(R(api("POST", P(&w, "/merge_requests"), w.developer,
		      "source_branch=feature&target_branch=master")),
		400, "{\"message\":\"400 (Bad request) \\\"title\\\" not given\"}");
	ck_body(R(api("POST", P(&w, "/merge_requests"), w.developer,
		      "target_branch=master&title=t")),
		400, "{\"message\":\"400 (Bad request) \\\"source_branch\\\" not given\"}");
	ck_body(R(api("POST", P(&w, "/merge_requests"), w.developer,
		      "source_branch=nope&target_branch=master&title=t")),
		400, "{\"message\":{\"source_branch\":[\"Invalid source branch\"]}}");
	ck_body(R(api("POST", P(&w, "/merge_requests"), w.developer,
		      "source_branch=feature&target_branch=nope&title=t")),
		400, "{\"message\":{\"target_branch\":[\"Invalid target branch\"]}}");
	ck_body(R(api("POST", P(&w, "/merge_requests"), w.developer,
		      "source_branch=master&target_branch=master&title=t")),
		422, "{\"message\":[\"You can't use same project/branch for source and target\"]}");
	ck_body(R(api("POST", P(&w, "/merge_requests"), w.developer,
		      "source_branch=feature&target_branch=master&title=t&assignee_id=x")),
		400, "{\"error\":\"assignee_id is invalid\"}");
	/* who may create */
	ck_body(R(api("POST", P(&w, "/merge_requests"), w.reporter,
		      "source_branch=feature&target_branch=master&title=t")),
		403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("POST", P(&w, "/merge_requests"), w.stranger,
		      "source_branch=feature&target_branch=master&title=t")),
		404, "{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("POST", P(&w, "/merge_requests"), NULL,
		      "source_branch=feature&target_branch=master&title=t")),
		401, "{\"message\":\"401 Unauthorized\"}");
	/* nothing of them was made */
	ck_assert_str_eq(list(P(&w, "/merge_requests"), w.owner), "1");

	/* one request: who sees it */
	r = R(api("GET", M(&w, 1, ""), w.reporter, NULL));
	ck_status(r, 200);
	ck_fields(r->json, SINGLE_FIELDS);
	ck_assert(!jbool(r->json, "subscribed"));
	ck_body(R(api("GET", M(&w, 1, ""), w.guest, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("GET", M(&w, 1, ""), w.stranger, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("GET", M(&w, 9, ""), w.owner, NULL)), 404, "{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", P(&w, "/merge_requests/x"), w.owner, NULL)), 400,
		"{\"error\":\"merge_request_iid is invalid\"}");
	ck_body(R(api("GET", P(&w, "/merge_requests"), w.guest, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	/* an issue iid does not take a merge request's */
	ck_status(R(api("POST", P(&w, "/issues"), w.owner, "title=i")), 201);
	branch(&w, "second", "b.txt");
	ck_assert_int_eq(create_iid(&w, "source_branch=second&target_branch=master&title=2"), 2);
	release_all();
}
END_TEST

START_TEST(test_public_access)
{
	world w;
	make_world(&w, "public");
	branch(&w, "feature", "a.txt");
	long long iid = create_iid(&w, "source_branch=feature&target_branch=master&title=t");
	/* anyone signed in reads a public project's requests; all calls need a token */
	ck_status(R(api("GET", M(&w, iid, ""), w.stranger, NULL)), 200);
	ck_status(R(api("GET", M(&w, iid, "/commits"), w.guest, NULL)), 200);
	ck_assert_str_eq(list(P(&w, "/merge_requests"), w.stranger), "1");
	ck_body(R(api("GET", M(&w, iid, ""), NULL, NULL)), 401,
		"{\"message\":\"401 Unauthorized\"}");
	/* but may not change them */
	ck_body(R(api("PUT", M(&w, iid, ""), w.stranger, "title=x")), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("PUT", M(&w, iid, ""), w.guest, "title=x")), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("PUT", M(&w, iid, "/merge"), w.stranger, NULL)), 401,
		"{\"message\":\"401 Unauthorized\"}");
	ck_body(R(api("PUT", M(&w, iid, "/merge"), w.reporter, NULL)), 401,
		"{\"message\":\"401 Unauthorized\"}");
	ck_body(R(api("POST", P(&w, "/merge_requests"), w.stranger,
		      "source_branch=feature&target_branch=master&title=t")),
		403, "{\"message\":\"403 Forbidden\"}");
	/* the global list: created by me by default, every visible one with scope=all */
	ck_assert_str_eq(list("/merge_requests", w.developer), "1");
	ck_assert_str_eq(list("/merge_requests", w.stranger), "");
	const char *all = list(S(fmt("/merge_requests?scope=all&search=%s", "t")), w.stranger);
	ck_assert(strlen(all) > 0);
	/* the merge requests switched off: nobody reads them */
	ck_status(R(api("PUT", P(&w, ""), w.owner, "merge_requests_enabled=false")), 200);
	ck_body(R(api("GET", M(&w, iid, ""), w.owner, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_assert_str_eq(list(S(fmt("/merge_requests?scope=all&iids[]=%lld", iid)), w.owner), "");
	release_all();
}
END_TEST

/* ---- the lists ---- */

START_TEST(test_lists)
{
	world w;
	make_world(&w, "private");
	branch(&w, "b1", "1.txt");
	branch(&w, "b2", "2.txt");
	branch(&w, "b3", "3.txt");
	resp *ms = R(api("POST", P(&w, "/milestones"), w.owner, "title=v1"));
	ck_status(ms, 201);
	long long milestone = jint(ms->json, "id");
	create_iid(&w, "source_branch=b1&target_branch=master&title=First%20one&labels=bug");
	create_iid(&w, S(fmt("source_branch=b2&target_branch=master&title=WIP:%%20second"
			     "&labels=bug,ui&milestone_id=%lld&assignee_id=%lld",
			     milestone, w.reporter_id)));
	ck_status(R(api("POST", P(&w, "/merge_requests"), w.master,
			"source_branch=b3&target_branch=master&title=Third&description=findme")),
		  201);
	ck_status(R(api("PUT", M(&w, 1, ""), w.owner, "state_event=close")), 200);

	const char *base = P(&w, "/merge_requests");
	ck_assert_str_eq(list(base, w.owner), "3,2,1");
	ck_assert_str_eq(list(S(fmt("%s?sort=asc", base)), w.owner), "1,2,3");
	ck_assert_str_eq(list(S(fmt("%s?state=opened", base)), w.owner), "3,2");
	ck_assert_str_eq(list(S(fmt("%s?state=closed", base)), w.owner), "1");
	ck_assert_str_eq(list(S(fmt("%s?state=merged", base)), w.owner), "");
	ck_assert_str_eq(list(S(fmt("%s?state=all", base)), w.owner), "3,2,1");
	ck_assert_str_eq(list(S(fmt("%s?labels=bug", base)), w.owner), "2,1");
	ck_assert_str_eq(list(S(fmt("%s?labels=bug,ui", base)), w.owner), "2");
	ck_assert_str_eq(list(S(fmt("%s?labels=No%%20Label", base)), w.owner), "3");
	ck_assert_str_eq(list(S(fmt("%s?milestone=v1", base)), w.owner), "2");
	ck_assert_str_eq(list(S(fmt("%s?milestone=No%%20Milestone", base)), w.owner), "3,1");
	ck_assert_str_eq(list(S(fmt("%s?author_id=%lld", base, w.master_id)), w.owner), "3");
	ck_assert_str_eq(list(S(fmt("%s?assignee_id=%lld", base, w.reporter_id)), w.owner), "2");
	ck_assert_str_eq(list(S(fmt("%s?iids[]=1&iids[]=3", base)), w.owner), "3,1");
	ck_assert_str_eq(list(S(fmt("%s?search=findme", base)), w.owner), "3");
	ck_assert_str_eq(list(S(fmt("%s?source_branch=b2", base)), w.owner), "2");
	ck_assert_str_eq(list(S(fmt("%s?scope=created-by-me", base)), w.developer), "2,1");
	ck_assert_str_eq(list(S(fmt("%s?scope=assigned_to_me", base)), w.reporter), "2");
	ck_assert_str_eq(list(S(fmt("%s?created_after=2000-01-01T00:00:00Z", base)), w.owner),
			 "3,2,1");
	ck_assert_str_eq(list(S(fmt("%s?created_before=2000-01-01T00:00:00Z", base)), w.owner), "");
	ck_assert_str_eq(
		list(S(fmt("/projects/%lld/milestones/%lld/merge_requests", w.id, milestone)),
		     w.owner),
		"2");
	/* the milestone's and label's counts */
	resp *labels = R(api("GET", P(&w, "/labels"), w.owner, NULL));
	ck_status(labels, 200);
	for (size_t i = 0; i < json_object_array_length(labels->json); i++) {
		json_object *l = json_object_array_get_idx(labels->json, i);
		/* bug: !1 is closed, !2 open; ui: !2 */
		ck_assert_int_eq(jint(l, "open_merge_requests_count"), 1);
	}
	/* the shapes: list, simple view */
	resp *r = R(api("GET", S(fmt("%s?per_page=1", base)), w.owner, NULL));
	ck_status(r, 200);
	json_object *one = json_object_array_get_idx(r->json, 0);
	ck_fields(one, BASIC_FIELDS);
	r = R(api("GET", S(fmt("%s?view=simple", base)), w.owner, NULL));
	ck_status(r, 200);
	ck_fields(json_object_array_get_idx(r->json, 0), SIMPLE_FIELDS);
	json_object *wip = json_object_array_get_idx(
		R(api("GET", S(fmt("%s?iids[]=2", base)), w.owner, NULL))->json, 0);
	ck_assert(jbool(wip, "work_in_progress"));
	ck_assert_str_eq(jstr(jget(wip, "milestone"), "title"), "v1");
	/* pagination */
	r = R(api("GET", S(fmt("%s?per_page=2&page=2", base)), w.owner, NULL));
	ck_pages(r, S(fmt("/projects/%lld/merge_requests", w.id)), "", 3, 2, 2);
	ck_assert_str_eq(iids_of(r), "1");
	/* bad filters */
	ck_body(R(api("GET", S(fmt("%s?state=nope", base)), w.owner, NULL)), 400,
		"{\"error\":\"state does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?view=full", base)), w.owner, NULL)), 400,
		"{\"error\":\"view does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?iids[]=x", base)), w.owner, NULL)), 400,
		"{\"error\":\"iids is invalid\"}");
	ck_body(R(api("GET", S(fmt("%s?order_by=title", base)), w.owner, NULL)), 400,
		"{\"error\":\"order_by does not have a valid value\"}");
	release_all();
}
END_TEST

/* GET path as token and GET general (the same list through MRS_LIST: path with a
 * filter that selects every request) answer the same: status, body and the pagination
 * headers but Link (whose query differs); path's response. */
static resp *same_list(const char *path, const char *general, const char *token)
{
	resp *a = R(api("GET", path, token, NULL));
	resp *b = R(api("GET", general, token, NULL));
	ck_same_answer(a, b, path);
	return a;
}

/* A project's list with no filter or state only, in the default order, has its own
 * statements (mrs_list_project_state and _all): the same answers as the general one's
 * for every state, page, per_page and view, ordered by created_at then id (both
 * descending) with the open ones counting the locked ones; and only for those who may
 * read the requests. */
START_TEST(test_list_plain)
{
	world w;
	make_world(&w, "private");
	branch(&w, "b1", "1.txt");
	branch(&w, "b2", "2.txt");
	resp *ms = R(api("POST", P(&w, "/milestones"), w.owner, "title=v1"));
	ck_status(ms, 201);
	create_iid(&w, S(fmt("source_branch=b1&target_branch=master&title=WIP:%%20one"
			     "&labels=bug,ui&milestone_id=%lld&assignee_id=%lld",
			     jint(ms->json, "id"), w.reporter_id)));
	create_iid(&w, "source_branch=b2&target_branch=master&title=Two");
	/* 23 more in every state, five created_at of which four or five share each (the
	 * order then goes by id), older than the two above; !2 older still */
	free(sql_value("INSERT INTO merge_requests (target_project_id, iid, source_project_id,"
		       " source_branch, target_branch, title, author_id, state, created_at)"
		       " SELECT %lld, 100 + g, %lld, 'x' || g, 'master', 'Bulk ' || g, %lld,"
		       " (ARRAY['opened', 'closed', 'merged', 'locked'])[1 + g %% 4],"
		       " timestamptz '2020-01-01' + (g %% 5) * interval '1 day'"
		       " FROM generate_series(1, 23) g",
		       w.id, w.id, w.developer_id));
	free(sql_value("UPDATE merge_requests SET created_at = '2019-06-01' WHERE"
		       " target_project_id = %lld AND iid = 2",
		       w.id));
	const char *base = P(&w, "/merge_requests");
	const char *all = "created_after=1970-01-01T00:00:00Z"; /* every request: MRS_LIST */
	/* the order: created_at desc, then id desc */
	ck_assert_str_eq(list(S(fmt("%s?per_page=100", base)), w.reporter),
			 "1,119,114,109,104,123,118,113,108,103,122,117,112,107,102,121,116,111,"
			 "106,101,120,115,110,105,2");
	ck_assert_str_eq(list(S(fmt("%s?state=opened&per_page=100", base)), w.reporter),
			 "1,119,104,123,108,103,112,107,116,111,120,115,2");
	static const char *const states[] = {"",
					     "state=opened&",
					     "state=closed&",
					     "state=merged&",
					     "state=locked&",
					     "state=all&",
					     NULL};
	static const char *const pages[] = {"per_page=20",
					    "per_page=5&page=2",
					    "per_page=5&page=5",
					    "per_page=5&page=6",
					    "per_page=3&page=99",
					    "per_page=100",
					    "view=simple&per_page=4&page=2",
					    NULL};
	for (int i = 0; states[i]; i++) {
		const char *q = S(fmt("%s?%s", base, states[i]));
		same_list(S(strndup(q, strlen(q) - 1)), S(fmt("%s%s", q, all)), w.reporter);
		for (int j = 0; pages[j]; j++)
			same_list(S(fmt("%s%s", q, pages[j])), S(fmt("%s%s&%s", q, pages[j], all)),
				  w.reporter);
	}
	/* the explicit defaults are the plain request */
	same_list(S(fmt("%s?state=opened&scope=all&order_by=created_at&sort=desc", base)),
		  S(fmt("%s?state=opened&%s", base, all)), w.reporter);
	/* the pagination headers, Link included */
	const char *path = S(fmt("/projects/%lld/merge_requests", w.id));
	resp *r = same_list(S(fmt("%s?state=opened&per_page=3&page=2", base)),
			    S(fmt("%s?state=opened&per_page=3&page=2&%s", base, all)), w.reporter);
	ck_pages(r, path, "state=opened", 13, 3, 2);
	ck_assert_str_eq(iids_of(r), "123,108,103");
	r = same_list(S(fmt("%s?per_page=10&page=3", base)),
		      S(fmt("%s?per_page=10&page=3&%s", base, all)), w.reporter);
	ck_pages(r, path, "", 25, 10, 3);
	ck_assert_str_eq(iids_of(r), "120,115,110,105,2");
	r = same_list(S(fmt("%s?state=closed&per_page=4&page=9", base)),
		      S(fmt("%s?state=closed&per_page=4&page=9&%s", base, all)), w.reporter);
	ck_pages(r, path, "state=closed", 6, 4, 9);
	ck_assert_str_eq(r->body, "[]");
	/* a request of the list in full: labels, milestone, assignee, web_url */
	r = R(api("GET", S(fmt("%s?state=opened&per_page=1", base)), w.reporter, NULL));
	json_object *one = json_object_array_get_idx(r->json, 0);
	ck_fields(one, BASIC_FIELDS);
	ck_assert_str_eq(json_object_to_json_string(jget(one, "labels")), "[ \"bug\", \"ui\" ]");
	ck_assert_str_eq(jstr(jget(one, "milestone"), "title"), "v1");
	ck_assert_int_eq(jint(jget(one, "assignee"), "id"), w.reporter_id);
	ck_assert_str_eq(jstr(one, "web_url"), S(fmt("%s/%s/merge_requests/1", api_url(), w.path)));
	/* every reader sees the same; an admin who is no member too */
	const char *q = S(fmt("%s?state=opened", base));
	const char *seen = R(api("GET", q, w.reporter, NULL))->body;
	const char *readers[] = {w.developer, w.master, w.owner, w.admin, NULL};
	for (int i = 0; readers[i]; i++) {
		r = same_list(q, S(fmt("%s&%s", q, all)), readers[i]);
		ck_assert_str_eq(r->body, seen);
	}
	/* those who may not: a guest, a stranger, no token; nobody once they are off */
	const char *forbidden = "{\"message\":\"403 Forbidden\"}";
	ck_body(same_list(q, S(fmt("%s&%s", q, all)), w.guest), 403, forbidden);
	ck_body(same_list(base, S(fmt("%s?%s", base, all)), w.guest), 403, forbidden);
	ck_body(same_list(q, S(fmt("%s&%s", q, all)), w.stranger), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_code(same_list(q, S(fmt("%s&%s", q, all)), NULL), 401);
	ck_status(R(api("PUT", P(&w, ""), w.owner, "merge_requests_enabled=false")), 200);
	for (int i = 0; readers[i]; i++) {
		ck_body(same_list(q, S(fmt("%s&%s", q, all)), readers[i]), 403, forbidden);
		ck_body(same_list(base, S(fmt("%s?%s", base, all)), readers[i]), 403, forbidden);
	}
	ck_status(R(api("PUT", P(&w, ""), w.owner, "merge_requests_enabled=true")), 200);
	ck_assert_str_eq(R(api("GET", q, w.reporter, NULL))->body, seen);
	/* a public project: a signed-in stranger reads it, a guest too */
	ck_status(R(api("PUT", P(&w, ""), w.owner, "visibility=public")), 200);
	for (int i = 0; i < 2; i++) {
		r = same_list(q, S(fmt("%s&%s", q, all)), i ? w.guest : w.stranger);
		ck_assert_str_eq(r->body, seen);
	}
	release_all();
}
END_TEST

/* A group's list: its projects' and its subgroups' requests, as the caller may see them. */
START_TEST(test_group_list)
{
	long long dev_id, outsider_id;
	char *dev = user("mgdv", &dev_id, NULL);
	char *outsider = user("mgot", &outsider_id, NULL);
	long long group = fixture_group(0, NULL);
	long long sub = fixture_subgroup(group, 0, NULL);
	long long top = fixture_group_project(group, 0, NULL);
	long long below = fixture_group_project(sub, 0, NULL);
	sql_member("Namespace", group, dev_id, 30);
	long long projects[2] = {top, below};
	for (int i = 0; i < 2; i++) {
		commit_to(projects[i], dev, "master", NULL, "create", "r.txt", "r", "Initial");
		commit_to(projects[i], dev, "topic", "master", "create", "t.txt", "t", "Topic");
		resp *r = R(api("POST", S(fmt("/projects/%lld/merge_requests", projects[i])), dev,
				S(fmt("source_branch=topic&target_branch=master&title=g%d", i))));
		ck_status(r, 201);
	}
	resp *r = R(api("GET", S(fmt("/groups/%lld/merge_requests?sort=asc", group)), dev, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "project_id"), top);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 1), "project_id"), below);
	r = R(api("GET", S(fmt("/groups/%lld/merge_requests", sub)), dev, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_body(R(api("GET", S(fmt("/groups/%lld/merge_requests", group)), outsider, NULL)), 404,
		"{\"message\":\"404 Group Not Found\"}");
	release_all();
}
END_TEST

/* ---- edit, delete, subscriptions ---- */

/* Every name no branch may have is no branch of a request, as its source or target
 * (created or changed): GitLab's answer for a branch that is not there, even when git
 * itself was made to hold such a branch, and no request is made or changed. */
START_TEST(test_bad_branch_names)
{
	world w;
	make_world(&w, "private");
	branch(&w, "feature", "a.txt");
	/* branches git takes but the API does not, put there with git itself */
	put_bad_branches(w.id);
	long long iid = create_iid(&w, "source_branch=feature&target_branch=master&title=T");
	for (const char *const *n = bad_ref_names; *n; n++) {
		const char *e = S(enc(*n));
		ck_body(R(api("POST", P(&w, "/merge_requests"), w.developer,
			      S(fmt("source_branch=%s&target_branch=master&title=T", e)))),
			400, "{\"message\":{\"source_branch\":[\"Invalid source branch\"]}}");
		ck_body(R(api("POST", P(&w, "/merge_requests"), w.developer,
			      S(fmt("source_branch=feature&target_branch=%s&title=T", e)))),
			400, "{\"message\":{\"target_branch\":[\"Invalid target branch\"]}}");
		ck_body(R(api("PUT", M(&w, iid, ""), w.developer, S(fmt("target_branch=%s", e)))),
			400, "{\"message\":{\"target_branch\":[\"Invalid target branch\"]}}");
	}
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM merge_requests WHERE target_project_id = %lld", w.id),
		1);
	resp *r = R(api("GET", M(&w, iid, ""), w.developer, NULL));
	ck_jstr(r, "target_branch", "master");
}
END_TEST

START_TEST(test_update_delete)
{
	world w;
	make_world(&w, "private");
	branch(&w, "feature", "a.txt");
	long long iid = create_iid(&w, "source_branch=feature&target_branch=master&title=Old");
	resp *r = R(api("PUT", M(&w, iid, ""), w.master,
			S(fmt("title=New&description=d&labels=x&assignee_id=%lld"
			      "&discussion_locked=true&remove_source_branch=true",
			      w.developer_id))));
	ck_status(r, 200);
	ck_fields(r->json, SINGLE_FIELDS);
	ck_jstr(r, "title", "New");
	ck_jstr(r, "description", "d");
	ck_assert(jbool(r->json, "discussion_locked"));
	ck_assert(jbool(r->json, "force_remove_source_branch"));
	ck_assert_int_eq(jint(jget(r->json, "assignee"), "id"), w.developer_id);
	ck_assert_str_eq(json_object_to_json_string(jget(r->json, "labels")), "[ \"x\" ]");
	/* close and reopen, with their notes and events */
	r = R(api("PUT", M(&w, iid, ""), w.developer, "state_event=close"));
	ck_status(r, 200);
	ck_jstr(r, "state", "closed");
	ck_assert_int_eq(jint(jget(r->json, "closed_by"), "id"), w.developer_id);
	ck_assert(!jnull(r->json, "closed_at"));
	r = R(api("PUT", M(&w, iid, ""), w.developer, "state_event=reopen"));
	ck_status(r, 200);
	ck_jstr(r, "state", "opened");
	ck_assert(jnull(r->json, "closed_at"));
	r = R(api("GET", M(&w, iid, "/notes?sort=asc"), w.owner, NULL));
	ck_status(r, 200);
	char notes[1024] = "";
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *n = json_object_array_get_idx(r->json, i);
		ck_assert(jbool(n, "system"));
		strncat(notes, jstr(n, "body"), sizeof(notes) - strlen(notes) - 2);
		strcat(notes, "|");
	}
	ck_assert_str_eq(notes,
			 S(fmt("changed title from **Old** to **New**|added ~%lld label|"
			       "assigned to @%s|closed|reopened|",
			       sql_int("SELECT id FROM labels WHERE project_id = %lld", w.id),
			       w.developer_name)));
	r = R(api("GET", P(&w, "/events?target_type=merge_request&sort=asc"), w.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "action_name"), "opened");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 1), "action_name"), "closed");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 2), "action_name"), "reopened");
	/* the author edits their own; a reporter does not; labels need a developer */
	ck_status(R(api("PUT", M(&w, iid, ""), w.reporter, "title=r")), 403);
	ck_body(R(api("PUT", M(&w, iid, ""), w.developer, NULL)), 400,
		"{\"error\":\"title, target_branch, assignee_id, description, state_event, labels, "
		"milestone_id, remove_source_branch, discussion_locked are missing, at least one "
		"parameter must be provided\"}");
	ck_body(R(api("PUT", M(&w, iid, ""), w.developer, "state_event=merge")), 400,
		"{\"error\":\"state_event does not have a valid value\"}");
	ck_body(R(api("PUT", M(&w, iid, ""), w.developer, "title=")), 400,
		"{\"message\":{\"title\":[\"can't be blank\"]}}");
	ck_body(R(api("PUT", M(&w, iid, ""), w.developer, "target_branch=nope")), 400,
		"{\"message\":{\"target_branch\":[\"Invalid target branch\"]}}");
	ck_body(R(api("PUT", M(&w, 99, ""), w.developer, "title=x")), 404,
		"{\"message\":\"404 Not found\"}");
	/* reopening into a pair that has an open request again: 409 */
	ck_status(R(api("PUT", M(&w, iid, ""), w.developer, "state_event=close")), 200);
	long long again = create_iid(&w, "source_branch=feature&target_branch=master&title=again");
	ck_body(R(api("PUT", M(&w, iid, ""), w.developer, "state_event=reopen")), 409,
		S(fmt("{\"message\":[\"Another open merge request already exists for this source "
		      "branch: !%lld\"]}",
		      again)));
	/* subscriptions */
	r = R(api("POST", M(&w, iid, "/subscribe"), w.reporter, NULL));
	ck_status(r, 201);
	ck_assert(jbool(r->json, "subscribed"));
	ck_status(R(api("POST", M(&w, iid, "/subscribe"), w.reporter, NULL)), 304);
	r = R(api("POST", M(&w, iid, "/unsubscribe"), w.reporter, NULL));
	ck_status(r, 201);
	ck_assert(!jbool(r->json, "subscribed"));
	ck_status(R(api("POST", M(&w, iid, "/unsubscribe"), w.reporter, NULL)), 304);
	ck_status(R(api("POST", M(&w, 99, "/subscribe"), w.reporter, NULL)), 404);
	/* delete: owners and admins */
	ck_body(R(api("DELETE", M(&w, iid, ""), w.master, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_status(R(api("DELETE", M(&w, iid, ""), w.owner, NULL)), 204);
	ck_status(R(api("GET", M(&w, iid, ""), w.owner, NULL)), 404);
	ck_status(R(api("DELETE", M(&w, again, ""), w.admin, NULL)), 204);
	ck_status(R(api("DELETE", M(&w, again, ""), w.admin, NULL)), 404);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM notes WHERE noteable_type = 'MergeRequest'"
				 " AND project_id = %lld",
				 w.id),
			 0);
	release_all();
}
END_TEST

/* ---- notes, award emoji, participants, closes_issues, mwps ---- */

START_TEST(test_notes_participants_mwps)
{
	world w;
	make_world(&w, "private");
	branch(&w, "feature", "a.txt");
	ck_status(R(api("POST", P(&w, "/issues"), w.owner, "title=one")), 201);
	ck_status(R(api("POST", P(&w, "/issues"), w.owner, "title=two")), 201);
	long long iid = create_iid(&w, "source_branch=feature&target_branch=master&title=t"
				       "&description=Closes%20%231%2C%20%232%20and%20%239");
	resp *r = R(api("POST", M(&w, iid, "/notes"), w.reporter, "body=looks%20good"));
	ck_status(r, 201);
	ck_status(R(api("POST", M(&w, iid, "/award_emoji"), w.reporter, "name=thumbsup")), 201);
	r = R(api("GET", M(&w, iid, ""), w.owner, NULL));
	ck_assert_int_eq(jint(r->json, "user_notes_count"), 1);
	ck_assert_int_eq(jint(r->json, "upvotes"), 1);
	ck_assert_str_eq(
		list(S(fmt("/projects/%lld/merge_requests?my_reaction_emoji=thumbsup", w.id)),
		     w.reporter),
		"1");
	ck_body(R(api("GET", M(&w, iid, "/notes"), w.guest, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	r = R(api("GET", M(&w, iid, "/participants"), w.owner, NULL));
	ck_status(r, 200);
	/* the author and the commenter, by id */
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), w.reporter_id);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 1), "id"), w.developer_id);
	ck_pages(r, S(fmt("/projects/%lld/merge_requests/%lld/participants", w.id, iid)), "", 2, 20,
		 1);
	r = R(api("GET", M(&w, iid, "/closes_issues"), w.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(iids_of(r), "1,2");
	ck_pages(r, S(fmt("/projects/%lld/merge_requests/%lld/closes_issues", w.id, iid)), "", 2,
		 20, 1);
	/* merge when the pipeline succeeds: stored, and cancelled */
	r = R(api("PUT", M(&w, iid, "/merge"), w.developer, "merge_when_pipeline_succeeds=true"));
	ck_status(r, 200);
	ck_jstr(r, "state", "opened");
	ck_assert(jbool(r->json, "merge_when_pipeline_succeeds"));
	r = R(api("POST", M(&w, iid, "/cancel_merge_when_pipeline_succeeds"), w.reporter, NULL));
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	r = R(api("POST", M(&w, iid, "/cancel_merge_when_pipeline_succeeds"), w.developer, NULL));
	ck_status(r, 201);
	ck_assert(!jbool(r->json, "merge_when_pipeline_succeeds"));
	release_all();
}
END_TEST

/* The commits of a request come in pages (GitLab 10: Kaminari.paginate_array), newest
 * first, with the usual headers; a page past the end is empty, a bad page 400. */
START_TEST(test_commits_pages)
{
	world w;
	make_world(&w, "private");
	const char *one =
		commit_to(w.id, w.developer, "pages", "master", "create", "a.txt", "a", "One");
	commit_to(w.id, w.developer, "pages", NULL, "create", "b.txt", "b", "Two");
	commit_to(w.id, w.developer, "pages", NULL, "create", "c.txt", "c", "Three");
	long long iid = create_iid(&w, "source_branch=pages&target_branch=master&title=p");
	const char *path = S(fmt("/projects/%lld/merge_requests/%lld/commits", w.id, iid));
	resp *r = R(api("GET", path, w.reporter, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	ck_pages(r, path, "", 3, 20, 1);
	r = R(api("GET", S(fmt("%s?per_page=2", path)), w.reporter, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "title"), "Three");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 1), "title"), "Two");
	ck_pages(r, path, "", 3, 2, 1);
	r = R(api("GET", S(fmt("%s?page=2&per_page=2", path)), w.reporter, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "id"), one);
	ck_pages(r, path, "", 3, 2, 2);
	r = R(api("GET", S(fmt("%s?page=5&per_page=2", path)), w.reporter, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	ck_header(r, "X-Total", "3");
	ck_status(R(api("GET", S(fmt("%s?page=x", path)), w.reporter, NULL)), 400);
	/* no source branch any more: no commits, one empty page */
	ck_status(R(api("DELETE", P(&w, "/repository/branches/pages"), w.owner, NULL)), 204);
	r = R(api("GET", path, w.reporter, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	ck_pages(r, path, "", 0, 20, 1);
	release_all();
}
END_TEST

/* A request's notes name its iid (GitLab 10's Entities::Note: noteable_iid for issues
 * and merge requests) in every answer: created, listed, shown, edited. */
START_TEST(test_notes_noteable_iid)
{
	world w;
	make_world(&w, "private");
	branch(&w, "first", "a.txt");
	branch(&w, "second", "b.txt");
	create_iid(&w, "source_branch=first&target_branch=master&title=a");
	resp *mr = create(&w, w.developer, "source_branch=second&target_branch=master&title=b");
	long long iid = jint(mr->json, "iid"), id = jint(mr->json, "id");
	ck_assert_int_eq(iid, 2);
	resp *r = R(api("POST", M(&w, iid, "/notes"), w.reporter, "body=hm"));
	ck_status(r, 201);
	ck_jstr(r, "noteable_type", "MergeRequest");
	ck_assert_int_eq(jint(r->json, "noteable_id"), id);
	ck_assert_int_eq(jint(r->json, "noteable_iid"), iid);
	long long note = jint(r->json, "id");
	r = R(api("GET", M(&w, iid, "/notes"), w.reporter, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "noteable_iid"), iid);
	r = R(api("GET", M(&w, iid, S(fmt("/notes/%lld", note))), w.reporter, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "noteable_iid"), iid);
	r = R(api("PUT", M(&w, iid, S(fmt("/notes/%lld", note))), w.reporter, "body=ok"));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "noteable_iid"), iid);
	/* an issue's note its issue's iid, a snippet's none */
	ck_status(R(api("POST", P(&w, "/issues"), w.owner, "title=i")), 201);
	r = R(api("POST", P(&w, "/issues/1/notes"), w.reporter, "body=i"));
	ck_status(r, 201);
	ck_jstr(r, "noteable_type", "Issue");
	ck_assert_int_eq(jint(r->json, "noteable_iid"), 1);
	r = R(api("POST", P(&w, "/snippets"), w.owner,
		  "title=s&file_name=s.txt&code=x&visibility=private"));
	ck_status(r, 201);
	r = R(api("POST", P(&w, S(fmt("/snippets/%lld/notes", jint(r->json, "id")))), w.reporter,
		  "body=s"));
	ck_status(r, 201);
	ck_jstr(r, "noteable_type", "Snippet");
	ck_assert(jnull(r->json, "noteable_iid"));
	release_all();
}
END_TEST

/* ---- the git flow ---- */

/* http://u:token@host:port/<path>.git */
static const char *git_url(const char *token, const char *path)
{
	return S(fmt("http://u:%s@%s/%s.git", token, api_url() + strlen("http://"), path));
}

#define sh(...) git_sh(work, NULL, __VA_ARGS__)

START_TEST(test_git_flow_merge)
{
	world w;
	make_world(&w, "private");
	ck_status(R(api("POST", P(&w, "/issues"), w.owner, "title=bug")), 201);
	/* a branch pushed with stock git */
	ck_assert_int_eq(sh("clone -q '%s' c && cd c && git checkout -q -b topic && "
			    "echo one > one.txt && git add one.txt && git commit -q -m 'One' && "
			    "echo two > two.txt && git add two.txt && git commit -q -m 'Two' && "
			    "git push -q origin topic",
			    git_url(w.developer, w.path)),
			 0);
	long long iid = create_iid(&w, "source_branch=topic&target_branch=master&title=Topic"
				       "&description=Fixes%20%231");
	/* its commits and changes */
	resp *r = R(api("GET", M(&w, iid, "/commits"), w.reporter, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "title"), "Two");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 1), "title"), "One");
	const char *head = S(strdup(jstr(json_object_array_get_idx(r->json, 0), "id")));
	r = R(api("GET", M(&w, iid, "/changes"), w.reporter, NULL));
	ck_status(r, 200);
	ck_jstr(r, "changes_count", "2");
	json_object *changes = jget(r->json, "changes");
	ck_assert_int_eq(json_object_array_length(changes), 2);
	json_object *c0 = json_object_array_get_idx(changes, 0);
	ck_assert_str_eq(jstr(c0, "new_path"), "one.txt");
	ck_assert(jbool(c0, "new_file"));
	ck_assert(strstr(jstr(c0, "diff"), "+one") != NULL);
	/* a comment */
	ck_status(R(api("POST", M(&w, iid, "/notes"), w.reporter, "body=LGTM")), 201);
	wait_status(&w, iid, "can_be_merged");
	/* a push to the source updates the request */
	ck_assert_int_eq(
		sh("-C c status -s && cd c && echo three > three.txt && "
		   "git add three.txt && git commit -q -m 'Three' && git push -q origin topic"),
		0);
	const char *newhead = NULL;
	for (int i = 0; i < 300; i++) {
		r = R(api("GET", M(&w, iid, ""), w.owner, NULL));
		if (strcmp(jstr(r->json, "sha"), head) != 0) {
			newhead = jstr(r->json, "sha");
			break;
		}
		usleep(100000);
	}
	ck_assert_msg(newhead != NULL, "the push did not update the request's sha");
	/* a stale sha: 409 */
	r = R(api("PUT", M(&w, iid, "/merge"), w.developer, S(fmt("sha=%s", head))));
	ck_body(r, 409,
		S(fmt("{\"message\":\"SHA does not match HEAD of source branch: %s\"}", newhead)));
	/* the merge */
	r = R(api("PUT", M(&w, iid, "/merge"), w.developer,
		  S(fmt("sha=%s&should_remove_source_branch=true", newhead))));
	ck_status(r, 200);
	ck_jstr(r, "state", "merged");
	ck_assert_int_eq(jint(jget(r->json, "merged_by"), "id"), w.developer_id);
	ck_assert(!jnull(r->json, "merged_at"));
	const char *merge_sha = jstr(r->json, "merge_commit_sha");
	ck_assert(merge_sha && strlen(merge_sha) == 40);
	/* the merge commit is master's head, with both parents */
	r = R(api("GET", P(&w, "/repository/commits/master"), w.owner, NULL));
	ck_status(r, 200);
	ck_jstr(r, "id", merge_sha);
	ck_assert_int_eq(json_object_array_length(jget(r->json, "parent_ids")), 2);
	ck_assert_str_eq(jstr(r->json, "title"), "Merge branch 'topic' into 'master'");
	ck_assert(strstr(jstr(r->json, "message"), "Closes #1") != NULL);
	ck_assert(
		strstr(jstr(r->json, "message"), S(fmt("See merge request %s!%lld", w.path, iid))));
	/* stock git sees it */
	ck_assert_int_eq(
		sh("-C c fetch -q origin && test \"$(git -C c rev-parse origin/master)\" = %s"
		   " && git -C c cat-file -e origin/master:three.txt",
		   merge_sha),
		0);
	/* the issue is closed, the source branch gone, the events recorded */
	r = R(api("GET", P(&w, "/issues/1"), w.owner, NULL));
	ck_jstr(r, "state", "closed");
	ck_status(R(api("GET", P(&w, "/repository/branches/topic"), w.owner, NULL)), 404);
	r = R(api("GET", P(&w, "/events?target_type=merge_request"), w.owner, NULL));
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "action_name"), "accepted");
	r = R(api("GET", P(&w, "/events?target_type=issue&action=closed"), w.owner, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	/* once merged: 405 */
	ck_body(R(api("PUT", M(&w, iid, "/merge"), w.developer, NULL)), 405,
		"{\"message\":\"405 Method Not Allowed\"}");
	ck_assert_str_eq(list(S(fmt("/projects/%lld/merge_requests?state=merged", w.id)), w.owner),
			 "1");
	release_all();
}
END_TEST

START_TEST(test_merge_refusals)
{
	world w;
	make_world(&w, "private");
	/* conflicting changes to one file */
	commit_to(w.id, w.developer, "left", "master", "update", "README.md", "left\\n", "Left");
	long long left = create_iid(&w, "source_branch=left&target_branch=master&title=Left");
	commit_to(w.id, w.developer, "master", NULL, "update", "README.md", "master\\n", "Master");
	wait_status(&w, left, "cannot_be_merged");
	ck_body(R(api("PUT", M(&w, left, "/merge"), w.developer, NULL)), 406,
		"{\"message\":\"Branch cannot be merged\"}");
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM merge_requests WHERE target_project_id = %lld"
			" AND state = 'opened'",
			w.id),
		1);
	/* a work in progress, a closed request: 405 */
	branch(&w, "wip", "w.txt");
	long long wip = create_iid(&w, "source_branch=wip&target_branch=master&title=WIP:%20w");
	ck_body(R(api("PUT", M(&w, wip, "/merge"), w.developer, NULL)), 405,
		"{\"message\":\"405 Method Not Allowed\"}");
	ck_status(R(api("PUT", M(&w, wip, ""), w.developer, "state_event=close")), 200);
	ck_body(R(api("PUT", M(&w, wip, "/merge"), w.developer, NULL)), 405,
		"{\"message\":\"405 Method Not Allowed\"}");
	/* a protected target branch: only its merge level merges */
	branch(&w, "ok", "ok.txt");
	long long ok = create_iid(&w, "source_branch=ok&target_branch=master&title=ok");
	ck_status(R(api("POST", P(&w, "/protected_branches"), w.owner,
			"name=master&merge_access_level=40&push_access_level=40")),
		  201);
	ck_body(R(api("PUT", M(&w, ok, "/merge"), w.developer, NULL)), 401,
		"{\"message\":\"401 Unauthorized\"}");
	ck_body(R(api("PUT", M(&w, ok, "/merge"), w.reporter, NULL)), 401,
		"{\"message\":\"401 Unauthorized\"}");
	ck_body(R(api("PUT", M(&w, ok, "/merge"), w.guest, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("PUT", M(&w, ok, "/merge"), w.stranger, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("PUT", M(&w, 99, "/merge"), w.master, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("PUT", M(&w, ok, "/merge"), w.master, "should_remove_source_branch=maybe")),
		400, "{\"error\":\"should_remove_source_branch is invalid\"}");
	resp *r = R(api("PUT", M(&w, ok, "/merge"), w.master, "merge_commit_message=Custom"));
	ck_status(r, 200);
	ck_jstr(r, "state", "merged");
	r = R(api("GET", P(&w, "/repository/commits/master"), w.owner, NULL));
	ck_jstr(r, "message", "Custom");
	/* the source branch stays when not asked to go */
	ck_status(R(api("GET", P(&w, "/repository/branches/ok"), w.owner, NULL)), 200);
	release_all();
}
END_TEST

/* ---- merge_method ff and rebase_merge (the project's, sql/0028) ---- */

/* master's head commit. */
static const char *master_head(const world *w)
{
	resp *r = R(api("GET", P(w, "/repository/commits/master"), w->owner, NULL));
	ck_status(r, 200);
	return S(strdup(jstr(r->json, "id")));
}

/* The parent_ids of commit sha. */
static json_object *parents_of(const world *w, const char *sha)
{
	resp *r = R(api("GET", P(w, S(fmt("/repository/commits/%s", sha))), w->owner, NULL));
	ck_status(r, 200);
	return jget(r->json, "parent_ids");
}

START_TEST(test_merge_methods)
{
	world w;
	make_world(&w, "private");
	ck_body(R(api("PUT", P(&w, ""), w.owner, "merge_method=fast")), 400,
		"{\"error\":\"merge_method does not have a valid value\"}");
	resp *r = R(api("PUT", P(&w, ""), w.master, "merge_method=ff"));
	ck_status(r, 200);
	ck_jstr(r, "merge_method", "ff");
	/* ff: master moves to the source's head, no merge commit */
	const char *old = master_head(&w);
	const char *head = branch(&w, "fast", "fast.txt");
	long long fast = create_iid(&w, "source_branch=fast&target_branch=master&title=Fast");
	wait_status(&w, fast, "can_be_merged");
	r = R(api("PUT", M(&w, fast, "/merge"), w.developer, S(fmt("sha=%s", head))));
	ck_status(r, 200);
	ck_jstr(r, "state", "merged");
	ck_jstr(r, "merge_commit_sha", head);
	ck_assert_str_eq(master_head(&w), head);
	json_object *parents = parents_of(&w, head);
	ck_assert_int_eq(json_object_array_length(parents), 1);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(parents, 0)), old);
	r = R(api("GET", P(&w, "/events?target_type=merge_request"), w.owner, NULL));
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "action_name"), "accepted");
	/* ff refused once the target moved: cannot_be_merged, 406, nothing written */
	branch(&w, "late", "late.txt");
	long long late = create_iid(&w, "source_branch=late&target_branch=master&title=Late");
	wait_status(&w, late, "can_be_merged");
	const char *moved = commit_to(w.id, w.developer, "master", NULL, "create", "other.txt",
				      "other\\n", "Other");
	wait_status(&w, late, "cannot_be_merged");
	ck_body(R(api("PUT", M(&w, late, "/merge"), w.developer, NULL)), 406,
		"{\"message\":\"Branch cannot be merged\"}");
	ck_assert_str_eq(master_head(&w), moved);
	r = R(api("GET", M(&w, late, ""), w.owner, NULL));
	ck_jstr(r, "state", "opened");
	ck_assert(jnull(r->json, "merge_commit_sha"));
	/* rebase_merge: a merge commit, only as a fast-forward would be possible */
	ck_status(R(api("PUT", P(&w, ""), w.master, "merge_method=rebase_merge")), 200);
	ck_body(R(api("PUT", M(&w, late, "/merge"), w.developer, NULL)), 406,
		"{\"message\":\"Branch cannot be merged\"}");
	head = branch(&w, "semi", "semi.txt");
	long long semi = create_iid(&w, "source_branch=semi&target_branch=master&title=Semi");
	r = R(api("PUT", M(&w, semi, "/merge"), w.developer, NULL));
	ck_status(r, 200);
	const char *merge_sha = S(strdup(jstr(r->json, "merge_commit_sha")));
	ck_assert_str_ne(merge_sha, head);
	ck_assert_str_eq(master_head(&w), merge_sha);
	ck_assert_int_eq(json_object_array_length(parents_of(&w, merge_sha)), 2);
	/* merge (the default again): the request that could not fast-forward merges */
	ck_status(R(api("PUT", P(&w, ""), w.master, "merge_method=merge")), 200);
	r = R(api("PUT", M(&w, late, "/merge"), w.developer, NULL));
	ck_status(r, 200);
	merge_sha = jstr(r->json, "merge_commit_sha");
	ck_assert_str_eq(master_head(&w), merge_sha);
	ck_assert_int_eq(json_object_array_length(parents_of(&w, merge_sha)), 2);
	release_all();
}
END_TEST

/* ---- two instances merging the same request at once ---- */

typedef struct {
	const char *url, *token;
	long status;
	char *body;
} merge_call;

static void *merge_thread(void *arg)
{
	merge_call *c = arg;
	char *auth = fmt("PRIVATE-TOKEN: %s", c->token);
	const char *headers[] = {auth, NULL};
	resp *r = http_request("PUT", c->url, headers, "", 0, "application/x-www-form-urlencoded");
	c->status = r->status;
	c->body = strdup(r->body);
	resp_free(r);
	free(auth);
	return NULL;
}

START_TEST(test_concurrent_merge)
{
	const char *e = getenv("COLLABD_INSTANCE_URLS");
	ck_assert_msg(e != NULL, "COLLABD_INSTANCE_URLS must name one URL per instance");
	char *urls = S(strdup(e)), *save = NULL;
	char *a = strtok_r(urls, " ", &save), *b = strtok_r(NULL, " ", &save);
	ck_assert(a && b);
	world w;
	make_world(&w, "private");
	for (int round = 0; round < 3; round++) {
		const char *name = S(fmt("race%d", round));
		branch(&w, name, S(fmt("%s.txt", name)));
		long long iid = create_iid(
			&w, S(fmt("source_branch=%s&target_branch=master&title=r", name)));
		const char *before = S(strdup(jstr(
			R(api("GET", P(&w, "/repository/commits/master"), w.owner, NULL))->json,
			"id")));
		merge_call calls[2] = {
			{S(fmt("%s/api/v4/projects/%lld/merge_requests/%lld/merge", a, w.id, iid)),
			 w.developer, 0, NULL},
			{S(fmt("%s/api/v4/projects/%lld/merge_requests/%lld/merge", b, w.id, iid)),
			 w.master, 0, NULL}};
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, merge_thread, &calls[i]);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		S(calls[0].body);
		S(calls[1].body);
		int ok = (calls[0].status == 200) + (calls[1].status == 200);
		ck_assert_msg(ok == 1, "%ld %s / %ld %s", calls[0].status, calls[0].body,
			      calls[1].status, calls[1].body);
		long other = calls[0].status == 200 ? calls[1].status : calls[0].status;
		ck_assert_msg(other == 405, "the other merge: %ld", other);
		/* exactly one merge commit on master, whose first parent is the old head */
		resp *r = R(api("GET", P(&w, "/repository/commits/master"), w.owner, NULL));
		ck_assert_str_eq(json_object_get_string(
					 json_object_array_get_idx(jget(r->json, "parent_ids"), 0)),
				 before);
		ck_assert_int_eq(sql_int("SELECT count(*) FROM events WHERE project_id = %lld"
					 " AND target_type = 'MergeRequest' AND action = 'merged'"
					 " AND target_iid = %lld",
					 w.id, iid),
				 1);
	}
	release_all();
}
END_TEST

/* ---- a fork's request into its source ---- */

START_TEST(test_fork_request)
{
	world w;
	make_world(&w, "public");
	long long forker_id;
	char *forker = user("mfrk", &forker_id, NULL);
	resp *r = R(api("POST", P(&w, "/fork"), forker, NULL));
	ck_assert_msg(r->status == 201, "fork: %ld %s", r->status, r->body);
	long long fork = jint(r->json, "id");
	commit_to(fork, forker, "improve", "master", "create", "fork.txt", "from the fork\\n",
		  "From the fork");
	/* made in the fork, it lives in the source project */
	r = R(api(
		"POST", S(fmt("/projects/%lld/merge_requests", fork)), forker,
		S(fmt("source_branch=improve&target_branch=master&title=Fork&target_project_id=%lld",
		      w.id))));
	ck_assert_msg(r->status == 201, "create: %ld %s", r->status, r->body);
	ck_assert_int_eq(jint(r->json, "project_id"), w.id);
	ck_assert_int_eq(jint(r->json, "source_project_id"), fork);
	ck_assert_int_eq(jint(r->json, "target_project_id"), w.id);
	long long iid = jint(r->json, "iid");
	ck_assert_str_eq(list(P(&w, "/merge_requests"), w.owner), S(fmt("%lld", iid)));
	ck_assert_str_eq(list(S(fmt("/projects/%lld/merge_requests", fork)), forker), "");
	/* not a fork of it: 422 */
	long long other = api_project(forker, "private", NULL);
	commit_to(other, forker, "master", NULL, "create", "x.txt", "x", "x");
	ck_body(R(api("POST", S(fmt("/projects/%lld/merge_requests", other)), forker,
		      S(fmt("source_branch=master&target_branch=master&title=x&target_project_id=%lld",
			    w.id)))),
		422, "{\"message\":[\"Source project is not a fork of the target project\"]}");
	r = R(api("GET", M(&w, iid, "/commits"), w.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "title"), "From the fork");
	wait_status(&w, iid, "can_be_merged");
	/* the forker may not merge into the source; its master does */
	ck_status(R(api("PUT", M(&w, iid, "/merge"), forker, NULL)), 401);
	r = R(api("PUT", M(&w, iid, "/merge"), w.master, NULL));
	ck_status(r, 200);
	ck_jstr(r, "state", "merged");
	r = R(api("GET", P(&w, "/repository/files/fork.txt/raw?ref=master"), w.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "from the fork\n");
	release_all();
}
END_TEST

Suite *suite_merge_requests(void)
{
	Suite *s = suite_create("merge_requests");
	TCase *tc = tcase_create("merge_requests");
	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_create_and_show);
	tcase_add_test(tc, test_public_access);
	tcase_add_test(tc, test_lists);
	tcase_add_test(tc, test_list_plain);
	tcase_add_test(tc, test_group_list);
	tcase_add_test(tc, test_update_delete);
	tcase_add_test(tc, test_bad_branch_names);
	tcase_add_test(tc, test_notes_participants_mwps);
	tcase_add_test(tc, test_commits_pages);
	tcase_add_test(tc, test_notes_noteable_iid);
	tcase_add_test(tc, test_git_flow_merge);
	tcase_add_test(tc, test_merge_refusals);
	tcase_add_test(tc, test_merge_methods);
	tcase_add_test(tc, test_concurrent_merge);
	tcase_add_test(tc, test_fork_request);
	suite_add_tcase(s, tc);
	return s;
}
