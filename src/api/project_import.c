/* Project import and export in GitLab 10's format (GitLab 10.8's lib/api/project_import.rb
 * and project_export.rb; issue 33): the routes, and the two background jobs that do the
 * work (db/jobs.def PROJECT_IMPORT, PROJECT_EXPORT).
 *
 * POST /projects/import stores the archive under <storage>/tmp/imports/ and creates the
 * project (import_status "scheduled") with its job, in one transaction. The job extracts
 * the archive into a private directory (core/targz.h: nothing outside it, bounded by ten
 * times max_import_size), checks VERSION, reads project.json twice with the streaming
 * reader (core/json_stream.h) handing the relations' elements to db/impexp.h's table,
 * fetches the repository and wiki from their bundles and moves uploads/ into the
 * project's uploads: all of it inside a savepoint of the job's transaction. Any failure
 * rolls back to the savepoint, removes what was written on disk and leaves the project
 * with import_status "failed" and the reason in import_error. While the job runs it
 * holds an advisory lock on the project, which GET /projects/:id/import reads as
 * "started" (the job's own writes are not visible before its commit).
 *
 * POST /projects/:id/export queues the export; the job writes VERSION, project.json
 * (attributes, project_members and every relation through impexp_emit, one record at a
 * time), the bundles and uploads/, and makes the tar.gz under <storage>/ci/exports/<id>/,
 * which nginx sends from its /_internal/ci/ location (X-Accel-Redirect). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "core/files.h"
#include "core/json_stream.h"
#include "core/log.h"
#include "core/targz.h"
#include "db/impexp.h"
#include "db/replica.h"
#include "db/queue.h"
#include "db/settings.h"
#include "entity/project_impexp.h"
#include "git/repo.h"

/* The advisory lock (two int4 keys: this class, the project id) an import holds while
 * it runs. */
#define IMPORT_LOCK_CLASS "1768779888" /* 'impp' */
#define SQL_IMPORT_RUNNING(ID)                                                                        \
	"EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = " IMPORT_LOCK_CLASS \
	" AND objid = (" ID " % 2147483648)::oid AND objsubid = 2 AND granted)"

/* project.json: the largest element and the deepest nesting an import reads. */
#define IMPORT_MAX_RECORD (64 << 20)
#define IMPORT_MAX_DEPTH 64

/* The project attributes of project.json the import applies (10.8's exported columns
 * that collabd has), and those of project_feature. */
enum {
	PA_ID,
	PA_DESCRIPTION,
	PA_VISIBILITY,
	PA_ARCHIVED,
	PA_REQUEST_ACCESS,
	PA_PIPELINE_SUCCEEDS,
	PA_DISCUSSIONS_RESOLVED,
	PA_PRINTING_MR_LINK,
	PA_RESOLVE_OUTDATED,
	PA_SHARED_RUNNERS,
	PA_PUBLIC_JOBS,
	PA_CI_CONFIG_PATH,
	PA_ISSUES,
	PA_MERGE_REQUESTS,
	PA_JOBS,
	PA_WIKI,
	PA_SNIPPETS,
	PA_NPARAMS
};
static const char *const attr_names[PA_NPARAMS] = {
	[PA_DESCRIPTION] = "description",
	[PA_VISIBILITY] = "visibility_level",
	[PA_ARCHIVED] = "archived",
	[PA_REQUEST_ACCESS] = "request_access_enabled",
	[PA_PIPELINE_SUCCEEDS] = "only_allow_merge_if_pipeline_succeeds",
	[PA_DISCUSSIONS_RESOLVED] = "only_allow_merge_if_all_discussions_are_resolved",
	[PA_PRINTING_MR_LINK] = "printing_merge_request_link_enabled",
	[PA_RESOLVE_OUTDATED] = "resolve_outdated_diff_discussions",
	[PA_SHARED_RUNNERS] = "shared_runners_enabled",
	[PA_PUBLIC_JOBS] = "public_builds",
	[PA_CI_CONFIG_PATH] = "ci_config_path",
	/* project_feature's access levels (0 disabled, 10 private, 20 enabled) */
	[PA_ISSUES] = "issues_access_level",
	[PA_MERGE_REQUESTS] = "merge_requests_access_level",
	[PA_JOBS] = "builds_access_level",
	[PA_WIKI] = "wiki_access_level",
	[PA_SNIPPETS] = "snippets_access_level",
};

/* The project an import job works on (IJ_). */
enum {
	IJ_STATUS,
	IJ_NS_ID,
	IJ_NS_FULL_PATH,
	IJ_PATH,
	IJ_NS_KIND,
	IJ_NS_VISIBILITY,
	IJ_IMPORTER_ADMIN,
	IJ_NCOLS
};
/* The project an import overwrites (OLD_). */
enum { OLD_PATH, OLD_NAME, OLD_NCOLS };
/* What an export writes of the project (EX_). */
enum {
	EX_DESCRIPTION,
	EX_VISIBILITY,
	EX_ARCHIVED,
	EX_REQUEST_ACCESS,
	EX_PIPELINE_SUCCEEDS,
	EX_DISCUSSIONS_RESOLVED,
	EX_PRINTING_MR_LINK,
	EX_RESOLVE_OUTDATED,
	EX_SHARED_RUNNERS,
	EX_PUBLIC_JOBS,
	EX_CI_CONFIG_PATH,
	EX_ISSUES,
	EX_MERGE_REQUESTS,
	EX_JOBS,
	EX_WIKI,
	EX_SNIPPETS,
	EX_CREATED_AT,
	EX_UPDATED_AT,
	EX_NS_FULL_PATH,
	EX_PATH,
	EX_NCOLS
};

