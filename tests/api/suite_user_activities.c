/* API suite: GET /user/activities (GitLab 10.8, admins only) and the activity it lists
 * (users.last_activity_on), recorded as 10.8's Users::ActivityService does: a git pull
 * over HTTP or SSH and a sign-in (the OAuth password grant), at most once a day; not a
 * push, not an API request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static char *work; /* git's scratch directory */

static void setup(void)
{
	work = git_work_new();
}

static void teardown(void)
{
	release();
	git_work_remove(work);
}

static resp *get(const char *path, const char *token)
{
	return R(api("GET", path, token, NULL));
}

/* The user's last_activity_on as the database has it ("" when NULL). */
static char *day_of(long long uid)
{
	return S(sql_value("SELECT coalesce(last_activity_on::text, '') FROM users WHERE id = %lld",
			   uid));
}

static char *today(void)
{
	return S(sql_value("SELECT current_date::text"));
}

/* The row version of the user (xmin): the same when nothing wrote the row. */
static char *row_version(long long uid)
{
	return S(sql_value("SELECT xmin::text FROM users WHERE id = %lld", uid));
}

/* The entry of username in a list response, NULL when absent. */
static json_object *entry_of(resp *r, const char *username)
{
	ck_assert_msg(r->json && json_object_is_type(r->json, json_type_array), "not an array: %s",
		      r->body);
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *o = json_object_array_get_idx(r->json, i);
		const char *u = jstr(o, "username");
		if (u && strcmp(u, username) == 0)
			return o;
	}
	return NULL;
}

static long long new_project(const char *token, char **full_path)
{
	resp *r = R(api("POST", "/projects", token,
			S(fmt("path=%s&visibility=private", S(unique("act-"))))));
	ck_status(r, 201);
	*full_path = S(strdup(jstr(r->json, "path_with_namespace")));
	return jint(r->json, "id");
}

static char *base64(const char *s)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), o = 0;
	char *out = S(calloc(1, (n + 2) / 3 * 4 + 1));
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)s[i] << 16;
		if (i + 1 < n)
			v |= (unsigned char)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)s[i + 2];
		out[o++] = b64[(v >> 18) & 63];
		out[o++] = b64[(v >> 12) & 63];
		out[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	return out;
}

/* GET <path>.git/info/refs?service=SERVICE with the token as Basic credentials: the
 * status (nginx's, after collabd's access question). */
static long info_refs(const char *token, const char *path, const char *service)
{
	const char *auth = S(fmt("Authorization: Basic %s", base64(S(fmt("u:%s", token)))));
	const char *headers[2] = {auth, NULL};
	resp *r = R(http_request("GET",
				 S(fmt("%s/%s.git/info/refs?service=%s", api_url(), path, service)),
				 headers, NULL, 0, NULL));
	return r->status;
}

