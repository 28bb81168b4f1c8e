-- collabd schema: the tracker (issues, labels, milestones, snippets, award emoji, boards,
-- subscriptions) and the iid counters merge requests share. Notes are the table of
-- sql/0012 (commit comments), which issue, snippet and merge request notes join.

-- Per-scope internal ids: 'issues' and 'merge_requests' per project, 'milestones' per
-- project ('Project') or group ('Namespace'). next_iid() takes the counter's row lock
-- until the transaction ends, so two instances creating in one scope at once get
-- consecutive, distinct values; a value is never handed out again once committed.
CREATE TABLE iid_counters (
	kind text NOT NULL,
	scope_type text NOT NULL CHECK (scope_type IN ('Project', 'Namespace')),
	scope_id bigint NOT NULL,
	last_value bigint NOT NULL,
	PRIMARY KEY (kind, scope_type, scope_id)
);
CREATE FUNCTION next_iid(k text, t text, s bigint) RETURNS bigint LANGUAGE sql AS $$
	INSERT INTO iid_counters AS c (kind, scope_type, scope_id, last_value) VALUES (k, t, s, 1)
	ON CONFLICT (kind, scope_type, scope_id) DO UPDATE SET last_value = c.last_value + 1
	RETURNING last_value
$$;

-- Milestones of a project or of a group (exactly one of the two).
CREATE TABLE milestones (
	id bigserial PRIMARY KEY,
	project_id bigint REFERENCES projects (id) ON DELETE CASCADE,
	group_id bigint REFERENCES namespaces (id) ON DELETE CASCADE,
	iid bigint NOT NULL,
	title text NOT NULL,
	description text,
	state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'closed')),
	due_date date,
	start_date date,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CHECK ((project_id IS NULL) <> (group_id IS NULL)),
	CHECK (start_date IS NULL OR due_date IS NULL OR start_date <= due_date)
);
CREATE UNIQUE INDEX milestones_project_iid ON milestones (project_id, iid) WHERE project_id IS NOT NULL;
CREATE UNIQUE INDEX milestones_group_iid ON milestones (group_id, iid) WHERE group_id IS NOT NULL;
CREATE UNIQUE INDEX milestones_project_title ON milestones (project_id, title) WHERE project_id IS NOT NULL;
CREATE UNIQUE INDEX milestones_group_title ON milestones (group_id, title) WHERE group_id IS NOT NULL;

-- Labels of a project or of a group; color stored as '#rrggbb'.
CREATE TABLE labels (
	id bigserial PRIMARY KEY,
	project_id bigint REFERENCES projects (id) ON DELETE CASCADE,
	group_id bigint REFERENCES namespaces (id) ON DELETE CASCADE,
	title text NOT NULL,
	color text NOT NULL CHECK (color ~ '^#[0-9a-f]{6}$'),
	description text,
	priority integer CHECK (priority >= 0),
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CHECK ((project_id IS NULL) <> (group_id IS NULL))
);
CREATE UNIQUE INDEX labels_project_title ON labels (project_id, title) WHERE project_id IS NOT NULL;
CREATE UNIQUE INDEX labels_group_title ON labels (group_id, title) WHERE group_id IS NOT NULL;

CREATE TABLE issues (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	iid bigint NOT NULL,
	title text NOT NULL,
	description text,
	state text NOT NULL DEFAULT 'opened' CHECK (state IN ('opened', 'closed')),
	author_id bigint REFERENCES users (id) ON DELETE SET NULL,
	milestone_id bigint REFERENCES milestones (id) ON DELETE SET NULL,
	confidential boolean NOT NULL DEFAULT false,
	discussion_locked boolean,
	due_date date,
	time_estimate integer NOT NULL DEFAULT 0,
	total_time_spent integer NOT NULL DEFAULT 0,
	user_notes_count integer NOT NULL DEFAULT 0,   -- kept by the notes trigger below
	upvotes integer NOT NULL DEFAULT 0,            -- kept by the award emoji trigger
	downvotes integer NOT NULL DEFAULT 0,
	moved_to_id bigint REFERENCES issues (id) ON DELETE SET NULL,
	closed_at timestamptz,
	closed_by_id bigint REFERENCES users (id) ON DELETE SET NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (project_id, iid)
);
CREATE INDEX issues_project_created ON issues (project_id, created_at, id);
CREATE INDEX issues_project_updated ON issues (project_id, updated_at, id);
CREATE INDEX issues_state_created ON issues (state, created_at, id);
CREATE INDEX issues_author ON issues (author_id, created_at, id);
CREATE INDEX issues_milestone ON issues (milestone_id) WHERE milestone_id IS NOT NULL;
CREATE INDEX issues_search ON issues USING gin (title gin_trgm_ops, description gin_trgm_ops);

