/* Issues (spec 4.5 and the operations GitLab 10 had): the lists of GET /issues,
 * /groups/:id/issues and /projects/:id/issues with every filter, one issue, create,
 * edit (with the system notes and events GitLab writes), delete, move to another
 * project, subscriptions, and time tracking. The milestone lists of issues
 * (milestones.c) use the same list.
 *
 * Who sees what (auth/access.h, the tracker's abilities): an issue is seen by whoever
 * sees its project when the project's issues are enabled; a confidential one only by
 * reporters and up, its author and its assignee. GitLab 10 CE keeps at most one
 * assignee. Labels given by title that the project does not have (nor a group above
 * it) are created, as GitLab does, with its default color. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "api/issuable.h"
#include "entity/entity.h"
#include "entity/issue.h"
#include "entity/user_agent_detail.h"
#include "http/pagination.h"

/* A substring pattern of p, its pattern characters taken literally. */

/* Issue i has user U as its assignee. */
#define ASSIGNED(U)                                                                                \
	"EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id AND a.user_id = " U ")"

/* The ids of the groups that project p's milestones and labels may come from: its
 * namespace and the groups above it. */
#define PROJECT_GROUPS(P)                                                                          \
	"(SELECT unnest(gn.traversal_ids) FROM namespaces gn WHERE gn.id = " P ".namespace_id"     \
	" AND gn.kind = 'group')"

/* Milestone $M of project $P, or NULL when it is none of the project's or its groups'. */
#define PROJECT_MILESTONE(M, P)                                                                    \
	"(SELECT vm.id FROM milestones vm, projects vp WHERE vm.id = " M "::bigint"                \
	" AND vp.id = " P                                                                          \
	" AND (vm.project_id = vp.id OR vm.group_id IN " PROJECT_GROUPS("vp") "))"

/* The statement of the issues lists, the scope's condition on project p given (one
 * statement per scope, so that each has its plan: prepared statements run generic plans,
 * in which a condition such as ($4 IS NULL OR p.id = $4) is no index condition). The
 * projects in the scope that the caller sees first (vp), then the issues of each, read
 * by its project's index (the LATERAL's OFFSET 0 keeps it a scan per project: the
 * generic plan's estimate of the filters below is a row or two, and a join that trusts
 * it compares every issue with every project). The page is taken of the filtered ids
 * (f) before the joins that present it. */
#define ISSUES_ORDER                                                                               \
	"CASE WHEN $24::boolean THEN f.k END ASC, CASE WHEN $24 THEN f.id END ASC, f.k DESC,"      \
	" f.id DESC"
#define ISSUES_LIST(SCOPE)                                                                                                                                              \
	"WITH " SQL_ME ", mine AS (" SQL_MY_PROJECTS "),"                                                                                                               \
	" rep AS (SELECT pa.project_id AS id FROM me JOIN project_authorizations pa"                                                                                    \
	"  ON pa.user_id = me.id WHERE pa.expires_at > current_date AND pa.access_level >= 20),"                                                                        \
	" vp AS (SELECT p.id, p.namespace_id FROM me, projects p"                                                                                                       \
	"  WHERE NOT p.pending_delete AND p.issues_enabled AND " SCOPE                                                                                                  \
	"  AND " SQL_PROJECT_LISTED(                                                                                                                                    \
		"p") "),"                                                                                                                                               \
		     " f AS (SELECT i.id, CASE WHEN $23::boolean THEN i.updated_at ELSE i.created_at END AS k"                                                          \
		     "  FROM me, vp p CROSS JOIN LATERAL (SELECT * FROM issues li"                                                                                      \
		     "   WHERE li.project_id = p.id OFFSET 0) i"                                                                                                        \
		     "  WHERE (NOT i.confidential OR me.admin OR i.author_id = me.id OR " ASSIGNED(                                                                     \
			     "me.id") "   OR i.project_id IN (SELECT id FROM rep) OR EXISTS (SELECT 1 FROM namespaces own"                                              \
				      "   WHERE own.id = p.namespace_id AND own.kind = 'user' AND own.owner_id = me.id))"                                               \
				      "  AND ($6::text IS NULL OR i.state = $6)"                                                                                        \
				      "  AND ($7::text[] IS NULL OR (SELECT count(DISTINCT l.title) FROM label_links ll"                                                \
				      "   JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'Issue'"                                                           \
				      "   AND ll.target_id = i.id AND l.title = ANY ($7)) = cardinality($7))"                                                           \
				      "  AND (NOT $8::boolean OR NOT EXISTS (SELECT 1 FROM label_links ll"                                                              \
				      "   WHERE ll.target_type = 'Issue' AND ll.target_id = i.id))"                                                                     \
				      "  AND ($10::text IS NULL OR ($10 = 'none' AND i.milestone_id IS NULL)"                                                           \
				      "   OR ($10 = 'any' AND i.milestone_id IS NOT NULL) OR ($10 = 'title' AND EXISTS"                                                 \
				      "   (SELECT 1 FROM milestones mt WHERE mt.id = i.milestone_id AND mt.title = $9::text)))"                                         \
				      "  AND ($11::text = 'all' OR ($11 = 'created-by-me' AND i.author_id = me.id)"                                                     \
				      "   OR ($11 = 'assigned-to-me' AND " ASSIGNED(                                                                                    \
					      "me.id") "))"                                                                                                             \
						       "  AND ($12::bigint IS NULL OR i.author_id = $12)"                                                               \
						       "  AND ($13::bigint IS NULL OR " ASSIGNED(                                                                       \
							       "$13") ")"                                                                                               \
								      "  AND (NOT $14::boolean OR NOT EXISTS (SELECT 1 FROM issue_assignees a"                          \
								      "   WHERE a.issue_id = i.id))"                                                                    \
								      "  AND ($15::text IS NULL OR EXISTS (SELECT 1 FROM award_emoji e"                                 \
								      "   WHERE e.awardable_type = 'Issue' AND e.awardable_id = i.id AND e.user_id = me.id"             \
								      "   AND e.name = $15))"                                                                           \
								      "  AND (NOT $16::boolean OR NOT EXISTS (SELECT 1 FROM award_emoji e"                              \
								      "   WHERE e.awardable_type = 'Issue' AND e.awardable_id = i.id AND e.user_id = me.id))"           \
								      "  AND ($17::bigint[] IS NULL OR i.iid = ANY ($17))"                                              \
								      "  AND ($18::text IS NULL OR i.title ILIKE " SQL_LIKE("$18") " OR i.description ILIKE " SQL_LIKE( \
									      "$18") ")"                                                                                \
										     "  AND ($19::timestamptz IS NULL OR i.created_at >= $19)"                          \
										     "  AND ($20::timestamptz IS NULL OR i.created_at <= $20)"                          \
										     "  AND ($21::timestamptz IS NULL OR i.updated_at >= $21)"                          \
										     "  AND ($22::timestamptz IS NULL OR i.updated_at <= $22))"                         \
										     " SELECT (SELECT count(*) FROM f), pg.* FROM me LEFT JOIN LATERAL"                 \
										     " (SELECT " ISSUE_LIST_COLS                                                        \
										     " FROM (SELECT * FROM f ORDER BY " ISSUES_ORDER                                    \
										     "  LIMIT $25 OFFSET $26) f JOIN issues i ON i.id = f.id" ISSUE_JOINS               \
										     "  ORDER BY " ISSUES_ORDER                                                         \
										     ") pg ON true"

