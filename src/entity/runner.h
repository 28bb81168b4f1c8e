/* Presenters of runners: GitLab 10's Entities::Runner (id, description, active,
 * is_shared, name) and Entities::RunnerDetails (with tag_list, run_untagged, locked,
 * version, revision, platform, architecture, contacted_at, token, projects,
 * access_level). */
#ifndef COLLABD_ENTITY_RUNNER_H
#define COLLABD_ENTITY_RUNNER_H

#include "core/ctx.h"
#include "core/jw.h"
#include "db/db.h"

/* The columns of ci_runners R that the summary reads, then those the details add. */
#define RUNNER_COLS(R) R ".id, " R ".description, " R ".active, " R ".is_shared, " R ".name"
#define RUNNER_NCOLS 5
#define RUNNER_DETAIL_COLS(R)                                                                      \
	RUNNER_COLS(R)                                                                             \
	", " R ".tag_list, " R ".run_untagged, " R ".locked, " R ".version, " R ".revision, " R    \
	".platform, " R ".architecture, iso8601(" R ".contacted_at), " R ".token_sealed, " R       \
	".access_level"
#define RUNNER_DETAIL_NCOLS 15

/* The columns of a runner's project that the details show: projects p, namespaces n. */
#define RUNNER_PROJECT_COLS                                                                        \
	"p.id, p.name, n.full_name || ' / ' || p.name, p.path, n.full_path || '/' || p.path"
#define RUNNER_PROJECT_NCOLS 5

json_object *entity_runner(ctx *c, const PGresult *res, int row, int col);
/* The details of row's runner: its token only when show_token (the instance key opens
 * it), and as its projects the rows of projects (RUNNER_PROJECT_COLS from column 0). */
json_object *entity_runner_details(ctx *c, const PGresult *res, int row, int col, bool show_token,
				   const PGresult *projects);

#endif
