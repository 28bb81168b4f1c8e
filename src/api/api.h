/* What the API's modules (src/api/<name>.c, listed once in Makefile.am's API_MODULES)
 * share: each defines its routes (<name>_routes, http/router.h) and its statements
 * (<name>_stmts), found through the generated src/api/modules.def; the functions below
 * are the few that one module calls in another. */
#ifndef COLLABD_API_H
#define COLLABD_API_H

#include "auth/access.h"
#include "auth/scope.h"
#include "core/crypto.h"
#include "db/custom_attributes.h"
#include "db/db.h"
#include "entity/project.h"
#include "http/pagination.h"
#include "http/request.h"
#include "http/router.h"

/* The GitLab version collabd answers as (GET /version; the jobs' CI_SERVER_VERSION). */
#define API_VERSION "10.0.0-collabd"

/* Shorthands of the modules' route tables (http/router.h). */
#define V4 "/api/v4"
#define AUTH ROUTE_AUTH
#define ADMIN (ROUTE_AUTH | ROUTE_ADMIN)
#define RU ROUTE_READ_USER
#define TX ROUTE_TX
/* :id is a project (a group) found before the handler; W: in the route's transaction,
 * the project (group) locked */
#define PR ROUTE_PROJECT
#define PW (ROUTE_PROJECT | ROUTE_TX)
#define GR ROUTE_GROUP
#define GW (ROUTE_GROUP | ROUTE_TX)
/* The same as PW with the project locked FOR KEY SHARE: routes that only add or change
 * rows under the project (notes), which need it to stay, not to stay the same */
#define PA (ROUTE_PROJECT | ROUTE_TX | ROUTE_KEY_SHARE)
/* A reading route of a project that presents no user by reference (the repository's,
 * the pipelines'): its authentication skips the users' epoch */
#define PRN (ROUTE_PROJECT | ROUTE_NO_USER_REFS)

/* A presenter of one record whose columns start at col. */
typedef json_object *(*presenter_fn)(ctx *c, const PGresult *res, int row, int col);

/* events.c: events are written in the same transaction as the action that causes
 * them. action is the filter value (created, joined, left, ...), action_name what the
 * API shows; project_id and the target columns may be NULL. */
int events_record(request *r, const char *project_id, const char *author_id, const char *action,
		  const char *action_name, const char *target_type, const char *target_id,
		  const char *target_iid, const char *target_title);
/* The same with data: a JSON object whose members the event record shows besides its
 * own (the note of a comment, push_data), or NULL. */
int events_record_data(request *r, const char *project_id, const char *author_id,
		       const char *action, const char *action_name, const char *target_type,
		       const char *target_id, const char *target_iid, const char *target_title,
		       const char *data);

/* projects.c (4.1 and the project operations of GitLab 10.0) */
/* A page of the projects the caller may see, with every filter, sort and view of
 * GET /projects; limited to the personal projects of user (an id or username; 404 User
 * Not Found when there is none) or to the projects of group_id (an id: its own projects
 * and those shared with it) when not NULL. */
int projects_list_scoped(request *r, const char *user, const char *group_id);
/* What the project records of rows [0, n) of res (PROJECT_COLS at col; a row without a
 * project has NULL there) leave out, fetched in at most two statements for the projects
 * that have it (the links read from the record when it has them, PROJECT_SHARED_LINKS):
 * x[i] gets row i's fork source and shared_with_groups (caller NULL);
 * shared_level[i], when shared_level is not NULL, the level those links give r's
 * caller. */
int projects_extras(request *r, const PGresult *res, int n, int col, project_extra *x,
		    int *shared_level);

/* POST /projects/import (project_import.c): creates, as the caller, in the route's
 * transaction, the project path (named name; NULL: path) in namespace ns_ref (an id or a
 * path; NULL: the caller's own), private, with import_status "scheduled" and an empty
 * repository. When path is taken and overwrite is set, the project is made under a free
 * temporary path and *replaces names the project whose place it takes once imported
 * (else NULL). 0 with *id; 1 when it answered (GitLab 10.8's 400 with the first
 * validation message, 404 Namespace Not Found); or an ERR_ code. */
