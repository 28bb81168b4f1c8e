/* API suite: groups (spec 4.2) and namespaces: GET/POST /groups, GET/PUT/DELETE
 * /groups/:id, GET /groups/:id/projects, POST /groups/:id/projects/:project_id,
 * GET /namespaces, GET /namespaces/:id, and the groups a user's hard deletion removes.
 * Every group a test makes has a unique path; list assertions only count groups that
 * match a test's own unique prefix (other suites share the database). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"

/* ---- the record shapes ---- */

#define F_GROUP                                                                                    \
	"id", "name", "path", "description", "visibility", "lfs_enabled", "avatar_url", "web_url", \
		"request_access_enabled", "full_name", "full_path", "parent_id"

static const char *const GROUP[] = {F_GROUP, NULL};
static const char *const GROUP_STATS[] = {F_GROUP, "statistics", NULL};
static const char *const DETAIL[] = {F_GROUP, "projects", "shared_projects", NULL};
static const char *const STATISTICS[] = {"storage_size", "repository_size", "lfs_objects_size",
					 "job_artifacts_size", NULL};
static const char *const NAMESPACE[] = {"id",        "name",      "path", "kind",
					"full_path", "parent_id", NULL};
static const char *const NAMESPACE_ADMIN[] = {
	"id", "name", "path", "kind", "full_path", "parent_id", "members_count_with_descendants",
	NULL};

/* ---- fixtures and checks ---- */

/* POST /groups as token with name and path p and extra form fields ("" or "a=1&b=2");
 * asserts 201 and returns the response. */
static resp *create_group_as(const char *token, const char *p, const char *extra)
{
	resp *r = R(api("POST", "/groups", token,
			S(fmt("name=%s&path=%s%s%s", p, p, *extra ? "&" : "", extra))));
	ck_status(r, 201);
	return r;
}

static long long create_group(const char *token, const char *p, const char *extra)
{
	return jint(create_group_as(token, p, extra)->json, "id");
}

static resp *get(const char *path, const char *token)
{
	return R(api("GET", path, token, NULL));
}

static const char *gpath(long long id, const char *suffix)
{
	return S(fmt("/groups/%lld%s", id, suffix));
}

static void ck_unauthorized(resp *r)
{
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
}

static void ck_forbidden(resp *r)
{
	ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
}

static void ck_group_not_found(resp *r)
{
	ck_body(r, 404, "{\"message\":\"404 Group Not Found\"}");
}

static void ck_str(json_object *o, const char *key, const char *want)
{
	const char *v = jstr(o, key);
	ck_assert_msg(v && strcmp(v, want) == 0, "%s: expected \"%s\", got %s in %s", key, want,
		      v ? v : "(none)", json_object_to_json_string(o));
}

/* The ids of the array body, in order, as "1,2,3". */
static char *ids_of(json_object *a)
{
	ck_assert_msg(a && json_object_is_type(a, json_type_array), "not an array: %s",
		      a ? json_object_to_json_string(a) : "(null)");
	size_t cap = 16 + 24 * json_object_array_length(a);
	char *s = S(calloc(1, cap));
	for (size_t i = 0; i < json_object_array_length(a); i++)
		snprintf(s + strlen(s), cap - strlen(s), "%s%lld", i ? "," : "",
			 jint(json_object_array_get_idx(a, i), "id"));
	return s;
}

static void ck_ids(resp *r, const char *want)
{
	ck_status(r, 200);
	char *got = ids_of(r->json);
	ck_assert_msg(strcmp(got, want) == 0, "ids: expected [%s], got [%s]", want, got);
}

static bool has_id(json_object *a, long long id)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (jint(json_object_array_get_idx(a, i), "id") == id)
			return true;
	return false;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static char *storage(const char *rel)
{
	const char *dir = getenv("COLLABD_DIR");
	ck_assert_msg(dir != NULL, "COLLABD_DIR must be set");
	return S(fmt("%s/storage/%s", dir, rel));
}

static void mkdirs(const char *path)
{
	free(sql_value("SELECT 1")); /* the database is up: storage exists */
	char *cmd = fmt("mkdir -p '%s'", path);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	free(cmd);
}

/* A project in group group_id, written in SQL (no repository): its id. */
static long long group_project(long long group_id, int visibility)
{
	char *path = S(unique("gproj"));
	return sql_int("INSERT INTO projects (namespace_id, name, path, visibility)"
		       " VALUES (%lld, '%s', '%s', %d) RETURNING id",
		       group_id, path, path, visibility);
}

/* ---- POST /groups ---- */

START_TEST(test_groups_create)
{
	long long uid;
	char *token = S(make_user("grc", &uid, NULL));
	char *p = S(unique("grc"));
	resp *r = create_group_as(token, p,
				  "description=Our+group&visibility=internal"
				  "&request_access_enabled=true&lfs_enabled=false");
	ck_fields(r->json, DETAIL);
	ck_str(r->json, "name", p);
	ck_str(r->json, "path", p);
	ck_str(r->json, "description", "Our group");
	ck_str(r->json, "visibility", "internal");
	ck_assert(!jbool(r->json, "lfs_enabled"));
	ck_assert(jbool(r->json, "request_access_enabled"));
	ck_assert(jnull(r->json, "avatar_url"));
	ck_assert(jnull(r->json, "parent_id"));
	ck_str(r->json, "full_name", p);
	ck_str(r->json, "full_path", p);
	ck_str(r->json, "web_url", S(fmt("%s/groups/%s", api_url(), p)));
	ck_assert_int_eq(json_object_array_length(jget(r->json, "projects")), 0);
	ck_assert_int_eq(json_object_array_length(jget(r->json, "shared_projects")), 0);
	long long id = jint(r->json, "id");
	/* the creator is its owner */
	ck_assert_int_eq(sql_int("SELECT access_level FROM members WHERE source_type = 'Namespace'"
				 " AND source_id = %lld AND user_id = %lld",
				 id, uid),
			 50);

	/* defaults: private, LFS on, no access requests */
	char *q = S(unique("grcd"));
	r = create_group_as(token, q, "");
	ck_str(r->json, "visibility", "private");
	ck_assert(jbool(r->json, "lfs_enabled"));
	ck_assert(!jbool(r->json, "request_access_enabled"));
	ck_str(r->json, "description", "");

	/* and it reads back the same */
	resp *g = get(gpath(id, ""), token);
	ck_status(g, 200);
	ck_fields(g->json, DETAIL);
	ck_str(g->json, "full_path", p);
}
END_TEST

