/* API suite: GPG keys (GitLab 10.8's /user/gpg_keys and the admins' /users/:id/gpg_keys:
 * list, show, add, delete, revoke) and the signature of a commit
 * (GET /projects/:id/repository/commits/:sha/signature). Keys are made by stock gpg in
 * a scratch GNUPGHOME, commits signed by `git commit -S` with it and pushed over HTTP;
 * each of 10.8's statuses is checked, and how a key added, revoked or removed changes
 * what a signature shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client.h"

static const char *const GPG_KEY_FIELDS[] = {"id", "key", "created_at", NULL};
static const char *const SIGNATURE_FIELDS[] = {"gpg_key_id",
					       "gpg_key_primary_keyid",
					       "gpg_key_user_name",
					       "gpg_key_user_email",
					       "verification_status",
					       "gpg_key_subkey_id",
					       NULL};

#define INVALID_KEY                                                                                \
	"is invalid. A valid public GPG key begins with '-----BEGIN PGP PUBLIC KEY BLOCK-----' "   \
	"and ends with '-----END PGP PUBLIC KEY BLOCK-----'"

/* ---- gpg in a scratch home ---- */

static char *gnupghome;

static void sh(const char *cmd)
{
	int rc = system(cmd);
	ck_assert_msg(rc == 0, "command failed (%d): %s", rc, cmd);
}

/* The first line a shell command prints (caller of S). */
static char *sh_line(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	char line[256] = "";
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	ck_assert_int_eq(pclose(p), 0);
	line[strcspn(line, "\n")] = '\0';
	return S(strdup(line));
}

/* All a shell command prints (caller of S). */
static char *sh_all(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t cap = 8192, len = 0, n;
	char *buf = malloc(cap);
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0)
		if ((len += n) + 1024 > cap)
			buf = realloc(buf, cap *= 2);
	buf[len] = '\0';
	ck_assert_int_eq(pclose(p), 0);
	return S(buf);
}

/* One home for the test case, made and removed by the process that forks its tests (an
 * unchecked fixture): a test that fails leaves no agent behind either. */
static void gpg_setup(void)
{
	char tmpl[] = "/tmp/collabd-gpgt.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	gnupghome = strdup(tmpl);
	setenv("GNUPGHOME", gnupghome, 1);
}

static void gpg_teardown(void)
{
	char *cmd = fmt("gpgconf --kill all; rm -rf '%s'", gnupghome);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", gnupghome);
	free(cmd);
	unsetenv("GNUPGHOME");
	free(gnupghome);
	gnupghome = NULL;
}

/* A new ed25519 signing key of uid ("Name <email>"): its armored public key, and its
 * key id (16 upper-case hex digits) in *keyid unless NULL. With subkey, the primary key
 * only certifies and a subkey signs. */
static char *gen_key(const char *uid, bool subkey, char **keyid)
{
	sh(S(fmt("gpg --batch -q --passphrase '' --quick-gen-key '%s' ed25519 %s never 2>/dev/null",
		 uid, subkey ? "cert" : "sign")));
	char *fpr = sh_line(S(fmt("gpg --batch --with-colons --list-keys '=%s' 2>/dev/null"
				  " | awk -F: '$1 == \"fpr\" { print $10; exit }'",
				  uid)));
	ck_assert_int_eq(strlen(fpr), 40);
	if (subkey)
		sh(S(fmt("gpg --batch -q --passphrase '' --quick-add-key %s ed25519 sign never"
			 " 2>/dev/null",
			 fpr)));
	if (keyid)
		*keyid = S(strdup(fpr + 24));
	return sh_all(S(fmt("gpg --batch --armor --export %s", fpr)));
}

static resp *post_key(const char *path, const char *token, const char *key)
{
	return R(api("POST", path, token, S(fmt("key=%s", S(enc(key))))));
}

static long long add_key(const char *path, const char *token, const char *key)
{
	resp *r = post_key(path, token, key);
	ck_status(r, 201);
	return jint(r->json, "id");
}

static long long total(const char *path, const char *token)
{
	resp *r = R(api("GET", path, token, NULL));
	ck_status(r, 200);
	const char *t = resp_header(r, "X-Total");
	ck_assert(t != NULL);
	return atoll(t);
}

/* ---- keys ---- */

