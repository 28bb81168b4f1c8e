/* Labels of a project (spec 4.8: GitLab 10's lib/api/labels.rb, and the label routes of
 * lib/api/subscriptions.rb), and the same routes for a group's labels (as GitLab 11.8's
 * lib/api/group_labels.rb). The labels available in a project are its own and those of
 * the groups above it (GitLab 10's LabelsFinder), in a group its own and its
 * ancestors', listed by title; the routes that create, change and remove labels act on
 * the scope's own. A group's label is subscribed to per project it is seen in. Reading
 * needs what seeing the project (group) needs, changing is for reporters and up
 * (admin_label), and neither is allowed when a project has both issues and merge
 * requests turned off. Colors are given as #rgb, #rrggbb or a CSS color name and kept
 * as #rrggbb. */
#include <ctype.h>
#include <string.h>

#include "api/api.h"
#include "entity/entity.h"
#include "entity/label.h"

/* Label lookup by id or title: the id first (GitLab's find_by_id || find_by_title). */
#define SQL_LABEL_REF(REF)                                                                         \
	"(l.id = CASE WHEN " REF " ~ '^[0-9]{1,18}$' THEN " REF "::bigint END OR l.title = " REF ")"

/* labels_list's and labels_show's parameters follow SQL_ME's */
enum { LL_PROJECT = ME_NPARAMS, LL_GROUP, LL_LIMIT, LL_OFFSET, LL_NPARAMS };
enum { LS_PROJECT = ME_NPARAMS, LS_ID, LS_NPARAMS };
enum { LFA_ID, LFA_GROUP_LABEL, LFA_NCOLS };
enum { LFT_ID, LFT_GROUP_NAME, LFT_NCOLS };
/* labels_insert's; labels_find_title takes the first three */
enum { LI_PROJECT, LI_GROUP, LI_TITLE, LI_COLOR, LI_DESCRIPTION, LI_PRIORITY, LI_NPARAMS };
enum {
	LU_ID,
	LU_TITLE,
	LU_COLOR,
	LU_HAS_DESCRIPTION,
	LU_DESCRIPTION,
	LU_HAS_PRIORITY,
	LU_PRIORITY,
	LU_NPARAMS
};

