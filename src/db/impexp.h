/* Project import and export in GitLab 10's format (lib/gitlab/import_export): the frame
 * that the relations of project.json plug into. An archive is a tar.gz of VERSION,
 * project.json, project.bundle, project.wiki.bundle and uploads/; project.json is one
 * object whose keys are the project's attributes (scalars), project_feature (an object)
 * and one array per relation (db/impexp_relations.def, in 10.8's order of the keys).
 *
 * Import: the background job (PROJECT_IMPORT) reads project.json twice with the
 * bounded-memory reader (core/json_stream.h) and hands each element of a relation's
 * array to its import function, in the one transaction of the whole import: pass 1 the
 * relations that others refer to (project_members, which makes the user map; labels;
 * milestones), pass 2 the rest. A relation's function that fails (returns < 0 with a
 * reason in *why) fails the import: everything is rolled back, the repository, wiki and
 * uploads removed, the project's import_status "failed" with import_error the reason.
 *
 * Export: the background job (PROJECT_EXPORT) writes the attributes, project_feature and
 * project_members, then calls each relation's export function in order, which emits its
 * records one by one (impexp_emit) into the array of its key.
 *
 * A relation lives in db/impexp_<key>.c (statements in its own db_impexp_<key>_stmts[],
 * registered in src/modules.c), declares its two functions here (below) and its line in
 * db/impexp_relations.def. Relations run SQL only through their statements, in the
 * caller's transaction: they never begin, commit or roll back. */
#ifndef COLLABD_IMPEXP_H
#define COLLABD_IMPEXP_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "db/db.h"

/* The format this collabd writes (GitLab 10.6-10.8), and the oldest it reads: GitLab
 * 10.0 wrote 0.1.8; every 0.1.8 to 0.2.3 tree is read alike (the changes between them
 * are relations added, and a reader ignores the keys it does not know). */
#define IMPEXP_VERSION "0.2.3"
#define IMPEXP_VERSION_MIN "0.1.8"

/* The exported users met so far (impexp_user), and the exported ids of records other
 * relations refer to (impexp_map_put/get). Opaque. */
struct impexp_map;
/* An empty map in arena a (the frame makes st->users and st->ids). */
struct impexp_map *impexp_map_new(arena *a);

struct impexp_import {
	long project_id;          /* the project made by POST /projects/import */
	long importer_id;         /* who imported it: the author of whatever maps to no user */
	long namespace_id;        /* its namespace */
	const char *ns_path;      /* its namespace's full path ("group/sub") */
	const char *path;         /* the project's path */
	const char *dir;          /* the archive, extracted: a private directory (absolute) */
	int pass;                 /* 1 or 2: which reading of project.json this is */
	arena *a;                 /* lives as long as the import: what must outlast an element */
	struct impexp_map *users; /* exported user id -> collabd user id */
	struct impexp_map *ids;   /* (relation, exported id) -> collabd id */
};

/* The collabd user of an exported user id, as GitLab's MembersMapper: the user whose
 * email is that of project_members' element of that user id (matched without regard to
 * case); *matched false and the importer's id when none matches (or the id was never
 * among project_members: the member list is read in pass 1, so in pass 2 every id is
 * known). matched may be NULL. */
long impexp_user(struct impexp_import *st, long exported_user_id, bool *matched);

/* The collabd id that a relation recorded for the exported id of its record (rel: the
 * relation's key, e.g. "milestones"), or 0 when none. impexp_map_put records it; 0 or
 * ERR_INTERNAL. Pass-1 relations record what pass-2 ones look up. */
int impexp_map_put(struct impexp_import *st, const char *rel, long exported_id, long id);
long impexp_map_get(struct impexp_import *st, const char *rel, long exported_id);

/* What GitLab 10 writes into the text of a record whose author maps to no user (the
 * importer stands in): text followed by "\n\n *By <author name> on <created_at>
 * (imported from GitLab project)*" (its note_with_author); text unchanged when the
 * author matched. In c's arena. */
const char *impexp_by_author(ctx *c, const char *text, const char *author_name,
			     const char *created_at, bool matched);

/* Typed members of an element: the string, NULL when absent, null or not a string;
 * the integer in *out (true), false when absent or not an integer; the boolean
 * (def when absent or not a boolean). */
const char *impexp_str(json_object *rec, const char *key);
bool impexp_int(json_object *rec, const char *key, long long *out);
bool impexp_bool(json_object *rec, const char *key, bool def);
/* The member key of rec when it is an array (an element's nested notes, label_links),
 * else NULL. */
json_object *impexp_array(json_object *rec, const char *key);

/* The export being written: project.json under dir, its current top-level array. */
struct impexp_export {
	long project_id;
	const char *dir; /* the tree of the archive being made (absolute) */
	FILE *json;      /* project.json, open for writing */
	const char *key; /* the array being written */
	long count;      /* its elements so far */
	arena *a;        /* lives as long as the export */
	int err;         /* the first write error (errno), 0 while none */
};

/* Writes rec as the next element of the current top-level array of project.json and
 * frees it (json_object_put, whatever happens): the records of a relation never are all
 * in memory. 0, or -1 when the file cannot be written (st->err set; the export fails).
 * An export function reads its rows a page at a time (keyset by id) for the same
 * reason. */
int impexp_emit(struct impexp_export *st, json_object *rec);

/* A relation's functions (db/impexp_relations.def: REL(key, pass, import_fn,
 * export_fn)):
 *
 *   int import_fn(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
 *     takes ONE element of the top-level array key (an issue with its nested notes,
 *     label_links, events, ...; borrowed: do not free it) and writes its rows in c's
 *     open transaction, called in pass `pass` only. Ids of the archive are never kept:
 *     rows get new ids; iid, created_at, updated_at and authorship (impexp_user) keep
 *     the exported values. c->a is a scratch arena reset after each element: keep in
 *     st->a (or the maps) what must last. 0, or < 0 with *why a reason that names the
 *     record (e.g. "issue 7: milestone 12 does not exist"), which fails the import.
 *     Iid counters: relations insert the exported iid and do not touch iid_counters;
 *     the frame sets the counters of issues, merge_requests and milestones of the
 *     project past max(iid) once pass 2 is done.
 *
 *   int export_fn(ctx *c, struct impexp_export *st, const char **why)
 *     emits, with impexp_emit, every record of key of project st->project_id in the
 *     shape GitLab 10.8 writes (nested relations inside their parent, users by their
 *     id as project_members presents them: id, email, username). The frame opens the
 *     array before and closes it after. 0, or < 0 with *why (the export fails). */
#define REL(key, pass, import_fn, export_fn)                                                       \
	int import_fn(ctx *c, struct impexp_import *st, json_object *rec, const char **why);       \
	int export_fn(ctx *c, struct impexp_export *st, const char **why);
#include "db/impexp_relations.def"
#undef REL

/* The relations in the order of db/impexp_relations.def. */
typedef struct {
	const char *key;
	int pass;
	int (*import_fn)(ctx *c, struct impexp_import *st, json_object *rec, const char **why);
	int (*export_fn)(ctx *c, struct impexp_export *st, const char **why);
} impexp_relation;
extern const impexp_relation impexp_relations[];
extern const int impexp_nrelations;

extern const db_stmt db_impexp_stmts[];

#endif
