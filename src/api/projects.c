/* Projects (4.1) and the project operations of GitLab 10.0: the lists (all visible
 * projects, a user's, a project's forks), one project by id or URL-encoded full path,
 * create (for oneself or, as an admin, for a user), edit, delete, fork, star and unstar,
 * archive and unarchive.
 *
 * Every project has a bare repository stored by its id (git/repo.h:
 * <storage>/repositories/@hashed/..., as GitLab's hashed storage), created with the
 * project; a rename or a transfer moves nothing on disk. A deletion marks the project
 * pending_delete, and the background process removes the rows, the repository and the
 * wiki (background.c, job delete_project); until then no statement here or elsewhere
 * finds it. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "core/storages.h"
#include "db/repos.h"
#include "api/api.h"
#include "db/settings.h"
#include "auth/access.h"
#include "auth/auth.h"
#include "db/queue.h"
#include "core/crypto.h"
#include "core/log.h"
#include "core/validate.h"
#include "entity/entity.h"
#include "entity/project.h"
#include "git/repo.h"
#include "core/deps.h"
#include "http/pagination.h"
#include "http/router.h"

/* ---- lists ---- */

/* The filters of a list, on projects p and me: $4 archived (NULL: any), $5 visibility,
 * $10 with_issues_enabled, $11 with_merge_requests_enabled; and those that need a
 * subquery: $6 search (name, path, description, namespace name), $7 owned (owned_ns),
 * $9 starred (ignored without a caller, as GitLab), $12 a user (id or username: their
 * namespace's projects), $13 a group (its own projects and those shared with it); $18 a
 * project (its forks); $19 custom attributes (a jsonb object that the project's
 * attributes must hold).
 * Namespaces are read only by the filters that need them. */
#define PL_CUSTOM_ATTRIBUTES                                                                       \
	SQL_CUSTOM_ATTRIBUTES_MATCH("$19", "project_custom_attributes", "project_id", "p.id")
#define PL_FILTER_PLAIN                                                                            \
	" NOT p.pending_delete AND " SQL_PROJECT_LISTED(                                           \
		"p") " AND ($4::boolean IS NULL OR p.archived = $4::boolean)"                      \
		     " AND ($5::smallint IS NULL OR p.visibility = $5::smallint)"                  \
		     " AND ($10::boolean IS NOT TRUE OR p.issues_enabled)"                         \
		     " AND ($11::boolean IS NOT TRUE OR p.merge_requests_enabled)"                 \
		     " AND ($18::bigint IS NULL OR p.forked_from_id = $18::bigint)"
#define PL_FILTER                                                                                                                         \
	PL_FILTER_PLAIN                                                                                                                   \
	" AND ($6::text IS NULL OR p.name ILIKE " SQL_LIKE("$6") " OR p.path ILIKE " SQL_LIKE("$6") "  OR p.description ILIKE " SQL_LIKE( \
		"$6") " OR p.namespace_id IN (SELECT sn.id"                                                                               \
		      "  FROM namespaces sn WHERE sn.name ILIKE " SQL_LIKE(                                                               \
			      "$6") "))"                                                                                                  \
				    " AND ($7::boolean IS NOT TRUE OR p.namespace_id IN (SELECT id FROM owned_ns))"                       \
				    " AND ($9::boolean IS NOT TRUE OR me.id IS NULL OR p.id IN (SELECT s.project_id"                      \
				    "  FROM me sm JOIN users_star_projects s ON s.user_id = sm.id))"                                      \
				    " AND ($12::text IS NULL OR p.namespace_id IN (SELECT id FROM owner_ns))"                             \
				    " AND ($13::bigint IS NULL OR p.namespace_id = $13::bigint OR p.id IN"                                \
				    "  (SELECT l.project_id FROM project_group_links l WHERE l.group_id = $13::bigint))"                  \
				    " AND " PL_CUSTOM_ATTRIBUTES
/* PL_FILTER for the lists without the filters that need a subquery (the most asked
 * for: a statement pays for the start-up of every subquery of its plan at each
 * execution, used or not). */
#define PL_FILTER_LEAN                                                                             \
	PL_FILTER_PLAIN " AND $6::text IS NULL AND $7::boolean IS NOT TRUE"                        \
			" AND ($9::boolean IS NOT TRUE OR me.id IS NULL) AND $12::text IS NULL"    \
			" AND $13::bigint IS NULL AND $19::jsonb IS NULL"

/* The sort keys ($14 order_by from the whitelist, $15 ascending): one text and one
 * time key, the other NULL, then the id. */
#define PL_KEYS                                                                                    \
	"p.id, CASE $14::text WHEN 'name' THEN p.name WHEN 'path' THEN p.path END AS kt,"          \
	" CASE $14::text WHEN 'created_at' THEN p.created_at WHEN 'updated_at' THEN p.updated_at"  \
	" WHEN 'last_activity_at' THEN p.last_activity_at END AS kts"
#define PL_ORDER(T)                                                                                \
	" ORDER BY CASE WHEN $15::boolean THEN " T ".kt END ASC,"                                  \
	" CASE WHEN NOT $15::boolean THEN " T ".kt END DESC,"                                      \
	" CASE WHEN $15::boolean THEN " T ".kts END ASC,"                                          \
	" CASE WHEN NOT $15::boolean THEN " T ".kts END DESC,"                                     \
	" CASE WHEN $15::boolean THEN " T ".id END ASC, " T ".id DESC"

/* The candidates of a page, one statement each: a statement pays at every execution
 * for the start-up of all of its plan, whichever branch its parameters select, so each
 * kind of list has its own (projects_list_scoped() picks it; the guards on the
 * parameters stay, for whoever calls one with the parameters of another). All the
 * projects the caller may see; with membership ($8) the caller's memberships and
 * personal namespace (the projects found by their ids in one index scan); for a user or a group ($12, $13) their namespace (and the group's
 * links); with starred ($9) the caller's stars: each fetched by key, not from every
 * project. */
#define PL_ALL(filter)                                                                             \
	"SELECT " PL_KEYS " FROM projects p CROSS JOIN me"                                         \
	" WHERE $8::boolean IS NOT TRUE AND $12::text IS NULL AND $13::bigint IS NULL"             \
	" AND ($9::boolean IS NOT TRUE OR $1::bigint IS NULL) AND" filter
#define PL_MINE_IDS                                                                                \
	"ARRAY(SELECT id FROM mine UNION ALL SELECT up.id FROM me JOIN namespaces un"              \
	" ON un.owner_id = me.id AND un.kind = 'user' JOIN projects up"                            \
	" ON up.namespace_id = un.id AND NOT up.pending_delete)"
#define PL_MEMBERSHIP(filter)                                                                      \
	"SELECT " PL_KEYS " FROM projects p CROSS JOIN me WHERE p.id = ANY (" PL_MINE_IDS ")"      \
	" AND $8::boolean AND" filter
#define PL_SCOPED                                                                                  \
	"SELECT " PL_KEYS " FROM (SELECT sp.id FROM projects sp"                                   \
	" WHERE sp.namespace_id IN (SELECT id FROM owner_ns) AND NOT sp.pending_delete"            \
	" UNION SELECT sp.id FROM projects sp WHERE sp.namespace_id = $13::bigint"                 \
	" AND NOT sp.pending_delete UNION SELECT sl.project_id FROM project_group_links sl"        \
	" WHERE sl.group_id = $13::bigint) x CROSS JOIN LATERAL"                                   \
	" (SELECT * FROM projects WHERE id = x.id OFFSET 0) p CROSS JOIN me"                       \
	" WHERE $8::boolean IS NOT TRUE AND ($12::text IS NOT NULL OR $13::bigint IS NOT NULL)"    \
	" AND" PL_FILTER
#define PL_STARRED                                                                                 \
	"SELECT " PL_KEYS " FROM users_star_projects x CROSS JOIN LATERAL"                         \
	" (SELECT * FROM projects WHERE id = x.project_id OFFSET 0) p CROSS JOIN me"               \
	" WHERE x.user_id = $1::bigint AND $8::boolean IS NOT TRUE AND $12::text IS NULL"          \
	" AND $13::bigint IS NULL AND $9::boolean AND $1::bigint IS NOT NULL AND" PL_FILTER
/* The forks of project $18 (GitLab's ForkProjectsFinder: the list of GET /projects, of
 * the source's direct forks), found by their source's key; membership ($8) here, the
 * other filters as every list's. */
#define PL_FORKS                                                                                   \
	"SELECT " PL_KEYS " FROM projects p CROSS JOIN me WHERE p.forked_from_id = $18::bigint"    \
	" AND $12::text IS NULL AND $13::bigint IS NULL"                                           \
	" AND ($8::boolean IS NOT TRUE OR p.id = ANY (" PL_MINE_IDS ")) AND" PL_FILTER

/* A page of projects: column 0 the total (NULL for a page past the end: the handler
 * asks for the first row then, rather than every statement holding a second plan of the
 * candidates to count them), 1 whether the user $12 exists (true without one: user is
 * PL_USER_EXISTS for the lists of a user, PL_NO_USER for the others, whose candidates
 * are none when $12 is given, and whose plans need not start owner_ns), the record
 * from 2. One pass over the candidates gives the page and the total; the page's
 * rows ($16 limit, $17 offset) are fetched by key. */
#define PL_USER_EXISTS "EXISTS (SELECT 1 FROM owner_ns)"
#define PL_NO_USER "false"
#define PROJECTS_LIST(ME, candidates, user, cols)                                                  \
	PROJECTS_LIST_AS(ME, "", "(SELECT 1) one", candidates, user, cols)
/* The same with the caller found by token ($1 digest, $2 oauth; $3 NULL, unused but for
 * the parameters' numbering) in the same round trip: the AUTH_LEAN columns first; no row
 * when the token matches nothing. */
#define PL_ME_AUTH                                                                                 \
	"auth AS (SELECT " AUTH_LEAN " FROM " AUTH_FROM "), me AS (SELECT id, is_admin AS admin,"  \
	" external OR coalesce($3::boolean, false) AS external FROM auth)"
#define PROJECTS_LIST_AUTH(candidates, user, cols)                                                 \
	PROJECTS_LIST_AS(PL_ME_AUTH, "a.*, ", "auth a", candidates, user, cols)
#define PROJECTS_LIST_AS(ME, first, from, candidates, user, cols)                                            \
	"WITH " ME ", mine AS (" SQL_MY_PROJECTS "),"                                                        \
	" owned_ns AS (SELECT n.id FROM me JOIN namespaces n ON n.owner_id = me.id"                          \
	"  AND n.kind = 'user' UNION SELECT m.source_id FROM me JOIN members m"                              \
	"  ON m.user_id = me.id AND m.source_type = 'Namespace' AND m.access_level = 50"                     \
	"  AND " SQL_MEMBER_ACTIVE(                                                                          \
		"m") "),"                                                                                    \
		     " owner_ns AS (SELECT un.id FROM users uu JOIN namespaces un ON un.owner_id = uu.id"    \
		     "  AND un.kind = 'user' WHERE $12::text ~ '^[0-9]+$' AND NOT uu.ghost"                  \
		     "  AND uu.id = (CASE WHEN $12::text ~ '^[0-9]{1,18}$' THEN $12::bigint END)"            \
		     "  UNION ALL SELECT un.id FROM users uu JOIN namespaces un ON un.owner_id = uu.id"      \
		     "  AND un.kind = 'user' WHERE $12::text !~ '^[0-9]+$' AND NOT uu.ghost"                 \
		     "  AND lower(uu.username) = lower($12::text)),"                                         \
		     " f AS NOT MATERIALIZED (" candidates "),"                                              \
		     " pg AS (SELECT id, kt, kts, count(*) OVER () AS total FROM f" PL_ORDER(                \
			     "f") "  LIMIT $16 OFFSET $17)"                                                  \
				  "SELECT " first "(SELECT total FROM pg LIMIT 1),"                          \
				  " ($12::text IS NULL OR " user "), pr.* FROM " from                        \
				  " LEFT JOIN LATERAL (SELECT " cols " FROM pg"                              \
				  " CROSS JOIN LATERAL (SELECT * FROM projects WHERE id = pg.id OFFSET 0) p" \
				  " JOIN namespaces n ON n.id = p.namespace_id CROSS JOIN me" PL_ORDER(      \
					  "pg") ") pr ON true"
