/* API suite: repository files (GET/POST/PUT/DELETE /repository/files/:file_path and
 * /raw), the tree, blobs, compare and contributors, with access per role. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

typedef struct {
	long long id;
	long long owner;
	char *token;
} fx;

static void project(fx *f, const char *visibility)
{
	f->token = S(make_user("fl", &f->owner, NULL));
	f->id = api_project(f->token, visibility, NULL);
}

/* /projects/:id/repository/files/<encoded path><suffix> */
static const char *file_url(const fx *f, const char *path, const char *suffix)
{
	return S(fmt("/projects/%lld/repository/files/%s%s", f->id, S(enc(path)), suffix));
}

static void put_file(const fx *f, const char *path, const char *content)
{
	resp *r = R(api("POST", file_url(f, path, ""), f->token,
			S(fmt("branch=master&commit_message=add&content=%s", S(enc(content))))));
	ck_status(r, 201);
}

static const char *tip(const fx *f, const char *ref)
{
	resp *r = R(api("GET", S(fmt("/projects/%lld/repository/commits/%s", f->id, ref)), f->token,
			NULL));
	ck_status(r, 200);
	return jstr(r->json, "id");
}

static char *b64decode(const char *s, size_t *n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc(strlen(s) + 1);
	unsigned v = 0;
	int bits = 0;
	*n = 0;
	for (; *s && *s != '='; s++) {
		v = (v << 6) | (unsigned)(strchr(tab, *s) - tab);
		if ((bits += 6) >= 8)
			out[(*n)++] = (char)(v >> (bits -= 8));
	}
	out[*n] = '\0';
	return out;
}

