/* The application settings (sql/0042_application_settings.sql): their fields, and the
 * worker's copy of the ones collabd's behaviour depends on. A worker keeps the copy
 * while the row's version stays what it read; each unit of work (a request, a
 * background job) compares the version once, the first time it asks for a setting,
 * so that a change made through any instance is seen by the next request anywhere. */
#ifndef COLLABD_DB_SETTINGS_H
#define COLLABD_DB_SETTINGS_H

#include <stdbool.h>

#include "db/db.h"

/* How a field is stored and shown. */
typedef enum settings_kind {
	SETTING_BOOL,
	SETTING_INT,
	SETTING_FLOAT,
	SETTING_STR,
	SETTING_SECRET, /* text, kept sealed with the instance key (column NAME_sealed) */
	SETTING_VIS,    /* a visibility level (0, 10, 20), shown by name */
	SETTING_STRS,   /* text[] */
	SETTING_LEVELS, /* smallint[] of visibility levels, shown by name */
} settings_kind;

/* GitLab 10.8's fields (ApplicationSettingsHelper.visible_attributes), in the order
 * GET shows them: X(name, kind, column suffix). */
#define SETTINGS_FIELDS(X)                                                                         \
	X(admin_notification_email, SETTING_STR, )                                                 \
	X(after_sign_out_path, SETTING_STR, )                                                      \
	X(after_sign_up_text, SETTING_STR, )                                                       \
	X(akismet_api_key, SETTING_SECRET, _sealed)                                                \
	X(akismet_enabled, SETTING_BOOL, )                                                         \
	X(allow_local_requests_from_hooks_and_services, SETTING_BOOL, )                            \
	X(authorized_keys_enabled, SETTING_BOOL, )                                                 \
	X(auto_devops_domain, SETTING_STR, )                                                       \
	X(auto_devops_enabled, SETTING_BOOL, )                                                     \
	X(circuitbreaker_access_retries, SETTING_INT, )                                            \
	X(circuitbreaker_check_interval, SETTING_INT, )                                            \
	X(circuitbreaker_failure_count_threshold, SETTING_INT, )                                   \
	X(circuitbreaker_failure_reset_time, SETTING_INT, )                                        \
	X(circuitbreaker_storage_timeout, SETTING_INT, )                                           \
	X(clientside_sentry_dsn, SETTING_STR, )                                                    \
	X(clientside_sentry_enabled, SETTING_BOOL, )                                               \
	X(container_registry_token_expire_delay, SETTING_INT, )                                    \
	X(default_artifacts_expire_in, SETTING_STR, )                                              \
	X(default_branch_protection, SETTING_INT, )                                                \
	X(default_group_visibility, SETTING_VIS, )                                                 \
	X(default_project_visibility, SETTING_VIS, )                                               \
	X(default_projects_limit, SETTING_INT, )                                                   \
	X(default_snippet_visibility, SETTING_VIS, )                                               \
	X(disabled_oauth_sign_in_sources, SETTING_STRS, )                                          \
	X(domain_blacklist, SETTING_STRS, )                                                        \
	X(domain_blacklist_enabled, SETTING_BOOL, )                                                \
	X(domain_whitelist, SETTING_STRS, )                                                        \
	X(dsa_key_restriction, SETTING_INT, )                                                      \
	X(ecdsa_key_restriction, SETTING_INT, )                                                    \
	X(ed25519_key_restriction, SETTING_INT, )                                                  \
	X(email_author_in_body, SETTING_BOOL, )                                                    \
	X(enabled_git_access_protocol, SETTING_STR, )                                              \
	X(enforce_terms, SETTING_BOOL, )                                                           \
	X(gitaly_timeout_default, SETTING_INT, )                                                   \
	X(gitaly_timeout_fast, SETTING_INT, )                                                      \
	X(gitaly_timeout_medium, SETTING_INT, )                                                    \
	X(gravatar_enabled, SETTING_BOOL, )                                                        \
	X(hashed_storage_enabled, SETTING_BOOL, )                                                  \
	X(help_page_hide_commercial_content, SETTING_BOOL, )                                       \
	X(help_page_support_url, SETTING_STR, )                                                    \
	X(help_page_text, SETTING_STR, )                                                           \
	X(home_page_url, SETTING_STR, )                                                            \
	X(housekeeping_bitmaps_enabled, SETTING_BOOL, )                                            \
	X(housekeeping_enabled, SETTING_BOOL, )                                                    \
	X(housekeeping_full_repack_period, SETTING_INT, )                                          \
	X(housekeeping_gc_period, SETTING_INT, )                                                   \
	X(housekeeping_incremental_repack_period, SETTING_INT, )                                   \
	X(html_emails_enabled, SETTING_BOOL, )                                                     \
	X(import_sources, SETTING_STRS, )                                                          \
	X(koding_enabled, SETTING_BOOL, )                                                          \
	X(koding_url, SETTING_STR, )                                                               \
	X(max_artifacts_size, SETTING_INT, )                                                       \
	X(max_attachment_size, SETTING_INT, )                                                      \
	X(max_pages_size, SETTING_INT, )                                                           \
	X(metrics_enabled, SETTING_BOOL, )                                                         \
	X(metrics_host, SETTING_STR, )                                                             \
	X(metrics_method_call_threshold, SETTING_INT, )                                            \
	X(metrics_packet_size, SETTING_INT, )                                                      \
	X(metrics_pool_size, SETTING_INT, )                                                        \
	X(metrics_port, SETTING_INT, )                                                             \
	X(metrics_sample_interval, SETTING_INT, )                                                  \
	X(metrics_timeout, SETTING_INT, )                                                          \
	X(pages_domain_verification_enabled, SETTING_BOOL, )                                       \
	X(password_authentication_enabled_for_git, SETTING_BOOL, )                                 \
	X(password_authentication_enabled_for_web, SETTING_BOOL, )                                 \
	X(performance_bar_allowed_group_id, SETTING_INT, )                                         \
	X(performance_bar_enabled, SETTING_BOOL, )                                                 \
	X(plantuml_enabled, SETTING_BOOL, )                                                        \
	X(plantuml_url, SETTING_STR, )                                                             \
	X(polling_interval_multiplier, SETTING_FLOAT, )                                            \
	X(project_export_enabled, SETTING_BOOL, )                                                  \
	X(prometheus_metrics_enabled, SETTING_BOOL, )                                              \
	X(recaptcha_enabled, SETTING_BOOL, )                                                       \
	X(recaptcha_private_key, SETTING_SECRET, _sealed)                                          \
	X(recaptcha_site_key, SETTING_STR, )                                                       \
	X(repository_checks_enabled, SETTING_BOOL, )                                               \
	X(repository_storages, SETTING_STRS, )                                                     \
	X(require_two_factor_authentication, SETTING_BOOL, )                                       \
	X(restricted_visibility_levels, SETTING_LEVELS, )                                          \
	X(rsa_key_restriction, SETTING_INT, )                                                      \
	X(send_user_confirmation_email, SETTING_BOOL, )                                            \
	X(sentry_dsn, SETTING_STR, )                                                               \
	X(sentry_enabled, SETTING_BOOL, )                                                          \
	X(session_expire_delay, SETTING_INT, )                                                     \
	X(shared_runners_enabled, SETTING_BOOL, )                                                  \
	X(shared_runners_text, SETTING_STR, )                                                      \
	X(sidekiq_throttling_enabled, SETTING_BOOL, )                                              \
	X(sidekiq_throttling_factor, SETTING_FLOAT, )                                              \
	X(sidekiq_throttling_queues, SETTING_STRS, )                                               \
	X(sign_in_text, SETTING_STR, )                                                             \
	X(signup_enabled, SETTING_BOOL, )                                                          \
	X(terminal_max_session_time, SETTING_INT, )                                                \
	X(terms, SETTING_STR, )                                                                    \
	X(throttle_authenticated_api_enabled, SETTING_BOOL, )                                      \
	X(throttle_authenticated_api_period_in_seconds, SETTING_INT, )                             \
	X(throttle_authenticated_api_requests_per_period, SETTING_INT, )                           \
	X(throttle_authenticated_web_enabled, SETTING_BOOL, )                                      \
	X(throttle_authenticated_web_period_in_seconds, SETTING_INT, )                             \
	X(throttle_authenticated_web_requests_per_period, SETTING_INT, )                           \
	X(throttle_unauthenticated_enabled, SETTING_BOOL, )                                        \
	X(throttle_unauthenticated_period_in_seconds, SETTING_INT, )                               \
	X(throttle_unauthenticated_requests_per_period, SETTING_INT, )                             \
	X(two_factor_grace_period, SETTING_INT, )                                                  \
	X(unique_ips_limit_enabled, SETTING_BOOL, )                                                \
	X(unique_ips_limit_per_user, SETTING_INT, )                                                \
	X(unique_ips_limit_time_window, SETTING_INT, )                                             \
	X(usage_ping_enabled, SETTING_BOOL, )                                                      \
	X(user_default_external, SETTING_BOOL, )                                                   \
	X(user_oauth_applications, SETTING_BOOL, )                                                 \
	X(version_check_enabled, SETTING_BOOL, )

