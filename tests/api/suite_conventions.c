/* API suite: conventions every endpoint shares (DESIGN.md "API conventions", spec sections
 * 7 and 8): unknown routes, Content-Type, HEAD, URL-encoded ids, 204 bodies, /version,
 * pagination headers, parameter sources, and bad input that must get a 4xx, never a 500. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

#define FORM "application/x-www-form-urlencoded"

static void ck_json_type(resp *r)
{
	ck_header(r, "Content-Type", "application/json");
	ck_assert_msg(r->json != NULL, "body is not JSON: %s", r->body);
}

/* 4xx with a JSON body: never a 500, a crash or an empty answer. */
static void ck_client_error(resp *r, long status)
{
	ck_assert_msg(r->status == status, "expected %ld, got %ld: %s", status, r->status, r->body);
	ck_json_type(r);
}

static long long bm_total(void)
{
	resp *r = api("GET", "/broadcast_messages?per_page=1", admin_token(), NULL);
	ck_status(r, 200);
	const char *t = resp_header(r, "X-Total");
	ck_assert_ptr_nonnull(t);
	long long n = atoll(t);
	resp_free(r);
	return n;
}

static void bm_delete(long long id)
{
	char *p = fmt("/broadcast_messages/%lld", id);
	resp *r = api("DELETE", p, admin_token(), NULL);
	ck_status(r, 204);
	resp_free(r);
	free(p);
}

START_TEST(test_unknown_route)
{
	static const char *const cases[][2] = {
		{"GET", "/nope"},
		{"GET", "/users/1/nope"},
		{"DELETE", "/user"},
		{"PATCH", "/users/1"},
		{"POST", "/broadcast_messages/1/extra"},
		{"GET", "/version/"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int auth = 0; auth < 2; auth++) {
			resp *r = api(cases[i][0], cases[i][1], auth ? admin_token() : NULL, NULL);
			if (strcmp(cases[i][1], "/version/") == 0) {
				/* one trailing slash is the same route */
				ck_status(r, auth ? 200 : 401);
				resp_free(r);
				continue;
			}
			ck_client_error(r, 404);
			ck_assert_msg(strcmp(r->body, "{\"error\":\"404 Not Found\"}") == 0,
				      "%s %s: %s", cases[i][0], cases[i][1], r->body);
			resp_free(r);
		}
	}
	/* v3 is gone */
	char *url = fmt("%s/api/v3/user", api_url());
	char *h = fmt("PRIVATE-TOKEN: %s", admin_token());
	const char *hs[] = {h, NULL};
	resp *r = http_request("GET", url, hs, NULL, 0, NULL);
	ck_client_error(r, 404);
	ck_jstr(r, "error", "404 Not Found");
	resp_free(r);
	free(h);
	free(url);
}
END_TEST

START_TEST(test_content_type_exact)
{
	long long uid;
	char *user = make_user("conv_ct", &uid, NULL);
	resp *r = api("GET", "/user", user, NULL);
	ck_status(r, 200);
	ck_json_type(r);
	resp_free(r);

	r = api("GET", "/users", admin_token(), NULL); /* a list */
	ck_status(r, 200);
	ck_json_type(r);
	ck_assert(json_object_is_type(r->json, json_type_array));
	resp_free(r);

	r = api("POST", "/broadcast_messages", admin_token(), "message=content+type");
	ck_status(r, 201);
	ck_json_type(r);
	long long id = jint(r->json, "id");
	resp_free(r);
	bm_delete(id);

	r = api("POST", "/broadcast_messages", admin_token(), "color=red");
	ck_client_error(r, 400);
	resp_free(r);
	r = api("GET", "/user", NULL, NULL);
	ck_client_error(r, 401);
	resp_free(r);
	r = api("GET", "/broadcast_messages", user, NULL);
	ck_client_error(r, 403);
	resp_free(r);
	r = api("GET", "/broadcast_messages/999999999", admin_token(), NULL);
	ck_client_error(r, 404);
	resp_free(r);

	/* the charset a client asks for does not change it */
	const char *hs[] = {"Accept: application/json; charset=utf-8", "Accept-Charset: utf-8",
			    NULL};
	char *h = fmt("PRIVATE-TOKEN: %s", user);
	const char *hs2[] = {hs[0], hs[1], h, NULL};
	r = api_h("GET", "/user", hs2, NULL, NULL);
	ck_status(r, 200);
	ck_json_type(r);
	resp_free(r);
	free(h);
	free(user);
}
END_TEST

