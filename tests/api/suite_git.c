/* Git over HTTP through nginx: the access question collabd answers (401 asks for
 * credentials, 404 for what the caller may not see, 403 for what they may see but not
 * do), stock git cloning and pushing through git-http-backend, protected branches
 * enforced by the pre-receive hook, and what the post-receive hook records (the default
 * branch of a first push, push events, the push job). */
#include <stdlib.h>
#include <string.h>

#include "client.h"

#include <curl/curl.h>

static char *work; /* a scratch directory for clones, also git's HOME */

/* Strings of the client's helpers, freed at the test's end. */
static char *kept[256];
static int nkept;

static char *T(char *s)
{
	ck_assert_int_lt(nkept, 256);
	kept[nkept++] = s;
	return s;
}

static void setup(void)
{
	work = git_work_new();
}

static void teardown(void)
{
	while (nkept > 0)
		free(kept[--nkept]);
	git_work_remove(work);
}

#define sh(out, ...) git_sh(work, (out), __VA_ARGS__)

/* http://[user:token@]host:port/<path>.git */
static char *git_url(const char *token, const char *path)
{
	const char *base = api_url(); /* http://127.0.0.1:PORT */
	if (!token)
		return fmt("%s/%s.git", base, path);
	return fmt("http://u:%s@%s/%s.git", token, base + strlen("http://"), path);
}

/* GET <path>.git/info/refs?service=... with Basic credentials login:password (password
 * NULL: none). */
