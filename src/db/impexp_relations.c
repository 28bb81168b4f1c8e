#include "db/impexp_relations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crypto.h"
#include "db/custom_attributes.h"
#include "db/impexp.h"

/* Every record shape is ONE field list, X(alias, key, column, kind, default): the JSON key
 * of 10.8's project.json, our column, its kind, and the SQL value an import gives a key
 * the record lacks (or has as null). The list writes both directions: an import reads
 * the record with jsonb_to_record() typed by the kinds (F_DEF) and inserts the columns
 * (F_COL, F_IN); an export builds the same keys from the columns (F_OUT, alias being
 * the row's alias in the statement). Keys that need C (an author, a sealed secret, a
 * nested record) are outside the lists, next to their code. */
#define K_TEXT_T "text"
#define K_INT_T "bigint"
#define K_BOOL_T "boolean"
#define K_FLOAT_T "double precision"
#define K_TIME_T "timestamptz"
#define K_DATE_T "date"
#define K_COLOR_T "text"
#define K_IN(k, d) "coalesce(r.\"" k "\", " d ")"
#define K_TEXT_IN K_IN
#define K_INT_IN K_IN
#define K_BOOL_IN K_IN
#define K_FLOAT_IN K_IN
#define K_TIME_IN K_IN
#define K_DATE_IN K_IN
/* GitLab keeps colors as typed (#428BCA, #FFF); ours are #rrggbb in lower case */
#define K_COLOR_IN(k, d)                                                                           \
	"regexp_replace(lower(" K_IN(k, d) "), '^#(.)(.)(.)$', '#\\1\\1\\2\\2\\3\\3')"
#define K_OUT(a, c) a ".\"" c "\""
#define K_TEXT_OUT K_OUT
#define K_INT_OUT K_OUT
#define K_BOOL_OUT K_OUT
#define K_FLOAT_OUT K_OUT
#define K_DATE_OUT K_OUT
#define K_COLOR_OUT K_OUT
/* 10.8's timestamps: 2016-06-14T15:02:08.340Z */
#define K_TIME_OUT(a, c) "iso8601(" K_OUT(a, c) ")"

#define F_COL(a, key, col, kind, d) ", \"" #col "\""
#define F_IN(a, key, col, kind, d) ", " kind##_IN(#key, d)
#define F_DEF(a, key, col, kind, d) "\"" #key "\" " kind##_T ", "
#define F_OUT(a, key, col, kind, d) ", '" #key "', " kind##_OUT(a, #col)

/* The record $p as the row r of the fields of LIST (a trailing column of no key closes
 * the list the macros write with a comma after each field). */
#define REC(p, LIST) "jsonb_to_record(" p "::jsonb) AS r(" LIST(F_DEF, "") "\"-\" int)"

#define LABEL_FIELDS(X, a)                                                                         \
	X(a, title, title, K_TEXT, "NULL")                                                         \
	X(a, color, color, K_COLOR, "'#428bca'")                                                   \
	X(a, description, description, K_TEXT, "NULL")                                             \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define MILESTONE_FIELDS(X, a)                                                                     \
	X(a, iid, iid, K_INT, "NULL")                                                              \
	X(a, title, title, K_TEXT, "NULL")                                                         \
	X(a, description, description, K_TEXT, "NULL")                                             \
	X(a, state, state, K_TEXT, "'active'")                                                     \
	X(a, due_date, due_date, K_DATE, "NULL")                                                   \
	X(a, start_date, start_date, K_DATE, "NULL")                                               \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define ISSUE_FIELDS(X, a)                                                                         \
	X(a, iid, iid, K_INT, "NULL")                                                              \
	X(a, title, title, K_TEXT, "NULL")                                                         \
	X(a, description, description, K_TEXT, "NULL")                                             \
	X(a, state, state, K_TEXT, "'opened'")                                                     \
	X(a, confidential, confidential, K_BOOL, "false")                                          \
	X(a, discussion_locked, discussion_locked, K_BOOL, "NULL")                                 \
	X(a, due_date, due_date, K_DATE, "NULL")                                                   \
	X(a, time_estimate, time_estimate, K_INT, "0")                                             \
	X(a, closed_at, closed_at, K_TIME, "NULL")                                                 \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define MR_FIELDS(X, a)                                                                            \
	X(a, iid, iid, K_INT, "NULL")                                                              \
	X(a, source_branch, source_branch, K_TEXT, "NULL")                                         \
	X(a, target_branch, target_branch, K_TEXT, "NULL")                                         \
	X(a, title, title, K_TEXT, "NULL")                                                         \
	X(a, description, description, K_TEXT, "NULL")                                             \
	X(a, state, state, K_TEXT, "'opened'")                                                     \
	X(a, merge_status, merge_status, K_TEXT, "'unchecked'")                                    \
	X(a, merge_commit_sha, merge_commit_sha, K_TEXT, "NULL")                                   \
	X(a, merge_when_pipeline_succeeds, merge_when_pipeline_succeeds, K_BOOL, "false")          \
	X(a, discussion_locked, discussion_locked, K_BOOL, "NULL")                                 \
	X(a, time_estimate, time_estimate, K_INT, "0")                                             \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define NOTE_FIELDS(X, a)                                                                          \
	X(a, note, note, K_TEXT, "NULL")                                                           \
	X(a, system, system, K_BOOL, "false")                                                      \
	X(a, commit_id, commit_id, K_TEXT, "NULL")                                                 \
	X(a, discussion_id, discussion_id, K_TEXT, "new_discussion_id()")                          \
	X(a, type, type, K_TEXT, "NULL")                                                           \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define AWARD_FIELDS(X, a)                                                                         \
	X(a, name, name, K_TEXT, "NULL")                                                           \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define SNIPPET_FIELDS(X, a)                                                                       \
	X(a, title, title, K_TEXT, "NULL")                                                         \
	X(a, file_name, file_name, K_TEXT, "''")                                                   \
	X(a, content, content, K_TEXT, "''")                                                       \
	X(a, description, description, K_TEXT, "NULL")                                             \
	X(a, visibility_level, visibility, K_INT, "0")                                             \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define PROTECTED_BRANCH_FIELDS(X, a)                                                              \
	X(a, name, name, K_TEXT, "NULL")                                                           \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define TRIGGER_FIELDS(X, a)                                                                       \
	X(a, description, description, K_TEXT, "NULL")                                             \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define SCHEDULE_FIELDS(X, a)                                                                      \
	X(a, description, description, K_TEXT, "''")                                               \
	X(a, ref, ref, K_TEXT, "NULL")                                                             \
	X(a, cron, cron, K_TEXT, "NULL")                                                           \
	X(a, cron_timezone, cron_timezone, K_TEXT, "'UTC'")                                        \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define PIPELINE_FIELDS(X, a)                                                                      \
	X(a, ref, ref, K_TEXT, "NULL")                                                             \
	X(a, sha, sha, K_TEXT, "NULL")                                                             \
	X(a, before_sha, before_sha, K_TEXT, "'0000000000000000000000000000000000000000'")         \
	X(a, tag, tag, K_BOOL, "false")                                                            \
	X(a, source, source, K_TEXT, "'push'")                                                     \
	X(a, yaml_errors, yaml_errors, K_TEXT, "NULL")                                             \
	X(a, coverage, coverage, K_TEXT, "NULL")                                                   \
	X(a, duration, duration, K_INT, "NULL")                                                    \
	X(a, committed_at, committed_at, K_TIME, "NULL")                                           \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")                                              \
	X(a, started_at, started_at, K_TIME, "NULL")                                               \
	X(a, finished_at, finished_at, K_TIME, "NULL")

/* A pipeline's statuses (its jobs): commit_statuses, and ci_builds for a Ci::Build */
#define JOB_FIELDS(X, a)                                                                           \
	X(a, name, name, K_TEXT, "NULL")                                                           \
	X(a, stage, stage, K_TEXT, "'test'")                                                       \
	X(a, stage_idx, stage_idx, K_INT, "0")                                                     \
	X(a, when, when, K_TEXT, "'on_success'")                                                   \
	X(a, allow_failure, allow_failure, K_BOOL, "false")                                        \
	X(a, coverage, coverage, K_FLOAT, "NULL")                                                  \
	X(a, description, description, K_TEXT, "NULL")                                             \
	X(a, target_url, target_url, K_TEXT, "NULL")                                               \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")                                              \
	X(a, started_at, started_at, K_TIME, "NULL")                                               \
	X(a, finished_at, finished_at, K_TIME, "NULL")

#define RELEASE_FIELDS(X, a)                                                                       \
	X(a, tag, tag, K_TEXT, "NULL")                                                             \
	X(a, description, description, K_TEXT, "''")                                               \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

#define BADGE_FIELDS(X, a)                                                                         \
	X(a, link_url, link_url, K_TEXT, "NULL")                                                   \
	X(a, image_url, image_url, K_TEXT, "NULL")                                                 \
	X(a, created_at, created_at, K_TIME, "now()")                                              \
	X(a, updated_at, updated_at, K_TIME, "now()")

