/* Repository storages (issue 34 item 3): the stack runs with two, "default" at
 * COLLABD_DIR/storage and "second" at COLLABD_DIR/storage2 (contrib/lib/stack.sh). An
 * admin chooses a project's storage at create (10.8's repository_storage, shown to
 * admins only), others' projects are spread over the storages the application setting
 * names, git over HTTP, archives and the API find the repository on its storage, and
 * `collabd move-storage` moves one while it stays readable and refuses writes. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"

#define READ_ONLY "The repository is temporarily read-only. Please try again later."

static char *work; /* scratch directory for clones, also git's HOME */

static void setup(void)
{
	work = git_work_new();
}

static void teardown(void)
{
	release();
	git_work_remove(work);
}

#define sh(out, ...) git_sh(work, (out), __VA_ARGS__)

static char *git_url(const char *token, const char *path)
{
	const char *base = api_url();
	return S(fmt("http://u:%s@%s/%s.git", token, base + strlen("http://"), path));
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* COLLABD_DIR/<storage dir>/repositories/@hashed/.../<h>.git of project id */
static char *repo_on(const char *storage_dir, long long id)
{
	char *h = S(sql_value("SELECT encode(sha256('%lld'::bytea), 'hex')", id));
	return S(fmt("%s/%s/repositories/@hashed/%.2s/%.2s/%s.git", getenv("COLLABD_DIR"),
		     storage_dir, h, h + 2, h));
}

static char *storage_of(long long id)
{
	return S(sql_value("SELECT repository_storage FROM projects WHERE id = %lld", id));
}

/* POST /projects as token with extra form fields: the new project's id (201 asserted),
 * its response in *out unless NULL. */
static long long create(const char *token, const char *extra, resp **out)
{
	char *name = S(unique("st"));
	resp *r = R(api("POST", "/projects", token,
			S(fmt("name=%s&visibility=private%s%s", name, extra ? "&" : "",
			      extra ? extra : ""))));
	ck_status(r, 201);
	if (out)
		*out = r;
	return jint(r->json, "id");
}

static void set_storages(const char *form)
{
	resp *r = R(api("PUT", "/application/settings", admin_token(), form));
	ck_status(r, 200);
}

START_TEST(test_admin_chooses_storage)
{
	resp *r;
	long long id = create(admin_token(), "repository_storage=second", &r);
	ck_assert_str_eq(jstr(r->json, "repository_storage"), "second");
	ck_assert_str_eq(storage_of(id), "second");
	ck_assert(is_dir(repo_on("storage2", id)));
	ck_assert(!is_dir(repo_on("storage", id)));
	long long d = create(admin_token(), "repository_storage=default", &r);
	ck_assert_str_eq(jstr(r->json, "repository_storage"), "default");
	ck_assert(is_dir(repo_on("storage", d)));
	ck_assert(!is_dir(repo_on("storage2", d)));
	/* for another user (POST /projects/user/:user_id, admin only) */
	long long uid;
	S(make_user("st", &uid, NULL));
	char *name = S(unique("st"));
	r = R(api("POST", S(fmt("/projects/user/%lld", uid)), admin_token(),
		  S(fmt("name=%s&repository_storage=second", name))));
	ck_status(r, 201);
	ck_assert_str_eq(jstr(r->json, "repository_storage"), "second");
	ck_assert(is_dir(repo_on("storage2", jint(r->json, "id"))));
	/* an unknown storage: 400 naming the attribute, nothing made */
	name = S(unique("st"));
	r = R(api("POST", "/projects", admin_token(),
		  S(fmt("name=%s&repository_storage=nowhere", name))));
	ck_body(r, 400, "{\"message\":{\"repository_storage\":[\"is not included in the list\"]}}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE name = '%s'", name), 0);
	r = R(api("POST", S(fmt("/projects/user/%lld", uid)), admin_token(),
		  S(fmt("name=%s&repository_storage=", name))));
	ck_status(r, 400);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE name = '%s'", name), 0);
}
END_TEST