int projects_create_import(request *r, const char *ns_ref, const char *name, const char *path,
			   bool overwrite, const char **id, const char **replaces);

/* tag_list as GitLab's taggable reads it (a project's, a runner's): an array or a
 * comma-separated string, the tags trimmed, without empty ones and repeats (case aside),
 * as a JSON array text in *out (NULL when absent). 0, or ERR_INVALID past 1,000 tags or
 * 255 characters. */
int projects_read_tag_list(request *r, const char **out);

/* groups.c (4.2) */
/* Removes the groups that user_id owns alone (no other direct owner), with their
 * subgroups and projects, inside the caller's transaction (hard deletion of a user). */
int groups_delete_solely_owned(request *r, const char *user_id);

/* commits.c: what the repository content modules (commits.c, files.c) share. Reading
 * code: reporter and up on a private project, anyone who sees a public or internal one
 * (content_read: 0 or ERR_FORBIDDEN). Writing: developer and up (content_can_push),
 * and on a protected branch the level branch_push_level() names (*out false: GitLab's
 * 400 "You are not allowed to push into this branch"). content_write makes the commit of
 * req (the committer is the caller): 0 with *out, 1 when it answered GitLab's 400, or
 * an ERR_ code. */
struct git_repository;
struct git_commit;
struct gitc_commit_req;
bool content_can_read(request *r);
int content_read(request *r);
int content_can_push(request *r);
int content_may_push_branch(request *r, const char *branch, bool *out);
/* What a repository read depends on in the response cache: the project (its row,
 * members and links: the caller's access), its namespace, and its refs and protected
 * branches (CACHE_KEY_REPOSITORY). content_repo declares it. */
void content_depend(request *r);
int content_repo(request *r, struct git_repository **out);
/* GitLab 10's RepoCommitDetail of commit c: the record, its stats and its status. */
int commits_detail_json(request *r, struct git_repository *repo, struct git_commit *c,
			json_object **out);
int content_committer(request *r, const char **name, const char **email);
void content_error(request *r, int status, const char *message);
int content_write(request *r, struct git_repository *repo, struct gitc_commit_req *req,
		  struct git_commit **out);

/* branches.c: GET /projects/:id/repository/branches and /tags: the route's project's
 * branches or tags (tags true) that contain search (NULL: all), a page of them in the
 * order of git/refs.h's refs_page presented by present (which adds n records of names to
 * out), with the pagination headers; ERR_FORBIDDEN to whom may not read the code. */
typedef int (*refs_present_fn)(request *r, struct git_repository *repo, const char *const *names,
			       int n, struct json_object *out);
int branches_list_refs(request *r, bool tags, const char *search, refs_present_fn present);

/* members.c: project and group members; access_requests.c (4.11). Each handler serves
 * both /projects/:id/... and /groups/:id/...: the route's scope (r->project or
 * r->group) is the source. */
/* The parameter check of the member routes with :user_id (route.check). */
int members_check_user(request *r);

/* The project or group whose members a route is about, with the caller's access. */
typedef struct {
	bool project;            /* else a group */
	const char *source_type; /* members.source_type: "Project" or "Namespace" */
	const char *id;          /* the project's or group's id */
	const char *ns_owner_id; /* a personal project's namespace owner, else NULL */
	int visibility;
	bool request_access_enabled;
	project_access pa; /* when project */
	group_access ga;   /* when a group */
} member_source;
/* The route's scope as a member source. */
void member_source_of(request *r, member_source *out);
/* The caller may add, update and approve members of s (masters of a project, owners of
 * a group, admins). */
bool member_source_can_admin(const member_source *s);
/* A new and a former project member: the joined/left event GitLab 10 records (author:
 * the member; none for groups, nor for the namespace owner of a personal project). */
