#include "git/repo.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/crypto.h"
#include "core/errors.h"
#include "core/log.h"
#include "core/storages.h"
#include "core/validate.h"
#include "db/repos.h"

static int git_ready;
static void log_git_error(const char *what, const char *dir);

static void git_init_once(void)
{
	if (!git_ready) {
		git_libgit2_init();
		/* libgit2's object cache (one budget for all repositories of the process)
		 * holds up to 256 MB by default, per worker; 128 MB, with small blobs in it
		 * too (none by default: every file read inflated its delta chain again) */
		git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, (ssize_t)128 << 20);
		git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_BLOB, (size_t)16 << 10);
		/* no SHA-1 of every object read again (a sixth of a file read): git itself does
		 * not check the objects it reads from its own packs either; fsck does */
		git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
		git_ready = 1;
	}
}

/* ---- the open repositories of this process ---- */

#define OPEN_REPOS 64

static struct open_repo {
	char *path; /* malloc'd; NULL: a free slot */
	dev_t dev;
	ino_t ino;
	git_repository *repo;
	unsigned long long used; /* the clock of the last hand-out */
} open_repos[OPEN_REPOS];
static unsigned long long open_clock;

static void free_repository(void *p)
{
	git_repository_free(p);
}

/* Closes slot o: its repository at the end of c's request (a pointer handed out in it
 * stays valid until then). */
static void close_slot(ctx *c, struct open_repo *o)
{
	arena_defer(c->a, free_repository, o->repo);
	free(o->path);
	*o = (struct open_repo){0};
}

/* Opens the repository at dir through the table of open ones (repo_open). */
static int open_dir(ctx *c, const char *dir, git_repository **out)
{
	git_init_once();
	*out = NULL;
	if (!dir)
		return ERR_INTERNAL;
	struct open_repo *o = NULL, *slot = &open_repos[0];
	for (int i = 0; i < OPEN_REPOS; i++) {
		struct open_repo *e = &open_repos[i];
		if (e->path && strcmp(e->path, dir) == 0)
			o = e;
		if (!e->path ? slot->path != NULL : slot->path && e->used < slot->used)
			slot = e; /* a free slot, else the least recently used */
	}
	struct stat st;
	if (stat(dir, &st) < 0) {
		if (o)
			close_slot(c, o);
		if (errno == ENOENT || errno == ENOTDIR)
			return ERR_NOT_FOUND;
		log_error("repository %s: %s", dir, strerror(errno));
		return ERR_INTERNAL;
	}
	if (o && o->dev == st.st_dev && o->ino == st.st_ino) {
		o->used = ++open_clock;
		*out = o->repo;
		return 0;
	}
	if (o) /* another directory now: removed and made again */
		close_slot(c, slot = o);
	git_repository *repo = NULL;
	int rc = git_repository_open_bare(&repo, dir);
	if (rc == GIT_ENOTFOUND)
		return ERR_NOT_FOUND;
	if (rc < 0) {
		log_git_error("open", dir);
		return ERR_INTERNAL;
	}
	char *path = strdup(dir);
	if (!path) {
		git_repository_free(repo);
		return ERR_INTERNAL;
	}
	if (slot->path)
		close_slot(c, slot);
	*slot = (struct open_repo){path, st.st_dev, st.st_ino, repo, ++open_clock};
	*out = repo;
	return 0;
}

int repo_open(ctx *c, const char *project_id, git_repository **out)
{
	return open_dir(c, repo_path(c, project_id), out);
}

int repo_wiki_open(ctx *c, const char *project_id, git_repository **out)
{
	return open_dir(c, repo_wiki_path(c, project_id), out);
}

/* ---- answers kept by this process (repo.h) ---- */

/* One slot per hash of the key; a newer answer takes the slot of an older one. Keys are
 * short (under 100 bytes with a path of a few dozen): a few MB when every slot is taken. */
#define MEMO_SLOTS 65536

static struct memo {
	char *key; /* malloc'd; NULL: empty */
	long long n;
	git_oid oid;
} memo[MEMO_SLOTS];

