/* API suite: the response cache (src/http/cache.h) of GET /projects/:id, GET /projects,
 * GET /users/:user_id/projects, GET /users, GET /users/:id, GET /user and the repository
 * reads.
 *
 * Every worker of both instances keeps its own cache; requests go through the
 * round-robin upstream, so a series of READS requests meets several workers of both
 * instances. A warm-up series must be served from a cache at least once (X-Collabd-Cache:
 * hit; there are fewer workers than requests); after each write, made through either
 * instance, every request of the next series must show the write: a worker that served
 * what it kept from before would fail it. The writes cover what each response depends
 * on: the project, its group, the caller's memberships, notification settings, stars,
 * the owner's name, the caller's state and token, the users and the projects of lists,
 * and rows written in SQL by hand (a group link).
 * Each answer also belongs to one credential only: another caller's request or an
 * anonymous one never gets it. The repository reads (branches/:branch, commits,
 * files/:file_path) follow the refs moved through the API, git over HTTP and the
 * background job, and the protected branches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

#define READS 16 /* > 2 instances x 3 workers */

static bool is_hit(resp *r)
{
	const char *h = resp_header(r, "X-Collabd-Cache");
	return h && strcmp(h, "hit") == 0;
}

/* READS GETs of path as token: each answers status with a body that holds want (when
 * not NULL) and not unwanted (when not NULL). The number served from a cache. */
static int reads(const char *path, const char *token, long status, const char *want,
		 const char *unwanted)
{
	int hits = 0;
	for (int i = 0; i < READS; i++) {
		resp *r = R(api("GET", path, token, NULL));
		ck_assert_msg(r->status == status, "GET %s, read %d: expected %ld, got %ld: %s",
			      path, i, status, r->status, r->body);
		if (want)
			ck_assert_msg(strstr(r->body, want), "GET %s, read %d: no %s in %s", path,
				      i, want, r->body);
		if (unwanted)
			ck_assert_msg(!strstr(r->body, unwanted), "GET %s, read %d: %s in %s", path,
				      i, unwanted, r->body);
		hits += is_hit(r);
	}
	return hits;
}

/* The warm-up: as reads(), and at least one of them from a cache. */
static void warm(const char *path, const char *token, long status, const char *want)
{
	int hits = reads(path, token, status, want, NULL);
	ck_assert_msg(hits > 0, "GET %s: no response of %d from a cache", path, READS);
}

static long long create(const char *path, const char *token, const char *form)
{
	resp *r = R(api("POST", path, token, form));
	ck_assert_msg(r->status == 201, "POST %s: %ld %s", path, r->status, r->body);
	return jint(r->json, "id");
}

static void put(const char *path, const char *token, const char *form)
{
	resp *r = R(api("PUT", path, token, form));
	ck_assert_msg(r->status == 200, "PUT %s: %ld %s", path, r->status, r->body);
}

static long long group(const char *prefix, const char *visibility)
{
	char *name = S(unique(prefix));
	return create("/groups", admin_token(),
		      S(fmt("name=%s&path=%s&visibility=%s", name, name, visibility)));
}

