/* Repository files, trees, blobs, archives, comparisons and contributors (GitLab 10's
 * lib/api/files.rb and repositories.rb). The file path of /repository/files/:file_path
 * is one URL-encoded segment ("dir%2Ffile.txt"). Archives and raw files larger than
 * raw_inline_max are written once to the download cache (git/archive.h) and sent by
 * nginx: collabd answers with X-Accel-Redirect to its internal location /_internal/cache/
 * (nginx/collabd.conf), never with their bytes. */
#include <string.h>

#include "api/api.h"
#include "entity/entity.h"
#include "git/archive.h"
#include "git/commits.h"
#include "git/refs.h"

const db_stmt files_stmts[] = {
	{NULL, NULL, 0, 0},
};

static const char *hex(request *r, const git_oid *oid)
{
	char *s = arena_alloc(r->ctx.a, GIT_OID_HEXSZ + 1);
	git_oid_tostr(s, GIT_OID_HEXSZ + 1, oid);
	return s;
}

/* The commit that ref names (404 Commit Not Found). */
static int commit_of(request *r, git_repository *repo, const char *ref, git_commit **out)
{
	int rc = gitc_commit_of(&r->ctx, repo, ref, out);
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, "Commit");
	return rc < 0 ? ERR_INTERNAL : 0;
}

/* Hands the download cache's file rel (relative to the storage path) to nginx, which
 * sends it with the headers given here (nginx/collabd.conf, location /_internal/cache/). */
static void respond_cached(request *r, const char *rel, const char *type, const char *disposition)
{
	respond_empty(r, 200);
	respond_header(r, "Content-Type", type);
	if (disposition)
		respond_header(r, "Content-Disposition", disposition);
	respond_header(r, "X-Accel-Redirect", arena_printf(r->ctx.a, "/_internal/%s", rel));
}

/* The type of raw bytes whose first n are head: text/plain unless those hold a NUL byte
 * (at most RAW_PROBE of them are looked at). */
#define RAW_PROBE 8000
static const char *raw_type(const void *head, size_t n)
{
	return memchr(head, '\0', n < RAW_PROBE ? n : RAW_PROBE) ? "application/octet-stream"
								 : "text/plain; charset=utf-8";
}

/* The raw bytes of blob id: in the response up to raw_inline_max bytes, from the
 * download cache through nginx beyond (read from the repository only to fill it). */
static int respond_raw(request *r, git_repository *repo, const git_oid *id)
{
	size_t size;
	if (gitc_blob_size(repo, id, &size) != 0)
		return ERR_INTERNAL;
	const char *sha = hex(r, id), *rel;
	bool large = size > (size_t)r->ctx.cfg->raw_inline_max;
	char head[RAW_PROBE];
	size_t n;
	if (large &&
	    archive_blob_head(&r->ctx, r->project->id, sha, head, sizeof(head), &n, &rel) == 0) {
		respond_cached(r, rel, raw_type(head, n), NULL);
		return 0;
	}
	git_blob *blob;
	if (gitc_blob_by_id(&r->ctx, repo, sha, &blob) != 0)
		return ERR_INTERNAL;
	const void *data = git_blob_rawcontent(blob);
	size_t len = (size_t)git_blob_rawsize(blob);
	if (large) {
		if (archive_blob(&r->ctx, r->project->id, sha, data, len, &rel) < 0)
			return ERR_INTERNAL;
		respond_cached(r, rel, raw_type(data, len), NULL);
		return 0;
	}
	r->status = 200;
	r->body = len ? data : "";
	r->body_len = len;
	r->content_type = raw_type(data, len);
	return 0;
}

/* ---- files ---- */

static int files_check_show(request *r)
{
	const char *s;
	return param_require(r, "ref", &s);
}

/* The repository and the commit of ?ref. */
static int file_commit(request *r, git_repository **repo, git_commit **commit)
{
	int rc = files_check_show(r);
	if (rc < 0 || (rc = content_read(r)) < 0 || (rc = content_repo(r, repo)) < 0 ||
	    (rc = commit_of(r, *repo, param_str(r, "ref"), commit)) < 0)
		return rc;
	return 0;
}

/* A git lookup's rc as answered: 404 <what> Not Found for ERR_NOT_FOUND. */
static int git_found(request *r, int rc, const char *what)
{
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, what);
	return rc < 0 ? ERR_INTERNAL : 0;
}

