/* tar.gz archives of a directory tree (project import/export archives), read and written
 * with libarchive. Reading trusts nothing in the archive: it is an upload. */
#ifndef COLLABD_TARGZ_H
#define COLLABD_TARGZ_H

#include "core/arena.h"

/* The most entries an archive may hold (an inode bomb stops there). */
#define TARGZ_MAX_ENTRIES 200000

/* Extracts the tar.gz at path into dir (an existing, empty, private directory): only
 * regular files and directories, written 0644 and 0755 whatever the archive says (dir
 * itself keeps them private; uploads are moved from there to where nginx reads them). An
 * entry whose name is absolute or has a ".." component, a symbolic or hard link, a
 * device or a FIFO refuses the whole archive; so does an archive whose files expand
 * past max_total bytes in all (a tar bomb: counted as the bytes are written, whatever
 * the headers claim) or that holds more than TARGZ_MAX_ENTRIES entries. Nothing is
 * written outside dir (files are created with O_EXCL|O_NOFOLLOW, under directories the
 * extraction made). 0, or -1 with *why (in a) a reason that names the entry; what was
 * written stays for the caller to remove with dir. */
int targz_extract(arena *a, const char *path, const char *dir, long long max_total,
		  const char **why);

/* Writes the regular files and directories under dir, named relative to it ("VERSION",
 * "uploads/<secret>/<name>"), as a gzip-compressed tar (pax) at path. 0, or -1 with *why
 * (in a). */
int targz_create(arena *a, const char *dir, const char *path, const char **why);

#endif
