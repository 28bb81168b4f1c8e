/* API suite: what hostile input found, kept from coming back: GitLab 10's path rules
 * (reserved names of users, groups, subgroups and projects; paths of only dots), the
 * bound on list parameters (tag_list, skip_groups, scopes), expired memberships, and a
 * fork's source shown only to those who may read it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

static const char *reserved_body(const char *field, const char *name)
{
	return S(fmt("{\"message\":{\"%s\":[\"%s is a reserved name\"]}}", field, name));
}

/* ---- the path rules (GitLab 10's lib/gitlab/path_regex.rb) ---- */

START_TEST(test_reserved_usernames)
{
	/* top-level routes: nginx's own locations among them */
	static const char *const reserved[] = {"uploads",  "api",   "admin",     "help",
					       "Uploads",  "oauth", "_internal", "groups",
					       "projects", NULL};
	for (int i = 0; reserved[i]; i++) {
		const char *form =
			S(fmt("username=%s&email=%s@example.com&name=x&password=secret123"
			      "&skip_confirmation=true",
			      reserved[i], S(unique("rsv"))));
		ck_body(R(api("POST", "/users", admin_token(), form)), 400,
			reserved_body("username", reserved[i]));
	}
	ck_assert_int_eq(sql_int("SELECT count(*) FROM users WHERE lower(username) IN"
				 " ('uploads', 'api', 'admin', 'help', 'oauth', '_internal')"),
			 0);
	/* and by a rename */
	long long id;
	free(make_user("rsvu", &id, NULL));
	ck_body(R(api("PUT", S(fmt("/users/%lld", id)), admin_token(), "username=uploads")), 400,
		reserved_body("username", "uploads"));
	/* a group route is no top-level route: a user may be called so */
	char *name = S(unique("activity"));
	ck_status(R(api("POST", "/users", admin_token(),
			S(fmt("username=activity&email=%s@example.com&name=x&password=secret123"
			      "&skip_confirmation=true",
			      name)))),
		  201);
}
END_TEST

START_TEST(test_reserved_group_paths)
{
	long long uid;
	char *token = S(make_user("rsvg", &uid, NULL));
	static const char *const top[] = {"uploads", "api", "help", "users", NULL};
	for (int i = 0; top[i]; i++)
		ck_body(R(api("POST", "/groups", token, S(fmt("name=%s&path=%s", top[i], top[i])))),
			400, reserved_body("path", top[i]));
	char *gp = S(unique("rsvg"));
	resp *r = R(api("POST", "/groups", token, S(fmt("name=%s&path=%s", gp, gp))));
	ck_status(r, 201);
	long long g = jint(r->json, "id");
	/* the group routes and the project wildcard routes below a group */
	static const char *const child[] = {"activity", "edit",       "group_members", "projects",
					    "labels",   "milestones", "subgroups",     "tree",
					    "blob",     "wikis",      "Edit",          NULL};
	for (int i = 0; child[i]; i++)
		ck_body(R(api("POST", "/groups", token,
			      S(fmt("name=%s&path=%s&parent_id=%lld", child[i], child[i], g)))),
			400, reserved_body("path", child[i]));
	/* a top-level route is a fine subgroup path */
	r = R(api("POST", "/groups", token, S(fmt("name=api&path=api&parent_id=%lld", g))));
	ck_status(r, 201);
	long long sub = jint(r->json, "id");
	/* renames are checked by the same rules */
	ck_body(R(api("PUT", S(fmt("/groups/%lld", sub)), token, "path=activity")), 400,
		reserved_body("path", "activity"));
	ck_body(R(api("PUT", S(fmt("/groups/%lld", g)), token, "path=uploads")), 400,
		reserved_body("path", "uploads"));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM namespaces WHERE parent_id = %lld", g), 1);
	ck_assert_str_eq(S(sql_value("SELECT full_path FROM namespaces WHERE id = %lld", sub)),
			 S(fmt("%s/api", gp)));
}
END_TEST

