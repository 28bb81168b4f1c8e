/* API suite: a project's uploads (GitLab 10's POST /projects/:id/uploads): the answer's
 * shape, the bytes back through nginx at the path the markdown links to (byte for byte,
 * with the caller's access to the project and the avatars' safe-type rule), the errors
 * (400 before 404, 401, 403, 404, 413), hostile file names, and the files going with
 * their project. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

static const char boundary[] = "collabd-uploads-boundary-91c2";

/* POST /projects/<id>/uploads of data as the multipart file "file" named filename
 * (NULL: no file part, a "other" field instead), with token (NULL: none). */
static resp *upload(long long project, const char *token, const char *filename,
		    const void *data, size_t n)
{
	size_t cap = n + 1024 + (filename ? strlen(filename) : 0), len = 0;
	char *body = S(malloc(cap));
	if (filename)
		len += (size_t)snprintf(body, cap,
					"--%s\r\nContent-Disposition: form-data; name=\"file\"; "
					"filename=\"%s\"\r\nContent-Type: application/octet-stream\r\n\r\n",
					boundary, filename);
	else
		len += (size_t)snprintf(body, cap,
					"--%s\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\n",
					boundary);
	memcpy(body + len, data, n);
	len += n;
	len += (size_t)snprintf(body + len, cap - len, "\r\n--%s--\r\n", boundary);
	ck_assert(len < cap);
	const char *headers[] = {token ? S(fmt("PRIVATE-TOKEN: %s", token)) : NULL, NULL};
	return R(http_request("POST", S(fmt("%s/api/v4/projects/%lld/uploads", api_url(), project)),
			      headers, body, len,
			      S(fmt("multipart/form-data; boundary=%s", boundary))));
}

/* GET <full_path><url> (what the markdown links to) as token (NULL: anonymous). */
static resp *fetch(const char *full_path, const char *url, const char *token)
{
	const char *headers[] = {token ? S(fmt("PRIVATE-TOKEN: %s", token)) : NULL, NULL};
	return R(http_request("GET", S(fmt("%s/%s%s", api_url(), full_path, url)), headers, NULL, 0,
			      NULL));
}

/* The 32 hex characters of the secret in url /uploads/<secret>/<name>, and the name. */
static void ck_url(const char *url, const char *name)
{
	ck_assert_msg(url && strncmp(url, "/uploads/", 9) == 0, "url %s", url ? url : "(none)");
	const char *secret = url + 9;
	ck_assert_msg(strspn(secret, "0123456789abcdef") == 32 && secret[32] == '/', "url %s",
		      url);
	ck_assert_str_eq(secret + 33, name);
}

/* <storage>/uploads/@hashed/ab/cd/<h> of project: where its files are. */
static char *uploads_dir_of(long long project)
{
	char *repo = S(repo_dir_of(project)); /* <storage>/repositories/@hashed/.../<h>.git */
	char *at = strstr(repo, "/repositories/@hashed/");
	ck_assert(at);
	*at = '\0';
	size_t n = strlen(at + 1);
	at[1 + n - 4] = '\0'; /* without .git */
	return S(fmt("%s/uploads/%s", repo, at + 1 + strlen("repositories/")));
}

static const unsigned char png[] = {0x89, 'P',  'N',  'G',  '\r', '\n', 0x1a, '\n', 0,    0,
				    0,    13,   'I',  'H',  'D',  'R',  0,    0,    0,    1,
				    0,    0,    0,    1,    8,    6,    0,    0,    0,    0x1f,
				    0x15, 0xc4, 0x89, 0,    0,    0,    0,    'I',  'E',  'N',
				    'D',  0xae, 'B',  '`',  0x82};

