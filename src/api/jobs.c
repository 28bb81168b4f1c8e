/* Jobs (spec 4.5, GitLab 10's lib/api/jobs.rb): the jobs of a project and of a pipeline,
 * one job, its trace, its artifacts archive (by job, or the latest successful one of a
 * ref), one file of that archive, and cancel, retry and play.
 *
 * Reading needs read_build and changing update_build (ci/job.h); the project itself is
 * found by the scope (404 when the caller may not see it), and a project the caller sees
 * but whose jobs they may not read or change answers 403, as GitLab 10's authorize!.
 *
 * No byte of a trace or an archive passes through a worker: collabd checks access and
 * answers X-Accel-Redirect to /_internal/ci/ (<storage_path>/ci/: traces/<project>/<job>.log
 * and artifacts/<project>/<job>/artifacts.zip, written by the runner API) and nginx sends
 * the file. One file of an archive is extracted once (libzip) into the download cache,
 * cache/artifacts/<project>/<job>/<digest of its path>, through a temporary file and
 * rename(2), and sent from /_internal/cache/ the same way. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "api/api.h"
#include "ci/job.h"
#include "core/crypto.h"
#include "core/files.h"
#include "core/log.h"
#include "entity/commit.h"
#include "entity/entity.h"
#include "entity/job.h"
#include "git/commits.h"

/* A page of jobs without a status filter, newest first: the page's ci_builds rows taken
 * straight from an index (WHERE: their condition on ci_builds k), then joined for those
 * rows only, and the count from the index entries alone (index-only: ci_builds rows are
 * never updated); the columns of jobs_list. The pipelines and runners are joined to the
 * page as for one job (JOB_JOINS), not looked up per row: a LATERAL ... OFFSET 0 lookup
 * scanned the whole of a small ci_runners table for each row, which the planner prefers
 * to its index below a few pages (20 scans of 100 runners: 674K of the statement's 2.84M
 * PostgreSQL instructions, where the join scans them once, 1.76M in all); a large table
 * is still looked up by its key. */
#define JOBS_PAGE(COUNT, WHERE, LIMIT)                                                             \
	"SELECT " COUNT ", x.* FROM (SELECT 1) one"                                                \
	" LEFT JOIN LATERAL (SELECT " JOB_COLS " FROM (SELECT * FROM ci_builds k WHERE " WHERE     \
	" ORDER BY k.id DESC " LIMIT ") b JOIN commit_statuses s ON s.id = b.id" JOB_JOINS         \
	" ORDER BY b.id DESC) x ON true"

enum { JL_PROJECT, JL_PIPELINE, JL_STATUSES, JL_LIMIT, JL_OFFSET, JL_NPARAMS };