/* The plain list of project $1 for a caller who sees all its issues (the confidential
 * ones too, so that no row is checked: issues_list_page decides it in C), the filters
 * all at their defaults (state all, scope all, created_at desc) but the state when
 * COND_C and COND_LI are " AND c.state = $4" and " AND li.state = $4": the page's rows
 * read in order from issues(project_id, created_at, id) (no join back by id: the scan
 * reads them), the count a narrow count(*) of the same index, then the milestones;
 * the project's path is the route's scope's (ISSUE_PROJECT_LIST_COLS). A small plan
 * with no per-row filter, where ISSUES_LIST visits, filters, counts and sorts every
 * issue of the project. Only for a project whose issues are enabled (list_plain). */
#define ISSUES_LIST_PLAIN(COND_C, COND_LI)                                                         \
	"SELECT (SELECT count(*) FROM issues c WHERE c.project_id = $1" COND_C "), pg.*"           \
	" FROM (SELECT 1) one LEFT JOIN LATERAL"                                                   \
	" (SELECT " ISSUE_PROJECT_LIST_COLS " FROM (SELECT li.* FROM issues li"                    \
	"  WHERE li.project_id = $1" COND_LI " ORDER BY li.created_at DESC, li.id DESC"            \
	"  LIMIT $2 OFFSET $3) i" ISSUE_JOINS_MILESTONE                                            \
	" ORDER BY i.created_at DESC, i.id DESC) pg ON true"

/* The issues of GET /issues?scope=all that the caller ($1..$3) sees, no filter but the
 * state, created_at desc; $4 limit, $5 offset. ISSUES_LIST reads every issue of every
 * project the caller sees and filters, counts and sorts them all (about 0.3 s for an
 * ordinary user of 10,000 public projects with 100,000 open issues). Here:
 * - vp: the projects whose issues the caller sees (as ISSUES_LIST's), once;
 * - conf: the confidential issues the caller may read in them (of the state STATE asks
 *   of its issues alias), found from what makes them readable (all of them for an admin;
 *   authored; assigned; in a project of which they are a reporter or more; in their own
 *   namespace), each by its index;
 * - the count: COUNT of the projects' open_issues_count and closed_issues_count (the
 *   issues that are not confidential, which sql/0013's and sql/0037's trigger keeps),
 *   and conf's;
 * - the page (PAGE, its issues as i): read newest first from issues(state, created_at,
 *   id) (ISSUES_ALL_PAGE), each checked against vp and conf in a hash, until it is full.
 * The "OR false" keeps each IN a hashed filter of the scan: alone, the planner makes it a
 * join, and a join gives up the index's order (every issue sorted for the page). The
 * page's project, namespace and milestone are read by key (LATERAL ... OFFSET 0): the
 * generic plan cannot tell that LIMIT $4 is small and would hash whole tables. */
#define ISSUES_LIST_ALL(STATE, COUNT, PAGE)                                                                                                                                   \
	"WITH " SQL_ME ", mine AS (" SQL_MY_PROJECTS "),"                                                                                                                     \
	" vp AS MATERIALIZED (SELECT p.id, p.open_issues_count, p.closed_issues_count"                                                                                        \
	"  FROM me, projects p WHERE NOT p.pending_delete AND p.issues_enabled"                                                                                               \
	"  AND " SQL_PROJECT_LISTED(                                                                                                                                          \
		"p") "),"                                                                                                                                                     \
		     " conf AS MATERIALIZED (SELECT c.id FROM ("                                                                                                              \
		     "  SELECT c.id, c.project_id FROM me, issues c WHERE me.admin AND c.confidential" STATE(                                                                 \
			     "c") "  UNION SELECT c.id, c.project_id FROM me JOIN issues c ON c.author_id = me.id"                                                            \
				  "   WHERE c.confidential" STATE(                                                                                                            \
					  "c") "  UNION SELECT c.id, c.project_id FROM me JOIN issue_assignees a ON a.user_id = me.id"                                        \
					       "   JOIN issues c ON c.id = a.issue_id WHERE c.confidential" STATE(                                                            \
						       "c") "  UNION SELECT c.id, c.project_id FROM me JOIN project_authorizations pa"                                        \
							    "   ON pa.user_id = me.id JOIN issues c ON c.project_id = pa.project_id"                                          \
							    "   WHERE pa.expires_at > current_date AND pa.access_level >= 20 AND c.confidential" STATE(                       \
								    "c") "  UNION SELECT c.id, c.project_id FROM me JOIN namespaces own ON own.owner_id = me.id"              \
									 "   AND own.kind = 'user' JOIN projects op ON op.namespace_id = own.id"                              \
									 "   JOIN issues c ON c.project_id = op.id WHERE c.confidential" STATE(                               \
										 "c") "  ) c WHERE (c.project_id IN (SELECT id FROM vp) OR false))"                           \
										      " SELECT (SELECT coalesce(sum(" COUNT                                                   \
										      "), 0) FROM vp) + (SELECT count(*) FROM conf),"                                         \
										      " pg.* FROM me LEFT JOIN LATERAL (SELECT " ISSUE_LIST_COLS                              \
										      " FROM " PAGE                                                                           \
										      " i"                                                                                    \
										      " JOIN LATERAL (SELECT * FROM projects p WHERE p.id = i.project_id OFFSET 0) p ON true" \
										      " JOIN LATERAL (SELECT * FROM namespaces n WHERE n.id = p.namespace_id OFFSET 0) n"     \
										      "  ON true LEFT JOIN LATERAL (SELECT * FROM milestones m WHERE m.id = i.milestone_id"   \
										      "  OFFSET 0) m ON true ORDER BY i.created_at DESC, i.id DESC) pg ON true"
/* The issues of state S that the caller sees, newest first, LIMIT L. */
#define ISSUES_ALL_PAGE(S, L)                                                                      \
	"(SELECT li.* FROM issues li WHERE li.state = " S                                          \
	" AND (li.project_id IN (SELECT id FROM vp) OR false)"                                     \
	" AND (NOT li.confidential OR (li.id IN (SELECT id FROM conf) OR false))"                  \
	" ORDER BY li.created_at DESC, li.id DESC LIMIT " L ")"
#define ISSUES_STATE_IS(A) " AND " A ".state = $6::text"
#define ISSUES_STATE_ANY(A) ""

/* issues_list_all_*: the caller, the page, the state */
enum { IA_ME, IA_LIMIT = IA_ME + 3, IA_OFFSET, IA_STATE, IA_NPARAMS };
/* issues_get, issues_get_id (issuable.h's enum issuable_get_param): ISSUE_COLS, then */
enum { IG_ENABLED = ISSUE_NCOLS, IG_INVOLVED, IG_NCOLS };
/* issues_lock: issuable_lock's columns, then */
enum { LK_CONFIDENTIAL = ILK_NCOLS, LK_ESTIMATE, LK_SPENT, LK_MOVED_TO, LK_ENABLED, LK_NCOLS };
enum {
	II_PROJECT,
	II_TITLE,
	II_DESCRIPTION,
	II_AUTHOR,
	II_MILESTONE,
	II_CONFIDENTIAL,
	II_LOCKED,
	II_DUE_DATE,
	II_CREATED_AT,
	II_NPARAMS
};
enum { IIR_ID, IIR_IID, IIR_TITLE, IIR_NCOLS };
enum {
	IU_ID,
	IU_TITLE,
	IU_DESCRIPTION_GIVEN,
	IU_DESCRIPTION,
	IU_MILESTONE_GIVEN,
	IU_MILESTONE,
	IU_CONFIDENTIAL,
	IU_LOCKED,
	IU_DUE_DATE_GIVEN,
	IU_DUE_DATE,
	IU_STATE_EVENT,
	IU_CALLER,
	IU_UPDATED_AT,
	IU_PROJECT,
	IU_NPARAMS
};
enum { IUR_STATE, IUR_MILESTONE, IUR_MILESTONE_REF, IUR_CONFIDENTIAL, IUR_NCOLS };
enum { IT_ESTIMATE, IT_SPENT, IT_NCOLS };
enum { IM_ID, IM_IID, IM_TITLE, IM_NCOLS };

