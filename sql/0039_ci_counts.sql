-- How many pipelines and jobs each project has, kept in ci_project_counts: the X-Total of
-- a project's unfiltered pipeline and job lists, which counted every row of the project
-- in ci_pipelines_project_user or ci_builds_project at each request (12% of the job
-- list's statement for a project of 370 jobs; what a project of 100,000 jobs would make
-- of it). Statement triggers on ci_pipelines and ci_builds add what an insert brought
-- and take away what a delete removed (a removed project's or pipeline's cascades come
-- here too), in that transaction: a reader sees the count of its snapshot's rows.
-- A project's row appears with its first pipeline; no foreign key, so that the cascades
-- of a removed project never meet a row already gone (the row is left behind, its id
-- never used again).
CREATE TABLE ci_project_counts (
	project_id bigint PRIMARY KEY,
	pipelines bigint NOT NULL DEFAULT 0,
	builds bigint NOT NULL DEFAULT 0
);

-- Adds n pipelines and m jobs to the projects of (ids[i], n[i], m[i]), in project order
-- (two writers of the same projects lock their rows in one order).
CREATE FUNCTION ci_counts_add(ids bigint[], n bigint[], m bigint[]) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO ci_project_counts AS c (project_id, pipelines, builds)
	SELECT x.id, sum(x.n), sum(x.m) FROM unnest(ids, n, m) x (id, n, m) GROUP BY x.id
	ORDER BY x.id
	ON CONFLICT (project_id) DO UPDATE
	SET pipelines = c.pipelines + excluded.pipelines, builds = c.builds + excluded.builds;
$$;

CREATE FUNCTION ci_counts_pipelines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM ci_counts_add(array_agg(project_id), array_agg(n), array_agg(0::bigint))
	FROM (SELECT project_id, CASE WHEN TG_OP = 'INSERT' THEN count(*) ELSE -count(*) END AS n
		FROM changed GROUP BY project_id) x;
	RETURN NULL;
END $$;

CREATE FUNCTION ci_counts_builds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM ci_counts_add(array_agg(project_id), array_agg(0::bigint), array_agg(n))
	FROM (SELECT project_id, CASE WHEN TG_OP = 'INSERT' THEN count(*) ELSE -count(*) END AS n
		FROM changed GROUP BY project_id) x;
	RETURN NULL;
END $$;

CREATE TRIGGER ci_counts_insert AFTER INSERT ON ci_pipelines
	REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ci_counts_pipelines();
CREATE TRIGGER ci_counts_delete AFTER DELETE ON ci_pipelines
	REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ci_counts_pipelines();
CREATE TRIGGER ci_counts_insert AFTER INSERT ON ci_builds
	REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ci_counts_builds();
CREATE TRIGGER ci_counts_delete AFTER DELETE ON ci_builds
	REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ci_counts_builds();

INSERT INTO ci_project_counts (project_id, pipelines, builds)
SELECT project_id, sum(n), sum(m) FROM (
	SELECT project_id, count(*) AS n, 0 AS m FROM ci_pipelines GROUP BY 1
	UNION ALL SELECT project_id, 0, count(*) FROM ci_builds GROUP BY 1) x
GROUP BY project_id;
