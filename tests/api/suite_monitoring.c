/* API suite: health checks and metrics (GitLab 10's /-/health, /-/readiness, /-/liveness
 * and /-/metrics): their shapes through nginx, the counters of one instance moving with
 * the requests it answers (asked at the instance's own port, as Prometheus scrapes each
 * instance), and the refusal of a client outside monitoring_whitelist (tests/api/run
 * allows 127.0.0.1 alone; these ask from 127.0.0.2 to be refused). The database down
 * (readiness 503) is tests/api/process.sh's. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	char **out = arg;
	size_t have = *out ? strlen(*out) : 0, add = size * n;
	char *grown = realloc(*out, have + add + 1);
	ck_assert(grown);
	memcpy(grown + have, p, add);
	grown[have + add] = '\0';
	*out = grown;
	return add;
}

/* GET url from the local address from (NULL: the default): the status, and the body in
 * *body (caller frees; may be NULL). */
static long get_from(const char *url, const char *from, char **body)
{
	CURL *h = curl_easy_init();
	ck_assert(h);
	char *b = NULL;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 30L);
	if (from)
		curl_easy_setopt(h, CURLOPT_INTERFACE, from);
	CURLcode rc = curl_easy_perform(h);
	ck_assert_msg(rc == CURLE_OK, "GET %s from %s: %s", url, from ? from : "default",
		      curl_easy_strerror(rc));
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(h);
	if (body)
		*body = b ? b : strdup("");
	else
		free(b);
	return status;
}

/* The URL of instance 1 alone (COLLABD_INSTANCE_URLS' first). */
static const char *instance_url(void)
{
	static char url[256];
	const char *all = getenv("COLLABD_INSTANCE_URLS");
	ck_assert_msg(all && *all, "COLLABD_INSTANCE_URLS must be set");
	size_t n = strcspn(all, " ");
	ck_assert(n < sizeof(url));
	memcpy(url, all, n);
	url[n] = '\0';
	return url;
}

/* The value of the sample whose line starts with series (name and labels) in the
 * exposition text; 0 when it has none (a counter not yet counted). */
static double sample(const char *text, const char *series)
{
	size_t n = strlen(series);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, series, n) == 0 && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	return 0;
}

static char *scrape(void)
{
	char *body;
	long st = get_from(S(fmt("%s/-/metrics", instance_url())), NULL, &body);
	S(body);
	ck_assert_msg(st == 200, "metrics: %ld %s", st, body);
	return body;
}

START_TEST(test_monitoring_health)
{
	resp *r = R(http_request("GET", S(fmt("%s/-/health", api_url())), NULL, NULL, 0, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "GitLab OK");
	ck_header(r, "Content-Type", "text/plain");

	r = R(http_request("GET", S(fmt("%s/-/readiness", api_url())), NULL, NULL, 0, NULL));
	ck_body(r, 200,
		"{\"db_check\":{\"status\":\"ok\"},"
		"\"fs_shards_check\":{\"status\":\"ok\",\"labels\":{\"shard\":\"default\"}}}");
	ck_header(r, "Content-Type", "application/json");

	r = R(http_request("GET", S(fmt("%s/-/liveness", api_url())), NULL, NULL, 0, NULL));
	ck_body(r, 200, "{\"db_check\":{\"status\":\"ok\"},\"fs_shards_check\":{\"status\":\"ok\"}}");

	/* anything else under /-/ is no route */
	r = R(http_request("GET", S(fmt("%s/-/nothing", api_url())), NULL, NULL, 0, NULL));
	ck_status(r, 404);
	/* they read, nothing else */
	r = R(http_request("POST", S(fmt("%s/-/readiness", api_url())), NULL, "", 0,
			   "application/x-www-form-urlencoded"));
	ck_status(r, 404);
}
END_TEST

START_TEST(test_monitoring_refused_outside_whitelist)
{
	static const char *const paths[] = {"/-/health", "/-/readiness", "/-/liveness",
					    "/-/metrics"};
	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		char *body;
		long st = get_from(S(fmt("%s%s", api_url(), paths[i])), "127.0.0.2", &body);
		S(body);
		ck_assert_msg(st == 404, "%s from 127.0.0.2: %ld %s", paths[i], st, body);
		ck_assert_str_eq(body, "{\"error\":\"404 Not Found\"}");
		/* and answered from the whitelisted address */
		ck_assert_int_eq(get_from(S(fmt("%s%s", api_url(), paths[i])), "127.0.0.1", NULL),
				 200);
	}
}
END_TEST

