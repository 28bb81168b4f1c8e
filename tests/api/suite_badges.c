/* API suite: badges of projects and groups (GitLab 10.8's /projects/:id/badges and
 * /groups/:id/badges): the records and their rendered placeholders, a group's badges in
 * its projects' lists, who may read and change them, URL validation, pagination. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const BADGE_FIELDS[] = {
	"id", "link_url", "image_url", "rendered_link_url", "rendered_image_url", "kind", NULL};
static const char *const DETAILS_FIELDS[] = {"link_url", "image_url", "rendered_link_url",
					     "rendered_image_url", NULL};

static resp *post_badge(const char *path, const char *token, const char *link, const char *image)
{
	return R(api("POST", path, token,
		     S(fmt("link_url=%s&image_url=%s", S(enc(link)), S(enc(image))))));
}

/* A badge made through base (/projects/N/badges or /groups/N/badges): its id. */
static long long add_badge(const char *base, const char *token, const char *link, const char *image)
{
	resp *r = post_badge(base, token, link, image);
	ck_status(r, 201);
	return jint(r->json, "id");
}

static long long list_total(const char *base, const char *token)
{
	resp *r = R(api("GET", base, token, NULL));
	ck_status(r, 200);
	const char *t = resp_header(r, "X-Total");
	ck_assert(t != NULL);
	return atoll(t);
}

static void put_file(long long pid, const char *token, const char *branch, const char *path)
{
	resp *r = R(api("POST", S(fmt("/projects/%lld/repository/files/%s", pid, path)), token,
			S(fmt("branch=%s&commit_message=add&content=hello", branch))));
	ck_status(r, 201);
}

static const char *branch_head(long long pid, const char *token, const char *branch)
{
	resp *r = R(api("GET", S(fmt("/projects/%lld/repository/branches/%s", pid, branch)), token,
			NULL));
	ck_status(r, 200);
	const char *sha = jstr(jget(r->json, "commit"), "id");
	ck_assert(sha && strlen(sha) == 40);
	return sha;
}

