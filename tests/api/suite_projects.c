/* API suite: projects (spec 4.1 and the project operations of GitLab 10.0): the lists
 * (GET /projects, GET /users/:user_id/projects), GET /projects/:id by id and by URL-encoded
 * path, create (own and for a user), edit, delete (and the background removal), fork,
 * star/unstar, archive/unarchive; the repository on disk. Every name a test makes is
 * unique, and list assertions use a test's own unique search term: other suites share
 * the database. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"

/* ---- the record shapes (GitLab 10.0's BasicProjectDetails and Project) ---- */

#define F_BASIC                                                                                    \
	"id", "description", "default_branch", "tag_list", "ssh_url_to_repo", "http_url_to_repo",  \
		"web_url", "name", "name_with_namespace", "path", "path_with_namespace",           \
		"star_count", "forks_count", "created_at", "last_activity_at"
/* a personal project (owner) with issues on (open_issues_count), not a fork */
#define F_PROJECT                                                                                  \
	"id", "description", "default_branch", "visibility", "ssh_url_to_repo",                    \
		"http_url_to_repo", "web_url", "tag_list", "owner", "name", "name_with_namespace", \
		"path", "path_with_namespace", "issues_enabled", "open_issues_count",              \
		"merge_requests_enabled", "jobs_enabled", "wiki_enabled", "snippets_enabled",      \
		"resolve_outdated_diff_discussions", "container_registry_enabled", "created_at",   \
		"last_activity_at", "creator_id", "namespace", "import_status", "archived",        \
		"avatar_url", "shared_runners_enabled", "lfs_enabled", "forks_count",              \
		"star_count", "public_jobs", "ci_config_path", "shared_with_groups",               \
		"only_allow_merge_if_pipeline_succeeds",                                           \
		"only_allow_merge_if_all_discussions_are_resolved",                                \
		"printing_merge_request_link_enabled", "merge_method", "request_access_enabled",   \
		"_links"

static const char *const BASIC[] = {F_BASIC, NULL};
static const char *const PROJECT[] = {F_PROJECT, NULL};
static const char *const PROJECT_ADMIN[] = {F_PROJECT, "import_error", "runners_token", NULL};
static const char *const WITH_ACCESS[] = {F_PROJECT, "permissions", NULL};
static const char *const WITH_ACCESS_ADMIN[] = {F_PROJECT, "permissions", "import_error",
						"runners_token", NULL};
static const char *const WITH_ACCESS_ADMIN_STATS[] = {
	F_PROJECT, "permissions", "import_error", "runners_token", "statistics", NULL};
/* what an admin of the instance also sees: 10.8's repository_storage */
static const char *const PROJECT_INSTANCE_ADMIN[] = {F_PROJECT, "import_error", "runners_token",
						     "repository_storage", NULL};
static const char *const WITH_ACCESS_INSTANCE_ADMIN[] = {
	F_PROJECT, "permissions", "import_error", "runners_token", "repository_storage", NULL};
static const char *const WITH_ACCESS_STATS[] = {F_PROJECT, "permissions", "statistics", NULL};
static const char *const OWNER[] = {"id", "name", "created_at", NULL};
/* GitLab 10.8's NamespaceBasic */
static const char *const NAMESPACE[] = {"id",        "name",      "path", "kind",
					"full_path", "parent_id", NULL};
static const char *const PERMISSIONS[] = {"project_access", "group_access", NULL};
static const char *const ACCESS[] = {"access_level", "notification_level", NULL};
static const char *const STATISTICS[] = {"commit_count",       "storage_size",
					 "repository_size",    "lfs_objects_size",
					 "job_artifacts_size", NULL};
static const char *const LINKS[] = {"self",   "issues", "merge_requests", "repo_branches",
				    "labels", "events", "members",        NULL};
static const char *const LINKS_NO_FEATURES[] = {"self",   "repo_branches", "labels",
						"events", "members",       NULL};

/* ---- fixtures and checks ---- */

struct user {
	long long id;
	char *name; /* username = name */
	char *token;
};

static struct user new_user(const char *prefix)
{
	struct user u;
	u.token = S(make_user(prefix, &u.id, &u.name));
	S(u.name);
	return u;
}

/* POST /projects as token with the form; asserts 201 and returns the body. */
static json_object *create(const char *token, const char *form)
{
	resp *r = R(api("POST", "/projects", token, form));
	ck_status(r, 201);
	return r->json;
}

static long long create_id(const char *token, const char *form)
{
	return jint(create(token, form), "id");
}

static resp *get(const char *path, const char *token)
{
	return R(api("GET", path, token, NULL));
}

static resp *show(long long id, const char *token)
{
	return get(S(fmt("/projects/%lld", id)), token);
}

static void ck_unauthorized(resp *r)
{
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
}

static void ck_forbidden(resp *r)
{
	ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
}

static void ck_project_not_found(resp *r)
{
	ck_body(r, 404, "{\"message\":\"404 Project Not Found\"}");
}

static void ck_str(json_object *o, const char *key, const char *want)
{
	const char *v = jstr(o, key);
	ck_assert_msg(v && strcmp(v, want) == 0, "%s: expected \"%s\", got %s in %s", key, want,
		      v ? v : "(none)", json_object_to_json_string(o));
}

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

/* The ids of a list response, in order, as "1,2,3". */
static char *ids_of(resp *r)
{
	ck_assert_msg(r->json && json_object_is_type(r->json, json_type_array), "not an array: %s",
		      r->body);
	char *s = S(calloc(1, 4096));
	for (size_t i = 0; i < json_object_array_length(r->json); i++) {
		size_t n = strlen(s);
		snprintf(s + n, 4096 - n, "%s%lld", i ? "," : "",
			 jint(json_object_array_get_idx(r->json, i), "id"));
	}
	return s;
}

static void ck_ids(resp *r, const char *want)
{
	const char *got = ids_of(r);
	ck_assert_msg(strcmp(got, want) == 0, "ids: expected [%s], got [%s]", want, got);
}

static char *list3(long long a, long long b, long long c)
{
	return S(fmt("%lld,%lld,%lld", a, b, c));
}

static const char *storage(void)
{
	const char *d = getenv("COLLABD_DIR");
	ck_assert_msg(d != NULL, "COLLABD_DIR must be set");
	return S(fmt("%s/storage", d));
}

/* The repository of the live project at full path ns/path, on disk by its id. */
static char *repo_dir(const char *full_path)
{
	return S(repo_dir_at(full_path));
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static long long wait_count(const char *sql)
{
	long long n = -1;
	for (int i = 0; i < 300; i++) {
		if ((n = sql_int("%s", sql)) == 0)
			return 0;
		usleep(100 * 1000);
	}
	return n;
}

/* A commit on branch of the bare repository dir, made with the git command line. */
static void git_commit(const char *dir, const char *branch)
{
	char tmp[] = "/tmp/collabd-git.XXXXXX";
	ck_assert(mkdtemp(tmp) != NULL);
	char *cmd =
		fmt("cd %s && git init -q . && git -c user.name=t -c user.email=t@example.com "
		    "commit -q --allow-empty -m 'first' && git -c safe.directory='*' push -q %s "
		    "HEAD:refs/heads/%s 2>&1 && rm -rf %s",
		    tmp, dir, branch, tmp);
	int rc = system(cmd);
	ck_assert_msg(rc == 0, "git failed: %s", cmd);
	free(cmd);
}

static char *git_out(const char *dir, const char *args)
{
	char *cmd = fmt("git -c safe.directory='*' --git-dir=%s %s 2>/dev/null", dir, args);
	FILE *p = popen(cmd, "r");
	ck_assert(p != NULL);
	char buf[256] = "";
	if (!fgets(buf, sizeof(buf), p))
		buf[0] = '\0';
	pclose(p);
	free(cmd);
	buf[strcspn(buf, "\n")] = '\0';
	return S(strdup(buf));
}

/* A membership made directly (the members API is another suite's). */
static void add_member(const char *type, long long source, long long user, int level)
{
	free(sql_value("INSERT INTO members (source_type, source_id, user_id, access_level)"
		       " VALUES ('%s', %lld, %lld, %d)",
		       type, source, user, level));
}

/* POST /groups as token: a group of that path and visibility (its creator owns it). */
static long long create_group(const char *token, const char *path, const char *visibility)
{
	resp *r = R(api("POST", "/groups", token,
			S(fmt("name=%s&path=%s&visibility=%s", path, path, visibility))));
	ck_status(r, 201);
	return jint(r->json, "id");
}

/* ---- create ---- */

START_TEST(test_projects_create_shape)
{
	struct user u = new_user("prj_cr");
	char *name = S(unique("My Proj "));
	char *form = S(fmt("name=%s", name));
	for (char *p = form; *p; p++)
		if (*p == ' ')
			*p = '+';
	resp *r = R(api("POST", "/projects", u.token, form));
	ck_status(r, 201);
	ck_header(r, "Content-Type", "application/json");
	json_object *o = r->json;
	/* the creator may administer it: runners token and import error; no permissions */
	ck_fields(o, PROJECT_ADMIN);
	long long id = jint(o, "id");
	/* the path comes from the name, lower case with dashes */
	char *path = S(strdup(name));
	for (char *p = path; *p; p++)
		*p = *p == ' ' ? '-' : (char)tolower((unsigned char)*p);
	ck_str(o, "name", name);
	ck_str(o, "path", path);
	char *full = S(fmt("%s/%s", u.name, path));
	ck_str(o, "path_with_namespace", full);
	ck_str(o, "name_with_namespace", S(fmt("%s / %s", u.name, name)));
	ck_str(o, "visibility", "private");
	ck_assert(jnull(o, "description"));
	ck_assert(jnull(o, "default_branch"));
	ck_assert(jnull(o, "avatar_url"));
	ck_assert(jnull(o, "import_error"));
	ck_assert(jnull(o, "ci_config_path"));
	ck_str(o, "merge_method", "merge");
	ck_str(o, "import_status", "none");
	ck_str(o, "http_url_to_repo", S(fmt("%s/%s.git", api_url(), full)));
	ck_str(o, "web_url", S(fmt("%s/%s", api_url(), full)));
	ck_str(o, "ssh_url_to_repo", S(fmt("git@127.0.0.1:%s.git", full)));
	ck_assert_int_eq(json_object_array_length(jget(o, "tag_list")), 0);
	ck_assert_int_eq(json_object_array_length(jget(o, "shared_with_groups")), 0);
	ck_assert_int_eq(jint(o, "creator_id"), u.id);
	ck_assert_int_eq(jint(o, "star_count"), 0);
	ck_assert_int_eq(jint(o, "forks_count"), 0);
	ck_assert_int_eq(jint(o, "open_issues_count"), 0);
	ck_assert(!jbool(o, "archived"));
	ck_assert(jbool(o, "issues_enabled") && jbool(o, "merge_requests_enabled") &&
		  jbool(o, "jobs_enabled") && jbool(o, "wiki_enabled") &&
		  jbool(o, "snippets_enabled") && jbool(o, "container_registry_enabled") &&
		  jbool(o, "shared_runners_enabled") && jbool(o, "lfs_enabled") &&
		  jbool(o, "public_jobs") && jbool(o, "printing_merge_request_link_enabled"));
	ck_assert(!jbool(o, "request_access_enabled") &&
		  !jbool(o, "resolve_outdated_diff_discussions") &&
		  !jbool(o, "only_allow_merge_if_pipeline_succeeds") &&
		  !jbool(o, "only_allow_merge_if_all_discussions_are_resolved"));
	ck_time(o, "created_at");
	ck_time(o, "last_activity_at");
	const char *token = jstr(o, "runners_token");
	ck_assert_msg(token && strlen(token) >= 20, "runners_token: %s", r->body);
	json_object *owner = jget(o, "owner");
	ck_fields(owner, OWNER);
	ck_assert_int_eq(jint(owner, "id"), u.id);
	ck_str(owner, "name", u.name);
	ck_time(owner, "created_at");
	json_object *ns = jget(o, "namespace");
	ck_fields(ns, NAMESPACE);
	ck_str(ns, "kind", "user");
	ck_str(ns, "path", u.name);
	ck_str(ns, "full_path", u.name);
	json_object *links = jget(o, "_links");
	ck_fields(links, LINKS);
	char *self = S(fmt("%s/api/v4/projects/%lld", api_url(), id));
	ck_str(links, "self", self);
	ck_str(links, "issues", S(fmt("%s/issues", self)));
	ck_str(links, "merge_requests", S(fmt("%s/merge_requests", self)));
	ck_str(links, "repo_branches", S(fmt("%s/repository/branches", self)));
	ck_str(links, "labels", S(fmt("%s/labels", self)));
	ck_str(links, "events", S(fmt("%s/events", self)));
	ck_str(links, "members", S(fmt("%s/members", self)));

	/* the secret is stored sealed, never as it is shown */
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM projects WHERE id = %lld AND"
			" runners_token_sealed IS NOT NULL AND strpos(runners_token_sealed,"
			" '%s') = 0 AND runners_token_digest = encode(sha256('%s'), 'hex')",
			id, token, token),
		1);
	/* the creator is its master, and the creation an event, in the same transaction */
	ck_assert_int_eq(sql_int("SELECT access_level FROM members WHERE source_type = 'Project'"
				 " AND source_id = %lld AND user_id = %lld",
				 id, u.id),
			 40);
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM events WHERE project_id = %lld AND"
			" author_id = %lld AND action = 'created' AND action_name = 'created'"
			" AND target_type IS NULL AND target_id IS NULL",
			id, u.id),
		1);
	/* a bare repository with HEAD on master */
	char *dir = repo_dir(full);
	ck_assert_msg(exists(S(fmt("%s/HEAD", dir))), "no repository at %s", dir);
	ck_str(R(api("GET", S(fmt("/projects/%lld", id)), u.token, NULL))->json, "path", path);
	ck_assert_str_eq(git_out(dir, "symbolic-ref HEAD"), "refs/heads/master");
}
END_TEST

