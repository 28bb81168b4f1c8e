/* The API suites, run by tests/api/run against a live stack: those of Makefile.am's
 * API_SUITES (tests/api/suites.def, SUITE(name) for suite_<name>.c), in that order. */
#include <curl/curl.h>
#include <stdlib.h>

#include "client.h"

#define SUITE(name) Suite *suite_##name(void);
#include "tests/api/suites.def"
#undef SUITE

int main(void)
{
	curl_global_init(CURL_GLOBAL_ALL);
	SRunner *sr = srunner_create(NULL);
#define SUITE(name) srunner_add_suite(sr, suite_##name());
#include "tests/api/suites.def"
#undef SUITE
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
