/* API suite: project and group members (GitLab 10.0): GET/POST /<scope>/:id/members,
 * GET/PUT/DELETE /<scope>/:id/members/:user_id. Most tests run once per scope (loop index
 * 0: a project, 1: a group) against the same expectations, as the handlers are shared.
 * Projects and groups are SQL fixtures (client.c); every name is unique, and the tests
 * only look at their own projects and groups: other suites share the database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

#define F_MEMBER                                                                                   \
	"id", "username", "name", "state", "avatar_url", "web_url", "access_level", "expires_at"
static const char *const MEMBER[] = {F_MEMBER, NULL};

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

static fx_source *source(int scope, int visibility)
{
	ck_assert(nsrcs < sizeof(srcs) / sizeof(*srcs));
	fx_source *s = srcs[nsrcs++] = calloc(1, sizeof(*s));
	fixture_source(s, scope, visibility);
	return s;
}

/* /projects/<id><suffix> or /groups/<id><suffix> */
static const char *P(const fx_source *s, const char *suffix)
{
	return S(source_path(s, suffix));
}

static const char *member_path(const fx_source *s, long long user_id)
{
	return S(fmt("%s/%lld/members/%lld", s->project ? "/projects" : "/groups", s->id, user_id));
}

/* A new user; its token, id and username. */
static const char *user(long long *id, char **username)
{
	char *name;
	const char *token = S(make_user("mem", id, &name));
	S(name);
	if (username)
		*username = name;
	return token;
}

static resp *add(const fx_source *s, const char *token, long long user_id, int level)
{
	return R(api("POST", P(s, "/members"), token,
		     S(fmt("user_id=%lld&access_level=%d", user_id, level))));
}

static const char *not_found(const fx_source *s)
{
	return s->project ? "{\"message\":\"404 Project Not Found\"}"
			  : "{\"message\":\"404 Group Not Found\"}";
}

/* The access level that administers members: master of a project, owner of a group. */
static int admin_level(const fx_source *s)
{
	return s->project ? 40 : 50;
}

/* X-Total of GET .../members as the caller with the token. */
static long long member_count_as(const fx_source *s, const char *token)
{
	resp *r = R(api("GET", P(s, "/members"), token, NULL));
	ck_status(r, 200);
	const char *t = resp_header(r, "X-Total");
	ck_assert(t != NULL);
	return atoll(t);
}

static long long member_count(const fx_source *s)
{
	return member_count_as(s, s->owner_token);
}

/* The member record of user id and username at level, exact fields and values. */
static void ck_member(json_object *o, long long id, const char *username, int level,
		      const char *expires_at)
{
	ck_fields(o, MEMBER);
	ck_assert_int_eq(jint(o, "id"), id);
	ck_assert_str_eq(jstr(o, "username"), username);
	ck_assert_str_eq(jstr(o, "name"), username);
	ck_assert_str_eq(jstr(o, "state"), "active");
	ck_assert(jnull(o, "avatar_url"));
	char *web = fmt("/%s", username);
	const char *w = jstr(o, "web_url");
	ck_assert_msg(w && strlen(w) > strlen(web) && strcmp(w + strlen(w) - strlen(web), web) == 0,
		      "web_url %s", w ? w : "(null)");
	free(web);
	ck_assert_int_eq(jint(o, "access_level"), level);
	if (expires_at)
		ck_assert_str_eq(jstr(o, "expires_at"), expires_at);
	else
		ck_assert(jnull(o, "expires_at"));
}

/* The number of events of user_id with the action, on project_id (as admin, who sees
 * project events in a user's list). */
static long long events_of(long long user_id, const char *action, long long project_id)
{
	resp *r = R(api("GET", S(fmt("/users/%lld/events?action=%s&per_page=100", user_id, action)),
			admin_token(), NULL));
	ck_status(r, 200);
	long long n = 0;
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		json_object *e = json_object_array_get_idx(r->json, i);
		if (jint(e, "project_id") == project_id) {
			ck_assert_str_eq(jstr(e, "action_name"), action);
			ck_assert_int_eq(jint(e, "author_id"), user_id);
			n++;
		}
	}
	return n;
}

/* ---- tests ---- */

