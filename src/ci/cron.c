/* Cron expressions and their next run (ci/cron.h). */
#include "ci/cron.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/errors.h"

static const char *const MONTHS[] = {"jan", "feb", "mar", "apr", "may", "jun",
				     "jul", "aug", "sep", "oct", "nov", "dec"};
static const char *const DAYS[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

typedef struct {
	int min, max;
	const char *const *names; /* names[i] is min + i; NULL: none */
	int nnames;
} field_kind;

static const field_kind KINDS[5] = {
	{0, 59, NULL, 0}, {0, 23, NULL, 0}, {1, 31, NULL, 0}, {1, 12, MONTHS, 12}, {0, 7, DAYS, 7},
};

/* A value of kind k at *p (digits or a name), advancing *p: 0 or ERR_INVALID. */
static int field_value(const field_kind *k, const char **p, int *out)
{
	const char *s = *p;
	if (isdigit((unsigned char)*s)) {
		long v = 0;
		int n = 0;
		while (isdigit((unsigned char)*s) && n < 3) {
			v = v * 10 + (*s++ - '0');
			n++;
		}
		if (isdigit((unsigned char)*s) || v < k->min || v > k->max)
			return ERR_INVALID;
		*out = (int)v;
		*p = s;
		return 0;
	}
	for (int i = 0; i < k->nnames; i++)
		if (strncasecmp(s, k->names[i], 3) == 0 && !isalpha((unsigned char)s[3])) {
			*out = k->min + i;
			*p = s + 3;
			return 0;
		}
	return ERR_INVALID;
}

/* The items only rufus-scheduler's fields know: L (the last day of the month) in a day
 * of month, w#n (the n-th weekday w of the month, n 1 to 5, or -1: the last) in a day of
 * week. 1 when [s, e) starts with one (advancing *p), 0 when not, ERR_INVALID when
 * malformed. */
static int special_item(int field, const char **p, const char *e, ci_cron *c)
{
	const char *s = *p;
	if (field == 2 && *s == 'L' && (s + 1 == e || s[1] == ',')) {
		c->last_day = true;
		*p = s + 1;
		return 1;
	}
	if (field != 4)
		return 0;
	const char *hash = memchr(s, '#', (size_t)(e - s));
	const char *comma = memchr(s, ',', (size_t)(e - s));
	if (!hash || (comma && comma < hash))
		return 0;
	int w;
	const char *v = s;
	if (field_value(&KINDS[4], &v, &w) < 0 || v != hash)
		return ERR_INVALID;
	v++;
	int n;
	if (v[0] == '-' && v[1] == '1')
		n = -1, v += 2;
	else if (*v >= '1' && *v <= '5')
		n = *v++ - '0';
	else
		return ERR_INVALID;
	c->nth[w % 7] |= (uint8_t)(1u << (n < 0 ? 5 : n - 1));
	*p = v;
	return 1;
}

/* One field (a comma-separated list of items), number `field` (0 minute .. 4 day of
 * week), in [s, e): the bits of its values in *bits, the special items in c; 0 or
 * ERR_INVALID. */
static int field_parse(int field, const char *s, const char *e, uint64_t *bits, ci_cron *c)
{
	const field_kind *k = &KINDS[field];
	*bits = 0;
	for (;;) {
		int lo, hi, step = 1;
		int sp = special_item(field, &s, e, c);
		if (sp < 0)
			return ERR_INVALID;
		if (sp) {
			if (*s == '/')
				return ERR_INVALID;
			lo = 1, hi = 0; /* no plain value */
		} else if (*s == '*') {
			lo = k->min;
			hi = k->max;
			s++;
		} else {
			if (field_value(k, &s, &lo) < 0)
				return ERR_INVALID;
			hi = lo;
			if (*s == '-') {
				s++;
				if (field_value(k, &s, &hi) < 0 || hi < lo)
					return ERR_INVALID;
			} else if (*s == '/') {
				hi = k->max; /* a/n: from a to the end */
			}
		}
		if (*s == '/') {
			s++;
			if (!isdigit((unsigned char)*s))
				return ERR_INVALID;
			long n = 0;
			while (isdigit((unsigned char)*s) && n <= k->max)
				n = n * 10 + (*s++ - '0');
			if (isdigit((unsigned char)*s) || n < 1 || n > k->max + 1)
				return ERR_INVALID;
			step = (int)n;
		}
		for (int v = lo; v <= hi; v += step)
			*bits |= 1ull << v;
		if (s == e)
			return 0;
		if (*s != ',' || s + 1 == e)
			return ERR_INVALID;
		s++;
	}
}

int ci_cron_parse(const char *expr, ci_cron *out)
{
	if (!expr || strlen(expr) > 1000)
		return ERR_INVALID;
	uint64_t f[5];
	*out = (ci_cron){0};
	const char *s = expr;
	int n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		const char *e = s;
		while (*e && *e != ' ' && *e != '\t')
			e++;
		if (n == 5 || field_parse(n, s, e, &f[n], out) < 0)
			return ERR_INVALID;
		n++;
		s = e;
	}
	if (n != 5)
		return ERR_INVALID;
	out->minutes = f[0];
	out->hours = (uint32_t)f[1];
	out->days = (uint32_t)f[2];
	out->months = (uint16_t)f[3];
	/* 7 is Sunday too */
	out->weekdays = (uint8_t)((f[4] | (f[4] >> 7)) & 0x7f);
	return 0;
}