START_TEST(test_project_paths)
{
	long long uid;
	char *token = S(make_user("rsvp", &uid, NULL));
	static const char *const dots[] = {".", "..", "...", NULL};
	const char *format = "{\"message\":{\"path\":[\"can contain only letters, digits, '_', "
			     "'-' and '.'. Cannot start with '-', end in '.git' or end in "
			     "'.atom'\"]}}";
	for (int i = 0; dots[i]; i++)
		ck_body(R(api("POST", "/projects", token, S(fmt("name=dots&path=%s", dots[i])))),
			400, format);
	static const char *const wildcard[] = {"badges", "blob",       "tree", "raw",
					       "wikis",  "create_dir", NULL};
	for (int i = 0; wildcard[i]; i++)
		ck_body(R(api("POST", "/projects", token, S(fmt("path=%s", wildcard[i])))), 400,
			reserved_body("path", wildcard[i]));
	/* a group route and a top-level route are fine project paths; so is a leading dot */
	static const char *const fine[] = {"activity", "uploads", ".hidden", "a..b", NULL};
	for (int i = 0; fine[i]; i++)
		ck_status(R(api("POST", "/projects", token,
				S(fmt("name=fine%d&path=%s", i, fine[i])))),
			  201);
	/* renames */
	long long id = sql_int("SELECT p.id FROM projects p JOIN namespaces n ON n.id ="
			       " p.namespace_id WHERE n.owner_id = %lld AND p.path = 'activity'",
			       uid);
	ck_body(R(api("PUT", S(fmt("/projects/%lld", id)), token, "path=..")), 400, format);
	ck_body(R(api("PUT", S(fmt("/projects/%lld", id)), token, "path=Blame")), 400,
		reserved_body("path", "Blame"));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects p JOIN namespaces n ON n.id ="
				 " p.namespace_id WHERE n.owner_id = %lld",
				 uid),
			 4);
}
END_TEST

/* ---- bounds on list parameters ---- */

/* n distinct tags "t0,t1,..." (caller frees). */
static char *tags(int n, const char *sep)
{
	size_t cap = (size_t)n * 12 + 16, len = 0;
	char *s = malloc(cap);
	s[0] = '\0';
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%st%d", i ? sep : "", i);
	return s;
}

