/* Files under the storage path, written atomically: into a temporary file beside the
 * target (a unique name, O_EXCL: no two writers share one, on one host or on several
 * sharing the storage), then rename(2), so that a reader (collabd, nginx) sees either
 * no file or the whole of it, never a partial one. */
#ifndef COLLABD_FILES_H
#define COLLABD_FILES_H

#include <stddef.h>

#include "core/arena.h"

/* Creates the directories of path (like mkdir -p, mode 0755) and writes data to it
 * through a temporary file and rename(2). 0 or -1 (errno set). */
int files_write(const char *path, const void *data, size_t n);
/* Creates the directories of path (like mkdir -p, mode 0755), for a file written in
 * place (a job's trace, appended). 0 or -1 (errno set). */
int files_dirs(const char *path);
/* The first half of such a write: creates the directories of path and a new temporary
 * file beside it (mode 0644 less the umask), whose name is written to tmp (at least FILES_TMP_MAX
 * bytes). The open descriptor (O_CLOEXEC), or -1 (errno set). */
#define FILES_TMP_MAX 4200
int files_temp(const char *path, char tmp[FILES_TMP_MAX]);
/* The second half: fsync and close fd, then rename tmp to path. On failure (-1) tmp is
 * removed; fd is closed in either case. */
int files_commit(int fd, const char *tmp, const char *path);
/* Closes fd and removes tmp: a write given up. */
void files_abandon(int fd, const char *tmp);
/* The image type of data from its first bytes, as a file extension: "png", "jpg",
 * "gif", "bmp", "tiff" or "ico"; NULL for anything else. */
const char *files_image_type(const void *data, size_t n);
/* The name an uploaded file is stored and served under, as GitLab 10 (CarrierWave's
 * sanitize) makes it of the name a client sent: its last path component ('\\' is a
 * separator too), every character but letters, digits, '_', '.', '-' and '+' replaced
 * by '_', a name of dots alone prefixed with '_', "unnamed" for an empty one. Letters
 * beyond ASCII are kept (UTF-8), but for spaces, punctuation, symbols, formatting
 * (bidirectional overrides), private-use characters and those beyond the Basic
 * Multilingual Plane (emoji), replaced as ASCII punctuation is. NULL when
 * name is not UTF-8 or the result is longer than FILES_NAME_MAX bytes. In a. */
#define FILES_NAME_MAX 255
char *files_sanitize_name(arena *a, const char *name);

#endif