START_TEST(test_activities_git_http)
{
	long long uid;
	char *name;
	char *token = S(make_user("act_http", &uid, &name));
	S(name);
	char *path;
	new_project(token, &path);
	ck_assert_str_eq(day_of(uid), "");
	/* API requests are no activity in 10.8, nor a push's question */
	ck_code(get("/user", token), 200);
	ck_code(get(S(fmt("/projects/%s", S(enc(path)))), token), 200);
	ck_assert_int_eq(info_refs(token, path, "git-receive-pack"), 200);
	ck_assert_str_eq(day_of(uid), "");
	/* the admin's view of the user, cached before the pull */
	const char *show = S(fmt("/users/%lld", uid));
	for (int i = 0; i < 2; i++)
		ck_assert(jnull(get(show, admin_token())->json, "last_activity_on"));

	/* the versions the daily write must leave alone: the users' epoch (the workers'
	 * copies of user records) and the user's stripe of the users set (every user list);
	 * and the user's own key, which it bumps */
	const char *kept_sql = S(fmt("SELECT coalesce(sum(v), 0) FROM cache_epochs WHERE k IN"
				     " (0, 5, cache_stripe(1, %lld))",
				     uid));
	const char *own_sql =
		S(fmt("SELECT coalesce(sum(v), 0) FROM cache_epochs WHERE k = %lld", uid * 16 + 1));
	long long kept = sql_int("%s", kept_sql), own = sql_int("%s", own_sql);
	/* a pull (git ls-remote: info/refs of upload-pack) */
	char *out;
	const char *url =
		S(fmt("http://u:%s@%s/%s.git", token, api_url() + strlen("http://"), path));
	int st = git_sh(work, &out, "ls-remote '%s'", url);
	S(out);
	ck_assert_msg(st == 0, "ls-remote: %s", out);
	ck_assert_str_eq(day_of(uid), today());
	ck_assert_int_eq(sql_int("%s", kept_sql), kept);
	ck_assert_int_gt(sql_int("%s", own_sql), own);
	/* shown at once, through both instances (the response cache knows) */
	for (int i = 0; i < 2; i++)
		ck_assert_str_eq(jstr(get(show, admin_token())->json, "last_activity_on"), today());
	resp *r = get(S(fmt("/user/activities?from=%s&per_page=100", today())), admin_token());
	ck_status(r, 200);
	json_object *o = entry_of(r, name);
	ck_assert_msg(o != NULL, "%s not in %s", name, r->body);
	static const char *const FIELDS[] = {"username", "last_activity_on", "last_activity_at",
					     NULL};
	ck_fields(o, FIELDS);
	ck_assert_str_eq(jstr(o, "last_activity_on"), today());
	ck_assert_str_eq(jstr(o, "last_activity_at"), today());

	/* the day's next pulls write nothing */
	const char *version = row_version(uid);
	ck_assert_int_eq(info_refs(token, path, "git-upload-pack"), 200);
	ck_assert_int_eq(git_sh(work, NULL, "ls-remote '%s'", url), 0);
	ck_assert_str_eq(row_version(uid), version);
	/* a day gone by: the next pull writes again */
	S(sql_value("UPDATE users SET last_activity_on = current_date - 3 WHERE id = %lld", uid));
	ck_assert_int_eq(info_refs(token, path, "git-upload-pack"), 200);
	ck_assert_str_eq(day_of(uid), today());
	/* a refused pull is none */
	long long other;
	char *otoken = S(make_user("act_http_o", &other, NULL));
	ck_assert_int_eq(info_refs(otoken, path, "git-upload-pack"), 404);
	ck_assert_str_eq(day_of(other), "");
}
END_TEST

START_TEST(test_activities_ssh)
{
	ck_assert_msg(getenv("COLLABD_SSH_PORT"), "no sshd in the stack (COLLABD_SSH_PORT)");
	long long uid;
	char *token = S(make_user("act_ssh", &uid, NULL));
	char *path;
	new_project(token, &path);
	char *out;
	ck_assert_int_eq(git_sh(work, &out,
				"version >/dev/null && ssh-keygen -q -t ed25519 -N '' -f key"),
			 0);
	free(out);
	FILE *f = fopen(S(fmt("%s/key.pub", work)), "r");
	ck_assert_ptr_nonnull(f);
	char line[512];
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	ck_code(R(api("POST", "/user/keys", token, S(fmt("title=act&key=%s", S(enc(line)))))), 201);
	const char *user = getenv("COLLABD_SSH_USER");
	const char *ssh = S(fmt("ssh -p %s -i %s/key -o StrictHostKeyChecking=no "
				"-o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes "
				"-o BatchMode=yes -o LogLevel=ERROR",
				getenv("COLLABD_SSH_PORT"), work));
	/* a push over SSH is none (10.8 records git-upload-pack only) */
	int st = git_sh(work, &out,
			"init -q src && cd src && git commit -q --allow-empty -m one && git -c "
			"core.sshCommand='%s' push -q '%s@127.0.0.1:%s.git' HEAD:master",
			ssh, user ? user : "root", path);
	S(out);
	ck_assert_msg(st == 0, "push: %s", out);
	ck_assert_str_eq(day_of(uid), "");
	st = git_sh(work, &out, "-c core.sshCommand='%s' ls-remote '%s@127.0.0.1:%s.git'", ssh,
		    user ? user : "root", path);
	S(out);
	ck_assert_msg(st == 0, "ls-remote: %s", out);
	ck_assert_str_eq(day_of(uid), today());
}
END_TEST

START_TEST(test_activities_sign_in)
{
	long long uid;
	char *name;
	S(make_user("act_in", &uid, &name));
	S(name);
	ck_assert_str_eq(day_of(uid), "");
	char *t = S(oauth_password_token(name, "secret1234"));
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(day_of(uid), today());
	/* a refused sign-in is none */
	long long other;
	char *oname;
	S(make_user("act_in_o", &other, &oname));
	S(oname);
	ck_assert_ptr_null(oauth_password_token(oname, "wrong-password"));
	ck_assert_str_eq(day_of(other), "");
}
END_TEST