/* GitLab's Event actions (its numbers in project.json) and ours (the filter value and
 * the name shown, as api/issuable.c writes them), both directions; the other actions
 * (pushed, joined, ...) are not a tracker record's and are left out. */
#define EVENT_ACTIONS                                                                              \
	"(VALUES (1, 'created', 'opened'), (2, 'updated', 'updated'), (3, 'closed', 'closed'),"    \
	" (4, 'reopened', 'reopened'), (6, 'commented', 'commented on'),"                          \
	" (7, 'merged', 'accepted'), (10, 'destroyed', 'destroyed')) AS ea (code, action, name)"

/* Import: the children of a record (the row just inserted, CTE i: id, iid, title) from
 * the lists of its record $P, in the statement that inserts it: one round trip for an
 * issue with its notes. C has rewritten the lists first (users mapped, the notes'
 * texts credited, each link's label_id ours). */
#define NO_FIELDS(X, a)
#define RECSET(P, KEY, EXTRA, LIST)                                                                \
	"jsonb_to_recordset(CASE WHEN jsonb_typeof(" P "::jsonb -> '" KEY "') = 'array' THEN " P   \
	"::jsonb -> '" KEY "' ELSE '[]' END) AS r(" EXTRA                                          \
	LIST(F_DEF, "") "\"-\" int)"
#define ASSIGNEES_CTE(P)                                                                                  \
	", a AS (INSERT INTO issue_assignees (issue_id, user_id) SELECT i.id, r.user_id FROM i, " RECSET( \
		P, "issue_assignees", "\"user_id\" bigint, ",                                             \
		NO_FIELDS) " ON CONFLICT DO NOTHING)"
#define LINKS_CTE(TYPE, P)                                                                         \
	", l AS (INSERT INTO label_links (label_id, target_type, target_id, created_at)"           \
	" SELECT r.label_id, '" TYPE "', i.id, coalesce(r.created_at, now()) FROM i, " RECSET(     \
		P, "label_links", "\"label_id\" bigint, \"created_at\" timestamptz, ",             \
		NO_FIELDS) " ON CONFLICT DO NOTHING)"
/* WHEN: false when the notes go one by one (they have award emoji, which need their ids) */
#define NOTES_CTE(TYPE, P, WHEN)                                                                    \
	", n AS (INSERT INTO notes (project_id, noteable_type, noteable_id, author_id" NOTE_FIELDS( \
		F_COL, "") ") SELECT $1::bigint, '" TYPE                                            \
			   "', i.id, r.author_id" NOTE_FIELDS(F_IN, "") " FROM i, " RECSET(         \
				   P, "notes", "\"author_id\" bigint, ",                            \
				   NOTE_FIELDS) " WHERE " WHEN ")"
#define AWARDS_CTE(TYPE, P)                                                                        \
	", w AS (INSERT INTO award_emoji (awardable_type, awardable_id, user_id" AWARD_FIELDS(     \
		F_COL, "") ") SELECT '" TYPE                                                       \
			   "', i.id, r.user_id" AWARD_FIELDS(F_IN, "") " FROM i, " RECSET(         \
				   P, "award_emoji", "\"user_id\" bigint, ",                       \
				   AWARD_FIELDS) " ON CONFLICT DO NOTHING)"
#define EVENTS_CTE(TYPE, P)                                                                        \
	", e AS (INSERT INTO events (project_id, author_id, action, action_name, target_type,"     \
	" target_id, target_iid, target_title, created_at) SELECT $1::bigint, r.author_id,"        \
	" ea.action, ea.name, '" TYPE "', i.id, i.iid, i.title, coalesce(r.created_at, now())"     \
	" FROM i, " RECSET(P, "events",                                                            \
			   "\"author_id\" bigint, \"action\" int,"                                 \
			   " \"created_at\" timestamptz, ",                                        \
			   NO_FIELDS) " JOIN " EVENT_ACTIONS " ON ea.code = r.action)"

/* Export: the events of the TYPE record of id ID. */
#define EVENTS_JSON(TYPE, ID)                                                                      \
	"(SELECT coalesce(json_agg(json_build_object('id', ev.id, 'target_type', ev.target_type,"  \
	" 'target_id', ev.target_id, 'project_id', ev.project_id, 'created_at',"                   \
	" iso8601(ev.created_at), 'updated_at', iso8601(ev.created_at), 'action', ea.code,"        \
	" 'author_id', ev.author_id) ORDER BY ev.id), '[]') FROM events ev JOIN " EVENT_ACTIONS    \
	" ON ea.action = ev.action WHERE ev.target_type = '" TYPE "' AND ev.target_id = " ID ")"

/* Export: a label (alias a) as 10.8 writes it, in an issue's label link too: a group
 * label is written as GitLab does (GroupLabel) and comes back as a project label. */
#define LABEL_JSON(a)                                                                              \
	"json_build_object('id', " a ".id, 'project_id', " a ".project_id, 'group_id', " a         \
	".group_id" LABEL_FIELDS(F_OUT, a) ", 'template', false, 'type', CASE WHEN " a             \
					   ".group_id IS NULL THEN 'ProjectLabel' ELSE"            \
					   " 'GroupLabel' END, 'priorities', CASE WHEN " a         \
					   ".priority IS NULL THEN '[]'::json ELSE"                \
					   " json_build_array(json_build_object('label_id', " a    \
					   ".id, 'priority', " a ".priority)) END)"
#define MILESTONE_JSON(a)                                                                          \
	"json_build_object('id', " a ".id, 'project_id', " a ".project_id" MILESTONE_FIELDS(       \
		F_OUT, a) ", 'events', " EVENTS_JSON("Milestone", a ".id") ")"
#define AWARDS_JSON(TYPE, ID)                                                                      \
	"(SELECT coalesce(json_agg(json_build_object('id', e.id, 'user_id', e.user_id,"            \
	" 'awardable_type', e.awardable_type" AWARD_FIELDS(                                        \
		F_OUT, "e") ") ORDER BY e.id),"                                                    \
			    " '[]') FROM award_emoji e WHERE e.awardable_type = '" TYPE            \
			    "' AND e.awardable_id = " ID ")"
#define NOTES_JSON(TYPE, ID)                                                                               \
	"(SELECT coalesce(json_agg(json_build_object('id', n.id, 'noteable_type', n.noteable_type,"        \
	" 'noteable_id', n.noteable_id, 'project_id', n.project_id, 'author_id', n.author_id" NOTE_FIELDS( \
		F_OUT, "n") ", 'attachment', json_build_object('url', n.attachment),"                      \
			    " 'author', json_build_object('name', (SELECT u.name FROM users u"             \
			    " WHERE u.id = n.author_id)), 'events', '[]'::json,"                           \
			    " 'award_emoji', " AWARDS_JSON(                                                \
				    "Note",                                                                \
				    "n.id") ") ORDER BY n.id),"                                            \
					    " '[]') FROM notes n WHERE n.noteable_type = '" TYPE           \
					    "' AND n.noteable_id = " ID ")"
#define LABEL_LINKS_JSON(TYPE, ID)                                                                 \
	"(SELECT coalesce(json_agg(json_build_object('label_id', k.label_id, 'target_id',"         \
	" k.target_id, 'target_type', k.target_type, 'created_at', iso8601(k.created_at),"         \
	" 'updated_at', iso8601(k.created_at), 'label', " LABEL_JSON(                              \
		"l") ") ORDER BY l.title),"                                                        \
		     " '[]') FROM label_links k JOIN labels l ON l.id = k.label_id"                \
		     " WHERE k.target_type = '" TYPE "' AND k.target_id = " ID ")"
#define MILESTONE_OF(ID) "(SELECT " MILESTONE_JSON("m") " FROM milestones m WHERE m.id = " ID ")"

/* An export page: the records of project $1 after id $2, $3 of them, oldest first. */
#define PAGE_OF(TABLE, a, COL)                                                                     \
	" FROM " TABLE " " a " WHERE " a "." COL " = $1 AND " a ".id > $2"                         \
	" ORDER BY " a ".id LIMIT $3"
#define PAGE_SIZE 100
enum { EX_PROJECT, EX_AFTER, EX_LIMIT, EX_NPARAMS };
/* what a page's rows answer: the id, the record as JSON text, then what C adds */
enum { EX_ID, EX_JSON, EX_NCOLS };
enum { EXS_ID, EXS_JSON, EXS_SEALED, EXS_NCOLS };