START_TEST(test_projects_create_attributes)
{
	struct user u = new_user("prj_at");
	char *path = S(unique("attrs-"));
	json_object *o = create(
		u.token,
		S(fmt("path=%s&description=Some+text&visibility=public&issues_enabled=false"
		      "&merge_requests_enabled=false&jobs_enabled=false&wiki_enabled=false"
		      "&snippets_enabled=false&container_registry_enabled=false"
		      "&shared_runners_enabled=false&lfs_enabled=false&request_access_enabled=true"
		      "&public_jobs=false&resolve_outdated_diff_discussions=true"
		      "&only_allow_merge_if_pipeline_succeeds=true"
		      "&only_allow_merge_if_all_discussions_are_resolved=true"
		      "&printing_merge_request_link_enabled=false&ci_config_path=ci%%2Fbuild.yml"
		      "&merge_method=rebase_merge"
		      "&tag_list%%5B%%5D=zeta&tag_list%%5B%%5D=alpha&tag_list%%5B%%5D=zeta",
		      path)));
	/* the name comes from the path */
	ck_str(o, "name", path);
	ck_str(o, "description", "Some text");
	ck_str(o, "visibility", "public");
	ck_str(o, "ci_config_path", "ci/build.yml");
	ck_str(o, "merge_method", "rebase_merge");
	ck_assert(!jbool(o, "issues_enabled") && !jbool(o, "merge_requests_enabled") &&
		  !jbool(o, "jobs_enabled") && !jbool(o, "wiki_enabled") &&
		  !jbool(o, "snippets_enabled") && !jbool(o, "container_registry_enabled") &&
		  !jbool(o, "shared_runners_enabled") && !jbool(o, "lfs_enabled") &&
		  !jbool(o, "public_jobs") && !jbool(o, "printing_merge_request_link_enabled"));
	ck_assert(jbool(o, "request_access_enabled") &&
		  jbool(o, "resolve_outdated_diff_discussions") &&
		  jbool(o, "only_allow_merge_if_pipeline_succeeds") &&
		  jbool(o, "only_allow_merge_if_all_discussions_are_resolved"));
	/* issues off: no open_issues_count and no issues link; no merge requests link */
	ck_assert(!jhas(o, "open_issues_count"));
	ck_fields(jget(o, "_links"), LINKS_NO_FEATURES);
	/* tags sorted, without repeats */
	ck_assert_str_eq(json_object_to_json_string_ext(jget(o, "tag_list"),
							JSON_C_TO_STRING_PLAIN),
			 "[\"alpha\",\"zeta\"]");

	/* a comma-separated tag_list (python-gitlab's ListAttribute) and a JSON body */
	char *p2 = S(unique("attrs2-"));
	o = create(u.token, S(fmt("path=%s&tag_list=b%%2C+a%%2C+b", p2)));
	ck_assert_str_eq(json_object_to_json_string_ext(jget(o, "tag_list"),
							JSON_C_TO_STRING_PLAIN),
			 "[\"a\",\"b\"]");
	char *p3 = S(unique("attrs3-"));
	resp *r = R(api_json("POST", "/projects", u.token,
			     S(fmt("{\"name\":\"%s\",\"tag_list\":[\"x\",\"y\"],"
				   "\"visibility\":\"internal\",\"wiki_enabled\":false}",
				   p3))));
	ck_status(r, 201);
	ck_str(r->json, "path", p3);
	ck_str(r->json, "visibility", "internal");
	ck_assert(!jbool(r->json, "wiki_enabled"));
	ck_assert_int_eq(json_object_array_length(jget(r->json, "tag_list")), 2);
}
END_TEST

START_TEST(test_projects_create_errors)
{
	struct user u = new_user("prj_ce");
	struct user other = new_user("prj_ce_o");
	char *path = S(unique("dup-"));
	long long repos = repo_count();
	create_id(u.token, S(fmt("name=%s&path=%s", path, path)));

	ck_unauthorized(R(api("POST", "/projects", NULL, S(fmt("path=%sx", path)))));
	ck_unauthorized(R(api("POST", "/projects", "not-a-token", S(fmt("path=%sx", path)))));
	ck_body(R(api("POST", "/projects", u.token, "description=x")), 400,
		"{\"error\":\"name, path are missing, at least one parameter must be provided\"}");
	/* both taken: both named */
	ck_body(R(api("POST", "/projects", u.token, S(fmt("name=%s&path=%s", path, path)))), 400,
		"{\"message\":{\"name\":[\"has already been taken\"],"
		"\"path\":[\"has already been taken\"]}}");
	/* the name alone, whatever its case */
	char *upper = S(strdup(path));
	for (char *p = upper; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	ck_body(R(api("POST", "/projects", u.token, S(fmt("name=%s&path=%s-other", upper, path)))),
		400, "{\"message\":{\"name\":[\"has already been taken\"]}}");
	/* the same path in another namespace is fine */
	create_id(other.token, S(fmt("path=%s", path)));

	/* the name comes from the path, and fails too */
	ck_body(R(api("POST", "/projects", u.token, "path=-bad")), 400,
		"{\"message\":{\"name\":[\"can contain only letters, digits, emojis, '_', '.', "
		"dash, space. It must start with letter, digit, emoji or '_'.\"],"
		"\"path\":[\"can contain only letters, digits, '_', '-' and '.'. "
		"Cannot start with '-', end in '.git' or end in '.atom'\"]}}");
	ck_body(R(api("POST", "/projects", u.token, "path=repo.git")), 400,
		"{\"message\":{\"path\":[\"can contain only letters, digits, '_', '-' and '.'. "
		"Cannot start with '-', end in '.git' or end in '.atom'\"]}}");
	ck_body(R(api("POST", "/projects", u.token, "path=tree")), 400,
		"{\"message\":{\"path\":[\"tree is a reserved name\"]}}");
	ck_body(R(api("POST", "/projects", u.token, S(fmt("name=%%2Fslash&path=%s-s", path)))), 400,
		"{\"message\":{\"name\":[\"can contain only letters, digits, emojis, '_', '.', dash, "
		"space. It must start with letter, digit, emoji or '_'.\"]}}");
	ck_body(R(api("POST", "/projects", u.token, S(fmt("path=%s-v&visibility=secret", path)))),
		400, "{\"error\":\"visibility does not have a valid value\"}");
	ck_body(R(api("POST", "/projects", u.token,
		      S(fmt("path=%s-b&issues_enabled=maybe", path)))),
		400, "{\"error\":\"issues_enabled is invalid\"}");
	ck_body(R(api("POST", "/projects", u.token, S(fmt("path=%s-n&namespace_id=abc", path)))),
		400, "{\"error\":\"namespace_id is invalid\"}");
	/* someone else's namespace, and one that does not exist */
	long long other_ns = sql_int("SELECT id FROM namespaces WHERE owner_id = %lld", other.id);
	ck_body(R(api("POST", "/projects", u.token,
		      S(fmt("path=%s-n&namespace_id=%lld", path, other_ns)))),
		400, "{\"message\":{\"namespace\":[\"is not valid\"]}}");
	ck_body(R(api("POST", "/projects", u.token,
		      S(fmt("path=%s-n&namespace_id=999999999", path)))),
		400, "{\"message\":{\"namespace\":[\"is not valid\"]}}");
	/* nothing of that was created */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE path LIKE '%s%%'", path), 2);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE path LIKE 'tree' AND"
				 " creator_id = %lld",
				 u.id),
			 0);
	ck_assert(repo_count() <= repos + 2); /* the two made above; deletions only lower it */
}
END_TEST

START_TEST(test_projects_create_limit)
{
	struct user u = new_user("prj_lim");
	ck_status(R(api("PUT", S(fmt("/users/%lld", u.id)), admin_token(), "projects_limit=1")),
		  200);
	create_id(u.token, S(fmt("path=%s", S(unique("lim-")))));
	char *second = S(unique("lim-"));
	ck_body(R(api("POST", "/projects", u.token, S(fmt("path=%s", second)))), 403,
		"{\"error\":[\"Your project limit is 1 projects! Please contact your administrator "
		"to increase it\"]}");
	ck_status(R(api("PUT", S(fmt("/users/%lld", u.id)), admin_token(), "projects_limit=0")),
		  200);
	ck_body(R(api("POST", "/projects", u.token, S(fmt("path=%s", second)))), 403,
		"{\"error\":[\"Personal project creation is not allowed. Please contact your "
		"administrator with questions\"]}");
	/* an admin creating for that user gets the limit as a validation error */
	ck_body(R(api("POST", S(fmt("/projects/user/%lld", u.id)), admin_token(),
		      S(fmt("name=%s", second)))),
		400,
		"{\"message\":{\"limit_reached\":[\"Personal project creation is not allowed. "
		"Please contact your administrator with questions\"]}}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE path = '%s'", second), 0);
	/* projects in a group do not count */
	char *gpath = S(unique("limg-"));
	long long gid = create_group(admin_token(), gpath, "private");
	add_member("Namespace", gid, u.id, 40);
	json_object *o = create(u.token, S(fmt("path=%s&namespace_id=%lld", second, gid)));
	ck_str(o, "path_with_namespace", S(fmt("%s/%s", gpath, second)));
}
END_TEST

