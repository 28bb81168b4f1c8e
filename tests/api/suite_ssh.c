/* Git over SSH through the stack's sshd (tests/api/run, COLLABD_SSH_PORT): keys added
 * through POST /user/keys are found by `collabd authorized-keys`, whose forced command
 * `collabd shell key-N` serves stock git under the same rules as git over HTTP (clone,
 * push, protected branches, not found for what the caller may not see), and refuses
 * removed keys, blocked users, interactive logins and any other command. Deploy keys
 * (POST /projects/:id/deploy_keys) reach the projects they are enabled on, and nothing
 * else, and push where can_push, but to no protected branch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"

static char *work; /* scratch directory: clones, keys, git's HOME */

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
	ck_assert_msg(getenv("COLLABD_SSH_PORT"), "no sshd in the stack (COLLABD_SSH_PORT)");
	work = git_work_new();
}

static void teardown(void)
{
	while (nkept > 0)
		free(kept[--nkept]);
	git_work_remove(work);
}

#define sh(out, ...) git_sh(work, (out), __VA_ARGS__)

/* Runs a shell command line in the scratch directory: its exit status, its output
 * (stdout and stderr) in *out (caller frees). */
static int run(char **out, const char *cmd)
{
	char *full = T(fmt("cd '%s' && (%s) </dev/null 2>&1", work, cmd));
	FILE *p = popen(full, "r");
	ck_assert_ptr_nonnull(p);
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 1024)
			buf = realloc(buf, cap *= 2);
	}
	buf[len] = '\0';
	int st = pclose(p);
	/* collabd's commands (a sanitizer build in the tests) report nothing on stderr */
	ck_assert_msg(!strstr(buf, "Sanitizer") && !strstr(buf, "runtime error"), "%s: %s", cmd,
		      buf);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The ssh command of key name (a key file in the scratch directory). */
static char *ssh_command(const char *name)
{
	return T(fmt("ssh -p %s -i %s/%s -o StrictHostKeyChecking=no "
		     "-o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes -o BatchMode=yes "
		     "-o LogLevel=ERROR",
		     getenv("COLLABD_SSH_PORT"), work, name));
}

/* The sshd's login: "user@127.0.0.1". */
static const char *ssh_login(void)
{
	const char *u = getenv("COLLABD_SSH_USER");
	return T(fmt("%s@127.0.0.1", u ? u : "root"));
}

/* A new ed25519 key in the scratch directory as name and name.pub: its public line
 * (caller frees), and its base64 blob in *b64 unless NULL (caller frees). */
static char *new_key(const char *name, char **b64)
{
	char *out;
	ck_assert_int_eq(
		run(&out, T(fmt("ssh-keygen -q -t ed25519 -N '' -C '%s' -f '%s'", name, name))), 0);
	free(out);
	char *path = T(fmt("%s/%s.pub", work, name));
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char line[512];
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	if (b64) {
		char *s = strchr(line, ' ') + 1;
		*b64 = strndup(s, strcspn(s, " "));
	}
	return strdup(line);
}

/* A new key of the token's user, added with POST /user/keys: its id. */
static long long add_key(const char *token, const char *name)
{
	char *pub = T(new_key(name, NULL));
	resp *r = api("POST", "/user/keys", token, T(fmt("title=%s&key=%s", name, T(enc(pub)))));
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	resp_free(r);
	return id;
}

static void add_member(long long project, long long user, int level)
{
	resp *r = api("POST", T(fmt("/projects/%lld/members", project)), admin_token(),
		      T(fmt("user_id=%lld&access_level=%d", user, level)));
	ck_status(r, 201);
	resp_free(r);
}

/* scp-like address of a project (git sends 'path.git') */
static char *scp_url(const char *path)
{
	return T(fmt("%s:%s.git", ssh_login(), path));
}

/* ssh:// address (git sends '/path.git'; here without .git) */
static char *ssh_url(const char *path)
{
	return T(fmt("ssh://%s:%s/%s", ssh_login(), getenv("COLLABD_SSH_PORT"), path));
}

/* `git clone` over SSH with key name into dir; the clone keeps the key for its pushes. */
static int clone_as(char **out, const char *name, const char *url, const char *dir)
{
	return sh(out, "clone -q -c core.sshCommand='%s' '%s' %s", ssh_command(name), url, dir);
}