START_TEST(test_groups_create_errors)
{
	long long uid;
	char *token = S(make_user("grce", &uid, NULL));
	char *p = S(unique("grce"));
	ck_unauthorized(R(api("POST", "/groups", NULL, S(fmt("name=%s&path=%s", p, p)))));
	ck_body(R(api("POST", "/groups", token, S(fmt("path=%s", p)))), 400,
		"{\"message\":\"400 (Bad request) \\\"name\\\" not given\"}");
	ck_body(R(api("POST", "/groups", token, S(fmt("name=%s", p)))), 400,
		"{\"message\":\"400 (Bad request) \\\"path\\\" not given\"}");
	const char *base = S(fmt("name=%s&path=%s", p, p));
	ck_body(R(api("POST", "/groups", token, S(fmt("%s&visibility=secret", base)))), 400,
		"{\"error\":\"visibility does not have a valid value\"}");
	ck_body(R(api("POST", "/groups", token, S(fmt("%s&lfs_enabled=maybe", base)))), 400,
		"{\"error\":\"lfs_enabled is invalid\"}");
	ck_body(R(api("POST", "/groups", token, S(fmt("%s&parent_id=x", base)))), 400,
		"{\"error\":\"parent_id is invalid\"}");
	ck_body(R(api("POST", "/groups", token, S(fmt("name=%s&path=-bad.git", p)))), 400,
		"{\"message\":{\"path\":[\"can contain only letters, digits, '_', '-' and '.'. "
		"Cannot start with '-' or end in '.', '.git' or '.atom'.\"]}}");
	ck_body(R(api("POST", "/groups", token, S(fmt("name=a%%2Fb&path=%s", p)))), 400,
		"{\"message\":{\"name\":[\"can contain only letters, digits, '_', '.', dash and "
		"space.\"]}}");
	ck_body(R(api("POST", "/groups", token, "name=x&path=api")), 400,
		"{\"message\":{\"path\":[\"api is a reserved name\"]}}");
	char *long_desc = S(calloc(1, 300));
	memset(long_desc, 'd', 256);
	ck_body(R(api("POST", "/groups", token, S(fmt("%s&description=%s", base, long_desc)))), 400,
		"{\"message\":{\"description\":[\"is too long (maximum is 255 characters)\"]}}");
	/* nothing was made */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM namespaces WHERE path = '%s'", p), 0);

	/* a taken path, also in other case, and a user's namespace */
	create_group(token, p, "");
	char *upper = S(strdup(p));
	upper[0] = 'G';
	ck_body(R(api("POST", "/groups", token, S(fmt("name=other%s&path=%s", p, upper)))), 400,
		"{\"message\":{\"path\":[\"has already been taken\"]}}");
	char *uname;
	S(make_user("grceu", NULL, &uname));
	S(uname);
	ck_body(R(api("POST", "/groups", token, S(fmt("name=x%s&path=%s", p, uname)))), 400,
		"{\"message\":{\"path\":[\"has already been taken\"]}}");
	/* a taken name at the same level */
	char *q = S(unique("grce"));
	ck_body(R(api("POST", "/groups", token, S(fmt("name=%s&path=%s", p, q)))), 400,
		"{\"message\":{\"name\":[\"has already been taken\"]}}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM namespaces WHERE path = '%s'", q), 0);

	/* users who may not create groups */
	long long nid;
	char *no = S(make_user("grcn", &nid, NULL));
	ck_status(
		R(api("PUT", S(fmt("/users/%lld", nid)), admin_token(), "can_create_group=false")),
		200);
	ck_forbidden(R(api("POST", "/groups", no, S(fmt("name=%s&path=%s", q, q)))));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM namespaces WHERE path = '%s'", q), 0);
}
END_TEST

/* ---- nested groups ---- */

START_TEST(test_groups_nested)
{
	long long uid, mid, oid;
	char *token = S(make_user("grn", &uid, NULL));
	char *member = S(make_user("grnm", &mid, NULL));
	char *outsider = S(make_user("grno", &oid, NULL));
	char *p = S(unique("grn"));
	long long parent = create_group(token, p, "visibility=internal");
	char *c = S(unique("grnc"));
	resp *r = create_group_as(token, c, S(fmt("parent_id=%lld&name=Child+%s", parent, c)));
	long long child = jint(r->json, "id");
	ck_fields(r->json, DETAIL);
	ck_assert_int_eq(jint(r->json, "parent_id"), parent);
	ck_str(r->json, "full_path", S(fmt("%s/%s", p, c)));
	ck_str(r->json, "full_name", S(fmt("%s / Child %s", p, c)));
	ck_str(r->json, "web_url", S(fmt("%s/groups/%s/%s", api_url(), p, c)));
	/* a grandchild */
	char *gc = S(unique("grng"));
	r = create_group_as(token, gc, S(fmt("parent_id=%lld", child)));
	long long grandchild = jint(r->json, "id");
	ck_str(r->json, "full_path", S(fmt("%s/%s/%s", p, c, gc)));

	/* found by its URL-encoded full path */
	r = get(S(fmt("/groups/%s%%2F%s", p, c)), token);
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), child);
	r = get(S(fmt("/groups/%s%%2F%s%%2F%s", p, c, gc)), token);
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), grandchild);
	ck_group_not_found(get(S(fmt("/groups/%s%%2Fnope", p)), token));

	/* not above the parent's visibility */
	char *x = S(unique("grnx"));
	ck_body(R(api("POST", "/groups", token,
		      S(fmt("name=%s&path=%s&parent_id=%lld&visibility=public", x, x, parent)))),
		400,
		"{\"message\":{\"visibility_level\":[\"public is not allowed since the parent "
		"group has a internal visibility.\"]}}");
	/* the same path may be used under another parent, not twice under one */
	ck_body(R(api("POST", "/groups", token,
		      S(fmt("name=y%s&path=%s&parent_id=%lld", c, c, parent)))),
		400, "{\"message\":{\"path\":[\"has already been taken\"]}}");
	create_group(token, S(fmt("%s", c)) /* path c at the top */, "");

	/* a member of the parent sees the private subgroups */
	free(sql_value("UPDATE namespaces SET visibility = 0 WHERE id IN (%lld, %lld, %lld)",
		       parent, child, grandchild));
	free(sql_value("INSERT INTO members (source_type, source_id, user_id, access_level)"
		       " VALUES ('Namespace', %lld, %lld, 10)",
		       parent, mid));
	ck_status(get(gpath(grandchild, ""), member), 200);
	ck_group_not_found(get(gpath(grandchild, ""), outsider));
	ck_group_not_found(get(S(fmt("/groups/%s%%2F%s", p, c)), outsider));
	/* a member of the grandchild sees its ancestors too */
	long long gid;
	char *gmember = S(make_user("grngm", &gid, NULL));
	free(sql_value("INSERT INTO members (source_type, source_id, user_id, access_level)"
		       " VALUES ('Namespace', %lld, %lld, 30)",
		       grandchild, gid));
	ck_status(get(gpath(parent, ""), gmember), 200);

	/* subgroups: the parent's owners make them, others may not */
	char *z = S(unique("grnz"));
	ck_forbidden(R(api("POST", "/groups", member,
			   S(fmt("name=%s&path=%s&parent_id=%lld", z, z, parent)))));
	ck_group_not_found(R(api("POST", "/groups", outsider,
				 S(fmt("name=%s&path=%s&parent_id=%lld", z, z, parent)))));
	ck_group_not_found(R(api("POST", "/groups", token,
				 S(fmt("name=%s&path=%s&parent_id=999999999", z, z)))));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM namespaces WHERE path = '%s'", z), 0);
	/* an admin may */
	create_group(admin_token(), z, S(fmt("parent_id=%lld", parent)));
}
END_TEST

