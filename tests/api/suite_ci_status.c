/* API suite: the pipeline status machine (sql/0022_ci.sql and sql/0029: ci_process_pipeline,
 * ci_jobs_status, ci_composite_status, ci_retry_job, ci_pipeline_duration), table-driven:
 * GitLab 10's Ci::ProcessPipelineService (which jobs of a stage start, by their `when`,
 * once the stages before it are complete), HasStatus's composite status (allow_failure
 * ignored with warnings, a blocking manual job) and Ci::Pipeline's state machine (the
 * events and the times they set). Each case is a pipeline made by SQL (suite_jobs.c's
 * fixtures) with its stages of jobs, all created; each step a change (the pipeline
 * processed, a job's new status as a runner or the API writes it, a job's retry, the
 * pipeline's cancel through the API), then every current job's status, the pipeline's
 * status and which of started_at, finished_at and duration are set. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

typedef struct {
	const char *name;
	int stage;
	const char *when;
	bool allow_failure;
} jdef;

typedef struct {
	/* "process": ci_process_pipeline (a new pipeline); "NAME=STATUS": the job's status
	 * (running sets its started_at, success, failed and canceled its finished_at, as the
	 * runner API does), then ci_process_pipeline; "retry NAME": ci_retry_job of the
	 * job's current copy as POST /jobs/:id/retry (enqueue), then ci_process_pipeline;
	 * "cancel": POST /projects/:id/pipelines/:id/cancel */
	const char *op;
	const char *jobs;   /* "NAME=STATUS ..." every current job, in the case's order */
	const char *status; /* the pipeline's */
	const char *times;  /* the ones set of started_at (s), finished_at (f), duration (d) */
} step;

typedef struct {
	const char *title;
	jdef jobs[8];
	step steps[10];
} ccase;

#define F false
#define T true