START_TEST(test_monitoring_metrics_move)
{
	char *token = S(make_user("mon", NULL, NULL));
	long long project = api_project(token, "private", NULL);
	const char *route = "collabd_http_requests_total{method=\"GET\",route=\"/api/v4/version\","
			    "code=\"200\"}";
	const char *denied = "collabd_http_requests_total{method=\"GET\",route=\"/api/v4/version\","
			     "code=\"401\"}";
	const char *count = "collabd_http_request_duration_seconds_count{method=\"GET\","
			    "route=\"/api/v4/version\"}";
	const char *inf = "collabd_http_request_duration_seconds_bucket{method=\"GET\","
			  "route=\"/api/v4/version\",le=\"+Inf\"}";
	char *before = scrape();
	ck_assert_ptr_nonnull(strstr(before, "# TYPE collabd_http_requests_total counter\n"));
	ck_assert_ptr_nonnull(
		strstr(before, "# TYPE collabd_http_request_duration_seconds histogram\n"));
	ck_assert_ptr_nonnull(strstr(before, "# TYPE collabd_workers_busy gauge\n"));
	ck_assert_ptr_nonnull(strstr(before, "\ncollabd_database_up 1\n"));
	/* the scrape is answered by a busy worker, one of the instance's 3 (tests/api/run) */
	ck_assert(sample(before, "collabd_workers_busy") >= 1);
	ck_assert(sample(before, "collabd_workers_busy") <= 3);
	ck_assert_double_eq(sample(before, "collabd_workers"), 3);

	const char *headers[] = {S(fmt("PRIVATE-TOKEN: %s", token)), NULL};
	for (int i = 0; i < 3; i++)
		ck_code(R(http_request("GET", S(fmt("%s/api/v4/version", instance_url())), headers,
				       NULL, 0, NULL)),
			200);
	ck_code(R(http_request("GET", S(fmt("%s/api/v4/version", instance_url())), NULL, NULL, 0,
			       NULL)),
		401);
	/* a project's route read four times: the authentication cache answers after the
	 * first; the project read four times: the response cache keeps it from the second */
	for (int i = 0; i < 4; i++) {
		ck_code(R(http_request("GET",
				       S(fmt("%s/api/v4/projects/%lld/labels", instance_url(),
					     project)),
				       headers, NULL, 0, NULL)),
			200);
		ck_code(R(http_request("GET",
				       S(fmt("%s/api/v4/projects/%lld", instance_url(), project)),
				       headers, NULL, 0, NULL)),
			200);
	}
	char *after = scrape();
	ck_assert_double_eq(sample(after, route), sample(before, route) + 3);
	ck_assert_double_eq(sample(after, denied), sample(before, denied) + 1);
	ck_assert_double_eq(sample(after, count), sample(before, count) + 4);
	ck_assert_double_eq(sample(after, inf), sample(after, count));
	/* the labels' route by its pattern, never the path asked */
	ck_assert(sample(after, "collabd_http_requests_total{method=\"GET\","
				"route=\"/api/v4/projects/:id/labels\",code=\"200\"}") >= 4);
	ck_assert_ptr_null(strstr(after, S(fmt("/api/v4/projects/%lld", project))));
	ck_assert(sample(after, "collabd_db_round_trips_total") >=
		  sample(before, "collabd_db_round_trips_total") + 8);
	ck_assert(sample(after, "collabd_auth_cache_hits_total") >=
		  sample(before, "collabd_auth_cache_hits_total") + 2);
	ck_assert(sample(after, "collabd_auth_cache_misses_total") >=
		  sample(before, "collabd_auth_cache_misses_total") + 1);
	ck_assert(sample(after, "collabd_response_cache_hits_total") >=
		  sample(before, "collabd_response_cache_hits_total") + 1);
	ck_assert(sample(after, "collabd_response_cache_misses_total") >=
		  sample(before, "collabd_response_cache_misses_total") + 1);
}
END_TEST

/* The background queue as the scrape finds it in the job table. */
START_TEST(test_monitoring_queue)
{
	/* a job due in a day, queued an hour ago (no process claims it before then) */
	long long id = sql_int("INSERT INTO background_jobs (kind, payload, run_at, created_at)"
			       " VALUES ('remove_path', '{\"path\": \"monitoring-test-nothing\"}',"
			       " now() + interval '1 day', now() - interval '1 hour') RETURNING id");
	char *text = scrape();
	free(sql_value("DELETE FROM background_jobs WHERE id = %lld", id));
	ck_assert_ptr_nonnull(strstr(text, "# TYPE collabd_background_jobs gauge\n"));
	ck_assert(sample(text, "collabd_background_jobs{kind=\"remove_path\"}") >= 1);
	ck_assert(sample(text, "collabd_background_oldest_job_age_seconds{kind=\"remove_path\"}") >=
		  3600);
	char *later = scrape();
	ck_assert(sample(later, "collabd_background_oldest_job_age_seconds{kind=\"remove_path\"}") <
		  3600);
}
END_TEST

Suite *suite_monitoring(void)
{
	Suite *s = suite_create("monitoring");
	TCase *tc = tcase_create("monitoring");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_monitoring_health);
	tcase_add_test(tc, test_monitoring_refused_outside_whitelist);
	tcase_add_test(tc, test_monitoring_metrics_move);
	tcase_add_test(tc, test_monitoring_queue);
	suite_add_tcase(s, tc);
	return s;
}
