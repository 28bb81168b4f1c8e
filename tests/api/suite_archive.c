/* API suite: repository archives (GET /repository/archive[.format]) and raw files over
 * raw_inline_max, both written once to the download cache and sent by nginx through
 * X-Accel-Redirect: every format's bytes and file list, names and headers, the sha
 * parameter, errors and access per role. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"

typedef struct {
	long long id;
	char *path;  /* the project's path (its last segment) */
	char *token; /* its owner's */
} fx;

static void put_file(const fx *f, const char *branch, const char *path, const char *content)
{
	resp *r = R(api("POST", S(fmt("/projects/%lld/repository/files/%s", f->id, S(enc(path)))),
			f->token,
			S(fmt("branch=%s&commit_message=add&content=%s", S(enc(branch)),
			      S(enc(content))))));
	ck_status(r, 201);
}

/* A project with README.md and src/main.c on master. */
static void project(fx *f, const char *visibility)
{
	char *full;
	f->token = S(make_user("ar", NULL, NULL));
	f->id = api_project(f->token, visibility, &full);
	S(full);
	f->path = strrchr(full, '/') + 1;
	put_file(f, "master", "README.md", "# readme\n");
	put_file(f, "master", "src/main.c", "int main(void) { return 0; }\n");
}

static const char *tip(const fx *f, const char *ref)
{
	resp *r = R(api("GET", S(fmt("/projects/%lld/repository/commits/%s", f->id, S(enc(ref)))),
			f->token, NULL));
	ck_status(r, 200);
	return jstr(r->json, "id");
}

static const char *archive_url(const fx *f, const char *suffix)
{
	return S(fmt("/projects/%lld/repository/archive%s", f->id, suffix));
}

/* The names in archive body (tar, compressed or not, or zip), one a line, sorted. */
static const char *listing(const resp *r, const char *ext)
{
	char path[] = "/tmp/collabd-archive-XXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	ck_assert(write(fd, r->body, r->body_len) == (ssize_t)r->body_len);
	close(fd);
	const char *lister = strcmp(ext, "zip") == 0       ? "unzip -Z1"
			     : strcmp(ext, "tar.gz") == 0  ? "tar -tzf"
			     : strcmp(ext, "tar.bz2") == 0 ? "tar -tjf"
							   : "tar -tf";
	FILE *p = popen(S(fmt("%s '%s' | LC_ALL=C sort", lister, path)), "r");
	ck_assert(p != NULL);
	char *out = S(calloc(1, 65536));
	size_t n = fread(out, 1, 65535, p);
	out[n] = '\0';
	ck_assert_int_eq(pclose(p), 0);
	unlink(path);
	return out;
}

/* What an archive with this prefix of the project's two files lists. */
static const char *files_of(const char *prefix, const char *extra)
{
	return S(fmt("%s/\n%s/README.md\n%s%s/src/\n%s/src/main.c\n", prefix, prefix,
		     extra ? extra : "", prefix, prefix));
}

static bool magic(const resp *r, const char *ext)
{
	if (strcmp(ext, "tar.gz") == 0)
		return r->body_len > 2 && memcmp(r->body, "\x1f\x8b", 2) == 0;
	if (strcmp(ext, "tar.bz2") == 0)
		return r->body_len > 3 && memcmp(r->body, "BZh", 3) == 0;
	if (strcmp(ext, "zip") == 0)
		return r->body_len > 4 && memcmp(r->body, "PK\x03\x04", 4) == 0;
	return r->body_len > 262 && memcmp(r->body + 257, "ustar", 5) == 0;
}

/* GET url as the project's owner: a 200 archive of ext named prefix.ext whose files are
 * want; X-Accel-Redirect stays between collabd and nginx. */
