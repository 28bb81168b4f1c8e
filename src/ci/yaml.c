/* .gitlab-ci.yml (ci/yaml.h): libyaml's events into a JSON tree, then GitLab 10's
 * entries (Gitlab::Ci::Config::Entry::*) and YamlProcessor's checks on that tree. */
#include "ci/yaml.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/buf.h"
#include "core/errors.h"

/* ---- YAML to JSON ---- */

typedef struct {
	json_object *obj;
	bool map;
	const char *key; /* a mapping's key waiting for its value */
	long weight;     /* nodes in it, aliases expanded */
	const char *anchor;
	json_object *merges; /* the values of its `<<` keys, in order */
} frame;

typedef struct {
	const char *name;
	json_object *obj;
	long weight;
} anchor;

typedef struct {
	arena *a;
	json_object *keep; /* owns every node made, freed with the arena */
	frame stack[CI_YAML_MAX_DEPTH];
	int depth;
	anchor *anchors;
	int nanchors, capanchors;
	long nodes; /* every node added, aliases expanded */
	json_object *root;
	bool have_root;
	const char *err;
} loader;

static void keep_put(void *p)
{
	json_object_put(p);
}

static json_object *keep(loader *l, json_object *o)
{
	if (o)
		json_object_array_add(l->keep, o);
	return o;
}

static bool matches(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(s, *words) == 0)
			return true;
	return false;
}

/* A plain scalar as YAML 1.1 (Psych) resolves it. */
static json_object *resolve_plain(const char *s)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
	static const char *const trues[] = {"true", "True", "TRUE", "yes", "Yes",
					    "YES",  "on",   "On",   "ON",  NULL};
	static const char *const falses[] = {"false", "False", "FALSE", "no",  "No",
					     "NO",    "off",   "Off",   "OFF", NULL};
	if (matches(s, nulls))
		return NULL;
	if (matches(s, trues))
		return json_object_new_boolean(1);
	if (matches(s, falses))
		return json_object_new_boolean(0);
	const char *p = s + (*s == '-' || *s == '+');
	if (*p && strspn(p, "0123456789_") == strlen(p) && isdigit((unsigned char)*p)) {
		char digits[32];
		size_t n = 0;
		for (const char *q = s; *q && n < sizeof(digits) - 1; q++)
			if (*q != '_')
				digits[n++] = *q;
		digits[n] = 0;
		errno = 0;
		char *end;
		long long v = strtoll(digits, &end, 10);
		if (errno == 0 && !*end && strlen(s) < sizeof(digits))
			return json_object_new_int64(v);
	}
	if (*p && (isdigit((unsigned char)*p) || *p == '.') && strlen(s) < 64) {
		char *end;
		double d = strtod(s, &end);
		/* YAML 1.1's floats have a dot ("1e5" is a string) */
		if (!*end && strchr(s, '.') && !strpbrk(s, "xXnN"))
			return json_object_new_double(d);
	}
	return json_object_new_string(s);
}

static void set_err(loader *l, const char *msg)
{
	if (!l->err)
		l->err = msg;
}

/* Adds node o (weight nodes once expanded) to the open container, or makes it the root;
 * counted: its nodes are not yet in l->nodes (a container's were, one by one). */
static int add_node(loader *l, json_object *o, long weight, bool counted, bool scalar,
		    const char *text)
{
	if (!counted) {
		l->nodes += weight;
		if (l->nodes > CI_YAML_MAX_NODES) {
			set_err(l, "(<unknown>): the document is too large once its aliases "
				   "are expanded");
			return ERR_INVALID;
		}
	}
	if (l->depth == 0) {
		if (!l->have_root) {
			l->root = o;
			l->have_root = true;
		}
		return 0;
	}
	frame *f = &l->stack[l->depth - 1];
	f->weight += weight;
	if (f->weight > CI_YAML_MAX_NODES)
		f->weight = CI_YAML_MAX_NODES + 1;
	if (!f->map) {
		json_object_array_add(f->obj, json_object_get(o));
		return 0;
	}
	if (!f->key) {
		if (!scalar) {
			set_err(l, "(<unknown>): a mapping key must be a scalar");
			return ERR_INVALID;
		}
		f->key = arena_strdup(l->a, text ? text : "");
		return 0;
	}
	const char *key = f->key;
	f->key = NULL;
	/* `<<: *anchor` or `<<: [*a, *b]` merges those mappings' keys (at the end) */
	bool merge = strcmp(key, "<<") == 0 && o &&
		     (json_object_is_type(o, json_type_object) ||
		      json_object_is_type(o, json_type_array));
	if (merge && json_object_is_type(o, json_type_array))
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (!json_object_is_type(json_object_array_get_idx(o, i), json_type_object))
				merge = false;
	if (merge) {
		if (!f->merges)
			f->merges = keep(l, json_object_new_array());
		json_object_array_add(f->merges, json_object_get(o));
		return 0;
	}
	json_object_object_add(f->obj, key, json_object_get(o));
	return 0;
}

static void merge_into(json_object *dst, json_object *src)
{
	json_object_object_foreach(src, k, v)
	{
		if (!json_object_object_get_ex(dst, k, NULL))
			json_object_object_add(dst, k, json_object_get(v));
	}
}

