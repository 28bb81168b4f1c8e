/* API suite: tags and releases (spec 4.9). Repository content is made with stock git,
 * pushed to the bare repository on disk: master (c1 <- c2 <- c3), branches merged2 at c1,
 * merged1 at c2, same at c3, feature and topic/slash at c4; tags v1.0 (lightweight, at
 * c1) and v2.0 (annotated "Release 2.0", at c3). */
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
	char *token = S(make_user("tg", &uid, NULL));
	fixture_member("Project", pid, uid, level);
	return token;
}

static void make_world(world *w, const char *visibility)
{
	long long uid;
	w->owner = S(make_user("tgown", &uid, NULL));
	w->id = api_project(w->owner, visibility, NULL);
	w->master = member(w->id, 40);
	w->developer = member(w->id, 30);
	w->reporter = member(w->id, 20);
	w->guest = member(w->id, 10);
	w->outsider = S(make_user("tgout", &uid, NULL));
	seed(w->id);
}

static char *P(const world *w, const char *suffix)
{
	return S(fmt("/projects/%lld%s", w->id, suffix));
}

static const char *const tag_fields[] = {"name", "message", "commit", "release", NULL};
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

/* ---- tests ---- */

START_TEST(test_tags_list_shape)
{
	world w;
	make_world(&w, "private");
	resp *r = R(api("GET", P(&w, "/repository/tags"), w.reporter, NULL));
	ck_status(r, 200);
	ck_names(r, "v2.0,v1.0");
	ck_pages(r, P(&w, "/repository/tags"), "", 2, 20, 1);
	json_object *annotated = json_object_array_get_idx(r->json, 0);
	json_object *light = json_object_array_get_idx(r->json, 1);
	ck_fields(annotated, tag_fields);
	ck_fields(light, tag_fields);
	ck_assert_str_eq(jstr(annotated, "message"), "Release 2.0");
	ck_assert(jnull(light, "message"));
	ck_assert(jnull(annotated, "release") && jnull(light, "release"));
	json_object *c = jget(annotated, "commit");
	ck_fields(c, commit_fields);
	ck_assert_str_eq(jstr(c, "id"), rev(w.id, "master"));
	ck_assert_str_eq(jstr(c, "title"), "third");
	ck_assert_str_eq(jstr(c, "authored_date"), "2017-09-20T11:50:22.000+03:00");
	ck_assert_str_eq(jstr(jget(light, "commit"), "id"), rev(w.id, "merged2"));
	ck_assert_str_eq(jstr(jget(light, "commit"), "title"), "first commit");
}
END_TEST

START_TEST(test_tags_pages)
{
	world w;
	make_world(&w, "public");
	for (int i = 0; i < 3; i++) /* v3.0, v4.0, v5.0 */
		ck_code(R(api("POST", P(&w, "/repository/tags"), w.developer,
			      S(fmt("tag_name=v%d.0&ref=master", i + 3)))),
			201);
	resp *r = R(api("GET", P(&w, "/repository/tags?per_page=2"), NULL, NULL));
	ck_status(r, 200);
	ck_names(r, "v5.0,v4.0");
	ck_pages(r, P(&w, "/repository/tags"), "", 5, 2, 1);
	r = R(api("GET", P(&w, "/repository/tags?per_page=2&page=3"), NULL, NULL));
	ck_names(r, "v1.0");
	ck_pages(r, P(&w, "/repository/tags"), "", 5, 2, 3);
	r = R(api("GET", P(&w, "/repository/tags?per_page=2&page=4"), NULL, NULL));
	ck_status(r, 200);
	ck_names(r, "");
}
END_TEST

START_TEST(test_tags_show)
{
	world w;
	make_world(&w, "private");
	resp *r = R(api("GET", P(&w, "/repository/tags/v2.0"), w.reporter, NULL));
	ck_status(r, 200);
	ck_fields(r->json, tag_fields);
	ck_jstr(r, "name", "v2.0");
	ck_jstr(r, "message", "Release 2.0");
	ck_body(R(api("GET", P(&w, "/repository/tags/v9"), w.reporter, NULL)), 404,
		"{\"message\":\"404 Tag Not Found\"}");
	/* a name with a slash */
	ck_code(R(api("POST", P(&w, "/repository/tags"), w.developer,
		      "tag_name=rel/1&ref=feature")),
		201);
	r = R(api("GET", P(&w, "/repository/tags/rel%2F1"), w.reporter, NULL));
	ck_status(r, 200);
	ck_jstr(r, "name", "rel/1");
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "id"), rev(w.id, "feature"));
}
END_TEST

