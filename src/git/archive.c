#include "git/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/crypto.h"
#include "core/errors.h"
#include "core/files.h"
#include "core/log.h"
#include "git/repo.h"

static const struct {
	const char *format;
	const char *ext;
} formats[] = {
	{"tar.gz", "tar.gz"}, {"tgz", "tar.gz"},   {"gz", "tar.gz"},   {"tar.bz2", "tar.bz2"},
	{"tbz", "tar.bz2"},   {"tbz2", "tar.bz2"}, {"tb2", "tar.bz2"}, {"bz2", "tar.bz2"},
	{"tar", "tar"},       {"zip", "zip"},
};

const char *archive_extension(const char *format)
{
	if (!format || !*format)
		return "tar.gz";
	for (size_t i = 0; i < sizeof(formats) / sizeof(*formats); i++)
		if (strcmp(formats[i].format, format) == 0)
			return formats[i].ext;
	return NULL;
}

static bool all_of(const char *s, const char *set, size_t min, size_t max)
{
	size_t n = strlen(s);
	return n >= min && n <= max && strspn(s, set) == n;
}

#define HEX "0123456789abcdef"
#define DIGITS "0123456789"

static bool is_sha(const char *s)
{
	return all_of(s, HEX, 40, 40);
}

static bool is_id(const char *s)
{
	return all_of(s, DIGITS, 1, 19);
}

/* The file name of an archive with this prefix: the prefix itself when it is a plain
 * name (the common case: project path, branch, sha), else its SHA-256, so that no
 * character of a ref name reaches a path or the X-Accel-Redirect URI. */
static const char *entry_name(ctx *c, const char *prefix)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" DIGITS
				    "._-";
	if (prefix[0] != '.' && all_of(prefix, plain, 1, 200))
		return prefix;
	return arena_printf(c->a, "h-%s", crypto_sha256_hex(c->a, prefix, strlen(prefix)));
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int archive_commit(ctx *c, const char *project_id, const char *commit_sha, const char *prefix,
		   const char *ext, const char **rel)
{
	if (!is_id(project_id) || !is_sha(commit_sha) || !*prefix) {
		log_error("archive: bad request for project %s, commit %s", project_id, commit_sha);
		return ERR_INTERNAL;
	}
	*rel = arena_printf(c->a, "cache/archives/%s/%s/%s.%s", project_id, commit_sha,
			    entry_name(c, prefix), ext);
	const char *path = arena_printf(c->a, "%s/%s", c->cfg->storage_path, *rel);
	if (exists(path))
		return 0;
	const char *git_dir = repo_path(c, project_id);
	if (!git_dir)
		return ERR_INTERNAL;
	/* git's own formats; tar.bz2 through bzip2, which git runs for that format name */
	char *argv[] = {
		"git",
		"-c",
		"tar.tar.bz2.command=bzip2 -c",
		arena_printf(c->a, "--git-dir=%s", git_dir),
		"archive",
		arena_printf(c->a, "--format=%s", ext),
		arena_printf(c->a, "--prefix=%s/", prefix),
		(char *)commit_sha,
		NULL,
	};
	char tmp[FILES_TMP_MAX];
	int fd = files_temp(path, tmp);
	if (fd < 0) {
		log_error("archive: cannot create %s: %s", path, strerror(errno));
		return ERR_INTERNAL;
	}
	if (repo_run(argv, fd) < 0) {
		files_abandon(fd, tmp);
		return ERR_INTERNAL;
	}
	if (files_commit(fd, tmp, path) < 0) {
		log_error("archive: cannot write %s: %s", path, strerror(errno));
		return ERR_INTERNAL;
	}
	return 0;
}

int archive_blob(ctx *c, const char *project_id, const char *blob_sha, const void *data, size_t n,
		 const char **rel)
{
	if (!is_id(project_id) || !is_sha(blob_sha)) {
		log_error("archive: bad blob request for project %s, blob %s", project_id,
			  blob_sha);
		return ERR_INTERNAL;
	}
	*rel = arena_printf(c->a, "cache/blobs/%s/%s", project_id, blob_sha);
	const char *path = arena_printf(c->a, "%s/%s", c->cfg->storage_path, *rel);
	if (exists(path))
		return 0;
	if (files_write(path, data, n) < 0) {
		log_error("archive: cannot write %s: %s", path, strerror(errno));
		return ERR_INTERNAL;
	}
	return 0;
}

int archive_blob_head(ctx *c, const char *project_id, const char *blob_sha, void *head, size_t size,
		      size_t *n, const char **rel)
{
	if (!is_id(project_id) || !is_sha(blob_sha))
		return ERR_NOT_FOUND;
	*rel = arena_printf(c->a, "cache/blobs/%s/%s", project_id, blob_sha);
	const char *path = arena_printf(c->a, "%s/%s", c->cfg->storage_path, *rel);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return ERR_NOT_FOUND;
		log_error("archive: cannot open %s: %s", path, strerror(errno));
		return ERR_INTERNAL;
	}
	ssize_t got;
	*n = 0;
	while (*n < size && (got = read(fd, (char *)head + *n, size - *n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			log_error("archive: cannot read %s: %s", path, strerror(errno));
			close(fd);
			return ERR_INTERNAL;
		}
		*n += (size_t)got;
	}
	close(fd);
	return 0;
}

int archive_remove(ctx *c, const char *project_id)
{
	if (!is_id(project_id))
		return ERR_INTERNAL;
	int rc = 0;
	/* artifacts: the files extracted from job artifacts (api/jobs.c) */
	static const char *const kinds[] = {"archives", "blobs", "artifacts"};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		if (repo_remove_dir(arena_printf(c->a, "%s/cache/%s/%s", c->cfg->storage_path,
						 kinds[i], project_id)) < 0)
			rc = ERR_INTERNAL;
	return rc;
}