START_TEST(test_cache_one_caller_per_answer)
{
	long long uid, oid;
	char *user = S(make_user("cache-own", &uid, NULL));
	char *other = S(make_user("cache-other", &oid, NULL));
	char *name = S(unique("cached"));
	long long pid = create("/projects", user, S(fmt("name=%s&visibility=private", name)));
	const char *path = S(fmt("/projects/%lld", pid));
	warm(path, user, 200, S(fmt("\"name\":\"%s\"", name)));
	/* another caller, no caller, the same token in the query: never the owner's answer */
	ck_assert_int_eq(reads(path, other, 404, "404 Project Not Found", NULL), 0);
	ck_assert_int_eq(reads(path, NULL, 404, "404 Project Not Found", NULL), 0);
	resp *r = R(api("GET", S(fmt("%s?private_token=%s", path, other)), NULL, NULL));
	ck_status(r, 404);
	r = R(api("GET", S(fmt("%s?private_token=%s", path, user)), NULL, NULL));
	ck_status(r, 200);
	/* a query string is part of the key: statistics are shown when asked for */
	warm(S(fmt("%s?statistics=true", path)), user, 200, "\"statistics\":{");
	reads(path, user, 200, NULL, "\"statistics\"");
	/* an error is never kept: the project made public is there for anyone at once */
	put(path, user, "visibility=public");
	reads(path, NULL, 200, S(fmt("\"name\":\"%s\"", name)), NULL);
	reads(path, other, 200, "\"visibility\":\"public\"", NULL);
	/* GET /user and GET /users/:id are the caller's own */
	warm("/user", user, 200, S(fmt("\"id\":%lld", uid)));
	reads("/user", other, 200, S(fmt("\"id\":%lld", oid)), NULL);
	warm(S(fmt("/users/%lld", oid)), user, 200, S(fmt("\"id\":%lld", oid)));
	/* secrets (kept sealed in the cache) come back whole: the owner's runners token, the
	 * admin's private token */
	r = R(api("GET", path, user, NULL));
	ck_status(r, 200);
	const char *runners = jstr(r->json, "runners_token");
	ck_assert_ptr_nonnull(runners);
	ck_assert_uint_ge(strlen(runners), 8);
	warm(path, user, 200, S(fmt("\"runners_token\":\"%s\"", runners)));
	warm("/user", admin_token(), 200, S(fmt("\"private_token\":\"%s\"", admin_token())));
	/* HEAD is answered from the same entries, without a body */
	r = R(api("HEAD", path, user, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "");
}
END_TEST

START_TEST(test_cache_project_writes)
{
	long long uid, sid;
	char *user = S(make_user("cache-dev", &uid, NULL));
	char *starrer = S(make_user("cache-star", &sid, NULL));
	long long gid = group("cache-g", "internal");
	create(S(fmt("/groups/%lld/members", gid)), admin_token(),
	       S(fmt("user_id=%lld&access_level=30", uid)));
	char *name = S(unique("proj"));
	long long pid = create("/projects", admin_token(),
			       S(fmt("name=%s&namespace_id=%lld&visibility=internal", name, gid)));
	const char *path = S(fmt("/projects/%lld", pid));
	warm(path, user, 200, S(fmt("\"name\":\"%s\"", name)));

	/* the project's own row */
	char *renamed = S(unique("renamed"));
	put(path, admin_token(), S(fmt("name=%s&description=after", renamed)));
	reads(path, user, 200, S(fmt("\"name\":\"%s\"", renamed)), "\"description\":null");
	/* its group (another table: the namespaces) */
	char *gpath = S(unique("moved-g"));
	put(S(fmt("/groups/%lld", gid)), admin_token(), S(fmt("path=%s", gpath)));
	reads(path, user, 200, S(fmt("\"path_with_namespace\":\"%s/", gpath)), NULL);
	/* a project in a subgroup: the parent renamed rewrites the subgroup's full path */
	char *subname = S(unique("cache-sub"));
	long long sgid = create("/groups", admin_token(),
				S(fmt("name=%s&path=%s&visibility=internal&parent_id=%lld", subname,
				      subname, gid)));
	char *inner = S(unique("inner"));
	long long ipid =
		create("/projects", admin_token(),
		       S(fmt("name=%s&namespace_id=%lld&visibility=internal", inner, sgid)));
	const char *ipath = S(fmt("/projects/%lld", ipid));
	warm(ipath, user, 200, S(fmt("\"path_with_namespace\":\"%s/%s/", gpath, subname)));
	char *gpath2 = S(unique("moved-again"));
	put(S(fmt("/groups/%lld", gid)), admin_token(), S(fmt("path=%s", gpath2)));
	reads(ipath, user, 200, S(fmt("\"path_with_namespace\":\"%s/%s/", gpath2, subname)), NULL);
	reads(path, user, 200, S(fmt("\"path_with_namespace\":\"%s/", gpath2)), NULL);
	/* the caller's notification setting of the group, in the permissions */
	reads(path, user, 200, "\"group_access\":{\"access_level\":30,\"notification_level\":3}",
	      NULL);
	put(S(fmt("/groups/%lld/notification_settings", gid)), user, "level=watch");
	reads(path, user, 200, "\"group_access\":{\"access_level\":30,\"notification_level\":2}",
	      NULL);
	/* the caller's membership level */
	put(S(fmt("/groups/%lld/members/%lld", gid, uid)), admin_token(), "access_level=40");
	reads(path, user, 200, "\"group_access\":{\"access_level\":40", NULL);
	/* another user's star */
	reads(path, user, 200, "\"star_count\":0", NULL);
	create(S(fmt("%s/star", path)), starrer, NULL);
	reads(path, user, 200, "\"star_count\":1", NULL);
	/* the group membership gone: the internal project stays visible, without permissions */
	resp *r = R(
		api("DELETE", S(fmt("/groups/%lld/members/%lld", gid, uid)), admin_token(), NULL));
	ck_status(r, 204);
	reads(path, user, 200, "\"permissions\":{\"project_access\":null,\"group_access\":null}",
	      NULL);
	/* private now: not found for the former member */
	put(path, admin_token(), "visibility=private");
	reads(path, user, 404, "404 Project Not Found", NULL);
	/* the project deleted: not found for its owner group's admin either */
	warm(path, admin_token(), 200, NULL);
	r = R(api("DELETE", path, admin_token(), NULL));
	ck_status(r, 202);
	reads(path, admin_token(), 404, "404 Project Not Found", NULL);
}
END_TEST

START_TEST(test_cache_caller_writes)
{
	long long uid;
	char *username;
	char *user = S(make_user("cache-me", &uid, &username));
	S(username);
	char *name = S(unique("mine"));
	long long pid = create("/projects", user, S(fmt("name=%s", name)));
	const char *path = S(fmt("/projects/%lld", pid));
	const char *me = S(fmt("/users/%lld", uid));
	warm(path, user, 200, "\"owner\":{");
	warm("/user", user, 200, S(fmt("\"username\":\"%s\"", username)));
	warm(me, user, 200, S(fmt("\"username\":\"%s\"", username)));

	/* the owner's name, in their personal project and their own record */
	char *renamed = S(unique("Renamed"));
	put(me, admin_token(), S(fmt("name=%s", renamed)));
	reads(path, user, 200, S(fmt("\"owner\":{\"id\":%lld,\"name\":\"%s\"", uid, renamed)),
	      NULL);
	reads("/user", user, 200, S(fmt("\"name\":\"%s\"", renamed)), NULL);
	reads(me, user, 200, S(fmt("\"name\":\"%s\"", renamed)), NULL);
	/* blocked: every cached answer of theirs stops at once, and comes back */
	create(S(fmt("/users/%lld/block", uid)), admin_token(), NULL);
	reads(path, user, 401, "401 Unauthorized", NULL);
	reads("/user", user, 401, "401 Unauthorized", NULL);
	reads(me, user, 401, "401 Unauthorized", NULL);
	create(S(fmt("/users/%lld/unblock", uid)), admin_token(), NULL);
	warm(path, user, 200, NULL);
	/* a revoked token stops at once */
	resp *r = R(api("POST", S(fmt("/users/%lld/impersonation_tokens", uid)), admin_token(),
			"name=second&scopes[]=api"));
	ck_status(r, 201);
	const char *second = S(strdup(jstr(r->json, "token")));
	long long tid = jint(r->json, "id");
	warm(path, second, 200, NULL);
	warm("/user", second, 200, NULL);
	r = R(api("DELETE", S(fmt("/users/%lld/impersonation_tokens/%lld", uid, tid)),
		  admin_token(), NULL));
	ck_status(r, 204);
	reads(path, second, 401, "401 Unauthorized", NULL);
	reads("/user", second, 401, "401 Unauthorized", NULL);
	reads(path, user, 200, NULL, NULL);
}
END_TEST

/* The authentication cache (auth_cache_mb, src/auth/auth.c): a project's route that the
 * response cache does not keep (its issues) finds the caller and the project from the
 * row the workers keep for the token and the project id, after one statement has found
 * the versions of its keys unchanged. Each change of what that row was read from, made
 * through the API or in SQL, shows in the next series of requests, on every worker of
 * both instances (with cache_verify, a row kept past its change also answers 500): the
 * caller's membership of the project and of its group, the project's visibility, the
 * group's path (the issues' web_url), a revoked token and a blocked user; for a writing
 * route (a comment), the membership of the group. */
START_TEST(test_cache_authentication)
{
	long long uid, oid;
	char *user = S(make_user("acache-me", &uid, NULL));
	char *other = S(make_user("acache-other", &oid, NULL));
	char *gpath = S(unique("acache-g"));
	long long gid = create("/groups", admin_token(),
			       S(fmt("name=%s&path=%s&visibility=internal", gpath, gpath)));
	char *name = S(unique("acache-p"));
	long long pid = create(
		"/projects", admin_token(),
		S(fmt("name=%s&path=%s&namespace_id=%lld&visibility=private", name, name, gid)));
	long long iid;
	fixture_issue(pid, uid, "Kept", false, &iid);
	const char *path = S(fmt("/projects/%lld/issues", pid));
	const char *web = S(fmt("/%s/%s/issues/%lld\"", gpath, name, iid));

	/* a member of the project, then not, then of its group, then not (in SQL) */
	create(S(fmt("/projects/%lld/members", pid)), admin_token(),
	       S(fmt("user_id=%lld&access_level=20", uid)));
	reads(path, user, 200, web, NULL);
	resp *r = R(api("DELETE", S(fmt("/projects/%lld/members/%lld", pid, uid)), admin_token(),
			NULL));
	ck_status(r, 204);
	reads(path, user, 404, "404 Project Not Found", NULL);
	create(S(fmt("/groups/%lld/members", gid)), admin_token(),
	       S(fmt("user_id=%lld&access_level=30", uid)));
	reads(path, user, 200, web, NULL);
	/* writing routes too: each of READS comments finds the caller's row kept */
	const char *notes = S(fmt("/projects/%lld/issues/%lld/notes", pid, iid));
	for (int i = 0; i < READS; i++)
		create(notes, user, "body=Kept");
	free(sql_value("DELETE FROM members WHERE source_type = 'Namespace' AND source_id = %lld"
		       " AND user_id = %lld",
		       gid, uid));
	reads(path, user, 404, "404 Project Not Found", NULL);
	for (int i = 0; i < READS; i++) {
		r = R(api("POST", notes, user, "body=Gone"));
		ck_status(r, 404);
	}
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM notes n JOIN issues i ON i.id = n.noteable_id"
			" WHERE n.noteable_type = 'Issue' AND i.project_id = %lld AND NOT n.system",
			pid),
		READS);
	sql_member("Namespace", gid, uid, 30);
	reads(path, user, 200, web, NULL);

	/* the project's visibility, for a caller who is no member */
	reads(path, other, 404, "404 Project Not Found", NULL);
	put(S(fmt("/projects/%lld", pid)), admin_token(), "visibility=internal");
	reads(path, other, 200, web, NULL);
	put(S(fmt("/projects/%lld", pid)), admin_token(), "visibility=private");
	reads(path, other, 404, "404 Project Not Found", NULL);

	/* the group's path, in the issues' web_url */
	char *moved = S(unique("acache-moved"));
	put(S(fmt("/groups/%lld", gid)), admin_token(), S(fmt("path=%s", moved)));
	reads(path, user, 200, S(fmt("/%s/%s/issues/%lld\"", moved, name, iid)), web);

	/* a revoked token, a blocked user */
	r = R(api("POST", S(fmt("/users/%lld/impersonation_tokens", uid)), admin_token(),
		  "name=second&scopes[]=api"));
	ck_status(r, 201);
	const char *second = S(strdup(jstr(r->json, "token")));
	long long tid = jint(r->json, "id");
	reads(path, second, 200, NULL, NULL);
	r = R(api("DELETE", S(fmt("/users/%lld/impersonation_tokens/%lld", uid, tid)),
		  admin_token(), NULL));
	ck_status(r, 204);
	reads(path, second, 401, "401 Unauthorized", NULL);
	reads(path, user, 200, NULL, NULL);
	create(S(fmt("/users/%lld/block", uid)), admin_token(), NULL);
	reads(path, user, 401, "401 Unauthorized", NULL);
	create(S(fmt("/users/%lld/unblock", uid)), admin_token(), NULL);
	reads(path, user, 200, NULL, NULL);
}
END_TEST

