/* Unit suite: http (request parsing, parameter view, router, pagination, error table). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Check's deprecated fail() macro would hide the request module's fail(). */
#undef fail

#include "http/cache.h"
#include "http/pagination.h"
#include "http/request.h"
#include "http/router.h"

static arena *A;
static config cfg;
static request R;
static char external_url[] = "https://git.example.com:8443";

static void setup(void)
{
	A = arena_new();
	memset(&cfg, 0, sizeof(cfg));
	cfg.external_url = external_url;
	cfg.max_body = 1 << 20;
	request_init(&R, A, &cfg);
}

static void teardown(void)
{
	arena_destroy(A);
	A = NULL;
}

static int parse(const char *method, const char *uri, const char *ctype, const char *body)
{
	return request_parse(&R, method, uri, ctype, body, body ? strlen(body) : 0);
}

static int count_params(void)
{
	int n = 0;
	for (param *p = R.params; p; p = p->next)
		n++;
	return n;
}

#define FORM "application/x-www-form-urlencoded"
#define JSON "application/json"

/* ---- url_decode ---- */

START_TEST(test_url_decode)
{
	ck_assert_str_eq(url_decode(A, "a%41b%2f%2F", 11, false), "aAb//");
	ck_assert_str_eq(url_decode(A, "a+b", 3, true), "a b");
	ck_assert_str_eq(url_decode(A, "a+b", 3, false), "a+b");
	ck_assert_str_eq(url_decode(A, "abc%41", 3, false), "abc");
	ck_assert_str_eq(url_decode(A, "", 0, false), "");
	ck_assert_ptr_null(url_decode(A, "%", 1, false));
	ck_assert_ptr_null(url_decode(A, "%4", 2, false));
	ck_assert_ptr_null(url_decode(A, "a%41%4", 6, false));
	ck_assert_ptr_null(url_decode(A, "%g1", 3, false));
	ck_assert_ptr_null(url_decode(A, "%1g", 3, false));
	ck_assert_ptr_null(url_decode(A, "a%00b", 5, false));
}
END_TEST

/* ---- request_parse ---- */

START_TEST(test_parse_request_line)
{
	ck_assert_int_eq(parse("HEAD", "/api/v4/users/john%2Edoe?x=1", NULL, NULL), 0);
	ck_assert_str_eq(R.method, "GET");
	ck_assert(R.head);
	ck_assert_str_eq(R.path, "/api/v4/users/john%2Edoe");
	ck_assert_str_eq(R.query, "x=1");
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("DELETE", "/api/v4/users/1", NULL, NULL), 0);
	ck_assert_str_eq(R.method, "DELETE");
	ck_assert(!R.head);
	ck_assert_str_eq(R.query, "");
	ck_assert_ptr_null(R.params);
}
END_TEST

START_TEST(test_parse_query)
{
	const char *uri = "/api/v4/users?username=john&search=a+b%20c%2Bd&flag&&empty="
			  "&caf%C3%A9=%E2%82%AC";
	ck_assert_int_eq(parse("GET", uri, NULL, NULL), 0);
	ck_assert_str_eq(param_str(&R, "username"), "john");
	ck_assert_str_eq(param_str(&R, "search"), "a b c+d");
	ck_assert_str_eq(param_str(&R, "flag"), "");
	ck_assert_str_eq(param_str(&R, "empty"), "");
	ck_assert_str_eq(param_str(&R, "caf\xc3\xa9"), "\xe2\x82\xac");
	ck_assert_ptr_null(param_str(&R, "missing"));
	ck_assert_int_eq(count_params(), 5);
	ck_assert_int_eq(param_find(&R, "username")->source, SRC_QUERY);
}
END_TEST

/* Rack's hash parameters: custom_attributes[KEY]=VALUE, encoded or not, in the order
 * sent; names that are no such key (empty, nested, an array, another name) are not
 * among them. */
START_TEST(test_param_map)
{
	const char *uri =
		"/api/v4/users?custom_attributes[team]=blue"
		"&custom_attributes%5Btier%20one%5D=gold%26silver"
		"&custom_attributes[]=arr&custom_attributes[]x=no&custom_attributes[a][b]=c"
		"&custom_attributes=plain&custom_attributesx[k]=other"
		"&custom_attributes[team]=red";
	ck_assert_int_eq(parse("GET", uri, NULL, NULL), 0);
	const char **k, **v;
	ck_assert_int_eq(param_map(&R, "custom_attributes", &k, &v), 3);
	ck_assert_str_eq(k[0], "team");
	ck_assert_str_eq(v[0], "blue");
	ck_assert_str_eq(k[1], "tier one");
	ck_assert_str_eq(v[1], "gold&silver");
	ck_assert_str_eq(k[2], "team");
	ck_assert_str_eq(v[2], "red");
	ck_assert_int_eq(param_map(&R, "missing", &k, &v), 0);

	/* a JSON body's members named so are as the query's */
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("POST", "/x", "application/json",
			       "{\"custom_attributes[k]\": \"v\", \"custom_attributes[n]\": null}"),
			 0);
	ck_assert_int_eq(param_map(&R, "custom_attributes", &k, &v), 2);
	ck_assert_str_eq(k[0], "k");
	ck_assert_str_eq(v[0], "v");
	ck_assert_str_eq(k[1], "n");
	ck_assert_str_eq(v[1], "");
}
END_TEST

START_TEST(test_parse_form_body)
{
	ck_assert_int_eq(parse("POST", "/api/v4/users?page=1", FORM,
			       "name=John+Doe&email=john%40example.com&bio=a%26b%3Dc"),
			 0);
	ck_assert_str_eq(param_str(&R, "name"), "John Doe");
	ck_assert_str_eq(param_str(&R, "email"), "john@example.com");
	ck_assert_str_eq(param_str(&R, "bio"), "a&b=c");
	ck_assert_int_eq(param_find(&R, "name")->source, SRC_BODY);
	ck_assert_int_eq(param_find(&R, "page")->source, SRC_QUERY);

	/* no content type: read as a form */
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("PUT", "/x", NULL, "a=1"), 0);
	ck_assert_str_eq(param_str(&R, "a"), "1");

	/* content type with parameters */
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("PUT", "/x", FORM "; charset=UTF-8", "a=2"), 0);
	ck_assert_str_eq(param_str(&R, "a"), "2");
}
END_TEST

START_TEST(test_parse_form_body_with_nul)
{
	ck_assert_int_eq(request_parse(&R, "POST", "/x", FORM, "a=1\0b=2", 7), ERR_BAD_REQUEST);
	ck_assert_str_eq(R.ctx.err_detail, "invalid form body");
}
END_TEST

START_TEST(test_parse_other_body_ignored)
{
	ck_assert_int_eq(parse("POST", "/x?a=1", "application/octet-stream", "b=2&{not json"), 0);
	ck_assert_str_eq(param_str(&R, "a"), "1");
	ck_assert_ptr_null(param_str(&R, "b"));
	ck_assert_int_eq(count_params(), 1);
}
END_TEST

START_TEST(test_parse_arrays)
{
	ck_assert_int_eq(parse("GET", "/x?ids[]=1&ids%5B%5D=2&ids=9&labels[]=", FORM, "ids[]=3"),
			 0);
	const char **v;
	ck_assert_int_eq(param_array(&R, "ids", &v), 3);
	ck_assert_str_eq(v[0], "1");
	ck_assert_str_eq(v[1], "2");
	ck_assert_str_eq(v[2], "3");
	ck_assert_ptr_null(v[3]);
	/* the plain name is a different parameter */
	ck_assert_str_eq(param_str(&R, "ids"), "9");
	ck_assert_int_eq(param_array(&R, "labels", &v), 1);
	ck_assert_str_eq(v[0], "");
	ck_assert_int_eq(param_array(&R, "none", &v), 0);
	ck_assert_ptr_null(v[0]);
	ck_assert_ptr_null(param_str(&R, "labels"));
}
END_TEST

