/* API suite: broadcast messages (collaboration-api.md 4.4): admin only (guests 401, normal
 * users 403), defaults, the active flag, validation, edit, delete and pagination. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"

#define BM "/broadcast_messages"

/* ISO 8601 UTC with milliseconds: 2017-09-05T10:12:35.123Z */
static bool iso_ms(const char *s)
{
	if (!s || strlen(s) != 24)
		return false;
	for (int i = 0; i < 24; i++) {
		char c = s[i];
		bool ok = i == 4 || i == 7     ? c == '-'
			  : i == 10            ? c == 'T'
			  : i == 13 || i == 16 ? c == ':'
			  : i == 19            ? c == '.'
			  : i == 23            ? c == 'Z'
					       : c >= '0' && c <= '9';
		if (!ok)
			return false;
	}
	return true;
}

static time_t iso_time(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	ck_assert_msg(s && strptime(s, "%Y-%m-%dT%H:%M:%S", &tm), "not a time: %s",
		      s ? s : "(null)");
	return timegm(&tm);
}

static void ck_message_shape(resp *r)
{
	static const char *const fields[] = {"id",    "message", "starts_at", "ends_at",
					     "color", "font",    "active"};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		ck_assert_msg(jhas(r->json, fields[i]), "no %s in %s", fields[i], r->body);
	ck_assert_int_eq(json_object_object_length(r->json), 7);
	ck_assert(json_object_is_type(jget(r->json, "id"), json_type_int));
	ck_assert(json_object_is_type(jget(r->json, "active"), json_type_boolean));
	ck_assert_msg(iso_ms(jstr(r->json, "starts_at")), "starts_at %s", r->body);
	ck_assert_msg(iso_ms(jstr(r->json, "ends_at")), "ends_at %s", r->body);
	ck_header(r, "Content-Type", "application/json");
}

/* POST as admin; asserts 201 and the shape. */
static resp *bm_create(const char *form)
{
	resp *r = api("POST", BM, admin_token(), form);
	ck_status(r, 201);
	ck_message_shape(r);
	return r;
}

static char *bm_path(long long id)
{
	return fmt(BM "/%lld", id);
}

static void ck_validation(resp *r, const char *field)
{
	ck_status(r, 400);
	ck_header(r, "Content-Type", "application/json");
	json_object *m = jget(r->json, "message");
	ck_assert_msg(json_object_is_type(m, json_type_object), "message is no object: %s",
		      r->body);
	json_object *list = jget(m, field);
	ck_assert_msg(json_object_is_type(list, json_type_array) &&
			      json_object_array_length(list) > 0,
		      "no errors for %s: %s", field, r->body);
}

START_TEST(test_broadcast_access)
{
	resp *r = bm_create("message=access");
	long long id = jint(r->json, "id");
	resp_free(r);
	char *one = bm_path(id);
	char *user = make_user("bm_user", NULL, NULL);
	struct {
		const char *method, *path, *form;
	} calls[] = {
		{"GET", BM, NULL},
		{"GET", one, NULL},
		{"POST", BM, "message=nope"},
		{"PUT", one, "message=changed"},
		{"DELETE", one, NULL},
	};
	long long before;
	r = api("GET", BM "?per_page=1", admin_token(), NULL);
	before = atoll(resp_header(r, "X-Total"));
	resp_free(r);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		r = api(calls[i].method, calls[i].path, NULL, calls[i].form);
		ck_assert_msg(r->status == 401, "guest %s %s: %ld", calls[i].method, calls[i].path,
			      r->status);
		ck_jstr(r, "message", "401 Unauthorized");
		resp_free(r);
		r = api(calls[i].method, calls[i].path, user, calls[i].form);
		ck_assert_msg(r->status == 403, "user %s %s: %ld", calls[i].method, calls[i].path,
			      r->status);
		ck_jstr(r, "message", "403 Forbidden");
		resp_free(r);
	}
	/* nothing changed */
	r = api("GET", one, admin_token(), NULL);
	ck_status(r, 200);
	ck_jstr(r, "message", "access");
	resp_free(r);
	r = api("GET", BM "?per_page=1", admin_token(), NULL);
	ck_assert_int_eq(atoll(resp_header(r, "X-Total")), before);
	resp_free(r);

	/* an admin other than root */
	char *admin = make_admin("bm_admin", NULL);
	r = api("GET", one, admin, NULL);
	ck_status(r, 200);
	resp_free(r);
	r = api("DELETE", one, admin, NULL);
	ck_status(r, 204);
	resp_free(r);

	free(admin);
	free(user);
	free(one);
}
END_TEST