START_TEST(test_badges_project_crud)
{
	long long uid;
	char *token = S(make_user("bdg_crud", &uid, NULL)), *full;
	long long pid = api_project(token, "private", &full);
	S(full);
	const char *base = S(fmt("/projects/%lld/badges", pid));
	resp *r = post_badge(base, token, "https://example.com/%{project_path}/%{project_id}",
			     "https://img.example.com/%{default_branch}.svg");
	ck_status(r, 201);
	ck_fields(r->json, BADGE_FIELDS);
	long long id = jint(r->json, "id");
	ck_jstr(r, "kind", "project");
	ck_jstr(r, "link_url", "https://example.com/%{project_path}/%{project_id}");
	ck_jstr(r, "rendered_link_url", S(fmt("https://example.com/%s/%lld", full, pid)));
	/* an empty repository has no default branch yet: the placeholder goes empty */
	ck_jstr(r, "rendered_image_url", "https://img.example.com/.svg");

	r = R(api("GET", S(fmt("%s/%lld", base, id)), token, NULL));
	ck_status(r, 200);
	ck_fields(r->json, BADGE_FIELDS);
	ck_assert_int_eq(jint(r->json, "id"), id);

	r = R(api("PUT", S(fmt("%s/%lld", base, id)), token,
		  S(fmt("image_url=%s", S(enc("http://other.example/x.png"))))));
	ck_status(r, 200);
	ck_jstr(r, "image_url", "http://other.example/x.png");
	ck_jstr(r, "link_url", "https://example.com/%{project_path}/%{project_id}");

	r = R(api("GET", base, token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_jstr((&(resp){.json = json_object_array_get_idx(r->json, 0)}), "image_url",
		"http://other.example/x.png");

	ck_code(R(api("DELETE", S(fmt("%s/%lld", base, id)), token, NULL)), 204);
	ck_body(R(api("GET", S(fmt("%s/%lld", base, id)), token, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("DELETE", S(fmt("%s/%lld", base, id)), token, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("PUT", S(fmt("%s/%lld", base, id)), token, "link_url=http://a.b")), 404,
		"{\"message\":\"404 Not found\"}");
	ck_assert_int_eq(list_total(base, token), 0);
}
END_TEST

/* %{commit_sha} and %{default_branch} come from the repository. */
START_TEST(test_badges_commit_sha)
{
	char *token = S(make_user("bdg_sha", NULL, NULL));
	long long pid = api_project(token, "private", NULL);
	put_file(pid, token, "master", "README.md");
	const char *sha = branch_head(pid, token, "master");
	const char *base = S(fmt("/projects/%lld/badges", pid));
	resp *r = post_badge(base, token, "http://ci.example/%{commit_sha}",
			     "http://ci.example/%{default_branch}/%{commit_sha}/badge.svg");
	ck_status(r, 201);
	ck_jstr(r, "rendered_link_url", S(fmt("http://ci.example/%s", sha)));
	ck_jstr(r, "rendered_image_url", S(fmt("http://ci.example/master/%s/badge.svg", sha)));
	/* a new commit moves it */
	put_file(pid, token, "master", "OTHER.md");
	const char *sha2 = branch_head(pid, token, "master");
	ck_assert_str_ne(sha, sha2);
	r = R(api("GET", base, token, NULL));
	ck_status(r, 200);
	resp one = {.json = json_object_array_get_idx(r->json, 0)};
	ck_jstr((&one), "rendered_link_url", S(fmt("http://ci.example/%s", sha2)));
}
END_TEST

/* A project's list holds its group's (and the group's ancestors') badges, kind "group",
 * rendered for the project; they are changed through the group only. */
START_TEST(test_badges_group_in_project_list)
{
	long long uid;
	char *token = S(make_user("bdg_grp", &uid, NULL)), *gpath, *spath;
	long long gid = api_group(token, "private", &gpath);
	S(gpath);
	resp *r = R(api("POST", "/groups", token,
			S(fmt("name=sub%lld&path=sub%lld&parent_id=%lld", gid, gid, gid))));
	ck_status(r, 201);
	long long sid = jint(r->json, "id");
	spath = S(strdup(jstr(r->json, "full_path")));
	r = R(api("POST", "/projects", token, S(fmt("name=proj&namespace_id=%lld", sid))));
	ck_status(r, 201);
	long long pid = jint(r->json, "id");

	const char *gbase = S(fmt("/groups/%lld/badges", gid));
	const char *sbase = S(fmt("/groups/%lld/badges", sid));
	const char *pbase = S(fmt("/projects/%lld/badges", pid));
	long long root_badge = add_badge(gbase, token, "http://g.example/%{project_path}",
					 "http://g.example/i.svg");
	long long sub_badge =
		add_badge(sbase, token, "http://s.example/%{project_id}", "http://s.example/i.svg");
	long long own = add_badge(pbase, token, "http://p.example", "http://p.example/i.svg");

	r = R(api("GET", pbase, token, NULL));
	ck_status(r, 200);
	ck_pages(r, pbase, "", 3, 20, 1);
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	long long want[3] = {root_badge, sub_badge, own};
	const char *kinds[3] = {"group", "group", "project"};
	for (int i = 0; i < 3; i++) {
		resp e = {.json = json_object_array_get_idx(r->json, i)};
		ck_fields(e.json, BADGE_FIELDS);
		ck_assert_int_eq(jint(e.json, "id"), want[i]);
		ck_jstr((&e), "kind", kinds[i]);
	}
	resp e0 = {.json = json_object_array_get_idx(r->json, 0)};
	ck_jstr((&e0), "rendered_link_url", S(fmt("http://g.example/%s/proj", spath)));
	resp e1 = {.json = json_object_array_get_idx(r->json, 1)};
	ck_jstr((&e1), "rendered_link_url", S(fmt("http://s.example/%lld", pid)));

	/* the group's own list: its badge only, rendered for its project (the subgroup's
	 * project is not the root group's own) */
	r = R(api("GET", sbase, token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	resp g = {.json = json_object_array_get_idx(r->json, 0)};
	ck_jstr((&g), "kind", "group");
	ck_jstr((&g), "rendered_link_url", S(fmt("http://s.example/%lld", pid)));
	r = R(api("GET", gbase, token, NULL));
	ck_status(r, 200);
	resp root = {.json = json_object_array_get_idx(r->json, 0)};
	ck_jstr((&root), "rendered_link_url", "http://g.example/%{project_path}");

	/* the group badge through the project: shown, not changed */
	r = R(api("GET", S(fmt("%s/%lld", pbase, sub_badge)), token, NULL));
	ck_status(r, 200);
	ck_jstr(r, "kind", "group");
	ck_code(R(api("PUT", S(fmt("%s/%lld", pbase, sub_badge)), token, "link_url=http://x.y")),
		404);
	ck_code(R(api("DELETE", S(fmt("%s/%lld", pbase, sub_badge)), token, NULL)), 404);
	/* nor the project's through the group */
	ck_code(R(api("GET", S(fmt("%s/%lld", sbase, own)), token, NULL)), 404);
	ck_code(R(api("DELETE", S(fmt("%s/%lld", sbase, own)), token, NULL)), 404);
	ck_assert_int_eq(list_total(pbase, token), 3);
	/* the group's deletion of its badge leaves the project's list */
	ck_code(R(api("DELETE", S(fmt("%s/%lld", sbase, sub_badge)), token, NULL)), 204);
	ck_assert_int_eq(list_total(pbase, token), 2);
}
END_TEST

START_TEST(test_badges_permissions)
{
	long long owner_id, dev_id, master_id;
	char *owner = S(make_user("bdg_own", &owner_id, NULL));
	char *dev = S(make_user("bdg_dev", &dev_id, NULL));
	char *master = S(make_user("bdg_mst", &master_id, NULL));
	char *stranger = S(make_user("bdg_str", NULL, NULL));
	long long priv = api_project(owner, "private", NULL);
	long long pub = api_project(owner, "public", NULL);
	fixture_member("Project", priv, dev_id, 30);
	fixture_member("Project", priv, master_id, 40);
	const char *base = S(fmt("/projects/%lld/badges", priv));
	long long id = add_badge(base, owner, "http://a.example", "http://a.example/i.png");
	const char *one = S(fmt("%s/%lld", base, id));
	const char *form = "link_url=http://b.example&image_url=http://b.example/i.png";

	/* a private project is not there for strangers and anonymous callers */
	const char *nf = "{\"message\":\"404 Project Not Found\"}";
	ck_body(R(api("GET", base, stranger, NULL)), 404, nf);
	ck_body(R(api("GET", one, stranger, NULL)), 404, nf);
	ck_body(R(api("POST", base, stranger, form)), 404, nf);
	ck_body(R(api("GET", base, NULL, NULL)), 404, nf);
	/* writing needs credentials */
	ck_code(R(api("POST", base, NULL, form)), 401);
	ck_code(R(api("PUT", one, NULL, "link_url=http://c.example")), 401);
	ck_code(R(api("DELETE", one, NULL, NULL)), 401);
	ck_code(R(api("GET", S(fmt("%s/render?%s", base, form)), NULL, NULL)), 401);
	/* a developer reads, does not change */
	ck_code(R(api("GET", base, dev, NULL)), 200);
	ck_code(R(api("GET", one, dev, NULL)), 200);
	const char *forbidden = "{\"message\":\"403 Forbidden\"}";
	ck_body(R(api("POST", base, dev, form)), 403, forbidden);
	ck_body(R(api("PUT", one, dev, "link_url=http://c.example")), 403, forbidden);
	ck_body(R(api("DELETE", one, dev, NULL)), 403, forbidden);
	ck_body(R(api("GET", S(fmt("%s/render?%s", base, form)), dev, NULL)), 403, forbidden);
	/* GitLab's parameter checks come first: 400 before the 404 and the 403 */
	ck_body(R(api("GET", S(fmt("%s/abc", base)), stranger, NULL)), 400,
		"{\"error\":\"badge_id is invalid\"}");
	ck_code(R(api("POST", base, stranger, "image_url=http://x.example")), 400);
	ck_code(R(api("POST", base, dev, "link_url=http://x.example")), 400);
	/* a master changes them */
	long long mid = add_badge(base, master, "http://m.example", "http://m.example/i.png");
	ck_code(R(api("PUT", one, master, "link_url=http://c.example")), 200);
	ck_code(R(api("DELETE", S(fmt("%s/%lld", base, mid)), master, NULL)), 204);
	ck_code(R(api("GET", S(fmt("%s/render?%s", base, form)), master, NULL)), 200);
	/* nothing the others tried stayed */
	resp *r = R(api("GET", base, owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	resp b = {.json = json_object_array_get_idx(r->json, 0)};
	ck_jstr((&b), "link_url", "http://c.example");

	/* a public project's badges are anyone's to read */
	const char *pbase = S(fmt("/projects/%lld/badges", pub));
	long long pb = add_badge(pbase, owner, "http://p.example", "http://p.example/i.png");
	ck_code(R(api("GET", pbase, NULL, NULL)), 200);
	ck_code(R(api("GET", S(fmt("%s/%lld", pbase, pb)), NULL, NULL)), 200);
	ck_code(R(api("GET", pbase, stranger, NULL)), 200);
	ck_body(R(api("POST", pbase, stranger, form)), 403, forbidden);

	/* groups: owners change badges, masters do not */
	long long gid = api_group(owner, "public", NULL);
	fixture_member("Namespace", gid, master_id, 40);
	const char *gbase = S(fmt("/groups/%lld/badges", gid));
	ck_body(R(api("POST", gbase, master, form)), 403, forbidden);
	ck_body(R(api("GET", S(fmt("%s/render?%s", gbase, form)), master, NULL)), 403, forbidden);
	long long gb = add_badge(gbase, owner, "http://g.example", "http://g.example/i.png");
	ck_body(R(api("DELETE", S(fmt("%s/%lld", gbase, gb)), master, NULL)), 403, forbidden);
	ck_code(R(api("GET", gbase, NULL, NULL)), 200);
	ck_code(R(api("GET", S(fmt("%s/%lld", gbase, gb)), stranger, NULL)), 200);
	ck_body(R(api("GET", "/groups/999999999/badges", owner, NULL)), 404,
		"{\"message\":\"404 Group Not Found\"}");
	/* an admin may */
	ck_code(R(api("DELETE", S(fmt("%s/%lld", gbase, gb)), admin_token(), NULL)), 204);
}
END_TEST

START_TEST(test_badges_validation)
{
	char *token = S(make_user("bdg_val", NULL, NULL));
	long long pid = api_project(token, "private", NULL);
	long long gid = api_group(token, "private", NULL);
	const char *bases[2] = {S(fmt("/projects/%lld/badges", pid)),
				S(fmt("/groups/%lld/badges", gid))};
	static const char *const bad[] = {
		"ftp://example.com/x",
		"example.com",
		"",
		"http://exa mple.com",
		"https://x.example/{a}",
		"http://x/%{project_name}",
		"http://x/%zz",
		"javascript:alert(1)",
		" http://x.example",
		"http://x.example/\xc3\xa9",
		"http://x#a#b",
		"HTTP://x.example",
	};
	static const char *const good[] = {
		"http://example/img.svg",
		"https://x.example/%{project_path}/%{commit_sha}?a=b#f",
		"http://x.example/%41",
		"https://[::1]:8080/a;b",
	};
	for (int s = 0; s < 2; s++) {
		const char *base = bases[s];
		for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
			ck_body(post_badge(base, token, bad[i], "http://ok.example/i.png"), 400,
				"{\"message\":{\"link_url\":[\"must be a valid URL\"]}}");
			ck_body(post_badge(base, token, "http://ok.example", bad[i]), 400,
				"{\"message\":{\"image_url\":[\"must be a valid URL\"]}}");
		}
		ck_body(post_badge(base, token, "nope", "nope"), 400,
			"{\"message\":{\"link_url\":[\"must be a valid URL\"],"
			"\"image_url\":[\"must be a valid URL\"]}}");
		ck_code(R(api("POST", base, token, "image_url=http://ok.example")), 400);
		ck_code(R(api("POST", base, token, "link_url=http://ok.example")), 400);
		ck_code(R(api("GET", S(fmt("%s/render?link_url=http://a.b", base)), token, NULL)),
			400);
		ck_assert_int_eq(list_total(base, token), 0);
		for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
			ck_code(post_badge(base, token, good[i], good[i]), 201);
		long long id = add_badge(base, token, "http://a.example", "http://a.example/i");
		const char *one = S(fmt("%s/%lld", base, id));
		ck_body(R(api("PUT", one, token, "link_url=ftp://nope")), 400,
			"{\"message\":{\"link_url\":[\"must be a valid URL\"]}}");
		resp *r = R(api("GET", one, token, NULL));
		ck_jstr(r, "link_url", "http://a.example");
		ck_body(R(api("GET", S(fmt("%s/abc", base)), token, NULL)), 400,
			"{\"error\":\"badge_id is invalid\"}");
		ck_body(R(api("GET", S(fmt("%s/999999999", base)), token, NULL)), 404,
			"{\"message\":\"404 Not found\"}");
	}
}
END_TEST

START_TEST(test_badges_render)
{
	char *token = S(make_user("bdg_rnd", NULL, NULL)), *full;
	long long pid = api_project(token, "private", &full);
	S(full);
	put_file(pid, token, "master", "README.md");
	const char *sha = branch_head(pid, token, "master");
	const char *q = S(fmt("link_url=%s&image_url=%s",
			      S(enc("http://l.example/%{project_path}/%{default_branch}")),
			      S(enc("http://i.example/%{project_id}/%{commit_sha}"))));
	resp *r = R(api("GET", S(fmt("/projects/%lld/badges/render?%s", pid, q)), token, NULL));
	ck_status(r, 200);
	ck_fields(r->json, DETAILS_FIELDS);
	ck_jstr(r, "link_url", "http://l.example/%{project_path}/%{default_branch}");
	ck_jstr(r, "rendered_link_url", S(fmt("http://l.example/%s/master", full)));
	ck_jstr(r, "rendered_image_url", S(fmt("http://i.example/%lld/%s", pid, sha)));
	ck_assert_int_eq(list_total(S(fmt("/projects/%lld/badges", pid)), token), 0);

	/* a group without projects renders nothing */
	long long gid = api_group(token, "private", NULL);
	r = R(api("GET", S(fmt("/groups/%lld/badges/render?%s", gid, q)), token, NULL));
	ck_status(r, 200);
	ck_jstr(r, "rendered_link_url", "http://l.example/%{project_path}/%{default_branch}");
	r = R(api("GET",
		  S(fmt("/groups/%lld/badges/render?link_url=x&image_url=%s", gid,
			S(enc("http://ok.example")))),
		  token, NULL));
	ck_body(r, 400, "{\"message\":{\"link_url\":[\"must be a valid URL\"]}}");
}
END_TEST

START_TEST(test_badges_pagination)
{
	char *token = S(make_user("bdg_pg", NULL, NULL));
	long long pid = api_project(token, "private", NULL);
	const char *base = S(fmt("/projects/%lld/badges", pid));
	long long ids[5];
	for (int i = 0; i < 5; i++)
		ids[i] = add_badge(base, token, S(fmt("http://x.example/%d", i)),
				   "http://x.example/i");
	resp *r = R(api("GET", S(fmt("%s?per_page=2&page=2", base)), token, NULL));
	ck_status(r, 200);
	ck_pages(r, base, "", 5, 2, 2);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), ids[2]);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 1), "id"), ids[3]);
	r = R(api("GET", S(fmt("%s?per_page=2&page=4", base)), token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	long long gid = api_group(token, "private", NULL);
	const char *gbase = S(fmt("/groups/%lld/badges", gid));
	r = R(api("GET", gbase, token, NULL));
	ck_status(r, 200);
	ck_pages(r, gbase, "", 0, 20, 1);
}
END_TEST

Suite *suite_badges(void)
{
	Suite *s = suite_create("badges");
	TCase *tc = tcase_create("badges");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_badges_project_crud);
	tcase_add_test(tc, test_badges_commit_sha);
	tcase_add_test(tc, test_badges_group_in_project_list);
	tcase_add_test(tc, test_badges_permissions);
	tcase_add_test(tc, test_badges_validation);
	tcase_add_test(tc, test_badges_render);
	tcase_add_test(tc, test_badges_pagination);
	suite_add_tcase(s, tc);
	return s;
}
