/* Discussions (GitLab 10.8's lib/api/discussions.rb): the notes of issues, project
 * snippets and merge requests grouped in threads, and the resolution of a merge
 * request's threads.
 *
 * A discussion is the notes that share notes.discussion_id (sql/0049): a note made
 * through the notes API is a discussion of its own (GitLab's individual note, type
 * NULL), one started or answered here is a DiscussionNote. They are the notes notes.c
 * shows and changes, with the same noteables (noteable_find: who may read, 404 "404 Not
 * found"), the same statements to add, edit and delete a note (its event follows), and
 * the same rules: anyone who reads may comment, members only on a locked noteable, the
 * note's author and masters edit and delete. A discussion's note on a merge request is
 * resolvable; its author, the merge request's author and developers and up resolve it
 * (10.8's NotePolicy, ProjectPolicy :resolve_note). Lists are paginated by discussion,
 * in the order of their first notes (10.8's Discussion.build_collection of the notes,
 * oldest first). A commit's discussions (10.8's NOTEABLE_TYPES has Commit) are the
 * notes of the project with its hash, commits.c's comments among them: read by whoever
 * reads the code (commits.c's content_read, 403), the commit found by any name of it,
 * 404 "404 Commit Not Found"; as commits.c's comments, they record no event. */
#include <string.h>

#include "api/api.h"
#include "core/validate.h"
#include "entity/note.h"
#include "git/commits.h"
#include "http/pagination.h"

/* GitLab's Note: validates :note, length: { maximum: 1_000_000 } (as notes.c) */
#define NOTE_BODY_MAX 1000000

/* The notes of a noteable, those of alias A: noteable $1/$2 (its type and id), or a
 * commit's, which have no noteable id: project $1, commit $2 (its full hash). */
#define OF_NOTEABLE(A) A ".noteable_type = $1 AND " A ".noteable_id = $2"
#define OF_COMMIT(A)                                                                               \
	A ".project_id = $1 AND " A ".noteable_type = 'Commit' AND " A ".commit_id = $2"

/* $3 limit, $4 offset: the count of the discussions, then the notes of the page's
 * discussions, a discussion's notes together */
#define SQL_LIST(OF)                                                                                \
	"WITH d AS (SELECT discussion_id, min(created_at) AS c, min(id) AS i FROM notes x"          \
	" WHERE " OF(                                                                               \
		"x") " GROUP BY discussion_id),"                                                    \
		     " p AS (SELECT * FROM d ORDER BY c, i LIMIT $3 OFFSET $4)"                     \
		     " SELECT (SELECT count(*) FROM d), pg.* FROM (SELECT 1) one LEFT JOIN LATERAL" \
		     " (SELECT " DISCUSSION_NOTE_COLS " FROM p JOIN notes n ON " OF(                \
			     "n") " AND n.discussion_id = p.discussion_id"                          \
				  " ORDER BY p.c, p.i, n.created_at, n.id) pg ON true"
/* $3 discussion: its notes, oldest first */
#define SQL_SHOW(OF)                                                                               \
	"SELECT " DISCUSSION_NOTE_COLS                                                             \
	" FROM notes n WHERE " OF("n") " AND n.discussion_id = $3 ORDER BY n.created_at, n.id"
/* $3 note */
#define SQL_NOTE(OF) "SELECT " DISCUSSION_NOTE_COLS " FROM notes n WHERE n.id = $3 AND " OF("n")

enum { DR_TYPE, DR_NOTEABLE, DR_DISCUSSION, DR_USER, DR_NOTE, DR_NPARAMS };
enum { DC_PROJECT, DC_COMMIT, DC_AUTHOR, DC_BODY, DC_CREATED_AT, DC_DISCUSSION, DC_NPARAMS };