START_TEST(test_uploads_round_trip)
{
	char *name;
	char *token = S(make_user("up", NULL, &name));
	S(name);
	char *full;
	long long id = api_project(token, "private", &full);
	S(full);
	/* bytes, NUL and all, larger than one FastCGI record */
	size_t n = 300000;
	unsigned char *data = (unsigned char *)S(malloc(n));
	for (size_t i = 0; i < n; i++)
		data[i] = (unsigned char)(i * 7 + i / 251);
	resp *r = upload(id, token, "report.pdf", data, n);
	ck_status(r, 201);
	static const char *const fields[] = {"alt", "url", "markdown", NULL};
	ck_fields(r->json, fields);
	ck_jstr(r, "alt", "report.pdf");
	const char *url = jstr(r->json, "url");
	ck_url(url, "report.pdf");
	ck_assert_str_eq(jstr(r->json, "markdown"), S(fmt("[report.pdf](%s)", url)));
	/* stored by project id under the secret */
	char *stored = S(fmt("%s/%s", uploads_dir_of(id), url + strlen("/uploads/")));
	ck_assert_msg(access(stored, F_OK) == 0, "no file at %s", stored);

	resp *g = fetch(full, url, token);
	ck_status(g, 200);
	ck_assert_uint_eq(g->body_len, n);
	ck_assert(memcmp(g->body, data, n) == 0);
	ck_header(g, "Content-Type", "application/octet-stream");
	ck_header(g, "Content-Disposition", "attachment; filename=\"report.pdf\"");
	ck_header(g, "X-Content-Type-Options", "nosniff");
	/* the private token as a parameter too, as the API takes it */
	ck_code(fetch(full, S(fmt("%s?private_token=%s", url, token)), NULL), 200);
	/* a project's id is no path here (only the API takes one) */
	ck_code(fetch(S(fmt("%lld", id)), url, token), 404);
}
END_TEST

/* An image whose bytes are its extension's type is shown inline (and linked as one);
 * a name alone makes nothing an image. */
START_TEST(test_uploads_types)
{
	char *token = S(make_user("upt", NULL, NULL));
	char *full;
	long long id = api_project(token, "public", &full);
	S(full);
	resp *r = upload(id, token, "shot.PNG", png, sizeof(png));
	ck_status(r, 201);
	ck_jstr(r, "alt", "shot");
	const char *url = jstr(r->json, "url");
	ck_url(url, "shot.PNG");
	ck_assert_str_eq(jstr(r->json, "markdown"), S(fmt("![shot](%s)", url)));
	resp *g = fetch(full, url, NULL); /* public: anyone */
	ck_status(g, 200);
	ck_assert_uint_eq(g->body_len, sizeof(png));
	ck_assert(memcmp(g->body, png, sizeof(png)) == 0);
	ck_header(g, "Content-Type", "image/png");
	ck_header(g, "Content-Disposition", "inline; filename=\"shot.PNG\"");

	static const char html[] = "<html><script>alert(document.cookie)</script></html>";
	r = upload(id, token, "fake.png", html, sizeof(html) - 1);
	ck_status(r, 201);
	ck_assert_str_eq(jstr(r->json, "markdown"),
			 S(fmt("![fake](%s)", jstr(r->json, "url"))));
	g = fetch(full, jstr(r->json, "url"), NULL);
	ck_status(g, 200);
	ck_header(g, "Content-Type", "application/octet-stream");
	ck_header(g, "Content-Disposition", "attachment; filename=\"fake.png\"");
	ck_header(g, "X-Content-Type-Options", "nosniff");

	r = upload(id, token, "page.html", html, sizeof(html) - 1);
	ck_status(r, 201);
	g = fetch(full, jstr(r->json, "url"), NULL);
	ck_status(g, 200);
	ck_header(g, "Content-Type", "application/octet-stream");
	ck_header(g, "Content-Disposition", "attachment; filename=\"page.html\"");
	ck_assert_str_eq(g->body, html);
}
END_TEST