const db_stmt issues_stmts[] = {
	/* ISSUES_LIST_ALL: the caller $1..$3, $4 limit, $5 offset; of state $6 ('opened' or
	 * 'closed'), or in every state (a merge of the two states' ordered scans). */
	{"issues_list_all_state",
	 ISSUES_LIST_ALL(
		 ISSUES_STATE_IS,
		 "CASE WHEN $6 = 'opened' THEN open_issues_count ELSE closed_issues_count END",
		 ISSUES_ALL_PAGE("$6", "$4 OFFSET $5")),
	 IA_NPARAMS, 1 + ISSUE_NCOLS},
	{"issues_list_all_any",
	 ISSUES_LIST_ALL(
		 ISSUES_STATE_ANY, "open_issues_count + closed_issues_count",
		 "(SELECT * FROM (" ISSUES_ALL_PAGE("'opened'", "$4::bigint + $5::bigint") " UNION ALL " ISSUES_ALL_PAGE(
			 "'closed'",
			 "$4 + $5") ") u"
				    " ORDER BY u.created_at DESC, u.id DESC LIMIT $4 OFFSET $5)"),
	 IA_NPARAMS - 1, 1 + ISSUE_NCOLS},
	/* The issues the caller sees, filtered, a page of them in order (ISSUES_LIST): in
	 * every project; in project $4 ($5 NULL); in group $5 and its subgroups ($4 NULL).
	 * $1..$3 the caller, $6 state, $7 label titles (all of them), $8 without labels, $9
	 * milestone title with $10 how ('title', 'none', 'any'), $11 scope, $12 author, $13
	 * assignee, $14 without assignee, $15 the caller's award emoji, $16 without the caller's award, $17 iids,
	 * $18 search, $19..$22 created after/before, updated after/before, $23 by updated_at,
	 * $24 ascending, $25 limit, $26 offset. */
	{"issues_list", ISSUES_LIST("$4::bigint IS NULL AND $5::bigint IS NULL"), TF_NPARAMS,
	 1 + ISSUE_NCOLS},
	{"issues_list_project", ISSUES_LIST("p.id = $4::bigint AND $5::bigint IS NULL"), TF_NPARAMS,
	 1 + ISSUE_NCOLS},
	{"issues_list_group",
	 ISSUES_LIST("$4::bigint IS NULL AND p.namespace_id IN (SELECT g.id FROM namespaces g"
		     " WHERE g.traversal_ids @> ARRAY[$5::bigint])"),
	 TF_NPARAMS, 1 + ISSUE_NCOLS},
	/* ISSUES_LIST_PLAIN: project $1, $2 limit, $3 offset; and of state $4. */
	{"issues_list_project_plain", ISSUES_LIST_PLAIN("", ""), 3, 1 + ISSUE_NCOLS},
	{"issues_list_project_state",
	 ISSUES_LIST_PLAIN(" AND c.state = $4::text", " AND li.state = $4"), 4, 1 + ISSUE_NCOLS},
	/* Issue $5 of project $4 as the caller ($1..$3) sees it, whether the project's issues
	 * are enabled and whether the caller is its author or assignee. */
	{"issues_get",
	 "WITH " SQL_ME " SELECT " ISSUE_COLS ", p.issues_enabled,"
	 " coalesce(i.author_id = me.id, false) OR " ASSIGNED(
		 "me.id") " FROM me, issues i" ISSUE_JOINS
			  " WHERE i.project_id = $4 AND i.iid = $5",
	 IGP_NPARAMS, IG_NCOLS},
	/* The same by id. */
	{"issues_get_id",
	 "WITH " SQL_ME " SELECT " ISSUE_COLS ", p.issues_enabled,"
	 " coalesce(i.author_id = me.id, false) OR " ASSIGNED(
		 "me.id") " FROM me, issues i" ISSUE_JOINS " WHERE i.id = $4",
	 IGP_NPARAMS - 1, IG_NCOLS},
	/* Issue $2 of project $1 locked for a change, with what the change compares:
	 * id, author, its assignee, state, milestone, title, confidential, estimate, time
	 * spent, moved_to_id, issues_enabled. */
	{"issues_lock",
	 "SELECT i.id, i.author_id, (SELECT min(a.user_id) FROM issue_assignees a"
	 " WHERE a.issue_id = i.id), i.state, i.milestone_id, i.title, i.confidential,"
	 " i.time_estimate, i.total_time_spent, i.moved_to_id, p.issues_enabled"
	 " FROM issues i JOIN projects p ON p.id = i.project_id"
	 " WHERE i.project_id = $1 AND i.iid = $2 FOR UPDATE OF i",
	 2, LK_NCOLS},
	{"issues_project_enabled", "SELECT issues_enabled FROM projects WHERE id = $1", 1, 1},
	/* $1 project, $2 iid: the issue's id and its user agent detail (NULLs: none) */
	{"issues_user_agent_detail",
	 "SELECT i.id, " USER_AGENT_DETAIL_COLS " FROM issues i" USER_AGENT_DETAIL_JOIN(
		 "Issue", "i.id") " WHERE i.project_id = $1 AND i.iid = $2",
	 2, 1 + USER_AGENT_DETAIL_NCOLS},
	/* $1 project, $2 title, $3 description, $4 author, $5 milestone, $6 confidential,
	 * $7 discussion_locked, $8 due date, $9 created_at (NULL: now). */
	{"issues_insert",
	 "INSERT INTO issues (project_id, iid, title, description, author_id, milestone_id,"
	 " confidential, discussion_locked, due_date, created_at, updated_at)"
	 " VALUES ($1, next_iid('issues', 'Project', $1), $2, $3, $4, " PROJECT_MILESTONE(
		 "$5",
		 "$1") ", coalesce($6::boolean, false), $7, $8::date, coalesce($9::timestamptz, now()),"
		       " coalesce($9::timestamptz, now())) RETURNING id, iid, title",
	 II_NPARAMS, IIR_NCOLS},
	/* $1 issue; $2 title, $3/$4 description given/value, $5/$6 milestone given/id (one
	 * of project $14's, else none), $7 confidential, $8 discussion_locked, $9/$10 due
	 * date given/value, $11 state event, $12 the caller, $13 updated_at. The new state,
	 * milestone id, its reference (%iid, or %"title" for a group's), confidential. */
	{"issues_update",
	 "WITH u AS (UPDATE issues i SET title = coalesce($2, i.title),"
	 " description = CASE WHEN $3::boolean THEN $4 ELSE i.description END,"
	 " milestone_id = CASE WHEN $5::boolean THEN " PROJECT_MILESTONE(
		 "$6",
		 "$14") "  ELSE i.milestone_id END,"
			" confidential = coalesce($7::boolean, i.confidential),"
			" discussion_locked = coalesce($8::boolean, i.discussion_locked),"
			" due_date = CASE WHEN $9::boolean THEN $10::date ELSE i.due_date END,"
			" state = CASE $11::text WHEN 'close' THEN 'closed' WHEN 'reopen' THEN 'opened'"
			"  ELSE i.state END,"
			" closed_at = CASE WHEN $11 = 'close' AND i.state = 'opened' THEN now()"
			"  WHEN $11 = 'reopen' THEN NULL ELSE i.closed_at END,"
			" closed_by_id = CASE WHEN $11 = 'close' AND i.state = 'opened' THEN $12::bigint"
			"  WHEN $11 = 'reopen' THEN NULL ELSE i.closed_by_id END,"
			" updated_at = coalesce($13::timestamptz, now()) WHERE i.id = $1 RETURNING i.*)"
			" SELECT u.state, u.milestone_id, CASE WHEN m.project_id IS NOT NULL THEN '%' || m.iid"
			" ELSE '%\"' || m.title || '\"' END, u.confidential FROM u"
			" LEFT JOIN milestones m ON m.id = u.milestone_id",
	 IU_NPARAMS, IUR_NCOLS},
	/* Assigns issue $1 to user $2 (none when NULL) when the user may see project $3: the
	 * former and the new assignee's usernames (the former one stays when $2 may not),
	 * whether it changed (issuable_assign). */
	{"issues_assign",
	 "WITH me AS (SELECT u.id, u.is_admin AS admin, u.external FROM users u"
	 "  WHERE u.id = $2::bigint AND NOT u.ghost),"
	 " ok AS (SELECT me.id FROM me, projects p WHERE p.id = $3 AND " SQL_PROJECT_VISIBLE(
		 "p") "),"
		      " old AS (SELECT a.user_id FROM issue_assignees a WHERE a.issue_id = $1),"
		      " go AS (DELETE FROM issue_assignees a WHERE a.issue_id = $1"
		      "  AND ($2::bigint IS NULL OR EXISTS (SELECT 1 FROM ok))"
		      "  AND a.user_id IS DISTINCT FROM (SELECT id FROM ok) RETURNING a.user_id),"
		      " ins AS (INSERT INTO issue_assignees (issue_id, user_id) SELECT $1, id FROM ok"
		      "  ON CONFLICT DO NOTHING RETURNING user_id)"
		      " SELECT (SELECT u.username FROM old JOIN users u ON u.id = old.user_id"
		      "  ORDER BY u.id LIMIT 1),"
		      " CASE WHEN $2::bigint IS NULL THEN NULL WHEN EXISTS (SELECT 1 FROM ok)"
		      "  THEN (SELECT u.username FROM ok JOIN users u ON u.id = ok.id)"
		      "  ELSE (SELECT u.username FROM old JOIN users u ON u.id = old.user_id"
		      "  ORDER BY u.id LIMIT 1) END,"
		      " EXISTS (SELECT 1 FROM go) OR EXISTS (SELECT 1 FROM ins)",
	 3, IAS_NCOLS},
	{"issues_delete", "DELETE FROM issues WHERE id = $1", 1, 0},
	/* $1 issue, $2 estimate (NULL: keep), $3 spent to add (NULL: none), $4 reset spent.
	 * The estimate and the time spent after. */
	{"issues_time",
	 "UPDATE issues SET time_estimate = coalesce($2::integer, time_estimate),"
	 " total_time_spent = CASE WHEN $4::boolean THEN 0"
	 "  ELSE total_time_spent + coalesce($3::integer, 0) END, updated_at = now()"
	 " WHERE id = $1 RETURNING time_estimate, total_time_spent",
	 4, IT_NCOLS},
	/* Project $1 exists (a move's target that the caller may not see). */
	{"issues_project_exists", "SELECT 1 FROM projects WHERE id = $1 AND NOT pending_delete", 1,
	 1},
	/* Moves issue $1 to project $2 (locked by the caller) as a new issue there: its
	 * attributes, the target's milestone and labels of the same titles, its notes and
	 * award emoji. The new issue's id, iid and title. */
	{"issues_move",
	 "WITH o AS (SELECT * FROM issues WHERE id = $1),"
	 " n AS (INSERT INTO issues (project_id, iid, title, description, state, author_id,"
	 "  milestone_id, confidential, discussion_locked, due_date, time_estimate, closed_at,"
	 "  closed_by_id, created_at, updated_at)"
	 "  SELECT $2, next_iid('issues', 'Project', $2), o.title, o.description, o.state,"
	 "  o.author_id, (SELECT tm.id FROM milestones om, milestones tm, projects tp"
	 "   WHERE om.id = o.milestone_id AND tp.id = $2 AND tm.title = om.title"
	 "   AND (tm.project_id = tp.id OR tm.group_id IN " PROJECT_GROUPS(
		 "tp") ")"
		       "   ORDER BY tm.project_id NULLS LAST LIMIT 1),"
		       "  o.confidential, o.discussion_locked, o.due_date, o.time_estimate, o.closed_at,"
		       "  o.closed_by_id, o.created_at, now() FROM o RETURNING id, iid, title),"
		       " lab AS (INSERT INTO label_links (label_id, target_type, target_id)"
		       "  SELECT DISTINCT ON (tl.title) tl.id, 'Issue', n.id FROM n, label_links ll"
		       "  JOIN labels ol ON ol.id = ll.label_id, labels tl, projects tp"
		       "  WHERE ll.target_type = 'Issue' AND ll.target_id = $1 AND tp.id = $2"
		       "  AND tl.title = ol.title AND (tl.project_id = tp.id OR tl.group_id IN " PROJECT_GROUPS(
			       "tp") ") ORDER BY tl.title, tl.project_id NULLS LAST),"
				     " nts AS (INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, note,"
				     "  system, attachment, created_at, updated_at) SELECT $2, 'Issue', n.id, x.author_id,"
				     "  x.note, x.system, x.attachment, x.created_at, x.updated_at FROM n, notes x"
				     "  WHERE x.noteable_type = 'Issue' AND x.noteable_id = $1 ORDER BY x.id),"
				     " aw AS (INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id,"
				     "  created_at, updated_at) SELECT e.name, e.user_id, 'Issue', n.id, e.created_at,"
				     "  e.updated_at FROM n, award_emoji e WHERE e.awardable_type = 'Issue'"
				     "  AND e.awardable_id = $1)"
				     " SELECT id, iid, title FROM n",
	 2, IM_NCOLS},
	/* The moved issue $1 is closed (by $3) and points at the new one, $2. */
	{"issues_moved",
	 "UPDATE issues SET moved_to_id = $2, state = 'closed', updated_at = now(),"
	 " closed_at = CASE WHEN state = 'opened' THEN now() ELSE closed_at END,"
	 " closed_by_id = CASE WHEN state = 'opened' THEN $3::bigint ELSE closed_by_id END"
	 " WHERE id = $1",
	 3, 0},
	{NULL, NULL, 0, 0},
};