static void add_anchor(loader *l, const char *name, json_object *o, long weight)
{
	if (l->nanchors == l->capanchors) {
		int cap = l->capanchors ? 2 * l->capanchors : 16;
		anchor *n = arena_alloc(l->a, sizeof(*n) * (size_t)cap);
		if (l->nanchors)
			memcpy(n, l->anchors, sizeof(*n) * (size_t)l->nanchors);
		l->anchors = n;
		l->capanchors = cap;
	}
	l->anchors[l->nanchors++] = (anchor){arena_strdup(l->a, name), o, weight};
}

static const anchor *find_anchor(loader *l, const char *name)
{
	for (int i = l->nanchors - 1; i >= 0; i--)
		if (strcmp(l->anchors[i].name, name) == 0)
			return &l->anchors[i];
	return NULL;
}

static int open_container(loader *l, bool map, const char *anchor_name)
{
	if (l->depth == CI_YAML_MAX_DEPTH) {
		set_err(l, "(<unknown>): the document is nested too deeply");
		return ERR_INVALID;
	}
	if (l->depth > 0 && l->stack[l->depth - 1].map && !l->stack[l->depth - 1].key) {
		set_err(l, "(<unknown>): a mapping key must be a scalar");
		return ERR_INVALID;
	}
	if (++l->nodes > CI_YAML_MAX_NODES) {
		set_err(l, "(<unknown>): the document is too large once its aliases are expanded");
		return ERR_INVALID;
	}
	frame *f = &l->stack[l->depth++];
	*f = (frame){.obj = keep(l, map ? json_object_new_object() : json_object_new_array()),
		     .map = map,
		     .weight = 1,
		     .anchor = anchor_name ? arena_strdup(l->a, anchor_name) : NULL};
	return 0;
}

static int close_container(loader *l)
{
	frame f = l->stack[--l->depth];
	if (f.map && f.merges) {
		/* the mapping's own keys win, then the first merged mapping's, ... */
		for (size_t i = 0; i < json_object_array_length(f.merges); i++) {
			json_object *m = json_object_array_get_idx(f.merges, i);
			if (json_object_is_type(m, json_type_object))
				merge_into(f.obj, m);
			else
				for (size_t j = 0; j < json_object_array_length(m); j++)
					merge_into(f.obj, json_object_array_get_idx(m, j));
		}
	}
	if (f.anchor)
		add_anchor(l, f.anchor, f.obj, f.weight);
	return add_node(l, f.obj, f.weight, true, false, NULL);
}

int ci_yaml_load(arena *a, const char *text, size_t len, json_object **out, const char **err)
{
	*out = NULL;
	if (len > CI_YAML_MAX_BYTES) {
		*err = "(<unknown>): the file is too large";
		return ERR_INVALID;
	}
	loader l = {.a = a, .keep = json_object_new_array()};
	arena_defer(a, keep_put, l.keep);
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		*err = "(<unknown>): cannot read YAML";
		return ERR_INVALID;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	bool done = false;
	int rc = 0;
	while (!done && rc == 0) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev)) {
			l.err = arena_printf(a, "(<unknown>): %s%s%s at line %zu column %zu",
					     parser.problem ? parser.problem : "invalid YAML",
					     parser.context ? " " : "",
					     parser.context ? parser.context : "",
					     parser.problem_mark.line + 1,
					     parser.problem_mark.column + 1);
			rc = ERR_INVALID;
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			/* the first document only, as YAML.safe_load */
			done = ev.type == YAML_STREAM_END_EVENT || l.have_root;
			break;
		case YAML_SCALAR_EVENT: {
			const char *s = (const char *)ev.data.scalar.value;
			const char *tag = (const char *)ev.data.scalar.tag;
			json_object *o;
			if (ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			    (!tag || strcmp(tag, YAML_STR_TAG) != 0))
				o = resolve_plain(s);
			else
				o = json_object_new_string_len(s, (int)ev.data.scalar.length);
			keep(&l, o);
			/* a long string counts for its length: an alias repeated must not make
			 * the jobs' options a string of gigabytes */
			long weight = 1 + (long)(ev.data.scalar.length / CI_YAML_BYTES_PER_NODE);
			if (ev.data.scalar.anchor)
				add_anchor(&l, (const char *)ev.data.scalar.anchor, o, weight);
			rc = add_node(&l, o, weight, false, true, s);
			break;
		}
		case YAML_ALIAS_EVENT: {
			const anchor *an = find_anchor(&l, (const char *)ev.data.alias.anchor);
			if (!an) {
				l.err = arena_printf(a, "(<unknown>): Unknown alias: %s",
						     (const char *)ev.data.alias.anchor);
				rc = ERR_INVALID;
				break;
			}
			bool scalar = !an->obj ||
				      (!json_object_is_type(an->obj, json_type_object) &&
				       !json_object_is_type(an->obj, json_type_array));
			rc = add_node(&l, an->obj, an->weight, false, scalar,
				      scalar && an->obj ? json_object_get_string(an->obj) : NULL);
			break;
		}
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT: {
			bool map = ev.type == YAML_MAPPING_START_EVENT;
			rc = open_container(&l, map,
					    (const char *)(map ? ev.data.mapping_start.anchor
							       : ev.data.sequence_start.anchor));
			break;
		}
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			rc = close_container(&l);
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	if (rc < 0 || l.err) {
		*err = l.err ? l.err : "(<unknown>): invalid YAML";
		return ERR_INVALID;
	}
	*out = l.root;
	return 0;
}

