/* Bare git repositories on disk, stored by project id as GitLab's hashed storage:
 * <storage>/repositories/@hashed/<h[0,2)>/<h[2,4)>/<h>.git (the project's storage,
 * core/storages.h) with h the hex SHA-256
 * of the decimal project id, the wiki beside it as <h>.wiki.git. A path never comes
 * from a name a user chose: renames and transfers move nothing on disk, a deleted
 * project's path is never taken again (ids are not reused), and its length is fixed. */
#ifndef COLLABD_REPO_H
#define COLLABD_REPO_H

#include <git2.h>
#include <stdbool.h>

#include "db/db.h"
#include "core/ctx.h"

/* The repository's path relative to the storage path ("repositories/@hashed/ab/cd/<h>"
 * without ".git"), in c's arena. */
const char *repo_relative(ctx *c, const char *project_id);
/* The directory of the project's uploaded files relative to the storage path
 * ("uploads/@hashed/ab/cd/<h>", as GitLab's hashed storage keeps them), in c's arena:
 * each file is <secret>/<filename> under it. */
const char *repo_uploads_relative(ctx *c, const char *project_id);
/* The directory of the storage that holds project_id's repository and wiki (its row's
 * repository_storage, core/storages.h; "default" when it has no row), in c's arena or
 * the configuration; NULL (logged) when it cannot be read or is not configured. */
const char *repo_storage_dir(ctx *c, const char *project_id);
/* Absolute path of project_id's repository (<...>.git) and wiki (<...>.wiki.git) on its
 * storage; NULL as repo_storage_dir. */
const char *repo_path(ctx *c, const char *project_id);
const char *repo_wiki_path(ctx *c, const char *project_id);
/* GitLab 10.8's words for a push or a write to a repository being moved. */
#define REPO_READ_ONLY_MESSAGE "The repository is temporarily read-only. Please try again later."
/* Whether project_id's repository and wiki may be written: 0, ERR_FORBIDDEN (with
 * c->err_detail REPO_READ_ONLY_MESSAGE) while `collabd move-storage` moves them, or
 * an ERR_ code. */
int repo_writable(ctx *c, const char *project_id);
/* Opens project_id's repository: 0 with *out, ERR_NOT_FOUND when there is none on disk,
 * ERR_INTERNAL (logged). The repository open is kept for the next requests of this process (64 of
 * them, the least recently used closed first) and handed out again while its directory
 * is the same one (device and inode): libgit2 reads refs and HEAD from disk at every
 * lookup and looks for new packs when an object is missing, so what another process wrote
 * is seen, and its object cache serves the next request. *out belongs to the cache, never
 * to the caller: it stays valid at least until c's arena is reset. */
int repo_open(ctx *c, const char *project_id, git_repository **out);
/* The same for project_id's wiki. */
int repo_wiki_open(ctx *c, const char *project_id, git_repository **out);
/* Answers about repositories that never change once found, kept by this process: the
 * key names the commit ids the answer follows from (what a history holds is fixed by its
 * newest commit's id, whichever repository holds it). A bounded table: an answer may be
 * forgotten, never changed. */
typedef struct {
	long long n;
	git_oid oid;
} repo_memo;
bool repo_memo_get(const char *key, repo_memo *out);
void repo_memo_put(const char *key, long long n, const git_oid *oid);
/* Creates an empty bare repository (HEAD -> refs/heads/master) with libgit2. 0 or
 * ERR_INTERNAL;
 * an existing repository is left as it is (0). A new one is removed when the open
 * transaction rolls back (db_on_rollback). */
int repo_create(ctx *c, const char *project_id);
/* Creates project_id's wiki as repo_create its repository (0 or ERR_INTERNAL; an existing
 * one is
 * left alone). Made in an open transaction that rolls back, it is removed unless a ref
 * was written to it meanwhile. */
int repo_wiki_create(ctx *c, const char *project_id);
/* Creates the repository of a fork: a new bare repository with every branch and tag of
 * the source and the source's HEAD (empty when the source has no repository). 0 or
 * ERR_INTERNAL;
 * removed when the open transaction rolls back, as repo_create's. */
int repo_fork(ctx *c, const char *from_id, const char *to_id);
/* Points HEAD at refs/heads/<branch>: 0, ERR_NOT_FOUND when there is no such branch (and
 * it must exist) or the name is not a valid branch name, ERR_INTERNAL on error. When the open transaction
 * rolls back, HEAD names the branch it named before again. */
int repo_set_head(ctx *c, const char *project_id, const char *branch, bool must_exist);
/* Removes the repository, the wiki, the download cache entries (git/archive.h), the
 * jobs' traces and artifacts (<storage>/ci/) and the uploaded files of project_id;
 * missing ones are success.
 * 0 or ERR_INTERNAL. */
int repo_remove(ctx *c, const char *project_id);

/* Runs argv (no shell: argv[0] found on PATH) with stdin /dev/null, stdout to out_fd
 * (-1: /dev/null) and stderr to ours (the log), the signals a worker blocks or ignores
 * back to their defaults. 0 when it exits with 0, else ERR_INTERNAL (logged). */
int repo_run(char *const argv[], int out_fd);
/* git gc of project_id's repository (GitLab's housekeeping): 0 or ERR_INTERNAL. */
int repo_gc(ctx *c, const char *project_id);
/* Removes a directory tree (background work); missing is success. 0 or ERR_INTERNAL. */
int repo_remove_dir(const char *abs_path);
/* Whether a push is under way in the bare repository at dir: its receive-pack has a
 * quarantine (objects/incoming-*: receiving, or checked by the pre-receive hook) or
 * holds a ref's lock (refs/ ... .lock, packed-refs.lock, HEAD.lock: updating refs).
 * A missing dir is quiet. */
bool repo_busy(const char *dir);
/* Waits until the repositories at dirs (n of them, NULL entries skipped) are seen not
 * busy twice 100 ms apart: 0, or ERR_CONFLICT after timeout_s seconds. */
int repo_wait_quiet(const char *const *dirs, int n, int timeout_s);
/* Copies the bare repository at from to to (which must not exist) as it is, through
 * to.tmp, checked with git fsck before it takes its name: 0, or ERR_INTERNAL (logged;
 * nothing left at to). A missing from is success, nothing copied. */
int repo_copy(ctx *c, const char *from, const char *to);
/* Moves the repositories of the layout before storage by id
 * (<storage>/<namespace full path>/<path>.git and .wiki.git) to their place by id; run
 * by `collabd migrate`, again safe. The number moved, or ERR_INTERNAL. */
int repo_migrate_legacy(ctx *c);

#endif
