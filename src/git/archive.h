/* The download cache: repository archives and large raw blobs, written once under
 * <storage_path>/cache and sent by nginx (X-Accel-Redirect to an internal location),
 * so that their bytes never pass through a worker.
 *
 *   cache/archives/<project id>/<commit sha>/<name>.<ext>   git archive of a commit
 *   cache/blobs/<project id>/<blob sha>                      a blob's bytes
 *
 * An entry is named by what makes its bytes (the commit, the archive's prefix and
 * format; the blob id), so it never changes once written: it is made through a
 * temporary file and rename(2) (core/files.h), and two workers or two instances that
 * make it at once both write whole files, one of which stays. The entries of a project
 * go with its repository (repo_remove); nothing else expires them. */
#ifndef COLLABD_GIT_ARCHIVE_H
#define COLLABD_GIT_ARCHIVE_H

#include <stddef.h>

#include "core/ctx.h"

/* The file extension of an archive format as GitLab 10 names them (tar.gz when format
 * is NULL or empty; tgz, gz: tar.gz; tbz, tbz2, tb2, bz2: tar.bz2; tar; zip), or NULL
 * when format is none of them. */
const char *archive_extension(const char *format);

/* The archive of commit_sha (40 hex digits) of project_id's repository, every file
 * below prefix/, in the format of extension ext (archive_extension): made with
 * `git archive` unless the cache holds it already. 0 with its path relative to the
 * storage path in *rel (c's arena; only [A-Za-z0-9._/-]), or ERR_INTERNAL (logged). */
int archive_commit(ctx *c, const char *project_id, const char *commit_sha, const char *prefix,
		   const char *ext, const char **rel);

/* The n bytes of blob blob_sha (40 hex digits) of project_id, written to the cache unless
 * it holds them already: 0 with their path relative to the storage path in *rel, or
 * ERR_INTERNAL (logged). */
int archive_blob(ctx *c, const char *project_id, const char *blob_sha, const void *data, size_t n,
		 const char **rel);

/* The first bytes of blob blob_sha of project_id when the cache holds it: 0 with up to
 * size of them in head (*n of them) and its path relative to the storage path in *rel;
 * ERR_NOT_FOUND when it does not, ERR_INTERNAL when it cannot be read (logged). */
int archive_blob_head(ctx *c, const char *project_id, const char *blob_sha, void *head, size_t size,
		      size_t *n, const char **rel);

/* Removes the cache entries of project_id (missing ones are success): 0 or ERR_INTERNAL. */
int archive_remove(ctx *c, const char *project_id);

#endif