/* A write made in SQL, not through the API (the triggers bump the versions wherever the
 * rows change): a project shared with a group by hand, then the group renamed and the
 * link removed by hand. The caller's level through the link shows in nothing but the
 * link itself, so the answer is checked for the link. */
START_TEST(test_cache_sql_writes)
{
	long long uid;
	char *user = S(make_user("cache-sql", &uid, NULL));
	long long gid = group("cache-sg", "private");
	long long hid = group("cache-sh", "private");
	char *name = S(unique("shared"));
	long long pid = create("/projects", admin_token(),
			       S(fmt("name=%s&namespace_id=%lld&visibility=private", name, gid)));
	create(S(fmt("/projects/%lld/members", pid)), admin_token(),
	       S(fmt("user_id=%lld&access_level=20", uid)));
	const char *path = S(fmt("/projects/%lld", pid));
	warm(path, user, 200, "\"shared_with_groups\":[]");
	free(sql_value("INSERT INTO project_group_links (project_id, group_id, group_access)"
		       " VALUES (%lld, %lld, 40)",
		       pid, hid));
	reads(path, user, 200, S(fmt("\"shared_with_groups\":[{\"group_id\":%lld,", hid)), NULL);
	free(sql_value("UPDATE namespaces SET name = 'renamed-by-hand' WHERE id = %lld", hid));
	reads(path, user, 200, "\"group_name\":\"renamed-by-hand\"", NULL);
	free(sql_value("DELETE FROM project_group_links WHERE project_id = %lld", pid));
	reads(path, user, 200, "\"shared_with_groups\":[]", NULL);
}
END_TEST