const db_stmt jobs_stmts[] = {
	{"jobs_pipeline", "SELECT id FROM ci_pipelines WHERE id = $2 AND project_id = $1", 2, 1},
	/* $1 project, $2 pipeline or NULL, $3 statuses (text[]) or NULL, $4 limit, $5
	 * offset; newest first, retried jobs included (GitLab 10's project.builds and
	 * pipeline.builds). The ids from ci_builds alone (commit_statuses only for a status
	 * filter), the page's ids taken from them before the joins: a project's first page
	 * reads 20 jobs, not every one of its jobs twice */
	{"jobs_list",
	 "WITH f AS (SELECT b.id FROM ci_builds b"
	 " WHERE b.project_id = $1 AND ($2::bigint IS NULL OR b.pipeline_id = $2)"
	 " AND ($3::text[] IS NULL OR EXISTS (SELECT 1 FROM commit_statuses s WHERE s.id = b.id"
	 " AND s.status = ANY ($3::text[]))))"
	 " SELECT (SELECT count(*) FROM f), x.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " JOB_COLS " FROM " JOB_FROM " WHERE s.id IN (SELECT id FROM f"
	 " ORDER BY id DESC LIMIT $4 OFFSET $5) ORDER BY s.id DESC) x ON true",
	 JL_NPARAMS, 1 + JOB_NCOLS},
	/* The lists without scope, the common requests (JOBS_PAGE): a project's jobs from
	 * ci_builds_project (project_id, id) backwards, 20 rows read, where jobs_list
	 * materialises and sorts the ids of every job of the project (a project of 250 jobs:
	 * 0.16 ms against 0.31; of 3,900: 0.44 ms against 2.9); a pipeline's from
	 * ci_builds_pipeline, where jobs_list reads every job of the project.
	 * $1 project, $2 limit, $3 offset; a project's count kept by sql/0039_ci_counts.sql */
	{"jobs_list_project",
	 JOBS_PAGE("coalesce((SELECT c.builds FROM ci_project_counts c WHERE c.project_id = $1), 0)",
		   "k.project_id = $1", "LIMIT $2 OFFSET $3"),
	 3, 1 + JOB_NCOLS},
	/* $1 project, $2 pipeline (of the project), $3 limit, $4 offset */
	{"jobs_list_pipeline",
	 JOBS_PAGE("(SELECT count(*) FROM ci_builds k WHERE k.pipeline_id = $2"
		   " AND k.project_id = $1)",
		   "k.pipeline_id = $2 AND k.project_id = $1", "LIMIT $3 OFFSET $4"),
	 4, 1 + JOB_NCOLS},
	/* $1 project, $2 job */
	{"jobs_show", "SELECT " JOB_COLS " FROM " JOB_FROM " WHERE s.id = $2 AND b.project_id = $1",
	 2, JOB_NCOLS},
	/* the job named $3 of the latest successful pipeline of ref $2, with artifacts
	 * (GitLab 10's Project#latest_successful_builds_for) */
	{"jobs_latest_artifacts",
	 "SELECT s.id FROM commit_statuses s JOIN ci_builds b ON b.id = s.id"
	 " WHERE s.pipeline_id = (SELECT id FROM ci_pipelines WHERE project_id = $1 AND ref = $2"
	 " AND status = 'success' ORDER BY id DESC LIMIT 1)"
	 " AND s.name = $3 AND NOT s.retried AND " SQL_JOB_ARTIFACTS " ORDER BY s.id DESC LIMIT 1",
	 3, 1},
	/* GitLab 10's CommitStatus cancel event: created, pending, running, manual. In the
	 * order of the locks of a runner that finishes a job (its job's row, the pipeline,
	 * then the created jobs ci_process_pipeline enqueues): a pending, running or manual
	 * job first; else the pipeline, then the job when it is created (or became pending
	 * meanwhile; one a runner is taking at that moment is skipped: it runs). Taking a
	 * created job before the pipeline deadlocked with that runner. */
	{"jobs_cancel",
	 "UPDATE commit_statuses SET status = 'canceled', finished_at = now(), updated_at = now()"
	 " WHERE id = $1 AND status IN ('pending', 'running', 'manual')"
	 " RETURNING pipeline_id",
	 1, 1},
	{"jobs_lock_pipeline", "SELECT id FROM ci_pipelines WHERE id = $1 FOR UPDATE", 1, 1},
	{"jobs_cancel_created",
	 "UPDATE commit_statuses SET status = 'canceled', finished_at = now(), updated_at = now()"
	 " WHERE id = (SELECT id FROM commit_statuses WHERE id = $1"
	 " AND status IN ('created', 'pending') FOR UPDATE SKIP LOCKED) RETURNING pipeline_id",
	 1, 1},
	/* retry: the job's pipeline locked first (as the pipeline's retry), then whether the
	 * job is still a current finished one: two retries of one job, or a retry of a job
	 * already retried, would leave two copies of it to run */
	{"jobs_retryable",
	 "SELECT NOT retried AND status IN ('success', 'failed', 'canceled')"
	 " FROM commit_statuses WHERE id = $1",
	 1, 1},
	{"jobs_retry", "SELECT ci_retry_job($1, $2, true)", 2, 1},
	{NULL, NULL, 0, 0},
};

/* GitLab 10's CommitStatus::AVAILABLE_STATUSES: the values of scope. */
static const char *const STATUSES[] = {"created",  "pending", "running", "success", "failed",
				       "canceled", "skipped", "manual",  NULL};

