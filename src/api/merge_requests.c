/* Merge requests (spec 4.6 and the operations GitLab 10 had): the lists of
 * GET /merge_requests, /groups/:id/merge_requests and /projects/:id/merge_requests with
 * every filter and view=simple, one request, its commits and changes (from git, against
 * the merge base), create, edit (with GitLab's system notes and events), delete, merge,
 * merge when the pipeline succeeds (stored for the pipelines of issue 9) and its
 * cancellation, subscriptions, participants and the issues a merge closes; and the
 * background process's part of a push: the head sha and merge_status of the open
 * requests from or into the pushed branch.
 *
 * A request lives in its target project; POST /projects/:id/merge_requests is made in
 * the source project :id (target_project_id: the project it was forked from). Who may
 * do what (GitLab 10's ProjectPolicy and MergeRequestPolicy): reading needs the
 * project's code (reporters and up on a private project, anyone who sees a public or
 * internal one) and its merge requests enabled; creating, and editing any request,
 * developers and up (the author and the assignee edit their own); labels, milestone and
 * assignee are set by developers and up only; deleting is for owners and admins;
 * merging for those who may merge into the target branch (protected branches'
 * merge_access_level). How a merge is made is the target project's merge_method: merge
 * (a merge commit), rebase_merge (a merge commit, only when the target branch is an
 * ancestor of the source head) or ff (the target branch moved to the source head, only
 * as a fast-forward; no merge commit); merge_status says cannot_be_merged when the
 * method's condition does not hold. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <json-c/json.h>

#include "api/api.h"
#include "api/issuable.h"
#include "db/queue.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/validate.h"
#include "entity/entity.h"
#include "entity/issue.h"
#include "entity/merge_request.h"
#include "git/commits.h"
#include "git/hooks.h"
#include "git/merge.h"
#include "git/refs.h"
#include "http/pagination.h"

/* A substring pattern of p, its pattern characters taken literally. */

/* Milestone $M of project $P (its own or one of the groups above it), else NULL. */
#define MR_PROJECT_MILESTONE(M, P)                                                                 \
	"(SELECT vm.id FROM milestones vm, projects vp WHERE vm.id = " M "::bigint"                \
	" AND vp.id = " P " AND (vm.project_id = vp.id OR vm.group_id IN (SELECT"                  \
	" unnest(gn.traversal_ids) FROM namespaces gn WHERE gn.id = vp.namespace_id"               \
	" AND gn.kind = 'group')))"

/* The open states (locked: while a merge runs). */
#define OPEN_STATES "('opened', 'locked')"

/* The statement of the merge request lists, the scope's condition on mr and its project p
 * given (one statement per scope, so that each has its plan: prepared statements run
 * generic plans, in which a condition such as ($4 IS NULL OR mr.target_project_id = $4)
 * is no index condition, and a project's list read every request). The page is taken of
 * the filtered ids (f) before the joins that present it. */
#define MRS_ORDER                                                                                  \
	"CASE WHEN $24::boolean THEN f.k END ASC, CASE WHEN $24 THEN f.id END ASC, f.k DESC,"      \
	" f.id DESC"
#define MRS_LIST(SCOPE)                                                                                                  \
	"WITH " SQL_ME ", mine AS (" SQL_MY_PROJECTS "),"                                                                \
	" rep AS (SELECT pa.project_id AS id FROM me JOIN project_authorizations pa"                                     \
	"  ON pa.user_id = me.id WHERE pa.expires_at > current_date AND pa.access_level >= 20),"                         \
	" f AS (SELECT mr.id, CASE WHEN $23::boolean THEN mr.updated_at ELSE mr.created_at END AS k"                     \
	"  FROM me, merge_requests mr JOIN projects p ON p.id = mr.target_project_id"                                    \
	"  WHERE NOT p.pending_delete AND p.merge_requests_enabled"                                                      \
	"  AND " SCOPE                                                                                                   \
	"  AND (me.admin OR p.visibility = 20 OR (p.visibility = 10 AND NOT me.external)"                                \
	"   OR p.id IN (SELECT id FROM rep) OR EXISTS (SELECT 1 FROM namespaces own"                                     \
	"   WHERE own.id = p.namespace_id AND own.kind = 'user' AND own.owner_id = me.id))"                              \
	"  AND ($6::text IS NULL OR mr.state = $6 OR ($6 = 'opened' AND mr.state = 'locked'))"                           \
	"  AND ($7::text[] IS NULL OR (SELECT count(DISTINCT l.title) FROM label_links ll"                               \
	"   JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'MergeRequest'"                                   \
	"   AND ll.target_id = mr.id AND l.title = ANY ($7)) = cardinality($7))"                                         \
	"  AND (NOT $8::boolean OR NOT EXISTS (SELECT 1 FROM label_links ll"                                             \
	"   WHERE ll.target_type = 'MergeRequest' AND ll.target_id = mr.id))"                                            \
	"  AND ($10::text IS NULL OR ($10 = 'none' AND mr.milestone_id IS NULL)"                                         \
	"   OR ($10 = 'any' AND mr.milestone_id IS NOT NULL) OR ($10 = 'title' AND EXISTS"                               \
	"   (SELECT 1 FROM milestones mt WHERE mt.id = mr.milestone_id AND mt.title = $9::text)))"                       \
	"  AND ($11::text = 'all' OR ($11 = 'created-by-me' AND mr.author_id = me.id)"                                   \
	"   OR ($11 = 'assigned-to-me' AND mr.assignee_id = me.id))"                                                     \
	"  AND ($12::bigint IS NULL OR mr.author_id = $12)"                                                              \
	"  AND ($13::bigint IS NULL OR mr.assignee_id = $13)"                                                            \
	"  AND (NOT $14::boolean OR mr.assignee_id IS NULL)"                                                             \
	"  AND ($15::text IS NULL OR EXISTS (SELECT 1 FROM award_emoji e"                                                \
	"   WHERE e.awardable_type = 'MergeRequest' AND e.awardable_id = mr.id"                                          \
	"   AND e.user_id = me.id AND e.name = $15))"                                                                    \
	"  AND (NOT $16::boolean OR NOT EXISTS (SELECT 1 FROM award_emoji e"                                             \
	"   WHERE e.awardable_type = 'MergeRequest' AND e.awardable_id = mr.id"                                          \
	"   AND e.user_id = me.id))"                                                                                     \
	"  AND ($17::bigint[] IS NULL OR mr.iid = ANY ($17))"                                                            \
	"  AND ($18::text IS NULL OR mr.title ILIKE " SQL_LIKE("$18") " OR mr.description ILIKE " SQL_LIKE(              \
		"$18") ")"                                                                                               \
		       "  AND ($19::timestamptz IS NULL OR mr.created_at >= $19)"                                        \
		       "  AND ($20::timestamptz IS NULL OR mr.created_at <= $20)"                                        \
		       "  AND ($21::timestamptz IS NULL OR mr.updated_at >= $21)"                                        \
		       "  AND ($22::timestamptz IS NULL OR mr.updated_at <= $22)"                                        \
		       "  AND ($27::text IS NULL OR mr.source_branch = $27)"                                             \
		       "  AND ($28::text IS NULL OR mr.target_branch = $28))"                                            \
		       " SELECT (SELECT count(*) FROM f), pg.* FROM me LEFT JOIN LATERAL"                                \
		       " (SELECT " MR_LIST_COLS(                                                                         \
			       MR_PATH) " FROM (SELECT * FROM f ORDER BY " MRS_ORDER                                     \
					"  LIMIT $25 OFFSET $26) f JOIN merge_requests mr ON mr.id = f.id" MR_PATH_JOINS \
						MR_LIST_JOINS "  ORDER BY " MRS_ORDER                                    \
					") pg ON true"

/* The list of a project in the default order (created_at desc, id desc), unfiltered or
 * by state only, for a caller who may read its merge requests (the handler decided it:
 * MRS_LIST's access conditions hold for every row): a page straight from the index of
 * (target_project_id, state, created_at, id) or (target_project_id, created_at, id),
 * and the count from the same index; the rows as MRS_LIST's, PATH the project's full
 * path. COUNT the count, FROM the page's ids and created_at (f). MRS_STATE_IDS: the
 * first LIMIT of the requests in state STATE by the index (a union of two of them is a
 * merge of two ordered index scans that reads no more than the page needs). */
#define MRS_PROJECT_PAGE(COUNT, FROM, PATH)                                                        \
	"SELECT " COUNT ", pg.* FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT " MR_LIST_COLS(      \
		PATH) " FROM " FROM " JOIN merge_requests mr ON mr.id = f.id" MR_LIST_JOINS        \
		      " ORDER BY f.created_at DESC, f.id DESC) pg ON true"
/* The full path of the project: none, the presenter takes the route's (web_url). */
#define MRS_PROJECT_PATH "NULL::text"
#define MRS_STATE_IDS(STATE, LIMIT)                                                                \
	"(SELECT s.id, s.created_at FROM merge_requests s WHERE s.target_project_id = $1"          \
	" AND s.state = " STATE " ORDER BY s.created_at DESC, s.id DESC LIMIT " LIMIT ")"

