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

#include "core/config.h"

/* Parses cfg->repository_storages into cfg->storages: 0, or -1 with a message on
 * stderr naming what is wrong. */
int storages_parse(config *cfg);
void storages_free(config *cfg);
/* The path of the storage called name, or NULL when the configuration has none. */
const char *storages_path(const config *cfg, const char *name);
/* Whether name is a well-formed storage name (it may still be unconfigured). */
bool storages_valid_name(const char *name);

#endif
