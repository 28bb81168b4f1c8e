/* API suite: branches (spec 4.8) and protected branches (GitLab 10's
 * /projects/:id/protected_branches). Repository content is made with stock git, pushed
 * to the bare repository on disk: master (c1 <- c2 <- c3), merged2 at c1, merged1 at c2,
 * same at c3, feature and topic/slash at c4 (a child of c3), tags v1.0 and v2.0. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

/* ---- fixtures ---- */

#define DATES                                                                                      \
	"export GIT_AUTHOR_NAME='Ann Author' GIT_AUTHOR_EMAIL=ann@example.com"                     \
	" GIT_COMMITTER_NAME='Cid Committer' GIT_COMMITTER_EMAIL=cid@example.com"                  \
	" GIT_AUTHOR_DATE='2017-09-20T11:50:22+0300' GIT_COMMITTER_DATE='2017-09-21T08:00:00-0700';"

static void sh(const char *cmd)
{
	int rc = system(cmd);
	ck_assert_msg(rc == 0, "command failed (%d): %s", rc, cmd);
}

/* The content described above, pushed into project pid's repository. */
static void seed(long long pid)
{
	char *dir = S(repo_dir_of(pid));
	sh(S(fmt("set -e; w=$(mktemp -d); cd \"$w\"; " DATES " git init -q .;"
		 " git symbolic-ref HEAD refs/heads/master;"
		 " git commit -q --allow-empty -m 'first commit' -m 'the body';"
		 " git branch merged2;"
		 " git commit -q --allow-empty -m second; git branch merged1;"
		 " git commit -q --allow-empty -m third; git branch same;"
		 " git checkout -q -b feature; git commit -q --allow-empty -m fourth;"
		 " git branch topic/slash; git checkout -q master;"
		 " git tag v1.0 merged2; git tag -a v2.0 -m 'Release 2.0' master;"
		 " git push -q '%s' 'refs/heads/*:refs/heads/*' 'refs/tags/*:refs/tags/*';"
		 " cd /; rm -rf \"$w\"",
		 dir)));
}

/* `git rev-parse rev` in project pid's repository (caller of S). */
static char *rev(long long pid, const char *rev)
{
	char *cmd = S(fmt("git --git-dir='%s' rev-parse --verify -q '%s' 2>/dev/null",
			  S(repo_dir_of(pid)), rev));
	FILE *p = popen(cmd, "r");
	ck_assert(p != NULL);
	char line[128] = "";
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	return S(strdup(line));
}

/* A project with the seeded repository, its owner and a member of each role. */
typedef struct {
	long long id;
	char *owner, *master, *developer, *reporter, *guest, *outsider;
} world;

static char *member(long long pid, int level)
{
	long long uid;
	char *token = S(make_user("br", &uid, NULL));
	fixture_member("Project", pid, uid, level);
	return token;
}

static void make_world(world *w, const char *visibility)
{
	long long uid;
	w->owner = S(make_user("brown", &uid, NULL));
	w->id = api_project(w->owner, visibility, NULL);
	w->master = member(w->id, 40);
	w->developer = member(w->id, 30);
	w->reporter = member(w->id, 20);
	w->guest = member(w->id, 10);
	w->outsider = S(make_user("brout", &uid, NULL));
	seed(w->id);
}

static char *P(const world *w, const char *suffix)
{
	return S(fmt("/projects/%lld%s", w->id, suffix));
}

static const char *const branch_fields[] = {
	"name", "commit", "merged", "protected", "developers_can_push", "developers_can_merge",
	NULL};
static const char *const commit_fields[] = {"id",
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

/* The names of a list response, joined by ',' */
static char *names(resp *r)
{
	ck_assert_msg(r->json && json_object_is_type(r->json, json_type_array), "%s", r->body);
	char *out = S(strdup(""));
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		const char *n = jstr(json_object_array_get_idx(r->json, i), "name");
		out = S(fmt("%s%s%s", out, i ? "," : "", n ? n : "?"));
	}
	return out;
}

#define ck_names(r, want)                                                                          \
	ck_assert_msg(strcmp(names(r), (want)) == 0, "expected %s, got %s", (want), names(r))

static json_object *find(resp *r, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *o = json_object_array_get_idx(r->json, i);
		if (strcmp(jstr(o, "name"), name) == 0)
			return o;
	}
	ck_abort_msg("no %s in %s", name, r->body);
	return NULL;
}