const db_stmt labels_stmts[] = {
	/* $1 project: whether labels are available (issues or merge requests on) */
	{"labels_enabled",
	 "SELECT issues_enabled OR merge_requests_enabled FROM projects WHERE id = $1", 1, 1},
	/* $1..$3 the caller (SQL_ME), $4 project, $5 group (one of them NULL), $6 limit,
	 * $7 offset */
	{"labels_list",
	 "WITH " SQL_ME ", avail AS (" SQL_AVAILABLE_LABELS(
		 "$4::bigint",
		 "$5::bigint") ")"
			       " SELECT (SELECT count(*) FROM avail), x.* FROM (SELECT 1) one LEFT JOIN LATERAL"
			       " (SELECT " LABEL_COLS(
				       "$4::bigint") " FROM avail l, me ORDER BY l.title, l.id"
						     " LIMIT $6 OFFSET $7) x ON true",
	 LL_NPARAMS, 1 + LABEL_NCOLS},
	/* $1..$3 the caller, $4 project (NULL in a group), $5 label id */
	{"labels_show",
	 "WITH " SQL_ME " SELECT " LABEL_COLS("$4::bigint") " FROM labels l, me WHERE l.id = $5",
	 LS_NPARAMS, LABEL_NCOLS},
	/* $1 project, $2 group (one of them NULL), $3 id or title: the available label it
	 * names (id first) and whether it is a group label */
	{"labels_find_available",
	 "SELECT l.id, l.group_id IS NOT NULL FROM (" SQL_AVAILABLE_LABELS(
		 "$1::bigint",
		 "$2::bigint") ") l"
			       " WHERE " SQL_LABEL_REF("$3") " ORDER BY l.title = $3, l.id LIMIT 1",
	 3, LFA_NCOLS},
	/* $1 project, $2 group, $3 title: the available label of that title, and the name of
	 * the group that holds it (NULL for a project's own) */
	{"labels_find_title",
	 "SELECT l.id, (SELECT g.name FROM namespaces g WHERE g.id = l.group_id)"
	 " FROM (" SQL_AVAILABLE_LABELS(
		 "$1::bigint",
		 "$2::bigint") ") l WHERE l.title = $3"
			       " ORDER BY l.group_id = $2 DESC NULLS FIRST, l.group_id NULLS FIRST LIMIT 1",
	 3, LFT_NCOLS},
	/* $1 project, $2 group, $3 title: the project's (the group's) own label of that
	 * title, locked */
	{"labels_find_own",
	 "SELECT id FROM labels WHERE (project_id = $1 OR group_id = $2) AND title = $3"
	 " FOR UPDATE",
	 3, 1},
	{"labels_insert",
	 "INSERT INTO labels (project_id, group_id, title, color, description, priority)"
	 " VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
	 LI_NPARAMS, 1},
	/* $1 label, $2 new title or NULL, $3 color or NULL, $4 whether the description is
	 * given, $5 the description, $6 whether the priority is given, $7 the priority */
	{"labels_update",
	 "UPDATE labels SET title = coalesce($2, title), color = coalesce($3, color),"
	 " description = CASE WHEN $4::boolean THEN $5 ELSE description END,"
	 " priority = CASE WHEN $6::boolean THEN $7::int ELSE priority END, updated_at = now()"
	 " WHERE id = $1",
	 LU_NPARAMS, 0},
	/* $1 label: removed with its board lists, the lists after them moved up one so that
	 * every board's positions stay 0..n-1 */
	{"labels_delete",
	 "WITH gone AS (DELETE FROM board_lists WHERE label_id = $1 RETURNING board_id, position),"
	 " shift AS (UPDATE board_lists b SET position = b.position - 1, updated_at = now()"
	 " FROM gone g WHERE b.board_id = g.board_id AND b.list_type = 1"
	 " AND b.position > g.position)"
	 " DELETE FROM labels WHERE id = $1",
	 1, 0},
	/* $1 user, $2 label, $3 the project a group label is subscribed in (NULL for a
	 * project label): a row when the subscription changed */
	{"labels_subscribe",
	 "INSERT INTO subscriptions AS s (user_id, subscribable_type, subscribable_id, project_id,"
	 " subscribed) VALUES ($1, 'Label', $2, $3, true)"
	 " ON CONFLICT (subscribable_type, subscribable_id, user_id, coalesce(project_id, 0))"
	 " DO UPDATE SET subscribed = true, updated_at = now() WHERE NOT s.subscribed"
	 " RETURNING 1",
	 3, 1},
	{"labels_unsubscribe",
	 "UPDATE subscriptions SET subscribed = false, updated_at = now()"
	 " WHERE subscribable_type = 'Label' AND subscribable_id = $2 AND user_id = $1"
	 " AND coalesce(project_id, 0) = coalesce($3::bigint, 0) AND subscribed RETURNING 1",
	 3, 1},
	/* $1 project, $2 titles (text[]): for each title in order, the id of the available
	 * label of that title, the project's own made (GitLab's default color) when there is
	 * none; NULL when another transaction made it at the same moment */
	{"labels_ensure",
	 "WITH avail AS (" SQL_AVAILABLE_LABELS(
		 "$1::bigint",
		 "NULL::bigint") "),"
				 " t AS (SELECT x.title, x.i FROM unnest($2::text[]) WITH ORDINALITY x(title, i)),"
				 " ins AS (INSERT INTO labels (project_id, title, color) SELECT DISTINCT $1::bigint,"
				 " t.title, '#428bca' FROM t WHERE NOT EXISTS (SELECT 1 FROM avail a"
				 " WHERE a.title = t.title) ON CONFLICT DO NOTHING RETURNING id, title)"
				 " SELECT coalesce((SELECT a.id FROM avail a WHERE a.title = t.title"
				 " ORDER BY a.group_id NULLS FIRST LIMIT 1), (SELECT ins.id FROM ins"
				 " WHERE ins.title = t.title)) FROM t ORDER BY t.i",
	 2, 1},
	{NULL, NULL, 0, 0},
};