/* ---- GitLab 10's configuration entries ---- */

typedef struct {
	arena *a;
	json_object *keep;
	const char *err;
} cfg;

static int fail(cfg *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(cfg *c, const char *fmt, ...)
{
	if (!c->err) {
		va_list ap;
		va_start(ap, fmt);
		char *s = NULL;
		if (vasprintf(&s, fmt, ap) >= 0) {
			c->err = arena_strdup(c->a, s);
			free(s);
		} else {
			c->err = "Invalid configuration format";
		}
		va_end(ap);
	}
	return ERR_INVALID;
}

static json_object *new_kept(cfg *c, json_object *o)
{
	json_object_array_add(c->keep, o);
	return o;
}

static bool is_type(json_object *o, json_type t)
{
	return o && json_object_is_type(o, t);
}

static bool is_string(json_object *o)
{
	return is_type(o, json_type_string);
}

static bool string_array(json_object *o)
{
	if (!is_type(o, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(o); i++)
		if (!is_string(json_object_array_get_idx(o, i)))
			return false;
	return true;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;
	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool has(json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

/* "config contains unknown keys: a, b" for the keys of o outside allowed. */
static int check_keys(cfg *c, const char *where, json_object *o, const char *const *allowed)
{
	buf b;
	buf_init(&b, c->a, 64);
	bool any = false;
	json_object_object_foreach(o, k, v)
	{
		(void)v;
		if (!matches(k, allowed)) {
			if (any)
				buf_puts(&b, ", ");
			buf_puts(&b, k);
			any = true;
		}
	}
	if (any)
		return fail(c, "%s config contains unknown keys: %s", where, buf_cstr(&b));
	return 0;
}

/* Whether regcomp may be given body: glibc expands bounded repetitions ({n,m}) into
 * copies, so nested ones can take gigabytes (((a{255}){255}){255}), and backreferences
 * make matching exponential. A pattern is refused when it is long, has a backreference,
 * or the product of its bounds (each + 1, as if all nested) is large. */
static bool regex_safe(const char *body)
{
	if (strlen(body) > 1024)
		return false;
	double product = 1;
	for (const char *p = body; *p; p++) {
		if (*p == '\\' && p[1]) {
			if (p[1] >= '1' && p[1] <= '9')
				return false;
			p++;
		} else if (*p == '{') {
			long most = 0;
			for (const char *q = p + 1; *q && *q != '}'; q++)
				if (isdigit((unsigned char)*q)) {
					long v = strtol(q, (char **)&q, 10);
					most = v > most ? v : most;
					q--;
				}
			product *= (double)most + 1;
			if (product > 100000)
				return false;
		}
	}
	return true;
}

/* A /regex/ that compiles, and that regex_safe lets through. */
static bool valid_regex(const char *s)
{
	size_t n = strlen(s);
	if (n < 2 || s[0] != '/' || s[n - 1] != '/')
		return false;
	char *body = strndup(s + 1, n - 2);
	if (!body)
		return false;
	if (!regex_safe(body)) {
		free(body);
		return false;
	}
	regex_t re;
	int rc = regcomp(&re, body, REG_EXTENDED | REG_NOSUB);
	free(body);
	if (rc != 0)
		return false;
	regfree(&re);
	return true;
}

/* A duration as ChronicDuration reads the few forms GitLab's documentation shows
 * ("42", "3 mins 4 sec", "2 hrs 20 min", "6 mos 1 day", "47 yrs 6 mos and 4d",
 * "3 weeks and 2 days"). */
static bool valid_duration(const char *s)
{
	static const char *const units[] = {"s",    "sec",   "secs",   "second",  "seconds", "m",
					    "min",  "mins",  "minute", "minutes", "h",       "hr",
					    "hrs",  "hour",  "hours",  "d",       "day",     "days",
					    "w",    "wk",    "wks",    "week",    "weeks",   "mo",
					    "mos",  "month", "months", "y",       "yr",      "yrs",
					    "year", "years", NULL};
	bool any = false;
	const char *p = s;
	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		if (!*p)
			break;
		if (strncmp(p, "and ", 4) == 0 && any) {
			p += 4;
			continue;
		}
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p) || *p == '.')
			p++;
		while (*p == ' ')
			p++;
		const char *u = p;
		while (isalpha((unsigned char)*p))
			p++;
		if (p > u) {
			char unit[16];
			size_t n = (size_t)(p - u);
			if (n >= sizeof(unit))
				return false;
			memcpy(unit, u, n);
			unit[n] = 0;
			for (size_t i = 0; i < n; i++)
				unit[i] = (char)tolower((unsigned char)unit[i]);
			if (!matches(unit, units))
				return false;
		}
		any = true;
	}
	return any;
}

/* Entry::Script (before_script, after_script): an array of strings. */
static int script_entry(cfg *c, const char *where, json_object *o)
{
	if (!string_array(o))
		return fail(c, "%s config should be an array of strings", where);
	return 0;
}

/* Entry::Image: a string or {name, entrypoint}; answers {name[, entrypoint]}. */
static json_object *image_entry(cfg *c, const char *where, json_object *o)
{
	if (is_string(o)) {
		json_object *r = new_kept(c, json_object_new_object());
		json_object_object_add(r, "name", json_object_get(o));
		return r;
	}
	if (!is_type(o, json_type_object)) {
		fail(c, "%s config should be a hash or a string", where);
		return NULL;
	}
	static const char *const keys[] = {"name", "entrypoint", NULL};
	if (check_keys(c, where, o, keys) < 0)
		return NULL;
	if (!is_string(get(o, "name"))) {
		fail(c, "%s name should be a string", where);
		return NULL;
	}
	if (has(o, "entrypoint") && !string_array(get(o, "entrypoint"))) {
		fail(c, "%s entrypoint should be an array of strings", where);
		return NULL;
	}
	return o;
}

/* Entry::Services: an array of strings or {name, entrypoint, command, alias}. */
static json_object *services_entry(cfg *c, const char *where, json_object *o)
{
	if (!is_type(o, json_type_array)) {
		fail(c, "%s config should be a array", where);
		return NULL;
	}
	json_object *r = new_kept(c, json_object_new_array());
	const char *swhere = arena_printf(c->a, "%s:service", where);
	for (size_t i = 0; i < json_object_array_length(o); i++) {
		json_object *s = json_object_array_get_idx(o, i);
		if (is_string(s)) {
			json_object *n = json_object_new_object();
			json_object_object_add(n, "name", json_object_get(s));
			json_object_array_add(r, n);
			continue;
		}
		if (!is_type(s, json_type_object)) {
			fail(c, "%s config should be a hash or a string", swhere);
			return NULL;
		}
		static const char *const keys[] = {"name", "entrypoint", "command", "alias", NULL};
		if (check_keys(c, swhere, s, keys) < 0)
			return NULL;
		if (!is_string(get(s, "name"))) {
			fail(c, "%s name should be a string", swhere);
			return NULL;
		}
		if ((has(s, "entrypoint") && !string_array(get(s, "entrypoint"))) ||
		    (has(s, "command") && !string_array(get(s, "command")))) {
			fail(c, "%s entrypoint and command should be arrays of strings", swhere);
			return NULL;
		}
		if (has(s, "alias") && !is_string(get(s, "alias"))) {
			fail(c, "%s alias should be a string", swhere);
			return NULL;
		}
		json_object_array_add(r, json_object_get(s));
	}
	return r;
}

/* Entry::Variables: a mapping of names to strings (or numbers, taken as strings);
 * answers it with string values. */
static json_object *variables_entry(cfg *c, const char *where, json_object *o)
{
	if (!is_type(o, json_type_object)) {
		fail(c, "%s config should be a hash of key value pairs", where);
		return NULL;
	}
	json_object *r = new_kept(c, json_object_new_object());
	json_object_object_foreach(o, k, v)
	{
		if (!is_string(v) && !is_type(v, json_type_int) && !is_type(v, json_type_double)) {
			fail(c, "%s config should be a hash of key value pairs", where);
			return NULL;
		}
		json_object_object_add(r, k, json_object_new_string(json_object_get_string(v)));
	}
	return r;
}

/* Entry::Cache: {key, untracked, paths, policy}. */
static json_object *cache_entry(cfg *c, const char *where, json_object *o)
{
	if (!is_type(o, json_type_object)) {
		fail(c, "%s config should be a hash", where);
		return NULL;
	}
	static const char *const keys[] = {"key", "untracked", "paths", "policy", NULL};
	if (check_keys(c, where, o, keys) < 0)
		return NULL;
	json_object *r = new_kept(c, json_object_new_object());
	json_object *key = get(o, "key");
	if (has(o, "key") && !is_string(key)) {
		fail(c, "%s:key config should be a string or symbol", where);
		return NULL;
	}
	json_object_object_add(r, "key",
			       key ? json_object_get(key) : json_object_new_string("default"));
	if (has(o, "untracked") && !is_type(get(o, "untracked"), json_type_boolean)) {
		fail(c, "%s:untracked config should be a boolean value", where);
		return NULL;
	}
	if (has(o, "untracked"))
		json_object_object_add(r, "untracked", json_object_get(get(o, "untracked")));
	if (has(o, "paths") && !string_array(get(o, "paths"))) {
		fail(c, "%s:paths config should be an array of strings", where);
		return NULL;
	}
	if (has(o, "paths"))
		json_object_object_add(r, "paths", json_object_get(get(o, "paths")));
	static const char *const policies[] = {"pull-push", "push", "pull", NULL};
	json_object *policy = get(o, "policy");
	if (has(o, "policy") &&
	    (!is_string(policy) || !matches(json_object_get_string(policy), policies))) {
		fail(c, "%s:policy config should be pull-push, push, or pull", where);
		return NULL;
	}
	json_object_object_add(r, "policy",
			       policy ? json_object_get(policy)
				      : json_object_new_string("pull-push"));
	return r;
}

/* Entry::Artifacts: {name, untracked, paths, when, expire_in}. */
static int artifacts_entry(cfg *c, const char *where, json_object *o)
{
	if (!is_type(o, json_type_object))
		return fail(c, "%s config should be a hash", where);
	static const char *const keys[] = {"name", "untracked", "paths", "when", "expire_in", NULL};
	static const char *const whens[] = {"on_success", "on_failure", "always", NULL};
	if (check_keys(c, where, o, keys) < 0)
		return ERR_INVALID;
	if (has(o, "name") && !is_string(get(o, "name")))
		return fail(c, "%s name should be a string", where);
	if (has(o, "untracked") && !is_type(get(o, "untracked"), json_type_boolean))
		return fail(c, "%s untracked should be a boolean value", where);
	if (has(o, "paths") && !string_array(get(o, "paths")))
		return fail(c, "%s paths should be an array of strings", where);
	json_object *when = get(o, "when");
	if (has(o, "when") && (!is_string(when) || !matches(json_object_get_string(when), whens)))
		return fail(c, "%s when should be on_success, on_failure or always", where);
	json_object *exp = get(o, "expire_in");
	if (has(o, "expire_in") && (!(is_string(exp) || is_type(exp, json_type_int)) ||
				    !valid_duration(json_object_get_string(exp))))
		return fail(c, "%s expire in should be a duration", where);
	return 0;
}

/* Entry::Trigger (only, except): an array of strings and /regexps/, or (10.0's
 * policies) {refs: [...]}; answers the patterns. */
static json_object *policy_entry(cfg *c, const char *where, json_object *o)
{
	if (is_type(o, json_type_object)) {
		static const char *const keys[] = {"refs", "kubernetes", NULL};
		if (check_keys(c, where, o, keys) < 0)
			return NULL;
		json_object *refs = get(o, "refs");
		if (has(o, "kubernetes")) {
			/* no cluster is ever active here: nothing matches */
			return new_kept(c, json_object_new_array());
		}
		o = refs;
	}
	if (!string_array(o)) {
		fail(c, "%s config should be an array of strings or regexps", where);
		return NULL;
	}
	for (size_t i = 0; i < json_object_array_length(o); i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(o, i));
		size_t n = strlen(p);
		if (n >= 2 && p[0] == '/' && p[n - 1] == '/' && !valid_regex(p)) {
			fail(c, "%s config should be an array of strings or regexps", where);
			return NULL;
		}
	}
	return o;
}

