/* What issues (issues.c) and merge requests (merge_requests.c) share, written once and
 * parameterised by kind, as GitLab's Issuable concern: the filters of their lists, the
 * labels parameter, the locked record a change starts from, who may update it, the
 * system notes and state events a change writes, labels and assignee set with their
 * notes, subscriptions and participants. Its statements are issuable_stmts (issuable.c). */
#ifndef COLLABD_API_ISSUABLE_H
#define COLLABD_API_ISSUABLE_H

#include "api/api.h"

/* The common filters of the issue and merge request lists (spec 4.5, 4.6), read and
 * checked as GitLab 10's parameter declarations do: state one of states ("all": none),
 * scope one of scopes (default_scope when absent). */
typedef struct {
	page_req pg;
	const char *state, *labels, *milestone, *milestone_mode, *scope, *author, *assignee, *emoji,
		*iids, *search, *created_after, *created_before, *updated_after, *updated_before,
		*order_by, *sort;
	bool no_label, no_assignee, no_emoji;
} tracker_filters;
int tracker_read_filters(request *r, const char *const *states, const char *const *scopes,
			 const char *default_scope, tracker_filters *f);
/* GitLab's system note of a label change ("added ~1 ~2 labels and removed ~3 label"),
 * of the ids added and removed (bigint[] literals or NULL); NULL when neither has any. */
const char *tracker_labels_note(request *r, const char *added_ids, const char *removed_ids);
/* The list statements' parameters $1..$26 from f: the caller ($1..$3, TF_ME:
 * access_me_params), project_id, group_id, the filters, the page; v has at least
 * TF_NPARAMS values. */
enum tracker_param {
	TF_ME,
	TF_PROJECT = TF_ME + 3,
	TF_GROUP,
	TF_STATE,
	TF_LABELS,
	TF_NO_LABEL,
	TF_MILESTONE,
	TF_MILESTONE_MODE,
	TF_SCOPE,
	TF_AUTHOR,
	TF_ASSIGNEE,
	TF_NO_ASSIGNEE,
	TF_EMOJI,
	TF_NO_EMOJI,
	TF_IIDS,
	TF_SEARCH,
	TF_CREATED_AFTER,
	TF_CREATED_BEFORE,
	TF_UPDATED_AFTER,
	TF_UPDATED_BEFORE,
	TF_BY_UPDATED,
	TF_ASC,
	TF_LIMIT,
	TF_OFFSET,
	TF_NPARAMS
};
void tracker_filter_params(request *r, tracker_filters *f, const char *project_id,
			   const char *group_id, const char **v);

/* What tells an issue from a merge request here. */
typedef struct issuable_kind {
	/* notes.noteable_type, subscriptions.subscribable_type, label_links.target_type and
	 * the events' target_type: "Issue", "MergeRequest" */
	const char *type;
	/* The route's path parameter of the record's iid: "issue_iid", "merge_request_iid" */
	const char *param;
	/* The statement that locks record $2 of project $1 FOR UPDATE: its columns start
	 * with enum issuable_lock_col's */
	const char *lock_stmt;
	/* The statement that assigns record $1 to user $2 (nobody when NULL) when the user
	 * may see project $3: its columns are enum issuable_assign_col's */
	const char *assign_stmt;
	/* The statement that deletes record $1 */
	const char *delete_stmt;
	/* The record iid (or id, when not NULL) of the route's project as the caller may see
	 * it, its presenter's columns in row 0 of *out (col_id, col_subscribed among them):
	 * 0; 1 when it answered 404; or an ERR_ code (ERR_FORBIDDEN, answered 403). */
	int (*find)(request *r, const char *iid, const char *id, PGresult **out);
	int col_id, col_subscribed;
	/* The record's presenter (of find's row). */
	writer_fn write;
} issuable_kind;

/* The parameters of a kind's statements that read one record as the caller sees it
 * (issues_get, mrs_get): the caller (IGP_ME: access_me_params), the project and the
 * iid; those that read it by id (issues_get_id, mrs_get_id) take the id at IGP_PROJECT
 * and no iid. */
enum issuable_get_param { IGP_ME, IGP_PROJECT = IGP_ME + 3, IGP_IID, IGP_NPARAMS };
/* Record iid of the route's project with statement stmt, or record id (when not NULL)
 * with id_stmt: 0 with its row in *out; 1 when there is none (nothing answered); or an
 * ERR_ code. Whether the caller may see it is the kind's to say. */
int issuable_get(request *r, const char *stmt, const char *id_stmt, const char *iid, const char *id,
		 PGresult **out);

/* The first columns of a kind's lock_stmt. */
enum issuable_lock_col {
	ILK_ID,
	ILK_AUTHOR,
	ILK_ASSIGNEE,
	ILK_STATE,
	ILK_MILESTONE,
	ILK_TITLE,
	ILK_NCOLS /* where the kind's own columns start */
};
/* The columns of a kind's assign_stmt: the former and the new assignee's usernames, and
 * whether the assignee changed. */
enum issuable_assign_col { IAS_WAS, IAS_NOW, IAS_CHANGED, IAS_NCOLS };

/* The locked record's columns that both kinds compare a change with. */
typedef struct {
	const char *id, *author, *assignee, *state, *milestone, *title;
} issuable_row;

