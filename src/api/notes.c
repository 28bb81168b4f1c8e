/* Notes (4.9): the comments on issues, project snippets and merge requests, five routes
 * for each (list, show, create, edit, delete), and the noteables they hang on, which
 * award_emoji.c shares (api.h).
 *
 * As GitLab 10: every route needs a signed-in caller who can read the noteable (a
 * confidential issue: reporters and up, its author and assignees; a snippet by its
 * visibility); a noteable or note that is not there, or not to be read, is GitLab's
 * RecordNotFound, 404 "404 Not found". Anyone who can read may comment, but only members
 * on a locked discussion; the note's author, masters and up and admins edit and delete.
 * A note that is only an emoji (":thumbsup:") awards it instead, when the caller may.
 * A comment records the event "commented on" with the note in it; the event follows
 * the note's edits and goes with it. A comment only adds rows under the project: its
 * route locks the project FOR KEY SHARE (api.h PA), so that comments do not wait for
 * each other (each waits only for a comment on the same noteable, whose row it
 * touches) while edits, deletions and the changes of an issue (FOR UPDATE) still wait
 * for them and they for those. Issues, project snippets and merge requests are the
 * noteables (noteable_kind). */
#include <string.h>

#include "api/api.h"
#include "core/emoji.h"
#include "core/validate.h"
#include "entity/note.h"
#include "http/pagination.h"

/* GitLab's Note: validates :note, length: { maximum: 1_000_000 } */
#define NOTE_BODY_MAX 1000000

/* The noteable's updated_at follows its notes (GitLab's belongs_to :noteable, touch:
 * true): $T its type, $I its id. An issue's new comment is the exception: the trigger
 * that counts it touches the issue in the same update (sql/0023), so SQL_TOUCH_NEW
 * leaves issues out. */
#define SQL_TOUCH_NEW(T, I)                                                                        \
	" ts AS (UPDATE snippets SET updated_at = now() WHERE " T " = 'Snippet'"                   \
	" AND id = " I " RETURNING 1), tm AS (UPDATE merge_requests SET updated_at = now()"        \
	" WHERE " T " = 'MergeRequest' AND id = " I " RETURNING 1)"
#define SQL_TOUCH(T, I)                                                                            \
	" ti AS (UPDATE issues SET updated_at = now() WHERE " T " = 'Issue' AND id = " I           \
	" RETURNING 1)," SQL_TOUCH_NEW(T, I)

/* Issue $2 of project $1 as a noteable: id, iid, author, confidential, locked, issues
 * enabled, and if it is confidential the ids of its assignees, who may read it too
 * (NOTEABLE_NCOLS). Nothing of the caller: the list's statement goes with the project's
 * (notes_check_list_issue). */
#define SQL_NOTEABLE_ISSUE                                                                         \
	"SELECT i.id, i.iid, i.author_id, i.confidential, coalesce(i.discussion_locked, false),"   \
	" p.issues_enabled, CASE WHEN i.confidential THEN ARRAY(SELECT a.user_id"                  \
	" FROM issue_assignees a WHERE a.issue_id = i.id) END"                                     \
	" FROM issues i JOIN projects p ON p.id = i.project_id"                                    \
	" WHERE i.project_id = $1 AND i.iid = $2"
/* A noteable's columns (an issue's, a merge request's, a snippet's): NB_FLAG is an
 * issue's confidential and a snippet's visibility; an issue's assignees follow */
enum {
	NB_ID,
	NB_IID,
	NB_AUTHOR,
	NB_FLAG,
	NB_LOCKED,
	NB_ENABLED,
	NB_NCOLS,
	NB_ASSIGNEES = NB_NCOLS,
	NOTEABLE_NCOLS
};
/* notes_list's parameters; notes_list_issue's are the same with the project and the
 * issue's iid first, notes_list_issue_recent's and _oldest's those four without the
 * order */
enum {
	NL_TYPE,
	NL_NOTEABLE,
	NL_CREATED_FIRST,
	NL_ASC,
	NL_LIMIT,
	NL_OFFSET,
	NL_NPARAMS,
	NL_PROJECT = NL_TYPE,
	NL_IID = NL_NOTEABLE
};
enum { NLR_PROJECT, NLR_IID, NLR_LIMIT, NLR_OFFSET, NLR_NPARAMS };
enum { NI_PROJECT, NI_TYPE, NI_NOTEABLE, NI_AUTHOR, NI_BODY, NI_CREATED_AT, NI_NPARAMS };
enum { NCI_PROJECT, NCI_IID, NCI_AUTHOR, NCI_BODY, NCI_CREATED_AT, NCI_NPARAMS };

