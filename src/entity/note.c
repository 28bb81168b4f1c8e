#include "entity/note.h"

#include "db/db.h"
#include "entity/user.h"
#include "core/deps.h"

/* The members that a note and a discussion's note share, body to noteable_type. */
static void write_note_fields(jw *w, ctx *c, const PGresult *res, int row, int col)
{
#define V(i) db_val(res, row, col + (i))
	jw_put_str(w, "body", V(1));
	jw_put_str(w, "attachment", V(2));
	jw_key(w, "author");
	entity_user_summary_write(w, c, res, row, col + 9);
	jw_put_time(w, "created_at", V(3));
	jw_put_time(w, "updated_at", V(4));
	jw_put_bool(w, "system", db_bool(res, row, col + 5));
	jw_put_int_or_null(w, "noteable_id", V(6));
	jw_put_str(w, "noteable_type", V(7));
#undef V
}

void entity_note_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c); /* notes have no key in the response cache */
#define V(i) db_val(res, row, col + (i))
	jw_begin_object(w);
	jw_put_int(w, "id", db_int(res, row, col));
	write_note_fields(w, c, res, row, col);
	jw_put_int_or_null(w, "noteable_iid", V(8));
	jw_end_object(w);
#undef V
}

void entity_discussion_note_write(jw *w, ctx *c, const PGresult *res, int row, int col)
{
	deps_none(c);
#define V(i) db_val(res, row, col + (i))
	jw_begin_object(w);
	jw_put_int(w, "id", db_int(res, row, col));
	jw_put_str(w, "type", V(DN_TYPE));
	write_note_fields(w, c, res, row, col);
	bool resolvable = db_bool(res, row, col + DN_RESOLVABLE);
	jw_put_bool(w, "resolvable", resolvable);
	if (resolvable) { /* 10.8 shows these of resolvable notes only */
		jw_put_bool(w, "resolved", !PQgetisnull(res, row, col + DN_RESOLVED_AT));
		jw_key(w, "resolved_by");
		entity_user_summary_write(w, c, res, row, col + DN_RESOLVED_BY);
	}
	jw_put_int_or_null(w, "noteable_iid", V(8));
	jw_end_object(w);
#undef V
}

void entity_discussion_write(jw *w, ctx *c, const PGresult *res, int first, int end, int col)
{
	jw_begin_object(w);
	jw_put_str(w, "id", db_val(res, first, col + DN_DISCUSSION));
	/* 10.8's Discussion.build: a note of no discussion type is one of its own */
	jw_put_bool(w, "individual_note", PQgetisnull(res, first, col + DN_TYPE));
	jw_key(w, "notes");
	jw_begin_array(w);
	for (int i = first; i < end; i++)
		entity_discussion_note_write(w, c, res, i, col);
	jw_end_array(w);
	jw_end_object(w);
}