START_TEST(test_tags_create)
{
	world w;
	make_world(&w, "private");
	const char *path = P(&w, "/repository/tags");
	resp *r = R(api("POST", path, w.developer, "tag_name=light&ref=merged1"));
	ck_status(r, 201);
	ck_fields(r->json, tag_fields);
	ck_assert(jnull(r->json, "message") && jnull(r->json, "release"));
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "id"), rev(w.id, "merged1"));
	ck_assert_str_eq(rev(w.id, "refs/tags/light"), rev(w.id, "merged1"));
	/* annotated (the message stripped), with release notes, from a sha */
	const char *sha = rev(w.id, "feature");
	r = R(api(
		"POST", path, w.developer,
		S(fmt("tag_name=ann&ref=%s&message=%%20Hello%%0A%%0Aworld%%0A&release_description=Notes",
		      sha))));
	ck_status(r, 201);
	ck_jstr(r, "message", "Hello\n\nworld");
	json_object *rel = jget(r->json, "release");
	ck_assert_str_eq(jstr(rel, "tag_name"), "ann");
	ck_assert_str_eq(jstr(rel, "description"), "Notes");
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "id"), sha);
	ck_assert_str_ne(rev(w.id, "refs/tags/ann"), sha); /* a tag object */
	ck_assert_str_eq(rev(w.id, "ann^{commit}"), sha);
	/* a JSON body */
	r = R(api_json("POST", path, w.developer, "{\"tag_name\":\"json\",\"ref\":\"v2.0\"}"));
	ck_status(r, 201);
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "id"), rev(w.id, "master"));
	/* errors: nothing is created */
	ck_body(R(api("POST", path, w.developer, "ref=master")), 400,
		"{\"message\":\"400 (Bad request) \\\"tag_name\\\" not given\"}");
	ck_body(R(api("POST", path, w.developer, "tag_name=x")), 400,
		"{\"message\":\"400 (Bad request) \\\"ref\\\" not given\"}");
	ck_body(R(api("POST", path, w.developer, "tag_name=bad~name&ref=master")), 400,
		"{\"message\":\"Tag name invalid\"}");
	ck_body(R(api("POST", path, w.developer, "tag_name=v1.0&ref=master")), 400,
		"{\"message\":\"Tag v1.0 already exists\"}");
	ck_assert_str_eq(rev(w.id, "refs/tags/v1.0"), rev(w.id, "merged2"));
	ck_body(R(api("POST", path, w.developer, "tag_name=t9&ref=nope")), 400,
		"{\"message\":\"Target nope is invalid\"}");
	ck_assert_str_eq(rev(w.id, "refs/tags/t9"), "");
	/* who */
	ck_code(R(api("POST", path, w.reporter, "tag_name=t9&ref=master")), 403);
	ck_code(R(api("POST", path, w.guest, "tag_name=t9&ref=master")), 403);
	ck_code(R(api("POST", path, NULL, "tag_name=t9&ref=master")), 401);
	ck_code(R(api("POST", path, w.outsider, "tag_name=t9&ref=master")), 404);
	ck_assert_str_eq(rev(w.id, "refs/tags/t9"), "");
	ck_code(R(api("POST", path, w.master, "tag_name=t10&ref=master&message=m")), 201);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM releases WHERE project_id = %lld", w.id), 1);
}
END_TEST

/* Every name no tag may have is refused with GitLab's words and makes nothing, as the
 * tag or as the ref it points at; read, it is a tag that is not there, never a 500. */
START_TEST(test_tags_bad_names)
{
	world w;
	make_world(&w, "private");
	const char *path = P(&w, "/repository/tags");
	const char *list = S(fmt("%s?per_page=100", path));
	const char *before = R(api("GET", list, w.developer, NULL))->body;
	for (const char *const *n = bad_ref_names; *n; n++) {
		const char *e = S(enc(*n));
		resp *r = R(api("POST", path, w.developer, S(fmt("tag_name=%s&ref=master", e))));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), "Tag name invalid") == 0,
			      "tag %s: %ld %s", *n, r->status, r->body);
		r = R(api("POST", path, w.developer,
			  S(fmt("tag_name=fresh&ref=%s&message=m&release_description=d", e))));
		const char *want = S(fmt("Target %s is invalid", *n));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), want) == 0,
			      "ref %s: %ld %s", *n, r->status, r->body);
		r = R(api("GET", S(fmt("%s/%s", path, e)), w.developer, NULL));
		ck_assert_msg(r->status == 404 || r->status == 400, "show %s: %ld", *n, r->status);
	}
	ck_assert_str_eq(R(api("GET", list, w.developer, NULL))->body, before);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM releases WHERE project_id = %lld", w.id), 0);
}
END_TEST