/* The order of a page of notes f: $C created_at first (else updated_at), $A ascending. */
#define NOTES_ORDER(C, A)                                                                          \
	" ORDER BY CASE WHEN " A "::boolean THEN CASE WHEN " C "::boolean THEN n.created_at"       \
	" ELSE n.updated_at END END ASC, CASE WHEN " A "::boolean THEN n.id END ASC,"              \
	" CASE WHEN " C "::boolean THEN n.created_at ELSE n.updated_at END DESC, n.id DESC"

/* The notes of issue $2 of project $1 in one statement, the issue as notes_issue finds
 * it after the page: no row when there is no such issue; ORDER the page's order, LIMIT
 * and OFFSET its parameters. The issue is read once (MATERIALIZED: inlined, its subquery
 * would run again for every note), its notes counted from their index, and the notes'
 * iid is the issue's. */
#define NOTES_LIST_ISSUE(ORDER, LIMIT, OFFSET)                                                     \
	"WITH x AS MATERIALIZED (" SQL_NOTEABLE_ISSUE ")"                                          \
	" SELECT c.n, pg.*, x.* FROM x CROSS JOIN LATERAL (SELECT count(*) AS n FROM notes c"      \
	"  WHERE c.noteable_type = 'Issue' AND c.noteable_id = x.id) c LEFT JOIN LATERAL"          \
	" (SELECT " NOTE_COLS_IID(                                                                 \
		"x.iid") " FROM (SELECT * FROM notes n"                                            \
			 "  WHERE n.noteable_type = 'Issue' AND n.noteable_id = x.id" ORDER        \
			 "  LIMIT " LIMIT " OFFSET " OFFSET ") n" ORDER ") pg ON true"