/* X-Total of GET path as token. */
static long long total(const char *path, const char *token)
{
	resp *r = R(api("GET", path, token, NULL));
	ck_status(r, 200);
	const char *t = resp_header(r, "X-Total");
	ck_assert_ptr_nonnull(t);
	return atoll(t);
}

START_TEST(test_cache_lists)
{
	/* users: a new one counts at once */
	warm("/users?per_page=1", admin_token(), 200, NULL);
	long long before = total("/users?per_page=1", admin_token());
	long long uid;
	char *user = S(make_user("cache-list", &uid, NULL));
	for (int i = 0; i < READS; i++)
		ck_assert_int_eq(total("/users?per_page=1", admin_token()), before + 1);

	/* membership: a project created in a group of theirs, by someone else, is in at once */
	long long gid = group("cache-lg", "private");
	create(S(fmt("/groups/%lld/members", gid)), admin_token(),
	       S(fmt("user_id=%lld&access_level=20", uid)));
	const char *mine = "/projects?membership=true&per_page=5";
	warm(mine, user, 200, NULL);
	long long n = total(mine, user);
	char *name = S(unique("listed"));
	long long pid =
		create("/projects", admin_token(), S(fmt("name=%s&namespace_id=%lld", name, gid)));
	for (int i = 0; i < READS; i++)
		ck_assert_int_eq(total(mine, user), n + 1);
	reads(mine, user, 200, S(fmt("\"name\":\"%s\"", name)), NULL);
	/* renamed: the page shows the new name */
	char *renamed = S(unique("relisted"));
	put(S(fmt("/projects/%lld", pid)), admin_token(), S(fmt("name=%s", renamed)));
	reads(mine, user, 200, S(fmt("\"name\":\"%s\"", renamed)), S(fmt("\"name\":\"%s\"", name)));
	/* its merge_method (sql/0028) shows on the page and in the record */
	const char *record = S(fmt("/projects/%lld", pid));
	warm(record, user, 200, "\"merge_method\":\"merge\"");
	put(record, admin_token(), "merge_method=ff");
	reads(mine, user, 200, S(fmt("\"name\":\"%s\"", renamed)), NULL);
	reads(mine, user, 200, "\"merge_method\":\"ff\"", NULL);
	reads(record, user, 200, "\"merge_method\":\"ff\"", "\"merge_method\":\"merge\"");
	/* their membership gone: out of the list */
	resp *r = R(
		api("DELETE", S(fmt("/groups/%lld/members/%lld", gid, uid)), admin_token(), NULL));
	ck_status(r, 204);
	for (int i = 0; i < READS; i++)
		ck_assert_int_eq(total(mine, user), n);
	/* a user's projects */
	const char *theirs = S(fmt("/users/%lld/projects", uid));
	warm(theirs, user, 200, "[]");
	char *own = S(unique("own"));
	create("/projects", user, S(fmt("name=%s", own)));
	reads(theirs, user, 200, S(fmt("\"name\":\"%s\"", own)), NULL);
}
END_TEST

