/* API suite: application settings (GitLab 10.8's GET/PUT /application/settings): admin
 * only, 10.8's fields and defaults, PUT's types, allowed values, required pairs and
 * model validations (400, nothing changed), and the settings' effects on the rest of
 * the service. The settings are the instance's: every test case puts the defaults back
 * when it ends (settings_reset), pass or fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

#define AS "/application/settings"

/* The defaults, one version past the row's (the workers' copies see the change). */
static void settings_reset(void)
{
	free(sql_value("WITH o AS (DELETE FROM application_settings RETURNING version)"
		       " INSERT INTO application_settings (id, version)"
		       " SELECT 1, version + 1 FROM o RETURNING id"));
}

/* The stack's default_branch_protection before the suite (tests/api/run makes it 0 for
 * the other suites), put back when the suite ends. */
static long long stack_protection = -1;

static void suite_begin(void)
{
	stack_protection = sql_int("SELECT default_branch_protection FROM application_settings");
}

static void suite_end(void)
{
	settings_reset();
	if (stack_protection >= 0)
		free(sql_value("UPDATE application_settings SET default_branch_protection = %lld,"
			       " version = version + 1 RETURNING id",
			       stack_protection));
}

static resp *put(const char *form)
{
	return api("PUT", AS, admin_token(), form);
}

/* Asserts a PUT answered 400 with {"error": want} and left the settings as before. */
static void ck_put_error(const char *form, const char *want)
{
	resp *before = api("GET", AS, admin_token(), NULL);
	ck_status(before, 200);
	resp *r = put(form);
	ck_status(r, 400);
	ck_jstr(r, "error", want);
	resp *after = api("GET", AS, admin_token(), NULL);
	ck_assert_str_eq(before->body, after->body);
	resp_free(before);
	resp_free(r);
	resp_free(after);
}

/* Asserts a PUT answered 400 with {"message": {field: [want]}} and changed nothing. */
static void ck_put_invalid(const char *form, const char *field, const char *want)
{
	resp *before = api("GET", AS, admin_token(), NULL);
	resp *r = put(form);
	ck_status(r, 400);
	json_object *list = jget(jget(r->json, "message"), field);
	ck_assert_msg(list && json_object_is_type(list, json_type_array), "no %s in %s", field,
		      r->body);
	bool found = false;
	for (size_t i = 0; i < json_object_array_length(list); i++)
		found = found ||
			!strcmp(json_object_get_string(json_object_array_get_idx(list, i)), want);
	ck_assert_msg(found, "%s: no \"%s\" in %s", field, want, r->body);
	resp *after = api("GET", AS, admin_token(), NULL);
	ck_assert_str_eq(before->body, after->body);
	resp_free(before);
	resp_free(r);
	resp_free(after);
}

static void ck_strs(json_object *o, const char *key, const char *const *want, int n)
{
	json_object *a = jget(o, key);
	ck_assert_msg(a && json_object_is_type(a, json_type_array), "%s is no array", key);
	ck_assert_int_eq((int)json_object_array_length(a), n);
	for (int i = 0; i < n; i++)
		ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(a, (size_t)i)),
				 want[i]);
}

START_TEST(test_settings_access)
{
	resp *r = api("GET", AS, NULL, NULL);
	ck_body(r, 401, "{\"message\":\"401 Unauthorized\"}");
	resp_free(r);
	long long uid;
	char *user = make_user("setu", &uid, NULL);
	r = api("GET", AS, user, NULL);
	ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
	resp_free(r);
	r = api("PUT", AS, user, "signup_enabled=false");
	ck_body(r, 403, "{\"message\":\"403 Forbidden\"}");
	resp_free(r);
	r = api("PUT", AS, NULL, "signup_enabled=false");
	ck_status(r, 401);
	resp_free(r);
	r = api("GET", AS, admin_token(), NULL);
	ck_status(r, 200);
	ck_assert(jbool(r->json, "signup_enabled"));
	ck_header(r, "Content-Type", "application/json");
	resp_free(r);
	free(user);
}
END_TEST

