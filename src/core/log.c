#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

static enum log_level current = LOG_LVL_INFO;
static char request_id[40];
static int use_syslog;

void log_use_syslog(const char *ident)
{
	openlog(ident, LOG_PID, LOG_DAEMON);
	use_syslog = 1;
}

void log_set_level(enum log_level level)
{
	current = level;
}

int log_level_parse(const char *s, enum log_level *out)
{
	static const char *names[] = {"debug", "info", "warn", "error"};
	for (int i = 0; i < 4; i++) {
		if (strcasecmp(s, names[i]) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

void log_set_request_id(const char *id)
{
	if (id)
		snprintf(request_id, sizeof(request_id), "%s", id);
	else
		request_id[0] = '\0';
}

/* src into out[0..cap) (cap > 0, always ended), each control character as \xNN: what a
 * client sent (a path, a name, a trace) reaches a line as text that cannot end the line
 * or forge another, nor move a terminal's cursor. Returns the length written. */
static size_t escape(char *out, size_t cap, const char *src)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)src; *p && n + 1 < cap; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			out[n++] = (char)*p;
			continue;
		}
		if (n + 5 > cap)
			break;
		snprintf(out + n, 5, "\\x%02x", *p);
		n += 4;
	}
	out[n] = '\0';
	return n;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *tags[] = {"debug", "info", "warn", "error"};
	static const int priorities[] = {LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERR};
	if (level < current)
		return;
	char text[1024], safe[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	escape(safe, sizeof(safe), text);
	if (use_syslog) {
		syslog(priorities[level], "%s", safe);
		return;
	}
	char line[1200], id[sizeof(request_id) * 4];
	escape(id, sizeof(id), request_id);
	int n;
	if (id[0])
		n = snprintf(line, sizeof(line) - 1, "collabd[%d] %s req=%s: %s", (int)getpid(),
			     tags[level], id, safe);
	else
		n = snprintf(line, sizeof(line) - 1, "collabd[%d] %s: %s", (int)getpid(),
			     tags[level], safe);
	size_t len = n < 0 ? 0 : (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
	line[len++] = '\n';
	(void)!write(STDERR_FILENO, line, len);
}