START_TEST(test_projects_create_in_group)
{
	struct user owner = new_user("prj_gown");
	struct user master = new_user("prj_gmas");
	struct user dev = new_user("prj_gdev");
	char *gpath = S(unique("grp-"));
	long long gid = create_group(owner.token, gpath, "internal");
	add_member("Namespace", gid, master.id, 40);
	add_member("Namespace", gid, dev.id, 30);
	char *path = S(unique("gp-"));
	/* developers may not create projects in the group (GitLab 10.0: masters and up) */
	ck_body(R(api("POST", "/projects", dev.token,
		      S(fmt("path=%s&namespace_id=%lld", path, gid)))),
		400, "{\"message\":{\"namespace\":[\"is not valid\"]}}");
	/* not above the group's visibility */
	ck_body(R(api("POST", "/projects", master.token,
		      S(fmt("path=%s&namespace_id=%lld&visibility=public", path, gid)))),
		400,
		"{\"message\":{\"visibility_level\":[\"public is not allowed in a internal group.\"]}}");
	resp *r = R(api("POST", "/projects", master.token,
			S(fmt("path=%s&namespace_id=%lld&visibility=internal", path, gid))));
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	/* a group project has no owner and no member row: the group's members have access */
	ck_assert(!jhas(r->json, "owner"));
	json_object *ns = jget(r->json, "namespace");
	ck_str(ns, "kind", "group");
	ck_str(ns, "full_path", gpath);
	ck_assert_int_eq(jint(ns, "id"), gid);
	ck_assert_int_eq(jint(r->json, "creator_id"), master.id);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM members WHERE source_type = 'Project'"
				 " AND source_id = %lld",
				 id),
			 0);
	ck_assert(exists(S(fmt("%s/HEAD", repo_dir(S(fmt("%s/%s", gpath, path)))))));
	/* permissions: the group membership, not a project membership */
	r = show(id, master.token);
	ck_status(r, 200);
	json_object *perm = jget(r->json, "permissions");
	ck_fields(perm, PERMISSIONS);
	ck_assert(jnull(perm, "project_access"));
	ck_fields(jget(perm, "group_access"), ACCESS);
	ck_assert_int_eq(jint(jget(perm, "group_access"), "access_level"), 40);
	ck_assert_int_eq(jint(jget(perm, "group_access"), "notification_level"), 3);
	/* a subgroup's path is taken for projects of the group */
	char *sub = S(unique("sub-"));
	ck_status(R(api("POST", "/groups", owner.token,
			S(fmt("name=%s&path=%s&parent_id=%lld", sub, sub, gid)))),
		  201);
	ck_body(R(api("POST", "/projects", owner.token,
		      S(fmt("name=x%s&path=%s&namespace_id=%lld", sub, sub, gid)))),
		400, "{\"message\":{\"path\":[\"has already been taken\"]}}");
}
END_TEST

/* A project's namespace (10.8's NamespaceBasic) names its parent: none for a user's or a
 * top-level group's, the group above for a subgroup's; the same in every view of the
 * record (create, show, the lists, a group's projects, the simple view aside). */
START_TEST(test_projects_namespace_parent)
{
	struct user owner = new_user("prj_nsp");
	char *gpath = S(unique("grp-"));
	long long gid = create_group(owner.token, gpath, "private");
	char *sub = S(unique("sub-"));
	resp *r = R(api("POST", "/groups", owner.token,
			S(fmt("name=%s&path=%s&parent_id=%lld", sub, sub, gid))));
	ck_status(r, 201);
	long long sid = jint(r->json, "id");
	r = R(api("POST", "/projects", owner.token, S(fmt("path=p&namespace_id=%lld", sid))));
	ck_status(r, 201);
	long long id = jint(r->json, "id");
	json_object *ns = jget(r->json, "namespace");
	ck_fields(ns, NAMESPACE);
	ck_assert_int_eq(jint(ns, "id"), sid);
	ck_assert_int_eq(jint(ns, "parent_id"), gid);
	ck_str(ns, "full_path", S(fmt("%s/%s", gpath, sub)));
	r = show(id, owner.token);
	ck_status(r, 200);
	ck_assert_int_eq(jint(jget(r->json, "namespace"), "parent_id"), gid);
	r = R(api("GET", S(fmt("/projects?search=%s", sub)), owner.token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(json_object_array_length(r->json), 1);
	ns = jget(json_object_array_get_idx(r->json, 0), "namespace");
	ck_fields(ns, NAMESPACE);
	ck_assert_int_eq(jint(ns, "parent_id"), gid);
	r = R(api("GET", S(fmt("/groups/%lld/projects", sid)), owner.token, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(
		jint(jget(json_object_array_get_idx(r->json, 0), "namespace"), "parent_id"), gid);
	/* a top-level group's project and a personal one: null */
	r = R(api("POST", "/projects", owner.token, S(fmt("path=q&namespace_id=%lld", gid))));
	ck_status(r, 201);
	ns = jget(r->json, "namespace");
	ck_fields(ns, NAMESPACE);
	ck_assert(jnull(ns, "parent_id"));
	r = R(api("POST", "/projects", owner.token, "path=mine"));
	ck_status(r, 201);
	ns = jget(r->json, "namespace");
	ck_str(ns, "kind", "user");
	ck_assert(jnull(ns, "parent_id"));
}
END_TEST

START_TEST(test_projects_create_for_user)
{
	struct user u = new_user("prj_cfu");
	struct user plain = new_user("prj_cfu_p");
	char *name = S(unique("for-user-"));
	resp *r = R(api("POST", S(fmt("/projects/user/%lld", u.id)), admin_token(),
			S(fmt("name=%s&description=made+by+admin&default_branch=main", name))));
	ck_status(r, 201);
	ck_fields(r->json, PROJECT_INSTANCE_ADMIN);
	ck_str(r->json, "path_with_namespace", S(fmt("%s/%s", u.name, name)));
	ck_assert_int_eq(jint(jget(r->json, "owner"), "id"), u.id);
	ck_assert_int_eq(jint(r->json, "creator_id"), u.id);
	ck_str(r->json, "default_branch", "main");
	long long id = jint(r->json, "id");
	/* the user owns it: master member, sees it with the runners token */
	r = show(id, u.token);
	ck_status(r, 200);
	ck_fields(r->json, WITH_ACCESS_ADMIN);
	ck_assert_int_eq(jint(jget(jget(r->json, "permissions"), "project_access"), "access_level"),
			 40);
	char *dir = repo_dir(S(fmt("%s/%s", u.name, name)));
	ck_assert_str_eq(git_out(dir, "symbolic-ref HEAD"), "refs/heads/main");

	ck_unauthorized(R(api("POST", S(fmt("/projects/user/%lld", u.id)), NULL, "name=x")));
	ck_forbidden(R(api("POST", S(fmt("/projects/user/%lld", u.id)), plain.token, "name=x")));
	ck_body(R(api("POST", S(fmt("/projects/user/%lld", u.id)), admin_token(), "path=x")), 400,
		"{\"message\":\"400 (Bad request) \\\"name\\\" not given\"}");
	ck_body(R(api("POST", "/projects/user/999999999", admin_token(), "name=x")), 404,
		"{\"message\":\"404 User Not Found\"}");
	ck_body(R(api("POST", S(fmt("/projects/user/%lld", u.id)), admin_token(),
		      S(fmt("name=%s-b&default_branch=bad..name", name)))),
		400, "{\"message\":{\"default_branch\":[\"is invalid\"]}}");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE path = '%s-b'", name), 0);
	ck_body(R(api("POST", "/projects/user/abc", admin_token(), "name=x")), 400,
		"{\"error\":\"user_id is invalid\"}");
	ck_body(R(api("POST", S(fmt("/projects/user/%lld", u.id)), admin_token(),
		      S(fmt("name=%s", name)))),
		400,
		"{\"message\":{\"name\":[\"has already been taken\"],"
		"\"path\":[\"has already been taken\"]}}");
}
END_TEST

/* ---- GET /projects/:id ---- */

START_TEST(test_projects_show)
{
	struct user u = new_user("prj_sh");
	struct user other = new_user("prj_sh_o");
	char *path = S(unique("Show-"));
	long long id = create_id(u.token, S(fmt("path=%s&tag_list=t1", path)));
	char *full = S(fmt("%s/%s", u.name, path));

	resp *r = show(id, u.token);
	ck_status(r, 200);
	ck_fields(r->json, WITH_ACCESS_ADMIN);
	ck_str(r->json, "path_with_namespace", full);
	json_object *perm = jget(r->json, "permissions");
	ck_fields(perm, PERMISSIONS);
	ck_fields(jget(perm, "project_access"), ACCESS);
	ck_assert_int_eq(jint(jget(perm, "project_access"), "access_level"), 40);
	ck_assert_int_eq(jint(jget(perm, "project_access"), "notification_level"), 3);
	ck_assert(jnull(perm, "group_access"));
	/* the notification level follows the member's setting */
	free(sql_value("INSERT INTO notification_settings (user_id, source_type, source_id, level)"
		       " VALUES (%lld, 'Project', %lld, 'watch')",
		       u.id, id));
	r = show(id, u.token);
	ck_assert_int_eq(jint(jget(jget(r->json, "permissions"), "project_access"),
			      "notification_level"),
			 2);

	/* by URL-encoded path, in any case; the same record */
	char *enc_full = S(enc(full));
	r = get(S(fmt("/projects/%s", enc_full)), u.token);
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), id);
	char *upper = S(strdup(enc_full));
	for (char *p = upper; *p; p++)
		if (*p != '%')
			*p = (char)toupper((unsigned char)*p);
	r = get(S(fmt("/projects/%s", upper)), u.token);
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "id"), id);

	/* statistics on request */
	r = get(S(fmt("/projects/%lld?statistics=true", id)), u.token);
	ck_fields(r->json, WITH_ACCESS_ADMIN_STATS);
	ck_fields(jget(r->json, "statistics"), STATISTICS);
	ck_body(get(S(fmt("/projects/%lld?statistics=maybe", id)), u.token), 400,
		"{\"error\":\"statistics is invalid\"}");

	/* private: others and anonymous callers do not see it at all */
	ck_project_not_found(show(id, other.token));
	ck_project_not_found(show(id, NULL));
	ck_project_not_found(get(S(fmt("/projects/%s", enc_full)), other.token));
	/* the admin does, with the runners token, without memberships */
	r = show(id, admin_token());
	ck_fields(r->json, WITH_ACCESS_INSTANCE_ADMIN);
	ck_assert(jnull(jget(r->json, "permissions"), "project_access"));
	/* a bad token is 401 even where anonymous callers may read */
	ck_unauthorized(show(id, "not-a-token"));

	ck_project_not_found(show(999999999, u.token));
	ck_project_not_found(get("/projects/0", u.token));
	ck_project_not_found(get(S(fmt("/projects/%s%%2Fnope", u.name)), u.token));
	ck_project_not_found(get(S(fmt("/projects/%s", path)), u.token));
	ck_project_not_found(get("/projects/no%2Fsuch%2Fthing", NULL));
}
END_TEST

