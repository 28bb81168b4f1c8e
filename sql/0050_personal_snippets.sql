-- collabd schema: personal snippets (rows of snippets without a project, sql/0013) and
-- the user agent details of GitLab 10.8's spam checks: the User-Agent and the client
-- address of the request that created an issue or a snippet, which admins read
-- (UserAgentDetail; akismet_submitted stays false: collabd submits nothing to Akismet).
-- The public list of personal snippets reads the partial index newest first; a
-- caller's own list reads snippets_author.
CREATE INDEX snippets_personal_visibility ON snippets (visibility, id) WHERE project_id IS NULL;

CREATE TABLE user_agent_details (
	id bigserial PRIMARY KEY,
	subject_type text NOT NULL CHECK (subject_type IN ('Issue', 'Snippet')),
	subject_id bigint NOT NULL,
	user_agent text NOT NULL,
	ip_address text NOT NULL,
	submitted boolean NOT NULL DEFAULT false,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (subject_type, subject_id)
);

-- The details go with their issue or snippet (kept apart from tracker_forget, which
-- other migrations may redefine).
CREATE FUNCTION user_agent_details_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM user_agent_details
		WHERE subject_type = CASE TG_TABLE_NAME WHEN 'issues' THEN 'Issue' ELSE 'Snippet' END
		AND subject_id = OLD.id;
	RETURN NULL;
END $$;
CREATE TRIGGER user_agent_details_forget AFTER DELETE ON issues
	FOR EACH ROW EXECUTE FUNCTION user_agent_details_forget();
CREATE TRIGGER user_agent_details_forget AFTER DELETE ON snippets
	FOR EACH ROW EXECUTE FUNCTION user_agent_details_forget();
