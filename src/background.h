/* Background work: jobs queued in background_jobs by the API (removal of deleted
 * projects and their repositories, directories of removed users and groups), run by one
 * long-lived process per instance that the master forks next to the workers. Jobs are
 * claimed with FOR UPDATE SKIP LOCKED, so any number of instances may run them, each
 * job once. */
#ifndef COLLABD_BACKGROUND_H
#define COLLABD_BACKGROUND_H

#include "core/config.h"
#include "db/db.h"
#include "core/ctx.h"

/* The process name the background process gives itself (ps, pgrep -x). */
#define BACKGROUND_PROCESS_NAME "collabd-bg"
/* The channel the API notifies, in the transaction that queues a job, so that the
 * background process starts at once instead of at its next poll. */
#define BACKGROUND_CHANNEL "collabd_jobs"

extern const db_stmt background_stmts[];

/* Queues a job of kind with the JSON object payload (text) in r's transaction, and
 * notifies the background processes at commit. 0 or an ERR_ code. */
int background_enqueue(ctx *c, const char *kind, const char *payload);

/* Claims one due job and runs it in its own transaction; a job that fails is put back
 * with attempts, last_error and a later run_at. Returns 1 when a job ran (or failed),
 * 0 when none was due, -1 when the database cannot be used. */
int background_run_one(ctx *c);

/* The background process's loop: its own connection, every due job, then waits for a
 * notification or one second; returns the exit status when SIGTERM asks it to stop. */
int background_run(const config *cfg, const unsigned char key[32]);

#endif
