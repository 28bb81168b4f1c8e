/* Presenters of labels: GitLab 10's Entities::Label (the label with its issue and merge
 * request counts, priority and the caller's subscription, as a project shows it) and
 * Entities::LabelBasic (id, name, color, description: what a board list embeds). */
#ifndef COLLABD_ENTITY_LABEL_H
#define COLLABD_ENTITY_LABEL_H

#include "auth/access.h"
#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The columns LabelBasic reads, from labels l. */
#define LABEL_BASIC_COLS "l.id, l.title, l.color, l.description"
#define LABEL_BASIC_NCOLS 4

/* The labels project P or group G (SQL; the other NULL) may use: the project's own, and
 * those of its group (of G) and the groups above it (GitLab 10's LabelsFinder). */
#define SQL_AVAILABLE_LABELS(P, G)                                                                 \
	"SELECT l.* FROM labels l WHERE l.project_id = " P                                         \
	" UNION ALL SELECT l.* FROM namespaces an JOIN labels l"                                   \
	" ON l.group_id = ANY (an.traversal_ids) WHERE an.kind = 'group' AND an.id ="              \
	" coalesce(" G ", (SELECT ap.namespace_id FROM projects ap WHERE ap.id = " P "))"

/* The issues of label l in state STATE that the caller (the `me` CTE of
 * auth/access.h) may see, counted as GitLab 10's IssuesFinder does for a label: issues
 * of projects they can see (P, the SQL of the project the label is shown in, is
 * known to be one), confidential ones only to admins, their author, their assignees
 * and reporters and up. */
#define SQL_LABEL_ISSUES(STATE, P)                                                                      \
	"(SELECT count(*) FROM label_links ll JOIN issues i ON i.id = ll.target_id"                     \
	" JOIN projects ip ON ip.id = i.project_id WHERE ll.label_id = l.id"                            \
	" AND ll.target_type = 'Issue' AND i.state = '" STATE "' AND NOT ip.pending_delete"             \
	" AND (i.project_id = " P " OR " SQL_PROJECT_VISIBLE(                                           \
		"ip") ")"                                                                               \
		      " AND (NOT i.confidential OR me.admin OR i.author_id = me.id OR EXISTS (SELECT 1" \
		      " FROM issue_assignees ia WHERE ia.issue_id = i.id AND ia.user_id = me.id)"       \
		      " OR " SQL_PROJECT_ACCESS("ip") " >= 20))"

/* The open merge requests with label l, in project P or in the projects the caller
 * sees. */
#define SQL_LABEL_OPEN_MRS(P)                                                                      \
	"(SELECT count(*) FROM label_links ll JOIN merge_requests mr ON mr.id = ll.target_id"      \
	" JOIN projects mp ON mp.id = mr.target_project_id WHERE ll.label_id = l.id"               \
	" AND ll.target_type = 'MergeRequest' AND mr.state IN ('opened', 'locked')"                \
	" AND NOT mp.pending_delete AND (mr.target_project_id = " P                                \
	" OR " SQL_PROJECT_VISIBLE("mp") "))"

/* Every column of Entities::Label for labels l shown in project P (SQL; NULL: in a
 * group), with `me` in scope: LabelBasic's, the open and closed issue counts, the open
 * merge request count, the priority,
 * and whether the caller is subscribed (to a project's label; to a group's label in
 * project P, or in the group when P is NULL). */
#define LABEL_COLS(P)                                                                                  \
	LABEL_BASIC_COLS                                                                               \
	", " SQL_LABEL_ISSUES("opened", P) ", " SQL_LABEL_ISSUES("closed", P) ", " SQL_LABEL_OPEN_MRS( \
		P) ", l.priority, EXISTS (SELECT 1 FROM subscriptions s"                               \
		   " WHERE s.subscribable_type = 'Label' AND s.subscribable_id = l.id"                 \
		   " AND s.user_id = me.id AND s.subscribed"                                           \
		   " AND coalesce(s.project_id, 0) = CASE WHEN l.group_id IS NULL THEN 0"              \
		   " ELSE coalesce(" P ", 0) END)"
#define LABEL_NCOLS 9

json_object *entity_label(ctx *c, const PGresult *res, int row, int col);
json_object *entity_label_basic(ctx *c, const PGresult *res, int row, int col);

#endif