const db_stmt project_import_stmts[] = {
	/* the project the caller just made, as ProjectImportStatus */
	{"project_import_status",
	 "SELECT " PROJECT_IDENTITY_COLS(
		 "p",
		 "n") ", CASE WHEN p.import_status = 'scheduled'"
		      " AND " SQL_IMPORT_RUNNING(
			      "p.id") " THEN 'started'"
				      " ELSE p.import_status END, p.import_error FROM projects p"
				      " JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = $1",
	 1, PIS_NCOLS},
	{"project_export_status",
	 "SELECT " PROJECT_IDENTITY_COLS(
		 "p", "n") ", coalesce(e.status, 'none'), NULL::text"
			   " FROM projects p JOIN namespaces n ON n.id = p.namespace_id"
			   " LEFT JOIN project_exports e ON e.project_id = p.id WHERE p.id = $1",
	 1, PIS_NCOLS},
	{"project_export_file", "SELECT file FROM project_exports WHERE project_id = $1", 1, 1},
	/* $1 project: started again (the finished file stays until the new one replaces it) */
	{"project_export_start",
	 "INSERT INTO project_exports (project_id, status) VALUES ($1, 'started')"
	 " ON CONFLICT (project_id) DO UPDATE SET status = 'started', file = NULL,"
	 " updated_at = now()",
	 1, 0},
	{"project_export_finish",
	 "UPDATE project_exports SET status = 'finished', file = $2, updated_at = now()"
	 " WHERE project_id = $1",
	 2, 0},
	{"project_export_drop", "DELETE FROM project_exports WHERE project_id = $1", 1, 0},
	/* $1 project: the import's lock, then the project as IJ_ (no row: it is gone) */
	{"project_import_claim",
	 "SELECT p.import_status, n.id, n.full_path, p.path, n.kind, n.visibility,"
	 " coalesce(u.is_admin, false) FROM (SELECT pg_advisory_xact_lock(" IMPORT_LOCK_CLASS
	 ", ($1::bigint % 2147483648)::int)) l, projects p JOIN namespaces n ON n.id = p.namespace_id"
	 " LEFT JOIN users u ON u.id = $2 WHERE p.id = $1 AND NOT p.pending_delete",
	 2, IJ_NCOLS},
	{"project_import_savepoint", "SAVEPOINT project_import", 0, 0},
	{"project_import_rollback", "ROLLBACK TO SAVEPOINT project_import", 0, 0},
	/* the issues' counts trigger idle until the import's end (sql/0057); a rollback to
	 * the savepoint undoes the setting too */
	{"project_import_bulk", "SELECT set_config('collabd.import', 'on', true)", 0, 1},
	/* $1 project: its issue counts from its issues, the trigger awake again */
	{"project_import_issue_counts",
	 "UPDATE projects p SET open_issues_count = (SELECT count(*) FROM issues i"
	 " WHERE i.project_id = p.id AND i.state = 'opened' AND NOT i.confidential),"
	 " closed_issues_count = (SELECT count(*) FROM issues i WHERE i.project_id = p.id"
	 " AND i.state = 'closed' AND NOT i.confidential)"
	 " FROM (SELECT set_config('collabd.import', 'off', true)) awake WHERE p.id = $1",
	 1, 0},
	/* PA_: NULL keeps a value */
	{"project_import_attributes",
	 "UPDATE projects SET description = coalesce($2, description),"
	 " visibility = coalesce($3::smallint, visibility), archived = coalesce($4, archived),"
	 " request_access_enabled = coalesce($5, request_access_enabled),"
	 " only_allow_merge_if_pipeline_succeeds = coalesce($6, only_allow_merge_if_pipeline_succeeds),"
	 " only_allow_merge_if_all_discussions_are_resolved = coalesce($7,"
	 " only_allow_merge_if_all_discussions_are_resolved),"
	 " printing_merge_request_link_enabled = coalesce($8, printing_merge_request_link_enabled),"
	 " resolve_outdated_diff_discussions = coalesce($9, resolve_outdated_diff_discussions),"
	 " shared_runners_enabled = coalesce($10, shared_runners_enabled),"
	 " public_jobs = coalesce($11, public_jobs), ci_config_path = coalesce($12, ci_config_path),"
	 " issues_enabled = coalesce($13::int > 0, issues_enabled),"
	 " merge_requests_enabled = coalesce($14::int > 0, merge_requests_enabled),"
	 " jobs_enabled = coalesce($15::int > 0, jobs_enabled),"
	 " wiki_enabled = coalesce($16::int > 0, wiki_enabled),"
	 " snippets_enabled = coalesce($17::int > 0, snippets_enabled), updated_at = now()"
	 " WHERE id = $1",
	 PA_NPARAMS, 0},
	/* $1 project: the counters of its iids past the imported ones */
	{"project_import_iids",
	 "INSERT INTO iid_counters AS c (kind, scope_type, scope_id, last_value)"
	 " SELECT k, 'Project', $1, m FROM (SELECT 'issues' AS k, (SELECT max(iid) FROM issues"
	 " WHERE project_id = $1) AS m UNION ALL SELECT 'merge_requests', (SELECT max(iid)"
	 " FROM merge_requests WHERE target_project_id = $1) UNION ALL SELECT 'milestones',"
	 " (SELECT max(iid) FROM milestones WHERE project_id = $1)) x WHERE m IS NOT NULL"
	 " ON CONFLICT (kind, scope_type, scope_id) DO UPDATE"
	 " SET last_value = greatest(c.last_value, EXCLUDED.last_value)",
	 1, 0},
	/* $1 project, $2 importer: the importer a master of it (10.8's MembersMapper) */
	{"project_import_importer",
	 "INSERT INTO members AS m (source_type, source_id, user_id, access_level, created_by)"
	 " VALUES ('Project', $1, $2, 40, $2) ON CONFLICT (source_type, source_id, user_id)"
	 " DO UPDATE SET access_level = greatest(m.access_level, 40), requested_at = NULL",
	 2, 0},
	{"project_import_old",
	 "SELECT path, name FROM projects WHERE id = $1 AND NOT pending_delete", 1, OLD_NCOLS},
	/* $1 project, $2 path, $3 name: the overwritten project's place */
	{"project_import_rename",
	 "UPDATE projects SET path = $2, name = $3, updated_at = now() WHERE id = $1", 3, 0},
	{"project_import_default_branch", "UPDATE projects SET default_branch = $2 WHERE id = $1",
	 2, 0},
	{"project_import_finish",
	 "UPDATE projects SET import_status = 'finished', import_error = NULL WHERE id = $1", 1, 0},
	{"project_import_fail",
	 "UPDATE projects SET import_status = 'failed', import_error = $2 WHERE id = $1", 2, 0},
	/* EX_ */
	{"project_export_project",
	 "SELECT p.description, p.visibility, p.archived, p.request_access_enabled,"
	 " p.only_allow_merge_if_pipeline_succeeds,"
	 " p.only_allow_merge_if_all_discussions_are_resolved,"
	 " p.printing_merge_request_link_enabled, p.resolve_outdated_diff_discussions,"
	 " p.shared_runners_enabled, p.public_jobs, p.ci_config_path,"
	 " CASE WHEN p.issues_enabled THEN 20 ELSE 0 END,"
	 " CASE WHEN p.merge_requests_enabled THEN 20 ELSE 0 END,"
	 " CASE WHEN p.jobs_enabled THEN 20 ELSE 0 END,"
	 " CASE WHEN p.wiki_enabled THEN 20 ELSE 0 END,"
	 " CASE WHEN p.snippets_enabled THEN 20 ELSE 0 END,"
	 " iso8601(p.created_at), iso8601(p.updated_at), n.full_path, p.path"
	 " FROM projects p JOIN namespaces n ON n.id = p.namespace_id"
	 " WHERE p.id = $1 AND NOT p.pending_delete",
	 1, EX_NCOLS},
	{NULL, NULL, 0, 0},
};