START_TEST(test_projects_show_visibility)
{
	struct user u = new_user("prj_vis");
	struct user other = new_user("prj_vis_o");
	long long pub = create_id(u.token, S(fmt("path=%s&visibility=public", S(unique("pub-")))));
	long long internal =
		create_id(u.token, S(fmt("path=%s&visibility=internal", S(unique("int-")))));

	/* public: anonymous callers get the simple view */
	resp *r = show(pub, NULL);
	ck_status(r, 200);
	ck_fields(r->json, BASIC);
	r = get(S(fmt("/projects/%lld?statistics=true", pub)), NULL);
	ck_fields(r->json, BASIC);
	/* a signed-in stranger: the full record, no secret, no memberships */
	r = show(pub, other.token);
	ck_status(r, 200);
	ck_fields(r->json, WITH_ACCESS);
	ck_assert(jnull(jget(r->json, "permissions"), "project_access"));
	ck_assert(jnull(jget(r->json, "permissions"), "group_access"));
	r = get(S(fmt("/projects/%lld?statistics=1", pub)), other.token);
	ck_fields(r->json, WITH_ACCESS_STATS);

	/* internal: signed-in users, not anonymous ones, not external users */
	ck_project_not_found(show(internal, NULL));
	ck_status(show(internal, other.token), 200);
	ck_status(R(api("PUT", S(fmt("/users/%lld", other.id)), admin_token(), "external=true")),
		  200);
	ck_project_not_found(show(internal, other.token));
	ck_status(show(pub, other.token), 200);

	/* a guest member of a private project sees it, without the secret */
	long long priv = create_id(u.token, S(fmt("path=%s", S(unique("priv-")))));
	struct user guest = new_user("prj_vis_g");
	ck_project_not_found(show(priv, guest.token));
	add_member("Project", priv, guest.id, 10);
	r = show(priv, guest.token);
	ck_fields(r->json, WITH_ACCESS);
	ck_assert_int_eq(jint(jget(jget(r->json, "permissions"), "project_access"), "access_level"),
			 10);
}
END_TEST

/* ---- the lists ---- */

START_TEST(test_projects_list_visibility)
{
	struct user u = new_user("prj_lv");
	struct user other = new_user("prj_lv_o");
	char *tag = S(unique("lvis"));
	long long priv = create_id(u.token, S(fmt("path=%s-priv", tag)));
	long long internal = create_id(u.token, S(fmt("path=%s-int&visibility=internal", tag)));
	long long pub = create_id(u.token, S(fmt("path=%s-pub&visibility=public", tag)));
	char *q = S(fmt("/projects?search=%s", tag));

	/* newest first (created_at desc) */
	resp *r = get(q, u.token);
	ck_status(r, 200);
	ck_ids(r, list3(pub, internal, priv));
	ck_pages(r, "/projects", S(fmt("search=%s", tag)), 3, 20, 1);
	/* a signed-in caller gets ProjectWithAccess, no secret */
	ck_fields(json_object_array_get_idx(r->json, 0), WITH_ACCESS);
	ck_assert_int_eq(jint(jget(jget(json_object_array_get_idx(r->json, 0), "permissions"),
				   "project_access"),
			      "access_level"),
			 40);
	r = get(q, other.token);
	ck_ids(r, S(fmt("%lld,%lld", pub, internal)));
	ck_pages(r, "/projects", S(fmt("search=%s", tag)), 2, 20, 1);
	r = get(q, NULL);
	ck_ids(r, S(fmt("%lld", pub)));
	ck_fields(json_object_array_get_idx(r->json, 0), BASIC);
	ck_pages(r, "/projects", S(fmt("search=%s", tag)), 1, 20, 1);
	ck_ids(get(q, admin_token()), list3(pub, internal, priv));
	/* members of the private one see it */
	add_member("Project", priv, other.id, 20);
	ck_ids(get(q, other.token), list3(pub, internal, priv));
	/* a bad token is refused */
	ck_unauthorized(get(q, "not-a-token"));
}
END_TEST

/* The permissions in a list (found once for the page) are those of GET /projects/:id:
 * own membership, the groups above, the notification settings of the project and of its
 * namespace. */
START_TEST(test_projects_list_permissions)
{
	struct user u = new_user("prj_lp");
	char *tag = S(unique("lperm"));
	long long top = create_group(admin_token(), S(fmt("%s-g", tag)), "private");
	resp *r = R(api("POST", "/groups", admin_token(),
			S(fmt("name=%s-sg&path=%s-sg&parent_id=%lld", tag, tag, top))));
	ck_status(r, 201);
	long long sub = jint(r->json, "id");
	long long in_sub =
		create_id(admin_token(), S(fmt("path=%s-a&namespace_id=%lld", tag, sub)));
	long long in_top =
		create_id(admin_token(), S(fmt("path=%s-b&namespace_id=%lld", tag, top)));
	long long own = create_id(u.token, S(fmt("path=%s-c", tag)));
	add_member("Namespace", top, u.id, 30);
	add_member("Namespace", sub, u.id, 20);
	add_member("Project", in_sub, u.id, 40);
	free(sql_value("INSERT INTO notification_settings (user_id, source_type, source_id, level)"
		       " VALUES (%lld, 'Namespace', %lld, 'mention'), (%lld, 'Namespace', %lld,"
		       " 'disabled'), (%lld, 'Project', %lld, 'watch'), (%lld, 'Project', %lld,"
		       " 'participating')",
		       u.id, sub, u.id, top, u.id, in_top, u.id, own));

	r = get(S(fmt("/projects?membership=true&search=%s", tag)), u.token);
	ck_status(r, 200);
	ck_ids(r, list3(own, in_top, in_sub));
	for (int i = 0; i < 3; i++) {
		json_object *p = json_object_array_get_idx(r->json, i);
		resp *one = show(jint(p, "id"), u.token);
		ck_status(one, 200);
		ck_assert_str_eq(json_object_to_json_string(jget(p, "permissions")),
				 json_object_to_json_string(jget(one->json, "permissions")));
	}
	json_object *perm = jget(json_object_array_get_idx(r->json, 2), "permissions");
	ck_assert_int_eq(jint(jget(perm, "project_access"), "access_level"), 40);
	ck_assert_int_eq(jint(jget(perm, "project_access"), "notification_level"), 3);
	ck_assert_int_eq(jint(jget(perm, "group_access"), "access_level"), 20);
	ck_assert_int_eq(jint(jget(perm, "group_access"), "notification_level"), 4);
	perm = jget(json_object_array_get_idx(r->json, 1), "permissions");
	ck_assert(jnull(perm, "project_access"));
	ck_assert_int_eq(jint(jget(perm, "group_access"), "access_level"), 30);
	ck_assert_int_eq(jint(jget(perm, "group_access"), "notification_level"), 0);
	perm = jget(json_object_array_get_idx(r->json, 0), "permissions");
	ck_assert_int_eq(jint(jget(perm, "project_access"), "access_level"), 40);
	ck_assert_int_eq(jint(jget(perm, "project_access"), "notification_level"), 1);
	ck_assert(jnull(perm, "group_access"));
}
END_TEST

/* The membership list with no filter and the default order has a statement of its own
 * (projects_list_membership_fast); a search that selects every project of the caller
 * takes the general one: both answer alike (bodies and pagination headers), page by
 * page, for every way to be a member (own namespace, project, group, a group a project is
 * shared with), for a fork (its source apart), shared projects (their links), archived
 * ones, not for deleted ones nor for the caller's own private project they are no member
 * of (which an internal one is, but not for an external caller). */
static void ck_same_lists(const char *token, const char *tag, const char *page)
{
	resp *fast = get(S(fmt("/projects?membership=true%s", page)), token);
	resp *slow = get(S(fmt("/projects?membership=true&search=%s%s", tag, page)), token);
	resp *explicit =
		get(S(fmt("/projects?membership=true&order_by=created_at&sort=desc&owned=false%s",
			  page)),
		    token);
	ck_status(fast, 200);
	ck_status(slow, 200);
	ck_assert_str_eq(fast->body, slow->body);
	ck_assert_str_eq(fast->body, explicit->body);
	static const char *const names[] = {"X-Total",    "X-Total-Pages", "X-Page",
					    "X-Per-Page", "X-Next-Page",   "X-Prev-Page"};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		ck_header(slow, names[i], resp_header(fast, names[i]));
		ck_header(explicit, names[i], resp_header(fast, names[i]));
	}
}

