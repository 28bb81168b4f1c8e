/* Application settings (admin only): GET and PUT /application/settings, as GitLab 10.8's
 * lib/api/settings.rb. The fields and their storage are db/settings.h's. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/storages.h"
#include "api/api.h"
#include "auth/access.h"
#include "core/buf.h"
#include "core/crypto.h"
#include "db/settings.h"
#include "entity/application_setting.h"

const db_stmt settings_stmts[] = {
	{NULL, NULL, 0, 0},
};

static int settings_show(request *r)
{
	int err;
	PGresult *res = db_settings_read(&r->ctx, false, &err);
	if (!res)
		return err;
	if (PQntuples(res) != 1)
		return ERR_INTERNAL; /* the migration inserts the one row */
	api_respond_record(r, 200, entity_application_setting_write, res, 0, 0);
	return 0;
}

/* One field's value, as stored (the row) or as sent (over it). */
typedef struct {
	bool given; /* sent in this request */
	bool null;
	bool b;
	long long i;
	double f;
	const char *s; /* strings; a secret in the clear */
	const char **items;
	int n; /* items (SETTING_STRS), or levels in i_items (SETTING_LEVELS) */
	long long *levels;
} value;

#define F(name) SETTING_F_##name

/* The messages of the parameter checks (Grape's), joined as its ValidationErrors. */
typedef struct {
	buf msg;
	int n;
} problems;

static void problem(problems *p, const char *name, const char *what)
{
	if (p->n++)
		buf_puts(&p->msg, ", ");
	buf_puts(&p->msg, name);
	buf_putc(&p->msg, ' ');
	buf_puts(&p->msg, what);
}

/* The row's values of every field (db_settings_read's columns). */
static void read_row(request *r, const PGresult *res, value *v)
{
	for (int i = 0; i < SETTINGS_NFIELDS; i++) {
		int k = SETTINGS_COL_FIRST + i;
		const char *s = db_val(res, 0, k);
		value *x = &v[i];
		*x = (value){.null = !s};
		if (!s)
			continue;
		switch (settings_fields[i].kind) {
		case SETTING_BOOL:
			x->b = db_bool(res, 0, k);
			break;
		case SETTING_INT:
		case SETTING_VIS:
			x->i = db_int(res, 0, k);
			break;
		case SETTING_FLOAT:
			x->f = strtod(s, NULL);
			break;
		case SETTING_STR:
			x->s = s;
			break;
		case SETTING_SECRET:
			x->s = crypto_open(r->ctx.a, r->ctx.key, s);
			x->null = !x->s;
			break;
		case SETTING_STRS:
		case SETTING_DOMAINS:
			x->n = db_text_array(r->ctx.a, s, &x->items);
			if (x->n < 0)
				x->n = 0;
			break;
		case SETTING_LEVELS:
			x->n = db_int_array(r->ctx.a, s, &x->levels);
			if (x->n < 0)
				x->n = 0;
			break;
		}
	}
}

/* The values of an array parameter: name[]=a&name[]=b, a JSON array, or one string of
 * values separated by commas (what later GitLab versions and python-gitlab send); an
 * empty string is the empty list. */
static int array_values(request *r, const char *name, const char ***out)
{
	int n = param_array(r, name, out);
	if (n < 0)
		return n;
	if (n > 0) {
		int kept = 0;
		for (int k = 0; k < n; k++)
			if ((*out)[k] && *(*out)[k]) /* name[]= alone (or null): none */
				(*out)[kept++] = (*out)[k];
		return kept;
	}
	const char *s = param_str(r, name);
	if (!s)
		return 0;
	const char **items = arena_alloc(r->ctx.a, sizeof(*items) * (strlen(s) / 2 + 2));
	n = 0;
	/* 10.8's DOMAIN_LIST_SEPARATOR: commas, semicolons, line ends, with blanks around */
	while (*s) {
		while (*s == ',' || *s == ';' || *s == ' ' || *s == '\t' || *s == '\n' ||
		       *s == '\r')
			s++;
		const char *e = s;
		while (*e && *e != ',' && *e != ';' && *e != '\n' && *e != '\r')
			e++;
		const char *t = e;
		while (t > s && (t[-1] == ' ' || t[-1] == '\t'))
			t--;
		if (t > s)
			items[n++] = arena_strndup(r->ctx.a, s, (size_t)(t - s));
		s = e;
	}
	*out = items;
	return n;
}