START_TEST(test_tag_list_bounds)
{
	long long uid;
	char *token = S(make_user("tagb", &uid, NULL));
	resp *r = R(api("POST", "/projects", token, S(fmt("path=%s", S(unique("tags"))))));
	ck_status(r, 201);
	const char *p = S(fmt("/projects/%lld", jint(r->json, "id")));

	/* 1,000 tags, repeats in other case dropped, in one comma-separated string */
	char *list = S(tags(1000, ","));
	r = R(api("PUT", p, token, S(fmt("tag_list=%s,T0,t999", list))));
	ck_status(r, 200);
	ck_assert_int_eq((long long)json_object_array_length(jget(r->json, "tag_list")), 1000);
	/* one more: 400, nothing changed */
	ck_body(R(api("PUT", p, token, S(fmt("tag_list=%s,t1000&description=lost", list)))), 400,
		"{\"error\":\"tag_list has too many tags (at most 1000)\"}");
	/* as a JSON array of 1,001 values (the array bound of every list parameter) */
	char *arr = S(tags(1001, "\",\""));
	ck_body(R(api_json("PUT", p, token, S(fmt("{\"tag_list\":[\"%s\"]}", arr)))), 400,
		"{\"error\":\"tag_list has too many values (at most 1000)\"}");
	/* 200,000 tags (a 1.5 MB body) are refused without working through them */
	char *huge = S(tags(200000, ","));
	ck_body(R(api("PUT", p, token, S(fmt("tag_list=%s", huge)))), 400,
		"{\"error\":\"tag_list has too many tags (at most 1000)\"}");
	/* a tag longer than 255 characters */
	char longtag[300];
	memset(longtag, 'x', 256);
	longtag[256] = '\0';
	ck_body(R(api("PUT", p, token, S(fmt("tag_list=ok,%s", longtag)))), 400,
		"{\"error\":\"tag_list has a tag that is too long (at most 255 characters)\"}");
	longtag[255] = '\0';
	ck_status(R(api("PUT", p, token, S(fmt("tag_list=%s", longtag)))), 200);
	r = R(api("GET", p, token, NULL));
	ck_assert_int_eq((long long)json_object_array_length(jget(r->json, "tag_list")), 1);
	ck_assert(!jstr(r->json, "description") || strcmp(jstr(r->json, "description"), "lost"));
	/* on creation too */
	ck_body(R(api("POST", "/projects", token,
		      S(fmt("path=%s&tag_list=%s,t1000", S(unique("tags")), list)))),
		400, "{\"error\":\"tag_list has too many tags (at most 1000)\"}");
	/* the other list parameters share the array bound */
	char *skip = S(tags(1001, ","));
	for (char *c = skip; *c; c++)
		if (*c == 't')
			*c = '1';
	ck_body(R(api_json("GET", "/groups", token, S(fmt("{\"skip_groups\":[%s]}", skip)))), 400,
		"{\"error\":\"skip_groups has too many values (at most 1000)\"}");
	ck_body(R(api_json(
			"POST", "/projects", token,
			S(fmt("{\"path\":\"%s\",\"tag_list\":[\"%s\"]}", S(unique("tags")), arr)))),
		400, "{\"error\":\"tag_list has too many values (at most 1000)\"}");
}
END_TEST

/* ---- access gaps ---- */