/* ---- tests ---- */

START_TEST(test_branches_list_shape)
{
	world w;
	make_world(&w, "private");
	resp *r = R(api("GET", P(&w, "/repository/branches"), w.reporter, NULL));
	ck_status(r, 200);
	ck_names(r, "feature,master,merged1,merged2,same,topic/slash");
	ck_pages(r, P(&w, "/repository/branches"), "", 6, 20, 1);
	json_object *m = find(r, "master");
	ck_fields(m, branch_fields);
	json_object *c = jget(m, "commit");
	ck_fields(c, commit_fields);
	const char *sha = rev(w.id, "master");
	ck_assert_str_eq(jstr(c, "id"), sha);
	ck_assert_str_eq(jstr(c, "short_id"), S(strndup(sha, 11)));
	ck_assert_str_eq(jstr(c, "title"), "third");
	ck_assert_str_eq(jstr(c, "message"), "third\n");
	ck_assert_str_eq(jstr(c, "author_name"), "Ann Author");
	ck_assert_str_eq(jstr(c, "author_email"), "ann@example.com");
	ck_assert_str_eq(jstr(c, "committer_name"), "Cid Committer");
	ck_assert_str_eq(jstr(c, "committer_email"), "cid@example.com");
	ck_assert_str_eq(jstr(c, "authored_date"), "2017-09-20T11:50:22.000+03:00");
	ck_assert_str_eq(jstr(c, "committed_date"), "2017-09-21T08:00:00.000-07:00");
	ck_assert_str_eq(jstr(c, "created_at"), "2017-09-21T08:00:00.000-07:00");
	json_object *parents = jget(c, "parent_ids");
	ck_assert_int_eq((int)json_object_array_length(parents), 1);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(parents, 0)),
			 rev(w.id, "merged1"));
	/* merged: relative to the default branch, never itself nor a branch at its commit */
	ck_assert(!jbool(m, "merged"));
	ck_assert(jbool(find(r, "merged1"), "merged"));
	ck_assert(jbool(find(r, "merged2"), "merged"));
	ck_assert(!jbool(find(r, "same"), "merged"));
	ck_assert(!jbool(find(r, "feature"), "merged"));
	ck_assert(!jbool(m, "protected") && !jbool(m, "developers_can_push") &&
		  !jbool(m, "developers_can_merge"));
	/* the first commit: its body, no parents */
	r = R(api("GET", P(&w, "/repository/branches/merged2"), w.reporter, NULL));
	ck_status(r, 200);
	c = jget(r->json, "commit");
	ck_assert_str_eq(jstr(c, "title"), "first commit");
	ck_assert_str_eq(jstr(c, "message"), "first commit\n\nthe body\n");
	ck_assert_int_eq((int)json_object_array_length(jget(c, "parent_ids")), 0);
}
END_TEST

START_TEST(test_branches_pages)
{
	world w;
	make_world(&w, "public");
	resp *r = R(api("GET", P(&w, "/repository/branches?per_page=4&page=2"), NULL, NULL));
	ck_status(r, 200);
	ck_names(r, "same,topic/slash");
	ck_pages(r, P(&w, "/repository/branches"), "", 6, 4, 2);
	r = R(api("GET", P(&w, "/repository/branches?per_page=4"), NULL, NULL));
	ck_names(r, "feature,master,merged1,merged2");
	r = R(api("GET", P(&w, "/repository/branches?page=9"), NULL, NULL));
	ck_status(r, 200);
	ck_names(r, "");
	/* search: the names that contain it, case aside; with pages */
	r = R(api("GET", P(&w, "/repository/branches?search=ERGE"), NULL, NULL));
	ck_status(r, 200);
	ck_names(r, "merged1,merged2");
	r = R(api("GET", P(&w, "/repository/branches?search=r&per_page=2&page=2"), NULL, NULL));
	ck_names(r, "merged1,merged2");
	ck_pages(r, P(&w, "/repository/branches"), "search=r", 4, 2, 2);
	r = R(api("GET", P(&w, "/repository/branches?search=%2Fsl"), NULL, NULL));
	ck_names(r, "topic/slash");
	r = R(api("GET", P(&w, "/repository/branches?search=nothing"), NULL, NULL));
	ck_names(r, "");
	ck_header(r, "X-Total", "0");
	r = R(api("GET", P(&w, "/repository/branches?page=x"), NULL, NULL));
	ck_status(r, 400);
	/* an empty repository has no branches */
	long long uid;
	char *t = S(make_user("brempty", &uid, NULL));
	long long empty = api_project(t, "private", NULL);
	r = R(api("GET", S(fmt("/projects/%lld/repository/branches", empty)), t, NULL));
	ck_status(r, 200);
	ck_names(r, "");
	ck_header(r, "X-Total", "0");
}
END_TEST