START_TEST(test_settings_defaults)
{
	resp *r = api("GET", AS, admin_token(), NULL);
	ck_status(r, 200);
	json_object *o = r->json;
	ck_assert_msg(jint(o, "id") == 1, "%s", r->body);
	ck_assert_int_eq(jint(o, "default_projects_limit"), 100000);
	ck_assert_int_eq(jint(o, "default_branch_protection"), 2);
	ck_assert_int_eq(jint(o, "max_attachment_size"), 10);
	ck_assert_int_eq(jint(o, "max_artifacts_size"), 100);
	ck_assert_int_eq(jint(o, "max_import_size"), 50);
	ck_assert_int_eq(jint(o, "session_expire_delay"), 10080);
	ck_assert_int_eq(jint(o, "container_registry_token_expire_delay"), 5);
	ck_assert_int_eq(jint(o, "two_factor_grace_period"), 48);
	ck_assert_int_eq(jint(o, "housekeeping_gc_period"), 200);
	ck_jstr(r, "default_project_visibility", "private");
	ck_jstr(r, "default_group_visibility", "private");
	ck_jstr(r, "default_snippet_visibility", "private");
	ck_jstr(r, "default_artifacts_expire_in", "30 days");
	ck_assert(jbool(o, "signup_enabled"));
	ck_assert(jbool(o, "password_authentication_enabled_for_git"));
	ck_assert(jbool(o, "password_authentication_enabled_for_web"));
	ck_assert(jbool(o, "password_authentication_enabled"));
	ck_assert(jbool(o, "signin_enabled"));
	ck_assert(jbool(o, "gravatar_enabled"));
	ck_assert(!jbool(o, "allow_local_requests_from_hooks_and_services"));
	ck_assert(!jbool(o, "user_default_external"));
	ck_assert(jnull(o, "home_page_url"));
	ck_assert(jnull(o, "akismet_api_key"));
	ck_strs(o, "restricted_visibility_levels", NULL, 0);
	ck_jstr(r, "domain_whitelist_raw", "");
	static const char *const storages[] = {"default"};
	ck_strs(o, "repository_storages", storages, 1);
	ck_assert_int_eq((int)json_object_array_length(jget(o, "import_sources")), 9);
	json_object *m = jget(o, "polling_interval_multiplier");
	ck_assert(json_object_is_type(m, json_type_double));
	ck_assert_msg(strstr(r->body, "\"polling_interval_multiplier\":1.0"), "%s", r->body);
	/* 10.8's visible attributes, the id, the two legacy names and max_import_size
	 * (GitLab's, for project imports) */
	ck_assert_int_eq(json_object_object_length(o), 114);
	resp_free(r);
}
END_TEST