START_TEST(test_files_crud)
{
	static const char *const FILE_FIELDS[] = {"file_name", "file_path", "size",
						  "encoding",  "content",   "ref",
						  "blob_id",   "commit_id", "last_commit_id",
						  NULL};
	fx f;
	project(&f, "private");
	const char *path = "dir one/sub dir/file name.txt";
	const char *u = file_url(&f, path, "");
	resp *r = R(api("POST", u, f.token,
			"branch=master&commit_message=create&content=hello+world%0A"
			"&author_name=Ann&author_email=ann%40example.com"));
	ck_body(r, 201, S(fmt("{\"file_path\":\"%s\",\"branch\":\"master\"}", path)));
	const char *first = tip(&f, "master");
	r = R(api("GET", S(fmt("%s?ref=master", u)), f.token, NULL));
	ck_status(r, 200);
	ck_fields(r->json, FILE_FIELDS);
	ck_jstr(r, "file_name", "file name.txt");
	ck_jstr(r, "file_path", path);
	ck_jstr(r, "encoding", "base64");
	ck_jstr(r, "ref", "master");
	ck_jstr(r, "commit_id", first);
	ck_jstr(r, "last_commit_id", first);
	ck_assert_int_eq(jint(r->json, "size"), 12);
	size_t n;
	char *content = S(b64decode(jstr(r->json, "content"), &n));
	ck_assert_str_eq(content, "hello world\n");
	ck_assert_int_eq(strlen(jstr(r->json, "blob_id")), 40);
	r = R(api("GET", S(fmt("/projects/%lld/repository/commits/master", f.id)), f.token, NULL));
	ck_jstr(r, "author_name", "Ann");
	/* raw */
	r = R(api("GET", S(fmt("%s?ref=master", file_url(&f, path, "/raw"))), f.token, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "hello world\n");
	ck_header(r, "Content-Type", "text/plain; charset=utf-8");
	/* update, with the last commit id it was read at */
	r = R(api("PUT", u, f.token,
		  S(fmt("branch=master&commit_message=update&content=bye&last_commit_id=%s",
			first))));
	ck_body(r, 200, S(fmt("{\"file_path\":\"%s\",\"branch\":\"master\"}", path)));
	const char *second = tip(&f, "master");
	put_file(&f, "other.txt", "o");
	r = R(api("GET", S(fmt("%s?ref=master", u)), f.token, NULL));
	ck_jstr(r, "last_commit_id", second);
	ck_assert_str_ne(jstr(r->json, "commit_id"), second);
	ck_assert_int_eq(jint(r->json, "size"), 3);
	r = R(api("PUT", u, f.token,
		  S(fmt("branch=master&commit_message=u&content=x&last_commit_id=%s", first))));
	ck_status(r, 400);
	ck_jstr(r, "message",
		"You are attempting to update a file that has changed since you "
		"started editing it.");
	/* the older version by commit */
	r = R(api("GET", S(fmt("%s?ref=%s", u, first)), f.token, NULL));
	ck_assert_int_eq(jint(r->json, "size"), 12);
	/* delete */
	r = R(api("DELETE", S(fmt("%s?branch=master&commit_message=rm", u)), f.token, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_body(R(api("GET", S(fmt("%s?ref=master", u)), f.token, NULL)), 404,
		"{\"message\":\"404 File Not Found\"}");
}
END_TEST

START_TEST(test_files_errors)
{
	fx f;
	project(&f, "private");
	put_file(&f, "a.txt", "a");
	const char *before = tip(&f, "master");
	const char *u = file_url(&f, "a.txt", "");
	const char *missing = file_url(&f, "b.txt", "");
	ck_body(R(api("GET", u, f.token, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"ref\\\" not given\"}");
	ck_body(R(api("GET", S(fmt("%s?ref=nope", u)), f.token, NULL)), 404,
		"{\"message\":\"404 Commit Not Found\"}");
	ck_body(R(api("GET", S(fmt("%s?ref=master", missing)), f.token, NULL)), 404,
		"{\"message\":\"404 File Not Found\"}");
	ck_body(R(api("GET", S(fmt("%s?ref=master", file_url(&f, "b.txt", "/raw"))), f.token,
		      NULL)),
		404, "{\"message\":\"404 File Not Found\"}");
	ck_body(R(api("POST", u, f.token, "commit_message=m&content=x")), 400,
		"{\"message\":\"400 (Bad request) \\\"branch\\\" not given\"}");
	ck_body(R(api("POST", u, f.token, "branch=master&commit_message=m")), 400,
		"{\"message\":\"400 (Bad request) \\\"content\\\" not given\"}");
	ck_body(R(api("POST", u, f.token, "branch=master&content=x")), 400,
		"{\"message\":\"400 (Bad request) \\\"commit_message\\\" not given\"}");
	ck_body(R(api("POST", u, f.token, "branch=master&commit_message=m&content=x&encoding=hex")),
		400, "{\"error\":\"encoding does not have a valid value\"}");
	ck_body(R(api("POST", u, f.token, "branch=master&commit_message=m&content=x")), 400,
		"{\"message\":\"A file with this name already exists\"}");
	ck_body(R(api("PUT", missing, f.token, "branch=master&commit_message=m&content=x")), 400,
		"{\"message\":\"A file with this name doesn't exist\"}");
	ck_body(R(api("DELETE", S(fmt("%s?branch=master&commit_message=m", missing)), f.token,
		      NULL)),
		400, "{\"message\":\"A file with this name doesn't exist\"}");
	ck_body(R(api("DELETE", S(fmt("%s?commit_message=m", u)), f.token, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"branch\\\" not given\"}");
	ck_body(R(api("POST", file_url(&f, "../up", ""), f.token,
		      "branch=master&commit_message=m&content=x")),
		400, "{\"message\":\"Path cannot include directory traversal\"}");
	ck_body(R(api("POST", file_url(&f, "a.txt/below", ""), f.token,
		      "branch=master&commit_message=m&content=x")),
		400, "{\"message\":\"A file with this name already exists\"}");
	ck_assert_str_eq(tip(&f, "master"), before);
	ck_body(R(api("GET", "/projects/999999999/repository/files/a?ref=master", f.token, NULL)),
		404, "{\"message\":\"404 Project Not Found\"}");
}
END_TEST

/* Every name no branch may have: as the branch a file write goes to (GitLab 10's words
 * for a branch it would create, and for one that is not there), or the one it starts
 * from, a 400, and no branch moves or appears; as a ref to read a file or a tree from, a
 * 404, never a 500 (nor an option to git). */
START_TEST(test_files_bad_branch_names)
{
	fx f;
	project(&f, "private");
	put_file(&f, "a.txt", "a");
	const char *tip_before = tip(&f, "master");
	const char *branches = S(fmt("/projects/%lld/repository/branches", f.id));
	const char *before = R(api("GET", branches, f.token, NULL))->body;
	const char *u = file_url(&f, "n.txt", ""), *a = file_url(&f, "a.txt", "");
	const char *off = "You can only create or edit files when you are on a branch";
	for (const char *const *n = bad_ref_names; *n; n++) {
		const char *e = S(enc(*n));
		const char *created = S(fmt("Something went wrong when we tried to create '%s' for "
					    "you: Branch name is invalid",
					    *n));
		resp *r = R(
			api("POST", u, f.token,
			    S(fmt("branch=%s&start_branch=master&commit_message=m&content=x", e))));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), created) == 0,
			      "branch %s: %ld %s", *n, r->status, r->body);
		r = R(api("PUT", a, f.token, S(fmt("branch=%s&commit_message=m&content=x", e))));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), off) == 0,
			      "same branch %s: %ld %s", *n, r->status, r->body);
		r = R(api("POST", u, f.token,
			  S(fmt("branch=fresh&start_branch=%s&commit_message=m&content=x", e))));
		ck_assert_msg(r->status == 400 && jstr(r->json, "message") &&
				      strcmp(jstr(r->json, "message"), off) == 0,
			      "start branch %s: %ld %s", *n, r->status, r->body);
		const char *reads[] = {
			S(fmt("%s?ref=%s", a, e)),
			S(fmt("%s?ref=%s", file_url(&f, "a.txt", "/raw"), e)),
			S(fmt("/projects/%lld/repository/tree?ref=%s", f.id, e)),
		};
		for (size_t i = 0; i < sizeof(reads) / sizeof(*reads); i++) {
			r = R(api("GET", reads[i], f.token, NULL));
			ck_assert_msg(r->status == 404 || r->status == 400, "GET %s: %ld %s",
				      reads[i], r->status, r->body);
		}
	}
	ck_assert_str_eq(R(api("GET", branches, f.token, NULL))->body, before);
	ck_assert_str_eq(tip(&f, "master"), tip_before);
}
END_TEST

START_TEST(test_files_base64)
{
	fx f;
	project(&f, "private");
	/* bytes 00 ff 10 41 */
	resp *r = R(api("POST", file_url(&f, "bin/data.bin", ""), f.token,
			"branch=master&commit_message=bin&encoding=base64&content=AP8QQQ%3D%3D"));
	ck_status(r, 201);
	r = R(api("GET", S(fmt("%s?ref=master", file_url(&f, "bin/data.bin", "/raw"))), f.token,
		  NULL));
	ck_status(r, 200);
	ck_assert_int_eq(r->body_len, 4);
	ck_assert(memcmp(r->body, "\x00\xff\x10\x41", 4) == 0);
	ck_header(r, "Content-Type", "application/octet-stream");
	r = R(api("GET", S(fmt("%s?ref=master", file_url(&f, "bin/data.bin", ""))), f.token, NULL));
	ck_jstr(r, "content", "AP8QQQ==");
	ck_assert_int_eq(jint(r->json, "size"), 4);
	const char *blob = jstr(r->json, "blob_id");
	r = R(api("GET", S(fmt("/projects/%lld/repository/blobs/%s", f.id, blob)), f.token, NULL));
	ck_body(r, 200,
		S(fmt("{\"size\":4,\"encoding\":\"base64\",\"content\":\"AP8QQQ==\","
		      "\"sha\":\"%s\"}",
		      blob)));
	r = R(api("GET", S(fmt("/projects/%lld/repository/blobs/%.10s/raw", f.id, blob)), f.token,
		  NULL));
	ck_status(r, 200);
	ck_assert(r->body_len == 4 && memcmp(r->body, "\x00\xff\x10\x41", 4) == 0);
	ck_body(R(api("GET", S(fmt("/projects/%lld/repository/blobs/abcdef0123", f.id)), f.token,
		      NULL)),
		404, "{\"message\":\"404 Blob Not Found\"}");
	ck_body(R(api("POST", file_url(&f, "bad.bin", ""), f.token,
		      "branch=master&commit_message=bin&encoding=base64&content=%21%21")),
		400, "{\"error\":\"content is invalid\"}");
}
END_TEST

/* n bytes that do not compress (every byte value, in no order), from seed. */
static unsigned char *noise(size_t n, unsigned long long seed)
{
	unsigned char *p = malloc(n);
	unsigned long long x = seed * 2654435761ULL + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 24);
	}
	return p;
}