START_TEST(test_parse_json)
{
	const char *body =
		"{\"name\":\"x \\\"quoted\\\" \\u00e9\",\"count\":5,\"neg\":-3,\"ratio\":1.5,"
		"\"big\":12345678901234,\"flag\":true,\"off\":false,\"nothing\":null,"
		"\"ids\":[1,\"two\",null,true],\"empty\":[],\"obj\":{\"a\":[1,2]}}";
	ck_assert_int_eq(parse("POST", "/x?q=1", JSON, body), 0);
	ck_assert_str_eq(param_str(&R, "name"), "x \"quoted\" \xc3\xa9");
	ck_assert_int_eq(param_find(&R, "name")->source, SRC_BODY);
	ck_assert_str_eq(param_str(&R, "count"), "5");
	ck_assert_str_eq(param_str(&R, "neg"), "-3");
	ck_assert_str_eq(param_str(&R, "ratio"), "1.5");
	ck_assert_str_eq(param_str(&R, "big"), "12345678901234");
	ck_assert_str_eq(param_str(&R, "flag"), "true");
	ck_assert_str_eq(param_str(&R, "off"), "false");
	ck_assert_str_eq(param_str(&R, "q"), "1");
	/* null is present, without a value */
	ck_assert_ptr_nonnull(param_find(&R, "nothing"));
	ck_assert_ptr_null(param_find(&R, "nothing")->value);
	ck_assert_ptr_null(param_str(&R, "nothing"));
	const char **v;
	ck_assert_int_eq(param_array(&R, "ids", &v), 4);
	ck_assert_str_eq(v[0], "1");
	ck_assert_str_eq(v[1], "two");
	ck_assert_ptr_null(v[2]);
	ck_assert_str_eq(v[3], "true");
	ck_assert_ptr_null(param_str(&R, "ids"));
	ck_assert_int_eq(param_array(&R, "empty", &v), 0);
	ck_assert_str_eq(param_str(&R, "obj"), "{\"a\":[1,2]}");

	long long n;
	bool b;
	ck_assert_int_eq(param_int(&R, "count", &n), 0);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(param_bool(&R, "flag", &b), 0);
	ck_assert(b);
	ck_assert_int_eq(param_bool(&R, "off", &b), 0);
	ck_assert(!b);
	ck_assert_int_eq(param_int(&R, "nothing", &n), 1);
	ck_assert_int_eq(param_bool(&R, "nothing", &b), 1);
	ck_assert_int_eq(param_int(&R, "ratio", &n), ERR_INVALID);
}
END_TEST

START_TEST(test_parse_json_content_type_variants)
{
	ck_assert_int_eq(parse("POST", "/x", "application/json; charset=utf-8", " {\"a\":1} \n"),
			 0);
	ck_assert_str_eq(param_str(&R, "a"), "1");
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("POST", "/x", "Application/JSON", "{}"), 0);
	ck_assert_ptr_null(R.params);
}
END_TEST

/* A JSON body whose value for "a" is depth arrays deep. */
static const char *nested(int depth)
{
	buf b;
	buf_init(&b, A, 64);
	buf_puts(&b, "{\"a\":");
	for (int i = 0; i < depth; i++)
		buf_putc(&b, '[');
	buf_putc(&b, '1');
	for (int i = 0; i < depth; i++)
		buf_putc(&b, ']');
	buf_putc(&b, '}');
	return buf_cstr(&b);
}

START_TEST(test_parse_json_depth_limit)
{
	ck_assert_int_eq(parse("POST", "/x", JSON, nested(10)), 0);
	ck_assert_int_eq(param_array(&R, "a", &(const char **){NULL}), 1);
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("POST", "/x", JSON, nested(20)), ERR_BAD_REQUEST);
	ck_assert_str_eq(R.ctx.err_detail, "malformed JSON body");
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("POST", "/x", JSON, nested(5000)), ERR_BAD_REQUEST);
}
END_TEST

START_TEST(test_parse_json_malformed)
{
	static const char *const bad[] = {
		"{",
		"{\"a\":}",
		"{} x",
		"{}{}",
		"{\"a\":tru}",
		"nul",
		"{\"a\" 1}",
		"{\"a\":-}",
		"{\"a\":.5}",
		"{\"a\":[1,2}",
		"{\"a\":\"unterminated}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		request_init(&R, A, &cfg);
		ck_assert_msg(parse("POST", "/x", JSON, bad[i]) == ERR_BAD_REQUEST, "accepted %s",
			      bad[i]);
		ck_assert_str_eq(R.ctx.err_detail, "malformed JSON body");
	}
	static const char *const not_object[] = {"[1,2]", "\"str\"", "5 ", "true\n", "[]"};
	for (size_t i = 0; i < sizeof(not_object) / sizeof(*not_object); i++) {
		request_init(&R, A, &cfg);
		ck_assert_msg(parse("POST", "/x", JSON, not_object[i]) == ERR_BAD_REQUEST,
			      "accepted %s", not_object[i]);
		ck_assert_msg(strcmp(R.ctx.err_detail, "JSON body must be an object") == 0,
			      "%s: %s", not_object[i], R.ctx.err_detail);
	}
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("POST", "/x", JSON, "null"), ERR_BAD_REQUEST);
}
END_TEST

START_TEST(test_parse_json_invalid_text)
{
	static const char *const bad[] = {
		"{\"a\":\"\xff\"}",          /* invalid UTF-8 */
		"{\"a\":[\"ok\",\"\xc3\"]}", /* in an array */
		"{\"\xff\":1}",              /* in a key */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		request_init(&R, A, &cfg);
		ck_assert_msg(parse("POST", "/x", JSON, bad[i]) == ERR_BAD_REQUEST, "accepted %zu",
			      i);
		ck_assert_str_eq(R.ctx.err_detail, "parameters must be valid UTF-8 text");
	}
}
END_TEST

/* Text is any valid UTF-8, control characters included; a NUL byte is kept with the
 * value's length, and refused by param_check_text naming the parameter, but for the one a
 * route takes as bytes. */
START_TEST(test_parse_control_characters)
{
	request_init(&R, A, &cfg);
	ck_assert_int_eq(
		parse("POST", "/x", JSON,
		      "{\"a\":\"\\u001b[32;1mok\\u001b[0;m\\u0007\",\"t\":\"x\\u0000y\\u0000\"}"),
		0);
	ck_assert_str_eq(param_str(&R, "a"), "\x1b[32;1mok\x1b[0;m\a");
	param *t = param_find(&R, "t");
	ck_assert_int_eq(t->len, 4);
	ck_assert(memcmp(t->value, "x\0y\0", 4) == 0);
	ck_assert_int_eq(param_check_text(&R, NULL), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "t is invalid");
	ck_assert_int_eq(param_check_text(&R, "t"), 0);
	const char *data;
	size_t len;
	ck_assert_int_eq(param_bytes(&R, "t", &data, &len), 0);
	ck_assert(len == 4 && memcmp(data, "x\0y\0", 4) == 0);
	ck_assert_int_eq(param_bytes(&R, "none", &data, &len), 1);
	/* the same from a query, a form body and a multipart part */
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("POST", "/x?q=%01%00", FORM, "a=%1b%5b0K&b=1%002"), 0);
	ck_assert_str_eq(param_str(&R, "a"), "\x1b[0K");
	ck_assert_int_eq(param_find(&R, "b")->len, 3);
	ck_assert_int_eq(param_find(&R, "q")->len, 2);
	ck_assert_int_eq(param_check_text(&R, NULL), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "q is invalid");
	ck_assert_int_eq(param_check_text(&R, "q"), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "b is invalid");
	request_init(&R, A, &cfg);
	static const char mp[] = "--XyZzy\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n"
				 "a\0b\r\n--XyZzy\r\nContent-Disposition: form-data; name=\"file\";"
				 " filename=\"f.bin\"\r\n\r\n\0\xff\r\n--XyZzy--\r\n";
	ck_assert_int_eq(request_parse(&R, "POST", "/x", "multipart/form-data; boundary=XyZzy", mp,
				       sizeof(mp) - 1),
			 0);
	ck_assert_int_eq(param_find(&R, "title")->len, 3);
	ck_assert_int_eq(param_check_text(&R, NULL), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "title is invalid");
	ck_assert_int_eq(param_check_text(&R, "title"), 0); /* a file part is bytes */
	/* a name holds no NUL */
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("GET", "/x?a%00b=1", NULL, NULL), ERR_BAD_REQUEST);
}
END_TEST

/* A URI longer than the shipped nginx lets through is 414, whatever nginx allowed. */
START_TEST(test_parse_uri_too_long)
{
	char uri[REQUEST_URI_MAX + 2];
	size_t prefix = strlen("/api/v4/projects?search=");
	memcpy(uri, "/api/v4/projects?search=", prefix);
	memset(uri + prefix, 'a', REQUEST_URI_MAX - prefix);
	uri[REQUEST_URI_MAX] = '\0';
	ck_assert_int_eq(parse("GET", uri, NULL, NULL), 0);
	ck_assert_uint_eq(strlen(param_str(&R, "search")), REQUEST_URI_MAX - prefix);
	request_init(&R, A, &cfg);
	uri[REQUEST_URI_MAX] = 'a';
	uri[REQUEST_URI_MAX + 1] = '\0';
	ck_assert_int_eq(parse("GET", uri, NULL, NULL), ERR_URI_TOO_LONG);
}
END_TEST