enum { LF_PROJECT, LF_REC, LF_PRIORITY, LF_NPARAMS };
enum { MF_PROJECT, MF_REC, MF_NPARAMS };
enum { MF_ID, MF_MADE, MF_NCOLS };
enum { II_PROJECT, II_AUTHOR, II_MILESTONE, II_REC, II_NOTES, II_NPARAMS };
enum { NI_PROJECT, NI_TYPE, NI_TARGET, NI_AUTHOR, NI_REC, NI_NPARAMS };
enum { AI_TYPE, AI_TARGET, AI_USER, AI_REC, AI_NPARAMS };
enum { IT_ISSUE, IT_UPDATED, IT_NPARAMS };
enum {
	EI_PROJECT,
	EI_AUTHOR,
	EI_ACTION,
	EI_TYPE,
	EI_TARGET,
	EI_IID,
	EI_TITLE,
	EI_CREATED,
	EI_NPARAMS
};
enum {
	MI_PROJECT,
	MI_AUTHOR,
	MI_ASSIGNEE,
	MI_MILESTONE,
	MI_MERGE_USER,
	MI_SHA,
	MI_FORCE_REMOVE,
	MI_REC,
	MI_NOTES,
	MI_NPARAMS
};
enum { SI_PROJECT, SI_AUTHOR, SI_REC, SI_NOTES, SI_NPARAMS };
enum { PB_PROJECT, PB_PUSH, PB_MERGE, PB_REC, PB_NPARAMS };
enum { TI_PROJECT, TI_OWNER, TI_DIGEST, TI_SEALED, TI_REC, TI_NPARAMS };
enum { SC_PROJECT, SC_OWNER, SC_REC, SC_NPARAMS };
enum { SV_SCHEDULE, SV_KEY, SV_SEALED, SV_NPARAMS };
enum { PI_PROJECT, PI_USER, PI_STATUS, PI_REC, PI_NPARAMS };
enum { JI_PROJECT, JI_PIPELINE, JI_USER, JI_STATUS, JI_BUILD, JI_REC, JI_NPARAMS };
enum { BI_PROJECT, BI_REC, BI_NPARAMS };
enum { RI_PROJECT, RI_REC, RI_NPARAMS };
enum { VI_PROJECT, VI_KEY, VI_SEALED, VI_PROTECTED, VI_NPARAMS };