/* ---- reading the input ---- */

/* ---- the lists ---- */

/* The filters of the issue lists; scope defaults to default_scope. */
static int read_list_filters(request *r, const char *default_scope, tracker_filters *f)
{
	static const char *const states[] = {"opened", "closed", "all", NULL};
	static const char *const scopes[] = {"created-by-me", "assigned-to-me", "all", NULL};
	return tracker_read_filters(r, states, scopes, default_scope, f);
}

static int check_list(request *r)
{
	tracker_filters f;
	return read_list_filters(r, "all", &f);
}

/* Whether f sets no filter but the state, in the default order (created_at desc). */
static bool filters_plain(const tracker_filters *f)
{
	return !f->labels && !f->no_label && !f->milestone_mode && !f->milestone &&
	       strcmp(f->scope, "all") == 0 && !f->author && !f->assignee && !f->no_assignee &&
	       !f->emoji && !f->no_emoji && !f->iids && !f->search && !f->created_after &&
	       !f->created_before && !f->updated_after && !f->updated_before &&
	       strcmp(f->order_by, "created_at") == 0 && strcmp(f->sort, "desc") == 0;
}

/* The same for a project's list; with no filter but the state, its statement
 * (list_plain) goes with the project's, should the caller see every issue (api_query). */
static int check_project_list(request *r)
{
	tracker_filters f;
	int rc = read_list_filters(r, "all", &f);
	if (rc < 0)
		return rc;
	if (filters_plain(&f)) {
		const char **v = arena_alloc(r->ctx.a, 4 * sizeof(*v));
		v[0] = param_str(r, "id");
		v[1] = pagination_limit(r, &f.pg);
		v[2] = pagination_offset(r, &f.pg);
		v[3] = f.state;
		r->prefetch = (db_call){f.state ? "issues_list_project_state"
						: "issues_list_project_plain",
					f.state ? 4 : 3, v};
	}
	return 0;
}

