/* API suite: custom attributes of users, groups and projects (GitLab 10.8's
 * /users/:id/custom_attributes, /groups/:id/..., /projects/:id/...: list, show, set,
 * delete, admins only), the custom_attributes[KEY]=VALUE filter of GET /users, /groups
 * and /projects and with_custom_attributes on those lists and their show routes (admins
 * only, ignored for others), the attributes' removal with their owner, and the response
 * cache after a change. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

static const char *const KINDS[] = {"users", "groups", "projects"};
#define NKINDS 3

/* An owner of kind k (0 user, 1 group, 2 project) made by (or, for a user, being) a new
 * user, public; its id, its base path (/users/<id>, ...) and its maker's token. */
typedef struct {
	int kind;
	long long id;
	const char *base;
	const char *token;
} owner;

static owner make_owner(int kind, const char *token)
{
	owner o = {.kind = kind};
	if (kind == 0) {
		o.token = S(make_user("ca_u", &o.id, NULL));
	} else {
		o.token = token ? token : S(make_user("ca_m", NULL, NULL));
		o.id = kind == 1 ? api_group(o.token, "public", NULL)
				 : api_project(o.token, "public", NULL);
	}
	o.base = S(fmt("/%s/%lld", KINDS[kind], o.id));
	return o;
}

static const char *attr_path(const owner *o, const char *key)
{
	return key ? S(fmt("%s/custom_attributes/%s", o->base, S(enc(key))))
		   : S(fmt("%s/custom_attributes", o->base));
}

static resp *put_attr(const owner *o, const char *token, const char *key, const char *value)
{
	return R(api("PUT", attr_path(o, key), token,
		     value ? S(fmt("value=%s", S(enc(value)))) : NULL));
}

static void set_attr(const owner *o, const char *key, const char *value)
{
	resp *r = put_attr(o, admin_token(), key, value);
	ck_status(r, 200);
	ck_jstr(r, "key", key);
	ck_jstr(r, "value", value);
}

static const char *const table[] = {"user_custom_attributes", "group_custom_attributes",
				    "project_custom_attributes"};
static const char *const column[] = {"user_id", "group_id", "project_id"};

static long long stored(const owner *o)
{
	return sql_int("SELECT count(*) FROM %s WHERE %s = %lld", table[o->kind], column[o->kind],
		       o->id);
}

static const char *not_found_attr = "{\"message\":\"404 Not found\"}";

START_TEST(test_ca_crud)
{
	for (int k = 0; k < NKINDS; k++) {
		owner o = make_owner(k, NULL);
		ck_body(R(api("GET", attr_path(&o, NULL), admin_token(), NULL)), 200, "[]");
		set_attr(&o, "location", "Antarctica");
		set_attr(&o, "role", "Developer");
		/* set again: replaced, not added */
		set_attr(&o, "location", "Greenland");
		ck_assert_int_eq(stored(&o), 2);
		ck_body(R(api("GET", attr_path(&o, "location"), admin_token(), NULL)), 200,
			"{\"key\":\"location\",\"value\":\"Greenland\"}");
		resp *r = R(api("GET", attr_path(&o, NULL), admin_token(), NULL));
		ck_body(r, 200,
			"[{\"key\":\"location\",\"value\":\"Greenland\"},"
			"{\"key\":\"role\",\"value\":\"Developer\"}]");
		ck_code(R(api("DELETE", attr_path(&o, "location"), admin_token(), NULL)), 204);
		ck_body(R(api("GET", attr_path(&o, "location"), admin_token(), NULL)), 404,
			not_found_attr);
		ck_body(R(api("DELETE", attr_path(&o, "location"), admin_token(), NULL)), 404,
			not_found_attr);
		ck_body(R(api("GET", attr_path(&o, NULL), admin_token(), NULL)), 200,
			"[{\"key\":\"role\",\"value\":\"Developer\"}]");
		ck_assert_int_eq(stored(&o), 1);
		/* a key is the owner's only: another owner's is another attribute */
		owner p = make_owner(k, NULL);
		ck_body(R(api("GET", attr_path(&p, "role"), admin_token(), NULL)), 404,
			not_found_attr);
		ck_body(R(api("DELETE", attr_path(&p, "role"), admin_token(), NULL)), 404,
			not_found_attr);
		ck_assert_int_eq(stored(&o), 1);
		/* keys of any text, sent URL-encoded in the path */
		set_attr(&o, "a key/with ünïcode", "v&w=1");
		ck_body(R(api("GET", attr_path(&o, "a key/with ünïcode"), admin_token(), NULL)),
			200, "{\"key\":\"a key/with ünïcode\",\"value\":\"v&w=1\"}");
	}
}
END_TEST

