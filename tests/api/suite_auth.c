/* API suite: auth. */
#include <stdlib.h>
#include <string.h>

#include "client.h"

START_TEST(test_auth_requires_auth)
{
	resp *r = api("GET", "/user", NULL, NULL);
	ck_status(r, 401);
	resp_free(r);
}
END_TEST

Suite *suite_auth(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("auth");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_auth_requires_auth);
	suite_add_tcase(s, tc);
	return s;
}
