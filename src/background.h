/* The background process: one long-lived process per instance that the master forks
 * next to the workers. It runs the jobs of the queue (db/queue.h: removal of deleted
 * projects and their repositories, directories of removed users and groups, what
 * follows a push), each kind by the function db/jobs.def names, and the periodic work
 * (expired memberships, stuck CI jobs, due pipeline schedules). Jobs are claimed with
 * FOR UPDATE SKIP LOCKED, so any number of instances may run them, each job once. */
#ifndef COLLABD_BACKGROUND_H
#define COLLABD_BACKGROUND_H

#include "core/config.h"
#include "db/db.h"
#include "core/ctx.h"

/* The process name the background process gives itself (ps, pgrep -x). */
#define BACKGROUND_PROCESS_NAME "collabd-bg"

extern const db_stmt background_stmts[];

/* Claims one due job and runs it in its own transaction; a job that fails is put back
 * with attempts, last_error and a later run_at. Returns 1 when a job ran (or failed),
 * 0 when none was due, -1 when the database cannot be used. */
int background_run_one(ctx *c);

/* The background process's loop: its own connection (made with statements, the
 * program's), every due job, then waits for a notification or one second; returns the
 * exit status when SIGTERM asks it to stop. */
int background_run(const config *cfg, const unsigned char key[32],
		   const db_stmt *const *statements);

#endif
