/* Presenters of pipelines: GitLab 10's Entities::PipelineBasic (id, sha, ref, status: the
 * lists) and Entities::Pipeline (the basic fields, then before_sha, tag, yaml_errors,
 * user, the times, duration, coverage). */
#ifndef COLLABD_ENTITY_PIPELINE_H
#define COLLABD_ENTITY_PIPELINE_H

#include "core/jw.h"
#include "entity/user.h"
#include "core/ctx.h"
#include "db/db.h"

/* The rows PIPELINE_COLS reads: ci_pipelines p with the user who made it, u (LEFT JOIN:
 * none for a pipeline of no one, or whose user is gone). The coverage is the average of
 * its current jobs' coverage, as GitLab 10's Pipeline#coverage ("%.2f"). */
#define PIPELINE_FROM "ci_pipelines p LEFT JOIN users u ON u.id = p.user_id"
#define PIPELINE_COLS                                                                              \
	"p.id, p.sha, p.ref, p.status, p.before_sha, p.tag, p.yaml_errors,"                        \
	" iso8601(p.created_at), iso8601(p.updated_at), iso8601(p.started_at),"                    \
	" iso8601(p.finished_at),"                                                                 \
	" iso8601(p.committed_at), p.duration,"                                                    \
	" coalesce((SELECT to_char(avg(cs.coverage), 'FM999999999990.00') FROM commit_statuses cs" \
	" WHERE cs.pipeline_id = p.id AND NOT cs.retried AND cs.coverage IS NOT NULL),"            \
	" p.coverage), " USER_BASIC_COLS
#define PIPELINE_NCOLS 19
/* The leading columns of PIPELINE_COLS that the basic view reads (from ci_pipelines p). */
#define PIPELINE_BASIC_COLS "p.id, p.sha, p.ref, p.status"
#define PIPELINE_BASIC_NCOLS 4

json_object *entity_pipeline_basic(ctx *c, const PGresult *res, int row, int col);
/* The basic view written into w (the list's). */
void entity_pipeline_basic_write(jw *w, ctx *c, const PGresult *res, int row, int col);
json_object *entity_pipeline(ctx *c, const PGresult *res, int row, int col);

#endif