/* A private project comes into a caller's list through a group of theirs when its own
 * group moves below that one: no row of the project, of the caller or of the list changes,
 * the group's place does (its namespace row, written in SQL as a transfer would). */
START_TEST(test_cache_list_follows_groups)
{
	long long uid;
	char *user = S(make_user("cache-tr", &uid, NULL));
	long long gid = group("cache-tg", "private");
	long long hid = group("cache-th", "private");
	create(S(fmt("/groups/%lld/members", gid)), admin_token(),
	       S(fmt("user_id=%lld&access_level=20", uid)));
	char *name = S(unique("moved-in"));
	create("/projects", admin_token(),
	       S(fmt("name=%s&namespace_id=%lld&visibility=private", name, hid)));
	const char *mine = "/projects?membership=true";
	const char *want = S(fmt("\"name\":\"%s\"", name));
	warm(mine, user, 200, NULL);
	reads(mine, user, 200, NULL, want);
	free(sql_value("UPDATE namespaces h SET parent_id = g.id, traversal_ids = ARRAY[g.id, h.id],"
		       " full_path = g.full_path || '/' || h.path, full_name = g.full_name || ' / '"
		       " || h.name FROM namespaces g WHERE g.id = %lld AND h.id = %lld",
		       gid, hid));
	reads(mine, user, 200, want, NULL);
}
END_TEST

/* The keys a write collects for the commit to bump (sql/0010_cache_keys.sql): the write
 * run in a transaction that is rolled back, with the setting the triggers fill read
 * before. */
static char *collected(const char *write)
{
	return S(sql_value("BEGIN; %s; SELECT ',' || current_setting('collabd.cache_keys', true)"
			   " || ','; ROLLBACK;",
			   write));
}

/* Whether the collected keys hold k. */
static bool has_key(const char *keys, long long k)
{
	char *item = fmt(",%lld,", k);
	bool found = strstr(keys, item) != NULL;
	free(item);
	return found;
}

/* The stripe of set n a row whose id is id bumps. */
static long long stripe(int n, long long id)
{
	return -(n * 64 + id % 64) - 1;
}

/* Counters that change often bump the row's key, not the sets every list depends on: a
 * star (not set 2, the projects), activity (only set 5, the lists sorted by time); a list
 * still shows them through its rows' keys, and one sorted by last_activity_at reorders.
 * (The stack runs with cache_verify: each hit below was checked against the handler.) */