/* Whether a JSON body sent name as an empty array, which the parameter view keeps no
 * value of (python-gitlab clears restricted_visibility_levels so). */
static bool json_empty_array(request *r, const char *name)
{
	if (!r->raw_body || !r->raw_body_len || r->raw_body[0] != '{')
		return false;
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return false;
	json_object *body =
		request_own(r, json_tokener_parse_ex(tok, r->raw_body, (int)r->raw_body_len));
	json_tokener_free(tok);
	json_object *v;
	return body && json_object_object_get_ex(body, name, &v) &&
	       json_object_is_type(v, json_type_array) && json_object_array_length(v) == 0;
}

static bool param_given(request *r, const char *name)
{
	for (param *p = r->params; p; p = p->next)
		if (p->source != SRC_PATH && strcmp(p->name, name) == 0)
			return true;
	return false;
}

/* A visibility level by name, or by its number (restricted_visibility_levels): -1 when
 * neither. */
static int level_of(const char *s)
{
	int v = visibility_parse(s);
	if (v >= 0)
		return v;
	if (s && (!strcmp(s, "0") || !strcmp(s, "10") || !strcmp(s, "20")))
		return atoi(s);
	return -1;
}

static const char *const import_sources[] = {
	"github", "bitbucket",      "gitlab", "google_code", "fogbugz",
	"git",    "gitlab_project", "gitea",  "manifest",    NULL};

static bool one_of(const char *s, const char *const *allowed)
{
	for (int i = 0; allowed[i]; i++)
		if (strcmp(s, allowed[i]) == 0)
			return true;
	return false;
}

/* 10.8's KeyRestrictionValidator.supported_key_restrictions: 0 (any), -1 (forbidden) or
 * one of the sizes of the key type; true for a field that is no key restriction. */
static bool valid_key_restriction(int i, long long v)
{
	static const struct {
		int field;
		long long sizes[5];
	} keys[] = {
		{F(rsa_key_restriction), {1024, 2048, 3072, 4096, 0}},
		{F(dsa_key_restriction), {1024, 2048, 3072, 0}},
		{F(ecdsa_key_restriction), {256, 384, 521, 0}},
		{F(ed25519_key_restriction), {256, 0}},
	};
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (keys[k].field != i)
			continue;
		if (v == 0 || v == -1)
			return true;
		for (int j = 0; keys[k].sizes[j]; j++)
			if (v == keys[k].sizes[j])
				return true;
		return false;
	}
	return true;
}

/* Reads field i from the request over v[i], as its declared type: a problem when the
 * value is not of it (10.8's "is invalid" / "does not have a valid value"). */
