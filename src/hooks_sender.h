/* The webhooks' side of the background process: the push and tag push events of a push
 * (queued in the `push` job's transaction), and the sender of the deliveries that events
 * queued (db/webhooks.h) with libcurl.
 *
 * Sending: due deliveries are claimed (FOR UPDATE SKIP LOCKED, then leased as `sending`
 * for 20 s, twice the timeout) in a statement of their own, sent outside any transaction, several at
 * once on a curl multi handle (a slow receiver holds nobody else), and their outcome
 * recorded: 2xx removes the delivery; anything else (another status, a timeout of 10 s,
 * a refused address, a TLS failure, a redirect, which is never followed) puts it back
 * for 2 s, 4 s, 8 s, ... at most an hour later, and after HOOKS_SENDER_MAX_ATTEMPTS it
 * stays in web_hook_deliveries as `failed` with its last status and error. Only the
 * earliest unfinished delivery of a hook is due, so each hook gets its events in order.
 * A delivery whose sender died is due again when its lease ends: nothing is lost on a
 * restart.
 *
 * No request forgery: only http and https, no proxy, and the address each connection is
 * made to (after name resolution: DNS rebinding) is refused when local (core/netcheck.h)
 * unless the application setting allow_local_requests_from_hooks_and_services is on. */
#ifndef COLLABD_HOOKS_SENDER_H
#define COLLABD_HOOKS_SENDER_H

#include <json-c/json.h>
#include <poll.h>

#include "core/ctx.h"
#include "db/db.h"

#define HOOKS_SENDER_MAX_ATTEMPTS 15
/* deliveries in flight at once, per background process */
#define HOOKS_SENDER_MAX_FLIGHT 32
/* claim-and-send passes of one hooks_sender_step at most */
#define HOOKS_SENDER_PASSES 64

extern const db_stmt hooks_sender_stmts[];

typedef struct hooks_sender hooks_sender;

/* A sender (curl initialised for the process); NULL when curl cannot be set up. */
hooks_sender *hooks_sender_new(void);
void hooks_sender_free(hooks_sender *s);

/* Claims what is due (up to the free places), moves the transfers on and records those
 * that ended, with c's connection (outside a transaction). The number still in flight. */
int hooks_sender_step(hooks_sender *s, ctx *c);

/* Waits at most timeout_ms for the transfers' sockets or one of the n fds (their revents
 * set). Only with transfers in flight; else the caller polls its own fds. */
void hooks_sender_wait(hooks_sender *s, struct pollfd *fds, int n, int timeout_ms);

/* The background process's part of a `push` job ({project_id, ref, before, after,
 * user_id}, git/hooks.c): the push or tag push event for the project's hooks and the
 * system hooks that want it, in the job's transaction. 0, or -1 with *why. */
int hooks_sender_on_push(ctx *c, json_object *payload, const char **why);

/* The background process's part of a `ci_hook` job ({kind "job" or "pipeline", id,
 * project_id, hooks_key, status and the times at the transition}, queued with its
 * deliveries by the triggers of sql/0052_ci_hook_events.sql): builds the job or pipeline
 * event and fills the deliveries in. 0, or -1 with *why. */
int hooks_sender_on_ci(ctx *c, json_object *payload, const char **why);

#endif
