/* Logging to stderr (journald under systemd), one line per event, with the request id
 * when there is one. Never pass secrets. */
#ifndef COLLABD_LOG_H
#define COLLABD_LOG_H

enum log_level { LOG_LVL_DEBUG, LOG_LVL_INFO, LOG_LVL_WARN, LOG_LVL_ERROR };

void log_set_level(enum log_level level);
int log_level_parse(const char *s, enum log_level *out);
/* The request id stamped on lines logged while a request runs; NULL clears it. */
void log_set_request_id(const char *id);
/* Logs to syslog (journald) under ident from now on, not to stderr: for the commands
 * whose stderr a git client reads (collabd shell, collabd hook), which must not see the
 * server's errors. */
void log_use_syslog(const char *ident);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)

#endif
