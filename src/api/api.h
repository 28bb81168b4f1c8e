/* Every handler of the route table, and the statement tables of the API modules. */
#ifndef COLLABD_API_H
#define COLLABD_API_H

#include "db/db.h"
#include "http/pagination.h"
#include "http/request.h"

/* users.c */
extern const db_stmt users_stmts[];
int users_list(request *r);
int users_show(request *r);
int users_create(request *r);
int users_update(request *r);
int users_delete(request *r);
int users_block(request *r);
int users_unblock(request *r);
int user_current(request *r);

/* keys.c */
extern const db_stmt keys_stmts[];
int keys_list_mine(request *r);
int keys_list_user(request *r);
int keys_show_mine(request *r);
int keys_create_mine(request *r);
int keys_create_user(request *r);
int keys_delete_mine(request *r);
int keys_delete_user(request *r);

/* tokens.c: impersonation tokens and the OAuth token endpoint */
extern const db_stmt tokens_stmts[];
int impersonation_tokens_list(request *r);
int impersonation_tokens_show(request *r);
int impersonation_tokens_create(request *r);
int impersonation_tokens_revoke(request *r);
int oauth_token(request *r);
/* Shared by impersonation tokens and the command line's personal access tokens. */
int tokens_create(request *r, const char *kind);

/* broadcast_messages.c */
extern const db_stmt broadcast_stmts[];
int broadcast_messages_list(request *r);
int broadcast_messages_show(request *r);
int broadcast_messages_create(request *r);
int broadcast_messages_update(request *r);
int broadcast_messages_delete(request *r);

/* events.c */
extern const db_stmt events_stmts[];
int events_list_mine(request *r);
int events_list_user(request *r);

/* events.c: events are written in the same transaction as the action that causes
 * them. action is the filter value (created, joined, left, ...), action_name what the
 * API shows; project_id and the target columns may be NULL. */
int events_record(request *r, const char *project_id, const char *author_id, const char *action,
		  const char *action_name, const char *target_type, const char *target_id,
		  const char *target_iid, const char *target_title);
int events_list_project(request *r);

/* projects.c (4.1 and the project operations of GitLab 10.0) */
extern const db_stmt projects_stmts[];

/* groups.c (4.2), namespaces */
extern const db_stmt groups_stmts[];

/* members.c: project and group members; access_requests.c (4.11) */
extern const db_stmt members_stmts[];
extern const db_stmt access_requests_stmts[];

/* notification_settings.c (4.13) */
extern const db_stmt notification_settings_stmts[];

/* version.c */
int version_show(request *r);

/* A presenter of one record whose columns start at col. */
typedef json_object *(*presenter_fn)(request *r, const PGresult *res, int row, int col);
/* Answers a page of a list statement: column 0 of every row is the total, the record
 * starts at column 1 (a row whose column 1 is NULL is the empty page's placeholder). */
void api_respond_page(request *r, const page_req *pg, const PGresult *res, presenter_fn present);

/* Shared by handlers: an integer path/body id, ERR_INVALID ("name is invalid") when it
 * is not one. */
int api_id(request *r, const char *name, const char **out);

#endif