START_TEST(test_settings_update)
{
	resp *r =
		put("default_projects_limit=42&signup_enabled=false&default_project_visibility="
		    "internal&restricted_visibility_levels[]=public&restricted_visibility_"
		    "levels[]=10&home_page_url=https%3A%2F%2Fexample.com%2Fhome&"
		    "polling_interval_multiplier=1.5&import_sources[]=github&import_sources[]=git");
	ck_status(r, 200);
	ck_assert_int_eq(jint(r->json, "default_projects_limit"), 42);
	ck_assert(!jbool(r->json, "signup_enabled"));
	ck_jstr(r, "default_project_visibility", "internal");
	static const char *const levels[] = {"internal", "public"};
	ck_strs(r->json, "restricted_visibility_levels", levels, 2);
	ck_jstr(r, "home_page_url", "https://example.com/home");
	static const char *const sources[] = {"github", "git"};
	ck_strs(r->json, "import_sources", sources, 2);
	resp *g = api("GET", AS, admin_token(), NULL);
	ck_assert_str_eq(g->body, r->body);
	resp_free(g);
	resp_free(r);

	/* legacy names of password_authentication_enabled_for_web */
	r = put("signin_enabled=false&signup_enabled=true");
	ck_status(r, 200);
	ck_assert(!jbool(r->json, "password_authentication_enabled_for_web"));
	ck_assert(!jbool(r->json, "signin_enabled"));
	resp_free(r);
	r = put("password_authentication_enabled=true&gravatar_enabled=true");
	ck_status(r, 200);
	ck_assert(jbool(r->json, "password_authentication_enabled_for_web"));
	resp_free(r);

	/* a required pair, given; the secret kept sealed, shown to the admin */
	r = put("akismet_enabled=true&akismet_api_key=s3cr3t-akismet");
	ck_status(r, 200);
	ck_jstr(r, "akismet_api_key", "s3cr3t-akismet");
	resp_free(r);
	char *stored = sql_value("SELECT akismet_api_key_sealed FROM application_settings");
	ck_assert_msg(*stored && !strstr(stored, "s3cr3t"), "stored in the clear: %s", stored);
	free(stored);

	/* restricted levels emptied by an empty JSON array, and by a comma list of none */
	r = put("restricted_visibility_levels[]=private");
	ck_status(r, 200);
	resp_free(r);
	r = api_json("PUT", AS, admin_token(), "{\"restricted_visibility_levels\":[]}");
	ck_status(r, 200);
	ck_strs(r->json, "restricted_visibility_levels", NULL, 0);
	resp_free(r);
	r = put("restricted_visibility_levels[]=private");
	ck_status(r, 200);
	resp_free(r);
	r = api_json("PUT", AS, admin_token(),
		     "{\"restricted_visibility_levels\":\"\",\"domain_whitelist\":"
		     "[\"example.com\",\"*.example.org\"],\"max_attachment_size\":25}");
	ck_status(r, 200);
	ck_strs(r->json, "restricted_visibility_levels", NULL, 0);
	ck_jstr(r, "domain_whitelist_raw", "example.com\n*.example.org");
	ck_assert_int_eq(jint(r->json, "max_attachment_size"), 25);
	ck_assert_int_eq(jint(r->json, "default_projects_limit"), 42); /* kept */
	resp_free(r);
	/* 10.8's string of domains, under either name */
	r = put("domain_blacklist_enabled=true&domain_blacklist=a.example%2C%20b.example%3Bc.example");
	ck_status(r, 200);
	ck_assert(jbool(r->json, "domain_blacklist_enabled"));
	ck_jstr(r, "domain_blacklist_raw", "a.example\nb.example\nc.example");
	resp_free(r);
	r = put("domain_whitelist_raw=x.example%0Ay.example");
	ck_status(r, 200);
	ck_jstr(r, "domain_whitelist_raw", "x.example\ny.example");
	resp_free(r);
}
END_TEST