/* ---- colors ---- */

/* The CSS color names GitLab 10's Labels services accept, with their values. */
static const struct {
	const char *name;
	const char *hex;
} css_colors[] = {
	{"aliceblue", "f0f8ff"},
	{"antiquewhite", "faebd7"},
	{"aqua", "00ffff"},
	{"aquamarine", "7fffd4"},
	{"azure", "f0ffff"},
	{"beige", "f5f5dc"},
	{"bisque", "ffe4c4"},
	{"black", "000000"},
	{"blanchedalmond", "ffebcd"},
	{"blue", "0000ff"},
	{"blueviolet", "8a2be2"},
	{"brown", "a52a2a"},
	{"burlywood", "deb887"},
	{"cadetblue", "5f9ea0"},
	{"chartreuse", "7fff00"},
	{"chocolate", "d2691e"},
	{"coral", "ff7f50"},
	{"cornflowerblue", "6495ed"},
	{"cornsilk", "fff8dc"},
	{"crimson", "dc143c"},
	{"cyan", "00ffff"},
	{"darkblue", "00008b"},
	{"darkcyan", "008b8b"},
	{"darkgoldenrod", "b8860b"},
	{"darkgray", "a9a9a9"},
	{"darkgreen", "006400"},
	{"darkgrey", "a9a9a9"},
	{"darkkhaki", "bdb76b"},
	{"darkmagenta", "8b008b"},
	{"darkolivegreen", "556b2f"},
	{"darkorange", "ff8c00"},
	{"darkorchid", "9932cc"},
	{"darkred", "8b0000"},
	{"darksalmon", "e9967a"},
	{"darkseagreen", "8fbc8f"},
	{"darkslateblue", "483d8b"},
	{"darkslategray", "2f4f4f"},
	{"darkslategrey", "2f4f4f"},
	{"darkturquoise", "00ced1"},
	{"darkviolet", "9400d3"},
	{"deeppink", "ff1493"},
	{"deepskyblue", "00bfff"},
	{"dimgray", "696969"},
	{"dimgrey", "696969"},
	{"dodgerblue", "1e90ff"},
	{"firebrick", "b22222"},
	{"floralwhite", "fffaf0"},
	{"forestgreen", "228b22"},
	{"fuchsia", "ff00ff"},
	{"gainsboro", "dcdcdc"},
	{"ghostwhite", "f8f8ff"},
	{"gold", "ffd700"},
	{"goldenrod", "daa520"},
	{"gray", "808080"},
	{"green", "008000"},
	{"greenyellow", "adff2f"},
	{"grey", "808080"},
	{"honeydew", "f0fff0"},
	{"hotpink", "ff69b4"},
	{"indianred", "cd5c5c"},
	{"indigo", "4b0082"},
	{"ivory", "fffff0"},
	{"khaki", "f0e68c"},
	{"lavender", "e6e6fa"},
	{"lavenderblush", "fff0f5"},
	{"lawngreen", "7cfc00"},
	{"lemonchiffon", "fffacd"},
	{"lightblue", "add8e6"},
	{"lightcoral", "f08080"},
	{"lightcyan", "e0ffff"},
	{"lightgoldenrodyellow", "fafad2"},
	{"lightgray", "d3d3d3"},
	{"lightgreen", "90ee90"},
	{"lightgrey", "d3d3d3"},
	{"lightpink", "ffb6c1"},
	{"lightsalmon", "ffa07a"},
	{"lightseagreen", "20b2aa"},
	{"lightskyblue", "87cefa"},
	{"lightslategray", "778899"},
	{"lightslategrey", "778899"},
	{"lightsteelblue", "b0c4de"},
	{"lightyellow", "ffffe0"},
	{"lime", "00ff00"},
	{"limegreen", "32cd32"},
	{"linen", "faf0e6"},
	{"magenta", "ff00ff"},
	{"maroon", "800000"},
	{"mediumaquamarine", "66cdaa"},
	{"mediumblue", "0000cd"},
	{"mediumorchid", "ba55d3"},
	{"mediumpurple", "9370db"},
	{"mediumseagreen", "3cb371"},
	{"mediumslateblue", "7b68ee"},
	{"mediumspringgreen", "00fa9a"},
	{"mediumturquoise", "48d1cc"},
	{"mediumvioletred", "c71585"},
	{"midnightblue", "191970"},
	{"mintcream", "f5fffa"},
	{"mistyrose", "ffe4e1"},
	{"moccasin", "ffe4b5"},
	{"navajowhite", "ffdead"},
	{"navy", "000080"},
	{"oldlace", "fdf5e6"},
	{"olive", "808000"},
	{"olivedrab", "6b8e23"},
	{"orange", "ffa500"},
	{"orangered", "ff4500"},
	{"orchid", "da70d6"},
	{"palegoldenrod", "eee8aa"},
	{"palegreen", "98fb98"},
	{"paleturquoise", "afeeee"},
	{"palevioletred", "db7093"},
	{"papayawhip", "ffefd5"},
	{"peachpuff", "ffdab9"},
	{"peru", "cd853f"},
	{"pink", "ffc0cb"},
	{"plum", "dda0dd"},
	{"powderblue", "b0e0e6"},
	{"purple", "800080"},
	{"red", "ff0000"},
	{"rosybrown", "bc8f8f"},
	{"royalblue", "4169e1"},
	{"saddlebrown", "8b4513"},
	{"salmon", "fa8072"},
	{"sandybrown", "f4a460"},
	{"seagreen", "2e8b57"},
	{"seashell", "fff5ee"},
	{"sienna", "a0522d"},
	{"silver", "c0c0c0"},
	{"skyblue", "87ceeb"},
	{"slateblue", "6a5acd"},
	{"slategray", "708090"},
	{"slategrey", "708090"},
	{"snow", "fffafa"},
	{"springgreen", "00ff7f"},
	{"steelblue", "4682b4"},
	{"tan", "d2b48c"},
	{"teal", "008080"},
	{"thistle", "d8bfd8"},
	{"tomato", "ff6347"},
	{"turquoise", "40e0d0"},
	{"violet", "ee82ee"},
	{"wheat", "f5deb3"},
	{"white", "ffffff"},
	{"whitesmoke", "f5f5f5"},
	{"yellow", "ffff00"},
	{"yellowgreen", "9acd32"},
};

