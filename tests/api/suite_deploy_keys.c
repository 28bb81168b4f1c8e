/* API suite: deploy keys (GitLab 10.8's lib/api/deploy_keys.rb): the admins' GET
 * /deploy_keys; a project's GET/POST /projects/:id/deploy_keys, GET/PUT/DELETE
 * .../deploy_keys/:key_id and POST .../:key_id/enable for its masters. Shapes, errors,
 * pagination, the keys reused across projects (User#accessible_deploy_keys), the
 * fingerprint shared with users' keys, and a key's removal with its last project. Git
 * over SSH with a deploy key is suite_ssh's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const KEY_FIELDS[] = {"id", "title", "key", "created_at", NULL};
static const char *const DEPLOY_KEY_FIELDS[] = {"id",         "title",    "key",
						"created_at", "can_push", NULL};

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

/* A fresh, well-formed ed25519 public key line (random key bytes: fingerprints are
 * unique across the service, so every test has its own keys). */
static char *new_key(void)
{
	static const char type[] = "ssh-ed25519";
	unsigned char blob[4 + sizeof(type) - 1 + 4 + 32];
	size_t n = 0;
	blob[n++] = 0, blob[n++] = 0, blob[n++] = 0, blob[n++] = sizeof(type) - 1;
	memcpy(blob + n, type, sizeof(type) - 1);
	n += sizeof(type) - 1;
	blob[n++] = 0, blob[n++] = 0, blob[n++] = 0, blob[n++] = 32;
	FILE *f = fopen("/dev/urandom", "rb");
	ck_assert(f != NULL);
	ck_assert(fread(blob + n, 1, 32, f) == 32);
	fclose(f);
	n += 32;
	char *b = base64(blob, n);
	char *line = S(fmt("ssh-ed25519 %s deploy@collabd", b));
	free(b);
	return line;
}

static char *dk_path(long long project)
{
	return S(fmt("/projects/%lld/deploy_keys", project));
}

static char *dk_key_path(long long project, long long key)
{
	return S(fmt("/projects/%lld/deploy_keys/%lld", project, key));
}

/* POST /projects/:id/deploy_keys with title, key and, unless NULL, can_push. */
static resp *post_dk(long long project, const char *token, const char *title, const char *key,
		     const char *can_push)
{
	char *body = S(fmt("title=%s&key=%s", S(enc(title)), S(enc(key))));
	if (can_push)
		body = S(fmt("%s&can_push=%s", body, can_push));
	return R(api("POST", dk_path(project), token, body));
}

/* Adds key to the project; its id. */
static long long add_dk(long long project, const char *token, const char *key, bool can_push)
{
	resp *r = post_dk(project, token, "deploy", key, can_push ? "true" : "false");
	ck_status(r, 201);
	return jint(r->json, "id");
}

static void ck_deploy_key(json_object *o, long long id, const char *title, const char *key,
			  bool can_push)
{
	ck_fields(o, DEPLOY_KEY_FIELDS);
	if (id > 0)
		ck_assert_int_eq(jint(o, "id"), id);
	ck_assert_str_eq(jstr(o, "title"), title);
	ck_assert_str_eq(jstr(o, "key"), key);
	ck_assert_int_eq(jbool(o, "can_push"), can_push);
	const char *t = jstr(o, "created_at");
	ck_assert_msg(t && strlen(t) == 24 && t[10] == 'T' && t[23] == 'Z', "created_at: %s",
		      t ? t : "(null)");
}

/* The key ids of a list response, in order. */
static void ck_ids(resp *r, const long long *ids, size_t n)
{
	ck_status(r, 200);
	ck_assert_msg(json_object_array_length(r->json) == n, "expected %zu keys: %s", n, r->body);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(jint(json_object_array_get_idx(r->json, i), "id") == ids[i],
			      "key %zu: expected %lld in %s", i, ids[i], r->body);
}