START_TEST(test_projects_list_membership_fast)
{
	struct user u = new_user("prj_mf");
	struct user o = new_user("prj_mf_o");
	char *tag = S(unique("mfast"));
	long long g = create_group(admin_token(), S(fmt("%s-g", tag)), "private");
	long long h = create_group(admin_token(), S(fmt("%s-h", tag)), "private");
	long long own_priv = create_id(u.token, S(fmt("path=%s-own-priv", tag)));
	long long own_int = create_id(u.token, S(fmt("path=%s-own-int&visibility=internal", tag)));
	long long own_pub = create_id(u.token, S(fmt("path=%s-own-pub&visibility=public", tag)));
	long long own_gone = create_id(u.token, S(fmt("path=%s-own-gone", tag)));
	long long in_g = create_id(admin_token(), S(fmt("path=%s-in-g&namespace_id=%lld", tag, g)));
	long long in_g2 =
		create_id(admin_token(), S(fmt("path=%s-in-g2&namespace_id=%lld", tag, g)));
	long long in_h = create_id(admin_token(), S(fmt("path=%s-in-h&namespace_id=%lld", tag, h)));
	long long direct = create_id(o.token, S(fmt("path=%s-direct&visibility=public", tag)));
	long long archived = create_id(o.token, S(fmt("path=%s-archived", tag)));
	add_member("Namespace", g, u.id, 30);
	add_member("Project", direct, u.id, 20);
	add_member("Project", archived, u.id, 10);
	/* in_h reaches u through its link to g; in_g is shared with h as well */
	free(sql_value("INSERT INTO project_group_links (project_id, group_id, group_access)"
		       " VALUES (%lld, %lld, 30), (%lld, %lld, 20)",
		       in_h, g, in_g, h));
	ck_status(R(api("POST", S(fmt("/projects/%lld/archive", archived)), o.token, NULL)), 201);
	/* a fork of o's public project into u's namespace */
	resp *r = R(api("POST", S(fmt("/projects/%lld/fork", direct)), u.token,
			S(fmt("namespace=%s", u.name))));
	ck_status(r, 201);
	long long fork = jint(r->json, "id");
	ck_status(R(api("DELETE", S(fmt("/projects/%lld", own_gone)), u.token, NULL)), 202);
	/* the caller's own projects they are no longer a member of: listed as visible */
	free(sql_value("DELETE FROM members WHERE source_type = 'Project' AND user_id = %lld"
		       " AND source_id IN (%lld, %lld)",
		       u.id, own_priv, own_int));

	r = get("/projects?membership=true", u.token);
	ck_status(r, 200);
	ck_ids(r, S(fmt("%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld", fork, archived, direct, in_h,
			in_g2, in_g, own_pub, own_int)));
	ck_pages(r, "/projects", "membership=true", 8, 20, 1);
	json_object *first = json_object_array_get_idx(r->json, 0);
	ck_assert_int_eq(jint(jget(first, "forked_from_project"), "id"), direct);
	json_object *shared = json_object_array_get_idx(r->json, 5);
	ck_assert_int_eq(jint(json_object_array_get_idx(jget(shared, "shared_with_groups"), 0),
			      "group_id"),
			 h);
	ck_assert_int_eq(
		jint(json_object_array_get_idx(
			     jget(json_object_array_get_idx(r->json, 3), "shared_with_groups"), 0),
		     "group_access_level"),
		30);
	ck_assert_int_eq(jint(jget(jget(shared, "permissions"), "group_access"), "access_level"),
			 30);
	ck_assert_int_eq(jint(jget(jget(json_object_array_get_idx(r->json, 2), "permissions"),
				   "project_access"),
			      "access_level"),
			 20);
	ck_same_lists(u.token, tag, "");
	ck_same_lists(u.token, tag, "&statistics=true");
	/* pages: the first, a middle one, the last, one past the end */
	ck_same_lists(u.token, tag, "&per_page=3");
	ck_same_lists(u.token, tag, "&per_page=3&page=2");
	ck_same_lists(u.token, tag, "&per_page=3&page=3");
	ck_same_lists(u.token, tag, "&per_page=3&page=4");
	r = get("/projects?membership=true&per_page=3&page=3", u.token);
	ck_ids(r, S(fmt("%lld,%lld", own_pub, own_int)));
	ck_pages(r, "/projects", "membership=true", 8, 3, 3);
	r = get("/projects?membership=true&per_page=3&page=4", u.token);
	ck_ids(r, "");
	ck_pages(r, "/projects", "membership=true", 8, 3, 4);
	/* an external caller: their own internal project (no membership) is not listed */
	free(sql_value("UPDATE users SET external = true WHERE id = %lld", u.id));
	r = get("/projects?membership=true", u.token);
	ck_ids(r, S(fmt("%lld,%lld,%lld,%lld,%lld,%lld,%lld", fork, archived, direct, in_h, in_g2,
			in_g, own_pub)));
	ck_same_lists(u.token, tag, "");
	ck_same_lists(u.token, tag, "&per_page=2&page=4");
	/* made an admin, every project of their namespace is theirs again */
	free(sql_value("UPDATE users SET external = false, is_admin = true WHERE id = %lld", u.id));
	r = get("/projects?membership=true", u.token);
	ck_ids(r, S(fmt("%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld", fork, archived, direct,
			in_h, in_g2, in_g, own_pub, own_int, own_priv)));
	ck_same_lists(u.token, tag, "&per_page=4&page=2");
	free(sql_value("UPDATE users SET is_admin = false WHERE id = %lld", u.id));
	/* a caller with no membership at all */
	struct user none = new_user("prj_mf_n");
	r = get("/projects?membership=true", none.token);
	ck_body(r, 200, "[]");
	ck_pages(r, "/projects", "membership=true", 0, 20, 1);
	ck_same_lists(none.token, tag, "&page=2");
}
END_TEST

START_TEST(test_projects_list_pages)
{
	struct user u = new_user("prj_pg");
	char *tag = S(unique("pages"));
	long long a = create_id(u.token, S(fmt("path=%s-a", tag)));
	long long b = create_id(u.token, S(fmt("path=%s-b", tag)));
	long long c = create_id(u.token, S(fmt("path=%s-c", tag)));
	char *query = S(fmt("search=%s&order_by=id&sort=asc", tag));
	resp *r = get(S(fmt("/projects?%s&per_page=2", query)), u.token);
	ck_ids(r, S(fmt("%lld,%lld", a, b)));
	ck_pages(r, "/projects", query, 3, 2, 1);
	r = get(S(fmt("/projects?%s&per_page=2&page=2", query)), u.token);
	ck_ids(r, S(fmt("%lld", c)));
	ck_pages(r, "/projects", query, 3, 2, 2);
	r = get(S(fmt("/projects?%s&per_page=2&page=3", query)), u.token);
	ck_ids(r, "");
	ck_pages(r, "/projects", query, 3, 2, 3);
	/* the simple view pages the same way */
	r = get(S(fmt("/projects?%s&simple=true&per_page=1&page=3", query)), u.token);
	ck_ids(r, S(fmt("%lld", c)));
	ck_fields(json_object_array_get_idx(r->json, 0), BASIC);
	ck_pages(r, "/projects", S(fmt("%s&simple=true", query)), 3, 1, 3);
	/* the full view with statistics */
	r = get(S(fmt("/projects?%s&statistics=true&per_page=1", query)), u.token);
	ck_fields(json_object_array_get_idx(r->json, 0), WITH_ACCESS_STATS);
}
END_TEST

START_TEST(test_projects_list_sorts)
{
	struct user u = new_user("prj_so");
	char *tag = S(unique("sorts"));
	/* names and paths sort in opposite orders; ids in creation order */
	long long a = create_id(u.token, S(fmt("name=%s-c&path=%s-x", tag, tag)));
	long long b = create_id(u.token, S(fmt("name=%s-a&path=%s-z", tag, tag)));
	long long c = create_id(u.token, S(fmt("name=%s-b&path=%s-y", tag, tag)));
	char *base = S(fmt("/projects?search=%s", tag));
	ck_ids(get(base, u.token), list3(c, b, a));
	ck_ids(get(S(fmt("%s&sort=asc", base)), u.token), list3(a, b, c));
	ck_ids(get(S(fmt("%s&order_by=id", base)), u.token), list3(c, b, a));
	ck_ids(get(S(fmt("%s&order_by=id&sort=asc", base)), u.token), list3(a, b, c));
	ck_ids(get(S(fmt("%s&order_by=name&sort=asc", base)), u.token), list3(b, c, a));
	ck_ids(get(S(fmt("%s&order_by=name&sort=desc", base)), u.token), list3(a, c, b));
	ck_ids(get(S(fmt("%s&order_by=path&sort=asc", base)), u.token), list3(a, c, b));
	ck_ids(get(S(fmt("%s&order_by=path", base)), u.token), list3(b, c, a));
	ck_ids(get(S(fmt("%s&order_by=created_at&sort=asc", base)), u.token), list3(a, b, c));
	/* an edit moves updated_at; activity is moved here by hand */
	ck_status(R(api("PUT", S(fmt("/projects/%lld", a)), u.token, "description=touched")), 200);
	ck_ids(get(S(fmt("%s&order_by=updated_at", base)), u.token), list3(a, c, b));
	ck_ids(get(S(fmt("%s&order_by=updated_at&sort=asc", base)), u.token), list3(b, c, a));
	free(sql_value(
		"UPDATE projects SET last_activity_at = now() + interval '1 day' WHERE id = %lld",
		b));
	ck_ids(get(S(fmt("%s&order_by=last_activity_at", base)), u.token), list3(b, c, a));
	ck_ids(get(S(fmt("%s&order_by=last_activity_at&sort=asc", base)), u.token), list3(a, c, b));
}
END_TEST

START_TEST(test_projects_list_filters)
{
	struct user u = new_user("prj_fi");
	struct user other = new_user("prj_fi_o");
	char *tag = S(unique("filt"));
	long long plain = create_id(u.token, S(fmt("path=%s-plain&visibility=internal", tag)));
	long long noissues = create_id(
		u.token, S(fmt("path=%s-noiss&issues_enabled=false&visibility=public", tag)));
	long long nomrs =
		create_id(u.token, S(fmt("path=%s-nomr&merge_requests_enabled=false", tag)));
	long long archived = create_id(u.token, S(fmt("path=%s-arch&visibility=public", tag)));
	long long theirs =
		create_id(other.token, S(fmt("path=%s-theirs&visibility=public&description=hidden+"
					     "word+%sdesc",
					     tag, tag)));
	ck_status(R(api("POST", S(fmt("/projects/%lld/archive", archived)), u.token, NULL)), 201);
	char *base = S(fmt("/projects?search=%s&order_by=id&sort=asc", tag));

	ck_ids(get(base, u.token),
	       S(fmt("%lld,%lld,%lld,%lld,%lld", plain, noissues, nomrs, archived, theirs)));
	ck_ids(get(S(fmt("%s&archived=true", base)), u.token), S(fmt("%lld", archived)));
	ck_ids(get(S(fmt("%s&archived=false", base)), u.token),
	       S(fmt("%lld,%lld,%lld,%lld", plain, noissues, nomrs, theirs)));
	ck_ids(get(S(fmt("%s&visibility=public", base)), u.token),
	       list3(noissues, archived, theirs));
	ck_ids(get(S(fmt("%s&visibility=internal", base)), u.token), S(fmt("%lld", plain)));
	ck_ids(get(S(fmt("%s&visibility=private", base)), u.token), S(fmt("%lld", nomrs)));
	ck_ids(get(S(fmt("%s&with_issues_enabled=true", base)), u.token),
	       S(fmt("%lld,%lld,%lld,%lld", plain, nomrs, archived, theirs)));
	ck_ids(get(S(fmt("%s&with_merge_requests_enabled=true", base)), u.token),
	       S(fmt("%lld,%lld,%lld,%lld", plain, noissues, archived, theirs)));
	/* owned: the caller's own namespace; membership: where they are a member */
	ck_ids(get(S(fmt("%s&owned=true", base)), u.token),
	       S(fmt("%lld,%lld,%lld,%lld", plain, noissues, nomrs, archived)));
	ck_ids(get(S(fmt("%s&owned=true", base)), other.token), S(fmt("%lld", theirs)));
	ck_ids(get(S(fmt("%s&membership=true", base)), other.token), S(fmt("%lld", theirs)));
	add_member("Project", plain, other.id, 30);
	ck_ids(get(S(fmt("%s&membership=true", base)), other.token),
	       S(fmt("%lld,%lld", plain, theirs)));
	ck_ids(get(S(fmt("%s&owned=true", base)), other.token), S(fmt("%lld", theirs)));
	ck_pages(get(S(fmt("%s&membership=true", base)), other.token), "/projects",
		 S(fmt("search=%s&order_by=id&sort=asc&membership=true", tag)), 2, 20, 1);
	/* starred */
	ck_ids(get(S(fmt("%s&starred=true", base)), other.token), "");
	ck_status(R(api("POST", S(fmt("/projects/%lld/star", noissues)), other.token, NULL)), 201);
	ck_ids(get(S(fmt("%s&starred=true", base)), other.token), S(fmt("%lld", noissues)));
	/* anonymous callers: owned and membership find nothing */
	ck_ids(get(S(fmt("%s&owned=true", base)), NULL), "");
	ck_ids(get(S(fmt("%s&membership=true", base)), NULL), "");
	/* search matches the description too */
	ck_ids(get(S(fmt("/projects?search=%sdesc", tag)), u.token), S(fmt("%lld", theirs)));
	/* filters combine */
	ck_ids(get(S(fmt("%s&visibility=public&archived=false&with_issues_enabled=true", base)),
		   u.token),
	       S(fmt("%lld", theirs)));
}
END_TEST