static const ccase CASES[] = {
	{"a failure in stage 1 skips the on_success jobs of stage 2, runs its on_failure and"
	 " always ones; the pipeline fails when they are done",
	 {{"build", 0, "on_success", F},
	  {"test", 1, "on_success", F},
	  {"cleanup", 1, "always", F},
	  {"notify", 1, "on_failure", F},
	  {"deploy", 2, "on_success", F}},
	 {{"process", "build=pending test=created cleanup=created notify=created deploy=created",
	   "pending", ""},
	  {"build=running",
	   "build=running test=created cleanup=created notify=created deploy=created", "running",
	   "s"},
	  {"build=failed", "build=failed test=skipped cleanup=pending notify=pending deploy=created",
	   "running", "s"},
	  {"cleanup=success",
	   "build=failed test=skipped cleanup=success notify=pending deploy=created", "running",
	   "s"},
	  {"notify=success",
	   "build=failed test=skipped cleanup=success notify=success deploy=skipped", "failed",
	   "sfd"}}},
	{"the same stages when stage 1 succeeds: on_failure skipped, always and on_success run",
	 {{"build", 0, "on_success", F},
	  {"test", 1, "on_success", F},
	  {"cleanup", 1, "always", F},
	  {"notify", 1, "on_failure", F},
	  {"deploy", 2, "on_success", F}},
	 {{"process", "build=pending test=created cleanup=created notify=created deploy=created",
	   "pending", ""},
	  {"build=success",
	   "build=success test=pending cleanup=pending notify=skipped deploy=created", "running",
	   "s"},
	  {"test=success",
	   "build=success test=success cleanup=pending notify=skipped deploy=created", "running",
	   "s"},
	  {"cleanup=success",
	   "build=success test=success cleanup=success notify=skipped deploy=pending", "running",
	   "s"},
	  {"deploy=success",
	   "build=success test=success cleanup=success notify=skipped deploy=success", "success",
	   "sfd"}}},
	{"a failed job that allows failure counts as a success (with warnings)",
	 {{"lint", 0, "on_success", T},
	  {"build", 0, "on_success", F},
	  {"test", 1, "on_success", F},
	  {"notify", 1, "on_failure", F}},
	 {{"process", "lint=pending build=pending test=created notify=created", "pending", ""},
	  {"lint=running", "lint=running build=pending test=created notify=created", "running", "s"},
	  /* the composite is pending again (lint ignored): enqueue does not move a running
	   * pipeline */
	  {"lint=failed", "lint=failed build=pending test=created notify=created", "running", "s"},
	  {"build=success", "lint=failed build=success test=pending notify=skipped", "running", "s"},
	  {"test=success", "lint=failed build=success test=success notify=skipped", "success",
	   "sfd"}}},
	{"only an allowed failure and skipped jobs: success, not skipped",
	 {{"lint", 0, "on_success", T}, {"notify", 1, "on_failure", F}},
	 {{"process", "lint=pending notify=created", "pending", ""},
	  /* pending to success: the pipeline never ran (no started_at, no duration) */
	  {"lint=failed", "lint=failed notify=skipped", "success", "f"}}},
	{"a canceled job that allows failure warns as a failed one",
	 {{"lint", 0, "on_success", T}, {"notify", 1, "on_failure", F}},
	 {{"process", "lint=pending notify=created", "pending", ""},
	  {"lint=canceled", "lint=canceled notify=skipped", "success", "f"}}},
	{"a manual job that blocks (allow_failure false) holds the later stages until played",
	 {{"build", 0, "on_success", F}, {"deploy", 1, "manual", F}, {"smoke", 2, "on_success", F}},
	 {{"process", "build=pending deploy=created smoke=created", "pending", ""},
	  {"build=running", "build=running deploy=created smoke=created", "running", "s"},
	  /* block: the duration so far */
	  {"build=success", "build=success deploy=manual smoke=created", "manual", "sd"},
	  /* played */
	  {"deploy=pending", "build=success deploy=pending smoke=created", "running", "sd"},
	  {"deploy=success", "build=success deploy=success smoke=pending", "running", "sd"},
	  {"smoke=success", "build=success deploy=success smoke=success", "success", "sfd"}}},
	{"a manual job that allows failure does not hold the later stages",
	 {{"build", 0, "on_success", F}, {"deploy", 1, "manual", T}, {"smoke", 2, "on_success", F}},
	 {{"process", "build=pending deploy=created smoke=created", "pending", ""},
	  {"build=success", "build=success deploy=manual smoke=pending", "running", "s"},
	  {"smoke=success", "build=success deploy=manual smoke=success", "success", "sfd"}}},
	{"a manual job after a failure is skipped; an always job after it runs",
	 {{"build", 0, "on_success", F}, {"deploy", 1, "manual", F}, {"report", 2, "always", F}},
	 {{"process", "build=pending deploy=created report=created", "pending", ""},
	  {"build=failed", "build=failed deploy=skipped report=pending", "running", "s"},
	  {"report=success", "build=failed deploy=skipped report=success", "failed", "sfd"}}},
	{"cancel of a running pipeline: its unfinished jobs canceled, created ones included",
	 {{"build", 0, "on_success", F},
	  {"test1", 1, "on_success", F},
	  {"test2", 1, "on_success", F},
	  {"deploy", 2, "on_success", F}},
	 {{"process", "build=pending test1=created test2=created deploy=created", "pending", ""},
	  {"build=success", "build=success test1=pending test2=pending deploy=created", "running",
	   "s"},
	  {"test1=running", "build=success test1=running test2=pending deploy=created", "running",
	   "s"},
	  {"cancel", "build=success test1=canceled test2=canceled deploy=canceled", "canceled",
	   "sfd"}}},
	{"cancel of a pending pipeline: canceled, never started",
	 {{"build", 0, "on_success", F}, {"test", 1, "on_success", F}},
	 {{"process", "build=pending test=created", "pending", ""},
	  {"cancel", "build=canceled test=canceled", "canceled", "f"}}},
	{"all skipped: the pipeline skipped, with no times",
	 {{"a", 0, "on_failure", F}, {"b", 1, "on_failure", F}},
	 {{"process", "a=skipped b=skipped", "skipped", ""}}},
	{"retry of a failed job: the later stages run again, the pipeline running again",
	 {{"build", 0, "on_success", F},
	  {"test", 1, "on_success", F},
	  {"deploy", 2, "on_success", F}},
	 {{"process", "build=pending test=created deploy=created", "pending", ""},
	  {"build=running", "build=running test=created deploy=created", "running", "s"},
	  {"build=failed", "build=failed test=skipped deploy=skipped", "failed", "sfd"},
	  /* enqueue from failed: running; finished_at and duration stay until it finishes */
	  {"retry build", "build=pending test=created deploy=created", "running", "sfd"},
	  {"build=success", "build=success test=pending deploy=created", "running", "sfd"},
	  {"test=success", "build=success test=success deploy=pending", "running", "sfd"},
	  {"deploy=success", "build=success test=success deploy=success", "success", "sfd"}}},
	{"retry of a failed job in the last stage of a failed pipeline",
	 {{"build", 0, "on_success", F}, {"test", 1, "on_success", F}},
	 {{"process", "build=pending test=created", "pending", ""},
	  {"build=success", "build=success test=pending", "running", "s"},
	  {"test=failed", "build=success test=failed", "failed", "sfd"},
	  {"retry test", "build=success test=pending", "running", "sfd"},
	  {"test=running", "build=success test=running", "running", "sfd"},
	  {"test=success", "build=success test=success", "success", "sfd"}}},
};