/* `ssh` with key name running remote (one shell word list, as typed). */
static int ssh_as(char **out, const char *name, const char *remote)
{
	return run(out, T(fmt("%s %s %s", ssh_command(name), ssh_login(), remote)));
}

/* `collabd authorized-keys TYPE B64` with the stack's first configuration. */
static int authorized_keys(char **out, const char *type, const char *b64)
{
	return run(out, T(fmt("'%s' -c '%s/collabd-1.conf' authorized-keys '%s' '%s'",
			      getenv("COLLABD_BIN"), getenv("COLLABD_DIR"), type, b64)));
}

/* `collabd shell key-N` run directly with SSH_ORIGINAL_COMMAND (no sshd in between). */
static int shell_direct(char **out, long long key, const char *command)
{
	return run(out, T(fmt("SSH_ORIGINAL_COMMAND=\"%s\" '%s' -c '%s/collabd-1.conf' shell "
			      "key-%lld",
			      command, getenv("COLLABD_BIN"), getenv("COLLABD_DIR"), key)));
}

START_TEST(test_authorized_keys)
{
	long long uid;
	char *token = T(make_user("ssh", &uid, NULL));
	char *b64;
	char *pub = T(new_key("known", &b64));
	T(b64);
	resp *r = api("POST", "/user/keys", token, T(fmt("title=known&key=%s", T(enc(pub)))));
	ck_status(r, 201);
	long long kid = jint(r->json, "id");
	resp_free(r);

	char bin[4096], conf[4096];
	ck_assert_ptr_nonnull(realpath(getenv("COLLABD_BIN"), bin));
	ck_assert_ptr_nonnull(realpath(T(fmt("%s/collabd-1.conf", getenv("COLLABD_DIR"))), conf));
	char *out;
	ck_assert_int_eq(authorized_keys(&out, "ssh-ed25519", b64), 0);
	char *want = T(fmt("command=\"%s -c %s shell key-%lld\",no-port-forwarding,"
			   "no-X11-forwarding,no-agent-forwarding,no-pty ssh-ed25519 %s\n",
			   bin, conf, kid, b64));
	ck_assert_str_eq(out, want);
	free(out);

	/* unknown key: nothing, and success (sshd then tries the next key) */
	char *other;
	free(new_key("unknown", &other));
	T(other);
	ck_assert_int_eq(authorized_keys(&out, "ssh-ed25519", other), 0);
	ck_assert_str_eq(out, "");
	free(out);
	/* the known blob named as another type, or not a key at all: nothing */
	ck_assert_int_eq(authorized_keys(&out, "ssh-rsa", b64), 0);
	ck_assert_str_eq(out, "");
	free(out);
	ck_assert_int_eq(authorized_keys(&out, "ssh-ed25519", "bm90IGEga2V5"), 0);
	ck_assert_str_eq(out, "");
	free(out);
	/* a blocked user's key: nothing; unblocked, it is back */
	r = api("POST", T(fmt("/users/%lld/block", uid)), admin_token(), NULL);
	ck_status(r, 201);
	resp_free(r);
	ck_assert_int_eq(authorized_keys(&out, "ssh-ed25519", b64), 0);
	ck_assert_str_eq(out, "");
	free(out);
	r = api("POST", T(fmt("/users/%lld/unblock", uid)), admin_token(), NULL);
	ck_status(r, 201);
	resp_free(r);
	ck_assert_int_eq(authorized_keys(&out, "ssh-ed25519", b64), 0);
	ck_assert_str_eq(out, want);
	free(out);
	/* a removed key: nothing */
	r = api("DELETE", T(fmt("/user/keys/%lld", kid)), token, NULL);
	ck_assert_int_lt(r->status, 300);
	resp_free(r);
	ck_assert_int_eq(authorized_keys(&out, "ssh-ed25519", b64), 0);
	ck_assert_str_eq(out, "");
	free(out);
}
END_TEST