START_TEST(test_cache_counters_bump_rows)
{
	long long uid, sid;
	char *user = S(make_user("cache-cnt", &uid, NULL));
	char *starrer = S(make_user("cache-cnt-star", &sid, NULL));
	long long first =
		create("/projects", user, S(fmt("name=%s&visibility=public", S(unique("first")))));
	long long second =
		create("/projects", user, S(fmt("name=%s&visibility=public", S(unique("second")))));

	/* what each write collects */
	const char *keys = collected(S(fmt(
		"WITH s AS (INSERT INTO users_star_projects (user_id, project_id) VALUES (%lld, %lld)"
		" RETURNING project_id) UPDATE projects SET star_count = star_count + 1"
		" WHERE id IN (SELECT project_id FROM s)",
		sid, first)));
	ck_assert_msg(has_key(keys, sid * 16 + 1) && has_key(keys, first * 16 + 2), "%s", keys);
	ck_assert_msg(!strstr(keys, ",-"), "a star bumps a set: %s", keys);
	keys = collected(S(fmt("UPDATE projects SET last_activity_at = now() + interval '1 hour'"
			       " WHERE id = %lld",
			       first)));
	ck_assert_msg(has_key(keys, first * 16 + 2) && has_key(keys, stripe(5, first)), "%s", keys);
	ck_assert_msg(!has_key(keys, stripe(2, first)) && !has_key(keys, stripe(4, first)), "%s",
		      keys);
	keys = collected(S(fmt("UPDATE projects SET open_issues_count = 3, forks_count = 2"
			       " WHERE id = %lld",
			       first)));
	ck_assert_msg(has_key(keys, first * 16 + 2) && !strstr(keys, ",-"), "%s", keys);
	keys = collected(S(fmt("UPDATE projects SET description = 'd', updated_at = now()"
			       " WHERE id = %lld",
			       first)));
	ck_assert_msg(has_key(keys, stripe(4, first)) && has_key(keys, stripe(5, first)), "%s",
		      keys);
	ck_assert_msg(!has_key(keys, stripe(2, first)), "%s", keys);
	keys = collected(S(fmt("UPDATE projects SET visibility = 0 WHERE id = %lld", first)));
	ck_assert_msg(has_key(keys, first * 16 + 2) && has_key(keys, stripe(2, first)), "%s", keys);
	/* a user's sign-in shows in their record only; a rename in the lists */
	keys = collected(S(fmt("UPDATE users SET last_sign_in_at = now() WHERE id = %lld", uid)));
	ck_assert_msg(has_key(keys, uid * 16 + 1) && !strstr(keys, ",-"), "%s", keys);
	keys = collected(S(fmt("UPDATE users SET name = 'n' WHERE id = %lld", uid)));
	ck_assert_msg(has_key(keys, stripe(1, uid)), "%s", keys);

	/* and what the lists show */
	const char *list = S(fmt("/users/%lld/projects?order_by=created_at", uid));
	const char *by_activity = S(fmt("/users/%lld/projects?order_by=last_activity_at", uid));
	warm(list, user, 200, "\"star_count\":0");
	warm(by_activity, user, 200, S(fmt("[{\"id\":%lld,", second)));
	create(S(fmt("/projects/%lld/star", first)), starrer, NULL);
	reads(list, user, 200, "\"star_count\":1", NULL);
	free(sql_value("UPDATE projects SET last_activity_at = now() + interval '1 hour'"
		       " WHERE id = %lld",
		       first));
	reads(by_activity, user, 200, S(fmt("[{\"id\":%lld,", first)), NULL);
	warm(by_activity, user, 200, S(fmt("[{\"id\":%lld,", first)));
	/* a description is searched */
	const char *search = S(fmt("/users/%lld/projects?search=counted", uid));
	warm(search, user, 200, "[]");
	put(S(fmt("/projects/%lld", second)), user, "description=counted");
	reads(list, user, 200, "\"description\":\"counted\"", NULL);
	reads(search, user, 200, S(fmt("[{\"id\":%lld,", second)), NULL);
}
END_TEST

/* Whether a log of the stack has a line holding both a and b. */
static bool logged(const char *a, const char *b)
{
	const char *dir = getenv("COLLABD_DIR");
	ck_assert_msg(dir != NULL, "COLLABD_DIR must be set");
	bool found = false;
	for (int n = 1; n <= 2 && !found; n++) {
		char *path = fmt("%s/collabd-%d.log", dir, n);
		FILE *f = fopen(path, "r");
		free(path);
		if (!f)
			continue;
		char line[4096];
		while (!found && fgets(line, sizeof(line), f))
			found = strstr(line, a) && strstr(line, b);
		fclose(f);
	}
	return found;
}