START_TEST(test_gpg_keys_mine)
{
	long long uid;
	char *user;
	char *token = S(make_user("gpg_mine", &uid, &user));
	S(user);
	char *key = gen_key(S(fmt("Mine <%s@example.com>", user)), false, NULL);
	/* GitLab keeps the key without surrounding whitespace */
	resp *r = post_key("/user/gpg_keys", token, S(fmt("\n  %s  \n", key)));
	ck_status(r, 201);
	ck_fields(r->json, GPG_KEY_FIELDS);
	long long id = jint(r->json, "id");
	char *stripped = S(strndup(key, strlen(key) - 1));
	ck_jstr(r, "key", stripped);

	r = R(api("GET", S(fmt("/user/gpg_keys/%lld", id)), token, NULL));
	ck_status(r, 200);
	ck_fields(r->json, GPG_KEY_FIELDS);
	ck_jstr(r, "key", stripped);
	r = R(api("GET", "/user/gpg_keys", token, NULL));
	ck_status(r, 200);
	ck_pages(r, "/user/gpg_keys", "", 1, 20, 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), id);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM gpg_keys WHERE id = %lld AND user_id = %lld"
				 " AND length(fingerprint) = 40 AND length(primary_keyid) = 16"
				 " AND uid_emails = ARRAY['%s@example.com']",
				 id, uid, user),
			 1);

	/* the same key again, by anyone: the key is taken; the same key in other armor:
	 * its fingerprint and key id are */
	char *other = S(make_user("gpg_mine", NULL, NULL));
	ck_body(post_key("/user/gpg_keys", other, key), 400,
		"{\"message\":{\"key\":[\"has already been taken\"]}}");
	char *again = sh_all(S(fmt("gpg --batch --armor --comment 'another armor' --export '<%s>'",
				   S(fmt("%s@example.com", user)))));
	ck_assert_str_ne(again, key);
	ck_body(post_key("/user/gpg_keys", other, again), 400,
		"{\"message\":{\"fingerprint\":[\"has already been taken\"],"
		"\"primary_keyid\":[\"has already been taken\"]}}");
	ck_assert_int_eq(total("/user/gpg_keys", other), 0);

	/* another user's key is not found through /user */
	ck_body(R(api("GET", S(fmt("/user/gpg_keys/%lld", id)), other, NULL)), 404,
		"{\"message\":\"404 GPG Key Not Found\"}");
	ck_body(R(api("DELETE", S(fmt("/user/gpg_keys/%lld", id)), other, NULL)), 404,
		"{\"message\":\"404 GPG Key Not Found\"}");
	ck_code(R(api("DELETE", S(fmt("/user/gpg_keys/%lld", id)), token, NULL)), 204);
	ck_body(R(api("GET", S(fmt("/user/gpg_keys/%lld", id)), token, NULL)), 404,
		"{\"message\":\"404 GPG Key Not Found\"}");
	ck_body(R(api("DELETE", S(fmt("/user/gpg_keys/%lld", id)), token, NULL)), 404,
		"{\"message\":\"404 GPG Key Not Found\"}");
	ck_assert_int_eq(total("/user/gpg_keys", token), 0);
	/* removed, the key may be added again, by the other user too */
	add_key("/user/gpg_keys", other, key);
	ck_code(R(api("GET", "/user/gpg_keys/abc", token, NULL)), 400);
}
END_TEST

