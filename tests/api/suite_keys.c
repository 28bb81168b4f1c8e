/* API suite: keys. */
#include <stdlib.h>
#include <string.h>

#include "client.h"

START_TEST(test_keys_requires_auth)
{
	resp *r = api("GET", "/user", NULL, NULL);
	ck_status(r, 401);
	resp_free(r);
}
END_TEST

Suite *suite_keys(void)
{
	Suite *s = suite_create("keys");
	TCase *tc = tcase_create("keys");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_keys_requires_auth);
	suite_add_tcase(s, tc);
	return s;
}
