/* API suite: access requests (spec 4.11): GET/POST /<scope>/:id/access_requests,
 * PUT /<scope>/:id/access_requests/:user_id/approve, DELETE
 * /<scope>/:id/access_requests/:user_id. Most tests run once per scope (loop index 0: a
 * project, 1: a group). Projects and groups are SQL fixtures (client.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static const char *const REQUEST[] = {"id",         "username",     "name", "state",
				      "created_at", "requested_at", NULL};
static const char *const APPROVED[] = {"id",         "username",     "name", "state",
				       "created_at", "access_level", NULL};

static fx_source *srcs[16];
static size_t nsrcs;

static void release_all(void)
{
	release();
	while (nsrcs) {
		fixture_source_free(srcs[--nsrcs]);
		free(srcs[nsrcs]);
	}
}

/* ---- fixtures ---- */

/* PUT /projects/:id or /groups/:id with the form, as the admin. */
static void update(bool project, long long id, const char *form)
{
	resp *r = R(api("PUT", S(fmt("%s/%lld", project ? "/projects" : "/groups", id)),
			admin_token(), form));
	ck_status(r, 200);
}

/* A project or group of the visibility, taking access requests when open. */
static fx_source *source(int scope, int visibility, bool open)
{
	ck_assert(nsrcs < sizeof(srcs) / sizeof(*srcs));
	fx_source *s = srcs[nsrcs++] = calloc(1, sizeof(*s));
	fixture_source(s, scope, visibility);
	if (open)
		update(s->project, s->id, "request_access_enabled=true");
	return s;
}

static const char *P(const fx_source *s, const char *suffix)
{
	return S(source_path(s, suffix));
}

static const char *request_path(const fx_source *s, long long user_id, const char *suffix)
{
	return S(fmt("%s/%lld/access_requests/%lld%s", s->project ? "/projects" : "/groups", s->id,
		     user_id, suffix));
}

static const char *user(long long *id, char **username)
{
	char *name;
	const char *token = S(make_user("areq", id, &name));
	S(name);
	if (username)
		*username = name;
	return token;
}

static resp *ask(const fx_source *s, const char *token)
{
	return R(api("POST", P(s, "/access_requests"), token, NULL));
}

static const char *not_found(const fx_source *s)
{
	return s->project ? "{\"message\":\"404 Project Not Found\"}"
			  : "{\"message\":\"404 Group Not Found\"}";
}

static const char *FORBIDDEN = "{\"message\":\"403 Forbidden\"}";

/* 2017-09-05T10:12:35.123Z */
static void ck_time(json_object *o, const char *key)
{
	const char *t = jstr(o, key);
	ck_assert_msg(t && strlen(t) == 24, "%s: not a timestamp: %s", key, t ? t : "(null)");
	const char *shape = "dddd-dd-ddTdd:dd:dd.dddZ";
	for (size_t i = 0; i < 24; i++)
		ck_assert_msg(shape[i] == 'd' ? isdigit((unsigned char)t[i]) : t[i] == shape[i],
			      "%s: not a timestamp: %s", key, t);
}

static void ck_request(json_object *o, long long id, const char *username)
{
	ck_fields(o, REQUEST);
	ck_assert_int_eq(jint(o, "id"), id);
	ck_assert_str_eq(jstr(o, "username"), username);
	ck_assert_str_eq(jstr(o, "name"), username);
	ck_assert_str_eq(jstr(o, "state"), "active");
	ck_time(o, "created_at");
	ck_time(o, "requested_at");
}

/* The pending requests of s, as its owner sees them. */
static resp *requests(const fx_source *s)
{
	resp *r = R(api("GET", P(s, "/access_requests"), s->owner_token, NULL));
	ck_status(r, 200);
	return r;
}

static size_t request_count(const fx_source *s)
{
	return json_object_array_length(requests(s)->json);
}

/* The member record of user_id (404 when none), as the owner sees it. */
static resp *member(const fx_source *s, long long user_id)
{
	return R(api("GET",
		     S(fmt("%s/%lld/members/%lld", s->project ? "/projects" : "/groups", s->id,
			   user_id)),
		     s->owner_token, NULL));
}

/* Events of user_id with the action on project_id, as the admin sees them. */
static long long events_of(long long user_id, const char *action, long long project_id)
{
	resp *r = R(api("GET", S(fmt("/users/%lld/events?action=%s&per_page=100", user_id, action)),
			admin_token(), NULL));
	ck_status(r, 200);
	long long n = 0;
	for (size_t i = 0; i < json_object_array_length(r->json); i++)
		n += jint(json_object_array_get_idx(r->json, i), "project_id") == project_id;
	return n;
}

