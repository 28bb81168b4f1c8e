#include "core/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

int files_write(const char *path, const void *data, size_t n)
{
	char dir[4096], tmp[4200];
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -1;
	if (mkdirs(dir) < 0)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	const char *p = data;
	size_t left = n;
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			unlink(tmp);
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
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
