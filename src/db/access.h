/* The access model's rules in SQL (auth/access.h tells the model): macros that take the
 * SQL alias of a projects row (P) or of a namespaces row (G), pasted into statements at
 * compile time, so that access checks and the record come back in one statement.
 *
 * The caller is the one-row relation `me` (id NULL when anonymous), built by SQL_ME from
 * the statement's parameters $1 (user id), $2 (admin), $3 (external), which
 * access_me_params() fills. */
#ifndef COLLABD_DB_ACCESS_H
#define COLLABD_DB_ACCESS_H

#include "core/ctx.h"

#define SQL_ME                                                                                     \
	"me AS (SELECT $1::bigint AS id, coalesce($2::boolean, false) AS admin,"                   \
	" coalesce($3::boolean, false) AS external)"
/* The parameters SQL_ME takes ($1..$3), that a statement's own parameters follow. */
enum { ME_ID, ME_ADMIN, ME_EXTERNAL, ME_NPARAMS };
/* $1..$3 of SQL_ME for c's caller (NULLs when anonymous). */
void access_me_params(ctx *c, const char **v);

/* Membership row M counts: a member, not a pending access request, and not expired
 * (GitLab 10 removes members on their expires_at date; the background process removes
 * the rows, and access ends at once). */
#define SQL_MEMBER_ACTIVE(M)                                                                       \
	"(" M ".requested_at IS NULL AND (" M ".expires_at IS NULL"                                \
	" OR " M ".expires_at > current_date))"

/* The caller's highest level on project P (0 when none; admins are not raised): the
 * highest of their unexpired rows of project_authorizations (sql/0009), which hold the
 * levels their memberships give, directly, through the groups above P and through the
 * groups P is shared with. */
#define SQL_PROJECT_ACCESS(P) "coalesce((" SQL_PROJECT_LEVEL(P) "), 0)"
/* The same as a row of one column, level (NULL when none), for a statement that reads it
 * more than once: `LEFT JOIN LATERAL (SQL_PROJECT_LEVEL(P)) PA ON true`. */
#define SQL_PROJECT_LEVEL(P)                                                                       \
	"SELECT max(pa.access_level) AS level FROM project_authorizations pa"                      \
	" WHERE pa.user_id = me.id AND pa.project_id = " P ".id AND pa.expires_at > current_date"

/* Project P may be seen by the caller, whose level on it is LEVEL. */
#define SQL_PROJECT_VISIBLE_AT(P, LEVEL)                                                           \
	"(me.admin OR " P ".visibility = 20 OR (me.id IS NOT NULL AND ((" P ".visibility = 10"     \
	" AND NOT me.external) OR " LEVEL " >= 10)))"
/* Project P may be seen by the caller. */
#define SQL_PROJECT_VISIBLE(P) SQL_PROJECT_VISIBLE_AT(P, SQL_PROJECT_ACCESS(P))

/* The set form of SQL_PROJECT_ACCESS, for lists: the ids of the projects the caller is a
 * member of, directly, through a group or an ancestor of it, or through a group (or an
 * ancestor of it) the project is shared with (a project may come more than once), as
 * their unexpired rows of project_authorizations: its cost follows the caller's rows, not
 * the number of projects. Name it in the WITH list: `mine AS (SQL_MY_PROJECTS)`. */
#define SQL_MY_PROJECTS                                                                            \
	"SELECT pa.project_id AS id FROM me JOIN project_authorizations pa"                        \
	" ON pa.user_id = me.id WHERE pa.expires_at > current_date"

/* SQL_PROJECT_VISIBLE for the projects row P of a list, with `mine` in the WITH list. */
#define SQL_PROJECT_LISTED(P)                                                                      \
	"(me.admin OR " P ".visibility = 20 OR (me.id IS NOT NULL AND ((" P ".visibility = 10"     \
	" AND NOT me.external) OR " P ".id IN (SELECT id FROM mine))))"

/* The caller's level on group G through it and its ancestors (0 when none). */
#define SQL_GROUP_ACCESS(G)                                                                        \
	"coalesce((SELECT max(m.access_level) FROM members m WHERE m.source_type = 'Namespace'"    \
	" AND m.source_id = ANY (" G ".traversal_ids) AND m.user_id = me.id"                       \
	" AND " SQL_MEMBER_ACTIVE("m") "), 0)"

/* The caller belongs to group G: a member of it, of an ancestor or of a subgroup, or a
 * member of a project inside it (false when anonymous). GET /groups lists these groups
 * by default (GitLab 10's GroupsFinder with all_available=false). */
