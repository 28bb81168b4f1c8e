/* Award emoji on issues, project snippets and merge requests, and on their notes: list,
 * show, award and take back (GitLab 10's lib/api/award_emoji.rb), four routes for each
 * of the six kinds of awardable.
 *
 * The awardable is found as GitLab finds it (none: "404 Not found"); one the caller may
 * not read is "404 Award Emoji Not Found". Awarding takes an emoji's name or an alias
 * (stored by its name, "+1" as "thumbsup"); an unknown name or one awarded already is
 * GitLab's 404 with the validation errors in the message; nobody votes (thumbsup,
 * thumbsdown) on what they wrote. An award is taken back by its user or an admin (else
 * 401, as GitLab). The issue's upvotes and downvotes follow (trigger of sql/0013).
 * Merge requests do not exist yet: 404 Merge Request Not Found. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/emoji.h"
#include "entity/award_emoji.h"
#include "entity/note.h"
#include "http/pagination.h"

const db_stmt award_emoji_stmts[] = {
	/* $1 type, $2 awardable, $3 limit, $4 offset */
	{"award_emoji_list",
	 "WITH f AS (SELECT * FROM award_emoji WHERE awardable_type = $1 AND awardable_id = $2)"
	 " SELECT (SELECT count(*) FROM f), pg.* FROM (SELECT 1) one LEFT JOIN LATERAL"
	 " (SELECT " AWARD_COLS " FROM f a JOIN users u ON u.id = a.user_id ORDER BY a.id"
	 " LIMIT $3 OFFSET $4) pg ON true",
	 4, 1 + AWARD_NCOLS},
	/* $1 award, $2 type, $3 awardable */
	{"award_emoji_show",
	 "SELECT " AWARD_COLS " FROM award_emoji a JOIN users u ON u.id = a.user_id"
	 " WHERE a.id = $1 AND a.awardable_type = $2 AND a.awardable_id = $3",
	 3, AWARD_NCOLS},
	/* $1 type, $2 awardable, $3 name, $4 user: no row when the user awarded it already */
	{"award_emoji_insert",
	 "WITH a AS (INSERT INTO award_emoji (awardable_type, awardable_id, name, user_id)"
	 " VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING *)"
	 " SELECT " AWARD_COLS " FROM a JOIN users u ON u.id = a.user_id",
	 4, AWARD_NCOLS},
	{"award_emoji_delete", "DELETE FROM award_emoji WHERE id = $1", 1, 0},
	{NULL, NULL, 0, 0},
};

/* GitLab's not_found!("<what> <errors>"): the validation errors of an award. */
static int invalid(request *r, const char *what, const char *errors)
{
	return api_error(
		r, 404, arena_printf(r->ctx.a, "404 %s {:name=>[\"%s\"]} Not Found", what, errors));
}

bool award_emoji_allowed(request *r, const char *author_id, const char *name)
{
	const char *emoji = emoji_normalize(name);
	bool vote = emoji && (strcmp(emoji, "thumbsup") == 0 || strcmp(emoji, "thumbsdown") == 0);
	return !(vote && author_id && r->ctx.user->id == strtoll(author_id, NULL, 10));
}

int award_emoji_create(request *r, const char *type, const char *id, const char *name,
		       const char *what)
{
	const char *emoji = emoji_normalize(name);
	if (!emoji)
		return invalid(r, what, "is not included in the list");
	const char *v[4] = {type, id, emoji, api_caller_id(r)};
	int err;
	PGresult *res = db_query(&r->ctx, "award_emoji_insert", 4, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return invalid(r, what, "has already been taken");
	respond_json(r, 201, entity_award_emoji(&r->ctx, res, 0, 0));
	return 0;
}

/* What the route awards: the noteable of kind k, or its note :note_id. */
typedef struct {
	const char *type;
	const char *id;
	const char *author_id;
	bool readable;
} awardable;

/* The route's awardable: 0 with *out, 1 when answered, or an ERR_ code. */
static int awardable_find(request *r, const noteable_kind *k, bool on_note, awardable *out)
{
	noteable n;
	int rc = noteable_find(r, k, true, &n);
	if (rc != 0)
		return rc;
	*out = (awardable){n.type, n.id, n.author_id, n.readable};
	if (on_note) {
		PGresult *note;
		if ((rc = noteable_note(r, &n, &note)) != 0)
			return rc;
		out->type = "Note";
		out->id = db_val(note, 0, 0);
		out->author_id = db_val(note, 0, 9);
	}
	return 0;
}

/* The route's awardable that the caller may read (else 404 Award Emoji Not Found). */
static int readable_awardable(request *r, const noteable_kind *k, bool on_note, awardable *out)
{
	int rc = awardable_find(r, k, on_note, out);
	if (rc == 0 && !out->readable)
		return fail_not_found(r, "Award Emoji");
	return rc;
}

static int list(request *r, const noteable_kind *k, bool on_note)
{
	page_req pg;
	awardable a;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = readable_awardable(r, k, on_note, &a)) != 0)
		return rc < 0 ? rc : 0;
	const char *v[4] = {a.type, a.id, pagination_limit(r, &pg), pagination_offset(r, &pg)};
	return api_page(r, &pg, "award_emoji_list", 4, v, entity_award_emoji);
}