/* The fields' indexes (SETTING_F_name), and their number. */
#define SETTINGS_ENUM(name, kind, sfx) SETTING_F_##name,
enum { SETTINGS_FIELDS(SETTINGS_ENUM) SETTINGS_NFIELDS };
#undef SETTINGS_ENUM

typedef struct settings_field {
	const char *name; /* as the API names it */
	settings_kind kind;
	const char *column; /* as the table names it (the JSON key of db_settings_update) */
} settings_field;
extern const settings_field settings_fields[SETTINGS_NFIELDS];

/* The columns of db_settings_read and db_settings_update's row: the id, then the
 * fields in SETTINGS_FIELDS' order (SETTINGS_COL_FIRST + SETTING_F_name). */
#define SETTINGS_COL_FIRST 1
#define SETTINGS_NCOLS (SETTINGS_COL_FIRST + SETTINGS_NFIELDS)

extern const db_stmt db_settings_stmts[];

/* The row (SETTINGS_NCOLS columns), locked for update when lock (in a transaction).
 * In c's arena, or NULL with *err. */
PGresult *db_settings_read(ctx *c, bool lock, int *err);
/* Sets the columns that changes names (a JSON object, column: value, as
 * jsonb_populate_record takes it; the others keep their values), one more version;
 * the row as db_settings_read's. The worker's copy is forgotten. In c's arena, or NULL
 * with *err. */
PGresult *db_settings_update(ctx *c, const char *changes, int *err);

/* The settings collabd's behaviour depends on (GitLab 10.8's names and units). Each
 * reads the worker's copy, first brought up to date once per unit of work (c): a
 * statement, that answers no row when the version is the one the worker has. When the
 * row cannot be read, the last copy, or 10.8's defaults. */
bool settings_allow_local_requests(ctx *c);      /* allow_local_requests_from_hooks_and_services */
long settings_max_attachment_size(ctx *c);       /* max_attachment_size, in MB */
int settings_default_project_visibility(ctx *c); /* enum visibility (auth/access.h) */
int settings_default_group_visibility(ctx *c);
int settings_default_snippet_visibility(ctx *c);
/* Whether restricted_visibility_levels holds level (0, 10 or 20). */
bool settings_visibility_restricted(ctx *c, int level);
int settings_default_branch_protection(ctx *c); /* 0, 1 or 2 */
long settings_default_projects_limit(ctx *c);
bool settings_user_default_external(ctx *c);
bool settings_password_authentication_for_git(ctx *c);

#endif
