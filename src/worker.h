/* A worker process: accepts FastCGI requests on the shared socket until told to stop. */
#ifndef COLLABD_WORKER_H
#define COLLABD_WORKER_H

#include "core/config.h"
#include "db/db.h"
#include "http/cache.h"
#include "http/request.h"
#include "http/router.h"

/* Runs the accept loop, with the instance's response cache rc and authentication cache
 * ac (NULL: none), and the turns of its write transactions (core/turns.h; -1: none);
 * returns the exit status when SIGTERM asked it to stop. */
int worker_run(const config *cfg, int listen_fd, const unsigned char key[32], cache *rc, cache *ac,
	       int turns);
/* Serves one parsed request with the route of tables (router_match) that matches it: authentication,
 * the response cache, the scope (ROUTE_PROJECT, ROUTE_GROUP), the transaction
 * (ROUTE_TX), the handler; then the check that no transaction is left open on the
 * connection (a handler that leaves one gets a 500, logged, and the transaction is
 * rolled back: it would otherwise carry into the next request). */
void worker_dispatch_tables(request *r, const route *const *tables);
/* The same with the program's route tables (modules.h). */
void worker_dispatch(request *r);
/* Runs fn(r) in a transaction: committed when it succeeds (0 or more, and an answer
 * under 400), rolled back otherwise, with the hooks of either (db_on_rollback): the
 * dispatcher's for ROUTE_TX. A worker waits first for its turn
 * (write_transactions) and gives it back before the COMMIT: more transactions at work
 * at once than that only share the cores, and each takes longer. */
int worker_transaction(request *r, handler_fn fn);

#endif