/* What json-c accepts and JSON does not: non-finite numbers and lone surrogates. */
START_TEST(test_parse_json_strict)
{
	static const char *const bad[] = {
		"{\"a\":NaN}",
		"{\"a\":nan}",
		"{\"a\":Infinity}",
		"{\"a\":-Infinity}",
		"{\"a\":[1,NaN]}",
		"{\"a\":{\"b\":Infinity}}",
		"{\"a\":1e400}",
		"{\"a\":\"\\ud800\"}",
		"{\"a\":\"\\uDBFF\"}",
		"{\"a\":\"\\udc00\"}",
		"{\"a\":\"x\\ud800y\"}",
		"{\"a\":\"\\ud800\\u0041\"}",
		"{\"a\":\"\\ud800\\ud800\"}",
		"{\"a\":\"\\ud83d\\ude00\\ude00\"}",
		"{\"\\ud800\":1}",
		"{\"a\":[\"\\udfff\"]}",
		"{\"a\":\"\\ud800\\\\udc00\"}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		request_init(&R, A, &cfg);
		ck_assert_msg(parse("POST", "/x", JSON, bad[i]) == ERR_BAD_REQUEST, "accepted %s",
			      bad[i]);
		ck_assert_str_eq(R.ctx.err_detail, "malformed JSON body");
	}
	/* a surrogate pair, escaped backslashes before a "u", big finite numbers */
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("POST", "/x", JSON,
			       "{\"a\":\"\\ud83d\\ude00\",\"b\":\"\\\\ud800\",\"c\":1e300,"
			       "\"d\":\"\\\"\\ud800\\udc00\\\\\"}"),
			 0);
	ck_assert_str_eq(param_str(&R, "a"), "\xf0\x9f\x98\x80");
	ck_assert_str_eq(param_str(&R, "b"), "\\ud800");
	ck_assert_str_eq(param_str(&R, "d"), "\"\xf0\x90\x80\x80\\");
}
END_TEST

#define MP "multipart/form-data; boundary=XyZzy"

START_TEST(test_parse_multipart)
{
	const char body[] =
		"preamble\r\n"
		"--XyZzy\r\n"
		"Content-Disposition: form-data; name=\"title\"\r\n"
		"\r\n"
		"Hello\r\nworld\r\n"
		"--XyZzy\r\n"
		"Content-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\n"
		"Content-Type: application/octet-stream\r\n"
		"\r\n"
		"\xff\xfe binary\r\n"
		"--XyZzy\r\n"
		"content-disposition: form-data; name=tags[]\r\n"
		"\r\n"
		"a\r\n"
		"--XyZzy\r\n"
		"Content-Disposition: form-data; name=\"tags[]\"\r\n"
		"\r\n"
		"\r\n"
		"--XyZzy--\r\n";
	ck_assert_int_eq(request_parse(&R, "POST", "/x", MP, body, sizeof(body) - 1), 0);
	ck_assert_str_eq(param_str(&R, "title"), "Hello\r\nworld");
	ck_assert_int_eq(param_find(&R, "title")->source, SRC_BODY);
	ck_assert_str_eq(param_str(&R, "file"), "\xff\xfe binary");
	ck_assert_str_eq(param_str(&R, "file.filename"), "notes.txt");
	ck_assert_ptr_null(param_str(&R, "title.filename"));
	const char **v;
	ck_assert_int_eq(param_array(&R, "tags", &v), 2);
	ck_assert_str_eq(v[0], "a");
	ck_assert_str_eq(v[1], "");
}
END_TEST

START_TEST(test_parse_multipart_quoted_boundary)
{
	const char body[] = "--a b\r\n"
			    "Content-Disposition: form-data; name=\"x\"\r\n\r\n"
			    "1\r\n"
			    "--a b--";
	ck_assert_int_eq(request_parse(&R, "POST", "/x", "multipart/form-data; boundary=\"a b\"",
				       body, sizeof(body) - 1),
			 0);
	ck_assert_str_eq(param_str(&R, "x"), "1");
}
END_TEST

START_TEST(test_parse_multipart_malformed)
{
	static const struct {
		const char *ctype, *body, *detail;
	} bad[] = {
		{"multipart/form-data", "--XyZzy\r\n", "multipart body without boundary"},
		{"multipart/form-data; boundary=", "--\r\n", "multipart body without boundary"},
		{MP, "no delimiter at all", "malformed multipart body"},
		{MP, "--XyZzy\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1",
		 "malformed multipart body"}, /* not closed */
		{MP, "--XyZzy\r\nContent-Disposition: form-data; name=\"a\"\r\n1\r\n--XyZzy--",
		 "malformed multipart body"}, /* no blank line after the headers */
		{MP, "--XyZzy\r\nContent-Disposition: form-data\r\n\r\n1\r\n--XyZzy--",
		 "malformed multipart body"}, /* no name */
		{MP, "--XyZzyjunk\r\n", "malformed multipart body"},
		{MP,
		 "--XyZzy\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\xff\r\n--XyZzy--",
		 "parameters must be valid UTF-8 text"},
		{MP,
		 "--XyZzy\r\nContent-Disposition: form-data; name=\"a\"; filename=\"\xff\"\r\n\r\n"
		 "x\r\n--XyZzy--",
		 "parameters must be valid UTF-8 text"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		request_init(&R, A, &cfg);
		ck_assert_msg(parse("POST", "/x", bad[i].ctype, bad[i].body) == ERR_BAD_REQUEST,
			      "accepted multipart %zu", i);
		ck_assert_str_eq(R.ctx.err_detail, bad[i].detail);
	}
}
END_TEST

START_TEST(test_parse_invalid_percent_encoding)
{
	static const char *const bad[] = {"/x?a=%zz",  "/x?a=%4",   "/x?a=%",
					  "/x?a%zz=1", "/x?a%00=1", "/x?ok=1&a=50%"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		request_init(&R, A, &cfg);
		ck_assert_msg(parse("GET", bad[i], NULL, NULL) == ERR_BAD_REQUEST, "accepted %s",
			      bad[i]);
		ck_assert_str_eq(R.ctx.err_detail, "invalid percent-encoding");
	}
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("POST", "/x", FORM, "a=%G0"), ERR_BAD_REQUEST);
	ck_assert_str_eq(R.ctx.err_detail, "invalid percent-encoding");
}
END_TEST

START_TEST(test_parse_invalid_utf8)
{
	static const char *const bad[] = {"/x?a=%FF",    "/x?a=%C3",       "/x?%FF=1",
					  "/x?a=%01%FF", "/x?a=%ED%A0%80", "/x?a=%C0%AF",
					  "/x?a=%00%C3"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		request_init(&R, A, &cfg);
		ck_assert_msg(parse("GET", bad[i], NULL, NULL) == ERR_BAD_REQUEST, "accepted %s",
			      bad[i]);
		ck_assert_str_eq(R.ctx.err_detail, "parameters must be valid UTF-8 text");
	}
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("POST", "/x", FORM, "a=\xff"), ERR_BAD_REQUEST);
	ck_assert_str_eq(R.ctx.err_detail, "parameters must be valid UTF-8 text");
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("GET", "/x?a=%09tab%0Aline%C3%A9", NULL, NULL), 0);
	ck_assert_str_eq(param_str(&R, "a"), "\ttab\nline\xc3\xa9");
}
END_TEST

START_TEST(test_parse_too_many_params)
{
	buf q;
	buf_init(&q, A, 0);
	buf_puts(&q, "/x?");
	for (int i = 0; i < 512; i++)
		buf_printf(&q, "p%d=%d&", i, i);
	ck_assert_int_eq(parse("GET", buf_cstr(&q), NULL, NULL), 0);
	ck_assert_int_eq(count_params(), 512);
	request_init(&R, A, &cfg);
	buf_puts(&q, "one=more");
	ck_assert_int_eq(parse("GET", buf_cstr(&q), NULL, NULL), ERR_BAD_REQUEST);
	ck_assert_str_eq(R.ctx.err_detail, "too many parameters");
}
END_TEST

START_TEST(test_last_value_wins)
{
	ck_assert_int_eq(parse("POST", "/x?a=1&a=2&b=q", FORM, "b=body&c=1&c=2"), 0);
	ck_assert_str_eq(param_str(&R, "a"), "2");
	ck_assert_str_eq(param_str(&R, "b"), "body");
	ck_assert_int_eq(param_find(&R, "b")->source, SRC_BODY);
	ck_assert_str_eq(param_str(&R, "c"), "2");
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("POST", "/x?a=1", JSON, "{\"a\":null}"), 0);
	ck_assert_ptr_null(param_str(&R, "a")); /* an explicit null overrides too */
}
END_TEST