static int files_show(request *r)
{
	git_repository *repo;
	git_commit *commit;
	git_blob *blob;
	const char *path = param_str(r, "file_path");
	int rc = file_commit(r, &repo, &commit);
	if (rc < 0 ||
	    (rc = git_found(r, gitc_blob_at(&r->ctx, repo, commit, path, &blob), "File")) < 0)
		return rc;
	git_oid last;
	const char *last_id = NULL;
	if (gitc_last_commit_for_path(&r->ctx, repo, commit, path, &last) == 0)
		last_id = hex(r, &last);
	size_t size = (size_t)git_blob_rawsize(blob);
	const char *slash = strrchr(path, '/');
	/* written straight into the response (core/jw.h), the content encoded in place:
	 * the one copy of the blob's bytes that the answer needs, sized beforehand */
	jw w;
	jw_init(&w, r->ctx.a, (size + 2) / 3 * 4 + 2 * strlen(path) + 512);
	jw_begin_object(&w);
	jw_put_str(&w, "file_name", slash ? slash + 1 : path);
	jw_put_str(&w, "file_path", path);
	jw_put_int(&w, "size", (long long)size);
	jw_put_str(&w, "encoding", "base64");
	jw_put_base64(&w, "content", git_blob_rawcontent(blob), size);
	jw_put_str(&w, "ref", param_str(r, "ref"));
	jw_put_str(&w, "blob_id", hex(r, git_blob_id(blob)));
	jw_put_str(&w, "commit_id", hex(r, git_commit_id(commit)));
	jw_put_str(&w, "last_commit_id", last_id);
	jw_end_object(&w);
	respond_jw(r, 200, &w);
	return 0;
}

static int files_raw(request *r)
{
	git_repository *repo;
	git_commit *commit;
	git_oid id;
	int rc = file_commit(r, &repo, &commit);
	if (rc < 0 ||
	    (rc = git_found(r, gitc_blob_id_at(&r->ctx, commit, param_str(r, "file_path"), &id),
			    "File")) < 0)
		return rc;
	return respond_raw(r, repo, &id);
}

/* The parameters of a file write: branch, commit_message, and content unless deleting. */
static int files_check_write_kind(request *r, bool content)
{
	static const char *const encodings[] = {"text", "base64", NULL};
	const char *s;
	int rc;
	if ((rc = param_require(r, "branch", &s)) < 0)
		return rc;
	if (content && !param_str(r, "content"))
		return fail_missing(r, "content");
	if ((rc = param_require(r, "commit_message", &s)) < 0)
		return rc;
	if ((rc = param_oneof(r, "encoding", encodings, &s)) < 0)
		return rc;
	return 0;
}

static int files_check_write(request *r)
{
	return files_check_write_kind(r, true);
}

static int files_check_delete(request *r)
{
	return files_check_write_kind(r, false);
}

static int file_write(request *r, gitc_action_kind kind)
{
	int rc = files_check_write_kind(r, kind != GITC_DELETE);
	if (rc < 0 || (rc = content_can_push(r)) < 0)
		return rc;
	gitc_action a = {.kind = kind, .file_path = param_str(r, "file_path")};
	if (kind != GITC_DELETE) {
		param *p = param_find(r, "content");
		a.content = p->value ? p->value : "";
		a.content_len = p->value ? p->len : 0;
		const char *enc = param_str(r, "encoding");
		if (enc && strcmp(enc, "base64") == 0 &&
		    !(a.content = gitc_unbase64(&r->ctx, a.content, &a.content_len)))
			return fail_invalid(r, "content");
	}
	gitc_commit_req req = {
		.branch = param_str(r, "branch"),
		.start_branch = param_str(r, "start_branch"),
		.message = param_str(r, "commit_message"),
		.author_name = param_str(r, "author_name"),
		.author_email = param_str(r, "author_email"),
		.actions = &a,
		.nactions = 1,
		.last_commit_id = kind == GITC_UPDATE ? param_str(r, "last_commit_id") : NULL,
	};
	if (req.start_branch && !*req.start_branch)
		req.start_branch = NULL;
	git_repository *repo;
	git_commit *made;
	if ((rc = content_repo(r, &repo)) < 0)
		return rc;
	if ((rc = content_write(r, repo, &req, &made)) != 0)
		return rc < 0 ? rc : 0;
	if (kind == GITC_DELETE) {
		respond_empty(r, 204);
		return 0;
	}
	json_object *o = json_object_new_object();
	json_put_str(o, "file_path", a.file_path);
	json_put_str(o, "branch", req.branch);
	respond_json(r, kind == GITC_CREATE ? 201 : 200, o);
	return 0;
}

