/* Presenter of a git commit as GitLab 10's Entities::RepoCommit: id, short_id (11
 * characters, GitLab 10's id[0..10]), title (the first line of the message, shortened as GitLab's Commit#title
 * when 100 characters or more), created_at (the committer's date), parent_ids, message,
 * author_name, author_email, authored_date, committer_name, committer_email,
 * committed_date. Dates keep the signature's own offset, as Rails showed them:
 * "2012-05-28T04:42:42.000-07:00". Used by the branch, tag, commit and file APIs. */
#ifndef COLLABD_ENTITY_COMMIT_H
#define COLLABD_ENTITY_COMMIT_H

#include <git2.h>

#include "core/ctx.h"
#include <json-c/json.h>

/* The record of commit (borrowed; strings copied into the JSON). */
json_object *entity_commit(ctx *c, const git_commit *commit);
/* The same record, kept by this process as text and handed out as an object that
 * prints as it: for a response that only prints it (a list, a branch), never one that
 * adds to it or reads its fields. */
json_object *entity_commit_kept(ctx *c, const git_commit *commit);
/* That text itself (respond_json's form of entity_commit's record), a copy in c's arena,
 * its length in *len: for a presenter that writes JSON directly (core/jw). */
const char *entity_commit_text(ctx *c, const git_commit *commit, size_t *len);
/* A git time in GitLab 10's JSON form, in c's arena. */
const char *entity_git_time(ctx *c, const git_time *t);
/* GitLab's Commit#title of message (NULL or empty: "--no commit message"), in c's arena. */
const char *entity_commit_title(ctx *c, const char *message);
/* Commit#full_title: the whole first line of message ("--no commit message" when it is
 * blank), in c's arena (or static). */
const char *entity_commit_full_title(ctx *c, const char *message);
/* Commit#description: message without its first line and one line end at its end, or
 * the whole message when the first line has 100 characters or more; NULL when message has
 * a single line. In c's arena, or message itself. */
const char *entity_commit_description(ctx *c, const char *message);

#endif