START_TEST(test_ca_not_found)
{
	static const char *const missing[] = {"{\"message\":\"404 User Not Found\"}",
					      "{\"message\":\"404 Group Not Found\"}",
					      "{\"message\":\"404 Project Not Found\"}"};
	for (int k = 0; k < NKINDS; k++) {
		owner o = {.kind = k, .id = 999999999};
		o.base = S(fmt("/%s/999999999", KINDS[k]));
		ck_body(R(api("GET", attr_path(&o, NULL), admin_token(), NULL)), 404, missing[k]);
		ck_body(R(api("GET", attr_path(&o, "x"), admin_token(), NULL)), 404, missing[k]);
		ck_body(put_attr(&o, admin_token(), "x", "y"), 404, missing[k]);
		ck_body(R(api("DELETE", attr_path(&o, "x"), admin_token(), NULL)), 404, missing[k]);
	}
	/* a removed user (whose id no longer names anyone) */
	long long uid;
	S(make_user("ca_gone", &uid, NULL));
	ck_code(R(api("DELETE", S(fmt("/users/%lld?hard_delete=true", uid)), admin_token(), NULL)),
		204);
	owner gone = {.kind = 0, .id = uid, .base = S(fmt("/users/%lld", uid))};
	ck_body(put_attr(&gone, admin_token(), "x", "y"), 404, missing[0]);
	ck_body(R(api("GET", "/users/abc/custom_attributes", admin_token(), NULL)), 400,
		"{\"error\":\"id is invalid\"}");
}
END_TEST

START_TEST(test_ca_forbidden)
{
	for (int k = 0; k < NKINDS; k++) {
		/* the owner itself, or the user who made the group or project (its owner) */
		owner o = make_owner(k, NULL);
		set_attr(&o, "secret", "kept");
		const char *outsider = S(make_user("ca_out", NULL, NULL));
		const char *callers[] = {o.token, outsider};
		const char *forbidden = "{\"message\":\"403 Forbidden\"}";
		for (int c = 0; c < 2; c++) {
			ck_body(R(api("GET", attr_path(&o, NULL), callers[c], NULL)), 403,
				forbidden);
			ck_body(R(api("GET", attr_path(&o, "secret"), callers[c], NULL)), 403,
				forbidden);
			ck_body(put_attr(&o, callers[c], "secret", "changed"), 403, forbidden);
			ck_body(put_attr(&o, callers[c], "new", "added"), 403, forbidden);
			ck_body(R(api("DELETE", attr_path(&o, "secret"), callers[c], NULL)), 403,
				forbidden);
		}
		const char *unauth = "{\"message\":\"401 Unauthorized\"}";
		ck_body(R(api("GET", attr_path(&o, NULL), NULL, NULL)), 401, unauth);
		ck_body(put_attr(&o, NULL, "secret", "changed"), 401, unauth);
		ck_body(R(api("DELETE", attr_path(&o, "secret"), NULL, NULL)), 401, unauth);
		/* nothing changed */
		ck_body(R(api("GET", attr_path(&o, NULL), admin_token(), NULL)), 200,
			"[{\"key\":\"secret\",\"value\":\"kept\"}]");
	}
}
END_TEST