/* Users given days in SQL far ahead, so that no other test's users come between. */
START_TEST(test_activities_from_and_pages)
{
	long long ids[4];
	char *names[4];
	static const char *const days[] = {"2990-03-04", "2990-01-02", "2990-01-02", "2989-12-31"};
	for (int i = 0; i < 4; i++) {
		S(make_user("act_pg", &ids[i], &names[i]));
		S(names[i]);
		S(sql_value("UPDATE users SET last_activity_on = '%s' WHERE id = %lld", days[i],
			    ids[i]));
	}
	const char *path = "/user/activities";
	resp *r = get("/user/activities?from=2990-01-01&per_page=2", admin_token());
	ck_status(r, 200);
	ck_pages(r, path, "from=2990-01-01", 3, 2, 1);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	/* oldest first (then by id) */
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "username"), names[1]);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "last_activity_on"),
			 "2990-01-02");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 1), "username"), names[2]);
	r = get("/user/activities?from=2990-01-01&per_page=2&page=2", admin_token());
	ck_pages(r, path, "from=2990-01-01", 3, 2, 2);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "username"), names[0]);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "last_activity_at"),
			 "2990-03-04");
	r = get("/user/activities?from=2990-01-01&per_page=2&page=3", admin_token());
	ck_pages(r, path, "from=2990-01-01", 3, 2, 3);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	/* on the day itself, and a date-time's day */
	r = get("/user/activities?from=2990-03-04", admin_token());
	ck_pages(r, path, "from=2990-03-04", 1, 20, 1);
	r = get(S(fmt("/user/activities?from=%s", S(enc("2990-01-02T23:59:00Z")))), admin_token());
	ck_pages(r, path, S(fmt("from=%s", S(enc("2990-01-02T23:59:00Z")))), 3, 20, 1);
	r = get("/user/activities?from=2989-12-31", admin_token());
	ck_pages(r, path, "from=2989-12-31", 4, 20, 1);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "username"), names[3]);
}
END_TEST

/* Without from: six months back. */
START_TEST(test_activities_default_from)
{
	long long recent, old;
	char *rname, *oname;
	S(make_user("act_df_r", &recent, &rname));
	S(rname);
	S(make_user("act_df_o", &old, &oname));
	S(oname);
	S(sql_value("UPDATE users SET last_activity_on = current_date - interval '5 months'"
		    " WHERE id = %lld",
		    recent));
	S(sql_value("UPDATE users SET last_activity_on = current_date - interval '7 months'"
		    " WHERE id = %lld",
		    old));
	resp *r = get("/user/activities?per_page=100", admin_token());
	ck_status(r, 200);
	ck_assert_msg(entry_of(r, rname) != NULL, "%s not in %s", rname, r->body);
	ck_assert_msg(entry_of(r, oname) == NULL, "%s in %s", oname, r->body);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM users WHERE last_activity_on >="
				 " current_date - interval '6 months'"),
			 atoll(resp_header(r, "X-Total")));
}
END_TEST

START_TEST(test_activities_errors)
{
	char *token = S(make_user("act_err", NULL, NULL));
	ck_body(get("/user/activities", token), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(get("/user/activities", NULL), 401, "{\"message\":\"401 Unauthorized\"}");
	ck_body(get("/user/activities", "bad-token"), 401, "{\"message\":\"401 Unauthorized\"}");
	const char *invalid = "{\"error\":\"from is invalid\"}";
	ck_body(get("/user/activities?from=yesterday", admin_token()), 400, invalid);
	ck_body(get("/user/activities?from=2016-13-45", admin_token()), 400, invalid);
	ck_body(get("/user/activities?from=", admin_token()), 400, invalid);
	ck_code(get("/user/activities?per_page=abc", admin_token()), 400);
	ck_code(R(api("POST", "/user/activities", admin_token(), NULL)), 404);
}
END_TEST

Suite *suite_user_activities(void)
{
	Suite *s = suite_create("user_activities");
	TCase *tc = tcase_create("user_activities");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_activities_git_http);
	tcase_add_test(tc, test_activities_ssh);
	tcase_add_test(tc, test_activities_sign_in);
	tcase_add_test(tc, test_activities_from_and_pages);
	tcase_add_test(tc, test_activities_default_from);
	tcase_add_test(tc, test_activities_errors);
	suite_add_tcase(s, tc);
	return s;
}