/* ---- visibility ---- */

START_TEST(test_groups_visibility)
{
	long long uid, oid, eid;
	char *token = S(make_user("grv", &uid, NULL));
	char *other = S(make_user("grvo", &oid, NULL));
	char *ext = S(make_user("grve", &eid, NULL));
	ck_status(R(api("PUT", S(fmt("/users/%lld", eid)), admin_token(), "external=true")), 200);
	char *prefix = S(unique("grv"));
	const char *pub = S(fmt("%sa", prefix)), *in = S(fmt("%sb", prefix)),
		   *priv = S(fmt("%sc", prefix));
	long long pub_id = create_group(token, pub, "visibility=public");
	long long in_id = create_group(token, in, "visibility=internal");
	long long priv_id = create_group(token, priv, "visibility=private");

	/* anonymous: the public group only */
	ck_ids(get(S(fmt("/groups?search=%s", prefix)), NULL), S(fmt("%lld", pub_id)));
	ck_status(get(gpath(pub_id, ""), NULL), 200);
	ck_group_not_found(get(gpath(in_id, ""), NULL));
	ck_group_not_found(get(gpath(priv_id, ""), NULL));
	ck_group_not_found(get(S(fmt("/groups/%s", priv)), NULL));
	/* signed in: public and internal */
	ck_ids(get(S(fmt("/groups?search=%s&all_available=true", prefix)), other),
	       S(fmt("%lld,%lld", pub_id, in_id)));
	ck_status(get(gpath(in_id, ""), other), 200);
	ck_group_not_found(get(gpath(priv_id, ""), other));
	/* external users: public only */
	ck_ids(get(S(fmt("/groups?search=%s&all_available=true", prefix)), ext),
	       S(fmt("%lld", pub_id)));
	ck_group_not_found(get(gpath(in_id, ""), ext));
	/* a member of a project inside a private group sees the group */
	long long proj = group_project(priv_id, 0);
	sql_member("Project", proj, oid, 30);
	ck_status(get(gpath(priv_id, ""), other), 200);
	/* admins see everything */
	ck_status(get(gpath(priv_id, ""), admin_token()), 200);
	/* a bad token is no anonymous access */
	ck_unauthorized(get(gpath(pub_id, ""), "not-a-token"));
	ck_group_not_found(get("/groups/999999999", token));
}
END_TEST

/* ---- GET /groups ---- */

START_TEST(test_groups_list)
{
	long long uid, oid;
	char *token = S(make_user("grl", &uid, NULL));
	char *other = S(make_user("grlo", &oid, NULL));
	char *prefix = S(unique("grl"));
	/* names sort differently from paths */
	long long a = create_group(other, S(fmt("%sa", prefix)),
				   S(fmt("name=%s+Zeta&visibility=public", prefix)));
	long long b = create_group(other, S(fmt("%sb", prefix)),
				   S(fmt("name=%s+Alpha&visibility=internal", prefix)));
	long long c = create_group(other, S(fmt("%sc", prefix)),
				   S(fmt("name=%s+Mid&visibility=private", prefix)));
	long long mine = create_group(token, S(fmt("%sd", prefix)),
				      S(fmt("name=%s+Omega&visibility=private", prefix)));

	/* by default a user's own groups only (GitLab 10: all_available=false) */
	resp *r = get(S(fmt("/groups?search=%s", prefix)), token);
	ck_ids(r, S(fmt("%lld", mine)));
	ck_fields(json_object_array_get_idx(r->json, 0), GROUP);
	/* membership (developer) lists it, owned does not */
	sql_member("Namespace", c, uid, 30);
	ck_ids(get(S(fmt("/groups?search=%s", prefix)), token), S(fmt("%lld,%lld", c, mine)));
	ck_ids(get(S(fmt("/groups?search=%s&owned=true", prefix)), token), S(fmt("%lld", mine)));
	/* all_available: everything visible, by name */
	ck_ids(get(S(fmt("/groups?search=%s&all_available=true", prefix)), token),
	       S(fmt("%lld,%lld,%lld,%lld", b, c, mine, a)));
	/* admins see all groups */
	ck_ids(get(S(fmt("/groups?search=%s", prefix)), admin_token()),
	       S(fmt("%lld,%lld,%lld,%lld", b, c, mine, a)));
	/* order and sort */
	ck_ids(get(S(fmt("/groups?search=%s&order_by=path", prefix)), admin_token()),
	       S(fmt("%lld,%lld,%lld,%lld", a, b, c, mine)));
	ck_ids(get(S(fmt("/groups?search=%s&order_by=path&sort=desc", prefix)), admin_token()),
	       S(fmt("%lld,%lld,%lld,%lld", mine, c, b, a)));
	ck_ids(get(S(fmt("/groups?search=%s&sort=desc", prefix)), admin_token()),
	       S(fmt("%lld,%lld,%lld,%lld", a, mine, c, b)));
	/* search matches the name or the path */
	ck_ids(get(S(fmt("/groups?search=%s+Alpha", prefix)), admin_token()), S(fmt("%lld", b)));
	ck_ids(get(S(fmt("/groups?search=%sc", prefix)), admin_token()), S(fmt("%lld", c)));
	/* skip_groups */
	ck_ids(get(S(fmt("/groups?search=%s&skip_groups%%5B%%5D=%lld&skip_groups%%5B%%5D=%lld",
			 prefix, b, a)),
		   admin_token()),
	       S(fmt("%lld,%lld", c, mine)));

	/* statistics: admins only */
	free(sql_value("UPDATE projects SET storage_size = 7 WHERE id = %lld",
		       group_project(a, 20)));
	r = get(S(fmt("/groups?search=%sa&statistics=true", prefix)), admin_token());
	ck_ids(r, S(fmt("%lld", a)));
	json_object *g = json_object_array_get_idx(r->json, 0);
	ck_fields(g, GROUP_STATS);
	ck_fields(jget(g, "statistics"), STATISTICS);
	ck_assert_int_eq(jint(jget(g, "statistics"), "storage_size"), 7);
	ck_assert_int_eq(jint(jget(g, "statistics"), "job_artifacts_size"), 0);
	r = get(S(fmt("/groups?search=%sa&statistics=true&all_available=true", prefix)), token);
	ck_ids(r, S(fmt("%lld", a)));
	ck_fields(json_object_array_get_idx(r->json, 0), GROUP);

	/* pagination */
	const char *q = S(fmt("search=%s&all_available=true", prefix));
	r = get(S(fmt("/groups?%s&per_page=3&page=1", q)), token);
	ck_ids(r, S(fmt("%lld,%lld,%lld", b, c, mine)));
	ck_pages(r, "/groups", q, 4, 3, 1);
	r = get(S(fmt("/groups?%s&per_page=3&page=2", q)), token);
	ck_ids(r, S(fmt("%lld", a)));
	ck_pages(r, "/groups", q, 4, 3, 2);
	r = get(S(fmt("/groups?%s&page=9", q)), token);
	ck_ids(r, "");
	ck_pages(r, "/groups", q, 4, 20, 9);

	/* bad parameters */
	ck_body(get("/groups?order_by=id", token), 400,
		"{\"error\":\"order_by does not have a valid value\"}");
	ck_body(get("/groups?sort=up", token), 400,
		"{\"error\":\"sort does not have a valid value\"}");
	ck_body(get("/groups?skip_groups%5B%5D=x", token), 400,
		"{\"error\":\"skip_groups is invalid\"}");
	ck_body(get("/groups?all_available=maybe", token), 400,
		"{\"error\":\"all_available is invalid\"}");
	ck_unauthorized(get("/groups", "not-a-token"));
}
END_TEST