START_TEST(test_ca_invalid)
{
	char long_text[257];
	memset(long_text, 'x', 256);
	long_text[256] = '\0';
	/* 255 two-byte characters: within the limit, which counts characters */
	char *wide = S(calloc(1, 2 * 255 + 1));
	for (int i = 0; i < 255; i++)
		memcpy(wide + 2 * i, "é", 2);
	for (int k = 0; k < NKINDS; k++) {
		owner o = make_owner(k, NULL);
		set_attr(&o, "kept", "value");
		ck_body(put_attr(&o, admin_token(), "kept", NULL), 400,
			"{\"message\":\"400 (Bad request) \\\"value\\\" not given\"}");
		ck_body(put_attr(&o, admin_token(), "kept", ""), 400,
			"{\"message\":{\"value\":[\"can't be blank\"]}}");
		ck_body(put_attr(&o, admin_token(), "kept", long_text), 400,
			"{\"message\":{\"value\":[\"is too long (maximum is 255 characters)\"]}}");
		ck_body(put_attr(&o, admin_token(), long_text, "v"), 400,
			"{\"message\":{\"key\":[\"is too long (maximum is 255 characters)\"]}}");
		ck_body(put_attr(&o, admin_token(), "new", ""), 400,
			"{\"message\":{\"value\":[\"can't be blank\"]}}");
		ck_body(R(api("PUT", attr_path(&o, "kept"), admin_token(), "value=a%00b")), 400,
			"{\"error\":\"value is invalid\"}");
		/* nothing changed */
		ck_body(R(api("GET", attr_path(&o, NULL), admin_token(), NULL)), 200,
			"[{\"key\":\"kept\",\"value\":\"value\"}]");
		set_attr(&o, wide, wide);
		ck_assert_int_eq(stored(&o), 2);
	}
}
END_TEST

/* The ids of the records of a list response. */
static bool has_id(resp *r, long long id)
{
	for (size_t i = 0; i < json_object_array_length(r->json); i++)
		if (jint(json_object_array_get_idx(r->json, i), "id") == id)
			return true;
	return false;
}

static resp *list(int k, const char *token, const char *query)
{
	resp *r = R(api("GET", S(fmt("/%s?per_page=100&%s", KINDS[k], query)), token, NULL));
	ck_status(r, 200);
	ck_assert(json_object_is_type(r->json, json_type_array));
	return r;
}

START_TEST(test_ca_filter)
{
	for (int k = 0; k < NKINDS; k++) {
		const char *maker = S(make_user("ca_fm", NULL, NULL));
		owner a = make_owner(k, maker), b = make_owner(k, maker);
		const char *key = S(unique("team")), *key2 = S(unique("tier"));
		set_attr(&a, key, "blue");
		set_attr(&a, key2, "gold");
		set_attr(&b, key, "blue");
		set_attr(&b, key2, "silver");
		const char *ek = S(enc(key)), *ek2 = S(enc(key2));
		/* one key: both; two keys: all must match; a value or key that none has */
		resp *r = list(k, admin_token(), S(fmt("custom_attributes[%s]=blue", ek)));
		ck_assert_int_eq(json_object_array_length(r->json), 2);
		ck_assert(has_id(r, a.id) && has_id(r, b.id));
		ck_header(r, "X-Total", "2");
		r = list(k, admin_token(),
			 S(fmt("custom_attributes[%s]=blue&custom_attributes[%s]=gold", ek, ek2)));
		ck_assert_int_eq(json_object_array_length(r->json), 1);
		ck_assert(has_id(r, a.id));
		r = list(
			k, admin_token(),
			S(fmt("custom_attributes%%5B%s%%5D=blue&custom_attributes%%5B%s%%5D=silver",
			      ek, ek2)));
		ck_assert_int_eq(json_object_array_length(r->json), 1);
		ck_assert(has_id(r, b.id));
		r = list(k, admin_token(), S(fmt("custom_attributes[%s]=green", ek)));
		ck_assert_int_eq(json_object_array_length(r->json), 0);
		ck_header(r, "X-Total", "0");
		r = list(
			k, admin_token(),
			S(fmt("custom_attributes[%s]=blue&custom_attributes[%s]=bronze", ek, ek2)));
		ck_assert_int_eq(json_object_array_length(r->json), 0);
		r = list(k, admin_token(), S(fmt("custom_attributes[%s_none]=blue", ek)));
		ck_assert_int_eq(json_object_array_length(r->json), 0);
		/* with other filters of the list */
		if (k == 2) {
			r = list(k, admin_token(),
				 S(fmt("custom_attributes[%s]=blue&search=%s&simple=true", ek,
				       S(sql_value("SELECT name FROM projects WHERE id = %lld",
						   a.id)))));
			ck_assert_int_eq(json_object_array_length(r->json), 1);
			ck_assert(has_id(r, a.id));
			r = list(k, admin_token(),
				 S(fmt("custom_attributes[%s]=blue&visibility=private", ek)));
			ck_assert_int_eq(json_object_array_length(r->json), 0);
		}
		/* others: the filter is ignored (the maker sees its groups and the public
		 * projects; every user sees the users) */
		const char *caller = k == 1 ? maker : S(make_user("ca_fo", NULL, NULL));
		r = list(k, caller, S(fmt("custom_attributes[%s]=green", ek)));
		ck_assert(has_id(r, a.id) && has_id(r, b.id));
		if (k == 2) {
			r = R(api("GET", S(fmt("/projects?custom_attributes[%s]=green", ek)), NULL,
				  NULL));
			ck_status(r, 200);
			ck_assert(has_id(r, a.id) && has_id(r, b.id));
		}
	}
}
END_TEST