static struct memo *memo_slot(const char *key)
{
	unsigned long long h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return &memo[h % MEMO_SLOTS];
}

bool repo_memo_get(const char *key, repo_memo *out)
{
	const struct memo *m = memo_slot(key);
	if (!m->key || strcmp(m->key, key) != 0)
		return false;
	*out = (repo_memo){m->n, m->oid};
	return true;
}

void repo_memo_put(const char *key, long long n, const git_oid *oid)
{
	struct memo *m = memo_slot(key);
	char *k = strdup(key);
	if (!k)
		return;
	free(m->key);
	*m = (struct memo){k, n, {{0}}};
	if (oid)
		git_oid_cpy(&m->oid, oid);
}

const char *repo_relative(ctx *c, const char *project_id)
{
	const char *h = crypto_sha256_hex(c->a, project_id, strlen(project_id));
	return arena_printf(c->a, "repositories/@hashed/%.2s/%.2s/%s", h, h + 2, h);
}

const char *repo_uploads_relative(ctx *c, const char *project_id)
{
	const char *h = crypto_sha256_hex(c->a, project_id, strlen(project_id));
	return arena_printf(c->a, "uploads/@hashed/%.2s/%.2s/%s", h, h + 2, h);
}

const char *repo_storage_dir(ctx *c, const char *project_id)
{
	const char *name;
	int rc = db_repos_storage(c, project_id, &name, NULL);
	if (rc == ERR_NOT_FOUND)
		name = "default"; /* its row is gone: repo_remove looks on every storage */
	else if (rc < 0)
		return NULL;
	const char *dir = storages_path(&c->cfg->storages, name);
	if (!dir)
		log_error("project %s: its repository storage \"%s\" is not configured "
			  "(repository_storages)",
			  project_id, name);
	return dir;
}

const char *repo_path(ctx *c, const char *project_id)
{
	const char *dir = repo_storage_dir(c, project_id);
	return dir ? arena_printf(c->a, "%s/%s.git", dir, repo_relative(c, project_id)) : NULL;
}

const char *repo_wiki_path(ctx *c, const char *project_id)
{
	const char *dir = repo_storage_dir(c, project_id);
	return dir ? arena_printf(c->a, "%s/%s.wiki.git", dir, repo_relative(c, project_id))
		   : NULL;
}

int repo_writable(ctx *c, const char *project_id)
{
	const char *name;
	bool read_only = false;
	int rc = db_repos_storage(c, project_id, &name, &read_only);
	if (rc < 0)
		return rc;
	if (read_only) {
		c->err_detail = REPO_READ_ONLY_MESSAGE;
		return ERR_FORBIDDEN;
	}
	return 0;
}

static int mkdirs_for(const char *file)
{
	char dir[4096];
	if (snprintf(dir, sizeof(dir), "%s", file) >= (int)sizeof(dir))
		return ERR_INTERNAL;
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return ERR_INTERNAL;
		*p = '/';
	}
	return 0;
}

static void log_git_error(const char *what, const char *dir)
{
	const git_error *e = git_error_last();
	log_error("%s %s: %s", what, dir, e ? e->message : "unknown error");
}

/* What a rollback undoes: a repository made, or HEAD moved, in the open transaction. */
struct undo {
	ctx *c;
	const char *project_id;
	const char *head; /* the branch HEAD named before; NULL: remove the repository */
};

static void undo(void *arg)
{
	struct undo *u = arg;
	if (u->head)
		(void)repo_set_head(u->c, u->project_id, u->head, false);
	else
		(void)repo_remove(u->c, u->project_id);
}

static void on_rollback(ctx *c, const char *project_id, const char *head)
{
	struct undo *u = arena_alloc(c->a, sizeof(*u));
	*u = (struct undo){c, arena_strdup(c->a, project_id), head};
	db_on_rollback(c, undo, u);
}

