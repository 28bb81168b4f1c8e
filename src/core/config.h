/* Configuration: a `key = value` file (comments with #), every key overridable by
 * an environment variable COLLABD_<KEY> (upper case). */
#ifndef COLLABD_CONFIG_H
#define COLLABD_CONFIG_H

#include <stdbool.h>

#include "core/storages.h"

typedef struct {
	char *listen;           /* unix socket path, host:port, or "stdin" (fd 0) */
	int workers;            /* 0: 2 x cores */
	int write_transactions; /* of the workers, at most this many running a write
				 * transaction's statements at once (core/turns.h; the
				 * COMMIT goes without a turn); 0: 4 x cores */
	char *database_url;     /* libpq conninfo */
	char *external_url;     /* scheme://host[:port] used in web_url, Link headers */
	char *key_file;         /* instance key (AES-256-GCM), created by `collabd keygen` */
	char *storage_path;     /* repositories and uploads */
	char *ssh_host;
	char *templates_path; /* the data sets of /templates (core/templates.h) */
	char *log_level;
	int max_body;           /* bytes accepted in a request body */
	int max_artifacts_size; /* bytes of a job's artifacts upload: the body limit of
				 * POST /jobs/:id/artifacts instead of max_body */
	int backlog;
	char *socket_mode;  /* octal permissions of a unix socket we create */
	int cache_size_mb;  /* response cache of each worker (cache/response.h); 0: none */
	int auth_cache_mb;  /* authentication cache (auth/auth.c); 0: none */
	bool cache_verify;  /* every cache hit runs the handler too and must match (tests) */
	int raw_inline_max; /* raw files up to this many bytes are answered by collabd;
			      * larger ones go to the download cache and nginx sends them */
	char *monitoring_whitelist; /* the CIDR ranges whose clients may ask /-/health,
				     * /-/readiness, /-/liveness and /-/metrics */
	/* Read replicas (db/replica.h): libpq connection strings separated by ';' ("":
	 * none), and how far behind the primary (seconds) one may be and still answer reads
	 * of callers who did not write since. */
	char *database_replicas;
	double replica_max_lag;
	char *repository_storages; /* "name:path, ..." as written (core/storages.h) */
	repository_storages storages; /* parsed from it */
} config;

/* Loads defaults, then path (may be NULL), then the environment. 0 or -1 with a
 * message on stderr. Strings are malloc'd and owned by cfg until config_free(). */
int config_load(config *cfg, const char *path);
void config_free(config *cfg);

#endif
