/* API suite: hostile input. JSON that json-c accepts and JSON does not (NaN, Infinity,
 * lone surrogates); long query strings, whose Link headers must fit nginx's FastCGI
 * buffer (never a 502) up to the request line nginx and collabd accept (414 beyond);
 * sudo with credentials other than the private token; avatars that are not what their
 * name says, how nginx sends uploads, and avatar files removed with their user. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"

/* A string of n copies of c. */
static char *repeat(char c, size_t n)
{
	char *s = S(malloc(n + 1));
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* ---- strict JSON ---- */

START_TEST(test_hostile_json)
{
	static const char *const bad[] = {
		"{\"message\":NaN}",           "{\"message\":nan}",
		"{\"message\":Infinity}",      "{\"message\":-Infinity}",
		"{\"message\":\"\\ud800\"}",   "{\"message\":\"\\udc00\"}",
		"{\"message\":\"a\\ud800b\"}", "{\"message\":\"\\ud800\\u0041\"}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		resp *r = R(api_json("POST", "/broadcast_messages", admin_token(), bad[i]));
		ck_body(r, 400, "{\"message\":\"400 (Bad request) malformed JSON body\"}");
	}
	/* a surrogate pair is one character */
	resp *r = R(api_json("POST", "/broadcast_messages", admin_token(),
			     "{\"message\":\"smile \\ud83d\\ude00\"}"));
	ck_status(r, 201);
	ck_jstr(r, "message", "smile \xf0\x9f\x98\x80");
	ck_code(R(api("DELETE", S(fmt("/broadcast_messages/%lld", jint(r->json, "id"))),
		      admin_token(), NULL)),
		204);
}
END_TEST

/* ---- long query strings ---- */

/* GET path?search=<value> as the admin: 200 with a Link header that repeats the value
 * (encoded) in each of its URLs. */
static void ck_long_query(const char *path, const char *value, const char *encoded)
{
	const char *sep = strchr(path, '?') ? "&" : "?";
	resp *r = R(api("GET", S(fmt("%s%ssearch=%s", path, sep, value)), admin_token(), NULL));
	ck_assert_msg(r->status == 200, "GET %s with a %zu-character query: %ld %.200s", path,
		      strlen(value), r->status, r->body);
	const char *link = resp_header(r, "Link");
	ck_assert_msg(link != NULL, "GET %s: no Link header", path);
	size_t urls = 0;
	for (const char *p = link; (p = strstr(p, encoded)) != NULL; p += strlen(encoded))
		urls++;
	ck_assert_msg(urls >= 2, "GET %s: the query is in %zu URLs of the Link header", path, urls);
}

START_TEST(test_hostile_long_query_lists)
{
	long long uid;
	S(make_user("hq_user", &uid, NULL));
	long long pid = api_project(admin_token(), "private", NULL);
	long long gid = api_group(admin_token(), "private", NULL);
	/* every paginated list */
	const char *lists[] = {
		"/projects",
		S(fmt("/users/%lld/projects", uid)),
		"/groups",
		S(fmt("/groups/%lld/projects", gid)),
		"/namespaces",
		S(fmt("/projects/%lld/members", pid)),
		S(fmt("/groups/%lld/members", gid)),
		"/users",
		"/user/keys",
		S(fmt("/users/%lld/keys", uid)),
		S(fmt("/users/%lld/events", uid)),
		S(fmt("/users/%lld/impersonation_tokens", uid)),
		"/broadcast_messages",
		S(fmt("/projects/%lld/access_requests", pid)),
		S(fmt("/groups/%lld/access_requests", gid)),
		"/events",
		S(fmt("/projects/%lld/events", pid)),
	};
	const char *a1900 = repeat('a', 1900), *a6000 = repeat('a', 6000);
	for (size_t i = 0; i < sizeof(lists) / sizeof(*lists); i++) {
		ck_long_query(lists[i], a1900, a1900);
		ck_long_query(lists[i], a6000, a6000);
	}
	/* the longest Link header: a query that fills the request line nginx accepts with
	 * characters that take three times the room once encoded ("+" is a space, %20) */
	const char *spaces = repeat('+', 8000), *encoded = S(malloc(3 * 8000 + 1));
	for (size_t i = 0; i < 8000; i++)
		memcpy((char *)encoded + 3 * i, "%20", 4);
	ck_long_query("/users", spaces, encoded);
	ck_long_query(S(fmt("/projects/%lld/members", pid)), spaces, encoded);
	ck_long_query("/projects?per_page=1", spaces, encoded);
}
END_TEST

/* Beyond the request line nginx accepts: its 414, in JSON. Through a server that lets
 * longer lines through (the per-instance ports of tests/api/run, with 16k buffers, as a
 * deployment with other buffers): collabd's own 414. Never a 502. */
START_TEST(test_hostile_uri_too_long)
{
	const char *want = "{\"message\":\"414 Request-URI Too Large\"}";
	const char *a9000 = repeat('a', 9000), *a12000 = repeat('a', 12000);
	resp *r = R(api("GET", S(fmt("/projects?search=%s", a9000)), admin_token(), NULL));
	ck_body(r, 414, want);
	ck_header(r, "Content-Type", "application/json");
	r = R(api("GET", S(fmt("/users?search=%s", a12000)), admin_token(), NULL));
	ck_body(r, 414, want);

	const char *urls = getenv("COLLABD_INSTANCE_URLS");
	ck_assert_msg(urls && *urls, "COLLABD_INSTANCE_URLS must be set");
	char *instance = S(strndup(urls, strcspn(urls, " ")));
	const char *hs[] = {S(fmt("PRIVATE-TOKEN: %s", admin_token())), NULL};
	r = R(http_request("GET", S(fmt("%s/api/v4/projects?search=%s", instance, a12000)), hs,
			   NULL, 0, NULL));
	ck_body(r, 414, want);
	ck_assert_msg(resp_header(r, "X-Request-Id") != NULL, "not collabd's 414");
	/* right at the limit, it answers */
	size_t room = 8192 - strlen("/api/v4/users?search=");
	r = R(http_request("GET", S(fmt("%s/api/v4/users?search=%s", instance, repeat('a', room))),
			   hs, NULL, 0, NULL));
	ck_status(r, 200);
	ck_assert_ptr_nonnull(resp_header(r, "Link"));
	r = R(http_request("GET",
			   S(fmt("%s/api/v4/users?search=%s", instance, repeat('a', room + 1))), hs,
			   NULL, 0, NULL));
	ck_body(r, 414, want);
}
END_TEST

/* ---- sudo only with the private token ---- */

#define SUDO_REFUSED "403 Forbidden  - Private token must be specified in order to use sudo"

/* GET path with the credential header hdr: status want; with sudo refused for 403. */
static void ck_sudo(const char *path, const char *hdr, const char *sudo, long want)
{
	const char *hs[] = {hdr, sudo, NULL};
	resp *r = R(api_h("GET", path, hs, NULL, NULL));
	ck_assert_msg(r->status == want, "GET %s with %.30s and %s: %ld %s", path, hdr,
		      sudo ? sudo : "no sudo", r->status, r->body);
	if (want == 403)
		ck_jstr(r, "message", SUDO_REFUSED);
}

START_TEST(test_hostile_sudo_needs_private_token)
{
	long long uid, aid;
	S(make_user("hs_target", &uid, NULL));
	char *impersonation = S(make_admin("hs_admin", &aid));
	resp *r = R(api("GET", S(fmt("/users/%lld", aid)), admin_token(), NULL));
	const char *admin = S(strdup(jstr(r->json, "username")));
	char *oauth = S(oauth_password_token(admin, "secret1234"));
	ck_assert_ptr_nonnull(oauth);
	char *personal = S(cli_personal_token(admin, "api", NULL));
	char *private = S(cli_private_token(admin));
	const char *creds[] = {
		S(fmt("Authorization: Bearer %s", oauth)),
		S(fmt("PRIVATE-TOKEN: %s", personal)),
		S(fmt("PRIVATE-TOKEN: %s", impersonation)),
	};
	char *sudo = S(fmt("SUDO: %lld", uid));
	/* GET /user is cached (asked three times: kept from its second miss), GET
	 * /user/keys is not; each credential works without sudo and is refused with it */
	const char *paths[] = {"/user", "/user/keys"};
	for (size_t p = 0; p < 2; p++) {
		for (size_t c = 0; c < sizeof(creds) / sizeof(*creds); c++) {
			for (int i = 0; i < 3; i++) {
				ck_sudo(paths[p], creds[c], NULL, 200);
				ck_sudo(paths[p], creds[c], sudo, 403);
				ck_sudo(S(fmt("%s?sudo=%lld", paths[p], uid)), creds[c], NULL, 403);
			}
		}
		/* access_token in the query */
		for (int i = 0; i < 3; i++) {
			r = R(api("GET",
				  S(fmt("%s?access_token=%s&sudo=%lld", paths[p], oauth, uid)),
				  NULL, NULL));
			ck_status(r, 403);
			ck_jstr(r, "message", SUDO_REFUSED);
		}
		/* the private token may, cached or not */
		const char *priv = S(fmt("PRIVATE-TOKEN: %s", private));
		for (int i = 0; i < 3; i++)
			ck_sudo(paths[p], priv, sudo, 200);
	}
	r = R(api_h("GET", "/user",
		    (const char *[]){S(fmt("PRIVATE-TOKEN: %s", private)), sudo, NULL}, NULL,
		    NULL));
	ck_assert_int_eq(jint(r->json, "id"), uid);
	/* and a write is refused before anything is written */
	r = R(api_h("POST", "/user/keys",
		    (const char *[]){S(fmt("Authorization: Bearer %s", oauth)), sudo, NULL},
		    "title=k&key=ssh-ed25519+AAAA", "application/x-www-form-urlencoded"));
	ck_status(r, 403);
	ck_jstr(r, "message", SUDO_REFUSED);
}
END_TEST

/* ---- avatars ---- */

/* A 1x1 PNG. */
static const unsigned char PNG[] = {0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00,
				    0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
				    0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
				    0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0b, 0x49, 0x44, 0x41,
				    0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x02, 0x00, 0x00, 0x05,
				    0x00, 0x01, 0x7a, 0x5e, 0xab, 0x3f, 0x00, 0x00, 0x00, 0x00,
				    0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

static const char HTML[] = "<html><body><script>alert(document.domain)</script></body></html>";

/* PUT /users/:id as the admin with a multipart body: the file part "avatar". */
static resp *put_avatar(long long id, const char *filename, const void *data, size_t n)
{
	static const char boundary[] = "collabd-hostile-boundary";
	size_t cap = n + 512;
	char *body = S(malloc(cap));
	size_t len = (size_t)snprintf(body, cap,
				      "--%s\r\nContent-Disposition: form-data; name=\"avatar\"; "
				      "filename=\"%s\"\r\nContent-Type: image/png\r\n\r\n",
				      boundary, filename);
	ck_assert(len + n + 64 < cap);
	memcpy(body + len, data, n);
	len += n;
	len += (size_t)snprintf(body + len, cap - len, "\r\n--%s--\r\n", boundary);
	const char *hs[] = {S(fmt("PRIVATE-TOKEN: %s", admin_token())), NULL};
	return R(http_request("PUT", S(fmt("%s/api/v4/users/%lld", api_url(), id)), hs, body, len,
			      S(fmt("multipart/form-data; boundary=%s", boundary))));
}

/* GET url (absolute) through nginx, with no credential. */
static resp *get_url(const char *url)
{
	return R(http_request("GET", url, NULL, NULL, 0, NULL));
}

START_TEST(test_hostile_avatar_html)
{
	long long id;
	S(make_user("ha_html", &id, NULL));
	/* HTML under an image name, which the 100-character cut would make a.html */
	char *name = S(fmt("%s.html.png", repeat('a', 95)));
	resp *r = put_avatar(id, name, HTML, strlen(HTML));
	ck_body(r, 400,
		"{\"message\":{\"avatar\":[\"You are not allowed to upload this file type. Allowed "
		"types: png, jpg, jpeg, gif, bmp, tiff, ico\"]}}");
	r = R(api("GET", S(fmt("/users/%lld", id)), admin_token(), NULL));
	ck_assert(jnull(r->json, "avatar_url"));
	/* a real PNG of that name: stored under a generated name with the type's extension */
	r = put_avatar(id, "evil.html.png", PNG, sizeof(PNG));
	ck_status(r, 200);
	const char *url = S(strdup(jstr(r->json, "avatar_url")));
	char *prefix = S(fmt("%s/uploads/-/system/user/avatar/%lld/", api_url(), id));
	ck_assert_msg(strncmp(url, prefix, strlen(prefix)) == 0, "avatar_url %s", url);
	const char *file = url + strlen(prefix);
	ck_assert_msg(strlen(file) == 24 && strcmp(file + 20, ".png") == 0 && !strstr(file, "evil"),
		      "avatar name %s", file);
	r = get_url(url);
	ck_status(r, 200);
	ck_header(r, "Content-Type", "image/png");
	ck_header(r, "X-Content-Type-Options", "nosniff");
	ck_assert(r->body_len == sizeof(PNG) && memcmp(r->body, PNG, sizeof(PNG)) == 0);
}
END_TEST

/* Whatever is in the uploads directory (an HTML file left by an older version), nginx
 * sends no HTML: image types by extension, anything else as a download, never sniffed. */
START_TEST(test_hostile_uploads_types)
{
	const char *dir = getenv("COLLABD_DIR");
	ck_assert_msg(dir != NULL, "COLLABD_DIR must be set");
	char *sub = S(unique("hostile"));
	char *path = S(fmt("%s/storage/uploads/-/system/user/avatar/%s", dir, sub));
	ck_assert_int_eq(system(S(fmt("mkdir -p '%s'", path))), 0);
	static const struct {
		const char *name, *type;
	} files[] = {
		{"x.html", "application/octet-stream"},
		{"x.svg", "application/octet-stream"},
		{"x.htm", "application/octet-stream"},
		{"x", "application/octet-stream"},
		{"x.png", "image/png"},
		{"x.jpg", "image/jpeg"},
		{"x.gif", "image/gif"},
		{"x.ico", "image/x-icon"},
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		FILE *f = fopen(S(fmt("%s/%s", path, files[i].name)), "w");
		ck_assert_ptr_nonnull(f);
		fputs(HTML, f);
		fclose(f);
		resp *r = get_url(S(fmt("%s/uploads/-/system/user/avatar/%s/%s", api_url(), sub,
					files[i].name)));
		ck_status(r, 200);
		ck_header(r, "Content-Type", files[i].type);
		ck_header(r, "X-Content-Type-Options", "nosniff");
	}
	ck_assert_int_eq(system(S(fmt("rm -rf '%s'", path))), 0);
}
END_TEST

/* GET url until it answers want, for at most ten seconds (the background process). */
static long poll_status(const char *url, long want)
{
	long got = 0;
	for (int i = 0; i < 100; i++) {
		resp *r = http_request("GET", url, NULL, NULL, 0, NULL);
		got = r->status;
		resp_free(r);
		if (got == want)
			break;
		usleep(100 * 1000);
	}
	return got;
}

START_TEST(test_hostile_avatar_removed)
{
	for (int hard = 0; hard < 2; hard++) {
		long long id;
		S(make_user("ha_del", &id, NULL));
		resp *r = put_avatar(id, "a.png", PNG, sizeof(PNG));
		ck_status(r, 200);
		const char *first = S(strdup(jstr(r->json, "avatar_url")));
		/* replaced: the old file goes */
		r = put_avatar(id, "b.png", PNG, sizeof(PNG));
		ck_status(r, 200);
		const char *second = S(strdup(jstr(r->json, "avatar_url")));
		ck_assert_str_ne(first, second);
		ck_assert_int_eq(poll_status(first, 404), 404);
		ck_code(get_url(second), 200);
		/* a refused replacement removes nothing */
		ck_code(put_avatar(id, "c.png", HTML, strlen(HTML)), 400);
		ck_code(get_url(second), 200);
		/* deleted, soft or hard: the avatar goes with the user */
		r = R(api("DELETE", S(fmt("/users/%lld%s", id, hard ? "?hard_delete=true" : "")),
			  admin_token(), NULL));
		ck_status(r, 204);
		ck_assert_msg(poll_status(second, 404) == 404, "%s still served after DELETE%s",
			      second, hard ? " (hard)" : "");
	}
}
END_TEST

/* ---- text is text ---- */

/* The issues of project pid: their number. */
static long long issue_count(const char *token, long long pid)
{
	resp *r = R(api("GET", S(fmt("/projects/%lld/issues?per_page=1", pid)), token, NULL));
	ck_status(r, 200);
	return atoll(resp_header(r, "X-Total"));
}

/* A text parameter takes any valid UTF-8, control characters included (ANSI escapes,
 * bell, DEL), from JSON, a form, a query and a multipart body, and gives it back
 * exactly; only a NUL byte (which no text column stores) is refused, naming the field,
 * and invalid UTF-8 as before. Nothing refused is created. */
START_TEST(test_hostile_control_characters)
{
	long long uid;
	char *tok = S(make_user("ctl", &uid, NULL));
	long long pid = api_project(tok, "private", NULL);
	const char *path = S(fmt("/projects/%lld/issues", pid));
	static const char title[] = "\x1b[31;1mred\x1b[0;m \x07"
				    "bell\x7f\x01\t\xc3\xa9";
	/* JSON */
	resp *r = R(api_json("POST", path, tok,
			     "{\"title\":\"\\u001b[31;1mred\\u001b[0;m \\u0007bell\\u007f\\u0001\\t"
			     "\\u00e9\",\"description\":\"\\u001b[0K\\r\\nline\"}"));
	ck_status(r, 201);
	ck_jstr(r, "title", title);
	ck_jstr(r, "description", "\x1b[0K\r\nline");
	r = R(api("GET", S(fmt("%s/%lld", path, jint(r->json, "iid"))), tok, NULL));
	ck_status(r, 200);
	ck_jstr(r, "title", title);
	/* a form, a query */
	r = R(api("POST", path, tok, "title=%1B%5B31%3B1Mred%1B%5B0%3Bm+%07bell%7F%01%09%C3%A9"));
	ck_status(r, 201);
	ck_jstr(r, "title",
		"\x1b[31;1Mred\x1b[0;m \x07"
		"bell\x7f\x01\t\xc3\xa9");
	r = R(api("POST", S(fmt("%s?title=%%1B%%5B0K%%01", path)), tok, NULL));
	ck_status(r, 201);
	ck_jstr(r, "title", "\x1b[0K\x01");
	/* multipart */
	const char *hs[] = {S(fmt("PRIVATE-TOKEN: %s", tok)), NULL};
	r = R(api_h("POST", path, hs,
		    "--b7\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n\x1b[0Kmp\x02"
		    "\r\n--b7--\r\n",
		    "multipart/form-data; boundary=b7"));
	ck_status(r, 201);
	ck_jstr(r, "title", "\x1b[0Kmp\x02");
	long long before = issue_count(tok, pid);
	ck_assert_int_eq(before, 4);

	/* a NUL byte: 400 naming the field, from every source */
	ck_body(R(api_json("POST", path, tok, "{\"title\":\"a\\u0000b\"}")), 400,
		"{\"error\":\"title is invalid\"}");
	ck_body(R(api_json("POST", path, tok, "{\"title\":\"ok\",\"description\":\"\\u0000\"}")),
		400, "{\"error\":\"description is invalid\"}");
	ck_body(R(api_json("POST", path, tok,
			   "{\"title\":\"ok\",\"labels\":[\"a\",\"b\\u0000\"]}")),
		400, "{\"error\":\"labels is invalid\"}");
	ck_body(R(api("POST", path, tok, "title=a%00b")), 400, "{\"error\":\"title is invalid\"}");
	ck_body(R(api("POST", S(fmt("%s?title=%%00", path)), tok, NULL)), 400,
		"{\"error\":\"title is invalid\"}");
	static const char mp[] = "--b7\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n"
				 "a\0b\r\n--b7--\r\n";
	r = R(http_request("POST", S(fmt("%s/api/v4%s", api_url(), path)), hs, mp, sizeof(mp) - 1,
			   "multipart/form-data; boundary=b7"));
	ck_body(r, 400, "{\"error\":\"title is invalid\"}");
	/* an update refused the same, changing nothing */
	r = R(api_json("PUT", S(fmt("%s/1", path)), tok,
		       "{\"title\":\"changed\",\"description\":\"x\\u0000\"}"));
	ck_body(r, 400, "{\"error\":\"description is invalid\"}");
	r = R(api("GET", S(fmt("%s/1", path)), tok, NULL));
	ck_jstr(r, "title", title);
	/* invalid UTF-8, a control character or not */
	ck_body(R(api_json("POST", path, tok, "{\"title\":\"\\u0001\xc3\"}")), 400,
		"{\"message\":\"400 (Bad request) parameters must be valid UTF-8 text\"}");
	ck_code(R(api("POST", path, tok, "title=%01%FF")), 400);
	ck_code(R(api("POST", path, tok, "title=%ED%A0%80")), 400);
	ck_assert_int_eq(issue_count(tok, pid), before);
}
END_TEST

Suite *suite_hostile(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("hostile");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_hostile_json);
	tcase_add_test(tc, test_hostile_long_query_lists);
	tcase_add_test(tc, test_hostile_uri_too_long);
	tcase_add_test(tc, test_hostile_sudo_needs_private_token);
	tcase_add_test(tc, test_hostile_avatar_html);
	tcase_add_test(tc, test_hostile_uploads_types);
	tcase_add_test(tc, test_hostile_avatar_removed);
	tcase_add_test(tc, test_hostile_control_characters);
	suite_add_tcase(s, tc);
	return s;
}