static void ck_archive(const fx *f, const char *url, const char *ext, const char *prefix,
		       const char *want)
{
	resp *r = R(api("GET", url, f->token, NULL));
	ck_status(r, 200);
	ck_assert_msg(magic(r, ext), "%s: not a %s (%zu bytes)", url, ext, r->body_len);
	ck_header(r, "Content-Type",
		  strcmp(ext, "zip") == 0 ? "application/zip" : "application/octet-stream");
	ck_header(r, "Content-Disposition", S(fmt("attachment; filename=\"%s.%s\"", prefix, ext)));
	ck_header(r, "X-Accel-Redirect", NULL);
	ck_assert_str_eq(listing(r, ext), want);
}

START_TEST(test_archive_formats)
{
	static const struct {
		const char *format; /* as the path's extension and as the parameter */
		const char *ext;
	} formats[] = {
		{"tar.gz", "tar.gz"},   {"tgz", "tar.gz"},  {"gz", "tar.gz"},
		{"tar.bz2", "tar.bz2"}, {"tbz", "tar.bz2"}, {"tbz2", "tar.bz2"},
		{"tb2", "tar.bz2"},     {"bz2", "tar.bz2"}, {"tar", "tar"},
		{"zip", "zip"},
	};
	fx f;
	project(&f, "private");
	const char *sha = tip(&f, "master");
	const char *prefix = S(fmt("%s-master-%s", f.path, sha));
	const char *want = files_of(prefix, NULL);
	/* the default: tar.gz of the default branch */
	ck_archive(&f, archive_url(&f, ""), "tar.gz", prefix, want);
	for (size_t i = 0; i < sizeof(formats) / sizeof(*formats); i++) {
		ck_archive(&f, archive_url(&f, S(fmt(".%s", formats[i].format))), formats[i].ext,
			   prefix, want);
		ck_archive(&f, archive_url(&f, S(fmt("?format=%s", formats[i].format))),
			   formats[i].ext, prefix, want);
	}
	/* made once: the cache holds one file per format of the commit, the same bytes each
	 * time */
	char *dir = S(fmt("%s/storage/cache/archives/%lld/%s", getenv("COLLABD_DIR"), f.id, sha));
	static const char *const exts[] = {"tar.gz", "tar.bz2", "tar", "zip"};
	for (size_t i = 0; i < 4; i++) {
		struct stat st;
		const char *file = S(fmt("%s/%s.%s", dir, prefix, exts[i]));
		ck_assert_msg(stat(file, &st) == 0, "%s missing", file);
		resp *a = R(api("GET", archive_url(&f, S(fmt(".%s", exts[i]))), f.token, NULL));
		resp *b = R(api("GET", archive_url(&f, S(fmt(".%s", exts[i]))), f.token, NULL));
		ck_assert(a->body_len == (size_t)st.st_size && b->body_len == a->body_len);
		ck_assert(memcmp(a->body, b->body, a->body_len) == 0);
	}
	/* no temporary file left behind */
	FILE *p = popen(S(fmt("ls -a '%s' | grep -c tmp", dir)), "r");
	ck_assert(p != NULL);
	char line[32] = "";
	ck_assert(fgets(line, sizeof(line), p) != NULL);
	pclose(p);
	ck_assert_msg(atoi(line) == 0, "temporary files left in %s", dir);
	/* HEAD: the headers without the body */
	resp *r = R(api("HEAD", archive_url(&f, ".zip"), f.token, NULL));
	ck_status(r, 200);
	ck_header(r, "Content-Type", "application/zip");
	ck_header(r, "X-Accel-Redirect", NULL);
	ck_assert_int_eq(r->body_len, 0);
}
END_TEST