/* Whether the list of project_id filtered by f is the plain one that ISSUES_LIST_PLAIN
 * computes: every issue of the route's project (the caller sees the confidential ones),
 * none of the filters but the state, created_at desc. */
static bool list_plain(request *r, const tracker_filters *f, const char *project_id)
{
	return project_id && r->project && strcmp(project_id, r->project->id) == 0 &&
	       r->project->issues_enabled && can_read_confidential_issues(&r->project->pa) &&
	       filters_plain(f);
}

int issues_list_page(request *r, const char *project_id, const char *group_id,
		     const char *default_scope, const char *milestone_title)
{
	tracker_filters f;
	int rc = read_list_filters(r, default_scope, &f);
	if (rc < 0)
		return rc;
	if (milestone_title) {
		f.milestone_mode = "title";
		f.milestone = milestone_title;
	}
	int err;
	PGresult *res;
	if (list_plain(r, &f, project_id)) {
		const char *v[4] = {project_id, pagination_limit(r, &f.pg),
				    pagination_offset(r, &f.pg), f.state};
		res = api_query(r,
				f.state ? "issues_list_project_state" : "issues_list_project_plain",
				f.state ? 4 : 3, v, &err);
	} else if (!project_id && !group_id && filters_plain(&f)) {
		const char *v[] = {[IA_LIMIT] = pagination_limit(r, &f.pg),
				   [IA_OFFSET] = pagination_offset(r, &f.pg),
				   [IA_STATE] = f.state};
		_Static_assert(sizeof(v) / sizeof(*v) == IA_NPARAMS, "issues_list_all_state");
		access_me_params(&r->ctx, v);
		res = db_query(&r->ctx, f.state ? "issues_list_all_state" : "issues_list_all_any",
			       f.state ? IA_NPARAMS : IA_NPARAMS - 1, v, &err);
	} else {
		const char *v[TF_NPARAMS];
		tracker_filter_params(r, &f, project_id, group_id, v);
		res = db_query(&r->ctx,
			       project_id ? "issues_list_project"
			       : group_id ? "issues_list_group"
					  : "issues_list",
			       TF_NPARAMS, v, &err);
	}
	if (!res)
		return err;
	api_respond_page_jw(r, &f.pg, res, entity_issue_basic_write, 1536);
	return 0;
}

static int issues_list_mine(request *r)
{
	return issues_list_page(r, NULL, NULL, "created-by-me", NULL);
}

static int issues_list_group(request *r)
{
	return issues_list_page(r, NULL, r->group->id, "all", NULL);
}

static int issues_list_project(request *r)
{
	return issues_list_page(r, r->project->id, NULL, "all", NULL);
}

/* ---- one issue ---- */

/* The issue :iid_param of the route's project as the caller may see it: its row of
 * issues_get (or issues_get_id when id is not NULL) in *out; 0, or 1 when there is none
 * to see (the caller answers its 404). */
static int fetch(request *r, const char *iid, const char *id, PGresult **out)
{
	PGresult *res;
	int rc = issuable_get(r, "issues_get", "issues_get_id", iid, id, &res);
	if (rc != 0)
		return rc;
	if (!db_bool(res, 0, IG_ENABLED) || !can_read_project(&r->project->pa))
		return 1;
	if (db_bool(res, 0, IC_CONFIDENTIAL) && !db_bool(res, 0, IG_INVOLVED) &&
	    !can_read_confidential_issues(&r->project->pa))
		return 1;
	*out = res;
	return 0;
}

/* GitLab's find_project_issue: 404 "Not found" */
static int not_found(request *r)
{
	return api_error(r, 404, "404 Not found");
}

static int issue_iid(request *r, const char *name, const char **out)
{
	return api_id(r, name, out);
}

static int check_iid(request *r)
{
	const char *iid;
	return issue_iid(r, "issue_iid", &iid);
}

/* The route's issue (:issue_iid) answered with write from column col of its row:
 * GET .../issues/:issue_iid and its time_stats. */
static int show_issue(request *r, writer_fn write, int col)
{
	const char *iid;
	int rc = issue_iid(r, "issue_iid", &iid);
	if (rc < 0)
		return rc;
	PGresult *res;
	if ((rc = fetch(r, iid, NULL, &res)) != 0)
		return rc < 0 ? rc : not_found(r);
	api_respond_record(r, 200, write, res, 0, col);
	return 0;
}

static int issues_show(request *r)
{
	return show_issue(r, entity_issue_write, 0);
}

/* ---- writing: the locked issue, notes and events ---- */

static int find_issue(request *r, const char *iid, const char *id, PGresult **out);

static const issuable_kind issue_kind = {
	.type = "Issue",
	.param = "issue_iid",
	.lock_stmt = "issues_lock",
	.assign_stmt = "issues_assign",
	.delete_stmt = "issues_delete",
	.find = find_issue,
	.col_id = IC_ID,
	.col_subscribed = IC_SUBSCRIBED,
	.write = entity_issue_write,
};

/* fetch, answering its 404. */
static int find_issue(request *r, const char *iid, const char *id, PGresult **out)
{
	int rc = fetch(r, iid, id, out);
	if (rc == 1)
		not_found(r);
	return rc;
}

typedef struct {
	issuable_row c;
	const char *moved_to;
	bool confidential, issues_enabled;
	long long estimate, spent;
} locked_issue;

/* Locks issue iid of the route's project: 0, or 1 when the caller may not see it. */
static int lock_issue(request *r, const char *iid, locked_issue *out)
{
	PGresult *res;
	int rc = issuable_lock(r, &issue_kind, iid, &res, &out->c);
	if (rc != 0)
		return rc;
	out->moved_to = db_val(res, 0, LK_MOVED_TO);
	out->confidential = db_bool(res, 0, LK_CONFIDENTIAL);
	out->issues_enabled = db_bool(res, 0, LK_ENABLED);
	out->estimate = db_int(res, 0, LK_ESTIMATE);
	out->spent = db_int(res, 0, LK_SPENT);
	const char *me = api_caller_id(r);
	bool involved = (out->c.author && strcmp(out->c.author, me) == 0) ||
			(out->c.assignee && strcmp(out->c.assignee, me) == 0);
	if (!can_read_issues(&r->project->pa, out->issues_enabled) ||
	    (out->confidential && !involved && !can_read_confidential_issues(&r->project->pa)))
		return 1;
	return 0;
}

