/* Unit suite: ci/cron (the cron expressions of pipeline schedules and their next run in
 * a time zone, across months, years and DST changes). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ci/cron.h"
#include "core/errors.h"

/* "YYYY-MM-DDTHH:MM:SSZ" as epoch seconds. */
static time_t utc(const char *s)
{
	struct tm tm = {0};
	ck_assert_ptr_nonnull(strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm));
	return timegm(&tm);
}

/* Asserts that the next run of expr in zone after `after` (UTC text) is want (UTC). */
#define ck_next(expr, zone, after, want) ck_next_at(__LINE__, expr, zone, after, want)
static void ck_next_at(int line, const char *expr, const char *zone, const char *after,
		       const char *want)
{
	time_t t = 0;
	int rc = ci_cron_next_of(expr, zone, utc(after), &t);
	char got[32] = "(none)";
	if (rc == 0)
		strftime(got, sizeof(got), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	ck_assert_msg(rc == 0 && t == utc(want), "line %d: %s in %s after %s: want %s, got %s",
		      line, expr, zone, after, want, got);
}

START_TEST(test_cron_fields)
{
	ci_cron c;
	ck_assert_int_eq(ci_cron_parse("*/15 1,2 10-20/5 jan-MAR Mon-fri", &c), 0);
	ck_assert_uint_eq(c.minutes, (1ull << 0) | (1ull << 15) | (1ull << 30) | (1ull << 45));
	ck_assert_uint_eq(c.hours, (1u << 1) | (1u << 2));
	ck_assert_uint_eq(c.days, (1u << 10) | (1u << 15) | (1u << 20));
	ck_assert_uint_eq(c.months, (1u << 1) | (1u << 2) | (1u << 3));
	ck_assert_uint_eq(c.weekdays, 0x3e);
	/* 7 is Sunday; a/n runs to the end */
	ck_assert_int_eq(ci_cron_parse("5/20 0 1 * 7", &c), 0);
	ck_assert_uint_eq(c.minutes, (1ull << 5) | (1ull << 25) | (1ull << 45));
	ck_assert_uint_eq(c.weekdays, 1);
	ck_assert_int_eq(ci_cron_parse("  0   0\t* * *  ", &c), 0);
	/* rufus-scheduler's own */
	ck_assert_int_eq(ci_cron_parse("0 0 1,L * mon#2,fri#-1,sun", &c), 0);
	ck_assert(c.last_day);
	ck_assert_uint_eq(c.days, 1u << 1);
	ck_assert_uint_eq(c.weekdays, 1);
	ck_assert_uint_eq(c.nth[1], 1u << 1);
	ck_assert_uint_eq(c.nth[5], 1u << 5);
}
END_TEST

START_TEST(test_cron_invalid)
{
	static const char *const bad[] = {
		"",
		"* * * *",
		"* * * * * *",
		"60 * * * *",
		"* 24 * * *",
		"* * 0 * *",
		"* * 32 * *",
		"* * * 13 *",
		"* * * 0 *",
		"* * * * 8",
		"*/0 * * * *",
		"5-1 * * * *",
		"1,,2 * * * *",
		"1, * * * *",
		",1 * * * *",
		"a * * * *",
		"* * * janu *",
		"* * * * sunday",
		"-1 * * * *",
		"*-5 * * * *",
		"1-2-3 * * * *",
		"0 0 * * mon#6",
		"0 0 * * mon#0",
		"0 0 * * mon#",
		"0 0 * * #2",
		"0 0 L-2 * *",
		"0 0 * * mon#2/3",
		"0 0 * L *",
		"0 0 * * L",
		"L 0 * * *",
		"0 0 L/2 * *",
		"@daily",
		"0 0 * * * Europe/Berlin",
		"0001 * * * *",
		"*/61 * * * *",
		"1/ * * * *",
	};
	ci_cron c;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_msg(ci_cron_parse(bad[i], &c) < 0, "accepted \"%s\"", bad[i]);
	ck_assert_int_lt(ci_cron_parse(NULL, &c), 0);
}
END_TEST

/* Each failure is its named code (core/errors.h): what is not valid, and a time that
 * never comes. */
START_TEST(test_cron_codes)
{
	ci_cron c;
	time_t t;
	ck_assert_int_eq(ci_cron_parse("61 * * * *", &c), ERR_INVALID);
	ck_assert_int_eq(ci_cron_parse(NULL, &c), ERR_INVALID);
	ck_assert_int_eq(ci_cron_next_of("every day", "UTC", 0, &t), ERR_INVALID);
	ck_assert_int_eq(ci_cron_next_of("* * * * *", "Nowhere/Land", 0, &t), ERR_INVALID);
	ck_assert_int_eq(ci_cron_next_of("0 0 30 feb *", "UTC", utc("2027-01-01T00:00:00Z"), &t),
			 ERR_NOT_FOUND);
}
END_TEST

START_TEST(test_cron_zones)
{
	ck_assert(ci_cron_zone_valid("UTC"));
	ck_assert(ci_cron_zone_valid("Europe/Berlin"));
	ck_assert(ci_cron_zone_valid("America/New_York"));
	ck_assert(ci_cron_zone_valid("Etc/GMT+5"));
	static const char *const bad[] = {
		"",        "Mars/Olympus", "../../etc/passwd", "/etc/passwd", "Europe/../UTC",
		"Europe/", "UTC ",         "zone.tab",         "CET-1CEST",   "Europe//Berlin",
		".",       "-UTC"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_msg(!ci_cron_zone_valid(bad[i]), "accepted \"%s\"", bad[i]);
	ck_assert(!ci_cron_zone_valid(NULL));
	time_t t;
	ck_assert_int_lt(ci_cron_next_of("* * * * *", "Nowhere/Land", 0, &t), 0);
}
END_TEST

START_TEST(test_cron_next_utc)
{
	ck_next("* * * * *", "UTC", "2027-01-01T10:00:30Z", "2027-01-01T10:01:00Z");
	ck_next("* * * * *", "UTC", "2027-01-01T10:00:00Z", "2027-01-01T10:01:00Z");
	ck_next("0 4 * * *", "UTC", "2027-01-01T04:00:00Z", "2027-01-02T04:00:00Z");
	ck_next("0 4 * * *", "UTC", "2027-01-01T03:59:59Z", "2027-01-01T04:00:00Z");
	/* across months and years */
	ck_next("30 23 31 * *", "UTC", "2027-04-01T00:00:00Z", "2027-05-31T23:30:00Z");
	ck_next("0 0 1 jan *", "UTC", "2027-06-15T12:00:00Z", "2028-01-01T00:00:00Z");
	ck_next("0 12 29 2 *", "UTC", "2027-03-01T00:00:00Z", "2028-02-29T12:00:00Z");
	/* day of month AND day of week, as rufus-scheduler: Friday the 13th */
	ck_next("0 9 13 * fri", "UTC", "2027-01-01T00:00:00Z", "2027-08-13T09:00:00Z");
	ck_next("0 9 * * sun", "UTC", "2027-01-01T00:00:00Z", "2027-01-03T09:00:00Z");
	ck_next("0 9 * * 7", "UTC", "2027-01-01T00:00:00Z", "2027-01-03T09:00:00Z");
	ck_next("*/20 8-9 * * mon-fri", "UTC", "2027-01-01T09:45:00Z", "2027-01-04T08:00:00Z");
	/* the last day of the month, the second Monday, the last Friday */
	ck_next("0 0 L * *", "UTC", "2027-01-31T00:00:00Z", "2027-02-28T00:00:00Z");
	ck_next("0 0 L 2 *", "UTC", "2027-03-01T00:00:00Z", "2028-02-29T00:00:00Z");
	ck_next("0 9 * * mon#2", "UTC", "2027-01-01T00:00:00Z", "2027-01-11T09:00:00Z");
	ck_next("0 9 * * fri#-1", "UTC", "2027-01-01T00:00:00Z", "2027-01-29T09:00:00Z");
	ck_next("0 9 * * fri#-1", "UTC", "2027-01-29T09:00:00Z", "2027-02-26T09:00:00Z");
	/* never */
	time_t t;
	ck_assert_int_lt(ci_cron_next_of("0 0 30 feb *", "UTC", utc("2027-01-01T00:00:00Z"), &t),
			 0);
}
END_TEST

START_TEST(test_cron_next_zones)
{
	/* 04:00 in Berlin is 03:00 UTC in winter, 02:00 in summer */
	ck_next("0 4 * * *", "Europe/Berlin", "2027-01-10T12:00:00Z", "2027-01-11T03:00:00Z");
	ck_next("0 4 * * *", "Europe/Berlin", "2027-07-10T12:00:00Z", "2027-07-11T02:00:00Z");
	/* across the spring change (2027-03-28, 02:00 CET -> 03:00 CEST) */
	ck_next("0 4 * * *", "Europe/Berlin", "2027-03-27T03:00:00Z", "2027-03-28T02:00:00Z");
	ck_next("0 1 * * *", "Europe/Berlin", "2027-03-27T12:00:00Z", "2027-03-28T00:00:00Z");
	ck_next("0 3 * * *", "Europe/Berlin", "2027-03-27T12:00:00Z", "2027-03-28T01:00:00Z");
	/* 02:30 does not happen that day: the next is the day after */
	ck_next("30 2 * * *", "Europe/Berlin", "2027-03-27T12:00:00Z", "2027-03-29T00:30:00Z");
	/* across the autumn change (2027-10-31, 03:00 CEST -> 02:00 CET): 02:30 happens
	 * twice and runs once, at the first */
	ck_next("30 2 * * *", "Europe/Berlin", "2027-10-30T12:00:00Z", "2027-10-31T00:30:00Z");
	ck_next("30 2 * * *", "Europe/Berlin", "2027-10-31T00:30:00Z", "2027-11-01T01:30:00Z");
	/* the second 02:00 is skipped too: hourly runs leave one hour out */
	ck_next("0 * * * *", "Europe/Berlin", "2027-10-31T00:00:00Z", "2027-10-31T02:00:00Z");
	/* New York, and a zone ahead of UTC across the date line */
	ck_next("0 9 * * *", "America/New_York", "2027-01-10T00:00:00Z", "2027-01-10T14:00:00Z");
	ck_next("0 0 1 * *", "Asia/Tokyo", "2027-01-15T00:00:00Z", "2027-01-31T15:00:00Z");
	/* TZ is as it was */
	ck_assert_ptr_null(getenv("TZ"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cron");
	TCase *tc = tcase_create("cron");
	tcase_add_test(tc, test_cron_fields);
	tcase_add_test(tc, test_cron_invalid);
	tcase_add_test(tc, test_cron_codes);
	tcase_add_test(tc, test_cron_zones);
	tcase_add_test(tc, test_cron_next_utc);
	tcase_add_test(tc, test_cron_next_zones);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
