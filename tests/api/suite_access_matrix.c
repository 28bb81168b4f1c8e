/* API suite: access_matrix. */
#include <stdlib.h>
#include <string.h>

#include "client.h"

START_TEST(test_access_matrix_unknown_route_shape)
{
	resp *r = api("GET", "/no_such_route_access_matrix", admin_token(), NULL);
	ck_status(r, 404);
	resp_free(r);
}
END_TEST

Suite *suite_access_matrix(void)
{
	Suite *s = suite_create("access_matrix");
	TCase *tc = tcase_create("access_matrix");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_access_matrix_unknown_route_shape);
	suite_add_tcase(s, tc);
	return s;
}
