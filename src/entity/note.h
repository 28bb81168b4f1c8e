/* Presenter of a note (a comment on an issue, a snippet or a merge request; GitLab 10's
 * Entities::Note): id, body, attachment, author, created_at, updated_at, system,
 * noteable_id, noteable_type, noteable_iid. Commit comments have their own shape
 * (api/commits.c). */
#ifndef COLLABD_ENTITY_NOTE_H
#define COLLABD_ENTITY_NOTE_H

#include "entity/user.h"
#include "http/request.h"

/* The columns of notes n, its author by reference (USER_REF: an author's deleted
 * account leaves the note without one). */
#define NOTE_COLS                                                                              \
	NOTE_COLS_IID("(SELECT ni.iid FROM issues ni WHERE n.noteable_type = 'Issue'"          \
		      " AND ni.id = n.noteable_id)")
/* The same with the noteable's iid given (IID: an expression), for a statement whose
 * notes are all of one issue that it has read already. */
#define NOTE_COLS_IID(IID)                                                                     \
	"n.id, n.note, n.attachment, n.created_at, n.updated_at, n.system, "  \
	"n.noteable_id, n.noteable_type, " IID ", " USER_REF("n.author_id")
#define NOTE_NCOLS 14

/* The note whose NOTE_COLS start at col of row, written into w. */
void entity_note_write(jw *w, request *r, const PGresult *res, int row, int col);

#endif