/* A bare repository at dir whose HEAD names master (an existing one is left alone). */
static int init_bare(const char *dir)
{
	git_init_once();
	if (mkdirs_for(dir) < 0) {
		log_error("repository directory %s: %s", dir, strerror(errno));
		return ERR_INTERNAL;
	}
	git_repository *repo = NULL;
	git_repository_init_options opts;
	git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	opts.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
	opts.initial_head = "master";
	if (git_repository_init_ext(&repo, dir, &opts) < 0) {
		log_git_error("git init", dir);
		return ERR_INTERNAL;
	}
	git_repository_free(repo);
	return 0;
}

int repo_create(ctx *c, const char *project_id)
{
	const char *dir = repo_path(c, project_id);
	if (!dir)
		return ERR_INTERNAL;
	struct stat st;
	if (lstat(dir, &st) < 0)
		on_rollback(c, project_id, NULL); /* a new one: removed by a rollback */
	return init_bare(dir);
}

/* A rollback's undo of a wiki made in its transaction: removed while no ref is in it (a
 * writer that found it made meanwhile and committed to it keeps it). */
static void undo_wiki(void *arg)
{
	const char *dir = arg;
	git_repository *repo = NULL;
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	bool empty = false;
	if (git_repository_open_bare(&repo, dir) == 0 && git_reference_iterator_new(&it, repo) == 0)
		empty = git_reference_next(&ref, it) == GIT_ITEROVER;
	git_reference_free(ref);
	git_reference_iterator_free(it);
	git_repository_free(repo);
	if (empty)
		(void)repo_remove_dir(dir);
}

int repo_wiki_create(ctx *c, const char *project_id)
{
	const char *dir = repo_wiki_path(c, project_id);
	struct stat st;
	if (!dir)
		return ERR_INTERNAL;
	if (lstat(dir, &st) == 0)
		return 0;
	if (db_in_transaction(c))
		db_on_rollback(c, undo_wiki, (void *)dir);
	return init_bare(dir);
}