/* mrs_list*: tracker_filter_params's, then */
enum { MRL_SOURCE_BRANCH = TF_NPARAMS, MRL_TARGET_BRANCH, MRL_NPARAMS };
enum { MPS_PROJECT, MPS_STATE, MPS_STATE2, MPS_LIMIT, MPS_OFFSET, MPS_NPARAMS };
enum { MPA_PROJECT, MPA_LIMIT, MPA_OFFSET, MPA_NPARAMS };
/* mrs_get, mrs_get_id (issuable.h's enum issuable_get_param): MR_COLS, then */
enum { MG_ENABLED = MR_NCOLS, MG_NCOLS };
/* mrs_lock: issuable_lock's columns, then */
enum {
	LK_IID = ILK_NCOLS,
	LK_SOURCE_PROJECT,
	LK_SOURCE_BRANCH,
	LK_TARGET_BRANCH,
	LK_DESCRIPTION,
	LK_FORCE_REMOVE,
	LK_MWPS,
	LK_ENABLED,
	LK_SHA,
	LK_MERGE_METHOD,
	LK_NCOLS
};
enum {
	MOP_SOURCE_PROJECT,
	MOP_SOURCE_BRANCH,
	MOP_TARGET_PROJECT,
	MOP_TARGET_BRANCH,
	MOP_ID,
	MOP_NPARAMS
};
enum {
	MI_TARGET_PROJECT,
	MI_SOURCE_PROJECT,
	MI_SOURCE_BRANCH,
	MI_TARGET_BRANCH,
	MI_TITLE,
	MI_DESCRIPTION,
	MI_AUTHOR,
	MI_MILESTONE,
	MI_REMOVE_SOURCE,
	MI_SHA,
	MI_NPARAMS
};
enum { MIR_ID, MIR_IID, MIR_TITLE, MIR_NCOLS };
enum {
	MU_ID,
	MU_TITLE,
	MU_DESCRIPTION_GIVEN,
	MU_DESCRIPTION,
	MU_MILESTONE_GIVEN,
	MU_MILESTONE,
	MU_PROJECT,
	MU_TARGET_BRANCH,
	MU_STATE_EVENT,
	MU_CALLER,
	MU_LOCKED,
	MU_REMOVE_SOURCE,
	MU_NPARAMS
};
enum { MUR_STATE, MUR_MILESTONE, MUR_MILESTONE_REF, MUR_TARGET_BRANCH, MUR_NCOLS };
enum { MBL_MERGE, MBL_PUSH, MBL_NCOLS };
enum { MW_ID, MW_ON, MW_USER, MW_MESSAGE, MW_REMOVE_SOURCE, MW_NPARAMS };
enum { MCI_ID, MCI_IID, MCI_TITLE, MCI_NCOLS };
enum { MCS_ME, MCS_PROJECT = MCS_ME + 3, MCS_IIDS, MCS_LIMIT, MCS_OFFSET, MCS_NPARAMS };
enum {
	MTC_ID,
	MTC_IID,
	MTC_TARGET_PROJECT,
	MTC_SOURCE_PROJECT,
	MTC_SOURCE_BRANCH,
	MTC_TARGET_BRANCH,
	MTC_MERGE_METHOD,
	MTC_NCOLS
};