/* Verification (cache_verify, on for these suites: tests/api/run) catches an entry the
 * triggers did not invalidate: a row changed with them disabled, as a bulk load may do.
 * A worker that still holds the old answer answers 500 and logs the route and the key;
 * one that did not keep it answers the new one. The path names the project, so that
 * tests/api/run, which fails on any such line, knows this one is on purpose. */
START_TEST(test_cache_verify_catches_stale)
{
	char *user = S(make_user("cache-verify", NULL, NULL));
	char *full_path;
	char *name = S(unique("verify-stale-"));
	long long pid = create("/projects", user, S(fmt("name=%s", name)));
	resp *r = R(api("GET", S(fmt("/projects/%lld", pid)), user, NULL));
	ck_status(r, 200);
	full_path = S(strdup(jstr(r->json, "path_with_namespace")));
	const char *path = S(fmt("/projects/%s", S(enc(full_path))));
	warm(path, user, 200, "\"description\":null");
	free(sql_value("BEGIN; ALTER TABLE projects DISABLE TRIGGER cache_bump;"
		       " ALTER TABLE projects DISABLE TRIGGER cache_bump_commit;"
		       " UPDATE projects SET description = 'behind the cache' WHERE id = %lld;"
		       " ALTER TABLE projects ENABLE TRIGGER cache_bump;"
		       " ALTER TABLE projects ENABLE TRIGGER cache_bump_commit; COMMIT;",
		       pid));
	int failed = 0;
	for (int i = 0; i < READS; i++) {
		r = R(api("GET", path, user, NULL));
		if (r->status == 500) {
			ck_assert_str_eq(r->body, "{\"message\":\"500 Internal Server Error\"}");
			failed++;
			continue;
		}
		ck_status(r, 200);
		ck_assert_msg(strstr(r->body, "\"description\":\"behind the cache\""), "%s",
			      r->body);
	}
	ck_assert_msg(failed > 0, "no stale answer was caught");
	ck_assert(logged("response cache verification failed",
			 S(fmt("%s (route GET /api/v4/projects/:id)", S(fmt("/api/v4%s", path))))));
	/* caught entries are dropped: what follows is the new answer, cached again */
	warm(path, user, 200, "\"description\":\"behind the cache\"");
}
END_TEST

/* A hit that verification passes says so, as any hit; no write through the API trips it
 * (the whole API suite runs with it). */
START_TEST(test_cache_verify_passes)
{
	long long uid;
	char *user = S(make_user("cache-ok", &uid, NULL));
	long long pid = create("/projects", user, S(fmt("name=%s", S(unique("ok")))));
	const char *path = S(fmt("/projects/%lld", pid));
	warm(path, user, 200, NULL);
	warm("/user", user, 200, NULL);
	warm(S(fmt("/users/%lld/projects", uid)), user, 200, NULL);
	put(path, user, "description=verified");
	warm(path, user, 200, "\"description\":\"verified\"");
	warm(S(fmt("/users/%lld/projects", uid)), user, 200, "\"description\":\"verified\"");
	ck_assert(!logged("response cache verification failed",
			  S(fmt("/api/v4/projects/%lld ", pid))));
}
END_TEST

/* The version of project pid's repository key (sql/0031_cache_repository.sql). */
static long long repository_version(long long pid)
{
	return sql_int("SELECT coalesce((SELECT v FROM cache_epochs WHERE k = %lld), 0)",
		       pid * 16 + 4);
}

/* The repository reads (GET .../repository/branches/:branch, .../commits,
 * .../files/:file_path): every change of the refs, through the API, git over HTTP (the
 * post-receive hook) or the merged-branches job, and of the protected branches, is seen by
 * the next read; so is the caller's access. */