const db_stmt discussions_stmts[] = {
	{"discussions_list", SQL_LIST(OF_NOTEABLE), 4, 1 + DISCUSSION_NOTE_NCOLS},
	{"discussions_list_commit", SQL_LIST(OF_COMMIT), 4, 1 + DISCUSSION_NOTE_NCOLS},
	{"discussions_show", SQL_SHOW(OF_NOTEABLE), 3, DISCUSSION_NOTE_NCOLS},
	{"discussions_show_commit", SQL_SHOW(OF_COMMIT), 3, DISCUSSION_NOTE_NCOLS},
	{"discussions_note", SQL_NOTE(OF_NOTEABLE), 3, DISCUSSION_NOTE_NCOLS},
	{"discussions_note_commit", SQL_NOTE(OF_COMMIT), 3, DISCUSSION_NOTE_NCOLS},
	/* Note $1, just added by notes_insert, made a note of discussion $2 (NULL: its own,
	 * a new one) */
	{"discussions_mark",
	 "WITH n AS (UPDATE notes SET type = 'DiscussionNote', discussion_id ="
	 " coalesce($2, discussion_id) WHERE id = $1 RETURNING *)"
	 " SELECT " DISCUSSION_NOTE_COLS " FROM n",
	 2, DISCUSSION_NOTE_NCOLS},
	/* A note of commit $2 (its full hash) of project $1 by $3, body $4, created at $5
	 * (NULL: now), of discussion $6 (NULL: a new one). commits.c's comments touch
	 * nothing either: a commit has no row. */
	{"discussions_insert_commit",
	 "WITH n AS (INSERT INTO notes (project_id, noteable_type, commit_id, author_id, note,"
	 " created_at, type, discussion_id) VALUES ($1, 'Commit', $2, $3, $4,"
	 " coalesce($5::timestamptz, now()), 'DiscussionNote', coalesce($6, new_discussion_id()))"
	 " RETURNING *) SELECT " DISCUSSION_NOTE_COLS " FROM n",
	 DC_NPARAMS, DISCUSSION_NOTE_NCOLS},
	/* The resolvable notes of discussion $3 of noteable $1/$2 (and only note $5, unless
	 * NULL) resolved by user $4, or unresolved when $4 is NULL; those that are so
	 * already stay as they are (the first to resolve is kept) */
	{"discussions_resolve",
	 "UPDATE notes SET resolved_at = CASE WHEN $4::bigint IS NULL THEN NULL ELSE now() END,"
	 " resolved_by_id = $4, updated_at = now() WHERE noteable_type = $1 AND noteable_id = $2"
	 " AND discussion_id = $3 AND ($5::bigint IS NULL OR id = $5) AND type IS NOT NULL"
	 " AND NOT system AND noteable_type = 'MergeRequest'"
	 " AND (resolved_at IS NULL) = ($4::bigint IS NOT NULL)",
	 DR_NPARAMS, 0},
	{NULL, NULL, 0, 0},
};

/* A commit as a noteable: its notes are the project's with its hash (notes.commit_id) */
static const noteable_kind commit_kind = {"Commit", "sha", NULL};

/* The noteable of a route and the two parameters its statements take first: its type
 * and id, or for a commit the project and the commit's full hash. */
typedef struct {
	noteable n;
	const char *key[2];
	bool commit;
	const char *list, *show, *note; /* its statements */
} target;

/* The route's noteable of kind k (noteable_find's answers), or its commit: read as the
 * repository's commits are (commits.c: content_read, 404 "404 Commit Not Found"). 0
 * with *t, 1 when answered, or an ERR_ code. */
static int find_target(request *r, const noteable_kind *k, target *t)
{
	*t = (target){.commit = k == &commit_kind};
	t->list = t->commit ? "discussions_list_commit" : "discussions_list";
	t->show = t->commit ? "discussions_show_commit" : "discussions_show";
	t->note = t->commit ? "discussions_note_commit" : "discussions_note";
	if (!t->commit) {
		int rc = noteable_find(r, k, false, &t->n);
		t->key[0] = t->n.type;
		t->key[1] = t->n.id;
		return rc;
	}
	git_repository *repo;
	git_commit *c;
	int rc = content_read(r);
	if (rc < 0 || (rc = content_repo(r, &repo)) < 0)
		return rc;
	rc = gitc_commit_of(&r->ctx, repo, param_str(r, "sha"), &c);
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, "Commit");
	if (rc < 0)
		return ERR_INTERNAL;
	char *sha = arena_alloc(r->ctx.a, GIT_OID_HEXSZ + 1);
	git_oid_tostr(sha, GIT_OID_HEXSZ + 1, git_commit_id(c));
	t->n = (noteable){.type = commit_kind.type, .readable = true};
	t->key[0] = r->project->id;
	t->key[1] = sha;
	return 0;
}