/* The color s names as #rrggbb (lower case) in a: #rgb, #rrggbb (any case) or a CSS
 * color name (case and surrounding blanks aside); NULL when it is none of them. */
static const char *label_color(arena *a, const char *s)
{
	if (s[0] == '#') {
		size_t n = strlen(s + 1);
		if (n != 3 && n != 6)
			return NULL;
		char *out = arena_alloc(a, 8);
		out[0] = '#';
		for (size_t i = 0; i < 6; i++) {
			unsigned char c = (unsigned char)s[1 + (n == 3 ? i / 2 : i)];
			if (!isxdigit(c))
				return NULL;
			out[1 + i] = (char)tolower(c);
		}
		out[7] = '\0';
		return out;
	}
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	for (size_t i = 0; i < sizeof(css_colors) / sizeof(*css_colors); i++)
		if (strlen(css_colors[i].name) == n && strncasecmp(css_colors[i].name, s, n) == 0)
			return arena_printf(a, "#%s", css_colors[i].hex);
	return NULL;
}

/* ---- shared by the handlers ---- */

/* Whose labels a route is about: the route's project or group (the other NULL). */
typedef struct {
	const char *project;
	const char *group;
} label_scope;

/* The route's scope, when its labels may be used (a project's: issues or merge requests
 * on) and, when admin, changed (reporters and up: GitLab's admin_label of projects and
 * groups): 0 or ERR_FORBIDDEN. */