START_TEST(test_broadcast_create_defaults)
{
	time_t t0 = time(NULL);
	resp *r = bm_create("message=Deploy+in+progress");
	ck_jstr(r, "message", "Deploy in progress");
	ck_jstr(r, "color", "#E75E40");
	ck_jstr(r, "font", "#FFFFFF");
	ck_assert(jbool(r->json, "active"));
	time_t s = iso_time(jstr(r->json, "starts_at")), e = iso_time(jstr(r->json, "ends_at"));
	/* starts now (same host; a wide margin, this is no timing test), ends an hour later */
	ck_assert_msg(s > t0 - 600 && s < t0 + 600, "starts_at %s, now %ld",
		      jstr(r->json, "starts_at"), (long)t0);
	ck_assert_msg(e - s >= 3599 && e - s <= 3601, "%s .. %s", jstr(r->json, "starts_at"),
		      jstr(r->json, "ends_at"));
	long long id = jint(r->json, "id");
	ck_assert_int_gt(id, 0);

	/* GET shows the same record */
	char *one = bm_path(id);
	resp *g = api("GET", one, admin_token(), NULL);
	ck_status(g, 200);
	ck_message_shape(g);
	ck_assert_str_eq(g->body, r->body);
	resp_free(g);
	resp_free(r);

	/* only ends_at: starts now; only starts_at: ends an hour after it */
	r = bm_create("message=ends&ends_at=2099-01-01T00:00:00Z");
	ck_jstr(r, "ends_at", "2099-01-01T00:00:00.000Z");
	ck_assert(jbool(r->json, "active"));
	char *p = bm_path(jint(r->json, "id"));
	resp_free(api("DELETE", p, admin_token(), NULL));
	free(p);
	resp_free(r);
	r = bm_create("message=starts&starts_at=2040-02-03T04:05:06Z");
	ck_jstr(r, "starts_at", "2040-02-03T04:05:06.000Z");
	ck_jstr(r, "ends_at", "2040-02-03T05:05:06.000Z");
	ck_assert(!jbool(r->json, "active")); /* not yet */
	p = bm_path(jint(r->json, "id"));
	resp_free(api("DELETE", p, admin_token(), NULL));
	free(p);
	resp_free(r);

	resp_free(api("DELETE", one, admin_token(), NULL));
	free(one);
}
END_TEST

START_TEST(test_broadcast_create_fields)
{
	/* times in another zone come back in UTC with milliseconds */
	resp *r =
		bm_create("message=m&starts_at=2030-01-01T10%3A00%3A00%2B02%3A00&"
			  "ends_at=2030-01-02T00%3A00%3A00.5-05%3A30&color=%23cecece&font=%23000");
	ck_jstr(r, "starts_at", "2030-01-01T08:00:00.000Z");
	ck_jstr(r, "ends_at", "2030-01-02T05:30:00.500Z");
	ck_jstr(r, "color", "#cecece");
	ck_jstr(r, "font", "#000");
	ck_assert(!jbool(r->json, "active"));
	long long future = jint(r->json, "id");
	resp_free(r);

	/* a window in the past is not active */
	r = bm_create("message=past&starts_at=2001-01-01T00:00:00Z&ends_at=2001-01-02T00:00:00Z");
	ck_assert(jhas(r->json, "active") && !jbool(r->json, "active"));
	long long past = jint(r->json, "id");
	resp_free(r);

	/* a window around now is */
	r = bm_create("message=now&starts_at=2001-01-01&ends_at=2099-12-31");
	ck_assert(jbool(r->json, "active"));
	ck_jstr(r, "starts_at", "2001-01-01T00:00:00.000Z");
	long long now = jint(r->json, "id");
	resp_free(r);

	/* GitLab's colour validation allows a blank value */
	r = bm_create("message=blank&color=&font=");
	ck_jstr(r, "color", "");
	long long blank = jint(r->json, "id");
	resp_free(r);

	/* a JSON body with unicode */
	r = api_json("POST", BM, admin_token(),
		     "{\"message\":\"Wartung \\u00fcber Nacht \\u2014 "
		     "<b>bitte</b>\",\"color\":\"#ABCDEF\"}");
	ck_status(r, 201);
	ck_jstr(r, "message",
		"Wartung \xc3\xbc"
		"ber Nacht \xe2\x80\x94 <b>bitte</b>");
	ck_jstr(r, "color", "#ABCDEF");
	long long uni = jint(r->json, "id");
	resp_free(r);

	long long ids[] = {future, past, now, blank, uni};
	for (size_t i = 0; i < 5; i++) {
		char *p = bm_path(ids[i]);
		r = api("DELETE", p, admin_token(), NULL);
		ck_status(r, 204);
		resp_free(r);
		free(p);
	}
}
END_TEST