START_TEST(test_clone_and_push)
{
	long long owner_id, dev_id, reporter_id, stranger_id;
	char *owner = T(make_user("ssh", &owner_id, NULL));
	char *dev = T(make_user("ssh", &dev_id, NULL));
	char *reporter = T(make_user("ssh", &reporter_id, NULL));
	char *stranger = T(make_user("ssh", &stranger_id, NULL));
	char *priv, *pub;
	long long id = api_project(owner, "private", &priv);
	T(priv);
	api_project(owner, "public", &pub);
	T(pub);
	add_member(id, dev_id, 30);
	add_member(id, reporter_id, 20);
	add_key(dev, "dev");
	add_key(reporter, "reporter");
	add_key(stranger, "stranger");
	char *out;

	/* the developer clones the empty repository and pushes two commits */
	ck_assert_msg(clone_as(&out, "dev", scp_url(priv), "d") == 0, "%s", out);
	free(out);
	ck_assert_msg(sh(&out, "-C d commit -q --allow-empty -m 'First commit' && "
			       "git -C d commit -q --allow-empty -m 'Over SSH' && "
			       "git -C d push -q origin master") == 0,
		      "%s", out);
	free(out);
	/* at once in the API: the default branch, the branch, the push event */
	resp *r = api("GET", T(fmt("/projects/%lld", id)), owner, NULL);
	ck_status(r, 200);
	ck_jstr(r, "default_branch", "master");
	resp_free(r);
	r = api("GET", T(fmt("/projects/%lld/repository/branches", id)), owner, NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	json_object *b = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(b, "name"), "master");
	ck_assert_str_eq(jstr(jget(b, "commit"), "title"), "Over SSH");
	resp_free(r);
	r = api("GET", T(fmt("/projects/%lld/events", id)), owner, NULL);
	ck_status(r, 200);
	json_object *e = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(e, "action_name"), "pushed new");
	ck_assert_int_eq(jint(e, "author_id"), dev_id);
	ck_assert_int_eq(jint(jget(e, "push_data"), "commit_count"), 2);
	ck_assert_str_eq(jstr(jget(e, "push_data"), "ref"), "master");
	resp_free(r);
	ck_assert(push_job_seen(id, "refs/heads/master", NULL));

	/* the reporter clones (ssh://, leading slash, no .git, other case), cannot push */
	char *upper = T(strdup(priv));
	for (char *p = upper; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	ck_assert_msg(clone_as(&out, "reporter", ssh_url(upper), "r") == 0, "%s", out);
	free(out);
	ck_assert_int_eq(sh(&out, "-C r log --format=%%s -1"), 0);
	ck_assert_str_eq(out, "Over SSH\n");
	free(out);
	ck_assert_int_ne(
		sh(&out, "-C r commit -q --allow-empty -m no && git -C r push origin master"), 0);
	ck_assert_msg(strstr(out, "You are not allowed to push code to this project."), "%s", out);
	free(out);
	/* a non-member: the private project is not found; the public one clones */
	ck_assert_int_ne(clone_as(&out, "stranger", scp_url(priv), "s"), 0);
	ck_assert_msg(strstr(out, "The project you were looking for could not be found."), "%s",
		      out);
	free(out);
	ck_assert_msg(clone_as(&out, "stranger", scp_url(pub), "s") == 0, "%s", out);
	free(out);
}
END_TEST

START_TEST(test_protected_branch)
{
	long long owner_id, dev_id;
	char *owner = T(make_user("ssh", &owner_id, NULL));
	char *dev = T(make_user("ssh", &dev_id, NULL));
	char *path;
	long long id = api_project(owner, "private", &path);
	T(path);
	add_member(id, dev_id, 30);
	add_key(owner, "owner");
	add_key(dev, "dev");
	char *out;
	ck_assert_msg(clone_as(&out, "owner", scp_url(path), "m") == 0, "%s", out);
	free(out);
	ck_assert_int_eq(sh(&out, "-C m commit -q --allow-empty -m one && "
				  "git -C m push -q origin master"),
			 0);
	free(out);
	free(sql_value("INSERT INTO protected_branches (project_id, name) VALUES (%lld, 'master')",
		       id));
	ck_assert_msg(clone_as(&out, "dev", scp_url(path), "d") == 0, "%s", out);
	free(out);
	ck_assert_int_ne(sh(&out, "-C d commit -q --allow-empty -m two && "
				  "git -C d push origin master"),
			 0);
	ck_assert_msg(strstr(out, "not allowed to push code to protected branches"), "%s", out);
	free(out);
	/* master stays where the owner left it */
	resp *r = api("GET", T(fmt("/projects/%lld/repository/branches/master", id)), owner, NULL);
	ck_status(r, 200);
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "title"), "one");
	resp_free(r);
}
END_TEST