/* The base64 of n bytes (padded); with a line break after every 76 characters when
 * wrap, as base64(1) and many clients write it. */
static char *b64encode(const unsigned char *p, size_t n, bool wrap)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = (n + 2) / 3 * 4;
	char *out = malloc(len + len / 76 + 2), *o = out;
	size_t col = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		char q[4] = {tab[v >> 18], tab[v >> 12 & 63], i + 1 < n ? tab[v >> 6 & 63] : '=',
			     i + 2 < n ? tab[v & 63] : '='};
		for (int k = 0; k < 4; k++) {
			*o++ = q[k];
			if (wrap && ++col == 76) {
				*o++ = '\n';
				col = 0;
			}
		}
	}
	*o = '\0';
	return out;
}

/* git's id of a blob of the n bytes at p (git hash-object). */
static char *git_blob_id_of(const unsigned char *p, size_t n)
{
	char *work = git_work_new(), *out = NULL;
	char *file = S(fmt("%s/blob.bin", work));
	FILE *fp = fopen(file, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(p, 1, n, fp), n);
	fclose(fp);
	ck_assert_int_eq(git_sh(work, &out, "hash-object %s", file), 0);
	git_work_remove(work);
	out[strcspn(out, "\n")] = '\0';
	return S(out);
}

/* The file at path on master holds exactly the n bytes at p, as a blob whose id is
 * blob_id, last changed by commit last: its JSON (content, size, ids), its blob's JSON
 * and its raw bytes. */