START_TEST(test_archive_refs)
{
	fx f;
	project(&f, "private");
	const char *first = tip(&f, "master");
	/* a branch with a slash, with one more file */
	ck_code(R(api("POST", S(fmt("/projects/%lld/repository/branches", f.id)), f.token,
		      "branch=feat/x&ref=master")),
		201);
	put_file(&f, "feat/x", "extra.txt", "more\n");
	const char *feat = tip(&f, "feat/x");
	const char *prefix = S(fmt("%s-feat-x-%s", f.path, feat));
	ck_archive(&f, archive_url(&f, ".tar?sha=feat%2Fx"), "tar", prefix,
		   S(fmt("%s/\n%s/README.md\n%s/extra.txt\n%s/src/\n%s/src/main.c\n", prefix,
			 prefix, prefix, prefix, prefix)));
	/* a tag */
	ck_code(R(api("POST", S(fmt("/projects/%lld/repository/tags", f.id)), f.token,
		      S(fmt("tag_name=v1.0&ref=%s", first)))),
		201);
	prefix = S(fmt("%s-v1.0-%s", f.path, first));
	ck_archive(&f, archive_url(&f, ".zip?sha=v1.0"), "zip", prefix, files_of(prefix, NULL));
	/* a commit, whole or abbreviated */
	prefix = S(fmt("%s-%s-%s", f.path, first, first));
	ck_archive(&f, archive_url(&f, S(fmt(".tar.gz?sha=%s", first))), "tar.gz", prefix,
		   files_of(prefix, NULL));
	prefix = S(fmt("%s-%.8s-%s", f.path, first, first));
	ck_archive(&f, archive_url(&f, S(fmt(".tar.gz?sha=%.8s", first))), "tar.gz", prefix,
		   files_of(prefix, NULL));
	/* the default branch moves: the archive follows it */
	put_file(&f, "master", "new.txt", "n\n");
	const char *second = tip(&f, "master");
	ck_assert_str_ne(second, first);
	prefix = S(fmt("%s-master-%s", f.path, second));
	ck_archive(&f, archive_url(&f, ".tar"), "tar", prefix,
		   S(fmt("%s/\n%s/README.md\n%s/new.txt\n%s/src/\n%s/src/main.c\n", prefix, prefix,
			 prefix, prefix, prefix)));
	/* a ref that names no commit */
	static const char *const unknown[] = {"nope", "deadbeefdeadbeef", "master~1x"};
	for (size_t i = 0; i < 3; i++)
		ck_body(R(api("GET", archive_url(&f, S(fmt("?sha=%s", S(enc(unknown[i]))))),
			      f.token, NULL)),
			404, "{\"message\":\"404 File Not Found\"}");
	/* a project without a commit */
	fx empty;
	empty.token = f.token;
	empty.id = api_project(f.token, "private", NULL);
	ck_body(R(api("GET", archive_url(&empty, ""), f.token, NULL)), 404,
		"{\"message\":\"404 File Not Found\"}");
	ck_body(R(api("GET", archive_url(&empty, ".zip?sha=master"), f.token, NULL)), 404,
		"{\"message\":\"404 File Not Found\"}");
}
END_TEST

