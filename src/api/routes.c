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
	{"GET", V4 "/projects", projects_list, ROUTE_PUBLIC | ROUTE_CACHE},
	{"GET", V4 "/users/:user_id/projects", projects_list_user, ROUTE_PUBLIC | ROUTE_CACHE},
	{"GET", V4 "/projects/:id", projects_show, ROUTE_PUBLIC | ROUTE_SELF_AUTH | ROUTE_CACHE},
	{"POST", V4 "/projects", projects_create, AUTH},
	{"POST", V4 "/projects/user/:user_id", projects_create_for_user, ADMIN},
	{"PUT", V4 "/projects/:id", projects_update, AUTH},
	{"DELETE", V4 "/projects/:id", projects_delete, AUTH},
	{"POST", V4 "/projects/:id/fork", projects_fork, AUTH},
	{"POST", V4 "/projects/:id/star", projects_star, AUTH},
	{"POST", V4 "/projects/:id/unstar", projects_unstar, AUTH},
	{"POST", V4 "/projects/:id/archive", projects_archive, AUTH},
	{"POST", V4 "/projects/:id/unarchive", projects_unarchive, AUTH},

	/* 4.2 Groups (groups.c), namespaces (namespaces.c) */
	{"GET", V4 "/groups", groups_list, ROUTE_PUBLIC},
	{"GET", V4 "/groups/:id/projects", groups_projects, ROUTE_PUBLIC},
	{"GET", V4 "/groups/:id", groups_show, ROUTE_PUBLIC},
	{"POST", V4 "/groups", groups_create, AUTH},
	{"POST", V4 "/groups/:id/projects/:project_id", groups_transfer_project, ADMIN},
	{"PUT", V4 "/groups/:id", groups_update, AUTH},
	{"DELETE", V4 "/groups/:id", groups_delete, AUTH},
	{"GET", V4 "/namespaces", namespaces_list, AUTH},
	{"GET", V4 "/namespaces/:id", namespaces_show, AUTH},

	/* Project and group members (members.c) */
	{"GET", V4 "/projects/:id/members", members_list, AUTH},
	{"GET", V4 "/projects/:id/members/:user_id", members_show, AUTH},
	{"POST", V4 "/projects/:id/members", members_add, AUTH},
	{"PUT", V4 "/projects/:id/members/:user_id", members_update, AUTH},
	{"DELETE", V4 "/projects/:id/members/:user_id", members_remove, AUTH},
	{"GET", V4 "/groups/:id/members", members_list, AUTH},
	{"GET", V4 "/groups/:id/members/:user_id", members_show, AUTH},
	{"POST", V4 "/groups/:id/members", members_add, AUTH},
	{"PUT", V4 "/groups/:id/members/:user_id", members_update, AUTH},
	{"DELETE", V4 "/groups/:id/members/:user_id", members_remove, AUTH},

	/* 4.3 Users and SSH keys */
	{"GET", V4 "/users", users_list, AUTH | RU | ROUTE_CACHE},
	{"GET", V4 "/users/:id", users_show, AUTH | RU | ROUTE_SELF_AUTH | ROUTE_CACHE},
	{"POST", V4 "/users", users_create, ADMIN},
	{"PUT", V4 "/users/:id", users_update, ADMIN},
	{"DELETE", V4 "/users/:id", users_delete, ADMIN},
	{"GET", V4 "/user", user_current, AUTH | RU | ROUTE_CALLER_RECORD | ROUTE_CACHE},
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
	{"GET", V4 "/groups/:id/access_requests", access_requests_list, AUTH},
	{"GET", V4 "/projects/:id/access_requests", access_requests_list, AUTH},
	{"POST", V4 "/groups/:id/access_requests", access_requests_create, AUTH},
	{"POST", V4 "/projects/:id/access_requests", access_requests_create, AUTH},
	{"PUT", V4 "/groups/:id/access_requests/:user_id/approve", access_requests_approve, AUTH},
	{"PUT", V4 "/projects/:id/access_requests/:user_id/approve", access_requests_approve, AUTH},
	{"DELETE", V4 "/groups/:id/access_requests/:user_id", access_requests_deny, AUTH},
	{"DELETE", V4 "/projects/:id/access_requests/:user_id", access_requests_deny, AUTH},

	/* 4.13 Notification settings (notification_settings.c) */
	{"GET", V4 "/notification_settings", notification_settings_global_show, AUTH},
	{"PUT", V4 "/notification_settings", notification_settings_global_update, AUTH},
	{"GET", V4 "/groups/:id/notification_settings", notification_settings_group_show, AUTH},
	{"PUT", V4 "/groups/:id/notification_settings", notification_settings_group_update, AUTH},
	{"GET", V4 "/projects/:id/notification_settings", notification_settings_project_show, AUTH},
	{"PUT", V4 "/projects/:id/notification_settings", notification_settings_project_update,
	 AUTH},

	/* 4.14 Activity events (events.c; GET /users/:id/events is with the users) */
	{"GET", V4 "/events", events_list_mine, AUTH},
	{"GET", V4 "/projects/:id/events", events_list_project, ROUTE_PUBLIC},

	/* Version and OAuth */
	{"GET", V4 "/version", version_show, AUTH},
	{"POST", "/oauth/token", oauth_token, ROUTE_NO_AUTH},
};

const size_t routes_count = sizeof(routes) / sizeof(routes[0]);
