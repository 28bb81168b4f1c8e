/* .gitlab-ci.yml read as GitLab 10's Gitlab::Ci::Config and YamlProcessor did: the YAML
 * (libyaml, with anchors, aliases and `<<` merge keys) into stages and jobs, each job
 * with what its rows need (stage, when, allow_failure, tags, options, variables,
 * environment) and its only/except patterns. Errors are GitLab 10's texts; the first
 * one found is reported, as GitLab did. Hostile input is bounded: the text's size, the
 * nesting depth and the number of nodes after alias expansion, long strings counting for
 * their length (a YAML "billion laughs" stops at the bound, having built nothing big: an
 * alias shares its anchor's node; what the jobs' rows get is at most some megabytes). */
#ifndef COLLABD_CI_YAML_H
#define COLLABD_CI_YAML_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/arena.h"

/* Bounds on what is read. */
#define CI_YAML_MAX_BYTES (1024 * 1024)
#define CI_YAML_MAX_DEPTH 64
#define CI_YAML_MAX_NODES 100000
/* a scalar counts as one node per this many bytes (and one more) */
#define CI_YAML_BYTES_PER_NODE 32

typedef struct {
	const char *name;
	const char *stage;
	int stage_idx;
	const char *when;    /* on_success, on_failure, always, manual */
	bool allow_failure;  /* manual jobs allow failure unless told otherwise */
	json_object *tags;   /* array of strings */
	json_object *only;   /* array of patterns, NULL when not given */
	json_object *except; /* likewise */
	/* script, before_script, after_script, image, services, artifacts, cache,
	 * dependencies, retry, environment {name, url, action, on_stop}, coverage */
	json_object *options;
	json_object *variables;  /* the global and the job's: [{key, value, public}] */
	const char *environment; /* its name as written ($VARIABLES unexpanded), or NULL */
} ci_job;

typedef struct {
	const char **stages;
	int nstages;
	ci_job *jobs; /* by stage, then in the file's order */
	int njobs;
} ci_config;

/* Parses the len bytes of text: 0 with *out, or ERR_INVALID with *err, GitLab 10's
 * message.
 * Everything (strings and JSON objects) belongs to arena a. */
int ci_yaml_parse(arena *a, const char *text, size_t len, ci_config *out, const char **err);

/* What GitLab 10's YamlProcessor.validation_message said of the len bytes of text: NULL
 * when they make a valid configuration (then in *out), else the first problem (blank
 * text, the YAML's syntax, a configuration that is not a mapping, a job's error). */
const char *ci_yaml_problem(arena *a, const char *text, size_t len, ci_config *out);

/* Loads YAML text as a JSON value (mappings as objects, sequences as arrays, scalars
 * resolved as YAML 1.1 does: null, booleans, integers, floats, strings), in arena a.
 * 0 with *out (NULL for an empty document), or ERR_INVALID with *err. */
int ci_yaml_load(arena *a, const char *text, size_t len, json_object **out, const char **err);

/* Whether job j runs in a pipeline of ref (a tag or a branch) from source (push, web,
 * api, trigger, schedule, external) in the project of full path project_path: its only
 * patterns (none: any) and not its except ones, as GitLab 10 matched them: branches,
 * tags, api, external, pushes, schedules, triggers, web, /regex/ or a ref name, each with
 * an optional @<project path>. */
bool ci_job_selected(const ci_job *j, const char *ref, bool tag, const char *source,
		     const char *project_path);

/* GitLab's slug of a ref or environment name (CI_COMMIT_REF_SLUG): lower case, every
 * character outside [a-z0-9] a '-', at most 63 characters, no leading or trailing '-'. */
const char *ci_slug(arena *a, const char *s);

#endif
