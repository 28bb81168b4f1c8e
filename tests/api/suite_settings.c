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
	ck_strs(o, "domain_whitelist", NULL, 0);
	static const char *const storages[] = {"default"};
	ck_strs(o, "repository_storages", storages, 1);
	ck_assert_int_eq((int)json_object_array_length(jget(o, "import_sources")), 9);
	json_object *m = jget(o, "polling_interval_multiplier");
	ck_assert(json_object_is_type(m, json_type_double));
	ck_assert_msg(strstr(r->body, "\"polling_interval_multiplier\":1.0"), "%s", r->body);
	/* 10.8's visible attributes, the id and the two legacy names */
	ck_assert_int_eq(json_object_object_length(o), 113);
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
	r = put("signin_enabled=false");
	ck_status(r, 200);
	ck_assert(!jbool(r->json, "password_authentication_enabled_for_web"));
	ck_assert(!jbool(r->json, "signin_enabled"));
	resp_free(r);
	r = put("password_authentication_enabled=true");
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

	/* restricted levels emptied by a comma list of none; JSON bodies with arrays */
	r = api_json("PUT", AS, admin_token(),
		     "{\"restricted_visibility_levels\":\"\",\"domain_whitelist\":"
		     "[\"example.com\",\"*.example.org\"],\"max_attachment_size\":25}");
	ck_status(r, 200);
	ck_strs(r->json, "restricted_visibility_levels", NULL, 0);
	static const char *const domains[] = {"example.com", "*.example.org"};
	ck_strs(r->json, "domain_whitelist", domains, 2);
	ck_assert_int_eq(jint(r->json, "max_attachment_size"), 25);
	ck_assert_int_eq(jint(r->json, "default_projects_limit"), 42); /* kept */
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
	ck_put_error("metrics_enabled=true&metrics_host=h",
		     "metrics_method_call_threshold is missing, metrics_packet_size is missing, "
		     "metrics_pool_size is missing, metrics_port is missing, "
		     "metrics_sample_interval is missing, metrics_timeout is missing");
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
	ck_put_invalid("rsa_key_restriction=1000", "rsa_key_restriction",
		       "must be forbidden, allowed, or one of these sizes: 1024, 2048, 3072, 4096");
	ck_put_invalid("domain_blacklist_enabled=true&domain_blacklist=", "domain_blacklist",
		       "Domain blacklist cannot be empty if Blacklist is enabled.");
	ck_put_invalid("plantuml_enabled=true&plantuml_url=", "plantuml_url", "can't be blank");
	r = api_json("PUT", AS, admin_token(), "{\"max_attachment_size\":null}");
	ck_status(r, 400);
	resp_free(r);
}
END_TEST

static void unchecked_reset(void)
{
	settings_reset();
}

Suite *suite_settings(void)
{
	Suite *s = suite_create("settings");
	TCase *tc = tcase_create("settings");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, unchecked_reset, unchecked_reset);
	tcase_add_checked_fixture(tc, settings_reset, NULL);
	tcase_add_test(tc, test_settings_access);
	tcase_add_test(tc, test_settings_defaults);
	tcase_add_test(tc, test_settings_update);
	tcase_add_test(tc, test_settings_update_errors);
	suite_add_tcase(s, tc);
	return s;
}