static void ck_large_file(const fx *f, const char *path, const unsigned char *p, size_t n,
			  const char *blob_id, const char *last)
{
	char *b64 = S(b64encode(p, n, false));
	resp *r = R(api("GET", S(fmt("%s?ref=master", file_url(f, path, ""))), f->token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "size"), (long long)n);
	ck_jstr(r, "encoding", "base64");
	ck_assert_uint_eq(strlen(jstr(r->json, "content")), strlen(b64));
	ck_assert(strcmp(jstr(r->json, "content"), b64) == 0);
	ck_jstr(r, "blob_id", blob_id);
	ck_jstr(r, "commit_id", tip(f, "master"));
	ck_jstr(r, "last_commit_id", last);
	ck_jstr(r, "file_path", path);
	r = R(api("GET", S(fmt("/projects/%lld/repository/blobs/%s", f->id, blob_id)), f->token,
		  NULL));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "size"), (long long)n);
	ck_assert(strcmp(jstr(r->json, "content"), b64) == 0);
	ck_jstr(r, "sha", blob_id);
	r = R(api("GET", S(fmt("%s?ref=master", file_url(f, path, "/raw"))), f->token, NULL));
	ck_status(r, 200);
	ck_assert_uint_eq(r->body_len, n);
	ck_assert(memcmp(r->body, p, n) == 0);
}

/* Files of several MiB written through the API (as base64, within max_body) and read
 * back byte for byte; a body over max_body is refused and changes nothing. */