/* GitLab 10's environment name: letters, digits, '-', '_', '/', '$', '{', '}', '.' and
 * spaces, not starting or ending with '/', at most 255 characters. */
static int environment_name(cfg *c, const char *where, const char *name)
{
	size_t n = strlen(name);
	if (n == 0)
		return fail(c, "%s name can't be blank", where);
	if (n > 255)
		return fail(c, "%s name is too long (maximum is 255 characters)", where);
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr(" _./-{}$", name[i]))
			goto bad;
	if (name[0] == '/' || name[n - 1] == '/')
		goto bad;
	return 0;
bad:
	return fail(c,
		    "%s name has to contain only letters, digits, '-', '_', '/', '$', '{', '}', "
		    "'.', and spaces, but it cannot start or end with '/'",
		    where);
}

/* Entry::Environment: a name or {name, url, action, on_stop}; answers the hash with
 * action (start by default). */
static json_object *environment_entry(cfg *c, const char *where, json_object *o)
{
	json_object *r = new_kept(c, json_object_new_object());
	if (is_string(o)) {
		if (environment_name(c, where, json_object_get_string(o)) < 0)
			return NULL;
		json_object_object_add(r, "name", json_object_get(o));
		json_object_object_add(r, "action", json_object_new_string("start"));
		return r;
	}
	if (!is_type(o, json_type_object)) {
		fail(c, "%s config should be a hash or a string", where);
		return NULL;
	}
	static const char *const keys[] = {"name", "url", "action", "on_stop", NULL};
	if (check_keys(c, where, o, keys) < 0)
		return NULL;
	json_object *name = get(o, "name");
	if (!name) {
		fail(c, "%s name can't be blank", where);
		return NULL;
	}
	if (!is_string(name)) {
		fail(c, "%s name should be a string", where);
		return NULL;
	}
	if (environment_name(c, where, json_object_get_string(name)) < 0)
		return NULL;
	json_object_object_add(r, "name", json_object_get(name));
	json_object *url = get(o, "url");
	if (url) {
		const char *u = is_string(url) ? json_object_get_string(url) : NULL;
		if (!u || strlen(u) > 255 ||
		    (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0)) {
			fail(c, "%s url must be a valid url", where);
			return NULL;
		}
		json_object_object_add(r, "url", json_object_get(url));
	}
	json_object *action = get(o, "action");
	static const char *const actions[] = {"start", "stop", NULL};
	if (action && (!is_string(action) || !matches(json_object_get_string(action), actions))) {
		fail(c, "%s action should be start or stop", where);
		return NULL;
	}
	json_object_object_add(r, "action",
			       action ? json_object_get(action) : json_object_new_string("start"));
	json_object *on_stop = get(o, "on_stop");
	if (on_stop && !is_string(on_stop)) {
		fail(c, "%s on stop should be a string", where);
		return NULL;
	}
	if (on_stop)
		json_object_object_add(r, "on_stop", json_object_get(on_stop));
	return r;
}