const db_stmt notes_stmts[] = {
	/* $1 project, $2 iid: id, iid, author, (nothing), locked, merge requests enabled */
	{"notes_merge_request",
	 "SELECT mr.id, mr.iid, mr.author_id, NULL::integer, coalesce(mr.discussion_locked, false),"
	 " p.merge_requests_enabled FROM merge_requests mr JOIN projects p"
	 " ON p.id = mr.target_project_id WHERE mr.target_project_id = $1 AND mr.iid = $2",
	 2, NB_NCOLS},
	{"notes_issue", SQL_NOTEABLE_ISSUE, 2, NOTEABLE_NCOLS},
	/* $1 project, $2 id: id, iid (none), author, visibility, locked (never), snippets
	 * enabled */
	{"notes_snippet",
	 "SELECT s.id, NULL::bigint, s.author_id, s.visibility, false, p.snippets_enabled"
	 " FROM snippets s JOIN projects p ON p.id = s.project_id"
	 " WHERE s.project_id = $1 AND s.id = $2",
	 2, NB_NCOLS},
	/* $1 type, $2 noteable, $3 created_at first (else updated_at), $4 ascending, $5
	 * limit, $6 offset */
	{"notes_list",
	 "WITH f AS (SELECT * FROM notes WHERE noteable_type = $1 AND noteable_id = $2)"
	 " SELECT (SELECT count(*) FROM f), pg.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " NOTE_COLS
	 " FROM f n" NOTES_ORDER("$3", "$4") " LIMIT $5 OFFSET $6) pg ON true",
	 NL_NPARAMS, 1 + NOTE_NCOLS},
	/* The same for issue $2 of project $1 (NOTES_LIST_ISSUE): $3 created_at first, $4
	 * ascending, $5 limit, $6 offset. */
	{"notes_list_issue", NOTES_LIST_ISSUE(NOTES_ORDER("$3", "$4"), "$5", "$6"), NL_NPARAMS,
	 1 + NOTE_NCOLS + NOTEABLE_NCOLS},
	/* The same in the order of created_at, newest first (GitLab's default) or oldest
	 * first, read in the index's order: only the page's notes are read, where an order
	 * of parameters sorts every note of the issue. $3 limit, $4 offset. */
	{"notes_list_issue_recent",
	 NOTES_LIST_ISSUE(" ORDER BY n.created_at DESC, n.id DESC", "$3", "$4"), NLR_NPARAMS,
	 1 + NOTE_NCOLS + NOTEABLE_NCOLS},
	{"notes_list_issue_oldest", NOTES_LIST_ISSUE(" ORDER BY n.created_at, n.id", "$3", "$4"),
	 NLR_NPARAMS, 1 + NOTE_NCOLS + NOTEABLE_NCOLS},
	/* $1 note, $2 type, $3 noteable */
	{"notes_show",
	 "SELECT " NOTE_COLS " FROM notes n"
	 " WHERE n.id = $1 AND n.noteable_type = $2 AND n.noteable_id = $3",
	 3, NOTE_NCOLS},
/* $1 project, $2 type, $3 noteable, $4 author, $5 body, $6 created_at or NULL */
#define NOTES_INSERT(TOUCH)                                                                             \
	"WITH n AS (INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, note,"        \
	" created_at) VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now())) RETURNING *)" TOUCH \
	" SELECT " NOTE_COLS " FROM n"
	{"notes_insert", NOTES_INSERT("," SQL_TOUCH_NEW("$2", "$3")), NI_NPARAMS, NOTE_NCOLS},
	/* An issue's (sql/0030's trigger touches the issue): without the touches of the other
	 * noteables, whose plans open their tables and indexes at each execution. */
	{"notes_insert_issue", NOTES_INSERT(""), NI_NPARAMS, NOTE_NCOLS},
#undef NOTES_INSERT
	/* A comment on issue $2 of project $1 in one statement: the issue as notes_issue
	 * finds it (no row: no such issue) after the note, which is added when the project
	 * has issues (its columns NULL otherwise); $3 author, $4 body, $5 created_at or
	 * NULL. Whether the caller may comment is decided on the row that comes back, and
	 * a refusal rolls the note back (create_on_issue). */
	{"notes_create_issue",
	 "WITH x AS MATERIALIZED (" SQL_NOTEABLE_ISSUE "), n AS (INSERT INTO notes (project_id,"
	 " noteable_type, noteable_id, author_id, note, created_at) SELECT $1, 'Issue', x.id, $3,"
	 " $4, coalesce($5::timestamptz, now()) FROM x WHERE x.issues_enabled RETURNING *)"
	 " SELECT pg.*, x.* FROM x LEFT JOIN LATERAL (SELECT " NOTE_COLS_IID(
		 "x.iid") " FROM n) pg ON true",
	 NCI_NPARAMS, NOTE_NCOLS + NOTEABLE_NCOLS},
	/* $1 note, $2 body, $3 type, $4 noteable */
	{"notes_update",
	 "WITH n AS (UPDATE notes SET note = $2, updated_at = now() WHERE id = $1 RETURNING *)," SQL_TOUCH(
		 "$3", "$4") " SELECT " NOTE_COLS " FROM n",
	 4, NOTE_NCOLS},
	/* $1 note, $2 its event's data */
	{"notes_event_update",
	 "UPDATE events SET data = $2::jsonb WHERE target_type = 'Note' AND target_id = $1", 2, 0},
	/* $1 note, $2 type, $3 noteable (its award emoji and its event go by the triggers
	 * of sql/0013 and sql/0018) */
	{"notes_delete",
	 "WITH d AS (DELETE FROM notes WHERE id = $1 RETURNING id)," SQL_TOUCH(
		 "$2", "$3") " SELECT count(*) FROM d",
	 3, 1},
	{NULL, NULL, 0, 0},
};

const noteable_kind noteable_issue = {"Issue", "issue_iid", "notes_issue"};
const noteable_kind noteable_snippet = {"Snippet", "snippet_id", "notes_snippet"};
const noteable_kind noteable_merge_request = {"MergeRequest", "merge_request_iid",
					      "notes_merge_request"};

bool note_caller_is(request *r, const char *user_id)
{
	return user_id && strcmp(user_id, api_caller_id(r)) == 0;
}

/* Whether the caller is one of the users of ids (a bigint[] literal). */
static bool caller_among(request *r, const char *ids)
{
	long long *v;
	int n = db_int_array(r->ctx.a, ids, &v);
	for (int i = 0; i < n; i++)
		if (v[i] == r->ctx.user->id)
			return true;
	return false;
}

/* Reporter and up on the route's project (GitLab's read of confidential issues). */
static bool project_reporter(request *r)
{
	const project_access *a = &r->project->pa;
	return a->admin || a->ns_owner || a->level >= ACCESS_REPORTER;
}