START_TEST(test_tags_delete)
{
	world w;
	make_world(&w, "private");
	const char *one = P(&w, "/repository/tags/v2.0");
	ck_code(R(api("POST", S(fmt("%s/release", one)), w.developer, "description=d")), 201);
	ck_code(R(api("DELETE", one, w.reporter, NULL)), 403);
	ck_code(R(api("DELETE", one, NULL, NULL)), 401);
	resp *r = R(api("DELETE", one, w.developer, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(rev(w.id, "refs/tags/v2.0"), "");
	ck_body(R(api("DELETE", one, w.developer, NULL)), 404,
		"{\"message\":\"404 Tag Not Found\"}");
	/* its release went with it */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM releases WHERE project_id = %lld", w.id), 0);
	r = R(api("POST", P(&w, "/repository/tags"), w.developer, "tag_name=v2.0&ref=master"));
	ck_status(r, 201);
	ck_assert(jnull(r->json, "release"));
}
END_TEST

START_TEST(test_tags_release)
{
	world w;
	make_world(&w, "private");
	const char *rel = P(&w, "/repository/tags/v1.0/release");
	ck_body(R(api("PUT", rel, w.developer, "description=x")), 404,
		"{\"message\":\"Release does not exist\"}");
	ck_body(R(api("POST", rel, w.developer, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"description\\\" not given\"}");
	ck_code(R(api("POST", rel, w.reporter, "description=x")), 403);
	ck_code(R(api("POST", rel, NULL, "description=x")), 401);
	ck_body(R(api("POST", rel, w.developer, "description=Version%201")), 201,
		"{\"tag_name\":\"v1.0\",\"description\":\"Version 1\"}");
	ck_body(R(api("POST", rel, w.developer, "description=again")), 409,
		"{\"message\":\"Release already exists\"}");
	ck_body(R(api("PUT", rel, w.developer, "description=Version%201.0")), 200,
		"{\"tag_name\":\"v1.0\",\"description\":\"Version 1.0\"}");
	ck_code(R(api("PUT", rel, w.reporter, "description=no")), 403);
	resp *r = R(api("GET", P(&w, "/repository/tags/v1.0"), w.reporter, NULL));
	ck_assert_str_eq(jstr(jget(r->json, "release"), "description"), "Version 1.0");
	ck_body(R(api("POST", P(&w, "/repository/tags/v9/release"), w.developer, "description=x")),
		404, "{\"message\":\"Tag does not exist\"}");
	ck_body(R(api("PUT", P(&w, "/repository/tags/v9/release"), w.developer, "description=x")),
		404, "{\"message\":\"Tag does not exist\"}");
	/* a slash in the name */
	ck_code(R(api("POST", P(&w, "/repository/tags"), w.developer, "tag_name=a/b&ref=master")),
		201);
	ck_body(R(api("POST", P(&w, "/repository/tags/a%2Fb/release"), w.developer,
		      "description=slash")),
		201, "{\"tag_name\":\"a/b\",\"description\":\"slash\"}");
}
END_TEST

START_TEST(test_tags_access)
{
	world priv, pub;
	make_world(&priv, "private");
	make_world(&pub, "public");
	const char *list = P(&priv, "/repository/tags"), *one = P(&priv, "/repository/tags/v1.0");
	ck_code(R(api("GET", list, NULL, NULL)), 404);
	ck_code(R(api("GET", list, priv.outsider, NULL)), 404);
	ck_body(R(api("GET", list, priv.guest, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("GET", one, priv.guest, NULL)), 403);
	ck_code(R(api("GET", list, priv.reporter, NULL)), 200);
	ck_code(R(api("GET", one, priv.developer, NULL)), 200);
	ck_code(R(api("GET", one, priv.master, NULL)), 200);
	ck_code(R(api("GET", one, admin_token(), NULL)), 200);
	ck_code(R(api("GET", P(&pub, "/repository/tags"), NULL, NULL)), 200);
	ck_code(R(api("GET", P(&pub, "/repository/tags/v1.0"), NULL, NULL)), 200);
	ck_code(R(api("GET", P(&pub, "/repository/tags"), pub.guest, NULL)), 200);
	ck_code(R(api("POST", P(&pub, "/repository/tags"), pub.outsider, "tag_name=x&ref=master")),
		403);
	ck_code(R(api("POST", P(&pub, "/repository/tags"), pub.guest, "tag_name=x&ref=master")),
		403);
	ck_code(R(api("DELETE", P(&pub, "/repository/tags/v1.0"), pub.outsider, NULL)), 403);
	ck_code(R(api("POST", P(&pub, "/repository/tags/v1.0/release"), pub.outsider,
		      "description=x")),
		403);
	ck_code(R(api("POST", P(&pub, "/repository/tags"), pub.developer, "tag_name=x&ref=master")),
		201);
	ck_code(R(api("DELETE", P(&pub, "/repository/tags/x"), admin_token(), NULL)), 204);
}
END_TEST

Suite *suite_tags(void)
{
	Suite *s = suite_create("tags");
	TCase *tc = tcase_create("tags");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_tags_list_shape);
	tcase_add_test(tc, test_tags_pages);
	tcase_add_test(tc, test_tags_show);
	tcase_add_test(tc, test_tags_create);
	tcase_add_test(tc, test_tags_bad_names);
	tcase_add_test(tc, test_tags_delete);
	tcase_add_test(tc, test_tags_release);
	tcase_add_test(tc, test_tags_access);
	suite_add_tcase(s, tc);
	return s;
}