/* ---- fixtures ---- */

typedef struct {
	long long project;
	char *owner;
	long long owner_id;
	long long pipeline;
} fx;

/* The current (not retried) job named name of the pipeline. */
static long long job_id(const fx *f, const char *name)
{
	return sql_int("SELECT id FROM commit_statuses WHERE pipeline_id = %lld AND name = '%s'"
		       " AND NOT retried",
		       f->pipeline, name);
}

static void make(fx *f, const ccase *c)
{
	f->owner = S(make_user("cist", &f->owner_id, NULL));
	f->project = api_project(f->owner, "private", NULL);
	f->pipeline = sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, user_id) VALUES"
			      " (%lld, 'master', '%040d', %lld) RETURNING id",
			      f->project, 1, f->owner_id);
	for (const jdef *j = c->jobs; j->name; j++)
		sql_int("WITH s AS (INSERT INTO commit_statuses (project_id, sha, ref, name, stage,"
			" status, allow_failure, author_id, pipeline_id, stage_idx, \"when\")"
			" SELECT project_id, sha, ref, '%s', 'stage%d', 'created', %s, %lld, id, %d,"
			" '%s' FROM ci_pipelines WHERE id = %lld RETURNING id, project_id, pipeline_id)"
			" INSERT INTO ci_builds (id, project_id, pipeline_id, options)"
			" SELECT id, project_id, pipeline_id, '{\"script\":[\"x\"]}' FROM s RETURNING id",
			j->name, j->stage, j->allow_failure ? "true" : "false", f->owner_id,
			j->stage, j->when, f->pipeline);
}

static void apply(const fx *f, const char *op, const char *where)
{
	char name[64], status[32];
	if (strcmp(op, "process") == 0) {
		free(sql_value("SELECT ci_process_pipeline(%lld)", f->pipeline));
	} else if (strcmp(op, "cancel") == 0) {
		ck_code(R(api("POST",
			      S(fmt("/projects/%lld/pipelines/%lld/cancel", f->project,
				    f->pipeline)),
			      f->owner, NULL)),
			200);
	} else if (sscanf(op, "retry %63s", name) == 1) {
		long long n = sql_int("SELECT ci_retry_job(%lld, %lld, true)", job_id(f, name),
				      f->owner_id);
		ck_assert_msg(n > 0, "%s: no retry", where);
		free(sql_value("SELECT ci_process_pipeline(%lld)", f->pipeline));
	} else if (sscanf(op, "%63[^=]=%31s", name, status) == 2) {
		/* the times a little in the past, so that durations are not 0 */
		free(sql_value(
			"UPDATE commit_statuses SET status = '%s', updated_at = now(),"
			" started_at = CASE WHEN '%s' IN ('running', 'success', 'failed')"
			"  THEN coalesce(started_at, now() - interval '5 seconds') ELSE started_at END,"
			" finished_at = CASE WHEN '%s' IN ('success', 'failed', 'canceled')"
			"  THEN now() ELSE finished_at END"
			" WHERE id = %lld; SELECT ci_process_pipeline(%lld)",
			status, status, status, job_id(f, name), f->pipeline));
	} else {
		ck_abort_msg("%s: unknown step %s", where, op);
	}
}