/* The global entries that jobs inherit. */
typedef struct {
	json_object *before_script, *after_script, *image, *services, *variables, *cache;
} globals;

static void add_opt(json_object *options, const char *key, json_object *v)
{
	if (v)
		json_object_object_add(options, key, json_object_get(v));
}

/* Entry::Job: checks job `name` (config o) and fills j (stage name, not yet its index). */
static int job_entry(cfg *c, const globals *g, const char *name, json_object *o, ci_job *j)
{
	static const char *const keys[] = {
		"tags",      "script",      "only",          "except",        "type",
		"image",     "services",    "allow_failure", "stage",         "when",
		"artifacts", "cache",       "dependencies",  "before_script", "after_script",
		"variables", "environment", "coverage",      "retry",         NULL};
	static const char *const whens[] = {"on_success", "on_failure", "always", "manual", NULL};
	const char *w = arena_printf(c->a, "jobs:%s", name);
	if (!is_type(o, json_type_object))
		return fail(c, "%s config should be a hash", w);
	if (check_keys(c, w, o, keys) < 0)
		return ERR_INVALID;
	json_object *script = get(o, "script");
	if (!script || (is_type(script, json_type_array) && !json_object_array_length(script)) ||
	    (is_string(script) && !*json_object_get_string(script)))
		return fail(c, "%s script can't be blank", w);
	if (!is_string(script) && !string_array(script))
		return fail(c, "%s:script config should be a string or an array of strings", w);
	json_object *when = get(o, "when");
	if (has(o, "when") && (!is_string(when) || !matches(json_object_get_string(when), whens)))
		return fail(c, "%s when should be on_success, on_failure, always or manual", w);
	json_object *af = get(o, "allow_failure");
	if (has(o, "allow_failure") && !is_type(af, json_type_boolean))
		return fail(c, "%s allow_failure should be a boolean value", w);
	json_object *tags = get(o, "tags");
	if (has(o, "tags") && !string_array(tags))
		return fail(c, "%s tags should be an array of strings", w);
	json_object *deps = get(o, "dependencies");
	if (has(o, "dependencies") && !string_array(deps))
		return fail(c, "%s dependencies should be an array of strings", w);
	json_object *stage = get(o, "stage");
	if (!stage)
		stage = get(o, "type");
	if (stage && !is_string(stage))
		return fail(c, "%s:stage config should be a string", w);
	json_object *retry = get(o, "retry");
	if (has(o, "retry")) {
		if (!is_type(retry, json_type_int))
			return fail(c, "%s retry is not a number", w);
		if (json_object_get_int64(retry) < 0)
			return fail(c, "%s retry must be greater than or equal to 0", w);
		if (json_object_get_int64(retry) > 2)
			return fail(c, "%s retry must be less than or equal to 2", w);
	}
	json_object *coverage = get(o, "coverage");
	if (has(o, "coverage") &&
	    (!is_string(coverage) || !valid_regex(json_object_get_string(coverage))))
		return fail(c, "%s:coverage config must be a regular expression", w);

	json_object *before = g->before_script, *after = g->after_script;
	if (has(o, "before_script")) {
		before = get(o, "before_script");
		if (script_entry(c, arena_printf(c->a, "%s:before_script", w), before) < 0)
			return ERR_INVALID;
	}
	if (has(o, "after_script")) {
		after = get(o, "after_script");
		if (script_entry(c, arena_printf(c->a, "%s:after_script", w), after) < 0)
			return ERR_INVALID;
	}
	json_object *image = g->image, *services = g->services, *cache = g->cache;
	if (has(o, "image") &&
	    !(image = image_entry(c, arena_printf(c->a, "%s:image", w), get(o, "image"))))
		return ERR_INVALID;
	if (has(o, "services") &&
	    !(services =
		      services_entry(c, arena_printf(c->a, "%s:services", w), get(o, "services"))))
		return ERR_INVALID;
	if (has(o, "cache") &&
	    !(cache = cache_entry(c, arena_printf(c->a, "%s:cache", w), get(o, "cache"))))
		return ERR_INVALID;
	json_object *vars = NULL;
	if (has(o, "variables") &&
	    !(vars = variables_entry(c, arena_printf(c->a, "%s:variables", w),
				     get(o, "variables"))))
		return ERR_INVALID;
	if (has(o, "artifacts") &&
	    artifacts_entry(c, arena_printf(c->a, "%s:artifacts", w), get(o, "artifacts")) < 0)
		return ERR_INVALID;
	json_object *env = NULL;
	if (has(o, "environment") &&
	    !(env = environment_entry(c, arena_printf(c->a, "%s:environment", w),
				      get(o, "environment"))))
		return ERR_INVALID;
	json_object *only = NULL, *except = NULL;
	if (has(o, "only") &&
	    !(only = policy_entry(c, arena_printf(c->a, "%s:only", w), get(o, "only"))))
		return ERR_INVALID;
	if (has(o, "except") &&
	    !(except = policy_entry(c, arena_printf(c->a, "%s:except", w), get(o, "except"))))
		return ERR_INVALID;

	*j = (ci_job){.name = arena_strdup(c->a, name),
		      .stage = stage ? arena_strdup(c->a, json_object_get_string(stage)) : "test",
		      .when = when ? arena_strdup(c->a, json_object_get_string(when))
				   : "on_success",
		      .tags = tags ? tags : new_kept(c, json_object_new_array()),
		      .only = only,
		      .except = except};
	/* manual jobs allow failure unless they say otherwise (Job#ignored?) */
	j->allow_failure = af ? json_object_get_boolean(af) : strcmp(j->when, "manual") == 0;
	j->options = new_kept(c, json_object_new_object());
	add_opt(j->options, "image", image);
	add_opt(j->options, "services", services);
	add_opt(j->options, "artifacts", get(o, "artifacts"));
	add_opt(j->options, "cache", cache);
	add_opt(j->options, "dependencies", deps);
	add_opt(j->options, "before_script", before);
	if (is_string(script)) {
		json_object *one = json_object_new_array();
		json_object_array_add(one, json_object_get(script));
		json_object_object_add(j->options, "script", one);
	} else {
		add_opt(j->options, "script", script);
	}
	add_opt(j->options, "after_script", after);
	add_opt(j->options, "environment", env);
	add_opt(j->options, "retry", retry);
	if (coverage) {
		/* the regex without its slashes, as GitLab's coverage_regex */
		const char *re = json_object_get_string(coverage);
		json_object_object_add(j->options, "coverage",
				       json_object_new_string_len(re + 1, (int)strlen(re) - 2));
	}
	/* the global variables, then the job's over them */
	json_object *merged = new_kept(c, json_object_new_object());
	if (g->variables)
		merge_into(merged, g->variables);
	if (vars) {
		json_object_object_foreach(vars, k, v)
		{
			json_object_object_add(merged, k, json_object_get(v));
		}
	}
	j->variables = new_kept(c, json_object_new_array());
	json_object_object_foreach(merged, mk, mv)
	{
		json_object *e = json_object_new_object();
		json_object_object_add(e, "key", json_object_new_string(mk));
		json_object_object_add(e, "value", json_object_get(mv));
		json_object_object_add(e, "public", json_object_new_boolean(1));
		json_object_array_add(j->variables, e);
	}
	if (env)
		j->environment = arena_strdup(c->a, json_object_get_string(get(env, "name")));
	return 0;
}