START_TEST(test_branches_show)
{
	world w;
	make_world(&w, "private");
	resp *r = R(api("GET", P(&w, "/repository/branches/topic%2Fslash"), w.developer, NULL));
	ck_status(r, 200);
	ck_jstr(r, "name", "topic/slash");
	ck_fields(r->json, branch_fields);
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "id"), rev(w.id, "feature"));
	ck_body(R(api("GET", P(&w, "/repository/branches/nope"), w.developer, NULL)), 404,
		"{\"message\":\"404 Branch Not Found\"}");
	ck_body(R(api("GET", P(&w, "/repository/branches/topic"), w.developer, NULL)), 404,
		"{\"message\":\"404 Branch Not Found\"}");
	ck_body(R(api("GET", "/projects/999999999/repository/branches/master", w.developer, NULL)),
		404, "{\"message\":\"404 Project Not Found\"}");
}
END_TEST

START_TEST(test_branches_create)
{
	world w;
	make_world(&w, "private");
	const char *path = P(&w, "/repository/branches");
	resp *r = R(api("POST", path, w.developer, "branch=new/one&ref=feature"));
	ck_status(r, 201);
	ck_fields(r->json, branch_fields);
	ck_jstr(r, "name", "new/one");
	ck_assert_str_eq(rev(w.id, "refs/heads/new/one"), rev(w.id, "feature"));
	ck_assert(!jbool(r->json, "merged"));
	/* from a sha, and from a tag */
	const char *sha = rev(w.id, "merged1");
	r = R(api("POST", path, w.developer, S(fmt("branch=from-sha&ref=%s", sha))));
	ck_status(r, 201);
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "id"), sha);
	ck_assert(jbool(r->json, "merged"));
	r = R(api("POST", path, w.developer, "branch=from-tag&ref=v2.0"));
	ck_status(r, 201);
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "id"), rev(w.id, "master"));
	/* errors: nothing is created */
	ck_body(R(api("POST", path, w.developer, "ref=master")), 400,
		"{\"message\":\"400 (Bad request) \\\"branch\\\" not given\"}");
	ck_body(R(api("POST", path, w.developer, "branch=x")), 400,
		"{\"message\":\"400 (Bad request) \\\"ref\\\" not given\"}");
	ck_body(R(api("POST", path, w.developer, "branch=bad..name&ref=master")), 400,
		"{\"message\":\"Branch name is invalid\"}");
	ck_body(R(api("POST", path, w.developer, "branch=&ref=master")), 400,
		"{\"message\":\"Branch name is invalid\"}");
	ck_body(R(api("POST", path, w.developer, "branch=refs/heads/x&ref=master")), 400,
		"{\"message\":\"Branch name is invalid\"}");
	ck_body(R(api("POST", path, w.developer, "branch=feature&ref=master")), 400,
		"{\"message\":\"Branch already exists\"}");
	ck_assert_str_eq(rev(w.id, "refs/heads/feature"), rev(w.id, "topic/slash"));
	ck_body(R(api("POST", path, w.developer, "branch=ghost&ref=nope")), 400,
		"{\"message\":\"Invalid reference name\"}");
	ck_body(R(api("POST", path, w.developer, "branch=ghost&ref=")), 400,
		"{\"message\":\"Invalid reference name\"}");
	ck_assert_str_eq(rev(w.id, "refs/heads/ghost"), "");
	/* a path below an existing branch */
	ck_body(R(api("POST", path, w.developer, "branch=feature/below&ref=master")), 400,
		"{\"message\":\"Branch name is invalid\"}");
	ck_body(R(api("POST", path, w.developer, "branch=topic&ref=master")), 400,
		"{\"message\":\"Branch name is invalid\"}");
	ck_assert_str_eq(rev(w.id, "refs/heads/topic"), "");
	ck_assert_str_eq(rev(w.id, "refs/heads/feature/below"), "");
	/* who */
	ck_code(R(api("POST", path, w.reporter, "branch=r1&ref=master")), 403);
	ck_code(R(api("POST", path, w.guest, "branch=r1&ref=master")), 403);
	ck_code(R(api("POST", path, NULL, "branch=r1&ref=master")), 401);
	ck_code(R(api("POST", path, w.outsider, "branch=r1&ref=master")), 404);
	ck_code(R(api("POST", path, w.master, "branch=m1&ref=master")), 201);
	ck_code(R(api("POST", path, w.owner, "branch=o1&ref=master")), 201);
	ck_code(R(api("POST", path, admin_token(), "branch=a1&ref=master")), 201);
	ck_assert_str_eq(rev(w.id, "refs/heads/r1"), "");
}
END_TEST