START_TEST(test_admin_only)
{
	long long uid;
	char *user = S(make_user("st", &uid, NULL));
	/* a user's choice is ignored, as 10.8 did */
	resp *r;
	long long id = create(user, "repository_storage=second", &r);
	ck_assert(!jhas(r->json, "repository_storage"));
	ck_assert_str_eq(storage_of(id), "default");
	ck_assert(is_dir(repo_on("storage", id)));
	/* the field is the admin's alone */
	r = R(api("GET", S(fmt("/projects/%lld", id)), user, NULL));
	ck_status(r, 200);
	ck_assert(!jhas(r->json, "repository_storage"));
	r = R(api("GET", S(fmt("/projects/%lld", id)), admin_token(), NULL));
	ck_status(r, 200);
	ck_assert_str_eq(jstr(r->json, "repository_storage"), "default");
	r = R(api("GET", "/projects?owned=true", user, NULL));
	ck_status(r, 200);
	ck_assert(!jhas(json_object_array_get_idx(r->json, 0), "repository_storage"));
}
END_TEST

START_TEST(test_setting_names_configured_storages)
{
	resp *r = R(api("PUT", "/application/settings", admin_token(),
			"repository_storages[]=default&repository_storages[]=nowhere"));
	ck_body(r, 400, "{\"message\":{\"repository_storages\":[\"can't include: nowhere\"]}}");
	set_storages("repository_storages[]=default&repository_storages[]=second");
	r = R(api("GET", "/application/settings", admin_token(), NULL));
	json_object *list = jget(r->json, "repository_storages");
	ck_assert_int_eq(json_object_array_length(list), 2);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(list, 1)), "second");
	set_storages("repository_storages[]=default");
}
END_TEST

START_TEST(test_spread)
{
	char *user = S(make_user("st", NULL, NULL));
	/* only "second" named: every new project goes there, a fork too */
	set_storages("repository_storages[]=second");
	long long a = create(user, NULL, NULL);
	resp *r = R(api("POST", S(fmt("/projects/%lld/fork", a)), admin_token(), NULL));
	set_storages("repository_storages[]=default");
	ck_status(r, 201);
	ck_assert_str_eq(storage_of(a), "second");
	ck_assert(is_dir(repo_on("storage2", a)));
	long long f = jint(r->json, "id");
	ck_assert_str_eq(storage_of(f), "second");
	ck_assert(is_dir(repo_on("storage2", f)));
	/* both named: both taken (at random: all 16 on one has a chance of 2^-15) */
	set_storages("repository_storages[]=default&repository_storages[]=second");
	long long first = 0, last = 0;
	for (int i = 0; i < 16; i++) {
		long long id = create(user, NULL, NULL);
		first = first ? first : id;
		last = id;
	}
	set_storages("repository_storages[]=default");
	ck_assert_int_eq(sql_int("SELECT count(DISTINCT repository_storage) FROM projects"
				 " WHERE id BETWEEN %lld AND %lld AND creator_id ="
				 " (SELECT creator_id FROM projects WHERE id = %lld)",
				 first, last, first),
			 2);
	/* back to "default" alone */
	ck_assert_str_eq(storage_of(create(user, NULL, NULL)), "default");
}
END_TEST

/* Commits file name with content on master through the API as token. */
static void put_file(long long id, const char *token, const char *name, const char *content,
		     int status)
{
	resp *r = R(api("POST", S(fmt("/projects/%lld/repository/files/%s", id, name)), token,
			S(fmt("branch=master&commit_message=add&content=%s", content))));
	ck_status(r, status);
	if (status == 403)
		ck_assert_str_eq(jstr(r->json, "message"), READ_ONLY);
}