START_TEST(test_broadcast_create_errors)
{
	resp *r = api("GET", BM "?per_page=1", admin_token(), NULL);
	long long before = atoll(resp_header(r, "X-Total"));
	resp_free(r);

	r = api("POST", BM, admin_token(), "color=%23ffffff");
	ck_status(r, 400);
	ck_jstr(r, "message", "400 (Bad request) \"message\" not given");
	resp_free(r);
	r = api("POST", BM, admin_token(), "message=");
	ck_status(r, 400);
	resp_free(r);
	r = api("POST", BM, admin_token(), NULL);
	ck_status(r, 400);
	resp_free(r);

	static const char *const bad_dates[][2] = {
		{"starts_at=tomorrow", "starts_at is invalid"},
		{"starts_at=2017-02-29T00:00:00Z", "starts_at is invalid"},
		{"ends_at=2017-13-01T00:00:00Z", "ends_at is invalid"},
		{"ends_at=2017-01-01T25:00:00Z", "ends_at is invalid"},
		{"starts_at=2017-01-01T10:00:00Zjunk", "starts_at is invalid"},
		{"ends_at=2017-01-01T10:60:00Z", "ends_at is invalid"},
	};
	for (size_t i = 0; i < sizeof(bad_dates) / sizeof(bad_dates[0]); i++) {
		char *f = fmt("message=x&%s", bad_dates[i][0]);
		r = api("POST", BM, admin_token(), f);
		ck_assert_msg(r->status == 400, "%s: %ld %s", f, r->status, r->body);
		ck_jstr(r, "error", bad_dates[i][1]);
		resp_free(r);
		free(f);
	}

	static const char *const bad_colors[] = {"red",    "%23ggg",     "%2312345",
						 "ffffff", "%23ffffff0", "%23%20fff"};
	for (size_t i = 0; i < sizeof(bad_colors) / sizeof(bad_colors[0]); i++) {
		char *f = fmt("message=x&color=%s", bad_colors[i]);
		r = api("POST", BM, admin_token(), f);
		ck_validation(r, "color");
		ck_assert_str_eq(r->body,
				 "{\"message\":{\"color\":[\"must be a valid color code\"]}}");
		resp_free(r);
		free(f);
	}
	r = api("POST", BM, admin_token(), "message=x&font=white");
	ck_validation(r, "font");
	resp_free(r);
	/* every invalid field is named */
	r = api("POST", BM, admin_token(), "message=x&color=red&font=white");
	ck_validation(r, "color");
	ck_validation(r, "font");
	resp_free(r);

	/* the window must not end before it starts */
	r = api("POST", BM, admin_token(),
		"message=x&starts_at=2030-01-02T00:00:00Z&ends_at=2030-01-01T00:00:00Z");
	ck_validation(r, "ends_at");
	resp_free(r);
	/* nor before the default start (now) */
	r = api("POST", BM, admin_token(), "message=x&ends_at=2001-01-01T00:00:00Z");
	ck_validation(r, "ends_at");
	resp_free(r);

	r = api("GET", BM "?per_page=1", admin_token(), NULL);
	ck_assert_int_eq(atoll(resp_header(r, "X-Total")), before);
	resp_free(r);
}
END_TEST