START_TEST(test_removed_key_and_blocked_user)
{
	long long owner_id, user_id;
	char *owner = T(make_user("ssh", &owner_id, NULL));
	char *user = T(make_user("ssh", &user_id, NULL));
	char *path;
	long long id = api_project(owner, "private", &path);
	T(path);
	add_member(id, user_id, 30);
	long long owner_key = add_key(owner, "owner");
	long long user_key = add_key(user, "user");
	char *out;
	ck_assert_msg(clone_as(&out, "owner", scp_url(path), "a") == 0, "%s", out);
	free(out);
	ck_assert_msg(clone_as(&out, "user", scp_url(path), "b") == 0, "%s", out);
	free(out);

	/* a removed key is refused by sshd, and by the shell */
	resp *r = api("DELETE", T(fmt("/user/keys/%lld", owner_key)), owner, NULL);
	ck_assert_int_lt(r->status, 300);
	resp_free(r);
	ck_assert_int_ne(clone_as(&out, "owner", scp_url(path), "c"), 0);
	ck_assert_msg(strstr(out, "Permission denied"), "%s", out);
	free(out);
	ck_assert_int_ne(shell_direct(&out, owner_key, T(fmt("git-upload-pack '%s.git'", path))),
			 0);
	ck_assert_msg(strstr(out, "This SSH key is not known"), "%s", out);
	free(out);

	/* a blocked user's key likewise */
	r = api("POST", T(fmt("/users/%lld/block", user_id)), admin_token(), NULL);
	ck_status(r, 201);
	resp_free(r);
	ck_assert_int_ne(clone_as(&out, "user", scp_url(path), "c"), 0);
	ck_assert_msg(strstr(out, "Permission denied"), "%s", out);
	free(out);
	ck_assert_int_ne(shell_direct(&out, user_key, T(fmt("git-upload-pack '%s.git'", path))), 0);
	ck_assert_msg(strstr(out, "Your account has been blocked."), "%s", out);
	free(out);
}
END_TEST

START_TEST(test_other_commands)
{
	long long uid;
	char *token = T(make_user("ssh", &uid, NULL));
	add_key(token, "k");
	char *out;
	/* an interactive login */
	ck_assert_int_ne(ssh_as(&out, "k", ""), 0);
	ck_assert_msg(strstr(out, "provides no shell access"), "%s", out);
	free(out);
	/* other commands and paths (tests/unit/test_auth.c has the parser's cases) */
	static const char *const refused[] = {
		"ls",
		"\"git-upload-pack '../../etc'\"",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		ck_assert_int_ne(ssh_as(&out, "k", refused[i]), 0);
		ck_assert_msg(strstr(out, "Disallowed command"), "%s: %s", refused[i], out);
		free(out);
	}
	/* no shell reads the argument: a path that would run something is only not found */
	char *marker = T(fmt("%s/ran", work));
	ck_assert_int_ne(
		ssh_as(&out, "k", T(fmt("\"git-upload-pack 'x/\\$(touch %s).git'\"", marker))), 0);
	ck_assert_msg(strstr(out, "could not be found"), "%s", out);
	free(out);
	struct stat st;
	ck_assert_int_ne(stat(marker, &st), 0);
}
END_TEST

/* A new key name added as a deploy key of project (POST /projects/:id/deploy_keys) by
 * the token's user, with can_push: its id. */
static long long add_deploy_key(const char *token, long long project, const char *name,
				bool can_push)
{
	char *pub = T(new_key(name, NULL));
	resp *r = api("POST", T(fmt("/projects/%lld/deploy_keys", project)), token,
		      T(fmt("title=%s&key=%s&can_push=%s", name, T(enc(pub)),
			    can_push ? "true" : "false")));
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	resp_free(r);
	return id;
}

