/* API suite: notifications. */
#include <stdlib.h>
#include <string.h>

#include "client.h"

START_TEST(test_notifications_unknown_route_shape)
{
	resp *r = api("GET", "/no_such_route_notifications", admin_token(), NULL);
	ck_status(r, 404);
	resp_free(r);
}
END_TEST

Suite *suite_notifications(void)
{
	Suite *s = suite_create("notifications");
	TCase *tc = tcase_create("notifications");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_notifications_unknown_route_shape);
	suite_add_tcase(s, tc);
	return s;
}