/* ---- GET /groups/:id/subgroups: the children, as the list shows groups ---- */

START_TEST(test_groups_subgroups)
{
	long long uid, oid, mid;
	char *token = S(make_user("gsu", &uid, NULL));
	char *other = S(make_user("gso", &oid, NULL));
	char *member = S(make_user("gsm", &mid, NULL));
	char *p = S(unique("gsub"));
	long long top = create_group(other, p, "visibility=public");
	long long a = create_group(other, S(fmt("%sa", p)),
				   S(fmt("parent_id=%lld&name=%s+Zeta&visibility=public", top, p)));
	long long b =
		create_group(other, S(fmt("%sb", p)),
			     S(fmt("parent_id=%lld&name=%s+Alpha&visibility=private", top, p)));
	long long c = create_group(other, S(fmt("%sc", p)),
				   S(fmt("parent_id=%lld&name=%s+Mid&visibility=public", top, p)));
	/* a grandchild is not a child */
	create_group(other, S(fmt("%sd", p)), S(fmt("parent_id=%lld&visibility=public", a)));
	const char *sub = gpath(top, "/subgroups");
	/* the owner sees every child, by name */
	resp *r = get(sub, other);
	ck_ids(r, S(fmt("%lld,%lld,%lld", b, c, a)));
	ck_fields(json_object_array_get_idx(r->json, 0), GROUP);
	ck_ids(get(S(fmt("%s?order_by=path&sort=desc", sub)), other),
	       S(fmt("%lld,%lld,%lld", c, b, a)));
	ck_ids(get(S(fmt("%s?search=Alpha", sub)), other), S(fmt("%lld", b)));
	ck_ids(get(S(fmt("%s?skip_groups%%5B%%5D=%lld", sub, b)), other),
	       S(fmt("%lld,%lld", c, a)));
	ck_ids(get(sub, admin_token()), S(fmt("%lld,%lld,%lld", b, c, a)));
	/* someone else: their own groups (none), or all_available: the public ones */
	ck_ids(get(sub, token), "");
	ck_ids(get(S(fmt("%s?all_available=true", sub)), token), S(fmt("%lld,%lld", c, a)));
	ck_ids(get(sub, NULL), S(fmt("%lld,%lld", c, a)));
	/* a member of the private child sees it among their groups */
	sql_member("Namespace", b, mid, 30);
	ck_ids(get(sub, member), S(fmt("%lld", b)));
	ck_ids(get(S(fmt("%s?owned=true", sub)), member), "");
	/* pages */
	r = get(S(fmt("%s?per_page=2&page=2", sub)), other);
	ck_ids(r, S(fmt("%lld", a)));
	ck_pages(r, S(fmt("/groups/%lld/subgroups", top)), "", 3, 2, 2);
	/* a private group's children are not found by who does not see it */
	long long hidden = create_group(other, S(fmt("%sh", p)), "visibility=private");
	ck_code(get(gpath(hidden, "/subgroups"), token), 404);
	ck_code(get(gpath(hidden, "/subgroups"), NULL), 404);
	ck_code(get("/groups/999999999/subgroups", other), 404);
	ck_body(get(S(fmt("%s?order_by=id", sub)), other), 400,
		"{\"error\":\"order_by does not have a valid value\"}");
	ck_unauthorized(get(sub, "not-a-token"));
}
END_TEST

/* ---- GET /groups/:id: projects and shared projects ---- */

START_TEST(test_groups_show_projects)
{
	long long uid, oid;
	char *token = S(make_user("grs", &uid, NULL));
	char *other = S(make_user("grso", &oid, NULL));
	char *p = S(unique("grs"));
	long long g = create_group(token, p, "visibility=public");
	long long pub = group_project(g, 20);
	long long priv = group_project(g, 0);
	/* a project of a subgroup is not the group's */
	char *c = S(unique("grsc"));
	long long child = create_group(token, c, S(fmt("parent_id=%lld&visibility=public", g)));
	long long sub = group_project(child, 20);
	/* a project of another user, shared with the group */
	long long shared = fixture_project(other, "private", NULL);
	free(sql_value("INSERT INTO project_group_links (project_id, group_id, group_access)"
		       " VALUES (%lld, %lld, 30)",
		       shared, g));

	/* the owner sees both projects, not the subgroup's; the shared one apart */
	resp *r = get(gpath(g, ""), token);
	ck_status(r, 200);
	ck_fields(r->json, DETAIL);
	ck_assert_str_eq(ids_of(jget(r->json, "projects")), S(fmt("%lld,%lld", pub, priv)));
	ck_assert(!has_id(jget(r->json, "projects"), sub));
	ck_assert_str_eq(ids_of(jget(r->json, "shared_projects")), S(fmt("%lld", shared)));
	json_object *first = json_object_array_get_idx(jget(r->json, "projects"), 0);
	ck_str(first, "visibility", "public");
	ck_assert(jhas(first, "path_with_namespace"));
	/* others see what they may see of them */
	r = get(gpath(g, ""), NULL);
	ck_status(r, 200);
	ck_assert_str_eq(ids_of(jget(r->json, "projects")), S(fmt("%lld", pub)));
	ck_assert_str_eq(ids_of(jget(r->json, "shared_projects")), "");
	r = get(gpath(g, ""), other);
	ck_assert_str_eq(ids_of(jget(r->json, "projects")), S(fmt("%lld", pub)));
	ck_assert_str_eq(ids_of(jget(r->json, "shared_projects")), S(fmt("%lld", shared)));
	/* by path, case aside */
	char *upper = S(strdup(p));
	upper[0] = 'G';
	r = get(S(fmt("/groups/%s", upper)), NULL);
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), g);
}
END_TEST

