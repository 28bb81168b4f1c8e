/* The relations of a GitLab 10.8 project export (lib/gitlab/import_export/
 * import_export.yml's project_tree below the project itself): labels, milestones,
 * issues, merge requests, snippets, protected branches and tags, triggers, pipeline
 * schedules, pipelines and project badges, each imported and exported by one pair of
 * functions that db/impexp_relations.def lists (REL lines) for the framework of
 * db/impexp.h.
 *
 * An import function takes ONE element of its top-level array of project.json, with
 * what is nested in it (an issue's notes, award emoji, label links, milestone,
 * assignees), and writes it into st->project_id in the import's transaction: iids,
 * created_at and updated_at keep their exported values, the project's iid counters
 * (iid_counters: issues, merge_requests, milestones) end at least at the highest iid
 * imported, authors go through impexp_user(). A note whose author is not matched gets
 * GitLab's "*By NAME on DATE (imported from GitLab project)*" line. A record that cannot
 * be taken (a required field missing, a value out of its range, a label link without
 * its label) answers -1 with *why: the whole import fails.
 *
 * An export function writes the project's records of its relation, each as 10.8 writes
 * it, with impexp_emit(), reading them a page at a time. */
#ifndef COLLABD_DB_IMPEXP_RELATIONS_H
#define COLLABD_DB_IMPEXP_RELATIONS_H

#include <json-c/json.h>

#include "db/db.h"

struct impexp_import;
struct impexp_export;

extern const db_stmt db_impexp_relations_stmts[];

#define REL_DECLARE(name)                                                                          \
	int impexp_##name##_import(ctx *c, struct impexp_import *st, json_object *rec,             \
				   const char **why);                                              \
	int impexp_##name##_export(ctx *c, struct impexp_export *st, const char **why);
REL_DECLARE(labels)
REL_DECLARE(milestones)
REL_DECLARE(issues)
REL_DECLARE(merge_requests)
REL_DECLARE(snippets)
REL_DECLARE(protected_branches)
REL_DECLARE(protected_tags)
REL_DECLARE(triggers)
REL_DECLARE(pipeline_schedules)
REL_DECLARE(pipelines)
REL_DECLARE(project_badges)
#undef REL_DECLARE

#endif