/* ---- tests ---- */

START_TEST(test_access_requests_require_auth)
{
	fx_source *s = source(_i, 20, true);
	const char *body = "{\"message\":\"401 Unauthorized\"}";
	ck_body(R(api("GET", P(s, "/access_requests"), NULL, NULL)), 401, body);
	ck_body(ask(s, NULL), 401, body);
	ck_body(R(api("PUT", request_path(s, s->owner, "/approve"), NULL, NULL)), 401, body);
	ck_body(R(api("DELETE", request_path(s, s->owner, ""), NULL, NULL)), 401, body);
	ck_body(ask(s, "bad-token"), 401, body);
	ck_assert_int_eq(request_count(s), 0);
}
END_TEST

/* A signed-in user who sees the source and is no member asks; the request is listed for
 * those who administer members, with pagination. */
START_TEST(test_access_requests_create_and_list)
{
	fx_source *s = source(_i, 20, true);
	long long ids[3];
	char *names[3];
	const char *tokens[3];
	for (int i = 0; i < 3; i++) {
		tokens[i] = user(&ids[i], &names[i]);
		resp *r = ask(s, tokens[i]);
		ck_status(r, 201);
		ck_request(r->json, ids[i], names[i]);
		ck_assert_str_eq(jstr(r->json, "created_at"), jstr(r->json, "requested_at"));
	}
	/* asking twice */
	ck_body(ask(s, tokens[0]), 400,
		"{\"message\":{\"user_id\":[\"already exists in source\"]}}");

	const char *path = P(s, "/access_requests");
	resp *r = requests(s);
	ck_pages(r, path, "", 3, 20, 1);
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	for (int i = 0; i < 3; i++)
		ck_request(json_object_array_get_idx(r->json, (size_t)i), ids[i], names[i]);
	r = R(api("GET", S(fmt("%s?per_page=2&page=2", path)), s->owner_token, NULL));
	ck_status(r, 200);
	ck_pages(r, path, "", 3, 2, 2);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), ids[2]);
	r = R(api("GET", S(fmt("%s?per_page=2", path)), admin_token(), NULL));
	ck_pages(r, path, "", 3, 2, 1);

	/* requesters, members below the administering level and strangers do not see them */
	ck_body(R(api("GET", path, tokens[0], NULL)), 403, FORBIDDEN);
	long long dev;
	const char *dev_t = user(&dev, NULL);
	fixture_member(s->project ? "Project" : "Namespace", s->id, dev, s->project ? 30 : 40);
	ck_body(R(api("GET", path, dev_t, NULL)), 403, FORBIDDEN);
	/* a request is no membership */
	ck_body(member(s, ids[0]), 404, "{\"message\":\"404 Member Not Found\"}");
	ck_assert_int_eq(events_of(ids[0], "joined", s->id), 0);
}
END_TEST

/* GitLab 10's rules: the source takes requests, is public or internal (to a non-external
 * user), and the caller is no member of it or of a group above it. */
START_TEST(test_access_requests_create_refused)
{
	long long uid;
	const char *ut = user(&uid, NULL);
	/* requests disabled */
	fx_source *closed = source(_i, 20, false);
	ck_body(ask(closed, ut), 403, FORBIDDEN);
	ck_assert_int_eq(request_count(closed), 0);
	/* a member, whatever the level */
	fx_source *s = source(_i, 10, true);
	ck_body(ask(s, s->owner_token), 403, FORBIDDEN);
	long long guest;
	const char *guest_t = user(&guest, NULL);
	fixture_member(s->project ? "Project" : "Namespace", s->id, guest, 10);
	ck_body(ask(s, guest_t), 403, FORBIDDEN);
	/* internal: any signed-in user but an external one */
	ck_status(ask(s, ut), 201);
	long long ext;
	const char *ext_t = user(&ext, NULL);
	ck_status(R(api("PUT", S(fmt("/users/%lld", ext)), admin_token(), "external=true")), 200);
	ck_body(ask(s, ext_t), 404, not_found(s));
	ck_assert_int_eq(request_count(s), 1);
	/* private: a stranger does not see it */
	fx_source *priv = source(_i, 0, true);
	ck_body(ask(priv, ut), 404, not_found(priv));
	/* unknown */
	ck_body(R(api("POST",
		      s->project ? "/projects/999999999/access_requests"
				 : "/groups/999999999/access_requests",
		      ut, NULL)),
		404, not_found(s));
	ck_assert_int_eq(request_count(priv), 0);
}
END_TEST

