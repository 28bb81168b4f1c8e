/* API suite: GET /sidekiq/... (GitLab 10's SidekiqMetrics), admins only, filled from the
 * job queue: every kind a queue with its backlog and latency, the background processes of
 * both instances, jobs done/failed/queued moving with the work. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

static long long processed(void)
{
	resp *r = R(api("GET", "/sidekiq/job_stats", admin_token(), NULL));
	ck_status(r, 200);
	return jint(jget(r->json, "jobs"), "processed");
}

START_TEST(test_sidekiq_access)
{
	long long uid;
	char *token = S(make_user("skq", &uid, NULL));
	static const char *const paths[] = {"/sidekiq/queue_metrics", "/sidekiq/process_metrics",
					    "/sidekiq/job_stats", "/sidekiq/compound_metrics"};
	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		ck_code(R(api("GET", paths[i], NULL, NULL)), 401);
		ck_code(R(api("GET", paths[i], token, NULL)), 403);
		ck_code(R(api("GET", paths[i], admin_token(), NULL)), 200);
	}
}
END_TEST

START_TEST(test_sidekiq_queues)
{
	/* a job of a kind not due for an hour, queued 30 s ago */
	char *id = S(sql_value(
		"INSERT INTO background_jobs (kind, payload, run_at, created_at)"
		" VALUES ('housekeeping', '{\"project_id\": 999999999}',"
		" now() + interval '1 hour', now() - interval '30 seconds') RETURNING id"));
	resp *r = R(api("GET", "/sidekiq/queue_metrics", admin_token(), NULL));
	ck_status(r, 200);
	static const char *const top[] = {"queues", NULL};
	ck_fields(r->json, top);
	json_object *q = jget(r->json, "queues");
	/* every kind of job, each {backlog, latency} */
	static const char *const kinds[] = {"push", "delete_project", "remove_path",
					    "housekeeping"};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
		json_object *k = jget(q, kinds[i]);
		ck_assert_msg(k, "no queue %s in %s", kinds[i], r->body);
		static const char *const fields[] = {"backlog", "latency", NULL};
		ck_fields(k, fields);
	}
	ck_assert_int_ge(jint(jget(q, "housekeeping"), "backlog"), 1);
	ck_assert_int_ge(jint(jget(q, "housekeeping"), "latency"), 30);
	long long enqueued =
		jint(jget(R(api("GET", "/sidekiq/job_stats", admin_token(), NULL))->json, "jobs"),
		     "enqueued");
	ck_assert_int_ge(enqueued, 1);
	free(sql_value("DELETE FROM background_jobs WHERE id = %s", id));
}
END_TEST

START_TEST(test_sidekiq_processes_and_stats)
{
	resp *r = R(api("GET", "/sidekiq/process_metrics", admin_token(), NULL));
	ck_status(r, 200);
	json_object *list = jget(r->json, "processes");
	/* the two instances' background processes */
	ck_assert_int_ge(json_object_array_length(list), 2);
	json_object *p = json_object_array_get_idx(list, 0);
	static const char *const fields[] = {"hostname",    "pid",    "tag",
					     "started_at",  "queues", "labels",
					     "concurrency", "busy",   NULL};
	ck_fields(p, fields);
	ck_assert_int_gt(jint(p, "pid"), 0);
	ck_assert_int_eq(jint(p, "concurrency"), 1);
	ck_assert(json_object_array_length(jget(p, "queues")) >= 4);
	/* a push is a job: done once more */
	long long before = processed(), uid;
	char *token = S(make_user("skp", &uid, NULL));
	long long project = api_project(token, "private", NULL);
	ck_code(R(api_json(
			"POST", S(fmt("/projects/%lld/repository/commits", project)), token,
			"{\"branch\":\"master\",\"commit_message\":\"m\",\"actions\":[{\"action\":"
			"\"create\",\"file_path\":\"a\",\"content\":\"a\"}]}")),
		201);
	long long after = before;
	for (int i = 0; i < 100 && after == before; i++) {
		usleep(50000);
		after = processed();
	}
	ck_assert_int_gt(after, before);
	/* all three at once */
	r = R(api("GET", "/sidekiq/compound_metrics", admin_token(), NULL));
	static const char *const all[] = {"queues", "processes", "jobs", NULL};
	ck_fields(r->json, all);
	static const char *const job_fields[] = {"processed", "failed", "enqueued", NULL};
	ck_fields(jget(r->json, "jobs"), job_fields);
}
END_TEST

Suite *suite_sidekiq(void)
{
	Suite *s = suite_create("sidekiq");
	TCase *tc = tcase_create("sidekiq");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_sidekiq_access);
	tcase_add_test(tc, test_sidekiq_queues);
	tcase_add_test(tc, test_sidekiq_processes_and_stats);
	suite_add_tcase(s, tc);
	return s;
}