/* The headers of a HEAD and a GET of the same resource that must agree. */
static const char *const head_headers[] = {
	"Content-Type", "Content-Length", "X-Total",     "X-Total-Pages", "X-Per-Page",
	"X-Page",       "X-Next-Page",    "X-Prev-Page", "Link",
};

static void ck_head_like_get(const char *path, const char *token)
{
	char *h = token ? fmt("PRIVATE-TOKEN: %s", token) : NULL;
	const char *hs[] = {h, NULL};
	resp *g = api_h("GET", path, hs, NULL, NULL);
	resp *hd = api_h("HEAD", path, hs, NULL, NULL);
	ck_assert_msg(g->status == hd->status, "%s: GET %ld, HEAD %ld", path, g->status,
		      hd->status);
	ck_assert_uint_eq(hd->body_len, 0);
	for (size_t i = 0; i < sizeof(head_headers) / sizeof(head_headers[0]); i++) {
		const char *a = resp_header(g, head_headers[i]);
		char *gv = a ? strdup(a) : NULL;
		const char *b = resp_header(hd, head_headers[i]);
		ck_assert_msg((!gv && !b) || (gv && b && strcmp(gv, b) == 0),
			      "%s %s: GET %s, HEAD %s", path, head_headers[i], gv ? gv : "(absent)",
			      b ? b : "(absent)");
		free(gv);
	}
	resp_free(g);
	resp_free(hd);
	free(h);
}

START_TEST(test_head)
{
	long long uid;
	char *user = make_user("conv_head", &uid, NULL);
	ck_head_like_get("/user", admin_token());
	ck_head_like_get("/user", user);
	ck_head_like_get("/user", NULL);
	ck_head_like_get("/version", admin_token());
	char *p = fmt("/users/%lld/impersonation_tokens?per_page=1", uid);
	ck_head_like_get(p, admin_token());
	free(p);
	ck_head_like_get("/broadcast_messages", user);                    /* 403 */
	ck_head_like_get("/broadcast_messages/999999999", admin_token()); /* 404 */
	ck_head_like_get("/nope", admin_token());

	resp *r = api("HEAD", "/user", admin_token(), NULL);
	ck_status(r, 200);
	ck_header(r, "Content-Type", "application/json");
	ck_assert_str_eq(r->body, "");
	resp_free(r);

	/* HEAD is served by GET routes only */
	char *url = fmt("%s/oauth/token", api_url());
	r = http_request("HEAD", url, NULL, NULL, 0, NULL);
	ck_assert_msg(r->status == 404 || r->status == 405, "HEAD /oauth/token: %ld", r->status);
	resp_free(r);
	free(url);
	free(user);
}
END_TEST

/* "%3X" for every digit of id: the same number, every character percent-encoded. */
static char *encode_all(long long id)
{
	char digits[32], *out = calloc(1, 100), *o = out;
	snprintf(digits, sizeof(digits), "%lld", id);
	for (char *d = digits; *d; d++)
		o += sprintf(o, "%%%02X", (unsigned char)*d);
	return out;
}

START_TEST(test_encoded_ids)
{
	long long uid;
	char *username;
	char *user = make_user("conv_enc", &uid, &username);

	char *e = encode_all(uid);
	char *p = fmt("/users/%s", e);
	resp *r = api("GET", p, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), uid);
	ck_jstr(r, "username", username);
	resp_free(r);
	free(p);

	p = fmt("/users/%s/impersonation_tokens", e);
	r = api("GET", p, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	resp_free(r);
	free(p);

	/* an encoded slash stays inside its segment: this is /users/:id, not /users/:id/keys */
	p = fmt("/users/%lld%%2Fkeys", uid);
	r = api("GET", p, admin_token(), NULL);
	ck_client_error(r, 400);
	ck_jstr(r, "error", "id is invalid");
	resp_free(r);
	free(p);
	p = fmt("/users/%lld%%2fimpersonation_tokens", uid);
	r = api("GET", p, admin_token(), NULL);
	ck_client_error(r, 400);
	resp_free(r);
	free(p);

	r = api("POST", "/broadcast_messages", admin_token(), "message=encoded");
	ck_status(r, 201);
	long long bid = jint(r->json, "id");
	resp_free(r);
	char *be = encode_all(bid);
	p = fmt("/broadcast_messages/%s", be);
	r = api("GET", p, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), bid);
	resp_free(r);
	r = api("PUT", p, admin_token(), "message=encoded+again");
	ck_status(r, 200);
	ck_jstr(r, "message", "encoded again");
	resp_free(r);
	r = api("DELETE", p, admin_token(), NULL);
	ck_status(r, 204);
	resp_free(r);
	free(p);

	free(be);
	free(e);
	free(user);
	free(username);
}
END_TEST