/* The two views of each kind of list, with the caller given ($1..$3); found by token
 * (_auth) for some. */
#define PL_FULL_COLS                                                                               \
	PROJECT_COLS_SHARED(PROJECT_SHARED_LINKS("me.id"))                                         \
	", " PROJECT_CALLER_LIST_COLS("SELECT id FROM pg")
#define PL_FULL_NCOLS (PL_RECORD + PROJECT_NCOLS + PROJECT_CALLER_NCOLS)
#define PL_SIMPLE_NCOLS (PL_RECORD + PROJECT_BASIC_NCOLS)
/* The lists' parameters: SQL_ME's (or the token's, PL_ME_AUTH), then as PL_FILTER, PL_KEYS
 * and PROJECTS_LIST; the fast membership list's: the page only */
enum {
	PLS_ARCHIVED = ME_NPARAMS,
	PLS_VISIBILITY,
	PLS_SEARCH,
	PLS_OWNED,
	PLS_MEMBERSHIP,
	PLS_STARRED,
	PLS_ISSUES,
	PLS_MRS,
	PLS_USER,
	PLS_GROUP,
	PLS_ORDER,
	PLS_ASC,
	PLS_LIMIT,
	PLS_OFFSET,
	PLS_FORK_OF,
	PLS_CUSTOM_ATTRIBUTES,
	PLS_NPARAMS
};
enum { PLF_LIMIT = ME_NPARAMS, PLF_OFFSET, PLF_NPARAMS };
#define PROJECTS_LISTS(name, candidates, user)                                                     \
	{"projects_list_" name, PROJECTS_LIST(SQL_ME, candidates, user, PL_FULL_COLS),             \
	 PLS_NPARAMS, PL_FULL_NCOLS},                                                              \
	{                                                                                          \
		"projects_list_" name "_simple",                                                   \
			PROJECTS_LIST(SQL_ME, candidates, user, PROJECT_BASIC_COLS), PLS_NPARAMS,  \
			PL_SIMPLE_NCOLS                                                            \
	}
/* The same and the _auth variants, for the kinds whose candidates name the caller only as
 * me (not $1). */
#define PROJECTS_LISTS_AUTH(name, candidates, user)                                                \
	PROJECTS_LISTS(name, candidates, user),                                                    \
		{"projects_list_" name "_auth",                                                    \
		 PROJECTS_LIST_AUTH(candidates, user, PL_FULL_COLS), PLS_NPARAMS,                  \
		 AUTH_LEAN_NCOLS + PL_FULL_NCOLS},                                                 \
	{                                                                                          \
		"projects_list_" name "_simple_auth",                                              \
			PROJECTS_LIST_AUTH(candidates, user, PROJECT_BASIC_COLS), PLS_NPARAMS,     \
			AUTH_LEAN_NCOLS + PL_SIMPLE_NCOLS                                          \
	}
#define PL_RECORD 2

/* The membership list as it is asked for most (membership=true and no other parameter
 * that selects or orders: the default order, created_at desc), the same rows, total and
 * columns as PROJECTS_LIST of PL_MEMBERSHIP(PL_FILTER_LEAN) give for it, with a plan that
 * holds only what those parameters use (PL_FAST_OK() in projects_list_scoped() decides):
 * - the candidates: the projects of `mine` (listed for their caller whatever their
 *   visibility: SQL_PROJECT_LISTED need not be asked of them) and those of the caller's
 *   personal namespace that are listed without being in `mine` (for admins, public
 *   ones, internal ones for one who is not external), found by their ids in one index
 *   scan that reads the sort key too; plain sort keys instead of PL_ORDER's;
 * - the page's rows joined to projects by key (no fence: pg is a handful of rows);
 * - the groups each project is shared with as the full list finds them
 *   (PROJECT_SHARED_LINKS), looked for only by the rows whose count says they have
 *   some; the caller's memberships and notification settings found once for the page
 *   (PROJECT_CALLER_LIST_COLS_ANY).
 * $1..$3 the caller (or, _auth, $1 digest, $2 oauth, $3 NULL), $4 limit, $5 offset. */
#define PL_FAST_COLS                                                                               \
	PROJECT_COLS_SHARED(PROJECT_SHARED_LINKS("me.id"))                                         \
	", " PROJECT_CALLER_LIST_COLS_ANY("ARRAY(SELECT id FROM pg)")
#define PL_MEMBERSHIP_FAST_AS(ME, first, from)                                                     \
	"WITH " ME ", mine AS (" SQL_MY_PROJECTS "),"                                              \
	" pg AS (SELECT p.id, p.created_at, count(*) OVER () AS total FROM projects p"             \
	"  WHERE p.id = ANY (ARRAY(SELECT id FROM mine UNION ALL SELECT up.id FROM me"             \
	"  JOIN namespaces un ON un.owner_id = me.id AND un.kind = 'user' JOIN projects up"        \
	"  ON up.namespace_id = un.id AND NOT up.pending_delete WHERE me.admin"                    \
	"  OR up.visibility = 20 OR (up.visibility = 10 AND NOT me.external)))"                    \
	"  AND NOT p.pending_delete ORDER BY p.created_at DESC, p.id DESC LIMIT $4 OFFSET $5)"     \
	"SELECT " first "(SELECT total FROM pg LIMIT 1), true, pr.* FROM " from                    \
	" LEFT JOIN LATERAL (SELECT " PL_FAST_COLS " FROM pg JOIN projects p ON p.id = pg.id"      \
	" JOIN namespaces n ON n.id = p.namespace_id CROSS JOIN me"                                \
	" ORDER BY pg.created_at DESC, pg.id DESC) pr ON true"

/* ---- one project ---- */

/* GET /projects/:id: the record and the caller's standing (PROJECT_CALLER_COLS, the
 * caller's id being ME), the project found by id (REF a bigint) or by full path (REF
 * anything else: matched without regard to case; digits only are an id, never a path).
 * Which of the two, the handler knows (scope_ref_is_id()): one index lookup each, no
 * union of both. The abilities are decided in C (project_access_decide()). */
#define PROJECT_SHOW(ME, WHERE) "SELECT " PROJECT_COLS ", " PROJECT_CALLER_COLS(ME) WHERE
#define PS_SHOW_NCOLS (PROJECT_NCOLS + PROJECT_CALLER_NCOLS)
#define PROJECT_BY_ID(REF)                                                                         \
	" FROM projects p JOIN namespaces n ON n.id = p.namespace_id"                              \
	" WHERE p.id = " REF "::bigint AND NOT p.pending_delete"
#define PROJECT_BY_PATH(REF)                                                                       \
	" FROM namespaces n JOIN projects p ON p.namespace_id = n.id AND NOT p.pending_delete"     \
	" WHERE " REF " !~ '^[0-9]+$'"                                                             \
	" AND lower(n.full_path) = lower(substring(" REF " from '^(.*)/[^/]*$'))"                  \
	" AND lower(p.path) = lower(substring(" REF " from '/([^/]*)$'))"
/* The caller by token ($1 digest, $2 oauth) and the project in one round trip: the
 * AUTH_LEAN columns, then PROJECT_SHOW's (NULL when there is no such project); no row
 * when the token matches nothing. */
#define PROJECT_SHOW_AUTH(WHERE)                                                                   \
	"SELECT c.*, pr.* FROM (SELECT " AUTH_LEAN " FROM " AUTH_FROM                              \
	") c LEFT JOIN LATERAL (" PROJECT_SHOW("c.id", WHERE) ") pr ON true"

/* The namespace a project is created or forked into, as the user $1..$3: their own
 * ($4 NULL), or $4 an id, a full path, a path or a name (in that preference); whether
 * they may create projects there (admins anywhere, owners in their own namespace,
 * masters of a group or of an ancestor of it), their projects limit and how many
 * personal projects they have. The user's row is locked: concurrent creations see each
 * other's count (FOR NO KEY UPDATE: rows that refer to the user, as a membership
 * another request adds meanwhile, need not wait). */
#define PROJECT_TARGET_NS                                                                                  \
	"WITH " SQL_ME " SELECT n.id, n.kind, n.full_path, n.visibility, n.owner_id,"                      \
	" (me.admin OR n.owner_id = me.id OR (n.kind = 'group' AND " SQL_GROUP_ACCESS(                     \
		"n") " >= 40)), u.projects_limit, (SELECT count(*) FROM namespaces un JOIN projects up"    \
		     " ON up.namespace_id = un.id WHERE un.owner_id = me.id AND un.kind = 'user'"          \
		     " AND NOT up.pending_delete) FROM me JOIN users u ON u.id = me.id CROSS JOIN LATERAL" \
		     " (SELECT * FROM namespaces n WHERE $4::text IS NULL AND n.owner_id = me.id"          \
		     "  AND n.kind = 'user'"                                                               \
		     "  UNION ALL SELECT * FROM namespaces n"                                              \
		     "  WHERE n.id = (CASE WHEN $4::text ~ '^[0-9]{1,18}$' THEN $4::bigint END)"           \
		     "  UNION ALL (SELECT * FROM namespaces n WHERE $4::text !~ '^[0-9]{1,18}$'"           \
		     "  AND (lower(n.full_path) = lower($4) OR lower(n.path) = lower($4)"                  \
		     "  OR lower(n.name) = lower($4)) ORDER BY lower(n.full_path) = lower($4) DESC,"       \
		     "  lower(n.path) = lower($4) DESC, n.id LIMIT 1)) n FOR NO KEY UPDATE OF u"
enum {
	TN_ID,
	TN_KIND,
	TN_FULL_PATH,
	TN_VISIBILITY,
	TN_OWNER_ID,
	TN_ALLOWED,
	TN_LIMIT,
	TN_COUNT,
	TN_NCOLS
};

/* The flags a project takes, in the order of the insert and update statements. */
static const char *const flag_names[] = {
	"issues_enabled",
	"merge_requests_enabled",
	"jobs_enabled",
	"wiki_enabled",
	"snippets_enabled",
	"container_registry_enabled",
	"shared_runners_enabled",
	"lfs_enabled",
	"request_access_enabled",
	"public_jobs",
	"resolve_outdated_diff_discussions",
	"only_allow_merge_if_pipeline_succeeds",
	"only_allow_merge_if_all_discussions_are_resolved",
	"printing_merge_request_link_enabled",
};
#define NFLAGS (sizeof(flag_names) / sizeof(*flag_names))
enum { FLAG_SHARED_RUNNERS = 6, FLAG_PUBLIC_JOBS = 9 };

