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

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *tags[] = {"debug", "info", "warn", "error"};
	static const int priorities[] = {LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERR};
	if (level < current)
		return;
	if (use_syslog) {
		char text[1024];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(text, sizeof(text), fmt, ap);
		va_end(ap);
		syslog(priorities[level], "%s", text);
		return;
	}
	char line[1024];
	int n;
	if (request_id[0])
		n = snprintf(line, sizeof(line), "collabd[%d] %s req=%s: ", (int)getpid(), tags[level],
			     request_id);
	else
		n = snprintf(line, sizeof(line), "collabd[%d] %s: ", (int)getpid(), tags[level]);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = strlen(line);
	line[len++] = '\n';
	(void)!write(STDERR_FILENO, line, len);
}