int member_source_event(request *r, const member_source *s, const char *user_id, bool joined);
/* The integer path parameter :user_id in its canonical text ("007" is "7"): 0, or
 * ERR_MISSING/ERR_INVALID. */
int member_user_id(request *r, const char **out);
/* member_user_id and member_source_of together: 0, or ERR_MISSING/ERR_INVALID. */
int member_target(request *r, const char **user_id, member_source *s);
/* access_level for s: 0 with *out, 1 when absent, ERR_INVALID when not an integer,
 * ERR_VALIDATION when not a level of the scope (owner is for groups only). */
int member_access_level(request *r, const member_source *s, const char **out);

/* notes.c: the records that notes and award emoji hang on (issues, project snippets,
 * merge requests), found as GitLab 10 finds them for both; award_emoji.c shares them. */
typedef struct noteable_kind {
	const char *type;  /* notes.noteable_type: "Issue", "Snippet", "MergeRequest" */
	const char *param; /* its path parameter: issue_iid, snippet_id, merge_request_iid */
	const char *stmt;  /* the statement that finds it */
} noteable_kind;
extern const noteable_kind noteable_issue, noteable_snippet, noteable_merge_request;

typedef struct {
	const char *type; /* as its kind's */
	const char *id;
	const char *iid;       /* an issue's; NULL for a snippet */
	const char *author_id; /* NULL when the author's account is gone */
	bool readable;         /* the caller may read it, its notes and its award emoji */
	bool locked;           /* its discussion is locked: members only may comment */
} noteable;

/* The route's noteable of kind k in r->project (the path's k->param): 0 with *out; 1
 * when it answered GitLab's 404 "404 Not found" (none, or, unless unreadable, none that
 * the caller may read); or an ERR_ code. */
int noteable_find(request *r, const noteable_kind *k, bool unreadable, noteable *out);
/* Note :note_id of n, NOTE_COLS (entity/note.h) in row 0 of *out: 0, 1 when it answered
 * "404 Not found", or an ERR_ code. */
int noteable_note(request *r, const noteable *n, PGresult **out);
/* The route check of the integer path ids of notes and award emoji (400 "x is
 * invalid"). */
int notes_check_ids(request *r);
/* What notes.c and discussions.c share. note_caller_is: user_id is the caller's.
 * note_project_member: a member of the route's project, of any level (or its
 * namespace's owner, or admin). note_body_problem: what GitLab's Note validations say
 * of body, NULL when it is a valid one. note_locked_out: 0, or ERR_FORBIDDEN when n's
 * discussion is locked to the caller (IssuablePolicy: members only comment).
 * note_may_change: GitLab's admin_note of note row 0 of res (its author, masters and
 * up): 0 or ERR_FORBIDDEN. note_edit: note id of n takes the body parameter, and its
 * event follows; the note as written in *note: 0, 1 when answered (400), or an ERR_
 * code. note_delete: removes note id of n and answers 204: 0 or an ERR_ code. */
bool note_caller_is(request *r, const char *user_id);
bool note_project_member(request *r);
const char *note_body_problem(const char *body);
int note_locked_out(request *r, const noteable *n);
int note_may_change(request *r, const PGresult *res);
int note_edit(request *r, const noteable *n, const char *id, jw *note);
int note_delete(request *r, const noteable *n, const char *id);

/* award_emoji.c: awards name (GitLab's own or an alias) from the caller to the record
 * type/id (authored by author_id): answers 201 with the award, or GitLab's 404 "404
 * <what> {:name=>[...]} Not Found" when name is no emoji or the caller awarded it
 * already. Returns 0 or an ERR_ code. */
int award_emoji_create(request *r, const char *type, const char *id, const char *name,
		       const char *what);
/* Whether the caller may award name to a record that author_id wrote: anything, but no
 * thumbsup or thumbsdown to their own (GitLab's Awardable#user_can_award?). */