enum { PT_NAME, PT_PATH, PT_WIKI, PT_NCOLS };
/* projects_insert's parameters: the flags in flag_names' order */
enum {
	PI_NAMESPACE,
	PI_NAME,
	PI_PATH,
	PI_DESCRIPTION,
	PI_VISIBILITY,
	PI_DEFAULT_BRANCH,
	PI_CREATOR,
	PI_FORKED_FROM,
	PI_FLAGS,
	PI_TAG_LIST = PI_FLAGS + NFLAGS,
	PI_RUNNERS_DIGEST,
	PI_RUNNERS_SEALED,
	PI_CI_CONFIG_PATH,
	PI_IMPORT_STATUS,
	PI_MERGE_METHOD,
	PI_REPOSITORY_STORAGE, /* NULL: one of PI_STORAGES named by the application setting */
	PI_STORAGES,           /* the configured storages' names, a text[] literal */
	PI_NPARAMS
};
enum { PIR_ID, PIR_STORAGE, PIR_NCOLS };
enum {
	PU_ID,
	PU_NAME,
	PU_PATH,
	PU_DESCRIPTION,
	PU_VISIBILITY,
	PU_DEFAULT_BRANCH,
	PU_FLAGS,
	PU_TAG_LIST = PU_FLAGS + NFLAGS,
	PU_CI_CONFIG_PATH,
	PU_MERGE_METHOD,
	PU_NPARAMS
};
enum { PUSER_ID, PUSER_ADMIN, PUSER_EXTERNAL, PUSER_NCOLS };

#define FLAG_SET(i, col) " " col " = coalesce($" #i "::boolean, " col "),"

const db_stmt projects_stmts[] = {
	/* $1..$3 me, then as PL_FILTER, PL_KEYS and PROJECTS_LIST; the candidates of
	 * PL_ALL, PL_MEMBERSHIP (each also without the filters that need a subquery),
	 * PL_SCOPED or PL_STARRED */
	PROJECTS_LISTS("all", PL_ALL(PL_FILTER), PL_NO_USER),
	PROJECTS_LISTS("all_lean", PL_ALL(PL_FILTER_LEAN), PL_NO_USER),
	PROJECTS_LISTS_AUTH("membership", PL_MEMBERSHIP(PL_FILTER), PL_NO_USER),
	PROJECTS_LISTS_AUTH("membership_lean", PL_MEMBERSHIP(PL_FILTER_LEAN), PL_NO_USER),
	PROJECTS_LISTS_AUTH("scoped", PL_SCOPED, PL_USER_EXISTS),
	PROJECTS_LISTS("starred", PL_STARRED, PL_NO_USER),
	PROJECTS_LISTS("forks", PL_FORKS, PL_NO_USER),
	/* $1..$3 me (_auth: $1 digest, $2 oauth, $3 NULL), $4 limit, $5 offset */
	{"projects_list_membership_fast", PL_MEMBERSHIP_FAST_AS(SQL_ME, "", "(SELECT 1) one"),
	 PLF_NPARAMS, PL_FULL_NCOLS},
	{"projects_list_membership_fast_auth", PL_MEMBERSHIP_FAST_AS(PL_ME_AUTH, "a.*, ", "auth a"),
	 PLF_NPARAMS, AUTH_LEAN_NCOLS + PL_FULL_NCOLS},
	/* $1 the caller's id (NULL when anonymous), $2 the project's id or full path */
	{"projects_show", PROJECT_SHOW("$1::bigint", PROJECT_BY_ID("$2")), 2, PS_SHOW_NCOLS},
	{"projects_show_path", PROJECT_SHOW("$1::bigint", PROJECT_BY_PATH("$2")), 2, PS_SHOW_NCOLS},
	/* $1 token digest, $2 oauth, $3 the project's id or full path */
	{"projects_show_auth", PROJECT_SHOW_AUTH(PROJECT_BY_ID("$3")), 3,
	 AUTH_LEAN_NCOLS + PS_SHOW_NCOLS},
	{"projects_show_auth_path", PROJECT_SHOW_AUTH(PROJECT_BY_PATH("$3")), 3,
	 AUTH_LEAN_NCOLS + PS_SHOW_NCOLS},
	/* What PROJECT_COLS leaves out, for the projects that have it: the fork sources $4
	 * (a bigint[]) that the caller ($1..$3) may see, in the simple view; the group links
	 * of projects $1 (with the caller's level, $2, in each group). */
	{"projects_fork_sources",
	 "WITH " SQL_ME " SELECT " PROJECT_BASIC_COLS " FROM me, projects p"
	 " JOIN namespaces n ON n.id = p.namespace_id"
	 " WHERE p.id = ANY ($4::bigint[]) AND NOT p.pending_delete AND " SQL_PROJECT_VISIBLE("p"),
	 4, PROJECT_BASIC_NCOLS},
	{"projects_links", PROJECT_LINKS_SELECT, 2, PLK_NCOLS},
	{"projects_target_ns", PROJECT_TARGET_NS, 4, TN_NCOLS},
	/* Creations (and forks) into namespace $1 take turns from here to their commit: the
	 * check of taken names and paths that follows sees the projects of those before, and
	 * names every attribute taken, from whichever instance they came. */
	{"projects_lock_namespace", "SELECT 1 FROM namespaces WHERE id = $1 FOR NO KEY UPDATE", 1,
	 1},
	/* Which of name $2 and path $3 another project ($4, NULL on create) of namespace $1
	 * has; a subgroup's path counts as a project path (they share the URL space). The
	 * third: another project is $3's wiki (X.wiki when $3 is X) or has the path whose
	 * wiki $3 would be (X when $3 is X.wiki): GitLab 10's check_wiki_path_conflict. */
	{"projects_taken",
	 "SELECT EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND NOT pending_delete"
	 " AND lower(name) = lower($2) AND id IS DISTINCT FROM $4::bigint),"
	 " EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND NOT pending_delete"
	 " AND lower(path) = lower($3) AND id IS DISTINCT FROM $4::bigint) OR EXISTS (SELECT 1"
	 " FROM namespaces ns JOIN namespaces sub ON sub.parent_id = ns.id WHERE ns.id = $1"
	 " AND lower(sub.path) = lower($3)),"
	 " EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND NOT pending_delete"
	 " AND id IS DISTINCT FROM $4::bigint AND lower(path) = lower(CASE WHEN lower($3)"
	 " LIKE '%.wiki' THEN left($3, -5) ELSE $3 || '.wiki' END))",
	 4, PT_NCOLS},
	/* the project of namespace $1 at path $2 (an import's overwrite) */
	{"projects_id_by_path",
	 "SELECT id FROM projects WHERE namespace_id = $1 AND lower(path) = lower($2)"
	 " AND NOT pending_delete",
	 2, 1},
	/* PI_: the tag_list a JSON array */
	{"projects_insert",
	 "INSERT INTO projects (namespace_id, name, path, description, visibility, default_branch,"
	 " creator_id, forked_from_id, issues_enabled, merge_requests_enabled, jobs_enabled,"
	 " wiki_enabled, snippets_enabled, container_registry_enabled, shared_runners_enabled,"
	 " lfs_enabled, request_access_enabled, public_jobs, resolve_outdated_diff_discussions,"
	 " only_allow_merge_if_pipeline_succeeds,"
	 " only_allow_merge_if_all_discussions_are_resolved, printing_merge_request_link_enabled,"
	 " tag_list, runners_token_digest, runners_token_sealed, ci_config_path, import_status,"
	 " merge_method, repository_storage)"
	 " VALUES ($1, $2, $3, $4, coalesce($5::smallint, 0), $6, $7, $8,"
	 " coalesce($9::boolean, true), coalesce($10::boolean, true), coalesce($11::boolean, true),"
	 " coalesce($12::boolean, true), coalesce($13::boolean, true),"
	 " coalesce($14::boolean, true), coalesce($15::boolean, true),"
	 " coalesce($16::boolean, true), coalesce($17::boolean, false),"
	 " coalesce($18::boolean, true), coalesce($19::boolean, false),"
	 " coalesce($20::boolean, false), coalesce($21::boolean, false),"
	 " coalesce($22::boolean, true),"
	 " coalesce(ARRAY(SELECT jsonb_array_elements_text($23::jsonb)), '{}'), $24, $25, $26,"
	 " coalesce($27, 'none'), coalesce($28, 'merge'),"
	 /* spread at random over the storages the application setting names (10.8's
	  * pick_repository_storage), of those configured */
	 " coalesce($29, (SELECT x FROM application_settings s, unnest(s.repository_storages) x"
	 " WHERE x = ANY ($30::text[]) ORDER BY random() LIMIT 1), 'default'))"
	 " RETURNING id, repository_storage",
	 PI_NPARAMS, PIR_NCOLS},
	/* The owner of a personal project is its master (GitLab 10: the creator; here the
	 * namespace's owner, which is the creator but when an admin creates it). */
	{"projects_member_insert",
	 "INSERT INTO members (source_type, source_id, user_id, access_level, created_by)"
	 " VALUES ('Project', $1, $2, 40, $3) ON CONFLICT DO NOTHING",
	 3, 0},
	/* PU_; NULL keeps a value */
	{"projects_update",
	 "UPDATE projects SET name = coalesce($2, name), path = coalesce($3, path),"
	 " description = coalesce($4, description),"
	 " visibility = coalesce($5::smallint, visibility),"
	 " default_branch = coalesce($6, default_branch)," FLAG_SET(7, "issues_enabled") FLAG_SET(
		 8, "merge_requests_enabled") FLAG_SET(9, "jobs_enabled")
		 FLAG_SET(10, "wiki_enabled") FLAG_SET(11, "snippets_enabled") FLAG_SET(
			 12, "container_registry_enabled") FLAG_SET(13, "shared_runners_enabled")
			 FLAG_SET(14, "lfs_enabled") FLAG_SET(15, "request_access_enabled") FLAG_SET(
				 16, "public_jobs") FLAG_SET(17,
							     "resolve_outdated_diff_discussions")
				 FLAG_SET(18, "only_allow_merge_if_pipeline_succeeds") FLAG_SET(
					 19, "only_allow_merge_if_all_discussions_are_resolved")
					 FLAG_SET(
						 20,
						 "printing_merge_request_link_enabled") " tag_list = CASE WHEN $21::jsonb IS NULL THEN tag_list"
											" ELSE ARRAY(SELECT jsonb_array_elements_text($21::jsonb)) END,"
											" ci_config_path = coalesce($22, ci_config_path),"
											" merge_method = coalesce($23, merge_method), updated_at = now()"
											" WHERE id = $1 AND NOT pending_delete",
	 PU_NPARAMS, 0},
	/* Marks project $1 deleted; its fork source counts one fork less. */
	{"projects_mark_deleted",
	 "WITH d AS (UPDATE projects SET pending_delete = true, updated_at = now()"
	 " WHERE id = $1 AND NOT pending_delete RETURNING id, forked_from_id),"
	 " fc AS (UPDATE projects SET forks_count = greatest(forks_count - 1, 0)"
	 " WHERE id = (SELECT forked_from_id FROM d))"
	 " SELECT id FROM d",
	 1, 1},
	{"projects_forks_inc", "UPDATE projects SET forks_count = forks_count + 1 WHERE id = $1", 1,
	 0},
	/* $1 user, $2 project: a row when the star was added (removed) */
	{"projects_star",
	 "WITH s AS (INSERT INTO users_star_projects (user_id, project_id) VALUES ($1, $2)"
	 " ON CONFLICT DO NOTHING RETURNING project_id)"
	 " UPDATE projects SET star_count = star_count + 1 WHERE id IN (SELECT project_id FROM s)"
	 " RETURNING id",
	 2, 1},
	{"projects_unstar",
	 "WITH s AS (DELETE FROM users_star_projects WHERE user_id = $1 AND project_id = $2"
	 " RETURNING project_id)"
	 " UPDATE projects SET star_count = greatest(star_count - 1, 0)"
	 " WHERE id IN (SELECT project_id FROM s) RETURNING id",
	 2, 1},
	{"projects_set_archived",
	 "UPDATE projects SET archived = $2, updated_at = now() WHERE id = $1", 2, 0},
	/* POST /projects/user/:user_id: the user as SQL_ME's $1..$3 */
	{"projects_user", "SELECT id, is_admin, external FROM users WHERE id = $1 AND NOT ghost", 1,
	 PUSER_NCOLS},
	{NULL, NULL, 0, 0},
};