START_TEST(test_settings_update_errors)
{
	resp *r = put(NULL);
	ck_status(r, 400);
	const char *e = jstr(r->json, "error");
	ck_assert_msg(e && strstr(e, "admin_notification_email, after_sign_out_path,") == e &&
			      strstr(e, " are missing, at least one parameter must be provided"),
		      "%s", r->body);
	resp_free(r);
	/* 10.8's at_least_one_of names the visible attributes only */
	r = put("signin_enabled=false");
	ck_status(r, 400);
	ck_assert_msg(strstr(jstr(r->json, "error"), "at least one parameter must be provided"),
		      "%s", r->body);
	resp_free(r);
	ck_put_error("default_projects_limit=abc", "default_projects_limit is invalid");
	ck_put_error("signup_enabled=maybe", "signup_enabled is invalid");
	ck_put_error("default_branch_protection=3",
		     "default_branch_protection does not have a valid value");
	ck_put_error("default_project_visibility=secret",
		     "default_project_visibility does not have a valid value");
	ck_put_error("import_sources[]=svn", "import_sources does not have a valid value");
	ck_put_error("enabled_git_access_protocol=ftp",
		     "enabled_git_access_protocol does not have a valid value");
	ck_put_error("domain_blacklist_enabled=true", "domain_blacklist is missing");
	ck_put_error("recaptcha_enabled=true&recaptcha_site_key=k",
		     "recaptcha_private_key is missing");
	ck_put_error(
		"metrics_enabled=true&metrics_host=h",
		"metrics_port is missing, metrics_pool_size is missing, metrics_timeout is "
		"missing, metrics_method_call_threshold is missing, metrics_sample_interval is "
		"missing, metrics_packet_size is missing");
	/* a good value does not go in with a bad one */
	ck_put_error("signup_enabled=false&max_attachment_size=x",
		     "max_attachment_size is invalid");
	ck_put_error("signin_enabled=false&password_authentication_enabled_for_web=false",
		     "password_authentication_enabled_for_web, signin_enabled are mutually "
		     "exclusive");
	ck_put_invalid("max_attachment_size=0", "max_attachment_size", "must be greater than 0");
	ck_put_invalid("signup_enabled=false&default_projects_limit=-1", "default_projects_limit",
		       "must be greater than or equal to 0");
	ck_put_invalid("restricted_visibility_levels[]=secret", "restricted_visibility_levels",
		       "'secret' is not a valid visibility level");
	ck_put_invalid("housekeeping_full_repack_period=5", "housekeeping_full_repack_period",
		       "must be greater than or equal to 10");
	ck_put_invalid("home_page_url=not%20a%20url", "home_page_url", "must be a valid URL");
	ck_put_invalid("repository_storages[]=other", "repository_storages",
		       "can't include: other");
	ck_put_invalid("default_artifacts_expire_in=soon", "default_artifacts_expire_in",
		       "is not a correct duration");
	ck_put_error("rsa_key_restriction=1000", "rsa_key_restriction does not have a valid value");
	ck_put_invalid("domain_blacklist_enabled=true&domain_blacklist=", "domain_blacklist",
		       "Domain blacklist cannot be empty if Blacklist is enabled.");
	ck_put_invalid("plantuml_enabled=true&plantuml_url=", "plantuml_url", "can't be blank");
	r = api_json("PUT", AS, admin_token(), "{\"max_attachment_size\":null}");
	ck_status(r, 400);
	resp_free(r);
}
END_TEST

/* ---- the settings' effects ---- */

/* The visibility of a new project (POST /projects without one) of token's user. */
static char *new_project_visibility(const char *token, const char *extra)
{
	char *form = fmt("name=%s%s", S(unique("sp")), extra ? extra : "");
	resp *r = api("POST", "/projects", token, form);
	ck_status(r, 201);
	char *v = strdup(jstr(r->json, "visibility"));
	resp_free(r);
	free(form);
	return v;
}

static void ck_restricted(resp *r, const char *level)
{
	ck_status(r, 400);
	char *want = fmt("{\"message\":{\"visibility_level\":[\"%s has been restricted by your "
			 "GitLab administrator\"]}}",
			 level);
	ck_body(r, 400, want);
	free(want);
}

START_TEST(test_settings_default_visibility)
{
	long long uid;
	char *user = make_user("setv", &uid, NULL);
	char *v = new_project_visibility(user, NULL);
	ck_assert_str_eq(v, "private");
	free(v);
	resp *r = put("default_project_visibility=internal&default_group_visibility=public&"
		      "default_snippet_visibility=public");
	ck_status(r, 200);
	resp_free(r);
	v = new_project_visibility(user, NULL);
	ck_assert_str_eq(v, "internal");
	free(v);
	v = new_project_visibility(user, "&visibility=private"); /* given: as given */
	ck_assert_str_eq(v, "private");
	free(v);
	char *g = unique("sg");
	r = api("POST", "/groups", user, S(fmt("name=%s&path=%s", g, g)));
	ck_status(r, 201);
	ck_jstr(r, "visibility", "public");
	long long gid = jint(r->json, "id");
	resp_free(r);
	/* a subgroup's default is at most its parent's */
	r = api("PUT", S(fmt("/groups/%lld", gid)), user, "visibility=private");
	ck_status(r, 200);
	resp_free(r);
	char *sub = unique("ss");
	r = api("POST", "/groups", user, S(fmt("name=%s&path=%s&parent_id=%lld", sub, sub, gid)));
	ck_status(r, 201);
	ck_jstr(r, "visibility", "private");
	resp_free(r);
	/* a project in a private group: the default, capped at the group's */
	v = new_project_visibility(user, S(fmt("&namespace_id=%lld", gid)));
	ck_assert_str_eq(v, "private");
	free(v);
	r = api("GET", AS, admin_token(), NULL);
	ck_jstr(r, "default_snippet_visibility", "public");
	resp_free(r);
	free(g);
	free(sub);
	free(user);
	release();
}
END_TEST