const db_stmt merge_requests_stmts[] = {
	/* The requests the caller sees, filtered, a page of them in order (MRS_LIST): in
	 * every project; in project $4 ($5 NULL); in group $5 and its subgroups ($4 NULL).
	 * $1..$3 the caller, $6 state (NULL: all; 'opened' counts the locked ones), $7
	 * label titles (all of them), $8 without labels, $9 milestone title with $10 how
	 * ('title', 'none', 'any'), $11 scope, $12 author, $13 assignee, $14 without
	 * assignee, $15 the caller's award emoji, $16 without the caller's award, $17 iids,
	 * $18 search, $19..$22 created after/before, updated after/before, $23 by
	 * updated_at, $24 ascending, $25 limit, $26 offset, $27 source branch, $28 target
	 * branch. */
	{"mrs_list", MRS_LIST("$4::bigint IS NULL AND $5::bigint IS NULL"), MRL_NPARAMS,
	 1 + MR_NCOLS},
	{"mrs_list_project", MRS_LIST("mr.target_project_id = $4::bigint AND $5::bigint IS NULL"),
	 MRL_NPARAMS, 1 + MR_NCOLS},
	/* Project $1's requests in state $2, or $2 and $3 ('opened' and 'locked', as
	 * 'opened' asks; else $3 NULL), a page of them ($4 limit, $5 offset)
	 * (MRS_PROJECT_PAGE): as mrs_list_project with these only. Their parameters are
	 * those of the request alone: the statement goes with the project's (api_query). */
	{"mrs_list_project_state",
	 MRS_PROJECT_PAGE(
		 "((SELECT count(*) FROM merge_requests c"
		 " WHERE c.target_project_id = $1::bigint AND c.state = $2::text)"
		 " + (SELECT count(*) FROM merge_requests c"
		 " WHERE c.target_project_id = $1 AND c.state = $3::text))",
		 "(" MRS_STATE_IDS("$2", "$4::bigint + $5::bigint") " UNION ALL " MRS_STATE_IDS(
			 "$3", "$4 + $5") " ORDER BY created_at DESC, id DESC"
					  " LIMIT $4 OFFSET $5) f",
		 MRS_PROJECT_PATH),
	 MPS_NPARAMS, 1 + MR_NCOLS},
	/* Project $1's requests in every state, a page ($2 limit, $3 offset). */
	{"mrs_list_project_all",
	 MRS_PROJECT_PAGE("(SELECT count(*) FROM merge_requests c WHERE c.target_project_id"
			  " = $1::bigint)",
			  "(SELECT s.id, s.created_at FROM merge_requests s"
			  " WHERE s.target_project_id = $1 ORDER BY s.created_at DESC, s.id DESC"
			  " LIMIT $2 OFFSET $3) f",
			  MRS_PROJECT_PATH),
	 MPA_NPARAMS, 1 + MR_NCOLS},
	{"mrs_list_group",
	 MRS_LIST("$4::bigint IS NULL AND p.namespace_id IN (SELECT g.id FROM namespaces g"
		  " WHERE g.traversal_ids @> ARRAY[$5::bigint])"),
	 MRL_NPARAMS, 1 + MR_NCOLS},
	/* Request $5 of project $4 as the caller ($1..$3) sees it, and whether the
	 * project's merge requests are enabled. */
	{"mrs_get",
	 "WITH " SQL_ME " SELECT " MR_COLS ", p.merge_requests_enabled"
	 " FROM me, merge_requests mr" MR_JOINS " WHERE mr.target_project_id = $4 AND mr.iid = $5",
	 IGP_NPARAMS, MG_NCOLS},
	/* The same by id. */
	{"mrs_get_id",
	 "WITH " SQL_ME " SELECT " MR_COLS ", p.merge_requests_enabled"
	 " FROM me, merge_requests mr" MR_JOINS " WHERE mr.id = $4",
	 IGP_NPARAMS - 1, MG_NCOLS},
	/* Request $2 of project $1 locked for a change, with what the change compares, and
	 * the project's merge_method. */
	{"mrs_lock",
	 "SELECT mr.id, mr.author_id, mr.assignee_id, mr.state, mr.milestone_id, mr.title,"
	 " mr.iid, mr.source_project_id, mr.source_branch, mr.target_branch, mr.description,"
	 " mr.force_remove_source_branch, mr.merge_when_pipeline_succeeds, p.merge_requests_enabled,"
	 " mr.sha, p.merge_method FROM merge_requests mr JOIN projects p"
	 " ON p.id = mr.target_project_id"
	 " WHERE mr.target_project_id = $1 AND mr.iid = $2 FOR UPDATE OF mr",
	 2, LK_NCOLS},
	/* The open request of the branches $1..$4 (source project and branch, target
	 * project and branch) other than $5: its iid. */
	{"mrs_open_pair",
	 "SELECT iid FROM merge_requests WHERE source_project_id = $1 AND source_branch = $2"
	 " AND target_project_id = $3 AND target_branch = $4 AND state IN " OPEN_STATES
	 " AND id IS DISTINCT FROM $5::bigint",
	 MOP_NPARAMS, 1},
	/* $1 target project, $2 source project, $3 source branch, $4 target branch, $5
	 * title, $6 description, $7 author, $8 milestone, $9 remove the source branch, $10
	 * the source head. Nothing when an open request of the same branches exists. */
	{"mrs_insert",
	 "INSERT INTO merge_requests (target_project_id, iid, source_project_id, source_branch,"
	 " target_branch, title, description, author_id, milestone_id, force_remove_source_branch,"
	 " sha) VALUES ($1, next_iid('merge_requests', 'Project', $1), $2, $3, $4, $5, $6, $7, " MR_PROJECT_MILESTONE(
		 "$8",
		 "$1") ", coalesce($9::boolean, false), $10)"
		       " ON CONFLICT (source_project_id, source_branch, target_project_id, target_branch)"
		       " WHERE state IN " OPEN_STATES " DO NOTHING RETURNING id, iid, title",
	 MI_NPARAMS, MIR_NCOLS},
	/* $1 request; $2 title, $3/$4 description given/value, $5/$6 milestone given/id (one
	 * of project $7's), $8 target branch, $9 state event, $10 the caller, $11
	 * discussion_locked, $12 remove the source branch. The new state, milestone id and
	 * its reference (%iid, or %"title" for a group's), target branch. */
	{"mrs_update",
	 "WITH u AS (UPDATE merge_requests mr SET title = coalesce($2, mr.title),"
	 " description = CASE WHEN $3::boolean THEN $4 ELSE mr.description END,"
	 " milestone_id = CASE WHEN $5::boolean THEN " MR_PROJECT_MILESTONE(
		 "$6",
		 "$7") "  ELSE mr.milestone_id END,"
		       " target_branch = coalesce($8, mr.target_branch),"
		       " merge_status = CASE WHEN $8 IS DISTINCT FROM mr.target_branch AND $8 IS NOT NULL"
		       "  THEN 'unchecked' ELSE mr.merge_status END,"
		       " state = CASE WHEN $9::text = 'close' AND mr.state = 'opened' THEN 'closed'"
		       "  WHEN $9 = 'reopen' AND mr.state = 'closed' THEN 'opened' ELSE mr.state END,"
		       " closed_at = CASE WHEN $9 = 'close' AND mr.state = 'opened' THEN now()"
		       "  WHEN $9 = 'reopen' AND mr.state = 'closed' THEN NULL ELSE mr.closed_at END,"
		       " closed_by_id = CASE WHEN $9 = 'close' AND mr.state = 'opened' THEN $10::bigint"
		       "  WHEN $9 = 'reopen' AND mr.state = 'closed' THEN NULL ELSE mr.closed_by_id END,"
		       " discussion_locked = coalesce($11::boolean, mr.discussion_locked),"
		       " force_remove_source_branch = coalesce($12::boolean, mr.force_remove_source_branch),"
		       " updated_at = now() WHERE mr.id = $1 RETURNING mr.*)"
		       " SELECT u.state, u.milestone_id, CASE WHEN m.project_id IS NOT NULL THEN '%' || m.iid"
		       " ELSE '%\"' || m.title || '\"' END, u.target_branch FROM u"
		       " LEFT JOIN milestones m ON m.id = u.milestone_id",
	 MU_NPARAMS, MUR_NCOLS},
	/* Assigns request $1 to user $2 (none when NULL) when the user may see project $3:
	 * the former and the new assignee's usernames, whether it changed. */
	{"mrs_assign",
	 "WITH me AS (SELECT u.id, u.is_admin AS admin, u.external FROM users u"
	 "  WHERE u.id = $2::bigint AND NOT u.ghost),"
	 " ok AS (SELECT me.id FROM me, projects p WHERE p.id = $3 AND " SQL_PROJECT_VISIBLE(
		 "p") "),"
		      " old AS (SELECT assignee_id FROM merge_requests WHERE id = $1),"
		      " u AS (UPDATE merge_requests SET assignee_id = (SELECT id FROM ok)"
		      "  WHERE id = $1 AND ($2::bigint IS NULL OR EXISTS (SELECT 1 FROM ok))"
		      "  RETURNING assignee_id)"
		      " SELECT (SELECT ou.username FROM old JOIN users ou ON ou.id = old.assignee_id),"
		      " (SELECT nu.username FROM u JOIN users nu ON nu.id = u.assignee_id),"
		      " EXISTS (SELECT 1 FROM u, old WHERE u.assignee_id IS DISTINCT FROM old.assignee_id)",
	 3, IAS_NCOLS},
	{"mrs_delete", "DELETE FROM merge_requests WHERE id = $1", 1, 0},
	/* The levels merging into / pushing to branch $2 of project $1 needs (NULL: not
	 * protected). */
	{"mrs_branch_levels", "SELECT branch_merge_level($1, $2), branch_push_level($1, $2)", 2,
	 MBL_NCOLS},
	/* Request $1 merged as commit $2 by $3 ($4: the source branch is to be removed). */
	{"mrs_merged",
	 "UPDATE merge_requests SET state = 'merged', merge_commit_sha = $2, merged_by_id = $3,"
	 " merged_at = now(), merge_status = 'can_be_merged', should_remove_source_branch = $4,"
	 " merge_when_pipeline_succeeds = false, merge_user_id = NULL, updated_at = now()"
	 " WHERE id = $1",
	 4, 0},
	/* The source head $2 (NULL: keep) and merge status $3 of open request $1. */
	{"mrs_status",
	 "UPDATE merge_requests SET sha = coalesce($2, sha), merge_status = $3"
	 " WHERE id = $1 AND state IN " OPEN_STATES,
	 3, 0},
	/* Merge when the pipeline succeeds: $2 on (by $3, with message $4 and $5 remove
	 * the source branch) or off. */
	{"mrs_mwps",
	 "UPDATE merge_requests SET merge_when_pipeline_succeeds = $2, merge_user_id = $3,"
	 " merge_commit_message = $4, should_remove_source_branch = coalesce($5::boolean,"
	 " should_remove_source_branch), updated_at = now() WHERE id = $1",
	 MW_NPARAMS, 0},
	/* Closes the open issues of project $1 whose iids are $2, by $3 through request !$4:
	 * their id, iid and title (each with GitLab's system note). */
	{"mrs_close_issues",
	 "WITH c AS (UPDATE issues SET state = 'closed', closed_at = now(), closed_by_id = $3,"
	 "  updated_at = now() WHERE project_id = $1 AND iid = ANY ($2::bigint[])"
	 "  AND state = 'opened' RETURNING id, iid, title),"
	 " n AS (INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, note, system)"
	 "  SELECT $1, 'Issue', c.id, $3, 'closed via merge request !' || $4, true FROM c)"
	 " SELECT id, iid, title FROM c ORDER BY iid",
	 4, MCI_NCOLS},
	/* The issues of project $4 with iids $5 that the caller ($1..$3) may see, a page
	 * of them ($6 limit, $7 offset) by iid. */
	{"mrs_closes_issues",
	 "WITH " SQL_ME ","
	 " f AS (SELECT i.id FROM me, issues i JOIN projects ip ON ip.id = i.project_id"
	 "  WHERE i.project_id = $4 AND i.iid = ANY ($5::bigint[]) AND ip.issues_enabled"
	 "  AND (NOT i.confidential OR me.admin OR i.author_id = me.id"
	 "  OR EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id AND a.user_id = me.id)"
	 "  OR " SQL_PROJECT_ACCESS(
		 "ip") " >= 20))"
		       " SELECT (SELECT count(*) FROM f), pg.* FROM me LEFT JOIN LATERAL"
		       " (SELECT " ISSUE_LIST_COLS
		       " FROM f JOIN issues i ON i.id = f.id" ISSUE_JOINS
		       "  ORDER BY i.iid LIMIT $6 OFFSET $7) pg ON true",
	 MCS_NPARAMS, 1 + ISSUE_NCOLS},
	/* The open requests from or into branch $2 of project $1 (a push), or request $3,
	 * with their target project's merge_method. */
	{"mrs_to_check",
	 "SELECT mr.id, mr.iid, mr.target_project_id, mr.source_project_id, mr.source_branch,"
	 " mr.target_branch, p.merge_method FROM merge_requests mr"
	 " JOIN projects p ON p.id = mr.target_project_id WHERE mr.state IN " OPEN_STATES
	 " AND (((mr.source_project_id = $1 AND mr.source_branch = $2)"
	 " OR (mr.target_project_id = $1 AND mr.target_branch = $2)) OR mr.id = $3::bigint)"
	 " ORDER BY mr.id",
	 3, MTC_NCOLS},
	{NULL, NULL, 0, 0},
};

/* ---- reading the input ---- */

static const char *oid_hex(request *r, const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_oid_tostr(hex, sizeof(hex), id);
	return arena_strdup(r->ctx.a, hex);
}

/* ---- the lists ---- */

struct list_filters {
	tracker_filters t;
	const char *view, *source_branch, *target_branch;
};

/* The filters of the merge request lists: the common ones and view, source_branch and
 * target_branch; scope defaults to default_scope. */
