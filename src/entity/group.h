/* Presenters of groups (the list record and the details with projects) and of
 * namespaces (a user's own namespace or a group, GET /namespaces). */
#ifndef COLLABD_ENTITY_GROUP_H
#define COLLABD_ENTITY_GROUP_H

#include <stdbool.h>

#include "auth/access.h"
#include "core/ctx.h"
#include "core/jw.h"
#include "db/columns.h"
#include "db/db.h"

/* The statistics of group g (sums over the projects directly in it) as one JSON text
 * column, when the boolean SQL expression ask holds; NULL otherwise. */
#define GROUP_STATISTICS_COL(ask)                                                                  \
	"CASE WHEN " ask " THEN (SELECT json_build_object("                                        \
	"'storage_size', coalesce(sum(sp.storage_size), 0),"                                       \
	" 'repository_size', coalesce(sum(sp.repository_size), 0),"                                \
	" 'lfs_objects_size', coalesce(sum(sp.lfs_objects_size), 0),"                              \
	" 'job_artifacts_size', coalesce(sum(sp.job_artifacts_size), 0))::text"                    \
	" FROM projects sp WHERE sp.namespace_id = g.id AND NOT sp.pending_delete) END"

/* The group whose GROUP_COLS start at column col of row: id, name, path, description,
 * visibility, lfs_enabled, avatar_url, web_url, request_access_enabled, full_name,
 * full_path, parent_id; and statistics when stats_col >= 0 and that column (a
 * GROUP_STATISTICS_COL) is not NULL. */
json_object *entity_group(ctx *c, const PGresult *res, int row, int col, int stats_col);

/* The columns of a namespace, from namespaces n, in this order; the last one is the
 * members_count_with_descendants to show, or NULL (shown to those who administer the
 * group: the boolean SQL expression admin). */
#define NAMESPACE_COLS(admin)                                                                      \
	"n.id, n.name, n.path, n.kind, n.full_path, n.parent_id, CASE WHEN n.kind = 'group'"       \
	" AND " admin " THEN (SELECT count(DISTINCT m.user_id) FROM namespaces d"                  \
	" CROSS JOIN LATERAL (SELECT m.user_id FROM members m WHERE m.source_type = 'Namespace'"   \
	" AND m.source_id = d.id AND " SQL_MEMBER_ACTIVE(                                          \
		"m") " OFFSET 0) m"                                                                \
		     " WHERE d.traversal_ids @> ARRAY[n.id]) END"
#define NAMESPACE_NCOLS 7

/* The namespace whose NAMESPACE_COLS start at column col of row: id, name, path, kind,
 * full_path, parent_id, and members_count_with_descendants when given. */
json_object *entity_namespace(ctx *c, const PGresult *res, int row, int col);

#endif