const db_stmt db_impexp_relations_stmts[] = {
	/* Import. Labels and milestones are found by title in the project or made (as
	 * 10.8's GroupProjectObjectBuilder): an issue's link names its label again. */
	{"impexp_label_find_or_create",
	 "WITH f AS (SELECT l.id FROM labels l, " REC(
		 "$2",
		 LABEL_FIELDS) " WHERE l.project_id = $1 AND l.title = r.title),"
			       " i AS (INSERT INTO labels (project_id, priority" LABEL_FIELDS(F_COL, "") ") SELECT $1::bigint, $3::int" LABEL_FIELDS(
				       F_IN,
				       "") " FROM " REC("$2",
							LABEL_FIELDS) " WHERE NOT EXISTS (SELECT 1 FROM f) RETURNING id)"
								      " SELECT id FROM f UNION ALL SELECT id FROM i",
	 LF_NPARAMS, 1},
	{"impexp_milestone_find_or_create",
	 "WITH f AS (SELECT m.id FROM milestones m, " REC(
		 "$2",
		 MILESTONE_FIELDS) " WHERE m.project_id = $1 AND m.title = r.title),"
				   " i AS (INSERT INTO milestones (project_id" MILESTONE_FIELDS(F_COL, "") ") SELECT $1::bigint" MILESTONE_FIELDS(
					   F_IN,
					   "") " FROM " REC("$2",
							    MILESTONE_FIELDS) " WHERE NOT EXISTS (SELECT 1 FROM f) RETURNING id)"
									      " SELECT id, false FROM f UNION ALL SELECT id, true FROM i",
	 MF_NPARAMS, MF_NCOLS},
	{"impexp_issue_insert",
	 "WITH i AS (INSERT INTO issues (project_id, author_id, milestone_id" ISSUE_FIELDS(F_COL, "") ") SELECT $1::bigint, $2::bigint, $3::bigint" ISSUE_FIELDS(
		 F_IN,
		 "") " FROM " REC("$4",
				  ISSUE_FIELDS) " RETURNING id, iid, title)" ASSIGNEES_CTE("$4")
		 LINKS_CTE("Issue", "$4") NOTES_CTE("Issue", "$4", "$5::boolean")
			 AWARDS_CTE("Issue", "$4") EVENTS_CTE("Issue", "$4") " SELECT id FROM i",
	 II_NPARAMS, 1},
	{"impexp_note_insert",
	 "INSERT INTO notes (project_id, noteable_type, noteable_id, author_id" NOTE_FIELDS(
		 F_COL,
		 "") ") SELECT $1::bigint, $2::text, $3::bigint, $4::bigint" NOTE_FIELDS(F_IN,
											 "") " FROM " REC("$5",
													  NOTE_FIELDS) " RETURNING id",
	 NI_NPARAMS, 1},
	/* two awards of one emoji by authors who both became the importing user are one */
	{"impexp_award_insert",
	 "INSERT INTO award_emoji (awardable_type, awardable_id, user_id" AWARD_FIELDS(
		 F_COL,
		 "") ") SELECT $1::text, $2::bigint, $3::bigint" AWARD_FIELDS(F_IN,
									      "") " FROM " REC("$4",
											       AWARD_FIELDS) " ON CONFLICT DO NOTHING",
	 AI_NPARAMS, 0},
	/* an event of a record (none for an action that is not a tracker record's) */
	{"impexp_event_insert",
	 "INSERT INTO events (project_id, author_id, action, action_name, target_type, target_id,"
	 " target_iid, target_title, created_at) SELECT $1::bigint, $2::bigint, ea.action, ea.name,"
	 " $4::text, $5::bigint, $6::bigint, $7::text, coalesce($8::timestamptz, now())"
	 " FROM " EVENT_ACTIONS " WHERE ea.code = $3::int",
	 EI_NPARAMS, 0},
	/* an issue's updated_at again after its notes (sql/0030's trigger touched it) */
	{"impexp_issue_touch",
	 "UPDATE issues SET updated_at = coalesce($2::timestamptz, updated_at) WHERE id = $1",
	 IT_NPARAMS, 0},
	/* the source is the project itself: a fork's branches come in as the project's */
	{"impexp_mr_insert",
	 "WITH i AS (INSERT INTO merge_requests (target_project_id, source_project_id, author_id,"
	 " assignee_id, milestone_id, merge_user_id, sha, force_remove_source_branch" MR_FIELDS(
		 F_COL,
		 "") ") SELECT $1::bigint, $1::bigint, $2::bigint, $3::bigint, $4::bigint,"
		     " $5::bigint, $6::text, coalesce($7::boolean, false)" MR_FIELDS(F_IN, "") " FROM " REC(
			     "$8", MR_FIELDS) " RETURNING id, iid, title)" LINKS_CTE("MergeRequest",
										     "$8")
			     NOTES_CTE("MergeRequest", "$8", "$9::boolean")
				     AWARDS_CTE("MergeRequest", "$8")
					     EVENTS_CTE("MergeRequest", "$8") " SELECT id FROM i",
	 MI_NPARAMS, 1},
	{"impexp_snippet_insert",
	 "WITH i AS (INSERT INTO snippets (project_id, author_id" SNIPPET_FIELDS(F_COL, "") ") SELECT $1::bigint, $2::bigint" SNIPPET_FIELDS(
		 F_IN,
		 "") " FROM " REC("$3",
				  SNIPPET_FIELDS) " RETURNING id, NULL::bigint AS iid, title)" NOTES_CTE("Snippet",
													 "$3",
													 "$4::boolean")
		 AWARDS_CTE("Snippet", "$3") " SELECT id FROM i",
	 SI_NPARAMS, 1},
	{"impexp_protected_branch_insert",
	 "INSERT INTO protected_branches (project_id, push_access_level, merge_access_level" PROTECTED_BRANCH_FIELDS(
		 F_COL, "") ") SELECT $1::bigint, coalesce($2::int, 40),"
			    " coalesce($3::int, 40)" PROTECTED_BRANCH_FIELDS(F_IN, "") " FROM " REC(
				    "$4", PROTECTED_BRANCH_FIELDS),
	 PB_NPARAMS, 0},
	{"impexp_trigger_insert",
	 "INSERT INTO ci_triggers (project_id, owner_id, token_digest, token_sealed" TRIGGER_FIELDS(
		 F_COL,
		 "") ") SELECT $1::bigint, $2::bigint, $3::text, $4::text" TRIGGER_FIELDS(F_IN,
											  "") " FROM " REC("$5",
													   TRIGGER_FIELDS),
	 TI_NPARAMS, 0},
	/* imported inactive, as 10.8 does: it runs when someone turns it on */
	{"impexp_schedule_insert",
	 "INSERT INTO ci_pipeline_schedules (project_id, owner_id, active" SCHEDULE_FIELDS(
		 F_COL,
		 "") ") SELECT $1::bigint, $2::bigint, false" SCHEDULE_FIELDS(F_IN,
									      "") " FROM " REC("$3",
											       SCHEDULE_FIELDS) " RETURNING id",
	 SC_NPARAMS, 1},
	{"impexp_schedule_variable",
	 "INSERT INTO ci_pipeline_schedule_variables (pipeline_schedule_id, key, value_sealed)"
	 " VALUES ($1::bigint, $2::text, $3::text)",
	 SV_NPARAMS, 0},
	/* a key as the variables API takes it: no row otherwise */
	{"impexp_variable_insert",
	 "INSERT INTO ci_variables (project_id, key, value_sealed, protected)"
	 " SELECT $1::bigint, $2::text, $3::text, coalesce($4::boolean, false)"
	 " WHERE $2::text ~ '^[A-Za-z0-9_]{1,255}$' RETURNING id",
	 VI_NPARAMS, 1},
	{"impexp_pipeline_insert",
	 "INSERT INTO ci_pipelines (project_id, user_id, status" PIPELINE_FIELDS(
		 F_COL,
		 "") ") SELECT $1::bigint, $2::bigint, $3::text" PIPELINE_FIELDS(F_IN,
										 "") " FROM " REC("$4",
												  PIPELINE_FIELDS) " RETURNING id",
	 PI_NPARAMS, 1},
	{"impexp_job_insert",
	 "WITH s AS (INSERT INTO commit_statuses (project_id, pipeline_id, author_id, status,"
	 " ref, sha" JOB_FIELDS(F_COL, "") ") SELECT $1::bigint, p.id, $3::bigint, $4::text, p.ref, p.sha" JOB_FIELDS(
		 F_IN,
		 "") " FROM ci_pipelines p, " REC("$6",
						  JOB_FIELDS) " WHERE p.id = $2 RETURNING id, project_id, pipeline_id),"
							      " b AS (INSERT INTO ci_builds (id, project_id, pipeline_id)"
							      " SELECT id, project_id, pipeline_id FROM s WHERE $5::boolean)"
							      " SELECT id FROM s",
	 JI_NPARAMS, 1},
	{"impexp_release_insert",
	 "INSERT INTO releases (project_id" RELEASE_FIELDS(
		 F_COL, "") ") SELECT $1::bigint" RELEASE_FIELDS(F_IN,
								 "") " FROM " REC("$2",
										  RELEASE_FIELDS),
	 RI_NPARAMS, 0},
	{"impexp_badge_insert",
	 "INSERT INTO badges (project_id" BADGE_FIELDS(
		 F_COL, "") ") SELECT $1::bigint" BADGE_FIELDS(F_IN, "") " FROM " REC("$2",
										      BADGE_FIELDS),
	 BI_NPARAMS, 0},

	/* Export, a page at a time. */
	{"impexp_labels_page",
	 "SELECT t.id, " LABEL_JSON("t") "::text" PAGE_OF("labels", "t", "project_id"), EX_NPARAMS,
	 EX_NCOLS},
	{"impexp_milestones_page",
	 "SELECT t.id, " MILESTONE_JSON("t") "::text" PAGE_OF("milestones", "t", "project_id"),
	 EX_NPARAMS, EX_NCOLS},
	{"impexp_issues_page",
	 "SELECT i.id, json_build_object('id', i.id, 'project_id', i.project_id, 'author_id',"
	 " i.author_id" ISSUE_FIELDS(
		 F_OUT,
		 "i") ", 'issue_assignees', (SELECT"
		      " coalesce(json_agg(json_build_object('user_id', s.user_id, 'issue_id', s.issue_id)"
		      " ORDER BY s.user_id), '[]') FROM issue_assignees s WHERE s.issue_id = i.id),"
		      " 'milestone', " MILESTONE_OF("i.milestone_id") ", 'label_links', " LABEL_LINKS_JSON("Issue", "i.id") ", 'notes', " NOTES_JSON(
			      "Issue",
			      "i.id") ", 'award_emoji', " AWARDS_JSON("Issue",
								      "i.id") ", 'events', " EVENTS_JSON("Issue",
													 "i.id") ")::text" PAGE_OF("issues",
																   "i",
																   "project_id"),
	 EX_NPARAMS, EX_NCOLS},
	{"impexp_merge_requests_page",
	 "SELECT i.id, json_build_object('id', i.id, 'target_project_id', i.target_project_id,"
	 " 'source_project_id', i.source_project_id, 'author_id', i.author_id, 'assignee_id',"
	 " i.assignee_id, 'merge_user_id', i.merge_user_id" MR_FIELDS(
		 F_OUT,
		 "i") ", 'merge_params', json_build_object('force_remove_source_branch',"
		      " i.force_remove_source_branch), 'diff_head_sha', i.sha, 'merge_request_diff',"
		      " json_build_object('merge_request_id', i.id, 'state', 'collected', 'head_commit_sha',"
		      " i.sha, 'merge_request_diff_commits', '[]'::json, 'merge_request_diff_files',"
		      " '[]'::json), 'milestone', " MILESTONE_OF("i.milestone_id") ", 'label_links', " LABEL_LINKS_JSON("MergeRequest", "i.id") ", 'notes', " NOTES_JSON(
			      "MergeRequest",
			      "i.id") ", 'award_emoji', " AWARDS_JSON("MergeRequest",
								      "i.id") ", 'events', " EVENTS_JSON("MergeRequest",
													 "i.id") ")::text" PAGE_OF("merge_requests",
																   "i",
																   "target_project_id"),
	 EX_NPARAMS, EX_NCOLS},
	{"impexp_snippets_page",
	 "SELECT i.id, json_build_object('id', i.id, 'project_id', i.project_id, 'author_id',"
	 " i.author_id" SNIPPET_FIELDS(F_OUT, "i") ", 'notes', " NOTES_JSON(
		 "Snippet",
		 "i.id") ", 'award_emoji', " AWARDS_JSON("Snippet",
							 "i.id") ")::text" PAGE_OF("snippets", "i",
										   "project_id"),
	 EX_NPARAMS, EX_NCOLS},
	{"impexp_protected_branches_page",
	 "SELECT t.id, json_build_object('id', t.id, 'project_id', t.project_id" PROTECTED_BRANCH_FIELDS(
		 F_OUT,
		 "t") ", 'merge_access_levels',"
		      " json_build_array(json_build_object('protected_branch_id', t.id, 'access_level',"
		      " t.merge_access_level)), 'push_access_levels',"
		      " json_build_array(json_build_object('protected_branch_id', t.id, 'access_level',"
		      " t.push_access_level)))::text" PAGE_OF("protected_branches", "t",
							      "project_id"),
	 EX_NPARAMS, EX_NCOLS},
	/* the token is opened in C and added as "token" */
	{"impexp_triggers_page",
	 "SELECT t.id, json_build_object('id', t.id, 'project_id', t.project_id, 'owner_id',"
	 " t.owner_id" TRIGGER_FIELDS(
		 F_OUT,
		 "t") ")::text, t.token_sealed"
		      " FROM ci_triggers t WHERE t.project_id = $1 AND t.id > $2 AND t.deleted_at IS NULL"
		      " ORDER BY t.id LIMIT $3",
	 EX_NPARAMS, EXS_NCOLS},
	/* the variables' values are opened in C */
	{"impexp_pipeline_schedules_page",
	 "SELECT t.id, json_build_object('id', t.id, 'project_id', t.project_id, 'owner_id',"
	 " t.owner_id" SCHEDULE_FIELDS(
		 F_OUT,
		 "t") ", 'active', t.active, 'next_run_at',"
		      " iso8601(t.next_run_at), 'variables', (SELECT coalesce(json_agg(json_build_object("
		      "'key', v.key, 'value', v.value_sealed) ORDER BY v.id), '[]')"
		      " FROM ci_pipeline_schedule_variables v WHERE v.pipeline_schedule_id = t.id))::text" PAGE_OF(
			      "ci_pipeline_schedules", "t", "project_id"),
	 EX_NPARAMS, EX_NCOLS},
	{"impexp_pipelines_page",
	 "SELECT t.id, json_build_object('id', t.id, 'project_id', t.project_id, 'user_id',"
	 " t.user_id, 'status', t.status" PIPELINE_FIELDS(
		 F_OUT,
		 "t") ", 'notes', '[]'::json,"
		      " 'statuses', (SELECT coalesce(json_agg(json_build_object('id', s.id, 'commit_id',"
		      " s.pipeline_id, 'project_id', s.project_id, 'user_id', s.author_id, 'status', s.status,"
		      " 'ref', s.ref, 'type', CASE WHEN b.id IS NULL THEN 'GenericCommitStatus'"
		      " ELSE 'Ci::Build' END, 'tag', b.tag" JOB_FIELDS(
			      F_OUT,
			      "s") ") ORDER BY s.id), '[]')"
				   " FROM commit_statuses s LEFT JOIN ci_builds b ON b.id = s.id"
				   " WHERE s.pipeline_id = t.id))::text" PAGE_OF("ci_pipelines",
										 "t", "project_id"),
	 EX_NPARAMS, EX_NCOLS},
	/* the value is opened in C and added as "value" */
	{"impexp_variables_page",
	 "SELECT t.id, json_build_object('id', t.id, 'project_id', t.project_id, 'key', t.key,"
	 " 'protected', t.protected)::text, t.value_sealed" PAGE_OF("ci_variables", "t",
								     "project_id"),
	 EX_NPARAMS, EXS_NCOLS},
	{"impexp_releases_page",
	 "SELECT t.id, json_build_object('id', t.id, 'project_id', t.project_id" RELEASE_FIELDS(
		 F_OUT, "t") ")::text" PAGE_OF("releases", "t", "project_id"),
	 EX_NPARAMS, EX_NCOLS},
	{"impexp_project_badges_page",
	 "SELECT t.id, json_build_object('id', t.id, 'project_id', t.project_id, 'type',"
	 " 'ProjectBadge'" BADGE_FIELDS(F_OUT, "t") ")::text" PAGE_OF("badges", "t", "project_id"),
	 EX_NPARAMS, EX_NCOLS},
	{NULL, NULL, 0, 0},
};