START_TEST(test_uploads_access)
{
	char *owner_name;
	char *owner = S(make_user("upo", NULL, &owner_name));
	S(owner_name);
	char *stranger = S(make_user("ups", NULL, NULL));
	char *full;
	long long id = api_project(owner, "private", &full);
	S(full);
	resp *r = upload(id, owner, "secret.txt", "top secret", 10);
	ck_status(r, 201);
	const char *url = jstr(r->json, "url");
	/* a private project's file: its members only; to others it is not there */
	ck_code(fetch(full, url, owner), 200);
	resp *g = fetch(full, url, stranger);
	ck_status(g, 404);
	ck_assert_ptr_null(strstr(g->body, "top secret"));
	ck_code(fetch(full, url, NULL), 404);
	ck_code(fetch(full, url, "not-a-token"), 401);
	/* nor to a stranger's upload: 404 Project Not Found, as any route of the project */
	r = upload(id, stranger, "x.txt", "x", 1);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Project Not Found");
	/* a file of one project is not another's, even with its secret */
	char *other_full;
	long long other = api_project(owner, "public", &other_full);
	S(other_full);
	(void)other;
	ck_code(fetch(other_full, url, owner), 404);
	/* the secret and name must be the ones stored */
	char *wrong = S(strdup(url));
	wrong[9] = wrong[9] == 'a' ? 'b' : 'a';
	resp *w = fetch(full, wrong, owner);
	ck_status(w, 404);
	ck_jstr(w, "message", "404 File Not Found");
	/* the public avatars' location does not serve a project's files */
	char *h = S(sql_value("SELECT encode(sha256('%lld'::bytea), 'hex')", id));
	ck_code(R(http_request("GET",
			       S(fmt("%s/uploads/@hashed/%.2s/%.2s/%s%s", api_url(), h, h + 2, h,
				     url + strlen("/uploads"))),
			       NULL, NULL, 0, NULL)),
		404);
}
END_TEST

START_TEST(test_uploads_errors)
{
	char *name;
	char *token = S(make_user("upe", NULL, &name));
	S(name);
	long long id = api_project(token, "public", NULL);
	/* no credentials: 401 */
	resp *r = upload(id, NULL, "a.txt", "a", 1);
	ck_status(r, 401);
	ck_jstr(r, "message", "401 Unauthorized");
	/* a token that may only read the user: 403 */
	char *ru = S(cli_personal_token(name, "read_user", NULL));
	ck_code(upload(id, ru, "a.txt", "a", 1), 403);
	/* no file: 400, before the project is looked for */
	r = upload(id, token, NULL, "a", 1);
	ck_status(r, 400);
	ck_jstr(r, "message", "400 (Bad request) \"file\" not given");
	r = upload(999999999, token, NULL, "a", 1);
	ck_status(r, 400);
	/* a part with an empty file name is no file (no file was chosen) */
	r = upload(id, token, "", "a", 1);
	ck_status(r, 400);
	ck_jstr(r, "message", "400 (Bad request) \"file\" not given");
	/* a file as a plain field is no file */
	r = R(api("POST", S(fmt("/projects/%lld/uploads", id)), token, "file=abc"));
	ck_status(r, 400);
	/* an unknown project */
	r = upload(999999999, token, "a.txt", "a", 1);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Project Not Found");
	/* nothing was stored by any of these */
	ck_assert_msg(access(uploads_dir_of(id), F_OK) != 0, "uploads stored for refused requests");
}
END_TEST