/* ---- access ---- */

/* The route's project's CI settings (read with it, auth/scope.c). */
typedef struct {
	bool public_jobs;
	bool jobs_enabled;
} jobs_flags;

static int project_flags(request *r, jobs_flags *out)
{
	out->public_jobs = r->project->public_jobs;
	out->jobs_enabled = r->project->jobs_enabled;
	return 0;
}

/* authorize_read_builds!: 0 or ERR_FORBIDDEN. */
static int may_read(request *r)
{
	jobs_flags f;
	int rc = project_flags(r, &f);
	if (rc < 0)
		return rc;
	return ci_can_read_build(&r->project->pa, f.public_jobs, f.jobs_enabled) ? 0
										 : ERR_FORBIDDEN;
}

/* authorize_update_builds!: 0 or ERR_FORBIDDEN. */
static int may_update(request *r)
{
	jobs_flags f;
	int rc = project_flags(r, &f);
	if (rc < 0)
		return rc;
	return ci_can_update_build(&r->project->pa, f.jobs_enabled) ? 0 : ERR_FORBIDDEN;
}

/* update_build on job row 0 of res (GitLab 10's Ci::BuildPolicy): besides the project's
 * update_build, a job of a protected branch may be changed only by those who may push to
 * it. 0 or ERR_FORBIDDEN. */
static int may_update_job(request *r, const PGresult *res)
{
	if (db_bool(res, 0, JC_TAG))
		return 0;
	bool ok;
	int rc = content_may_push_branch(r, db_val(res, 0, JC_REF), &ok);
	return rc < 0 ? rc : ok ? 0 : ERR_FORBIDDEN;
}

/* ---- presenting ---- */

/* The commit records of a response's jobs, each looked up once in the repository (whether
 * it has the commit), its JSON text kept by the process (entity_commit_text: a record
 * follows from the commit's id), not made again at every request. */
#define COMMIT_MEMO_MAX 128
typedef struct {
	bool opened;
	git_repository *repo; /* NULL when the project has none */
	int n;
	const char *sha[COMMIT_MEMO_MAX];
	const char *json[COMMIT_MEMO_MAX]; /* the request's; NULL: not in the repository */
} commit_memo;