static int labels_scope(request *r, bool admin, label_scope *out)
{
	*out = (label_scope){r->project ? r->project->id : NULL, r->group ? r->group->id : NULL};
	if (r->group)
		return !admin || r->group->ga.admin || r->group->ga.level >= ACCESS_REPORTER
			       ? 0
			       : ERR_FORBIDDEN;
	const char *v[1] = {r->project->id};
	int err;
	PGresult *res = db_query(&r->ctx, "labels_enabled", 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0 || !db_bool(res, 0, 0))
		return ERR_FORBIDDEN;
	if (admin && project_ability_level(&r->project->pa) < ACCESS_REPORTER)
		return ERR_FORBIDDEN;
	return 0;
}

/* Answers label id as Entities::Label in the scope, with status. */
static int present(request *r, const label_scope *sc, const char *id, int status)
{
	const char *v[] = {[LS_PROJECT] = sc->project, [LS_ID] = id};
	DB_PARAMS(v, LS_NPARAMS);
	access_me_params(&r->ctx, v);
	int err;
	PGresult *res = db_query(&r->ctx, "labels_show", LS_NPARAMS, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_not_found(r, "Label");
	respond_json(r, status, entity_label(&r->ctx, res, 0, 0));
	return 0;
}

/* priority: 0 with *out (NULL for a blank value, which removes it), 1 when absent, or
 * ERR_INVALID / ERR_VALIDATION (below 0). */
static int label_priority(request *r, const char **out)
{
	*out = NULL;
	const char *s = param_str(r, "priority");
	if (!param_find(r, "priority"))
		return 1;
	if (!s || !*s)
		return 0;
	long long v;
	int rc = param_int(r, "priority", &v);
	if (rc < 0)
		return rc;
	if (v < 0)
		return fail_validation(r, "priority", "must be greater than or equal to 0");
	if (v > 2147483647)
		return fail_validation(r, "priority", "must be less than or equal to 2147483647");
	*out = arena_printf(r->ctx.a, "%lld", v);
	return 0;
}

/* The description and priority of a create or an edit, read after the other
 * attributes so that every validation failure of the request is in r: label_priority's
 * 0 or 1 (priority absent), ERR_VALIDATION, or another ERR_ code. */
static int read_description_priority(request *r, const char **description, const char **priority)
{
	if (param_text(r, "description", 65535, description) < 0 && !r->validation)
		return ERR_INVALID;
	int rc = label_priority(r, priority);
	if (rc < 0 && rc != ERR_VALIDATION)
		return rc;
	return r->validation ? ERR_VALIDATION : rc;
}

/* The title validations of the Label model, left in r. */
static void check_title(request *r, const char *title)
{
	if (strchr(title, ','))
		fail_validation(r, "title", "is invalid");
	if (strlen(title) > 255)
		fail_validation(r, "title", "is too long (maximum is 255 characters)");
}

/* ---- routes: each serves /projects/:id/labels... and /groups/:id/labels... ---- */

static int labels_list(request *r)
{
	page_req pg;
	label_scope sc;
	int rc = pagination_parse(r, &pg);
	if (rc < 0 || (rc = labels_scope(r, false, &sc)) < 0)
		return rc;
	const char *v[] = {[LL_PROJECT] = sc.project,
			   [LL_GROUP] = sc.group,
			   [LL_LIMIT] = pagination_limit(r, &pg),
			   [LL_OFFSET] = pagination_offset(r, &pg)};
	DB_PARAMS(v, LL_NPARAMS);
	access_me_params(&r->ctx, v);
	return api_page(r, &pg, "labels_list", LL_NPARAMS, v, entity_label);
}

static int labels_check_create(request *r)
{
	const char *s, *prio;
	int rc;
	if ((rc = param_require(r, "name", &s)) < 0 || (rc = param_require(r, "color", &s)) < 0)
		return rc;
	rc = label_priority(r, &prio);
	return rc == ERR_VALIDATION ? 0 : rc; /* validations come after the lookups */
}

static int labels_create(request *r)
{
	label_scope sc;
	int rc = labels_scope(r, true, &sc);
	if (rc < 0)
		return rc;
	const char *title = param_str(r, "name");
	const char *color = label_color(r->ctx.a, param_str(r, "color"));
	const char *description = NULL, *priority;
	const char *v[LI_NPARAMS] = {
		[LI_PROJECT] = sc.project, [LI_GROUP] = sc.group, [LI_TITLE] = title};
	int err;
	PGresult *res = db_query(&r->ctx, "labels_find_title", 3, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) > 0)
		return fail(r, ERR_CONFLICT, "Label already exists");
	check_title(r, title);
	if (!color)
		fail_validation(r, "color", "must be a valid color code");
	if ((rc = read_description_priority(r, &description, &priority)) < 0)
		return rc;
	v[LI_COLOR] = color;
	v[LI_DESCRIPTION] = description;
	v[LI_PRIORITY] = priority;
	res = db_query(&r->ctx, "labels_insert", LI_NPARAMS, v, &err);
	if (!res) {
		if (err == ERR_CONFLICT) /* made at the same moment by another request */
			return fail(r, ERR_CONFLICT, "Label already exists");
		return err;
	}
	return present(r, &sc, db_val(res, 0, 0), 201);
}

