#include "core/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <unistd.h>

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int rc = mkdir(path, 0755);
		*p = '/';
		if (rc < 0 && errno != EEXIST)
			return -1;
	}
	return 0;
}

int files_dirs(const char *path)
{
	char dir[4096];
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdirs(dir);
}

int files_temp(const char *path, char tmp[FILES_TMP_MAX])
{
	char dir[4096];
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdirs(dir) < 0)
		return -1;
	snprintf(tmp, FILES_TMP_MAX, "%s.tmp.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* what open(2) with 0644 would give under the process's umask (nginx reads these
	 * files): mkostemp makes them 0600 */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0644 & ~mask) < 0) {
		files_abandon(fd, tmp);
		return -1;
	}
	return fd;
}

int files_commit(int fd, const char *tmp, const char *path)
{
	if (fsync(fd) < 0) {
		files_abandon(fd, tmp);
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

void files_abandon(int fd, const char *tmp)
{
	int e = errno;
	close(fd);
	unlink(tmp);
	errno = e;
}

int files_write(const char *path, const void *data, size_t n)
{
	char tmp[FILES_TMP_MAX];
	int fd = files_temp(path, tmp);
	if (fd < 0)
		return -1;
	const char *p = data;
	size_t left = n;
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			files_abandon(fd, tmp);
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	return files_commit(fd, tmp, path);
}

const char *files_image_type(const void *data, size_t n)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *ext;
	} types[] = {
		{"\x89PNG\r\n\x1a\n", 8, "png"},
		{"\xff\xd8\xff", 3, "jpg"},
		{"GIF87a", 6, "gif"},
		{"GIF89a", 6, "gif"},
		{"BM", 2, "bmp"},
		{"II*\0", 4, "tiff"},
		{"MM\0*", 4, "tiff"},
		{"\0\0\1\0", 4, "ico"},
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(*types); i++)
		if (n >= types[i].len && memcmp(data, types[i].magic, types[i].len) == 0)
			return types[i].ext;
	return NULL;
}