/* 10.8's "Note #{note.errors.messages}": 400 {"message":"400 (Bad request) Note
 * {:note=>[\"...\"]}"} */
static int invalid_note(request *r, const char *problem)
{
	return fail(r, ERR_BAD_REQUEST, arena_printf(r->ctx.a, "Note {:note=>[\"%s\"]}", problem));
}

/* The rows of res from first that belong to its discussion: the end of that run. */
static int discussion_end(const PGresult *res, int first, int col)
{
	int end = first + 1;
	const char *id = db_val(res, first, col + DN_DISCUSSION);
	while (end < PQntuples(res) && !PQgetisnull(res, end, col) &&
	       strcmp(db_val(res, end, col + DN_DISCUSSION), id) == 0)
		end++;
	return end;
}

static void respond_discussion(request *r, int status, const PGresult *res)
{
	jw w;
	jw_init(&w, r->ctx.a, 1024 * (size_t)PQntuples(res) + 64);
	entity_discussion_write(&w, &r->ctx, res, 0, PQntuples(res), 0);
	respond_jw(r, status, &w);
}

/* The notes of the route's discussion of t (:discussion_id), oldest first, in *out: 0
 * (none: 0 rows), or an ERR_ code. */
static int read_discussion(request *r, const target *t, PGresult **out)
{
	const char *v[3] = {t->key[0], t->key[1], param_str(r, "discussion_id")};
	int err;
	*out = db_query(&r->ctx, t->show, 3, v, &err);
	return *out ? 0 : err;
}

/* read_discussion, none being 404 "404 Discussion Not Found". */
static int discussion_notes(request *r, const target *t, PGresult **out)
{
	int rc = read_discussion(r, t, out);
	if (rc < 0)
		return rc;
	return PQntuples(*out) ? 0 : fail_not_found(r, "Discussion");
}

static int check_ids(request *r)
{
	return notes_check_ids(r);
}

static int check_list(request *r)
{
	page_req pg;
	int rc = notes_check_ids(r);
	return rc < 0 ? rc : pagination_parse(r, &pg);
}

static int check_create(request *r)
{
	const char *s;
	int rc = notes_check_ids(r);
	if (rc < 0 || (rc = param_require(r, "body", &s)) < 0 ||
	    (rc = param_datetime(r, "created_at", &s)) < 0)
		return rc;
	return 0;
}

/* PUT of a note: exactly one of body and resolved (10.8's exactly_one_of) */
static int check_update(request *r)
{
	bool resolved;
	int rc = notes_check_ids(r);
	if (rc < 0 || (rc = param_bool(r, "resolved", &resolved)) < 0)
		return rc;
	bool has_body = param_find(r, "body") != NULL, has_resolved = rc == 0;
	if (has_body && has_resolved)
		return fail(r, ERR_INVALID, "body, resolved are mutually exclusive");
	if (!has_body && !has_resolved)
		return fail(r, ERR_INVALID,
			    "body, resolved are missing, exactly one parameter must be provided");
	return 0;
}

static int check_resolve(request *r)
{
	bool resolved;
	int rc = notes_check_ids(r);
	if (rc < 0 || (rc = param_bool(r, "resolved", &resolved)) < 0)
		return rc;
	return rc == 1 ? fail_missing(r, "resolved") : 0;
}

static int list(request *r, const noteable_kind *k)
{
	page_req pg;
	target t;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = find_target(r, k, &t)) != 0)
		return rc < 0 ? rc : 0;
	const char *v[4] = {t.key[0], t.key[1], pagination_limit(r, &pg),
			    pagination_offset(r, &pg)};
	int err;
	PGresult *res = db_query(&r->ctx, t.list, 4, v, &err);
	if (!res)
		return err;
	jw w;
	jw_init(&w, r->ctx.a, 1024 * (size_t)PQntuples(res) + 16);
	jw_begin_array(&w);
	for (int i = 0; i < PQntuples(res) && !PQgetisnull(res, i, 1);) {
		int end = discussion_end(res, i, 1);
		entity_discussion_write(&w, &r->ctx, res, i, end, 1);
		i = end;
	}
	jw_end_array(&w);
	pagination_headers(r, &pg, PQntuples(res) ? db_int(res, 0, 0) : 0);
	respond_jw(r, 200, &w);
	return 0;
}