/* ---- the archive's places ---- */

/* <storage>/tmp/<kind>: made when missing (0700). */
static const char *tmp_root(ctx *c, const char *kind)
{
	const char *tmp = arena_printf(c->a, "%s/tmp", c->cfg->storage_path);
	mkdir(tmp, 0700);
	const char *dir = arena_printf(c->a, "%s/%s", tmp, kind);
	mkdir(dir, 0700);
	return dir;
}

/* Removes what an earlier try of project_id's job left under <storage>/tmp/<kind> (a
 * process killed mid-job): the job's lock keeps any other try out meanwhile. */
static void remove_stale_dirs(ctx *c, const char *kind, const char *project_id)
{
	glob_t g;
	if (glob(arena_printf(c->a, "%s/%s-??????", tmp_root(c, kind), project_id), GLOB_NOSORT,
		 NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++)
		(void)repo_remove_dir(g.gl_pathv[i]);
	globfree(&g);
}

/* A new private directory under <storage>/tmp/<kind>: its absolute path, or NULL. */
static const char *private_dir(ctx *c, const char *kind, const char *project_id)
{
	char *dir = arena_printf(c->a, "%s/%s-XXXXXX", tmp_root(c, kind), project_id);
	return mkdtemp(dir) ? dir : NULL;
}

static void unlink_file(void *path)
{
	unlink(path);
}

/* ---- routes ---- */

static int present_status(request *r, const char *stmt, const char *id, int status,
			  presenter_fn present)
{
	const char *v[1] = {id};
	int err;
	PGresult *res = db_query(&r->ctx, stmt, 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) != 1)
		return fail_not_found(r, "Project");
	respond_json(r, status, present(&r->ctx, res, 0, 0));
	return 0;
}

/* The largest archive POST /projects/import takes: max_import_size MB (0: no limit but
 * nginx's). */
static long long import_limit(ctx *c)
{
	long mb = settings_max_import_size(c);
	return mb > 0 ? (long long)mb << 20 : 0;
}

static int project_import_create(request *r)
{
	const char *path, *data, *filename;
	size_t len;
	int rc = param_require(r, "path", &path);
	if (rc < 0)
		return rc;
	if (param_file(r, "file", &data, &len, &filename) != 0)
		return fail(r, ERR_MISSING, "file");
	long long limit = import_limit(&r->ctx);
	if (limit > 0 && (long long)len > limit)
		return fail(r, ERR_TOO_LARGE, NULL);
	bool overwrite = false;
	if ((rc = param_bool(r, "overwrite", &overwrite)) < 0)
		return rc;
	const char *ns = param_str(r, "namespace");
	if (ns && !*ns)
		ns = NULL;
	const char *name = param_str(r, "name");
	if (name && !*name)
		name = NULL;
	const char *id, *replaces;
	rc = projects_create_import(r, ns, name, path, overwrite, &id, &replaces);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	/* the archive, until the job has read it */
	const char *file = arena_printf(r->ctx.a, "%s/%s.tar.gz", tmp_root(&r->ctx, "imports"), id);
	if (files_write(file, data, len) < 0) {
		log_error("import archive %s: %s", file, strerror(errno));
		return ERR_INTERNAL;
	}
	db_on_rollback(&r->ctx, unlink_file, (void *)file);
	json_object *payload = json_object_new_object();
	json_object_object_add(payload, "project_id", json_object_new_int64(atoll(id)));
	json_object_object_add(payload, "importer_id",
			       json_object_new_int64(r->ctx.user ? r->ctx.user->id : 0));
	json_object_object_add(payload, "archive", json_object_new_string(file));
	json_object_object_add(payload, "replaces",
			       replaces ? json_object_new_int64(atoll(replaces)) : NULL);
	rc = queue_enqueue(&r->ctx, JOB_PROJECT_IMPORT,
			   arena_strdup(r->ctx.a, json_object_to_json_string_ext(
							  payload, JSON_C_TO_STRING_PLAIN)));
	json_object_put(payload);
	if (rc < 0)
		return rc;
	return present_status(r, "project_import_status", id, 201, entity_project_import_status);
}

static int project_import_show(request *r)
{
	return present_status(r, "project_import_status", r->project->id, 200,
			      entity_project_import_status);
}

/* GitLab 10.8's ProjectExport: masters and up, and 404 unless project_export_enabled. */
static int export_allowed(request *r)
{
	int err;
	PGresult *res = db_settings_read(&r->ctx, false, &err);
	if (!res)
		return err;
	if (!db_bool(res, 0, SETTINGS_COL_FIRST + SETTING_F_project_export_enabled))
		return ERR_NO_ROUTE;
	return can_update_project(&r->project->pa) ? 0 : ERR_FORBIDDEN;
}