static int files_create(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	return file_write(r, GITC_CREATE);
}

static int files_update(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	return file_write(r, GITC_UPDATE);
}

static int files_delete(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	return file_write(r, GITC_DELETE);
}

/* ---- tree, blobs ---- */

/* A page of the elements of list (owned: given to the response). */
static void respond_slice(request *r, const page_req *pg, json_object *list)
{
	long long total = (long long)json_object_array_length(list);
	json_object *page = json_object_new_array();
	for (long long i = pg->offset; i < total && i < pg->offset + pg->per_page; i++)
		json_object_array_add(page,
				      json_object_get(json_object_array_get_idx(list, (size_t)i)));
	json_object_put(list);
	pagination_headers(r, pg, total);
	respond_json(r, 200, page);
}

static int tree_check(request *r)
{
	page_req pg;
	bool b;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = param_bool(r, "recursive", &b)) < 0)
		return rc;
	return 0;
}

static int repository_tree(request *r)
{
	page_req pg;
	bool recursive = false;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = param_bool(r, "recursive", &recursive)) < 0 ||
	    (rc = content_read(r)) < 0)
		return rc;
	git_repository *repo;
	git_commit *commit;
	const char *ref = param_str(r, "ref");
	if ((rc = content_repo(r, &repo)) < 0)
		return rc;
	rc = gitc_commit_of(&r->ctx, repo, ref && *ref ? ref : NULL, &commit);
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, "Tree");
	if (rc < 0)
		return ERR_INTERNAL;
	json_object *list = NULL;
	rc = gitc_tree_json(&r->ctx, repo, commit, param_str(r, "path"), recursive, &list);
	if (rc < 0 && rc != ERR_NOT_FOUND)
		return ERR_INTERNAL;
	respond_slice(r, &pg, rc == ERR_NOT_FOUND ? json_object_new_array() : list);
	return 0;
}

static int blob_of(request *r, git_repository **repo, git_blob **blob)
{
	int rc = content_read(r);
	if (rc < 0 || (rc = content_repo(r, repo)) < 0)
		return rc;
	return git_found(r, gitc_blob_by_id(&r->ctx, *repo, param_str(r, "sha"), blob), "Blob");
}

static int blobs_show(request *r)
{
	git_repository *repo;
	git_blob *blob;
	int rc = blob_of(r, &repo, &blob);
	if (rc < 0)
		return rc;
	size_t size = (size_t)git_blob_rawsize(blob);
	jw w;
	jw_init(&w, r->ctx.a, (size + 2) / 3 * 4 + 256);
	jw_begin_object(&w);
	jw_put_int(&w, "size", (long long)size);
	jw_put_str(&w, "encoding", "base64");
	jw_put_base64(&w, "content", git_blob_rawcontent(blob), size);
	jw_put_str(&w, "sha", hex(r, git_blob_id(blob)));
	jw_end_object(&w);
	respond_jw(r, 200, &w);
	return 0;
}

static int blobs_raw(request *r)
{
	git_repository *repo;
	git_oid id;
	int rc = content_read(r);
	if (rc < 0 || (rc = content_repo(r, &repo)) < 0)
		return rc;
	rc = gitc_blob_id(repo, param_str(r, "sha"), &id);
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, "Blob");
	return rc < 0 ? ERR_INTERNAL : respond_raw(r, repo, &id);
}

/* ---- archives ---- */

/* The format: of the path (archive.zip), a route GitLab 10 has only for its formats
 * (404 otherwise), or the format parameter (400 when it is none of them). */
static int archive_check(request *r)
{
	param *p = param_find(r, "format");
	if (p && !archive_extension(p->value))
		return p->source == SRC_PATH ? ERR_NO_ROUTE : fail_not_valid_value(r, "format");
	return 0;
}

/* GitLab 10's archive: the commit of sha (a branch, tag or commit; the default branch
 * when absent) with every file below <project path>-<ref, '/' as '-'>-<commit id>/, named
 * after that prefix. Any ref that names no commit, and a repository without one, is
 * 404 File Not Found. */