/* ---- the lists ---- */

static const char *const order_bys[] = {
	"id", "name", "path", "created_at", "updated_at", "last_activity_at", NULL};
static const char *const sorts[] = {"asc", "desc", NULL};
static const char *const visibilities[] = {"private", "internal", "public", NULL};
static const char *const merge_methods[] = {"ff", "rebase_merge", "merge", NULL};

/* A boolean parameter as SQL text ("true"/"false"), NULL when absent; *rc gets a
 * negative code when the value is not a boolean. */
static const char *bool_param(request *r, const char *name, int *rc)
{
	bool b;
	int x = param_bool(r, name, &b);
	if (x < 0)
		*rc = x;
	return x == 0 ? (b ? "true" : "false") : NULL;
}

/* The statement of each kind of list (PROJECTS_LISTS), lean or not, full or simple, and
 * its _auth variant (PROJECTS_LISTS_AUTH; all, starred and forks have none: their caller
 * is authenticated first). */
enum list_kind { LIST_ALL, LIST_MEMBERSHIP, LIST_SCOPED, LIST_STARRED, LIST_FORKS };
static const char *const list_stmts[][2][2][2] = {
	[LIST_ALL] = {{{"projects_list_all", NULL}, {"projects_list_all_simple", NULL}},
		      {{"projects_list_all_lean", NULL}, {"projects_list_all_lean_simple", NULL}}},
	[LIST_MEMBERSHIP] =
		{{{"projects_list_membership", "projects_list_membership_auth"},
		  {"projects_list_membership_simple", "projects_list_membership_simple_auth"}},
		 {{"projects_list_membership_lean", "projects_list_membership_lean_auth"},
		  {"projects_list_membership_lean_simple",
		   "projects_list_membership_lean_simple_auth"}}},
	[LIST_SCOPED] = {{{"projects_list_scoped", "projects_list_scoped_auth"},
			  {"projects_list_scoped_simple", "projects_list_scoped_simple_auth"}},
			 {{"projects_list_scoped", "projects_list_scoped_auth"},
			  {"projects_list_scoped_simple", "projects_list_scoped_simple_auth"}}},
	[LIST_STARRED] = {{{"projects_list_starred", NULL}, {"projects_list_starred_simple", NULL}},
			  {{"projects_list_starred", NULL},
			   {"projects_list_starred_simple", NULL}}},
	[LIST_FORKS] = {{{"projects_list_forks", NULL}, {"projects_list_forks_simple", NULL}},
			{{"projects_list_forks", NULL}, {"projects_list_forks_simple", NULL}}},
};

/* x[i].custom_attributes for the projects of rows [0, n) of res (with_custom_attributes). */
static int add_custom_attributes(request *r, const PGresult *res, int n, int col, project_extra *x)
{
	const char **ids = arena_alloc(r->ctx.a, (size_t)(n > 0 ? n : 1) * sizeof(*ids));
	for (int i = 0; i < n; i++)
		ids[i] = PQgetisnull(res, i, col + PC_ID) ? NULL : db_val(res, i, col + PC_ID);
	const char **attrs;
	int rc = custom_attributes_for(r, CA_PROJECT, ids, n, &attrs);
	for (int i = 0; rc == 0 && i < n; i++)
		x[i].custom_attributes = ids[i] ? attrs[i] : NULL;
	return rc;
}

/* A parameter's error rc, after the authentication of a caller the list's statement would
 * have found (ROUTE_SELF_AUTH): a bad token is 401 before a bad parameter's 400, as on
 * the routes authenticated before their handler. */
static int list_param_error(request *r, int rc)
{
	if (!r->ctx.user && r->cred.token_digest) {
		int auth = auth_authenticate(&r->ctx, &r->cred, r->route->flags);
		if (auth < 0)
			return auth;
	}
	return rc;
}

/* The list of GET /projects, of a user's projects (user), a group's (group_id) or a
 * project's forks (fork_of): at most one of the three. */
static int list_projects(request *r, const char *user, const char *group_id, const char *fork_of)
{
	page_req pg;
	int rc = pagination_parse(r, &pg);
	if (rc < 0)
		return list_param_error(r, rc);
	const char *order = "created_at", *sort = "desc", *vis = NULL;
	if ((rc = param_oneof(r, "order_by", order_bys, &order)) < 0 ||
	    (rc = param_oneof(r, "sort", sorts, &sort)) < 0 ||
	    (rc = param_oneof(r, "visibility", visibilities, &vis)) < 0)
		return list_param_error(r, rc);
	rc = 0;
	const char *archived = bool_param(r, "archived", &rc);
	const char *owned = bool_param(r, "owned", &rc);
	const char *membership = bool_param(r, "membership", &rc);
	const char *starred = bool_param(r, "starred", &rc);
	const char *issues = bool_param(r, "with_issues_enabled", &rc);
	const char *mrs = bool_param(r, "with_merge_requests_enabled", &rc);
	const char *simple = bool_param(r, "simple", &rc);
	const char *stats = bool_param(r, "statistics", &rc);
	if (rc < 0)
		return list_param_error(r, rc);
	/* with a token not yet looked up (ROUTE_SELF_AUTH), the statement finds the caller;
	 * custom attributes are for admins: the caller first, if they ask for them */
	bool self_auth = !r->ctx.user && r->cred.token_digest;
	const char **attr_keys, **attr_values;
	int nattrs = param_map(r, "custom_attributes", &attr_keys, &attr_values);
	bool with_attrs = false;
	if ((rc = param_bool(r, "with_custom_attributes", &with_attrs)) < 0)
		return list_param_error(r, rc);
	if (self_auth && (nattrs > 0 || with_attrs)) {
		if ((rc = auth_authenticate(&r->ctx, &r->cred, r->route->flags)) < 0)
			return rc;
		self_auth = false;
	}
	const char *attr_filter;
	bool attrs;
	if ((rc = custom_attributes_filter(r, &attr_filter)) < 0 ||
	    (rc = custom_attributes_wanted(r, &attrs)) < 0)
		return rc;
	bool signed_in = r->ctx.user || self_auth;
	const char *v[] = {
		[PLS_ARCHIVED] = archived,
		[PLS_VISIBILITY] = vis ? arena_printf(r->ctx.a, "%d", visibility_parse(vis)) : NULL,
		[PLS_SEARCH] = param_str(r, "search"),
		[PLS_OWNED] = owned,
		[PLS_MEMBERSHIP] = membership,
		[PLS_STARRED] = starred,
		[PLS_ISSUES] = issues,
		[PLS_MRS] = mrs,
		[PLS_USER] = user,
		[PLS_GROUP] = group_id,
		[PLS_ORDER] = order,
		[PLS_ASC] = strcmp(sort, "asc") == 0 ? "true" : "false",
		[PLS_LIMIT] = pagination_limit(r, &pg),
		[PLS_OFFSET] = pagination_offset(r, &pg),
		[PLS_FORK_OF] = fork_of,
		[PLS_CUSTOM_ATTRIBUTES] = attr_filter,
	};
	DB_PARAMS(v, PLS_NPARAMS);
	access_me_params(&r->ctx, v);
	if (self_auth) {
		auth_params(&r->cred, v);
		v[ME_EXTERNAL] = NULL;
	}
	/* Without a caller or with simple=true, BasicProjectDetails; else ProjectWithAccess
	 * (no runners token in lists). */
	bool basic = !signed_in || (simple && strcmp(simple, "true") == 0);
	/* the statement of this kind of list (PROJECTS_LISTS), lean without the filters
	 * that need a subquery */
	bool starring = starred && strcmp(starred, "true") == 0 && signed_in;
	enum list_kind kind = fork_of                                         ? LIST_FORKS
			      : membership && strcmp(membership, "true") == 0 ? LIST_MEMBERSHIP
			      : user || group_id                              ? LIST_SCOPED
			      : starring                                      ? LIST_STARRED
									      : LIST_ALL;
	bool lean = (kind == LIST_ALL || kind == LIST_MEMBERSHIP) && !v[PLS_SEARCH] &&
		    !(owned && strcmp(owned, "true") == 0) && !starring && !user && !group_id &&
		    !attr_filter;
	const char *stmt = list_stmts[kind][lean][basic][0];
	/* PL_MEMBERSHIP_FAST_AS: the full view of the membership list with no filter and
	 * the default order, for a caller */
	bool fast = kind == LIST_MEMBERSHIP && lean && !basic && signed_in && !archived && !vis &&
		    !(issues && strcmp(issues, "true") == 0) &&
		    !(mrs && strcmp(mrs, "true") == 0) && strcmp(order, "created_at") == 0 &&
		    strcmp(sort, "desc") == 0;
	if (self_auth && (kind == LIST_ALL || kind == LIST_STARRED || kind == LIST_FORKS)) {
		/* their statements have no _auth variant: the caller first */
		if ((rc = auth_authenticate(&r->ctx, &r->cred, r->route->flags)) < 0)
			return rc;
		self_auth = false;
		access_me_params(&r->ctx, v);
	}
	entity_project_list_depend(&r->ctx, order, v[PLS_SEARCH] != NULL, user != NULL);
	int err, base = 0; /* the column of the total */
	PGresult *res;
	if (fast) {
		const char *fv[] = {[ME_ID] = v[ME_ID],
				    [ME_ADMIN] = v[ME_ADMIN],
				    [ME_EXTERNAL] = v[ME_EXTERNAL],
				    [PLF_LIMIT] = v[PLS_LIMIT],
				    [PLF_OFFSET] = v[PLS_OFFSET]};
		DB_PARAMS(fv, PLF_NPARAMS);
		res = db_query(&r->ctx,
			       self_auth ? "projects_list_membership_fast_auth"
					 : "projects_list_membership_fast",
			       PLF_NPARAMS, fv, &err);
	} else {
		res = db_query(&r->ctx, list_stmts[kind][lean][basic][self_auth], PLS_NPARAMS, v,
			       &err);
	}
	if (!res)
		return err;
	if (self_auth) {
		if ((rc = auth_accept_lean(&r->ctx, &r->cred, r->route->flags, res, 0, 0)) < 0)
			return rc;
		base = AUTH_LEAN_NCOLS;
	}
	if (PQntuples(res) == 0 || !db_bool(res, 0, base + 1))
		return fail_not_found(r, "User");
	const char *total = db_val(res, 0, base);
	int col = base + PL_RECORD;
	if (!total && pg.offset > 0) {
		/* a page past the end: its first row counts them all (the fast list's too:
		 * the general statement of its kind has the same rows) */
		const char *fv[PLS_NPARAMS];
		memcpy(fv, v, sizeof(fv));
		access_me_params(&r->ctx, fv);
		fv[PLS_LIMIT] = "1";
		fv[PLS_OFFSET] = "0";
		PGresult *first = db_query(&r->ctx, stmt, PLS_NPARAMS, fv, &err);
		if (!first)
			return err;
		total = PQntuples(first) ? db_val(first, 0, 0) : NULL;
	}
	unsigned flags = PROJECT_VIEW_BASIC;
	if (!basic)
		flags = PROJECT_VIEW_FULL | PROJECT_PERMISSIONS |
			(stats && strcmp(stats, "true") == 0 ? PROJECT_STATISTICS : 0);
	int n = PQntuples(res);
	project_extra *x = NULL;
	project_caller *callers = NULL;
	project_caller_page page = {0};
	if (!basic && n > 0)
		project_caller_page_read(&page, &r->ctx, res, 0, col);
	if (!basic || attrs)
		x = arena_alloc(r->ctx.a, (size_t)(n > 0 ? n : 1) * sizeof(*x));
	if (!basic) {
		callers = arena_alloc(r->ctx.a, (size_t)n * sizeof(*callers));
		if ((rc = projects_extras(r, res, n, col, x, NULL)) < 0)
			return rc;
	}
	if (attrs && (rc = add_custom_attributes(r, res, n, col, x)) < 0)
		return rc;
	jw w;
	jw_init(&w, r->ctx.a, (size_t)n * 2048 + 16);
	jw_begin_array(&w);
	for (int i = 0; i < n; i++) {
		if (PQgetisnull(res, i, col))
			continue;
		if (!basic) {
			project_caller_read_list(&callers[i], &r->ctx, &page, res, i, col);
			x[i].caller = &callers[i];
		}
		entity_project_write(&w, &r->ctx, res, i, col, flags, x ? &x[i] : NULL);
	}
	jw_end_array(&w);
	pagination_headers(r, &pg, total ? strtoll(total, NULL, 10) : 0);
	respond_jw(r, 200, &w);
	return 0;
}