/* One record's import. */
typedef struct rel {
	ctx *c;      /* its arena is reset after each element of project.json */
	arena *keep; /* the import's: *why is written there */
	struct impexp_import *st;
	const char *project;
	const char **why;
} rel;

static int rel_open(rel *r, ctx *c, struct impexp_import *st, const char **why)
{
	r->c = c;
	r->keep = st->a;
	r->st = st;
	r->why = why;
	r->project = arena_printf(c->a, "%ld", st->project_id);
	return 0;
}

static int rel_close(rel *r, int rc)
{
	(void)r;
	return rc;
}

/* *why: "WHAT: REASON" (the caller's arena). -1. */
static int rel_fail(rel *r, const char *what, const char *reason)
{
	*r->why = arena_printf(r->keep, "%s: %s", what, reason);
	return -1;
}

/* The failure of a statement of what, by its error. */
static int rel_failed(rel *r, const char *what, int err)
{
	return rel_fail(r, what,
			err == ERR_CONFLICT  ? "duplicates another record"
			: err == ERR_INVALID ? "a value is invalid"
					     : "could not be stored");
}

/* Key k of o; NULL when absent or null. */
static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;
	return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, k, &v)
		       ? v
		       : NULL;
}

static const char *get_str(json_object *o, const char *k)
{
	json_object *v = get(o, k);
	return v ? json_object_get_string(v) : NULL;
}

/* An array under k, its length in *n (0 when absent); NULL when k holds anything else
 * than an array or null. */
static json_object *get_array(json_object *o, const char *k, size_t *n)
{
	json_object *v = get(o, k);
	*n = v && json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
	return !v || json_object_is_type(v, json_type_array) ? v : NULL;
}

static bool is_array_or_null(json_object *o, const char *k)
{
	json_object *v = get(o, k);
	return !v || json_object_is_type(v, json_type_array);
}

/* o as JSON text (r's arena). */
static const char *rec_text(rel *r, json_object *o)
{
	return arena_strdup(r->c->a, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
}

/* The collabd user of the exported user id under key k of o (the importing user when
 * none matches), as text. */
static const char *user_of(rel *r, json_object *o, const char *k, bool *matched)
{
	json_object *v = get(o, k);
	bool m = false;
	long id = impexp_user(r->st, v ? (long)json_object_get_int64(v) : 0, &m);
	if (matched)
		*matched = m;
	return arena_printf(r->c->a, "%ld", id);
}

/* The id a one-row, one-column statement answered. */
static const char *first_id(PGresult *res)
{
	return PQntuples(res) == 1 ? PQgetvalue(res, 0, 0) : NULL;
}

/* 10.8's states that we keep as another: reopened is open again */
static void normalize_state(json_object *rec)
{
	const char *state = get_str(rec, "state");
	if (state && strcmp(state, "reopened") == 0)
		json_object_object_add(rec, "state", json_object_new_string("opened"));
}

/* The events (array under "events" of rec) of TYPE id, iid and title as given. */
static int events_import(rel *r, json_object *rec, const char *type, const char *id,
			 const char *iid, const char *title)
{
	size_t n;
	json_object *events = get_array(rec, "events", &n);
	if (!is_array_or_null(rec, "events"))
		return rel_fail(r, type, "events is not a list");
	for (size_t i = 0; i < n; i++) {
		json_object *ev = json_object_array_get_idx(events, i);
		const char *action = get_str(ev, "action");
		if (!action)
			return rel_fail(r, arena_printf(r->keep, "%s event", type), "no action");
		const char *v[EI_NPARAMS] = {
			[EI_PROJECT] = r->project, [EI_AUTHOR] = user_of(r, ev, "author_id", NULL),
			[EI_ACTION] = action,      [EI_TYPE] = type,
			[EI_TARGET] = id,          [EI_IID] = iid,
			[EI_TITLE] = title,        [EI_CREATED] = get_str(ev, "created_at")};
		DB_PARAMS(v, EI_NPARAMS);
		int err;
		if (!db_query(r->c, "impexp_event_insert", EI_NPARAMS, v, &err))
			return rel_failed(r, arena_printf(r->keep, "%s event", type), err);
	}
	return 0;
}

/* Label rec (a top-level label or a link's), found by title in the project or made;
 * its id in *id. */
static int label_import(rel *r, json_object *rec, const char **id)
{
	const char *title = get_str(rec, "title");
	if (!title || !*title)
		return rel_fail(r, "label", "no title");
	const char *priority = NULL;
	size_t n;
	json_object *prio = get_array(rec, "priorities", &n);
	if (n > 0)
		priority = get_str(json_object_array_get_idx(prio, 0), "priority");
	const char *v[LF_NPARAMS] = {
		[LF_PROJECT] = r->project, [LF_REC] = rec_text(r, rec), [LF_PRIORITY] = priority};
	DB_PARAMS(v, LF_NPARAMS);
	int err;
	PGresult *res = db_query(r->c, "impexp_label_find_or_create", LF_NPARAMS, v, &err);
	if (!res)
		return rel_failed(r, arena_printf(r->keep, "label %s", title), err);
	*id = first_id(res);
	if (!*id)
		return rel_fail(r, "label", "not stored");
	json_object *exported = get(rec, "id");
	if (exported &&
	    impexp_map_put(r->st, "labels", (long)json_object_get_int64(exported), atol(*id)) < 0)
		return rel_fail(r, "label", "out of memory");
	return 0;
}

static int milestone_import(rel *r, json_object *rec, const char **id)
{
	const char *title = get_str(rec, "title");
	if (!title || !*title)
		return rel_fail(r, "milestone", "no title");
	if (!get(rec, "iid"))
		return rel_fail(r, arena_printf(r->keep, "milestone %s", title), "no iid");
	const char *v[MF_NPARAMS] = {[MF_PROJECT] = r->project, [MF_REC] = rec_text(r, rec)};
	DB_PARAMS(v, MF_NPARAMS);
	int err;
	PGresult *res = db_query(r->c, "impexp_milestone_find_or_create", MF_NPARAMS, v, &err);
	if (!res)
		return rel_failed(r, arena_printf(r->keep, "milestone %s", title), err);
	*id = first_id(res);
	if (!*id)
		return rel_fail(r, "milestone", "not stored");
	/* made now (not found): its events come with it, once */
	if (db_bool(res, 0, MF_MADE) &&
	    events_import(r, rec, "Milestone", *id, get_str(rec, "iid"), title) < 0)
		return -1;
	return 0;
}

/* The award emoji of awardable TYPE id (array under "award_emoji" of rec), one by one:
 * a note's, whose id the batch of its record's notes does not give. */
static int awards_import(rel *r, json_object *rec, const char *type, const char *id)
{
	size_t n;
	json_object *awards = get_array(rec, "award_emoji", &n);
	if (!is_array_or_null(rec, "award_emoji"))
		return rel_fail(r, type, "award_emoji is not a list");
	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(awards, i);
		const char *name = get_str(a, "name");
		if (!name || !*name)
			return rel_fail(r, type, "an award emoji without a name");
		const char *v[AI_NPARAMS] = {[AI_TYPE] = type,
					     [AI_TARGET] = id,
					     [AI_USER] = user_of(r, a, "user_id", NULL),
					     [AI_REC] = rec_text(r, a)};
		DB_PARAMS(v, AI_NPARAMS);
		int err;
		if (!db_query(r->c, "impexp_award_insert", AI_NPARAMS, v, &err))
			return rel_failed(r, arena_printf(r->keep, "award emoji %s", name), err);
	}
	return 0;
}

/* A note whose author is not matched says who wrote it, as 10.8's RelationFactory
 * (update_note_for_missing_author): "*Blank note*" for an empty one, and the date is
 * the note's updated_at to the second. */
static void note_credit(rel *r, json_object *note)
{
	const char *text = get_str(note, "note");
	const char *updated = get_str(note, "updated_at");
	const char *stamp = updated ? arena_strndup(r->c->a, updated, strcspn(updated, ".")) : NULL;
	const char *credited = impexp_by_author(r->c, text && *text ? text : "*Blank note*",
						get_str(get(note, "author"), "name"), stamp, false);
	json_object_object_add(note, "note", json_object_new_string(credited));
}

/* The elements of the list k of rec, each an object whose user under key uk becomes
 * ours (impexp_user), as the statement that inserts them reads it; what names the
 * record in a failure. */