static int unlink_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int repo_remove_dir(const char *abs_path)
{
	struct stat st;
	if (lstat(abs_path, &st) < 0)
		return errno == ENOENT ? 0 : ERR_INTERNAL;
	return nftw(abs_path, unlink_cb, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : ERR_INTERNAL;
}

int repo_remove(ctx *c, const char *project_id)
{
	int rc = 0;
	/* on every storage: the project's row may be gone, and a move that failed half way
	 * may have left a copy on another */
	const char *rel = repo_relative(c, project_id);
	for (int i = 0; i < c->cfg->storages.n; i++) {
		const char *dir = c->cfg->storages.items[i].path;
		if (repo_remove_dir(arena_printf(c->a, "%s/%s.git", dir, rel)) < 0 ||
		    repo_remove_dir(arena_printf(c->a, "%s/%s.wiki.git", dir, rel)) < 0)
			rc = ERR_INTERNAL;
	}
	/* its jobs' traces and artifacts (sql/0022_ci.sql), its export (api/project_import.c) */
	static const char *const ci[] = {"traces", "artifacts", "exports"};
	for (size_t i = 0; i < sizeof(ci) / sizeof(*ci); i++)
		if (repo_remove_dir(arena_printf(c->a, "%s/ci/%s/%s", c->cfg->storage_path, ci[i],
						 project_id)) < 0)
			rc = ERR_INTERNAL;
	if (repo_remove_dir(arena_printf(c->a, "%s/%s", c->cfg->storage_path,
					 repo_uploads_relative(c, project_id))) < 0)
		rc = ERR_INTERNAL;
	return rc;
}

int repo_fork(ctx *c, const char *from_id, const char *to_id)
{
	if (repo_create(c, to_id) < 0)
		return ERR_INTERNAL;
	const char *src = repo_path(c, from_id), *dst = repo_path(c, to_id);
	if (!src || !dst)
		return ERR_INTERNAL;
	git_repository *repo = NULL, *source = NULL;
	git_remote *remote = NULL;
	git_reference *head = NULL;
	int rc = ERR_INTERNAL;
	if (git_repository_open_bare(&repo, dst) < 0) {
		log_git_error("open", dst);
		goto cleanup;
	}
	if (git_repository_open_bare(&source, src) < 0) {
		rc = 0; /* no source repository: the fork starts empty */
		goto cleanup;
	}
	char *refspecs[] = {"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"};
	git_strarray specs = {refspecs, 2};
	git_fetch_options opts;
	git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_remote_create_anonymous(&remote, repo, src) < 0 ||
	    git_remote_fetch(remote, &specs, &opts, NULL) < 0) {
		log_git_error("fetch into", dst);
		goto cleanup;
	}
	/* the fork's HEAD names the source's default branch */
	if (git_reference_lookup(&head, source, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
	    git_repository_set_head(repo, git_reference_symbolic_target(head)) < 0) {
		log_git_error("set HEAD of", dst);
		goto cleanup;
	}
	rc = 0;
cleanup:
	git_reference_free(head);
	git_remote_free(remote);
	git_repository_free(source);
	git_repository_free(repo);
	return rc;
}

int repo_set_head(ctx *c, const char *project_id, const char *branch, bool must_exist)
{
	const char *prev = NULL, **previous = &prev;
	git_init_once();
	const char *dir = repo_path(c, project_id);
	const char *ref = arena_printf(c->a, "refs/heads/%s", branch);
	git_repository *repo = NULL;
	git_reference *found = NULL, *head = NULL;
	int rc = ERR_INTERNAL;
	if (previous)
		*previous = NULL;
	if (!dir)
		goto cleanup;
	if (!valid_ref_name(branch)) {
		rc = ERR_NOT_FOUND;
		goto cleanup;
	}
	if (git_repository_open_bare(&repo, dir) < 0) {
		log_git_error("open", dir);
		goto cleanup;
	}
	int e = must_exist ? git_reference_lookup(&found, repo, ref) : 0;
	if (e == GIT_ENOTFOUND) {
		rc = ERR_NOT_FOUND;
		goto cleanup;
	}
	if (previous && git_reference_lookup(&head, repo, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
		const char *target = git_reference_symbolic_target(head);
		if (strncmp(target, "refs/heads/", 11) == 0)
			*previous = arena_strdup(c->a, target + 11);
	}
	if (e < 0 || git_repository_set_head(repo, ref) < 0) {
		log_git_error("set HEAD of", dir);
		goto cleanup;
	}
	if (prev && strcmp(prev, branch) != 0)
		on_rollback(c, project_id, prev);
	rc = 0;
cleanup:
	git_reference_free(head);
	git_reference_free(found);
	git_repository_free(repo);
	return rc;
}

/* Moves from to to when from exists and to does not: 1 moved, 0 nothing to do, or
 * ERR_INTERNAL. */
static int move_legacy(const char *from, const char *to)
{
	struct stat st;
	if (lstat(from, &st) < 0 || !S_ISDIR(st.st_mode) || lstat(to, &st) == 0)
		return 0;
	if (mkdirs_for(to) < 0 || rename(from, to) < 0) {
		log_error("cannot move %s to %s: %s", from, to, strerror(errno));
		return ERR_INTERNAL;
	}
	return 1;
}

int repo_migrate_legacy(ctx *c)
{
	int err;
	PGresult *res = db_repos_legacy_list(c, &err);
	if (!res)
		return ERR_INTERNAL;
	int moved = 0;
	for (int i = 0; i < PQntuples(res); i++) {
		const char *id = PQgetvalue(res, i, RL_ID), *old = PQgetvalue(res, i, RL_OLD_PATH);
		const char *from = arena_printf(c->a, "%s/%s", c->cfg->storage_path, old);
		const char *to = repo_path(c, id), *wiki = repo_wiki_path(c, id);
		if (!to || !wiki)
			return ERR_INTERNAL;
		int a = move_legacy(arena_printf(c->a, "%s.git", from), to);
		int b = move_legacy(arena_printf(c->a, "%s.wiki.git", from), wiki);
		if (a < 0 || b < 0)
			return ERR_INTERNAL;
		moved += a + b;
	}
	return moved;
}

extern char **environ;

int repo_run(char *const argv[], int out_fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dflt;
	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	sigaddset(&dflt, SIGHUP);
	sigaddset(&dflt, SIGTERM);
	sigaddset(&dflt, SIGINT);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (out_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dflt);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		log_error("cannot run %s: %s", argv[0], strerror(rc));
		return ERR_INTERNAL;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			log_error("waitpid %s: %s", argv[0], strerror(errno));
			return ERR_INTERNAL;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		log_error("%s failed (status %d)", argv[0], status);
		return ERR_INTERNAL;
	}
	return 0;
}

int repo_gc(ctx *c, const char *project_id)
{
	const char *path = repo_path(c, project_id);
	struct stat st;
	if (!path)
		return ERR_INTERNAL;
	if (stat(path, &st) < 0)
		return 0; /* no repository yet: nothing to pack */
	if (repo_writable(c, project_id) == ERR_FORBIDDEN)
		return 0; /* being copied to another storage: packed there next time */
	char *argv[] = {"git", arena_printf(c->a, "--git-dir=%s", path), "gc", "--quiet", NULL};
	return repo_run(argv, -1);
}

/* ---- the move of a repository to another storage (collabd move-storage) ---- */

static bool lock_found;

static int lock_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	size_t n = strlen(path);
	if (flag == FTW_F && n > 5 && strcmp(path + n - 5, ".lock") == 0) {
		lock_found = true;
		return 1;
	}
	return 0;
}

