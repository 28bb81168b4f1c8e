/* Git over SSH. sshd asks `collabd authorized-keys TYPE KEY` (AuthorizedKeysCommand with
 * %t %k) whom a key belongs to, and runs the forced command it answers,
 * `collabd shell key-<id>`, for every session of that key (a user's key, or a deploy
 * key: sql/0044, which reaches only the projects it is enabled on, auth/access.h's
 * can_git_deploy_key). The shell accepts only
 * git-upload-pack and git-receive-pack of a project's full path, or of its wiki's
 * ('<full path>.wiki.git', auth/scope.h), as git sends it in SSH_ORIGINAL_COMMAND,
 * finds the project with the key's user as the caller (the same scope and access rules
 * as the API and git over HTTP: auth/scope.c, auth/access.c) and runs git on the
 * repository stored by the project's id, with the environment the hooks read (GL_ID,
 * GL_PROJECT, core.hooksPath: hook.h). No shell ever sees what the client sent.
 * contrib/sshd/collabd.conf shows sshd's side. */
#ifndef COLLABD_SHELL_H
#define COLLABD_SHELL_H

#include <stdbool.h>
#include <stdio.h>

#include "core/ctx.h"
#include "db/db.h"

extern const db_stmt shell_stmts[];

/* The authorized_keys line of the key of that type and base64 blob (as sshd's %t and %k
 * give them) when it is an active user's: the forced command runs `command` (the
 * collabd binary and its configuration, already a shell word list) with
 * `shell key-<id>`. 0 with the line written to out, 1 when no active user has this
 * key and it is no deploy key, -1 on a database error. */
int shell_authorized_key(ctx *c, const char *command, const char *type, const char *b64, FILE *out);

/* What a session may run: the program, the repository and the environment of the
 * hooks. Strings in the ctx's arena. */
typedef struct {
	const char *program;   /* "git-upload-pack" or "git-receive-pack" */
	const char *repo;      /* absolute path of the repository */
	const char *gl_id;     /* user-<id>, or key-<id> for a deploy key */
	const char *project;   /* the project's id */
	const char *hooks_dir; /* <storage>/hooks */
} shell_plan;

/* Decides the session of key_arg ("key-<id>") that asks for command (the client's
 * SSH_ORIGINAL_COMMAND, NULL for an interactive login): 0 and *out when it may run,
 * 1 when it is refused (the reason written to err), -1 on a database error. */
int shell_decide(ctx *c, const char *key_arg, const char *command, FILE *err, shell_plan *out);
/* Runs the plan in place of this process (execve with only the environment git and the
 * hooks need, GIT_PROTOCOL kept when it is a valid one). Returns only when that fails. */
int shell_exec(const shell_plan *plan);

/* Splits command ("git-upload-pack '/group/project.git'", the argument quoted as git
 * quotes it, or bare when it has no character a shell would read) into the program and
 * the project's full path (leading '/' and trailing ".git" removed): 0, or -1 when it
 * is not such a command or the path is not a plain one (empty, ".", ".." or empty
 * segments, control characters, no namespace). *push tells receive-pack. */
int shell_parse_command(arena *a, const char *command, const char **program, const char **path,
			bool *push);

/* `collabd authorized-keys TYPE KEY` (argv[0] is "authorized-keys"), sshd's
 * AuthorizedKeysCommand with %t %k: the line of a known key, whose forced command runs
 * this binary with this configuration; nothing for any other key. Both connect with
 * the program's statements. The exit status: 0,
 * or 1 when it cannot tell (sshd then refuses the key). */
int shell_authorized_keys_main(const db_stmt *const *statements, const char *cfg_path, int argc,
			       char **argv);
/* `collabd shell key-ID` (argv[0] is "shell"), the forced command of that line: runs
 * git for the key's user in place of this process when the client asked for a
 * repository they may use, else says why not on stderr and exits 1. */
int shell_main(const db_stmt *const *statements, const char *cfg_path, int argc, char **argv);

#endif
