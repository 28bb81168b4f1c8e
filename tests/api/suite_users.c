/* API suite: users. */
#include <stdlib.h>
#include <string.h>

#include "client.h"

START_TEST(test_users_requires_auth)
{
	resp *r = api("GET", "/user", NULL, NULL);
	ck_status(r, 401);
	resp_free(r);
}
END_TEST

Suite *suite_users(void)
{
	Suite *s = suite_create("users");
	TCase *tc = tcase_create("users");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_users_requires_auth);
	suite_add_tcase(s, tc);
	return s;
}
