#include "core/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <unistd.h>

#include "core/validate.h"

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

/* Whether code point u (beyond ASCII) counts as a letter of a file name: not the
 * Latin-1 symbols, the general punctuation and formatting block (bidirectional
 * overrides, zero-width spaces), arrows, symbols and CJK punctuation, variation
 * selectors, the byte order mark, the specials, private use, nor beyond the Basic
 * Multilingual Plane (emoji; a few rare letters too). */
static bool name_letter(unsigned long u)
{
	return !(u < 0xC0 || u == 0xD7 || u == 0xF7 || (u >= 0x2000 && u <= 0x2BFF) ||
		 (u >= 0x3000 && u <= 0x303F) || (u >= 0xE000 && u <= 0xF8FF) ||
		 (u >= 0xFE00 && u <= 0xFE0F) || u == 0xFEFF || u >= 0xFFF0);
}

char *files_sanitize_name(arena *a, const char *name)
{
	size_t n = strlen(name);
	if (!valid_utf8(name, n))
		return NULL;
	/* the last component: after the last separator that is followed by something */
	const char *start = name, *end = name + n;
	while (end > name && (end[-1] == '/' || end[-1] == '\\'))
		end--;
	for (const char *p = name; p < end; p++)
		if (*p == '/' || *p == '\\')
			start = p + 1;
	char *out = arena_alloc(a, (size_t)(end - start) + 8);
	size_t len = 0;
	for (const unsigned char *p = (const unsigned char *)start; p < (const unsigned char *)end;) {
		if (*p < 0x80) {
			bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				    (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
				    *p == '-' || *p == '+';
			out[len++] = keep ? (char)*p : '_';
			p++;
			continue;
		}
		/* one UTF-8 sequence (valid: checked above) */
		size_t k = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : 2;
		unsigned long u = *p & (k == 4 ? 0x07 : k == 3 ? 0x0F : 0x1F);
		for (size_t i = 1; i < k; i++)
			u = u << 6 | (p[i] & 0x3F);
		if (name_letter(u)) {
			memcpy(out + len, p, k);
			len += k;
		} else {
			out[len++] = '_';
		}
		p += k;
	}
	out[len] = '\0';
	if (len == 0)
		return arena_strdup(a, "unnamed");
	if (strspn(out, ".") == len) {
		char *prefixed = arena_printf(a, "_%s", out);
		return len + 1 > FILES_NAME_MAX ? NULL : prefixed;
	}
	return len > FILES_NAME_MAX ? NULL : out;
}