#define SQL_GROUP_MEMBER(G)                                                                                      \
	"(me.id IS NOT NULL AND (" SQL_GROUP_ACCESS(                                                             \
		G) " >= 10 OR EXISTS (SELECT 1"                                                                  \
		   " FROM namespaces d JOIN members m ON m.source_type = 'Namespace' AND m.source_id = d.id"     \
		   " AND m.user_id = me.id AND " SQL_MEMBER_ACTIVE(                                              \
			   "m") " WHERE d.traversal_ids @> ARRAY[" G                                             \
				".id]) OR EXISTS (SELECT 1 FROM members m"                                       \
				" JOIN projects gp ON gp.id = m.source_id AND NOT gp.pending_delete"             \
				" JOIN namespaces gn ON gn.id = gp.namespace_id WHERE m.source_type = 'Project'" \
				" AND m.user_id = me.id AND " SQL_MEMBER_ACTIVE(                                 \
					"m") " AND gn.traversal_ids @> ARRAY[" G ".id])))"

/* The ids of the groups the caller belongs to (SQL_GROUP_MEMBER) as a set found from
 * their memberships, for lists: the groups at and above their group and project
 * memberships, and the groups below their group memberships. Name it in the WITH list:
 * `mygroups AS (SQL_MY_GROUPS)`. */
#define SQL_MY_GROUPS                                                                                    \
	"SELECT unnest(a.traversal_ids) AS id FROM me JOIN members m ON m.user_id = me.id"               \
	" AND m.source_type = 'Namespace' AND " SQL_MEMBER_ACTIVE(                                       \
		"m") " JOIN namespaces a"                                                                \
		     " ON a.id = m.source_id"                                                            \
		     " UNION SELECT unnest(a.traversal_ids) FROM me JOIN members m ON m.user_id = me.id" \
		     " AND m.source_type = 'Project' AND " SQL_MEMBER_ACTIVE(                            \
			     "m") " JOIN projects ap"                                                    \
				  " ON ap.id = m.source_id AND NOT ap.pending_delete JOIN namespaces a"  \
				  " ON a.id = ap.namespace_id AND a.kind = 'group'"                      \
				  " UNION SELECT d.id FROM me JOIN members m ON m.user_id = me.id"       \
				  " AND m.source_type = 'Namespace' AND " SQL_MEMBER_ACTIVE(             \
					  "m") " JOIN namespaces d"                                      \
					       " ON d.traversal_ids @> ARRAY[m.source_id]"

/* Group G may be seen by the caller: public, internal to signed-in users, or one they
 * belong to (SQL_GROUP_MEMBER), as GitLab 10's GroupPolicy. */
#define SQL_GROUP_VISIBLE(G)                                                                       \
	"(me.admin OR " G ".visibility = 20 OR (me.id IS NOT NULL AND " G ".visibility = 10"       \
	" AND NOT me.external) OR " SQL_GROUP_MEMBER(G) ")"

/* SQL_GROUP_VISIBLE for the namespaces row G of a list, with `mygroups` in the WITH list
 * and its row MG left-joined to G: `LEFT JOIN (SELECT DISTINCT id FROM mygroups) MG ON
 * MG.id = G.id` (one hashed set for the list instead of subqueries per row). */
#define SQL_GROUP_LISTED(G, MG)                                                                    \
	"(me.admin OR " G ".visibility = 20 OR (me.id IS NOT NULL AND " G ".visibility = 10"       \
	" AND NOT me.external) OR " MG ".id IS NOT NULL)"

/* The columns that fill a project_access for the projects row P, its namespace N and
 * the caller's level on it PA (SQL_PROJECT_LEVEL; the statement has the `me` CTE), read
 * back by project_access_read() from the column they start at. Whether the caller owns a
 * group above P is looked up only when their level says they might: an owner's level is
 * in project_authorizations. */
#define SQL_PROJECT_ACCESS_COLS(P, N, PA)                                                          \
	SQL_PROJECT_VISIBLE_AT(P, "coalesce(" PA ".level, 0)")                                     \
	", (" N ".kind = 'group'"                                                                  \
	" AND " PA ".level >= 50 AND EXISTS (SELECT 1 FROM members m"                              \
	" WHERE m.source_type = 'Namespace' AND m.source_id = ANY (" N ".traversal_ids)"           \
	" AND m.user_id = me.id AND m.access_level >= 50 AND " SQL_MEMBER_ACTIVE(                  \
		"m") "))"                                                                          \
		     " IS TRUE, coalesce(" PA ".level, 0), (" N ".kind = 'user' AND " N            \
		     ".owner_id = me.id)"                                                          \
		     " IS TRUE, me.admin, " P ".archived"
#define PROJECT_ACCESS_NCOLS 6
/* The same for a group_access and the namespaces row G. */
#define SQL_GROUP_ACCESS_COLS(G) SQL_GROUP_VISIBLE(G) ", " SQL_GROUP_ACCESS(G) ", me.admin"
#define GROUP_ACCESS_NCOLS 3

#endif