bool award_emoji_allowed(request *r, const char *author_id, const char *name);
/* issues.c: a page of the issues the caller sees, with the filters of the issue lists,
 * of project_id or of group_id (with its subgroups; neither: every project), default
 * scope default_scope, with milestone milestone_title when not NULL (a milestone's
 * issues, milestones.c). */
int issues_list_page(request *r, const char *project_id, const char *group_id,
		     const char *default_scope, const char *milestone_title);
/* merge_requests.c (4.6): a page of the merge requests the caller sees, with the
 * filters of the merge request lists, of project_id or of group_id (with its
 * subgroups; neither: every project), default scope default_scope, with milestone
 * milestone_title when not NULL (a milestone's merge requests, milestones.c). */
int merge_requests_list_page(request *r, const char *project_id, const char *group_id,
			     const char *default_scope, const char *milestone_title);
/* The background process's part of a `push` job ({project_id, ref, before, after,
 * user_id}, git/hooks.c) and of a `merge_request_check` job ({merge_request_id}): the
 * open requests from or into the pushed branch (or the one named) get their source
 * head sha and their merge_status (can_be_merged / cannot_be_merged, from an in-memory
 * merge). 0, or -1 with *why. */
struct json_object;
int merge_requests_on_push(ctx *c, struct json_object *payload, const char **why);
int merge_requests_on_check(ctx *c, struct json_object *payload, const char **why);
/* labels.c (4.8) */
/* Makes sure project_id may use a label of each title of titles (a text[] literal): its
 * own, or its groups'; the project's own made with GitLab's default color for the titles
 * that have none, as issue and merge request create and edit do. 0 with the labels' ids
 * in *ids (a bigint[] literal, in the order of titles) unless ids is NULL, or
 * ERR_CONFLICT when another request made one at the same moment. The titles are the
 * caller's to validate. */
int labels_ensure(request *r, const char *project_id, const char *titles, const char **ids);

/* users.c: the writable attributes of a user as text (NULL: not given), for POST and PUT
 * /users and `collabd user-create`. password is the plain one; users_check fills
 * password_hash from it. */
typedef struct user_input {
	const char *username, *email, *name, *password, *password_hash, *skype, *linkedin, *twitter,
		*website_url, *organization, *projects_limit, *bio, *location, *admin,
		*can_create_group, *external, *extern_uid, *provider;
	bool reset_password;
	const char *avatar, *avatar_type; /* uploaded file and the image type of its bytes */
	size_t avatar_len;
} user_input;
/* Where the rules of a user's fields report what a field breaks, in GitLab's words
 * (field "email", message "is invalid"): a request's validation body, the command
 * line's stderr. */
typedef void user_problem_fn(void *arg, const char *field, const char *message);
/* The rules of a user's name, username, email and password (create: a password or
 * reset_password is required), as POST /users applies them; the password hashed into
 * in->password_hash. 0; ERR_VALIDATION when a field broke one (each told to problem);
 * ERR_INVALID (c->err_detail the message) without a password; ERR_INTERNAL. */
int users_check(ctx *c, user_input *in, bool create, user_problem_fn *problem, void *arg);
/* Creates the user of in (checked by users_check), with their namespace, identity,
 * avatar and private token, in c's open transaction, confirmed or not: 0 with the id in
 * *id; ERR_CONFLICT with c->err_detail GitLab's message ("Email has already been
 * taken") or NULL; ERR_VALIDATION told to problem (an identity taken); or an ERR_ code. */
int users_insert(ctx *c, const user_input *in, bool confirmed, user_problem_fn *problem, void *arg,
		 const char **id);

/* tokens.c: the rules of a token's scopes (api, read_user; each kept once), name (at
 * most 255 characters) and expires_at (a date), as the token endpoints apply them, and
 * its row: a token of kind (personal, impersonation) for user uid, in c's transaction.
 * 0 with the row (TOKEN_COLS) in *res and the secret, shown this once, in token;
 * ERR_MISSING or ERR_INVALID (c->err_detail as the API words it), ERR_VALIDATION told
 * to problem, ERR_NOT_FOUND ("User"), or an ERR_ code. */
