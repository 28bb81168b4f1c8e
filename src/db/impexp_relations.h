/* The relations of a GitLab 10.8 project export (lib/gitlab/import_export/
 * import_export.yml's project_tree below the project itself): labels, milestones,
 * issues, merge requests, snippets, protected branches and tags, triggers, pipeline
 * schedules, pipelines and project badges, each imported and exported by one pair of
 * functions that db/impexp_relations.def lists (REL lines) for the frame of
 * db/impexp.h, which declares them.
 *
 * An import function takes ONE element of its top-level array of project.json, with
 * what is nested in it (an issue's notes, award emoji, label links, milestone,
 * assignees), and writes it into st->project_id in the import's transaction: iids,
 * created_at and updated_at keep their exported values (the frame sets the iid
 * counters past them), authors go through impexp_user(). A note whose author is not matched gets
 * GitLab's "*By NAME on DATE (imported from GitLab project)*" line. A record that cannot
 * be taken (a required field missing, a value out of its range, a label link without
 * its label) answers -1 with *why: the whole import fails.
 *
 * An export function writes the project's records of its relation, each as 10.8 writes
 * it, with impexp_emit(), reading them a page at a time. */
#ifndef COLLABD_DB_IMPEXP_RELATIONS_H
#define COLLABD_DB_IMPEXP_RELATIONS_H

#include "db/db.h"

extern const db_stmt db_impexp_relations_stmts[];

#endif
