/* Presenter of a note (a comment on an issue, a snippet or a merge request; GitLab 10's
 * Entities::Note): id, body, attachment, author, created_at, updated_at, system,
 * noteable_id, noteable_type, noteable_iid. Commit comments have their own shape
 * (api/commits.c). */
#ifndef COLLABD_ENTITY_NOTE_H
#define COLLABD_ENTITY_NOTE_H

#include "entity/user.h"
#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The columns of notes n, its author by reference (USER_REF: an author's deleted
 * account leaves the note without one). noteable_iid: an issue's or a merge request's
 * iid, NULL for a snippet (GitLab 10's NOTEABLE_TYPES_WITH_IID). */
#define NOTE_COLS                                                                                  \
	NOTE_COLS_IID("CASE n.noteable_type WHEN 'Issue' THEN (SELECT ni.iid FROM issues ni"       \
		      " WHERE ni.id = n.noteable_id) WHEN 'MergeRequest' THEN (SELECT mi.iid"      \
		      " FROM merge_requests mi WHERE mi.id = n.noteable_id) END")
/* The same with the noteable's iid given (IID: an expression), for a statement whose
 * notes are all of one issue that it has read already. */
#define NOTE_COLS_IID(IID)                                                                         \
	"n.id, n.note, n.attachment, n.created_at, n.updated_at, n.system, "                       \
	"n.noteable_id, n.noteable_type, " IID ", " USER_REF("n.author_id")
#define NOTE_NCOLS 14

/* The note whose NOTE_COLS start at col of row, written into w. */
void entity_note_write(jw *w, ctx *c, const PGresult *res, int row, int col);

/* A note as the discussions API shows it (GitLab 10.8's Entities::Note): NOTE_COLS, then
 * its type (NULL: an individual note), its discussion, whether it is resolvable (a
 * discussion's note on a merge request, as 10.8's DiscussionNote::RESOLVABLE_TYPES),
 * when it was resolved and by whom. */
#define DISCUSSION_NOTE_COLS                                                                       \
	NOTE_COLS ", n.type, n.discussion_id, (n.type IS NOT NULL AND NOT n.system"                \
		  " AND n.noteable_type = 'MergeRequest'), n.resolved_at, " USER_REF(              \
			  "n.resolved_by_id")
enum {
	DN_TYPE = NOTE_NCOLS,
	DN_DISCUSSION,
	DN_RESOLVABLE,
	DN_RESOLVED_AT,
	DN_RESOLVED_BY,
	DISCUSSION_NOTE_NCOLS = DN_RESOLVED_BY + 5 /* USER_REF */
};

/* The note whose DISCUSSION_NOTE_COLS start at col of row, written into w. */
void entity_discussion_note_write(jw *w, ctx *c, const PGresult *res, int row, int col);
/* The discussion whose notes are rows first..end-1 (DISCUSSION_NOTE_COLS at col, in
 * their order), written into w: GitLab 10.8's Entities::Discussion, {id,
 * individual_note, notes}. */
void entity_discussion_write(jw *w, ctx *c, const PGresult *res, int first, int end, int col);

#endif