int projects_list_scoped(request *r, const char *user, const char *group_id)
{
	return list_projects(r, user, group_id, NULL);
}

static int projects_list(request *r)
{
	return projects_list_scoped(r, NULL, NULL);
}

/* GET /projects/:id/forks: the project's direct forks the caller may see, with the
 * filters, sorts and views of GET /projects. */
static int projects_forks(request *r)
{
	return list_projects(r, NULL, NULL, r->project->id);
}

static int projects_list_user(request *r)
{
	const char *user = param_str(r, "user_id");
	return projects_list_scoped(r, user ? user : "", NULL);
}

/* ---- one project ---- */

/* Comma-separated ids as a bigint[] literal being built. */
static void id_list_add(request *r, const char **list, const char *id)
{
	*list = *list ? arena_printf(r->ctx.a, "%s,%s", *list, id) : id;
}

/* Column c of the project of row i of res, NULL when it is NULL or there is no project. */
static const char *project_val(const PGresult *res, int i, int col, int c)
{
	return PQgetisnull(res, i, col + PC_ID) ? NULL : db_val(res, i, col + c);
}

/* x[i].forked_from for the rows whose project is a fork, from the sources' simple views
 * (ids: the sources' ids as a list); none for a source the caller may not see. */
static int add_fork_sources(request *r, const PGresult *res, int n, int col, project_extra *x,
			    const char *ids)
{
	const char *v[4];
	access_me_params(&r->ctx, v);
	v[3] = arena_printf(r->ctx.a, "{%s}", ids);
	int err;
	PGresult *src = db_query(&r->ctx, "projects_fork_sources", 4, v, &err);
	if (!src)
		return err;
	for (int i = 0; i < n; i++) {
		const char *from = project_val(res, i, col, PC_FORKED_FROM_ID);
		for (int j = 0; from && j < PQntuples(src); j++) {
			if (strcmp(PQgetvalue(src, j, PC_ID), from) != 0)
				continue;
			jw w;
			jw_init(&w, r->ctx.a, 1024);
			entity_project_write(&w, &r->ctx, src, j, 0, PROJECT_VIEW_BASIC, NULL);
			x[i].forked_from = buf_cstr(&w.b);
		}
	}
	return 0;
}

/* x[i].shared_with_groups and shared_level[i] for the rows whose project is shared
 * (ids: those projects' ids as a list). */
static int add_links(request *r, const PGresult *res, int n, int col, project_extra *x,
		     int *shared_level, const char *ids)
{
	const char *v[2] = {arena_printf(r->ctx.a, "{%s}", ids),
			    r->ctx.user ? api_caller_id(r) : NULL};
	int err;
	PGresult *links = db_query(&r->ctx, "projects_links", 2, v, &err);
	if (!links)
		return err;
	for (int i = 0; i < n; i++) {
		const char *id = project_val(res, i, col, PC_ID);
		jw w = {0};
		for (int j = 0; id && j < PQntuples(links); j++) {
			if (strcmp(PQgetvalue(links, j, PLK_PROJECT_ID), id) != 0)
				continue;
			if (!w.b.data) {
				jw_init(&w, r->ctx.a, 256);
				jw_begin_array(&w);
			}
			entity_project_group_link(&w, &r->ctx, db_int(links, j, PLK_GROUP_ID),
						  db_val(links, j, PLK_GROUP_NAME),
						  db_int(links, j, PLK_GROUP_ACCESS));
			int level = access_shared_level((int)db_int(links, j, PLK_GROUP_ACCESS),
							(int)db_int(links, j, PLK_CALLER_LEVEL));
			if (shared_level && level > shared_level[i])
				shared_level[i] = level;
		}
		if (w.b.data) {
			jw_end_array(&w);
			x[i].shared_with_groups = buf_cstr(&w.b);
		}
	}
	return 0;
}

/* x->shared_with_groups and *shared_level from the links of PROJECT_SHARED_LINKS (a JSON
 * text). */
static void read_links(request *r, const char *text, project_extra *x, int *shared_level)
{
	json_object *links = json_tokener_parse(text);
	size_t n = json_object_is_type(links, json_type_array) ? json_object_array_length(links)
							       : 0;
	jw w;
	jw_init(&w, r->ctx.a, 256);
	jw_begin_array(&w);
	for (size_t j = 0; j < n; j++) {
		json_object *l = json_object_array_get_idx(links, j);
		long long group = json_object_get_int64(json_object_array_get_idx(l, 0));
		int access = json_object_get_int(json_object_array_get_idx(l, 2));
		entity_project_group_link(&w, &r->ctx, group,
					  json_object_get_string(json_object_array_get_idx(l, 1)),
					  access);
		int level = access_shared_level(
			access, json_object_get_int(json_object_array_get_idx(l, 3)));
		if (shared_level && level > *shared_level)
			*shared_level = level;
	}
	jw_end_array(&w);
	x->shared_with_groups = buf_cstr(&w.b);
	json_object_put(links);
}

int projects_extras(request *r, const PGresult *res, int n, int col, project_extra *x,
		    int *shared_level)
{
	const char *forks = NULL, *shared = NULL;
	for (int i = 0; i < n; i++) {
		memset(&x[i], 0, sizeof(x[i]));
		if (shared_level)
			shared_level[i] = 0;
		const char *id = project_val(res, i, col, PC_ID);
		const char *from = project_val(res, i, col, PC_FORKED_FROM_ID);
		if (from)
			id_list_add(r, &forks, from);
		const char *links = id ? db_val(res, i, col + PC_SHARED) : NULL;
		if (links && links[0] == '[')
			read_links(r, links, &x[i], shared_level ? &shared_level[i] : NULL);
		else if (links && links[0] == 't')
			id_list_add(r, &shared, id);
	}
	int rc = 0;
	if (forks)
		rc = add_fork_sources(r, res, n, col, x, forks);
	if (rc == 0 && shared)
		rc = add_links(r, res, n, col, x, shared_level, shared);
	return rc;
}

/* The :id of a project route names it by id when it is digits (at most 18: more are no
 * id and no path, found nowhere), else by full path. */
/* A project's record at col of row 0 of res (PROJECT_COLS and PROJECT_CALLER_COLS, or
 * no project there), with what comes apart from it and the caller's abilities on it. */
struct project_shown {
	project_access pa;
	project_caller caller;
	project_extra x;
};

/* Completes out for the record of res at col: 0, or ERR_NOT_FOUND when there is no
 * project there. */
static int project_shown_load(request *r, const PGresult *res, int col, struct project_shown *out)
{
	if (PQntuples(res) == 0 || PQgetisnull(res, 0, col + PC_ID))
		return fail_not_found(r, "Project");
	project_caller_read(&out->caller, &r->ctx, res, 0, col);
	int shared_level = 0, rc = projects_extras(r, res, 1, col, &out->x, &shared_level);
	if (rc < 0)
		return rc;
	out->caller.levels.shared_level = shared_level;
	out->x.caller = &out->caller;
	project_access_decide(&out->pa, r->ctx.user, (int)db_int(res, 0, col + PC_VISIBILITY),
			      db_bool(res, 0, col + PC_ARCHIVED), &out->caller.levels);
	return 0;
}

/* Runs projects_show (by_id) or projects_show_path for project ref as r's caller. */
static PGresult *project_show_query(request *r, const char *ref, int *err)
{
	const char *v[2] = {r->ctx.user ? api_caller_id(r) : NULL, ref};
	return db_query(&r->ctx, scope_ref_is_id(ref) ? "projects_show" : "projects_show_path", 2,
			v, err);
}

static int projects_show(request *r)
{
	const char *ref = param_str(r, "id");
	bool stats = false;
	int rc = param_bool(r, "statistics", &stats);
	if (rc < 0)
		return rc;
	PGresult *res;
	int col, err;
	if (!r->ctx.user && r->cred.token_digest) {
		/* authentication, the caller's standing and the record in one statement */
		rc = auth_query(&r->ctx, &r->cred, r->route->flags,
				scope_ref_is_id(ref) ? "projects_show_auth"
						     : "projects_show_auth_path",
				ref, &res);
		if (rc < 0)
			return rc;
		col = AUTH_LEAN_NCOLS;
	} else {
		if (!(res = project_show_query(r, ref, &err)))
			return err;
		col = 0;
	}
	struct project_shown p;
	if (!r->ctx.user) {
		/* anonymous: public projects in the simple view, nothing more to fetch */
		if (PQntuples(res) == 0 || PQgetisnull(res, 0, col + PC_ID) ||
		    db_int(res, 0, col + PC_VISIBILITY) != VIS_PUBLIC)
			return fail_not_found(r, "Project");
		jw w;
		jw_init(&w, r->ctx.a, 1024);
		entity_project_write(&w, &r->ctx, res, 0, col, PROJECT_VIEW_BASIC, NULL);
		respond_jw(r, 200, &w);
		return 0;
	}
	if ((rc = project_shown_load(r, res, col, &p)) < 0)
		return rc;
	if (!can_read_project(&p.pa))
		return fail_not_found(r, "Project");
	unsigned flags = PROJECT_VIEW_FULL | PROJECT_PERMISSIONS |
			 (can_update_project(&p.pa) ? PROJECT_CAN_ADMIN : 0) |
			 (stats ? PROJECT_STATISTICS : 0);
	bool attrs;
	if ((rc = custom_attributes_wanted(r, &attrs)) < 0 ||
	    (attrs && (rc = add_custom_attributes(r, res, 1, col, &p.x)) < 0))
		return rc;
	jw w;
	jw_init(&w, r->ctx.a, 4096);
	entity_project_write(&w, &r->ctx, res, 0, col, flags, &p.x);
	respond_jw(r, 200, &w);
	return 0;
}