START_TEST(test_gpg_keys_invalid)
{
	char *token = S(make_user("gpg_bad", NULL, NULL));
	char *key = gen_key("Bad <gpg-bad@example.com>", false, NULL);
	ck_code(R(api("POST", "/user/gpg_keys", token, "")), 400);
	ck_body(post_key("/user/gpg_keys", token, "  "), 400,
		"{\"message\":{\"key\":[\"can't be blank\",\"" INVALID_KEY "\"]}}");
	ck_body(post_key("/user/gpg_keys", token, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 x"), 400,
		"{\"message\":{\"key\":[\"" INVALID_KEY "\"]}}");
	/* text around the block, two blocks, or a block without its end */
	const char *bad[] = {S(fmt("junk\n%s", key)), S(fmt("%s%s", key, key)),
			     S(strndup(key, strlen(key) / 2))};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_body(post_key("/user/gpg_keys", token, bad[i]), 400,
			"{\"message\":{\"key\":[\"" INVALID_KEY "\"]}}");
	/* the armor with no key in it, or a broken one: GPGME finds none */
	ck_body(post_key("/user/gpg_keys", token,
			 "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nbm90IGEga2V5\n"
			 "-----END PGP PUBLIC KEY BLOCK-----"),
		400,
		"{\"message\":{\"fingerprint\":[\"can't be blank\"],"
		"\"primary_keyid\":[\"can't be blank\"]}}");
	char *broken = S(strdup(key));
	char *mid = strstr(broken, "\n\n");
	ck_assert_ptr_nonnull(mid);
	for (char *p = mid + 2; p < mid + 40; p++)
		*p = *p == 'A' ? 'B' : 'A';
	ck_code(post_key("/user/gpg_keys", token, broken), 400);
	/* a large armor of noise: refused as quickly */
	size_t n = 300000;
	char *noise = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		noise[i] =
			(i + 1) % 65 == 0
				? '\n'
				: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
					  [(i * 7919) % 64];
	noise[n] = '\0';
	ck_body(post_key("/user/gpg_keys", token,
			 S(fmt("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n%s\n"
			       "-----END PGP PUBLIC KEY BLOCK-----",
			       noise))),
		400,
		"{\"message\":{\"fingerprint\":[\"can't be blank\"],"
		"\"primary_keyid\":[\"can't be blank\"]}}");
	free(noise);
	ck_assert_int_eq(total("/user/gpg_keys", token), 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM gpg_keys WHERE key LIKE '%%Bad%%'"), 0);
}
END_TEST

START_TEST(test_gpg_keys_admin)
{
	long long uid, admin_id;
	char *token = S(make_user("gpg_adm", &uid, NULL));
	char *admin = S(make_admin("gpg_adm", &admin_id));
	char *key = gen_key("Adm <gpg-adm@example.com>", false, NULL);
	char *mine = gen_key("Own <gpg-own@example.com>", false, NULL);
	const char *keys = S(fmt("/users/%lld/gpg_keys", uid));
	/* others than admins: 403, whatever they ask */
	ck_body(post_key(keys, token, key), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("GET", keys, token, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	long long own = add_key("/user/gpg_keys", token, mine);
	ck_body(R(api("GET", S(fmt("%s/%lld", keys, own)), token, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("DELETE", S(fmt("%s/%lld", keys, own)), token, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("POST", S(fmt("%s/%lld/revoke", keys, own)), token, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("GET", keys, NULL, NULL)), 401);
	ck_code(R(api("GET", "/user/gpg_keys", NULL, NULL)), 401);
	ck_code(post_key("/user/gpg_keys", NULL, key), 401);

	/* an admin adds, lists, revokes and removes a user's keys */
	resp *r = post_key(keys, admin, key);
	ck_status(r, 201);
	ck_fields(r->json, GPG_KEY_FIELDS);
	long long id = jint(r->json, "id");
	r = R(api("GET", keys, admin, NULL));
	ck_status(r, 200);
	ck_pages(r, keys, "", 2, 20, 1);
	r = R(api("GET", S(fmt("%s/%lld", keys, id)), admin, NULL));
	ck_status(r, 200);
	ck_fields(r->json, GPG_KEY_FIELDS);
	ck_jstr(r, "key", S(strndup(key, strlen(key) - 1)));
	ck_assert_int_eq(total("/user/gpg_keys", token), 2);
	ck_body(R(api("GET", "/users/999999999/gpg_keys", admin, NULL)), 404,
		"{\"message\":\"404 User Not Found\"}");
	ck_body(post_key("/users/999999999/gpg_keys", admin, key), 404,
		"{\"message\":\"404 User Not Found\"}");
	const char *admins = S(fmt("/users/%lld/gpg_keys", admin_id));
	ck_body(R(api("GET", S(fmt("%s/%lld", admins, id)), admin, NULL)), 404,
		"{\"message\":\"404 GPG Key Not Found\"}");
	ck_body(R(api("GET", S(fmt("/users/999999999/gpg_keys/%lld", id)), admin, NULL)), 404,
		"{\"message\":\"404 User Not Found\"}");
	ck_body(R(api("DELETE", S(fmt("%s/%lld", admins, id)), admin, NULL)), 404,
		"{\"message\":\"404 GPG Key Not Found\"}");
	ck_body(R(api("POST", S(fmt("%s/%lld/revoke", admins, id)), admin, NULL)), 404,
		"{\"message\":\"404 GPG Key Not Found\"}");
	ck_body(R(api("POST", S(fmt("%s/%lld/revoke", keys, id)), admin, NULL)), 202, "202");
	ck_body(R(api("POST", "/user/gpg_keys/999999999/revoke", token, NULL)), 404,
		"{\"message\":\"404 GPG Key Not Found\"}");
	ck_body(R(api("POST", S(fmt("/user/gpg_keys/%lld/revoke", own)), token, NULL)), 202, "202");
	ck_assert_int_eq(total("/user/gpg_keys", token), 0);
	id = add_key(keys, admin, key);
	ck_code(R(api("DELETE", S(fmt("%s/%lld", keys, id)), admin, NULL)), 204);
	ck_assert_int_eq(total(keys, admin), 0);
}
END_TEST

START_TEST(test_gpg_keys_pagination)
{
	char *token = S(make_user("gpg_page", NULL, NULL));
	long long ids[3];
	for (int i = 0; i < 3; i++)
		ids[i] = add_key("/user/gpg_keys", token,
				 gen_key(S(fmt("Page %d <gpg-page%d@example.com>", i, i)), false,
					 NULL));
	resp *r = R(api("GET", "/user/gpg_keys?per_page=2&page=2", token, NULL));
	ck_status(r, 200);
	ck_pages(r, "/user/gpg_keys", "", 3, 2, 2);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), ids[2]);
	r = R(api("GET", "/user/gpg_keys?per_page=2", token, NULL));
	ck_pages(r, "/user/gpg_keys", "", 3, 2, 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), ids[0]);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 1), "id"), ids[1]);
	ck_code(R(api("GET", "/user/gpg_keys?per_page=abc", token, NULL)), 400);
}
END_TEST

/* ---- signatures ---- */

/* http://u:token@host:port/<path>.git */
static char *git_url(const char *token, const char *path)
{
	return S(fmt("http://u:%s@%s/%s.git", token, api_url() + strlen("http://"), path));
}

/* A commit on master of the repository in work/r, committed by email and signed with
 * signer's key (an email of gen_key's; NULL: unsigned): its id (caller of S). */
static char *commit(const char *work, const char *email, const char *signer, const char *msg)
{
	char *out;
	int rc = git_sh(
		work, &out,
		"-C r -c user.email=%s -c gpg.program=gpg %s%s%s commit -q --allow-empty %s -m '%s'"
		" && git -C r rev-parse HEAD",
		email, signer ? "-c user.signingkey='<" : "", signer ? signer : "",
		signer ? ">'" : "", signer ? "-S" : "", msg);
	ck_assert_msg(rc == 0, "git commit (%s, %s): %s", email, signer ? signer : "-", out);
	out[strcspn(out, "\n")] = '\0';
	return S(out);
}

static resp *signature(long long pid, const char *sha, const char *token)
{
	return R(api("GET", S(fmt("/projects/%lld/repository/commits/%s/signature", pid, sha)),
		     token, NULL));
}

/* The signature of sha has status, its key key_id (0: none), subkey subkey_id (0: none)
 * and key id keyid. */
static void ck_signature(long long pid, const char *sha, const char *token, const char *status,
			 long long key_id, long long subkey_id, const char *keyid)
{
	resp *r = signature(pid, sha, token);
	ck_status(r, 200);
	ck_fields(r->json, SIGNATURE_FIELDS);
	ck_assert_msg(strcmp(jstr(r->json, "verification_status"), status) == 0,
		      "%s: status %s, not %s", sha, jstr(r->json, "verification_status"), status);
	if (key_id)
		ck_assert_int_eq(jint(r->json, "gpg_key_id"), key_id);
	else
		ck_assert(jnull(r->json, "gpg_key_id"));
	if (subkey_id)
		ck_assert_int_eq(jint(r->json, "gpg_key_subkey_id"), subkey_id);
	else
		ck_assert(jnull(r->json, "gpg_key_subkey_id"));
	ck_jstr(r, "gpg_key_primary_keyid", keyid);
}

START_TEST(test_gpg_signature_statuses)
{
	long long aid, bid;
	char *alice_name, *bob_name;
	char *alice = S(make_user("gpg_sig", &aid, &alice_name));
	char *bob = S(make_user("gpg_sig", &bid, &bob_name));
	S(alice_name);
	S(bob_name);
	char *stranger = S(make_user("gpg_sig", NULL, NULL));
	char *a_mail = S(fmt("%s@example.com", alice_name));
	char *b_mail = S(fmt("%s@example.com", bob_name));
	ck_assert_str_eq(S(sql_value("SELECT lower(email) FROM users WHERE id = %lld", aid)),
			 a_mail);
	char *a2_mail = S(fmt("%s.second@example.com", alice_name));
	ck_code(R(api("POST", "/user/emails", alice, S(fmt("email=%s", a2_mail)))), 201);

	char *a_keyid, *b_keyid, *c_keyid, *d_keyid, *e_keyid;
	char *a_key = gen_key(S(fmt("Alice <%s>", a_mail)), false, &a_keyid);
	char *b_key = gen_key(S(fmt("Bob <%s>", b_mail)), false, &b_keyid);
	char *c_key = gen_key("Carol <gpg-carol@example.com>", false, &c_keyid);
	gen_key("Dan <gpg-dan@example.com>", false, &d_keyid);
	char *e_key = gen_key(S(fmt("Sub <%s>", a2_mail)), true, &e_keyid);
	long long a_id = add_key("/user/gpg_keys", alice, a_key);
	long long b_id = add_key("/user/gpg_keys", bob, b_key);
	/* Dan's key given to alice: none of its emails is hers */
	char *d_key = sh_all("gpg --batch --armor --export gpg-dan@example.com");
	long long d_id = add_key("/user/gpg_keys", alice, d_key);
	long long e_id = add_key("/user/gpg_keys", alice, e_key);
	char *e_sub = sh_line(S(fmt("gpg --batch --with-colons --list-keys %s 2>/dev/null"
				    " | awk -F: '$1 == \"sub\" { print $5; exit }'",
				    e_keyid)));
	ck_assert_int_eq(strlen(e_sub), 16);
	long long e_sub_id =
		sql_int("SELECT id FROM gpg_key_subkeys WHERE gpg_key_id = %lld AND keyid = '%s'",
			e_id, e_sub);

	char *path;
	long long pid = api_project(alice, "private", &path);
	S(path);
	char *work = git_work_new();
	ck_assert_int_eq(git_sh(work, NULL, "init -q r"), 0);
	char *verified = commit(work, a_mail, a_mail, "verified");
	char *other_user = commit(work, a_mail, b_mail, "the key of bob");
	char *unknown = commit(work, a_mail, "gpg-carol@example.com", "a key of nobody");
	char *unverified_key = commit(work, a_mail, "gpg-dan@example.com", "the key of dan");
	char *different = commit(work, a_mail, a2_mail, "the other email");
	char *same_user = commit(work, a2_mail, a_mail, "the key of alice, her other address");
	/* a "signature" that gpg finds none in, made by a gpg.program of ours */
	char *fake = S(fmt("%s/fake-gpg", work));
	FILE *f = fopen(fake, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\ncat >/dev/null\necho '[GNUPG:] SIG_CREATED ' >&2\n"
	      "printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nbm90IGEgc2lnbmF0dXJl\\n"
	      "-----END PGP SIGNATURE-----\\n'\n",
	      f);
	fclose(f);
	ck_assert_int_eq(chmod(fake, 0755), 0);
	char *garbage;
	ck_assert_int_eq(git_sh(work, &garbage,
				"-C r -c user.email=%s -c gpg.program=%s commit -q --allow-empty -S"
				" -m garbage && git -C r rev-parse HEAD",
				a_mail, fake),
			 0);
	garbage[strcspn(garbage, "\n")] = '\0';
	S(garbage);
	char *unsigned_c = commit(work, a_mail, NULL, "unsigned");
	char *out;
	int rc = git_sh(work, &out, "-C r push -q '%s' master", git_url(alice, path));
	ck_assert_msg(rc == 0, "push: %s", out);
	free(out);
	git_work_remove(work);

	resp *r = signature(pid, verified, alice);
	ck_status(r, 200);
	ck_fields(r->json, SIGNATURE_FIELDS);
	ck_jstr(r, "gpg_key_user_name", "Alice");
	ck_jstr(r, "gpg_key_user_email", a_mail);
	ck_signature(pid, verified, alice, "verified", a_id, 0, a_keyid);
	ck_signature(pid, other_user, alice, "other_user", b_id, 0, b_keyid);
	ck_signature(pid, unknown, alice, "unknown_key", 0, 0, c_keyid);
	r = signature(pid, unknown, alice);
	ck_assert(jnull(r->json, "gpg_key_user_name") && jnull(r->json, "gpg_key_user_email"));
	ck_signature(pid, unverified_key, alice, "unverified_key", d_id, 0, d_keyid);
	/* the key's email is alice's other address, the committer's her primary one; the
	 * signature is the subkey's */
	ck_signature(pid, different, alice, "same_user_different_email", 0, e_sub_id, e_sub);
	ck_signature(pid, same_user, alice, "same_user_different_email", a_id, 0, a_keyid);
	r = signature(pid, garbage, alice);
	ck_status(r, 200);
	ck_fields(r->json, SIGNATURE_FIELDS);
	ck_jstr(r, "verification_status", "unknown_key");
	ck_assert(jnull(r->json, "gpg_key_primary_keyid") && jnull(r->json, "gpg_key_id"));
	ck_body(signature(pid, unsigned_c, alice), 404,
		"{\"message\":\"404 GPG Signature Not Found\"}");
	ck_body(signature(pid, "0123456789012345678901234567890123456789", alice), 404,
		"{\"message\":\"404 Commit Not Found\"}");
	/* a branch names its head: the unsigned commit */
	ck_body(signature(pid, "master", alice), 404,
		"{\"message\":\"404 GPG Signature Not Found\"}");

	/* who may not read the code does not see it */
	ck_body(signature(pid, verified, stranger), 404, "{\"message\":\"404 Project Not Found\"}");
	ck_body(signature(pid, verified, NULL), 404, "{\"message\":\"404 Project Not Found\"}");
	long long guest_id;
	char *guest = S(make_user("gpg_sig", &guest_id, NULL));
	fixture_member("Project", pid, guest_id, 10);
	ck_code(signature(pid, verified, guest), 403);
	long long reporter_id;
	char *reporter = S(make_user("gpg_sig", &reporter_id, NULL));
	fixture_member("Project", pid, reporter_id, 20);
	ck_signature(pid, verified, reporter, "verified", a_id, 0, a_keyid);

	/* kept: a second read spawns no gpg, and reads the row */
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM gpg_signatures WHERE project_id = %lld", pid), 7);
	S(sql_value("UPDATE gpg_signatures SET gpg_key_user_name = 'Kept'"
		    " WHERE project_id = %lld AND commit_sha = '%s'",
		    pid, verified));
	r = signature(pid, verified, alice);
	ck_jstr(r, "gpg_key_user_name", "Kept");

	/* a key added: the signatures it made are verified again (bob's now, but none of
	 * its emails is his) */
	long long c_id = add_key("/user/gpg_keys", bob, c_key);
	ck_signature(pid, unknown, alice, "unverified_key", c_id, 0, c_keyid);
	r = signature(pid, unknown, alice);
	ck_jstr(r, "gpg_key_user_email", "gpg-carol@example.com");
	/* until its email is his: verified again (the committer is still alice) */
	ck_code(R(api("POST", "/user/emails", bob, "email=gpg-carol@example.com")), 201);
	ck_signature(pid, unknown, alice, "other_user", c_id, 0, c_keyid);
	ck_signature(pid, other_user, alice, "other_user", b_id, 0, b_keyid);
	/* a key removed: its signatures stay as they were, without the key (10.8) */
	ck_code(R(api("DELETE", S(fmt("/user/gpg_keys/%lld", b_id)), bob, NULL)), 204);
	ck_signature(pid, other_user, alice, "other_user", 0, 0, b_keyid);
	/* a key revoked: its signatures are unknown_key */
	ck_code(R(api("POST", S(fmt("/user/gpg_keys/%lld/revoke", a_id)), alice, NULL)), 202);
	ck_signature(pid, verified, alice, "unknown_key", 0, 0, a_keyid);
	ck_signature(pid, same_user, alice, "unknown_key", 0, 0, a_keyid);
	ck_code(R(api("POST", S(fmt("/user/gpg_keys/%lld/revoke", e_id)), alice, NULL)), 202);
	ck_signature(pid, different, alice, "unknown_key", 0, 0, e_sub);
	/* and added again, verified again */
	a_id = add_key("/user/gpg_keys", alice, a_key);
	ck_signature(pid, verified, alice, "verified", a_id, 0, a_keyid);
	/* no gpg home directory is left behind, nor an agent of one */
	ck_assert_int_eq(system("ls -d /tmp/collabd-gpg.* >/dev/null 2>&1"), 512);
}
END_TEST

Suite *suite_gpg_keys(void)
{
	Suite *s = suite_create("gpg_keys");
	TCase *tc = tcase_create("gpg_keys");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, gpg_setup, gpg_teardown);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_gpg_keys_mine);
	tcase_add_test(tc, test_gpg_keys_invalid);
	tcase_add_test(tc, test_gpg_keys_admin);
	tcase_add_test(tc, test_gpg_keys_pagination);
	tcase_add_test(tc, test_gpg_signature_statuses);
	suite_add_tcase(s, tc);
	return s;
}