CREATE TABLE issue_assignees (
	issue_id bigint NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	PRIMARY KEY (issue_id, user_id)
);
CREATE INDEX issue_assignees_user ON issue_assignees (user_id, issue_id);

-- Labels on issues ('Issue') and merge requests ('MergeRequest').
CREATE TABLE label_links (
	label_id bigint NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
	target_type text NOT NULL CHECK (target_type IN ('Issue', 'MergeRequest')),
	target_id bigint NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (target_type, target_id, label_id)
);
CREATE INDEX label_links_label ON label_links (label_id, target_type, target_id);

-- Project snippets (project_id set) and personal ones.
CREATE TABLE snippets (
	id bigserial PRIMARY KEY,
	project_id bigint REFERENCES projects (id) ON DELETE CASCADE,
	author_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	title text NOT NULL,
	file_name text NOT NULL,
	content text NOT NULL,
	description text,
	visibility smallint NOT NULL DEFAULT 0 CHECK (visibility IN (0, 10, 20)),
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX snippets_project ON snippets (project_id, id);
CREATE INDEX snippets_author ON snippets (author_id, id);

-- Award emoji on issues, merge requests, snippets and notes ('Issue', 'MergeRequest',
-- 'Snippet', 'Note').
CREATE TABLE award_emoji (
	id bigserial PRIMARY KEY,
	name text NOT NULL,
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	awardable_type text NOT NULL,
	awardable_id bigint NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (awardable_type, awardable_id, name, user_id)
);
CREATE INDEX award_emoji_user ON award_emoji (user_id, name, awardable_type, awardable_id);

-- Subscriptions to issues, merge requests and labels ('Issue', 'MergeRequest', 'Label');
-- project_id: the project a group label is subscribed in (NULL otherwise). A row with
-- subscribed false records an explicit unsubscription (of an author, say).
CREATE TABLE subscriptions (
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	subscribable_type text NOT NULL,
	subscribable_id bigint NOT NULL,
	project_id bigint REFERENCES projects (id) ON DELETE CASCADE,
	subscribed boolean NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX subscriptions_key
	ON subscriptions (subscribable_type, subscribable_id, user_id, coalesce(project_id, 0));

-- Issue boards: one default board per project; its lists: backlog (0), one per label
-- (1, positions 0..n-1 kept dense), closed (2).
CREATE TABLE boards (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	name text NOT NULL DEFAULT 'Development',
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX boards_project ON boards (project_id, id);
CREATE TABLE board_lists (
	id bigserial PRIMARY KEY,
	board_id bigint NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
	label_id bigint REFERENCES labels (id) ON DELETE CASCADE,
	list_type smallint NOT NULL CHECK (list_type IN (0, 1, 2)),
	position integer,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CHECK ((list_type = 1) = (label_id IS NOT NULL AND position IS NOT NULL))
);
CREATE UNIQUE INDEX board_lists_label ON board_lists (board_id, label_id) WHERE label_id IS NOT NULL;

-- Notes on issues, snippets and merge requests: an attachment (an upload's path).
ALTER TABLE notes ADD COLUMN attachment text;

-- What follows from the rows of others, kept where it is read:
-- projects.open_issues_count: the project's open issues that are not confidential (as
-- GitLab 10's count for the project record); issues.user_notes_count: its notes that
-- are not system notes; issues.upvotes/downvotes: its thumbsup/thumbsdown awards.
CREATE FUNCTION tracker_issue_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	was boolean := TG_OP <> 'INSERT' AND OLD.state = 'opened' AND NOT OLD.confidential;
	now_open boolean := TG_OP <> 'DELETE' AND NEW.state = 'opened' AND NOT NEW.confidential;
BEGIN
	IF TG_OP = 'UPDATE' AND was AND now_open AND OLD.project_id = NEW.project_id THEN
		RETURN NULL;
	END IF;
	IF was THEN
		UPDATE projects SET open_issues_count = open_issues_count - 1 WHERE id = OLD.project_id;
	END IF;
	IF now_open THEN
		UPDATE projects SET open_issues_count = open_issues_count + 1 WHERE id = NEW.project_id;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER tracker_issue_counts AFTER INSERT OR DELETE OR UPDATE OF state, confidential, project_id
	ON issues FOR EACH ROW EXECUTE FUNCTION tracker_issue_counts();

CREATE FUNCTION tracker_note_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' AND OLD.noteable_type = 'Issue' AND NOT OLD.system THEN
		UPDATE issues SET user_notes_count = user_notes_count - 1 WHERE id = OLD.noteable_id;
	END IF;
	IF TG_OP <> 'DELETE' AND NEW.noteable_type = 'Issue' AND NOT NEW.system THEN
		UPDATE issues SET user_notes_count = user_notes_count + 1 WHERE id = NEW.noteable_id;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER tracker_note_counts AFTER INSERT OR DELETE OR UPDATE OF noteable_type, noteable_id, system
	ON notes FOR EACH ROW EXECUTE FUNCTION tracker_note_counts();

CREATE FUNCTION tracker_award_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' AND OLD.awardable_type = 'Issue' AND OLD.name IN ('thumbsup', 'thumbsdown') THEN
		UPDATE issues SET upvotes = upvotes - (OLD.name = 'thumbsup')::int,
			downvotes = downvotes - (OLD.name = 'thumbsdown')::int WHERE id = OLD.awardable_id;
	END IF;
	IF TG_OP <> 'DELETE' AND NEW.awardable_type = 'Issue' AND NEW.name IN ('thumbsup', 'thumbsdown') THEN
		UPDATE issues SET upvotes = upvotes + (NEW.name = 'thumbsup')::int,
			downvotes = downvotes + (NEW.name = 'thumbsdown')::int WHERE id = NEW.awardable_id;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER tracker_award_counts AFTER INSERT OR DELETE OR UPDATE
	ON award_emoji FOR EACH ROW EXECUTE FUNCTION tracker_award_counts();

-- The rows that point at an issue, a snippet or a note by type and id go with it.
CREATE FUNCTION tracker_forget() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	t text := CASE TG_TABLE_NAME WHEN 'issues' THEN 'Issue' WHEN 'snippets' THEN 'Snippet'
		WHEN 'notes' THEN 'Note' END;
BEGIN
	DELETE FROM award_emoji WHERE awardable_type = t AND awardable_id = OLD.id;
	IF t <> 'Note' THEN
		DELETE FROM notes WHERE noteable_type = t AND noteable_id = OLD.id;
		DELETE FROM subscriptions WHERE subscribable_type = t AND subscribable_id = OLD.id;
	END IF;
	IF t = 'Issue' THEN
		DELETE FROM label_links WHERE target_type = t AND target_id = OLD.id;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER tracker_forget AFTER DELETE ON issues FOR EACH ROW EXECUTE FUNCTION tracker_forget();
CREATE TRIGGER tracker_forget AFTER DELETE ON snippets FOR EACH ROW EXECUTE FUNCTION tracker_forget();
CREATE TRIGGER tracker_forget AFTER DELETE ON notes FOR EACH ROW EXECUTE FUNCTION tracker_forget();

CREATE FUNCTION tracker_forget_label() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM subscriptions WHERE subscribable_type = 'Label' AND subscribable_id = OLD.id;
	RETURN NULL;
END $$;
CREATE TRIGGER tracker_forget AFTER DELETE ON labels FOR EACH ROW EXECUTE FUNCTION tracker_forget_label();