static resp *info_refs_as(const char *login, const char *password, const char *path,
			  const char *service)
{
	char *url = fmt("%s/%s.git/info/refs?service=%s", api_url(), path, service);
	char *auth = NULL;
	const char *headers[2] = {NULL, NULL};
	if (password) {
		char *pair = fmt("%s:%s", login, password);
		size_t n = strlen(pair);
		static const char b64[] =
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		char *enc64 = calloc(1, (n + 2) / 3 * 4 + 1);
		size_t o = 0;
		for (size_t i = 0; i < n; i += 3) {
			unsigned v = (unsigned char)pair[i] << 16;
			if (i + 1 < n)
				v |= (unsigned char)pair[i + 1] << 8;
			if (i + 2 < n)
				v |= (unsigned char)pair[i + 2];
			enc64[o++] = b64[(v >> 18) & 63];
			enc64[o++] = b64[(v >> 12) & 63];
			enc64[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
			enc64[o++] = i + 2 < n ? b64[v & 63] : '=';
		}
		auth = fmt("Authorization: Basic %s", enc64);
		headers[0] = auth;
		free(enc64);
		free(pair);
	}
	resp *r = http_request("GET", url, headers, NULL, 0, NULL);
	free(url);
	free(auth);
	return r;
}

/* The same with a token (NULL: no credentials) under a name no user has. */
static resp *info_refs(const char *token, const char *path, const char *service)
{
	return info_refs_as("u", token, path, service);
}

static void add_member(long long project, long long user, int level)
{
	resp *r = api("POST", T(fmt("/projects/%lld/members", project)), admin_token(),
		      T(fmt("user_id=%lld&access_level=%d", user, level)));
	ck_status(r, 201);
	resp_free(r);
}

START_TEST(test_access_question)
{
	long long owner_id, guest_id, reporter_id, stranger_id;
	char *owner = make_user("git", &owner_id, NULL);
	char *guest = make_user("git", &guest_id, NULL);
	char *reporter = make_user("git", &reporter_id, NULL);
	char *stranger = make_user("git", &stranger_id, NULL);
	char *priv, *pub;
	long long priv_id = api_project(owner, "private", &priv);
	api_project(owner, "public", &pub);
	add_member(priv_id, guest_id, 10);
	add_member(priv_id, reporter_id, 20);

	/* public: anyone pulls; pushing asks for credentials */
	resp *r = info_refs(NULL, pub, "git-upload-pack");
	ck_status(r, 200);
	ck_assert_ptr_nonnull(strstr(r->body, "# service=git-upload-pack"));
	resp_free(r);
	r = info_refs(NULL, pub, "git-receive-pack");
	ck_status(r, 401);
	ck_assert_ptr_nonnull(resp_header(r, "WWW-Authenticate"));
	resp_free(r);
	/* private: no credentials, 401 (git prompts); bad ones too */
	r = info_refs(NULL, priv, "git-upload-pack");
	ck_status(r, 401);
	ck_assert_ptr_nonnull(strstr(resp_header(r, "WWW-Authenticate"), "Basic"));
	resp_free(r);
	r = info_refs("not-a-token", priv, "git-upload-pack");
	ck_status(r, 401);
	resp_free(r);
	/* signed in, cannot see it: 404, as a project that does not exist */
	r = info_refs(stranger, priv, "git-upload-pack");
	ck_status(r, 404);
	resp_free(r);
	r = info_refs(stranger, "nobody/nothing", "git-upload-pack");
	ck_status(r, 404);
	resp_free(r);
	/* a guest sees the private project but may not read its code: 403 */
	r = info_refs(guest, priv, "git-upload-pack");
	ck_status(r, 403);
	resp_free(r);
	/* a reporter pulls, does not push */
	r = info_refs(reporter, priv, "git-upload-pack");
	ck_status(r, 200);
	resp_free(r);
	r = info_refs(reporter, priv, "git-receive-pack");
	ck_status(r, 403);
	resp_free(r);
	/* the owner pushes; the path is matched without regard to case, with or without .git */
	char *upper = strdup(priv);
	for (char *p = upper; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	r = info_refs(owner, upper, "git-receive-pack");
	ck_status(r, 200);
	ck_assert_ptr_nonnull(strstr(r->body, "# service=git-receive-pack"));
	resp_free(r);
	/* a blocked user is nobody */
	resp *b = api("POST", T(fmt("/users/%lld/block", reporter_id)), admin_token(), NULL);
	ck_status(b, 201);
	resp_free(b);
	r = info_refs(reporter, priv, "git-upload-pack");
	ck_status(r, 401);
	resp_free(r);
	/* the internal route is not reachable from outside */
	r = http_request("GET", T(fmt("%s/_internal/git-auth", api_url())), NULL, NULL, 0, NULL);
	ck_status(r, 404);
	resp_free(r);
	free(upper);
	free(owner);
	free(guest);
	free(reporter);
	free(stranger);
	free(priv);
	free(pub);
}
END_TEST

/* info/refs is authorised for the service its query names, and git-http-backend serves
 * the last "service" parameter: a query naming two (a reporter asking to pull, then to
 * push), or a service that is neither of git's two, is refused, whoever asks; git's
 * answer (its "# service=" line) never comes. */
START_TEST(test_one_service)
{
	long long owner_id, reporter_id;
	char *owner = make_user("git", &owner_id, NULL);
	char *reporter = make_user("git", &reporter_id, NULL);
	char *priv;
	long long priv_id = api_project(owner, "private", &priv);
	add_member(priv_id, reporter_id, 20);
	static const struct {
		const char *who, *service;
	} refused[] = {
		{"reporter", "git-upload-pack&service=git-receive-pack"},
		{"reporter", "git-receive-pack&service=git-upload-pack"},
		{"reporter", "git-upload-pack&%73ervice=git-receive-pack"},
		{"reporter", "git-upload-pack&service"},
		{"owner", "git-upload-pack&service=git-receive-pack"},
		{"owner", "git-upload-pack&service=git-upload-pack"},
		{"owner", "git-upload-archive"},
		{"owner", "git-receive-pack%00"},
		{"owner", ""},
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		const char *token = strcmp(refused[i].who, "owner") == 0 ? owner : reporter;
		resp *r = info_refs(token, priv, refused[i].service);
		ck_assert_msg(r->status == 403, "%s, service=%s: %ld", refused[i].who,
			      refused[i].service, r->status);
		ck_assert_msg(!strstr(r->body, "# service="), "%s, service=%s: git answered",
			      refused[i].who, refused[i].service);
		resp_free(r);
	}
	/* one service, and other parameters beside it, as before */
	resp *r = info_refs(reporter, priv, "git-upload-pack&x=1");
	ck_status(r, 200);
	ck_assert_ptr_nonnull(strstr(r->body, "# service=git-upload-pack"));
	resp_free(r);
	r = info_refs(reporter, priv, "git-receive-pack");
	ck_status(r, 403);
	resp_free(r);
	r = info_refs(owner, priv, "git-receive-pack");
	ck_status(r, 200);
	ck_assert_ptr_nonnull(strstr(r->body, "# service=git-receive-pack"));
	resp_free(r);
	free(owner);
	free(reporter);
	free(priv);
}
END_TEST

/* Basic credentials: a token is tried before the username's password (GitLab 10's order;
 * the password's hash is the slow check): a user whose password is another user's token
 * is that other user with it. The password still works when no token matches. */
START_TEST(test_token_before_password)
{
	long long owner_id, reader_id, other_id;
	char *owner = make_user("git", &owner_id, NULL);
	char *reader = make_user("git", &reader_id, NULL);
	char *other_name = NULL;
	char *other = make_user("git", &other_id, &other_name);
	char *priv, *mine;
	long long priv_id = api_project(owner, "private", &priv);
	long long mine_id = api_project(owner, "private", &mine);
	add_member(priv_id, reader_id, 20);
	add_member(mine_id, other_id, 20);
	/* other's password: reader's token */
	resp *r = api("PUT", T(fmt("/users/%lld", other_id)), admin_token(),
		      T(fmt("password=%s", reader)));
	ck_status(r, 200);
	resp_free(r);
	/* other:<reader's token> is reader (who may read priv), not other (who may not) */
	r = info_refs_as(other_name, reader, priv, "git-upload-pack");
	ck_status(r, 200);
	resp_free(r);
	r = info_refs_as(other_name, reader, mine, "git-upload-pack");
	ck_status(r, 404);
	resp_free(r);
	/* a password that is no token: the user's own */
	r = api("PUT", T(fmt("/users/%lld", other_id)), admin_token(), "password=plain-secret-42");
	ck_status(r, 200);
	resp_free(r);
	r = info_refs_as(other_name, "plain-secret-42", mine, "git-upload-pack");
	ck_status(r, 200);
	resp_free(r);
	r = info_refs_as(other_name, "plain-secret-42", priv, "git-upload-pack");
	ck_status(r, 404);
	resp_free(r);
	r = info_refs_as(other_name, "plain-secret-43", mine, "git-upload-pack");
	ck_status(r, 401);
	resp_free(r);
	free(owner);
	free(reader);
	free(other);
	free(other_name);
	free(priv);
	free(mine);
}
END_TEST

START_TEST(test_clone_push_and_record)
{
	long long owner_id, dev_id, reporter_id;
	char *owner = make_user("git", &owner_id, NULL);
	char *dev = make_user("git", &dev_id, NULL);
	char *reporter = make_user("git", &reporter_id, NULL);
	char *path;
	long long id = api_project(owner, "private", &path);
	add_member(id, dev_id, 30);
	add_member(id, reporter_id, 20);
	char *out;

	/* an empty repository clones */
	ck_assert_int_eq(sh(&out, "clone -q '%s' a", T(git_url(dev, path))), 0);
	free(out);
	/* the developer's first push names the default branch and is recorded */
	ck_assert_int_eq(sh(&out, "-C a commit -q --allow-empty -m 'First commit' && "
				  "git -C a commit -q --allow-empty -m 'Second commit' && "
				  "git -C a push -q origin master"),
			 0);
	free(out);
	resp *r = api("GET", T(fmt("/projects/%lld", id)), owner, NULL);
	ck_status(r, 200);
	ck_assert_str_eq(jstr(r->json, "default_branch"), "master");
	resp_free(r);
	r = api("GET", T(fmt("/projects/%lld/events", id)), owner, NULL);
	ck_status(r, 200);
	json_object *e = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(e, "action_name"), "pushed new");
	json_object *pd = jget(e, "push_data");
	ck_assert_int_eq(jint(pd, "commit_count"), 2);
	ck_assert_str_eq(jstr(pd, "action"), "created");
	ck_assert_str_eq(jstr(pd, "ref_type"), "branch");
	ck_assert_str_eq(jstr(pd, "ref"), "master");
	ck_assert_str_eq(jstr(pd, "commit_title"), "Second commit");
	ck_assert(jnull(pd, "commit_from"));
	ck_assert_int_eq(jint(e, "author_id"), dev_id);
	resp_free(r);
	ck_assert(push_job_seen(id, "refs/heads/master", NULL));
	/* a second push: pushed to, one commit, from the old head */
	ck_assert_int_eq(sh(&out, "-C a commit -q --allow-empty -m 'Third' && git -C a push -q"),
			 0);
	free(out);
	r = api("GET", T(fmt("/projects/%lld/events", id)), owner, NULL);
	e = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(e, "action_name"), "pushed to");
	ck_assert_int_eq(jint(jget(e, "push_data"), "commit_count"), 1);
	ck_assert(!jnull(jget(e, "push_data"), "commit_from"));
	resp_free(r);
	/* a reporter clones what was pushed, and cannot push */
	ck_assert_int_eq(sh(&out, "clone -q '%s' b", T(git_url(reporter, path))), 0);
	free(out);
	ck_assert_int_eq(sh(&out, "-C b log --format=%%s -1"), 0);
	ck_assert_str_eq(out, "Third\n");
	free(out);
	ck_assert_int_ne(sh(&out, "-C b commit -q --allow-empty -m no && git -C b push -q"), 0);
	free(out);
	/* anonymous clone of a private project fails */
	ck_assert_int_ne(sh(&out, "clone -q '%s' c", T(git_url(NULL, path))), 0);
	free(out);
	free(owner);
	free(dev);
	free(reporter);
	free(path);
}
END_TEST