bool note_project_member(request *r)
{
	const project_access *a = &r->project->pa;
	return a->admin || a->ns_owner || a->level >= ACCESS_GUEST;
}

/* The noteable of kind k whose columns (its statement's) start at col of row 0 of res
 * (none: no such noteable), as noteable_find. */
static int noteable_read(request *r, const noteable_kind *k, bool unreadable, const PGresult *res,
			 int col, noteable *out)
{
	*out = (noteable){.type = k->type};
	if (PQntuples(res) == 0) {
		api_error(r, 404, "404 Not found"); /* GitLab's RecordNotFound */
		return 1;
	}
	out->id = db_val(res, 0, col + NB_ID);
	out->iid = db_val(res, 0, col + NB_IID);
	out->author_id = db_val(res, 0, col + NB_AUTHOR);
	out->locked = db_bool(res, 0, col + NB_LOCKED);
	bool enabled = db_bool(res, 0, col + NB_ENABLED);
	bool author = note_caller_is(r, out->author_id);
	if (k == &noteable_issue) {
		/* IssuePolicy: a confidential issue is for reporters and up, its author and
		 * its assignees */
		bool confidential = db_bool(res, 0, col + NB_FLAG);
		out->readable = enabled && (!confidential || project_reporter(r) || author ||
					    caller_among(r, db_val(res, 0, col + NB_ASSIGNEES)));
	} else if (k == &noteable_merge_request) {
		/* MergeRequestPolicy: read_merge_request, the project's code */
		out->readable = enabled &&
				can_read_code(&r->project->pa, r->project->visibility, r->ctx.user);
	} else {
		/* ProjectSnippetPolicy: public ones for anyone who sees the project, internal
		 * ones for signed-in users who are not external, private ones for members;
		 * and their author */
		int vis = (int)db_int(res, 0, col + NB_FLAG);
		out->readable = enabled && (r->ctx.user->admin || author || vis == VIS_PUBLIC ||
					    (vis == VIS_INTERNAL && !r->ctx.user->external) ||
					    note_project_member(r));
	}
	if (!out->readable && !unreadable) {
		api_error(r, 404, "404 Not found");
		return 1;
	}
	return 0;
}

int noteable_find(request *r, const noteable_kind *k, bool unreadable, noteable *out)
{
	*out = (noteable){.type = k->type};
	const char *v[2] = {r->project->id, param_str(r, k->param)};
	int err;
	PGresult *res = db_query(&r->ctx, k->stmt, 2, v, &err);
	if (!res)
		return err;
	return noteable_read(r, k, unreadable, res, 0, out);
}

int noteable_note(request *r, const noteable *n, PGresult **out)
{
	const char *v[3] = {param_str(r, "note_id"), n->type, n->id};
	return api_find(r, "notes_show", 3, v, NULL, out);
}