/* "NAME=STATUS ..." of the current jobs in the case's order */
static char *jobs_now(const fx *f, const ccase *c)
{
	char *out = S(strdup(""));
	for (const jdef *j = c->jobs; j->name; j++) {
		char *st = S(sql_value("SELECT status FROM commit_statuses WHERE pipeline_id = %lld"
				       " AND name = '%s' AND NOT retried",
				       f->pipeline, j->name));
		out = S(fmt("%s%s%s=%s", out, *out ? " " : "", j->name, st));
	}
	return out;
}

/* ---- tests ---- */

START_TEST(test_ci_status_table)
{
	const ccase *c = &CASES[_i];
	fx f;
	make(&f, c);
	for (int k = 0; k < 10 && c->steps[k].op; k++) {
		const step *s = &c->steps[k];
		char *where = S(fmt("case %d (%s), step %d (%s)", _i, c->title, k, s->op));
		apply(&f, s->op, where);
		ck_assert_msg(strcmp(jobs_now(&f, c), s->jobs) == 0, "%s: jobs %s, want %s", where,
			      jobs_now(&f, c), s->jobs);
		char *got = S(sql_value("SELECT status || ' ' || CASE WHEN started_at IS NOT NULL"
					" THEN 's' ELSE '' END || CASE WHEN finished_at IS NOT NULL"
					" THEN 'f' ELSE '' END || CASE WHEN duration IS NOT NULL"
					" THEN 'd' ELSE '' END FROM ci_pipelines WHERE id = %lld",
					f.pipeline));
		char *want = S(fmt("%s %s", s->status, s->times));
		ck_assert_msg(strcmp(got, want) == 0, "%s: pipeline %s, want %s", where, got, want);
	}
	/* the API shows what the table holds */
	resp *r = R(api("GET", S(fmt("/projects/%lld/pipelines/%lld", f.project, f.pipeline)),
			f.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(
		jstr(r->json, "status"),
		S(sql_value("SELECT status FROM ci_pipelines WHERE id = %lld", f.pipeline)));
}
END_TEST

/* The duration: the time during which at least one current job ran (overlaps counted
 * once, gaps not at all, retried and skipped jobs not at all), not finished - started. */
START_TEST(test_ci_status_duration)
{
	static const ccase c = {"duration",
				{{"a", 0, "on_success", F},
				 {"b", 0, "on_success", F},
				 {"c", 1, "on_success", F},
				 {"d", 1, "on_success", F}},
				{{NULL, NULL, NULL, NULL}}};
	fx f;
	make(&f, &c);
	/* a [0, 10], b [5, 20], c [30, 40]: 30 s; d skipped; a retried copy [0, 100] */
	free(sql_value(
		"UPDATE commit_statuses SET status = 'success',"
		" started_at = timestamptz '2017-09-22 10:00:00+00' + s * interval '1 second',"
		" finished_at = timestamptz '2017-09-22 10:00:00+00' + e * interval '1 second'"
		" FROM (VALUES ('a', 0, 10), ('b', 5, 20), ('c', 30, 40)) v(n, s, e)"
		" WHERE pipeline_id = %lld AND name = v.n",
		f.pipeline));
	free(sql_value("UPDATE commit_statuses SET status = 'skipped' WHERE pipeline_id = %lld"
		       " AND name = 'd'",
		       f.pipeline));
	long long old =
		sql_int("SELECT ci_retry_job(%lld, %lld, false)", job_id(&f, "a"), f.owner_id);
	ck_assert_int_gt(old, 0);
	free(sql_value(
		"UPDATE commit_statuses SET status = 'success',"
		" started_at = timestamptz '2017-09-22 10:00:00+00',"
		" finished_at = timestamptz '2017-09-22 10:00:10+00' WHERE id = %lld;"
		" UPDATE commit_statuses SET finished_at = started_at + interval '100 seconds'"
		" WHERE pipeline_id = %lld AND name = 'a' AND retried",
		old, f.pipeline));
	ck_assert_int_eq(sql_int("SELECT ci_pipeline_duration(%lld)", f.pipeline), 30);
	/* the pipeline, started, succeeds with that duration */
	free(sql_value("UPDATE ci_pipelines SET status = 'running', started_at = now()"
		       " WHERE id = %lld",
		       f.pipeline));
	ck_assert_str_eq(S(sql_value("SELECT ci_process_pipeline(%lld)", f.pipeline)), "success");
	ck_assert_int_eq(sql_int("SELECT duration FROM ci_pipelines WHERE id = %lld", f.pipeline),
			 30);
	/* a running job counts until now */
	free(sql_value("UPDATE commit_statuses SET status = 'running', finished_at = NULL,"
		       " started_at = now() - interval '1 hour' WHERE pipeline_id = %lld"
		       " AND name = 'c'",
		       f.pipeline));
	ck_assert_int_ge(sql_int("SELECT ci_pipeline_duration(%lld)", f.pipeline), 3600);
}
END_TEST

/* The composite status itself, GitLab 10's HasStatus.status_sql, row by row. */
START_TEST(test_ci_status_composite)
{
	static const struct {
		long long total, created, pending, running, success, skipped, canceled, manual;
		bool warnings;
		const char *want;
	} rows[] = {
		{0, 0, 0, 0, 0, 0, 0, 0, false, "skipped"},
		{0, 0, 0, 0, 0, 0, 0, 0, true, "success"},
		{2, 0, 0, 0, 0, 2, 0, 0, false, "skipped"},
		{2, 0, 0, 0, 0, 2, 0, 0, true, "success"},
		{3, 0, 0, 0, 3, 0, 0, 0, false, "success"},
		{3, 3, 0, 0, 0, 0, 0, 0, false, "created"},
		{3, 0, 0, 0, 2, 1, 0, 0, false, "success"},
		{3, 0, 0, 0, 1, 1, 1, 0, false, "canceled"},
		{3, 1, 1, 0, 0, 1, 0, 0, false, "pending"},
		{3, 1, 0, 1, 1, 0, 0, 0, false, "running"},
		{3, 0, 1, 0, 1, 0, 0, 1, false, "running"},
		{3, 0, 0, 0, 1, 0, 0, 1, false, "manual"},
		{3, 1, 0, 0, 1, 0, 0, 1, false, "manual"},
		{3, 1, 0, 0, 2, 0, 0, 0, false, "running"},
		{3, 0, 0, 0, 2, 0, 0, 0, false, "failed"},
		{3, 0, 0, 0, 1, 0, 1, 0, false, "failed"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		char *got = S(sql_value("SELECT ci_composite_status(%lld, %lld, %lld, %lld, %lld,"
					" %lld, %lld, %lld, %s)",
					rows[i].total, rows[i].created, rows[i].pending,
					rows[i].running, rows[i].success, rows[i].skipped,
					rows[i].canceled, rows[i].manual,
					rows[i].warnings ? "true" : "false"));
		ck_assert_msg(strcmp(got, rows[i].want) == 0, "row %zu: %s, want %s", i, got,
			      rows[i].want);
	}
}
END_TEST

Suite *suite_ci_status(void)
{
	Suite *s = suite_create("ci_status");
	TCase *tc = tcase_create("ci_status");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_loop_test(tc, test_ci_status_table, 0, (int)(sizeof CASES / sizeof *CASES));
	tcase_add_test(tc, test_ci_status_duration);
	tcase_add_test(tc, test_ci_status_composite);
	suite_add_tcase(s, tc);
	return s;
}