static const ci_job *find_job(const ci_config *cf, const char *name)
{
	for (int i = 0; i < cf->njobs; i++)
		if (strcmp(cf->jobs[i].name, name) == 0)
			return &cf->jobs[i];
	return NULL;
}

/* YamlProcessor's checks across jobs: stages, dependencies, on_stop. */
static int cross_checks(cfg *c, ci_config *cf)
{
	for (int i = 0; i < cf->njobs; i++) {
		ci_job *j = &cf->jobs[i];
		j->stage_idx = -1;
		for (int s = 0; s < cf->nstages; s++)
			if (strcmp(cf->stages[s], j->stage) == 0) {
				j->stage_idx = s;
				break;
			}
		if (j->stage_idx < 0) {
			buf b;
			buf_init(&b, c->a, 64);
			for (int s = 0; s < cf->nstages; s++) {
				if (s)
					buf_puts(&b, ", ");
				buf_puts(&b, cf->stages[s]);
			}
			return fail(c, "%s job: stage parameter should be %s", j->name,
				    buf_cstr(&b));
		}
	}
	for (int i = 0; i < cf->njobs; i++) {
		ci_job *j = &cf->jobs[i];
		json_object *deps = get(j->options, "dependencies");
		for (size_t d = 0; deps && d < json_object_array_length(deps); d++) {
			const char *dn = json_object_get_string(json_object_array_get_idx(deps, d));
			const ci_job *dj = find_job(cf, dn);
			if (!dj)
				return fail(c, "%s job: undefined dependency: %s", j->name, dn);
			if (dj->stage_idx >= j->stage_idx)
				return fail(c,
					    "%s job: dependency %s is not defined in prior stages",
					    j->name, dn);
		}
		json_object *env = get(j->options, "environment");
		json_object *on_stop = env ? get(env, "on_stop") : NULL;
		if (!on_stop)
			continue;
		const char *sn = json_object_get_string(on_stop);
		const ci_job *sj = find_job(cf, sn);
		if (!sj)
			return fail(c, "%s job: on_stop job %s is not defined", j->name, sn);
		json_object *senv = get(sj->options, "environment");
		if (!senv)
			return fail(c, "%s job: on_stop job %s does not have environment defined",
				    j->name, sn);
		if (strcmp(json_object_get_string(get(senv, "name")), j->environment) != 0)
			return fail(c, "%s job: on_stop job %s have different environment name",
				    j->name, sn);
		if (strcmp(json_object_get_string(get(senv, "action")), "stop") != 0)
			return fail(c, "%s job: on_stop job %s needs to have action stop defined",
				    j->name, sn);
	}
	return 0;
}

