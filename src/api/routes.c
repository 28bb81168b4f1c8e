/* The route table: one line per endpoint, in the order of the spec. The dispatcher
 * (worker.c) enforces the flags before a handler runs; HEAD is served by GET routes. */
#include "api/api.h"
#include "http/router.h"

#define V4 "/api/v4"
#define AUTH ROUTE_AUTH
#define ADMIN (ROUTE_AUTH | ROUTE_ADMIN)
#define RU ROUTE_READ_USER

const route routes[] = {
	/* 4.1 Projects and the project operations of GitLab 10.0 (projects.c) */

	/* 4.2 Groups (groups.c), namespaces */

	/* Project and group members (members.c) */

	/* 4.3 Users and SSH keys */
	{"GET", V4 "/users", users_list, AUTH | RU},
	{"GET", V4 "/users/:id", users_show, AUTH | RU | ROUTE_SELF_AUTH},
	{"POST", V4 "/users", users_create, ADMIN},
	{"PUT", V4 "/users/:id", users_update, ADMIN},
	{"DELETE", V4 "/users/:id", users_delete, ADMIN},
	{"GET", V4 "/user", user_current, AUTH | RU},
	{"GET", V4 "/user/keys", keys_list_mine, AUTH | RU},
	{"GET", V4 "/users/:id/keys", keys_list_user, ADMIN | RU},
	{"GET", V4 "/user/keys/:key_id", keys_show_mine, AUTH | RU},
	{"POST", V4 "/user/keys", keys_create_mine, AUTH},
	{"POST", V4 "/users/:id/keys", keys_create_user, ADMIN},
	{"DELETE", V4 "/user/keys/:key_id", keys_delete_mine, AUTH},
	{"DELETE", V4 "/users/:id/keys/:key_id", keys_delete_user, ADMIN},
	{"GET", V4 "/users/:id/events", events_list_user, AUTH | RU},
	{"POST", V4 "/users/:id/block", users_block, ADMIN},
	{"POST", V4 "/users/:id/unblock", users_unblock, ADMIN},
	{"GET", V4 "/users/:user_id/impersonation_tokens", impersonation_tokens_list, ADMIN},
	{"POST", V4 "/users/:user_id/impersonation_tokens", impersonation_tokens_create, ADMIN},
	{"GET", V4 "/users/:user_id/impersonation_tokens/:impersonation_token_id",
	 impersonation_tokens_show, ADMIN},
	{"DELETE", V4 "/users/:user_id/impersonation_tokens/:impersonation_token_id",
	 impersonation_tokens_revoke, ADMIN},

	/* 4.4 Broadcast messages */
	{"GET", V4 "/broadcast_messages", broadcast_messages_list, ADMIN},
	{"GET", V4 "/broadcast_messages/:id", broadcast_messages_show, ADMIN},
	{"POST", V4 "/broadcast_messages", broadcast_messages_create, ADMIN},
	{"PUT", V4 "/broadcast_messages/:id", broadcast_messages_update, ADMIN},
	{"DELETE", V4 "/broadcast_messages/:id", broadcast_messages_delete, ADMIN},

	/* 4.11 Access requests (access_requests.c) */

	/* 4.13 Notification settings (notification_settings.c) */

	/* 4.14 Activity events */
	{"GET", V4 "/events", events_list_mine, AUTH},

	/* Version and OAuth */
	{"GET", V4 "/version", version_show, AUTH},
	{"POST", "/oauth/token", oauth_token, ROUTE_NO_AUTH},
};

const size_t routes_count = sizeof(routes) / sizeof(routes[0]);
