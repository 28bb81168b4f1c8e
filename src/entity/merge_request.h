/* Presenters of a merge request (GitLab 10's Entities::MergeRequestBasic for lists,
 * Entities::MergeRequest for one request, the simple view of view=simple) and of a
 * commit of its list (Entities::RepoCommit, git/commits.h's gitc_commit_json). */
#ifndef COLLABD_ENTITY_MERGE_REQUEST_H
#define COLLABD_ENTITY_MERGE_REQUEST_H

#include "core/jw.h"
#include "entity/issue.h"
#include "entity/milestone.h"
#include "entity/user.h"
#include "core/ctx.h"
#include "db/db.h"

/* The merge_requests row mr with what it shows, from the joins of MR_JOINS, for a
 * statement whose WITH list has the caller as `me` (auth/access.h SQL_ME): subscribed
 * is the caller's explicit subscription, else whether they take part (author,
 * assignee, or a comment of theirs). Labels are the titles, sorted. */
#define MR_COLS                                                                                    \
	MR_COLS_HEAD(MR_PATH)                                                                      \
	", coalesce((SELECT s.subscribed FROM subscriptions s"                                     \
	" WHERE s.subscribable_type = 'MergeRequest'"                                              \
	" AND s.subscribable_id = mr.id AND s.user_id = me.id AND s.project_id IS NULL),"          \
	" mr.author_id = me.id OR mr.assignee_id = me.id OR EXISTS (SELECT 1 FROM notes sn"        \
	" WHERE sn.noteable_type = 'MergeRequest' AND sn.noteable_id = mr.id"                      \
	" AND sn.author_id = me.id AND NOT sn.system), false),"                                    \
	" mr.merged_at, mr.closed_at,"                                                             \
	" " USER_REF("mr.author_id") ", " USER_REF(                                                \
		"mr.assignee_id") ","                                                              \
				  " " USER_REF("mr.merged_by_id") ", " USER_REF(                   \
					  "mr.closed_by_id") ", " MILESTONE_COLS
/* MR_COLS for the lists, whose views (entity_merge_request_basic and _simple) show
 * neither subscribed, merged_by/at nor closed_by/at: those columns NULL (no `me`
 * needed), PATH the full path of the target project (MR_PATH with MR_PATH_JOINS, or NULL
 * in a list of the route's project: web_url takes the scope's), read with MR_LIST_JOINS. */
#define MR_LIST_COLS(PATH)                                                                         \
	MR_COLS_HEAD(PATH)                                                                         \
	", NULL, NULL, NULL,"                                                                      \
	" " USER_REF("mr.author_id") ", " USER_REF(                                                \
		"mr.assignee_id") ","                                                              \
				  " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, " MILESTONE_COLS
/* The columns of MR_COLS up to total_time_spent, PATH that of web_url. */
#define MR_COLS_HEAD(PATH)                                                                            \
	"mr.id, mr.iid, mr.target_project_id, mr.title, mr.description,"                              \
	" mr.state, mr.created_at, mr.updated_at, mr.source_project_id, mr.target_branch,"            \
	" mr.source_branch, mr.upvotes, mr.downvotes, mr.label_titles,"                               \
	" mr.merge_when_pipeline_succeeds,"                                                           \
	" mr.merge_status, mr.sha, mr.merge_commit_sha, mr.user_notes_count,"                         \
	" mr.discussion_locked, mr.should_remove_source_branch, mr.force_remove_source_branch, " PATH \
	", mr.time_estimate, mr.total_time_spent"
#define MR_NCOLS (28 + 20 + MILESTONE_NCOLS)
/* What MR_COLS reads besides mr: its target project p and namespace n, its milestone m
 * (its author, assignee, who merged and who closed it are references: USER_REF). */
#define MR_JOINS MR_PATH_JOINS MR_LIST_JOINS
/* The full path of mr's target project, from MR_PATH_JOINS. */
#define MR_PATH "n.full_path || '/' || p.path"
#define MR_PATH_JOINS                                                                              \
	" JOIN projects p ON p.id = mr.target_project_id JOIN namespaces n ON n.id = p.namespace_id"
/* What MR_LIST_COLS reads besides mr (and what its PATH names): m. */
#define MR_LIST_JOINS " LEFT JOIN milestones m ON m.id = mr.milestone_id"

enum mr_col {
	MRC_ID,
	MRC_IID,
	MRC_TARGET_PROJECT,
	MRC_TITLE,
	MRC_DESCRIPTION,
	MRC_STATE,
	MRC_CREATED_AT,
	MRC_UPDATED_AT,
	MRC_SOURCE_PROJECT,
	MRC_TARGET_BRANCH,
	MRC_SOURCE_BRANCH,
	MRC_UPVOTES,
	MRC_DOWNVOTES,
	MRC_LABELS,
	MRC_MWPS,
	MRC_MERGE_STATUS,
	MRC_SHA,
	MRC_MERGE_COMMIT_SHA,
	MRC_USER_NOTES_COUNT,
	MRC_DISCUSSION_LOCKED,
	MRC_SHOULD_REMOVE,
	MRC_FORCE_REMOVE,
	MRC_PATH,
	MRC_TIME_ESTIMATE,
	MRC_TIME_SPENT,
	MRC_SUBSCRIBED,
	MRC_MERGED_AT,
	MRC_CLOSED_AT,
	MRC_AUTHOR,
	MRC_ASSIGNEE = MRC_AUTHOR + 5,
	MRC_MERGED_BY = MRC_ASSIGNEE + 5,
	MRC_CLOSED_BY = MRC_MERGED_BY + 5,
	MRC_MILESTONE = MRC_CLOSED_BY + 5,
};
_Static_assert(MRC_MILESTONE + MILESTONE_NCOLS == MR_NCOLS, "MR_COLS and enum mr_col");
_Static_assert((int)MRC_TARGET_PROJECT == (int)IH_PROJECT_ID &&
		       (int)MRC_SOURCE_PROJECT == (int)IH_NCOLS,
	       "MR_COLS begin with the issuable head");

/* The request whose MR_COLS start at col of row, written into w: the list view
 * (MergeRequestBasic). */
void entity_merge_request_basic_write(jw *w, ctx *c, const PGresult *res, int row, int col);
/* The simple view (view=simple): id, iid, project_id, title, description, state,
 * created_at, updated_at, web_url. */
void entity_merge_request_simple_write(jw *w, ctx *c, const PGresult *res, int row, int col);
/* The single view: the list view with subscribed, merged_by/at, closed_by/at and the
 * pipeline fields (none yet). */
void entity_merge_request_write(jw *w, ctx *c, const PGresult *res, int row, int col);
/* The same, left open for the caller's members (the changes of /changes): jw_end_object
 * ends it. */
void entity_merge_request_begin(jw *w, ctx *c, const PGresult *res, int row, int col);
/* Whether a title marks a work in progress (GitLab's WIP prefixes: "WIP:", "WIP ",
 * "[WIP]", "WIP-", case aside). */
bool entity_merge_request_wip(const char *title);

#endif