START_TEST(test_cache_repository_writes)
{
	long long oid, rid;
	char *owner = S(make_user("cache-repo", &oid, NULL));
	char *reporter = S(make_user("cache-rep", &rid, NULL));
	char *full;
	long long pid = api_project(owner, "private", &full);
	S(full);
	create(S(fmt("/projects/%lld/members", pid)), owner,
	       S(fmt("user_id=%lld&access_level=20", rid)));
	const char *p = S(fmt("/projects/%lld/repository", pid));
	/* the first commit, through the API: "v1" is djE= in base64 */
	resp *r = R(api("POST", S(fmt("%s/files/README.md", p)), owner,
			"branch=master&content=v1&commit_message=first"));
	ck_status(r, 201);
	const char *branch = S(fmt("%s/branches/master", p));
	const char *commits = S(fmt("%s/commits?per_page=20", p));
	const char *file = S(fmt("%s/files/README.md?ref=master", p));
	warm(branch, reporter, 200, "\"message\":\"first\"");
	warm(commits, reporter, 200, "\"message\":\"first\"");
	warm(file, reporter, 200, "\"content\":\"djE=\"");

	/* a commit through the API (each way of moving a ref bumps the repository's own key:
	 * the project's, which the reads also depend on, follows its last_activity_at) */
	long long v = repository_version(pid);
	put(S(fmt("%s/files/README.md", p)), owner,
	    "branch=master&content=v2&commit_message=second");
	ck_assert_int_gt(repository_version(pid), v);
	reads(branch, reporter, 200, "\"message\":\"second\"", NULL);
	reads(commits, reporter, 200, "\"message\":\"second\"", NULL);
	reads(file, reporter, 200, "\"content\":\"djI=\"", NULL);
	/* a branch that the push below leaves merged */
	create(S(fmt("%s/branches", p)), owner, "branch=done&ref=master");
	/* protected, and no more */
	warm(branch, reporter, 200, "\"protected\":false");
	v = repository_version(pid);
	create(S(fmt("/projects/%lld/protected_branches", pid)), owner, "name=master");
	ck_assert_int_gt(repository_version(pid), v);
	reads(branch, reporter, 200, "\"protected\":true", NULL);
	r = R(api("DELETE", S(fmt("/projects/%lld/protected_branches/master", pid)), owner, NULL));
	ck_status(r, 204);
	reads(branch, reporter, 200, "\"protected\":false", NULL);
	/* a push over HTTP, through the hooks */
	v = repository_version(pid);
	char *work = git_work_new();
	const char *base = api_url() + strlen("http://");
	int rc = git_sh(work, NULL,
			"clone -q 'http://u:%s@%s/%s.git' c && cd c && echo v3 > README.md &&"
			" git commit -q -am pushed && git push -q origin master",
			owner, base, full);
	git_work_remove(work);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_gt(repository_version(pid), v);
	reads(branch, reporter, 200, "\"message\":\"pushed\\n\"", NULL);
	reads(commits, reporter, 200, "\"message\":\"pushed\\n\"", NULL);
	reads(file, reporter, 200, "\"content\":\"djMK\"", NULL);
	/* a branch and a tag made and removed through the API */
	create(S(fmt("%s/branches", p)), owner, "branch=topic&ref=master");
	create(S(fmt("%s/tags", p)), owner, "tag_name=v1&ref=master");
	const char *topic = S(fmt("%s/branches/topic", p));
	const char *tagged = S(fmt("%s/files/README.md?ref=v1", p));
	warm(topic, reporter, 200, "\"name\":\"topic\"");
	warm(tagged, reporter, 200, "\"content\":\"djMK\"");
	r = R(api("DELETE", topic, owner, NULL));
	ck_status(r, 204);
	r = R(api("DELETE", S(fmt("%s/tags/v1", p)), owner, NULL));
	ck_status(r, 204);
	reads(topic, reporter, 404, "404 Branch Not Found", NULL);
	reads(tagged, reporter, 404, NULL, NULL);
	/* the merged branches removed by the background job */
	const char *done = S(fmt("%s/branches/done", p));
	warm(done, reporter, 200, "\"merged\":true");
	v = repository_version(pid);
	r = R(api("DELETE", S(fmt("%s/merged_branches", p)), owner, NULL));
	ck_status(r, 202);
	/* (the version, not the branch, is polled: the job deletes the ref, then commits the
	 * bump; a read between the two may be answered from before) */
	for (int i = 0; i < 100 && repository_version(pid) == v; i++)
		usleep(100000);
	ck_assert_msg(repository_version(pid) > v, "the merged branches job did not finish");
	reads(done, reporter, 404, "404 Branch Not Found", NULL);
	/* the caller's access */
	r = R(api("DELETE", S(fmt("/projects/%lld/members/%lld", pid, rid)), owner, NULL));
	ck_status(r, 204);
	reads(branch, reporter, 404, "404 Project Not Found", NULL);
	reads(file, reporter, 404, "404 Project Not Found", NULL);
	warm(file, owner, 200, "\"content\":\"djMK\"");
	ck_assert(!logged("response cache verification failed", S(fmt("/projects/%lld/", pid))));
}
END_TEST

Suite *suite_cache(void)
{
	Suite *s = suite_create("cache");
	TCase *tc = tcase_create("cache");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_cache_one_caller_per_answer);
	tcase_add_test(tc, test_cache_project_writes);
	tcase_add_test(tc, test_cache_caller_writes);
	tcase_add_test(tc, test_cache_authentication);
	tcase_add_test(tc, test_cache_lists);
	tcase_add_test(tc, test_cache_sql_writes);
	tcase_add_test(tc, test_cache_list_follows_groups);
	tcase_add_test(tc, test_cache_counters_bump_rows);
	tcase_add_test(tc, test_cache_verify_catches_stale);
	tcase_add_test(tc, test_cache_verify_passes);
	tcase_add_test(tc, test_cache_repository_writes);
	suite_add_tcase(s, tc);
	return s;
}
