/* The API suites, run by tests/api/run against a live stack. */
#include <curl/curl.h>
#include <stdlib.h>

#include "client.h"

Suite *suite_conventions(void);
Suite *suite_auth(void);
Suite *suite_users(void);
Suite *suite_keys(void);
Suite *suite_broadcast(void);
Suite *suite_projects(void);
Suite *suite_groups(void);
Suite *suite_members(void);
Suite *suite_access_requests(void);
Suite *suite_notifications(void);
Suite *suite_events(void);
Suite *suite_access_matrix(void);
Suite *suite_authorizations(void);
Suite *suite_instances(void);
Suite *suite_cache(void);
Suite *suite_limits(void);
Suite *suite_hostile(void);

int main(void)
{
	curl_global_init(CURL_GLOBAL_ALL);
	SRunner *sr = srunner_create(suite_conventions());
	srunner_add_suite(sr, suite_auth());
	srunner_add_suite(sr, suite_users());
	srunner_add_suite(sr, suite_keys());
	srunner_add_suite(sr, suite_broadcast());
	srunner_add_suite(sr, suite_projects());
	srunner_add_suite(sr, suite_groups());
	srunner_add_suite(sr, suite_members());
	srunner_add_suite(sr, suite_access_requests());
	srunner_add_suite(sr, suite_notifications());
	srunner_add_suite(sr, suite_events());
	srunner_add_suite(sr, suite_access_matrix());
	srunner_add_suite(sr, suite_authorizations());
	srunner_add_suite(sr, suite_instances());
	srunner_add_suite(sr, suite_cache());
	srunner_add_suite(sr, suite_limits());
	srunner_add_suite(sr, suite_hostile());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