static int read_list_filters(request *r, const char *default_scope, struct list_filters *f)
{
	static const char *const states[] = {"opened", "closed", "locked", "merged", "all", NULL};
	static const char *const scopes[] = {
		"created-by-me", "assigned-to-me", "created_by_me", "assigned_to_me", "all", NULL};
	static const char *const views[] = {"simple", NULL};
	*f = (struct list_filters){0};
	int rc;
	if ((rc = tracker_read_filters(r, states, scopes, default_scope, &f->t)) < 0 ||
	    (rc = param_oneof(r, "view", views, &f->view)) < 0)
		return rc;
	if (strcmp(f->t.scope, "created_by_me") == 0)
		f->t.scope = "created-by-me";
	else if (strcmp(f->t.scope, "assigned_to_me") == 0)
		f->t.scope = "assigned-to-me";
	const char *sb = param_str(r, "source_branch"), *tb = param_str(r, "target_branch");
	f->source_branch = sb && *sb ? sb : NULL;
	f->target_branch = tb && *tb ? tb : NULL;
	return 0;
}

static int check_list(request *r)
{
	struct list_filters f;
	return read_list_filters(r, "all", &f);
}

/* The statement of a project's plain list (project_plain) asked with f, in *c. */
static void plain_call(request *r, const char *project_id, const struct list_filters *f, db_call *c)
{
	_Static_assert((int)MPS_NPARAMS >= (int)MPA_NPARAMS, "plain_call's values");
	const char **v = arena_alloc(r->ctx.a, MPS_NPARAMS * sizeof(*v));
	const char *limit = pagination_limit(r, &f->t.pg);
	const char *offset = pagination_offset(r, &f->t.pg);
	if (f->t.state) {
		v[MPS_PROJECT] = project_id;
		v[MPS_STATE] = f->t.state;
		v[MPS_STATE2] = strcmp(f->t.state, "opened") == 0 ? "locked" : NULL;
		v[MPS_LIMIT] = limit;
		v[MPS_OFFSET] = offset;
		*c = (db_call){"mrs_list_project_state", MPS_NPARAMS, v};
	} else {
		v[MPA_PROJECT] = project_id;
		v[MPA_LIMIT] = limit;
		v[MPA_OFFSET] = offset;
		*c = (db_call){"mrs_list_project_all", MPA_NPARAMS, v};
	}
}

static bool filters_plain(const struct list_filters *f);

/* The same for a project's list; with no filter but the state, in the default order,
 * its statement goes with the project's, should the caller read its merge requests
 * (api_query). */
static int check_project_list(request *r)
{
	struct list_filters f;
	int rc = read_list_filters(r, "all", &f);
	if (rc == 0 && filters_plain(&f))
		plain_call(r, param_str(r, "id"), &f, &r->prefetch);
	return rc;
}

/* GitLab's read_merge_request on the route's project. */
static bool can_read(request *r, bool enabled)
{
	return enabled && can_read_code(&r->project->pa, r->project->visibility, r->ctx.user);
}

/* Whether f asks for the default order, filtered by state at most. */
static bool filters_plain(const struct list_filters *f)
{
	const tracker_filters *t = &f->t;
	return strcmp(t->scope, "all") == 0 && strcmp(t->order_by, "created_at") == 0 &&
	       strcmp(t->sort, "desc") == 0 && !t->labels && !t->no_label && !t->milestone &&
	       !t->milestone_mode && !t->author && !t->assignee && !t->no_assignee && !t->emoji &&
	       !t->no_emoji && !t->iids && !t->search && !t->created_after && !t->created_before &&
	       !t->updated_after && !t->updated_before && !f->source_branch && !f->target_branch;
}

/* Whether the list of project_id asked with f is the route's project's in the default
 * order, filtered by state at most, for a caller who may read its merge requests:
 * mrs_list_project_state and _all then give what mrs_list_project would (its
 * conditions on the caller and the project hold for every row, and f sets none of its
 * other filters). */
static bool project_plain(request *r, const char *project_id, const struct list_filters *f)
{
	return r->project && strcmp(project_id, r->project->id) == 0 &&
	       can_read(r, r->project->merge_requests_enabled) && filters_plain(f);
}

int merge_requests_list_page(request *r, const char *project_id, const char *group_id,
			     const char *default_scope, const char *milestone_title)
{
	struct list_filters f;
	int rc = read_list_filters(r, default_scope, &f);
	if (rc < 0)
		return rc;
	if (milestone_title) {
		f.t.milestone_mode = "title";
		f.t.milestone = milestone_title;
	}
	int err;
	PGresult *res;
	if (project_id && project_plain(r, project_id, &f)) {
		/* mrs_list_project_state or _all: as mrs_list_project gives it */
		db_call c;
		plain_call(r, project_id, &f, &c);
		res = api_query(r, c.stmt, c.n, c.values, &err);
	} else {
		const char *v[MRL_NPARAMS];
		tracker_filter_params(r, &f.t, project_id, group_id, v);
		v[MRL_SOURCE_BRANCH] = f.source_branch;
		v[MRL_TARGET_BRANCH] = f.target_branch;
		const char *stmt = project_id ? "mrs_list_project"
				   : group_id ? "mrs_list_group"
					      : "mrs_list";
		res = db_query(&r->ctx, stmt, MRL_NPARAMS, v, &err);
	}
	if (!res)
		return err;
	if (f.view)
		api_respond_page_jw(r, &f.t.pg, res, entity_merge_request_simple_write, 512);
	else
		api_respond_page_jw(r, &f.t.pg, res, entity_merge_request_basic_write, 2048);
	return 0;
}

static int merge_requests_list_mine(request *r)
{
	return merge_requests_list_page(r, NULL, NULL, "created-by-me", NULL);
}

static int merge_requests_list_group(request *r)
{
	return merge_requests_list_page(r, NULL, r->group->id, "all", NULL);
}

static int merge_requests_list_project(request *r)
{
	if (!can_read(r, r->project->merge_requests_enabled))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	return merge_requests_list_page(r, r->project->id, NULL, "all", NULL);
}

/* ---- one request ---- */

static int mr_iid(request *r, const char *name, const char **out)
{
	return api_id(r, name, out);
}

static int check_iid(request *r)
{
	const char *iid;
	return mr_iid(r, "merge_request_iid", &iid);
}

/* GitLab's find_project_merge_request: 404 "404 Not found" */
static int not_found(request *r)
{
	return api_error(r, 404, "404 Not found");
}

/* The request iid (or id, when not NULL) of the route's project as the caller sees it:
 * its row of mrs_get in *out; 0, 1 when there is none (answered 404), ERR_FORBIDDEN
 * when the caller may not read it (answered 403), or another ERR_ code. */
static int fetch(request *r, const char *iid, const char *id, PGresult **out)
{
	PGresult *res;
	int rc = issuable_get(r, "mrs_get", "mrs_get_id", iid, id, &res);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		not_found(r);
		return 1;
	}
	if (!can_read(r, db_bool(res, 0, MG_ENABLED))) {
		fail(r, ERR_FORBIDDEN, "403 Forbidden");
		return ERR_FORBIDDEN;
	}
	*out = res;
	return 0;
}

/* The route's request (:merge_request_iid) as fetch finds it, after the page asked for
 * when pg is not NULL. */
static int fetch_route(request *r, page_req *pg, PGresult **out)
{
	const char *iid;
	int rc = mr_iid(r, "merge_request_iid", &iid);
	if (rc < 0 || (pg && (rc = pagination_parse(r, pg)) < 0))
		return rc;
	return fetch(r, iid, NULL, out);
}