START_TEST(test_projects_list_errors)
{
	ck_body(get("/projects?order_by=stars", NULL), 400,
		"{\"error\":\"order_by does not have a valid value\"}");
	ck_body(get("/projects?sort=up", admin_token()), 400,
		"{\"error\":\"sort does not have a valid value\"}");
	ck_body(get("/projects?visibility=secret", admin_token()), 400,
		"{\"error\":\"visibility does not have a valid value\"}");
	ck_body(get("/projects?archived=maybe", admin_token()), 400,
		"{\"error\":\"archived is invalid\"}");
	ck_body(get("/projects?membership=2", admin_token()), 400,
		"{\"error\":\"membership is invalid\"}");
	ck_body(get("/projects?page=abc", admin_token()), 400, "{\"error\":\"page is invalid\"}");
	ck_body(get("/users/1/projects?order_by=stars", NULL), 400,
		"{\"error\":\"order_by does not have a valid value\"}");
}
END_TEST

START_TEST(test_projects_list_user)
{
	struct user u = new_user("prj_lu");
	struct user other = new_user("prj_lu_o");
	long long priv = create_id(u.token, S(fmt("path=%s", S(unique("lu-priv-")))));
	long long pub =
		create_id(u.token, S(fmt("path=%s&visibility=public", S(unique("lu-pub-")))));
	create_id(other.token, S(fmt("path=%s&visibility=public", S(unique("lu-other-")))));
	/* a project in a group the user created is not theirs here */
	char *gpath = S(unique("lug-"));
	long long gid = create_group(u.token, gpath, "public");
	create_id(u.token, S(fmt("path=x&namespace_id=%lld&visibility=public", gid)));

	char *by_id = S(fmt("/users/%lld/projects", u.id));
	resp *r = get(by_id, u.token);
	ck_status(r, 200);
	ck_ids(r, S(fmt("%lld,%lld", pub, priv)));
	ck_fields(json_object_array_get_idx(r->json, 0), WITH_ACCESS);
	ck_pages(r, by_id, "", 2, 20, 1);
	char *by_name = S(fmt("/users/%s/projects", u.name));
	ck_ids(get(by_name, u.token), S(fmt("%lld,%lld", pub, priv)));
	/* others see what is visible to them */
	ck_ids(get(by_name, other.token), S(fmt("%lld", pub)));
	r = get(by_id, NULL);
	ck_ids(r, S(fmt("%lld", pub)));
	ck_fields(json_object_array_get_idx(r->json, 0), BASIC);
	ck_pages(r, by_id, "", 1, 20, 1);
	/* filters apply */
	ck_ids(get(S(fmt("%s?visibility=private", by_id)), u.token), S(fmt("%lld", priv)));
	ck_ids(get(S(fmt("%s?per_page=1&order_by=id&sort=asc", by_id)), u.token),
	       S(fmt("%lld", priv)));

	/* digits are an id, never a username: a user named like u's id does not count */
	resp *made = R(api("POST", "/users", admin_token(),
			   S(fmt("username=%lld&email=n%lld%%40example.com&name=Digits&password="
				 "secret1234&skip_confirmation=true",
				 u.id, u.id))));
	ck_status(made, 201);
	long long digits = jint(made->json, "id");
	ck_status(R(api("POST", S(fmt("/projects/user/%lld", digits)), admin_token(),
			S(fmt("name=%s&visibility=public", S(unique("digits-")))))),
		  201);
	ck_ids(get(by_id, u.token), S(fmt("%lld,%lld", pub, priv)));
	ck_assert_int_eq(json_object_array_length(
				 get(S(fmt("/users/%lld/projects", digits)), u.token)->json),
			 1);
	ck_body(get("/users/999999999/projects", u.token), 404,
		"{\"message\":\"404 User Not Found\"}");
	ck_body(get("/users/no_such_user_anywhere/projects", NULL), 404,
		"{\"message\":\"404 User Not Found\"}");
}
END_TEST

/* ---- PUT /projects/:id ---- */

START_TEST(test_projects_update)
{
	struct user u = new_user("prj_up");
	char *path = S(unique("upd-"));
	long long id = create_id(u.token, S(fmt("path=%s&tag_list=old", path)));
	char *dir = S(repo_dir_of(id));
	ck_assert(exists(dir));
	char *new_path = S(unique("renamed-"));
	resp *r = R(api("PUT", S(fmt("/projects/%lld", id)), u.token,
			S(fmt("name=%s+New&path=%s&description=changed&visibility=internal"
			      "&issues_enabled=false&public_jobs=false&tag_list=b,a"
			      "&ci_config_path=my.yml&only_allow_merge_if_pipeline_succeeds=true"
			      "&merge_method=ff",
			      new_path, new_path))));
	ck_status(r, 200);
	/* issues off: no open issues count */
	ck_assert(!jhas(r->json, "open_issues_count") && jhas(r->json, "runners_token") &&
		  jhas(r->json, "import_error") && !jhas(r->json, "permissions"));
	ck_str(r->json, "name", S(fmt("%s New", new_path)));
	ck_str(r->json, "path", new_path);
	ck_str(r->json, "path_with_namespace", S(fmt("%s/%s", u.name, new_path)));
	ck_str(r->json, "description", "changed");
	ck_str(r->json, "visibility", "internal");
	ck_str(r->json, "ci_config_path", "my.yml");
	ck_str(r->json, "merge_method", "ff");
	ck_assert(!jbool(r->json, "issues_enabled") && !jbool(r->json, "public_jobs") &&
		  jbool(r->json, "only_allow_merge_if_pipeline_succeeds") &&
		  jbool(r->json, "merge_requests_enabled"));
	ck_assert_str_eq(json_object_to_json_string_ext(jget(r->json, "tag_list"),
							JSON_C_TO_STRING_PLAIN),
			 "[\"a\",\"b\"]");
	/* the repository is stored by id: the new path moved nothing */
	ck_assert(exists(S(fmt("%s/HEAD", dir))));
	ck_assert_str_eq(repo_dir(S(fmt("%s/%s", u.name, new_path))), dir);
	ck_assert(!exists(S(fmt("%s/%s", storage(), u.name))));
	ck_status(get(S(fmt("/projects/%s", S(enc(S(fmt("%s/%s", u.name, new_path)))))), u.token),
		  200);
	ck_project_not_found(
		get(S(fmt("/projects/%s", S(enc(S(fmt("%s/%s", u.name, path)))))), u.token));
	/* one attribute alone changes only that one */
	r = R(api("PUT", S(fmt("/projects/%lld", id)), u.token, "wiki_enabled=false"));
	ck_status(r, 200);
	ck_assert(!jbool(r->json, "wiki_enabled"));
	ck_str(r->json, "description", "changed");
	ck_str(r->json, "path", new_path);
	/* python-gitlab sends JSON */
	r = R(api_json("PUT", S(fmt("/projects/%lld", id)), u.token,
		       "{\"description\":\"from json\",\"snippets_enabled\":false}"));
	ck_status(r, 200);
	ck_str(r->json, "description", "from json");
	ck_assert(!jbool(r->json, "snippets_enabled"));
}
END_TEST

START_TEST(test_projects_update_errors)
{
	struct user u = new_user("prj_ue");
	struct user other = new_user("prj_ue_o");
	struct user master = new_user("prj_ue_m");
	struct user dev = new_user("prj_ue_d");
	char *path = S(unique("upe-"));
	long long id = create_id(u.token, S(fmt("path=%s", path)));
	char *taken = S(unique("upe-taken-"));
	create_id(u.token, S(fmt("path=%s", taken)));
	add_member("Project", id, master.id, 40);
	add_member("Project", id, dev.id, 30);
	char *p = S(fmt("/projects/%lld", id));

	ck_unauthorized(R(api("PUT", p, NULL, "description=x")));
	ck_body(R(api("PUT", p, u.token, NULL)), 400,
		"{\"error\":\"jobs_enabled, resolve_outdated_diff_discussions, ci_config_path, "
		"container_registry_enabled, default_branch, description, issues_enabled, "
		"lfs_enabled, merge_requests_enabled, name, "
		"only_allow_merge_if_all_discussions_are_resolved, "
		"only_allow_merge_if_pipeline_succeeds, path, printing_merge_request_link_enabled, "
		"public_builds, request_access_enabled, shared_runners_enabled, snippets_enabled, "
		"tag_list, visibility, wiki_enabled, merge_method are missing, at least one "
		"parameter must be provided\"}");
	ck_body(R(api("PUT", p, u.token, "merge_method=squash")), 400,
		"{\"error\":\"merge_method does not have a valid value\"}");
	ck_project_not_found(R(api("PUT", p, other.token, "description=x")));
	ck_project_not_found(R(api("PUT", "/projects/999999999", u.token, "description=x")));
	ck_forbidden(R(api("PUT", p, dev.token, "description=x")));
	/* masters edit, but renaming and visibility are the owner's */
	ck_status(R(api("PUT", p, master.token, "description=by+master")), 200);
	ck_forbidden(R(api("PUT", p, master.token, "name=renamed")));
	ck_forbidden(R(api("PUT", p, master.token, "visibility=public")));
	ck_body(R(api("PUT", p, u.token, S(fmt("path=%s", taken)))), 400,
		"{\"message\":{\"path\":[\"has already been taken\"]}}");
	ck_body(R(api("PUT", p, u.token, S(fmt("name=%s", taken)))), 400,
		"{\"message\":{\"name\":[\"has already been taken\"]}}");
	ck_body(R(api("PUT", p, u.token, "path=bad%2Fpath")), 400,
		"{\"message\":{\"path\":[\"can contain only letters, digits, '_', '-' and '.'. "
		"Cannot start with '-', end in '.git' or end in '.atom'\"]}}");
	ck_body(R(api("PUT", p, u.token, "name=&path=")), 400,
		"{\"message\":{\"name\":[\"can't be blank\"],\"path\":[\"can't be blank\"]}}");
	ck_body(R(api("PUT", p, u.token, "visibility=everyone")), 400,
		"{\"error\":\"visibility does not have a valid value\"}");
	ck_body(R(api("PUT", p, u.token, "lfs_enabled=sometimes")), 400,
		"{\"error\":\"lfs_enabled is invalid\"}");
	ck_body(R(api("PUT", p, u.token, "default_branch=nope")), 400,
		"{\"message\":{\"base\":[\"Could not change HEAD: branch 'nope' does not exist\"]}}");
	/* a failed edit changes nothing, a bad one with a good attribute neither */
	ck_body(R(api("PUT", p, u.token, S(fmt("description=never&path=%s", taken)))), 400,
		"{\"message\":{\"path\":[\"has already been taken\"]}}");
	resp *r = show(id, u.token);
	ck_str(r->json, "path", path);
	ck_str(r->json, "description", "by master");
	ck_str(r->json, "visibility", "private");
	ck_assert(exists(repo_dir(S(fmt("%s/%s", u.name, path)))));

	/* in a group: not above its visibility */
	char *gpath = S(unique("upg-"));
	long long gid = create_group(u.token, gpath, "private");
	long long gp = create_id(u.token, S(fmt("path=x&namespace_id=%lld", gid)));
	ck_body(R(api("PUT", S(fmt("/projects/%lld", gp)), u.token, "visibility=internal")), 400,
		"{\"message\":{\"visibility_level\":[\"internal is not allowed in a private group.\"]}}");
}
END_TEST