/* The record of key id in GET /deploy_keys (every page looked at), NULL when absent. */
static json_object *in_all(long long id)
{
	for (int page = 1;; page++) {
		resp *r = R(api("GET", S(fmt("/deploy_keys?per_page=100&page=%d", page)),
				admin_token(), NULL));
		ck_status(r, 200);
		size_t n = json_object_array_length(r->json);
		for (size_t i = 0; i < n; i++) {
			json_object *o = json_object_array_get_idx(r->json, i);
			if (jint(o, "id") == id)
				return o;
		}
		if (n < 100)
			return NULL;
	}
}

#define NOT_FOUND "{\"message\":\"404 Not found\"}"
#define FORBIDDEN "{\"message\":\"403 Forbidden\"}"

START_TEST(test_deploy_keys_auth)
{
	long long owner_id, dev_id, stranger_id;
	char *owner = S(make_user("dk_auth", &owner_id, NULL));
	char *dev = S(make_user("dk_auth", &dev_id, NULL));
	char *stranger = S(make_user("dk_auth", &stranger_id, NULL));
	long long id = api_project(owner, "private", NULL);
	long long pub = api_project(owner, "public", NULL);
	sql_member("Project", id, dev_id, 30);
	sql_member("Project", pub, dev_id, 30);
	long long key = add_dk(id, owner, new_key(), false);
	const char *body = S(fmt("title=t&key=%s", S(enc(new_key()))));

	/* no credentials: 401 everywhere */
	const char *const unauth[][2] = {
		{"GET", "/deploy_keys"},
		{"GET", dk_path(id)},
		{"GET", dk_key_path(id, key)},
		{"POST", dk_path(id)},
		{"PUT", dk_key_path(id, key)},
		{"DELETE", dk_key_path(id, key)},
		{"POST", S(fmt("%s/enable", dk_key_path(id, key)))},
	};
	for (size_t i = 0; i < sizeof(unauth) / sizeof(*unauth); i++)
		ck_body(R(api(unauth[i][0], unauth[i][1], NULL, body)), 401,
			"{\"message\":\"401 Unauthorized\"}");
	/* all deploy keys: admins only */
	ck_body(R(api("GET", "/deploy_keys", owner, NULL)), 403, FORBIDDEN);
	/* a developer sees the projects but administers neither: 403 */
	for (int p = 0; p < 2; p++) {
		long long pid = p ? pub : id;
		ck_body(R(api("GET", dk_path(pid), dev, NULL)), 403, FORBIDDEN);
		ck_body(R(api("GET", dk_key_path(pid, key), dev, NULL)), 403, FORBIDDEN);
		ck_body(R(api("POST", dk_path(pid), dev, body)), 403, FORBIDDEN);
		ck_body(R(api("PUT", dk_key_path(pid, key), dev, "title=x")), 403, FORBIDDEN);
		ck_body(R(api("DELETE", dk_key_path(pid, key), dev, NULL)), 403, FORBIDDEN);
		ck_body(R(api("POST", S(fmt("%s/enable", dk_key_path(pid, key))), dev, NULL)), 403,
			FORBIDDEN);
	}
	/* someone who cannot see the private project: 404; the public one: 403 */
	ck_body(R(api("GET", dk_path(id), stranger, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("POST", dk_path(id), stranger, body)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("GET", dk_path(pub), stranger, NULL)), 403, FORBIDDEN);
	/* nothing changed: the project has its one key */
	long long ids[] = {key};
	ck_ids(R(api("GET", dk_path(id), owner, NULL)), ids, 1);
	ck_ids(R(api("GET", dk_path(pub), owner, NULL)), NULL, 0);
	/* a master, and an admin who is no member, administer them */
	free(sql_value("UPDATE members SET access_level = 40 WHERE source_type = 'Project'"
		       " AND source_id = %lld AND user_id = %lld",
		       id, dev_id));
	ck_ids(R(api("GET", dk_path(id), dev, NULL)), ids, 1);
	ck_ids(R(api("GET", dk_path(id), admin_token(), NULL)), ids, 1);
}
END_TEST

START_TEST(test_deploy_keys_shapes)
{
	long long uid;
	char *owner = S(make_user("dk_shape", &uid, NULL));
	char *path;
	long long id = api_project(owner, "private", &path);
	S(path);
	/* the key's text comes back normalised: surrounding blanks go */
	char *text = new_key();
	resp *r = post_dk(id, owner, "Deploy one", S(fmt("  %s\n", text)), NULL);
	ck_status(r, 201);
	ck_deploy_key(r->json, 0, "Deploy one", text, false);
	long long k1 = jint(r->json, "id");
	char *text2 = new_key();
	r = post_dk(id, owner, "Deploy two", text2, "true");
	ck_status(r, 201);
	ck_deploy_key(r->json, 0, "Deploy two", text2, true);
	long long k2 = jint(r->json, "id");

	/* list and show, by id and by the project's path */
	r = R(api("GET", dk_path(id), owner, NULL));
	long long ids[] = {k1, k2};
	ck_ids(r, ids, 2);
	ck_deploy_key(json_object_array_get_idx(r->json, 0), k1, "Deploy one", text, false);
	ck_deploy_key(json_object_array_get_idx(r->json, 1), k2, "Deploy two", text2, true);
	r = R(api("GET", S(fmt("/projects/%s/deploy_keys/%lld", S(enc(path)), k2)), owner, NULL));
	ck_status(r, 200);
	ck_deploy_key(r->json, k2, "Deploy two", text2, true);
	/* every deploy key, for admins: the key's fields (no can_push: it is a project's) */
	json_object *o = in_all(k2);
	ck_assert_ptr_nonnull(o);
	ck_fields(o, KEY_FIELDS);
	ck_assert_str_eq(jstr(o, "key"), text2);
	/* a user's key is no deploy key */
	r = R(api("POST", "/user/keys", owner, S(fmt("title=mine&key=%s", S(enc(new_key()))))));
	ck_status(r, 201);
	long long user_key = jint(r->json, "id");
	ck_assert_ptr_null(in_all(user_key));
	ck_body(R(api("GET", dk_key_path(id, user_key), owner, NULL)), 404, NOT_FOUND);
	/* nor is a deploy key one of the user's */
	r = R(api("GET", "/user/keys", owner, NULL));
	long long mine[] = {user_key};
	ck_ids(r, mine, 1);
	ck_body(R(api("GET", S(fmt("/user/keys/%lld", k1)), owner, NULL)), 404,
		"{\"message\":\"404 Key Not Found\"}");
	/* HEAD of a GET route */
	r = R(api("HEAD", dk_path(id), owner, NULL));
	ck_status(r, 200);
}
END_TEST

START_TEST(test_deploy_keys_invalid)
{
	long long uid;
	char *owner = S(make_user("dk_bad", &uid, NULL));
	long long id = api_project(owner, "private", NULL);
	const char *k = S(enc(new_key()));
	ck_body(R(api("POST", dk_path(id), owner, S(fmt("key=%s", k)))), 400,
		"{\"message\":\"400 (Bad request) \\\"title\\\" not given\"}");
	ck_body(R(api("POST", dk_path(id), owner, "title=t")), 400,
		"{\"message\":\"400 (Bad request) \\\"key\\\" not given\"}");
	ck_body(R(api("POST", dk_path(id), owner, S(fmt("title=t&key=%s&can_push=maybe", k)))), 400,
		"{\"error\":\"can_push is invalid\"}");
	const char *invalid = "{\"message\":{\"deploy_key.key\":[\"is invalid\"],"
			      "\"deploy_key.fingerprint\":[\"cannot be generated\"]}}";
	ck_body(post_dk(id, owner, "t", "ssh-ed25519 AAAA", NULL), 400, invalid);
	ck_body(post_dk(id, owner, "t", "not a key at all", NULL), 400, invalid);
	char *longer = S(malloc(300));
	memset(longer, 'x', 299);
	longer[299] = '\0';
	ck_body(post_dk(id, owner, longer, new_key(), NULL), 400,
		"{\"message\":{\"title\":[\"is too long (maximum is 255 characters)\"]}}");
	/* bad ids */
	ck_body(R(api("GET", S(fmt("%s/abc", dk_path(id))), owner, NULL)), 400,
		"{\"error\":\"key_id is invalid\"}");
	ck_body(R(api("DELETE", S(fmt("%s/abc", dk_path(id))), owner, NULL)), 400,
		"{\"error\":\"key_id is invalid\"}");
	ck_body(R(api("POST", S(fmt("%s/abc/enable", dk_path(id))), owner, NULL)), 400,
		"{\"error\":\"key_id is invalid\"}");
	ck_body(R(api("GET", dk_path(id + 1000000), owner, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	/* nothing was made */
	ck_ids(R(api("GET", dk_path(id), owner, NULL)), NULL, 0);
}
END_TEST

START_TEST(test_deploy_keys_duplicates)
{
	long long a_id, b_id, uid;
	char *a = S(make_user("dk_dup", &a_id, NULL));
	char *b = S(make_user("dk_dup", &b_id, NULL));
	char *user = S(make_user("dk_dup", &uid, NULL));
	long long p1 = api_project(a, "private", NULL);
	long long p2 = api_project(a, "private", NULL);
	long long p3 = api_project(b, "private", NULL);
	char *text = new_key();
	long long key = add_dk(p1, a, text, false);

	/* the same key on the same project: that one, unchanged */
	resp *r = post_dk(p1, a, "again", text, "true");
	ck_status(r, 201);
	ck_deploy_key(r->json, key, "deploy", text, false);
	long long one[] = {key};
	ck_ids(R(api("GET", dk_path(p1), a, NULL)), one, 1);
	/* on another project of a member of the first: the same key, enabled there with its
	 * own can_push */
	r = post_dk(p2, a, "other title", text, "true");
	ck_status(r, 201);
	ck_deploy_key(r->json, key, "deploy", text, true);
	ck_ids(R(api("GET", dk_path(p2), a, NULL)), one, 1);
	ck_deploy_key(R(api("GET", dk_key_path(p1, key), a, NULL))->json, key, "deploy", text,
		      false);
	/* someone who is on none of its projects cannot take it: the fingerprint is taken */
	const char *taken =
		"{\"message\":{\"deploy_key.fingerprint\":[\"has already been taken\"]}}";
	ck_body(post_dk(p3, b, "mine", text, NULL), 400, taken);
	ck_ids(R(api("GET", dk_path(p3), b, NULL)), NULL, 0);
	/* nor may an admin who is no member of them */
	ck_body(post_dk(p3, admin_token(), "mine", text, NULL), 400, taken);
	/* once b is a guest of p1, they reach it */
	sql_member("Project", p1, b_id, 10);
	r = post_dk(p3, b, "mine", text, NULL);
	ck_status(r, 201);
	ck_deploy_key(r->json, key, "deploy", text, false);

	/* users' keys and deploy keys share their fingerprints */
	char *ukey = new_key();
	r = R(api("POST", "/user/keys", user, S(fmt("title=u&key=%s", S(enc(ukey))))));
	ck_status(r, 201);
	ck_body(post_dk(p1, a, "deploy", ukey, NULL), 400, taken);
	ck_body(R(api("POST", "/user/keys", user, S(fmt("title=u&key=%s", S(enc(text)))))), 400,
		"{\"message\":{\"fingerprint\":[\"has already been taken\"]}}");
	ck_ids(R(api("GET", dk_path(p1), a, NULL)), one, 1);
}
END_TEST

START_TEST(test_deploy_keys_enable)
{
	long long a_id, m_id;
	char *a = S(make_user("dk_en", &a_id, NULL));
	char *m = S(make_user("dk_en", &m_id, NULL));
	long long p1 = api_project(a, "private", NULL);
	long long p2 = api_project(a, "private", NULL);
	long long p3 = api_project(m, "private", NULL);
	char *text = new_key();
	long long key = add_dk(p1, a, text, true);
	const char *en2 = S(fmt("%s/enable", dk_key_path(p2, key)));

	resp *r = R(api("POST", en2, a, NULL));
	ck_status(r, 201);
	ck_fields(r->json, KEY_FIELDS);
	ck_assert_int_eq(jint(r->json, "id"), key);
	ck_assert_str_eq(jstr(r->json, "key"), text);
	/* enabled with can_push false (it is the link's), once however often asked */
	ck_status(R(api("POST", en2, a, NULL)), 201);
	r = R(api("GET", dk_path(p2), a, NULL));
	long long one[] = {key};
	ck_ids(r, one, 1);
	ck_deploy_key(json_object_array_get_idx(r->json, 0), key, "deploy", text, false);
	/* a master of p3 who is on none of the key's projects: not found */
	const char *en3 = S(fmt("%s/enable", dk_key_path(p3, key)));
	ck_body(R(api("POST", en3, m, NULL)), 404, "{\"message\":\"404 Deploy Key Not Found\"}");
	ck_body(R(api("POST", S(fmt("%s/enable", dk_key_path(p3, key + 100000))), m, NULL)), 404,
		"{\"message\":\"404 Deploy Key Not Found\"}");
	/* a user's key is not a deploy key */
	r = R(api("POST", "/user/keys", m, S(fmt("title=u&key=%s", S(enc(new_key()))))));
	ck_status(r, 201);
	ck_body(R(api("POST", S(fmt("%s/enable", dk_key_path(p3, jint(r->json, "id")))), m, NULL)),
		404, "{\"message\":\"404 Deploy Key Not Found\"}");
	ck_ids(R(api("GET", dk_path(p3), m, NULL)), NULL, 0);
	/* as a reporter of p2 they reach it */
	sql_member("Project", p2, m_id, 20);
	ck_status(R(api("POST", en3, m, NULL)), 201);
	ck_ids(R(api("GET", dk_path(p3), m, NULL)), one, 1);
}
END_TEST

START_TEST(test_deploy_keys_update)
{
	long long uid;
	char *owner = S(make_user("dk_put", &uid, NULL));
	long long p1 = api_project(owner, "private", NULL);
	long long p2 = api_project(owner, "private", NULL);
	char *text = new_key();
	long long key = add_dk(p1, owner, text, false);
	ck_status(R(api("POST", S(fmt("%s/enable", dk_key_path(p2, key))), owner, NULL)), 201);

	resp *r = R(api("PUT", dk_key_path(p1, key), owner, "can_push=true"));
	ck_status(r, 200);
	ck_deploy_key(r->json, key, "deploy", text, true);
	r = R(api("PUT", dk_key_path(p1, key), owner, "title=Renamed"));
	ck_status(r, 200);
	ck_deploy_key(r->json, key, "Renamed", text, true);
	r = R(api("PUT", dk_key_path(p1, key), owner, "title=Both&can_push=false"));
	ck_status(r, 200);
	ck_deploy_key(r->json, key, "Both", text, false);
	/* the title is the key's (every project), can_push the project's */
	ck_status(R(api("PUT", dk_key_path(p2, key), owner, "can_push=true")), 200);
	ck_deploy_key(R(api("GET", dk_key_path(p2, key), owner, NULL))->json, key, "Both", text,
		      true);
	ck_deploy_key(R(api("GET", dk_key_path(p1, key), owner, NULL))->json, key, "Both", text,
		      false);

	/* errors, and nothing changed by them */
	ck_body(R(api("PUT", dk_key_path(p1, key), owner, NULL)), 400,
		"{\"error\":\"title, can_push are missing, at least one parameter must be "
		"provided\"}");
	ck_body(R(api("PUT", dk_key_path(p1, key), owner, "title=&can_push=true")), 400,
		"{\"message\":{\"deploy_key.title\":[\"can't be blank\"]}}");
	ck_body(R(api("PUT", dk_key_path(p1, key), owner, "can_push=perhaps")), 400,
		"{\"error\":\"can_push is invalid\"}");
	ck_body(R(api("PUT", dk_key_path(p1, key + 100000), owner, "title=x")), 404, NOT_FOUND);
	long long p3 = api_project(owner, "private", NULL);
	ck_body(R(api("PUT", dk_key_path(p3, key), owner, "title=x")), 404, NOT_FOUND);
	ck_deploy_key(R(api("GET", dk_key_path(p1, key), owner, NULL))->json, key, "Both", text,
		      false);
}
END_TEST

START_TEST(test_deploy_keys_delete)
{
	long long uid;
	char *owner = S(make_user("dk_del", &uid, NULL));
	long long p1 = api_project(owner, "private", NULL);
	long long p2 = api_project(owner, "private", NULL);
	char *text = new_key();
	long long key = add_dk(p1, owner, text, false);
	ck_status(R(api("POST", S(fmt("%s/enable", dk_key_path(p2, key))), owner, NULL)), 201);

	/* off one project: still on the other, and still a deploy key */
	resp *r = R(api("DELETE", dk_key_path(p1, key), owner, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_body(R(api("GET", dk_key_path(p1, key), owner, NULL)), 404, NOT_FOUND);
	ck_body(R(api("DELETE", dk_key_path(p1, key), owner, NULL)), 404, NOT_FOUND);
	long long one[] = {key};
	ck_ids(R(api("GET", dk_path(p2), owner, NULL)), one, 1);
	ck_assert_ptr_nonnull(in_all(key));
	/* off its last project: gone (10.8 removes an orphaned deploy key), its fingerprint
	 * free again */
	ck_status(R(api("DELETE", dk_key_path(p2, key), owner, NULL)), 204);
	ck_assert_ptr_null(in_all(key));
	long long again = add_dk(p1, owner, text, false);
	ck_assert_int_ne(again, key);

	/* a project's removal takes its keys with it, and removes those it held alone */
	long long p3 = api_project(owner, "private", NULL);
	long long shared = add_dk(p3, owner, new_key(), false);
	long long alone = add_dk(p3, owner, new_key(), false);
	ck_status(R(api("POST", S(fmt("%s/enable", dk_key_path(p1, shared))), owner, NULL)), 201);
	free(sql_value("DELETE FROM projects WHERE id = %lld", p3));
	ck_assert_ptr_nonnull(in_all(shared));
	ck_assert_ptr_null(in_all(alone));
	long long two[] = {again, shared};
	ck_ids(R(api("GET", dk_path(p1), owner, NULL)), two, 2);
}
END_TEST

START_TEST(test_deploy_keys_pagination)
{
	long long uid;
	char *owner = S(make_user("dk_page", &uid, NULL));
	long long id = api_project(owner, "private", NULL);
	long long ids[3];
	for (int i = 0; i < 3; i++)
		ids[i] = add_dk(id, owner, new_key(), i == 1);
	const char *path = dk_path(id);
	resp *r = R(api("GET", S(fmt("%s?per_page=2", path)), owner, NULL));
	ck_ids(r, ids, 2);
	ck_pages(r, path, "", 3, 2, 1);
	r = R(api("GET", S(fmt("%s?per_page=2&page=2", path)), owner, NULL));
	ck_ids(r, ids + 2, 1);
	ck_pages(r, path, "", 3, 2, 2);
	r = R(api("GET", path, owner, NULL));
	ck_ids(r, ids, 3);
	ck_pages(r, path, "", 3, 20, 1);
	/* the admins' list is paginated too */
	r = R(api("GET", "/deploy_keys?per_page=1", admin_token(), NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_header(r, "X-Per-Page", "1");
	ck_assert_int_ge(atoll(resp_header(r, "X-Total")), 3);
}
END_TEST

Suite *suite_deploy_keys(void)
{
	Suite *s = suite_create("deploy_keys");
	TCase *tc = tcase_create("deploy_keys");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_deploy_keys_auth);
	tcase_add_test(tc, test_deploy_keys_shapes);
	tcase_add_test(tc, test_deploy_keys_invalid);
	tcase_add_test(tc, test_deploy_keys_duplicates);
	tcase_add_test(tc, test_deploy_keys_enable);
	tcase_add_test(tc, test_deploy_keys_update);
	tcase_add_test(tc, test_deploy_keys_delete);
	tcase_add_test(tc, test_deploy_keys_pagination);
	suite_add_tcase(s, tc);
	return s;
}
