/* API suite: jobs (spec 4.5, GitLab 10's lib/api/jobs.rb): the lists of a project and of
 * a pipeline with their scope filter and pagination, one job's record, the trace and
 * artifacts downloads through nginx (X-Accel-Redirect), one file of an archive (libzip,
 * path checks, a zip bomb), cancel, retry and play with the pipeline's status following,
 * and who may do what (roles, public_jobs, jobs_enabled). Pipelines and jobs are SQL
 * fixtures (sql/0022_ci.sql's rows); traces and archives are written into the stack's
 * storage path as the runner API would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <libpq-fe.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"

static const char *const JOB_FIELDS[] = {"id",         "status",      "stage",    "name",
					 "ref",        "tag",         "coverage", "created_at",
					 "started_at", "finished_at", "user",     "artifacts_file",
					 "commit",     "runner",      "pipeline", NULL};

/* ---- fixtures ---- */

typedef struct {
	long long id;
	char *owner;
	long long owner_id;
	char *sha; /* the commit of master */
} fx;

static void project(fx *f, const char *visibility)
{
	f->owner = S(make_user("job_own", &f->owner_id, NULL));
	f->id = api_project(f->owner, visibility, NULL);
	resp *r = R(api_json("POST", S(fmt("/projects/%lld/repository/commits", f->id)), f->owner,
			     "{\"branch\":\"master\",\"commit_message\":\"first\\n\\nbody\","
			     "\"actions\":[{\"action\":\"create\",\"file_path\":\"a.txt\","
			     "\"content\":\"a\"}]}"));
	ck_status(r, 201);
	f->sha = S(strdup(jstr(r->json, "id")));
}

static char *member(long long pid, int level, long long *id)
{
	long long uid;
	char *token = S(make_user("job_m", &uid, NULL));
	if (level)
		fixture_member("Project", pid, uid, level);
	if (id)
		*id = uid;
	return token;
}

static long long pipeline(const fx *f, const char *ref, const char *status)
{
	return sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, status, user_id)"
		       " VALUES (%lld, '%s', '%s', '%s', %lld) RETURNING id",
		       f->id, ref, f->sha, status, f->owner_id);
}

/* A job of pipeline p: name, stage index, status, `when`; its id. */
static long long job_at(const fx *f, long long p, const char *name, int stage_idx,
			const char *status, const char *when)
{
	return sql_int("WITH s AS (INSERT INTO commit_statuses (project_id, sha, ref, name, stage,"
		       " status, author_id, pipeline_id, stage_idx, \"when\")"
		       " SELECT project_id, sha, ref, '%s', 'stage%d', '%s', %lld, id, %d, '%s'"
		       " FROM ci_pipelines WHERE id = %lld RETURNING id, project_id, pipeline_id)"
		       " INSERT INTO ci_builds (id, project_id, pipeline_id)"
		       " SELECT id, project_id, pipeline_id FROM s RETURNING id",
		       name, stage_idx, status, f->owner_id, stage_idx, when, p);
}

static long long job(const fx *f, long long p, const char *name, const char *status)
{
	return job_at(f, p, name, 0, status, "on_success");
}

static char *sql_text(const char *q)
{
	return S(sql_value("%s", q));
}

static char *storage(void)
{
	return S(fmt("%s/storage", getenv("COLLABD_DIR")));
}

static void sh(const char *cmd)
{
	int rc = system(cmd);
	ck_assert_msg(rc == 0, "%s: %d", cmd, rc);
}

static long long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* The entries of directory dir (0 when there is none). */
static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static char *read_all(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	ck_assert_msg(fp != NULL, "%s", path);
	char *b = malloc(1 << 20);
	*n = fread(b, 1, 1 << 20, fp);
	fclose(fp);
	return S(b);
}

/* A zip of the files in directory dir (made by the shell commands cmds, run there) as
 * the artifacts of job j, named name; the archive's path. */
static char *artifacts(const fx *f, long long j, const char *name, const char *cmds)
{
	char *dir = S(fmt("%s/ci/artifacts/%lld/%lld", storage(), f->id, j));
	char *src = S(fmt("%s/ci/src-%lld", storage(), j));
	sh(S(fmt("rm -rf '%s' && mkdir -p '%s' '%s' && cd '%s' && %s"
		 " && zip -qr '%s/artifacts.zip' ."
		 " && chmod -R a+rX '%s/ci' && rm -rf '%s'",
		 src, src, dir, src, cmds, dir, storage(), src)));
	char *zip = S(fmt("%s/artifacts.zip", dir));
	free(sql_value("UPDATE ci_builds SET artifacts_file = '%s', artifacts_size = %lld"
		       " WHERE id = %lld",
		       name, file_size(zip), j));
	return zip;
}

static char *jpath(const fx *f, long long j, const char *suffix)
{
	return S(fmt("/projects/%lld/jobs/%lld%s", f->id, j, suffix));
}

/* The ids of a list response, in order, compared with want[0..n). */
static void ck_ids(resp *r, const long long *want, size_t n)
{
	ck_status(r, 200);
	ck_assert_msg(json_object_array_length(r->json) == n, "%zu ids expected: %s", n, r->body);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(jint(json_object_array_get_idx(r->json, i), "id"), want[i]);
}

/* A download answered by nginx: 200, exactly the bytes of path, no X-Accel-Redirect. */
static void ck_file(resp *r, const char *path)
{
	ck_status(r, 200);
	size_t n;
	char *want = read_all(path, &n);
	ck_assert_msg(r->body_len == n && memcmp(r->body, want, n) == 0, "%zu bytes, want %zu",
		      r->body_len, n);
	ck_header(r, "X-Accel-Redirect", NULL);
}

/* ---- tests ---- */