/* Award :award_id of the route's readable awardable: 0 with it in *out, 1 when
 * answered, or an ERR_ code. */
static int find_award(request *r, const noteable_kind *k, bool on_note, PGresult **out)
{
	awardable a;
	int rc = readable_awardable(r, k, on_note, &a);
	if (rc != 0)
		return rc;
	const char *v[3] = {param_str(r, "award_id"), a.type, a.id};
	return api_find(r, "award_emoji_show", 3, v, NULL, out);
}

static int show(request *r, const noteable_kind *k, bool on_note)
{
	PGresult *res;
	int rc = find_award(r, k, on_note, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	respond_json(r, 200, entity_award_emoji(&r->ctx, res, 0, 0));
	return 0;
}

static int create(request *r, const noteable_kind *k, bool on_note)
{
	awardable a;
	int rc = readable_awardable(r, k, on_note, &a);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	const char *name = param_str(r, "name");
	if (!award_emoji_allowed(r, a.author_id, name))
		return fail_not_found(r, "Award Emoji");
	return award_emoji_create(r, a.type, a.id, name, "Award Emoji");
}

static int delete_award(request *r, const noteable_kind *k, bool on_note)
{
	PGresult *res;
	int rc = find_award(r, k, on_note, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	/* its user, or an admin: GitLab's unauthorized! otherwise */
	if (!r->ctx.user->admin && db_int(res, 0, 6) != r->ctx.user->id)
		return ERR_UNAUTHORIZED;
	const char *v[1] = {db_val(res, 0, 0)};
	int err;
	if (!db_query(&r->ctx, "award_emoji_delete", 1, v, &err))
		return err;
	respond_empty(r, 204);
	return 0;
}

static int award_emoji_check_list(request *r)
{
	page_req pg;
	int rc = notes_check_ids(r);
	return rc < 0 ? rc : pagination_parse(r, &pg);
}

static int award_emoji_check_create(request *r)
{
	const char *name;
	int rc = notes_check_ids(r);
	return rc < 0 ? rc : param_require(r, "name", &name);
}

/* The eight handlers of one kind of noteable: on it, and on its notes. */
#define AWARD_HANDLERS(name, kind)                                                                 \
	static int award_emoji_list_##name(request *r)                                             \
	{                                                                                          \
		return list(r, &(kind), false);                                                    \
	}                                                                                          \
	static int award_emoji_show_##name(request *r)                                             \
	{                                                                                          \
		return show(r, &(kind), false);                                                    \
	}                                                                                          \
	static int award_emoji_create_##name(request *r)                                           \
	{                                                                                          \
		return create(r, &(kind), false);                                                  \
	}                                                                                          \
	static int award_emoji_delete_##name(request *r)                                           \
	{                                                                                          \
		return delete_award(r, &(kind), false);                                            \
	}                                                                                          \
	static int award_emoji_list_##name##_note(request *r)                                      \
	{                                                                                          \
		return list(r, &(kind), true);                                                     \
	}                                                                                          \
	static int award_emoji_show_##name##_note(request *r)                                      \
	{                                                                                          \
		return show(r, &(kind), true);                                                     \
	}                                                                                          \
	static int award_emoji_create_##name##_note(request *r)                                    \
	{                                                                                          \
		return create(r, &(kind), true);                                                   \
	}                                                                                          \
	static int award_emoji_delete_##name##_note(request *r)                                    \
	{                                                                                          \
		return delete_award(r, &(kind), true);                                             \
	}
AWARD_HANDLERS(issue, noteable_issue)
AWARD_HANDLERS(snippet, noteable_snippet)
AWARD_HANDLERS(merge_request, noteable_merge_request)

#define AWARD_ROUTES(name, suffix, parent)                                                         \
	{"GET", V4 "/projects/:id/" parent "/award_emoji", award_emoji_list_##name##suffix,        \
	 AUTH | PR, award_emoji_check_list},                                                       \
		{"GET", V4 "/projects/:id/" parent "/award_emoji/:award_id",                       \
		 award_emoji_show_##name##suffix, AUTH | PR, notes_check_ids},                     \
		{"POST", V4 "/projects/:id/" parent "/award_emoji",                                \
		 award_emoji_create_##name##suffix, AUTH | PW, award_emoji_check_create},          \
	{                                                                                          \
		"DELETE", V4 "/projects/:id/" parent "/award_emoji/:award_id",                     \
			award_emoji_delete_##name##suffix, AUTH | PW, notes_check_ids              \
	}

/* The module's routes (http/router.h), in the order they are matched. */
const route award_emoji_routes[] = {
	AWARD_ROUTES(issue, , "issues/:issue_iid"),
	AWARD_ROUTES(issue, _note, "issues/:issue_iid/notes/:note_id"),
	AWARD_ROUTES(snippet, , "snippets/:snippet_id"),
	AWARD_ROUTES(snippet, _note, "snippets/:snippet_id/notes/:note_id"),
	AWARD_ROUTES(merge_request, , "merge_requests/:merge_request_iid"),
	AWARD_ROUTES(merge_request, _note, "merge_requests/:merge_request_iid/notes/:note_id"),
	{NULL, NULL, NULL, 0, NULL},
};
