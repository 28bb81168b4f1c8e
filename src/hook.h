/* The server-side git hooks of every repository: `collabd hook pre-receive` and
 * `collabd hook post-receive`, which the hook scripts that `collabd serve` writes under
 * <storage>/hooks run (git finds them through core.hooksPath, which nginx's git
 * location passes to git-http-backend, and the SSH shell sets). The push's caller and
 * project come from the environment that collabd's answer to the access question set
 * (GL_ID=user-<id>, or key-<id> for a deploy key, GL_PROJECT=<id>); the ref updates
 * from standard input, one
 * "old new ref" per line. A hook that runs in the project's wiki (<h>.wiki.git) checks
 * the wiki's write access only and records nothing but the project's activity. What a
 * push records is git/hooks.h's, shared with the API's own ref updates. */
#ifndef COLLABD_HOOK_H
#define COLLABD_HOOK_H

#include <stdio.h>

#include "core/config.h"
#include "core/ctx.h"
#include "db/db.h"

extern const db_stmt hook_stmts[];

/* Protected branches: only those the protection allows push to them, nobody deletes
 * one or pushes to it what is not a fast-forward; a deploy key pushes only where it is
 * enabled with can_push, and to no protected branch (auth/access.h). 0 when every update may go, 1 when
 * one may not (the reason written to err, which git shows the client), -1 on error. */
int hook_pre_receive(ctx *c, const char *gl_id, const char *project_id, FILE *in, FILE *err);
/* After the refs moved, in one transaction: what git/hooks.h records (hooks_record), or
 * for a wiki only the activity. 0 or -1. */
int hook_post_receive(ctx *c, const char *gl_id, const char *project_id, FILE *in);
/* Writes the hook scripts (pre-receive, post-receive) under <storage>/hooks, running
 * the collabd binary exe with configuration cfg_path (NULL: the default). 0 or -1. */
int hook_install(const config *cfg, const char *exe, const char *cfg_path);

/* `collabd hook pre-receive|post-receive` (argv[0] is "hook"), its connection made
 * with the program's statements: the exit status. A refused push exits 1 with the
 * reason on stderr. */
int hook_main(const db_stmt *const *statements, const char *cfg_path, int argc, char **argv);

#endif