/* The tz database's directory. */
static const char *zone_dir(void)
{
	const char *d = getenv("TZDIR");
	return d && *d ? d : "/usr/share/zoneinfo";
}

bool ci_cron_zone_valid(const char *zone)
{
	if (!zone || !*zone || strlen(zone) > 100)
		return false;
	/* segments of [A-Za-z0-9_+-], none starting with a dot or a dash: no way out of
	 * the directory, nothing TZ would read as a POSIX rule */
	for (const char *s = zone; *s;) {
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
		while (isalnum((unsigned char)*s) || *s == '_' || *s == '+' || *s == '-')
			s++;
		if (*s == '/')
			s++;
		else if (*s)
			return false;
	}
	/* UTC is known without the tz database: TZ falls back to it */
	if (strcmp(zone, "UTC") == 0)
		return true;
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", zone_dir(), zone);
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char magic[4];
	bool ok = fread(magic, 1, 4, f) == 4 && memcmp(magic, "TZif", 4) == 0;
	fclose(f);
	return ok;
}

/* The local time y-m-d h:mi in the current TZ: 0 with *out, ERR_NOT_FOUND when it does not
 * exist (skipped by a DST change). When it happens twice, the first. */
static int local_time(int y, int m, int d, int h, int mi, time_t *out)
{
	bool found = false;
	for (int dst = 0; dst <= 1; dst++) {
		struct tm tm = {.tm_year = y - 1900,
				.tm_mon = m - 1,
				.tm_mday = d,
				.tm_hour = h,
				.tm_min = mi,
				.tm_isdst = dst};
		time_t t = mktime(&tm);
		if (t == (time_t)-1)
			continue;
		struct tm back;
		if (!localtime_r(&t, &back) || back.tm_hour != h || back.tm_min != mi ||
		    back.tm_mday != d || back.tm_mon != m - 1)
			continue;
		if (!found || t < *out)
			*out = t;
		found = true;
	}
	return found ? 0 : ERR_NOT_FOUND;
}

/* Day of month and day of week of the calendar day cal both match (rufus-scheduler:
 * AND, where vixie cron has OR). */
static bool day_match(const ci_cron *c, const struct tm *cal)
{
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y = cal->tm_year + 1900, d = cal->tm_mday;
	int last = mdays[cal->tm_mon] +
		   (cal->tm_mon == 1 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
	if (!(c->days & (1u << d)) && !(c->last_day && d == last))
		return false;
	if (c->weekdays & (1u << cal->tm_wday))
		return true;
	uint8_t nth = c->nth[cal->tm_wday];
	return ((nth & (1u << ((d - 1) / 7))) != 0) || ((nth & (1u << 5)) && d + 7 > last);
}

static int next_in_zone(const ci_cron *c, time_t after, time_t *out)
{
	struct tm now;
	if (!localtime_r(&after, &now))
		return ERR_INTERNAL;
	/* the local days from today on, as a calendar (UTC noons: no DST in the way) */
	struct tm day = {.tm_year = now.tm_year,
			 .tm_mon = now.tm_mon,
			 .tm_mday = now.tm_mday,
			 .tm_hour = 12};
	time_t noon = timegm(&day);
	for (int i = 0; i < 366 * 30; i++, noon += 86400) {
		struct tm cal;
		gmtime_r(&noon, &cal);
		int y = cal.tm_year + 1900, m = cal.tm_mon + 1, d = cal.tm_mday;
		if (!(c->months & (1u << m)) || !day_match(c, &cal))
			continue;
		for (int h = 0; h < 24; h++) {
			if (!(c->hours & (1u << h)))
				continue;
			for (int mi = 0; mi < 60; mi++) {
				if (!(c->minutes & (1ull << mi)))
					continue;
				time_t t = 0;
				if (local_time(y, m, d, h, mi, &t) == 0 && t > after) {
					*out = t;
					return 0;
				}
			}
		}
	}
	return ERR_NOT_FOUND;
}

int ci_cron_next(const ci_cron *c, const char *zone, time_t after, time_t *out)
{
	if (!ci_cron_zone_valid(zone))
		return ERR_INVALID;
	/* seconds do not count: the next whole minute after `after` */
	after -= after % 60;
	const char *old = getenv("TZ");
	char *saved = old ? strdup(old) : NULL;
	if (old && !saved)
		return ERR_INTERNAL;
	char tz[160];
	snprintf(tz, sizeof(tz), ":%s", zone);
	setenv("TZ", tz, 1);
	tzset();
	int rc = next_in_zone(c, after, out);
	if (saved) {
		setenv("TZ", saved, 1);
		free(saved);
	} else {
		unsetenv("TZ");
	}
	tzset();
	return rc;
}

int ci_cron_next_of(const char *expr, const char *zone, time_t after, time_t *out)
{
	ci_cron c;
	int rc = ci_cron_parse(expr, &c);
	return rc < 0 ? rc : ci_cron_next(&c, zone, after, out);
}