START_TEST(test_files_large)
{
	fx f;
	project(&f, "private");
	put_file(&f, "README", "x");
	/* 6 MiB by POST /files/:path, its base64 wrapped at 76 columns */
	size_t n1 = 6 << 20;
	unsigned char *d1 = noise(n1, 1);
	char *wrapped = b64encode(d1, n1, true);
	char *form =
		fmt("branch=master&commit_message=big&encoding=base64&content=%s", S(enc(wrapped)));
	free(wrapped);
	resp *r = R(api("POST", file_url(&f, "big/one.bin", ""), f.token, form));
	free(form);
	ck_status(r, 201);
	char *id1 = git_blob_id_of(d1, n1);
	ck_large_file(&f, "big/one.bin", d1, n1, id1, tip(&f, "master"));
	/* 5 MiB by a commit's JSON action, beside it */
	size_t n2 = 5 << 20;
	unsigned char *d2 = noise(n2, 2);
	char *b64 = b64encode(d2, n2, false);
	char *json = fmt("{\"branch\":\"master\",\"commit_message\":\"two\",\"actions\":["
			 "{\"action\":\"create\",\"file_path\":\"big/two.bin\","
			 "\"encoding\":\"base64\",\"content\":\"%s\"}]}",
			 b64);
	free(b64);
	r = R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f.id)), f.token, json));
	free(json);
	ck_status(r, 201);
	const char *made = S(strdup(jstr(r->json, "id")));
	ck_large_file(&f, "big/two.bin", d2, n2, git_blob_id_of(d2, n2), made);
	/* the first file is still there, unchanged; last changed before */
	resp *one = R(api("GET", S(fmt("%s?ref=master", file_url(&f, "big/one.bin", ""))), f.token,
			  NULL));
	ck_jstr(one, "blob_id", id1);
	ck_assert_str_ne(jstr(one->json, "last_commit_id"), made);
	/* over max_body (10 MiB): 413, and the file and the branch as they were */
	size_t n3 = 8 << 20;
	unsigned char *d3 = noise(n3, 3);
	char *b3 = b64encode(d3, n3, false);
	form = fmt("branch=master&commit_message=over&encoding=base64&content=%s", S(enc(b3)));
	free(b3);
	ck_assert_uint_gt(strlen(form), 10 << 20);
	r = R(api("PUT", file_url(&f, "big/one.bin", ""), f.token, form));
	free(form);
	ck_status(r, 413);
	ck_assert_str_eq(tip(&f, "master"), made);
	ck_large_file(&f, "big/one.bin", d1, n1, id1, jstr(one->json, "last_commit_id"));
	free(d1);
	free(d2);
	free(d3);
}
END_TEST

