/* Presenters of an issue (GitLab 10's Entities::IssueBasic for lists, Entities::Issue for
 * one issue) and of its time stats (Entities::IssuableTimeStats). */
#ifndef COLLABD_ENTITY_ISSUE_H
#define COLLABD_ENTITY_ISSUE_H

#include "entity/milestone.h"
#include "entity/user.h"
#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The issues row i with what it shows, from the joins of ISSUE_JOINS, for a statement
 * whose WITH list has the caller as `me` (auth/access.h SQL_ME): subscribed is the
 * caller's explicit subscription, else whether they take part (author, assignee, or a
 * comment of theirs), as GitLab's Subscribable. Labels are the titles, sorted, as the row
 * keeps them (sql/0034_label_titles.sql). */
#define ISSUE_COLS ISSUE_COLS_AS(ISSUE_SUBSCRIBED, ISSUE_PATH)
/* The same for a list (IssueBasic, which shows no subscribed): the column is NULL. */
#define ISSUE_LIST_COLS ISSUE_COLS_AS("NULL::boolean", ISSUE_PATH)
/* The same for a list of the route's project, which does not read p and n: the
 * presenter takes the project's full path from the route's scope (web_url). */
#define ISSUE_PROJECT_LIST_COLS ISSUE_COLS_AS("NULL::boolean", "NULL::text")
#define ISSUE_PATH "n.full_path || '/' || p.path"
#define ISSUE_SUBSCRIBED                                                                              \
	"coalesce((SELECT s.subscribed FROM subscriptions s"                                          \
	" WHERE s.subscribable_type = 'Issue' AND s.subscribable_id = i.id"                           \
	" AND s.user_id = me.id AND s.project_id IS NULL), i.author_id = me.id"                       \
	" OR EXISTS (SELECT 1 FROM issue_assignees sa WHERE sa.issue_id = i.id"                       \
	" AND sa.user_id = me.id) OR EXISTS (SELECT 1 FROM notes sn WHERE sn.noteable_type = 'Issue'" \
	" AND sn.noteable_id = i.id AND sn.author_id = me.id AND NOT sn.system), false)"
#define ISSUE_COLS_AS(SUBSCRIBED, PATH)                                                            \
	"i.id, i.iid, i.project_id, i.title, i.description, i.state, i.created_at,"                \
	" i.updated_at, i.closed_at, i.label_titles, i.user_notes_count,"                          \
	" i.upvotes, i.downvotes, i.due_date::text, i.confidential, i.discussion_locked, " PATH    \
	","                                                                                        \
	" i.time_estimate, i.total_time_spent, " SUBSCRIBED ","                                    \
	" " USER_REF("i.author_id") ", " USER_REF(                                                 \
		ISSUE_ASSIGNEE) ","                                                                \
				" " USER_REF("i.closed_by_id") ", " MILESTONE_COLS
/* Issue i's assignee (GitLab 10 CE: at most one), the lowest id of its issue_assignees,
 * as the row keeps it (sql/0038_issue_assignee.sql). */
#define ISSUE_ASSIGNEE "i.assignee_id"
#define ISSUE_NCOLS (20 + 15 + MILESTONE_NCOLS)
/* What ISSUE_COLS reads besides i: its project p and namespace n, its milestone m (its
 * users are references: USER_REF). */
#define ISSUE_JOINS                                                                                \
	" JOIN projects p ON p.id = i.project_id JOIN namespaces n ON n.id = p.namespace_id" ISSUE_JOINS_MILESTONE
/* The same but p and n (the milestone alone), for a statement whose issues are all of
 * one project that it reads once as p and n. */
#define ISSUE_JOINS_MILESTONE " LEFT JOIN milestones m ON m.id = i.milestone_id"

/* The leading columns of ISSUE_COLS and MR_COLS (entity/merge_request.h), in this
 * order (a request's project_id is its target project's), and the members they make,
 * first in both kinds' records. */
enum issuable_head_col {
	IH_ID,
	IH_IID,
	IH_PROJECT_ID,
	IH_TITLE,
	IH_DESCRIPTION,
	IH_STATE,
	IH_CREATED_AT,
	IH_UPDATED_AT,
	IH_NCOLS
};
/* Writes id, iid, project_id, title, description, state, created_at and updated_at of
 * the head at col of row into an object begun. */
void entity_issuable_head_write(jw *w, const PGresult *res, int row, int col);

enum issue_col {
	IC_ID,
	IC_IID,
	IC_PROJECT_ID,
	IC_TITLE,
	IC_DESCRIPTION,
	IC_STATE,
	IC_CREATED_AT,
	IC_UPDATED_AT,
	IC_CLOSED_AT,
	IC_LABELS,
	IC_USER_NOTES_COUNT,
	IC_UPVOTES,
	IC_DOWNVOTES,
	IC_DUE_DATE,
	IC_CONFIDENTIAL,
	IC_DISCUSSION_LOCKED,
	IC_PATH,
	IC_TIME_ESTIMATE,
	IC_TIME_SPENT,
	IC_SUBSCRIBED,
	IC_AUTHOR,
	IC_ASSIGNEE = IC_AUTHOR + 5,
	IC_CLOSED_BY = IC_ASSIGNEE + 5,
	IC_MILESTONE = IC_CLOSED_BY + 5,
};
_Static_assert(IC_MILESTONE + MILESTONE_NCOLS == ISSUE_NCOLS, "ISSUE_COLS and enum issue_col");
_Static_assert((int)IC_PROJECT_ID == (int)IH_PROJECT_ID && (int)IC_CLOSED_AT == (int)IH_NCOLS,
	       "ISSUE_COLS begin with the issuable head");

/* Writes to w the issue whose ISSUE_COLS start at col of row: the list view
 * (IssueBasic). */
void entity_issue_basic_write(jw *w, ctx *c, const PGresult *res, int row, int col);
/* The single view: the list view with _links and subscribed. */
void entity_issue_write(jw *w, ctx *c, const PGresult *res, int row, int col);
/* Writes {time_estimate, total_time_spent, human_time_estimate, human_total_time_spent}
 * of the two integer columns (seconds) at col and col + 1. */
void entity_time_stats_write(jw *w, ctx *c, const PGresult *res, int row, int col);
/* A duration in GitLab's short human form ("1w 2d 3h 30m"; 1mo = 4w, 1w = 5d, 1d = 8h),
 * NULL for 0, in a. */
const char *entity_human_duration(arena *a, long long seconds);

#endif