static int map_users(rel *r, json_object *rec, const char *k, const char *uk, const char *what,
		     bool *unmatched)
{
	size_t n;
	json_object *list = get_array(rec, k, &n);
	if (!is_array_or_null(rec, k))
		return rel_fail(r, what, arena_printf(r->keep, "%s is not a list", k));
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(list, i);
		if (!e || !json_object_is_type(e, json_type_object))
			return rel_fail(r, what,
					arena_printf(r->keep, "an element of %s is not an object",
						     k));
		json_object *u = get(e, uk);
		bool matched = false;
		long id = impexp_user(r->st, u ? (long)json_object_get_int64(u) : 0, &matched);
		json_object_object_add(e, uk, json_object_new_int64(id));
		if (unmatched && !matched)
			json_object_object_add(e, "-unmatched", json_object_new_boolean(1));
	}
	return 0;
}

/* The award emoji and events of rec, ready for its insert. */
static int prepare_awards_events(rel *r, json_object *rec, const char *what)
{
	if (map_users(r, rec, "award_emoji", "user_id", what, NULL) < 0 ||
	    map_users(r, rec, "events", "author_id", what, NULL) < 0)
		return -1;
	size_t n;
	json_object *list = get_array(rec, "award_emoji", &n);
	for (size_t i = 0; i < n; i++) {
		const char *name = get_str(json_object_array_get_idx(list, i), "name");
		if (!name || !*name)
			return rel_fail(r, what, "an award emoji without a name");
	}
	list = get_array(rec, "events", &n);
	for (size_t i = 0; i < n; i++)
		if (!get(json_object_array_get_idx(list, i), "action"))
			return rel_fail(r, what, "an event without an action");
	return 0;
}

/* The notes of rec, ready for its insert: authors ours, the unmatched ones credited in
 * the text. *each: some note has award emoji, so they go one by one (notes_each). */
static int prepare_notes(rel *r, json_object *rec, const char *what, bool *each)
{
	*each = false;
	bool unmatched = true;
	if (map_users(r, rec, "notes", "author_id", what, &unmatched) < 0)
		return -1;
	size_t n;
	json_object *notes = get_array(rec, "notes", &n);
	for (size_t i = 0; i < n; i++) {
		json_object *note = json_object_array_get_idx(notes, i);
		if (get(note, "-unmatched")) {
			json_object_object_del(note, "-unmatched");
			note_credit(r, note);
		} else if (!get_str(note, "note")) {
			return rel_fail(r, what, "a note without text");
		}
		/* collabd's diff notes are anchored by path and line, 10.8's by a position
		 * we do not read: such a note comes in as a note of the discussion */
		const char *kind = get_str(note, "type");
		if (kind && strcmp(kind, "DiscussionNote") != 0)
			json_object_object_del(note, "type");
		size_t awards;
		get_array(note, "award_emoji", &awards);
		if (awards)
			*each = true;
	}
	return 0;
}

/* The notes of rec (prepare_notes made them ready) of noteable TYPE id, one by one,
 * with their award emoji. */
static int notes_each(rel *r, json_object *rec, const char *type, const char *id)
{
	size_t n;
	json_object *notes = get_array(rec, "notes", &n);
	for (size_t i = 0; i < n; i++) {
		json_object *note = json_object_array_get_idx(notes, i);
		const char *v[NI_NPARAMS] = {[NI_PROJECT] = r->project,
					     [NI_TYPE] = type,
					     [NI_TARGET] = id,
					     [NI_AUTHOR] = get_str(note, "author_id"),
					     [NI_REC] = rec_text(r, note)};
		DB_PARAMS(v, NI_NPARAMS);
		int err;
		PGresult *res = db_query(r->c, "impexp_note_insert", NI_NPARAMS, v, &err);
		if (!res)
			return rel_failed(r, "note", err);
		if (awards_import(r, note, "Note", first_id(res)) < 0)
			return -1;
	}
	return 0;
}

/* The label links of rec, ready for its insert: each names its label, which becomes
 * ours (found or made by title, once per exported label). */
static int prepare_links(rel *r, json_object *rec, const char *what)
{
	size_t n;
	json_object *links = get_array(rec, "label_links", &n);
	if (!is_array_or_null(rec, "label_links"))
		return rel_fail(r, what, "label_links is not a list");
	for (size_t i = 0; i < n; i++) {
		json_object *link = json_object_array_get_idx(links, i);
		json_object *label = get(link, "label");
		if (!label || !json_object_is_type(label, json_type_object))
			return rel_fail(r, arena_printf(r->keep, "%s: label link", what),
					"refers to no label");
		json_object *exported = get(label, "id");
		long id = exported ? impexp_map_get(r->st, "labels",
						    (long)json_object_get_int64(exported))
				   : 0;
		if (!id) {
			const char *made;
			if (label_import(r, label, &made) < 0)
				return -1;
			id = atol(made);
		}
		json_object_object_add(link, "label_id", json_object_new_int64(id));
	}
	return 0;
}

/* The milestone nested in rec (found by title or made), NULL for none. */
static int nested_milestone(rel *r, json_object *rec, const char **id)
{
	*id = NULL;
	json_object *m = get(rec, "milestone");
	if (!m)
		return 0;
	if (!json_object_is_type(m, json_type_object))
		return rel_fail(r, "milestone", "not an object");
	return milestone_import(r, m, id);
}

/* What every record with an iid and a title needs. */
static int require_iid_title(rel *r, json_object *rec, const char *what)
{
	json_object *iid = get(rec, "iid");
	if (!iid || json_object_get_int64(iid) <= 0)
		return rel_fail(r, what, "no iid");
	const char *title = get_str(rec, "title");
	if (!title || !*title)
		return rel_fail(r,
				arena_printf(r->keep, "%s %s", what, json_object_get_string(iid)),
				"no title");
	return 0;
}

int impexp_labels_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	const char *id;
	return rel_close(&r, label_import(&r, rec, &id));
}

int impexp_milestones_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	const char *id;
	return rel_close(&r, milestone_import(&r, rec, &id));
}

static int issue_import(rel *r, json_object *rec)
{
	if (require_iid_title(r, rec, "issue") < 0)
		return -1;
	const char *what = arena_printf(r->keep, "issue %s", get_str(rec, "iid"));
	const char *milestone;
	bool each;
	if (nested_milestone(r, rec, &milestone) < 0 ||
	    map_users(r, rec, "issue_assignees", "user_id", what, NULL) < 0 ||
	    prepare_links(r, rec, what) < 0 || prepare_notes(r, rec, what, &each) < 0 ||
	    prepare_awards_events(r, rec, what) < 0)
		return -1;
	normalize_state(rec);
	const char *v[II_NPARAMS] = {[II_PROJECT] = r->project,
				     [II_AUTHOR] = user_of(r, rec, "author_id", NULL),
				     [II_MILESTONE] = milestone,
				     [II_REC] = rec_text(r, rec),
				     [II_NOTES] = each ? "false" : "true"};
	DB_PARAMS(v, II_NPARAMS);
	int err;
	PGresult *res = db_query(r->c, "impexp_issue_insert", II_NPARAMS, v, &err);
	if (!res)
		return rel_failed(r, what, err);
	const char *id = first_id(res);
	if (each && notes_each(r, rec, "Issue", id) < 0)
		return -1;
	size_t notes;
	get_array(rec, "notes", &notes);
	if (notes) {
		const char *tv[IT_NPARAMS] = {
			[IT_ISSUE] = id, [IT_UPDATED] = get_str(rec, "updated_at")};
		DB_PARAMS(tv, IT_NPARAMS);
		if (!db_query(r->c, "impexp_issue_touch", IT_NPARAMS, tv, &err))
			return rel_failed(r, what, err);
	}
	return 0;
}

int impexp_issues_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	return rel_close(&r, issue_import(&r, rec));
}

/* The states and merge statuses we keep; 10.8 has a few more names for them. */
static const char *mr_merge_status(const char *s)
{
	if (s && (strcmp(s, "can_be_merged") == 0 || strcmp(s, "cannot_be_merged") == 0))
		return s;
	return "unchecked";
}

static int merge_request_import(rel *r, json_object *rec)
{
	if (require_iid_title(r, rec, "merge request") < 0)
		return -1;
	const char *what = arena_printf(r->keep, "merge request %s", get_str(rec, "iid"));
	if (!get_str(rec, "source_branch") || !get_str(rec, "target_branch"))
		return rel_fail(r, what, "no source or target branch");
	const char *milestone;
	bool each;
	if (nested_milestone(r, rec, &milestone) < 0 || prepare_links(r, rec, what) < 0 ||
	    prepare_notes(r, rec, what, &each) < 0 || prepare_awards_events(r, rec, what) < 0)
		return -1;
	normalize_state(rec);
	json_object_object_add(
		rec, "merge_status",
		json_object_new_string(mr_merge_status(get_str(rec, "merge_status"))));
	const char *sha = get_str(rec, "diff_head_sha");
	if (!sha)
		sha = get_str(get(rec, "merge_request_diff"), "head_commit_sha");
	const char *v[MI_NPARAMS] = {
		[MI_PROJECT] = r->project,
		[MI_AUTHOR] = user_of(r, rec, "author_id", NULL),
		[MI_ASSIGNEE] = get(rec, "assignee_id") ? user_of(r, rec, "assignee_id", NULL)
							: NULL,
		[MI_MILESTONE] = milestone,
		[MI_MERGE_USER] = get(rec, "merge_user_id") ? user_of(r, rec, "merge_user_id", NULL)
							    : NULL,
		[MI_SHA] = sha,
		[MI_FORCE_REMOVE] = get_str(get(rec, "merge_params"), "force_remove_source_branch"),
		[MI_REC] = rec_text(r, rec),
		[MI_NOTES] = each ? "false" : "true"};
	DB_PARAMS(v, MI_NPARAMS);
	int err;
	PGresult *res = db_query(r->c, "impexp_mr_insert", MI_NPARAMS, v, &err);
	if (!res)
		return rel_failed(r, what, err);
	if (each && notes_each(r, rec, "MergeRequest", first_id(res)) < 0)
		return -1;
	return 0;
}