START_TEST(test_path_captures_win)
{
	ck_assert_int_eq(parse("POST", "/x?id=9&id=10", FORM, "id=11"), 0);
	param_add(&R, "id", "5", false, SRC_PATH, true);
	ck_assert_str_eq(param_str(&R, "id"), "5");
	ck_assert_int_eq(param_find(&R, "id")->source, SRC_PATH);
	/* a capture added before any other parameter wins as well */
	request_init(&R, A, &cfg);
	param_add(&R, "id", "6", false, SRC_PATH, true);
	param_add(&R, "id", "7", false, SRC_QUERY, false);
	ck_assert_str_eq(param_str(&R, "id"), "6");
	ck_assert_ptr_eq(R.params_tail, param_find(&R, "id")->next);
}
END_TEST

/* ---- typed getters ---- */

START_TEST(test_param_int)
{
	ck_assert_int_eq(
		parse("GET",
		      "/x?a=42&b=-7&c=&d=12abc&e=%2012&f=99999999999999999999&g=0x10&h=1.0&"
		      "i=9223372036854775807&j=%2B3",
		      NULL, NULL),
		0);
	long long v = -1;
	ck_assert_int_eq(param_int(&R, "a", &v), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(param_int(&R, "b", &v), 0);
	ck_assert_int_eq(v, -7);
	ck_assert_int_eq(param_int(&R, "i", &v), 0);
	ck_assert_int_eq(v, 9223372036854775807LL);
	ck_assert_int_eq(param_int(&R, "j", &v), 0);
	ck_assert_int_eq(v, 3);
	v = 77;
	ck_assert_int_eq(param_int(&R, "missing", &v), 1);
	ck_assert_int_eq(v, 77);
	static const char *const bad[] = {"c", "d", "e", "f", "g", "h"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		R.ctx.err_detail = NULL;
		ck_assert_msg(param_int(&R, bad[i], &v) == ERR_INVALID, "accepted %s", bad[i]);
		ck_assert_str_eq(R.ctx.err_detail, arena_printf(A, "%s is invalid", bad[i]));
	}
	ck_assert_int_eq(v, 77);
}
END_TEST

START_TEST(test_param_bool)
{
	ck_assert_int_eq(parse("GET",
			       "/x?t1=true&t2=1&t3=t&t4=yes&t5=y&t6=on&t7=TRUE&f1=false&f2=0&f3=f&"
			       "f4=no&f5=n&f6=off&f7=False&bad=maybe&empty=",
			       NULL, NULL),
			 0);
	bool b;
	for (int i = 1; i <= 7; i++) {
		b = false;
		ck_assert_int_eq(param_bool(&R, arena_printf(A, "t%d", i), &b), 0);
		ck_assert_msg(b, "t%d", i);
		b = true;
		ck_assert_int_eq(param_bool(&R, arena_printf(A, "f%d", i), &b), 0);
		ck_assert_msg(!b, "f%d", i);
	}
	ck_assert_int_eq(param_bool(&R, "missing", &b), 1);
	ck_assert_int_eq(param_bool(&R, "bad", &b), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "bad is invalid");
	ck_assert_int_eq(param_bool(&R, "empty", &b), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "empty is invalid");
}
END_TEST

START_TEST(test_param_require)
{
	ck_assert_int_eq(parse("POST", "/x", FORM, "title=Bug&empty="), 0);
	const char *v = NULL;
	ck_assert_int_eq(param_require(&R, "title", &v), 0);
	ck_assert_str_eq(v, "Bug");
	ck_assert_int_eq(param_require(&R, "description", &v), ERR_MISSING);
	ck_assert_str_eq(R.ctx.err_detail, "description");
	ck_assert_int_eq(param_require(&R, "empty", &v), ERR_MISSING);
	ck_assert_str_eq(R.ctx.err_detail, "empty");
	respond_error(&R, ERR_MISSING);
	ck_assert_int_eq(R.status, 400);
	ck_assert_str_eq(R.body, "{\"message\":\"400 (Bad request) \\\"empty\\\" not given\"}");
}
END_TEST

START_TEST(test_param_text)
{
	ck_assert_int_eq(parse("POST", "/x", FORM, "name=%C3%A9%C3%A9%C3%A9&title=abcd"), 0);
	const char *v = NULL;
	ck_assert_int_eq(param_text(&R, "name", 3, &v), 0); /* characters, not bytes */
	ck_assert_str_eq(v, "\xc3\xa9\xc3\xa9\xc3\xa9");
	ck_assert_int_eq(param_text(&R, "missing", 3, &v), 1);
	ck_assert_ptr_null(R.validation);
	ck_assert_int_eq(param_text(&R, "title", 3, &v), ERR_VALIDATION);
	ck_assert_int_eq(param_text(&R, "name", 2, &v), ERR_VALIDATION);
	ck_assert_str_eq(json_object_to_json_string_ext(R.validation, JSON_C_TO_STRING_PLAIN),
			 "{\"title\":[\"is too long (maximum is 3 characters)\"],"
			 "\"name\":[\"is too long (maximum is 2 characters)\"]}");
	respond_error(&R, ERR_VALIDATION);
	ck_assert_int_eq(R.status, 400);
	ck_assert_str_eq(R.body,
			 "{\"message\":{\"title\":[\"is too long (maximum is 3 characters)\"],"
			 "\"name\":[\"is too long (maximum is 2 characters)\"]}}");
}
END_TEST

START_TEST(test_param_datetime_and_date)
{
	ck_assert_int_eq(
		parse("GET",
		      "/x?at=2017-09-05T10:12:35.123Z&bad=2017-02-30T00:00:00Z&day=2016-02-29&"
		      "badday=2017-02-29&dayt=2017-09-05T10:00Z&"
		      "dayo=2017-09-05T23:30:00%2B02:00&baddayt=2017-09-05T10:00Q",
		      NULL, NULL),
		0);
	const char *v = NULL;
	ck_assert_int_eq(param_datetime(&R, "at", &v), 0);
	ck_assert_str_eq(v, "2017-09-05T10:12:35.123Z");
	ck_assert_int_eq(param_datetime(&R, "missing", &v), 1);
	ck_assert_int_eq(param_datetime(&R, "bad", &v), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "bad is invalid");
	ck_assert_int_eq(param_date(&R, "day", &v), 0);
	ck_assert_str_eq(v, "2016-02-29");
	ck_assert_int_eq(param_date(&R, "missing", &v), 1);
	ck_assert_int_eq(param_date(&R, "badday", &v), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "badday is invalid");
	/* a date-time is its calendar date as written (GitLab 10's cast to a date) */
	ck_assert_int_eq(param_date(&R, "dayt", &v), 0);
	ck_assert_str_eq(v, "2017-09-05");
	ck_assert_int_eq(param_date(&R, "dayo", &v), 0);
	ck_assert_str_eq(v, "2017-09-05");
	ck_assert_int_eq(param_date(&R, "baddayt", &v), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "baddayt is invalid");
}
END_TEST

START_TEST(test_param_oneof)
{
	static const char *const sorts[] = {"asc", "desc", NULL};
	ck_assert_int_eq(parse("GET", "/x?sort=desc&order=up&empty=", NULL, NULL), 0);
	const char *v = NULL;
	ck_assert_int_eq(param_oneof(&R, "sort", sorts, &v), 0);
	ck_assert_ptr_eq(v, sorts[1]); /* the table's own string */
	ck_assert_int_eq(param_oneof(&R, "missing", sorts, &v), 1);
	ck_assert_int_eq(param_oneof(&R, "order", sorts, &v), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "order does not have a valid value");
	ck_assert_int_eq(param_oneof(&R, "empty", sorts, &v), ERR_INVALID);
	respond_error(&R, ERR_INVALID);
	ck_assert_int_eq(R.status, 400);
	ck_assert_str_eq(R.body, "{\"error\":\"empty does not have a valid value\"}");
}
END_TEST

/* ---- router ---- */

static int h_list(request *r)
{
	return 0;
}
static int h_show(request *r)
{
	return 0;
}
static int h_keys(request *r)
{
	return 0;
}
static int h_create(request *r)
{
	return 0;
}
static int h_file(request *r)
{
	return 0;
}
static int h_self(request *r)
{
	return 0;
}

static const route table[] = {
	{"GET", "/api/v4/users", h_list, ROUTE_PUBLIC, NULL},
	{"POST", "/api/v4/users", h_create, ROUTE_ADMIN, NULL},
	{"GET", "/api/v4/users/:id", h_show, ROUTE_PUBLIC, NULL},
	{"GET", "/api/v4/users/:id/keys", h_keys, ROUTE_PUBLIC, NULL},
	{"GET", "/api/v4/user", h_self, ROUTE_AUTH, NULL},
	{"GET", "/api/v4/projects/:id/repository/files/*file_path", h_file, ROUTE_PUBLIC, NULL},
	{"GET", "/*id/uploads/:secret/:filename", h_file, ROUTE_PUBLIC, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
static const route *const tables[] = {table, NULL};

/* Each router test runs twice: on the tables as they are (0), and indexed (1) as the
 * workers index theirs. */
static void index_routes(int i)
{
	if (i == 1)
		router_index(tables);
}

static const route *route_for(const char *method, const char *uri)
{
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse(method, uri, NULL, NULL), 0);
	return router_match(tables, &R);
}

START_TEST(test_router_literal_and_capture)
{
	index_routes(_i);
	ck_assert_ptr_eq(route_for("GET", "/api/v4/users"), &table[0]);
	ck_assert_ptr_null(R.params);
	ck_assert_ptr_eq(route_for("POST", "/api/v4/users"), &table[1]);
	ck_assert_ptr_eq(route_for("GET", "/api/v4/user"), &table[4]);

	ck_assert_ptr_eq(route_for("GET", "/api/v4/users/42"), &table[2]);
	ck_assert_str_eq(param_str(&R, "id"), "42");
	ck_assert_int_eq(param_find(&R, "id")->source, SRC_PATH);

	ck_assert_ptr_eq(route_for("GET", "/api/v4/users/john.doe/keys"), &table[3]);
	ck_assert_str_eq(param_str(&R, "id"), "john.doe");

	ck_assert_ptr_eq(route_for("HEAD", "/api/v4/users/7"), &table[2]);
	ck_assert_str_eq(param_str(&R, "id"), "7");
}
END_TEST

START_TEST(test_router_no_match)
{
	index_routes(_i);
	ck_assert_ptr_null(route_for("GET", "/api/v4/usersx"));
	ck_assert_ptr_null(route_for("GET", "/api/v4/use"));
	ck_assert_ptr_null(route_for("GET", "/api/v4"));
	ck_assert_ptr_null(route_for("GET", "/api/v4/users/1/keys/2"));
	ck_assert_ptr_null(route_for("GET", "/api/v4/users/1/key"));
	ck_assert_ptr_null(route_for("GET", "/api/v4/users//keys"));
	ck_assert_ptr_null(route_for("GET", "/api/v4/users//"));
	ck_assert_ptr_null(route_for("GET", "/api/v3/users"));
	ck_assert_ptr_null(route_for("GET", ""));
	ck_assert_ptr_null(route_for("GET", "/"));
}
END_TEST

START_TEST(test_router_method_mismatch)
{
	index_routes(_i);
	ck_assert_ptr_null(route_for("DELETE", "/api/v4/users"));
	ck_assert_ptr_null(route_for("PUT", "/api/v4/users/1"));
	ck_assert_ptr_null(route_for("POST", "/api/v4/users/1/keys"));
	ck_assert_ptr_null(route_for("get", "/api/v4/users"));
	ck_assert_ptr_null(R.params);
}
END_TEST

START_TEST(test_router_encoded_slash_does_not_split)
{
	index_routes(_i);
	ck_assert_ptr_eq(route_for("GET", "/api/v4/users/group%2Fsub"), &table[2]);
	ck_assert_str_eq(param_str(&R, "id"), "group/sub");
	ck_assert_ptr_eq(route_for("GET", "/api/v4/users/group%2fsub%2Fdeep/keys"), &table[3]);
	ck_assert_str_eq(param_str(&R, "id"), "group/sub/deep");
	/* '+' is a literal in a path */
	ck_assert_ptr_eq(route_for("GET", "/api/v4/users/a+b%20c"), &table[2]);
	ck_assert_str_eq(param_str(&R, "id"), "a+b c");
}
END_TEST

START_TEST(test_router_trailing_slash)
{
	index_routes(_i);
	ck_assert_ptr_eq(route_for("GET", "/api/v4/users/"), &table[0]);
	ck_assert_ptr_eq(route_for("GET", "/api/v4/users/5/"), &table[2]);
	ck_assert_str_eq(param_str(&R, "id"), "5");
	ck_assert_ptr_eq(route_for("GET", "/api/v4/users/5/keys/"), &table[3]);
	ck_assert_ptr_null(route_for("GET", "/api/v4/users/5/keys//"));
}
END_TEST

START_TEST(test_router_rest_capture)
{
	index_routes(_i);
	ck_assert_ptr_eq(route_for("GET",
				   "/api/v4/projects/g%2Fp/repository/files/src/lib/a%20b.c"),
			 &table[5]);
	ck_assert_str_eq(param_str(&R, "id"), "g/p");
	ck_assert_str_eq(param_str(&R, "file_path"), "src/lib/a b.c");
	ck_assert_ptr_eq(route_for("GET", "/api/v4/projects/1/repository/files/src%2Fmain.c"),
			 &table[5]);
	ck_assert_str_eq(param_str(&R, "file_path"), "src/main.c");
	ck_assert_ptr_null(route_for("GET", "/api/v4/projects/1/repository/files/"));
	ck_assert_ptr_null(route_for("GET", "/api/v4/projects/1/repository/files"));
}
END_TEST

/* A *capture before the end takes the segments the rest of the pattern leaves. */
START_TEST(test_router_inner_rest_capture)
{
	index_routes(_i);
	ck_assert_ptr_eq(route_for("GET", "/group/sub/project/uploads/abc/a%20b.png"), &table[6]);
	ck_assert_str_eq(param_str(&R, "id"), "group/sub/project");
	ck_assert_str_eq(param_str(&R, "secret"), "abc");
	ck_assert_str_eq(param_str(&R, "filename"), "a b.png");
	ck_assert_ptr_eq(route_for("GET", "/g/p/uploads/s/uploads"), &table[6]);
	ck_assert_str_eq(param_str(&R, "id"), "g/p");
	/* "uploads" as a project's name too: the last one is the pattern's */
	ck_assert_ptr_eq(route_for("GET", "/g/uploads/uploads/s/f"), &table[6]);
	ck_assert_str_eq(param_str(&R, "id"), "g/uploads");
	ck_assert_ptr_null(route_for("GET", "/uploads/s/f"));
	ck_assert_ptr_null(route_for("GET", "/g/p/uploads/s/f/g"));
	ck_assert_ptr_null(route_for("GET", "/g/p/upload/s/f"));
	ck_assert_ptr_null(route_for("GET", "/g/p/uploads/s"));
	ck_assert_ptr_null(route_for("POST", "/g/p/uploads/s/f"));
}
END_TEST

/* The routes' positions, the slots of their counters (core/metrics.h). */
START_TEST(test_router_position)
{
	router_index(tables);
	ck_assert_uint_eq(router_count(), 7);
	for (size_t i = 0; i < 7; i++) {
		ck_assert_uint_eq(router_position(&table[i]), i);
		ck_assert_ptr_eq(router_at(i), &table[i]);
	}
	ck_assert_uint_eq(router_position(NULL), 7);
	static const route other = {"GET", "/x", h_file, ROUTE_PUBLIC, NULL};
	ck_assert_uint_eq(router_position(&other), 7);
	ck_assert_ptr_null(router_at(7));
}
END_TEST

START_TEST(test_router_bad_capture_encoding)
{
	index_routes(_i);
	ck_assert_ptr_null(route_for("GET", "/api/v4/users/%zz"));
	ck_assert_ptr_null(route_for("GET", "/api/v4/users/ab%2"));
	ck_assert_ptr_null(route_for("GET", "/api/v4/users/a%00b"));
	/* a capture must be text like any other parameter */
	ck_assert_ptr_null(route_for("GET", "/api/v4/users/%FF"));
	ck_assert_ptr_null(route_for("GET", "/api/v4/users/%C3/keys"));
	ck_assert_ptr_null(route_for("GET", "/api/v4/projects/1/repository/files/%FF.c"));
	ck_assert_ptr_eq(route_for("GET", "/api/v4/users/j%C3%B6rg"), &table[2]);
	ck_assert_str_eq(param_str(&R, "id"), "j\xc3\xb6rg");
}
END_TEST

START_TEST(test_router_capture_beats_query)
{
	index_routes(_i);
	ck_assert_ptr_eq(route_for("GET", "/api/v4/users/5?id=9&id=10"), &table[2]);
	ck_assert_str_eq(param_str(&R, "id"), "5");
}
END_TEST

/* ---- pagination ---- */

static int paginate(const char *uri, page_req *p)
{
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("GET", uri, NULL, NULL), 0);
	return pagination_parse(&R, p);
}

START_TEST(test_pagination_parse)
{
	page_req p;
	ck_assert_int_eq(paginate("/x", &p), 0);
	ck_assert_int_eq(p.page, 1);
	ck_assert_int_eq(p.per_page, 20);
	ck_assert_int_eq(p.offset, 0);
	ck_assert_str_eq(pagination_limit(&R, &p), "20");
	ck_assert_str_eq(pagination_offset(&R, &p), "0");

	ck_assert_int_eq(paginate("/x?page=3&per_page=10", &p), 0);
	ck_assert_int_eq(p.page, 3);
	ck_assert_int_eq(p.per_page, 10);
	ck_assert_int_eq(p.offset, 20);
	ck_assert_str_eq(pagination_limit(&R, &p), "10");
	ck_assert_str_eq(pagination_offset(&R, &p), "20");

	ck_assert_int_eq(paginate("/x?per_page=100", &p), 0);
	ck_assert_int_eq(p.per_page, 100);
	ck_assert_int_eq(paginate("/x?per_page=101", &p), 0);
	ck_assert_int_eq(p.per_page, 100);
	ck_assert_int_eq(paginate("/x?per_page=100000", &p), 0);
	ck_assert_int_eq(p.per_page, 100);
	ck_assert_int_eq(paginate("/x?per_page=0", &p), 0);
	ck_assert_int_eq(p.per_page, 20);
	ck_assert_int_eq(paginate("/x?page=0&per_page=-5", &p), 0);
	ck_assert_int_eq(p.page, 1);
	ck_assert_int_eq(p.per_page, 20);
	ck_assert_int_eq(paginate("/x?page=-2", &p), 0);
	ck_assert_int_eq(p.page, 1);
	ck_assert_int_eq(p.offset, 0);
}
END_TEST

START_TEST(test_pagination_invalid)
{
	page_req p;
	ck_assert_int_eq(paginate("/x?page=abc", &p), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "page is invalid");
	ck_assert_int_eq(paginate("/x?page=", &p), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "page is invalid");
	ck_assert_int_eq(paginate("/x?per_page=ten", &p), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "per_page is invalid");
	ck_assert_int_eq(paginate("/x?page=2000000000", &p), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "page is invalid");
	ck_assert_int_eq(paginate("/x?page=99999999999999999999", &p), ERR_INVALID);
}
END_TEST

#define BASE "https://git.example.com:8443"

static void expect_headers(const char *uri, long long total, const char *want)
{
	page_req p;
	ck_assert_int_eq(paginate(uri, &p), 0);
	pagination_headers(&R, &p, total);
	ck_assert_str_eq(buf_cstr(&R.headers), want);
}

START_TEST(test_pagination_headers_first_page)
{
	expect_headers("/api/v4/users", 45,
		       "X-Total: 45\r\n"
		       "X-Total-Pages: 3\r\n"
		       "X-Per-Page: 20\r\n"
		       "X-Page: 1\r\n"
		       "X-Next-Page: 2\r\n"
		       "X-Prev-Page: \r\n"
		       "Link: <" BASE "/api/v4/users?page=2&per_page=20>; rel=\"next\", "
		       "<" BASE "/api/v4/users?page=1&per_page=20>; rel=\"first\", "
		       "<" BASE "/api/v4/users?page=3&per_page=20>; rel=\"last\"\r\n");
}
END_TEST

START_TEST(test_pagination_headers_middle_page)
{
	/* every query parameter is repeated (arrays as a[]), encoded; page and per_page last */
	expect_headers("/api/v4/projects/g%2Fp/issues?page=2&state=opened&per_page=10&search=a+b"
		       "&iids[]=1&iids[]=2",
		       35,
		       "X-Total: 35\r\n"
		       "X-Total-Pages: 4\r\n"
		       "X-Per-Page: 10\r\n"
		       "X-Page: 2\r\n"
		       "X-Next-Page: 3\r\n"
		       "X-Prev-Page: 1\r\n"
		       "Link: <" BASE "/api/v4/projects/g%2Fp/issues?state=opened&search=a%20b"
		       "&iids%5B%5D=1&iids%5B%5D=2&page=1&per_page=10>; rel=\"prev\", "
		       "<" BASE "/api/v4/projects/g%2Fp/issues?state=opened&search=a%20b"
		       "&iids%5B%5D=1&iids%5B%5D=2&page=3&per_page=10>; rel=\"next\", "
		       "<" BASE "/api/v4/projects/g%2Fp/issues?state=opened&search=a%20b"
		       "&iids%5B%5D=1&iids%5B%5D=2&page=1&per_page=10>; rel=\"first\", "
		       "<" BASE "/api/v4/projects/g%2Fp/issues?state=opened&search=a%20b"
		       "&iids%5B%5D=1&iids%5B%5D=2&page=4&per_page=10>; rel=\"last\"\r\n");
}
END_TEST

START_TEST(test_pagination_headers_last_page)
{
	expect_headers("/api/v4/users?page=3&per_page=20", 41,
		       "X-Total: 41\r\n"
		       "X-Total-Pages: 3\r\n"
		       "X-Per-Page: 20\r\n"
		       "X-Page: 3\r\n"
		       "X-Next-Page: \r\n"
		       "X-Prev-Page: 2\r\n"
		       "Link: <" BASE "/api/v4/users?page=2&per_page=20>; rel=\"prev\", "
		       "<" BASE "/api/v4/users?page=1&per_page=20>; rel=\"first\", "
		       "<" BASE "/api/v4/users?page=3&per_page=20>; rel=\"last\"\r\n");
}
END_TEST

START_TEST(test_pagination_headers_empty)
{
	expect_headers("/api/v4/users?per_page=5", 0,
		       "X-Total: 0\r\n"
		       "X-Total-Pages: 1\r\n"
		       "X-Per-Page: 5\r\n"
		       "X-Page: 1\r\n"
		       "X-Next-Page: \r\n"
		       "X-Prev-Page: \r\n"
		       "Link: <" BASE "/api/v4/users?page=1&per_page=5>; rel=\"first\", "
		       "<" BASE "/api/v4/users?page=1&per_page=5>; rel=\"last\"\r\n");
}
END_TEST

START_TEST(test_pagination_headers_exact_fit)
{
	expect_headers("/api/v4/users?per_page=20", 20,
		       "X-Total: 20\r\n"
		       "X-Total-Pages: 1\r\n"
		       "X-Per-Page: 20\r\n"
		       "X-Page: 1\r\n"
		       "X-Next-Page: \r\n"
		       "X-Prev-Page: \r\n"
		       "Link: <" BASE "/api/v4/users?page=1&per_page=20>; rel=\"first\", "
		       "<" BASE "/api/v4/users?page=1&per_page=20>; rel=\"last\"\r\n");
}
END_TEST

START_TEST(test_pagination_link_only_query_params)
{
	/* body parameters and path captures are not part of the link */
	request_init(&R, A, &cfg);
	ck_assert_int_eq(parse("GET", "/api/v4/users/5/keys?x=1", FORM, "secret=body"), 0);
	param_add(&R, "id", "5", false, SRC_PATH, true);
	page_req p;
	ck_assert_int_eq(pagination_parse(&R, &p), 0);
	pagination_headers(&R, &p, 1);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&R.headers),
				     "Link: <" BASE "/api/v4/users/5/keys?x=1&page=1&per_page=20>; "
				     "rel=\"first\", "));
	ck_assert_ptr_null(strstr(buf_cstr(&R.headers), "secret"));
	ck_assert_ptr_null(strstr(buf_cstr(&R.headers), "id="));
}
END_TEST

