/* The server-side git hooks of every repository: `collabd hook pre-receive` and
 * `collabd hook post-receive`, which the hook scripts that `collabd serve` writes under
 * <storage>/hooks run (git finds them through core.hooksPath, which nginx's git
 * location passes to git-http-backend). The push's caller and project come from the
 * environment that collabd's answer to the access question set (GL_ID=user-<id>,
 * GL_PROJECT=<id>); the ref updates from standard input, one "old new ref" per line.
 * A hook that runs in the project's wiki (<h>.wiki.git) checks the wiki's write access
 * only and records nothing but the project's activity. */
#ifndef COLLABD_HOOKS_H
#define COLLABD_HOOKS_H

#include <git2.h>
#include <stdio.h>

#include "core/ctx.h"
#include "db/db.h"

struct project_scope;

extern const db_stmt hooks_stmts[];

/* Protected branches: only those the protection allows push to them, nobody deletes
 * one or pushes to it what is not a fast-forward. 0 when every update may go, 1 when
 * one may not (the reason written to err, which git shows the client), -1 on error. */
int hook_pre_receive(ctx *c, const char *gl_id, const char *project_id, FILE *in, FILE *err);
/* After the refs moved, in one transaction: the project's default branch set by its
 * first push (and HEAD), last_activity_at, a push event per ref (pushed to, pushed new,
 * deleted, with push_data), and a `push` background job per ref for CI. 0 or -1. */
int hook_post_receive(ctx *c, const char *gl_id, const char *project_id, FILE *in);
/* What a push of ref (refs/heads/..., refs/tags/...) from old to new (NULL: none)
 * records, for a ref the API moved as c->user in the caller's transaction: as
 * post-receive (default branch, event, `push` job, activity). 0 or an error code. */
int hooks_pushed(ctx *c, git_repository *repo, const struct project_scope *p, const char *ref,
		 const git_oid *old, const git_oid *new);
/* Records, in c's open transaction, that the refs of project_id's repository changed
 * (a push, a branch or tag made or removed): what the response cache's repository
 * reads depend on (sql/0023). hooks_pushed and post-receive call it. 0 or an error code. */
int hooks_refs_changed(ctx *c, const char *project_id);
/* Writes the hook scripts (pre-receive, post-receive) under <storage>/hooks, running
 * the collabd binary exe with configuration cfg_path (NULL: the default). 0 or -1. */
int hooks_install(const config *cfg, const char *exe, const char *cfg_path);

#endif
