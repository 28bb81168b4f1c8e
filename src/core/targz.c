#include "core/targz.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory of name's components [0, n) under root, made where missing (0700) and
 * never followed through a link: an fd, or -1 with errno. */
static int open_dirs(int root, char **comp, int n)
{
	int fd = dup(root);
	for (int i = 0; i < n && fd >= 0; i++) {
		int next = openat(fd, comp[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mkdirat(fd, comp[i], 0755) == 0)
			next = openat(fd, comp[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int saved = errno;
		close(fd);
		errno = saved;
		fd = next;
	}
	return fd;
}

/* The components of name in *comp (in a; "" and "." left out): their number, or -1 for
 * an absolute name or one with a ".." component. */
static int split_name(arena *a, const char *name, char ***comp)
{
	if (name[0] == '/')
		return -1;
	char *copy = arena_strdup(a, name);
	int cap = 1;
	for (const char *p = name; *p; p++)
		cap += *p == '/';
	char **out = arena_alloc(a, (size_t)cap * sizeof(*out));
	int n = 0;
	for (char *save = NULL, *t = strtok_r(copy, "/", &save); t;
	     t = strtok_r(NULL, "/", &save)) {
		if (strcmp(t, ".") == 0)
			continue;
		if (strcmp(t, "..") == 0)
			return -1;
		out[n++] = t;
	}
	*comp = out;
	return n;
}

static const char *kind_of(mode_t type)
{
	switch (type) {
	case AE_IFLNK:
		return "a symbolic link";
	case AE_IFCHR:
	case AE_IFBLK:
		return "a device";
	case AE_IFIFO:
		return "a FIFO";
	case AE_IFSOCK:
		return "a socket";
	default:
		return "not a regular file or directory";
	}
}

int targz_extract(arena *a, const char *path, const char *dir, long long max_total,
		  const char **why)
{
	struct archive *ar = archive_read_new();
	int root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rc = -1;
	*why = NULL;
	if (!ar || root < 0) {
		*why = "the archive cannot be read";
		goto cleanup;
	}
	archive_read_support_filter_gzip(ar);
	archive_read_support_format_gnutar(ar);
	archive_read_support_format_tar(ar);
	if (archive_read_open_filename(ar, path, 65536) != ARCHIVE_OK) {
		*why = arena_printf(a, "the file is not a tar.gz archive (%s)",
				    archive_error_string(ar) ? archive_error_string(ar)
							     : "unreadable");
		goto cleanup;
	}
	long long total = 0;
	long entries = 0;
	struct archive_entry *e;
	int r;
	static char block[65536];
	while ((r = archive_read_next_header(ar, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		if (!name) {
			*why = "the archive has an entry without a name";
			goto cleanup;
		}
		if (++entries > TARGZ_MAX_ENTRIES) {
			*why = arena_printf(a, "the archive has more than %d entries",
					    TARGZ_MAX_ENTRIES);
			goto cleanup;
		}
		char **comp;
		int n = split_name(a, name, &comp);
		if (n < 0) {
			*why = arena_printf(
				a, "the archive's entry %.200s is outside its directory", name);
			goto cleanup;
		}
		if (archive_entry_hardlink(e)) {
			*why = arena_printf(a, "the archive's entry %.200s is a hard link", name);
			goto cleanup;
		}
		mode_t type = archive_entry_filetype(e);
		if (type != AE_IFREG && type != AE_IFDIR) {
			*why = arena_printf(a, "the archive's entry %.200s is %s", name,
					    kind_of(type));
			goto cleanup;
		}
		if (type == AE_IFDIR || n == 0) {
			int fd = open_dirs(root, comp, n);
			if (fd < 0) {
				*why = arena_printf(
					a, "the archive's directory %.200s cannot be made: %s",
					name, strerror(errno));
				goto cleanup;
			}
			close(fd);
			continue;
		}
		int parent = open_dirs(root, comp, n - 1);
		int fd = parent < 0 ? -1
				    : openat(parent, comp[n - 1],
					     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					     0644);
		int saved = errno;
		if (parent >= 0)
			close(parent);
		if (fd < 0) {
			*why = saved == EEXIST
				       ? arena_printf(a, "the archive's entry %.200s appears twice",
						      name)
				       : arena_printf(
						 a,
						 "the archive's file %.200s cannot be written: %s",
						 name, strerror(saved));
			goto cleanup;
		}
		ssize_t got;
		while ((got = archive_read_data(ar, block, sizeof(block))) > 0) {
			total += got;
			if (max_total > 0 && total > max_total) {
				close(fd);
				*why = arena_printf(a, "the archive's files expand past %lld bytes",
						    max_total);
				goto cleanup;
			}
			for (ssize_t off = 0; off < got;) {
				ssize_t w = write(fd, block + off, (size_t)(got - off));
				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0) {
					close(fd);
					*why = arena_printf(a,
							    "the archive's file %.200s cannot be "
							    "written: %s",
							    name, strerror(errno));
					goto cleanup;
				}
				off += w;
			}
		}
		close(fd);
		if (got < 0) {
			*why = arena_printf(a, "the archive is damaged at %.200s (%s)", name,
					    archive_error_string(ar) ? archive_error_string(ar)
								     : "");
			goto cleanup;
		}
	}
	if (r != ARCHIVE_EOF) {
		*why = arena_printf(a, "the archive is damaged (%s)",
				    archive_error_string(ar) ? archive_error_string(ar) : "");
		goto cleanup;
	}
	rc = 0;
cleanup:
	if (root >= 0)
		close(root);
	if (ar)
		archive_read_free(ar);
	return rc;
}

/* Adds the tree under abs (named rel in the archive; "" for the top) to ar. */
static int add_tree(arena *a, struct archive *ar, const char *abs, const char *rel,
		    const char **why)
{
	DIR *d = opendir(abs);
	if (!d) {
		*why = arena_printf(a, "%s cannot be read: %s", abs, strerror(errno));
		return -1;
	}
	int rc = 0;
	struct dirent *de;
	static char block[65536];
	while (rc == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		const char *p = arena_printf(a, "%s/%s", abs, de->d_name);
		const char *name = *rel ? arena_printf(a, "%s/%s", rel, de->d_name) : de->d_name;
		struct stat st;
		if (lstat(p, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			continue;
		struct archive_entry *e = archive_entry_new();
		archive_entry_set_pathname(e, name);
		archive_entry_set_mtime(e, st.st_mtime, 0);
		if (S_ISDIR(st.st_mode)) {
			archive_entry_set_filetype(e, AE_IFDIR);
			archive_entry_set_perm(e, 0755);
		} else {
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_perm(e, 0644);
			archive_entry_set_size(e, st.st_size);
		}
		if (archive_write_header(ar, e) != ARCHIVE_OK) {
			*why = arena_printf(a, "the archive cannot be written: %s",
					    archive_error_string(ar));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = add_tree(a, ar, p, name, why);
		} else {
			int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			ssize_t got = fd < 0 ? -1 : 0;
			while (fd >= 0 && (got = read(fd, block, sizeof(block))) > 0)
				if (archive_write_data(ar, block, (size_t)got) != got) {
					got = -1;
					break;
				}
			if (fd >= 0)
				close(fd);
			if (got < 0) {
				*why = arena_printf(a, "%s cannot be archived", p);
				rc = -1;
			}
		}
		archive_entry_free(e);
	}
	closedir(d);
	return rc;
}

int targz_create(arena *a, const char *dir, const char *path, const char **why)
{
	struct archive *ar = archive_write_new();
	if (!ar) {
		*why = "out of memory";
		return -1;
	}
	archive_write_add_filter_gzip(ar);
	archive_write_set_format_pax_restricted(ar);
	int rc = -1;
	if (archive_write_open_filename(ar, path) != ARCHIVE_OK)
		*why = arena_printf(a, "%s cannot be written: %s", path, archive_error_string(ar));
	else if (add_tree(a, ar, dir, "", why) == 0)
		rc = 0;
	if (archive_write_close(ar) != ARCHIVE_OK && rc == 0) {
		*why = arena_printf(a, "%s cannot be written: %s", path, archive_error_string(ar));
		rc = -1;
	}
	archive_write_free(ar);
	return rc;
}