START_TEST(test_protected_branch)
{
	long long owner_id, dev_id, master_id;
	char *owner = make_user("git", &owner_id, NULL);
	char *dev = make_user("git", &dev_id, NULL);
	char *master = make_user("git", &master_id, NULL);
	char *path;
	long long id = api_project(owner, "private", &path);
	add_member(id, dev_id, 30);
	add_member(id, master_id, 40);
	char *out;
	ck_assert_int_eq(sh(&out,
			    "clone -q '%s' m && git -C m commit -q --allow-empty -m one && "
			    "git -C m push -q origin master && "
			    "git -C m push -q origin master:feature",
			    T(git_url(master, path))),
			 0);
	free(out);
	free(sql_value("INSERT INTO protected_branches (project_id, name) VALUES (%lld, 'master')",
		       id));
	/* a developer may not push to it; to another branch they may */
	ck_assert_int_eq(sh(&out, "clone -q '%s' d && git -C d commit -q --allow-empty -m two",
			    T(git_url(dev, path))),
			 0);
	free(out);
	ck_assert_int_ne(sh(&out, "-C d push origin master"), 0);
	ck_assert_msg(strstr(out, "not allowed to push code to protected branches"), "%s", out);
	free(out);
	ck_assert_int_eq(sh(&out, "-C d push -q origin master:feature"), 0);
	free(out);
	/* a master pushes to it, but never forces it nor deletes it */
	ck_assert_int_eq(sh(&out, "-C m commit -q --allow-empty -m three && git -C m push -q"), 0);
	free(out);
	ck_assert_int_eq(sh(&out, "-C m reset -q --hard HEAD~1 && "
				  "git -C m commit -q --allow-empty -m rewritten"),
			 0);
	free(out);
	ck_assert_int_ne(sh(&out, "-C m push -f origin master"), 0);
	ck_assert_msg(strstr(out, "not allowed to force push"), "%s", out);
	free(out);
	ck_assert_int_ne(sh(&out, "-C m push origin :master"), 0);
	ck_assert_msg(strstr(out, "not allowed to delete protected branches"), "%s", out);
	free(out);
	/* the branch is where the last allowed push left it */
	ck_assert_int_eq(sh(&out, "ls-remote '%s' refs/heads/master", T(git_url(owner, path))), 0);
	char *head = NULL;
	ck_assert_int_eq(sh(&head, "-C m rev-parse origin/master"), 0);
	ck_assert_int_eq(strncmp(out, head, 40), 0);
	free(head);
	free(out);
	/* a wildcard protects what it matches: a developer may not force feature-x either */
	free(sql_value("INSERT INTO protected_branches (project_id, name, push_access_level)"
		       " VALUES (%lld, 'feat*', 30)",
		       id));
	ck_assert_int_eq(sh(&out, "-C d commit -q --allow-empty -m four && "
				  "git -C d push -q origin HEAD:feature"),
			 0);
	free(out);
	ck_assert_int_ne(sh(&out, "-C d push -f origin HEAD~2:feature"), 0);
	ck_assert_msg(strstr(out, "not allowed to force push"), "%s", out);
	free(out);
	free(owner);
	free(dev);
	free(master);
	free(path);
}
END_TEST

Suite *suite_git(void)
{
	Suite *s = suite_create("git");
	TCase *tc = tcase_create("http");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_access_question);
	tcase_add_test(tc, test_token_before_password);
	tcase_add_test(tc, test_one_service);
	tcase_add_test(tc, test_clone_push_and_record);
	tcase_add_test(tc, test_protected_branch);
	suite_add_tcase(s, tc);
	return s;
}