static json_object *record_of(resp *r, long long id)
{
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *o = json_object_array_get_idx(r->json, i);
		if (jint(o, "id") == id)
			return o;
	}
	ck_abort_msg("no record %lld in %s", id, r->body);
	return NULL;
}

static void ck_attrs(json_object *o, const char *want)
{
	json_object *a = jget(o, "custom_attributes");
	ck_assert_msg(a != NULL, "no custom_attributes in %s", json_object_to_json_string(o));
	json_object *w = json_tokener_parse(want);
	ck_assert_msg(json_object_equal(a, w), "custom_attributes: expected %s, got %s", want,
		      json_object_to_json_string(a));
	json_object_put(w);
}

START_TEST(test_ca_with)
{
	for (int k = 0; k < NKINDS; k++) {
		const char *maker = S(make_user("ca_wm", NULL, NULL));
		owner a = make_owner(k, maker), b = make_owner(k, maker);
		const char *key = S(unique("with"));
		set_attr(&a, key, "1");
		set_attr(&a, "second", "2");
		const char *ek = S(enc(key));
		const char *want = S(fmt("[{\"key\":\"%s\",\"value\":\"1\"},"
					 "{\"key\":\"second\",\"value\":\"2\"}]",
					 key));
		/* the list narrowed to a and b: a key they both have */
		set_attr(&b, "both", key);
		const char *narrow = S(fmt("custom_attributes[both]=%s", ek));
		resp *r = list(k, admin_token(), "with_custom_attributes=true");
		ck_attrs(record_of(r, a.id), want);
		ck_attrs(record_of(r, b.id), S(fmt("[{\"key\":\"both\",\"value\":\"%s\"}]", key)));
		r = list(k, admin_token(), "with_custom_attributes=false");
		ck_assert(!jhas(record_of(r, a.id), "custom_attributes"));
		r = list(k, admin_token(), "");
		ck_assert(!jhas(record_of(r, a.id), "custom_attributes"));
		/* the show route */
		r = R(api("GET", S(fmt("%s?with_custom_attributes=true", a.base)), admin_token(),
			  NULL));
		ck_status(r, 200);
		ck_attrs(r->json, want);
		r = R(api("GET", a.base, admin_token(), NULL));
		ck_status(r, 200);
		ck_assert(!jhas(r->json, "custom_attributes"));
		/* others: not shown */
		const char *caller = k == 1 ? maker : S(make_user("ca_wo", NULL, NULL));
		r = list(k, caller, "with_custom_attributes=true");
		ck_assert(!jhas(record_of(r, a.id), "custom_attributes"));
		r = R(api("GET", S(fmt("%s?with_custom_attributes=true", a.base)), caller, NULL));
		ck_status(r, 200);
		ck_assert(!jhas(r->json, "custom_attributes"));
		/* a value that is no boolean */
		ck_code(R(api("GET", S(fmt("/%s?with_custom_attributes=maybe", KINDS[k])),
			      admin_token(), NULL)),
			400);
		ck_code(R(api("GET", S(fmt("%s?with_custom_attributes=maybe", a.base)),
			      admin_token(), NULL)),
			400);
		if (k == 2) {
			/* the simple view, and the user's list of projects */
			r = list(k, admin_token(), "with_custom_attributes=true&simple=true");
			ck_attrs(record_of(r, a.id), want);
			r = R(api("GET", S(fmt("/projects?with_custom_attributes=true&%s", narrow)),
				  admin_token(), NULL));
			ck_status(r, 200);
			ck_assert_int_eq(json_object_array_length(r->json), 1);
			ck_attrs(record_of(r, b.id),
				 S(fmt("[{\"key\":\"both\",\"value\":\"%s\"}]", key)));
		}
	}
}
END_TEST