static bool is_sha(const char *s)
{
	return s && strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

/* The JSON text of commit sha's record, or NULL when the repository lacks it. */
static const char *job_commit(request *r, commit_memo *m, const char *sha)
{
	if (!is_sha(sha))
		return NULL;
	for (int i = 0; i < m->n; i++)
		if (strcmp(m->sha[i], sha) == 0)
			return m->json[i];
	if (!m->opened) {
		m->opened = true;
		if (gitc_open(&r->ctx, r->project->id, &m->repo) != 0)
			m->repo = NULL;
	}
	const char *text = NULL;
	git_commit *commit;
	size_t len;
	if (m->repo && gitc_commit_by_id(&r->ctx, m->repo, sha, &commit) == 0)
		text = entity_commit_text(&r->ctx, commit, &len);
	if (m->n < COMMIT_MEMO_MAX) {
		m->sha[m->n] = sha;
		m->json[m->n++] = text;
	}
	return text;
}

static void present(jw *w, request *r, commit_memo *m, const PGresult *res, int row, int col)
{
	entity_job_write(w, &r->ctx, res, row, col,
			 job_commit(r, m, db_val(res, row, col + JC_SHA)));
}

/* The job :job_id of the route's project: 0 with its row (JOB_COLS), or GitLab 10's 404
 * "404 Not found" (answered: 1). */
static int find_job(request *r, const char *id, PGresult **out)
{
	const char *v[2] = {r->project->id, id};
	return api_find(r, "jobs_show", 2, v, NULL, out);
}

/* The route's job (:job_id) for a caller who may read the project's jobs, or, when
 * update, change this job (may_update, may_update_job): 0 with its row in *out; 1 when
 * it answered 404; or an ERR_ code. */
static int route_job(request *r, bool update, PGresult **out)
{
	int rc = update ? may_update(r) : may_read(r);
	if (rc < 0 || (rc = find_job(r, param_str(r, "job_id"), out)) != 0)
		return rc;
	return update ? may_update_job(r, *out) : 0;
}

static int respond_job(request *r, const char *id, int status)
{
	PGresult *res;
	int rc = find_job(r, id, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	commit_memo m = {0};
	jw w;
	jw_init(&w, r->ctx.a, 4096);
	present(&w, r, &m, res, 0, 0);
	respond_jw(r, status, &w);
	return 0;
}

/* ---- lists ---- */

/* scope as one string or as scope[] (GitLab 10's coercion): the statuses as a text[]
 * literal in *out (NULL when absent), or ERR_INVALID as Grape's values validator. */
static int read_scope(request *r, const char **out)
{
	*out = NULL;
	const char **vals;
	int n = param_array(r, "scope", &vals);
	if (n < 0)
		return n;
	const char *one[1];
	if (n == 0) {
		param *p = param_find(r, "scope");
		if (!p)
			return 0;
		one[0] = p->value;
		vals = one;
		n = 1;
	}
	buf b;
	buf_init(&b, r->ctx.a, 64);
	buf_puts(&b, "{");
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		int k = 0;
		while (STATUSES[k] && !(vals[i] && strcmp(vals[i], STATUSES[k]) == 0))
			k++;
		if (!STATUSES[k])
			rc = fail(r, ERR_INVALID, "scope does not have a valid value");
		else
			buf_printf(&b, "%s%s", i ? "," : "", STATUSES[k]);
	}
	buf_puts(&b, "}");
	if (rc == 0)
		*out = buf_cstr(&b);
	return rc;
}

static int jobs_check_list(request *r)
{
	const char *scope, *id;
	page_req pg;
	int rc = read_scope(r, &scope);
	if (rc == 0 && param_find(r, "pipeline_id"))
		rc = api_id(r, "pipeline_id", &id);
	if (rc < 0 || (rc = pagination_parse(r, &pg)) < 0)
		return rc;
	/* a project's jobs without scope: its statement goes with the project's (api_query) */
	if (!scope && !param_find(r, "pipeline_id")) {
		const char **v = arena_alloc(r->ctx.a, 3 * sizeof(*v));
		v[0] = param_str(r, "id");
		v[1] = pagination_limit(r, &pg);
		v[2] = pagination_offset(r, &pg);
		r->prefetch = (db_call){"jobs_list_project", 3, v};
	}
	return 0;
}

static int list(request *r, const char *pipeline_id)
{
	page_req pg;
	const char *scope;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = read_scope(r, &scope)) < 0 || (rc = may_read(r)) < 0)
		return rc;
	int err;
	if (pipeline_id) {
		PGresult *p = db_query(&r->ctx, "jobs_pipeline", 2,
				       (const char *[]){r->project->id, pipeline_id}, &err);
		if (!p)
			return err;
		if (PQntuples(p) == 0)
			return fail_not_found(r, "Pipeline");
	}
	const char *limit = pagination_limit(r, &pg), *offset = pagination_offset(r, &pg);
	PGresult *res;
	if (scope) { /* the statuses of scope: the general statement */
		const char *v[] = {[JL_PROJECT] = r->project->id,
				   [JL_PIPELINE] = pipeline_id,
				   [JL_STATUSES] = scope,
				   [JL_LIMIT] = limit,
				   [JL_OFFSET] = offset};
		DB_PARAMS(v, JL_NPARAMS);
		res = db_query(&r->ctx, "jobs_list", JL_NPARAMS, v, &err);
	} else if (pipeline_id)
		res = db_query(&r->ctx, "jobs_list_pipeline", 4,
			       (const char *[]){r->project->id, pipeline_id, limit, offset}, &err);
	else
		res = api_query(r, "jobs_list_project", 3,
				(const char *[]){r->project->id, limit, offset}, &err);
	if (!res)
		return err;
	commit_memo m = {0};
	jw w;
	jw_init(&w, r->ctx.a, (size_t)PQntuples(res) * 2048 + 16);
	jw_begin_array(&w);
	for (int i = 0; i < PQntuples(res); i++)
		if (!PQgetisnull(res, i, 1))
			present(&w, r, &m, res, i, 1);
	jw_end_array(&w);
	pagination_headers(r, &pg, PQntuples(res) ? db_int(res, 0, 0) : 0);
	respond_jw(r, 200, &w);
	return 0;
}