/* Every name no branch may have is refused with GitLab's words and makes nothing: as
 * the new branch, as the ref it starts from, and as a protected branch's name (where a
 * wildcard is a name); read, it is a branch that is not there, never a 500. */
START_TEST(test_branches_bad_names)
{
	world w;
	make_world(&w, "private");
	const char *path = P(&w, "/repository/branches");
	const char *list = S(fmt("%s?per_page=100", path));
	const char *before = R(api("GET", list, w.developer, NULL))->body;
	for (const char *const *n = bad_ref_names; *n; n++) {
		const char *e = S(enc(*n));
		resp *r = R(api("POST", path, w.developer, S(fmt("branch=%s&ref=master", e))));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), "Branch name is invalid") ==
					      0,
			      "branch %s: %ld %s", *n, r->status, r->body);
		r = R(api("POST", path, w.developer, S(fmt("branch=fresh&ref=%s", e))));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), "Invalid reference name") ==
					      0,
			      "ref %s: %ld %s", *n, r->status, r->body);
		r = R(api("POST", P(&w, "/protected_branches"), w.master, S(fmt("name=%s", e))));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), "Branch name is invalid") ==
					      0,
			      "protected %s: %ld %s", *n, r->status, r->body);
		r = R(api("GET", S(fmt("%s/%s", path, e)), w.developer, NULL));
		ck_assert_msg(r->status == 404 || r->status == 400, "show %s: %ld", *n, r->status);
	}
	ck_assert_str_eq(R(api("GET", list, w.developer, NULL))->body, before);
	ck_assert_str_eq(rev(w.id, "refs/heads/fresh"), "");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM protected_branches WHERE project_id = %lld",
				 w.id),
			 0);
	/* what is allowed beside them */
	ck_code(R(api("POST", path, w.developer, "branch=a-%40b.c%2Fd&ref=master")), 201);
	ck_code(R(api("POST", P(&w, "/protected_branches"), w.master, "name=rel-*%2Fx")), 201);
}
END_TEST