/* The issue attributes of POST and PUT, read and checked by type. */
struct issue_input {
	const char *title, *description, *milestone, *labels, *due_date, *created_at, *updated_at,
		*state_event, *assignee;
	int confidential, discussion_locked; /* -1 absent */
	bool description_given, milestone_given, labels_given, due_date_given, assignee_given;
	int given; /* how many of them */
};

static int read_issue_input(request *r, bool create, struct issue_input *in)
{
	static const char *const events[] = {"reopen", "close", NULL};
	memset(in, 0, sizeof(*in));
	long long n;
	int rc;
	const char **ids;
	if (create && (rc = param_require(r, "title", &in->title)) < 0)
		return rc;
	if ((rc = param_int(r, "milestone_id", &n)) < 0 ||
	    (rc = param_int(r, "assignee_id", &n)) < 0 ||
	    (rc = issuable_read_bool(r, "confidential", &in->confidential)) < 0 ||
	    (rc = issuable_read_bool(r, "discussion_locked", &in->discussion_locked)) < 0 ||
	    (rc = param_datetime(r, "created_at", &in->created_at)) < 0 ||
	    (rc = param_datetime(r, "updated_at", &in->updated_at)) < 0 ||
	    (!create && (rc = param_oneof(r, "state_event", events, &in->state_event)) < 0))
		return rc;
	int nids = issuable_int_list(r, "assignee_ids", &ids);
	if (nids < 0)
		return nids;
	const char *due = param_str(r, "due_date");
	if (due && *due && (rc = param_date(r, "due_date", &in->due_date)) < 0)
		return rc;
	in->due_date_given = due != NULL;
	if (!create)
		in->title = param_str(r, "title");
	in->description = param_str(r, "description");
	in->description_given = in->description != NULL;
	in->milestone = param_str(r, "milestone_id");
	in->milestone_given = in->milestone != NULL;
	in->labels = issuable_labels_param(r);
	in->labels_given = in->labels != NULL;
	if (nids > 0) {
		in->assignee_given = true;
		in->assignee = ids[0]; /* CE: one assignee */
	} else if (param_str(r, "assignee_id")) {
		in->assignee_given = true;
		in->assignee = param_str(r, "assignee_id");
	} else if (param_find(r, "assignee_ids")) {
		in->assignee_given = true; /* an empty list */
	}
	in->assignee = issuable_id_or_none(r, in->assignee);
	in->milestone = issuable_id_or_none(r, in->milestone);
	in->given = (in->title != NULL) + in->description_given + in->milestone_given +
		    in->labels_given + in->due_date_given + in->assignee_given +
		    (in->confidential >= 0) + (in->discussion_locked >= 0) +
		    (in->created_at != NULL) + (in->state_event != NULL);
	if (!create && in->given == 0)
		return fail(
			r, ERR_INVALID,
			"title, description, assignee_ids, assignee_id, milestone_id, "
			"discussion_locked, labels, created_at, due_date, confidential, state_event"
			" are missing, at least one parameter must be provided");
	issuable_check_title(r, &in->title);
	if (in->description)
		param_text(r, "description", 1000000, &in->description);
	return r->validation ? ERR_VALIDATION : 0;
}

static int check_create(request *r)
{
	struct issue_input in;
	return read_issue_input(r, true, &in);
}

static int check_update(request *r)
{
	struct issue_input in;
	const char *iid;
	int rc = issue_iid(r, "issue_iid", &iid);
	return rc < 0 ? rc : read_issue_input(r, false, &in);
}

static int project_issues_enabled(request *r, bool *out)
{
	const char *v[1] = {r->project->id};
	int err;
	PGresult *res = db_query(&r->ctx, "issues_project_enabled", 1, v, &err);
	if (!res)
		return err;
	*out = PQntuples(res) && db_bool(res, 0, 0);
	return 0;
}

static int issues_create(request *r)
{
	struct issue_input in;
	int rc = read_issue_input(r, true, &in);
	if (rc < 0)
		return rc;
	bool enabled = false;
	if ((rc = project_issues_enabled(r, &enabled)) < 0)
		return rc;
	const project_access *pa = &r->project->pa;
	if (!can_create_issue(pa, enabled, r->ctx.user))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	/* what only those who administer issues may set; created_at: admins and the
	 * project's owner */
	bool admin = can_admin_issue(pa);
	const char *created_at = pa->admin || pa->ns_owner ? in.created_at : NULL;
	const char *v[] = {
		[II_PROJECT] = r->project->id,
		[II_TITLE] = in.title,
		[II_DESCRIPTION] = in.description,
		[II_AUTHOR] = api_caller_id(r),
		[II_MILESTONE] = admin ? in.milestone : NULL,
		[II_CONFIDENTIAL] = in.confidential < 0 ? NULL
				    : in.confidential   ? "true"
							: "false",
		[II_LOCKED] = !admin || in.discussion_locked < 0 ? NULL
			      : in.discussion_locked             ? "true"
								 : "false",
		[II_DUE_DATE] = in.due_date,
		[II_CREATED_AT] = created_at,
	};
	_Static_assert(sizeof(v) / sizeof(*v) == II_NPARAMS, "issues_insert");
	int err;
	PGresult *res = db_query(&r->ctx, "issues_insert", II_NPARAMS, v, &err);
	if (!res)
		return err;
	const char *id = db_val(res, 0, IIR_ID), *iid = db_val(res, 0, IIR_IID);
	const char *title = db_val(res, 0, IIR_TITLE);
	if ((rc = user_agent_record(r, "Issue", id)) < 0)
		return rc;
	if ((rc = issuable_created(r, &issue_kind, id, iid, title, admin, in.assignee, in.labels)) <
		    0 ||
	    (rc = hooks_issue(r, id, "open")) < 0)
		return rc;
	return issuable_respond(r, &issue_kind, 201, id);
}