START_TEST(test_jobs_show)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "running");
	long long j = job(&f, p, "rspec", "running");
	long long rn = sql_int("INSERT INTO ci_runners (token_digest, token_sealed, description,"
			       " name, is_shared) VALUES (md5(random()::text), 'x', 'the runner',"
			       " 'gitlab-runner', true) RETURNING id");
	free(sql_value("UPDATE ci_builds SET runner_id = %lld WHERE id = %lld", rn, j));
	free(sql_value("UPDATE commit_statuses SET coverage = 98.29, started_at = now()"
		       " WHERE id = %lld",
		       j));
	artifacts(&f, j, "ci-build.zip", "echo x > x.txt");
	resp *r = R(api("GET", jpath(&f, j, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, JOB_FIELDS);
	ck_assert_int_eq(jint(r->json, "id"), j);
	ck_jstr(r, "name", "rspec");
	ck_jstr(r, "stage", "stage0");
	ck_jstr(r, "status", "running");
	ck_jstr(r, "ref", "master");
	ck_assert(!jbool(r->json, "tag"));
	ck_assert(strstr(r->body, "\"coverage\":98.29") != NULL);
	ck_assert(!jnull(r->json, "started_at") && jnull(r->json, "finished_at"));
	json_object *c = jget(r->json, "commit");
	ck_assert_str_eq(jstr(c, "id"), f.sha);
	ck_assert_str_eq(jstr(c, "title"), "first");
	ck_assert_str_eq(jstr(c, "message"), "first\n\nbody");
	ck_assert(jhas(c, "short_id") && jhas(c, "author_name") && jhas(c, "author_email") &&
		  jhas(c, "created_at"));
	json_object *pl = jget(r->json, "pipeline");
	ck_assert_int_eq(jint(pl, "id"), p);
	ck_assert_str_eq(jstr(pl, "ref"), "master");
	ck_assert_str_eq(jstr(pl, "sha"), f.sha);
	ck_assert_str_eq(jstr(pl, "status"), "running");
	json_object *run = jget(r->json, "runner");
	ck_assert_int_eq(jint(run, "id"), rn);
	ck_assert_str_eq(jstr(run, "description"), "the runner");
	ck_assert(jbool(run, "active") && jbool(run, "is_shared"));
	ck_assert_str_eq(jstr(run, "name"), "gitlab-runner");
	json_object *a = jget(r->json, "artifacts_file");
	ck_assert_str_eq(jstr(a, "filename"), "ci-build.zip");
	ck_assert_int_gt(jint(a, "size"), 0);
	json_object *u = jget(r->json, "user");
	ck_assert_int_eq(jint(u, "id"), f.owner_id);
	ck_assert(jhas(u, "username") && jhas(u, "created_at") && jhas(u, "bio") &&
		  jhas(u, "skype") && jhas(u, "website_url"));

	/* no runner, artifacts, user; a commit the repository does not have */
	long long q = sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, status) VALUES"
			      " (%lld, 'x', '%040d', 'pending') RETURNING id",
			      f.id, 7);
	long long k = job(&f, q, "bare", "pending");
	free(sql_value("UPDATE commit_statuses SET author_id = NULL WHERE id = %lld", k));
	r = R(api("GET", jpath(&f, k, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_fields(r->json, JOB_FIELDS);
	ck_assert(jnull(r->json, "runner") && jnull(r->json, "artifacts_file") &&
		  jnull(r->json, "commit") && jnull(r->json, "user") && jnull(r->json, "coverage"));

	ck_body(R(api("GET", jpath(&f, 999999999, ""), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", S(fmt("/projects/%lld/jobs/x1", f.id)), f.owner, NULL)), 400,
		"{\"error\":\"job_id is invalid\"}");
	/* another project's job */
	fx g;
	project(&g, "private");
	ck_body(R(api("GET", jpath(&g, j, ""), g.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_code(R(api("GET", jpath(&f, j, ""), NULL, NULL)), 401);
}
END_TEST

START_TEST(test_jobs_list_scope)
{
	fx f;
	project(&f, "private");
	long long p1 = pipeline(&f, "master", "failed");
	long long a = job(&f, p1, "a", "failed");
	long long b = job(&f, p1, "b", "success");
	long long p2 = pipeline(&f, "master", "running");
	long long c = job(&f, p2, "c", "pending");
	long long d = job(&f, p2, "d", "manual");
	/* a retried job stays in the lists, as GitLab 10 showed them */
	free(sql_value("UPDATE commit_statuses SET retried = true WHERE id = %lld", a));
	char *base = S(fmt("/projects/%lld/jobs", f.id));
	ck_ids(R(api("GET", base, f.owner, NULL)), (long long[]){d, c, b, a}, 4);
	ck_ids(R(api("GET", S(fmt("%s?scope=pending", base)), f.owner, NULL)), (long long[]){c}, 1);
	ck_ids(R(api("GET", S(fmt("%s?scope[]=failed&scope[]=manual", base)), f.owner, NULL)),
	       (long long[]){d, a}, 2);
	ck_ids(R(api("GET", S(fmt("%s?scope=canceled", base)), f.owner, NULL)), NULL, 0);
	ck_body(R(api("GET", S(fmt("%s?scope=bogus", base)), f.owner, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("%s?scope[]=pending&scope[]=bogus", base)), f.owner, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	ck_code(R(api("GET", S(fmt("%s?scope=", base)), f.owner, NULL)), 400);

	char *pl = S(fmt("/projects/%lld/pipelines/%lld/jobs", f.id, p2));
	resp *r = R(api("GET", pl, f.owner, NULL));
	ck_ids(r, (long long[]){d, c}, 2);
	ck_fields(json_object_array_get_idx(r->json, 0), JOB_FIELDS);
	ck_ids(R(api("GET", S(fmt("%s?scope[]=manual", pl)), f.owner, NULL)), (long long[]){d}, 1);
	ck_ids(R(api("GET", S(fmt("/projects/%lld/pipelines/%lld/jobs", f.id, p1)), f.owner, NULL)),
	       (long long[]){b, a}, 2);
	ck_body(R(api("GET", S(fmt("%s?scope=nope", pl)), f.owner, NULL)), 400,
		"{\"error\":\"scope does not have a valid value\"}");
	ck_body(R(api("GET", S(fmt("/projects/%lld/pipelines/999999999/jobs", f.id)), f.owner,
		      NULL)),
		404, "{\"message\":\"404 Pipeline Not Found\"}");
	ck_body(R(api("GET", S(fmt("/projects/%lld/pipelines/x/jobs", f.id)), f.owner, NULL)), 400,
		"{\"error\":\"pipeline_id is invalid\"}");
	/* another project's pipeline */
	fx g;
	project(&g, "private");
	ck_body(R(api("GET", S(fmt("/projects/%lld/pipelines/%lld/jobs", g.id, p2)), g.owner,
		      NULL)),
		404, "{\"message\":\"404 Pipeline Not Found\"}");
	ck_ids(R(api("GET", S(fmt("/projects/%lld/jobs", g.id)), g.owner, NULL)), NULL, 0);
}
END_TEST

START_TEST(test_jobs_pagination)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "running");
	long long ids[5];
	for (int i = 0; i < 5; i++)
		ids[4 - i] = job(&f, p, "j", "pending");
	char *path = S(fmt("/projects/%lld/jobs", f.id));
	for (int page = 1; page <= 3; page++) {
		resp *r = R(api("GET", S(fmt("%s?scope=pending&per_page=2&page=%d", path, page)),
				f.owner, NULL));
		ck_ids(r, ids + (page - 1) * 2, page < 3 ? 2 : 1);
		ck_pages(r, path, "scope=pending", 5, 2, page);
	}
	char *pl = S(fmt("/projects/%lld/pipelines/%lld/jobs", f.id, p));
	resp *r = R(api("GET", S(fmt("%s?per_page=3&page=2", pl)), f.owner, NULL));
	ck_ids(r, ids + 3, 2);
	ck_pages(r, pl, "", 5, 3, 2);
	ck_body(R(api("GET", S(fmt("%s?per_page=x", path)), f.owner, NULL)), 400,
		"{\"error\":\"per_page is invalid\"}");
}
END_TEST

/* The lists without scope (their own statements, jobs_list_project and
 * jobs_list_pipeline, that take the page from an index) answer what the general one
 * answers with a scope of every status: the same jobs, records, order, pages. */
START_TEST(test_jobs_list_plain)
{
	fx f;
	project(&f, "private");
	long long p1 = pipeline(&f, "master", "failed");
	long long a = job(&f, p1, "a", "failed");
	long long b = job_at(&f, p1, "b", 1, "success", "on_success");
	long long p2 = pipeline(&f, "feature", "running");
	long long c = job(&f, p2, "c", "running");
	long long d = job_at(&f, p2, "d", 1, "manual", "manual");
	/* another project's pipeline and jobs, in between */
	fx g;
	project(&g, "private");
	long long q = pipeline(&g, "master", "running");
	long long other = job(&g, q, "other", "running");
	/* a pipeline of a commit the repository lacks */
	long long p3 = sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, status) VALUES"
			       " (%lld, 'x', '%040d', 'pending') RETURNING id",
			       f.id, 7);
	long long e = job(&f, p3, "e", "pending");
	long long h = job(&f, p3, "h", "created");
	/* a retried job, one with no user, one with a runner, coverage and artifacts, and a
	 * commit status that is no job (no ci_builds row): in no list */
	free(sql_value("UPDATE commit_statuses SET retried = true WHERE id = %lld", a));
	free(sql_value("UPDATE commit_statuses SET author_id = NULL WHERE id = %lld", e));
	long long rn = sql_int("INSERT INTO ci_runners (token_digest, token_sealed, description,"
			       " name, is_shared) VALUES (md5(random()::text), 'x', 'plain',"
			       " 'gitlab-runner', false) RETURNING id");
	free(sql_value("UPDATE ci_builds SET runner_id = %lld WHERE id = %lld", rn, c));
	free(sql_value("UPDATE commit_statuses SET coverage = 12.5, started_at = now()"
		       " WHERE id = %lld",
		       c));
	artifacts(&f, b, "b.zip", "echo b > b.txt");
	sql_int("INSERT INTO commit_statuses (project_id, sha, ref, name, status, pipeline_id)"
		" VALUES (%lld, '%s', 'master', 'external', 'success', %lld) RETURNING id",
		f.id, f.sha, p1);

	char *list = S(fmt("/projects/%lld/jobs", f.id));
	const char *every = "scope[]=created&scope[]=pending&scope[]=running&scope[]=success"
			    "&scope[]=failed&scope[]=canceled&scope[]=skipped&scope[]=manual";
	char *general = S(fmt("%s?%s", list, every));
	resp *r = R(api("GET", list, f.owner, NULL));
	ck_ids(r, (long long[]){h, e, d, c, b, a}, 6);
	ck_pages(r, list, "", 6, 20, 1);
	json_object *jc = json_object_array_get_idx(r->json, 3);
	ck_fields(jc, JOB_FIELDS);
	ck_assert_int_eq(jint(jget(jc, "runner"), "id"), rn);
	ck_assert_str_eq(jstr(jget(jc, "commit"), "id"), f.sha);
	ck_assert_str_eq(jstr(jget(json_object_array_get_idx(r->json, 4), "artifacts_file"),
			      "filename"),
			 "b.zip");
	ck_assert(jnull(json_object_array_get_idx(r->json, 1), "user") &&
		  jnull(json_object_array_get_idx(r->json, 1), "commit"));
	ck_same_list(list, general, f.owner, "per_page=20");
	/* pages: 1 to 3 of 2 jobs, 4 past the end (empty, the same headers) */
	for (int page = 1; page <= 4; page++) {
		const char *pg = S(fmt("per_page=2&page=%d", page));
		ck_same_list(list, general, f.owner, pg);
		r = R(api("GET", S(fmt("%s?%s", list, pg)), f.owner, NULL));
		long long want[][2] = {{h, e}, {d, c}, {b, a}, {0, 0}};
		ck_ids(r, want[page - 1], page <= 3 ? 2 : 0);
		ck_pages(r, list, "", 6, 2, page);
	}
	ck_same_list(list, general, f.owner, "per_page=4&page=2");
	/* a pipeline's jobs */
	char *pl = S(fmt("/projects/%lld/pipelines/%lld/jobs", f.id, p2));
	r = R(api("GET", pl, f.owner, NULL));
	ck_ids(r, (long long[]){d, c}, 2);
	ck_pages(r, pl, "", 2, 20, 1);
	ck_same_list(pl, S(fmt("%s?%s", pl, every)), f.owner, "per_page=20");
	char *pl1 = S(fmt("/projects/%lld/pipelines/%lld/jobs", f.id, p1));
	for (int page = 1; page <= 3; page++) {
		const char *pg = S(fmt("per_page=1&page=%d", page));
		ck_same_list(pl1, S(fmt("%s?%s", pl1, every)), f.owner, pg);
		r = R(api("GET", S(fmt("%s?%s", pl1, pg)), f.owner, NULL));
		ck_ids(r, (long long[]){page == 1 ? b : a}, page <= 2 ? 1 : 0);
		ck_pages(r, pl1, "", 2, 1, page);
	}
	/* the other project's: only its own; a pipeline of another project: 404 */
	r = R(api("GET", S(fmt("/projects/%lld/jobs", g.id)), g.owner, NULL));
	ck_ids(r, (long long[]){other}, 1);
	ck_body(R(api("GET", S(fmt("/projects/%lld/pipelines/%lld/jobs", g.id, p1)), g.owner,
		      NULL)),
		404, "{\"message\":\"404 Pipeline Not Found\"}");
	/* who may read: a guest while the jobs are public, the same list; not when they are
	 * not (403), a stranger never (404) */
	char *guest = member(f.id, 10, NULL);
	ck_same_list(list, general, guest, "per_page=3");
	resp *mine = R(api("GET", list, f.owner, NULL)), *theirs = R(api("GET", list, guest, NULL));
	ck_assert_str_eq(mine->body, theirs->body);
	free(sql_value("UPDATE projects SET public_jobs = false WHERE id = %lld", f.id));
	ck_body(R(api("GET", list, guest, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("GET", pl, guest, NULL)), 403, "{\"message\":\"403 Forbidden\"}");
	ck_body(R(api("GET", list, member(f.id, 0, NULL), NULL)), 404,
		"{\"message\":\"404 Project Not Found\"}");
	ck_same_list(list, general, member(f.id, 20, NULL), "per_page=20");
}
END_TEST

/* Every reading route as token: the statuses expected. */
static void ck_reads(const fx *f, long long p, long long j, const char *token, int status)
{
	const char *paths[] = {
		S(fmt("/projects/%lld/jobs", f->id)),
		S(fmt("/projects/%lld/pipelines/%lld/jobs", f->id, p)),
		jpath(f, j, ""),
		jpath(f, j, "/trace"),
		jpath(f, j, "/artifacts"),
		jpath(f, j, "/artifacts/x.txt"),
		S(fmt("/projects/%lld/jobs/artifacts/master/download?job=build", f->id)),
	};
	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		resp *r = R(api("GET", paths[i], token, NULL));
		ck_assert_msg(r->status == status, "GET %s: %ld, want %d: %s", paths[i], r->status,
			      status, r->body);
		if (status == 403)
			ck_assert_str_eq(r->body, "{\"message\":\"403 Forbidden\"}");
		if (status == 404)
			ck_assert_str_eq(r->body, "{\"message\":\"404 Project Not Found\"}");
	}
}

START_TEST(test_jobs_access)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "success");
	long long j = job(&f, p, "build", "success");
	artifacts(&f, j, "a.zip", "echo x > x.txt");
	ck_reads(&f, p, j, f.owner, 200);
	ck_reads(&f, p, j, member(f.id, 20, NULL), 200);
	/* public_jobs (on by default) lets whoever sees the project read: guests of a
	 * private one; off, reporters and up */
	char *guest = member(f.id, 10, NULL);
	ck_reads(&f, p, j, guest, 200);
	free(sql_value("UPDATE projects SET public_jobs = false WHERE id = %lld", f.id));
	ck_reads(&f, p, j, guest, 403);
	ck_reads(&f, p, j, member(f.id, 20, NULL), 200);
	ck_reads(&f, p, j, member(f.id, 0, NULL), 404);
	ck_reads(&f, p, j, S(make_admin("job_adm", NULL)), 200);

	fx g;
	project(&g, "public");
	long long q = pipeline(&g, "master", "success");
	long long k = job(&g, q, "build", "success");
	artifacts(&g, k, "a.zip", "echo x > x.txt");
	char *stranger = member(g.id, 0, NULL);
	ck_reads(&g, q, k, stranger, 200);
	free(sql_value("UPDATE projects SET public_jobs = false WHERE id = %lld", g.id));
	ck_reads(&g, q, k, stranger, 403);
	char *reporter = member(g.id, 20, NULL);
	ck_reads(&g, q, k, reporter, 200);
	/* jobs turned off: nobody but admins */
	free(sql_value("UPDATE projects SET jobs_enabled = false WHERE id = %lld", g.id));
	ck_reads(&g, q, k, reporter, 403);
	ck_reads(&g, q, k, g.owner, 403);
	ck_code(R(api("POST", jpath(&g, k, "/retry"), g.owner, NULL)), 403);
	free(sql_value("UPDATE projects SET jobs_enabled = true WHERE id = %lld", g.id));

	/* changes: developers and up */
	long long c = job(&g, q, "deploy", "pending");
	ck_body(R(api("POST", jpath(&g, c, "/cancel"), reporter, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("POST", jpath(&g, c, "/retry"), reporter, NULL)), 403);
	ck_code(R(api("POST", jpath(&g, c, "/play"), reporter, NULL)), 403);
	ck_code(R(api("POST", jpath(&g, c, "/cancel"), stranger, NULL)), 403);
	ck_code(R(api("POST", jpath(&g, c, "/cancel"), NULL, NULL)), 401);
	ck_code(R(api("POST", jpath(&f, j, "/cancel"), member(f.id, 0, NULL), NULL)), 404);
	ck_assert_str_eq(sql_text(S(fmt("SELECT status FROM commit_statuses WHERE id = %lld", c))),
			 "pending");
	ck_code(R(api("POST", jpath(&g, c, "/cancel"), member(g.id, 30, NULL), NULL)), 201);
	ck_assert_str_eq(sql_text(S(fmt("SELECT status FROM commit_statuses WHERE id = %lld", c))),
			 "canceled");
	/* an archived project takes no change */
	long long e = job(&g, q, "e", "pending");
	free(sql_value("UPDATE projects SET archived = true WHERE id = %lld", g.id));
	ck_code(R(api("POST", jpath(&g, e, "/cancel"), g.owner, NULL)), 403);
}
END_TEST

START_TEST(test_jobs_trace)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "running");
	long long j = job(&f, p, "build", "running");
	long long k = job(&f, p, "other", "pending");
	char *trace = S(fmt("%s/ci/traces/%lld/%lld.log", storage(), f.id, j));
	sh(S(fmt("mkdir -p '%s/ci/traces/%lld' && printf 'line 1\\n\\033[32mok\\033[0m\\n' > '%s'"
		 " && chmod -R a+rX '%s/ci'",
		 storage(), f.id, trace, storage())));
	resp *r = R(api("GET", jpath(&f, j, "/trace"), f.owner, NULL));
	ck_file(r, trace);
	ck_assert_str_eq(r->body, "line 1\n\033[32mok\033[0m\n");
	ck_assert(strncmp(resp_header(r, "Content-Type"), "text/plain", 10) == 0);
	ck_header(r, "Content-Disposition", S(fmt("infile; filename=\"%lld.log\"", j)));
	/* no trace yet: empty */
	r = R(api("GET", jpath(&f, k, "/trace"), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_int_eq(r->body_len, 0);
	ck_assert(strncmp(resp_header(r, "Content-Type"), "text/plain", 10) == 0);
	ck_body(R(api("GET", jpath(&f, 999999999, "/trace"), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	/* the internal location is not reachable from outside */
	char *url = S(fmt("%s/_internal/ci/traces/%lld/%lld.log", api_url(), f.id, j));
	ck_code(R(http_request("GET", url, NULL, NULL, 0, NULL)), 404);
}
END_TEST

START_TEST(test_jobs_artifacts)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "success");
	long long j = job(&f, p, "build", "success");
	char *zip = artifacts(&f, j, "ci-build.zip", "echo hello > hello.txt");
	resp *r = R(api("GET", jpath(&f, j, "/artifacts"), f.owner, NULL));
	ck_file(r, zip);
	ck_header(r, "Content-Disposition", "attachment; filename=ci-build.zip");
	ck_header(r, "Content-Type", "application/octet-stream");
	ck_assert(r->body_len > 4 && memcmp(r->body, "PK", 2) == 0);
	/* none, erased, expired, gone from disk */
	long long k = job(&f, p, "test", "success");
	ck_body(R(api("GET", jpath(&f, k, "/artifacts"), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_body(R(api("GET", jpath(&f, 999999999, "/artifacts"), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	free(sql_value("UPDATE ci_builds SET artifacts_expire_at = now() - interval '1 day'"
		       " WHERE id = %lld",
		       j));
	ck_code(R(api("GET", jpath(&f, j, "/artifacts"), f.owner, NULL)), 404);
	ck_assert(jnull(R(api("GET", jpath(&f, j, ""), f.owner, NULL))->json, "artifacts_file"));
	free(sql_value("UPDATE ci_builds SET artifacts_expire_at = now() + interval '1 day',"
		       " erased_at = now() WHERE id = %lld",
		       j));
	ck_code(R(api("GET", jpath(&f, j, "/artifacts"), f.owner, NULL)), 404);
	free(sql_value("UPDATE ci_builds SET erased_at = NULL WHERE id = %lld", j));
	ck_code(R(api("GET", jpath(&f, j, "/artifacts"), f.owner, NULL)), 200);
	sh(S(fmt("rm '%s'", zip)));
	ck_code(R(api("GET", jpath(&f, j, "/artifacts"), f.owner, NULL)), 404);
}
END_TEST

START_TEST(test_jobs_artifacts_by_ref)
{
	fx f;
	project(&f, "private");
	long long p1 = pipeline(&f, "master", "success");
	long long j1 = job(&f, p1, "build", "success");
	char *zip1 = artifacts(&f, j1, "one.zip", "echo one > one.txt");
	char *dl = S(fmt("/projects/%lld/jobs/artifacts/master/download", f.id));
	resp *r = R(api("GET", S(fmt("%s?job=build", dl)), f.owner, NULL));
	ck_file(r, zip1);
	ck_header(r, "Content-Disposition", "attachment; filename=one.zip");
	/* a newer successful pipeline wins; a failed one does not count */
	long long p2 = pipeline(&f, "master", "success");
	long long j2 = job(&f, p2, "build", "success");
	char *zip2 = artifacts(&f, j2, "two.zip", "echo two > two.txt");
	long long p3 = pipeline(&f, "master", "failed");
	long long j3 = job(&f, p3, "build", "failed");
	artifacts(&f, j3, "three.zip", "echo three > three.txt");
	r = R(api("GET", S(fmt("%s?job=build", dl)), f.owner, NULL));
	ck_file(r, zip2);
	ck_header(r, "Content-Disposition", "attachment; filename=two.zip");
	ck_body(R(api("GET", S(fmt("%s?job=nope", dl)), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_code(R(api("GET", S(fmt("/projects/%lld/jobs/artifacts/other/download?job=build", f.id)),
		      f.owner, NULL)),
		404);
	ck_body(R(api("GET", dl, f.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"job\\\" not given\"}");
	/* the latest successful pipeline's job has no artifacts: not found */
	long long p4 = pipeline(&f, "master", "success");
	job(&f, p4, "build", "success");
	ck_code(R(api("GET", S(fmt("%s?job=build", dl)), f.owner, NULL)), 404);
	/* a ref with a slash, as sent and encoded; a path that does not end in /download */
	ck_body(R(api("GET", S(fmt("/projects/%lld/jobs/artifacts/master?job=build", f.id)),
		      f.owner, NULL)),
		404, "{\"error\":\"404 Not Found\"}");
	ck_code(R(api("GET", S(fmt("/projects/%lld/jobs/artifacts/download?job=build", f.id)),
		      f.owner, NULL)),
		404);
	long long p5 = pipeline(&f, "feature/x", "success");
	long long j5 = job(&f, p5, "build", "success");
	char *zip5 = artifacts(&f, j5, "five.zip", "echo five > five.txt");
	ck_file(R(api("GET",
		      S(fmt("/projects/%lld/jobs/artifacts/feature%%2Fx/download?job=build", f.id)),
		      f.owner, NULL)),
		zip5);
	ck_file(R(api("GET",
		      S(fmt("/projects/%lld/jobs/artifacts/feature/x/download?job=build", f.id)),
		      f.owner, NULL)),
		zip5);
}
END_TEST

START_TEST(test_jobs_artifact_file)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "success");
	long long j = job(&f, p, "build", "success");
	artifacts(&f, j, "a.zip",
		  "printf 'top\\n' > top.txt && mkdir -p 'dir/sub'"
		  " && printf 'deep\\n' > dir/sub/b.txt"
		  " && printf 'sp' > 'dir/with space.txt'");
	resp *r = R(api("GET", jpath(&f, j, "/artifacts/top.txt"), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "top\n");
	ck_header(r, "X-Accel-Redirect", NULL);
	ck_header(r, "Content-Disposition", "attachment; filename=\"top.txt\"");
	r = R(api("GET", jpath(&f, j, "/artifacts/dir/sub/b.txt"), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "deep\n");
	ck_header(r, "Content-Disposition", "attachment; filename=\"b.txt\"");
	r = R(api("GET", jpath(&f, j, "/artifacts/dir%2Fwith%20space.txt"), f.owner, NULL));
	ck_status(r, 200);
	ck_assert_str_eq(r->body, "sp");
	/* made once: the cache holds the three files, a second request is the same */
	char *cache = S(fmt("%s/cache/artifacts/%lld/%lld", storage(), f.id, j));
	ck_assert_int_eq(count_files(cache), 3);
	ck_assert_str_eq(R(api("GET", jpath(&f, j, "/artifacts/top.txt"), f.owner, NULL))->body,
			 "top\n");
	ck_assert_int_eq(count_files(cache), 3);
	/* not there: a missing file, a directory, an unknown job, a job without artifacts */
	const char *missing[] = {"/artifacts/nope.txt", "/artifacts/dir", "/artifacts/dir/",
				 "/artifacts/dir/sub", "/artifacts/TOP.TXT"};
	for (size_t i = 0; i < sizeof(missing) / sizeof(*missing); i++)
		ck_body(R(api("GET", jpath(&f, j, missing[i]), f.owner, NULL)), 404,
			"{\"message\":\"404 Not found\"}");
	ck_code(R(api("GET", jpath(&f, 999999999, "/artifacts/top.txt"), f.owner, NULL)), 404);
	long long k = job(&f, p, "test", "success");
	ck_code(R(api("GET", jpath(&f, k, "/artifacts/top.txt"), f.owner, NULL)), 404);
	/* bad paths: 400, nothing written */
	char *long_path = S(malloc(5000));
	memset(long_path, 'a', 4999);
	long_path[4999] = '\0';
	const char *bad[] = {"/artifacts/..%2Ftop.txt", "/artifacts/dir/..%2F..%2Ftop.txt",
			     "/artifacts/%2Fetc%2Fpasswd", "/artifacts/dir%2F..%2Ftop.txt",
			     S(fmt("/artifacts/%s", long_path))};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_body(R(api("GET", jpath(&f, j, bad[i]), f.owner, NULL)), 400,
			"{\"message\":\"400 (Bad request)\"}");
	/* a NUL byte never reaches a handler: nginx refuses it */
	ck_code(R(api("GET", jpath(&f, j, "/artifacts/top.txt%00x"), f.owner, NULL)), 400);
	/* a zip bomb: 64 MiB of zeros in a few KiB is refused, and nothing stays */
	long long b = job(&f, p, "bomb", "success");
	char *bomb = artifacts(&f, b, "bomb.zip", "head -c 67108864 /dev/zero > zeros.bin");
	ck_assert_int_lt(file_size(bomb), 1 << 20);
	ck_body(R(api("GET", jpath(&f, b, "/artifacts/zeros.bin"), f.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) the file is too large to extract\"}");
	ck_assert_int_eq(count_files(S(fmt("%s/cache/artifacts/%lld/%lld", storage(), f.id, b))),
			 0);
	/* an entry whose headers understate its size: no more than they say is written */
	long long l = job(&f, p, "liar", "success");
	char *lzip = artifacts(&f, l, "l.zip", "echo x > x.txt");
	sh(S(fmt("/usr/bin/python3 -c 'import zipfile,struct,sys\n"
		 "z=zipfile.ZipFile(sys.argv[1],\"w\",zipfile.ZIP_DEFLATED)\n"
		 "z.writestr(\"z\",bytes(1<<20))\n"
		 "z.close()\n"
		 "b=bytearray(open(sys.argv[1],\"rb\").read())\n"
		 "struct.pack_into(\"<I\",b,22,1000)\n"
		 "c=b.rfind(b\"PK\\x01\\x02\")\n"
		 "struct.pack_into(\"<I\",b,c+24,1000)\n"
		 "open(sys.argv[1],\"wb\").write(b)' '%s'",
		 lzip)));
	ck_body(R(api("GET", jpath(&f, l, "/artifacts/z"), f.owner, NULL)), 400,
		"{\"message\":\"400 (Bad request) the file is too large to extract\"}");
	ck_assert_int_eq(count_files(S(fmt("%s/cache/artifacts/%lld/%lld", storage(), f.id, l))),
			 0);
	/* a corrupt archive is no archive */
	long long c = job(&f, p, "corrupt", "success");
	char *czip = artifacts(&f, c, "c.zip", "echo x > x.txt");
	sh(S(fmt("printf 'not a zip at all' > '%s'", czip)));
	ck_code(R(api("GET", jpath(&f, c, "/artifacts/x.txt"), f.owner, NULL)), 404);
}
END_TEST

static char *status_of(const char *table, long long id)
{
	return sql_text(S(fmt("SELECT status FROM %s WHERE id = %lld", table, id)));
}

START_TEST(test_jobs_cancel)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "pending");
	long long a = job_at(&f, p, "build", 0, "pending", "on_success");
	long long b = job_at(&f, p, "test", 1, "created", "on_success");
	resp *r = R(api("POST", jpath(&f, a, "/cancel"), f.owner, NULL));
	ck_status(r, 201);
	ck_fields(r->json, JOB_FIELDS);
	ck_jstr(r, "status", "canceled");
	ck_assert(!jnull(r->json, "finished_at"));
	/* the pipeline follows: the later stage is skipped, the pipeline canceled */
	ck_assert_str_eq(status_of("commit_statuses", b), "skipped");
	ck_assert_str_eq(status_of("ci_pipelines", p), "canceled");
	ck_assert_str_eq(jstr(jget(r->json, "pipeline"), "status"), "canceled");
	/* a finished job stays as it is */
	long long s = job(&f, p, "done", "success");
	r = R(api("POST", jpath(&f, s, "/cancel"), f.owner, NULL));
	ck_status(r, 201);
	ck_jstr(r, "status", "success");
	/* manual and running ones can be canceled */
	long long m = job(&f, p, "manual", "manual");
	ck_jstr(R(api("POST", jpath(&f, m, "/cancel"), f.owner, NULL)), "status", "canceled");
	ck_body(R(api("POST", jpath(&f, 999999999, "/cancel"), f.owner, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
	ck_code(R(api("POST", S(fmt("/projects/%lld/jobs/zz/cancel", f.id)), f.owner, NULL)), 400);
}
END_TEST

/* Runs sql on c, which must succeed. */
static void exec_ok(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
		      "%s: %s", sql, PQerrorMessage(c));
	PQclear(r);
}

/* A job of a later stage canceled while a runner finishes the job before it: the
 * runner's transaction (played here on a connection of its own, as runner.c and
 * ci_process_pipeline take their locks: its job's row, the pipeline, then the created
 * job it enqueues) and the cancel both finish, no deadlock, and the job is canceled */
START_TEST(test_jobs_cancel_while_runner_finishes)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "running");
	long long k = job_at(&f, p, "build", 0, "running", "on_success");
	long long c = job_at(&f, p, "test", 1, "created", "on_success");
	PGconn *db = PQconnectdb(getenv("COLLABD_DATABASE_URL"));
	ck_assert_msg(PQstatus(db) == CONNECTION_OK, "connect: %s", PQerrorMessage(db));
	exec_ok(db, "SET statement_timeout = '20s'");
	exec_ok(db, "BEGIN");
	exec_ok(db, S(fmt("UPDATE commit_statuses SET status = 'success', finished_at = now()"
			  " WHERE id = %lld",
			  k)));
	exec_ok(db, S(fmt("SELECT id FROM ci_pipelines WHERE id = %lld FOR UPDATE", p)));
	pid_t child = fork();
	ck_assert(child >= 0);
	if (child == 0) {
		resp *r = api("POST", jpath(&f, c, "/cancel"), f.owner, NULL);
		_exit(r && r->status == 201 ? 0 : 1);
	}
	usleep(700 * 1000); /* the cancel waits for the pipeline by now */
	exec_ok(db, S(fmt("UPDATE commit_statuses SET status = 'pending', queued_at = now()"
			  " WHERE id = %lld AND status = 'created'",
			  c)));
	exec_ok(db, "COMMIT");
	PQfinish(db);
	int st;
	ck_assert(waitpid(child, &st, 0) == child);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the cancel failed");
	ck_assert_str_eq(status_of("commit_statuses", k), "success");
	ck_assert_str_eq(status_of("commit_statuses", c), "canceled");
	ck_assert_str_eq(status_of("ci_pipelines", p), "canceled");
}
END_TEST

/* The X-Total of a project's unfiltered job and pipeline lists, kept in
 * ci_project_counts (sql/0039_ci_counts.sql) through inserts, a retry (a new job), a
 * removed pipeline (its jobs with it) and a removed project; then every project's count
 * is what its rows say. */
static void ck_totals(const fx *f, long long jobs, long long pipelines)
{
	const char *jl = S(fmt("/projects/%lld/jobs", f->id));
	const char *pl = S(fmt("/projects/%lld/pipelines", f->id));
	ck_pages(R(api("GET", jl, f->owner, NULL)), jl, "", jobs, 20, 1);
	ck_pages(R(api("GET", pl, f->owner, NULL)), pl, "", pipelines, 20, 1);
}

START_TEST(test_jobs_counts)
{
	fx f;
	project(&f, "private");
	ck_totals(&f, 0, 0);
	long long p = pipeline(&f, "master", "failed");
	long long a = job_at(&f, p, "build", 0, "failed", "on_success");
	job_at(&f, p, "test", 1, "skipped", "on_success");
	long long q = pipeline(&f, "master", "success");
	job(&f, q, "one", "success");
	ck_totals(&f, 3, 2);
	char *dev = member(f.id, 30, NULL);
	ck_code(R(api("POST", jpath(&f, a, "/retry"), dev, NULL)), 201);
	ck_totals(&f, 4, 2);
	/* several in one statement */
	free(sql_value(
		"WITH s AS (INSERT INTO commit_statuses (project_id, sha, ref, name, stage,"
		" status, pipeline_id) SELECT project_id, sha, ref, 'x' || g, 'test', 'created', id"
		" FROM ci_pipelines, generate_series(1, 3) g WHERE id = %lld RETURNING id,"
		" project_id, pipeline_id) INSERT INTO ci_builds (id, project_id, pipeline_id)"
		" SELECT id, project_id, pipeline_id FROM s",
		q));
	ck_totals(&f, 7, 2);
	free(sql_value("DELETE FROM ci_pipelines WHERE id = %lld", p));
	ck_totals(&f, 4, 1);
	fx g;
	project(&g, "private");
	job(&g, pipeline(&g, "master", "success"), "one", "success");
	ck_totals(&g, 1, 1);
	free(sql_value("DELETE FROM projects WHERE id = %lld", g.id));
	ck_assert_int_eq(sql_int("SELECT count(*) FROM ci_project_counts c"
				 " WHERE c.project_id = %lld AND (c.pipelines, c.builds) <> (0, 0)",
				 g.id),
			 0);
	ck_assert_int_eq(
		sql_int("SELECT count(*) FROM (SELECT project_id FROM ci_pipelines"
			" UNION SELECT project_id FROM ci_builds UNION SELECT project_id FROM"
			" ci_project_counts) x LEFT JOIN ci_project_counts c USING (project_id)"
			" WHERE (coalesce(c.pipelines, 0), coalesce(c.builds, 0)) <>"
			" ((SELECT count(*) FROM ci_pipelines WHERE project_id = x.project_id),"
			" (SELECT count(*) FROM ci_builds WHERE project_id = x.project_id))"),
		0);
}
END_TEST

START_TEST(test_jobs_retry)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "failed");
	long long a = job_at(&f, p, "build", 0, "failed", "on_success");
	long long b = job_at(&f, p, "test", 1, "skipped", "on_success");
	long long dev_id;
	char *dev = member(f.id, 30, &dev_id);
	resp *r = R(api("POST", jpath(&f, a, "/retry"), dev, NULL));
	ck_status(r, 201);
	ck_fields(r->json, JOB_FIELDS);
	long long n = jint(r->json, "id");
	ck_assert_int_gt(n, a);
	ck_jstr(r, "status", "pending");
	ck_jstr(r, "name", "build");
	ck_assert_int_eq(jint(jget(r->json, "user"), "id"), dev_id);
	ck_assert_str_eq(sql_text(S(fmt("SELECT retried FROM commit_statuses WHERE id = %lld", a))),
			 "t");
	/* GitLab 10's enqueue: a failed pipeline runs again; the skipped job of the later
	 * stage is created again (it runs when its stage comes) */
	ck_assert_str_eq(status_of("ci_pipelines", p), "running");
	ck_assert_str_eq(jstr(jget(r->json, "pipeline"), "status"), "running");
	ck_assert_str_eq(status_of("commit_statuses", b), "created");
	ck_ids(R(api("GET", S(fmt("/projects/%lld/pipelines/%lld/jobs", f.id, p)), f.owner, NULL)),
	       (long long[]){n, b, a}, 3);
	/* the retried job itself is no longer retryable: its copy is the current one, and a
	 * second copy would run beside it */
	ck_body(R(api("POST", jpath(&f, a, "/retry"), dev, NULL)), 403,
		"{\"message\":\"403 Forbidden - Job is not retryable\"}");
	ck_ids(R(api("GET", S(fmt("/projects/%lld/pipelines/%lld/jobs", f.id, p)), f.owner, NULL)),
	       (long long[]){n, b, a}, 3);
	/* only finished jobs are retried */
	ck_body(R(api("POST", jpath(&f, n, "/retry"), dev, NULL)), 403,
		"{\"message\":\"403 Forbidden - Job is not retryable\"}");
	long long s = job(&f, p, "ok", "success");
	ck_code(R(api("POST", jpath(&f, s, "/retry"), dev, NULL)), 201);
	long long c = job(&f, p, "stopped", "canceled");
	ck_code(R(api("POST", jpath(&f, c, "/retry"), dev, NULL)), 201);
	ck_body(R(api("POST", jpath(&f, 999999999, "/retry"), dev, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
}
END_TEST

START_TEST(test_jobs_play)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "manual");
	long long m = job_at(&f, p, "deploy", 0, "manual", "manual");
	long long dev_id;
	char *dev = member(f.id, 30, &dev_id);
	ck_code(R(api("POST", jpath(&f, m, "/play"), member(f.id, 20, NULL), NULL)), 403);
	resp *r = R(api("POST", jpath(&f, m, "/play"), dev, NULL));
	ck_status(r, 200);
	ck_fields(r->json, JOB_FIELDS);
	ck_jstr(r, "status", "pending");
	ck_assert_int_eq(jint(jget(r->json, "user"), "id"), dev_id);
	/* its only job pending: GitLab 10's enqueue has no transition from manual, the
	 * pipeline stays manual until a runner takes the job (run) */
	ck_assert_str_eq(status_of("ci_pipelines", p), "manual");
	ck_body(R(api("POST", jpath(&f, m, "/play"), dev, NULL)), 400,
		"{\"message\":\"400 (Bad request) \\\"Unplayable Job\\\" not given\"}");
	long long s = job(&f, p, "s", "success");
	ck_code(R(api("POST", jpath(&f, s, "/play"), dev, NULL)), 400);
	ck_body(R(api("POST", jpath(&f, 999999999, "/play"), dev, NULL)), 404,
		"{\"message\":\"404 Not found\"}");
}
END_TEST

START_TEST(test_jobs_protected_branch)
{
	fx f;
	project(&f, "private");
	ck_code(R(api("POST", S(fmt("/projects/%lld/protected_branches", f.id)), f.owner,
		      "name=master&push_access_level=40&merge_access_level=40")),
		201);
	long long p = pipeline(&f, "master", "failed");
	long long a = job(&f, p, "build", "failed");
	long long m = job_at(&f, p, "deploy", 1, "manual", "manual");
	long long c = job(&f, p, "lint", "pending");
	char *dev = member(f.id, 30, NULL);
	/* a developer may not push to master: none of its jobs change */
	ck_body(R(api("POST", jpath(&f, a, "/retry"), dev, NULL)), 403,
		"{\"message\":\"403 Forbidden\"}");
	ck_code(R(api("POST", jpath(&f, m, "/play"), dev, NULL)), 403);
	ck_code(R(api("POST", jpath(&f, c, "/cancel"), dev, NULL)), 403);
	ck_assert_str_eq(status_of("commit_statuses", c), "pending");
	/* a master may */
	char *master = member(f.id, 40, NULL);
	ck_code(R(api("POST", jpath(&f, c, "/cancel"), master, NULL)), 201);
	ck_code(R(api("POST", jpath(&f, a, "/retry"), master, NULL)), 201);
	/* other branches and tags stay open to developers */
	long long q = sql_int("INSERT INTO ci_pipelines (project_id, ref, sha, status, tag) VALUES"
			      " (%lld, 'v1.0', '%s', 'failed', true) RETURNING id",
			      f.id, f.sha);
	long long t = job(&f, q, "build", "failed");
	free(sql_value("UPDATE ci_builds SET tag = true WHERE id = %lld", t));
	ck_code(R(api("POST", jpath(&f, t, "/retry"), dev, NULL)), 201);
	long long r2 = pipeline(&f, "feature", "failed");
	long long u = job(&f, r2, "build", "failed");
	ck_code(R(api("POST", jpath(&f, u, "/retry"), dev, NULL)), 201);
}
END_TEST

/* A removed project takes its jobs' traces and artifacts with it (the background
 * process's removal of its repository). */
START_TEST(test_jobs_files_removed_with_project)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "success");
	long long j = job(&f, p, "build", "success");
	char *zip = artifacts(&f, j, "ci-build.zip", "echo hello > hello.txt");
	char *trace = S(fmt("%s/ci/traces/%lld/%lld.log", storage(), f.id, j));
	sh(S(fmt("mkdir -p '%s/ci/traces/%lld' && echo log > '%s'", storage(), f.id, trace)));
	ck_code(R(api("GET", jpath(&f, j, "/artifacts"), f.owner, NULL)), 200);
	ck_code(R(api("DELETE", S(fmt("/projects/%lld", f.id)), f.owner, NULL)), 202);
	ck_assert_msg(wait_gone(zip), "%s is still there", zip);
	ck_assert_msg(wait_gone(trace), "%s is still there", trace);
}
END_TEST

/* A job whose runner went silent for an hour, and one pending for a day, fail (the
 * background process's sweep, GitLab 10's StuckCiJobsWorker), and their pipeline
 * follows; a running job heard from recently is left alone. */
START_TEST(test_jobs_stuck_fail)
{
	fx f;
	project(&f, "private");
	long long p = pipeline(&f, "master", "running");
	long long silent = job(&f, p, "silent", "running");
	long long alive = job(&f, p, "alive", "running");
	long long q = pipeline(&f, "master", "pending");
	long long waiting = job(&f, q, "waiting", "pending");
	free(sql_value("UPDATE commit_statuses SET updated_at = now() - interval '61 minutes'"
		       " WHERE id = %lld",
		       silent));
	free(sql_value("UPDATE commit_statuses SET updated_at = now() - interval '59 minutes'"
		       " WHERE id = %lld",
		       alive));
	free(sql_value("UPDATE commit_statuses SET updated_at = now() - interval '25 hours'"
		       " WHERE id = %lld",
		       waiting));
	bool done = false;
	for (int i = 0; i < 300 && !done; i++) {
		done = strcmp(status_of("commit_statuses", silent), "failed") == 0 &&
		       strcmp(status_of("commit_statuses", waiting), "failed") == 0;
		if (!done)
			usleep(100 * 1000);
	}
	ck_assert_msg(done, "stuck jobs not failed: %s, %s", status_of("commit_statuses", silent),
		      status_of("commit_statuses", waiting));
	ck_assert_str_eq(status_of("commit_statuses", alive), "running");
	ck_assert_str_eq(status_of("ci_pipelines", q), "failed");
	ck_assert_str_eq(status_of("ci_pipelines", p), "running");
	resp *r = R(api("GET", jpath(&f, silent, ""), f.owner, NULL));
	ck_status(r, 200);
	ck_jstr(r, "status", "failed");
	ck_assert(!jnull(r->json, "finished_at"));
}
END_TEST

Suite *suite_jobs(void)
{
	Suite *s = suite_create("jobs");
	TCase *tc = tcase_create("jobs");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, test_jobs_show);
	tcase_add_test(tc, test_jobs_list_scope);
	tcase_add_test(tc, test_jobs_pagination);
	tcase_add_test(tc, test_jobs_list_plain);
	tcase_add_test(tc, test_jobs_counts);
	tcase_add_test(tc, test_jobs_access);
	tcase_add_test(tc, test_jobs_trace);
	tcase_add_test(tc, test_jobs_artifacts);
	tcase_add_test(tc, test_jobs_artifacts_by_ref);
	tcase_add_test(tc, test_jobs_artifact_file);
	tcase_add_test(tc, test_jobs_cancel);
	tcase_add_test(tc, test_jobs_cancel_while_runner_finishes);
	tcase_add_test(tc, test_jobs_retry);
	tcase_add_test(tc, test_jobs_play);
	tcase_add_test(tc, test_jobs_protected_branch);
	tcase_add_test(tc, test_jobs_files_removed_with_project);
	tcase_add_test(tc, test_jobs_stuck_fail);
	suite_add_tcase(s, tc);
	return s;
}