START_TEST(test_git_on_second_storage)
{
	resp *c;
	long long id = create(admin_token(), "repository_storage=second", &c);
	const char *path = jstr(c->json, "path_with_namespace");
	char *out;
	ck_assert_int_eq(sh(&out,
			    "clone -q '%s' a && cd a && echo one > one.txt && git add . && "
			    "git commit -qm one && git push -q origin master",
			    git_url(admin_token(), path)),
			 0);
	free(out);
	ck_assert_int_eq(system(S(fmt("git --git-dir='%s' rev-parse -q --verify master >/dev/null",
				      repo_on("storage2", id)))),
			 0);
	ck_assert(!is_dir(repo_on("storage", id)));
	ck_assert_int_eq(sh(&out, "clone -q '%s' b && cat b/one.txt", git_url(admin_token(), path)),
			 0);
	ck_assert_msg(strstr(out, "one"), "%s", out);
	free(out);
	/* the API reads and writes it there */
	put_file(id, admin_token(), "two.txt", "two", 201);
	resp *r = R(api("GET", S(fmt("/projects/%lld/repository/files/two.txt/raw?ref=master", id)),
			admin_token(), NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "two");
	r = R(api("GET", S(fmt("/projects/%lld/repository/archive.tar", id)), admin_token(), NULL));
	ck_status(r, 200);
	ck_assert_msg(r->body_len > 1024 && memmem(r->body, r->body_len, "one.txt", 7) &&
			      memmem(r->body, r->body_len, "two.txt", 7),
		      "archive of %zu bytes", r->body_len);
	/* push event recorded by the hooks, which found the project on its storage */
	ck_assert(push_job_seen(id, "refs/heads/master", NULL));
}
END_TEST

/* Runs `collabd move-storage args`: its exit status, its output in *out (caller frees). */
static int move_storage(const char *args, char **out)
{
	char *cmd = S(fmt("'%s' move-storage %s 2>&1", getenv("COLLABD_BIN"), args));
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	int st = pclose(p);
	*out = strdup(buf);
	return st;
}

START_TEST(test_move_refusals)
{
	char *path, *out;
	long long id = api_project(admin_token(), "private", &path);
	S(path);
	ck_assert_int_ne(move_storage(S(fmt("%lld nowhere", id)), &out), 0);
	ck_assert_msg(strstr(out, "no storage"), "%s", out);
	free(out);
	ck_assert_int_ne(move_storage("999999999 second", &out), 0);
	free(out);
	ck_assert_int_eq(move_storage(S(fmt("%s default", path)), &out), 0);
	ck_assert_msg(strstr(out, "already"), "%s", out);
	free(out);
	ck_assert_str_eq(storage_of(id), "default");
	ck_assert_int_eq(
		sql_int("SELECT repository_read_only::int FROM projects WHERE id = %lld", id), 0);
}
END_TEST

START_TEST(test_move)
{
	char *path, *out;
	long long id = api_project(admin_token(), "private", &path);
	S(path);
	const char *url = git_url(admin_token(), path);
	put_file(id, admin_token(), "wiki-too.txt", "x", 201);
	ck_assert_int_eq(sh(&out,
			    "clone -q '%s' a && cd a && echo one > one.txt && git add . && "
			    "git commit -qm one && git push -q origin master",
			    url),
			 0);
	free(out);
	resp *r = R(api("POST", S(fmt("/projects/%lld/wikis", id)), admin_token(),
			"title=home&content=hello"));
	ck_status(r, 201);
	char *old = repo_on("storage", id), *new = repo_on("storage2", id);
	char *old_wiki = S(fmt("%.*s.wiki.git", (int)(strlen(old) - 4), old));
	char *new_wiki = S(fmt("%.*s.wiki.git", (int)(strlen(new) - 4), new));
	ck_assert(is_dir(old_wiki));

	/* a push under way (a ref's lock held, as receive-pack holds it while it updates
	 * refs): the move makes the project read-only and waits */
	char *lock = S(fmt("%s/refs/heads/under-way.lock", old));
	FILE *f = fopen(lock, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	char *log = S(fmt("%s/move.out", work));
	char *cmd = S(fmt("'%s' move-storage %lld second > '%s' 2>&1; echo $? >> '%s'",
			  getenv("COLLABD_BIN"), id, log, log));
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	int i;
	for (i = 0; i < 100; i++) {
		if (sql_int("SELECT repository_read_only::int FROM projects WHERE id = %lld", id))
			break;
		usleep(100 * 1000);
	}
	ck_assert_msg(i < 100, "never read-only");
	/* reads go on: clone, API */
	ck_assert_int_eq(sh(&out, "clone -q '%s' b && cat b/one.txt", url), 0);
	free(out);
	r = R(api("GET", S(fmt("/projects/%lld/repository/files/one.txt/raw?ref=master", id)),
		  admin_token(), NULL));
	ck_status(r, 200);
	/* writes are refused: a push over HTTP, the API's files, branches, tags, wiki */
	ck_assert_int_ne(sh(&out, "-C a commit -q --allow-empty -m two && git -C a push origin "
				  "master"),
			 0);
	ck_assert_msg(strstr(out, READ_ONLY), "%s", out);
	free(out);
	put_file(id, admin_token(), "three.txt", "3", 403);
	r = R(api("POST", S(fmt("/projects/%lld/repository/branches", id)), admin_token(),
		  "branch=b1&ref=master"));
	ck_status(r, 403);
	ck_assert_str_eq(jstr(r->json, "message"), READ_ONLY);
	r = R(api("POST", S(fmt("/projects/%lld/repository/tags", id)), admin_token(),
		  "tag_name=t1&ref=master"));
	ck_status(r, 403);
	r = R(api("POST", S(fmt("/projects/%lld/wikis", id)), admin_token(),
		  "title=other&content=x"));
	ck_status(r, 403);
	ck_assert_str_eq(storage_of(id), "default");

	/* the push ends: the move completes */
	ck_assert_int_eq(unlink(lock), 0);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	f = fopen(log, "r");
	ck_assert_ptr_nonnull(f);
	char text[2048];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	ck_assert_msg(strstr(text, "moved from storage default to second") && strstr(text, "\n0\n"),
		      "%s", text);
	ck_assert_str_eq(storage_of(id), "second");
	ck_assert_int_eq(
		sql_int("SELECT repository_read_only::int FROM projects WHERE id = %lld", id), 0);
	ck_assert(is_dir(new) && is_dir(new_wiki));
	ck_assert(!is_dir(old) && !is_dir(old_wiki));
	/* writable again, on the new storage, with what it had */
	ck_assert_int_eq(sh(&out, "-C a pull -q --rebase origin master && git -C a push -q origin "
				  "master"),
			 0);
	free(out);
	ck_assert_int_eq(sh(&out, "clone -q '%s' c && ls c", url), 0);
	ck_assert_msg(strstr(out, "one.txt") && strstr(out, "wiki-too.txt"), "%s", out);
	free(out);
	put_file(id, admin_token(), "four.txt", "4", 201);
	r = R(api("GET", S(fmt("/projects/%lld/wikis/home", id)), admin_token(), NULL));
	ck_status(r, 200);
	ck_assert_str_eq(jstr(r->json, "content"), "hello");
	r = R(api("GET", S(fmt("/projects/%lld", id)), admin_token(), NULL));
	ck_assert_str_eq(jstr(r->json, "repository_storage"), "second");
	/* and back */
	ck_assert_int_eq(move_storage(S(fmt("%s default", path)), &out), 0);
	free(out);
	ck_assert(is_dir(old) && !is_dir(new));
	r = R(api("GET", S(fmt("/projects/%lld/repository/files/four.txt/raw?ref=master", id)),
		  admin_token(), NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "4");
}
END_TEST

/* READS GETs of /projects/:id as the admin, through both instances' workers: each shows
 * repository_storage storage; the number served from a response cache. */
#define READS 16 /* > 2 instances x 3 workers */
static int reads_storage(long long id, const char *storage)
{
	int hits = 0;
	for (int i = 0; i < READS; i++) {
		resp *r = R(api("GET", S(fmt("/projects/%lld", id)), admin_token(), NULL));
		ck_status(r, 200);
		ck_assert_str_eq(jstr(r->json, "repository_storage"), storage);
		const char *h = resp_header(r, "X-Collabd-Cache");
		hits += h && strcmp(h, "hit") == 0;
	}
	return hits;
}

/* The record kept in the response cache follows a move (the project's key, bumped by
 * the move's update of its row). */
START_TEST(test_cache_follows_move)
{
	long long id = create(admin_token(), NULL, NULL);
	ck_assert_int_gt(reads_storage(id, "default"), 0);
	char *out;
	ck_assert_int_eq(move_storage(S(fmt("%lld second", id)), &out), 0);
	free(out);
	reads_storage(id, "second");
}
END_TEST

START_TEST(test_removed_from_its_storage)
{
	resp *r;
	long long id = create(admin_token(), "repository_storage=second", &r);
	char *dir = repo_on("storage2", id);
	ck_assert(is_dir(dir));
	r = R(api("DELETE", S(fmt("/projects/%lld", id)), admin_token(), NULL));
	ck_assert_int_eq(r->status / 100, 2);
	ck_assert(wait_gone(dir));
}
END_TEST

Suite *suite_storages(void)
{
	Suite *s = suite_create("storages");
	TCase *tc = tcase_create("storages");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_admin_chooses_storage);
	tcase_add_test(tc, test_admin_only);
	tcase_add_test(tc, test_setting_names_configured_storages);
	tcase_add_test(tc, test_spread);
	tcase_add_test(tc, test_git_on_second_storage);
	tcase_add_test(tc, test_move_refusals);
	tcase_add_test(tc, test_move);
	tcase_add_test(tc, test_removed_from_its_storage);
	tcase_add_test(tc, test_cache_follows_move);
	suite_add_tcase(s, tc);
	return s;
}