/* Answers with project id as Entities::Project after the write that changed it; with
 * the runners token and import error for those who may administer it when admin_view
 * (GitLab's user_can_admin_project, passed by create, edit and fork). */
static int present(request *r, const char *id, int status, bool admin_view)
{
	int err;
	PGresult *res = project_show_query(r, id, &err);
	if (!res)
		return err;
	struct project_shown p;
	int rc = project_shown_load(r, res, 0, &p);
	if (rc < 0)
		return rc;
	unsigned flags = PROJECT_VIEW_FULL |
			 (admin_view && can_update_project(&p.pa) ? PROJECT_CAN_ADMIN : 0);
	jw w;
	jw_init(&w, r->ctx.a, 4096);
	entity_project_write(&w, &r->ctx, res, 0, 0, flags, &p.x);
	respond_jw(r, status, &w);
	return 0;
}

/* ---- input ---- */

/* GitLab 10's project_name_regex: letters, digits, emojis (any non-ASCII character
 * here), '_', '.', '-' and spaces, starting with a letter, digit, emoji or '_'. */
static bool valid_project_name(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	if (!(isalnum(*p) || *p == '_' || *p >= 0x80))
		return false;
	for (; *p; p++)
		if (!(isalnum(*p) || *p >= 0x80 || strchr("_.- ", *p)))
			return false;
	return true;
}

/* Rails' String#parameterize, as GitLab 10 derives a path from a name: runs of other
 * characters than letters, digits, '_' and '-' become one '-', none at either end,
 * lower case. */
static char *parameterize(request *r, const char *name)
{
	char *out = arena_alloc(r->ctx.a, strlen(name) + 1);
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (isalnum(*p) || *p == '_')
			out[n++] = (char)tolower(*p);
		else if (n > 0 && out[n - 1] != '-')
			out[n++] = '-';
	}
	while (n > 0 && out[n - 1] == '-')
		n--;
	out[n] = '\0';
	return out;
}

/* The attributes a create or an edit takes, read and checked before anything is
 * written. Strings are NULL when absent. */
struct project_input {
	const char *name, *path, *description, *visibility, *default_branch, *ci_config_path;
	const char *merge_method;  /* merge_methods */
	const char *flags[NFLAGS]; /* "true"/"false"/NULL, in flag_names order */
	const char *tag_list;      /* a JSON array, or NULL */
	int vis;                   /* -1 when absent */
	bool any;                  /* at least one attribute was given */
};

/* The most tags a project keeps, and the longest tag (GitLab 10's tags.name is a
 * varchar(255)): bounds no client meets, so that the work on tag_list stays small. */
#define TAGS_MAX 1000
#define TAG_LEN_MAX 255

/* A set of strings compared without regard to ASCII case, open addressing in r's arena:
 * linear work for the tag list's duplicate check. */
struct tag_set {
	const char **slot;
	size_t cap;
};

static uint64_t tag_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)tolower((unsigned char)*s)) * 1099511628211ULL;
	return h;
}

/* Adds s: true when it was not there yet. The set holds at most cap / 2 strings. */
static bool tag_set_add(struct tag_set *set, const char *s)
{
	size_t i = (size_t)tag_hash(s) & (set->cap - 1);
	for (; set->slot[i]; i = (i + 1) & (set->cap - 1))
		if (strcasecmp(set->slot[i], s) == 0)
			return false;
	set->slot[i] = s;
	return true;
}

/* tag_list as an array (tag_list[]=a&tag_list[]=b, a JSON array) or a comma-separated
 * string: the tags trimmed, without empty ones and repeats, as a JSON array text in *out
 * (NULL when absent). 0, or ERR_INVALID past TAGS_MAX tags or TAG_LEN_MAX characters. */
int projects_read_tag_list(request *r, const char **out)
{
	const char **values;
	int n = param_array(r, "tag_list", &values);
	const char *single = param_str(r, "tag_list");
	*out = NULL;
	if (n < 0)
		return n;
	if (n == 0 && !single)
		return 0;
	struct tag_set set = {.cap = 2 * 1024};
	set.slot = arena_alloc(r->ctx.a, set.cap * sizeof(*set.slot));
	memset(set.slot, 0, set.cap * sizeof(*set.slot));
	json_object *list = request_own(r, json_object_new_array());
	int count = 0;
	for (int i = 0; i <= n; i++) {
		const char *s = i < n ? values[i] : single;
		if (!s)
			continue;
		char *copy = arena_strdup(r->ctx.a, s), *save = NULL;
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			while (*t == ' ' || *t == '\t')
				t++;
			size_t len = strlen(t);
			while (len > 0 && (t[len - 1] == ' ' || t[len - 1] == '\t'))
				t[--len] = '\0';
			if (len == 0)
				continue;
			if (utf8_chars(t) > TAG_LEN_MAX)
				return fail(r, ERR_INVALID,
					    "tag_list has a tag that is too long (at most "
					    "255 characters)");
			if (!tag_set_add(&set, t))
				continue;
			if (++count > TAGS_MAX)
				return fail(r, ERR_INVALID,
					    "tag_list has too many tags (at most 1000)");
			json_object_array_add(list, json_object_new_string(t));
		}
	}
	*out = arena_strdup(r->ctx.a, json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN));
	return 0;
}

static int read_input(request *r, struct project_input *in)
{
	memset(in, 0, sizeof(*in));
	in->vis = -1;
	int rc = 0;
	for (size_t i = 0; i < NFLAGS; i++) {
		in->flags[i] = bool_param(r, flag_names[i], &rc);
		if (rc < 0)
			return rc;
		in->any = in->any || in->flags[i];
	}
	/* public_builds is the older name of public_jobs */
	if (!in->flags[FLAG_PUBLIC_JOBS]) {
		in->flags[FLAG_PUBLIC_JOBS] = bool_param(r, "public_builds", &rc);
		if (rc < 0)
			return rc;
		in->any = in->any || in->flags[FLAG_PUBLIC_JOBS];
	}
	const char *vis = NULL;
	if ((rc = param_oneof(r, "visibility", visibilities, &vis)) < 0)
		return rc;
	if (vis) {
		in->vis = visibility_parse(vis);
		in->visibility = arena_printf(r->ctx.a, "%d", in->vis);
	}
	if ((rc = param_oneof(r, "merge_method", merge_methods, &in->merge_method)) < 0)
		return rc;
	in->name = param_str(r, "name");
	in->path = param_str(r, "path");
	in->description = param_str(r, "description");
	in->default_branch = param_str(r, "default_branch");
	in->ci_config_path = param_str(r, "ci_config_path");
	if ((rc = projects_read_tag_list(r, &in->tag_list)) < 0)
		return rc;
	in->any = in->any || vis || in->name || in->path || in->description || in->default_branch ||
		  in->ci_config_path || in->tag_list || in->merge_method;
	if (in->name && !*in->name)
		in->name = NULL;
	if (in->path && !*in->path)
		in->path = NULL;
	return 0;
}

/* Checks the shape of name and path: ERR_VALIDATION with the messages (added to those
 * already recorded), or 0. */
static int check_name_path(request *r, const char *name, const char *path)
{
	if (name) {
		if (param_text(r, "name", 255, &name) != ERR_VALIDATION &&
		    !valid_project_name(name))
			fail_validation(r, "name",
					"can contain only letters, digits, emojis, '_', '.', dash, "
					"space. It must start with letter, digit, emoji or '_'.");
	}
	if (path) {
		size_t chars = strlen(path);
		if (!*path)
			fail_validation(r, "path", "can't be blank");
		else if (chars > 255)
			fail_validation(r, "path", "is too long (maximum is 255 characters)");
		else if (!valid_project_path(path))
			fail_validation(
				r, "path",
				"can contain only letters, digits, '_', '-' and '.'. Cannot "
				"start with '-', end in '.git' or end in '.atom'");
		else if (path_reserved_project(path))
			fail_validation(r, "path",
					arena_printf(r->ctx.a, "%s is a reserved name", path));
	}
	return r->validation ? ERR_VALIDATION : 0;
}

/* ---- writes ---- */

/* 409 with the validation messages as the body's message (GitLab's conflict! with a
 * model's errors, as a fork answers them). */
static int conflict_with_validation(request *r)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "message", json_object_get(r->validation));
	respond_json(r, 409, o);
	return 0;
}

/* The visibility of a project in namespace kind/visibility may not be above a group's. */
static void check_group_visibility(request *r, const char *kind, int ns_vis, int vis)
{
	if (strcmp(kind, "group") == 0 && vis > ns_vis)
		fail_validation(r, "visibility_level",
				arena_printf(r->ctx.a, "%s is not allowed in a %s group.",
					     visibility_name(vis), visibility_name(ns_vis)));
}

/* Waits for the creations into namespace ns that other transactions have under way
 * (projects_lock_namespace). */
static int lock_namespace(request *r, const char *ns)
{
	const char *v[1] = {ns};
	int err;
	return db_query(&r->ctx, "projects_lock_namespace", 1, v, &err) ? 0 : err;
}

/* name and path already used in namespace ns (by another project than self). */
static int check_taken(request *r, const char *ns, const char *name, const char *path,
		       const char *self)
{
	const char *v[4] = {ns, name, path, self};
	int err;
	PGresult *res = db_query(&r->ctx, "projects_taken", 4, v, &err);
	if (!res)
		return err;
	bool name_taken = name && db_bool(res, 0, PT_NAME);
	if (path && db_bool(res, 0, PT_WIKI) && !name_taken)
		name_taken = true; /* GitLab names the name for a wiki path conflict */
	if (name_taken)
		fail_validation(r, "name", "has already been taken");
	if (path && db_bool(res, 0, PT_PATH))
		fail_validation(r, "path", "has already been taken");
	return 0;
}

/* A unique violation of the insert or update: which attribute was taken. */
static int taken_for(request *r, int err)
{
	if (err != ERR_CONFLICT)
		return err;
	const char *c = r->ctx.err_detail ? r->ctx.err_detail : "";
	r->ctx.err_detail = NULL;
	if (strcmp(c, "projects_path_key") == 0)
		return fail_validation(r, "path", "has already been taken");
	if (strcmp(c, "projects_name_key") == 0)
		return fail_validation(r, "name", "has already been taken");
	return ERR_INTERNAL;
}

struct target_ns {
	const char *id, *kind, *full_path, *owner_id;
	int visibility;
	bool allowed;
	long long limit, count;
};

/* The namespace ref (NULL: the user's own) that user_v ($1..$3) creates a project in:
 * 0 with *found, or a database error. */