static int labels_check_update(request *r)
{
	const char *s, *prio;
	int rc = param_require(r, "name", &s);
	if (rc < 0)
		return rc;
	if ((rc = label_priority(r, &prio)) < 0 && rc != ERR_VALIDATION)
		return rc;
	if (!param_find(r, "new_name") && !param_find(r, "color") &&
	    !param_find(r, "description") && !param_find(r, "priority"))
		return fail(r, ERR_INVALID,
			    "new_name, color, description, priority are missing, at least one "
			    "parameter must be provided");
	return 0;
}

/* The scope's own label of :name (locked): 0 with its id, or 404 named what. */
static int find_own(request *r, const label_scope *sc, const char *what, const char **id)
{
	const char *v[3] = {sc->project, sc->group, param_str(r, "name")};
	int err;
	PGresult *res = db_query(&r->ctx, "labels_find_own", 3, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_not_found(r, what);
	*id = db_val(res, 0, 0);
	return 0;
}

static int labels_update(request *r)
{
	label_scope sc;
	const char *id;
	int rc = labels_scope(r, true, &sc);
	if (rc < 0 || (rc = find_own(r, &sc, "Label not found", &id)) < 0) /* sic: GitLab 10 */
		return rc;
	const char *title = param_str(r, "new_name"), *color = NULL, *description = NULL,
		   *priority = NULL;
	int err;
	if (title && *title) {
		check_title(r, title);
		const char *fv[3] = {sc.project, sc.group, title};
		PGresult *same = db_query(&r->ctx, "labels_find_title", 3, fv, &err);
		if (!same)
			return err;
		bool taken = PQntuples(same) > 0 && strcmp(db_val(same, 0, LFT_ID), id) != 0;
		if (taken && (PQgetisnull(same, 0, LFT_GROUP_NAME) || sc.group))
			fail_validation(r, "title", "has already been taken");
		else if (taken)
			fail_validation(r, "title",
					arena_printf(r->ctx.a,
						     "already exists at group level for %s. "
						     "Please choose another one.",
						     db_val(same, 0, LFT_GROUP_NAME)));
	} else if (title) {
		fail_validation(r, "title", "can't be blank");
	}
	const char *color_in = param_str(r, "color");
	if (param_find(r, "color") && !(color_in && (color = label_color(r->ctx.a, color_in))))
		fail_validation(r, "color", "must be a valid color code");
	bool has_description = param_find(r, "description") != NULL;
	if ((rc = read_description_priority(r, &description, &priority)) < 0)
		return rc;
	const char *uv[] = {[LU_ID] = id,
			    [LU_TITLE] = title,
			    [LU_COLOR] = color,
			    [LU_HAS_DESCRIPTION] = has_description ? "true" : "false",
			    [LU_DESCRIPTION] = description,
			    [LU_HAS_PRIORITY] = rc == 0 ? "true" : "false",
			    [LU_PRIORITY] = priority};
	DB_PARAMS(uv, LU_NPARAMS);
	if (!db_query(&r->ctx, "labels_update", LU_NPARAMS, uv, &err)) {
		if (err == ERR_CONFLICT) {
			r->ctx.err_detail = NULL;
			return fail_validation(r, "title", "has already been taken");
		}
		return err;
	}
	return present(r, &sc, id, 200);
}

static int labels_check_delete(request *r)
{
	const char *s;
	return param_require(r, "name", &s);
}

static int labels_delete(request *r)
{
	label_scope sc;
	const char *id;
	int rc = labels_scope(r, true, &sc);
	if (rc < 0 || (rc = find_own(r, &sc, "Label", &id)) < 0)
		return rc;
	int err;
	if (!db_query(&r->ctx, "labels_delete", 1, &id, &err))
		return err;
	respond_empty(r, 204);
	return 0;
}

/* POST .../subscribe and .../unsubscribe: the label (201), or 304 when nothing changed.
 * A group's label is subscribed to in the project it is shown in (in none when shown in
 * a group). */
static int set_subscription(request *r, bool subscribe)
{
	label_scope sc;
	int rc = labels_scope(r, false, &sc);
	if (rc < 0)
		return rc;
	const char *v[3] = {sc.project, sc.group, param_str(r, "label_id")};
	int err;
	PGresult *res = db_query(&r->ctx, "labels_find_available", 3, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_not_found(r, "Label");
	const char *id = db_val(res, 0, LFA_ID);
	v[0] = api_caller_id(r);
	v[1] = id;
	v[2] = db_bool(res, 0, LFA_GROUP_LABEL) ? sc.project : NULL;
	res = db_query(&r->ctx, subscribe ? "labels_subscribe" : "labels_unsubscribe", 3, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_NOT_MODIFIED;
	return present(r, &sc, id, 201);
}

static int labels_subscribe(request *r)
{
	return set_subscription(r, true);
}

static int labels_unsubscribe(request *r)
{
	return set_subscription(r, false);
}

/* ---- for the issues (and merge requests) that name labels by title ---- */

int labels_ensure(request *r, const char *project_id, const char *titles, const char **ids)
{
	const char *v[2] = {project_id, titles};
	int err;
	PGresult *res = db_query(&r->ctx, "labels_ensure", 2, v, &err);
	if (!res)
		return err;
	buf b;
	buf_init(&b, r->ctx.a, 64);
	buf_puts(&b, "{");
	for (int i = 0; i < PQntuples(res); i++) {
		if (PQgetisnull(res, i, 0))
			return fail(r, ERR_CONFLICT, "Label already exists");
		buf_printf(&b, "%s%s", i ? "," : "", db_val(res, i, 0));
	}
	buf_puts(&b, "}");
	if (ids)
		*ids = buf_cstr(&b);
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route labels_routes[] = {
	{"GET", V4 "/projects/:id/labels", labels_list, AUTH | PR, NULL},
	{"POST", V4 "/projects/:id/labels", labels_create, AUTH | PW, labels_check_create},
	{"PUT", V4 "/projects/:id/labels", labels_update, AUTH | PW, labels_check_update},
	{"DELETE", V4 "/projects/:id/labels", labels_delete, AUTH | PW, labels_check_delete},
	{"POST", V4 "/projects/:id/labels/:label_id/subscribe", labels_subscribe, AUTH | PW, NULL},
	{"POST", V4 "/projects/:id/labels/:label_id/unsubscribe", labels_unsubscribe, AUTH | PW,
	 NULL},
	/* group labels (GitLab 11.8's lib/api/group_labels.rb) */
	{"GET", V4 "/groups/:id/labels", labels_list, AUTH | GR, NULL},
	{"POST", V4 "/groups/:id/labels", labels_create, AUTH | GW, labels_check_create},
	{"PUT", V4 "/groups/:id/labels", labels_update, AUTH | GW, labels_check_update},
	{"DELETE", V4 "/groups/:id/labels", labels_delete, AUTH | GW, labels_check_delete},
	{"POST", V4 "/groups/:id/labels/:label_id/subscribe", labels_subscribe, AUTH | GW, NULL},
	{"POST", V4 "/groups/:id/labels/:label_id/unsubscribe", labels_unsubscribe, AUTH | GW,
	 NULL},
	{NULL, NULL, NULL, 0, NULL},
};
