-- collabd schema: custom attributes of users, groups and projects (GitLab 10.8's
-- UserCustomAttribute, GroupCustomAttribute, ProjectCustomAttribute): key/value text an
-- admin sets, at most one value per key and owner. One table per owner, as GitLab, so
-- that each has a plain foreign key whose cascade removes the attributes with their
-- owner. The (owner, key) unique index serves the API's lookups and the lists'
-- custom_attributes[KEY]=VALUE filter, which reads the attributes of each candidate.
CREATE TABLE user_custom_attributes (
	id bigserial PRIMARY KEY,
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
	value text NOT NULL CHECK (length(value) BETWEEN 1 AND 255),
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (user_id, key)
);
CREATE TABLE group_custom_attributes (
	id bigserial PRIMARY KEY,
	group_id bigint NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
	key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
	value text NOT NULL CHECK (length(value) BETWEEN 1 AND 255),
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (group_id, key)
);
CREATE TABLE project_custom_attributes (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
	value text NOT NULL CHECK (length(value) BETWEEN 1 AND 255),
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (project_id, key)
);

-- The response cache (sql/0010_cache_keys.sql): an owner's attributes are shown in its
-- record (with_custom_attributes) and filter its list, so a change bumps the owner's key
-- and the stripe of its set, as identities do for users. The owner's own deletion bumps
-- both already; the cascade's row events add nothing new.
-- TG_ARGV: the owner's column and its key set (1 users, 3 groups, 2 projects).
CREATE FUNCTION cache_bump_custom_attributes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	s integer := TG_ARGV[1]::integer;
	owner bigint;
BEGIN
	IF TG_OP <> 'INSERT' THEN
		owner := (to_jsonb(OLD) ->> TG_ARGV[0])::bigint;
		PERFORM cache_collect(owner * 16 + s, cache_stripe(s, owner));
	END IF;
	IF TG_OP <> 'DELETE' THEN
		owner := (to_jsonb(NEW) ->> TG_ARGV[0])::bigint;
		PERFORM cache_collect(owner * 16 + s, cache_stripe(s, owner));
	END IF;
	RETURN NULL;
END $$;

CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON user_custom_attributes
	FOR EACH ROW EXECUTE FUNCTION cache_bump_custom_attributes('user_id', 1);
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON group_custom_attributes
	FOR EACH ROW EXECUTE FUNCTION cache_bump_custom_attributes('group_id', 3);
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON project_custom_attributes
	FOR EACH ROW EXECUTE FUNCTION cache_bump_custom_attributes('project_id', 2);
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON user_custom_attributes
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON group_custom_attributes
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
CREATE CONSTRAINT TRIGGER cache_bump_commit AFTER INSERT OR UPDATE OR DELETE ON project_custom_attributes
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (coalesce(current_setting('collabd.cache_keys', true), '') = '')
	EXECUTE FUNCTION cache_bump_commit();
