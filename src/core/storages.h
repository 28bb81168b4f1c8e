/* Repository storages (configuration key repository_storages, as GitLab 10.8's
 * `repositories.storages`): named directories, each holding repositories/@hashed/...
 * as storage_path does. Written "name:path" separated by commas, e.g.
 *   repository_storages = default:/srv/collabd, fast:/mnt/fast
 * Names are [a-z0-9_-] (1 to 64), unique; paths absolute; "default" must be one of
 * them (a project's storage when none was chosen, sql/0058). Absent or empty: one
 * storage "default" at storage_path, the layout before storages. Uploads, ci/, cache/,
 * hooks/ and tmp/ stay under storage_path. */
#ifndef COLLABD_STORAGES_H
#define COLLABD_STORAGES_H

#include <stdbool.h>

typedef struct repository_storage {
	char *name;
	char *path;
} repository_storage;

typedef struct repository_storages {
	repository_storage *items; /* malloc'd; always holds "default" once parsed */
	int n;
} repository_storages;

/* Parses list (the configuration's value; NULL or empty: "default" at storage_path)
 * into *out: 0, or -1 with a message on stderr naming what is wrong. */
int storages_parse(repository_storages *out, const char *list, const char *storage_path);
void storages_free(repository_storages *s);
/* The path of the storage called name, or NULL when the configuration has none. */
const char *storages_path(const repository_storages *s, const char *name);
/* Whether name is a well-formed storage name (it may still be unconfigured). */
bool storages_valid_name(const char *name);

#endif