static int read_param(request *r, int i, value *x, problems *p)
{
	const settings_field *f = &settings_fields[i];
	const char *name = f->name;
	/* a list of domains also under 10.8's other name, domain_blacklist for
	 * domain_blacklist_raw (one string, or an array) */
	if (f->kind == SETTING_DOMAINS && !param_given(r, name))
		name = arena_strndup(r->ctx.a, name, strlen(name) - 4);
	bool emptied = (f->kind == SETTING_STRS || f->kind == SETTING_LEVELS ||
			f->kind == SETTING_DOMAINS) &&
		       json_empty_array(r, name);
	if (!param_given(r, name) && !emptied)
		return 0;
	x->given = true;
	x->null = false;
	const char *s = param_str(r, name);
	char *end;
	switch (f->kind) {
	case SETTING_BOOL:
		if (param_bool(r, name, &x->b) != 0)
			problem(p, name, "is invalid");
		break;
	case SETTING_INT:
		if (!s) {
			x->null = true;
			break;
		}
		errno = 0;
		x->i = strtoll(s, &end, 10);
		if (!*s || *end || errno || x->i > 2147483647LL || x->i < -2147483648LL)
			problem(p, name, "is invalid");
		if (i == F(default_branch_protection) && !*end && (x->i < 0 || x->i > 2))
			problem(p, name, "does not have a valid value");
		if (!*end && !valid_key_restriction(i, x->i))
			problem(p, name, "does not have a valid value");
		break;
	case SETTING_FLOAT:
		if (!s) {
			x->null = true;
			break;
		}
		errno = 0;
		x->f = strtod(s, &end);
		if (!*s || *end || errno || !isfinite(x->f))
			problem(p, name, "is invalid");
		break;
	case SETTING_STR:
	case SETTING_SECRET:
		x->s = s;
		x->null = !s;
		if (i == F(enabled_git_access_protocol) && s) {
			static const char *const protocols[] = {"ssh", "http", "nil", "", NULL};
			if (!one_of(s, protocols))
				problem(p, name, "does not have a valid value");
			else if (!strcmp(s, "nil") || !*s)
				x->null = true; /* both protocols */
		}
		break;
	case SETTING_VIS:
		x->i = visibility_parse(s);
		if (x->i < 0)
			problem(p, name, "does not have a valid value");
		break;
	case SETTING_STRS:
	case SETTING_DOMAINS: {
		int n = array_values(r, name, &x->items);
		if (n < 0)
			return n;
		x->n = n;
		if (i == F(import_sources))
			for (int k = 0; k < n; k++)
				if (!x->items[k] || !one_of(x->items[k], import_sources)) {
					problem(p, name, "does not have a valid value");
					break;
				}
		break;
	}
	case SETTING_LEVELS: {
		const char **items;
		int n = array_values(r, name, &items);
		if (n < 0)
			return n;
		x->items = items; /* as sent, for the model's message */
		x->n = n;
		x->levels = arena_alloc(r->ctx.a, sizeof(*x->levels) * (size_t)(n + 1));
		for (int k = 0; k < n; k++)
			x->levels[k] = level_of(items[k]);
		break;
	}
	}
	return 0;
}

/* 10.8's `given X: ->(val) { val } do requires ... end`: with X sent true, these must be
 * sent too (by these names). */
static const struct {
	int when;
	const char *need[8];
} requires_when[] = {
	{F(akismet_enabled), {"akismet_api_key"}},
	{F(clientside_sentry_enabled), {"clientside_sentry_dsn"}},
	{F(domain_blacklist_enabled), {"domain_blacklist"}},
	{F(enforce_terms), {"terms"}},
	{F(housekeeping_enabled),
	 {"housekeeping_bitmaps_enabled", "housekeeping_incremental_repack_period",
	  "housekeeping_full_repack_period", "housekeeping_gc_period"}},
	{F(koding_enabled), {"koding_url"}},
	{F(metrics_enabled),
	 {"metrics_host", "metrics_port", "metrics_pool_size", "metrics_timeout",
	  "metrics_method_call_threshold", "metrics_sample_interval", "metrics_packet_size"}},
	{F(plantuml_enabled), {"plantuml_url"}},
	{F(recaptcha_enabled), {"recaptcha_site_key", "recaptcha_private_key"}},
	{F(require_two_factor_authentication), {"two_factor_grace_period"}},
	{F(sentry_enabled), {"sentry_dsn"}},
	{F(shared_runners_enabled), {"shared_runners_text"}},
	{F(sidekiq_throttling_enabled), {"sidekiq_throttling_queues", "sidekiq_throttling_factor"}},
};