START_TEST(test_deploy_key_authorized_keys)
{
	long long uid;
	char *owner = T(make_user("ssh", &uid, NULL));
	long long id = api_project(owner, "private", NULL);
	char *b64;
	char *pub = T(new_key("deploy", &b64));
	T(b64);
	resp *r = api("POST", T(fmt("/projects/%lld/deploy_keys", id)), owner,
		      T(fmt("title=deploy&key=%s", T(enc(pub)))));
	ck_status(r, 201);
	long long kid = jint(r->json, "id");
	resp_free(r);
	char bin[4096], conf[4096];
	ck_assert_ptr_nonnull(realpath(getenv("COLLABD_BIN"), bin));
	ck_assert_ptr_nonnull(realpath(T(fmt("%s/collabd-1.conf", getenv("COLLABD_DIR"))), conf));
	char *out;
	ck_assert_int_eq(authorized_keys(&out, "ssh-ed25519", b64), 0);
	ck_assert_str_eq(out, T(fmt("command=\"%s -c %s shell key-%lld\",no-port-forwarding,"
				    "no-X11-forwarding,no-agent-forwarding,no-pty ssh-ed25519 %s\n",
				    bin, conf, kid, b64)));
	free(out);
	/* its creator blocked: a deploy key is no user's, it stays */
	r = api("POST", T(fmt("/users/%lld/block", uid)), admin_token(), NULL);
	ck_status(r, 201);
	resp_free(r);
	ck_assert_int_eq(authorized_keys(&out, "ssh-ed25519", b64), 0);
	ck_assert_msg(strstr(out, T(fmt("shell key-%lld\"", kid))), "%s", out);
	free(out);
	/* off its project (its last): gone */
	r = api("DELETE", T(fmt("/projects/%lld/deploy_keys/%lld", id, kid)), admin_token(), NULL);
	ck_status(r, 204);
	resp_free(r);
	ck_assert_int_eq(authorized_keys(&out, "ssh-ed25519", b64), 0);
	ck_assert_str_eq(out, "");
	free(out);
	ck_assert_int_ne(shell_direct(&out, kid, "git-upload-pack 'a/b.git'"), 0);
	ck_assert_msg(strstr(out, "This SSH key is not known"), "%s", out);
	free(out);
}
END_TEST