START_TEST(test_branches_delete)
{
	world w;
	make_world(&w, "private");
	ck_code(R(api("DELETE", P(&w, "/repository/branches/topic%2Fslash"), w.reporter, NULL)),
		403);
	ck_code(R(api("DELETE", P(&w, "/repository/branches/topic%2Fslash"), NULL, NULL)), 401);
	resp *r = R(api("DELETE", P(&w, "/repository/branches/topic%2Fslash"), w.developer, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_assert_str_eq(rev(w.id, "refs/heads/topic/slash"), "");
	ck_body(R(api("DELETE", P(&w, "/repository/branches/topic%2Fslash"), w.developer, NULL)),
		404, "{\"message\":\"404 Branch Not Found\"}");
	ck_body(R(api("DELETE", P(&w, "/repository/branches/master"), w.master, NULL)), 405,
		"{\"message\":\"Cannot remove HEAD branch\"}");
	ck_assert_str_ne(rev(w.id, "refs/heads/master"), "");
}
END_TEST

START_TEST(test_branches_protect)
{
	world w;
	make_world(&w, "private");
	const char *protect = P(&w, "/repository/branches/feature/protect");
	ck_code(R(api("PUT", protect, w.developer, NULL)), 403);
	ck_code(R(api("PUT", protect, NULL, NULL)), 401);
	ck_body(R(api("PUT", protect, w.master, "developers_can_push=maybe")), 400,
		"{\"error\":\"developers_can_push is invalid\"}");
	ck_body(R(api("PUT", P(&w, "/repository/branches/nope/protect"), w.master, NULL)), 404,
		"{\"message\":\"404 Branch Not Found\"}");
	resp *r = R(api("PUT", protect, w.master, NULL));
	ck_status(r, 200);
	ck_fields(r->json, branch_fields);
	ck_assert(jbool(r->json, "protected"));
	ck_assert(!jbool(r->json, "developers_can_push") &&
		  !jbool(r->json, "developers_can_merge"));
	/* again: 200, and the flags set */
	r = R(api("PUT", protect, w.master, "developers_can_push=true"));
	ck_status(r, 200);
	ck_assert(jbool(r->json, "protected") && jbool(r->json, "developers_can_push"));
	ck_assert(!jbool(r->json, "developers_can_merge"));
	/* absent leaves a flag as it was */
	r = R(api("PUT", protect, w.master, "developers_can_merge=true"));
	ck_assert(jbool(r->json, "developers_can_push") && jbool(r->json, "developers_can_merge"));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM protected_branches WHERE project_id = %lld",
				 w.id),
			 1);
	/* a protected branch is never deleted, not even by a master */
	ck_body(R(api("DELETE", P(&w, "/repository/branches/feature"), w.master, NULL)), 405,
		"{\"message\":\"Protected branch cant be removed\"}");
	ck_assert_str_ne(rev(w.id, "refs/heads/feature"), "");
	/* unprotect: idempotent */
	const char *unprotect = P(&w, "/repository/branches/feature/unprotect");
	ck_code(R(api("PUT", unprotect, w.developer, NULL)), 403);
	for (int i = 0; i < 2; i++) {
		r = R(api("PUT", unprotect, w.master, NULL));
		ck_status(r, 200);
		ck_assert(!jbool(r->json, "protected") && !jbool(r->json, "developers_can_push"));
	}
	ck_code(R(api("DELETE", P(&w, "/repository/branches/feature"), w.developer, NULL)), 204);
	/* a slash in the name */
	r = R(api("PUT", P(&w, "/repository/branches/topic%2Fslash/protect"), w.owner, NULL));
	ck_status(r, 200);
	ck_jstr(r, "name", "topic/slash");
	ck_assert(jbool(r->json, "protected"));
}
END_TEST

START_TEST(test_branches_protected_rule)
{
	world w;
	make_world(&w, "private");
	const char *path = P(&w, "/repository/branches");
	/* release-* : masters push; hot-* : developers push */
	ck_code(R(api("POST", P(&w, "/protected_branches"), w.master, "name=release-*")), 201);
	ck_code(R(api("POST", P(&w, "/protected_branches"), w.master,
		      "name=hot-*&push_access_level=30")),
		201);
	ck_body(R(api("POST", path, w.developer, "branch=release-1&ref=master")), 400,
		"{\"message\":\"You are not allowed to push code to protected branches on this "
		"project.\"}");
	ck_assert_str_eq(rev(w.id, "refs/heads/release-1"), "");
	resp *r = R(api("POST", path, w.master, "branch=release-1&ref=master"));
	ck_status(r, 201);
	ck_assert(jbool(r->json, "protected") && !jbool(r->json, "developers_can_push"));
	r = R(api("POST", path, w.developer, "branch=hot-1&ref=master"));
	ck_status(r, 201);
	ck_assert(jbool(r->json, "protected") && jbool(r->json, "developers_can_push"));
	/* no one (0): not even a master */
	ck_code(R(api("POST", P(&w, "/protected_branches"), w.master,
		      "name=frozen&push_access_level=0")),
		201);
	ck_code(R(api("POST", path, w.master, "branch=frozen&ref=master")), 400);
	/* the list shows wildcards' protection */
	r = R(api("GET", path, w.reporter, NULL));
	ck_assert(jbool(find(r, "release-1"), "protected"));
	ck_assert(!jbool(find(r, "feature"), "protected"));
	/* protected via a wildcard: not deleted */
	ck_code(R(api("DELETE", P(&w, "/repository/branches/hot-1"), w.master, NULL)), 405);
}
END_TEST

