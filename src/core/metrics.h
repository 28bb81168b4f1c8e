/* The counters an instance exposes at /-/metrics (Prometheus' text format), shared by
 * its pre-forked workers: one MAP_SHARED region that the master maps before it forks,
 * counted into with relaxed atomic adds (no lock on the request path). Every function
 * is a no-op before metrics_init (the command line, the tests' processes). Counters of
 * their own: core/metrics.def. */
#ifndef COLLABD_METRICS_H
#define COLLABD_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

enum metric {
#define METRIC(NAME, name, help) METRIC_##NAME,
#include "core/metrics.def"
#undef METRIC
	METRIC_N
};

/* The upper bounds of the request latency histogram, in seconds (+Inf after them). */
#define METRICS_LATENCY_BUCKETS 12
/* The most worker slots counted as busy or not (collabd.c's MAX_WORKERS). */
#define METRICS_WORKERS_MAX 256

/* Maps the region for routes request slots (the routes of the instance and one for
 * requests no route matched) in the master, before it forks; once (a reload keeps the
 * counts). 0 or -1 (logged). */
int metrics_init(size_t routes);
/* Adds n to counter m. */
void metrics_add(enum metric m, long long n);
/* One request answered: its route slot, status and latency in seconds. */
void metrics_request(size_t route, int status, double seconds);
/* The worker slot this process counts as busy or idle in (set in the forked child), and
 * whether it is busy now; metrics_worker_gone: the master clears a dead worker's slot,
 * which may have died busy. */
void metrics_set_worker(int slot);
void metrics_busy(bool busy);
void metrics_worker_gone(int slot);

/* The labels of route slot i (a method and a route pattern), for the exposition. */
typedef void (*metrics_route_label_fn)(size_t i, const char **method, const char **pattern,
				       void *arg);
/* Appends the exposition of every counter, the requests by route and status, their
 * latency histograms and the workers busy to out; label names the route slots. Nothing
 * when metrics_init has not run. */
void metrics_format(buf *out, metrics_route_label_fn label, void *arg);
/* Appends one gauge without labels (# HELP, # TYPE and its value) to out. */
void metrics_format_gauge(buf *out, const char *name, const char *help, double value);

#endif