/* ---- error table ---- */

START_TEST(test_respond_error_table)
{
	static const struct {
		int code;
		const char *detail;
		int status;
		const char *body;
	} t[] = {
		{ERR_MISSING, "title", 400,
		 "{\"message\":\"400 (Bad request) \\\"title\\\" not given\"}"},
		{ERR_INVALID, "visibility does not have a valid value", 400,
		 "{\"error\":\"visibility does not have a valid value\"}"},
		{ERR_VALIDATION, NULL, 400, "{\"message\":{}}"},
		{ERR_BAD_REQUEST, "malformed JSON body", 400,
		 "{\"message\":\"400 (Bad request) malformed JSON body\"}"},
		{ERR_UNAUTHORIZED, NULL, 401, "{\"message\":\"401 Unauthorized\"}"},
		{ERR_UNAUTHORIZED, "ignored", 401, "{\"message\":\"401 Unauthorized\"}"},
		{ERR_FORBIDDEN, NULL, 403, "{\"message\":\"403 Forbidden\"}"},
		{ERR_FORBIDDEN, "403 Forbidden - Must be admin to use sudo", 403,
		 "{\"message\":\"403 Forbidden - Must be admin to use sudo\"}"},
		{ERR_SCOPE, NULL, 403,
		 "{\"error\":\"insufficient_scope\",\"error_description\":\"The request requires higher "
		 "privileges than provided by the access token.\",\"scope\":\"api\"}"},
		{ERR_NOT_FOUND, "Project", 404, "{\"message\":\"404 Project Not Found\"}"},
		{ERR_NOT_FOUND, NULL, 404, "{\"message\":\"404 Not Found\"}"},
		{ERR_NO_ROUTE, NULL, 404, "{\"error\":\"404 Not Found\"}"},
		{ERR_SUDO_NOT_FOUND, "nobody", 404,
		 "{\"message\":\"404 Not Found: No user id or username for: nobody\"}"},
		{ERR_CONFLICT, "Email has already been taken", 409,
		 "{\"message\":\"Email has already been taken\"}"},
		{ERR_CONFLICT, NULL, 409, "{\"message\":\"409 Conflict\"}"},
		{ERR_TOO_LARGE, NULL, 413, "{\"message\":\"413 Request Entity Too Large\"}"},
		{ERR_URI_TOO_LONG, NULL, 414, "{\"message\":\"414 Request-URI Too Large\"}"},
		{ERR_UNAVAILABLE, NULL, 503, "{\"message\":\"503 Service Unavailable\"}"},
		{ERR_INTERNAL, "ERROR: relation \"users\" does not exist", 500,
		 "{\"message\":\"500 Internal Server Error\"}"},
		{-99, NULL, 500, "{\"message\":\"500 Internal Server Error\"}"},
		{ERR_OAUTH, "401 invalid_grant", 401,
		 "{\"error\":\"invalid_grant\",\"error_description\":\"The provided authorization grant "
		 "is invalid, expired, revoked, does not match the redirection URI used in the "
		 "authorization request, or was issued to another client.\"}"},
		{ERR_OAUTH, "400 unsupported_grant_type", 400,
		 "{\"error\":\"unsupported_grant_type\",\"error_description\":\"The authorization grant "
		 "type is not supported by the authorization server.\"}"},
		{ERR_OAUTH, NULL, 400,
		 "{\"error\":\"invalid_request\",\"error_description\":\"The request is missing a "
		 "required parameter, includes an unsupported parameter value, or is otherwise "
		 "malformed.\"}"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		request_init(&R, A, &cfg);
		R.ctx.err_detail = t[i].detail;
		respond_error(&R, t[i].code);
		ck_assert_msg(R.status == t[i].status, "code %d: status %d", t[i].code, R.status);
		ck_assert_ptr_nonnull(R.body);
		ck_assert_str_eq(R.body, t[i].body);
		ck_assert_uint_eq(R.body_len, strlen(t[i].body));
	}
}
END_TEST

START_TEST(test_respond_error_headers)
{
	respond_error(&R, ERR_UNAVAILABLE);
	ck_assert_str_eq(buf_cstr(&R.headers), "Retry-After: 1\r\n");
	request_init(&R, A, &cfg);
	respond_error(&R, ERR_SCOPE);
	ck_assert_str_eq(buf_cstr(&R.headers),
			 "WWW-Authenticate: Bearer realm=\"Protected by OAuth 2.0\", "
			 "error=\"insufficient_scope\", scope=\"api\"\r\n");
	request_init(&R, A, &cfg);
	respond_error(&R, ERR_NOT_FOUND);
	ck_assert_str_eq(buf_cstr(&R.headers), "");
}
END_TEST

START_TEST(test_respond_error_not_modified)
{
	respond_error(&R, ERR_NOT_MODIFIED);
	ck_assert_int_eq(R.status, 304);
	ck_assert_ptr_null(R.body);
	ck_assert_uint_eq(R.body_len, 0);
}
END_TEST

START_TEST(test_respond_validation)
{
	ck_assert_int_eq(fail_validation(&R, "name", "has already been taken"), ERR_VALIDATION);
	ck_assert_int_eq(fail_validation(&R, "name", "is too short"), ERR_VALIDATION);
	ck_assert_int_eq(fail_validation(&R, "email", "is invalid"), ERR_VALIDATION);
	respond_error(&R, ERR_VALIDATION);
	ck_assert_int_eq(R.status, 400);
	ck_assert_str_eq(R.body,
			 "{\"message\":{\"name\":[\"has already been taken\",\"is too short\"],"
			 "\"email\":[\"is invalid\"]}}");
}
END_TEST

START_TEST(test_fail_helpers)
{
	ck_assert_int_eq(fail_invalid(&R, "id"), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "id is invalid");
	ck_assert_int_eq(fail_not_valid_value(&R, "visibility"), ERR_INVALID);
	ck_assert_str_eq(R.ctx.err_detail, "visibility does not have a valid value");
	ck_assert_int_eq(fail_missing(&R, "name"), ERR_MISSING);
	ck_assert_str_eq(R.ctx.err_detail, "name");
	ck_assert_int_eq(fail_not_found(&R, "User"), ERR_NOT_FOUND);
	ck_assert_str_eq(R.ctx.err_detail, "User");
	ck_assert_int_eq(fail(&R, ERR_CONFLICT, "x"), ERR_CONFLICT);
	ck_assert_str_eq(R.ctx.err_detail, "x");
}
END_TEST

START_TEST(test_respond_json_and_empty)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "web_url", json_object_new_string("http://h/a/b"));
	respond_json(&R, 201, o);
	ck_assert_int_eq(R.status, 201);
	ck_assert_str_eq(R.body, "{\"web_url\":\"http://h/a/b\"}"); /* no \/ escapes */
	respond_empty(&R, 204);
	ck_assert_int_eq(R.status, 204);
	ck_assert_ptr_null(R.body);
	respond_header(&R, "X-A", "1");
	respond_header(&R, "X-B", "two");
	ck_assert_str_eq(buf_cstr(&R.headers), "X-A: 1\r\nX-B: two\r\n");
}
END_TEST