/* Members of a group above ask nothing of the group's projects and subgroups. */
START_TEST(test_access_requests_inherited_members)
{
	long long gid = api_group(admin_token(), "public", NULL);
	long long sub = fixture_subgroup(gid, 20, NULL);
	long long proj = fixture_group_project(gid, 20, NULL);
	update(false, sub, "request_access_enabled=true");
	update(true, proj, "request_access_enabled=true");
	long long uid, other;
	const char *ut = user(&uid, NULL);
	const char *other_t = user(&other, NULL);
	fixture_member("Namespace", gid, uid, 10);
	ck_body(R(api("POST", S(fmt("/groups/%lld/access_requests", sub)), ut, NULL)), 403,
		FORBIDDEN);
	ck_body(R(api("POST", S(fmt("/projects/%lld/access_requests", proj)), ut, NULL)), 403,
		FORBIDDEN);
	ck_status(R(api("POST", S(fmt("/groups/%lld/access_requests", sub)), other_t, NULL)), 201);
	ck_status(R(api("POST", S(fmt("/projects/%lld/access_requests", proj)), other_t, NULL)),
		  201);
	/* a group owner approves requests of the group's projects and subgroups */
	long long owner;
	const char *owner_t = user(&owner, NULL);
	fixture_member("Namespace", gid, owner, 50);
	resp *r = R(api("PUT", S(fmt("/projects/%lld/access_requests/%lld/approve", proj, other)),
			owner_t, "access_level=20"));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "access_level"), 20);
	ck_status(R(api("DELETE", S(fmt("/groups/%lld/access_requests/%lld", sub, other)), owner_t,
			NULL)),
		  204);
}
END_TEST

START_TEST(test_access_requests_approve)
{
	fx_source *s = source(_i, 20, true);
	long long a, b, c;
	char *an, *bn;
	const char *at = user(&a, &an);
	ck_status(ask(s, at), 201);
	ck_status(ask(s, user(&b, &bn)), 201);
	ck_status(ask(s, user(&c, NULL)), 201);

	/* default level: developer */
	resp *r = R(api("PUT", request_path(s, a, "/approve"), s->owner_token, NULL));
	ck_status(r, 200);
	ck_fields(r->json, APPROVED);
	ck_assert_int_eq(jint(r->json, "id"), a);
	ck_assert_str_eq(jstr(r->json, "username"), an);
	ck_assert_str_eq(jstr(r->json, "name"), an);
	ck_assert_str_eq(jstr(r->json, "state"), "active");
	ck_time(r->json, "created_at");
	ck_assert_int_eq(jint(r->json, "access_level"), 30);
	r = member(s, a);
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "access_level"), 30);
	ck_assert_int_eq(events_of(a, "joined", s->id), (s->project ? 1 : 0));
	/* the new member sees the members at once (the source was made private) */
	update(s->project, s->id, "visibility=private");
	ck_status(R(api("GET", P(s, "/members"), at, NULL)), 200);

	/* a given level; the owner level is for groups only */
	const char *bp = request_path(s, b, "/approve");
	ck_body(R(api("PUT", bp, s->owner_token, "access_level=dev")), 400,
		"{\"error\":\"access_level is invalid\"}");
	ck_body(R(api("PUT", bp, s->owner_token, "access_level=15")), 400,
		"{\"message\":{\"access_level\":[\"is not included in the list\"]}}");
	if (s->project)
		ck_body(R(api("PUT", bp, s->owner_token, "access_level=50")), 400,
			"{\"message\":{\"access_level\":[\"is not included in the list\"]}}");
	ck_assert_int_eq(request_count(s), 2);
	r = R(api("PUT", bp, s->owner_token, s->project ? "access_level=40" : "access_level=50"));
	ck_status(r, 200);
	ck_fields(r->json, APPROVED);
	ck_assert_int_eq(jint(r->json, "access_level"), s->project ? 40 : 50);
	ck_assert_int_eq(jint(member(s, b)->json, "access_level"), s->project ? 40 : 50);

	/* only those who administer members approve; the requester cannot */
	const char *cp = request_path(s, c, "/approve");
	ck_body(R(api("PUT", cp, at, NULL)), 403, FORBIDDEN);
	ck_assert_int_eq(request_count(s), 1);
	/* approved already, or never asked */
	ck_body(R(api("PUT", request_path(s, a, "/approve"), s->owner_token, NULL)), 404,
		"{\"message\":\"404 Access Request Not Found\"}");
	ck_body(R(api("PUT", request_path(s, 999999999, "/approve"), s->owner_token, NULL)), 404,
		"{\"message\":\"404 Access Request Not Found\"}");
	ck_body(R(api("PUT",
		      S(fmt("%s/%lld/access_requests/x/approve",
			    s->project ? "/projects" : "/groups", s->id)),
		      s->owner_token, NULL)),
		400, "{\"error\":\"user_id is invalid\"}");
	/* an admin who is no member may */
	r = R(api("PUT", cp, admin_token(), "access_level=10"));
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "access_level"), 10);
	ck_assert_int_eq(request_count(s), 0);
}
END_TEST