START_TEST(test_branches_delete_merged)
{
	world w;
	make_world(&w, "private");
	ck_code(R(api("PUT", P(&w, "/repository/branches/merged2/protect"), w.master, NULL)), 200);
	ck_code(R(api("DELETE", P(&w, "/repository/merged_branches"), w.reporter, NULL)), 403);
	ck_code(R(api("DELETE", P(&w, "/repository/merged_branches"), NULL, NULL)), 401);
	ck_body(R(api("DELETE", P(&w, "/repository/merged_branches"), w.developer, NULL)), 202,
		"{\"message\":\"202 Accepted\"}");
	bool gone = false;
	for (int i = 0; i < 300 && !gone; i++) {
		gone = strcmp(rev(w.id, "refs/heads/merged1"), "") == 0;
		if (!gone)
			usleep(100000);
	}
	ck_assert_msg(gone, "merged1 was not deleted");
	resp *r = R(api("GET", P(&w, "/repository/branches"), w.reporter, NULL));
	ck_names(r, "feature,master,merged2,same,topic/slash");
}
END_TEST

START_TEST(test_branches_access)
{
	world priv, pub;
	make_world(&priv, "private");
	make_world(&pub, "public");
	const char *list = P(&priv, "/repository/branches"),
		   *one = P(&priv, "/repository/branches/master");
	ck_code(R(api("GET", list, NULL, NULL)), 404);
	ck_code(R(api("GET", list, priv.outsider, NULL)), 404);
	ck_body(R(api("GET", list, priv.guest, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("GET", one, priv.guest, NULL)), 403);
	ck_code(R(api("GET", list, priv.reporter, NULL)), 200);
	ck_code(R(api("GET", one, priv.developer, NULL)), 200);
	ck_code(R(api("GET", list, priv.master, NULL)), 200);
	ck_code(R(api("GET", list, admin_token(), NULL)), 200);
	/* public: anyone reads; writes need developer */
	ck_code(R(api("GET", P(&pub, "/repository/branches"), NULL, NULL)), 200);
	ck_code(R(api("GET", P(&pub, "/repository/branches/master"), NULL, NULL)), 200);
	ck_code(R(api("GET", P(&pub, "/repository/branches"), pub.guest, NULL)), 200);
	ck_code(R(api("GET", P(&pub, "/repository/branches"), pub.outsider, NULL)), 200);
	ck_code(R(api("POST", P(&pub, "/repository/branches"), pub.outsider,
		      "branch=x&ref=master")),
		403);
	ck_code(R(api("POST", P(&pub, "/repository/branches"), pub.guest, "branch=x&ref=master")),
		403);
	ck_code(R(api("DELETE", P(&pub, "/repository/branches/feature"), pub.outsider, NULL)), 403);
	ck_code(R(api("PUT", P(&pub, "/repository/branches/feature/protect"), pub.outsider, NULL)),
		403);
	ck_code(R(api("GET", P(&pub, "/protected_branches"), pub.outsider, NULL)), 403);
	ck_code(R(api("POST", P(&pub, "/repository/branches"), pub.developer,
		      "branch=x&ref=master")),
		201);
	/* internal: signed-in users read */
	long long uid;
	char *t = S(make_user("brint", &uid, NULL));
	long long internal = api_project(t, "internal", NULL);
	ck_code(R(api("GET", S(fmt("/projects/%lld/repository/branches", internal)), pub.outsider,
		      NULL)),
		200);
	ck_code(R(api("GET", S(fmt("/projects/%lld/repository/branches", internal)), NULL, NULL)),
		404);
}
END_TEST

/* ---- two writers at once ---- */

struct racer {
	const char *path, *token, *form;
	long status;
};

static void *race(void *arg)
{
	struct racer *x = arg;
	resp *r = api("POST", x->path, x->token, x->form);
	x->status = r->status;
	resp_free(r);
	return NULL;
}

START_TEST(test_branches_create_race)
{
	world w;
	make_world(&w, "private");
	for (int round = 0; round < 5; round++) {
		const char *form = S(fmt("branch=race-%d&ref=master", round));
		struct racer a = {P(&w, "/repository/branches"), w.developer, form, 0};
		struct racer b = {P(&w, "/repository/branches"), w.master, form, 0};
		pthread_t ta, tb;
		pthread_create(&ta, NULL, race, &a);
		pthread_create(&tb, NULL, race, &b);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		ck_assert_msg((a.status == 201 && b.status == 400) ||
				      (a.status == 400 && b.status == 201),
			      "round %d: %ld and %ld", round, a.status, b.status);
	}
}
END_TEST

/* ---- protected branches API ---- */

START_TEST(test_protected_branches_api)
{
	world w;
	make_world(&w, "private");
	const char *path = P(&w, "/protected_branches");
	ck_code(R(api("GET", path, w.developer, NULL)), 403);
	ck_code(R(api("POST", path, w.developer, "name=x")), 403);
	ck_code(R(api("GET", path, NULL, NULL)), 401);
	resp *r = R(api("POST", path, w.master, "name=feature"));
	ck_body(r, 201,
		"{\"name\":\"feature\",\"push_access_levels\":[{\"access_level\":40,"
		"\"access_level_description\":\"Masters\"}],\"merge_access_levels\":"
		"[{\"access_level\":40,\"access_level_description\":\"Masters\"}]}");
	r = R(api("POST", path, w.master, "name=rel/*&push_access_level=30&merge_access_level=0"));
	ck_body(r, 201,
		"{\"name\":\"rel/*\",\"push_access_levels\":[{\"access_level\":30,"
		"\"access_level_description\":\"Developers + Masters\"}],\"merge_access_levels\":"
		"[{\"access_level\":0,\"access_level_description\":\"No one\"}]}");
	ck_body(R(api("POST", path, w.master, "name=feature")), 409,
		"{\"message\":\"Protected branch 'feature' already exists\"}");
	ck_body(R(api("POST", path, w.master, "push_access_level=30")), 400,
		"{\"message\":\"400 (Bad request) \\\"name\\\" not given\"}");
	ck_body(R(api("POST", path, w.master, "name=y&push_access_level=20")), 400,
		"{\"error\":\"push_access_level does not have a valid value\"}");
	ck_body(R(api("POST", path, w.master, "name=y&merge_access_level=x")), 400,
		"{\"error\":\"merge_access_level does not have a valid value\"}");
	r = R(api("POST", path, w.master, "name=a3"));
	ck_status(r, 201);
	/* list, paginated, in the order they were made */
	r = R(api("GET", S(fmt("%s?per_page=2", path)), w.master, NULL));
	ck_status(r, 200);
	ck_names(r, "feature,rel/*");
	ck_pages(r, path, "", 3, 2, 1);
	r = R(api("GET", S(fmt("%s?per_page=2&page=2", path)), w.master, NULL));
	ck_names(r, "a3");
	/* show: the exact name, a slash encoded */
	r = R(api("GET", S(fmt("%s/rel%%2F*", path)), w.master, NULL));
	ck_status(r, 200);
	ck_jstr(r, "name", "rel/*");
	ck_body(R(api("GET", S(fmt("%s/nope", path)), w.master, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	/* the branch records follow */
	r = R(api("GET", P(&w, "/repository/branches/feature"), w.reporter, NULL));
	ck_assert(jbool(r->json, "protected"));
	/* delete */
	ck_code(R(api("DELETE", S(fmt("%s/feature", path)), w.developer, NULL)), 403);
	r = R(api("DELETE", S(fmt("%s/feature", path)), w.master, NULL));
	ck_status(r, 204);
	ck_body(R(api("DELETE", S(fmt("%s/feature", path)), w.master, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	r = R(api("GET", P(&w, "/repository/branches/feature"), w.reporter, NULL));
	ck_assert(!jbool(r->json, "protected"));
}
END_TEST

Suite *suite_branches(void)
{
	Suite *s = suite_create("branches");
	TCase *tc = tcase_create("branches");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_branches_list_shape);
	tcase_add_test(tc, test_branches_pages);
	tcase_add_test(tc, test_branches_show);
	tcase_add_test(tc, test_branches_create);
	tcase_add_test(tc, test_branches_bad_names);
	tcase_add_test(tc, test_branches_delete);
	tcase_add_test(tc, test_branches_protect);
	tcase_add_test(tc, test_branches_protected_rule);
	tcase_add_test(tc, test_branches_delete_merged);
	tcase_add_test(tc, test_branches_access);
	tcase_add_test(tc, test_branches_create_race);
	tcase_add_test(tc, test_protected_branches_api);
	suite_add_tcase(s, tc);
	return s;
}
