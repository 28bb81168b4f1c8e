#include "core/metrics.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "core/log.h"

/* The statuses counted each on its own; any other is counted by its class (2xx, ...). */
static const int statuses[] = {200, 201, 202, 204, 206, 301, 302, 304, 400, 401, 403, 404,
			       405, 406, 409, 412, 413, 414, 415, 422, 429, 500, 502, 503};
#define NSTATUS_CODES (sizeof(statuses) / sizeof(*statuses))
#define NSTATUS (NSTATUS_CODES + 5)

static const double bounds[METRICS_LATENCY_BUCKETS] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
						       0.1,   0.25,   0.5,   1,    2.5,   10};

typedef unsigned long long counter;

struct route_slot {
	counter status[NSTATUS];
	counter bucket[METRICS_LATENCY_BUCKETS + 1]; /* not cumulative: the exposition sums */
	counter sum_us;
	counter count;
};

struct region {
	counter counters[METRIC_N];
	unsigned busy[METRICS_WORKERS_MAX];
	size_t nroutes;
	struct route_slot routes[];
};

static struct region *region;
static int worker_slot = -1;

int metrics_init(size_t routes)
{
	if (region)
		return 0; /* one region for the life of the master: counters survive reloads */
	size_t size = sizeof(struct region) + routes * sizeof(struct route_slot);
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		log_error("metrics: mmap %zu bytes: %s", size, strerror(errno));
		return -1;
	}
	region = p;
	region->nroutes = routes;
	return 0;
}

static void add(counter *c, counter n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static counter get(const counter *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

void metrics_add(enum metric m, long long n)
{
	if (region && m >= 0 && m < METRIC_N && n > 0)
		add(&region->counters[m], (counter)n);
}

static size_t status_index(int status)
{
	for (size_t i = 0; i < NSTATUS_CODES; i++)
		if (statuses[i] == status)
			return i;
	int cls = status / 100;
	return NSTATUS_CODES + (size_t)(cls >= 1 && cls <= 5 ? cls - 1 : 4);
}

void metrics_request(size_t route, int status, double seconds)
{
	if (!region || route >= region->nroutes)
		return;
	struct route_slot *s = &region->routes[route];
	add(&s->status[status_index(status)], 1);
	size_t b = 0;
	while (b < METRICS_LATENCY_BUCKETS && seconds > bounds[b])
		b++;
	add(&s->bucket[b], 1);
	add(&s->sum_us, seconds > 0 ? (counter)(seconds * 1e6) : 0);
	add(&s->count, 1);
}

void metrics_set_worker(int slot)
{
	worker_slot = slot >= 0 && slot < METRICS_WORKERS_MAX ? slot : -1;
}

void metrics_busy(bool busy)
{
	if (region && worker_slot >= 0)
		__atomic_store_n(&region->busy[worker_slot], busy ? 1u : 0u, __ATOMIC_RELAXED);
}

void metrics_worker_gone(int slot)
{
	if (region && slot >= 0 && slot < METRICS_WORKERS_MAX)
		__atomic_store_n(&region->busy[slot], 0u, __ATOMIC_RELAXED);
}

/* Appends s as the value of a label, escaped as the text format says. */
static void put_label(buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			buf_putc(out, '\\');
		if (*s == '\n') {
			buf_puts(out, "\\n");
			continue;
		}
		buf_putc(out, *s);
	}
}

static void put_status(buf *out, size_t i)
{
	if (i < NSTATUS_CODES)
		buf_put_int(out, statuses[i]);
	else
		buf_printf(out, "%zuxx", i - NSTATUS_CODES + 1);
}

static void put_route(buf *out, metrics_route_label_fn label, void *arg, size_t i)
{
	const char *method = "", *pattern = "";
	label(i, &method, &pattern, arg);
	buf_puts(out, "method=\"");
	put_label(out, method);
	buf_puts(out, "\",route=\"");
	put_label(out, pattern);
	buf_putc(out, '"');
}

static void header(buf *out, const char *name, const char *type, const char *help)
{
	buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void metrics_format_gauge(buf *out, const char *name, const char *help, double value)
{
	header(out, name, "gauge", help);
	buf_printf(out, "%s %.17g\n", name, value);
}

void metrics_format(buf *out, metrics_route_label_fn label, void *arg)
{
	if (!region)
		return;
	static const struct {
		const char *name, *help;
	} counters[METRIC_N] = {
#define METRIC(NAME, name, help) [METRIC_##NAME] = {"collabd_" #name, help},
#include "core/metrics.def"
#undef METRIC
	};
	for (int m = 0; m < METRIC_N; m++) {
		/* one header per family: a labelled counter's name up to its '{' */
		size_t fam = strcspn(counters[m].name, "{");
		if (m == 0 || strncmp(counters[m].name, counters[m - 1].name, fam) != 0 ||
		    counters[m - 1].name[fam] != '{') {
			char family[128];
			snprintf(family, sizeof(family), "%.*s", (int)fam, counters[m].name);
			header(out, family, "counter", counters[m].help);
		}
		buf_printf(out, "%s %llu\n", counters[m].name, get(&region->counters[m]));
	}
	header(out, "collabd_http_requests_total", "counter",
	       "Requests answered, by route pattern and status");
	for (size_t i = 0; i < region->nroutes; i++)
		for (size_t s = 0; s < NSTATUS; s++) {
			counter n = get(&region->routes[i].status[s]);
			if (!n)
				continue;
			buf_puts(out, "collabd_http_requests_total{");
			put_route(out, label, arg, i);
			buf_puts(out, ",code=\"");
			put_status(out, s);
			buf_printf(out, "\"} %llu\n", n);
		}
	header(out, "collabd_http_request_duration_seconds", "histogram",
	       "Time from accepting a request to the end of its response, by route pattern");
	for (size_t i = 0; i < region->nroutes; i++) {
		const struct route_slot *s = &region->routes[i];
		counter count = get(&s->count);
		if (!count)
			continue;
		counter cumulative = 0;
		for (size_t b = 0; b <= METRICS_LATENCY_BUCKETS; b++) {
			cumulative += get(&s->bucket[b]);
			buf_puts(out, "collabd_http_request_duration_seconds_bucket{");
			put_route(out, label, arg, i);
			if (b < METRICS_LATENCY_BUCKETS)
				buf_printf(out, ",le=\"%g\"} %llu\n", bounds[b], cumulative);
			else
				buf_printf(out, ",le=\"+Inf\"} %llu\n", cumulative);
		}
		buf_puts(out, "collabd_http_request_duration_seconds_sum{");
		put_route(out, label, arg, i);
		buf_printf(out, "} %.6f\n", (double)get(&s->sum_us) / 1e6);
		buf_puts(out, "collabd_http_request_duration_seconds_count{");
		put_route(out, label, arg, i);
		buf_printf(out, "} %llu\n", cumulative); /* the +Inf bucket's, read together */
	}
	unsigned busy = 0;
	for (int w = 0; w < METRICS_WORKERS_MAX; w++)
		busy += __atomic_load_n(&region->busy[w], __ATOMIC_RELAXED);
	metrics_format_gauge(out, "collabd_workers_busy",
			     "Workers of this instance answering a request now", busy);
}