START_TEST(test_projects_default_branch)
{
	struct user u = new_user("prj_db");
	char *path = S(unique("branches-"));
	long long id = create_id(u.token, S(fmt("path=%s", path)));
	char *dir = repo_dir(S(fmt("%s/%s", u.name, path)));
	git_commit(dir, "master");
	git_commit(dir, "develop");
	resp *r = R(api("PUT", S(fmt("/projects/%lld", id)), u.token, "default_branch=develop"));
	ck_status(r, 200);
	ck_str(r->json, "default_branch", "develop");
	ck_assert_str_eq(git_out(dir, "symbolic-ref HEAD"), "refs/heads/develop");
	/* an edit that fails leaves HEAD where it was */
	char *other = S(unique("branches-o-"));
	create_id(u.token, S(fmt("path=%s", other)));
	ck_body(R(api("PUT", S(fmt("/projects/%lld", id)), u.token,
		      S(fmt("default_branch=master&path=%s", other)))),
		400, "{\"message\":{\"path\":[\"has already been taken\"]}}");
	ck_assert_str_eq(git_out(dir, "symbolic-ref HEAD"), "refs/heads/develop");
	/* with a rename, HEAD is set in the moved repository */
	char *moved = S(unique("branches-m-"));
	r = R(api("PUT", S(fmt("/projects/%lld", id)), u.token,
		  S(fmt("default_branch=master&path=%s", moved))));
	ck_status(r, 200);
	ck_str(r->json, "default_branch", "master");
	ck_assert_str_eq(git_out(repo_dir(S(fmt("%s/%s", u.name, moved))), "symbolic-ref HEAD"),
			 "refs/heads/master");
}
END_TEST

/* ---- DELETE /projects/:id and the background removal ---- */

START_TEST(test_projects_delete)
{
	struct user u = new_user("prj_de");
	struct user other = new_user("prj_de_o");
	struct user master = new_user("prj_de_m");
	char *path = S(unique("del-"));
	long long id = create_id(u.token, S(fmt("path=%s&visibility=public", path)));
	add_member("Project", id, master.id, 40);
	char *full = S(fmt("%s/%s", u.name, path));
	char *dir = repo_dir(full);
	ck_assert(exists(dir));
	char *p = S(fmt("/projects/%lld", id));

	ck_unauthorized(R(api("DELETE", p, NULL, NULL)));
	/* a public project others see but may not delete; masters neither (owners only) */
	ck_forbidden(R(api("DELETE", p, other.token, NULL)));
	ck_forbidden(R(api("DELETE", p, master.token, NULL)));
	ck_project_not_found(R(api("DELETE", "/projects/999999999", u.token, NULL)));

	ck_body(R(api("DELETE", S(fmt("/projects/%s", S(enc(full)))), u.token, NULL)), 202,
		"{\"message\":\"202 Accepted\"}");
	/* gone at once: not found, not listed, its path free, its repository moved away */
	ck_project_not_found(show(id, u.token));
	ck_project_not_found(show(id, admin_token()));
	ck_project_not_found(R(api("DELETE", p, u.token, NULL)));
	ck_project_not_found(R(api("POST", S(fmt("%s/star", p)), u.token, NULL)));
	ck_ids(get(S(fmt("/projects?search=%s", path)), admin_token()), "");
	long long again = create_id(u.token, S(fmt("path=%s", path)));
	ck_assert(again != id);
	char *again_dir = S(repo_dir_of(again));
	ck_assert(strcmp(again_dir, dir) != 0);
	ck_assert(exists(S(fmt("%s/HEAD", again_dir))));
	/* the background process removes the rows and the old repository */
	ck_assert_int_eq(wait_count(S(fmt("SELECT count(*) FROM projects WHERE id = %lld", id))),
			 0);
	ck_assert(wait_gone(dir));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM members WHERE source_type = 'Project'"
				 " AND source_id = %lld",
				 id),
			 0);
	/* the new project keeps its repository */
	ck_assert(exists(S(fmt("%s/HEAD", again_dir))));
	ck_status(show(again, u.token), 200);
}
END_TEST

START_TEST(test_background_jobs)
{
	/* remove_path, as users.c and groups.c queue it */
	char *name = S(unique("bgjob"));
	char *dir = S(fmt("%s/%s", storage(), name));
	char *cmd = S(fmt("mkdir -p %s/deep/er && echo x > %s/deep/er/file", dir, dir));
	ck_assert(system(cmd) == 0);
	long long job = sql_int("INSERT INTO background_jobs (kind, payload) VALUES ('remove_path',"
				" jsonb_build_object('path', '%s')) RETURNING id",
				name);
	ck_assert(wait_gone(dir));
	ck_assert_int_eq(
		wait_count(S(fmt("SELECT count(*) FROM background_jobs WHERE id = %lld", job))), 0);
	/* a path that leaves the storage is refused: the job stays, with its error */
	char *outside = S(fmt("%s/%s-keep", storage(), name));
	ck_assert(system(S(fmt("mkdir -p %s", outside))) == 0);
	job = sql_int("INSERT INTO background_jobs (kind, payload) VALUES ('remove_path',"
		      " jsonb_build_object('path', 'x/../%s-keep')) RETURNING id",
		      name);
	long long attempts = 0;
	for (int i = 0; i < 300 && attempts == 0; i++) {
		attempts = sql_int("SELECT attempts FROM background_jobs WHERE id = %lld", job);
		usleep(100 * 1000);
	}
	ck_assert_int_eq(attempts, 1);
	char *err = S(sql_value("SELECT last_error FROM background_jobs WHERE id = %lld", job));
	ck_assert_msg(strstr(err, "safe relative path") != NULL, "last_error: %s", err);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM background_jobs WHERE id = %lld AND"
				 " run_at > now()",
				 job),
			 1);
	ck_assert(exists(outside));
	free(sql_value("DELETE FROM background_jobs WHERE id = %lld", job));
	ck_assert(system(S(fmt("rm -rf %s", outside))) == 0);
}
END_TEST

START_TEST(test_projects_wiki_path)
{
	/* X and X.wiki in one namespace: refused both ways (GitLab 10's
	 * check_wiki_path_conflict), and neither project's repository is touched */
	struct user u = new_user("prj_wiki");
	char *x = S(unique("wk-"));
	long long wiki = create_id(u.token, S(fmt("path=%s.wiki", x)));
	char *wdir = S(repo_dir_of(wiki));
	git_commit(wdir, "master");
	ck_body(R(api("POST", "/projects", u.token, S(fmt("path=%s", x)))), 400,
		"{\"message\":{\"name\":[\"has already been taken\"]}}");
	long long plain = create_id(u.token, S(fmt("path=%s-z", x)));
	ck_body(R(api("PUT", S(fmt("/projects/%lld", plain)), u.token, S(fmt("path=%s", x)))), 400,
		"{\"message\":{\"name\":[\"has already been taken\"]}}");
	long long y = create_id(u.token, S(fmt("path=%s-y", x)));
	ck_body(R(api("POST", "/projects", u.token, S(fmt("path=%s-y.wiki", x)))), 400,
		"{\"message\":{\"name\":[\"has already been taken\"]}}");
	ck_body(R(api("PUT", S(fmt("/projects/%lld", plain)), u.token,
		      S(fmt("path=%s-Y.WIKI", x)))),
		400, "{\"message\":{\"name\":[\"has already been taken\"]}}");
	/* another namespace may have both */
	struct user o = new_user("prj_wiki_o");
	create_id(o.token, S(fmt("path=%s", x)));
	/* deleting and renaming the other projects leaves X.wiki's repository alone */
	ck_status(R(api("PUT", S(fmt("/projects/%lld", y)), u.token, S(fmt("path=%s-q", x)))), 200);
	ck_status(R(api("DELETE", S(fmt("/projects/%lld", y)), u.token, NULL)), 202);
	ck_assert(wait_gone(S(repo_dir_of(y))));
	ck_assert_str_eq(git_out(wdir, "symbolic-ref HEAD"), "refs/heads/master");
	ck_assert(strlen(git_out(wdir, "rev-parse refs/heads/master")) == 40);
}
END_TEST

START_TEST(test_projects_storage_by_id)
{
	/* a directory at the path a repository had before storage by id is nobody's: a new
	 * project of that path neither removes it nor starts with it */
	struct user u = new_user("prj_stale");
	char *path = S(unique("stale-"));
	char *legacy = S(fmt("%s/%s/%s.git", storage(), u.name, path));
	ck_assert(system(S(fmt("mkdir -p %s/refs && echo old > %s/MARKER", legacy, legacy))) == 0);
	long long id = create_id(u.token, S(fmt("path=%s", path)));
	ck_assert(exists(S(fmt("%s/MARKER", legacy))));
	char *dir = S(repo_dir_of(id));
	ck_assert(exists(S(fmt("%s/HEAD", dir))) && !exists(S(fmt("%s/MARKER", dir))));
	/* the longest path a project may have is served and deleted */
	char longest[256];
	memset(longest, 'l', 255);
	longest[255] = '\0';
	memcpy(longest, path, strlen(path));
	long long big = create_id(u.token, S(fmt("path=%s", longest)));
	ck_status(show(big, u.token), 200);
	ck_assert(exists(S(fmt("%s/HEAD", S(repo_dir_of(big))))));
	ck_status(R(api("DELETE", S(fmt("/projects/%lld", big)), u.token, NULL)), 202);
	ck_assert(wait_gone(S(repo_dir_of(big))));
	ck_assert(system(S(fmt("rm -rf %s/%s", storage(), u.name))) == 0);
}
END_TEST

/* ---- fork ---- */