int impexp_merge_requests_import(ctx *c, struct impexp_import *st, json_object *rec,
				 const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	return rel_close(&r, merge_request_import(&r, rec));
}

static int snippet_import(rel *r, json_object *rec)
{
	const char *title = get_str(rec, "title");
	if (!title || !*title)
		return rel_fail(r, "snippet", "no title");
	const char *what = arena_printf(r->keep, "snippet %s", title);
	bool each;
	if (prepare_notes(r, rec, what, &each) < 0 || prepare_awards_events(r, rec, what) < 0)
		return -1;
	const char *v[SI_NPARAMS] = {[SI_PROJECT] = r->project,
				     [SI_AUTHOR] = user_of(r, rec, "author_id", NULL),
				     [SI_REC] = rec_text(r, rec),
				     [SI_NOTES] = each ? "false" : "true"};
	DB_PARAMS(v, SI_NPARAMS);
	int err;
	PGresult *res = db_query(r->c, "impexp_snippet_insert", SI_NPARAMS, v, &err);
	if (!res)
		return rel_failed(r, what, err);
	if (each && notes_each(r, rec, "Snippet", first_id(res)) < 0)
		return -1;
	return 0;
}

int impexp_snippets_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	return rel_close(&r, snippet_import(&r, rec));
}

/* The access level of the first entry of the list k of rec (10.8 CE has one each). */
static const char *access_level(json_object *rec, const char *k)
{
	size_t n;
	json_object *levels = get_array(rec, k, &n);
	return n ? get_str(json_object_array_get_idx(levels, 0), "access_level") : NULL;
}

int impexp_protected_branches_import(ctx *c, struct impexp_import *st, json_object *rec,
				     const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	const char *name = get_str(rec, "name");
	if (!name || !*name)
		return rel_close(&r, rel_fail(&r, "protected branch", "no name"));
	const char *v[PB_NPARAMS] = {[PB_PROJECT] = r.project,
				     [PB_PUSH] = access_level(rec, "push_access_levels"),
				     [PB_MERGE] = access_level(rec, "merge_access_levels"),
				     [PB_REC] = rec_text(&r, rec)};
	DB_PARAMS(v, PB_NPARAMS);
	int err;
	if (!db_query(r.c, "impexp_protected_branch_insert", PB_NPARAMS, v, &err))
		return rel_close(
			&r, rel_failed(&r, arena_printf(r.keep, "protected branch %s", name), err));
	return rel_close(&r, 0);
}

/* collabd keeps no protected tags (no table, no rule on tag pushes): 10.8's records are
 * read and left, so that an export that has them still comes in. */
int impexp_protected_tags_import(ctx *c, struct impexp_import *st, json_object *rec,
				 const char **why)
{
	(void)c;
	(void)st;
	(void)why;
	(void)rec;
	return 0;
}

int impexp_protected_tags_export(ctx *c, struct impexp_export *st, const char **why)
{
	(void)c;
	(void)st;
	(void)why;
	return 0;
}

/* A trigger gets a new token, as 10.8 (RelationFactory's reset of tokens): the exported
 * one still works on the instance it came from. */
int impexp_triggers_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	char token[TOKEN_LEN + 1];
	const char *sealed;
	if (crypto_token_sealed(r.c->a, c->key, token, &sealed) < 0)
		return rel_close(&r, rel_fail(&r, "trigger", "no token could be made"));
	const char *v[TI_NPARAMS] = {[TI_PROJECT] = r.project,
				     [TI_OWNER] = user_of(&r, rec, "owner_id", NULL),
				     [TI_DIGEST] = crypto_sha256_hex(r.c->a, token, strlen(token)),
				     [TI_SEALED] = sealed,
				     [TI_REC] = rec_text(&r, rec)};
	DB_PARAMS(v, TI_NPARAMS);
	int err;
	if (!db_query(r.c, "impexp_trigger_insert", TI_NPARAMS, v, &err))
		return rel_close(&r, rel_failed(&r, "trigger", err));
	return rel_close(&r, 0);
}

static int schedule_import(rel *r, json_object *rec)
{
	const char *ref = get_str(rec, "ref"), *cron = get_str(rec, "cron");
	if (!ref || !*ref || !cron || !*cron)
		return rel_fail(r, "pipeline schedule", "no ref or cron");
	const char *v[SC_NPARAMS] = {[SC_PROJECT] = r->project,
				     [SC_OWNER] = user_of(r, rec, "owner_id", NULL),
				     [SC_REC] = rec_text(r, rec)};
	DB_PARAMS(v, SC_NPARAMS);
	int err;
	PGresult *res = db_query(r->c, "impexp_schedule_insert", SC_NPARAMS, v, &err);
	if (!res)
		return rel_failed(r, "pipeline schedule", err);
	const char *id = first_id(res);
	size_t n;
	json_object *vars = get_array(rec, "variables", &n);
	if (!is_array_or_null(rec, "variables"))
		return rel_fail(r, "pipeline schedule", "variables is not a list");
	for (size_t i = 0; i < n; i++) {
		json_object *var = json_object_array_get_idx(vars, i);
		const char *key = get_str(var, "key"), *value = get_str(var, "value");
		if (!key || !*key)
			return rel_fail(r, "pipeline schedule variable", "no key");
		const char *sealed = crypto_seal(r->c->a, r->c->key, value ? value : "");
		if (!sealed)
			return rel_fail(r, "pipeline schedule variable", "could not be sealed");
		const char *sv[SV_NPARAMS] = {
			[SV_SCHEDULE] = id, [SV_KEY] = key, [SV_SEALED] = sealed};
		DB_PARAMS(sv, SV_NPARAMS);
		if (!db_query(r->c, "impexp_schedule_variable", SV_NPARAMS, sv, &err))
			return rel_failed(
				r, arena_printf(r->keep, "pipeline schedule variable %s", key),
				err);
	}
	return 0;
}

int impexp_schedules_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	return rel_close(&r, schedule_import(&r, rec));
}

/* Pipelines and jobs come in as history: what was still to run or running when the
 * export was made will not run here, it is canceled. */
static const char *history_status(const char *s)
{
	static const char *const done[] = {"success", "failed", "canceled", "skipped", "manual"};
	for (size_t i = 0; s && i < sizeof(done) / sizeof(done[0]); i++)
		if (strcmp(s, done[i]) == 0)
			return done[i];
	return "canceled";
}

static int pipeline_import(rel *r, json_object *rec)
{
	const char *ref = get_str(rec, "ref"), *sha = get_str(rec, "sha");
	if (!ref || !*ref || !sha || !*sha)
		return rel_fail(r, "pipeline", "no ref or sha");
	const char *source = get_str(rec, "source");
	static const char *const sources[] = {"push",    "web",      "api",
					      "trigger", "schedule", "external"};
	bool known = !source;
	for (size_t i = 0; source && i < sizeof(sources) / sizeof(sources[0]); i++)
		known = known || strcmp(source, sources[i]) == 0;
	if (!known) /* a source of later releases */
		json_object_object_add(rec, "source", json_object_new_string("external"));
	const char *v[PI_NPARAMS] = {[PI_PROJECT] = r->project,
				     [PI_USER] = user_of(r, rec, "user_id", NULL),
				     [PI_STATUS] = history_status(get_str(rec, "status")),
				     [PI_REC] = rec_text(r, rec)};
	DB_PARAMS(v, PI_NPARAMS);
	int err;
	PGresult *res = db_query(r->c, "impexp_pipeline_insert", PI_NPARAMS, v, &err);
	if (!res)
		return rel_failed(r, "pipeline", err);
	const char *id = first_id(res);
	size_t n;
	json_object *statuses = get_array(rec, "statuses", &n);
	if (!is_array_or_null(rec, "statuses"))
		return rel_fail(r, "pipeline", "statuses is not a list");
	for (size_t i = 0; i < n; i++) {
		json_object *job = json_object_array_get_idx(statuses, i);
		const char *name = get_str(job, "name");
		if (!name || !*name)
			return rel_fail(r, "pipeline job", "no name");
		const char *type = get_str(job, "type");
		const char *when = get_str(job, "when");
		if (when && strcmp(when, "on_success") != 0 && strcmp(when, "on_failure") != 0 &&
		    strcmp(when, "always") != 0 && strcmp(when, "manual") != 0)
			json_object_object_del(job, "when");
		const char *jv[JI_NPARAMS] = {
			[JI_PROJECT] = r->project,
			[JI_PIPELINE] = id,
			[JI_USER] = user_of(r, job, "user_id", NULL),
			[JI_STATUS] = history_status(get_str(job, "status")),
			[JI_BUILD] = !type || strcmp(type, "Ci::Build") == 0 ? "true" : "false",
			[JI_REC] = rec_text(r, job)};
		DB_PARAMS(jv, JI_NPARAMS);
		if (!db_query(r->c, "impexp_job_insert", JI_NPARAMS, jv, &err))
			return rel_failed(r, arena_printf(r->keep, "pipeline job %s", name), err);
	}
	return 0;
}

