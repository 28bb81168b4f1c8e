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
	SETTING_SECRET,  /* text, kept sealed with the instance key (column NAME_sealed) */
	SETTING_VIS,     /* a visibility level (0, 10, 20), shown by name */
	SETTING_STRS,    /* text[] */
	SETTING_LEVELS,  /* smallint[] of visibility levels, shown by name */
	SETTING_DOMAINS, /* text[] of e-mail domains, shown one a line (10.8's NAME_raw) */
} settings_kind;

/* GitLab 10.8's fields (ApplicationSettingsHelper.visible_attributes), in its order,
 * the order GET shows them: X(name, kind, column). */
#define SETTINGS_FIELDS(X)                                                                         \
	X(admin_notification_email, SETTING_STR, admin_notification_email)                         \
	X(after_sign_out_path, SETTING_STR, after_sign_out_path)                                   \
	X(after_sign_up_text, SETTING_STR, after_sign_up_text)                                     \
	X(akismet_api_key, SETTING_SECRET, akismet_api_key_sealed)                                 \
	X(akismet_enabled, SETTING_BOOL, akismet_enabled)                                          \
	X(authorized_keys_enabled, SETTING_BOOL, authorized_keys_enabled)                          \
	X(auto_devops_enabled, SETTING_BOOL, auto_devops_enabled)                                  \
	X(auto_devops_domain, SETTING_STR, auto_devops_domain)                                     \
	X(circuitbreaker_access_retries, SETTING_INT, circuitbreaker_access_retries)               \
	X(circuitbreaker_check_interval, SETTING_INT, circuitbreaker_check_interval)               \
	X(circuitbreaker_failure_count_threshold, SETTING_INT,                                     \
	  circuitbreaker_failure_count_threshold)                                                  \
	X(circuitbreaker_failure_reset_time, SETTING_INT, circuitbreaker_failure_reset_time)       \
	X(circuitbreaker_storage_timeout, SETTING_INT, circuitbreaker_storage_timeout)             \
	X(clientside_sentry_dsn, SETTING_STR, clientside_sentry_dsn)                               \
	X(clientside_sentry_enabled, SETTING_BOOL, clientside_sentry_enabled)                      \
	X(container_registry_token_expire_delay, SETTING_INT,                                      \
	  container_registry_token_expire_delay)                                                   \
	X(default_artifacts_expire_in, SETTING_STR, default_artifacts_expire_in)                   \
	X(default_branch_protection, SETTING_INT, default_branch_protection)                       \
	X(default_group_visibility, SETTING_VIS, default_group_visibility)                         \
	X(default_project_visibility, SETTING_VIS, default_project_visibility)                     \
	X(default_projects_limit, SETTING_INT, default_projects_limit)                             \
	X(default_snippet_visibility, SETTING_VIS, default_snippet_visibility)                     \
	X(disabled_oauth_sign_in_sources, SETTING_STRS, disabled_oauth_sign_in_sources)            \
	X(domain_blacklist_enabled, SETTING_BOOL, domain_blacklist_enabled)                        \
	X(domain_blacklist_raw, SETTING_DOMAINS, domain_blacklist)                                 \
	X(domain_whitelist_raw, SETTING_DOMAINS, domain_whitelist)                                 \
	X(dsa_key_restriction, SETTING_INT, dsa_key_restriction)                                   \
	X(ecdsa_key_restriction, SETTING_INT, ecdsa_key_restriction)                               \
	X(ed25519_key_restriction, SETTING_INT, ed25519_key_restriction)                           \
	X(email_author_in_body, SETTING_BOOL, email_author_in_body)                                \
	X(enabled_git_access_protocol, SETTING_STR, enabled_git_access_protocol)                   \
	X(enforce_terms, SETTING_BOOL, enforce_terms)                                              \
	X(gitaly_timeout_default, SETTING_INT, gitaly_timeout_default)                             \
	X(gitaly_timeout_medium, SETTING_INT, gitaly_timeout_medium)                               \
	X(gitaly_timeout_fast, SETTING_INT, gitaly_timeout_fast)                                   \
	X(gravatar_enabled, SETTING_BOOL, gravatar_enabled)                                        \
	X(hashed_storage_enabled, SETTING_BOOL, hashed_storage_enabled)                            \
	X(help_page_hide_commercial_content, SETTING_BOOL, help_page_hide_commercial_content)      \
	X(help_page_support_url, SETTING_STR, help_page_support_url)                               \
	X(help_page_text, SETTING_STR, help_page_text)                                             \
	X(home_page_url, SETTING_STR, home_page_url)                                               \
	X(housekeeping_bitmaps_enabled, SETTING_BOOL, housekeeping_bitmaps_enabled)                \
	X(housekeeping_enabled, SETTING_BOOL, housekeeping_enabled)                                \
	X(housekeeping_full_repack_period, SETTING_INT, housekeeping_full_repack_period)           \
	X(housekeeping_gc_period, SETTING_INT, housekeeping_gc_period)                             \
	X(housekeeping_incremental_repack_period, SETTING_INT,                                     \
	  housekeeping_incremental_repack_period)                                                  \
	X(html_emails_enabled, SETTING_BOOL, html_emails_enabled)                                  \
	X(import_sources, SETTING_STRS, import_sources)                                            \
	X(koding_enabled, SETTING_BOOL, koding_enabled)                                            \
	X(koding_url, SETTING_STR, koding_url)                                                     \
	X(max_artifacts_size, SETTING_INT, max_artifacts_size)                                     \
	X(max_attachment_size, SETTING_INT, max_attachment_size)                                   \
	X(max_import_size, SETTING_INT, max_import_size)                                           \
	X(max_pages_size, SETTING_INT, max_pages_size)                                             \
	X(metrics_enabled, SETTING_BOOL, metrics_enabled)                                          \
	X(metrics_host, SETTING_STR, metrics_host)                                                 \
	X(metrics_method_call_threshold, SETTING_INT, metrics_method_call_threshold)               \
	X(metrics_packet_size, SETTING_INT, metrics_packet_size)                                   \
	X(metrics_pool_size, SETTING_INT, metrics_pool_size)                                       \
	X(metrics_port, SETTING_INT, metrics_port)                                                 \
	X(metrics_sample_interval, SETTING_INT, metrics_sample_interval)                           \
	X(metrics_timeout, SETTING_INT, metrics_timeout)                                           \
	X(pages_domain_verification_enabled, SETTING_BOOL, pages_domain_verification_enabled)      \
	X(password_authentication_enabled_for_web, SETTING_BOOL,                                   \
	  password_authentication_enabled_for_web)                                                 \
	X(password_authentication_enabled_for_git, SETTING_BOOL,                                   \
	  password_authentication_enabled_for_git)                                                 \
	X(performance_bar_allowed_group_id, SETTING_INT, performance_bar_allowed_group_id)         \
	X(performance_bar_enabled, SETTING_BOOL, performance_bar_enabled)                          \
	X(plantuml_enabled, SETTING_BOOL, plantuml_enabled)                                        \
	X(plantuml_url, SETTING_STR, plantuml_url)                                                 \
	X(polling_interval_multiplier, SETTING_FLOAT, polling_interval_multiplier)                 \
	X(project_export_enabled, SETTING_BOOL, project_export_enabled)                            \
	X(prometheus_metrics_enabled, SETTING_BOOL, prometheus_metrics_enabled)                    \
	X(recaptcha_enabled, SETTING_BOOL, recaptcha_enabled)                                      \
	X(recaptcha_private_key, SETTING_SECRET, recaptcha_private_key_sealed)                     \
	X(recaptcha_site_key, SETTING_STR, recaptcha_site_key)                                     \
	X(repository_checks_enabled, SETTING_BOOL, repository_checks_enabled)                      \
	X(repository_storages, SETTING_STRS, repository_storages)                                  \
	X(require_two_factor_authentication, SETTING_BOOL, require_two_factor_authentication)      \
	X(restricted_visibility_levels, SETTING_LEVELS, restricted_visibility_levels)              \
	X(rsa_key_restriction, SETTING_INT, rsa_key_restriction)                                   \
	X(send_user_confirmation_email, SETTING_BOOL, send_user_confirmation_email)                \
	X(sentry_dsn, SETTING_STR, sentry_dsn)                                                     \
	X(sentry_enabled, SETTING_BOOL, sentry_enabled)                                            \
	X(session_expire_delay, SETTING_INT, session_expire_delay)                                 \
	X(shared_runners_enabled, SETTING_BOOL, shared_runners_enabled)                            \
	X(shared_runners_text, SETTING_STR, shared_runners_text)                                   \
	X(sidekiq_throttling_enabled, SETTING_BOOL, sidekiq_throttling_enabled)                    \
	X(sidekiq_throttling_factor, SETTING_FLOAT, sidekiq_throttling_factor)                     \
	X(sidekiq_throttling_queues, SETTING_STRS, sidekiq_throttling_queues)                      \
	X(sign_in_text, SETTING_STR, sign_in_text)                                                 \
	X(signup_enabled, SETTING_BOOL, signup_enabled)                                            \
	X(terminal_max_session_time, SETTING_INT, terminal_max_session_time)                       \
	X(terms, SETTING_STR, terms)                                                               \
	X(throttle_unauthenticated_enabled, SETTING_BOOL, throttle_unauthenticated_enabled)        \
	X(throttle_unauthenticated_requests_per_period, SETTING_INT,                               \
	  throttle_unauthenticated_requests_per_period)                                            \
	X(throttle_unauthenticated_period_in_seconds, SETTING_INT,                                 \
	  throttle_unauthenticated_period_in_seconds)                                              \
	X(throttle_authenticated_web_enabled, SETTING_BOOL, throttle_authenticated_web_enabled)    \
	X(throttle_authenticated_web_requests_per_period, SETTING_INT,                             \
	  throttle_authenticated_web_requests_per_period)                                          \
	X(throttle_authenticated_web_period_in_seconds, SETTING_INT,                               \
	  throttle_authenticated_web_period_in_seconds)                                            \
	X(throttle_authenticated_api_enabled, SETTING_BOOL, throttle_authenticated_api_enabled)    \
	X(throttle_authenticated_api_requests_per_period, SETTING_INT,                             \
	  throttle_authenticated_api_requests_per_period)                                          \
	X(throttle_authenticated_api_period_in_seconds, SETTING_INT,                               \
	  throttle_authenticated_api_period_in_seconds)                                            \
	X(two_factor_grace_period, SETTING_INT, two_factor_grace_period)                           \
	X(unique_ips_limit_enabled, SETTING_BOOL, unique_ips_limit_enabled)                        \
	X(unique_ips_limit_per_user, SETTING_INT, unique_ips_limit_per_user)                       \
	X(unique_ips_limit_time_window, SETTING_INT, unique_ips_limit_time_window)                 \
	X(usage_ping_enabled, SETTING_BOOL, usage_ping_enabled)                                    \
	X(user_default_external, SETTING_BOOL, user_default_external)                              \
	X(user_oauth_applications, SETTING_BOOL, user_oauth_applications)                          \
	X(version_check_enabled, SETTING_BOOL, version_check_enabled)                              \
	X(allow_local_requests_from_hooks_and_services, SETTING_BOOL,                              \
	  allow_local_requests_from_hooks_and_services)

/* The fields' indexes (SETTING_F_name), and their number. */
#define SETTINGS_ENUM(name, kind, col) SETTING_F_##name,
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
long settings_max_import_size(ctx *c);           /* max_import_size, in MB (0: no limit) */
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
