/* The command line's administration commands: migrate, keygen, user-create,
 * token-create, private-token, runners-token, statements, routes, version. Each works through
 * the same functions as the API (ctx-level: users_check/users_insert, tokens_insert,
 * runner_registration_token), never through a request. */
#ifndef COLLABD_CLI_H
#define COLLABD_CLI_H

#include <stdbool.h>

/* Runs the command argv[0] (argc words) with the configuration cfg_path: its exit
 * status; *known false (and nothing done) when argv[0] is none of these commands. */
int cli_main(const char *cfg_path, int argc, char **argv, bool *known);

#endif
