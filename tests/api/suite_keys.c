/* API suite: SSH keys (spec 4.3): GET/POST /user/keys, GET/DELETE /user/keys/:key_id, and
 * the admin's GET/POST /users/:id/keys and DELETE /users/:id/keys/:key_id. Fingerprints are
 * unique across the service, so every test uses keys of its own: the real keys below once
 * each, and freshly generated ones everywhere else. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

/* Real public keys made with ssh-keygen (ed25519, RSA 2048, ECDSA P-256). */
#define KEY_ED25519                                                                                \
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAII70IuR5G7Wl4AysuSf1L4PkFECKcq3cMAQznHZjCZ5b "        \
	"alice@example"
#define KEY_RSA                                                                                    \
	"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC4aoSaLgjkilgDA1ASXrd+80cUokyBKF4+IviOhss0ZSRhhi6i" \
	"GTafF4eSnmXRRe+/VlHsx5htU9E67Jos4M3CYuxixU3n4qkHLjpnKUQP1PVd3CaygrM/vel2EMd5daaqrmg1AZPF" \
	"OAfjliEak5BeXyj0Ew4Afb5HXZBkBLLkk6vY7WYif1Ax7Vi0pVdun+C52utFXt+uKdyn0gVgBcg1zvhXTfyBpK4w" \
	"YrjkOdizaw5h8v5YraPNTz8ulWVJ4S3CZuaN0U5t2gW5p9LXsyTvZZfoan9Z/UETfHhXodEYpNq4I8Xyc0dhnF1q" \
	"PP27WB0cl+9390+KEfOiaRpWDCi7 rsa@example"
#define KEY_ECDSA                                                                                  \
	"ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBIX8ziTJ9mtS0kvD" \
	"JBnzsBReSkZ+cxZcjZGUF5l4rsaSVZqphGtNf8KhWwe2PWApWmUBUYBbTTs3FdqlOQlVcfM= ecdsa@example"
#define KEY_ED25519_BARE                                                                           \
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB9xAOwcUhbCCNO6gDHI9LPJIZUNU7ROMqPSdGuWfHJA"

static const char *const KEY_FIELDS[] = {"id", "title", "key", "created_at", NULL};

/* ---- keys ---- */