/* ---- GET /groups/:id/projects ---- */

START_TEST(test_groups_projects)
{
	long long uid, oid;
	char *token = S(make_user("grp", &uid, NULL));
	char *other = S(make_user("grpo", &oid, NULL));
	char *p = S(unique("grp"));
	long long g = create_group(token, p, "visibility=public");
	long long a = group_project(g, 20);
	long long b = group_project(g, 10);
	long long c = group_project(g, 0);
	long long arch = group_project(g, 20);
	free(sql_value("UPDATE projects SET archived = true WHERE id = %lld", arch));
	free(sql_value("UPDATE projects SET name = 'zz-a', description = 'needle here',"
		       " created_at = now() - interval '1 day' WHERE id = %lld",
		       a));
	free(sql_value("UPDATE projects SET name = 'mm-b' WHERE id = %lld", b));
	free(sql_value("UPDATE projects SET name = 'nn-c' WHERE id = %lld", c));
	char *c_path = S(sql_value("SELECT path FROM projects WHERE id = %lld", c));
	/* a subgroup's project is not the group's; a project shared with it is */
	char *sub = S(unique("grps"));
	long long child = create_group(token, sub, S(fmt("parent_id=%lld&visibility=public", g)));
	group_project(child, 20);
	long long shared = fixture_project(other, "private", NULL);
	free(sql_value("INSERT INTO project_group_links (project_id, group_id) VALUES (%lld, %lld)",
		       shared, g));
	free(sql_value("UPDATE projects SET created_at = now() - interval '2 days' WHERE id = %lld",
		       shared));

	const char *path = gpath(g, "/projects");
	/* newest first */
	resp *r = get(path, token);
	ck_ids(r, S(fmt("%lld,%lld,%lld,%lld,%lld", arch, c, b, a, shared)));
	ck_pages(r, path, "", 5, 20, 1);
	json_object *first = json_object_array_get_idx(r->json, 1);
	ck_str(first, "path_with_namespace", S(fmt("%s/%s", p, c_path)));
	ck_str(first, "name_with_namespace", S(fmt("%s / nn-c", p)));
	ck_str(first, "visibility", "private");
	/* filters */
	ck_ids(get(S(fmt("%s?archived=true", path)), token), S(fmt("%lld", arch)));
	ck_ids(get(S(fmt("%s?archived=false&order_by=id&sort=asc", path)), token),
	       S(fmt("%lld,%lld,%lld,%lld", a, b, c, shared)));
	ck_ids(get(S(fmt("%s?visibility=internal", path)), token), S(fmt("%lld", b)));
	ck_ids(get(S(fmt("%s?search=needle", path)), token), S(fmt("%lld", a)));
	ck_ids(get(S(fmt("%s?search=%s", path, c_path)), token), S(fmt("%lld", c)));
	ck_ids(get(S(fmt("%s?order_by=name&sort=asc&archived=false&search=-", path)), token),
	       S(fmt("%lld,%lld,%lld", b, c, a)));
	/* owned: the group's owner owns its projects, not the shared one */
	sql_member("Namespace", g, oid, 30);
	ck_ids(get(S(fmt("%s?owned=true&order_by=id&sort=asc", path)), token),
	       S(fmt("%lld,%lld,%lld,%lld", a, b, c, arch)));
	ck_ids(get(S(fmt("%s?owned=true", path)), other), S(fmt("%lld", shared)));
	/* starred */
	free(sql_value("INSERT INTO users_star_projects (user_id, project_id) VALUES (%lld, %lld)",
		       uid, b));
	ck_ids(get(S(fmt("%s?starred=true", path)), token), S(fmt("%lld", b)));
	/* simple: id, URLs, names and paths */
	r = get(S(fmt("%s?simple=true&order_by=id&sort=asc", path)), token);
	ck_ids(r, S(fmt("%lld,%lld,%lld,%lld,%lld", a, b, c, arch, shared)));
	first = json_object_array_get_idx(r->json, 0);
	ck_assert(jhas(first, "path_with_namespace") && jhas(first, "http_url_to_repo"));
	ck_assert(!jhas(first, "visibility"));
	/* what others see: anonymous callers the public ones, signed-in users the internal
	 * ones too, not the private ones */
	ck_ids(get(S(fmt("%s?order_by=id&sort=asc", path)), NULL), S(fmt("%lld,%lld", a, arch)));
	long long eid;
	char *stranger = S(make_user("grpx", &eid, NULL));
	ck_ids(get(S(fmt("%s?order_by=id&sort=asc", path)), stranger),
	       S(fmt("%lld,%lld,%lld", a, b, arch)));
	/* pagination */
	const char *q = "order_by=id&sort=asc";
	r = get(S(fmt("%s?%s&per_page=2&page=2", path, q)), token);
	ck_ids(r, S(fmt("%lld,%lld", c, arch)));
	ck_pages(r, path, q, 5, 2, 2);
	/* by the group's path */
	ck_ids(get(S(fmt("/groups/%s/projects?order_by=id&sort=asc&archived=false", p)), token),
	       S(fmt("%lld,%lld,%lld,%lld", a, b, c, shared)));
	/* errors */
	ck_body(get(S(fmt("%s?order_by=stars", path)), token), 400,
		"{\"error\":\"order_by does not have a valid value\"}");
	ck_body(get(S(fmt("%s?visibility=secret", path)), token), 400,
		"{\"error\":\"visibility does not have a valid value\"}");
	ck_body(get(S(fmt("%s?archived=maybe", path)), token), 400,
		"{\"error\":\"archived is invalid\"}");
	long long priv = create_group(token, S(unique("grpp")), "");
	ck_group_not_found(get(gpath(priv, "/projects"), NULL));
	ck_group_not_found(get(gpath(priv, "/projects"), stranger));
	ck_group_not_found(get("/groups/999999999/projects", token));
	ck_unauthorized(get(path, "not-a-token"));
}
END_TEST

/* ---- PUT /groups/:id ---- */

