/* API suite: members. */
#include <stdlib.h>
#include <string.h>

#include "client.h"

START_TEST(test_members_unknown_route_shape)
{
	resp *r = api("GET", "/no_such_route_members", admin_token(), NULL);
	ck_status(r, 404);
	resp_free(r);
}
END_TEST

Suite *suite_members(void)
{
	Suite *s = suite_create("members");
	TCase *tc = tcase_create("members");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_members_unknown_route_shape);
	suite_add_tcase(s, tc);
	return s;
}