START_TEST(test_settings_restricted_levels)
{
	long long uid;
	char *user = make_user("setr", &uid, NULL);
	resp *r = put("restricted_visibility_levels[]=public&restricted_visibility_levels[]="
		      "internal");
	ck_status(r, 200);
	resp_free(r);
	/* projects: created or changed to a restricted level, not by a user; by an admin */
	char *name = unique("rp");
	r = api("POST", "/projects", user, S(fmt("name=%s&visibility=public", name)));
	ck_restricted(r, "Public");
	resp_free(r);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM projects WHERE name = '%s'", name), 0);
	r = api("POST", "/projects", admin_token(), S(fmt("name=%s&visibility=public", name)));
	ck_status(r, 201);
	resp_free(r);
	long long pid = api_project(user, "private", NULL);
	r = api("PUT", S(fmt("/projects/%lld", pid)), user, "visibility=internal");
	ck_restricted(r, "Internal");
	resp_free(r);
	r = api("GET", S(fmt("/projects/%lld", pid)), user, NULL);
	ck_jstr(r, "visibility", "private");
	resp_free(r);
	r = api("PUT", S(fmt("/projects/%lld", pid)), user, "description=still");
	ck_status(r, 200);
	resp_free(r);
	/* the default of a project is checked too */
	r = put("default_project_visibility=internal");
	ck_status(r, 200);
	resp_free(r);
	r = api("POST", "/projects", user, S(fmt("name=%s", S(unique("rp")))));
	ck_restricted(r, "Internal");
	resp_free(r);
	/* groups */
	char *g = S(unique("rg"));
	r = api("POST", "/groups", user, S(fmt("name=%s&path=%s&visibility=public", g, g)));
	ck_restricted(r, "Public");
	resp_free(r);
	r = api("POST", "/groups", user, S(fmt("name=%s&path=%s&visibility=private", g, g)));
	ck_status(r, 201);
	long long gid = jint(r->json, "id");
	resp_free(r);
	r = api("PUT", S(fmt("/groups/%lld", gid)), user, "visibility=internal");
	ck_restricted(r, "Internal");
	resp_free(r);
	r = api("PUT", S(fmt("/groups/%lld", gid)), admin_token(), "visibility=internal");
	ck_status(r, 200);
	resp_free(r);
	/* project snippets */
	r = api("POST", S(fmt("/projects/%lld/snippets", pid)), user,
		"title=t&file_name=f.txt&code=x&visibility=internal");
	ck_restricted(r, "Internal");
	resp_free(r);
	r = api("POST", S(fmt("/projects/%lld/snippets", pid)), user,
		"title=t&file_name=f.txt&code=x&visibility=private");
	ck_status(r, 201);
	long long sid = jint(r->json, "id");
	resp_free(r);
	r = api("PUT", S(fmt("/projects/%lld/snippets/%lld", pid, sid)), user, "visibility=public");
	ck_restricted(r, "Public");
	resp_free(r);
	r = api("PUT", S(fmt("/projects/%lld/snippets/%lld", pid, sid)), user,
		"visibility=private&title=u");
	ck_status(r, 200);
	resp_free(r);
	free(name);
	free(user);
	release();
}
END_TEST

