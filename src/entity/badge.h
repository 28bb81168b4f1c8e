/* Presenters of a badge (GitLab 10.8's Entities::Badge and BasicBadgeDetails). */
#ifndef COLLABD_ENTITY_BADGE_H
#define COLLABD_ENTITY_BADGE_H

#include <json-c/json.h>

#include "core/ctx.h"
#include "db/db.h"

/* The URL u with the placeholders of a badge filled from the project whose full path,
 * id, default branch and default branch's head are the text parameters PATH, ID, BRANCH
 * and SHA; u itself when PATH is NULL (no project). As GitLab's gsub, one pass: the
 * default branch, the one value that may hold "%{", goes in last, and a placeholder
 * with no value becomes empty. */
#define SQL_BADGE_RENDER(U, PATH, ID, BRANCH, SHA)                                                 \
	"CASE WHEN " PATH "::text IS NULL THEN " U " ELSE replace(replace(replace(replace(" U      \
	", '%{commit_sha}', coalesce(" SHA "::text, '')), '%{project_id}', " ID "::text),"         \
	" '%{project_path}', " PATH "::text), '%{default_branch}', coalesce(" BRANCH               \
	"::text, ''))"                                                                             \
	" END"
/* The columns of BasicBadgeDetails for the URLs L and I (badges row or parameters). */
#define BADGE_DETAILS_COLS(L, I, PATH, ID, BRANCH, SHA)                                            \
	L ", " I ", " SQL_BADGE_RENDER(L, PATH, ID, BRANCH,                                        \
				       SHA) ", " SQL_BADGE_RENDER(I, PATH, ID, BRANCH, SHA)
#define BADGE_DETAILS_NCOLS 4
/* A badges row B: its details, id and whether it is the project's own (kind). */
#define BADGE_COLS(B, PATH, ID, BRANCH, SHA)                                                       \
	BADGE_DETAILS_COLS(B ".link_url", B ".image_url", PATH, ID, BRANCH, SHA)                   \
	", " B ".id, " B ".project_id IS NOT NULL"
#define BADGE_NCOLS (BADGE_DETAILS_NCOLS + 2)

json_object *entity_badge_details(ctx *c, const PGresult *res, int row, int col);
json_object *entity_badge(ctx *c, const PGresult *res, int row, int col);

#endif