static int project_export_start(request *r)
{
	int rc = export_allowed(r);
	if (rc < 0)
		return rc;
	const char *v[1] = {r->project->id};
	int err;
	if (!db_query(&r->ctx, "project_export_start", 1, v, &err))
		return err;
	const char *job;
	rc = queue_enqueue_once(&r->ctx, JOB_PROJECT_EXPORT,
				arena_printf(r->ctx.a, "{\"project_id\": %s}", r->project->id),
				&job);
	if (rc < 0)
		return rc;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "message", json_object_new_string("202 Accepted"));
	respond_json(r, 202, o);
	return 0;
}

static int project_export_show(request *r)
{
	int rc = export_allowed(r);
	if (rc < 0)
		return rc;
	return present_status(r, "project_export_status", r->project->id, 200,
			      entity_project_export_status);
}

static int project_export_download(request *r)
{
	int rc = export_allowed(r);
	if (rc < 0)
		return rc;
	const char *v[1] = {r->project->id};
	int err;
	PGresult *res = db_query(&r->ctx, "project_export_file", 1, v, &err);
	if (!res)
		return err;
	const char *file = PQntuples(res) ? db_val(res, 0, 0) : NULL;
	const char *rel = file ? arena_printf(r->ctx.a, "ci/exports/%s/%s", r->project->id, file)
			       : NULL;
	struct stat st;
	if (!rel ||
	    stat(arena_printf(r->ctx.a, "%s/%s", r->ctx.cfg->storage_path, rel), &st) != 0) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "message",
				       json_object_new_string("404 Not found or has expired"));
		respond_json(r, 404, o);
		return 0;
	}
	respond_empty(r, 200);
	respond_header(r, "Content-Type", "application/gzip");
	respond_header(r, "Content-Disposition",
		       arena_printf(r->ctx.a, "attachment; filename=\"%s\"", file));
	respond_header(r, "X-Accel-Redirect", arena_printf(r->ctx.a, "/_internal/%s", rel));
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route project_import_routes[] = {
	{"POST", V4 "/projects/import", project_import_create, AUTH | TX, NULL},
	{"GET", V4 "/projects/:id/import", project_import_show, PR, NULL},
	{"POST", V4 "/projects/:id/export", project_export_start, AUTH | PW, NULL},
	{"GET", V4 "/projects/:id/export", project_export_show, AUTH | PR, NULL},
	{"GET", V4 "/projects/:id/export/download", project_export_download, AUTH | PR, NULL},
	{NULL, NULL, NULL, 0, NULL},
};

/* ---- the import job ---- */

struct import_run {
	ctx *c;
	struct impexp_import st;
	arena *scratch;
	const char *attrs[PA_NPARAMS];
	const char *why;
	int rc;
};

/* A top-level value of project.json in pass st.pass: an attribute (pass 1), or an
 * element of a relation of this pass. */
static int import_value(void *arg, const char *key, long index, json_object *v)
{
	struct import_run *run = arg;
	ctx *c = run->c;
	if (index < 0) {
		if (run->st.pass != 1)
			return 0;
		json_object *src = v;
		const char *only = NULL;
		if (strcmp(key, "project_feature") == 0) {
			if (!json_object_is_type(v, json_type_object))
				return 0;
		} else {
			only = key;
		}
		for (int i = 1; i < PA_NPARAMS; i++) {
			bool feature = i >= PA_ISSUES;
			if (only ? (feature || strcmp(attr_names[i], only) != 0) : !feature)
				continue;
			json_object *x = src;
			if (!only && !json_object_object_get_ex(src, attr_names[i], &x))
				continue;
			if (json_object_is_type(x, json_type_null))
				continue;
			if (json_object_is_type(x, json_type_string))
				run->attrs[i] = arena_strdup(run->st.a, json_object_get_string(x));
			else if (json_object_is_type(x, json_type_boolean))
				run->attrs[i] = json_object_get_boolean(x) ? "true" : "false";
			else if (json_object_is_type(x, json_type_int))
				run->attrs[i] = arena_printf(run->st.a, "%lld",
							     (long long)json_object_get_int64(x));
			else {
				run->why = arena_printf(run->st.a, "project.json: %s is invalid",
							attr_names[i]);
				return run->rc = -1;
			}
		}
		return 0;
	}
	for (int i = 0; i < impexp_nrelations; i++) {
		const impexp_relation *rel = &impexp_relations[i];
		if (rel->pass != run->st.pass || strcmp(rel->key, key) != 0)
			continue;
		if (!json_object_is_type(v, json_type_object)) {
			run->why = arena_printf(run->st.a,
						"project.json: element %ld of %s is not an"
						" object",
						index, key);
			return run->rc = -1;
		}
		/* the element's allocations go with it: memory stays bounded */
		arena *keep = c->a;
		c->a = run->scratch;
		const char *why = NULL;
		int rc = rel->import_fn(c, &run->st, v, &why);
		c->a = keep;
		if (rc < 0)
			run->why = arena_printf(
				run->st.a, "%s",
				why ? why
				    : arena_printf(keep, "%s %ld cannot be imported", key, index));
		arena_reset(run->scratch);
		c->err_detail = NULL; /* it may have been in the scratch arena */
		if (rc < 0)
			return run->rc = -1;
		return 0;
	}
	return 0;
}

/* Reads project.json under dir for one pass. 0 or -1 with run->why. */
static int import_pass(struct import_run *run, int pass)
{
	run->st.pass = pass;
	const char *file = arena_printf(run->st.a, "%s/project.json", run->st.dir);
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		run->why = "the archive has no project.json";
		return -1;
	}
	json_stream *s = json_stream_new(IMPORT_MAX_DEPTH, IMPORT_MAX_RECORD, import_value, run);
	static char block[1 << 16];
	int rc = s ? 0 : -1;
	ssize_t got;
	while (rc == 0 && (got = read(fd, block, sizeof(block))) > 0)
		rc = json_stream_feed(s, block, (size_t)got);
	if (rc == 0)
		rc = json_stream_end(s);
	if (rc != 0 && !run->why)
		run->why = arena_printf(run->st.a, "project.json: %s",
					s ? json_stream_error(s) : "out of memory");
	json_stream_free(s);
	close(fd);
	return rc == 0 ? 0 : -1;
}