START_TEST(test_broadcast_update)
{
	resp *r = bm_create("message=original&starts_at=2001-01-01T00:00:00Z&"
			    "ends_at=2099-01-01T00:00:00Z&color=%23111111&font=%23222222");
	long long id = jint(r->json, "id");
	ck_assert(jbool(r->json, "active"));
	resp_free(r);
	char *one = bm_path(id);

	/* one field changes, the others stay */
	r = api("PUT", one, admin_token(), "message=changed");
	ck_status(r, 200);
	ck_message_shape(r);
	ck_assert_int_eq(jint(r->json, "id"), id);
	ck_jstr(r, "message", "changed");
	ck_jstr(r, "starts_at", "2001-01-01T00:00:00.000Z");
	ck_jstr(r, "ends_at", "2099-01-01T00:00:00.000Z");
	ck_jstr(r, "color", "#111111");
	ck_jstr(r, "font", "#222222");
	ck_assert(jbool(r->json, "active"));
	resp_free(r);

	r = api("PUT", one, admin_token(), "color=%23333333&font=%23444");
	ck_status(r, 200);
	ck_jstr(r, "message", "changed");
	ck_jstr(r, "color", "#333333");
	ck_jstr(r, "font", "#444");
	resp_free(r);

	/* moving the window into the past makes it inactive, and back again active */
	r = api("PUT", one, admin_token(), "ends_at=2001-06-01T00:00:00Z");
	ck_status(r, 200);
	ck_jstr(r, "ends_at", "2001-06-01T00:00:00.000Z");
	ck_assert(jhas(r->json, "active") && !jbool(r->json, "active"));
	resp_free(r);
	r = api("GET", one, admin_token(), NULL);
	ck_assert(!jbool(r->json, "active"));
	resp_free(r);
	r = api("PUT", one, admin_token(),
		"starts_at=2050-01-01T00:00:00Z&ends_at=2051-01-01T00:00:00Z");
	ck_status(r, 200);
	ck_assert(!jbool(r->json, "active")); /* in the future */
	resp_free(r);
	r = api("PUT", one, admin_token(), "starts_at=2002-01-01T00:00:00Z");
	ck_status(r, 200);
	ck_jstr(r, "starts_at", "2002-01-01T00:00:00.000Z");
	ck_jstr(r, "ends_at", "2051-01-01T00:00:00.000Z");
	ck_assert(jbool(r->json, "active"));
	resp_free(r);

	/* nothing to change: the record as it is */
	r = api("PUT", one, admin_token(), NULL);
	ck_status(r, 200);
	ck_jstr(r, "message", "changed");
	char *kept = strdup(r->body);
	resp_free(r);

	/* errors change nothing */
	r = api("PUT", one, admin_token(), "message=x&ends_at=2001-01-01T00:00:00Z");
	ck_validation(r, "ends_at"); /* before the stored starts_at */
	resp_free(r);
	r = api("PUT", one, admin_token(), "starts_at=2060-01-01T00:00:00Z");
	ck_validation(r, "ends_at"); /* after the stored ends_at */
	resp_free(r);
	r = api("PUT", one, admin_token(), "message=x&color=blue");
	ck_validation(r, "color");
	resp_free(r);
	r = api("PUT", one, admin_token(), "message=x&starts_at=yesterday");
	ck_status(r, 400);
	ck_jstr(r, "error", "starts_at is invalid");
	resp_free(r);
	r = api("PUT", one, admin_token(), "message=");
	ck_validation(r, "message");
	resp_free(r);
	r = api("GET", one, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert_str_eq(r->body, kept);
	resp_free(r);

	r = api("PUT", BM "/999999999", admin_token(), "message=x");
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Broadcast Message Not Found");
	resp_free(r);

	resp_free(api("DELETE", one, admin_token(), NULL));
	free(kept);
	free(one);
}
END_TEST

START_TEST(test_broadcast_delete)
{
	resp *r = bm_create("message=bye");
	long long id = jint(r->json, "id");
	resp_free(r);
	char *one = bm_path(id);

	r = api("DELETE", one, admin_token(), NULL);
	ck_status(r, 204);
	ck_assert_uint_eq(r->body_len, 0);
	resp_free(r);

	static const char *const methods[] = {"GET", "PUT", "DELETE"};
	for (int i = 0; i < 3; i++) {
		r = api(methods[i], one, admin_token(), i == 1 ? "message=x" : NULL);
		ck_assert_msg(r->status == 404, "%s after delete: %ld", methods[i], r->status);
		ck_header(r, "Content-Type", "application/json");
		ck_assert_str_eq(r->body, "{\"message\":\"404 Broadcast Message Not Found\"}");
		resp_free(r);
	}

	/* gone from the list too */
	r = api("GET", BM "?per_page=100", admin_token(), NULL);
	ck_status(r, 200);
	for (size_t i = 0; i < json_object_array_length(r->json); i++)
		ck_assert_int_ne(jint(json_object_array_get_idx(r->json, i), "id"), id);
	resp_free(r);
	free(one);
}
END_TEST

START_TEST(test_broadcast_list_pagination)
{
	resp *r = api("GET", BM, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert(json_object_is_type(r->json, json_type_array));
	ck_header(r, "X-Per-Page", "20");
	ck_header(r, "X-Page", "1");
	long long before = atoll(resp_header(r, "X-Total"));
	resp_free(r);

	long long ids[3];
	for (int i = 0; i < 3; i++) {
		char *f = fmt("message=list+%d", i);
		r = bm_create(f);
		ids[i] = jint(r->json, "id");
		resp_free(r);
		free(f);
	}
	long long total = before + 3, pages = (total + 1) / 2;

	/* walk every page of 2 and find ours, in order */
	int found = 0;
	long long seen = 0, last_id = 0;
	for (long long page = 1; page <= pages; page++) {
		char *p = fmt(BM "?per_page=2&page=%lld", page);
		r = api("GET", p, admin_token(), NULL);
		ck_status(r, 200);
		char want[32];
		snprintf(want, sizeof(want), "%lld", total);
		ck_header(r, "X-Total", want);
		snprintf(want, sizeof(want), "%lld", pages);
		ck_header(r, "X-Total-Pages", want);
		ck_header(r, "X-Per-Page", "2");
		snprintf(want, sizeof(want), "%lld", page + 1);
		ck_header(r, "X-Next-Page", page < pages ? want : "");
		snprintf(want, sizeof(want), "%lld", page - 1);
		ck_header(r, "X-Prev-Page", page > 1 ? want : "");
		const char *link = resp_header(r, "Link");
		ck_assert_msg(link && strstr(link, "rel=\"first\"") && strstr(link, "rel=\"last\""),
			      "Link %s", link ? link : "(absent)");
		size_t n = json_object_array_length(r->json);
		ck_assert_uint_eq(n, page < pages ? 2 : (size_t)(total - 2 * (pages - 1)));
		for (size_t i = 0; i < n; i++) {
			json_object *m = json_object_array_get_idx(r->json, i);
			long long id = jint(m, "id");
			ck_assert_int_gt(id, last_id); /* ascending, no repeats across pages */
			last_id = id;
			seen++;
			if (found < 3 && id == ids[found]) {
				char *msg = fmt("list %d", found);
				ck_assert_str_eq(jstr(m, "message"), msg);
				free(msg);
				found++;
			}
		}
		resp_free(r);
		free(p);
	}
	ck_assert_int_eq(found, 3);
	ck_assert_int_eq(seen, total);

	for (int i = 0; i < 3; i++) {
		char *p = bm_path(ids[i]);
		resp_free(api("DELETE", p, admin_token(), NULL));
		free(p);
	}
	r = api("GET", BM "?per_page=1", admin_token(), NULL);
	ck_assert_int_eq(atoll(resp_header(r, "X-Total")), before);
	resp_free(r);

	r = api("GET", BM "?page=x", admin_token(), NULL);
	ck_status(r, 400);
	ck_jstr(r, "error", "page is invalid");
	resp_free(r);
}
END_TEST

START_TEST(test_broadcast_show_errors)
{
	resp *r = api("GET", BM "/999999999", admin_token(), NULL);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Broadcast Message Not Found");
	resp_free(r);
	r = api("GET", BM "/abc", admin_token(), NULL);
	ck_status(r, 400);
	ck_jstr(r, "error", "id is invalid");
	resp_free(r);
	r = api("DELETE", BM "/999999999", admin_token(), NULL);
	ck_status(r, 404);
	ck_jstr(r, "message", "404 Broadcast Message Not Found");
	resp_free(r);
}
END_TEST

Suite *suite_broadcast(void)
{
	Suite *s = suite_create("broadcast");
	TCase *tc = tcase_create("broadcast");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_broadcast_access);
	tcase_add_test(tc, test_broadcast_create_defaults);
	tcase_add_test(tc, test_broadcast_create_fields);
	tcase_add_test(tc, test_broadcast_create_errors);
	tcase_add_test(tc, test_broadcast_update);
	tcase_add_test(tc, test_broadcast_delete);
	tcase_add_test(tc, test_broadcast_list_pagination);
	tcase_add_test(tc, test_broadcast_show_errors);
	suite_add_tcase(s, tc);
	return s;
}
