/* Cron expressions of pipeline schedules, as GitLab 10's Gitlab::Ci::CronParser read
 * them (rufus-scheduler's CronLine): five fields -- minute, hour, day of month, month,
 * day of week -- each `*`, a value, a range `a-b`, a step `*\/n`, `a-b/n` or `a/n`
 * (a to the field's end), or a comma-separated list of those; months and days of the
 * week also by their English three-letter names (jan..dec, sun..sat, any case), day of
 * week 7 is Sunday; and rufus-scheduler's own: L, the last day of the month, as a day
 * of month, and w#n (mon#2: the second Monday; fri#-1: the last Friday) as a day of
 * week. As rufus-scheduler (and unlike vixie cron) a time must match both
 * the day of month and the day of week when both are given.
 *
 * Times are local times of a time zone of the tz database (/usr/share/zoneinfo, or
 * $TZDIR): a local time that a DST change skips does not happen (no run that day); one
 * that happens twice counts once, at its first occurrence. */
#ifndef COLLABD_CI_CRON_H
#define COLLABD_CI_CRON_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

typedef struct {
	uint64_t minutes; /* bit m: minute m */
	uint32_t hours;
	uint32_t days;    /* bit d: day d of the month (1..31) */
	uint16_t months;  /* bit m: month m (1..12) */
	uint8_t weekdays; /* bit w: w days after Sunday (0..6) */
	bool last_day;    /* L: the last day of the month */
	uint8_t nth[7];   /* w#n: bit n-1 of nth[w] (n 1..5), bit 5 for w#-1 (the last) */
} ci_cron;

/* Parses expr: 0, or ERR_INVALID when it is no valid expression. */
int ci_cron_parse(const char *expr, ci_cron *out);
/* Whether zone names a time zone of the tz database ("UTC", "Europe/Berlin"). */
bool ci_cron_zone_valid(const char *zone);
/* The first time after `after` that c names in zone (which must be valid): 0 with
 * *out, ERR_NOT_FOUND when none comes within 30 years (February 30th), ERR_INVALID when
 * the zone is not valid, ERR_INTERNAL (out of memory). Changes and restores TZ: not for
 * threads. */
int ci_cron_next(const ci_cron *c, const char *zone, time_t after, time_t *out);

/* The same for the expression text: ERR_INVALID also when it is not valid. */
int ci_cron_next_of(const char *expr, const char *zone, time_t after, time_t *out);

#endif
