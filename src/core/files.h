/* Files under the storage path: uploads written atomically. */
#ifndef COLLABD_FILES_H
#define COLLABD_FILES_H

#include <stddef.h>

/* Creates the directories of path (like mkdir -p, mode 0755) and writes data to it
 * through a temporary file and rename(2). 0 or -1 (errno set). */
int files_write(const char *path, const void *data, size_t n);
/* The image type of data from its first bytes, as a file extension: "png", "jpg",
 * "gif", "bmp", "tiff" or "ico"; NULL for anything else. */
const char *files_image_type(const void *data, size_t n);

#endif