static int by_stage(const void *x, const void *y)
{
	const ci_job *a = x, *b = y;
	if (a->stage_idx != b->stage_idx)
		return a->stage_idx < b->stage_idx ? -1 : 1;
	/* stable: the file's order, kept in the pointer order of the array */
	return a < b ? -1 : a > b;
}

static int parse(cfg *c, json_object *root, ci_config *out)
{
	static const char *const global_keys[] = {"image",     "services",      "stages",
						  "types",     "before_script", "after_script",
						  "variables", "cache",         NULL};
	if (!is_type(root, json_type_object))
		return fail(c, "Invalid configuration format");
	globals g = {0};
	json_object *stages = get(root, "stages");
	if (!stages)
		stages = get(root, "types");
	if (stages && !string_array(stages))
		return fail(c, "stages config should be an array of strings");
	if (has(root, "before_script")) {
		g.before_script = get(root, "before_script");
		if (script_entry(c, "before_script", g.before_script) < 0)
			return ERR_INVALID;
	}
	if (has(root, "after_script")) {
		g.after_script = get(root, "after_script");
		if (script_entry(c, "after_script", g.after_script) < 0)
			return ERR_INVALID;
	}
	if (has(root, "image") && !(g.image = image_entry(c, "image", get(root, "image"))))
		return ERR_INVALID;
	if (has(root, "services") &&
	    !(g.services = services_entry(c, "services", get(root, "services"))))
		return ERR_INVALID;
	if (has(root, "variables") &&
	    !(g.variables = variables_entry(c, "variables", get(root, "variables"))))
		return ERR_INVALID;
	if (has(root, "cache") && !(g.cache = cache_entry(c, "cache", get(root, "cache"))))
		return ERR_INVALID;

	if (stages) {
		out->nstages = (int)json_object_array_length(stages);
		out->stages = arena_alloc(c->a, sizeof(char *) * (size_t)(out->nstages + 1));
		for (int i = 0; i < out->nstages; i++)
			out->stages[i] = arena_strdup(
				c->a, json_object_get_string(json_object_array_get_idx(stages, i)));
	} else {
		static const char *defaults[] = {"build", "test", "deploy"};
		out->nstages = 3;
		out->stages = defaults;
	}
	size_t n = (size_t)json_object_object_length(root);
	out->jobs = arena_alloc(c->a, sizeof(ci_job) * (n + 1));
	out->njobs = 0;
	json_object_object_foreach(root, k, v)
	{
		if (matches(k, global_keys) || k[0] == '.')
			continue; /* hidden jobs are templates for anchors */
		if (job_entry(c, &g, k, v, &out->jobs[out->njobs]) < 0)
			return ERR_INVALID;
		out->njobs++;
	}
	if (out->njobs == 0)
		return fail(c, "jobs config should contain at least one visible job");
	if (cross_checks(c, out) < 0)
		return ERR_INVALID;
	qsort(out->jobs, (size_t)out->njobs, sizeof(ci_job), by_stage);
	return 0;
}

