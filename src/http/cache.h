/* The dispatcher's side of the response cache (cache/response.h), for a ROUTE_CACHE
 * route once the credentials are read: cache_serve() answers from the cache (true) or
 * starts the snapshot the handler runs in (false); cache_finish() after the handler (rc
 * its return) keeps a 200 with the versions read in that snapshot and ends it. Verifying
 * a hit (cache_verify), cache_finish() compares instead; on a difference it logs it,
 * answers 500 itself and returns ERR_INTERNAL (when the handler failed, rc < 0, only a
 * dispatcher that takes its return as the handler's turns that into the 500);
 * otherwise rc. */
#ifndef COLLABD_HTTP_CACHE_H
#define COLLABD_HTTP_CACHE_H

#include <stdbool.h>

#include "cache/response.h"
#include "http/request.h"

bool cache_serve(request *r);
int cache_finish(request *r, int rc);

#endif