START_TEST(test_ca_removed_with_owner)
{
	for (int k = 0; k < NKINDS; k++) {
		owner o = make_owner(k, NULL);
		set_attr(&o, "a", "1");
		set_attr(&o, "b", "2");
		ck_assert_int_eq(stored(&o), 2);
		const char *path = k == 0 ? S(fmt("%s?hard_delete=true", o.base)) : o.base;
		resp *r = R(api("DELETE", path, admin_token(), NULL));
		ck_assert_msg(r->status == 202 || r->status == 204, "DELETE %s: %ld %s", path,
			      r->status, r->body);
		/* a project's rows go with the background job */
		int tries = 0;
		while (stored(&o) > 0 && tries++ < 100)
			usleep(100000);
		ck_assert_int_eq(stored(&o), 0);
	}
}
END_TEST

/* After a change, every read through either instance's workers shows it. */
static void reads_show(const char *path, const char *want, const char *unwanted)
{
	for (int i = 0; i < 16; i++) {
		resp *r = R(api("GET", path, admin_token(), NULL));
		ck_assert_msg(r->status == 200, "GET %s: %ld %s", path, r->status, r->body);
		ck_assert_msg(!want || strstr(r->body, want), "GET %s: no %s in %s", path, want,
			      r->body);
		ck_assert_msg(!unwanted || !strstr(r->body, unwanted), "GET %s: %s in %s", path,
			      unwanted, r->body);
	}
}

START_TEST(test_ca_cache)
{
	for (int k = 0; k < NKINDS; k++) {
		owner o = make_owner(k, NULL);
		const char *key = S(unique("cache"));
		set_attr(&o, key, "before");
		const char *show = S(fmt("%s?with_custom_attributes=true", o.base));
		const char *filtered =
			S(fmt("/%s?custom_attributes[%s]=before", KINDS[k], S(enc(key))));
		const char *id = S(fmt("\"id\":%lld,", o.id));
		reads_show(show, "\"value\":\"before\"", NULL);
		reads_show(filtered, id, NULL);
		set_attr(&o, key, "after");
		reads_show(show, "\"value\":\"after\"", "\"value\":\"before\"");
		reads_show(filtered, NULL, id);
		ck_code(R(api("DELETE", attr_path(&o, key), admin_token(), NULL)), 204);
		reads_show(show, "\"custom_attributes\":[]", "\"value\":\"after\"");
	}
}
END_TEST

Suite *suite_custom_attributes(void)
{
	Suite *s = suite_create("custom_attributes");
	TCase *tc = tcase_create("custom_attributes");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_ca_crud);
	tcase_add_test(tc, test_ca_not_found);
	tcase_add_test(tc, test_ca_forbidden);
	tcase_add_test(tc, test_ca_invalid);
	tcase_add_test(tc, test_ca_filter);
	tcase_add_test(tc, test_ca_with);
	tcase_add_test(tc, test_ca_removed_with_owner);
	tcase_add_test(tc, test_ca_cache);
	suite_add_tcase(s, tc);
	return s;
}