static int issues_update(request *r)
{
	struct issue_input in;
	const char *iid;
	int rc = issue_iid(r, "issue_iid", &iid);
	if (rc < 0 || (rc = read_issue_input(r, false, &in)) < 0)
		return rc;
	locked_issue is;
	if ((rc = lock_issue(r, iid, &is)) != 0)
		return rc < 0 ? rc : not_found(r);
	const project_access *pa = &r->project->pa;
	bool admin = can_admin_issue(pa);
	/* GitLab's update_issue: the author, the assignee, or reporters and up */
	if (!issuable_can_update(r, admin, &is.c))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	const char *updated_at = pa->admin || pa->ns_owner ? in.updated_at : NULL;
	const char *v[] = {
		[IU_ID] = is.c.id,
		[IU_TITLE] = in.title,
		[IU_DESCRIPTION_GIVEN] = in.description_given ? "true" : "false",
		[IU_DESCRIPTION] = in.description,
		[IU_MILESTONE_GIVEN] = admin && in.milestone_given ? "true" : "false",
		[IU_MILESTONE] = in.milestone,
		[IU_CONFIDENTIAL] = in.confidential < 0 ? NULL
				    : in.confidential   ? "true"
							: "false",
		[IU_LOCKED] = !admin || in.discussion_locked < 0 ? NULL
			      : in.discussion_locked             ? "true"
								 : "false",
		[IU_DUE_DATE_GIVEN] = in.due_date_given ? "true" : "false",
		[IU_DUE_DATE] = in.due_date,
		[IU_STATE_EVENT] = in.state_event,
		[IU_CALLER] = api_caller_id(r),
		[IU_UPDATED_AT] = updated_at,
		[IU_PROJECT] = r->project->id,
	};
	_Static_assert(sizeof(v) / sizeof(*v) == IU_NPARAMS, "issues_update");
	int err;
	PGresult *res = db_query(&r->ctx, "issues_update", IU_NPARAMS, v, &err);
	if (!res)
		return err;
	const char *state = db_val(res, 0, IUR_STATE);
	bool confidential = db_bool(res, 0, IUR_CONFIDENTIAL);
	const char *title = in.title ? in.title : is.c.title;
	if ((rc = issuable_state_changed(r, &issue_kind, &is.c, iid, state, title)) < 0 ||
	    (rc = issuable_title_changed(r, &issue_kind, &is.c, in.title)) < 0 ||
	    (rc = issuable_edited(r, &issue_kind, &is.c, db_val(res, 0, IUR_MILESTONE),
				  db_val(res, 0, IUR_MILESTONE_REF), admin, in.labels,
				  in.assignee_given, in.assignee)) < 0)
		return rc;
	if (confidential != is.confidential &&
	    (rc = issuable_system_note(r, &issue_kind, r->project->id, is.c.id,
				       confidential ? "made the issue confidential"
						    : "made the issue visible to everyone")) < 0)
		return rc;
	const char *action = strcmp(state, is.c.state) == 0 ? "update"
			     : strcmp(state, "closed") == 0 ? "close"
							    : "reopen";
	if ((rc = hooks_issue(r, is.c.id, action)) < 0)
		return rc;
	return issuable_respond(r, &issue_kind, 200, is.c.id);
}

static int issues_delete(request *r)
{
	const char *iid;
	int rc = issue_iid(r, "issue_iid", &iid);
	if (rc < 0)
		return rc;
	locked_issue is;
	if ((rc = lock_issue(r, iid, &is)) != 0)
		return rc < 0 ? rc : fail_not_found(r, "Issue");
	if (!can_destroy_issue(&r->project->pa))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	return issuable_delete(r, &issue_kind, is.c.id);
}

/* ---- move ---- */

static int check_move(request *r)
{
	const char *iid, *to;
	int rc = issue_iid(r, "issue_iid", &iid);
	return rc < 0 ? rc : api_id(r, "to_project_id", &to);
}

static int issues_move(request *r)
{
	const char *iid, *to;
	int rc = issue_iid(r, "issue_iid", &iid);
	if (rc < 0 || (rc = api_id(r, "to_project_id", &to)) < 0)
		return rc;
	locked_issue is;
	if ((rc = lock_issue(r, iid, &is)) != 0)
		return rc < 0 ? rc : fail_not_found(r, "Issue");
	to = arena_printf(r->ctx.a, "%lld", strtoll(to, NULL, 10));
	project_scope target;
	rc = scope_project(&r->ctx, to, SCOPE_UPDATE, &target);
	if (rc == ERR_NOT_FOUND) {
		const char *v[1] = {to};
		int err;
		PGresult *res = db_query(&r->ctx, "issues_project_exists", 1, v, &err);
		if (!res)
			return err;
		if (PQntuples(res) == 0)
			return fail_not_found(r, "Project");
	} else if (rc < 0) {
		return rc;
	}
	bool target_enabled = false;
	if (rc == 0) {
		const char *v[1] = {target.id};
		int err;
		PGresult *res = db_query(&r->ctx, "issues_project_enabled", 1, v, &err);
		if (!res)
			return err;
		target_enabled = db_bool(res, 0, 0);
	}
	/* GitLab's can_move?: admin_issue on both projects, an issue not moved before */
	if (rc != 0 || is.moved_to || !can_admin_issue(&r->project->pa) ||
	    !can_admin_issue(&target.pa) || !target_enabled)
		return api_error(r, 400, "Cannot move issue due to insufficient permissions!");
	if (strcmp(target.id, r->project->id) == 0)
		return api_error(r, 400, "Cannot move issue to project it originates from!");
	const char *v[2] = {is.c.id, target.id};
	int err;
	PGresult *res = db_query(&r->ctx, "issues_move", 2, v, &err);
	if (!res)
		return err;
	const char *id = db_val(res, 0, IM_ID), *new_iid = db_val(res, 0, IM_IID);
	const char *title = db_val(res, 0, IM_TITLE);
	const char *w[3] = {is.c.id, id, api_caller_id(r)};
	if (!db_query(&r->ctx, "issues_moved", 3, w, &err))
		return err;
	/* the assignee follows when they may see the target */
	if (is.c.assignee) {
		const char *a[3] = {id, is.c.assignee, target.id};
		if (!db_query(&r->ctx, "issues_assign", 3, a, &err))
			return err;
	}
	const char *from_ref =
		arena_printf(r->ctx.a, "%s/%s#%s", r->project->ns_full_path, r->project->path, iid);
	const char *to_ref =
		arena_printf(r->ctx.a, "%s/%s#%s", target.ns_full_path, target.path, new_iid);
	const issuable_kind *k = &issue_kind;
	if ((rc = issuable_system_note(r, k, target.id, id,
				       arena_printf(r->ctx.a, "moved from %s", from_ref))) < 0 ||
	    (rc = issuable_system_note(r, k, r->project->id, is.c.id,
				       arena_printf(r->ctx.a, "moved to %s", to_ref))) < 0 ||
	    (rc = issuable_state_event(r, k, target.id, id, new_iid, title, "opened")) < 0)
		return rc;
	if (strcmp(is.c.state, "opened") == 0 &&
	    (rc = issuable_state_event(r, k, r->project->id, is.c.id, iid, is.c.title, "closed")) <
		    0)
		return rc;
	/* presented as the caller sees it in its new project */
	project_scope *from = r->project;
	api_set_project(r, &target);
	rc = issuable_respond(r, k, 201, id);
	api_set_project(r, from);
	return rc;
}

/* ---- subscriptions ---- */

static int issues_participants(request *r)
{
	return issuable_participants(r, &issue_kind);
}

static int issues_subscribe(request *r)
{
	return issuable_subscription(r, &issue_kind, true);
}

static int issues_unsubscribe(request *r)
{
	return issuable_subscription(r, &issue_kind, false);
}

/* ---- time tracking ---- */

/* Seconds of a duration in GitLab's human form ("1w 2d", "3h30m", "1.5h", "-1h"; a
 * bare number is hours; 1mo = 4w, 1w = 5d, 1d = 8h): 0 with *out, or -1 when it does
 * not parse or does not fit an integer column. */
