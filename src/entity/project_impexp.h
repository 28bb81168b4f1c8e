/* Presenters of a project's import and export status (GitLab 10.8's
 * Entities::ProjectImportStatus and ProjectExportStatus: ProjectIdentity and the status). */
#ifndef COLLABD_ENTITY_PROJECT_IMPEXP_H
#define COLLABD_ENTITY_PROJECT_IMPEXP_H

#include <json-c/json.h>

#include "core/ctx.h"
#include "db/db.h"

/* ProjectIdentity of projects row P and its namespaces row N, then the status and the
 * import's error (NULL for an export). */
#define PROJECT_IDENTITY_COLS(P, N)                                                                \
	P ".id, " P ".description, " P ".name, " N ".full_name, " P ".path, " N ".full_path,"      \
	  " iso8601(" P ".created_at)"
enum {
	PIS_ID,
	PIS_DESCRIPTION,
	PIS_NAME,
	PIS_NS_FULL_NAME,
	PIS_PATH,
	PIS_NS_FULL_PATH,
	PIS_CREATED_AT,
	PIS_STATUS,
	PIS_ERROR,
	PIS_NCOLS
};

/* import_status, and import_error when there is one (10.8 shows it only then). */
json_object *entity_project_import_status(ctx *c, const PGresult *res, int row, int col);
/* export_status, and _links (api_url, web_url) when it is finished. */
json_object *entity_project_export_status(ctx *c, const PGresult *res, int row, int col);

#endif