START_TEST(test_projects_fork)
{
	struct user u = new_user("prj_fk");
	struct user other = new_user("prj_fk_o");
	char *path = S(unique("forkme-"));
	long long src = create_id(u.token,
				  S(fmt("path=%s&visibility=public&description=the+source", path)));
	char *src_dir = repo_dir(S(fmt("%s/%s", u.name, path)));
	git_commit(src_dir, "master");
	git_commit(src_dir, "feature");
	char *master_sha = git_out(src_dir, "rev-parse refs/heads/master");

	resp *r = R(api("POST", S(fmt("/projects/%lld/fork", src)), other.token, NULL));
	ck_status(r, 201);
	json_object *o = r->json;
	long long fork = jint(o, "id");
	static const char *const FORK[] = {F_PROJECT, "forked_from_project", "import_error",
					   "runners_token", NULL};
	ck_fields(o, FORK);
	ck_str(o, "path_with_namespace", S(fmt("%s/%s", other.name, path)));
	ck_str(o, "description", "the source");
	ck_str(o, "visibility", "public");
	ck_str(o, "import_status", "finished");
	ck_assert_int_eq(jint(jget(o, "owner"), "id"), other.id);
	json_object *from = jget(o, "forked_from_project");
	ck_fields(from, BASIC);
	ck_assert_int_eq(jint(from, "id"), src);
	ck_str(from, "path_with_namespace", S(fmt("%s/%s", u.name, path)));
	/* the repository is a copy: its branches and HEAD */
	char *fork_dir = repo_dir(S(fmt("%s/%s", other.name, path)));
	ck_assert_str_eq(git_out(fork_dir, "rev-parse refs/heads/master"), master_sha);
	ck_assert(strlen(git_out(fork_dir, "rev-parse refs/heads/feature")) == 40);
	/* counted on the source, and shown on GET */
	ck_assert_int_eq(jint(show(src, u.token)->json, "forks_count"), 1);
	ck_assert_int_eq(jint(jget(show(fork, other.token)->json, "forked_from_project"), "id"),
			 src);
	ck_assert_int_eq(sql_int("SELECT access_level FROM members WHERE source_type = 'Project'"
				 " AND source_id = %lld AND user_id = %lld",
				 fork, other.id),
			 40);
	/* again into the same namespace: taken */
	ck_body(R(api("POST", S(fmt("/projects/%lld/fork", src)), other.token, NULL)), 409,
		"{\"message\":{\"name\":[\"has already been taken\"],"
		"\"path\":[\"has already been taken\"]}}");
	/* into a group where the caller is master, by path; visibility up to the group's */
	char *gpath = S(unique("fkg-"));
	long long gid = create_group(admin_token(), gpath, "internal");
	add_member("Namespace", gid, other.id, 40);
	r = R(api("POST", S(fmt("/projects/%lld/fork", src)), other.token,
		  S(fmt("namespace=%s", gpath))));
	ck_status(r, 201);
	ck_str(r->json, "path_with_namespace", S(fmt("%s/%s", gpath, path)));
	ck_str(r->json, "visibility", "internal");
	ck_assert(!jhas(r->json, "owner"));
	ck_assert_int_eq(jint(show(src, u.token)->json, "forks_count"), 2);
	/* a namespace the caller may not create in, or none */
	ck_body(R(api("POST", S(fmt("/projects/%lld/fork", src)), u.token,
		      S(fmt("namespace=%lld", gid)))),
		404, "{\"message\":\"404 Target Namespace Not Found\"}");
	ck_body(R(api("POST", S(fmt("/projects/%lld/fork", src)), u.token,
		      "namespace=no-such-namespace-anywhere")),
		404, "{\"message\":\"404 Target Namespace Not Found\"}");
	/* deleting a fork counts one less */
	ck_status(R(api("DELETE", S(fmt("/projects/%lld", fork)), other.token, NULL)), 202);
	ck_assert_int_eq(jint(show(src, u.token)->json, "forks_count"), 1);

	ck_unauthorized(R(api("POST", S(fmt("/projects/%lld/fork", src)), NULL, NULL)));
	/* a private project: strangers do not see it, guests may not fork it */
	long long priv = create_id(u.token, S(fmt("path=%s-priv", path)));
	ck_project_not_found(
		R(api("POST", S(fmt("/projects/%lld/fork", priv)), other.token, NULL)));
	add_member("Project", priv, other.id, 10);
	ck_forbidden(R(api("POST", S(fmt("/projects/%lld/fork", priv)), other.token, NULL)));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE forked_from_id = %lld", priv),
			 0);
	free(sql_value("UPDATE members SET access_level = 20 WHERE source_type = 'Project'"
		       " AND source_id = %lld AND user_id = %lld",
		       priv, other.id));
	r = R(api("POST", S(fmt("/projects/%lld/fork", priv)), other.token, NULL));
	ck_status(r, 201);
	ck_str(r->json, "visibility", "private");
}
END_TEST

/* ---- star, archive ---- */

START_TEST(test_projects_star)
{
	struct user u = new_user("prj_st");
	struct user other = new_user("prj_st_o");
	long long id = create_id(u.token, S(fmt("path=%s&visibility=public", S(unique("star-")))));
	long long priv = create_id(u.token, S(fmt("path=%s", S(unique("star-p-")))));
	char *star = S(fmt("/projects/%lld/star", id)),
	     *unstar = S(fmt("/projects/%lld/unstar", id));

	ck_unauthorized(R(api("POST", star, NULL, NULL)));
	resp *r = R(api("POST", star, other.token, NULL));
	ck_status(r, 201);
	/* Entities::Project: no permissions, no secret for a stranger */
	ck_fields(r->json, PROJECT);
	ck_assert_int_eq(jint(r->json, "star_count"), 1);
	r = R(api("POST", star, other.token, NULL));
	ck_status(r, 304);
	ck_assert_str_eq(r->body, "");
	ck_status(R(api("POST", star, u.token, NULL)), 201);
	ck_assert_int_eq(jint(show(id, NULL)->json, "star_count"), 2);
	r = R(api("POST", unstar, other.token, NULL));
	ck_status(r, 201);
	ck_fields(r->json, PROJECT);
	ck_assert_int_eq(jint(r->json, "star_count"), 1);
	ck_status(R(api("POST", unstar, other.token, NULL)), 304);
	ck_assert_int_eq(jint(show(id, NULL)->json, "star_count"), 1);
	/* what the caller cannot see */
	ck_project_not_found(
		R(api("POST", S(fmt("/projects/%lld/star", priv)), other.token, NULL)));
	ck_project_not_found(
		R(api("POST", S(fmt("/projects/%lld/unstar", priv)), other.token, NULL)));
	ck_project_not_found(R(api("POST", "/projects/999999999/star", u.token, NULL)));
}
END_TEST

START_TEST(test_projects_archive)
{
	struct user u = new_user("prj_ar");
	struct user other = new_user("prj_ar_o");
	struct user master = new_user("prj_ar_m");
	long long id =
		create_id(u.token, S(fmt("path=%s&visibility=internal", S(unique("arch-")))));
	add_member("Project", id, master.id, 40);
	char *archive = S(fmt("/projects/%lld/archive", id));
	char *unarchive = S(fmt("/projects/%lld/unarchive", id));

	ck_unauthorized(R(api("POST", archive, NULL, NULL)));
	ck_forbidden(R(api("POST", archive, other.token, NULL)));
	ck_forbidden(R(api("POST", archive, master.token, NULL)));
	ck_assert(!jbool(show(id, u.token)->json, "archived"));
	resp *r = R(api("POST", archive, u.token, NULL));
	ck_status(r, 201);
	ck_fields(r->json, PROJECT);
	ck_assert(jbool(r->json, "archived"));
	/* idempotent */
	r = R(api("POST", archive, u.token, NULL));
	ck_status(r, 201);
	ck_assert(jbool(r->json, "archived"));
	ck_assert(jbool(show(id, u.token)->json, "archived"));
	ck_forbidden(R(api("POST", unarchive, master.token, NULL)));
	r = R(api("POST", unarchive, admin_token(), NULL));
	ck_status(r, 201);
	ck_assert(!jbool(r->json, "archived"));
	ck_assert(!jbool(show(id, u.token)->json, "archived"));
	ck_project_not_found(R(api("POST", "/projects/999999999/archive", u.token, NULL)));
	long long priv = create_id(u.token, S(fmt("path=%s", S(unique("arch-p-")))));
	ck_project_not_found(
		R(api("POST", S(fmt("/projects/%lld/archive", priv)), other.token, NULL)));
}
END_TEST

/* ---- POST /projects/:id/housekeeping: git gc in the background, masters ---- */

START_TEST(test_projects_housekeeping)
{
	long long owner_id, dev_id, other_id;
	char *owner = S(make_user("hk", &owner_id, NULL));
	char *dev = S(make_user("hkd", &dev_id, NULL));
	char *other = S(make_user("hko", &other_id, NULL));
	long long p = api_project(owner, "private", NULL);
	fixture_member("Project", p, dev_id, 30);
	for (int i = 0; i < 3; i++)
		ck_code(R(api_json("POST", S(fmt("/projects/%lld/repository/commits", p)), owner,
				   S(fmt("{\"branch\":\"master\",\"commit_message\":\"c%d\","
					 "\"actions\":[{\"action\":\"create\",\"file_path\":"
					 "\"f%d\",\"content\":\"x\"}]}",
					 i, i)))),
			201);
	const char *hk = S(fmt("/projects/%lld/housekeeping", p));
	ck_code(R(api("POST", hk, NULL, NULL)), 401);
	ck_code(R(api("POST", hk, other, NULL)), 404);
	ck_code(R(api("POST", hk, dev, NULL)), 403);
	ck_code(R(api("POST", "/projects/999999999/housekeeping", owner, NULL)), 404);
	/* one queued (or running) already: 409, nothing queued */
	free(sql_value("INSERT INTO background_jobs (kind, payload, run_at) VALUES ('housekeeping',"
		       " '{\"project_id\": %lld}', now() + interval '1 hour')",
		       p));
	resp *r = R(api("POST", hk, owner, NULL));
	ck_status(r, 409);
	ck_jstr(r, "message",
		"Somebody already triggered housekeeping for this project and it has not finished yet");
	ck_assert_int_eq(sql_int("SELECT count(*) FROM background_jobs WHERE kind = 'housekeeping'"
				 " AND payload->>'project_id' = '%lld'",
				 p),
			 1);
	free(sql_value("DELETE FROM background_jobs WHERE kind = 'housekeeping'"
		       " AND payload->>'project_id' = '%lld'",
		       p));
	/* a master's: 201 with the job's id; done, the objects are packed */
	char *dir = S(repo_dir_of(p));
	char *loose = S(fmt("find '%s/objects' -path '*/objects/[0-9a-f][0-9a-f]/*' | wc -l", dir));
	FILE *f = popen(loose, "r");
	int before = 0;
	ck_assert(f && fscanf(f, "%d", &before) == 1);
	pclose(f);
	ck_assert_int_gt(before, 0);
	r = R(api("POST", hk, owner, NULL));
	ck_status(r, 201);
	ck_assert(json_object_is_type(r->json, json_type_string));
	int left = 1;
	for (int i = 0; i < 200 && left; i++) {
		left = (int)sql_int(
			"SELECT count(*) FROM background_jobs WHERE kind = 'housekeeping'"
			" AND payload->>'project_id' = '%lld'",
			p);
		if (left)
			usleep(50000);
	}
	ck_assert_int_eq(left, 0);
	f = popen(loose, "r");
	int after = -1;
	ck_assert(f && fscanf(f, "%d", &after) == 1);
	pclose(f);
	ck_assert_int_eq(after, 0);
	/* again, now that it is done; an admin may too */
	ck_code(R(api("POST", hk, admin_token(), NULL)), 201);
}
END_TEST

Suite *suite_projects(void)
{
	Suite *s = suite_create("projects");
	TCase *tc = tcase_create("projects");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_projects_create_shape);
	tcase_add_test(tc, test_projects_create_attributes);
	tcase_add_test(tc, test_projects_create_errors);
	tcase_add_test(tc, test_projects_create_limit);
	tcase_add_test(tc, test_projects_create_in_group);
	tcase_add_test(tc, test_projects_namespace_parent);
	tcase_add_test(tc, test_projects_create_for_user);
	tcase_add_test(tc, test_projects_show);
	tcase_add_test(tc, test_projects_show_visibility);
	tcase_add_test(tc, test_projects_list_visibility);
	tcase_add_test(tc, test_projects_list_permissions);
	tcase_add_test(tc, test_projects_list_membership_fast);
	tcase_add_test(tc, test_projects_list_pages);
	tcase_add_test(tc, test_projects_list_sorts);
	tcase_add_test(tc, test_projects_list_filters);
	tcase_add_test(tc, test_projects_list_errors);
	tcase_add_test(tc, test_projects_list_user);
	tcase_add_test(tc, test_projects_update);
	tcase_add_test(tc, test_projects_update_errors);
	tcase_add_test(tc, test_projects_default_branch);
	tcase_add_test(tc, test_projects_delete);
	tcase_add_test(tc, test_background_jobs);
	tcase_add_test(tc, test_projects_wiki_path);
	tcase_add_test(tc, test_projects_storage_by_id);
	tcase_add_test(tc, test_projects_fork);
	tcase_add_test(tc, test_projects_star);
	tcase_add_test(tc, test_projects_archive);
	tcase_add_test(tc, test_projects_housekeeping);
	suite_add_tcase(s, tc);
	return s;
}