static int target_namespace(request *r, const char *const *user_v, const char *ref,
			    struct target_ns *out, bool *found)
{
	const char *v[4] = {user_v[0], user_v[1], user_v[2], ref};
	int err;
	PGresult *res = db_query(&r->ctx, "projects_target_ns", 4, v, &err);
	if (!res)
		return err;
	*found = PQntuples(res) > 0;
	if (!*found)
		return 0;
	out->id = arena_strdup(r->ctx.a, PQgetvalue(res, 0, TN_ID));
	out->kind = arena_strdup(r->ctx.a, PQgetvalue(res, 0, TN_KIND));
	out->full_path = arena_strdup(r->ctx.a, PQgetvalue(res, 0, TN_FULL_PATH));
	const char *owner = db_val(res, 0, TN_OWNER_ID);
	out->owner_id = owner ? arena_strdup(r->ctx.a, owner) : NULL;
	out->visibility = (int)db_int(res, 0, TN_VISIBILITY);
	out->allowed = db_bool(res, 0, TN_ALLOWED);
	out->limit = db_int(res, 0, TN_LIMIT);
	out->count = db_int(res, 0, TN_COUNT);
	return 0;
}

/* GitLab 10's check_limit: personal projects count against the creator's limit. */
static const char *limit_message(request *r, const struct target_ns *ns)
{
	if (strcmp(ns->kind, "user") != 0 || ns->count < ns->limit)
		return NULL;
	if (ns->limit == 0)
		return "Personal project creation is not allowed. Please contact your "
		       "administrator with questions";
	return arena_printf(r->ctx.a,
			    "Your project limit is %lld projects! Please contact your "
			    "administrator to increase it",
			    ns->limit);
}

/* The rows of a new project in namespace ns, in the caller's transaction: the project,
 * the namespace owner's membership of a personal project, the 'created' event and the
 * repository (a fork's copied from its source). *id gets the new id. */
struct new_project {
	const char *name, *path, *description, *visibility, *default_branch, *creator, *forked_from,
		*ci_config_path, *tag_list, *import_status, *merge_method;
	const char *repository_storage; /* an admin's choice; NULL: spread */
	const char *const *flags;
};

/* The configured storages' names as a text[] literal (names need no quoting). */
static const char *storage_names(request *r)
{
	buf b;
	buf_init(&b, r->ctx.a, 64);
	buf_putc(&b, '{');
	for (int i = 0; i < r->ctx.cfg->storages.n; i++)
		buf_printf(&b, "%s%s", i ? "," : "", r->ctx.cfg->storages.items[i].name);
	buf_putc(&b, '}');
	return buf_cstr(&b);
}

static int insert_project(request *r, const struct target_ns *ns, const struct new_project *np,
			  const char **id)
{
	char token[TOKEN_LEN + 1];
	const char *sealed;
	if (crypto_token_sealed(r->ctx.a, r->ctx.key, token, &sealed) < 0)
		return ERR_INTERNAL;
	const char *v[] = {[PI_NAMESPACE] = ns->id,
			   [PI_NAME] = np->name,
			   [PI_PATH] = np->path,
			   [PI_DESCRIPTION] = np->description,
			   [PI_VISIBILITY] = np->visibility,
			   [PI_DEFAULT_BRANCH] = np->default_branch,
			   [PI_CREATOR] = np->creator,
			   [PI_FORKED_FROM] = np->forked_from,
			   [PI_TAG_LIST] = np->tag_list,
			   [PI_RUNNERS_DIGEST] = crypto_sha256_hex(r->ctx.a, token, strlen(token)),
			   [PI_RUNNERS_SEALED] = sealed,
			   [PI_CI_CONFIG_PATH] = np->ci_config_path,
			   [PI_IMPORT_STATUS] = np->import_status,
			   [PI_MERGE_METHOD] = np->merge_method,
			   [PI_REPOSITORY_STORAGE] = np->repository_storage,
			   [PI_STORAGES] = storage_names(r)};
	DB_PARAMS(v, PI_NPARAMS);
	for (size_t i = 0; i < NFLAGS; i++)
		v[PI_FLAGS + i] = np->flags ? np->flags[i] : NULL;
	int err;
	PGresult *res = db_query(&r->ctx, "projects_insert", PI_NPARAMS, v, &err);
	if (!res)
		return taken_for(r, err);
	*id = arena_strdup(r->ctx.a, PQgetvalue(res, 0, PIR_ID));
	db_repos_storage_known(&r->ctx, *id, PQgetvalue(res, 0, PIR_STORAGE), false);
	if (ns->owner_id) {
		const char *mv[3] = {*id, ns->owner_id, np->creator};
		if (!db_query(&r->ctx, "projects_member_insert", 3, mv, &err))
			return err;
	}
	int rc = events_record(r, *id, np->creator, "created", "created", NULL, NULL, NULL, NULL);
	if (rc < 0)
		return rc;
	/* the repository's path comes from the new id: nothing else can be there; a
	 * rollback removes it */
	if (np->forked_from ? repo_fork(&r->ctx, np->forked_from, *id) < 0
			    : repo_create(&r->ctx, *id) < 0)
		return ERR_INTERNAL;
	if (np->default_branch && !np->forked_from) {
		rc = repo_set_head(&r->ctx, *id, np->default_branch, false);
		if (rc == ERR_NOT_FOUND)
			return fail_validation(r, "default_branch", "is invalid");
		if (rc < 0)
			return ERR_INTERNAL;
	}
	return 0;
}

/* POST /projects and POST /projects/user/:user_id: a project created as user_v
 * ($1..$3 of SQL_ME). limit_status: how a reached projects limit is answered (403 for
 * the caller's own creation, 400 as a validation error for an admin's). */
static int create_as(request *r, const char *const *user_v, bool own)
{
	struct project_input in;
	int rc = read_input(r, &in);
	if (rc < 0)
		return rc;
	if (!in.name && !in.path)
		return fail(r, ERR_INVALID,
			    "name, path are missing, at least one parameter must be provided");
	long long nsid;
	if ((rc = param_int(r, "namespace_id", &nsid)) < 0)
		return rc;
	const char *ns_ref = rc == 0 ? param_str(r, "namespace_id") : NULL;
	/* GitLab 10's set_project_name_from_path */
	const char *name = in.name ? in.name : in.path;
	const char *path = in.path ? in.path : parameterize(r, in.name);
	if ((rc = check_name_path(r, name, path)) < 0)
		return rc;
	struct target_ns ns = {0};
	bool found;
	const char *id = NULL;
	if ((rc = target_namespace(r, user_v, ns_ref, &ns, &found)) < 0)
		return rc;
	if (!found || !ns.allowed)
		return fail_validation(r, "namespace", "is not valid");
	const char *limit = limit_message(r, &ns);
	if (limit && own) {
		/* GitLab 10 answers error!(errors[:limit_reached], 403) */
		json_object *o = json_object_new_object(), *list = json_object_new_array();
		json_object_array_add(list, json_object_new_string(limit));
		json_object_object_add(o, "error", list);
		respond_json(r, 403, o);
		return 0;
	}
	if (limit)
		fail_validation(r, "limit_reached", limit);
	if (in.vis >= 0) {
		check_group_visibility(r, ns.kind, ns.visibility, in.vis);
	} else {
		/* the instance's default (application settings), at most the group's */
		in.vis = settings_default_project_visibility(&r->ctx);
		if (!strcmp(ns.kind, "group") && in.vis > ns.visibility)
			in.vis = ns.visibility;
		in.visibility = arena_printf(r->ctx.a, "%d", in.vis);
	}
	/* the user the project is created as (POST /projects/user/:user_id: that user) */
	settings_refuse_visibility(r, user_v[ME_ADMIN] && !strcmp(user_v[ME_ADMIN], "true"),
				   in.vis);
	/* 10.8: an admin's repository_storage, one of the configured; others' ignored */
	const char *storage = NULL;
	if (r->ctx.user && r->ctx.user->admin && (storage = param_str(r, "repository_storage")) &&
	    !storages_path(&r->ctx.cfg->storages, storage))
		fail_validation(r, "repository_storage", "is not included in the list");
	if ((rc = lock_namespace(r, ns.id)) < 0 ||
	    (rc = check_taken(r, ns.id, name, path, NULL)) < 0)
		return rc;
	if (r->validation)
		return ERR_VALIDATION;
	struct new_project np = {
		.repository_storage = storage,
		.name = name,
		.path = path,
		.description = in.description,
		.visibility = in.visibility,
		.default_branch = in.default_branch,
		.creator = user_v[0],
		.ci_config_path = in.ci_config_path,
		.tag_list = in.tag_list,
		.merge_method = in.merge_method,
		.flags = in.flags,
	};
	if ((rc = insert_project(r, &ns, &np, &id)) < 0 ||
	    (rc = hooks_system_project(&r->ctx, "project_create", id, NULL)) < 0)
		return rc;
	return present(r, id, 201, true);
}

static int projects_create(request *r)
{
	const char *v[3];
	access_me_params(&r->ctx, v);
	return create_as(r, v, true);
}