START_TEST(test_access_requests_deny)
{
	fx_source *s = source(_i, 20, true);
	long long a, b, c;
	const char *at = user(&a, NULL);
	const char *bt = user(&b, NULL);
	const char *ct = user(&c, NULL);
	ck_status(ask(s, at), 201);
	ck_status(ask(s, bt), 201);
	ck_status(ask(s, ct), 201);
	/* another requester may not deny */
	ck_body(R(api("DELETE", request_path(s, a, ""), bt, NULL)), 403, FORBIDDEN);
	ck_assert_int_eq(request_count(s), 3);
	/* the owner denies */
	resp *r = R(api("DELETE", request_path(s, a, ""), s->owner_token, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_body(member(s, a), 404, "{\"message\":\"404 Member Not Found\"}");
	ck_body(R(api("DELETE", request_path(s, a, ""), s->owner_token, NULL)), 404,
		"{\"message\":\"404 Access Request Not Found\"}");
	/* the requester withdraws; and may ask again */
	ck_status(R(api("DELETE", request_path(s, b, ""), bt, NULL)), 204);
	ck_status(ask(s, bt), 201);
	/* a member is no request */
	ck_body(R(api("DELETE", request_path(s, s->owner, ""), s->owner_token, NULL)), 404,
		"{\"message\":\"404 Access Request Not Found\"}");
	ck_status(member(s, s->owner), 200);
	/* an admin may */
	ck_status(R(api("DELETE", request_path(s, c, ""), admin_token(), NULL)), 204);
	r = requests(s);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), b);
	ck_assert_int_eq(events_of(a, "left", s->id) + events_of(a, "joined", s->id), 0);
	ck_body(R(api("DELETE",
		      S(fmt("%s/999999999/access_requests/%lld",
			    s->project ? "/projects" : "/groups", b)),
		      bt, NULL)),
		404, not_found(s));
}
END_TEST

/* An approved request of a group opens the group's private projects at once. */
START_TEST(test_access_requests_group_approval_gives_access)
{
	long long gid = api_group(admin_token(), "internal", NULL);
	update(false, gid, "request_access_enabled=true");
	long long proj = fixture_group_project(gid, 0, NULL);
	long long uid;
	const char *ut = user(&uid, NULL);
	const char *members = S(fmt("/projects/%lld/members", proj));
	ck_body(R(api("GET", members, ut, NULL)), 404, "{\"message\":\"404 Project Not Found\"}");
	ck_status(R(api("POST", S(fmt("/groups/%lld/access_requests", gid)), ut, NULL)), 201);
	ck_body(R(api("GET", members, ut, NULL)), 404, "{\"message\":\"404 Project Not Found\"}");
	ck_status(R(api("PUT", S(fmt("/groups/%lld/access_requests/%lld/approve", gid, uid)),
			admin_token(), "access_level=20")),
		  200);
	ck_status(R(api("GET", members, ut, NULL)), 200);
	/* a group approval records no project event */
	ck_assert_int_eq(events_of(uid, "joined", proj), 0);
}
END_TEST

Suite *suite_access_requests(void)
{
	Suite *s = suite_create("access_requests");
	TCase *tc = tcase_create("access_requests");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release_all);
	tcase_add_loop_test(tc, test_access_requests_require_auth, 0, 2);
	tcase_add_loop_test(tc, test_access_requests_create_and_list, 0, 2);
	tcase_add_loop_test(tc, test_access_requests_create_refused, 0, 2);
	tcase_add_test(tc, test_access_requests_inherited_members);
	tcase_add_loop_test(tc, test_access_requests_approve, 0, 2);
	tcase_add_loop_test(tc, test_access_requests_deny, 0, 2);
	tcase_add_test(tc, test_access_requests_group_approval_gives_access);
	suite_add_tcase(s, tc);
	return s;
}