static int repository_archive(request *r)
{
	int rc = archive_check(r);
	if (rc < 0 || (rc = content_read(r)) < 0)
		return rc;
	git_repository *repo;
	git_commit *commit;
	git_oid head;
	const char *ref = param_str(r, "sha");
	if (gitc_open(&r->ctx, r->project->id, &repo) != 0 ||
	    ((!ref || !*ref) && refs_head(&r->ctx, repo, &ref, &head) != 0))
		return fail_not_found(r, "File");
	rc = gitc_commit_of(&r->ctx, repo, ref, &commit);
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, "File");
	if (rc < 0)
		return ERR_INTERNAL;
	const char *sha = hex(r, git_commit_id(commit));
	const char *ext = archive_extension(param_str(r, "format"));
	char *prefix = arena_printf(r->ctx.a, "%s-%s-%s", r->project->path, ref, sha);
	for (char *p = prefix + strlen(r->project->path); *p; p++)
		if (*p == '/')
			*p = '-';
	const char *rel;
	if (archive_commit(&r->ctx, r->project->id, sha, prefix, ext, &rel) < 0)
		return ERR_INTERNAL;
	/* a quoted-string: a ref name may hold '"' or '\\' */
	buf name;
	buf_init(&name, r->ctx.a, 128);
	for (const char *p = prefix; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_putc(&name, '\\');
		buf_putc(&name, *p);
	}
	const char *disposition =
		arena_printf(r->ctx.a, "attachment; filename=\"%s.%s\"", buf_cstr(&name), ext);
	respond_cached(r, rel,
		       strcmp(ext, "zip") == 0 ? "application/zip" : "application/octet-stream",
		       disposition);
	return 0;
}

/* ---- compare, contributors ---- */

static int compare_check(request *r)
{
	const char *s;
	bool b;
	int rc;
	if ((rc = param_require(r, "from", &s)) < 0 || (rc = param_require(r, "to", &s)) < 0 ||
	    (rc = param_bool(r, "straight", &b)) < 0)
		return rc;
	return 0;
}

static int repository_compare(request *r)
{
	bool straight = false;
	int rc = compare_check(r);
	if (rc < 0 || (rc = param_bool(r, "straight", &straight)) < 0 || (rc = content_read(r)) < 0)
		return rc;
	git_repository *repo;
	if ((rc = content_repo(r, &repo)) < 0)
		return rc;
	json_object *o;
	if (gitc_compare_json(&r->ctx, repo, param_str(r, "from"), param_str(r, "to"), straight,
			      &o) < 0) {
		json_object_put(o);
		return ERR_INTERNAL;
	}
	respond_json(r, 200, o);
	return 0;
}

static int repository_contributors(request *r)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = content_read(r)) < 0)
		return rc;
	git_repository *repo;
	if ((rc = content_repo(r, &repo)) < 0)
		return rc;
	json_object *list;
	if (gitc_contributors_json(&r->ctx, repo, &list) < 0) {
		json_object_put(list);
		return ERR_INTERNAL;
	}
	respond_slice(r, &pg, list);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. Writes are
 * transactions: the branch moves with the push event and job it records (git/hooks.h),
 * or not at all. */
const route files_routes[] = {
	{"GET", V4 "/projects/:id/repository/files/:file_path/raw", files_raw, PRN,
	 files_check_show},
	{"GET", V4 "/projects/:id/repository/files/:file_path", files_show, PRN | ROUTE_CACHE,
	 files_check_show},
	{"POST", V4 "/projects/:id/repository/files/:file_path", files_create, AUTH | PW,
	 files_check_write},
	{"PUT", V4 "/projects/:id/repository/files/:file_path", files_update, AUTH | PW,
	 files_check_write},
	{"DELETE", V4 "/projects/:id/repository/files/:file_path", files_delete, AUTH | PW,
	 files_check_delete},
	{"GET", V4 "/projects/:id/repository/tree", repository_tree, PRN, tree_check},
	{"GET", V4 "/projects/:id/repository/blobs/:sha/raw", blobs_raw, PRN, NULL},
	{"GET", V4 "/projects/:id/repository/blobs/:sha", blobs_show, PRN, NULL},
	{"GET", V4 "/projects/:id/repository/archive", repository_archive, PRN, archive_check},
	{"GET", V4 "/projects/:id/repository/archive.:format", repository_archive, PRN,
	 archive_check},
	{"GET", V4 "/projects/:id/repository/compare", repository_compare, PRN, compare_check},
	{"GET", V4 "/projects/:id/repository/contributors", repository_contributors, PRN, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