START_TEST(test_files_tree)
{
	static const char *const TREE_FIELDS[] = {"id", "name", "type", "path", "mode", NULL};
	fx f;
	project(&f, "private");
	const char *t = S(fmt("/projects/%lld/repository/tree", f.id));
	resp *r = R(api("GET", t, f.token, NULL));
	ck_body(r, 404, "{\"message\":\"404 Tree Not Found\"}");
	put_file(&f, "z.txt", "z");
	put_file(&f, "a/b/c.txt", "c");
	put_file(&f, "a/d.txt", "d");
	put_file(&f, "m.txt", "m");
	r = R(api("GET", t, f.token, NULL));
	ck_status(r, 200);
	ck_pages(r, t, "", 3, 20, 1);
	json_object *e = json_object_array_get_idx(r->json, 0);
	ck_fields(e, TREE_FIELDS);
	ck_assert_str_eq(jstr(e, "type"), "tree");
	ck_assert_str_eq(jstr(e, "path"), "a");
	ck_assert_str_eq(jstr(e, "mode"), "040000");
	e = json_object_array_get_idx(r->json, 1);
	ck_assert_str_eq(jstr(e, "name"), "m.txt");
	ck_assert_str_eq(jstr(e, "mode"), "100644");
	ck_assert_str_eq(jstr(e, "type"), "blob");
	r = R(api("GET", S(fmt("%s?path=a&recursive=true", t)), f.token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 0), "path"), "a/b");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 1), "path"), "a/b/c.txt");
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 2), "path"), "a/d.txt");
	r = R(api("GET", S(fmt("%s?recursive=true&per_page=2&page=2", t)), f.token, NULL));
	ck_pages(r, t, "recursive=true", 6, 2, 2);
	r = R(api("GET", S(fmt("%s?path=nope", t)), f.token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	ck_body(R(api("GET", S(fmt("%s?ref=nope", t)), f.token, NULL)), 404,
		"{\"message\":\"404 Tree Not Found\"}");
	ck_body(R(api("GET", S(fmt("%s?recursive=maybe", t)), f.token, NULL)), 400,
		"{\"error\":\"recursive is invalid\"}");
}
END_TEST

START_TEST(test_files_compare_contributors)
{
	fx f;
	project(&f, "public");
	put_file(&f, "a.txt", "a");
	const char *base = tip(&f, "master");
	ck_status(R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f.id)), f.token,
			     "{\"branch\":\"topic\",\"start_branch\":\"master\",\"commit_message\":"
			     "\"t1\",\"author_email\":\"bob@example.com\",\"author_name\":\"Bob\","
			     "\"actions\":[{\"action\":\"create\",\"file_path\":\"t.txt\","
			     "\"content\":\"t\"}]}")),
		  201);
	ck_status(R(api("PUT", file_url(&f, "t.txt", ""), f.token,
			"branch=topic&commit_message=t2&content=tt")),
		  200);
	put_file(&f, "m.txt", "m");
	const char *cmp = S(fmt("/projects/%lld/repository/compare", f.id));
	resp *r = R(api("GET", S(fmt("%s?from=master&to=topic", cmp)), NULL, NULL));
	ck_status(r, 200);
	static const char *const CMP_FIELDS[] = {"commit",          "commits",          "diffs",
						 "compare_timeout", "compare_same_ref", NULL};
	ck_fields(r->json, CMP_FIELDS);
	ck_assert_int_eq(json_object_array_length(jget(r->json, "commits")), 2);
	ck_assert_str_eq(jstr(json_object_array_get_idx(jget(r->json, "commits"), 0), "title"),
			 "t1");
	ck_assert_str_eq(jstr(jget(r->json, "commit"), "title"), "t2");
	ck_assert_int_eq(json_object_array_length(jget(r->json, "diffs")), 1);
	ck_assert(!jbool(r->json, "compare_same_ref") && !jbool(r->json, "compare_timeout"));
	/* straight: from master's tree itself, so m.txt shows as removed */
	r = R(api("GET", S(fmt("%s?from=master&to=topic&straight=true", cmp)), NULL, NULL));
	ck_assert_int_eq(json_object_array_length(jget(r->json, "diffs")), 2);
	r = R(api("GET", S(fmt("%s?from=%s&to=%s", cmp, base, base)), NULL, NULL));
	ck_assert(jbool(r->json, "compare_same_ref"));
	ck_assert(jnull(r->json, "commit"));
	ck_assert_int_eq(json_object_array_length(jget(r->json, "commits")), 0);
	r = R(api("GET", S(fmt("%s?from=nope&to=master", cmp)), NULL, NULL));
	ck_status(r, 200);
	ck_assert(jnull(r->json, "commit") && jnull(r->json, "compare_same_ref"));
	ck_body(R(api("GET", S(fmt("%s?to=master", cmp)), NULL, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"from\\\" not given\"}");
	/* contributors of the default branch */
	const char *c = S(fmt("/projects/%lld/repository/contributors", f.id));
	r = R(api("GET", c, NULL, NULL));
	ck_status(r, 200);
	ck_pages(r, c, "", 1, 20, 1);
	json_object *e = json_object_array_get_idx(r->json, 0);
	static const char *const CONTRIB_FIELDS[] = {"name",      "email",     "commits",
						     "additions", "deletions", NULL};
	ck_fields(e, CONTRIB_FIELDS);
	ck_assert_int_eq(jint(e, "commits"), 2);
	ck_assert_int_eq(jint(e, "additions"), 0);
	/* bob appears once topic is merged in: fast-forward master with the API is not ours,
	 * so compare the topic branch's authors through the history instead */
	r = R(api("GET", S(fmt("/projects/%lld/repository/commits?ref_name=topic", f.id)), NULL,
		  NULL));
	ck_assert_str_eq(jstr(json_object_array_get_idx(r->json, 1), "author_name"), "Bob");
}
END_TEST

START_TEST(test_files_access)
{
	static const char *const vis[] = {"private", "internal", "public"};
	for (int v = 0; v < 3; v++) {
		fx f;
		project(&f, vis[v]);
		put_file(&f, "a.txt", "a");
		long long uid[5];
		char *tok[5];
		int levels[5] = {10, 20, 30, 40, 0};
		for (int i = 0; i < 5; i++) {
			tok[i] = S(make_user("fla", &uid[i], NULL));
			if (levels[i])
				fixture_member("Project", f.id, uid[i], levels[i]);
		}
		const char *get = S(fmt("%s?ref=master", file_url(&f, "a.txt", "")));
		const char *tree = S(fmt("/projects/%lld/repository/tree", f.id));
		bool anon_reads = v == 2, others_read = v >= 1;
		ck_code(R(api("GET", get, NULL, NULL)), anon_reads ? 200 : 404);
		ck_code(R(api("GET", tree, NULL, NULL)), anon_reads ? 200 : 404);
		ck_code(R(api("GET", get, tok[4], NULL)), others_read ? 200 : 404);
		ck_code(R(api("GET", get, tok[0], NULL)), others_read ? 200 : 403);
		ck_code(R(api("GET", tree, tok[0], NULL)), others_read ? 200 : 403);
		ck_code(R(api("GET", get, tok[1], NULL)), 200);
		const char *u = file_url(&f, "a.txt", "");
		ck_code(R(api("PUT", u, NULL, "branch=master&commit_message=m&content=0")), 401);
		ck_code(R(api("PUT", u, tok[0], "branch=master&commit_message=m&content=1")), 403);
		ck_code(R(api("PUT", u, tok[1], "branch=master&commit_message=m&content=2")), 403);
		ck_code(R(api("PUT", u, tok[4], "branch=master&commit_message=m&content=3")),
			others_read ? 403 : 404);
		ck_code(R(api("PUT", u, tok[2], "branch=master&commit_message=m&content=4")), 200);
		ck_code(R(api("PUT", u, tok[3], "branch=master&commit_message=m&content=5")), 200);
		free(sql_value("INSERT INTO protected_branches (project_id, name, push_access_level,"
			       " merge_access_level) VALUES (%lld, 'master', 40, 30)",
			       f.id));
		ck_body(R(api("PUT", u, tok[2], "branch=master&commit_message=m&content=6")), 400,
			"{\"message\":\"You are not allowed to push into this branch\"}");
		ck_code(R(api("DELETE", S(fmt("%s?branch=master&commit_message=m", u)), tok[2],
			      NULL)),
			400);
		ck_code(R(api("PUT", u, tok[3], "branch=master&commit_message=m&content=7")), 200);
		resp *r = R(api("GET", S(fmt("%s?ref=master", file_url(&f, "a.txt", "/raw"))),
				f.token, NULL));
		ck_assert_str_eq(r->body, "7");
	}
}
END_TEST

Suite *suite_files(void)
{
	Suite *s = suite_create("files");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_files_crud);
	tcase_add_test(tc, test_files_errors);
	tcase_add_test(tc, test_files_bad_branch_names);
	tcase_add_test(tc, test_files_base64);
	tcase_add_test(tc, test_files_large);
	tcase_add_test(tc, test_files_tree);
	tcase_add_test(tc, test_files_compare_contributors);
	tcase_add_test(tc, test_files_access);
	suite_add_tcase(s, tc);
	return s;
}
