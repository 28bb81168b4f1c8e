#include "core/validate.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool valid_namespace_path(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 255 || s[0] == '-' || s[n - 1] == '.')
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			return false;
	return !ends_with(s, ".git") && !ends_with(s, ".atom");
}

bool valid_project_path(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 255 || s[0] == '-' || strspn(s, ".") == n)
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			return false;
	return !ends_with(s, ".git") && !ends_with(s, ".atom");
}

static const char *const top_level_routes[] = {
	"-",
	".well-known",
	"404.html",
	"422.html",
	"500.html",
	"502.html",
	"503.html",
	"_internal",
	"abuse_reports",
	"admin",
	"all",
	"api",
	"apple-touch-icon-precomposed.png",
	"apple-touch-icon.png",
	"assets",
	"autocomplete",
	"ci",
	"dashboard",
	"deploy.html",
	"explore",
	"favicon.ico",
	"files",
	"groups",
	"header_logo_dark.png",
	"header_logo_light.png",
	"health_check",
	"help",
	"hooks",
	"import",
	"invites",
	"issues",
	"jwt",
	"koding",
	"member",
	"merge_requests",
	"new",
	"notes",
	"notification_settings",
	"oauth",
	"profile",
	"projects",
	"public",
	"repository",
	"robots.txt",
	"s",
	"search",
	"sent_notifications",
	"services",
	"slash-command-logo.png",
	"snippets",
	"system",
	"teams",
	"u",
	"unicorn_test",
	"unsubscribes",
	"uploads",
	"users",
	NULL,
};

static const char *const project_wildcard_routes[] = {
	"-",          "badges", "blame",  "blob",      "builds", "commits", "create",
	"create_dir", "edit",   "files",  "find_file", "new",    "preview", "raw",
	"refs",       "tree",   "update", "wikis",     NULL,
};

static const char *const group_routes[] = {
	"activity",
	"analytics",
	"audit_events",
	"avatar",
	"edit",
	"group_members",
	"hooks",
	"issues",
	"labels",
	"ldap",
	"ldap_group_links",
	"merge_requests",
	"milestones",
	"notification_setting",
	"pipeline_quota",
	"projects",
	"subgroups",
	NULL,
};

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcasecmp(*list, s) == 0)
			return true;
	return false;
}

bool path_reserved_top_level(const char *s)
{
	return in_list(top_level_routes, s);
}

bool path_reserved_subgroup(const char *s)
{
	return in_list(project_wildcard_routes, s) || in_list(group_routes, s);
}

bool path_reserved_project(const char *s)
{
	return in_list(project_wildcard_routes, s);
}

size_t utf8_chars(const char *s)
{
	size_t chars = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p & 0xC0) != 0x80)
			chars++;
	return chars;
}

bool valid_email(const char *s)
{
	size_t n = strlen(s);
	const char *at = strchr(s, '@');
	if (n > 255 || !at || at == s || !at[1] || strchr(at + 1, '@'))
		return false;
	for (const char *p = s; *p; p++)
		if (isspace((unsigned char)*p) || (unsigned char)*p < 0x20)
			return false;
	return true;
}

bool valid_hex_color(const char *s)
{
	size_t n = strlen(s);
	if (s[0] != '#' || (n != 4 && n != 7))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static int digits(const char *s, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static bool date_prefix(const char *s)
{
	if (strlen(s) < 10 || s[4] != '-' || s[7] != '-')
		return false;
	int y = digits(s, 4), m = digits(s + 5, 2), d = digits(s + 8, 2);
	if (y < 1 || m < 1 || m > 12 || d < 1)
		return false;
	static const int days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (d > days[m - 1])
		return false;
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return !(m == 2 && d == 29 && !leap);
}

bool valid_date(const char *s)
{
	return strlen(s) == 10 && date_prefix(s);
}

bool valid_datetime(const char *s)
{
	if (!date_prefix(s))
		return false;
	const char *p = s + 10;
	if (!*p)
		return true;
	if (*p != 'T' && *p != ' ')
		return false;
	p++;
	/* each field is read only once the one before it is known to be there */
	int h = digits(p, 2);
	if (h < 0 || h > 23 || p[2] != ':')
		return false;
	int mi = digits(p + 3, 2);
	if (mi < 0 || mi > 59)
		return false;
	p += 5;
	if (*p == ':') {
		int sec = digits(p + 1, 2);
		if (sec < 0 || sec > 60)
			return false;
		p += 3;
		if (*p == '.') {
			p++;
			if (!isdigit((unsigned char)*p))
				return false;
			while (isdigit((unsigned char)*p))
				p++;
		}
	}
	if (*p == 'Z' || *p == 'z')
		return p[1] == '\0';
	if (*p == '+' || *p == '-') {
		int oh = digits(p + 1, 2);
		if (oh < 0 || oh > 14)
			return false;
		p += 3;
		if (*p == ':')
			p++;
		if (*p) {
			int om = digits(p, 2);
			if (om < 0 || om > 59 || p[2])
				return false;
		}
		return true;
	}
	return *p == '\0';
}

/* The length of the UTF-8 sequence at p[0..n) (n >= 1), 0 when it is not one that
 * PostgreSQL takes: overlong forms, UTF-16 surrogates, code points past U+10FFFF. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
	if (!len || len > n || c == 0xC0 || c == 0xC1 || c > 0xF4)
		return 0;
	if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0) ||
	    (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90))
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

bool valid_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_seq(p + i, n - i);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

bool valid_text(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
			return false;
	return valid_utf8(s, strlen(s));
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ref_name_ok(const char *s, bool wildcard)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > 1024 || !valid_text(s))
		return false;
	/* an option to any git command line it reaches, or what git itself means by it */
	if (s[0] == '-' || strcmp(s, "@") == 0 || strcmp(s, "HEAD") == 0 ||
	    starts_with(s, "refs/heads/") || starts_with(s, "refs/remotes/"))
		return false;
	if (strstr(s, "..") || strstr(s, "@{") || s[n - 1] == '.')
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || strchr(" ~^:?[\\", *p) || (*p == '*' && !wildcard))
			return false;
	/* components: none empty (no leading, trailing or double '/'), none starting with
	 * '.' or ending in ".lock" */
	for (const char *c = s;;) {
		const char *end = strchr(c, '/');
		size_t len = end ? (size_t)(end - c) : strlen(c);
		if (len == 0 || len > 250 || c[0] == '.' ||
		    (len >= 5 && memcmp(c + len - 5, ".lock", 5) == 0))
			return false;
		if (!end)
			return true;
		c = end + 1;
	}
}

bool valid_ref_name(const char *s)
{
	return ref_name_ok(s, false);
}

bool valid_ref_pattern(const char *s)
{
	return ref_name_ok(s, true);
}