/* Names as GitLab 10 sanitizes them: the last component, no path tricks. */
START_TEST(test_uploads_hostile_names)
{
	char *token = S(make_user("uph", NULL, NULL));
	char *full;
	long long id = api_project(token, "private", &full);
	S(full);
	static const struct {
		const char *sent, *stored;
	} names[] = {
		{"../../../../etc/passwd", "passwd"},
		{"..\\\\..\\\\win.ini", "win.ini"},
		{"..", "_.."},
		{"...", "_..."},
		{"a b<script>&.html", "a_b_script__.html"},
		{"x/", "x"},
		{"\xe2\x80\xae" "fdp.exe", "_fdp.exe"},
		{"r\xc3\xa9sum\xc3\xa9.txt", "r\xc3\xa9sum\xc3\xa9.txt"},
		{"semi;colon%2F.txt", "semi_colon_2F.txt"},
		{"-rf +x.sh", "-rf_+x.sh"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		resp *r = upload(id, token, names[i].sent, "data", 4);
		ck_assert_msg(r->status == 201, "%s: %ld %s", names[i].sent, r->status, r->body);
		const char *url = jstr(r->json, "url");
		ck_url(url, names[i].stored);
		resp *g = fetch(full, url, token);
		ck_assert_msg(g->status == 200, "%s: GET %s: %ld", names[i].sent, url, g->status);
		ck_assert_str_eq(g->body, "data");
	}
	/* nothing outside the project's directory: one secret directory per upload */
	char *cmd = S(fmt("find '%s' -type f | wc -l", uploads_dir_of(id)));
	FILE *p = popen(cmd, "r");
	ck_assert(p);
	long long count = -1;
	ck_assert_int_eq(fscanf(p, "%lld", &count), 1);
	pclose(p);
	ck_assert_int_eq(count, (long long)(sizeof(names) / sizeof(*names)));
	/* a name over 255 bytes cannot be stored: 400, nothing written */
	char longname[400];
	memset(longname, 'a', sizeof(longname) - 5);
	strcpy(longname + sizeof(longname) - 5, ".txt");
	resp *r = upload(id, token, longname, "data", 4);
	ck_status(r, 400);
	ck_jstr(r, "error", "file is invalid");
}
END_TEST

/* Beyond max_attachment_size (MB, an application setting): 413, nothing stored. */
START_TEST(test_uploads_too_large)
{
	char *token = S(make_user("upl", NULL, NULL));
	char *full;
	long long id = api_project(token, "private", &full);
	S(full);
	resp *g = R(api("GET", "/application/settings", admin_token(), NULL));
	ck_status(g, 200);
	long long was = jint(g->json, "max_attachment_size");
	ck_code(R(api("PUT", "/application/settings", admin_token(), "max_attachment_size=1")),
		200);
	size_t n = 1024 * 1024;
	char *data = S(malloc(n + 1));
	memset(data, 'z', n + 1);
	resp *big = upload(id, token, "big.bin", data, n + 1);
	resp *fits = upload(id, token, "fits.bin", data, n);
	ck_code(R(api("PUT", "/application/settings", admin_token(),
		      S(fmt("max_attachment_size=%lld", was)))),
		200);
	ck_status(big, 413);
	ck_jstr(big, "message", "413 Request Entity Too Large");
	ck_status(fits, 201);
	char *cmd = S(fmt("find '%s' -type f -name big.bin | wc -l", uploads_dir_of(id)));
	FILE *p = popen(cmd, "r");
	ck_assert(p);
	long long count = -1;
	ck_assert_int_eq(fscanf(p, "%lld", &count), 1);
	pclose(p);
	ck_assert_int_eq(count, 0);
	ck_code(fetch(full, jstr(fits->json, "url"), token), 200);
}
END_TEST

/* A removed project's files go with it (the background process). */
START_TEST(test_uploads_removed_with_project)
{
	char *token = S(make_user("upd", NULL, NULL));
	long long id = api_project(token, "private", NULL);
	resp *r = upload(id, token, "gone.txt", "bye", 3);
	ck_status(r, 201);
	char *dir = uploads_dir_of(id);
	ck_assert(access(dir, F_OK) == 0);
	ck_code(R(api("DELETE", S(fmt("/projects/%lld", id)), token, NULL)), 202);
	ck_assert_msg(wait_gone(dir), "%s still there", dir);
}
END_TEST

Suite *suite_uploads(void)
{
	Suite *s = suite_create("uploads");
	TCase *tc = tcase_create("uploads");
	tcase_set_timeout(tc, 90);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_uploads_round_trip);
	tcase_add_test(tc, test_uploads_types);
	tcase_add_test(tc, test_uploads_access);
	tcase_add_test(tc, test_uploads_errors);
	tcase_add_test(tc, test_uploads_hostile_names);
	tcase_add_test(tc, test_uploads_too_large);
	tcase_add_test(tc, test_uploads_removed_with_project);
	suite_add_tcase(s, tc);
	return s;
}