static int jobs_list(request *r)
{
	return list(r, NULL);
}

static int jobs_pipeline_list(request *r)
{
	const char *id;
	int rc = api_id(r, "pipeline_id", &id);
	return rc < 0 ? rc : list(r, id);
}

/* ---- one job ---- */

static int jobs_check_id(request *r)
{
	const char *id;
	return api_id(r, "job_id", &id);
}

static int jobs_show(request *r)
{
	int rc = may_read(r);
	return rc < 0 ? rc : respond_job(r, param_str(r, "job_id"), 200);
}

/* ---- downloads ---- */

static bool regular_file(const char *path, off_t *size)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	if (size)
		*size = st.st_size;
	return true;
}

/* Hands rel (a file relative to the storage path, under ci/ or cache/) to nginx. */
static void respond_accel(request *r, const char *rel, const char *type, const char *disposition)
{
	respond_empty(r, 200);
	respond_header(r, "Content-Type", type);
	respond_header(r, "Content-Disposition", disposition);
	respond_header(r, "X-Accel-Redirect", arena_printf(r->ctx.a, "/_internal/%s", rel));
}

static int jobs_trace(request *r)
{
	PGresult *res;
	int rc = route_job(r, false, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *id = db_val(res, 0, JC_ID);
	const char *rel = arena_printf(r->ctx.a, "ci/traces/%s/%s.log", r->project->id, id);
	const char *disposition = arena_printf(r->ctx.a, "infile; filename=\"%s.log\"", id);
	off_t size;
	if (regular_file(arena_printf(r->ctx.a, "%s/%s", r->ctx.cfg->storage_path, rel), &size) &&
	    size > 0) {
		respond_accel(r, rel, "text/plain", disposition);
		return 0;
	}
	/* no trace yet: GitLab 10 answered its empty raw trace */
	r->status = 200;
	r->body = "";
	r->body_len = 0;
	r->content_type = "text/plain";
	respond_header(r, "Content-Disposition", disposition);
	return 0;
}

/* The artifacts archive of job row 0 of res, when it has one on disk: its path relative
 * to the storage path, else NULL. */
static const char *artifacts_rel(request *r, const PGresult *res)
{
	if (!db_val(res, 0, JC_ARTIFACTS_FILE))
		return NULL;
	const char *rel = arena_printf(r->ctx.a, "ci/artifacts/%s/%s/artifacts.zip", r->project->id,
				       db_val(res, 0, JC_ID));
	return regular_file(arena_printf(r->ctx.a, "%s/%s", r->ctx.cfg->storage_path, rel), NULL)
		       ? rel
		       : NULL;
}

/* A file name fit for a header: what a runner uploaded, with the characters that could
 * end or split the header replaced. */
static const char *header_name(request *r, const char *name)
{
	char *s = arena_strdup(r->ctx.a, name && *name ? name : "artifacts.zip");
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\' || *p == ';')
			*p = '_';
	return s;
}

/* present_artifacts!: the archive of job row 0 of res, or 404 "404 Not found". */
static int send_artifacts(request *r, const PGresult *res)
{
	const char *rel = artifacts_rel(r, res);
	if (!rel)
		return api_error(r, 404, "404 Not found");
	respond_accel(r, rel, "application/octet-stream",
		      arena_printf(r->ctx.a, "attachment; filename=%s",
				   header_name(r, db_val(res, 0, JC_ARTIFACTS_FILE))));
	respond_header(r, "Content-Transfer-Encoding", "binary");
	return 0;
}

static int jobs_artifacts(request *r)
{
	PGresult *res;
	int rc = route_job(r, false, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	return send_artifacts(r, res);
}

/* The ref of GET .../jobs/artifacts/<ref>/download, whose ref may hold slashes as
 * GitLab's requirements allow (ref_name: /.+/): what the route's wildcard took before
 * its last "/download"; NULL when it does not end so (no such route). */
static const char *download_ref(request *r)
{
	const char *rest = param_str(r, "ref_download");
	size_t n = rest ? strlen(rest) : 0, k = strlen("/download");
	if (n <= k || strcmp(rest + n - k, "/download") != 0)
		return NULL;
	return arena_strndup(r->ctx.a, rest, n - k);
}

static int jobs_check_download(request *r)
{
	if (!download_ref(r))
		return ERR_NO_ROUTE;
	const char *job;
	return param_require(r, "job", &job);
}

static int jobs_artifacts_download(request *r)
{
	int rc = may_read(r);
	if (rc < 0)
		return rc;
	const char *v[3] = {r->project->id, download_ref(r), param_str(r, "job")};
	int err;
	PGresult *res = db_query(&r->ctx, "jobs_latest_artifacts", 3, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return api_error(r, 404, "404 Not found");
	PGresult *job;
	if ((rc = find_job(r, db_val(res, 0, 0), &job)) != 0)
		return rc < 0 ? rc : 0;
	return send_artifacts(r, job);
}

/* The longest artifact path accepted (bytes). */
#define ARTIFACT_PATH_MAX 4096
/* What one entry may expand to: ENTRY_RATIO times its compressed size plus ENTRY_SLACK,
 * and never more than ENTRY_MAX. A zip bomb's entries thus write at most about that many
 * times the archive's own size to the cache, however their headers lie: the bytes are
 * counted as they are written. */
#define ENTRY_RATIO 100
#define ENTRY_SLACK 4096
#define ENTRY_MAX (1LL << 30)

/* GitLab 10's Gitlab::Ci::Build::Artifacts::Path#valid?: a relative path without a ".."
 * component (and not empty, nor longer than ARTIFACT_PATH_MAX). */
static bool artifact_path_valid(const char *p)
{
	size_t n = p ? strlen(p) : 0;
	if (n == 0 || n > ARTIFACT_PATH_MAX || p[0] == '/')
		return false;
	for (const char *s = p; *s;) {
		size_t len = strcspn(s, "/");
		if (len == 2 && s[0] == '.' && s[1] == '.')
			return false;
		s += len;
		if (*s)
			s++;
	}
	return true;
}

enum { ENTRY_OK = 0, ENTRY_NONE = 1, ENTRY_TOO_LARGE = 2 };

/* Copies entry idx of z (stat st) into a new file at path (temporary file and rename).
 * ENTRY_OK, ENTRY_TOO_LARGE, ENTRY_NONE when it cannot be read (encrypted, corrupt), or
 * -1 when the cache cannot be written (logged). */
static int extract(zip_t *z, zip_uint64_t idx, const zip_stat_t *st, const char *path)
{
	long long limit = (long long)st->comp_size * ENTRY_RATIO + ENTRY_SLACK;
	if (limit > ENTRY_MAX)
		limit = ENTRY_MAX;
	if ((long long)st->size > limit)
		return ENTRY_TOO_LARGE;
	zip_file_t *zf = zip_fopen_index(z, idx, 0);
	if (!zf)
		return ENTRY_NONE;
	char tmp[FILES_TMP_MAX];
	int fd = files_temp(path, tmp);
	if (fd < 0) {
		log_error("jobs: cannot create %s: %s", path, strerror(errno));
		zip_fclose(zf);
		return -1;
	}
	int rc = ENTRY_OK;
	long long total = 0;
	char chunk[65536];
	for (;;) {
		zip_int64_t n = zip_fread(zf, chunk, sizeof(chunk));
		if (n < 0) {
			rc = ENTRY_NONE;
			break;
		}
		if (n == 0)
			break;
		total += n;
		if (total > limit || total > (long long)st->size) {
			rc = ENTRY_TOO_LARGE;
			break;
		}
		for (zip_int64_t off = 0; off < n && rc == ENTRY_OK;) {
			ssize_t w = write(fd, chunk + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				log_error("jobs: cannot write %s: %s", tmp, strerror(errno));
				rc = -1;
			} else {
				off += w;
			}
		}
		if (rc != ENTRY_OK)
			break;
	}
	if (zip_fclose(zf) != 0 && rc == ENTRY_OK)
		rc = ENTRY_NONE; /* a CRC that does not match */
	if (rc != ENTRY_OK) {
		files_abandon(fd, tmp);
		return rc;
	}
	if (files_commit(fd, tmp, path) < 0) {
		log_error("jobs: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return ENTRY_OK;
}

/* Entry name of the archive at zip_path, in the download cache: ENTRY_OK with *rel,
 * ENTRY_NONE (no such file, a directory, an unreadable archive), ENTRY_TOO_LARGE, or -1.
 * The cached file is named by the archive's identity (inode, modification time, size:
 * an upload renames a new file in) as well as the entry's name: a job that uploads its
 * artifacts again is never answered from its first archive. */
static int artifact_entry(request *r, const char *job_id, const char *zip_path, const char *name,
			  const char **rel)
{
	struct stat zst;
	if (stat(zip_path, &zst) != 0)
		return ENTRY_NONE;
	const char *key = arena_printf(r->ctx.a, "%llu %lld.%09ld %lld\n%s",
				       (unsigned long long)zst.st_ino,
				       (long long)zst.st_mtim.tv_sec, (long)zst.st_mtim.tv_nsec,
				       (long long)zst.st_size, name);
	*rel = arena_printf(r->ctx.a, "cache/artifacts/%s/%s/%s", r->project->id, job_id,
			    crypto_sha256_hex(r->ctx.a, key, strlen(key)));
	const char *path = arena_printf(r->ctx.a, "%s/%s", r->ctx.cfg->storage_path, *rel);
	if (regular_file(path, NULL))
		return ENTRY_OK;
	int zerr;
	zip_t *z = zip_open(zip_path, ZIP_RDONLY, &zerr);
	if (!z) {
		log_warn("jobs: cannot open the artifacts of job %s (libzip error %d)", job_id,
			 zerr);
		return ENTRY_NONE;
	}
	int rc = ENTRY_NONE;
	zip_int64_t idx = zip_name_locate(z, name, 0);
	zip_stat_t st;
	zip_stat_init(&st);
	if (idx >= 0 && zip_stat_index(z, (zip_uint64_t)idx, 0, &st) == 0 &&
	    (st.valid & (ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE)) ==
		    (ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE) &&
	    name[strlen(name) - 1] != '/')
		rc = extract(z, (zip_uint64_t)idx, &st, path);
	zip_discard(z);
	return rc;
}

static int jobs_artifact_file(request *r)
{
	PGresult *res;
	int rc = route_job(r, false, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *zip_rel = artifacts_rel(r, res);
	if (!zip_rel)
		return api_error(r, 404, "404 Not found");
	/* after the archive, as GitLab 10 checked it */
	const char *name = param_str(r, "artifact_path");
	if (!artifact_path_valid(name))
		return api_error(r, 400, "400 (Bad request)");
	const char *rel;
	const char *zip_path = arena_printf(r->ctx.a, "%s/%s", r->ctx.cfg->storage_path, zip_rel);
	rc = artifact_entry(r, db_val(res, 0, JC_ID), zip_path, name, &rel);
	if (rc == ENTRY_NONE)
		return api_error(r, 404, "404 Not found");
	if (rc == ENTRY_TOO_LARGE)
		return api_error(r, 400, "400 (Bad request) the file is too large to extract");
	if (rc < 0)
		return ERR_INTERNAL;
	const char *base = strrchr(name, '/');
	respond_accel(r, rel, "application/octet-stream",
		      arena_printf(r->ctx.a, "attachment; filename=\"%s\"",
				   header_name(r, base ? base + 1 : name)));
	return 0;
}

/* ---- transitions ---- */

static int jobs_cancel(request *r)
{
	PGresult *res;
	int rc = route_job(r, true, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *id = db_val(res, 0, JC_ID), *pipeline = db_val(res, 0, JC_PIPELINE_ID);
	int err;
	PGresult *c = db_query(&r->ctx, "jobs_cancel", 1, (const char *[]){id}, &err);
	if (!c)
		return err;
	if (!PQntuples(c) && pipeline &&
	    (!db_query(&r->ctx, "jobs_lock_pipeline", 1, &pipeline, &err) ||
	     !(c = db_query(&r->ctx, "jobs_cancel_created", 1, (const char *[]){id}, &err))))
		return err;
	/* a job that cannot be canceled is answered as it is (GitLab's state machine ignores
	 * the event) */
	if (PQntuples(c) && (rc = ci_pipeline_process(&r->ctx, db_val(c, 0, 0))) < 0)
		return rc;
	return respond_job(r, id, 201);
}

static int jobs_retry(request *r)
{
	PGresult *res;
	int rc = route_job(r, true, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *status = db_val(res, 0, JC_STATUS);
	if (strcmp(status, "success") != 0 && strcmp(status, "failed") != 0 &&
	    strcmp(status, "canceled") != 0)
		return fail(r, ERR_FORBIDDEN, "403 Forbidden - Job is not retryable");
	const char *v[2] = {db_val(res, 0, JC_ID), api_caller_id(r)};
	int err;
	PGresult *ok;
	const char *pipeline = db_val(res, 0, JC_PIPELINE_ID);
	if (!db_query(&r->ctx, "jobs_lock_pipeline", 1, &pipeline, &err) ||
	    !(ok = db_query(&r->ctx, "jobs_retryable", 1, v, &err)))
		return err;
	if (PQntuples(ok) != 1 || !db_bool(ok, 0, 0))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden - Job is not retryable");
	PGresult *n = db_query(&r->ctx, "jobs_retry", 2, v, &err);
	if (!n)
		return err;
	if (!db_val(n, 0, 0))
		return api_error(r, 404, "404 Not found");
	if ((rc = ci_pipeline_process(&r->ctx, db_val(res, 0, JC_PIPELINE_ID))) < 0)
		return rc;
	return respond_job(r, db_val(n, 0, 0), 201);
}

static int jobs_play(request *r)
{
	PGresult *res;
	int rc = route_job(r, false, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if ((rc = may_update(r)) < 0 || (rc = may_update_job(r, res)) < 0)
		return rc;
	const char *id = db_val(res, 0, JC_ID);
	if ((rc = ci_job_play(&r->ctx, id, r->ctx.user->id)) == ERR_REFUSED)
		return fail_missing(r, "Unplayable Job"); /* GitLab's bad_request!, word for word */
	if (rc < 0)
		return rc;
	return respond_job(r, id, 200);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route jobs_routes[] = {
	{"GET", V4 "/projects/:id/jobs", jobs_list, AUTH | PR, jobs_check_list},
	{"GET", V4 "/projects/:id/pipelines/:pipeline_id/jobs", jobs_pipeline_list, AUTH | PR,
	 jobs_check_list},
	{"GET", V4 "/projects/:id/jobs/artifacts/*ref_download", jobs_artifacts_download, AUTH | PR,
	 jobs_check_download},
	{"GET", V4 "/projects/:id/jobs/:job_id", jobs_show, AUTH | PR, jobs_check_id},
	{"GET", V4 "/projects/:id/jobs/:job_id/trace", jobs_trace, AUTH | PR, jobs_check_id},
	{"GET", V4 "/projects/:id/jobs/:job_id/artifacts", jobs_artifacts, AUTH | PR,
	 jobs_check_id},
	{"GET", V4 "/projects/:id/jobs/:job_id/artifacts/*artifact_path", jobs_artifact_file,
	 AUTH | PR, jobs_check_id},
	{"POST", V4 "/projects/:id/jobs/:job_id/cancel", jobs_cancel, AUTH | PA, jobs_check_id},
	{"POST", V4 "/projects/:id/jobs/:job_id/retry", jobs_retry, AUTH | PA, jobs_check_id},
	{"POST", V4 "/projects/:id/jobs/:job_id/play", jobs_play, AUTH | PA, jobs_check_id},
	{NULL, NULL, NULL, 0, NULL},
};