static int merge_requests_show(request *r)
{
	PGresult *res;
	int rc = fetch_route(r, NULL, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	api_respond_record(r, 200, entity_merge_request_write, res, 0, 0);
	return 0;
}

/* The sides of the request in row 0 of res (mrs_get's columns) in git. */
static int sides_of(request *r, const PGresult *res, merge_sides *out)
{
	return merge_sides_find(&r->ctx, db_val(res, 0, MRC_TARGET_PROJECT),
				db_val(res, 0, MRC_SOURCE_PROJECT),
				db_val(res, 0, MRC_SOURCE_BRANCH),
				db_val(res, 0, MRC_TARGET_BRANCH), db_val(res, 0, MRC_IID), out);
}

/* A page of the request's commits (GitLab 10: Kaminari.paginate_array, the usual
 * pagination headers). */
static int merge_requests_commits(request *r)
{
	page_req pg;
	PGresult *res;
	int rc = fetch_route(r, &pg, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	merge_sides s;
	json_object *list = NULL;
	long long total = 0;
	rc = sides_of(r, res, &s);
	if (rc == ERR_NOT_FOUND)
		list = json_object_new_array(); /* no source branch (any more): no commits */
	else if (rc < 0 ||
		 merge_commits_json(&r->ctx, &s, pg.offset, pg.per_page, &list, &total) < 0) {
		json_object_put(list);
		return ERR_INTERNAL;
	}
	pagination_headers(r, &pg, total);
	respond_json(r, 200, list);
	return 0;
}

static int merge_requests_changes(request *r)
{
	PGresult *res;
	int rc = fetch_route(r, NULL, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	merge_sides s;
	json_object *changes = NULL;
	rc = sides_of(r, res, &s);
	if (rc == ERR_NOT_FOUND)
		changes = json_object_new_array();
	else if (rc < 0 || merge_changes_json(&r->ctx, &s, &changes) < 0)
		return ERR_INTERNAL;
	jw w;
	jw_init(&w, r->ctx.a, 4096);
	entity_merge_request_begin(&w, &r->ctx, res, 0, 0);
	jw_put_str(&w, "changes_count",
		   arena_printf(r->ctx.a, "%zu", json_object_array_length(changes)));
	jw_key(&w, "changes");
	jw_json(&w, changes);
	jw_end_object(&w);
	json_object_put(changes);
	respond_jw(r, 200, &w);
	return 0;
}

/* ---- the issues a request closes ---- */

static bool word_at(const char *s, const char *w, size_t *len)
{
	size_t n = strlen(w);
	if (strncasecmp(s, w, n) != 0)
		return false;
	*len = n;
	return true;
}

/* The iids of this project's issues that text names after a closing word, as GitLab 10's
 * default closing pattern reads them ("Closes #12", "fixes #3, #4 and #5", "Resolves
 * issue #6"): a PostgreSQL bigint[] literal (NULL when none), *n their number. */
static const char *closing_iids(request *r, const char *text, int *n)
{
	static const char *const words[] = {"closing",   "closes",   "closed",   "close",
					    "fixing",    "fixes",    "fixed",    "fix",
					    "resolving", "resolves", "resolved", "resolve",
					    NULL};
	buf b;
	buf_init(&b, r->ctx.a, 32);
	buf_puts(&b, "{");
	*n = 0;
	for (const char *s = text; s && *s; s++) {
		if (s != text && isalnum((unsigned char)s[-1]))
			continue;
		size_t len = 0;
		bool hit = false;
		for (int w = 0; words[w] && !hit; w++)
			hit = word_at(s, words[w], &len);
		if (!hit)
			continue;
		const char *p = s + len;
		if (*p == ':')
			p++;
		if (*p != ' ')
			continue;
		while (*p == ' ')
			p++;
		for (;;) {
			size_t l;
			if (word_at(p, "issues ", &l) || word_at(p, "issue ", &l))
				p += l;
			if (*p != '#' || !isdigit((unsigned char)p[1]))
				break;
			long long iid = strtoll(p + 1, (char **)&p, 10);
			if (isalnum((unsigned char)*p) || *p == '_')
				break;
			buf_printf(&b, "%s%lld", (*n)++ ? "," : "", iid);
			if (*p == ',')
				p++;
			while (*p == ' ')
				p++;
			if (word_at(p, "and ", &l))
				p += l;
		}
		s = p - 1 > s ? p - 1 : s;
	}
	buf_puts(&b, "}");
	return *n ? buf_cstr(&b) : NULL;
}

static int merge_requests_closes_issues(request *r)
{
	page_req pg;
	PGresult *res;
	int rc = fetch_route(r, &pg, &res);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	int n;
	const char *iids = closing_iids(r, db_val(res, 0, MRC_DESCRIPTION), &n);
	const char *v[] = {[MCS_PROJECT] = r->project->id,
			   [MCS_IIDS] = iids ? iids : "{}",
			   [MCS_LIMIT] = pagination_limit(r, &pg),
			   [MCS_OFFSET] = pagination_offset(r, &pg)};
	_Static_assert(sizeof(v) / sizeof(*v) == MCS_NPARAMS, "mrs_closes_issues");
	access_me_params(&r->ctx, v);
	int err;
	PGresult *issues = db_query(&r->ctx, "mrs_closes_issues", MCS_NPARAMS, v, &err);
	if (!issues)
		return err;
	api_respond_page_jw(r, &pg, issues, entity_issue_basic_write, 1536);
	return 0;
}

/* ---- writing: the locked request, notes and events ---- */

static const issuable_kind mr_kind = {
	.type = "MergeRequest",
	.param = "merge_request_iid",
	.lock_stmt = "mrs_lock",
	.assign_stmt = "mrs_assign",
	.delete_stmt = "mrs_delete",
	.find = fetch,
	.col_id = MRC_ID,
	.col_subscribed = MRC_SUBSCRIBED,
	.write = entity_merge_request_write,
};

typedef struct {
	issuable_row c;
	const char *iid, *source_project, *source_branch, *target_branch, *description, *sha,
		*merge_method;
	bool force_remove, mwps, enabled;
} locked_mr;

/* Locks request iid of the route's project: 0; 1 when there is none (answered 404); or
 * ERR_FORBIDDEN when the caller may not read it. */
static int lock_mr(request *r, const char *iid, locked_mr *out)
{
	PGresult *res;
	int rc = issuable_lock(r, &mr_kind, iid, &res, &out->c);
	if (rc == 1)
		not_found(r);
	if (rc != 0)
		return rc;
	out->iid = db_val(res, 0, LK_IID);
	out->source_project = db_val(res, 0, LK_SOURCE_PROJECT);
	out->source_branch = db_val(res, 0, LK_SOURCE_BRANCH);
	out->target_branch = db_val(res, 0, LK_TARGET_BRANCH);
	out->description = db_val(res, 0, LK_DESCRIPTION);
	out->sha = db_val(res, 0, LK_SHA);
	out->merge_method = db_val(res, 0, LK_MERGE_METHOD);
	out->force_remove = db_bool(res, 0, LK_FORCE_REMOVE);
	out->mwps = db_bool(res, 0, LK_MWPS);
	out->enabled = db_bool(res, 0, LK_ENABLED);
	if (!can_read(r, out->enabled))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	return 0;
}

/* The route's request (:merge_request_iid) locked: as lock_mr. */
static int lock_route_mr(request *r, locked_mr *m)
{
	const char *iid;
	int rc = mr_iid(r, "merge_request_iid", &iid);
	return rc < 0 ? rc : lock_mr(r, iid, m);
}

static int system_note(request *r, const char *id, const char *body)
{
	return issuable_system_note(r, &mr_kind, r->project->id, id, body);
}

/* Queues the background check of request id's merge_status. */
static int queue_check(request *r, const char *id)
{
	return queue_enqueue(&r->ctx, JOB_MERGE_REQUEST_CHECK,
			     arena_printf(r->ctx.a, "{\"merge_request_id\": %s}", id));
}

/* GitLab's render_api_error!(errors[...], status) of a model error: {"message":[text]}. */
static int model_error(request *r, int status, const char *text)
{
	json_object *o = json_object_new_object(), *list = json_object_new_array();
	json_object_array_add(list, json_object_new_string(text));
	json_object_object_add(o, "message", list);
	respond_json(r, status, o);
	return 0;
}

/* 409 for an open request of the same branches (other than id), when there is one:
 * 1 when it answered, 0 when there is none. */
static int open_pair_conflict(request *r, const char *source_project, const char *source_branch,
			      const char *target_project, const char *target_branch, const char *id)
{
	const char *v[] = {[MOP_SOURCE_PROJECT] = source_project,
			   [MOP_SOURCE_BRANCH] = source_branch,
			   [MOP_TARGET_PROJECT] = target_project,
			   [MOP_TARGET_BRANCH] = target_branch,
			   [MOP_ID] = id};
	_Static_assert(sizeof(v) / sizeof(*v) == MOP_NPARAMS, "mrs_open_pair");
	int err;
	PGresult *res = db_query(&r->ctx, "mrs_open_pair", MOP_NPARAMS, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0)
		return 0;
	model_error(r, 409,
		    arena_printf(
			    r->ctx.a,
			    "Another open merge request already exists for this source branch: !%s",
			    db_val(res, 0, 0)));
	return 1;
}

/* ---- create and edit ---- */

/* The attributes of POST and PUT, read and checked by type. */
struct mr_input {
	const char *title, *description, *source_branch, *target_branch, *target_project, *assignee,
		*milestone, *labels, *state_event;
	int remove_source_branch, discussion_locked; /* -1 absent */
	bool description_given, assignee_given, milestone_given, labels_given;
};

static int read_input(request *r, bool create, struct mr_input *in)
{
	static const char *const events[] = {"close", "reopen", NULL};
	memset(in, 0, sizeof(*in));
	long long n;
	int rc;
	if (create && ((rc = param_require(r, "source_branch", &in->source_branch)) < 0 ||
		       (rc = param_require(r, "target_branch", &in->target_branch)) < 0 ||
		       (rc = param_require(r, "title", &in->title)) < 0))
		return rc;
	if ((rc = param_int(r, "milestone_id", &n)) < 0 ||
	    (rc = param_int(r, "assignee_id", &n)) < 0 ||
	    (create && (rc = param_int(r, "target_project_id", &n)) < 0) ||
	    (rc = issuable_read_bool(r, "remove_source_branch", &in->remove_source_branch)) < 0 ||
	    (!create &&
	     (rc = issuable_read_bool(r, "discussion_locked", &in->discussion_locked)) < 0) ||
	    (!create && (rc = param_oneof(r, "state_event", events, &in->state_event)) < 0))
		return rc;
	if (create) {
		in->discussion_locked = -1;
		in->target_project = param_str(r, "target_project_id");
		if (in->target_project)
			in->target_project = arena_printf(r->ctx.a, "%lld",
							  strtoll(in->target_project, NULL, 10));
	} else {
		in->title = param_str(r, "title");
		in->target_branch = param_str(r, "target_branch");
	}
	in->description = param_str(r, "description");
	in->description_given = in->description != NULL;
	in->assignee = param_str(r, "assignee_id");
	in->assignee_given = in->assignee != NULL;
	in->assignee = issuable_id_or_none(r, in->assignee);
	in->milestone = param_str(r, "milestone_id");
	in->milestone_given = in->milestone != NULL;
	in->milestone = issuable_id_or_none(r, in->milestone);
	in->labels = issuable_labels_param(r);
	in->labels_given = in->labels != NULL;
	if (!create && !in->title && !in->target_branch && !in->description_given &&
	    !in->assignee_given && !in->milestone_given && !in->labels_given && !in->state_event &&
	    in->remove_source_branch < 0 && in->discussion_locked < 0)
		return fail(r, ERR_INVALID,
			    "title, target_branch, assignee_id, description, state_event, labels, "
			    "milestone_id, remove_source_branch, discussion_locked are missing, at "
			    "least one parameter must be provided");
	issuable_check_title(r, &in->title);
	if (in->target_branch && !*in->target_branch)
		fail_validation(r, "target_branch", "can't be blank");
	if (in->description)
		param_text(r, "description", 1000000, &in->description);
	return r->validation ? ERR_VALIDATION : 0;
}

static int check_create(request *r)
{
	struct mr_input in;
	return read_input(r, true, &in);
}

static int check_update(request *r)
{
	struct mr_input in;
	const char *iid;
	int rc = mr_iid(r, "merge_request_iid", &iid);
	return rc < 0 ? rc : read_input(r, false, &in);
}

static int merge_requests_create(request *r)
{
	struct mr_input in;
	int rc = read_input(r, true, &in);
	if (rc < 0)
		return rc;
	/* GitLab's create_merge_request on the source project :id */
	if (!r->project->merge_requests_enabled || !can_push_code(&r->project->pa, r->ctx.user))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	project_scope target = *r->project;
	if (in.target_project && strcmp(in.target_project, r->project->id) != 0) {
		rc = scope_project(&r->ctx, in.target_project, false, &target);
		if (rc == ERR_NOT_FOUND)
			return fail_not_found(r, "Project");
		if (rc < 0)
			return rc;
		if (!r->project->forked_from_id ||
		    strcmp(r->project->forked_from_id, target.id) != 0)
			return model_error(r, 422,
					   "Source project is not a fork of the target project");
		if (!target.merge_requests_enabled)
			return model_error(r, 422, "Target project has disabled merge requests");
	}
	bool same = strcmp(target.id, r->project->id) == 0;
	if (same && strcmp(in.source_branch, in.target_branch) == 0)
		return model_error(r, 422,
				   "You can't use same project/branch for source and target");
	/* the branches exist (a name no branch may have is answered as one that is not there) */
	git_repository *source_repo, *target_repo;
	git_oid head;
	if (!valid_ref_name(in.source_branch) ||
	    gitc_open(&r->ctx, r->project->id, &source_repo) != 0 ||
	    !gitc_branch_exists(source_repo, in.source_branch, &head))
		return fail_validation(r, "source_branch", "Invalid source branch");
	if (!valid_ref_name(in.target_branch) || gitc_open(&r->ctx, target.id, &target_repo) != 0 ||
	    !gitc_branch_exists(target_repo, in.target_branch, NULL))
		return fail_validation(r, "target_branch", "Invalid target branch");
	if ((rc = open_pair_conflict(r, r->project->id, in.source_branch, target.id,
				     in.target_branch, NULL)) != 0)
		return rc < 0 ? rc : 0;
	/* milestone, labels and assignee: what developers of the target may set */
	bool admin = can_push_code(&target.pa, r->ctx.user);
	const char *v[] = {
		[MI_TARGET_PROJECT] = target.id,
		[MI_SOURCE_PROJECT] = r->project->id,
		[MI_SOURCE_BRANCH] = in.source_branch,
		[MI_TARGET_BRANCH] = in.target_branch,
		[MI_TITLE] = in.title,
		[MI_DESCRIPTION] = in.description,
		[MI_AUTHOR] = api_caller_id(r),
		[MI_MILESTONE] = admin ? in.milestone : NULL,
		[MI_REMOVE_SOURCE] = in.remove_source_branch < 0 ? NULL
				     : in.remove_source_branch   ? "true"
								 : "false",
		[MI_SHA] = oid_hex(r, &head),
	};
	_Static_assert(sizeof(v) / sizeof(*v) == MI_NPARAMS, "mrs_insert");
	int err;
	PGresult *res = db_query(&r->ctx, "mrs_insert", MI_NPARAMS, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0) { /* another request made it meanwhile */
		rc = open_pair_conflict(r, r->project->id, in.source_branch, target.id,
					in.target_branch, NULL);
		return rc < 0 ? rc : rc ? 0 : ERR_INTERNAL;
	}
	const char *id = db_val(res, 0, MIR_ID), *iid = db_val(res, 0, MIR_IID);
	const char *title = db_val(res, 0, MIR_TITLE);
	/* the request is the target project's from here on */
	project_scope *source = r->project;
	api_set_project(r, &target);
	const issuable_kind *k = &mr_kind;
	if ((rc = issuable_created(r, k, id, iid, title, admin, in.assignee, in.labels)) < 0 ||
	    (rc = queue_check(r, id)) < 0 || (rc = hooks_merge_request(r, id, "open", NULL)) < 0 ||
	    (rc = issuable_respond(r, k, 201, id)) < 0) {
		api_set_project(r, source);
		return rc;
	}
	api_set_project(r, source);
	return 0;
}

static int merge_requests_update(request *r)
{
	struct mr_input in;
	const char *iid;
	int rc = mr_iid(r, "merge_request_iid", &iid);
	if (rc < 0 || (rc = read_input(r, false, &in)) < 0)
		return rc;
	locked_mr m;
	if ((rc = lock_mr(r, iid, &m)) != 0)
		return rc < 0 ? rc : 0;
	/* GitLab's update_merge_request: developers and up, the author and the assignee */
	bool admin = can_push_code(&r->project->pa, r->ctx.user);
	if (!issuable_can_update(r, admin, &m.c))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	if (in.target_branch && strcmp(in.target_branch, m.target_branch) != 0) {
		git_repository *repo;
		if (!valid_ref_name(in.target_branch) ||
		    gitc_open(&r->ctx, r->project->id, &repo) != 0 ||
		    !gitc_branch_exists(repo, in.target_branch, NULL))
			return fail_validation(r, "target_branch", "Invalid target branch");
		if (m.source_project && strcmp(m.source_project, r->project->id) == 0 &&
		    strcmp(in.target_branch, m.source_branch) == 0)
			return model_error(
				r, 422, "You can't use same project/branch for source and target");
	}
	bool reopening = in.state_event && strcmp(in.state_event, "reopen") == 0 &&
			 strcmp(m.c.state, "closed") == 0;
	if ((reopening || (in.target_branch && strcmp(m.c.state, "opened") == 0)) &&
	    m.source_project &&
	    (rc = open_pair_conflict(r, m.source_project, m.source_branch, r->project->id,
				     in.target_branch ? in.target_branch : m.target_branch,
				     m.c.id)) != 0)
		return rc < 0 ? rc : 0;
	const char *v[] = {
		[MU_ID] = m.c.id,
		[MU_TITLE] = in.title,
		[MU_DESCRIPTION_GIVEN] = in.description_given ? "true" : "false",
		[MU_DESCRIPTION] = in.description,
		[MU_MILESTONE_GIVEN] = admin && in.milestone_given ? "true" : "false",
		[MU_MILESTONE] = in.milestone,
		[MU_PROJECT] = r->project->id,
		[MU_TARGET_BRANCH] = in.target_branch,
		[MU_STATE_EVENT] = in.state_event,
		[MU_CALLER] = api_caller_id(r),
		[MU_LOCKED] = !admin || in.discussion_locked < 0 ? NULL
			      : in.discussion_locked             ? "true"
								 : "false",
		[MU_REMOVE_SOURCE] = in.remove_source_branch < 0 ? NULL
				     : in.remove_source_branch   ? "true"
								 : "false",
	};
	_Static_assert(sizeof(v) / sizeof(*v) == MU_NPARAMS, "mrs_update");
	PGresult *old;
	if ((rc = hooks_merge_request_before(r, m.c.id, &old)) < 0)
		return rc;
	int err;
	PGresult *res = db_query(&r->ctx, "mrs_update", MU_NPARAMS, v, &err);
	if (!res)
		return err;
	const char *title = in.title ? in.title : m.c.title;
	if ((rc = issuable_state_changed(r, &mr_kind, &m.c, iid, db_val(res, 0, MUR_STATE),
					 title)) < 0 ||
	    (rc = issuable_title_changed(r, &mr_kind, &m.c, in.title)) < 0)
		return rc;
	if (in.target_branch && strcmp(in.target_branch, m.target_branch) != 0 &&
	    ((rc = system_note(r, m.c.id,
			       arena_printf(r->ctx.a, "changed target branch from `%s` to `%s`",
					    m.target_branch, in.target_branch))) < 0 ||
	     (rc = queue_check(r, m.c.id)) < 0))
		return rc;
	if (reopening && (rc = queue_check(r, m.c.id)) < 0)
		return rc;
	if ((rc = issuable_edited(r, &mr_kind, &m.c, db_val(res, 0, MUR_MILESTONE),
				  db_val(res, 0, MUR_MILESTONE_REF), admin, in.labels,
				  in.assignee_given, in.assignee)) < 0)
		return rc;
	const char *state = db_val(res, 0, MUR_STATE);
	const char *action = strcmp(state, m.c.state) == 0  ? "update"
			     : strcmp(state, "closed") == 0 ? "close"
							    : "reopen";
	if ((rc = hooks_merge_request(r, m.c.id, action, old)) < 0)
		return rc;
	return issuable_respond(r, &mr_kind, 200, m.c.id);
}

static int merge_requests_delete(request *r)
{
	locked_mr m;
	int rc = lock_route_mr(r, &m);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (!can_admin_project(&r->project->pa))
		return fail(r, ERR_FORBIDDEN, "403 Forbidden");
	return issuable_delete(r, &mr_kind, m.c.id);
}

/* ---- merge ---- */

static int check_merge(request *r)
{
	const char *iid;
	bool b;
	int rc = mr_iid(r, "merge_request_iid", &iid);
	if (rc < 0 || (rc = param_bool(r, "should_remove_source_branch", &b)) < 0 ||
	    (rc = param_bool(r, "merge_when_pipeline_succeeds", &b)) < 0)
		return rc;
	return 0;
}

/* GitLab's merge_commit_message: the branches, the title, the issues it closes and the
 * request's full reference. */
static const char *default_message(request *r, const locked_mr *m)
{
	buf b;
	buf_init(&b, r->ctx.a, 256);
	buf_printf(&b, "Merge branch '%s' into '%s'\n\n%s", m->source_branch, m->target_branch,
		   m->c.title);
	int n;
	const char *iids = closing_iids(r, m->description, &n);
	if (n > 0) {
		long long *v;
		n = db_int_array(r->ctx.a, iids, &v);
		buf_puts(&b, "\n\nCloses ");
		for (int i = 0; i < n; i++)
			buf_printf(&b, "%s#%lld", i == 0 ? "" : i == n - 1 ? " and " : ", ", v[i]);
	}
	buf_printf(&b, "\n\nSee merge request %s/%s!%s", r->project->ns_full_path, r->project->path,
		   m->iid);
	return buf_cstr(&b);
}

/* Removes the merged source branch when it is the target project's own and not
 * protected, recorded as a push; a fork's stays (its owner removes it). */
static int remove_source_branch(request *r, const merge_sides *s, const locked_mr *m)
{
	if (!m->source_project || strcmp(m->source_project, r->project->id) != 0)
		return 0;
	const char *v[2] = {r->project->id, m->source_branch};
	int err;
	PGresult *res = db_query(&r->ctx, "mrs_branch_levels", 2, v, &err);
	if (!res)
		return err;
	if (!PQgetisnull(res, 0, MBL_PUSH))
		return 0; /* protected */
	int rc = refs_branch_delete(&r->ctx, s->repo, m->source_branch, &s->source);
	if (rc == ERR_NOT_FOUND || rc == ERR_MOVED)
		return 0; /* gone, or pushed to meanwhile: kept */
	if (rc < 0)
		return ERR_INTERNAL;
	return hooks_pushed(&r->ctx, s->repo, r->project,
			    arena_printf(r->ctx.a, "refs/heads/%s", m->source_branch), &s->source,
			    NULL);
}

/* GitLab's mergeable? once the state is checked: the sides merge cleanly and, when the
 * project's merge_method is ff or rebase_merge, the target branch is an ancestor of the
 * source head (should_be_rebased? otherwise). 0 with *out, ERR_NOT_FOUND when there is
 * no target branch, or ERR_INTERNAL. */
static int mergeable(ctx *c, const merge_sides *s, const char *merge_method, bool *out)
{
	int rc = merge_check(c, s, out);
	if (rc == 0 && *out && strcmp(merge_method, "merge") != 0)
		rc = merge_ff_possible(s, out);
	return rc;
}

static int merge_requests_merge(request *r)
{
	int writable = api_repo_writable(r);
	if (writable < 0)
		return writable;
	const char *iid;
	int rc = check_merge(r);
	if (rc < 0)
		return rc;
	mr_iid(r, "merge_request_iid", &iid);
	locked_mr m;
	if ((rc = lock_mr(r, iid, &m)) != 0)
		return rc < 0 ? rc : 0;
	/* can_be_merged_by?: those who may merge into the target branch */
	const char *lv[2] = {r->project->id, m.target_branch};
	int err;
	PGresult *levels = db_query(&r->ctx, "mrs_branch_levels", 2, lv, &err);
	if (!levels)
		return err;
	int level = code_push_level(&r->project->pa);
	const char *need = db_val(levels, 0, MBL_MERGE);
	if (r->project->pa.archived || (need ? level < atoi(need) : level < ACCESS_DEVELOPER))
		return ERR_UNAUTHORIZED;
	/* mergeable_state?: open and not a work in progress */
	if (strcmp(m.c.state, "opened") != 0 || entity_merge_request_wip(m.c.title))
		return api_error(r, 405, "405 Method Not Allowed");
	merge_sides s;
	rc = merge_sides_find(&r->ctx, r->project->id, m.source_project, m.source_branch,
			      m.target_branch, m.iid, &s);
	if (rc == ERR_NOT_FOUND || (rc == 0 && !s.have_target))
		return api_error(r, 406, "Branch cannot be merged");
	if (rc < 0)
		return ERR_INTERNAL;
	bool clean;
	if ((rc = mergeable(&r->ctx, &s, m.merge_method, &clean)) < 0)
		return ERR_INTERNAL;
	if (!clean)
		return api_error(r, 406, "Branch cannot be merged");
	const char *head = oid_hex(r, &s.source);
	const char *sha = param_str(r, "sha");
	if (sha && *sha && strcmp(sha, head) != 0)
		return api_error(r, 409,
				 arena_printf(r->ctx.a,
					      "SHA does not match HEAD of source branch: %s",
					      head));
	bool remove_given, mwps = false;
	bool remove = m.force_remove;
	if (param_bool(r, "should_remove_source_branch", &remove_given) == 0)
		remove = remove_given;
	(void)param_bool(r, "merge_when_pipeline_succeeds", &mwps);
	const char *message = param_str(r, "merge_commit_message");
	if (mwps) {
		/* Stored for the pipelines of issue 9: the CI process merges the request
		 * when the head pipeline succeeds (merge_user_id, merge_commit_message,
		 * should_remove_source_branch), as MergeWhenPipelineSucceedsService. */
		const char *v[] = {[MW_ID] = m.c.id,
				   [MW_ON] = "true",
				   [MW_USER] = api_caller_id(r),
				   [MW_MESSAGE] = message,
				   [MW_REMOVE_SOURCE] = remove ? "true" : "false"};
		_Static_assert(sizeof(v) / sizeof(*v) == MW_NPARAMS, "mrs_mwps");
		if (!db_query(&r->ctx, "mrs_mwps", MW_NPARAMS, v, &err))
			return err;
		if (!m.mwps && (rc = system_note(r, m.c.id,
						 arena_printf(r->ctx.a,
							      "enabled an automatic merge when the "
							      "pipeline for %s succeeds",
							      head))) < 0)
			return rc;
		return issuable_respond(r, &mr_kind, 200, m.c.id);
	}
	const char *name, *email;
	if ((rc = content_committer(r, &name, &email)) < 0)
		return rc;
	if (!message || !*message)
		message = default_message(r, &m);
	git_oid merged;
	if (strcmp(m.merge_method, "ff") == 0)
		rc = merge_ff(&r->ctx, &s, m.target_branch, &merged);
	else
		rc = merge_commit(&r->ctx, &s, m.target_branch, message, name, email, &merged);
	if (rc == ERR_MOVED)
		return api_error(r, 409, "The target branch moved while merging: try again");
	if (rc == ERR_CONFLICT || rc == ERR_NOT_FOUND)
		return api_error(r, 406, "Branch cannot be merged");
	if (rc < 0)
		return ERR_INTERNAL;
	const char *ref = arena_printf(r->ctx.a, "refs/heads/%s", m.target_branch);
	if ((rc = hooks_pushed(&r->ctx, s.repo, r->project, ref, &s.target, &merged)) < 0)
		return rc;
	const char *v[4] = {m.c.id, oid_hex(r, &merged), api_caller_id(r),
			    remove ? "true" : "false"};
	if (!db_query(&r->ctx, "mrs_merged", 4, v, &err))
		return err;
	if ((rc = system_note(r, m.c.id, "merged")) < 0 ||
	    (rc = issuable_state_event(r, &mr_kind, r->project->id, m.c.id, m.iid, m.c.title,
				       "merged")) < 0 ||
	    (rc = hooks_merge_request(r, m.c.id, "merge", NULL)) < 0)
		return rc;
	/* the issues the description closes */
	int n;
	const char *iids = closing_iids(r, m.description, &n);
	if (n > 0) {
		const char *w[4] = {r->project->id, iids, api_caller_id(r), m.iid};
		PGresult *closed = db_query(&r->ctx, "mrs_close_issues", 4, w, &err);
		if (!closed)
			return err;
		for (int i = 0; i < PQntuples(closed); i++)
			if ((rc = events_record(r, r->project->id, api_caller_id(r), "closed",
						"closed", "Issue", db_val(closed, i, MCI_ID),
						db_val(closed, i, MCI_IID),
						db_val(closed, i, MCI_TITLE))) < 0)
				return rc;
	}
	if (remove && (rc = remove_source_branch(r, &s, &m)) < 0)
		return rc;
	return issuable_respond(r, &mr_kind, 200, m.c.id);
}

static int merge_requests_cancel_mwps(request *r)
{
	locked_mr m;
	int rc = lock_route_mr(r, &m);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	/* can_cancel_merge_when_pipeline_succeeds?: those who may push to the project */
	if (!can_push_code(&r->project->pa, r->ctx.user))
		return ERR_UNAUTHORIZED;
	if (m.mwps) {
		const char *v[] = {[MW_ID] = m.c.id, [MW_ON] = "false", [MW_REMOVE_SOURCE] = NULL};
		_Static_assert(sizeof(v) / sizeof(*v) == MW_NPARAMS, "mrs_mwps");
		int err;
		if (!db_query(&r->ctx, "mrs_mwps", MW_NPARAMS, v, &err))
			return err;
		if ((rc = system_note(r, m.c.id, "canceled the automatic merge")) < 0)
			return rc;
	}
	return issuable_respond(r, &mr_kind, 201, m.c.id);
}

/* ---- subscriptions ---- */

static int merge_requests_participants(request *r)
{
	return issuable_participants(r, &mr_kind);
}

static int merge_requests_subscribe(request *r)
{
	return issuable_subscription(r, &mr_kind, true);
}

static int merge_requests_unsubscribe(request *r)
{
	return issuable_subscription(r, &mr_kind, false);
}

/* ---- the background process: merge_status after a push ---- */

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;
	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The push a check follows: its user and the branch's head before (decimal id, hex) */
struct push_of {
	const char *user_id, *before;
};

/* Sets head sha and merge_status of the requests that mrs_to_check finds for project,
 * branch or id: how many, or -1. After push, the requests from the pushed branch get
 * their update event. */
static int check_requests(ctx *c, const char *project, const char *branch, const char *id,
			  const struct push_of *push, const char **why)
{
	const char *v[3] = {project, branch, id};
	int err;
	PGresult *res = db_query(c, "mrs_to_check", 3, v, &err);
	if (!res) {
		*why = "cannot read the merge requests to check";
		return -1;
	}
	for (int i = 0; i < PQntuples(res); i++) {
		merge_sides s;
		int rc = merge_sides_find(c, db_val(res, i, MTC_TARGET_PROJECT),
					  db_val(res, i, MTC_SOURCE_PROJECT),
					  db_val(res, i, MTC_SOURCE_BRANCH),
					  db_val(res, i, MTC_TARGET_BRANCH),
					  db_val(res, i, MTC_IID), &s);
		if (rc == ERR_NOT_FOUND)
			continue; /* no source branch (any more): left as it was */
		bool clean = false;
		if (rc == 0 && s.have_target)
			rc = mergeable(c, &s, db_val(res, i, MTC_MERGE_METHOD), &clean);
		if (rc < 0) {
			*why = arena_printf(c->a, "cannot check merge request %s",
					    db_val(res, i, MTC_ID));
			return -1;
		}
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof(hex), &s.source);
		const char *w[3] = {db_val(res, i, MTC_ID), hex,
				    clean ? "can_be_merged" : "cannot_be_merged"};
		if (!db_query(c, "mrs_status", 3, w, &err)) {
			*why = "cannot record a merge status";
			return -1;
		}
		/* new commits on its source branch: 10.8's RefreshService sends it as an
		 * update with the branch's head before */
		const char *source = db_val(res, i, MTC_SOURCE_PROJECT);
		if (push && source && strcmp(source, project) == 0 &&
		    strcmp(db_val(res, i, MTC_SOURCE_BRANCH), branch) == 0 &&
		    hooks_merge_request_as(c, db_val(res, i, MTC_TARGET_PROJECT), push->user_id,
					   db_val(res, i, MTC_ID), "update", NULL,
					   push->before) < 0) {
			*why = "cannot queue a merge request's webhooks";
			return -1;
		}
	}
	return PQntuples(res);
}

int merge_requests_on_push(ctx *c, json_object *payload, const char **why)
{
	json_object *project = member(payload, "project_id"), *ref = member(payload, "ref");
	if (!project || !json_object_is_type(project, json_type_int) || !ref ||
	    !json_object_is_type(ref, json_type_string)) {
		*why = "the payload has no project_id and ref";
		return -1;
	}
	const char *name = json_object_get_string(ref);
	json_object *after = member(payload, "after");
	long long project_id = (long long)json_object_get_int64(project);
	int n = 0;
	if (strncmp(name, "refs/heads/", 11) == 0) { /* a tag moves no request */
		json_object *user = member(payload, "user_id"), *before = member(payload, "before");
		struct push_of push = {
			.user_id = user ? arena_printf(c->a, "%lld",
						       (long long)json_object_get_int64(user))
					: NULL,
			.before = before && json_object_is_type(before, json_type_string)
					  ? json_object_get_string(before)
					  : NULL,
		};
		n = check_requests(c, arena_printf(c->a, "%lld", project_id),
				   arena_strdup(c->a, name + 11), NULL, &push, why);
		if (n < 0)
			return -1;
	}
	/* the push's pipeline comes next (background.c: job_push, ci/pipeline.c) */
	log_info("push job: project %lld %s %s: %d open merge requests checked", project_id, name,
		 after && json_object_is_type(after, json_type_string)
			 ? json_object_get_string(after)
			 : "-",
		 n);
	return 0;
}

int merge_requests_on_check(ctx *c, json_object *payload, const char **why)
{
	json_object *id = member(payload, "merge_request_id");
	if (!id || !json_object_is_type(id, json_type_int)) {
		*why = "the payload has no merge_request_id";
		return -1;
	}
	return check_requests(c, NULL, NULL,
			      arena_printf(c->a, "%lld", (long long)json_object_get_int64(id)),
			      NULL, why) < 0
		       ? -1
		       : 0;
}

#define MR V4 "/projects/:id/merge_requests/:merge_request_iid"

/* The module's routes (http/router.h), in the order they are matched. */
const route merge_requests_routes[] = {
	{"GET", V4 "/merge_requests", merge_requests_list_mine, AUTH, check_list},
	{"GET", V4 "/groups/:id/merge_requests", merge_requests_list_group, AUTH | GR, check_list},
	{"GET", V4 "/projects/:id/merge_requests", merge_requests_list_project, AUTH | PR,
	 check_project_list},
	{"GET", MR, merge_requests_show, AUTH | PR, check_iid},
	{"POST", V4 "/projects/:id/merge_requests", merge_requests_create, AUTH | PW, check_create},
	{"PUT", MR, merge_requests_update, AUTH | PW, check_update},
	{"DELETE", MR, merge_requests_delete, AUTH | PW, check_iid},
	{"GET", MR "/commits", merge_requests_commits, AUTH | PR, check_iid},
	{"GET", MR "/changes", merge_requests_changes, AUTH | PR, check_iid},
	{"GET", MR "/participants", merge_requests_participants, AUTH | PR, check_iid},
	{"GET", MR "/closes_issues", merge_requests_closes_issues, AUTH | PR, check_iid},
	{"PUT", MR "/merge", merge_requests_merge, AUTH | PW, check_merge},
	{"POST", MR "/cancel_merge_when_pipeline_succeeds", merge_requests_cancel_mwps, AUTH | PW,
	 check_iid},
	{"POST", V4 "/projects/:id/merge_requests/:subscribable_id/subscribe",
	 merge_requests_subscribe, AUTH | PW, issuable_check_subscribable},
	{"POST", V4 "/projects/:id/merge_requests/:subscribable_id/unsubscribe",
	 merge_requests_unsubscribe, AUTH | PW, issuable_check_subscribable},
	{NULL, NULL, NULL, 0, NULL},
};