/* ---- the response cache's store (http/cache.c) ---- */

static cache_entry E;

static bool put_get(cache *c, const char *key, const char *body, time_t expires)
{
	cache_entry e = {.expires = expires,
			 .deps = {0, 17},
			 .ndeps = 2,
			 .sum = 5,
			 .status = 200,
			 .headers = "X-Total: 1\r\n",
			 .headers_len = 12,
			 .body = body,
			 .body_len = strlen(body)};
	snprintf(e.key, sizeof(e.key), "%s", key);
	cache_put(c, &e);
	return cache_get(c, key, 100, A, &E);
}

START_TEST(test_cache_store_get_replace_remove)
{
	cache *c = cache_new(1 << 20);
	ck_assert(!cache_get(c, "k1", 100, A, &E));
	ck_assert(put_get(c, "k1", "{\"a\":1}", 1000));
	ck_assert_str_eq(E.key, "k1");
	ck_assert_str_eq(E.body, "{\"a\":1}");
	ck_assert_uint_eq(E.body_len, 7);
	ck_assert_str_eq(E.headers, "X-Total: 1\r\n");
	ck_assert_uint_eq(E.headers_len, 12);
	ck_assert_int_eq(E.ndeps, 2);
	ck_assert_int_eq(E.deps[1], 17);
	ck_assert_int_eq(E.sum, 5);
	ck_assert_int_eq(E.status, 200);
	ck_assert(put_get(c, "k1", "[]", 1000));
	ck_assert_str_eq(E.body, "[]");
	ck_assert_uint_eq(cache_count(c), 1);
	ck_assert(put_get(c, "k2", "[2]", 1000));
	ck_assert_uint_eq(cache_count(c), 2);
	cache_remove(c, "k1");
	ck_assert(!cache_get(c, "k1", 100, A, &E));
	ck_assert(cache_get(c, "k2", 100, A, &E));
	ck_assert_str_eq(E.body, "[2]");
	ck_assert_uint_eq(cache_count(c), 1);
	cache_free(c);
}
END_TEST