START_TEST(test_groups_update)
{
	long long uid, did, oid;
	char *token = S(make_user("gru", &uid, NULL));
	char *dev = S(make_user("grud", &did, NULL));
	char *outsider = S(make_user("gruo", &oid, NULL));
	char *p = S(unique("gru"));
	long long g = create_group(token, p, "visibility=internal");
	char *c = S(unique("gruc"));
	long long child = create_group(token, c, S(fmt("parent_id=%lld", g)));
	char *gc = S(unique("grug"));
	long long grandchild = create_group(token, gc, S(fmt("parent_id=%lld", child)));
	long long proj = group_project(child, 0);
	sql_member("Namespace", g, did, 30);
	/* the project's repository, stored by its id */
	char *repo = S(repo_dir_of(proj));
	mkdirs(repo);

	/* attributes */
	resp *r = R(api("PUT", gpath(g, ""), token,
			"description=New+words&lfs_enabled=false&request_access_enabled=true"));
	ck_status(r, 200);
	ck_fields(r->json, DETAIL);
	ck_str(r->json, "description", "New words");
	ck_assert(!jbool(r->json, "lfs_enabled"));
	ck_assert(jbool(r->json, "request_access_enabled"));
	ck_str(r->json, "full_path", p);

	/* a new name and path: the subtree follows; the repository stays where it is */
	char *np = S(unique("grun"));
	r = R(api("PUT", gpath(g, ""), token, S(fmt("name=Renamed+%s&path=%s", np, np))));
	ck_status(r, 200);
	ck_str(r->json, "name", S(fmt("Renamed %s", np)));
	ck_str(r->json, "path", np);
	ck_str(r->json, "full_path", np);
	ck_str(r->json, "full_name", S(fmt("Renamed %s", np)));
	ck_str(r->json, "web_url", S(fmt("%s/groups/%s", api_url(), np)));
	r = get(gpath(grandchild, ""), token);
	ck_str(r->json, "full_path", S(fmt("%s/%s/%s", np, c, gc)));
	ck_str(r->json, "full_name", S(fmt("Renamed %s / %s / %s", np, c, gc)));
	ck_status(get(S(fmt("/groups/%s%%2F%s", np, c)), token), 200);
	ck_group_not_found(get(S(fmt("/groups/%s%%2F%s", p, c)), token));
	ck_assert(exists(repo));
	ck_assert(!exists(storage(p)) && !exists(storage(np)));
	/* a subgroup renamed alone */
	char *nc = S(unique("grunc"));
	r = R(api("PUT", gpath(child, ""), token, S(fmt("path=%s", nc))));
	ck_status(r, 200);
	ck_str(r->json, "full_path", S(fmt("%s/%s", np, nc)));
	ck_assert_str_eq(ids_of(jget(r->json, "projects")), S(fmt("%lld", proj)));
	ck_str(get(gpath(grandchild, ""), token)->json, "full_path",
	       S(fmt("%s/%s/%s", np, nc, gc)));
	ck_assert(exists(repo) && !exists(storage(np)));

	/* visibility: not above the parent, not below a subgroup or a project */
	ck_body(R(api("PUT", gpath(child, ""), token, "visibility=public")), 400,
		"{\"message\":{\"visibility_level\":[\"public is not allowed since the parent "
		"group has a internal visibility.\"]}}");
	free(sql_value("UPDATE namespaces SET visibility = 10 WHERE id = %lld", grandchild));
	free(sql_value("UPDATE namespaces SET visibility = 10 WHERE id = %lld", child));
	ck_body(R(api("PUT", gpath(g, ""), token, "visibility=private")), 400,
		"{\"message\":{\"visibility_level\":[\"private is not allowed since there are "
		"sub-groups with higher visibility.\"]}}");
	free(sql_value("UPDATE projects SET visibility = 10 WHERE id = %lld", proj));
	ck_body(R(api("PUT", gpath(child, ""), token, "visibility=private")), 400,
		"{\"message\":{\"visibility_level\":[\"private is not allowed since this group "
		"contains projects with higher visibility.\", \"private is not allowed since there "
		"are sub-groups with higher visibility.\"]}}");
	r = R(api("PUT", gpath(g, ""), token, "visibility=public"));
	ck_status(r, 200);
	ck_str(r->json, "visibility", "public");

	/* taken and invalid values change nothing */
	char *taken = S(unique("grut"));
	create_group(token, taken, "");
	ck_body(R(api("PUT", gpath(g, ""), token, S(fmt("path=%s&description=lost", taken)))), 400,
		"{\"message\":{\"path\":[\"has already been taken\"]}}");
	ck_body(R(api("PUT", gpath(g, ""), token, S(fmt("name=%s", taken)))), 400,
		"{\"message\":{\"name\":[\"has already been taken\"]}}");
	ck_body(R(api("PUT", gpath(g, ""), token, "path=bad%2Fpath")), 400,
		"{\"message\":{\"path\":[\"can contain only letters, digits, '_', '-' and '.'. "
		"Cannot start with '-' or end in '.', '.git' or '.atom'.\"]}}");
	ck_body(R(api("PUT", gpath(g, ""), token, "name=")), 400,
		"{\"message\":{\"name\":[\"can't be blank\"]}}");
	ck_body(R(api("PUT", gpath(g, ""), token, "request_access_enabled=perhaps")), 400,
		"{\"error\":\"request_access_enabled is invalid\"}");
	r = get(gpath(g, ""), token);
	ck_str(r->json, "full_path", np);
	ck_str(r->json, "description", "New words");
	ck_assert(exists(repo));

	/* who may */
	ck_forbidden(R(api("PUT", gpath(g, ""), dev, "description=dev")));
	free(sql_value("UPDATE namespaces SET visibility = 0 WHERE id IN (%lld, %lld, %lld)",
		       grandchild, child, g));
	free(sql_value("UPDATE projects SET visibility = 0 WHERE id = %lld", proj));
	ck_group_not_found(R(api("PUT", gpath(g, ""), outsider, "description=x")));
	ck_unauthorized(R(api("PUT", gpath(g, ""), NULL, "description=x")));
	ck_group_not_found(R(api("PUT", "/groups/999999999", token, "description=x")));
	/* an owner of the parent administers the subgroups */
	ck_status(R(api("PUT", gpath(grandchild, ""), token, "description=from+above")), 200);
	r = R(api("PUT", gpath(g, ""), admin_token(), "description=by+admin"));
	ck_status(r, 200);
	ck_str(r->json, "description", "by admin");
}
END_TEST

/* ---- DELETE /groups/:id ---- */

