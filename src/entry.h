/* What the entry points of the one binary share (collabd.c's main() dispatches to them:
 * the master and its workers, the background process, the git hook, the SSH shell and
 * authorized-keys, the command line): the usage, the instance key, the schema check,
 * and the paths of this binary and its configuration. */
#ifndef COLLABD_ENTRY_H
#define COLLABD_ENTRY_H

#include <limits.h>

#include "core/config.h"
#include "core/ctx.h"
#include "db/db.h"

/* Prints the commands to stderr; returns the exit status of a wrong command line (2). */
int entry_usage(void);
/* Reads the instance key of cfg into key: 0, or -1 (logged). */
int entry_load_key(const config *cfg, unsigned char key[32]);
/* 0 when the database's schema is this collabd's, else -1 (logged). */
int entry_check_schema(const config *cfg);
/* The absolute paths of this binary and of the configuration cfg_path (empty when
 * NULL), for the commands that git and sshd run later elsewhere. 0 or -1 (logged). */
int entry_self_paths(const char *cfg_path, char exe[PATH_MAX], char conf[PATH_MAX]);
/* Runs fn(c, arg) once on a context c on cfg's database (statements registered, no
 * instance key, an arena of its own), for the commands that do one thing and exit: fn's
 * result, or -1 when there is no connection (logged). */
int entry_with_db(const config *cfg, const db_stmt *const *statements, int (*fn)(ctx *c, void *arg),
		  void *arg);
/* For a process that runs until it is told to stop (a worker, the background process):
 * SIGHUP and SIGPIPE ignored, SIGTERM and SIGINT blocked and readable on the signalfd
 * returned (-1 on failure, errno set). */
int entry_stop_signals(void);

#endif