int tokens_insert(ctx *c, const char *uid, const char *name, const char *const *scopes, int n,
		  const char *expires, const char *kind, user_problem_fn *problem, void *arg,
		  PGresult **res, char token[TOKEN_LEN + 1]);

/* runner.c: the instance's shared runners registration token (ci_settings), made on
 * first use; 0 with it in c's arena, or an ERR_ code. */
int runner_registration_token(ctx *c, const char **out);

/* variables.c (4.4): the rules of a CI variable's key (GitLab's HasVariable: present, at
 * most 255 characters, [A-Za-z0-9_]), left in r's validation; pipeline schedule
 * variables follow them too. */
void variables_validate_key(request *r, const char *key);
/* Creates the variable of the request's key (checked as above) and value (sealed with
 * the instance key) with stmt, whose n parameters v are the owner's id, the key and the
 * sealed value (v[1] and v[2], set here), then any others; answers 201 with it
 * (present), or the 400 "has already been taken" when stmt made no row. 0 or an ERR_
 * code. */
int variables_insert(request *r, const char *stmt, const char **v, int n, presenter_fn present);
/* The route's project has its jobs on (jobs_enabled): 0, or ERR_FORBIDDEN as GitLab 10's
 * ProjectPolicy, which takes the build and pipeline schedule abilities (variables,
 * triggers, schedules) away from everyone when they are off. */
int ci_jobs_enabled(request *r);

/* user_snippets.c: the user agent detail (GitLab 10.8's UserAgentDetail) of a record
 * that a request created, type 'Issue' or 'Snippet' with id: the request's User-Agent
 * and client address (nginx's REMOTE_ADDR), kept when it has both, in the request's
 * transaction; 0 or an ERR_ code. user_agent_respond answers the detail at col of row 0
 * of res (entity/snippet.h USER_AGENT_DETAIL_COLS), or 404 UserAgentDetail when none
 * was recorded. */
int user_agent_record(request *r, const char *type, const char *id);
int user_agent_respond(request *r, const PGresult *res, int col);

/* keys.c: what the routes of a user's records (SSH keys, emails.c's addresses) share.
 * user_records_for: runs fn for the user of :id (the admins' routes). user_records_list:
 * a page of stmt ($1 user id, $2 limit, $3 offset; no row when there is no such user:
 * 404 User). user_records_show_mine: the caller's record of path parameter path_param (stmt:
 * $1 it, $2 the caller; none: 404 what). 0 or an ERR_ code. */
int user_records_for(request *r, int (*fn)(request *r, const char *user_id));
int user_records_list(request *r, const char *stmt, const char *user_id, presenter_fn present);
int user_records_show_mine(request *r, const char *stmt, const char *path_param, const char *what,
			   presenter_fn present);

/* snippets.c: what the project snippets (project true) and the personal ones
 * (user_snippets.c) share. The content is code or content for a project snippet
 * (GitLab 10 and later releases), content for a personal one.
 * snippet_input: the attributes of a create or update, the Snippet model's validations
 * left in r (title present and at most 255 characters, file_name at most 255), the
 * visibility as its level (NULL when not given); ERR_INVALID for a visibility that is
 * none of the three. snippet_check_create, snippet_check_update: the routes' checks of
 * what is required. snippet_respond_raw: the content at col of row 0 of res as text.
 * snippet_insert: a snippet of project (NULL: a personal one) by the caller, with its
 * user agent detail; its id in *id. snippet_update: snippet id's attributes, NULL the
 * ones kept, the description when given. snippet_delete: removes it and answers 204.
 * 0 or an ERR_ code. */
int snippet_input(request *r, bool project, const char **title, const char **file_name,
		  const char **content, const char **visibility);