static void check_requires(request *r, const value *v, problems *p)
{
	for (size_t k = 0; k < sizeof(requires_when) / sizeof(requires_when[0]); k++) {
		const value *w = &v[requires_when[k].when];
		if (!w->given || !w->b)
			continue;
		for (int j = 0; requires_when[k].need[j]; j++)
			if (!param_given(r, requires_when[k].need[j]) &&
			    !json_empty_array(r, requires_when[k].need[j]))
				problem(p, requires_when[k].need[j], "is missing");
	}
}

/* ActiveRecord's numericality messages on field i of the merged values. */
static void at_least(request *r, const value *v, int i, long long min)
{
	if (!v[i].null && v[i].i < min)
		fail_validation(r, settings_fields[i].name,
				arena_printf(r->ctx.a, "must be greater than or equal to %lld",
					     min));
}

static void above(request *r, const value *v, int i, long long min)
{
	if (!v[i].null && v[i].i <= min)
		fail_validation(r, settings_fields[i].name,
				arena_printf(r->ctx.a, "must be greater than %lld", min));
}

static void at_most(request *r, const value *v, int i, long long max)
{
	if (!v[i].null && v[i].i > max)
		fail_validation(r, settings_fields[i].name,
				arena_printf(r->ctx.a, "must be less than or equal to %lld", max));
}