START_TEST(test_deploy_key_clone_and_push)
{
	long long owner_id, other_id;
	char *owner = T(make_user("ssh", &owner_id, NULL));
	char *other = T(make_user("ssh", &other_id, NULL));
	char *path, *elsewhere, *pub;
	long long id = api_project(owner, "private", &path);
	T(path);
	api_project(owner, "private", &elsewhere);
	T(elsewhere);
	long long pub_id = api_project(other, "public", &pub);
	T(pub);
	add_key(owner, "owner");
	add_key(other, "other");
	char *out;
	/* something to clone, in the project and in the public one */
	ck_assert_msg(clone_as(&out, "owner", scp_url(path), "o") == 0, "%s", out);
	free(out);
	ck_assert_int_eq(sh(&out, "-C o commit -q --allow-empty -m one && "
				  "git -C o push -q origin master"),
			 0);
	free(out);
	ck_assert_msg(clone_as(&out, "other", scp_url(pub), "p") == 0, "%s", out);
	free(out);
	ck_assert_int_eq(sh(&out, "-C p commit -q --allow-empty -m pub && "
				  "git -C p push -q origin master"),
			 0);
	free(out);

	long long key = add_deploy_key(owner, id, "deploy", false);
	/* it clones the private project it is enabled on */
	ck_assert_msg(clone_as(&out, "deploy", scp_url(path), "d") == 0, "%s", out);
	free(out);
	ck_assert_int_eq(sh(&out, "-C d log --format=%%s -1"), 0);
	ck_assert_str_eq(out, "one\n");
	free(out);
	/* nothing else: another private project of its creator, a public project, a wiki */
	ck_assert_int_ne(clone_as(&out, "deploy", scp_url(elsewhere), "e"), 0);
	ck_assert_msg(strstr(out, "The project you were looking for could not be found."), "%s",
		      out);
	free(out);
	ck_assert_int_ne(clone_as(&out, "deploy", scp_url(pub), "e"), 0);
	ck_assert_msg(strstr(out, "The project you were looking for could not be found."), "%s",
		      out);
	free(out);
	ck_assert_int_ne(clone_as(&out, "deploy", scp_url(T(fmt("%s.wiki", path))), "e"), 0);
	ck_assert_msg(strstr(out, "You are not allowed to download code from this project."), "%s",
		      out);
	free(out);
	/* an interactive login is nobody's */
	ck_assert_int_ne(ssh_as(&out, "deploy", ""), 0);
	ck_assert_msg(strstr(out, "Welcome to GitLab, Anonymous!"), "%s", out);
	free(out);

	/* without can_push: no push */
	ck_assert_int_ne(sh(&out, "-C d commit -q --allow-empty -m two && "
				  "git -C d push origin master"),
			 0);
	ck_assert_msg(strstr(out, "This deploy key does not have write access to this project."),
		      "%s", out);
	free(out);
	/* with it: pushes, recorded as its creator's */
	resp *r = api("PUT", T(fmt("/projects/%lld/deploy_keys/%lld", id, key)), owner,
		      "can_push=true");
	ck_status(r, 200);
	resp_free(r);
	ck_assert_msg(sh(&out, "-C d push -q origin master") == 0, "%s", out);
	free(out);
	r = api("GET", T(fmt("/projects/%lld/repository/branches/master", id)), owner, NULL);
	ck_status(r, 200);
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "title"), "two");
	resp_free(r);
	r = api("GET", T(fmt("/projects/%lld/events", id)), owner, NULL);
	ck_status(r, 200);
	json_object *e = json_object_array_get_idx(r->json, 0);
	ck_assert_str_eq(jstr(e, "action_name"), "pushed to");
	ck_assert_int_eq(jint(e, "author_id"), owner_id);
	resp_free(r);
	/* can_push is per project: enabled read-only on the public one (by a master of both),
	 * it may clone it, not push there */
	add_member(pub_id, owner_id, 40);
	r = api("POST", T(fmt("/projects/%lld/deploy_keys/%lld/enable", pub_id, key)), owner, NULL);
	ck_status(r, 201);
	resp_free(r);
	ck_assert_msg(clone_as(&out, "deploy", scp_url(pub), "q") == 0, "%s", out);
	free(out);
	ck_assert_int_ne(sh(&out, "-C q commit -q --allow-empty -m no && "
				  "git -C q push origin master"),
			 0);
	ck_assert_msg(strstr(out, "This deploy key does not have write access to this project."),
		      "%s", out);
	free(out);

	/* a protected branch: refused, however the client names itself; other branches go */
	free(sql_value("INSERT INTO protected_branches (project_id, name) VALUES (%lld, 'master')",
		       id));
	ck_assert_int_ne(sh(&out, "-C d commit -q --allow-empty -m three && "
				  "git -C d -c core.sshCommand='%s -o SetEnv=GL_ID=user-%lld' "
				  "push origin master",
			    ssh_command("deploy"), owner_id),
			 0);
	ck_assert_msg(strstr(out, "not allowed to push code to protected branches"), "%s", out);
	free(out);
	ck_assert_int_ne(sh(&out, "-C d push origin :master"), 0);
	ck_assert_msg(strstr(out, "not allowed to delete protected branches"), "%s", out);
	free(out);
	ck_assert_msg(sh(&out, "-C d push -q origin master:feature") == 0, "%s", out);
	free(out);
	r = api("GET", T(fmt("/projects/%lld/repository/branches/master", id)), owner, NULL);
	ck_status(r, 200);
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "title"), "two");
	resp_free(r);
	r = api("GET", T(fmt("/projects/%lld/repository/branches/feature", id)), owner, NULL);
	ck_status(r, 200);
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "title"), "three");
	resp_free(r);

	/* taken off the project: nothing there any more */
	r = api("DELETE", T(fmt("/projects/%lld/deploy_keys/%lld", id, key)), owner, NULL);
	ck_status(r, 204);
	resp_free(r);
	ck_assert_int_ne(clone_as(&out, "deploy", scp_url(path), "f"), 0);
	ck_assert_msg(strstr(out, "The project you were looking for could not be found."), "%s",
		      out);
	free(out);
}
END_TEST

/* `collabd hook pre-receive` run directly in project's repository with GL_ID gl_id and
 * one update of refs/heads/branch (a new branch at the repository's HEAD commit). */
static int pre_receive(char **out, long long project, const char *gl_id, const char *branch)
{
	char *dir = T(repo_dir_of(project));
	return run(out, T(fmt("cd '%s' && echo \"0000000000000000000000000000000000000000 "
			      "$(git rev-parse HEAD) refs/heads/%s\" | GIT_DIR=. GL_ID=%s "
			      "GL_PROJECT=%lld '%s' -c '%s/collabd-1.conf' hook pre-receive",
			      dir, branch, gl_id, project, getenv("COLLABD_BIN"),
			      getenv("COLLABD_DIR"))));
}