START_TEST(test_expired_membership)
{
	long long oid, mid;
	char *owner = S(make_user("expo", &oid, NULL));
	char *member = S(make_user("expm", &mid, NULL));
	resp *r = R(api("POST", "/projects", owner,
			S(fmt("path=%s&visibility=private", S(unique("exp"))))));
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	const char *p = S(fmt("/projects/%lld", id));
	ck_status(R(api("POST", S(fmt("%s/members", p)), owner,
			S(fmt("user_id=%lld&access_level=30&expires_at=2999-01-01", mid)))),
		  201);
	/* twice: the second from the response cache */
	ck_status(R(api("GET", p, member, NULL)), 200);
	ck_status(R(api("GET", p, member, NULL)), 200);
	r = R(api("GET", "/projects?membership=true", member, NULL));
	ck_assert_int_eq((long long)json_object_array_length(r->json), 1);
	/* the date comes: no access at once, though the row is still there */
	free(sql_value("UPDATE members SET expires_at = current_date WHERE source_type = 'Project'"
		       " AND source_id = %lld AND user_id = %lld",
		       id, mid));
	ck_body(R(api("GET", p, member, NULL)), 404, "{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("GET", p, member, NULL)), 404, "{\"message\":\"404 Project Not Found\"}");
	r = R(api("GET", "/projects?membership=true", member, NULL));
	ck_assert_int_eq((long long)json_object_array_length(r->json), 0);
	ck_body(R(api("GET", S(fmt("%s/members/%lld", p, mid)), owner, NULL)), 404,
		"{\"message\":\"404 Member Not Found\"}");
	/* the same through a group */
	resp *g = R(api("POST", "/groups", owner,
			S(fmt("name=%s&path=%s", S(unique("expg")), S(unique("expg"))))));
	ck_status(g, 201);
	long long gid = jint(g->json, "id");
	sql_member("Namespace", gid, mid, 30);
	ck_status(R(api("GET", S(fmt("/groups/%lld", gid)), member, NULL)), 200);
	free(sql_value("UPDATE members SET expires_at = current_date - 1 WHERE"
		       " source_type = 'Namespace' AND source_id = %lld AND user_id = %lld",
		       gid, mid));
	ck_body(R(api("GET", S(fmt("/groups/%lld", gid)), member, NULL)), 404,
		"{\"message\":\"404 Group Not Found\"}");
	/* and the background process removes expired rows (every 10 s) */
	long long left = -1;
	for (int i = 0; i < 150 && left != 0; i++) {
		left = sql_int("SELECT count(*) FROM members WHERE user_id = %lld", mid);
		if (left)
			usleep(200 * 1000);
	}
	ck_assert_int_eq(left, 0);
}
END_TEST

START_TEST(test_fork_of_private_source)
{
	long long oid, fid, xid;
	char *owner = S(make_user("fko", &oid, NULL));
	char *forker = S(make_user("fkf", &fid, NULL));
	char *outsider = S(make_user("fkx", &xid, NULL));
	resp *r = R(api(
		"POST", "/projects", owner,
		S(fmt("path=%s&visibility=public&description=public+words", S(unique("fks"))))));
	ck_status(r, 201);
	long long src = jint(r->json, "id");
	r = R(api("POST", S(fmt("/projects/%lld/fork", src)), forker, NULL));
	ck_status(r, 201);
	long long fork = jint(r->json, "id");
	const char *fp = S(fmt("/projects/%lld", fork));
	ck_assert_int_eq(jint(jget(R(api("GET", fp, outsider, NULL))->json, "forked_from_project"),
			      "id"),
			 src);
	/* the source turns private: only who may read it sees it named */
	ck_status(R(api("PUT", S(fmt("/projects/%lld", src)), owner,
			"visibility=private&description=secret+plans")),
		  200);
	for (int i = 0; i < 2; i++) { /* the second from the response cache */
		r = R(api("GET", fp, outsider, NULL));
		ck_status(r, 200);
		ck_assert_msg(!jhas(r->json, "forked_from_project"), "%s", r->body);
		ck_assert(strstr(r->body, "secret plans") == NULL);
		r = R(api("GET", fp, NULL, NULL));
		ck_status(r, 200);
		ck_assert_msg(!jhas(r->json, "forked_from_project"), "%s", r->body);
		r = R(api("GET", fp, forker, NULL));
		ck_assert_msg(!jhas(r->json, "forked_from_project"), "%s", r->body);
		r = R(api("GET", S(fmt("/projects?search=%s", jstr(r->json, "path"))), outsider,
			  NULL));
		ck_assert(strstr(r->body, "secret plans") == NULL);
		r = R(api("GET", fp, owner, NULL));
		ck_assert_int_eq(jint(jget(r->json, "forked_from_project"), "id"), src);
		r = R(api("GET", fp, admin_token(), NULL));
		ck_assert_int_eq(jint(jget(r->json, "forked_from_project"), "id"), src);
	}
}
END_TEST

/* ---- repositories stored by project id ---- */

/* A path of 255 characters starting with prefix's unique name (caller frees). */
static char *longest(const char *prefix)
{
	char *u = unique(prefix);
	char *s = malloc(256);
	memset(s, 'l', 255);
	s[255] = '\0';
	memcpy(s, u, strlen(u));
	free(u);
	return s;
}

START_TEST(test_longest_names)
{
	/* every length the API accepts can be served and deleted: a group and a user of
	 * 255 characters, with a project of 255 characters in each */
	char *gpath = S(longest("lg"));
	resp *r = R(api("POST", "/groups", admin_token(), S(fmt("name=long&path=%s", gpath))));
	ck_status(r, 201);
	long long g = jint(r->json, "id");
	char *ppath = S(longest("lp"));
	r = R(api("POST", "/projects", admin_token(),
		  S(fmt("name=long&path=%s&namespace_id=%lld", ppath, g))));
	ck_status(r, 201);
	long long gp = jint(r->json, "id");
	ck_status(R(api("GET", S(fmt("/projects/%s", S(enc(S(fmt("%s/%s", gpath, ppath)))))),
			admin_token(), NULL)),
		  200);
	ck_status(R(api("DELETE", S(fmt("/groups/%lld", g)), admin_token(), NULL)), 204);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE id = %lld", gp), 0);

	char *uname = S(longest("lu"));
	r = R(api("POST", "/users", admin_token(),
		  S(fmt("username=%s&email=%s@example.com&name=long&password=secret123"
			"&skip_confirmation=true",
			uname, S(unique("lu"))))));
	ck_status(r, 201);
	long long uid = jint(r->json, "id");
	r = R(api("POST", S(fmt("/projects/user/%lld", uid)), admin_token(),
		  S(fmt("name=long&path=%s", ppath))));
	ck_status(r, 201);
	long long up = jint(r->json, "id");
	ck_assert(access(S(fmt("%s/HEAD", S(repo_dir_of(up)))), F_OK) == 0);
	ck_status(
		R(api("DELETE", S(fmt("/users/%lld?hard_delete=true", uid)), admin_token(), NULL)),
		204);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE id = %lld", up), 0);
	const char *ud = S(repo_dir_of(up)), *gd = S(repo_dir_of(gp));
	ck_assert_msg(wait_gone(ud) && wait_gone(gd),
		      "the repositories of removed long-named projects stay");
}
END_TEST

START_TEST(test_migrate_legacy_repositories)
{
	/* a repository where it was before storage by id (<storage>/<namespace>/<path>.git,
	 * the wiki beside it) is moved to its place by id by `collabd migrate` */
	long long uid;
	char *uname;
	char *token = S(make_user("mig", &uid, &uname));
	S(uname);
	char *path = S(unique("mig"));
	resp *r = R(api("POST", "/projects", token, S(fmt("path=%s", path))));
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	char *dir = S(repo_dir_of(id));
	const char *store = S(fmt("%s/storage", getenv("COLLABD_DIR")));
	char *legacy = S(fmt("%s/%s/%s", store, uname, path));
	ck_assert(system(S(fmt("mkdir -p %s/%s && mv %s %s.git && cp -r %s.git %s.wiki.git"
			       " && echo legacy > %s.git/MARKER",
			       store, uname, dir, legacy, legacy, legacy, legacy))) == 0);
	ck_assert(access(dir, F_OK) != 0);
	const char *bin = getenv("COLLABD_BIN");
	ck_assert(bin != NULL);
	ck_assert(system(S(fmt("'%s' migrate >/dev/null 2>&1", bin))) == 0);
	ck_assert(access(S(fmt("%s/MARKER", dir)), F_OK) == 0);
	ck_assert(access(S(fmt("%s/HEAD", S(fmt("%.*s.wiki.git", (int)strlen(dir) - 4, dir)))),
			 F_OK) == 0);
	ck_assert(access(S(fmt("%s.git", legacy)), F_OK) != 0);
	/* again: nothing to move, nothing lost */
	ck_assert(system(S(fmt("'%s' migrate >/dev/null 2>&1", bin))) == 0);
	ck_assert(access(S(fmt("%s/MARKER", dir)), F_OK) == 0);
	ck_assert(system(S(fmt("git --git-dir='%s' symbolic-ref HEAD >/dev/null", dir))) == 0);
}
END_TEST

Suite *suite_limits(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("limits");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_reserved_usernames);
	tcase_add_test(tc, test_reserved_group_paths);
	tcase_add_test(tc, test_project_paths);
	tcase_add_test(tc, test_tag_list_bounds);
	tcase_add_test(tc, test_expired_membership);
	tcase_add_test(tc, test_fork_of_private_source);
	tcase_add_test(tc, test_longest_names);
	tcase_add_test(tc, test_migrate_legacy_repositories);
	suite_add_tcase(s, tc);
	return s;
}
