/* The API suites, run by tests/api/run against a live stack: those of Makefile.am's
 * API_SUITES (tests/api/suites.def, SUITE(name) for suite_<name>.c), in that order, or
 * those named on the command line (a lane of tests/api/run), in suites.def's order. */
#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

#define SUITE(name) Suite *suite_##name(void);
#include "tests/api/suites.def"
#undef SUITE

static const char *const suite_names[] = {
#define SUITE(name) #name,
#include "tests/api/suites.def"
#undef SUITE
};
enum { N_SUITES = sizeof suite_names / sizeof suite_names[0] };

/* Whether name is one of argv[1..argc-1] (all of them when there is none), and marks it
 * found so that a name no suite has is reported. */
static bool wanted(const char *name, int argc, char **argv, bool *found)
{
	if (argc < 2)
		return true;
	bool want = false;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			want = found[i] = true;
	return want;
}

int main(int argc, char **argv)
{
	bool *found = calloc((size_t)argc, sizeof *found);
	if (!found)
		return EXIT_FAILURE;
	curl_global_init(CURL_GLOBAL_ALL);
	SRunner *sr = srunner_create(NULL);
	int i = 0;
#define SUITE(name)                                                                                \
	if (wanted(suite_names[i++], argc, argv, found))                                           \
		srunner_add_suite(sr, suite_##name());
#include "tests/api/suites.def"
#undef SUITE
	int status = EXIT_SUCCESS;
	for (int a = 1; a < argc; a++)
		if (!found[a]) {
			fprintf(stderr, "test_api: no suite named %s (of %d in suites.def)\n",
				argv[a], (int)N_SUITES);
			status = EXIT_FAILURE;
		}
	if (status == EXIT_SUCCESS) {
		srunner_run_all(sr, CK_NORMAL);
		if (srunner_ntests_failed(sr))
			status = EXIT_FAILURE;
	}
	srunner_free(sr);
	curl_global_cleanup();
	free(found);
	return status;
}