START_TEST(test_settings_new_users)
{
	resp *r = put("default_projects_limit=7&user_default_external=true");
	ck_status(r, 200);
	resp_free(r);
	char *n = S(unique("nu"));
	r = api("POST", "/users", admin_token(),
		S(fmt("username=%s&email=%s%%40example.com&name=%s&password=secret1234", n, n, n)));
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "projects_limit"), 7);
	ck_assert(jbool(r->json, "external"));
	resp_free(r);
	n = S(unique("nu"));
	r = api("POST", "/users", admin_token(),
		S(fmt("username=%s&email=%s%%40example.com&name=%s&password=secret1234&"
		      "projects_limit=3&external=false",
		      n, n, n)));
	ck_status(r, 201);
	ck_assert_int_eq(jint(r->json, "projects_limit"), 3);
	ck_assert(!jbool(r->json, "external"));
	resp_free(r);
	release();
}
END_TEST

/* GET <path>.git/info/refs?service=git-upload-pack as login:password: the status. */
static long git_refs_as(const char *login, const char *password, const char *path)
{
	const char *base = api_url();
	char *url = fmt("http://%s:%s@%s/%s.git/info/refs?service=git-upload-pack", login, password,
			base + strlen("http://"), path);
	resp *r = http_request("GET", url, NULL, NULL, 0, NULL);
	long status = r->status;
	resp_free(r);
	free(url);
	return status;
}

START_TEST(test_settings_git_password)
{
	long long uid;
	char *username;
	char *token = make_user("setg", &uid, &username);
	char *path;
	api_project(token, "private", &path);
	ck_assert_int_eq(git_refs_as(username, "secret1234", path), 200);
	ck_assert_int_eq(git_refs_as(username, "wrong", path), 401);
	resp *r = put("password_authentication_enabled_for_git=false");
	ck_status(r, 200);
	resp_free(r);
	ck_assert_int_eq(git_refs_as(username, "secret1234", path), 401);
	ck_assert_int_eq(git_refs_as(username, token, path), 200); /* tokens still work */
	char *oauth = oauth_password_token(username, "secret1234");
	ck_assert_msg(oauth == NULL, "a password grant while passwords are off");
	r = put("password_authentication_enabled_for_git=true");
	ck_status(r, 200);
	resp_free(r);
	ck_assert_int_eq(git_refs_as(username, "secret1234", path), 200);
	free(token);
	free(username);
	free(path);
}
END_TEST

/* The first push into the empty repository of a new project of token's, of master: the
 * branch as GET .../repository/branches/master shows it. */
static resp *first_push(const char *token, const char *path, long long pid)
{
	char *work = git_work_new();
	const char *base = api_url();
	char *url = fmt("http://u:%s@%s/%s.git", token, base + strlen("http://"), path);
	char *out = NULL;
	int rc = git_sh(work, &out,
			"init -q w && git -C w commit -q --allow-empty -m first && "
			"git -C w push -q '%s' master",
			url);
	ck_assert_msg(rc == 0, "push: %s", out ? out : "");
	free(out);
	free(url);
	git_work_remove(work);
	return api("GET", S(fmt("/projects/%lld/repository/branches/master", pid)), token, NULL);
}

START_TEST(test_settings_branch_protection)
{
	long long uid;
	char *token = make_user("setb", &uid, NULL);
	/* 10.8's default, 2: protected, masters push and merge */
	char *path;
	long long pid = api_project(token, "private", &path);
	resp *r = first_push(token, path, pid);
	ck_status(r, 200);
	ck_assert(jbool(r->json, "protected"));
	ck_assert(!jbool(r->json, "developers_can_push"));
	ck_assert(!jbool(r->json, "developers_can_merge"));
	resp_free(r);
	free(path);
	/* 1: developers push */
	r = put("default_branch_protection=1");
	ck_status(r, 200);
	resp_free(r);
	pid = api_project(token, "private", &path);
	r = first_push(token, path, pid);
	ck_assert(jbool(r->json, "protected"));
	ck_assert(jbool(r->json, "developers_can_push"));
	ck_assert(!jbool(r->json, "developers_can_merge"));
	resp_free(r);
	/* a later new branch is not the first push: not protected */
	r = api("POST", S(fmt("/projects/%lld/repository/branches", pid)), token,
		"branch=feature&ref=master");
	ck_status(r, 201);
	ck_assert(!jbool(r->json, "protected"));
	resp_free(r);
	free(path);
	/* 0: not protected */
	r = put("default_branch_protection=0");
	ck_status(r, 200);
	resp_free(r);
	pid = api_project(token, "private", &path);
	r = first_push(token, path, pid);
	ck_assert(!jbool(r->json, "protected"));
	resp_free(r);
	/* the first commit through the API: the same rule */
	r = put("default_branch_protection=2");
	ck_status(r, 200);
	resp_free(r);
	long long p2 = api_project(token, "private", NULL);
	r = api("POST", S(fmt("/projects/%lld/repository/files/README.md", p2)), token,
		"branch=master&content=hello&commit_message=first");
	ck_status(r, 201);
	resp_free(r);
	r = api("GET", S(fmt("/projects/%lld/repository/branches/master", p2)), token, NULL);
	ck_assert(jbool(r->json, "protected"));
	resp_free(r);
	free(path);
	free(token);
	release();
}
END_TEST