/* Locks record iid of the route's project with k->lock_stmt: 0 with its row in *res and
 * its common columns in *out; 1 when there is none (nothing answered); or an ERR_ code. */
int issuable_lock(request *r, const issuable_kind *k, const char *iid, PGresult **res,
		  issuable_row *out);
/* GitLab's update_issue / update_merge_request: not in an archived project, and admin
 * (the kind's ability to administer), the author or the assignee. */
bool issuable_can_update(request *r, bool admin, const issuable_row *row);

/* A system note by the caller on record id of project_id. 0 or an ERR_ code. */
int issuable_system_note(request *r, const issuable_kind *k, const char *project_id, const char *id,
			 const char *body);
/* The event of a record's state by the caller: what is opened (action created), closed,
 * reopened or merged (action name accepted). 0 or an ERR_ code. */
int issuable_state_event(request *r, const issuable_kind *k, const char *project_id, const char *id,
			 const char *iid, const char *title, const char *what);
/* What an edit of record was (the locked row, the route's project's) writes, each when
 * it changed something: the state's system note and event (new_state; the event under
 * title), the title's note (new_title, NULL when not given), the milestone's note
 * (new_milestone, its reference ref: %iid or %"title"). 0 or an ERR_ code. */
int issuable_state_changed(request *r, const issuable_kind *k, const issuable_row *was,
			   const char *iid, const char *new_state, const char *title);
int issuable_title_changed(request *r, const issuable_kind *k, const issuable_row *was,
			   const char *new_title);
int issuable_milestone_changed(request *r, const issuable_kind *k, const issuable_row *was,
			       const char *new_milestone, const char *ref);
/* The labels of record id of the route's project become the titles of list (the
 * project's own made for those that neither it nor a group above has), with GitLab's
 * system note ("added ~1 ~2 labels and removed ~3 label") when note. 0 or an ERR_
 * code. */
int issuable_set_labels(request *r, const issuable_kind *k, const char *id, const char *list,
			bool note);
/* Assigns record id of the route's project to user (NULL: nobody) when the user may
 * see the project, with GitLab's system note when note and the assignee changed. 0 or
 * an ERR_ code. */
int issuable_assign(request *r, const issuable_kind *k, const char *id, const char *user,
		    bool note);

/* What a new record id of the route's project writes besides its row: its assignee
 * and labels, set without notes when admin (who may set them) and given (not NULL),
 * and its created event. 0 or an ERR_ code. */
int issuable_created(request *r, const issuable_kind *k, const char *id, const char *iid,
		     const char *title, bool admin, const char *assignee, const char *labels);
/* What both kinds' edits of a record (the locked row was) write last, each when it
 * changed something: the milestone's note (the milestone now and its reference, as
 * issuable_milestone_changed), and, when admin, the labels when given (not NULL) and
 * the assignee when assignee_given, with their notes. 0 or an ERR_ code. */
int issuable_edited(request *r, const issuable_kind *k, const issuable_row *was,
		    const char *milestone, const char *milestone_ref, bool admin,
		    const char *labels, bool assignee_given, const char *assignee);
/* Deletes record id (locked) with k->delete_stmt, answering 204: 0 or an ERR_ code. */
int issuable_delete(request *r, const issuable_kind *k, const char *id);
/* Answers status with record id as the caller sees it now (after a change): 0 or an
 * ERR_ code. */
int issuable_respond(request *r, const issuable_kind *k, int status, const char *id);

/* The subscribe and unsubscribe routes (:subscribable_id the record's iid): their
 * check, and the handler: 201 with the record, 304 when it was so already. */
int issuable_check_subscribable(request *r);
int issuable_subscription(request *r, const issuable_kind *k, bool subscribe);

/* GET .../:iid/participants (GitLab's Participable, paginated as Kaminari.paginate_array):
 * a page of the author, the assignees and the authors of comments of the route's
 * record, by id, in the basic user view; 404 as the kind's find when the caller may not
 * see the record. 0 or an ERR_ code. */
int issuable_participants(request *r, const issuable_kind *k);

/* A boolean parameter: *out 1 or 0, -1 when absent; 0, or ERR_INVALID. */
int issuable_read_bool(request *r, const char *name, int *out);
/* An Array[Integer] parameter (name[]=1&name[]=2, a JSON array, or one value): the
 * count of values in *out (0 when absent), or ERR_INVALID. */
int issuable_int_list(request *r, const char *name, const char ***out);
/* An id parameter as the statements take it: NULL for none (absent, or 0: GitLab's
 * "nobody", "no milestone"), else its canonical text ("007" is "7"). */
const char *issuable_id_or_none(request *r, const char *id);
/* GitLab's validation of a given title (*title not NULL): not blank, at most 255
 * characters, left in r's validation. */
void issuable_check_title(request *r, const char **title);
/* The labels parameter as given (a comma-separated list, or an array joined with
 * commas; NULL when absent). */
const char *issuable_labels_param(request *r);
/* The titles of a comma-separated list, trimmed, without empty ones and repeats, as a
 * text[] literal with their number in *count. */
const char *issuable_label_titles(request *r, const char *list, int *count);

#endif
