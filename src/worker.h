/* A worker process: accepts FastCGI requests on the shared socket until told to stop. */
#ifndef COLLABD_WORKER_H
#define COLLABD_WORKER_H

#include "core/config.h"
#include "db/db.h"
#include "http/cache.h"
#include "http/request.h"

/* Runs the accept loop, with the instance's response cache rc (NULL: none); returns the exit status when SIGTERM asked it to stop. */
int worker_run(const config *cfg, int listen_fd, const unsigned char key[32], cache *rc);
/* Routes, authenticates and runs one parsed request (used by the loop and by tests). */
void worker_dispatch(request *r);

#endif
