/* The job queue: rows of background_jobs, queued in the caller's transaction and run by
 * the background process (src/background.c) of any instance. A job is claimed with
 * FOR UPDATE SKIP LOCKED in the transaction that runs it, so each runs once; a failed
 * one is put back for a later try. The kinds are those of db/jobs.def.
 *
 * It lives under db/ because it is only statements over the connection of a ctx: git/
 * (the push a hook or the API records), ci/ and api/ enqueue through it, and it names
 * none of them, so it sits below them all without a cross-include at their level. */
#ifndef COLLABD_QUEUE_H
#define COLLABD_QUEUE_H

#include "core/ctx.h"
#include "db/db.h"

/* The channel a transaction that queues a job notifies at commit, so that the background
 * processes start at once instead of at their next poll. */
#define QUEUE_CHANNEL "collabd_jobs"

typedef enum {
#define JOB(NAME, kind, run) JOB_##NAME,
#include "db/jobs.def"
#undef JOB
	JOB_NKINDS
} job_kind;

extern const db_stmt queue_stmts[];

/* The text of kind in background_jobs.kind; NULL for a value that is no kind. */
const char *queue_kind_name(int kind);
/* The kind whose text is name, or -1. */
int queue_kind_parse(const char *name);

/* Queues a job of kind with payload (a JSON object, text) in c's transaction; the
 * background processes are notified at commit. 0, ERR_INVALID for a kind not in
 * db/jobs.def or no payload, or the database's ERR_ code. */
int queue_enqueue(ctx *c, int kind, const char *payload);
/* The same unless a job of kind with the same payload is queued or running (the caller
 * holds the lock that keeps two such calls apart): 1 with the new job's id in *id (in
 * c's arena), 0 when there is one already, or an ERR_ code. */
int queue_enqueue_once(ctx *c, int kind, const char *payload, const char **id);

/* The process set (background_processes, what GET /sidekiq/process_metrics shows): a
 * background process joins it (its row's id, or an ERR_ code), says it is alive every
 * few seconds (0; 1 when its row is gone, taken for a dead process's: it joins again),
 * and leaves it when it stops (queue_process_seen with leave: 0). Or an ERR_ code. */
long long queue_process_join(ctx *c, const char *hostname, long pid);
int queue_process_seen(ctx *c, long long id, bool leave);

/* LISTENs for QUEUE_CHANNEL on c's connection. 0 or an ERR_ code. */
int queue_listen(ctx *c);

/* A claimed job; strings in c's arena. */
typedef struct {
	const char *id;
	job_kind kind;
	const char *payload;
	int attempts;
} queue_job;

/* Claims, in c's open transaction, the oldest due job that no other process holds:
 * 1 with *out, 0 when none is due, or an ERR_ code. Rows of a kind this collabd does not
 * know (a newer one's) are left for one that does. */
int queue_claim(ctx *c, queue_job *out);
/* Removes a job that ran, in the transaction that claimed it. 0 or an ERR_ code. */
int queue_finish(ctx *c, const queue_job *job);
/* Puts back a job that failed (after the rollback of the transaction that claimed it):
 * one more attempt, why kept, run again after 5 s, 10 s, 20 s, ... at most an hour.
 * 0 or an ERR_ code. */
int queue_retry(ctx *c, const queue_job *job, const char *why);

#endif