START_TEST(test_cache_expiry)
{
	cache *c = cache_new(1 << 20);
	ck_assert(put_get(c, "k", "1", 1000));
	ck_assert(cache_get(c, "k", 999, A, &E));
	ck_assert(!cache_get(c, "k", 1000, A, &E));
	ck_assert(!cache_get(c, "k", 999, A, &E)); /* dropped */
	ck_assert_uint_eq(cache_count(c), 0);
	cache_free(c);
}
END_TEST

START_TEST(test_cache_ring_overwrites_the_oldest)
{
	char body[1000];
	memset(body, 'x', sizeof(body) - 1);
	body[sizeof(body) - 1] = '\0';
	cache *c = cache_new(65536); /* room for about 40 such entries */
	char key[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		body[0] = (char)('a' + i % 26);
		ck_assert(put_get(c, key, body, 1000));
		ck_assert_int_eq(E.body[0], 'a' + i % 26);
		ck_assert_uint_le(cache_count(c), 65536 / 1000);
	}
	ck_assert(!cache_get(c, "k0", 100, A, &E));
	ck_assert(!cache_get(c, "k4900", 100, A, &E));
	for (int i = 4990; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		ck_assert(cache_get(c, key, 100, A, &E));
		ck_assert_int_eq(E.body[0], 'a' + i % 26);
		ck_assert_uint_eq(E.body_len, sizeof(body) - 1);
	}
	ck_assert_uint_gt(cache_count(c), 30);
	/* an entry bigger than a quarter of the store is not kept */
	char *big = malloc(20000);
	memset(big, 'y', 19999);
	big[19999] = '\0';
	ck_assert(!put_get(c, "big", big, 1000));
	free(big);
	cache_free(c);
}
END_TEST