/* VERSION: one of the formats GitLab 10 wrote (db/impexp.h). */
static int check_version(struct import_run *run)
{
	char text[32] = "";
	int fd = open(arena_printf(run->st.a, "%s/VERSION", run->st.dir),
		      O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		run->why = "the archive has no VERSION";
		return -1;
	}
	text[n] = '\0';
	text[strcspn(text, "\r\n")] = '\0';
	int a, b, p;
	char end;
	if (sscanf(text, "%d.%d.%d%c", &a, &b, &p, &end) == 3) {
		long v = a * 1000000L + b * 1000L + p;
		if (v >= 1008 && v <= 2003) /* 0.1.8 (10.0) to 0.2.3 (10.6-10.8) */
			return 0;
	}
	run->why = arena_printf(run->st.a, "Import version mismatch: Required %s but was %.20s",
				IMPEXP_VERSION, text);
	return -1;
}

/* git ARGS in the repository at git_dir; 0 or -1. */
static int run_git(const char *git_dir, const char *a1, const char *a2, const char *a3,
		   const char *a4)
{
	char *argv[] = {"git",      "--git-dir", (char *)git_dir, (char *)a1,
			(char *)a2, (char *)a3,  (char *)a4,      NULL};
	return repo_run(argv, -1) == 0 ? 0 : -1;
}

/* The repository (wiki) at repo from bundle, when the archive has one: every ref of it.
 * 0 or -1 with why. */
static int import_bundle(struct import_run *run, const char *bundle, const char *repo,
			 const char *what, const char **head)
{
	if (head)
		*head = NULL;
	struct stat st;
	if (!repo) {
		run->why = "the repository's storage cannot be found";
		return -1;
	}
	if (lstat(bundle, &st) != 0)
		return 0; /* none: an empty repository, as 10.8 */
	if (!S_ISREG(st.st_mode) || run_git(repo, "bundle", "verify", "-q", bundle) < 0 ||
	    run_git(repo, "fetch", "--quiet", bundle, "+refs/*:refs/*") < 0) {
		run->why = arena_printf(run->st.a, "%s is not a valid git bundle", what);
		return -1;
	}
	/* HEAD: master when the bundle has it, else its first branch */
	git_repository *r = NULL;
	if (git_repository_open_bare(&r, repo) == 0) {
		git_reference *ref = NULL;
		if (git_reference_lookup(&ref, r, "refs/heads/master") < 0) {
			git_branch_iterator *it = NULL;
			git_branch_t type;
			if (git_branch_iterator_new(&it, r, GIT_BRANCH_LOCAL) == 0 &&
			    git_branch_next(&ref, &type, it) == 0)
				git_repository_set_head(r, git_reference_name(ref));
			git_branch_iterator_free(it);
		}
		git_reference_free(ref);
		git_reference *h = NULL;
		/* the default branch the project shows */
		if (head && git_repository_head(&h, r) == 0 && git_reference_is_branch(h))
			*head = arena_strdup(run->st.a, git_reference_shorthand(h));
		git_reference_free(h);
		git_repository_free(r);
	}
	return 0;
}

/* uploads/<32 hex secret>/<name>: moved into the project's uploads, at the same paths
 * (the markdown links of the imported text keep working, api/uploads.c). */