int impexp_pipelines_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	return rel_close(&r, pipeline_import(&r, rec));
}

int impexp_badges_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	if (!get_str(rec, "link_url") || !get_str(rec, "image_url"))
		return rel_close(&r, rel_fail(&r, "project badge", "no link_url or image_url"));
	const char *v[BI_NPARAMS] = {[BI_PROJECT] = r.project, [BI_REC] = rec_text(&r, rec)};
	DB_PARAMS(v, BI_NPARAMS);
	int err;
	if (!db_query(r.c, "impexp_badge_insert", BI_NPARAMS, v, &err))
		return rel_close(&r, rel_failed(&r, "project badge", err));
	return rel_close(&r, 0);
}

/* Release notes of tags (their tags come with the repository). */
int impexp_releases_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	const char *tag = get_str(rec, "tag");
	if (!tag || !*tag)
		return rel_close(&r, rel_fail(&r, "release", "no tag"));
	const char *v[RI_NPARAMS] = {[RI_PROJECT] = r.project, [RI_REC] = rec_text(&r, rec)};
	DB_PARAMS(v, RI_NPARAMS);
	int err;
	if (!db_query(r.c, "impexp_release_insert", RI_NPARAMS, v, &err))
		return rel_close(&r, rel_failed(&r, arena_printf(r.keep, "release %s", tag), err));
	return rel_close(&r, 0);
}

/* Export. */

/* What an export adds to a record in C (a secret opened), from the row of its page. */
typedef int (*export_fix)(ctx *c, json_object *rec, PGresult *res, int row);

/* The records of stmt's pages, each emitted. */
static int export_pages(ctx *c, struct impexp_export *st, const char *stmt, export_fix fix,
			const char **why)
{
	char project[24], after[24] = "0", limit[8];
	snprintf(project, sizeof(project), "%ld", st->project_id);
	snprintf(limit, sizeof(limit), "%d", PAGE_SIZE);
	for (;;) {
		ctx pc = *c;
		pc.a = arena_new();
		if (!pc.a) {
			*why = "out of memory";
			return -1;
		}
		const char *v[EX_NPARAMS] = {
			[EX_PROJECT] = project, [EX_AFTER] = after, [EX_LIMIT] = limit};
		DB_PARAMS(v, EX_NPARAMS);
		int err, rc = 0;
		PGresult *res = db_query(&pc, stmt, EX_NPARAMS, v, &err);
		int n = res ? PQntuples(res) : 0;
		if (!res) {
			*why = arena_printf(st->a, "%s: the records could not be read", stmt);
			rc = -1;
		}
		for (int i = 0; rc == 0 && i < n; i++) {
			json_object *rec = json_tokener_parse(PQgetvalue(res, i, EX_JSON));
			if (!rec || (fix && fix(&pc, rec, res, i) < 0)) {
				*why = arena_printf(st->a, "%s: a record could not be written",
						    stmt);
				rc = -1;
				json_object_put(rec);
			} else if (impexp_emit(st, rec) < 0) { /* rec is freed */
				*why = "the export could not be written";
				rc = -1;
			}
		}
		if (n > 0)
			snprintf(after, sizeof(after), "%s", PQgetvalue(res, n - 1, EX_ID));
		arena_destroy(pc.a);
		if (rc < 0 || n < PAGE_SIZE)
			return rc;
	}
}

int impexp_labels_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_labels_page", NULL, why);
}

int impexp_milestones_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_milestones_page", NULL, why);
}

int impexp_issues_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_issues_page", NULL, why);
}

int impexp_merge_requests_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_merge_requests_page", NULL, why);
}

int impexp_snippets_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_snippets_page", NULL, why);
}

int impexp_protected_branches_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_protected_branches_page", NULL, why);
}

/* 10.8 writes a trigger's token. */
static int trigger_token(ctx *c, json_object *rec, PGresult *res, int row)
{
	const char *token = crypto_open(c->a, c->key, PQgetvalue(res, row, EXS_SEALED));
	if (!token)
		return -1;
	json_object_object_add(rec, "token", json_object_new_string(token));
	return 0;
}

int impexp_triggers_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_triggers_page", trigger_token, why);
}

/* The variables' values, sealed in the page, in the clear as the export holds them. */
static int schedule_values(ctx *c, json_object *rec, PGresult *res, int row)
{
	(void)res;
	(void)row;
	size_t n;
	json_object *vars = get_array(rec, "variables", &n);
	for (size_t i = 0; i < n; i++) {
		json_object *var = json_object_array_get_idx(vars, i);
		const char *value = crypto_open(c->a, c->key, get_str(var, "value"));
		if (!value)
			return -1;
		json_object_object_add(var, "value", json_object_new_string(value));
	}
	return 0;
}

int impexp_schedules_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_pipeline_schedules_page", schedule_values, why);
}

int impexp_pipelines_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_pipelines_page", NULL, why);
}

int impexp_releases_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_releases_page", NULL, why);
}

int impexp_badges_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_project_badges_page", NULL, why);
}

/* Custom attributes (db/custom_attributes.h): key and value; their ids, owner and dates
 * are the exporting instance's. A project has few, so they are read in one list. */
int impexp_custom_attributes_import(ctx *c, struct impexp_import *st, json_object *rec,
				    const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	const char *key = get_str(rec, "key"), *value = get_str(rec, "value");
	if (!key || !value || !db_custom_attribute_valid(key, value))
		return rel_close(&r, rel_fail(&r, "custom attribute", "no valid key and value"));
	PGresult *res;
	int err = db_custom_attributes_set(c, CA_PROJECT, r.project, key, value, &res);
	if (err < 0)
		return rel_close(&r, rel_failed(&r, arena_printf(r.keep, "custom attribute %s", key),
						 err));
	return rel_close(&r, 0);
}

int impexp_custom_attributes_export(ctx *c, struct impexp_export *st, const char **why)
{
	PGresult *res;
	char ids[32];
	snprintf(ids, sizeof(ids), "{%ld}", st->project_id);
	if (db_custom_attributes_of(c, CA_PROJECT, ids, &res) < 0) {
		*why = "custom_attributes: the records could not be read";
		return -1;
	}
	for (int i = 0; i < PQntuples(res); i++) {
		json_object *rec = json_object_new_object();
		json_object_object_add(rec, "key",
				       json_object_new_string(PQgetvalue(res, i, CAO_KEY)));
		json_object_object_add(rec, "value",
				       json_object_new_string(PQgetvalue(res, i, CAO_VALUE)));
		if (impexp_emit(st, rec) < 0) {
			*why = "custom_attributes: project.json cannot be written";
			return -1;
		}
	}
	return 0;
}

/* CI variables: 10.8's export has none (its tree leaves them out); collabd's carries them,
 * as their masters may read them anyway, so that its own export comes back whole. The
 * value is sealed here as the variables API seals it. */
int impexp_variables_import(ctx *c, struct impexp_import *st, json_object *rec, const char **why)
{
	rel r;
	if (rel_open(&r, c, st, why) < 0)
		return -1;
	const char *key = get_str(rec, "key"), *value = get_str(rec, "value");
	if (!key || !value)
		return rel_close(&r, rel_fail(&r, "variable", "no key or value"));
	const char *sealed = crypto_seal(r.c->a, r.c->key, value);
	if (!sealed)
		return rel_close(&r, rel_fail(&r, "variable", "could not be sealed"));
	const char *v[VI_NPARAMS] = {
		[VI_PROJECT] = r.project,
		[VI_KEY] = key,
		[VI_SEALED] = sealed,
		[VI_PROTECTED] = impexp_bool(rec, "protected", false) ? "true" : "false"};
	DB_PARAMS(v, VI_NPARAMS);
	int err;
	PGresult *res = db_query(r.c, "impexp_variable_insert", VI_NPARAMS, v, &err);
	const char *what = arena_printf(r.keep, "variable %s", key);
	if (!res)
		return rel_close(&r, rel_failed(&r, what, err));
	if (PQntuples(res) != 1)
		return rel_close(&r, rel_fail(&r, what, "the key is invalid"));
	return rel_close(&r, 0);
}

static int variable_value(ctx *c, json_object *rec, PGresult *res, int row)
{
	const char *value = crypto_open(c->a, c->key, PQgetvalue(res, row, EXS_SEALED));
	if (!value)
		return -1;
	json_object_object_add(rec, "value", json_object_new_string(value));
	return 0;
}

int impexp_variables_export(ctx *c, struct impexp_export *st, const char **why)
{
	return export_pages(c, st, "impexp_variables_page", variable_value, why);
}