START_TEST(test_groups_delete)
{
	long long uid, did, oid;
	char *token = S(make_user("grd", &uid, NULL));
	char *dev = S(make_user("grdd", &did, NULL));
	char *outsider = S(make_user("grdo", &oid, NULL));
	char *p = S(unique("grd"));
	long long g = create_group(token, p, "");
	char *c = S(unique("grdc"));
	long long child = create_group(token, c, S(fmt("parent_id=%lld", g)));
	long long p1 = group_project(g, 0);
	long long p2 = group_project(child, 0);
	/* a project of the outsider shared with the group stays */
	long long kept = fixture_project(outsider, "private", NULL);
	free(sql_value("INSERT INTO project_group_links (project_id, group_id) VALUES (%lld, %lld)",
		       kept, g));
	sql_member("Namespace", g, did, 40);
	char *repo = S(repo_dir_of(p2));
	mkdirs(repo);

	ck_unauthorized(R(api("DELETE", gpath(g, ""), NULL, NULL)));
	ck_forbidden(R(api("DELETE", gpath(g, ""), dev, NULL)));
	ck_group_not_found(R(api("DELETE", gpath(g, ""), outsider, NULL)));
	ck_group_not_found(R(api("DELETE", "/groups/999999999", token, NULL)));
	ck_status(get(gpath(g, ""), token), 200);

	resp *r = R(api("DELETE", gpath(g, ""), token, NULL));
	ck_status(r, 204);
	ck_assert_str_eq(r->body, "");
	ck_group_not_found(get(gpath(g, ""), admin_token()));
	ck_group_not_found(get(gpath(child, ""), admin_token()));
	ck_group_not_found(R(api("DELETE", gpath(g, ""), token, NULL)));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE id IN (%lld, %lld)", p1, p2),
			 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM members WHERE source_type = 'Namespace'"
				 " AND source_id IN (%lld, %lld)",
				 g, child),
			 0);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE id = %lld", kept), 1);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM project_group_links WHERE project_id = %lld",
				 kept),
			 0);
	/* the projects' repositories go in the background */
	ck_assert_msg(wait_gone(repo), "the repository of a removed group's project stays");
	/* the path is free again */
	create_group(token, p, "");

	/* a subgroup alone, by an admin */
	long long g2 = create_group(token, S(unique("grd2")), "");
	long long c2 = create_group(token, S(unique("grd2c")), S(fmt("parent_id=%lld", g2)));
	ck_status(R(api("DELETE", gpath(c2, ""), admin_token(), NULL)), 204);
	ck_status(get(gpath(g2, ""), token), 200);
	ck_group_not_found(get(gpath(c2, ""), token));
}
END_TEST

/* ---- POST /groups/:id/projects/:project_id ---- */

START_TEST(test_groups_transfer)
{
	long long uid;
	char *uname;
	char *token = S(make_user("grt", &uid, &uname));
	S(uname);
	char *p = S(unique("grt"));
	long long g = create_group(token, p, "visibility=internal");
	char *full;
	long long proj = fixture_project(token, "public", &full);
	S(full);
	char *proj_path = strchr(full, '/') + 1;
	char *repo = S(repo_dir_of(proj));
	mkdirs(repo);

	/* admins only */
	ck_forbidden(R(api("POST", gpath(g, S(fmt("/projects/%lld", proj))), token, NULL)));
	ck_unauthorized(R(api("POST", gpath(g, S(fmt("/projects/%lld", proj))), NULL, NULL)));
	ck_group_not_found(R(
		api("POST", S(fmt("/groups/999999999/projects/%lld", proj)), admin_token(), NULL)));
	ck_body(R(api("POST", gpath(g, "/projects/999999999"), admin_token(), NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE id = %lld AND namespace_id ="
				 " (SELECT id FROM namespaces WHERE owner_id = %lld)",
				 proj, uid),
			 1);

	/* by its URL-encoded path */
	resp *r = R(api("POST", gpath(g, S(fmt("/projects/%s%%2F%s", uname, proj_path))),
			admin_token(), NULL));
	ck_status(r, 201);
	ck_fields(r->json, DETAIL);
	ck_assert_int_eq(jint(r->json, "id"), g);
	ck_assert_str_eq(ids_of(jget(r->json, "projects")), S(fmt("%lld", proj)));
	json_object *moved = json_object_array_get_idx(jget(r->json, "projects"), 0);
	ck_str(moved, "path_with_namespace", S(fmt("%s/%s", p, proj_path)));
	/* a public project in an internal group becomes internal */
	ck_str(moved, "visibility", "internal");
	/* the repository is stored by id: nothing moves */
	ck_assert(exists(repo) && !exists(storage(p)));

	/* already there */
	ck_body(R(api("POST", gpath(g, S(fmt("/projects/%lld", proj))), admin_token(), NULL)), 400,
		"{\"message\":{\"new_namespace\":[\"Transfer failed, please contact an "
		"admin.\"]}}");
	/* a project of the same path in the target */
	char *full2;
	long long proj2 = fixture_project(token, "private", &full2);
	S(full2);
	free(sql_value("UPDATE projects SET path = '%s', name = 'other' WHERE id = %lld", proj_path,
		       proj2));
	ck_body(R(api("POST", gpath(g, S(fmt("/projects/%lld", proj2))), admin_token(), NULL)), 400,
		"{\"message\":{\"new_namespace\":[\"Project with same name or path in target "
		"namespace already exists\"]}}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE id = %lld AND namespace_id ="
				 " (SELECT id FROM namespaces WHERE owner_id = %lld)",
				 proj2, uid),
			 1);
	/* into a subgroup, by the group's path */
	char *c = S(unique("grtc"));
	long long child = create_group(token, c, S(fmt("parent_id=%lld", g)));
	r = R(api("POST", S(fmt("/groups/%s%%2F%s/projects/%lld", p, c, proj)), admin_token(),
		  NULL));
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "id"), child);
	ck_assert(exists(repo));
	ck_assert_str_eq(ids_of(jget(get(gpath(g, ""), token)->json, "projects")), "");
}
END_TEST

/* ---- namespaces ---- */