int notes_check_ids(request *r)
{
	static const char *const ids[] = {"issue_iid", "snippet_id", "merge_request_iid",
					  "note_id",   "award_id",   NULL};
	const char *id;
	for (int i = 0; ids[i]; i++) {
		int rc = param_find(r, ids[i]) ? api_id(r, ids[i], &id) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static const char *const order_bys[] = {"created_at", "updated_at", NULL};
static const char *const sorts[] = {"asc", "desc", NULL};

/* The page of a list (pg) and the last parameters of its statement, notes_list's or
 * notes_list_issue's $3..$6, in v (NL_NPARAMS of them): created_at first (else
 * updated_at), ascending, limit, offset. 0, or an ERR_ code. */
static int list_params(request *r, page_req *pg, const char **v)
{
	const char *order_by = "created_at", *sort = "desc";
	int rc;
	if ((rc = param_oneof(r, "order_by", order_bys, &order_by)) < 0 ||
	    (rc = param_oneof(r, "sort", sorts, &sort)) < 0 || (rc = pagination_parse(r, pg)) < 0)
		return rc;
	v[NL_CREATED_FIRST] = strcmp(order_by, "created_at") == 0 ? "true" : "false";
	v[NL_ASC] = strcmp(sort, "asc") == 0 ? "true" : "false";
	v[NL_LIMIT] = pagination_limit(r, pg);
	v[NL_OFFSET] = pagination_offset(r, pg);
	return 0;
}

static int notes_check_list(request *r)
{
	page_req pg;
	const char *v[NL_NPARAMS];
	int rc = notes_check_ids(r);
	if (rc < 0 || (rc = list_params(r, &pg, v)) < 0)
		return rc;
	return 0;
}

/* The statement of issue iid of project id's list, v list_params' (NL_NPARAMS slots,
 * and the call's): ordered by created_at, the one of that order. */
static db_call issue_list_call(const char *id, const char *iid, const char **v)
{
	v[NL_PROJECT] = id;
	v[NL_IID] = iid;
	if (strcmp(v[NL_CREATED_FIRST], "true") != 0)
		return (db_call){"notes_list_issue", NL_NPARAMS, v};
	_Static_assert((int)NLR_PROJECT == (int)NL_PROJECT && (int)NLR_IID == (int)NL_IID,
		       "the issue first");
	const char *asc = v[NL_ASC];
	v[NLR_LIMIT] = v[NL_LIMIT];
	v[NLR_OFFSET] = v[NL_OFFSET];
	return (db_call){strcmp(asc, "true") == 0 ? "notes_list_issue_oldest"
						  : "notes_list_issue_recent",
			 NLR_NPARAMS, v};
}

/* An issue's list: its statement goes with the project's (api_query). */
static int notes_check_list_issue(request *r)
{
	page_req pg;
	const char **v = arena_alloc(r->ctx.a, NL_NPARAMS * sizeof(*v));
	int rc = notes_check_ids(r);
	if (rc < 0 || (rc = list_params(r, &pg, v)) < 0)
		return rc;
	r->prefetch = issue_list_call(param_str(r, "id"), param_str(r, "issue_iid"), v);
	return 0;
}

static int notes_check_create(request *r)
{
	const char *s;
	int rc = notes_check_ids(r);
	if (rc < 0 || (rc = param_require(r, "body", &s)) < 0 ||
	    (rc = param_datetime(r, "created_at", &s)) < 0)
		return rc;
	return 0;
}

static int notes_check_update(request *r)
{
	const char *s;
	int rc = notes_check_ids(r);
	if (rc < 0 || (rc = param_require(r, "body", &s)) < 0)
		return rc;
	return 0;
}

const char *note_body_problem(const char *body)
{
	if (utf8_chars(body) > NOTE_BODY_MAX)
		return "is too long (maximum is 1000000 characters)";
	if (body[strspn(body, " \t\r\n\f\v")] == '\0')
		return "can't be blank";
	return NULL;
}

/* Ruby's inspect of the errors of attribute attr: {:attr=>["message"]}. */
static const char *ruby_errors(request *r, const char *attr, const char *message)
{
	return arena_printf(r->ctx.a, "{:%s=>[\"%s\"]}", attr, message);
}

static int list(request *r, const noteable_kind *k)
{
	page_req pg;
	const char *v[NL_NPARAMS];
	noteable n;
	int rc = list_params(r, &pg, v);
	if (rc < 0)
		return rc;
	int err;
	PGresult *res;
	if (k == &noteable_issue) {
		/* the issue and the page in one statement, sent with the project's
		 * (notes_check_list_issue); the page is answered only when the caller may
		 * read the issue */
		db_call c = issue_list_call(r->project->id, param_str(r, k->param), v);
		if (!(res = api_query(r, c.stmt, c.n, c.values, &err)))
			return err;
		if ((rc = noteable_read(r, k, false, res, 1 + NOTE_NCOLS, &n)) != 0)
			return rc < 0 ? rc : 0;
		api_respond_page_jw(r, &pg, res, entity_note_write, 512);
		return 0;
	}
	if ((rc = noteable_find(r, k, false, &n)) != 0)
		return rc < 0 ? rc : 0;
	v[NL_TYPE] = n.type;
	v[NL_NOTEABLE] = n.id;
	if (!(res = db_query(&r->ctx, "notes_list", NL_NPARAMS, v, &err)))
		return err;
	api_respond_page_jw(r, &pg, res, entity_note_write, 512);
	return 0;
}

static int show(request *r, const noteable_kind *k)
{
	noteable n;
	PGresult *res;
	int rc = noteable_find(r, k, false, &n);
	if (rc != 0 || (rc = noteable_note(r, &n, &res)) != 0)
		return rc < 0 ? rc : 0;
	api_respond_record(r, 200, entity_note_write, res, 0, 0);
	return 0;
}

/* The note of row 0 of res written into w, and the data of its "commented on" event:
 * {"note": the note record}, kept as jsonb (its value, not its text). */
static const char *note_and_event_data(request *r, jw *w, const PGresult *res)
{
	jw_init(w, r->ctx.a, 1024);
	entity_note_write(w, &r->ctx, res, 0, 0);
	return arena_printf(r->ctx.a, "{\"note\":%s}", buf_cstr(&w->b));
}

/* The creation time given with a comment, taken from admins and the project's owner
 * only (else NULL: now). */
static const char *given_created_at(request *r)
{
	const char *created_at = NULL;
	if (param_datetime(r, "created_at", &created_at) != 0 ||
	    !(r->ctx.user->admin || note_caller_is(r, r->project->ns_owner_id)))
		return NULL;
	return created_at;
}

/* The answer to a comment: row 0 of res, the note added to noteable n, and its event. */
static int created(request *r, const noteable *n, const PGresult *res)
{
	jw note;
	const char *data = note_and_event_data(r, &note, res);
	int rc = events_record_data(r, r->project->id, api_caller_id(r), "commented",
				    "commented on", "Note", db_val(res, 0, 0), n->iid, NULL, data);
	if (rc < 0 || (rc = hooks_note(r, db_val(res, 0, 0), n->type, n->id)) < 0)
		return rc;
	respond_jw(r, 201, &note);
	return 0;
}

int note_locked_out(request *r, const noteable *n)
{
	return n->locked && !note_project_member(r) ? fail(r, ERR_FORBIDDEN, NULL) : 0;
}

/* A comment on an issue whose body is a note (not only an emoji, and valid): the issue
 * and the note in one statement, one round trip where finding the issue first takes
 * two. The note is added before the issue's rules are read; a refusal (404, 403)
 * rolls it back with the route's transaction. The answers are create's, in its order. */
static int create_on_issue(request *r, const char *body)
{
	const char *v[] = {[NCI_PROJECT] = r->project->id,
			   [NCI_IID] = param_str(r, noteable_issue.param),
			   [NCI_AUTHOR] = api_caller_id(r),
			   [NCI_BODY] = body,
			   [NCI_CREATED_AT] = given_created_at(r)};
	DB_PARAMS(v, NCI_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx, "notes_create_issue", NCI_NPARAMS, v, &err);
	if (!res)
		return err;
	noteable n;
	int rc = noteable_read(r, &noteable_issue, false, res, NOTE_NCOLS, &n);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if ((rc = note_locked_out(r, &n)) < 0)
		return rc;
	return created(r, &n, res);
}

static int create(request *r, const noteable_kind *k)
{
	const char *body = param_str(r, "body");
	const char *name;
	size_t len = emoji_only(body, strlen(body), &name);
	const char *problem = note_body_problem(body);
	if (k == &noteable_issue && !len && !problem)
		return create_on_issue(r, body);
	noteable n;
	int rc = noteable_find(r, k, false, &n);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if ((rc = note_locked_out(r, &n)) < 0)
		return rc;
	if (len) {
		const char *emoji = arena_strndup(r->ctx.a, name, len);
		if (award_emoji_allowed(r, n.author_id, emoji))
			return award_emoji_create(r, n.type, n.id, emoji, "Note");
	}
	if (problem)
		return api_error(r, 404,
				 arena_printf(r->ctx.a, "404 Note %s Not Found",
					      ruby_errors(r, "note", problem)));
	const char *v[] = {[NI_PROJECT] = r->project->id,
			   [NI_TYPE] = n.type,
			   [NI_NOTEABLE] = n.id,
			   [NI_AUTHOR] = api_caller_id(r),
			   [NI_BODY] = body,
			   [NI_CREATED_AT] = given_created_at(r)};
	DB_PARAMS(v, NI_NPARAMS);
	int err;
	PGresult *res = db_query(&r->ctx,
				 k == &noteable_issue ? "notes_insert_issue" : "notes_insert",
				 NI_NPARAMS, v, &err);
	if (!res)
		return err;
	return created(r, &n, res);
}

/* The note of the route that the caller may change (GitLab's admin_note: its author,
 * masters and up, admins): 0 with it in *out, 1 when answered, or an ERR_ code. */
static int note_to_change(request *r, const noteable_kind *k, noteable *n, PGresult **out)
{
	int rc = noteable_find(r, k, false, n);
	if (rc != 0 || (rc = noteable_note(r, n, out)) != 0)
		return rc;
	return note_may_change(r, *out);
}

int note_may_change(request *r, const PGresult *res)
{
	if (!note_caller_is(r, db_val(res, 0, 9)) && !can_update_project(&r->project->pa))
		return fail(r, ERR_FORBIDDEN, NULL);
	return 0;
}

int note_edit(request *r, const noteable *n, const char *id, jw *note)
{
	const char *body = param_str(r, "body");
	const char *problem = note_body_problem(body);
	if (problem) {
		api_error(r, 400,
			  arena_printf(r->ctx.a, "Failed to save note %s",
				       ruby_errors(r, "note", problem)));
		return 1;
	}
	const char *v[4] = {id, body, n->type, n->id};
	int err;
	PGresult *res = db_query(&r->ctx, "notes_update", 4, v, &err);
	if (!res)
		return err;
	const char *ev[2] = {id, note_and_event_data(r, note, res)};
	return db_query(&r->ctx, "notes_event_update", 2, ev, &err) ? 0 : err;
}

int note_delete(request *r, const noteable *n, const char *id)
{
	const char *v[3] = {id, n->type, n->id};
	int err;
	if (!db_query(&r->ctx, "notes_delete", 3, v, &err))
		return err;
	respond_empty(r, 204);
	return 0;
}

static int update(request *r, const noteable_kind *k)
{
	noteable n;
	PGresult *res;
	jw note;
	int rc = note_to_change(r, k, &n, &res);
	if (rc != 0 || (rc = note_edit(r, &n, db_val(res, 0, 0), &note)) != 0)
		return rc < 0 ? rc : 0;
	respond_jw(r, 200, &note);
	return 0;
}

static int delete_note(request *r, const noteable_kind *k)
{
	noteable n;
	PGresult *res;
	int rc = note_to_change(r, k, &n, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	return note_delete(r, &n, db_val(res, 0, 0));
}

/* The five handlers of one kind of noteable. */
#define NOTES_HANDLERS(name, kind)                                                                 \
	static int notes_list_##name(request *r)                                                   \
	{                                                                                          \
		return list(r, &(kind));                                                           \
	}                                                                                          \
	static int notes_show_##name(request *r)                                                   \
	{                                                                                          \
		return show(r, &(kind));                                                           \
	}                                                                                          \
	static int notes_create_##name(request *r)                                                 \
	{                                                                                          \
		return create(r, &(kind));                                                         \
	}                                                                                          \
	static int notes_update_##name(request *r)                                                 \
	{                                                                                          \
		return update(r, &(kind));                                                         \
	}                                                                                          \
	static int notes_delete_##name(request *r)                                                 \
	{                                                                                          \
		return delete_note(r, &(kind));                                                    \
	}
NOTES_HANDLERS(issue, noteable_issue)
NOTES_HANDLERS(snippet, noteable_snippet)
NOTES_HANDLERS(merge_request, noteable_merge_request)

#define NOTES_ROUTES(name, parent, check_list)                                                     \
	{"GET", V4 "/projects/:id/" parent "/notes", notes_list_##name, AUTH | PR, check_list},    \
		{"GET", V4 "/projects/:id/" parent "/notes/:note_id", notes_show_##name,           \
		 AUTH | PR, notes_check_ids},                                                      \
		{"POST", V4 "/projects/:id/" parent "/notes", notes_create_##name, AUTH | PA,      \
		 notes_check_create},                                                              \
		{"PUT", V4 "/projects/:id/" parent "/notes/:note_id", notes_update_##name,         \
		 AUTH | PW, notes_check_update},                                                   \
	{                                                                                          \
		"DELETE", V4 "/projects/:id/" parent "/notes/:note_id", notes_delete_##name,       \
			AUTH | PW, notes_check_ids                                                 \
	}

/* The module's routes (http/router.h), in the order they are matched. */
const route notes_routes[] = {
	NOTES_ROUTES(issue, "issues/:issue_iid", notes_check_list_issue),
	NOTES_ROUTES(snippet, "snippets/:snippet_id", notes_check_list),
	NOTES_ROUTES(merge_request, "merge_requests/:merge_request_iid", notes_check_list),
	{NULL, NULL, NULL, 0, NULL},
};