START_TEST(test_members_require_auth)
{
	fx_source *s = source(_i, 20);
	ck_body(R(api("GET", P(s, "/members"), NULL, NULL)), 401,
		"{\"message\":\"401 Unauthorized\"}");
	ck_body(R(api("GET", member_path(s, s->owner), NULL, NULL)), 401,
		"{\"message\":\"401 Unauthorized\"}");
	ck_body(R(api("POST", P(s, "/members"), NULL, "user_id=1&access_level=30")), 401,
		"{\"message\":\"401 Unauthorized\"}");
	ck_body(R(api("PUT", member_path(s, s->owner), NULL, "access_level=30")), 401,
		"{\"message\":\"401 Unauthorized\"}");
	ck_body(R(api("DELETE", member_path(s, s->owner), NULL, NULL)), 401,
		"{\"message\":\"401 Unauthorized\"}");
	ck_body(R(api("GET", P(s, "/members"), "not-a-token", NULL)), 401,
		"{\"message\":\"401 Unauthorized\"}");
	ck_assert_int_eq(member_count(s), 1);
}
END_TEST

/* Add, show, update, remove: the record, its values, and what each step changed. */
START_TEST(test_members_lifecycle)
{
	fx_source *s = source(_i, 0);
	long long uid;
	char *uname;
	user(&uid, &uname);
	resp *r = R(api("POST", P(s, "/members"), s->owner_token,
			S(fmt("user_id=%lld&access_level=30&expires_at=2999-12-31", uid))));
	ck_status(r, 201);
	ck_member(r->json, uid, uname, 30, "2999-12-31");

	r = R(api("GET", member_path(s, uid), s->owner_token, NULL));
	ck_status(r, 200);
	ck_member(r->json, uid, uname, 30, "2999-12-31");

	r = R(api("GET", P(s, "/members"), s->owner_token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_member(json_object_array_get_idx(r->json, 0), s->owner, s->owner_name, admin_level(s),
		  NULL);
	ck_member(json_object_array_get_idx(r->json, 1), uid, uname, 30, "2999-12-31");

	/* access_level changes, expires_at stays unless sent; empty clears it */
	r = R(api("PUT", member_path(s, uid), s->owner_token, "access_level=20"));
	ck_status(r, 200);
	ck_member(r->json, uid, uname, 20, "2999-12-31");
	r = R(api("PUT", member_path(s, uid), s->owner_token,
		  "access_level=10&expires_at=2998-01-02"));
	ck_status(r, 200);
	ck_member(r->json, uid, uname, 10, "2998-01-02");
	r = R(api("PUT", member_path(s, uid), s->owner_token, "access_level=40&expires_at="));
	ck_status(r, 200);
	ck_member(r->json, uid, uname, 40, NULL);
	r = R(api("GET", member_path(s, uid), s->owner_token, NULL));
	ck_member(r->json, uid, uname, 40, NULL);

	/* a JSON body works the same */
	r = R(api_json("PUT", member_path(s, uid), s->owner_token, "{\"access_level\":30}"));
	ck_status(r, 200);
	ck_member(r->json, uid, uname, 30, NULL);

	r = R(api("DELETE", member_path(s, uid), s->owner_token, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_body(R(api("GET", member_path(s, uid), s->owner_token, NULL)), 404,
		"{\"message\":\"404 Member Not Found\"}");
	ck_body(R(api("DELETE", member_path(s, uid), s->owner_token, NULL)), 404,
		"{\"message\":\"404 Member Not Found\"}");
	ck_assert_int_eq(member_count(s), 1);
}
END_TEST

START_TEST(test_members_add_errors)
{
	fx_source *s = source(_i, 0);
	long long uid, other;
	user(&uid, NULL);
	user(&other, NULL);
	const char *path = P(s, "/members");
	const char *t = s->owner_token;
	ck_body(R(api("POST", path, t, "access_level=30")), 400,
		"{\"message\":\"400 (Bad request) \\\"user_id\\\" not given\"}");
	ck_body(R(api("POST", path, t, S(fmt("user_id=%lld", uid)))), 400,
		"{\"message\":\"400 (Bad request) \\\"access_level\\\" not given\"}");
	ck_body(R(api("POST", path, t, "user_id=abc&access_level=30")), 400,
		"{\"error\":\"user_id is invalid\"}");
	ck_body(R(api("POST", path, t, S(fmt("user_id=%lld&access_level=dev", uid)))), 400,
		"{\"error\":\"access_level is invalid\"}");
	ck_body(R(api("POST", path, t, S(fmt("user_id=%lld&access_level=35", uid)))), 400,
		"{\"message\":{\"access_level\":[\"is not included in the list\"]}}");
	ck_body(R(api("POST", path, t, S(fmt("user_id=%lld&access_level=0", uid)))), 400,
		"{\"message\":{\"access_level\":[\"is not included in the list\"]}}");
	ck_body(R(api("POST", path, t,
		      S(fmt("user_id=%lld&access_level=30&expires_at=tomorrow", uid)))),
		400, "{\"error\":\"expires_at is invalid\"}");
	ck_body(R(api("POST", path, t,
		      S(fmt("user_id=%lld&access_level=30&expires_at=2001-01-01", uid)))),
		400, "{\"message\":{\"expires_at\":[\"cannot be a date in the past\"]}}");
	ck_body(R(api("POST", path, t, "user_id=999999999&access_level=30")), 404,
		"{\"message\":\"404 User Not Found\"}");
	ck_assert_int_eq(member_count(s), 1);

	/* owner (50) is a group level only */
	resp *r = add(s, t, uid, 50);
	if (s->project) {
		ck_body(r, 400,
			"{\"message\":{\"access_level\":[\"is not included in the list\"]}}");
		ck_assert_int_eq(member_count(s), 1);
		ck_status(add(s, t, uid, 40), 201);
	} else {
		ck_status(r, 201);
		ck_assert_int_eq(jint(r->json, "access_level"), 50);
	}
	/* a member already: 409, whatever the level */
	ck_body(add(s, t, uid, 10), 409, "{\"message\":\"Member already exists\"}");
	ck_body(add(s, t, s->owner, 30), 409, "{\"message\":\"Member already exists\"}");
	ck_assert_int_eq(member_count(s), 2);

	/* PUT: the same checks on the level; access_level is required */
	const char *mp = member_path(s, uid);
	ck_body(R(api("PUT", mp, t, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"access_level\\\" not given\"}");
	ck_body(R(api("PUT", mp, t, "access_level=x")), 400,
		"{\"error\":\"access_level is invalid\"}");
	ck_body(R(api("PUT", mp, t, "access_level=60")), 400,
		"{\"message\":{\"access_level\":[\"is not included in the list\"]}}");
	ck_body(R(api("PUT", mp, t, "access_level=30&expires_at=2001-02-03")), 400,
		"{\"message\":{\"expires_at\":[\"cannot be a date in the past\"]}}");
	ck_body(R(api("PUT", mp, t, "access_level=30&expires_at=31.12.2999")), 400,
		"{\"error\":\"expires_at is invalid\"}");
	if (s->project)
		ck_body(R(api("PUT", mp, t, "access_level=50")), 400,
			"{\"message\":{\"access_level\":[\"is not included in the list\"]}}");
	resp *g = R(api("GET", mp, t, NULL));
	ck_assert_int_eq(jint(g->json, "access_level"), s->project ? 40 : 50);
	/* a user who is no member */
	ck_body(R(api("PUT", member_path(s, other), t, "access_level=30")), 404,
		"{\"message\":\"404 Member Not Found\"}");
	ck_body(R(api("GET", member_path(s, other), t, NULL)), 404,
		"{\"message\":\"404 Member Not Found\"}");
	ck_body(R(api("GET",
		      S(fmt("%s/%lld/members/abc", s->project ? "/projects" : "/groups", s->id)), t,
		      NULL)),
		400, "{\"error\":\"user_id is invalid\"}");
}
END_TEST

/* Who may change members: masters of a project (and group members of master level and
 * up), owners of a group, admins. Those who only see the source get 403; those who do
 * not see it, 404. */
START_TEST(test_members_permissions)
{
	fx_source *s = source(_i, 0);
	long long dev, stranger, target, admin_id;
	const char *dev_t = user(&dev, NULL);
	const char *stranger_t = user(&stranger, NULL);
	user(&target, NULL);
	const char *admin_t = S(make_admin("madm", &admin_id));
	/* one level below the administering one */
	fixture_member(s->project ? "Project" : "Namespace", s->id, dev, admin_level(s) - 10);

	/* a member below the level sees the members but changes nothing */
	ck_status(R(api("GET", P(s, "/members"), dev_t, NULL)), 200);
	ck_status(R(api("GET", member_path(s, s->owner), dev_t, NULL)), 200);
	ck_body(add(s, dev_t, target, 10), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("PUT", member_path(s, s->owner), dev_t, "access_level=10")), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("DELETE", member_path(s, s->owner), dev_t, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");

	/* a stranger does not see a private source */
	ck_body(R(api("GET", P(s, "/members"), stranger_t, NULL)), 404, not_found(s));
	ck_body(R(api("GET", member_path(s, s->owner), stranger_t, NULL)), 404, not_found(s));
	ck_body(add(s, stranger_t, stranger, 30), 404, not_found(s));
	ck_body(R(api("PUT", member_path(s, s->owner), stranger_t, "access_level=10")), 404,
		not_found(s));
	ck_body(R(api("DELETE", member_path(s, s->owner), stranger_t, NULL)), 404, not_found(s));
	ck_assert_int_eq(member_count(s), 2);

	/* once public, a stranger sees it, and still may change nothing */
	update(s->project, s->id, "visibility=public");
	ck_status(R(api("GET", P(s, "/members"), stranger_t, NULL)), 200);
	ck_body(add(s, stranger_t, stranger, 30), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("DELETE", member_path(s, dev), stranger_t, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");

	/* an admin who is no member may */
	ck_status(add(s, admin_t, target, 20), 201);
	ck_status(R(api("PUT", member_path(s, target), admin_t, "access_level=30")), 200);
	ck_status(R(api("DELETE", member_path(s, target), admin_t, NULL)), 204);

	/* promoted to the administering level, the member may too */
	ck_status(R(api("PUT", member_path(s, dev), s->owner_token,
			S(fmt("access_level=%d", admin_level(s))))),
		  200);
	ck_status(add(s, dev_t, target, 10), 201);
	ck_status(R(api("DELETE", member_path(s, target), dev_t, NULL)), 204);
	ck_assert_int_eq(member_count(s), 2);
}
END_TEST

START_TEST(test_members_unknown_source)
{
	fx_source *s = source(_i, 20);
	const char *base = s->project ? "/projects" : "/groups";
	const char *t = s->owner_token;
	const char *nf = not_found(s);
	ck_body(R(api("GET", S(fmt("%s/999999999/members", base)), t, NULL)), 404, nf);
	ck_body(R(api("GET", S(fmt("%s/0/members/1", base)), t, NULL)), 404, nf);
	ck_body(R(api("POST", S(fmt("%s/999999999/members", base)), t,
		      "user_id=1&access_level=30")),
		404, nf);
	ck_body(R(api("PUT", S(fmt("%s/999999999/members/1", base)), t, "access_level=30")), 404,
		nf);
	ck_body(R(api("DELETE", S(fmt("%s/999999999/members/1", base)), t, NULL)), 404, nf);
	ck_body(R(api("GET", S(fmt("%s/no%%2Fsuch%%2Fpath/members", base)), t, NULL)), 404, nf);
	ck_body(R(api("GET", S(fmt("%s/%s-x/members", base, S(enc(s->path)))), t, NULL)), 404, nf);
	/* bad input is checked before the source is looked up */
	ck_body(R(api("POST", S(fmt("%s/999999999/members", base)), t, "access_level=30")), 400,
		"{\"message\":\"400 (Bad request) \\\"user_id\\\" not given\"}");
	/* a project is not a group, nor the other way round */
	if (s->project)
		ck_body(R(api("GET", S(fmt("/groups/%s/members", S(enc(s->path)))), t, NULL)), 404,
			"{\"message\":\"404 Group Not Found\"}");
	else
		ck_body(R(api("GET", S(fmt("/projects/%s/members", S(enc(s->path)))), t, NULL)),
			404, "{\"message\":\"404 Project Not Found\"}");
}
END_TEST

/* :id as a URL-encoded full path, any case; nested groups and their projects. */
START_TEST(test_members_by_path)
{
	fx_source *s = source(_i, 0);
	long long uid;
	char *uname;
	user(&uid, &uname);
	char *upper = S(strdup(s->path));
	for (char *c = upper; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	const char *base = s->project ? "/projects" : "/groups";
	resp *r = R(api("POST", S(fmt("%s/%s/members", base, S(enc(upper)))), s->owner_token,
			S(fmt("user_id=%lld&access_level=20", uid))));
	ck_status(r, 201);
	r = R(api("GET", S(fmt("%s/%s/members/%lld", base, S(enc(s->path)), uid)), s->owner_token,
		  NULL));
	ck_status(r, 200);
	ck_member(r->json, uid, uname, 20, NULL);
	ck_assert_int_eq(member_count(s), 2);

	/* a subgroup "a/b" and a project "a/b/p" in it */
	long long group = s->project ? api_group(admin_token(), "private", NULL) : s->id;
	char *sub_path, *proj_path;
	long long sub = fixture_subgroup(group, 0, &sub_path);
	long long proj = fixture_group_project(sub, 0, &proj_path);
	S(sub_path);
	S(proj_path);
	ck_assert_ptr_nonnull(strchr(sub_path, '/'));
	const char *admin = admin_token();
	r = R(api("POST", S(fmt("/groups/%s/members", S(enc(sub_path)))), admin,
		  S(fmt("user_id=%lld&access_level=30", uid))));
	ck_status(r, 201);
	r = R(api("GET", S(fmt("/groups/%lld/members/%lld", sub, uid)), admin, NULL));
	ck_member(r->json, uid, uname, 30, NULL);
	r = R(api("POST", S(fmt("/projects/%s/members", S(enc(proj_path)))), admin,
		  S(fmt("user_id=%lld&access_level=10", uid))));
	ck_status(r, 201);
	r = R(api("GET", S(fmt("/projects/%lld/members/%lld", proj, uid)), admin, NULL));
	ck_member(r->json, uid, uname, 10, NULL);
	/* the path must be encoded inside the segment */
	ck_status(R(api("GET", S(fmt("/projects/%s/members", proj_path)), admin, NULL)), 404);
}
END_TEST

START_TEST(test_members_list_pages_and_search)
{
	fx_source *s = source(_i, 0);
	char *prefix = S(unique("srch"));
	long long ids[3];
	for (int i = 0; i < 3; i++) {
		char *name = S(fmt("%s_%c", prefix, 'a' + i));
		resp *u = R(api(
			"POST", "/users", admin_token(),
			S(fmt("username=%s&email=%s%%40example.com&name=Name+%s&password=secret1234"
			      "&skip_confirmation=true",
			      name, name, name))));
		ck_status(u, 201);
		ids[i] = jint(u->json, "id");
		ck_status(add(s, s->owner_token, ids[i], 10 + 10 * i), 201);
	}
	const char *path = P(s, "/members");
	resp *r = R(api("GET", S(fmt("%s?per_page=2&page=2", path)), s->owner_token, NULL));
	ck_status(r, 200);
	ck_pages(r, path, "", 4, 2, 2);
	ck_assert_int_eq(json_object_array_length(r->json), 2);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), ids[1]);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 1), "id"), ids[2]);
	r = R(api("GET", S(fmt("%s?per_page=3", path)), s->owner_token, NULL));
	ck_pages(r, path, "", 4, 3, 1);
	r = R(api("GET", S(fmt("%s?page=5", path)), s->owner_token, NULL));
	ck_status(r, 200);
	ck_pages(r, path, "", 4, 20, 5);
	ck_assert_int_eq(json_object_array_length(r->json), 0);

	/* query: username or name contains it, case-insensitively */
	char *q = S(fmt("query=%s", prefix));
	r = R(api("GET", S(fmt("%s?%s&per_page=2", path, q)), s->owner_token, NULL));
	ck_pages(r, path, q, 3, 2, 1);
	char *upper = S(strdup(prefix));
	for (char *c = upper; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	r = R(api("GET", S(fmt("%s?query=%s_B", path, upper)), s->owner_token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), ids[1]);
	r = R(api("GET", S(fmt("%s?query=Name+%s_c", path, prefix)), s->owner_token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ck_assert_int_eq(jint(json_object_array_get_idx(r->json, 0), "id"), ids[2]);
	/* the exact email finds the user too */
	r = R(api("GET", S(fmt("%s?query=%s_a%%40example.com", path, prefix)), s->owner_token,
		  NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	/* pattern characters are literal */
	r = R(api("GET", S(fmt("%s?query=%%25", path)), s->owner_token, NULL));
	ck_status(r, 200);
	ck_pages(r, path, "query=%25", 0, 20, 1);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	r = R(api("GET", S(fmt("%s?query=%s%%5F", path, prefix)), s->owner_token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 3);
	r = R(api("GET", S(fmt("%s?query=srch_", path)), s->owner_token, NULL));
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	ck_body(R(api("GET", S(fmt("%s?per_page=x", path)), s->owner_token, NULL)), 400,
		"{\"error\":\"per_page is invalid\"}");
}
END_TEST

/* Anyone may leave; the last owner of a group may not, nor be demoted, not even by an
 * admin; the owner of a personal project's namespace stays. */
START_TEST(test_members_leave)
{
	fx_source *s = source(_i, 0);
	long long uid, second;
	const char *ut = user(&uid, NULL);
	const char *second_t = user(&second, NULL);
	ck_status(add(s, s->owner_token, uid, 10), 201);
	ck_status(R(api("DELETE", member_path(s, uid), ut, NULL)), 204);
	ck_body(R(api("GET", P(s, "/members"), ut, NULL)), 404, not_found(s));

	const char *owner = member_path(s, s->owner);
	ck_body(R(api("DELETE", owner, s->owner_token, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("DELETE", owner, admin_token(), NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("PUT", owner, admin_token(), "access_level=30")), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_assert_int_eq(jint(R(api("GET", owner, admin_token(), NULL))->json, "access_level"),
			 admin_level(s));
	if (s->project)
		return;
	/* with a second owner, the first may leave; then the second is the last */
	ck_status(add(s, s->owner_token, second, 50), 201);
	ck_status(R(api("DELETE", owner, s->owner_token, NULL)), 204);
	ck_body(R(api("DELETE", member_path(s, second), second_t, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_assert_int_eq(member_count_as(s, second_t), 1);
}
END_TEST

/* A new member sees a private project or group at once, and no longer once removed; the
 * project records joined and left events, the group none. */
START_TEST(test_members_access_and_events)
{
	fx_source *s = source(_i, 0);
	long long uid;
	const char *ut = user(&uid, NULL);
	ck_body(R(api("GET", P(s, "/members"), ut, NULL)), 404, not_found(s));
	ck_body(R(api("GET", P(s, ""), ut, NULL)), 404, not_found(s));
	ck_status(add(s, s->owner_token, uid, 10), 201);
	ck_status(R(api("GET", P(s, "/members"), ut, NULL)), 200);
	ck_status(R(api("GET", P(s, ""), ut, NULL)), 200);
	ck_assert_int_eq(events_of(uid, "joined", s->id), (s->project ? 1 : 0));
	ck_assert_int_eq(events_of(uid, "left", s->id), 0);
	ck_status(R(api("DELETE", member_path(s, uid), s->owner_token, NULL)), 204);
	ck_body(R(api("GET", P(s, "/members"), ut, NULL)), 404, not_found(s));
	ck_body(R(api("GET", P(s, ""), ut, NULL)), 404, not_found(s));
	ck_assert_int_eq(events_of(uid, "joined", s->id), (s->project ? 1 : 0));
	ck_assert_int_eq(events_of(uid, "left", s->id), (s->project ? 1 : 0));
	/* failed changes record nothing */
	ck_status(add(s, s->owner_token, uid, 35), 400);
	ck_status(add(s, s->owner_token, uid, 20), 201);
	ck_status(add(s, s->owner_token, uid, 20), 409);
	ck_assert_int_eq(events_of(uid, "joined", s->id), (s->project ? 2 : 0));
	/* nor do the events of the owner who did it */
	ck_assert_int_eq(events_of(s->owner, "joined", s->id), 0);
}
END_TEST

/* Group membership gives access to the group's projects and to its subgroups' projects,
 * at the member's level. */
START_TEST(test_members_group_gives_project_access)
{
	long long gid = api_group(admin_token(), "private", NULL);
	long long sub = fixture_subgroup(gid, 0, NULL);
	long long proj = fixture_group_project(gid, 0, NULL);
	long long subproj = fixture_group_project(sub, 0, NULL);
	long long uid, other;
	const char *ut = user(&uid, NULL);
	user(&other, NULL);
	const char *admin = admin_token();
	const char *proj_members = S(fmt("/projects/%lld/members", proj));
	const char *subproj_members = S(fmt("/projects/%lld/members", subproj));
	const char *pnf = "{\"message\":\"404 Project Not Found\"}";
	const char *proj_path = S(fmt("/projects/%lld", proj));
	const char *subproj_path = S(fmt("/projects/%lld", subproj));
	ck_body(R(api("GET", proj_members, ut, NULL)), 404, pnf);
	ck_body(R(api("GET", subproj_members, ut, NULL)), 404, pnf);
	ck_body(R(api("GET", proj_path, ut, NULL)), 404, pnf);
	ck_body(R(api("GET", subproj_path, ut, NULL)), 404, pnf);
	ck_body(R(api("GET", S(fmt("/groups/%lld/members", sub)), ut, NULL)), 404,
		"{\"message\":\"404 Group Not Found\"}");

	resp *r = R(api("POST", S(fmt("/groups/%lld/members", gid)), admin,
			S(fmt("user_id=%lld&access_level=30", uid))));
	ck_status(r, 201);
	ck_status(R(api("GET", proj_members, ut, NULL)), 200);
	ck_status(R(api("GET", subproj_members, ut, NULL)), 200);
	ck_status(R(api("GET", proj_path, ut, NULL)), 200);
	ck_status(R(api("GET", subproj_path, ut, NULL)), 200);
	ck_status(R(api("GET", S(fmt("/groups/%lld/members", sub)), ut, NULL)), 200);
	/* a developer of the group administers no project members; a master does */
	const char *form = S(fmt("user_id=%lld&access_level=20", other));
	ck_body(R(api("POST", subproj_members, ut, form)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_status(R(api("PUT", S(fmt("/groups/%lld/members/%lld", gid, uid)), admin,
			"access_level=40")),
		  200);
	ck_status(R(api("POST", subproj_members, ut, form)), 201);
	/* but no group members: that takes an owner */
	ck_body(R(api("POST", S(fmt("/groups/%lld/members", sub)), ut, form)), 403,
		"{\"message\":\"403 Forbidden\"}");
	/* the group membership is not a project membership */
	ck_body(R(api("GET", S(fmt("%s/%lld", proj_members, uid)), ut, NULL)), 404,
		"{\"message\":\"404 Member Not Found\"}");

	ck_status(R(api("DELETE", S(fmt("/groups/%lld/members/%lld", gid, uid)), admin, NULL)),
		  204);
	ck_body(R(api("GET", proj_members, ut, NULL)), 404, pnf);
	ck_body(R(api("GET", subproj_members, ut, NULL)), 404, pnf);
	ck_body(R(api("GET", proj_path, ut, NULL)), 404, pnf);
	ck_body(R(api("GET", subproj_path, ut, NULL)), 404, pnf);
}
END_TEST

/* Adding a user who asked for access turns the request into the membership. */
START_TEST(test_members_add_requester)
{
	fx_source *s = source(_i, 20);
	update(s->project, s->id, "request_access_enabled=true");
	long long uid;
	char *uname;
	const char *ut = user(&uid, &uname);
	ck_status(R(api("POST", P(s, "/access_requests"), ut, NULL)), 201);
	/* a request is no membership */
	ck_body(R(api("GET", member_path(s, uid), s->owner_token, NULL)), 404,
		"{\"message\":\"404 Member Not Found\"}");
	ck_body(R(api("PUT", member_path(s, uid), s->owner_token, "access_level=20")), 404,
		"{\"message\":\"404 Member Not Found\"}");
	ck_body(R(api("DELETE", member_path(s, uid), s->owner_token, NULL)), 404,
		"{\"message\":\"404 Member Not Found\"}");
	ck_assert_int_eq(member_count(s), 1);
	resp *r = add(s, s->owner_token, uid, 20);
	ck_status(r, 201);
	ck_member(r->json, uid, uname, 20, NULL);
	ck_assert_int_eq(member_count(s), 2);
	r = R(api("GET", P(s, "/access_requests"), s->owner_token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 0);
	ck_assert_int_eq(events_of(uid, "joined", s->id), (s->project ? 1 : 0));
}
END_TEST

Suite *suite_members(void)
{
	Suite *s = suite_create("members");
	TCase *tc = tcase_create("members");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release_all);
	tcase_add_loop_test(tc, test_members_require_auth, 0, 2);
	tcase_add_loop_test(tc, test_members_lifecycle, 0, 2);
	tcase_add_loop_test(tc, test_members_add_errors, 0, 2);
	tcase_add_loop_test(tc, test_members_permissions, 0, 2);
	tcase_add_loop_test(tc, test_members_unknown_source, 0, 2);
	tcase_add_loop_test(tc, test_members_by_path, 0, 2);
	tcase_add_loop_test(tc, test_members_list_pages_and_search, 0, 2);
	tcase_add_loop_test(tc, test_members_leave, 0, 2);
	tcase_add_loop_test(tc, test_members_access_and_events, 0, 2);
	tcase_add_test(tc, test_members_group_gives_project_access);
	tcase_add_loop_test(tc, test_members_add_requester, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