START_TEST(test_no_content)
{
	resp *r = api("POST", "/broadcast_messages", admin_token(), "message=to+delete");
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	resp_free(r);
	char *p = fmt("/broadcast_messages/%lld", id);
	r = api("DELETE", p, admin_token(), NULL);
	ck_status(r, 204);
	ck_assert_uint_eq(r->body_len, 0);
	ck_header(r, "Content-Type", NULL);
	const char *cl = resp_header(r, "Content-Length");
	ck_assert_msg(!cl || strcmp(cl, "0") == 0, "Content-Length %s", cl);
	resp_free(r);
	free(p);

	long long uid;
	char *user = make_user("conv_204", &uid, NULL);
	p = fmt("/users/%lld/impersonation_tokens", uid);
	r = api("GET", p, admin_token(), NULL);
	long long tid = jint(json_object_array_get_idx(r->json, 0), "id");
	resp_free(r);
	free(p);
	p = fmt("/users/%lld/impersonation_tokens/%lld", uid, tid);
	r = api("DELETE", p, admin_token(), NULL);
	ck_status(r, 204);
	ck_assert_uint_eq(r->body_len, 0);
	ck_header(r, "Content-Type", NULL);
	resp_free(r);
	free(p);
	free(user);
}
END_TEST

START_TEST(test_version)
{
	resp *r = api("GET", "/version", admin_token(), NULL);
	ck_status(r, 200);
	ck_json_type(r);
	ck_jstr(r, "version", "10.0.0-collabd");
	const char *rev = jstr(r->json, "revision");
	ck_assert_msg(rev && *rev, "revision: %s", r->body);
	ck_assert_int_eq(json_object_object_length(r->json), 2);
	resp_free(r);

	char *user = make_user("conv_ver", NULL, NULL);
	r = api("GET", "/version", user, NULL);
	ck_status(r, 200);
	ck_jstr(r, "version", "10.0.0-collabd");
	resp_free(r);
	free(user);

	r = api("GET", "/version", NULL, NULL);
	ck_client_error(r, 401);
	ck_jstr(r, "message", "401 Unauthorized");
	resp_free(r);
}
END_TEST

/* <base><path>?<query>page=N&per_page=M>; rel="rel" */
static char *link(const char *path, const char *query, int page, int per_page, const char *rel)
{
	return fmt("<%s/api/v4%s?%spage=%d&per_page=%d>; rel=\"%s\"", api_url(), path, query, page,
		   per_page, rel);
}