int snippet_check_create(request *r, bool project);
int snippet_check_update(request *r, bool project);
void snippet_respond_raw(request *r, const PGresult *res, int col);
int snippet_insert(request *r, const char *project, const char *title, const char *file_name,
		   const char *content, const char *visibility, const char **id);
int snippet_update(request *r, const char *id, const char *title, const char *file_name,
		   const char *content, const char *visibility);
int snippet_delete(request *r, const char *id);

/* settings.c: GitLab 10.8's Gitlab::VisibilityLevel.allowed_for? for a project, group
 * or snippet of visibility level (enum visibility) that a user (an admin when admin)
 * creates or changes to: an admin may use any level, others none of
 * restricted_visibility_levels (db/settings.h). Leaves 10.8's message in r's validation
 * ("visibility_level") when the level is restricted; whether it is. */
bool settings_refuse_visibility(request *r, bool admin, int level);
/* The caller is an admin (after sudo: the user it names). */
#define API_CALLER_ADMIN(r) ((r)->ctx.user && (r)->ctx.user->admin)

/* hooks.c: the system events of GitLab 10.8 (SystemHooksService), queued for every
 * system hook in c's open transaction, from the record's row as it is at the call:
 * after a creation, before a deletion. 0 or an ERR_ code (nothing is read when there
 * is no system hook). */
/* project_create, project_destroy; project_rename and project_transfer with old_path, the
 * project's former path_with_namespace (NULL for the others) */
int hooks_system_project(ctx *c, const char *event, const char *project_id, const char *old_path);
/* user_create, user_destroy */
int hooks_system_user(ctx *c, const char *event, const char *user_id);
/* group_create, group_destroy */
int hooks_system_group(ctx *c, const char *event, const char *group_id);
/* user_add_to_team / user_remove_from_team (project), user_add_to_group /
 * user_remove_from_group: the membership of user_id in source_id */
int hooks_system_member(ctx *c, bool project, bool added, const char *source_id,
			const char *user_id);
/* key_create, key_destroy (a user's SSH key) */
int hooks_system_key(ctx *c, const char *event, const char *key_id);

/* hooks.c: the project events of GitLab 10.8's webhooks, queued in r's transaction for
 * the hooks of the route's project that want them, by the caller. 0 or an ERR_ code. */
/* a wiki page created, updated or deleted (action create, update, delete) */
int hooks_wiki_page(request *r, const char *action, const char *title, const char *slug,
		    const char *format, const char *content, size_t len, const char *message);
/* issue issue_id opened, closed, reopened or updated (action open, close, reopen, update):
 * a confidential one to the hooks with confidential_issues_events */
int hooks_issue(request *r, const char *issue_id, const char *action);
/* a comment note_id on noteable_type noteable_id (sent for the issues' that are not
 * confidential) */
int hooks_note(request *r, const char *note_id, const char *noteable_type, const char *noteable_id);
/* merge request mr_id (of the route's project, its target) opened, updated, closed,
 * reopened or merged (action open, update, close, reopen, merge); old: its columns
 * before an update (from hooks_merge_request_before) for the event's changes, or NULL */
int hooks_merge_request(request *r, const char *mr_id, const char *action, const PGresult *old);
/* The same of project_id's request by user_id outside a request (a push to its source
 * branch: action update with oldrev, the branch's head before, as 10.8's RefreshService). */
int hooks_merge_request_as(ctx *c, const char *project_id, const char *user_id, const char *mr_id,
			   const char *action, const PGresult *old, const char *oldrev);
/* The columns of merge request mr_id before an update, in *old when a hook wants its
 * event (else NULL). 0 or an ERR_ code. */
int hooks_merge_request_before(request *r, const char *mr_id, PGresult **old);