static int import_uploads(struct import_run *run)
{
	ctx *c = run->c;
	const char *from = arena_printf(run->st.a, "%s/uploads", run->st.dir);
	DIR *d = opendir(from);
	if (!d)
		return 0;
	const char *pid = arena_printf(run->st.a, "%ld", run->st.project_id);
	const char *to = arena_printf(run->st.a, "%s/%s", c->cfg->storage_path,
				      repo_uploads_relative(c, pid));
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		const char *src = arena_printf(run->st.a, "%s/%s", from, de->d_name);
		struct stat st;
		if (strlen(de->d_name) != 32 || strspn(de->d_name, "0123456789abcdef") != 32 ||
		    lstat(src, &st) != 0 || !S_ISDIR(st.st_mode))
			continue; /* not an upload of GitLab's (avatars are not exported) */
		const char *dst = arena_printf(run->st.a, "%s/%s", to, de->d_name);
		if (files_dirs(dst) < 0 || rename(src, dst) < 0) {
			run->why = arena_printf(run->st.a, "uploads/%s cannot be stored: %s",
						de->d_name, strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

/* What an import wrote on disk: the repository, wiki and uploads, gone (a failure). */
static void import_remove_files(ctx *c, const char *project_id)
{
	repo_remove(c, project_id);
}

struct import_files {
	ctx *c;
	const char *project_id;
};

static void import_files_remove(void *arg)
{
	struct import_files *f = arg;
	import_remove_files(f->c, f->project_id);
}

/* The import's steps, in the savepoint; 0 or -1 with run->why. */
static int import_steps(struct import_run *run, const char *archive, const char *replaces)
{
	ctx *c = run->c;
	const char *pid = arena_printf(c->a, "%ld", run->st.project_id);
	/* a retried job starts from an empty repository */
	import_remove_files(c, pid);
	if (repo_create(c, pid) < 0) {
		run->why = "the repository cannot be created";
		return -1;
	}
	long long limit = import_limit(c);
	remove_stale_dirs(c, "imports", pid);
	if (!(run->st.dir = private_dir(c, "imports", pid))) {
		run->why = "no directory for the archive";
		return -1;
	}
	long long bound = 10 * (limit > 0 ? limit : (1LL << 30));
	if (targz_extract(c->a, archive, run->st.dir, bound, &run->why) < 0 ||
	    check_version(run) < 0)
		return -1;
	if (import_pass(run, 1) < 0)
		return -1;
	const char *v[PA_NPARAMS];
	memcpy(v, run->attrs, sizeof(v));
	v[PA_ID] = pid;
	DB_PARAMS(v, PA_NPARAMS);
	int err;
	if (!db_query(c, "project_import_attributes", PA_NPARAMS, v, &err)) {
		run->why = "the project's attributes are invalid";
		return -1;
	}
	const char *iv[2] = {pid, arena_printf(c->a, "%ld", run->st.importer_id)};
	if (run->st.importer_id > 0 && !db_query(c, "project_import_importer", 2, iv, &err)) {
		run->why = "the importer cannot be made a member";
		return -1;
	}
	if (import_pass(run, 2) < 0)
		return -1;
	if (!db_query(c, "project_import_iids", 1, v, &err) ||
	    !db_query(c, "project_import_issue_counts", 1, v, &err)) {
		run->why = "the iid counters cannot be set";
		return -1;
	}
	const char *head;
	if (import_bundle(run, arena_printf(c->a, "%s/project.bundle", run->st.dir),
			  repo_path(c, pid), "project.bundle", &head) < 0)
		return -1;
	const char *hv[2] = {pid, head};
	if (head && !db_query(c, "project_import_default_branch", 2, hv, &err)) {
		run->why = "the default branch cannot be set";
		return -1;
	}
	const char *wiki = arena_printf(c->a, "%s/project.wiki.bundle", run->st.dir);
	struct stat st;
	if (lstat(wiki, &st) == 0 &&
	    (repo_wiki_create(c, pid) < 0 ||
	     import_bundle(run, wiki, repo_wiki_path(c, pid), "project.wiki.bundle", NULL) < 0)) {
		if (!run->why)
			run->why = "the wiki cannot be created";
		return -1;
	}
	if (import_uploads(run) < 0)
		return -1;
	if (replaces) {
		/* the overwritten project goes (as DELETE /projects/:id), the import takes
		 * its path and name */
		const char *rv[1] = {replaces};
		PGresult *res = db_query(c, "project_import_old", 1, rv, &err);
		if (!res) {
			run->why = "the project to overwrite cannot be read";
			return -1;
		}
		if (PQntuples(res) == 1) {
			const char *path = arena_strdup(c->a, PQgetvalue(res, 0, OLD_PATH));
			const char *name = arena_strdup(c->a, PQgetvalue(res, 0, OLD_NAME));
			const char *nv[3] = {pid, path, name};
			if (!db_query(c, "projects_mark_deleted", 1, rv, &err) ||
			    queue_enqueue(c, JOB_DELETE_PROJECT,
					  arena_printf(c->a, "{\"project_id\": %s}", replaces)) <
				    0 ||
			    !db_query(c, "project_import_rename", 3, nv, &err)) {
				run->why = "the project to overwrite cannot be replaced";
				return -1;
			}
		}
	}
	return 0;
}

/* project_import {"project_id", "importer_id", "archive", "replaces"}: POST
 * /projects/import's archive. A failed import is done too (import_status "failed"): it
 * is not tried again. */
int project_import_run(ctx *c, json_object *payload, const char **why)
{
	long long project_id, importer_id = 0, replaces_id = 0;
	const char *archive = impexp_str(payload, "archive");
	if (!impexp_int(payload, "project_id", &project_id) || !archive) {
		*why = "the payload has no project_id or archive";
		return -1;
	}
	impexp_int(payload, "importer_id", &importer_id);
	impexp_int(payload, "replaces", &replaces_id);
	const char *pid = arena_printf(c->a, "%lld", project_id);
	const char *cv[2] = {pid, arena_printf(c->a, "%lld", importer_id)};
	int err;
	PGresult *res = db_query(c, "project_import_claim", 2, cv, &err);
	if (!res) {
		*why = "the project cannot be read";
		return -1;
	}
	if (PQntuples(res) == 0 || strcmp(PQgetvalue(res, 0, IJ_STATUS), "scheduled") != 0) {
		unlink(archive); /* deleted meanwhile, or imported by an earlier try */
		return 0;
	}
	struct import_run run = {.c = c, .scratch = arena_new()};
	run.st = (struct impexp_import){
		.project_id = (long)project_id,
		.importer_id = (long)importer_id,
		.namespace_id = (long)db_int(res, 0, IJ_NS_ID),
		.ns_path = arena_strdup(c->a, PQgetvalue(res, 0, IJ_NS_FULL_PATH)),
		.path = arena_strdup(c->a, PQgetvalue(res, 0, IJ_PATH)),
		.a = c->a,
		.users = impexp_map_new(c->a),
		.ids = impexp_map_new(c->a),
	};
	bool group = strcmp(PQgetvalue(res, 0, IJ_NS_KIND), "group") == 0;
	int ns_vis = (int)db_int(res, 0, IJ_NS_VISIBILITY);
	bool admin = db_bool(res, 0, IJ_IMPORTER_ADMIN);
	if (!run.scratch || !db_query(c, "project_import_savepoint", 0, NULL, &err) ||
	    !db_query(c, "project_import_bulk", 0, NULL, &err)) {
		arena_destroy(run.scratch);
		*why = "the import cannot start";
		return -1;
	}
	int rc = import_steps(&run, archive,
			      replaces_id ? arena_printf(c->a, "%lld", replaces_id) : NULL);
	/* the exported visibility, at most the group's and one the settings allow */
	if (rc == 0 && run.attrs[PA_VISIBILITY]) {
		int vis = atoi(run.attrs[PA_VISIBILITY]);
		if (vis != 0 && vis != 10 && vis != 20)
			vis = 0;
		if (group && vis > ns_vis)
			vis = ns_vis;
		if (!admin && settings_visibility_restricted(c, vis))
			vis = 0;
		const char *vv[PA_NPARAMS] = {
			[PA_ID] = pid, [PA_VISIBILITY] = arena_printf(c->a, "%d", vis)};
		if (!db_query(c, "project_import_attributes", PA_NPARAMS, vv, &err)) {
			run.why = "the project's visibility cannot be set";
			rc = -1;
		}
	}
	if (rc == 0 && !db_query(c, "project_import_finish", 1, cv, &err)) {
		run.why = "the import cannot be recorded";
		rc = -1;
	}
	if (rc < 0) {
		/* nothing of it stays but the status */
		if (!db_query(c, "project_import_rollback", 0, NULL, &err)) {
			*why = "the import's rows cannot be rolled back";
			rc = -2;
		} else {
			import_remove_files(c, pid);
			const char *reason = run.why ? run.why : "the import failed";
			const char *fv[2] = {pid, reason};
			log_warn("project %s: import failed: %s", pid, reason);
			if (!db_query(c, "project_import_fail", 2, fv, &err)) {
				*why = "the failure cannot be recorded";
				rc = -2;
			}
		}
	} else {
		log_info("project %s: imported", pid);
	}
	/* a rollback of the whole transaction (the job is tried again) takes the files;
	 * its commit, the archive */
	struct import_files *f = arena_alloc(c->a, sizeof(*f));
	*f = (struct import_files){c, pid};
	db_on_rollback(c, import_files_remove, f);
	db_on_commit(c, unlink_file, arena_strdup(c->a, archive));
	if (run.st.dir)
		repo_remove_dir(run.st.dir);
	arena_destroy(run.scratch);
	return rc == -2 ? -1 : 0;
}

/* ---- the export job ---- */

/* Copies (hard-links where it can) the regular files under from to to. 0 or -1. */
static int copy_tree(ctx *c, const char *from, const char *to)
{
	DIR *d = opendir(from);
	if (!d)
		return errno == ENOENT ? 0 : -1;
	int rc = mkdir(to, 0700) == 0 || errno == EEXIST ? 0 : -1;
	struct dirent *de;
	static char block[1 << 16];
	while (rc == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		const char *s = arena_printf(c->a, "%s/%s", from, de->d_name);
		const char *t = arena_printf(c->a, "%s/%s", to, de->d_name);
		struct stat st;
		if (lstat(s, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			rc = copy_tree(c, s, t);
		} else if (S_ISREG(st.st_mode) && link(s, t) != 0) {
			int in = open(s, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			int out = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			ssize_t n = in < 0 || out < 0 ? -1 : 0;
			while (n >= 0 && (n = read(in, block, sizeof(block))) > 0)
				if (write(out, block, (size_t)n) != n)
					n = -1;
			if (in >= 0)
				close(in);
			if (out >= 0)
				close(out);
			if (n < 0)
				rc = -1;
		}
	}
	closedir(d);
	return rc;
}

/* `git bundle create FILE --all` of the repository at repo, unless it has no ref (10.8
 * writes no bundle then). 0 or -1. */
static int export_bundle(const char *repo, const char *file)
{
	git_repository *r = NULL;
	if (!repo)
		return -1;
	if (git_repository_open_bare(&r, repo) < 0)
		return 0; /* never made: no bundle */
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	bool any = git_reference_iterator_new(&it, r) == 0 && git_reference_next(&ref, it) == 0;
	git_reference_free(ref);
	git_reference_iterator_free(it);
	git_repository_free(r);
	if (!any)
		return 0;
	return run_git(repo, "bundle", "create", file, "--all");
}

static void put_attr(json_object *o, const char *key, const PGresult *res, int col, char type)
{
	const char *v = db_val(res, 0, col);
	json_object *x = NULL;
	if (v && type == 'b')
		x = json_object_new_boolean(strcmp(v, "t") == 0);
	else if (v && type == 'i')
		x = json_object_new_int64(atoll(v));
	else if (v)
		x = json_object_new_string(v);
	json_object_object_add(o, key, x);
}

/* The members of o as the text of an object's members, without the braces. */
static int write_members(FILE *f, json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	size_t n = strlen(s);
	return n >= 2 && fwrite(s + 1, 1, n - 2, f) == n - 2 ? 0 : -1;
}

/* project.json under st->dir. 0 or -1 with why. */
static int export_tree(ctx *c, struct impexp_export *st, const PGresult *p, const char **why)
{
	const char *file = arena_printf(c->a, "%s/project.json", st->dir);
	st->json = fopen(file, "we");
	if (!st->json) {
		*why = "project.json cannot be written";
		return -1;
	}
	json_object *attrs = json_object_new_object();
	put_attr(attrs, "description", p, EX_DESCRIPTION, 's');
	put_attr(attrs, "visibility_level", p, EX_VISIBILITY, 'i');
	put_attr(attrs, "archived", p, EX_ARCHIVED, 'b');
	put_attr(attrs, "request_access_enabled", p, EX_REQUEST_ACCESS, 'b');
	put_attr(attrs, "only_allow_merge_if_pipeline_succeeds", p, EX_PIPELINE_SUCCEEDS, 'b');
	put_attr(attrs, "only_allow_merge_if_all_discussions_are_resolved", p,
		 EX_DISCUSSIONS_RESOLVED, 'b');
	put_attr(attrs, "printing_merge_request_link_enabled", p, EX_PRINTING_MR_LINK, 'b');
	put_attr(attrs, "resolve_outdated_diff_discussions", p, EX_RESOLVE_OUTDATED, 'b');
	put_attr(attrs, "shared_runners_enabled", p, EX_SHARED_RUNNERS, 'b');
	put_attr(attrs, "public_builds", p, EX_PUBLIC_JOBS, 'b');
	put_attr(attrs, "ci_config_path", p, EX_CI_CONFIG_PATH, 's');
	int rc = fputc('{', st->json) == EOF || write_members(st->json, attrs) < 0 ? -1 : 0;
	json_object_put(attrs);
	arena *keep = c->a;
	arena *scratch = arena_new();
	for (int i = 0; rc == 0 && i < impexp_nrelations; i++) {
		const impexp_relation *rel = &impexp_relations[i];
		st->key = rel->key;
		st->count = 0;
		if (fprintf(st->json, ",\"%s\":[", rel->key) < 0) {
			rc = -1;
			break;
		}
		c->a = scratch;
		const char *rwhy = NULL;
		rc = rel->export_fn(c, st, &rwhy);
		c->a = keep;
		if (rc < 0)
			*why = arena_printf(keep, "%s: %s", rel->key,
					    rwhy ? rwhy : "cannot be exported");
		arena_reset(scratch);
		if (rc == 0 && fputc(']', st->json) == EOF)
			rc = -1;
	}
	arena_destroy(scratch);
	if (rc == 0) {
		json_object *feature = json_object_new_object();
		put_attr(feature, "builds_access_level", p, EX_JOBS, 'i');
		put_attr(feature, "created_at", p, EX_CREATED_AT, 's');
		put_attr(feature, "issues_access_level", p, EX_ISSUES, 'i');
		put_attr(feature, "merge_requests_access_level", p, EX_MERGE_REQUESTS, 'i');
		json_object_object_add(feature, "project_id",
				       json_object_new_int64(st->project_id));
		put_attr(feature, "snippets_access_level", p, EX_SNIPPETS, 'i');
		put_attr(feature, "updated_at", p, EX_UPDATED_AT, 's');
		put_attr(feature, "wiki_access_level", p, EX_WIKI, 'i');
		const char *s = json_object_to_json_string_ext(feature, JSON_C_TO_STRING_PLAIN);
		if (fprintf(st->json, ",\"project_feature\":%s}", s) < 0)
			rc = -1;
		json_object_put(feature);
	}
	if (fclose(st->json) != 0 || st->err)
		rc = -1;
	st->json = NULL;
	if (rc < 0 && !*why)
		*why = "project.json cannot be written";
	return rc;
}

/* The steps of an export into dir: the archive's file name under out (in c's arena). 0
 * or -1 with why. */
static int export_steps(ctx *c, struct impexp_export *st, const char *pid, const char *out,
			const char **name, const char **why)
{
	int err;
	const char *v[1] = {pid};
	PGresult *p = db_query(c, "project_export_project", 1, v, &err);
	if (!p || PQntuples(p) != 1) {
		*why = "the project is gone";
		return -1;
	}
	if (files_write(arena_printf(c->a, "%s/VERSION", st->dir), IMPEXP_VERSION,
			strlen(IMPEXP_VERSION)) < 0) {
		*why = "VERSION cannot be written";
		return -1;
	}
	if (export_tree(c, st, p, why) < 0)
		return -1;
	if (export_bundle(repo_path(c, pid), arena_printf(c->a, "%s/project.bundle", st->dir)) <
		    0 ||
	    export_bundle(repo_wiki_path(c, pid),
			  arena_printf(c->a, "%s/project.wiki.bundle", st->dir)) < 0) {
		*why = "the repository cannot be bundled";
		return -1;
	}
	if (copy_tree(c,
		      arena_printf(c->a, "%s/%s", c->cfg->storage_path,
				   repo_uploads_relative(c, pid)),
		      arena_printf(c->a, "%s/uploads", st->dir)) < 0) {
		*why = "the uploads cannot be copied";
		return -1;
	}
	/* GitLab's <time>_<full path with _>_export.tar.gz */
	char *full = arena_printf(c->a, "%s_%s", PQgetvalue(p, 0, EX_NS_FULL_PATH),
				  PQgetvalue(p, 0, EX_PATH));
	for (char *s = full; *s; s++)
		if (*s == '/')
			*s = '_';
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof(stamp), "%Y-%m-%d_%H-%M-%S", gmtime_r(&now, &tm));
	*name = arena_printf(c->a, "%s_%s_export.tar.gz", stamp, full);
	const char *tmp = arena_printf(c->a, "%s/.%s.tmp", out, *name);
	if (files_dirs(tmp) < 0 || targz_create(c->a, st->dir, tmp, why) < 0 ||
	    rename(tmp, arena_printf(c->a, "%s/%s", out, *name)) < 0) {
		unlink(tmp);
		if (!*why)
			*why = "the archive cannot be written";
		return -1;
	}
	return 0;
}

/* export_steps with its reads on a replica that has replayed past the job's claim
 * (which came after the POST that queued it committed), in one snapshot there; on the
 * primary (c) otherwise, or again there when the replica fails under it. */
static int export_read(ctx *c, struct impexp_export *st, const char *pid, const char *out,
		       const char **name, const char **why)
{
	uint64_t lsn = c->pool ? db_pool_primary_lsn(c) : 0;
	db *rd = lsn ? db_pool_at(c->pool, lsn) : c->db;
	if (rd == c->db)
		return export_steps(c, st, pid, out, name, why);
	ctx rc = *c;
	rc.db = rd;
	rc.hooks = NULL;
	if (db_begin_snapshot(&rc) == 0) {
		int n = export_steps(&rc, st, pid, out, name, why);
		if (n == 0 && db_commit(&rc) == 0) {
			log_info("project %s: exported from a read replica", pid);
			return 0;
		}
		if (db_in_transaction(&rc))
			db_rollback(&rc);
		if (!rd->conn || PQstatus(rd->conn) != CONNECTION_OK)
			db_pool_failed(c->pool, rd);
		log_warn("project %s: the export on a read replica failed (%s): again on the "
			 "primary",
			 pid, *why ? *why : "its snapshot");
	}
	if (st->json)
		fclose(st->json);
	*st = (struct impexp_export){.project_id = st->project_id, .a = st->a, .dir = st->dir};
	*name = NULL;
	*why = NULL;
	return export_steps(c, st, pid, out, name, why);
}

/* The files of out but keep. */
static void remove_others(ctx *c, const char *out, const char *keep)
{
	DIR *d = opendir(out);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, keep) != 0)
			unlink(arena_printf(c->a, "%s/%s", out, de->d_name));
	if (d)
		closedir(d);
}

/* project_export {"project_id"}: POST /projects/:id/export. A failed export leaves no
 * status ("none", as 10.8 shows it) and is not tried again. */
int project_export_run(ctx *c, json_object *payload, const char **why)
{
	long long id;
	if (!impexp_int(payload, "project_id", &id)) {
		*why = "the payload has no project_id";
		return -1;
	}
	const char *pid = arena_printf(c->a, "%lld", id);
	const char *out = arena_printf(c->a, "%s/ci/exports/%s", c->cfg->storage_path, pid);
	struct impexp_export st = {.project_id = (long)id, .a = c->a};
	const char *name = NULL, *ewhy = NULL;
	int rc = -1;
	if (!(st.dir = private_dir(c, "exports", pid)))
		ewhy = "no directory for the export";
	else
		rc = export_read(c, &st, pid, out, &name, &ewhy);
	if (st.dir)
		repo_remove_dir(st.dir);
	int err;
	const char *v[2] = {pid, name};
	if (rc == 0 && db_query(c, "project_export_finish", 2, v, &err)) {
		remove_others(c, out, name);
		log_info("project %s: exported to %s", pid, name);
		return 0;
	}
	log_warn("project %s: export failed: %s", pid, ewhy ? ewhy : "its status cannot be set");
	if (name)
		unlink(arena_printf(c->a, "%s/%s", out, name));
	if (!db_query(c, "project_export_drop", 1, v, &err)) {
		*why = "the export's status cannot be dropped";
		return -1;
	}
	return 0;
}