static bool blank(const value *x)
{
	if (x->null || !x->s)
		return true;
	for (const char *s = x->s; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return false;
	return true;
}

static void present_if(request *r, const value *v, int when, int i)
{
	if (v[when].b && blank(&v[i]))
		fail_validation(r, settings_fields[i].name, "can't be blank");
}

/* http(s)://host..., as 10.8's UrlValidator takes it (blank allowed). */
static void url_or_blank(request *r, const value *v, int i)
{
	if (blank(&v[i]))
		return;
	const char *s = v[i].s;
	const char *rest = !strncmp(s, "http://", 7)    ? s + 7
			   : !strncmp(s, "https://", 8) ? s + 8
							: NULL;
	if (!rest || !*rest || *rest == '/' || strpbrk(s, " \t\r\n"))
		fail_validation(r, settings_fields[i].name, "must be a valid URL");
}

/* ChronicDuration's durations as 10.8 accepts default_artifacts_expire_in: numbers,
 * each with an optional unit, separated by spaces, commas or "and". */
static bool valid_duration(const char *s)
{
	static const char *const units[] = {"s",    "sec",   "secs",   "second",  "seconds", "m",
					    "min",  "mins",  "minute", "minutes", "h",       "hr",
					    "hrs",  "hour",  "hours",  "d",       "day",     "days",
					    "w",    "wk",    "wks",    "week",    "weeks",   "mo",
					    "mos",  "month", "months", "y",       "yr",      "yrs",
					    "year", "years", NULL};
	int numbers = 0;
	while (*s) {
		while (*s == ' ' || *s == ',')
			s++;
		if (!*s)
			break;
		if (!strncmp(s, "and ", 4)) {
			s += 4;
			continue;
		}
		const char *d = s;
		while ((*s >= '0' && *s <= '9') || *s == '.')
			s++;
		if (s == d)
			return false;
		numbers++;
		while (*s == ' ')
			s++;
		const char *u = s;
		while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
			s++;
		if (s > u) {
			char unit[16];
			size_t n = (size_t)(s - u);
			if (n >= sizeof(unit))
				return false;
			for (size_t k = 0; k < n; k++)
				unit[k] = (char)(u[k] | 0x20);
			unit[n] = 0;
			if (!one_of(unit, units))
				return false;
		}
	}
	return numbers > 0;
}

/* 10.8's model validations (ApplicationSetting) on the settings as they would be. */
static void check_model(request *r, const value *v)
{
	for (int i = 0; i < SETTINGS_NFIELDS; i++) {
		settings_kind k = settings_fields[i].kind;
		bool nullable = i == F(performance_bar_allowed_group_id) ||
				i == F(sidekiq_throttling_factor);
		if (v[i].given && v[i].null && !nullable &&
		    (k == SETTING_INT || k == SETTING_FLOAT || i == F(metrics_host)))
			fail_validation(r, settings_fields[i].name, "can't be blank");
	}
	above(r, v, F(max_attachment_size), 0);
	above(r, v, F(max_artifacts_size), 0);
	at_least(r, v, F(max_import_size), 0);
	at_least(r, v, F(max_pages_size), 0);
	if (!v[F(max_pages_size)].null && v[F(max_pages_size)].i >= 1048576)
		fail_validation(r, "max_pages_size", "must be less than 1048576");
	at_least(r, v, F(default_projects_limit), 0);
	at_least(r, v, F(session_expire_delay), 0);
	above(r, v, F(container_registry_token_expire_delay), 0);
	at_least(r, v, F(terminal_max_session_time), 0);
	at_least(r, v, F(two_factor_grace_period), 0);
	above(r, v, F(housekeeping_incremental_repack_period), 0);
	at_least(r, v, F(housekeeping_full_repack_period),
		 v[F(housekeeping_incremental_repack_period)].i);
	at_least(r, v, F(housekeeping_gc_period), v[F(housekeeping_full_repack_period)].i);
	at_least(r, v, F(gitaly_timeout_default), 0);
	at_least(r, v, F(gitaly_timeout_fast), 0);
	at_most(r, v, F(gitaly_timeout_fast), v[F(gitaly_timeout_medium)].i);
	at_most(r, v, F(gitaly_timeout_medium), v[F(gitaly_timeout_default)].i);
	at_least(r, v, F(circuitbreaker_access_retries), 0);
	at_least(r, v, F(circuitbreaker_check_interval), 0);
	at_least(r, v, F(circuitbreaker_failure_count_threshold), 0);
	at_least(r, v, F(circuitbreaker_failure_reset_time), 0);
	at_least(r, v, F(circuitbreaker_storage_timeout), 0);
	if (v[F(unique_ips_limit_enabled)].b) {
		at_least(r, v, F(unique_ips_limit_per_user), 1);
		at_least(r, v, F(unique_ips_limit_time_window), 0);
	}
	static const int throttles[][3] = {
		{F(throttle_unauthenticated_enabled),
		 F(throttle_unauthenticated_requests_per_period),
		 F(throttle_unauthenticated_period_in_seconds)},
		{F(throttle_authenticated_api_enabled),
		 F(throttle_authenticated_api_requests_per_period),
		 F(throttle_authenticated_api_period_in_seconds)},
		{F(throttle_authenticated_web_enabled),
		 F(throttle_authenticated_web_requests_per_period),
		 F(throttle_authenticated_web_period_in_seconds)},
	};
	for (int k = 0; k < 3; k++)
		if (v[throttles[k][0]].b) {
			above(r, v, throttles[k][1], 0);
			above(r, v, throttles[k][2], 0);
		}
	if (!v[F(polling_interval_multiplier)].null && v[F(polling_interval_multiplier)].f < 0)
		fail_validation(r, "polling_interval_multiplier",
				"must be greater than or equal to 0");
	if (v[F(sidekiq_throttling_enabled)].b) {
		const value *x = &v[F(sidekiq_throttling_factor)];
		if (x->null)
			fail_validation(r, "sidekiq_throttling_factor", "can't be blank");
		else if (x->f <= 0)
			fail_validation(r, "sidekiq_throttling_factor", "must be greater than 0");
		else if (x->f >= 1)
			fail_validation(r, "sidekiq_throttling_factor", "must be less than 1");
	}
	present_if(r, v, F(akismet_enabled), F(akismet_api_key));
	present_if(r, v, F(recaptcha_enabled), F(recaptcha_site_key));
	present_if(r, v, F(recaptcha_enabled), F(recaptcha_private_key));
	present_if(r, v, F(sentry_enabled), F(sentry_dsn));
	present_if(r, v, F(clientside_sentry_enabled), F(clientside_sentry_dsn));
	present_if(r, v, F(koding_enabled), F(koding_url));
	present_if(r, v, F(plantuml_enabled), F(plantuml_url));
	present_if(r, v, F(enforce_terms), F(terms));
	if (v[F(domain_blacklist_enabled)].b && v[F(domain_blacklist_raw)].n == 0)
		fail_validation(r, "domain_blacklist",
				"Domain blacklist cannot be empty if Blacklist is enabled.");
	url_or_blank(r, v, F(home_page_url));
	url_or_blank(r, v, F(after_sign_out_path));
	url_or_blank(r, v, F(help_page_support_url));
	url_or_blank(r, v, F(koding_url));
	url_or_blank(r, v, F(plantuml_url));
	const value *email = &v[F(admin_notification_email)];
	if (!blank(email)) {
		const char *at = strchr(email->s, '@');
		if (!at || at == email->s || !at[1] || strchr(at + 1, '@') ||
		    strpbrk(email->s, " \t\r\n"))
			fail_validation(r, "admin_notification_email", "is invalid");
	}
	const value *expire = &v[F(default_artifacts_expire_in)];
	if (blank(expire))
		fail_validation(r, "default_artifacts_expire_in", "can't be blank");
	else if (!valid_duration(expire->s))
		fail_validation(r, "default_artifacts_expire_in", "is not a correct duration");
	const value *storages = &v[F(repository_storages)];
	if (storages->n == 0) {
		fail_validation(r, "repository_storages", "can't be blank");
	} else {
		buf bad;
		buf_init(&bad, r->ctx.a, 32);
		for (int k = 0; k < storages->n; k++)
			if (!storages_path(&r->ctx.cfg->storages, storages->items[k])) {
				if (bad.len)
					buf_puts(&bad, ", ");
				buf_puts(&bad, storages->items[k]);
			}
		if (bad.len)
			fail_validation(r, "repository_storages",
					arena_printf(r->ctx.a, "can't include: %s",
						     buf_cstr(&bad)));
	}
	const value *levels = &v[F(restricted_visibility_levels)];
	for (int k = 0; k < levels->n; k++)
		if (levels->levels[k] < 0)
			fail_validation(r, "restricted_visibility_levels",
					arena_printf(r->ctx.a,
						     "'%s' is not a valid visibility level",
						     levels->items[k]));
}

/* The changed columns as jsonb_populate_record takes them. */
static const char *changes_json(request *r, const value *v)
{
	json_object *o = request_own(r, json_object_new_object());
	for (int i = 0; i < SETTINGS_NFIELDS; i++) {
		const value *x = &v[i];
		if (!x->given)
			continue;
		const settings_field *f = &settings_fields[i];
		json_object *j = NULL;
		switch (f->kind) {
		case SETTING_BOOL:
			j = json_object_new_boolean(x->b);
			break;
		case SETTING_INT:
		case SETTING_VIS:
			j = x->null ? NULL : json_object_new_int64(x->i);
			break;
		case SETTING_FLOAT:
			j = x->null ? NULL : json_object_new_double(x->f);
			break;
		case SETTING_STR:
			j = x->null ? NULL : json_object_new_string(x->s);
			break;
		case SETTING_SECRET:
			j = x->null || !*x->s ? NULL
					      : json_object_new_string(
							crypto_seal(r->ctx.a, r->ctx.key, x->s));
			break;
		case SETTING_STRS:
		case SETTING_DOMAINS:
			j = json_object_new_array();
			for (int k = 0; k < x->n; k++)
				json_object_array_add(j, json_object_new_string(x->items[k]));
			break;
		case SETTING_LEVELS: {
			/* each level once, in order, as 10.8 keeps them */
			j = json_object_new_array();
			bool seen[3] = {false, false, false};
			for (int lv = 0; lv <= 20; lv += 10)
				for (int k = 0; k < x->n; k++)
					if (x->levels[k] == lv && !seen[lv / 10]) {
						seen[lv / 10] = true;
						json_object_array_add(j, json_object_new_int(lv));
					}
			break;
		}
		}
		json_object_object_add(o, f->column, j);
	}
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

/* 10.8's legacy names of password_authentication_enabled_for_web, one of the three at
 * most (mutually_exclusive). */
static int read_legacy_names(request *r, value *v, problems *p)
{
	static const char *const names[] = {"password_authentication_enabled_for_web",
					    "password_authentication_enabled", "signin_enabled"};
	buf sent;
	buf_init(&sent, r->ctx.a, 64);
	int n = 0;
	for (int k = 0; k < 3; k++)
		if (param_given(r, names[k])) {
			if (n++)
				buf_puts(&sent, ", ");
			buf_puts(&sent, names[k]);
		}
	if (n > 1)
		return fail(r, ERR_INVALID,
			    arena_printf(r->ctx.a, "%s are mutually exclusive", buf_cstr(&sent)));
	value *x = &v[F(password_authentication_enabled_for_web)];
	for (int k = 1; k < 3; k++)
		if (param_given(r, names[k])) {
			x->given = true;
			x->null = false;
			if (param_bool(r, names[k], &x->b) != 0)
				problem(p, names[k], "is invalid");
		}
	return 0;
}

static int settings_update(request *r)
{
	int err;
	PGresult *cur = db_settings_read(&r->ctx, true, &err);
	if (!cur)
		return err;
	if (PQntuples(cur) != 1)
		return ERR_INTERNAL;
	value v[SETTINGS_NFIELDS];
	read_row(r, cur, v);
	problems p = {.n = 0};
	buf_init(&p.msg, r->ctx.a, 128);
	int rc;
	for (int i = 0; i < SETTINGS_NFIELDS; i++)
		if ((rc = read_param(r, i, &v[i], &p)) < 0)
			return rc;
	if ((rc = read_legacy_names(r, v, &p)) < 0)
		return rc;
	/* at_least_one_of(*visible_attributes): the other names (signin_enabled,
	 * domain_whitelist, ...) count for none */
	bool any = false;
	for (int i = 0; i < SETTINGS_NFIELDS; i++)
		any = any || param_given(r, settings_fields[i].name) ||
		      json_empty_array(r, settings_fields[i].name);
	if (!any) {
		buf all;
		buf_init(&all, r->ctx.a, 4096);
		for (int i = 0; i < SETTINGS_NFIELDS; i++) {
			if (i)
				buf_puts(&all, ", ");
			buf_puts(&all, settings_fields[i].name);
		}
		buf_puts(&all, " are missing, at least one parameter must be provided");
		return fail(r, ERR_INVALID, buf_cstr(&all));
	}
	check_requires(r, v, &p);
	if (p.n)
		return fail(r, ERR_INVALID, buf_cstr(&p.msg));
	check_model(r, v);
	if (r->validation)
		return ERR_VALIDATION;
	PGresult *res = db_settings_update(&r->ctx, changes_json(r, v), &err);
	if (!res)
		return err;
	if (PQntuples(res) != 1)
		return ERR_INTERNAL;
	api_respond_record(r, 200, entity_application_setting_write, res, 0, 0);
	return 0;
}

bool settings_refuse_visibility(request *r, bool admin, int level)
{
	if (admin || !settings_visibility_restricted(&r->ctx, level))
		return false;
	static const char *const names[] = {"Private", "Internal", "Public"};
	fail_validation(r, "visibility_level",
			arena_printf(r->ctx.a,
				     "%s has been restricted by your GitLab administrator",
				     names[level / 10]));
	return true;
}

/* The module's routes (http/router.h), in the order they are matched. */
const route settings_routes[] = {
	{"GET", V4 "/application/settings", settings_show, ADMIN | ROUTE_NO_USER_REFS, NULL},
	{"PUT", V4 "/application/settings", settings_update, ADMIN | TX | ROUTE_NO_USER_REFS, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
