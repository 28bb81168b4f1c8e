-- collabd schema: what the runner protocol (src/api/runner.c) needs beside sql/0022.

-- A job's coverage from its trace (GitLab 10's Ci::Build#update_coverage and
-- Gitlab::Ci::Trace#extract_coverage): the last match of the job's regex re (its
-- options.coverage, with or without the surrounding slashes) in trace, or the last
-- capture group of that match when re has groups, and in it the first number. NULL
-- when nothing matches or re is no valid regular expression: a job's configuration must
-- never make its own success fail.
CREATE FUNCTION ci_trace_coverage(trace text, re text) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	m text[];
	hit text;
BEGIN
	IF re IS NULL OR trace IS NULL THEN
		RETURN NULL;
	END IF;
	IF length(re) >= 2 AND left(re, 1) = '/' AND right(re, 1) = '/' THEN
		re := substr(re, 2, length(re) - 2);
	END IF;
	IF re = '' THEN
		RETURN NULL;
	END IF;
	BEGIN
		SELECT x.mm INTO m FROM regexp_matches(trace, re, 'g') WITH ORDINALITY AS x(mm, n)
		ORDER BY x.n DESC LIMIT 1;
	EXCEPTION WHEN invalid_regular_expression OR program_limit_exceeded
			OR statement_too_complex THEN
		RETURN NULL;
	END;
	IF m IS NULL THEN
		RETURN NULL;
	END IF;
	hit := substring(m[array_length(m, 1)] FROM '\d+(?:\.\d+)?');
	RETURN hit::double precision;
END
$$;