int ci_yaml_parse(arena *a, const char *text, size_t len, ci_config *out, const char **err)
{
	*out = (ci_config){0};
	json_object *root;
	if (ci_yaml_load(a, text, len, &root, err) < 0)
		return ERR_INVALID;
	cfg c = {.a = a, .keep = json_object_new_array()};
	arena_defer(a, keep_put, c.keep);
	if (parse(&c, root, out) < 0) {
		*err = c.err ? c.err : "Invalid configuration format";
		*out = (ci_config){0};
		return ERR_INVALID;
	}
	return 0;
}

const char *ci_yaml_problem(arena *a, const char *text, size_t len, ci_config *out)
{
	/* Ruby's blank?: empty or white space only */
	size_t i = 0;
	while (i < len && text[i] && strchr(" \t\n\v\f\r", text[i]))
		i++;
	*out = (ci_config){0};
	if (i == len)
		return "Please provide content of .gitlab-ci.yml";
	const char *err = NULL;
	if (ci_yaml_parse(a, text, len, out, &err) < 0)
		return err ? err : "Invalid configuration format";
	return NULL;
}

/* ---- only / except ---- */

static bool pattern_matches(const char *pattern, const char *ref, bool tag, const char *source,
			    const char *project_path)
{
	char *p = strdup(pattern);
	if (!p)
		return false;
	char *at = strchr(p, '@');
	bool ok = true;
	if (at) {
		*at = 0;
		ok = project_path && strcmp(at + 1, project_path) == 0;
	}
	if (ok) {
		/* api, external and web are themselves; push, schedule and trigger plural */
		const char *src_pattern = !source                           ? ""
					  : strcmp(source, "push") == 0     ? "pushes"
					  : strcmp(source, "trigger") == 0  ? "triggers"
					  : strcmp(source, "schedule") == 0 ? "schedules"
									    : source;
		size_t n = strlen(p);
		if ((tag && strcmp(p, "tags") == 0) || (!tag && strcmp(p, "branches") == 0) ||
		    strcmp(p, src_pattern) == 0) {
			ok = true;
		} else if (n >= 2 && p[0] == '/' && p[n - 1] == '/') {
			p[n - 1] = 0;
			regex_t re;
			ok = regex_safe(p + 1) &&
			     regcomp(&re, p + 1, REG_EXTENDED | REG_NOSUB) == 0;
			if (ok) {
				ok = regexec(&re, ref, 0, NULL, 0) == 0;
				regfree(&re);
			}
		} else {
			ok = strcmp(p, ref) == 0;
		}
	}
	free(p);
	return ok;
}

static bool any_matches(json_object *patterns, const char *ref, bool tag, const char *source,
			const char *project_path)
{
	for (size_t i = 0; i < json_object_array_length(patterns); i++)
		if (pattern_matches(json_object_get_string(json_object_array_get_idx(patterns, i)),
				    ref, tag, source, project_path))
			return true;
	return false;
}

bool ci_job_selected(const ci_job *j, const char *ref, bool tag, const char *source,
		     const char *project_path)
{
	if (j->only && !any_matches(j->only, ref, tag, source, project_path))
		return false;
	if (j->except && any_matches(j->except, ref, tag, source, project_path))
		return false;
	return true;
}

const char *ci_slug(arena *a, const char *s)
{
	size_t n = strlen(s);
	char *out = arena_alloc(a, n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n && k < 63; i++) {
		char ch = (char)tolower((unsigned char)s[i]);
		out[k++] = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ? ch : '-';
	}
	out[k] = 0;
	while (k > 0 && out[k - 1] == '-')
		out[--k] = 0;
	size_t lead = strspn(out, "-");
	return out + lead;
}
