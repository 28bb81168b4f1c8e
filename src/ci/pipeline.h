/* Pipelines made from a commit's .gitlab-ci.yml, as GitLab 10's Ci::CreatePipelineService:
 * the configuration read from the commit, the jobs that only/except select for the ref
 * and the source, one pipeline row and one job (commit_statuses + ci_builds) per job,
 * then ci_process_pipeline (sql/0022), which starts the first stage. */
#ifndef COLLABD_CI_PIPELINE_H
#define COLLABD_CI_PIPELINE_H

#include <json-c/json.h>
#include <stdbool.h>

#include "core/ctx.h"

typedef struct {
	const char *project_id;         /* decimal */
	const char *ref;                /* branch or tag name (not refs/...) */
	const char *sha;                /* NULL: the ref's head */
	const char *before_sha;         /* NULL: 40 zeros */
	const char *source;             /* push, web, api, trigger, schedule */
	long long user_id;              /* 0: none */
	const char *trigger_request_id; /* NULL or decimal */
	const char *schedule_id;        /* NULL or decimal */
	json_object *variables;         /* NULL or [{key, value}] of a trigger, schedule, API */
} ci_pipeline_spec;

/* Creates the pipeline s describes in the caller's open transaction (no access check:
 * the caller decided that the user may, see ci_may_run_on_ref). 0 with *id; a failed
 * pipeline with yaml_errors (a push's or a trigger's invalid file) and a skipped one
 * (a push of a commit whose message says [ci skip] or [skip ci]) are pipelines too.
 * ERR_REFUSED when no pipeline is made, with *why (in c's arena) saying why in GitLab
 * 10's words ("Reference not found", "Missing .gitlab-ci.yml file", "No stages / jobs
 * for this pipeline.", a configuration error for the sources that do not keep a failed
 * pipeline, ...), which the API answers 400 {"message":{"base":[why]}}; or another
 * ERR_ code (of the database). */
int ci_pipeline_create(ctx *c, const ci_pipeline_spec *s, long long *id, const char **why);

/* Whether a caller of project access level `level` may run a pipeline on ref of
 * project_id (GitLab 10's protected refs: a protected branch needs the level its
 * protection lets push or merge; tags are not protected here). 0 with *ok, or an ERR_
 * code. */
int ci_may_run_on_ref(ctx *c, const char *project_id, int level, bool admin, const char *ref,
		      bool tag, bool *ok);

/* Runs the `push` background job's pipeline part: a pipeline for the branch or tag the
 * payload {project_id, ref (refs/heads/... or refs/tags/...), before, after, user_id}
 * moved, unless it was deleted or the project's jobs are off. 0, or ERR_INTERNAL with
 * *why. */
int ci_pipeline_on_push(ctx *c, json_object *payload, const char **why);

#endif