/* custom_attributes.c: what the lists and records of users, groups and projects share
 * for admins (anyone else's parameters are ignored, as 10.8's).
 * custom_attributes_filter: custom_attributes[KEY]=VALUE as a jsonb object text (every
 * pair must match), NULL when none is sent or the caller is no admin.
 * custom_attributes_wanted: with_custom_attributes=true from an admin.
 * custom_attributes_for: the attributes of owners ids[0..n) (NULL: none) as JSON array
 * texts in *out. custom_attributes_add: the custom_attributes member of owner id added
 * to o. custom_attributes_respond_page: api_respond_page with the member added to each
 * record, whose owner's id is column id_col of the record. 0 or an ERR_ code. */
int custom_attributes_filter(request *r, const char **out);
int custom_attributes_wanted(request *r, bool *out);
int custom_attributes_for(request *r, ca_owner kind, const char *const *ids, int n,
			  const char ***out);
int custom_attributes_add(request *r, ca_owner kind, const char *id, json_object *o);
int custom_attributes_respond_page(request *r, const page_req *pg, const PGresult *res,
				   presenter_fn present, ca_owner kind, int id_col);

/* Answers a page of a list statement: column 0 of every row is the total, the record
 * starts at column 1 (a row whose column 1 is NULL is the empty page's placeholder). */
void api_respond_page(request *r, const page_req *pg, const PGresult *res, presenter_fn present);
/* A writer of one record whose columns start at col (core/jw.h: straight into the
 * response, no json-c tree). */
typedef void (*writer_fn)(jw *w, ctx *c, const PGresult *res, int row, int col);
/* api_respond_page with a writer; bytes_per_row sizes the buffer to start with. */
void api_respond_page_jw(request *r, const page_req *pg, const PGresult *res, writer_fn write,
			 size_t bytes_per_row);

/* Answers status with the record of row whose columns start at col, written by write. */
void api_respond_record(request *r, int status, writer_fn write, const PGresult *res, int row,
			int col);

/* GitLab's render_api_error!(message, status): {"message": message} with that status,
 * answered by the handler, which returns 0 (the dispatcher rolls back any answer of 400
 * and up). */
int api_error(request *r, int status, const char *message);

/* db_query for a handler whose route has a prefetch (http/router.h): the prefetched
 * result when it is exactly this statement with these parameters (then used once),
 * else the statement run now. */
PGresult *api_query(request *r, const char *stmt, int n, const char *const *values, int *err);

/* Makes p the project the request is about (r->project), whose path the presenters put
 * in the URLs of its records (ctx's project_ns and project_path). */
void api_set_project(request *r, struct project_scope *p);

/* Shared by handlers: an integer path/body id, ERR_INVALID ("name is invalid") when it
 * is not one. */
int api_id(request *r, const char *name, const char **out);

/* The caller's user id as text, in r's arena (routes with authentication). */
const char *api_caller_id(request *r);

/* Runs stmt for one record: 0 with the result in *out when it has a row; when it has
 * none, GitLab's "404 what Not Found" (ERR_NOT_FOUND), or with what NULL the 404 "404 Not
 * found" of a record GitLab 10 finds with find (RecordNotFound), answered, and 1; or an
 * ERR_ code. */
int api_find(request *r, const char *stmt, int n, const char *const *values, const char *what,
	     PGresult **out);

/* Runs the list statement stmt (the shape api_respond_page reads) and answers the page
 * pg of it: 0 or an ERR_ code. */
int api_page(request *r, const page_req *pg, const char *stmt, int n, const char *const *values,
	     presenter_fn present);

/* project_import.c: the background jobs of db/jobs.def PROJECT_IMPORT and PROJECT_EXPORT
 * (db/jobs.def's signature). */
int project_import_run(ctx *c, json_object *payload, const char **why);
int project_export_run(ctx *c, json_object *payload, const char **why);

/* Whether r->project's repository and wiki may be written (not while `collabd
 * move-storage` moves them: 403 with GitLab 10.8's words, git/repo.h): 0 or the failure
 * to return. */
int api_repo_writable(request *r);

#endif