static int show(request *r, const noteable_kind *k)
{
	target t;
	PGresult *res;
	int rc = find_target(r, k, &t);
	if (rc != 0 || (rc = discussion_notes(r, &t, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_discussion(r, 200, res);
	return 0;
}

/* The creation time given with a comment, taken from admins and the project's owner
 * only (else NULL: now), as notes.c. */
static const char *given_created_at(request *r)
{
	const char *created_at = NULL;
	if (param_datetime(r, "created_at", &created_at) != 0 ||
	    !(r->ctx.user->admin || note_caller_is(r, r->project->ns_owner_id)))
		return NULL;
	return created_at;
}

/* A commit's note: one statement (commits.c's comments record no event either). */
static int add_commit_note(request *r, const target *t, const char *body, const char *discussion,
			   PGresult **out)
{
	const char *v[] = {[DC_PROJECT] = t->key[0],
			   [DC_COMMIT] = t->key[1],
			   [DC_AUTHOR] = api_caller_id(r),
			   [DC_BODY] = body,
			   [DC_CREATED_AT] = given_created_at(r),
			   [DC_DISCUSSION] = discussion};
	DB_PARAMS(v, DC_NPARAMS);
	int err;
	*out = db_query(&r->ctx, "discussions_insert_commit", DC_NPARAMS, v, &err);
	return *out ? 0 : err;
}

/* Adds the route's body to t as a note of discussion (NULL: a new one), with the event
 * "commented on" and the note hook that notes.c's comments have: 0 with the note (DISCUSSION_NOTE_COLS) in *out,
 * or an ERR_ code. */
static int add_note(request *r, const noteable_kind *k, const target *t, const char *discussion,
		    PGresult **out)
{
	const char *body = param_str(r, "body");
	const char *problem = note_body_problem(body);
	if (problem)
		return invalid_note(r, problem);
	if (t->commit)
		return add_commit_note(r, t, body, discussion, out);
	const noteable *n = &t->n;
	const char *v[] = {r->project->id,   n->type, n->id,
			   api_caller_id(r), body,    given_created_at(r)};
	DB_PARAMS(v, 6);
	int err;
	PGresult *res = db_query(
		&r->ctx, k == &noteable_issue ? "notes_insert_issue" : "notes_insert", 6, v, &err);
	if (!res)
		return err;
	const char *id = db_val(res, 0, 0);
	/* the event's note is the notes API's record, as a comment made there */
	jw note;
	jw_init(&note, r->ctx.a, 1024);
	entity_note_write(&note, &r->ctx, res, 0, 0);
	const char *data = arena_printf(r->ctx.a, "{\"note\":%s}", buf_cstr(&note.b));
	int rc = events_record_data(r, r->project->id, api_caller_id(r), "commented",
				    "commented on", "Note", id, n->iid, NULL, data);
	if (rc < 0)
		return rc;
	const char *m[2] = {id, discussion};
	if (!(*out = db_query(&r->ctx, "discussions_mark", 2, m, &err)))
		return err;
	/* the note hook of a comment, as notes.c's, once the note is the discussion's */
	return hooks_note(r, id, n->type, n->id);
}

static int create(request *r, const noteable_kind *k)
{
	target t;
	PGresult *res;
	int rc = find_target(r, k, &t);
	if (rc != 0 || (rc = note_locked_out(r, &t.n)) != 0 ||
	    (rc = add_note(r, k, &t, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	respond_discussion(r, 201, res);
	return 0;
}

static int reply(request *r, const noteable_kind *k)
{
	target t;
	PGresult *notes, *res;
	int rc = find_target(r, k, &t);
	if (rc != 0 || (rc = discussion_notes(r, &t, &notes)) != 0)
		return rc < 0 ? rc : 0;
	if (PQgetisnull(notes, 0, DN_TYPE))
		return fail(r, ERR_BAD_REQUEST, "Discussion is an individual note.");
	if ((rc = note_locked_out(r, &t.n)) != 0 ||
	    (rc = add_note(r, k, &t, db_val(notes, 0, DN_DISCUSSION), &res)) != 0)
		return rc < 0 ? rc : 0;
	api_respond_record(r, 201, entity_discussion_note_write, res, 0, 0);
	return 0;
}

/* Note :note_id of t in the discussions' shape: 0 with it, 1 when it answered "404 Not
 * found" (10.8's get_note: the note of the noteable, whatever its discussion), or an
 * ERR_ code. */
static int find_note(request *r, const target *t, PGresult **out)
{
	const char *v[3] = {t->key[0], t->key[1], param_str(r, "note_id")};
	return api_find(r, t->note, 3, v, NULL, out);
}

static int show_note(request *r, const noteable_kind *k)
{
	target t;
	PGresult *res;
	int rc = find_target(r, k, &t);
	if (rc != 0 || (rc = find_note(r, &t, &res)) != 0)
		return rc < 0 ? rc : 0;
	api_respond_record(r, 200, entity_discussion_note_write, res, 0, 0);
	return 0;
}

/* Whether the caller may resolve note row 0 of res on noteable n: its author, the
 * noteable's author, developers and up. */
static bool may_resolve(request *r, const noteable *n, const PGresult *res)
{
	return note_caller_is(r, db_val(res, 0, 9)) || note_caller_is(r, n->author_id) ||
	       project_ability_level(&r->project->pa) >= ACCESS_DEVELOPER;
}

/* Resolves (or, resolved false, unresolves) the resolvable notes of discussion of n, or
 * only note (unless NULL): 0 or an ERR_ code. */
static int resolve(request *r, const noteable *n, const char *discussion, const char *note,
		   bool resolved)
{
	const char *v[] = {[DR_TYPE] = n->type,
			   [DR_NOTEABLE] = n->id,
			   [DR_DISCUSSION] = discussion,
			   [DR_USER] = resolved ? api_caller_id(r) : NULL,
			   [DR_NOTE] = note};
	DB_PARAMS(v, DR_NPARAMS);
	int err;
	return db_query(&r->ctx, "discussions_resolve", DR_NPARAMS, v, &err) ? 0 : err;
}

static int update_note(request *r, const noteable_kind *k)
{
	target t;
	PGresult *res;
	int rc = find_target(r, k, &t);
	if (rc != 0 || (rc = find_note(r, &t, &res)) != 0)
		return rc < 0 ? rc : 0;
	const char *id = db_val(res, 0, 0);
	bool resolved;
	if (param_bool(r, "resolved", &resolved) == 0) {
		if (!may_resolve(r, &t.n, res))
			return fail(r, ERR_FORBIDDEN, NULL);
		if (!db_bool(res, 0, DN_RESOLVABLE))
			return fail(r, ERR_BAD_REQUEST, "Note is not resolvable");
		rc = resolve(r, &t.n, db_val(res, 0, DN_DISCUSSION), id, resolved);
	} else if ((rc = note_may_change(r, res)) == 0) {
		jw note;
		rc = note_edit(r, &t.n, id, &note);
	}
	if (rc != 0 || (rc = find_note(r, &t, &res)) != 0)
		return rc < 0 ? rc : 0;
	api_respond_record(r, 200, entity_discussion_note_write, res, 0, 0);
	return 0;
}

static int delete_note(request *r, const noteable_kind *k)
{
	target t;
	PGresult *res;
	int rc = find_target(r, k, &t);
	if (rc != 0 || (rc = find_note(r, &t, &res)) != 0 || (rc = note_may_change(r, res)) != 0)
		return rc < 0 ? rc : 0;
	return note_delete(r, &t.n, db_val(res, 0, 0));
}

/* PUT .../discussions/:discussion_id of a merge request: 10.8's resolve_discussion, 403
 * when there is no such discussion or the caller may not resolve its first note. */
static int resolve_discussion(request *r, const noteable_kind *k)
{
	target t;
	PGresult *res;
	int rc = find_target(r, k, &t);
	if (rc != 0 || (rc = read_discussion(r, &t, &res)) != 0)
		return rc < 0 ? rc : 0;
	if (!PQntuples(res) || !may_resolve(r, &t.n, res))
		return fail(r, ERR_FORBIDDEN, NULL);
	bool resolved = false;
	(void)param_bool(r, "resolved", &resolved);
	if ((rc = resolve(r, &t.n, param_str(r, "discussion_id"), NULL, resolved)) < 0 ||
	    (rc = read_discussion(r, &t, &res)) < 0)
		return rc;
	respond_discussion(r, 200, res);
	return 0;
}

/* The handlers of one kind of noteable. */
#define DISCUSSIONS_HANDLERS(name, kind)                                                           \
	static int discussions_list_##name(request *r)                                             \
	{                                                                                          \
		return list(r, &(kind));                                                           \
	}                                                                                          \
	static int discussions_show_##name(request *r)                                             \
	{                                                                                          \
		return show(r, &(kind));                                                           \
	}                                                                                          \
	static int discussions_create_##name(request *r)                                           \
	{                                                                                          \
		return create(r, &(kind));                                                         \
	}                                                                                          \
	static int discussions_reply_##name(request *r)                                            \
	{                                                                                          \
		return reply(r, &(kind));                                                          \
	}                                                                                          \
	static int discussions_show_note_##name(request *r)                                        \
	{                                                                                          \
		return show_note(r, &(kind));                                                      \
	}                                                                                          \
	static int discussions_update_note_##name(request *r)                                      \
	{                                                                                          \
		return update_note(r, &(kind));                                                    \
	}                                                                                          \
	static int discussions_delete_note_##name(request *r)                                      \
	{                                                                                          \
		return delete_note(r, &(kind));                                                    \
	}
DISCUSSIONS_HANDLERS(issue, noteable_issue)
DISCUSSIONS_HANDLERS(snippet, noteable_snippet)
DISCUSSIONS_HANDLERS(merge_request, noteable_merge_request)
DISCUSSIONS_HANDLERS(commit, commit_kind)

static int discussions_resolve_merge_request(request *r)
{
	return resolve_discussion(r, &noteable_merge_request);
}

#define DISCUSSIONS_ROUTES(name, parent)                                                           \
	{"GET", V4 "/projects/:id/" parent "/discussions", discussions_list_##name, AUTH | PR,     \
	 check_list},                                                                              \
		{"GET", V4 "/projects/:id/" parent "/discussions/:discussion_id",                  \
		 discussions_show_##name, AUTH | PR, check_ids},                                   \
		{"POST", V4 "/projects/:id/" parent "/discussions", discussions_create_##name,     \
		 AUTH | PA, check_create},                                                         \
		{"POST", V4 "/projects/:id/" parent "/discussions/:discussion_id/notes",           \
		 discussions_reply_##name, AUTH | PA, check_create},                               \
		{"GET", V4 "/projects/:id/" parent "/discussions/:discussion_id/notes/:note_id",   \
		 discussions_show_note_##name, AUTH | PR, check_ids},                              \
		{"PUT", V4 "/projects/:id/" parent "/discussions/:discussion_id/notes/:note_id",   \
		 discussions_update_note_##name, AUTH | PW, check_update},                         \
	{                                                                                          \
		"DELETE", V4 "/projects/:id/" parent "/discussions/:discussion_id/notes/:note_id", \
			discussions_delete_note_##name, AUTH | PW, check_ids                       \
	}

/* The module's routes (http/router.h), in the order they are matched. */
const route discussions_routes[] = {
	DISCUSSIONS_ROUTES(issue, "issues/:issue_iid"),
	DISCUSSIONS_ROUTES(snippet, "snippets/:snippet_id"),
	DISCUSSIONS_ROUTES(merge_request, "merge_requests/:merge_request_iid"),
	DISCUSSIONS_ROUTES(commit, "repository/commits/:sha"),
	/* 10.8's Noteable::RESOLVABLE_TYPES: merge requests only */
	{"PUT", V4 "/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id",
	 discussions_resolve_merge_request, AUTH | PW, check_resolve},
	{NULL, NULL, NULL, 0, NULL},
};