START_TEST(test_cache_many_keys)
{
	cache *c = cache_new(64 << 20);
	char key[32];
	for (int i = 0; i < 20000; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		ck_assert(put_get(c, key, key, 1000));
	}
	size_t n = cache_count(c);
	ck_assert_uint_gt(n, 19000); /* 4-way buckets: a few collide out */
	for (int i = 0; i < 20000; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		if (cache_get(c, key, 100, A, &E)) {
			ck_assert_str_eq(E.key, key);
			ck_assert_str_eq(E.body, key);
		}
	}
	cache_free(c);
}
END_TEST

/* Secrets are kept sealed: the body stored has marks where they were, the sealed texts
 * come back with it. */
START_TEST(test_cache_secrets_kept_sealed)
{
	const char *plain[2] = {"s3cr3t-t0ken-aaaa", "another-secret-bb"};
	const char *body =
		"{\"a\":\"s3cr3t-t0ken-aaaa\",\"b\":\"another-secret-bb\",\"c\":\"s3cr3t-t0ken-aaaa\"}";
	size_t len = 0;
	char *masked = cache_mask_secrets(A, body, strlen(body), plain, 2, &len);
	ck_assert_ptr_nonnull(masked);
	ck_assert_str_eq(masked, "{\"a\":\"\x01"
				 "0\x01\",\"b\":\"\x01"
				 "1\x01\",\"c\":\"\x01"
				 "0\x01\"}");
	ck_assert_uint_eq(len, strlen(masked));
	/* too short to be told apart from the rest of a body */
	const char *short_one[1] = {"abc"};
	ck_assert_ptr_null(cache_mask_secrets(A, body, strlen(body), short_one, 1, &len));

	cache *c = cache_new(1 << 20);
	cache_entry e = {.key = "k",
			 .expires = 1000,
			 .ndeps = 1,
			 .status = 200,
			 .headers = "",
			 .body = masked,
			 .body_len = strlen(masked),
			 .sealed = {"sealed-zero", "sealed-one"},
			 .nsealed = 2};
	cache_put(c, &e);
	ck_assert(cache_get(c, "k", 100, A, &E));
	ck_assert_int_eq(E.nsealed, 2);
	ck_assert_str_eq(E.sealed[0], "sealed-zero");
	ck_assert_str_eq(E.sealed[1], "sealed-one");
	ck_assert_str_eq(E.body, masked);
	ck_assert_ptr_null(strstr(E.body, "s3cr3t"));
	cache_free(c);
}
END_TEST

START_TEST(test_cache_admits_at_the_second_miss)
{
	cache *c = cache_new(1 << 20);
	ck_assert(!cache_admit(c, "a"));
	ck_assert(cache_admit(c, "a"));
	ck_assert(cache_admit(c, "a"));
	ck_assert(!cache_admit(c, "b"));
	ck_assert(cache_admit(c, "b"));
	cache_free(c);
}
END_TEST

/* Workers share the store: what one process stores, another finds. */
START_TEST(test_cache_shared_between_processes)
{
	cache *c = cache_new(1 << 20);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		cache_entry e = {.key = "from-child",
				 .expires = 1000,
				 .ndeps = 1,
				 .sum = 9,
				 .status = 200,
				 .headers = "",
				 .body = "{}",
				 .body_len = 2};
		cache_put(c, &e);
		_exit(0);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(cache_get(c, "from-child", 100, A, &E));
	ck_assert_int_eq(E.sum, 9);
	ck_assert_str_eq(E.body, "{}");
	cache_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("http");

	TCase *tc = tcase_create("request");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_url_decode);
	tcase_add_test(tc, test_parse_request_line);
	tcase_add_test(tc, test_parse_query);
	tcase_add_test(tc, test_param_map);
	tcase_add_test(tc, test_parse_form_body);
	tcase_add_test(tc, test_parse_form_body_with_nul);
	tcase_add_test(tc, test_parse_other_body_ignored);
	tcase_add_test(tc, test_parse_arrays);
	tcase_add_test(tc, test_parse_json);
	tcase_add_test(tc, test_parse_json_content_type_variants);
	tcase_add_test(tc, test_parse_json_depth_limit);
	tcase_add_test(tc, test_parse_json_malformed);
	tcase_add_test(tc, test_parse_json_invalid_text);
	tcase_add_test(tc, test_parse_control_characters);
	tcase_add_test(tc, test_parse_json_strict);
	tcase_add_test(tc, test_parse_uri_too_long);
	tcase_add_test(tc, test_parse_multipart);
	tcase_add_test(tc, test_parse_multipart_quoted_boundary);
	tcase_add_test(tc, test_parse_multipart_malformed);
	tcase_add_test(tc, test_parse_invalid_percent_encoding);
	tcase_add_test(tc, test_parse_invalid_utf8);
	tcase_add_test(tc, test_parse_too_many_params);
	tcase_add_test(tc, test_last_value_wins);
	tcase_add_test(tc, test_path_captures_win);
	suite_add_tcase(s, tc);

	tc = tcase_create("params");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_param_int);
	tcase_add_test(tc, test_param_bool);
	tcase_add_test(tc, test_param_require);
	tcase_add_test(tc, test_param_text);
	tcase_add_test(tc, test_param_datetime_and_date);
	tcase_add_test(tc, test_param_oneof);
	suite_add_tcase(s, tc);

	tc = tcase_create("router");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_router_literal_and_capture, 0, 2);
	tcase_add_loop_test(tc, test_router_no_match, 0, 2);
	tcase_add_loop_test(tc, test_router_method_mismatch, 0, 2);
	tcase_add_loop_test(tc, test_router_encoded_slash_does_not_split, 0, 2);
	tcase_add_loop_test(tc, test_router_trailing_slash, 0, 2);
	tcase_add_loop_test(tc, test_router_rest_capture, 0, 2);
	tcase_add_loop_test(tc, test_router_inner_rest_capture, 0, 2);
	tcase_add_test(tc, test_router_position);
	tcase_add_loop_test(tc, test_router_bad_capture_encoding, 0, 2);
	tcase_add_loop_test(tc, test_router_capture_beats_query, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("pagination");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_pagination_parse);
	tcase_add_test(tc, test_pagination_invalid);
	tcase_add_test(tc, test_pagination_headers_first_page);
	tcase_add_test(tc, test_pagination_headers_middle_page);
	tcase_add_test(tc, test_pagination_headers_last_page);
	tcase_add_test(tc, test_pagination_headers_empty);
	tcase_add_test(tc, test_pagination_headers_exact_fit);
	tcase_add_test(tc, test_pagination_link_only_query_params);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_respond_error_table);
	tcase_add_test(tc, test_respond_error_headers);
	tcase_add_test(tc, test_respond_error_not_modified);
	tcase_add_test(tc, test_respond_validation);
	tcase_add_test(tc, test_fail_helpers);
	tcase_add_test(tc, test_respond_json_and_empty);
	suite_add_tcase(s, tc);

	tc = tcase_create("cache");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_cache_store_get_replace_remove);
	tcase_add_test(tc, test_cache_expiry);
	tcase_add_test(tc, test_cache_ring_overwrites_the_oldest);
	tcase_add_test(tc, test_cache_many_keys);
	tcase_add_test(tc, test_cache_shared_between_processes);
	tcase_add_test(tc, test_cache_admits_at_the_second_miss);
	tcase_add_test(tc, test_cache_secrets_kept_sealed);
	suite_add_tcase(s, tc);

	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