static int parse_duration(const char *s, long long *out)
{
	static const struct {
		const char *name;
		double seconds;
	} units[] = {{"months", 576000}, {"month", 576000}, {"mo", 576000},  {"weeks", 144000},
		     {"week", 144000},   {"w", 144000},     {"days", 28800}, {"day", 28800},
		     {"d", 28800},       {"hours", 3600},   {"hour", 3600},  {"hrs", 3600},
		     {"hr", 3600},       {"h", 3600},       {"minutes", 60}, {"minute", 60},
		     {"mins", 60},       {"min", 60},       {"m", 60},       {"seconds", 1},
		     {"second", 1},      {"secs", 1},       {"sec", 1},      {"s", 1}};
	while (isspace((unsigned char)*s))
		s++;
	bool negative = *s == '-';
	if (negative)
		s++;
	double total = 0;
	int parts = 0;
	while (*s) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (!isdigit((unsigned char)*s) && *s != '.')
			return -1;
		char *end;
		double n = strtod(s, &end);
		if (end == s)
			return -1;
		s = end;
		while (isspace((unsigned char)*s))
			s++;
		double unit = 3600; /* a bare number: hours */
		if (isalpha((unsigned char)*s)) {
			size_t len = 0;
			while (isalpha((unsigned char)s[len]))
				len++;
			unit = 0;
			for (size_t k = 0; k < sizeof(units) / sizeof(*units); k++)
				if (strlen(units[k].name) == len &&
				    strncasecmp(s, units[k].name, len) == 0)
					unit = units[k].seconds;
			if (unit == 0)
				return -1;
			s += len;
		} else if (parts > 0 || *s) {
			return -1;
		}
		total += n * unit;
		parts++;
	}
	if (parts == 0 || !(total <= 2147483647.0))
		return -1;
	*out = (long long)(total + 0.5) * (negative ? -1 : 1);
	return 0;
}

static int check_duration(request *r)
{
	const char *iid, *d;
	int rc = issue_iid(r, "issue_iid", &iid);
	return rc < 0 ? rc : param_require(r, "duration", &d);
}

enum time_op { TIME_ESTIMATE, TIME_RESET_ESTIMATE, TIME_ADD_SPENT, TIME_RESET_SPENT };

static int time_tracking(request *r, enum time_op op)
{
	const char *iid, *duration = NULL;
	int rc = issue_iid(r, "issue_iid", &iid);
	if (rc < 0)
		return rc;
	if ((op == TIME_ESTIMATE || op == TIME_ADD_SPENT) &&
	    (rc = param_require(r, "duration", &duration)) < 0)
		return rc;
	locked_issue is;
	if ((rc = lock_issue(r, iid, &is)) != 0)
		return rc < 0 ? rc : not_found(r);
	if (!can_admin_issue(&r->project->pa))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	long long seconds = 0;
	if (duration && parse_duration(duration, &seconds) < 0)
		return fail_validation(r, op == TIME_ESTIMATE ? "time_estimate" : "time_spent",
				       "has an invalid format");
	if (op == TIME_ESTIMATE && seconds < 0)
		return fail_validation(r, "time_estimate", "has an invalid format");
	if (op == TIME_ADD_SPENT && is.spent + seconds < 0)
		return fail_validation(r, "time_spent",
				       "Time to subtract exceeds the total time spent");
	if (op == TIME_ADD_SPENT && is.spent + seconds > 2147483647LL)
		return fail_validation(r, "time_spent", "has an invalid format");
	const char *estimate = op == TIME_ESTIMATE         ? arena_printf(r->ctx.a, "%lld", seconds)
			       : op == TIME_RESET_ESTIMATE ? "0"
							   : NULL;
	const char *spent = op == TIME_ADD_SPENT ? arena_printf(r->ctx.a, "%lld", seconds) : NULL;
	const char *v[4] = {is.c.id, estimate, spent, op == TIME_RESET_SPENT ? "true" : "false"};
	int err;
	PGresult *res = db_query(&r->ctx, "issues_time", 4, v, &err);
	if (!res)
		return err;
	const char *note = NULL;
	if (estimate && db_int(res, 0, IT_ESTIMATE) != is.estimate)
		note = db_int(res, 0, IT_ESTIMATE) == 0
			       ? "removed time estimate"
			       : arena_printf(r->ctx.a, "changed time estimate to %s",
					      entity_human_duration(r->ctx.a,
								    db_int(res, 0, IT_ESTIMATE)));
	else if (op == TIME_RESET_SPENT && is.spent != 0)
		note = "removed time spent";
	else if (op == TIME_ADD_SPENT && seconds != 0)
		note = arena_printf(
			r->ctx.a, "%s %s of time spent", seconds > 0 ? "added" : "subtracted",
			entity_human_duration(r->ctx.a, seconds < 0 ? -seconds : seconds));
	if (note && (rc = issuable_system_note(r, &issue_kind, r->project->id, is.c.id, note)) < 0)
		return rc;
	api_respond_record(r, op == TIME_ADD_SPENT ? 201 : 200, entity_time_stats_write, res, 0, 0);
	return 0;
}

static int issues_time_estimate(request *r)
{
	return time_tracking(r, TIME_ESTIMATE);
}

static int issues_reset_time_estimate(request *r)
{
	return time_tracking(r, TIME_RESET_ESTIMATE);
}

static int issues_add_spent_time(request *r)
{
	return time_tracking(r, TIME_ADD_SPENT);
}

static int issues_reset_spent_time(request *r)
{
	return time_tracking(r, TIME_RESET_SPENT);
}

static int issues_time_stats(request *r)
{
	return show_issue(r, entity_time_stats_write, IC_TIME_ESTIMATE);
}

/* GitLab 10.8's: admins only, any issue of the project (find_project_issue) */
static int issues_user_agent_detail(request *r)
{
	const char *iid;
	int rc = issue_iid(r, "issue_iid", &iid);
	if (rc < 0)
		return rc;
	const char *v[2] = {r->project->id, iid};
	PGresult *res;
	if ((rc = api_find(r, "issues_user_agent_detail", 2, v, NULL, &res)) != 0)
		return rc < 0 ? rc : 0;
	return user_agent_respond(r, res, 1);
}

#define ISSUE V4 "/projects/:id/issues/:issue_iid"

/* The module's routes (http/router.h), in the order they are matched. */
const route issues_routes[] = {
	{"GET", V4 "/issues", issues_list_mine, AUTH, check_list},
	{"GET", V4 "/groups/:id/issues", issues_list_group, AUTH | GR, check_list},
	{"GET", V4 "/projects/:id/issues", issues_list_project, AUTH | PR, check_project_list},
	{"GET", ISSUE, issues_show, AUTH | PR, check_iid},
	{"POST", V4 "/projects/:id/issues", issues_create, AUTH | PW, check_create},
	{"PUT", ISSUE, issues_update, AUTH | PW, check_update},
	{"DELETE", ISSUE, issues_delete, AUTH | PW, check_iid},
	{"POST", ISSUE "/move", issues_move, AUTH | PW, check_move},
	{"POST", V4 "/projects/:id/issues/:subscribable_id/subscribe", issues_subscribe, AUTH | PW,
	 issuable_check_subscribable},
	{"POST", V4 "/projects/:id/issues/:subscribable_id/unsubscribe", issues_unsubscribe,
	 AUTH | PW, issuable_check_subscribable},
	{"POST", ISSUE "/time_estimate", issues_time_estimate, AUTH | PW, check_duration},
	{"POST", ISSUE "/reset_time_estimate", issues_reset_time_estimate, AUTH | PW, check_iid},
	{"POST", ISSUE "/add_spent_time", issues_add_spent_time, AUTH | PW, check_duration},
	{"POST", ISSUE "/reset_spent_time", issues_reset_spent_time, AUTH | PW, check_iid},
	{"GET", ISSUE "/time_stats", issues_time_stats, AUTH | PR, check_iid},
	{"GET", ISSUE "/participants", issues_participants, AUTH | PR, check_iid},
	{"GET", ISSUE "/user_agent_detail", issues_user_agent_detail, ADMIN | PR, check_iid},
	{NULL, NULL, NULL, 0, NULL},
};