START_TEST(test_pagination_headers)
{
	long long uid;
	char *user = make_user("conv_page", &uid, NULL);
	char *path = fmt("/users/%lld/impersonation_tokens", uid);
	for (int i = 0; i < 4; i++) {
		resp *r = api("POST", path, admin_token(), "name=p&scopes%5B%5D=api");
		ck_status(r, 201);
		resp_free(r);
	}
	/* 5 tokens; every query parameter is repeated in the links, arrays as a[]= */
	const char *q = "state=all&tag%5B%5D=a&tag%5B%5D=b&";
	static const struct {
		int page;
		const char *next, *prev;
		int rows;
	} pages[] = {{1, "2", "", 2}, {2, "3", "1", 2}, {3, "", "2", 1}};
	for (size_t i = 0; i < 3; i++) {
		int pg = pages[i].page;
		char *p = fmt("%s?state=all&tag[]=a&tag%%5B%%5D=b&per_page=2&page=%d", path, pg);
		resp *r = api("GET", p, admin_token(), NULL);
		ck_status(r, 200);
		ck_assert_int_eq(json_object_array_length(r->json), pages[i].rows);
		ck_header(r, "X-Total", "5");
		ck_header(r, "X-Total-Pages", "3");
		ck_header(r, "X-Per-Page", "2");
		char n[8];
		snprintf(n, sizeof(n), "%d", pg);
		ck_header(r, "X-Page", n);
		ck_header(r, "X-Next-Page", pages[i].next);
		ck_header(r, "X-Prev-Page", pages[i].prev);
		char *prev = pg > 1 ? link(path, q, pg - 1, 2, "prev") : strdup("");
		char *next = pg < 3 ? link(path, q, pg + 1, 2, "next") : strdup("");
		char *first = link(path, q, 1, 2, "first"), *last = link(path, q, 3, 2, "last");
		char *want = fmt("%s%s%s%s%s, %s", prev, *prev ? ", " : "", next, *next ? ", " : "",
				 first, last);
		ck_header(r, "Link", want);
		free(want);
		free(prev);
		free(next);
		free(first);
		free(last);
		resp_free(r);
		free(p);
	}

	/* an empty list still has one page */
	char *p = fmt("%s?state=inactive", path);
	resp *r = api("GET", p, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	ck_assert_str_eq(r->body, "[]");
	ck_header(r, "X-Total", "0");
	ck_header(r, "X-Total-Pages", "1");
	ck_header(r, "X-Per-Page", "20");
	ck_header(r, "X-Page", "1");
	ck_header(r, "X-Next-Page", "");
	ck_header(r, "X-Prev-Page", "");
	char *first = link(path, "state=inactive&", 1, 20, "first");
	char *last = link(path, "state=inactive&", 1, 20, "last");
	char *want = fmt("%s, %s", first, last);
	ck_header(r, "Link", want);
	free(want);
	free(first);
	free(last);
	resp_free(r);
	free(p);

	/* no query at all: the links carry only page and per_page */
	r = api("GET", path, admin_token(), NULL);
	first = link(path, "", 1, 20, "first");
	last = link(path, "", 1, 20, "last");
	want = fmt("%s, %s", first, last);
	ck_header(r, "Link", want);
	ck_header(r, "X-Total", "5");
	free(want);
	free(first);
	free(last);
	resp_free(r);

	/* per_page is capped at 100 */
	p = fmt("%s?per_page=1000", path);
	r = api("GET", p, admin_token(), NULL);
	ck_status(r, 200);
	ck_header(r, "X-Per-Page", "100");
	ck_assert_int_eq(json_object_array_length(r->json), 5);
	resp_free(r);
	free(p);

	/* a page past the end is empty and, as in Kaminari, has neither next nor prev */
	p = fmt("%s?per_page=2&page=9", path);
	r = api("GET", p, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	ck_header(r, "X-Page", "9");
	ck_header(r, "X-Total-Pages", "3");
	ck_header(r, "X-Next-Page", "");
	ck_header(r, "X-Prev-Page", "");
	first = link(path, "", 1, 2, "first");
	last = link(path, "", 3, 2, "last");
	want = fmt("%s, %s", first, last);
	ck_header(r, "Link", want);
	free(want);
	free(first);
	free(last);
	resp_free(r);
	free(p);

	/* bad page and per_page */
	static const char *const bad[][2] = {
		{"page=abc", "page is invalid"},
		{"per_page=abc", "per_page is invalid"},
		{"page=1.5", "page is invalid"},
		{"page=", "page is invalid"},
		{"per_page=99999999999999999999999", "per_page is invalid"},
		{"page=%201", "page is invalid"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = fmt("%s?%s", path, bad[i][0]);
		r = api("GET", p, admin_token(), NULL);
		ck_client_error(r, 400);
		ck_jstr(r, "error", bad[i][1]);
		resp_free(r);
		free(p);
	}
	free(path);
	free(user);
}
END_TEST

/* The four ways to send the same broadcast message. */
START_TEST(test_parameter_sources)
{
	const char *msg = "Deploy & \"maintenance\" 100% ü";
	const char *emsg = "Deploy+%26+%22maintenance%22+100%25+%C3%BC";
	const char *starts = "2031-05-06T07:08:09.123Z", *ends = "2031-05-06T09:00:00.000Z";
	char *form = fmt("message=%s&starts_at=%s&ends_at=%s&color=%%23abcdef&font=%%23123456",
			 emsg, starts, ends);
	const char *boundary = "----collabdBoundary7MA4YWxk";
	char *multipart =
		fmt("--%s\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\n%s\r\n"
		    "--%s\r\nContent-Disposition: form-data; name=\"starts_at\"\r\n\r\n%s\r\n"
		    "--%s\r\nContent-Disposition: form-data; name=\"ends_at\"\r\n\r\n%s\r\n"
		    "--%s\r\nContent-Disposition: form-data; name=\"color\"\r\n\r\n#abcdef\r\n"
		    "--%s\r\nContent-Disposition: form-data; name=\"font\"\r\n\r\n#123456\r\n"
		    "--%s--\r\n",
		    boundary, msg, boundary, starts, boundary, ends, boundary, boundary, boundary);
	char *mtype = fmt("multipart/form-data; boundary=%s", boundary);
	char *json = fmt(
		"{\"message\":\"Deploy & \\\"maintenance\\\" 100%% \\u00fc\",\"starts_at\":\"%s\","
		"\"ends_at\":\"%s\",\"color\":\"#abcdef\",\"font\":\"#123456\"}",
		starts, ends);
	char *query = fmt("/broadcast_messages?%s", form);
	char *ah = fmt("PRIVATE-TOKEN: %s", admin_token());
	const char *hs[] = {ah, NULL};

	resp *rs[4];
	rs[0] = api("POST", query, admin_token(), NULL);
	rs[1] = api("POST", "/broadcast_messages", admin_token(), form);
	rs[2] = api_h("POST", "/broadcast_messages", hs, multipart, mtype);
	rs[3] = api_json("POST", "/broadcast_messages", admin_token(), json);
	static const char *const names[] = {"query", "form", "multipart", "json"};
	for (int i = 0; i < 4; i++) {
		resp *r = rs[i];
		ck_assert_msg(r->status == 201, "%s: %ld %s", names[i], r->status, r->body);
		ck_jstr(r, "message", msg);
		ck_jstr(r, "starts_at", starts);
		ck_jstr(r, "ends_at", ends);
		ck_jstr(r, "color", "#abcdef");
		ck_jstr(r, "font", "#123456");
		ck_assert(jhas(r->json, "active") && !jbool(r->json, "active"));
	}
	for (int i = 0; i < 4; i++) {
		bm_delete(jint(rs[i]->json, "id"));
		resp_free(rs[i]);
	}

	/* a body value wins over the query string, as in Rack */
	resp *r = api("POST", "/broadcast_messages?message=from+query&color=%23000000",
		      admin_token(), "message=from+body");
	ck_status(r, 201);
	ck_jstr(r, "message", "from body");
	ck_jstr(r, "color", "#000000");
	bm_delete(jint(r->json, "id"));
	resp_free(r);

	/* PUT reads the same sources */
	r = api("POST", "/broadcast_messages", admin_token(), "message=put+sources");
	long long id = jint(r->json, "id");
	resp_free(r);
	char *p = fmt("/broadcast_messages/%lld", id);
	r = api_json("PUT", p, admin_token(), "{\"color\":\"#010203\"}");
	ck_status(r, 200);
	ck_jstr(r, "color", "#010203");
	resp_free(r);
	char *pq = fmt("%s?font=%%23040506", p);
	r = api("PUT", pq, admin_token(), NULL);
	ck_status(r, 200);
	ck_jstr(r, "font", "#040506");
	ck_jstr(r, "color", "#010203");
	resp_free(r);
	free(pq);
	r = api_h("PUT", p, hs,
		  "--b0\r\nContent-Disposition: form-data; "
		  "name=\"message\"\r\n\r\nmulti\r\n--b0--\r\n",
		  "multipart/form-data; boundary=b0");
	ck_status(r, 200);
	ck_jstr(r, "message", "multi");
	resp_free(r);
	bm_delete(id);
	free(p);

	free(ah);
	free(query);
	free(json);
	free(mtype);
	free(multipart);
	free(form);
}
END_TEST

START_TEST(test_malformed_bodies)
{
	long long before = bm_total();
	static const char *const json_bodies[] = {
		"{\"message\":",    "{\"message\":\"x\"} trailing", "[\"message\"]", "\"message\"",
		"{message: \"x\"}",
	};
	for (size_t i = 0; i < sizeof(json_bodies) / sizeof(json_bodies[0]); i++) {
		resp *r = api_json("POST", "/broadcast_messages", admin_token(), json_bodies[i]);
		ck_assert_msg(r->status == 400, "%s: %ld %s", json_bodies[i], r->status, r->body);
		ck_json_type(r);
		ck_assert_ptr_nonnull(jget(r->json, "message"));
		resp_free(r);
	}
	/* nested deeper than any request needs */
	char deep[512];
	size_t n = 0;
	n += (size_t)sprintf(deep, "{\"message\":");
	for (int i = 0; i < 100; i++)
		deep[n++] = '[';
	for (int i = 0; i < 100; i++)
		deep[n++] = ']';
	deep[n++] = '}';
	deep[n] = '\0';
	resp *r = api_json("POST", "/broadcast_messages", admin_token(), deep);
	ck_client_error(r, 400);
	resp_free(r);
	/* well-formed JSON whose text holds a NUL byte, which no text column stores: the
	 * field is invalid (text is any other UTF-8, control characters included) */
	r = api_json("POST", "/broadcast_messages", admin_token(), "{\"message\":\"a\\u0000b\"}");
	ck_body(r, 400, "{\"error\":\"message is invalid\"}");
	resp_free(r);

	/* invalid UTF-8 in every source */
	r = api_json("POST", "/broadcast_messages", admin_token(), "{\"message\":\"\xff\xfe\"}");
	ck_client_error(r, 400);
	resp_free(r);
	r = api("POST", "/broadcast_messages", admin_token(), "message=%C3%28");
	ck_client_error(r, 400);
	resp_free(r);
	r = api("POST", "/broadcast_messages?message=%ED%A0%80", admin_token(), NULL);
	ck_client_error(r, 400);
	resp_free(r);

	/* invalid percent-encoding: query, form, and (answered by nginx) path */
	static const char *const bad_forms[] = {"message=%zz", "message=abc%", "message=%4",
						"%zz=x", "message=a%00b"};
	for (size_t i = 0; i < sizeof(bad_forms) / sizeof(bad_forms[0]); i++) {
		r = api("POST", "/broadcast_messages", admin_token(), bad_forms[i]);
		ck_assert_msg(r->status == 400, "%s: %ld %s", bad_forms[i], r->status, r->body);
		ck_json_type(r);
		resp_free(r);
		char *q = fmt("/broadcast_messages?%s", bad_forms[i]);
		r = api("POST", q, admin_token(), NULL);
		ck_assert_msg(r->status == 400, "?%s: %ld %s", bad_forms[i], r->status, r->body);
		ck_json_type(r);
		resp_free(r);
		free(q);
	}
	r = api("GET", "/users?search=%zz", admin_token(), NULL);
	ck_client_error(r, 400);
	resp_free(r);
	r = api("GET", "/users/%zz", admin_token(), NULL);
	ck_status(r, 400);
	resp_free(r);

	/* broken multipart bodies */
	char *ah = fmt("PRIVATE-TOKEN: %s", admin_token());
	const char *hs[] = {ah, NULL};
	static const char *const parts[][2] = {
		{"--b1\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\nx\r\n--b1--\r\n",
		 "multipart/form-data"},
		{"--b1\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\nx",
		 "multipart/form-data; boundary=b1"},
		{"no delimiter at all", "multipart/form-data; boundary=b1"},
		{"--b1\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b1--\r\n",
		 "multipart/form-data; boundary=b1"},
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		r = api_h("POST", "/broadcast_messages", hs, parts[i][0], parts[i][1]);
		ck_assert_msg(r->status == 400, "multipart %zu: %ld %s", i, r->status, r->body);
		ck_json_type(r);
		resp_free(r);
	}
	free(ah);

	/* none of it created anything */
	ck_assert_int_eq(bm_total(), before);
}
END_TEST

START_TEST(test_huge_fields)
{
	long long before = bm_total();
	size_t big = 70000;
	char *s = malloc(big + 1);
	memset(s, 'x', big);
	s[big] = '\0';
	char *form = fmt("message=%s", s);
	resp *r = api("POST", "/broadcast_messages", admin_token(), form);
	ck_client_error(r, 400);
	json_object *m = jget(r->json, "message");
	ck_assert_msg(json_object_is_type(m, json_type_object) && jget(m, "message"), "%s",
		      r->body);
	resp_free(r);
	free(form);

	/* 2 MB in a JSON string */
	size_t huge = 2 * 1024 * 1024;
	char *json = malloc(huge + 32);
	strcpy(json, "{\"message\":\"");
	memset(json + 12, 'y', huge);
	strcpy(json + 12 + huge, "\"}");
	r = api_json("POST", "/broadcast_messages", admin_token(), json);
	ck_client_error(r, 400);
	resp_free(r);
	free(json);

	/* a token name past its limit */
	long long uid;
	char *user = make_user("conv_huge", &uid, NULL);
	char *p = fmt("/users/%lld/impersonation_tokens", uid);
	char *f2 = fmt("name=%.*s&scopes%%5B%%5D=api", 300, s);
	r = api("POST", p, admin_token(), f2);
	ck_client_error(r, 400);
	resp_free(r);
	free(f2);
	free(p);

	/* very many parameters */
	size_t cap = 1000 * 8 + 32;
	char *many = malloc(cap), *o = many;
	o += sprintf(o, "message=m");
	for (int i = 0; i < 1000; i++)
		o += sprintf(o, "&k%d=v", i);
	r = api("POST", "/broadcast_messages", admin_token(), many);
	ck_client_error(r, 400);
	resp_free(r);
	free(many);

	/* a long value in the query string, within what nginx accepts */
	char *q = fmt("/user?sudo=%.*s", 4000, s);
	r = api("GET", q, admin_token(), NULL);
	ck_client_error(r, 404);
	resp_free(r);
	free(q);

	/* a body beyond the configured limit */
	size_t over = 11 * 1024 * 1024;
	char *body = malloc(over + 1);
	memcpy(body, "message=", 8);
	memset(body + 8, 'z', over - 8);
	body[over] = '\0';
	r = api("POST", "/broadcast_messages", admin_token(), body);
	ck_status(r, 413);
	resp_free(r);
	free(body);

	ck_assert_int_eq(bm_total(), before);
	free(user);
	free(s);
}
END_TEST

START_TEST(test_non_numeric_ids)
{
	static const char *const ids[] = {"abc",  "1.5",  "12abc", "1e3",
					  "0x10", "%201", "1%20",  "99999999999999999999",
					  "%2B1x"};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		char *p = fmt("/broadcast_messages/%s", ids[i]);
		resp *r = api("GET", p, admin_token(), NULL);
		ck_assert_msg(r->status == 400, "%s: %ld %s", p, r->status, r->body);
		ck_json_type(r);
		ck_jstr(r, "error", "id is invalid");
		resp_free(r);
		r = api("PUT", p, admin_token(), "message=x");
		ck_client_error(r, 400);
		resp_free(r);
		r = api("DELETE", p, admin_token(), NULL);
		ck_client_error(r, 400);
		resp_free(r);
		free(p);

		p = fmt("/users/%s", ids[i]);
		r = api("GET", p, admin_token(), NULL);
		ck_client_error(r, 400);
		ck_jstr(r, "error", "id is invalid");
		resp_free(r);
		free(p);
	}
	/* the largest id there can be is a valid id that names nothing */
	resp *r = api("GET", "/broadcast_messages/9223372036854775807", admin_token(), NULL);
	ck_client_error(r, 404);
	ck_jstr(r, "message", "404 Broadcast Message Not Found");
	resp_free(r);
	r = api("GET", "/users/9223372036854775807", admin_token(), NULL);
	ck_client_error(r, 404);
	resp_free(r);
}
END_TEST

/* Odd input across the routes: every answer is a 4xx or 2xx, never a 5xx. */
START_TEST(test_no_server_errors)
{
	long long uid;
	char *user = make_user("conv_500", &uid, NULL);
	char *paths[] = {
		strdup("/users"),
		strdup("/user"),
		fmt("/users/%lld", uid),
		strdup("/user/keys"),
		fmt("/users/%lld/keys", uid),
		fmt("/users/%lld/events", uid),
		strdup("/events"),
		fmt("/users/%lld/impersonation_tokens", uid),
		fmt("/users/%lld/impersonation_tokens/1", uid),
		strdup("/broadcast_messages"),
		strdup("/broadcast_messages/1"),
		strdup("/version"),
	};
	static const char *const methods[] = {"GET", "POST", "PUT", "DELETE"};
	static const char *const queries[] = {
		"",
		"?page=-1&per_page=-5",
		"?page=0&per_page=0",
		"?page=2147483648&per_page=2147483648",
		"?sudo=%27%3B+DROP+TABLE+users%3B--",
		"?starts_at=2017-02-29T00:00:00Z&ends_at=9999-12-31T23:59:59Z",
		"?created_before=0000-00-00&created_after=2017-13-45",
		"?active=maybe&blocked=1&external=yes",
		"?search=%25%5F%5C",
		"?username=%00",
		"?state=%E2%9C%93&scopes[]=&name=",
		"?expires_at=99999-01-01&title=&key=ssh-rsa",
		"?message=%F0%9F%98%80&color=%23GGGGGG&font=",
		"?id=abc&user_id=-1",
	};
	const char *tokens[] = {admin_token(), user, NULL};
	for (size_t pi = 0; pi < sizeof(paths) / sizeof(paths[0]); pi++)
		for (size_t mi = 0; mi < 4; mi++)
			for (size_t qi = 0; qi < sizeof(queries) / sizeof(queries[0]); qi++)
				for (size_t ti = 0; ti < 3; ti++) {
					if (strcmp(methods[mi], "DELETE") == 0 && ti == 0)
						continue; /* keep the records the other calls use */
					char *p = fmt("%s%s", paths[pi], queries[qi]);
					resp *r = api(methods[mi], p, tokens[ti], NULL);
					ck_assert_msg(r->status >= 200 && r->status < 500,
						      "%s %s (token %zu): %ld %s", methods[mi], p,
						      ti, r->status, r->body);
					if (r->status != 204 && r->status != 304)
						ck_json_type(r);
					resp_free(r);
					free(p);
				}
	/* JSON values of every type where strings are expected */
	static const char *const odd_json[] = {
		"{\"message\":42,\"starts_at\":true,\"color\":null}",
		"{\"message\":{\"a\":1}}",
		"{\"message\":[1,2,3]}",
		"{\"message\":\"x\",\"starts_at\":1.5e300}",
		"{\"message\":\"x\",\"ends_at\":[\"2017-01-01\"]}",
		"{}",
	};
	for (size_t i = 0; i < sizeof(odd_json) / sizeof(odd_json[0]); i++) {
		resp *r = api_json("POST", "/broadcast_messages", admin_token(), odd_json[i]);
		ck_assert_msg(r->status >= 200 && r->status < 500, "%s: %ld %s", odd_json[i],
			      r->status, r->body);
		if (r->status == 201)
			bm_delete(jint(r->json, "id"));
		resp_free(r);
		char *p = fmt("/users/%lld/impersonation_tokens", uid);
		r = api_json("POST", p, admin_token(), odd_json[i]);
		ck_assert_msg(r->status >= 200 && r->status < 500, "%s: %ld %s", odd_json[i],
			      r->status, r->body);
		resp_free(r);
		free(p);
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		free(paths[i]);
	free(user);
}
END_TEST

Suite *suite_conventions(void)
{
	Suite *s = suite_create("conventions");
	TCase *tc = tcase_create("conventions");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_unknown_route);
	tcase_add_test(tc, test_content_type_exact);
	tcase_add_test(tc, test_head);
	tcase_add_test(tc, test_encoded_ids);
	tcase_add_test(tc, test_no_content);
	tcase_add_test(tc, test_version);
	tcase_add_test(tc, test_pagination_headers);
	tcase_add_test(tc, test_parameter_sources);
	tcase_add_test(tc, test_malformed_bodies);
	tcase_add_test(tc, test_huge_fields);
	tcase_add_test(tc, test_non_numeric_ids);
	tcase_add_test(tc, test_no_server_errors);
	suite_add_tcase(s, tc);
	return s;
}
