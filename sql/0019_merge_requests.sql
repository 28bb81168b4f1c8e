-- collabd schema: merge requests. A request lives in its target project (iid from
-- next_iid('merge_requests', 'Project', target)); its source is a branch of the same
-- project or of a fork. Commits and diffs are read from git (the merge base of the
-- source head and the target branch); what a push changes (the head sha, merge_status)
-- the background process writes after it (the `push` job).
CREATE TABLE merge_requests (
	id bigserial PRIMARY KEY,
	iid bigint NOT NULL,
	target_project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	source_project_id bigint REFERENCES projects (id) ON DELETE SET NULL,
	source_branch text NOT NULL,
	target_branch text NOT NULL,
	title text NOT NULL,
	description text,
	-- locked: GitLab's state while a merge runs (counts as open)
	state text NOT NULL DEFAULT 'opened' CHECK (state IN ('opened', 'closed', 'merged', 'locked')),
	merge_status text NOT NULL DEFAULT 'unchecked'
		CHECK (merge_status IN ('unchecked', 'can_be_merged', 'cannot_be_merged')),
	author_id bigint REFERENCES users (id) ON DELETE SET NULL,
	assignee_id bigint REFERENCES users (id) ON DELETE SET NULL,
	milestone_id bigint REFERENCES milestones (id) ON DELETE SET NULL,
	sha text,                 -- the source branch's head when last seen
	merge_commit_sha text,
	merged_by_id bigint REFERENCES users (id) ON DELETE SET NULL,
	merged_at timestamptz,
	closed_by_id bigint REFERENCES users (id) ON DELETE SET NULL,
	closed_at timestamptz,
	merge_when_pipeline_succeeds boolean NOT NULL DEFAULT false,
	merge_user_id bigint REFERENCES users (id) ON DELETE SET NULL,
	merge_commit_message text, -- the message asked for with merge_when_pipeline_succeeds
	force_remove_source_branch boolean NOT NULL DEFAULT false, -- remove_source_branch
	should_remove_source_branch boolean NOT NULL DEFAULT false, -- asked at merge time
	discussion_locked boolean,
	time_estimate integer NOT NULL DEFAULT 0,
	total_time_spent integer NOT NULL DEFAULT 0,
	user_notes_count integer NOT NULL DEFAULT 0,   -- kept by the notes trigger below
	upvotes integer NOT NULL DEFAULT 0,            -- kept by the award emoji trigger
	downvotes integer NOT NULL DEFAULT 0,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (target_project_id, iid)
);
-- One open request per pair of branches.
CREATE UNIQUE INDEX merge_requests_open_pair ON merge_requests
	(source_project_id, source_branch, target_project_id, target_branch)
	WHERE state IN ('opened', 'locked');
CREATE INDEX merge_requests_project_created ON merge_requests (target_project_id, created_at, id);
CREATE INDEX merge_requests_project_updated ON merge_requests (target_project_id, updated_at, id);
CREATE INDEX merge_requests_project_state ON merge_requests (target_project_id, state, created_at, id);
CREATE INDEX merge_requests_state_created ON merge_requests (state, created_at, id);
CREATE INDEX merge_requests_author ON merge_requests (author_id, created_at, id);
CREATE INDEX merge_requests_assignee ON merge_requests (assignee_id, created_at, id)
	WHERE assignee_id IS NOT NULL;
CREATE INDEX merge_requests_milestone ON merge_requests (milestone_id) WHERE milestone_id IS NOT NULL;
-- What a push to a branch finds: the open requests from it and into it.
CREATE INDEX merge_requests_open_source ON merge_requests (source_project_id, source_branch)
	WHERE state IN ('opened', 'locked');
CREATE INDEX merge_requests_open_target ON merge_requests (target_project_id, target_branch)
	WHERE state IN ('opened', 'locked');
CREATE INDEX merge_requests_search ON merge_requests
	USING gin (title gin_trgm_ops, description gin_trgm_ops);

-- The counts of sql/0013's triggers, for merge requests: user_notes_count (notes that
-- are not system notes), upvotes/downvotes (thumbsup/thumbsdown awards).
CREATE FUNCTION merge_request_note_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' AND OLD.noteable_type = 'MergeRequest' AND NOT OLD.system THEN
		UPDATE merge_requests SET user_notes_count = user_notes_count - 1
		WHERE id = OLD.noteable_id;
	END IF;
	IF TG_OP <> 'DELETE' AND NEW.noteable_type = 'MergeRequest' AND NOT NEW.system THEN
		UPDATE merge_requests SET user_notes_count = user_notes_count + 1
		WHERE id = NEW.noteable_id;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER merge_request_note_counts
	AFTER INSERT OR DELETE OR UPDATE OF noteable_type, noteable_id, system
	ON notes FOR EACH ROW EXECUTE FUNCTION merge_request_note_counts();

CREATE FUNCTION merge_request_award_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' AND OLD.awardable_type = 'MergeRequest'
	   AND OLD.name IN ('thumbsup', 'thumbsdown') THEN
		UPDATE merge_requests SET upvotes = upvotes - (OLD.name = 'thumbsup')::int,
			downvotes = downvotes - (OLD.name = 'thumbsdown')::int WHERE id = OLD.awardable_id;
	END IF;
	IF TG_OP <> 'DELETE' AND NEW.awardable_type = 'MergeRequest'
	   AND NEW.name IN ('thumbsup', 'thumbsdown') THEN
		UPDATE merge_requests SET upvotes = upvotes + (NEW.name = 'thumbsup')::int,
			downvotes = downvotes + (NEW.name = 'thumbsdown')::int WHERE id = NEW.awardable_id;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER merge_request_award_counts AFTER INSERT OR DELETE OR UPDATE
	ON award_emoji FOR EACH ROW EXECUTE FUNCTION merge_request_award_counts();

-- The rows that point at a merge request by type and id go with it.
CREATE FUNCTION merge_request_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM award_emoji WHERE awardable_type = 'MergeRequest' AND awardable_id = OLD.id;
	DELETE FROM notes WHERE noteable_type = 'MergeRequest' AND noteable_id = OLD.id;
	DELETE FROM subscriptions WHERE subscribable_type = 'MergeRequest' AND subscribable_id = OLD.id;
	DELETE FROM label_links WHERE target_type = 'MergeRequest' AND target_id = OLD.id;
	RETURN NULL;
END $$;
CREATE TRIGGER merge_request_forget AFTER DELETE ON merge_requests
	FOR EACH ROW EXECUTE FUNCTION merge_request_forget();
