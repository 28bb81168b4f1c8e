/* API suite: conventions. */
#include <stdlib.h>
#include <string.h>

#include "client.h"

START_TEST(test_conventions_requires_auth)
{
	resp *r = api("GET", "/user", NULL, NULL);
	ck_status(r, 401);
	resp_free(r);
}
END_TEST

Suite *suite_conventions(void)
{
	Suite *s = suite_create("conventions");
	TCase *tc = tcase_create("conventions");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_conventions_requires_auth);
	suite_add_tcase(s, tc);
	return s;
}