/* ---- two instances on one database ---- */

static char *instance_url[2];

static resp *on(int i, const char *method, const char *path, const char *token, const char *form)
{
	char *url = fmt("%s/api/v4%s", instance_url[i], path);
	char *auth = token ? fmt("PRIVATE-TOKEN: %s", token) : NULL;
	const char *headers[] = {auth, NULL};
	resp *r = R(http_request(method, url, headers, form, form ? strlen(form) : 0,
				 form ? "application/x-www-form-urlencoded" : NULL));
	free(url);
	free(auth);
	return r;
}

/* A PUT through one instance is what the next request through the other sees, on
 * whichever of its workers (each had read the settings before). */
START_TEST(test_settings_instances)
{
	const char *e = getenv("COLLABD_INSTANCE_URLS");
	ck_assert_msg(e != NULL, "COLLABD_INSTANCE_URLS must name one URL per instance");
	char *copy = S(strdup(e)), *save = NULL;
	int n = 0;
	for (char *u = strtok_r(copy, " ", &save); u && n < 2; u = strtok_r(NULL, " ", &save))
		instance_url[n++] = u;
	ck_assert_int_eq(n, 2);
	long long uid;
	char *user = S(make_user("seti", &uid, NULL));
	static const char *const levels[] = {"internal", "public", "private", "internal"};
	for (int round = 0; round < 4; round++) {
		/* every worker of instance 2 reads the settings as they are */
		for (int k = 0; k < 8; k++)
			ck_code(on(1, "POST", "/projects", user,
				   S(fmt("name=%s", S(unique("si"))))),
				201);
		resp *r = on(0, "PUT", AS, admin_token(),
			     S(fmt("default_project_visibility=%s", levels[round])));
		ck_status(r, 200);
		for (int k = 0; k < 8; k++) {
			r = on(1, "POST", "/projects", user, S(fmt("name=%s", S(unique("si")))));
			ck_status(r, 201);
			ck_jstr(r, "visibility", levels[round]);
		}
		r = on(1, "GET", AS, admin_token(), NULL);
		ck_jstr(r, "default_project_visibility", levels[round]);
	}
	release();
}
END_TEST

Suite *suite_settings(void)
{
	Suite *s = suite_create("settings");
	TCase *tc = tcase_create("settings");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, suite_begin, suite_end);
	tcase_add_checked_fixture(tc, settings_reset, release);
	tcase_add_test(tc, test_settings_access);
	tcase_add_test(tc, test_settings_defaults);
	tcase_add_test(tc, test_settings_update);
	tcase_add_test(tc, test_settings_update_errors);
	tcase_add_test(tc, test_settings_default_visibility);
	tcase_add_test(tc, test_settings_restricted_levels);
	tcase_add_test(tc, test_settings_new_users);
	tcase_add_test(tc, test_settings_git_password);
	tcase_add_test(tc, test_settings_branch_protection);
	tcase_add_test(tc, test_settings_instances);
	suite_add_tcase(s, tc);
	return s;
}