/* The hook takes GL_ID key-<id> for a deploy key only, and asks its link again. */
START_TEST(test_deploy_key_hook_identity)
{
	long long owner_id;
	char *owner = T(make_user("ssh", &owner_id, NULL));
	char *path;
	long long id = api_project(owner, "private", &path);
	T(path);
	long long other = api_project(owner, "private", NULL);
	long long user_key = add_key(owner, "owner");
	char *out;
	ck_assert_msg(clone_as(&out, "owner", scp_url(path), "o") == 0, "%s", out);
	free(out);
	ck_assert_int_eq(sh(&out, "-C o commit -q --allow-empty -m one && "
				  "git -C o push -q origin master"),
			 0);
	free(out);
	long long key = add_deploy_key(owner, id, "deploy", true);
	ck_assert_msg(pre_receive(&out, id, T(fmt("key-%lld", key)), "b1") == 0, "%s", out);
	free(out);
	/* a user's key is no deploy key */
	ck_assert_int_ne(pre_receive(&out, id, T(fmt("key-%lld", user_key)), "b2"), 0);
	ck_assert_msg(strstr(out, "could not be found"), "%s", out);
	free(out);
	/* nor may the key push where it is not enabled, nor once it is read-only */
	ck_assert_int_ne(pre_receive(&out, other, T(fmt("key-%lld", key)), "b3"), 0);
	ck_assert_msg(strstr(out, "could not be found"), "%s", out);
	free(out);
	resp *r = api("PUT", T(fmt("/projects/%lld/deploy_keys/%lld", id, key)), owner,
		      "can_push=false");
	ck_status(r, 200);
	resp_free(r);
	ck_assert_int_ne(pre_receive(&out, id, T(fmt("key-%lld", key)), "b4"), 0);
	ck_assert_msg(strstr(out, "This deploy key does not have write access"), "%s", out);
	free(out);
	ck_assert_int_ne(pre_receive(&out, id, "key-x", "b5"), 0);
	free(out);
}
END_TEST

/* A project on the stack's second repository storage (suite_storages): cloned and
 * pushed over SSH there; while read-only (collabd move-storage), pushes are refused with
 * GitLab 10.8's words and clones go on. */
START_TEST(test_second_storage)
{
	long long uid;
	char *user = T(make_user("ssh", &uid, NULL));
	resp *r = api("POST", T(fmt("/projects/user/%lld", uid)), admin_token(),
		      T(fmt("name=%s&repository_storage=second", T(unique("st")))));
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	char *path = T(strdup(jstr(r->json, "path_with_namespace")));
	resp_free(r);
	add_key(user, "st");
	char *out;
	ck_assert_msg(clone_as(&out, "st", scp_url(path), "d") == 0, "%s", out);
	free(out);
	ck_assert_msg(sh(&out, "-C d commit -q --allow-empty -m one && git -C d push -q origin "
			       "master") == 0,
		      "%s", out);
	free(out);
	char *h = T(sql_value("SELECT encode(sha256('%lld'::bytea), 'hex')", id));
	char *dir = T(fmt("%s/storage2/repositories/@hashed/%.2s/%.2s/%s.git",
			  getenv("COLLABD_DIR"), h, h + 2, h));
	ck_assert_int_eq(
		run(&out, T(fmt("git --git-dir='%s' log --format=%%s -1 master", dir))), 0);
	ck_assert_str_eq(out, "one\n");
	free(out);
	free(sql_value("UPDATE projects SET repository_read_only = true WHERE id = %lld"
		       " RETURNING id",
		       id));
	ck_assert_int_ne(sh(&out, "-C d commit -q --allow-empty -m two && git -C d push origin "
				  "master"),
			 0);
	ck_assert_msg(strstr(out, "The repository is temporarily read-only. Please try again "
				  "later."),
		      "%s", out);
	free(out);
	ck_assert_msg(clone_as(&out, "st", scp_url(path), "e") == 0, "%s", out);
	free(out);
	free(sql_value("UPDATE projects SET repository_read_only = false WHERE id = %lld"
		       " RETURNING id",
		       id));
	ck_assert_msg(sh(&out, "-C d push -q origin master") == 0, "%s", out);
	free(out);
}
END_TEST

Suite *suite_ssh(void)
{
	Suite *s = suite_create("ssh");
	TCase *tc = tcase_create("ssh");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_authorized_keys);
	tcase_add_test(tc, test_clone_and_push);
	tcase_add_test(tc, test_protected_branch);
	tcase_add_test(tc, test_removed_key_and_blocked_user);
	tcase_add_test(tc, test_other_commands);
	tcase_add_test(tc, test_deploy_key_authorized_keys);
	tcase_add_test(tc, test_deploy_key_clone_and_push);
	tcase_add_test(tc, test_deploy_key_hook_identity);
	tcase_add_test(tc, test_second_storage);
	suite_add_tcase(s, tc);
	return s;
}