static char *base64(const unsigned char *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc(4 * ((n + 2) / 3) + 1), *o = out;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

static size_t put_string(unsigned char *p, const void *s, size_t n)
{
	p[0] = (unsigned char)(n >> 24);
	p[1] = (unsigned char)(n >> 16);
	p[2] = (unsigned char)(n >> 8);
	p[3] = (unsigned char)n;
	memcpy(p + 4, s, n);
	return 4 + n;
}

static void random_bytes(unsigned char *p, size_t n)
{
	FILE *f = fopen("/dev/urandom", "rb");
	ck_assert(f != NULL);
	ck_assert(fread(p, 1, n, f) == n);
	fclose(f);
}

/* The blob of an ed25519 public key with random key bytes (type names it; a test of
 * mismatched blobs passes another), base64-encoded. */
static char *ed25519_blob(const char *type, size_t keylen)
{
	unsigned char blob[128], key[64];
	ck_assert(keylen <= sizeof(key));
	random_bytes(key, keylen);
	size_t n = put_string(blob, type, strlen(type));
	n += put_string(blob + n, key, keylen);
	return S(base64(blob, n));
}

/* A fresh, well-formed ed25519 public key line with a comment. */
static char *new_key(void)
{
	return S(fmt("ssh-ed25519 %s test@collabd", ed25519_blob("ssh-ed25519", 32)));
}

/* POST <path> with title and key, form-encoded. */
static resp *post_key(const char *path, const char *token, const char *title, const char *key)
{
	char *t = S(enc(title)), *k = S(enc(key));
	return R(api("POST", path, token, S(fmt("title=%s&key=%s", t, k))));
}

/* Adds key to the caller's keys; its id. */
static long long add_key(const char *token, const char *title, const char *key)
{
	resp *r = post_key("/user/keys", token, title, key);
	ck_status(r, 201);
	return jint(r->json, "id");
}

static void ck_key(json_object *o, long long id, const char *title, const char *key)
{
	ck_fields(o, KEY_FIELDS);
	if (id > 0)
		ck_assert_int_eq(jint(o, "id"), id);
	ck_assert_str_eq(jstr(o, "title"), title);
	ck_assert_str_eq(jstr(o, "key"), key);
	const char *t = jstr(o, "created_at");
	ck_assert_msg(t && strlen(t) == 24 && t[10] == 'T' && t[19] == '.' && t[23] == 'Z',
		      "created_at: %s", t ? t : "(null)");
}

/* The key ids of a list response, in order. */
static void ck_key_ids(resp *r, const long long *ids, size_t n)
{
	ck_status(r, 200);
	ck_assert_msg(json_object_array_length(r->json) == n, "expected %zu keys: %s", n, r->body);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(jint(json_object_array_get_idx(r->json, i), "id") == ids[i],
			      "key %zu: expected %lld in %s", i, ids[i], r->body);
}

static void ck_unauthorized(resp *r)
{
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
}

static void ck_forbidden(resp *r)
{
	ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
}

static void ck_key_not_found(resp *r)
{
	ck_body(r, 404, "{\"message\":\"404 Key Not Found\"}");
}

static void ck_user_not_found(resp *r)
{
	ck_body(r, 404, "{\"message\":\"404 User Not Found\"}");
}

static const char *const INVALID_KEY =
	"{\"message\":{\"key\":[\"is invalid\"],\"fingerprint\":[\"cannot be generated\"]}}";
static const char *const TAKEN = "{\"message\":{\"fingerprint\":[\"has already been taken\"]}}";

/* ---- tests ---- */

START_TEST(test_keys_require_auth)
{
	long long id;
	char *token = S(make_user("key_auth", &id, NULL));
	long long kid = add_key(token, "mine", new_key());
	const char *k = S(enc(new_key()));
	const char *form = S(fmt("title=t&key=%s", k));
	struct {
		const char *method, *path, *form;
	} calls[] = {
		{"GET", "/user/keys", NULL},
		{"GET", S(fmt("/user/keys/%lld", kid)), NULL},
		{"POST", "/user/keys", form},
		{"DELETE", S(fmt("/user/keys/%lld", kid)), NULL},
		{"GET", S(fmt("/users/%lld/keys", id)), NULL},
		{"POST", S(fmt("/users/%lld/keys", id)), form},
		{"DELETE", S(fmt("/users/%lld/keys/%lld", id, kid)), NULL},
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++) {
		ck_unauthorized(R(api(calls[i].method, calls[i].path, NULL, calls[i].form)));
		ck_unauthorized(R(api(calls[i].method, calls[i].path, "bad-token", calls[i].form)));
	}
	/* another user's keys are for admins only, even one's own through /users/:id */
	char *other = S(make_user("key_auth_o", NULL, NULL));
	for (size_t i = 4; i < sizeof(calls) / sizeof(*calls); i++) {
		ck_forbidden(R(api(calls[i].method, calls[i].path, other, calls[i].form)));
		ck_forbidden(R(api(calls[i].method, calls[i].path, token, calls[i].form)));
	}
	ck_forbidden(R(api("GET", "/users/999999999/keys", other, NULL)));
	/* none of it changed anything: still exactly the one key */
	resp *r = R(api("GET", "/user/keys", token, NULL));
	ck_key_ids(r, &kid, 1);
}
END_TEST

START_TEST(test_keys_real_keys)
{
	long long uid;
	char *token = S(make_user("key_real", &uid, NULL));
	static const char *const keys[][2] = {
		{"laptop", KEY_ED25519},
		{"rsa", KEY_RSA},
		{"ecdsa", KEY_ECDSA},
		{"bare", KEY_ED25519_BARE},
	};
	long long ids[4];
	for (size_t i = 0; i < 4; i++) {
		resp *r = post_key("/user/keys", token, keys[i][0], keys[i][1]);
		ck_status(r, 201);
		ck_header(r, "Content-Type", "application/json");
		ck_key(r->json, 0, keys[i][0], keys[i][1]);
		ids[i] = jint(r->json, "id");
		/* read back, alone */
		r = R(api("GET", S(fmt("/user/keys/%lld", ids[i])), token, NULL));
		ck_status(r, 200);
		ck_key(r->json, ids[i], keys[i][0], keys[i][1]);
	}
	/* the list, in creation order, the same for the admin */
	resp *r = R(api("GET", "/user/keys", token, NULL));
	ck_key_ids(r, ids, 4);
	for (size_t i = 0; i < 4; i++)
		ck_key(json_object_array_get_idx(r->json, i), ids[i], keys[i][0], keys[i][1]);
	ck_pages(r, "/user/keys", "", 4, 20, 1);
	const char *theirs = S(fmt("/users/%lld/keys", uid));
	r = R(api("GET", theirs, admin_token(), NULL));
	ck_key_ids(r, ids, 4);
	ck_key(json_object_array_get_idx(r->json, 1), ids[1], "rsa", KEY_RSA);
	ck_pages(r, theirs, "", 4, 20, 1);

	/* each of them exactly once: in another user's hands, or with another comment,
	 * they are taken */
	char *other = S(make_user("key_real_o", NULL, NULL));
	ck_body(post_key("/user/keys", other, "again", KEY_RSA), 400, TAKEN);
	ck_body(post_key("/user/keys", token, "again", KEY_ED25519), 400, TAKEN);
	ck_body(post_key("/user/keys", other, "again",
			 "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAII70IuR5G7Wl4AysuSf1L4PkFECKcq3cMAQznHZjCZ5b "
			 "someone-else"),
		400, TAKEN);
	ck_body(post_key("/user/keys", other, "again", KEY_ECDSA " "), 400, TAKEN);

	/* the user goes, the keys go with the user: they are free again */
	ck_code(R(api("DELETE", S(fmt("/users/%lld", uid)), admin_token(), NULL)), 204);
	ck_user_not_found(R(api("GET", theirs, admin_token(), NULL)));
	for (size_t i = 0; i < 4; i++)
		add_key(other, keys[i][0], keys[i][1]);
	r = R(api("GET", "/user/keys", other, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 4);
	/* and leave with that user too, so that the suite can run again */
	long long oid = jint(R(api("GET", "/user", other, NULL))->json, "id");
	ck_code(R(api("DELETE", S(fmt("/users/%lld?hard_delete=true", oid)), admin_token(), NULL)),
		204);
}
END_TEST

START_TEST(test_keys_text_forms)
{
	char *token = S(make_user("key_text", NULL, NULL));
	const char *blob = ed25519_blob("ssh-ed25519", 32);
	/* a key pasted with line breaks and surrounding blanks is kept as one line */
	size_t half = strlen(blob) / 2;
	char *wrapped = S(fmt("  ssh-ed25519 %.*s\r\n%s me@host \n", (int)half, blob, blob + half));
	resp *r = post_key("/user/keys", token, "wrapped", wrapped);
	ck_status(r, 201);
	ck_assert_str_eq(jstr(r->json, "key"), S(fmt("ssh-ed25519 %s me@host", blob)));
	/* a title of any text, up to 255 characters */
	char *title = S(calloc(1, 256));
	memset(title, 't', 255);
	r = post_key("/user/keys", token, title, new_key());
	ck_status(r, 201);
	ck_assert_str_eq(jstr(r->json, "title"), title);
	r = post_key("/user/keys", token, "\xc3\xa9t\xc3\xa9 <b>&amp;", new_key());
	ck_status(r, 201);
	ck_assert_str_eq(jstr(r->json, "title"), "\xc3\xa9t\xc3\xa9 <b>&amp;");
	/* a JSON body */
	const char *k = new_key();
	r = R(api_json("POST", "/user/keys", token,
		       S(fmt("{\"title\":\"from json\",\"key\":\"%s\"}", k))));
	ck_status(r, 201);
	ck_key(r->json, 0, "from json", k);
	r = R(api("GET", "/user/keys", token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 4);
}
END_TEST

START_TEST(test_keys_invalid)
{
	long long uid;
	char *token = S(make_user("key_bad", &uid, NULL));
	const char *good = ed25519_blob("ssh-ed25519", 32);
	const char *bad[] = {
		"not a key",
		"ssh-rsa",
		"ssh-rsa AAAA",
		"ssh-ed25519",
		"ssh-ed25519 !!!!not-base64!!!!",
		S(fmt("ssh-foo %s", good)), /* unknown type */
		S(fmt("ssh-rsa %s", good)), /* blob of another type */
		S(fmt("ssh-ed25519 %s", ed25519_blob("ssh-ed25519", 16))), /* short key */
		S(fmt("ssh-ed25519 %s", ed25519_blob("ssh-ed25519", 33))), /* long key */
		S(fmt("ssh-ed25519 %.*s", (int)strlen(good) - 8, good)),   /* truncated */
		S(fmt("%s ssh-ed25519", good)),                            /* the wrong way round */
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ==\n"
		"-----END OPENSSH PRIVATE KEY-----",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		resp *r = post_key("/user/keys", token, "bad", bad[i]);
		ck_assert_msg(r->status == 400, "key %zu (%s): %ld %s", i, bad[i], r->status,
			      r->body);
		ck_body(r, 400, INVALID_KEY);
		ck_body(post_key(S(fmt("/users/%lld/keys", uid)), admin_token(), "bad", bad[i]),
			400, INVALID_KEY);
	}
	/* missing and empty attributes */
	const char *k = S(enc(new_key()));
	ck_body(R(api("POST", "/user/keys", token, S(fmt("key=%s", k)))), 400,
		"{\"message\":\"400 (Bad request) \\\"title\\\" not given\"}");
	ck_body(R(api("POST", "/user/keys", token, "title=t")), 400,
		"{\"message\":\"400 (Bad request) \\\"key\\\" not given\"}");
	ck_body(R(api("POST", "/user/keys", token, "title=t&key=")), 400,
		"{\"message\":\"400 (Bad request) \\\"key\\\" not given\"}");
	ck_body(R(api("POST", "/user/keys", token, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"title\\\" not given\"}");
	/* a title too long */
	char *title = S(calloc(1, 257));
	memset(title, 't', 256);
	ck_body(post_key("/user/keys", token, title, new_key()), 400,
		"{\"message\":{\"title\":[\"is too long (maximum is 255 characters)\"]}}");
	/* a key too long to be one */
	char *huge = S(calloc(1, 20001));
	memset(huge, 'A', 20000);
	resp *r = post_key("/user/keys", token, "huge", S(fmt("ssh-rsa %s", huge)));
	ck_status(r, 400);
	ck_assert_msg(jget(jget(r->json, "message"), "key") != NULL, "%s", r->body);
	/* malformed JSON */
	r = R(api_json("POST", "/user/keys", token, "{\"title\":\"t\",\"key\":"));
	ck_status(r, 400);
	/* none of it was stored */
	r = R(api("GET", "/user/keys", token, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "[]");
	ck_pages(r, "/user/keys", "", 0, 20, 1);
}
END_TEST

START_TEST(test_keys_duplicates)
{
	long long a_id, b_id;
	char *a = S(make_user("key_dup_a", &a_id, NULL));
	char *b = S(make_user("key_dup_b", &b_id, NULL));
	const char *blob = ed25519_blob("ssh-ed25519", 32);
	const char *key = S(fmt("ssh-ed25519 %s first", blob));
	long long kid = add_key(a, "first", key);
	/* the same key (whatever its comment) by the same user, another user, or the admin
	 * on another user's behalf */
	ck_body(post_key("/user/keys", a, "again", key), 400, TAKEN);
	ck_body(post_key("/user/keys", b, "again", S(fmt("ssh-ed25519 %s", blob))), 400, TAKEN);
	ck_body(post_key(S(fmt("/users/%lld/keys", b_id)), admin_token(), "again", key), 400,
		TAKEN);
	ck_body(post_key(S(fmt("/users/%lld/keys", a_id)), admin_token(), "again", key), 400,
		TAKEN);
	/* a JSON body gets the same answer */
	ck_body(R(api_json("POST", "/user/keys", b,
			   S(fmt("{\"title\":\"json\",\"key\":\"%s\"}", key)))),
		400, TAKEN);
	resp *r = R(api("GET", "/user/keys", b, NULL));
	ck_assert_str_eq(r->body, "[]");
	r = R(api("GET", "/user/keys", a, NULL));
	ck_key_ids(r, &kid, 1);
	/* once removed, the key may be added again, by anyone */
	ck_code(R(api("DELETE", S(fmt("/user/keys/%lld", kid)), a, NULL)), 204);
	long long again = add_key(b, "mine now", key);
	ck_assert_int_ne(again, kid);
}
END_TEST

START_TEST(test_keys_of_others)
{
	long long a_id, b_id;
	char *a = S(make_user("key_oth_a", &a_id, NULL));
	char *b = S(make_user("key_oth_b", &b_id, NULL));
	const char *key = new_key();
	long long kid = add_key(a, "a's", key);
	const char *mine = S(fmt("/user/keys/%lld", kid));
	/* another user's key does not exist for b */
	ck_key_not_found(R(api("GET", mine, b, NULL)));
	ck_key_not_found(R(api("DELETE", mine, b, NULL)));
	/* nor for the admin through /user/keys: it is not theirs */
	ck_key_not_found(R(api("GET", mine, admin_token(), NULL)));
	ck_key_not_found(R(api("DELETE", mine, admin_token(), NULL)));
	/* nor through another user's path */
	ck_key_not_found(
		R(api("DELETE", S(fmt("/users/%lld/keys/%lld", b_id, kid)), admin_token(), NULL)));
	/* it is still a's */
	resp *r = R(api("GET", mine, a, NULL));
	ck_status(r, 200);
	ck_key(r->json, kid, "a's", key);
	/* ids that are no keys */
	ck_key_not_found(R(api("GET", "/user/keys/999999999", a, NULL)));
	ck_key_not_found(R(api("DELETE", "/user/keys/999999999", a, NULL)));
	ck_key_not_found(R(api("GET", "/user/keys/0", a, NULL)));
	ck_body(R(api("GET", "/user/keys/abc", a, NULL)), 400, "{\"error\":\"key_id is invalid\"}");
	ck_body(R(api("DELETE", "/user/keys/1.5", a, NULL)), 400,
		"{\"error\":\"key_id is invalid\"}");
}
END_TEST

START_TEST(test_keys_delete_mine)
{
	char *token = S(make_user("key_del", NULL, NULL));
	long long k1 = add_key(token, "one", new_key());
	long long k2 = add_key(token, "two", new_key());
	const char *p1 = S(fmt("/user/keys/%lld", k1));
	resp *r = R(api("DELETE", p1, token, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_key_not_found(R(api("GET", p1, token, NULL)));
	ck_key_not_found(R(api("DELETE", p1, token, NULL)));
	r = R(api("GET", "/user/keys", token, NULL));
	ck_key_ids(r, &k2, 1);
	ck_pages(r, "/user/keys", "", 1, 20, 1);
}
END_TEST

START_TEST(test_keys_admin_paths)
{
	long long uid, other_id;
	char *token = S(make_user("key_adm", &uid, NULL));
	S(make_user("key_adm_o", &other_id, NULL));
	const char *theirs = S(fmt("/users/%lld/keys", uid));
	/* the admin adds a key for the user: the user sees it as their own */
	const char *key = new_key();
	resp *r = post_key(theirs, admin_token(), "by admin", key);
	ck_status(r, 201);
	ck_header(r, "Content-Type", "application/json");
	ck_key(r->json, 0, "by admin", key);
	long long kid = jint(r->json, "id");
	r = R(api("GET", S(fmt("/user/keys/%lld", kid)), token, NULL));
	ck_status(r, 200);
	ck_key(r->json, kid, "by admin", key);
	r = R(api("GET", theirs, admin_token(), NULL));
	ck_key_ids(r, &kid, 1);
	ck_key(json_object_array_get_idx(r->json, 0), kid, "by admin", key);
	/* and not in the admin's own keys */
	r = R(api("GET", "/user/keys", admin_token(), NULL));
	ck_status(r, 200);
	for (size_t i = 0; i < json_object_array_length(r->json); i++)
		ck_assert_int_ne(jint(json_object_array_get_idx(r->json, i), "id"), kid);
	/* a JSON body */
	const char *k2 = new_key();
	r = R(api_json("POST", theirs, admin_token(),
		       S(fmt("{\"title\":\"json\",\"key\":\"%s\"}", k2))));
	ck_status(r, 201);
	long long kid2 = jint(r->json, "id");
	/* the wrong user's path does not reach the key */
	ck_key_not_found(R(api("DELETE", S(fmt("/users/%lld/keys/%lld", other_id, kid)),
			       admin_token(), NULL)));
	/* delete through the user's path */
	const char *one = S(fmt("%s/%lld", theirs, kid));
	r = R(api("DELETE", one, admin_token(), NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_key_not_found(R(api("DELETE", one, admin_token(), NULL)));
	ck_key_not_found(R(api("GET", S(fmt("/user/keys/%lld", kid)), token, NULL)));
	r = R(api("GET", theirs, admin_token(), NULL));
	ck_key_ids(r, &kid2, 1);

	/* users and keys that do not exist */
	ck_user_not_found(R(api("GET", "/users/999999999/keys", admin_token(), NULL)));
	ck_user_not_found(post_key("/users/999999999/keys", admin_token(), "x", new_key()));
	ck_user_not_found(
		R(api("DELETE", S(fmt("/users/999999999/keys/%lld", kid2)), admin_token(), NULL)));
	ck_key_not_found(R(api("DELETE", S(fmt("%s/999999999", theirs)), admin_token(), NULL)));
	/* ids that are not numbers */
	ck_body(R(api("GET", "/users/abc/keys", admin_token(), NULL)), 400,
		"{\"error\":\"id is invalid\"}");
	ck_body(post_key("/users/abc/keys", admin_token(), "x", new_key()), 400,
		"{\"error\":\"id is invalid\"}");
	ck_body(R(api("DELETE", S(fmt("/users/abc/keys/%lld", kid2)), admin_token(), NULL)), 400,
		"{\"error\":\"id is invalid\"}");
	ck_body(R(api("DELETE", S(fmt("%s/abc", theirs)), admin_token(), NULL)), 400,
		"{\"error\":\"key_id is invalid\"}");
	/* kid2 survived all of it */
	r = R(api("GET", "/user/keys", token, NULL));
	ck_key_ids(r, &kid2, 1);
}
END_TEST

START_TEST(test_keys_pagination)
{
	long long uid;
	char *token = S(make_user("key_page", &uid, NULL));
	long long ids[5];
	for (int i = 0; i < 5; i++)
		ids[i] = add_key(token, S(fmt("k%d", i)), new_key());
	const char *theirs = S(fmt("/users/%lld/keys", uid));
	for (int page = 1; page <= 3; page++) {
		size_t n = page < 3 ? 2 : 1;
		resp *r = R(api("GET", S(fmt("/user/keys?per_page=2&page=%d", page)), token, NULL));
		ck_key_ids(r, ids + (page - 1) * 2, n);
		ck_pages(r, "/user/keys", "", 5, 2, page);
		r = R(api("GET", S(fmt("%s?page=%d&per_page=2", theirs, page)), admin_token(),
			  NULL));
		ck_key_ids(r, ids + (page - 1) * 2, n);
		ck_pages(r, theirs, "", 5, 2, page);
	}
	/* other query parameters are repeated in the links */
	resp *r = R(api("GET", "/user/keys?per_page=4&page=2&order=x%20y", token, NULL));
	ck_key_ids(r, ids + 4, 1);
	ck_pages(r, "/user/keys", "order=x%20y", 5, 4, 2);
	/* per_page is capped at 100 */
	r = R(api("GET", "/user/keys?per_page=101", token, NULL));
	ck_key_ids(r, ids, 5);
	ck_pages(r, "/user/keys", "", 5, 100, 1);
	/* past the end */
	r = R(api("GET", S(fmt("%s?per_page=2&page=4", theirs)), admin_token(), NULL));
	ck_key_ids(r, NULL, 0);
	ck_pages(r, theirs, "", 5, 2, 4);
	/* bad values */
	ck_body(R(api("GET", "/user/keys?per_page=ten", token, NULL)), 400,
		"{\"error\":\"per_page is invalid\"}");
	ck_body(R(api("GET", S(fmt("%s?page=2x", theirs)), admin_token(), NULL)), 400,
		"{\"error\":\"page is invalid\"}");
}
END_TEST

START_TEST(test_keys_blocked_user)
{
	long long uid;
	char *token = S(make_user("key_blk", &uid, NULL));
	long long kid = add_key(token, "k", new_key());
	ck_code(R(api("POST", S(fmt("/users/%lld/block", uid)), admin_token(), NULL)), 201);
	ck_unauthorized(R(api("GET", "/user/keys", token, NULL)));
	ck_unauthorized(R(api("GET", S(fmt("/user/keys/%lld", kid)), token, NULL)));
	ck_unauthorized(post_key("/user/keys", token, "k2", new_key()));
	ck_unauthorized(R(api("DELETE", S(fmt("/user/keys/%lld", kid)), token, NULL)));
	/* the admin still sees the blocked user's keys */
	resp *r = R(api("GET", S(fmt("/users/%lld/keys", uid)), admin_token(), NULL));
	ck_key_ids(r, &kid, 1);
	ck_code(R(api("POST", S(fmt("/users/%lld/unblock", uid)), admin_token(), NULL)), 201);
	r = R(api("GET", "/user/keys", token, NULL));
	ck_key_ids(r, &kid, 1);
}
END_TEST

/* GET /keys/:id: any user's key with its user, for admins only (GitLab 10.8). */
START_TEST(test_keys_show_any)
{
	long long uid;
	char *username;
	char *token = S(make_user("key_any", &uid, &username));
	S(username);
	const char *text = new_key();
	long long kid = add_key(token, "any", text);
	const char *path = S(fmt("/keys/%lld", kid));
	resp *r = R(api("GET", path, admin_token(), NULL));
	ck_status(r, 200);
	static const char *const fields[] = {"id", "title", "key", "created_at", "user", NULL};
	ck_fields(r->json, fields);
	ck_assert_int_eq(jint(r->json, "id"), kid);
	ck_jstr(r, "title", "any");
	json_object *u = jget(r->json, "user");
	ck_assert(u != NULL);
	ck_assert_int_eq(jint(u, "id"), uid);
	ck_assert_str_eq(jstr(u, "username"), username);
	/* the user's public record (GitLab's UserPublic, as GET /user shows it) */
	resp *me = R(api("GET", "/user", token, NULL));
	ck_status(me, 200);
	ck_assert_str_eq(json_object_to_json_string(u), json_object_to_json_string(me->json));
	ck_body(R(api("GET", path, NULL, NULL)), 401, "{\"message\":\"401 Unauthorized\"}");
	ck_body(R(api("GET", path, token, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("GET", "/keys/999999999", admin_token(), NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", "/keys/abc", admin_token(), NULL)), 400,
		"{\"error\":\"id is invalid\"}");
}
END_TEST

Suite *suite_keys(void)
{
	Suite *s = suite_create("keys");
	TCase *tc = tcase_create("keys");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_keys_require_auth);
	tcase_add_test(tc, test_keys_real_keys);
	tcase_add_test(tc, test_keys_text_forms);
	tcase_add_test(tc, test_keys_invalid);
	tcase_add_test(tc, test_keys_duplicates);
	tcase_add_test(tc, test_keys_of_others);
	tcase_add_test(tc, test_keys_delete_mine);
	tcase_add_test(tc, test_keys_admin_paths);
	tcase_add_test(tc, test_keys_pagination);
	tcase_add_test(tc, test_keys_blocked_user);
	tcase_add_test(tc, test_keys_show_any);
	suite_add_tcase(s, tc);
	return s;
}