bool repo_busy(const char *dir)
{
	char path[4096];
	struct stat st;
	if (!dir || stat(dir, &st) < 0)
		return false;
	static const char *const locks[] = {"packed-refs.lock", "HEAD.lock", "config.lock",
						   "gc.pid"};
	for (size_t i = 0; i < sizeof(locks) / sizeof(*locks); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, locks[i]);
		if (lstat(path, &st) == 0)
			return true;
	}
	snprintf(path, sizeof(path), "%s/objects", dir);
	DIR *d = opendir(path);
	if (d) {
		bool incoming = false;
		for (struct dirent *e; !incoming && (e = readdir(d));)
			incoming = strncmp(e->d_name, "incoming-", 9) == 0 ||
				   strncmp(e->d_name, "tmp_objdir-incoming-", 20) == 0;
		closedir(d);
		if (incoming)
			return true;
	}
	snprintf(path, sizeof(path), "%s/refs", dir);
	lock_found = false;
	(void)nftw(path, lock_cb, 16, FTW_PHYS);
	return lock_found;
}

int repo_wait_quiet(const char *const *dirs, int n, int timeout_s)
{
	int quiet = 0;
	for (int waited = 0; waited < timeout_s * 10; waited++) {
		bool busy = false;
		for (int i = 0; i < n && !busy; i++)
			busy = repo_busy(dirs[i]);
		quiet = busy ? 0 : quiet + 1;
		if (quiet == 2)
			return 0;
		usleep(100 * 1000);
	}
	return ERR_CONFLICT;
}

int repo_copy(ctx *c, const char *from, const char *to)
{
	struct stat st;
	if (lstat(from, &st) < 0)
		return errno == ENOENT ? 0 : ERR_INTERNAL;
	const char *tmp = arena_printf(c->a, "%s.tmp", to);
	if (repo_remove_dir(tmp) < 0 || mkdirs_for(tmp) < 0) {
		log_error("move: cannot prepare %s: %s", tmp, strerror(errno));
		return ERR_INTERNAL;
	}
	/* the files as they are (refs of every kind, HEAD, config, packs): what git clone
	 * --mirror would leave out or rewrite is kept, and fsck checks what arrived */
	char *cp[] = {"cp", "-a", "--", (char *)from, (char *)tmp, NULL};
	char *fsck[] = {"git", arena_printf(c->a, "--git-dir=%s", tmp), "fsck", "--no-progress",
			"--no-dangling", NULL};
	if (repo_run(cp, -1) < 0 || repo_run(fsck, -1) < 0 || rename(tmp, to) < 0) {
		log_error("move: cannot copy %s to %s", from, to);
		(void)repo_remove_dir(tmp);
		return ERR_INTERNAL;
	}
	return 0;
}