static int projects_create_for_user(request *r)
{
	const char *uid;
	int rc = api_id(r, "user_id", &uid);
	if (rc < 0)
		return rc;
	const char *name;
	if ((rc = param_require(r, "name", &name)) < 0)
		return rc;
	const char *v[1] = {uid};
	int err;
	PGresult *res = db_query(&r->ctx, "projects_user", 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return fail_not_found(r, "User");
	/* the project is created as that user, as GitLab's CreateService.new(user, ...) */
	const char *uv[ME_NPARAMS] = {
		[ME_ID] = arena_strdup(r->ctx.a, PQgetvalue(res, 0, PUSER_ID)),
		[ME_ADMIN] = db_bool(res, 0, PUSER_ADMIN) ? "true" : "false",
		[ME_EXTERNAL] = db_bool(res, 0, PUSER_EXTERNAL) ? "true" : "false"};
	return create_as(r, uv, false);
}

/* GitLab's render_api_error!(project.errors.full_messages.first, 400): the first
 * validation message with its attribute ("Path has already been taken"). */
static int answer_first_validation(request *r)
{
	const char *text = "Project could not be created";
	json_object_object_foreach(r->validation, field, list)
	{
		const char *m = json_object_get_string(json_object_array_get_idx(list, 0));
		char *f = arena_strdup(r->ctx.a, field);
		for (char *p = f; *p; p++)
			if (*p == '_')
				*p = ' ';
		if (*f >= 'a' && *f <= 'z')
			*f = (char)(*f - 'a' + 'A');
		text = arena_printf(r->ctx.a, "%s %s", f, m ? m : "is invalid");
		break;
	}
	json_object *o = json_object_new_object();
	json_object_object_add(o, "message", json_object_new_string(text));
	respond_json(r, 400, o);
	return 1;
}

int projects_create_import(request *r, const char *ns_ref, const char *name, const char *path,
			   bool overwrite, const char **id, const char **replaces)
{
	*replaces = NULL;
	const char *user_v[3];
	access_me_params(&r->ctx, user_v);
	if (!name)
		name = path;
	int rc = check_name_path(r, name, path);
	if (rc == ERR_VALIDATION)
		return answer_first_validation(r);
	struct target_ns ns = {0};
	bool found;
	if ((rc = target_namespace(r, user_v, ns_ref, &ns, &found)) < 0)
		return rc;
	if (!found && ns_ref)
		return fail_not_found(r, "Namespace");
	if (!found || !ns.allowed) {
		fail_validation(r, "namespace", "is not valid");
		return answer_first_validation(r);
	}
	const char *limit = limit_message(r, &ns);
	if (limit) {
		fail_validation(r, "limit_reached", limit);
		return answer_first_validation(r);
	}
	if ((rc = lock_namespace(r, ns.id)) < 0 ||
	    (rc = check_taken(r, ns.id, name, path, NULL)) < 0)
		return rc;
	if (r->validation && overwrite) {
		/* GitLab's overwrite: the import goes to a free temporary path and takes the
		 * project's place when it succeeds */
		const char *v[2] = {ns.id, path};
		int err;
		PGresult *res = db_query(&r->ctx, "projects_id_by_path", 2, v, &err);
		if (!res)
			return err;
		if (PQntuples(res) == 1) {
			json_object_put(r->validation);
			r->validation = NULL;
			*replaces = arena_strdup(r->ctx.a, PQgetvalue(res, 0, 0));
			unsigned char raw[4];
			crypto_random(raw, sizeof(raw));
			const char *tmp = arena_printf(r->ctx.a, "-import-%02x%02x%02x%02x", raw[0],
						       raw[1], raw[2], raw[3]);
			name = arena_printf(r->ctx.a, "%s%s", name, tmp);
			path = arena_printf(r->ctx.a, "%s%s", path, tmp);
			if ((rc = check_taken(r, ns.id, name, path, NULL)) < 0)
				return rc;
		}
	}
	if (r->validation)
		return answer_first_validation(r);
	struct new_project np = {
		.name = name,
		.path = path,
		.visibility = "0", /* private until the import reads the exported one */
		.creator = user_v[0],
		.import_status = "scheduled",
	};
	if ((rc = insert_project(r, &ns, &np, id)) < 0)
		return rc == ERR_VALIDATION ? answer_first_validation(r) : rc;
	return hooks_system_project(&r->ctx, "project_create", *id, NULL);
}

/* The edit's attributes in the order GitLab 10 names them when none is given. */
#define PROJECT_EDIT_ATTRIBUTES                                                                    \
	"jobs_enabled, resolve_outdated_diff_discussions, ci_config_path, "                        \
	"container_registry_enabled, default_branch, description, issues_enabled, lfs_enabled, "   \
	"merge_requests_enabled, name, only_allow_merge_if_all_discussions_are_resolved, "         \
	"only_allow_merge_if_pipeline_succeeds, path, printing_merge_request_link_enabled, "       \
	"public_builds, request_access_enabled, shared_runners_enabled, snippets_enabled, "        \
	"tag_list, visibility, wiki_enabled, merge_method"

/* The edit's parameters, as GitLab's declarations check them before the project is
 * looked up. */
static int read_edit(request *r, struct project_input *in)
{
	int rc = read_input(r, in);
	if (rc < 0)
		return rc;
	if (!in->any)
		return fail(r, ERR_INVALID,
			    PROJECT_EDIT_ATTRIBUTES
			    " are missing, at least one parameter must be provided");
	return 0;
}

static int projects_check_update(request *r)
{
	struct project_input in;
	return read_edit(r, &in);
}

static int projects_update(request *r)
{
	struct project_input in;
	int rc = read_edit(r, &in);
	if (rc < 0)
		return rc;
	const project_scope *p = r->project;
	/* masters edit; a new name or visibility is the owner's (rename_project,
	 * change_visibility_level) */
	if (!can_update_project(&p->pa) || ((in.name || in.vis >= 0) && !can_admin_project(&p->pa)))
		return ERR_FORBIDDEN;
	/* read_input takes an empty name or path for none: here it is a blank one */
	const char *blank[] = {"name", "path"};
	for (size_t i = 0; i < 2; i++) {
		const char *given = param_str(r, blank[i]);
		if (given && !*given)
			fail_validation(r, blank[i], "can't be blank");
	}
	check_name_path(r, in.name, in.path); /* the messages are answered below */
	if (in.vis >= 0)
		check_group_visibility(r, p->ns_kind, p->ns_visibility, in.vis);
	if (in.vis >= 0 && in.vis != p->visibility)
		settings_refuse_visibility(r, API_CALLER_ADMIN(r), in.vis);
	if ((in.name || in.path) &&
	    (rc = check_taken(r, p->namespace_id, in.name, in.path, p->id)) < 0)
		return rc;
	if (r->validation)
		return ERR_VALIDATION;
	const char *v[] = {[PU_ID] = p->id,
			   [PU_NAME] = in.name,
			   [PU_PATH] = in.path,
			   [PU_DESCRIPTION] = in.description,
			   [PU_VISIBILITY] = in.visibility,
			   [PU_DEFAULT_BRANCH] = in.default_branch,
			   [PU_TAG_LIST] = in.tag_list,
			   [PU_CI_CONFIG_PATH] = in.ci_config_path,
			   [PU_MERGE_METHOD] = in.merge_method};
	DB_PARAMS(v, PU_NPARAMS);
	for (size_t i = 0; i < NFLAGS; i++)
		v[PU_FLAGS + i] = in.flags[i];
	int err;
	if (!db_query(&r->ctx, "projects_update", PU_NPARAMS, v, &err))
		return taken_for(r, err);
	const char *old_path = arena_printf(r->ctx.a, "%s/%s", p->ns_full_path, p->path);
	if (in.path && strcmp(in.path, p->path) != 0 &&
	    (rc = hooks_system_project(&r->ctx, "project_rename", p->id, old_path)) < 0)
		return rc;
	/* the default branch must exist (GitLab's change_head); HEAD is put back if the
	 * transaction does not commit */
	if (in.default_branch) {
		int hr = repo_set_head(&r->ctx, p->id, in.default_branch, true);
		if (hr < 0 && hr != ERR_NOT_FOUND)
			return ERR_INTERNAL;
		if (hr == ERR_NOT_FOUND)
			return fail_validation(
				r, "base",
				arena_printf(r->ctx.a,
					     "Could not change HEAD: branch '%s' does not exist",
					     in.default_branch));
	}
	return present(r, p->id, 200, true);
}

static int projects_delete(request *r)
{
	const project_scope *p = r->project;
	if (!can_admin_project(&p->pa))
		return ERR_FORBIDDEN;
	const char *v[1] = {p->id};
	int err;
	PGresult *res = db_query(&r->ctx, "projects_mark_deleted", 1, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0) /* another deletion came first */
		return fail_not_found(r, "Project");
	int hr = hooks_system_project(&r->ctx, "project_destroy", p->id, NULL);
	if (hr < 0)
		return hr;
	/* the background process removes the rows and the repository (stored by id: a new
	 * project of that path has a repository of its own at once) */
	int rc = queue_enqueue(&r->ctx, JOB_DELETE_PROJECT,
			       arena_printf(r->ctx.a, "{\"project_id\": %s}", p->id));
	if (rc < 0)
		return rc;
	json_object *o = json_object_new_object();
	json_put_str(o, "message", "202 Accepted");
	respond_json(r, 202, o);
	return 0;
}

static int projects_fork(request *r)
{
	const char *ns_ref = param_str(r, "namespace");
	if (ns_ref && !*ns_ref)
		ns_ref = NULL;
	const project_scope *src = r->project;
	struct target_ns ns = {0};
	bool found;
	const char *id = NULL;
	/* fork_project: the code must be readable (reporters and up of a private project) */
	if (!src->pa.admin && src->visibility == VIS_PRIVATE && src->pa.level < ACCESS_REPORTER &&
	    !src->pa.ns_owner)
		return ERR_FORBIDDEN;
	const char *uv[3];
	access_me_params(&r->ctx, uv);
	int rc = target_namespace(r, uv, ns_ref, &ns, &found);
	if (rc < 0)
		return rc;
	if (!found || !ns.allowed)
		return fail_not_found(r, "Target Namespace");
	const char *limit = limit_message(r, &ns);
	if (limit)
		fail_validation(r, "limit_reached", limit);
	if ((rc = lock_namespace(r, ns.id)) < 0 ||
	    (rc = check_taken(r, ns.id, src->name, src->path, NULL)) < 0)
		return rc;
	if (r->validation)
		return conflict_with_validation(r);
	/* the fork keeps the source's visibility, up to the target group's */
	int vis = src->visibility;
	if (strcmp(ns.kind, "group") == 0 && ns.visibility < vis)
		vis = ns.visibility;
	const char *flags[NFLAGS] = {NULL};
	flags[FLAG_SHARED_RUNNERS] = src->shared_runners_enabled ? "true" : "false";
	struct new_project np = {
		.name = src->name,
		.path = src->path,
		.description = src->description,
		.visibility = arena_printf(r->ctx.a, "%d", vis),
		.default_branch = src->default_branch,
		.creator = uv[0],
		.forked_from = src->id,
		.flags = flags,
		.import_status = "finished",
	};
	const char *fv[1] = {src->id};
	int err;
	if ((rc = insert_project(r, &ns, &np, &id)) < 0)
		return rc == ERR_VALIDATION ? conflict_with_validation(r) : rc;
	if (!db_query(&r->ctx, "projects_forks_inc", 1, fv, &err))
		return err;
	if ((rc = hooks_system_project(&r->ctx, "project_create", id, NULL)) < 0)
		return rc;
	return present(r, id, 201, true);
}

/* POST star/unstar: the project as Entities::Project, or 304 when nothing changed. */
static int set_star(request *r, bool star)
{
	const project_scope *p = r->project;
	const char *v[2] = {api_caller_id(r), p->id};
	int err;
	PGresult *res = db_query(&r->ctx, star ? "projects_star" : "projects_unstar", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return ERR_NOT_MODIFIED;
	return present(r, p->id, 201, false);
}

static int projects_star(request *r)
{
	return set_star(r, true);
}

static int projects_unstar(request *r)
{
	return set_star(r, false);
}

/* POST archive/unarchive (owners and admins; idempotent): 201 with the project. */
static int set_archived(request *r, bool archived)
{
	const project_scope *p = r->project;
	if (!can_admin_project(&p->pa))
		return ERR_FORBIDDEN;
	const char *v[2] = {p->id, archived ? "true" : "false"};
	int err;
	if (!db_query(&r->ctx, "projects_set_archived", 2, v, &err))
		return err;
	return present(r, p->id, 201, false);
}

static int projects_archive(request *r)
{
	return set_archived(r, true);
}

static int projects_unarchive(request *r)
{
	return set_archived(r, false);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route projects_routes[] = {
	{"GET", V4 "/projects", projects_list, ROUTE_PUBLIC | ROUTE_SELF_AUTH | ROUTE_CACHE, NULL},
	{"GET", V4 "/users/:user_id/projects", projects_list_user,
	 ROUTE_PUBLIC | ROUTE_SELF_AUTH | ROUTE_CACHE, NULL},
	{"GET", V4 "/projects/:id", projects_show, ROUTE_PUBLIC | ROUTE_SELF_AUTH | ROUTE_CACHE,
	 NULL},
	{"POST", V4 "/projects", projects_create, AUTH | TX, NULL},
	{"POST", V4 "/projects/user/:user_id", projects_create_for_user, ADMIN | TX, NULL},
	{"PUT", V4 "/projects/:id", projects_update, AUTH | PW, projects_check_update},
	{"DELETE", V4 "/projects/:id", projects_delete, AUTH | PW, NULL},
	{"POST", V4 "/projects/:id/fork", projects_fork, AUTH | PW, NULL},
	{"GET", V4 "/projects/:id/forks", projects_forks, ROUTE_PUBLIC | PR, NULL},
	{"POST", V4 "/projects/:id/star", projects_star, AUTH | PW, NULL},
	{"POST", V4 "/projects/:id/unstar", projects_unstar, AUTH | PW, NULL},
	{"POST", V4 "/projects/:id/archive", projects_archive, AUTH | PW, NULL},
	{"POST", V4 "/projects/:id/unarchive", projects_unarchive, AUTH | PW, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