START_TEST(test_archive_errors)
{
	fx f;
	project(&f, "private");
	/* a format GitLab 10 has no route for; a format parameter that is none */
	static const char *const no_route[] = {
		".rar", ".7z", ".tar.xz", ".zip.exe", ".", ".%2e%2e", ".zip%2F..%2F..%2Fetc"};
	for (size_t i = 0; i < sizeof(no_route) / sizeof(*no_route); i++)
		ck_body(R(api("GET", archive_url(&f, no_route[i]), f.token, NULL)), 404,
			"{\"error\":\"404 Not Found\"}");
	static const char *const bad_param[] = {"rar", "..%2F..%2Fpasswd", "zip%00", "ZIP"};
	for (size_t i = 0; i < sizeof(bad_param) / sizeof(*bad_param); i++) {
		resp *r = R(api("GET", archive_url(&f, S(fmt("?format=%s", bad_param[i]))), f.token,
				NULL));
		ck_assert_msg(r->status == 400, "format=%s: %ld %s", bad_param[i], r->status,
			      r->body);
	}
	ck_body(R(api("GET", archive_url(&f, "?format=rar"), f.token, NULL)), 400,
		"{\"error\":\"format does not have a valid value\"}");
	/* refs that try to leave the repository or the cache */
	static const char *const traversal[] = {
		"../../../../etc/passwd", "..",          "refs/../../x",
		"master/../../../..",     "/etc/passwd", "..%2F.."};
	for (size_t i = 0; i < sizeof(traversal) / sizeof(*traversal); i++)
		ck_body(R(api("GET", archive_url(&f, S(fmt(".tar?sha=%s", S(enc(traversal[i]))))),
			      f.token, NULL)),
			404, "{\"message\":\"404 File Not Found\"}");
	/* the internal location is not reachable from outside */
	const char *sha = tip(&f, "master");
	ck_code(R(api("GET", archive_url(&f, ".tar"), f.token, NULL)), 200);
	resp *r = R(http_request("GET",
				 S(fmt("%s/_internal/cache/archives/%lld/%s/%s-master-%s.tar",
				       api_url(), f.id, sha, f.path, sha)),
				 NULL, NULL, 0, NULL));
	ck_status(r, 404);
	ck_body(R(api("GET", "/projects/999999999/repository/archive", f.token, NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
}
END_TEST

START_TEST(test_archive_access)
{
	/* private: anonymous 404, guest 403, reporter and up 200; public: anyone */
	fx f;
	project(&f, "private");
	long long uid[3];
	char *tok[3];
	static const int levels[] = {10, 20, 30};
	for (int i = 0; i < 3; i++) {
		tok[i] = S(make_user("am", &uid[i], NULL));
		fixture_member("Project", f.id, uid[i], levels[i]);
	}
	char *outsider = S(make_user("ao", NULL, NULL));
	const char *u = archive_url(&f, ".zip");
	ck_body(R(api("GET", u, NULL, NULL)), 404, "{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("GET", u, outsider, NULL)), 404, "{\"message\":\"404 Project Not Found\"}");
	ck_body(R(api("GET", u, tok[0], NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("GET", u, tok[1], NULL)), 200);
	ck_code(R(api("GET", u, tok[2], NULL)), 200);
	ck_code(R(api("GET", u, f.token, NULL)), 200);
	fx pub;
	project(&pub, "public");
	resp *r = R(api("GET", archive_url(&pub, ".tar"), NULL, NULL));
	ck_status(r, 200);
	ck_assert(magic(r, "tar"));
	ck_code(R(api("GET", archive_url(&pub, ".tar"), outsider, NULL)), 200);
	fx internal;
	project(&internal, "internal");
	ck_code(R(api("GET", archive_url(&internal, ""), NULL, NULL)), 404);
	ck_code(R(api("GET", archive_url(&internal, ""), outsider, NULL)), 200);
}
END_TEST

/* n bytes of a pattern that holds NUL bytes (binary) or only letters (text). */
static char *pattern(size_t n, bool binary)
{
	char *s = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		s[i] = binary ? (char)((i * 7 + i / 251) & 0xff)
			      : (char)('a' + (i * 13 + i / 97) % 26);
	s[n] = '\0';
	return s;
}

static char *b64(const char *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned char)p[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)p[i + 2];
		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

START_TEST(test_archive_large_raw)
{
	/* over raw_inline_max (1 MiB by default): sent by nginx from the cache, the same
	 * bytes and headers as an inline answer */
	fx f;
	project(&f, "private");
	size_t n = (1 << 20) + 4097;
	char *bin = S(pattern(n, true)), *text = S(pattern(n, false));
	resp *r = R(api("POST", S(fmt("/projects/%lld/repository/files/big.bin", f.id)), f.token,
			S(fmt("branch=master&commit_message=big&encoding=base64&content=%s",
			      S(enc(S(b64(bin, n))))))));
	ck_status(r, 201);
	put_file(&f, "master", "big.txt", text);
	put_file(&f, "master", "small.txt", "small\n");
	for (int pass = 0; pass < 2; pass++) { /* the first writes the cache, the second reads it */
		r = R(api("GET",
			  S(fmt("/projects/%lld/repository/files/big.bin/raw?ref=master", f.id)),
			  f.token, NULL));
		ck_status(r, 200);
		ck_assert_int_eq(r->body_len, n);
		ck_assert(memcmp(r->body, bin, n) == 0);
		ck_header(r, "Content-Type", "application/octet-stream");
		ck_header(r, "X-Accel-Redirect", NULL);
		r = R(api("GET",
			  S(fmt("/projects/%lld/repository/files/big.txt/raw?ref=master", f.id)),
			  f.token, NULL));
		ck_status(r, 200);
		ck_assert_int_eq(r->body_len, n);
		ck_assert(memcmp(r->body, text, n) == 0);
		ck_header(r, "Content-Type", "text/plain; charset=utf-8");
		ck_header(r, "X-Accel-Redirect", NULL);
	}
	r = R(api("GET", S(fmt("/projects/%lld/repository/files/big.bin?ref=master", f.id)),
		  f.token, NULL));
	ck_status(r, 200);
	const char *blob = S(strdup(jstr(r->json, "blob_id")));
	struct stat st;
	const char *cached =
		S(fmt("%s/storage/cache/blobs/%lld/%s", getenv("COLLABD_DIR"), f.id, blob));
	ck_assert_msg(stat(cached, &st) == 0 && (size_t)st.st_size == n, "%s", cached);
	/* what the client gets is the cache's file, sent by nginx: changed there (the same
	 * size), it is what arrives; put back, the file again */
	FILE *w = fopen(cached, "r+b");
	ck_assert(w != NULL);
	ck_assert(fwrite("CHANGED", 1, 7, w) == 7);
	fclose(w);
	const char *raw = S(fmt("/projects/%lld/repository/files/big.bin/raw?ref=master", f.id));
	r = R(api("GET", raw, f.token, NULL));
	ck_assert(r->body_len == n && memcmp(r->body, "CHANGED", 7) == 0 &&
		  memcmp(r->body + 7, bin + 7, n - 7) == 0);
	w = fopen(cached, "r+b");
	ck_assert(w != NULL);
	ck_assert(fwrite(bin, 1, 7, w) == 7);
	fclose(w);
	r = R(api("GET", raw, f.token, NULL));
	ck_assert(r->body_len == n && memcmp(r->body, bin, n) == 0);
	r = R(api("GET", S(fmt("/projects/%lld/repository/blobs/%.12s/raw", f.id, blob)), f.token,
		  NULL));
	ck_status(r, 200);
	ck_assert_int_eq(r->body_len, n);
	ck_assert(memcmp(r->body, bin, n) == 0);
	ck_header(r, "X-Accel-Redirect", NULL);
	/* a small file is answered inline, and is not cached */
	r = R(api("GET", S(fmt("/projects/%lld/repository/files/small.txt?ref=master", f.id)),
		  f.token, NULL));
	const char *small = S(strdup(jstr(r->json, "blob_id")));
	r = R(api("GET", S(fmt("/projects/%lld/repository/files/small.txt/raw?ref=master", f.id)),
		  f.token, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "small\n");
	ck_assert(stat(S(fmt("%s/storage/cache/blobs/%lld/%s", getenv("COLLABD_DIR"), f.id, small)),
		       &st) < 0);
	/* the same access rules: a guest may not read it */
	long long guest;
	char *gt = S(make_user("ag", &guest, NULL));
	fixture_member("Project", f.id, guest, 10);
	ck_body(R(api("GET", S(fmt("/projects/%lld/repository/files/big.bin/raw?ref=master", f.id)),
		      gt, NULL)),
		403, "{\"message\":\"403 Forbidden\"}");
	/* a removed project takes its cache entries with it */
	ck_code(R(api("DELETE", S(fmt("/projects/%lld", f.id)), f.token, NULL)), 202);
	ck_assert_msg(wait_gone(cached), "%s is still there", cached);
}
END_TEST

Suite *suite_archive(void)
{
	Suite *s = suite_create("archive");
	TCase *tc = tcase_create("archive");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_archive_formats);
	tcase_add_test(tc, test_archive_refs);
	tcase_add_test(tc, test_archive_errors);
	tcase_add_test(tc, test_archive_access);
	tcase_add_test(tc, test_archive_large_raw);
	suite_add_tcase(s, tc);
	return s;
}