START_TEST(test_namespaces_list)
{
	long long uid, oid;
	char *uname, *oname;
	char *token = S(make_user("nsl", &uid, &uname));
	char *other = S(make_user("nslo", &oid, &oname));
	S(uname);
	S(oname);
	char *prefix = S(unique("nsl"));
	long long owned = create_group(token, S(fmt("%sa", prefix)), "");
	long long dev = create_group(other, S(fmt("%sb", prefix)), "visibility=public");
	long long foreign = create_group(other, S(fmt("%sc", prefix)), "visibility=public");
	sql_member("Namespace", dev, uid, 30);
	char *sub = S(unique("nsls"));
	long long child = create_group(token, sub, S(fmt("parent_id=%lld", owned)));
	long long own_ns = sql_int("SELECT id FROM namespaces WHERE owner_id = %lld", uid);

	/* the caller's own namespace and the groups they are a direct member of */
	resp *r = get("/namespaces", token);
	ck_ids(r, S(fmt("%lld,%lld,%lld,%lld", own_ns, owned, dev, child)));
	ck_pages(r, "/namespaces", "", 4, 20, 1);
	json_object *n = json_object_array_get_idx(r->json, 0);
	ck_fields(n, NAMESPACE);
	ck_str(n, "kind", "user");
	ck_str(n, "path", uname);
	ck_str(n, "full_path", uname);
	ck_assert(jnull(n, "parent_id"));
	/* owners see the member count of their groups, with subgroups' members */
	sql_member("Namespace", child, oid, 10);
	r = get("/namespaces", token);
	n = json_object_array_get_idx(r->json, 1);
	ck_fields(n, NAMESPACE_ADMIN);
	ck_str(n, "kind", "group");
	ck_assert_int_eq(jint(n, "members_count_with_descendants"), 2);
	ck_fields(json_object_array_get_idx(r->json, 2), NAMESPACE);
	n = json_object_array_get_idx(r->json, 3);
	ck_fields(n, NAMESPACE_ADMIN);
	ck_assert_int_eq(jint(n, "parent_id"), owned);
	ck_str(n, "full_path", S(fmt("%sa/%s", prefix, sub)));
	ck_assert(!has_id(r->json, foreign));
	/* search */
	ck_ids(get(S(fmt("/namespaces?search=%s", prefix)), token),
	       S(fmt("%lld,%lld", owned, dev)));
	r = get(S(fmt("/namespaces?search=%s&per_page=1&page=2", prefix)), token);
	ck_ids(r, S(fmt("%lld", dev)));
	ck_pages(r, "/namespaces", S(fmt("search=%s", prefix)), 2, 1, 2);
	/* admins: all of them */
	ck_ids(get(S(fmt("/namespaces?search=%s", prefix)), admin_token()),
	       S(fmt("%lld,%lld,%lld", owned, dev, foreign)));
	ck_ids(get(S(fmt("/namespaces?search=%s", oname)), admin_token()),
	       S(fmt("%lld", sql_int("SELECT id FROM namespaces WHERE owner_id = %lld", oid))));
	ck_unauthorized(get("/namespaces", NULL));
}
END_TEST

START_TEST(test_namespaces_show)
{
	long long uid, oid;
	char *uname;
	char *token = S(make_user("nss", &uid, &uname));
	char *other = S(make_user("nsso", &oid, NULL));
	S(uname);
	long long own_ns = sql_int("SELECT id FROM namespaces WHERE owner_id = %lld", uid);
	char *p = S(unique("nss"));
	long long g = create_group(token, p, "");
	char *c = S(unique("nssc"));
	long long child = create_group(token, c, S(fmt("parent_id=%lld", g)));

	resp *r = get(S(fmt("/namespaces/%lld", own_ns)), token);
	ck_status(r, 200);
	ck_fields(r->json, NAMESPACE);
	ck_str(r->json, "kind", "user");
	ck_str(r->json, "name", uname);
	r = get(S(fmt("/namespaces/%s", uname)), token);
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), own_ns);
	r = get(S(fmt("/namespaces/%s%%2F%s", p, c)), token);
	ck_status(r, 200);
	ck_fields(r->json, NAMESPACE_ADMIN);
	ck_assert_int_eq(jint(r->json, "id"), child);
	ck_assert_int_eq(jint(r->json, "parent_id"), g);
	ck_assert_int_eq(jint(r->json, "members_count_with_descendants"), 1);
	/* others: not my namespace, not a private group */
	ck_body(get(S(fmt("/namespaces/%lld", own_ns)), other), 404,
		"{\"message\":\"404 Namespace Not Found\"}");
	ck_body(get(S(fmt("/namespaces/%lld", g)), other), 404,
		"{\"message\":\"404 Namespace Not Found\"}");
	ck_body(get("/namespaces/999999999", token), 404,
		"{\"message\":\"404 Namespace Not Found\"}");
	/* a public group is visible, without the member count */
	ck_status(R(api("PUT", gpath(g, ""), token, "visibility=public")), 200);
	r = get(S(fmt("/namespaces/%lld", g)), other);
	ck_status(r, 200);
	ck_fields(r->json, NAMESPACE);
	/* admins see any */
	ck_status(get(S(fmt("/namespaces/%lld", own_ns)), admin_token()), 200);
	ck_unauthorized(get(S(fmt("/namespaces/%lld", own_ns)), NULL));
}
END_TEST

/* ---- DELETE /users/:id?hard_delete=true ---- */

START_TEST(test_groups_user_hard_delete)
{
	long long uid, oid, sid;
	char *token = S(make_user("grh", &uid, NULL));
	char *other = S(make_user("grho", &oid, NULL));
	char *soft = S(make_user("grhs", &sid, NULL));
	/* alone: goes with its subgroup and projects */
	char *p = S(unique("grh"));
	long long solo = create_group(token, p, "");
	long long solo_child = create_group(other, S(unique("grhc")), "");
	free(sql_value("UPDATE namespaces SET parent_id = %lld, traversal_ids = ARRAY[%lld, id],"
		       " full_path = '%s/' || path WHERE id = %lld",
		       solo, solo, p, solo_child));
	long long proj = group_project(solo_child, 0);
	char *repo = S(repo_dir_of(proj));
	mkdirs(repo);
	/* shared ownership and mere membership: stay */
	long long shared = create_group(token, S(unique("grhb")), "");
	sql_member("Namespace", shared, oid, 50);
	long long theirs = create_group(other, S(unique("grht")), "");
	sql_member("Namespace", theirs, uid, 40);
	/* a soft deletion keeps the groups */
	long long soft_group = create_group(soft, S(unique("grhs")), "");

	ck_status(
		R(api("DELETE", S(fmt("/users/%lld?hard_delete=true", uid)), admin_token(), NULL)),
		204);
	ck_group_not_found(get(gpath(solo, ""), admin_token()));
	ck_group_not_found(get(gpath(solo_child, ""), admin_token()));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE id = %lld", proj), 0);
	ck_status(get(gpath(shared, ""), admin_token()), 200);
	ck_status(get(gpath(theirs, ""), admin_token()), 200);
	ck_assert_msg(wait_gone(repo), "the repository of a removed group's project stays");

	ck_status(R(api("DELETE", S(fmt("/users/%lld", sid)), admin_token(), NULL)), 204);
	ck_status(get(gpath(soft_group, ""), admin_token()), 200);
}
END_TEST

Suite *suite_groups(void)
{
	Suite *s = suite_create("groups");
	TCase *tc = tcase_create("groups");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_groups_create);
	tcase_add_test(tc, test_groups_create_errors);
	tcase_add_test(tc, test_groups_nested);
	tcase_add_test(tc, test_groups_visibility);
	tcase_add_test(tc, test_groups_list);
	tcase_add_test(tc, test_groups_subgroups);
	tcase_add_test(tc, test_groups_show_projects);
	tcase_add_test(tc, test_groups_projects);
	tcase_add_test(tc, test_groups_update);
	tcase_add_test(tc, test_groups_delete);
	tcase_add_test(tc, test_groups_transfer);
	tcase_add_test(tc, test_namespaces_list);
	tcase_add_test(tc, test_namespaces_show);
	tcase_add_test(tc, test_groups_user_hard_delete);
	suite_add_tcase(s, tc);
	return s;
}
