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
CREATE FUNCTION cache_bump_user_custom_attributes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.user_id * 16 + 1, cache_stripe(1, OLD.user_id));
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.user_id * 16 + 1, cache_stripe(1, NEW.user_id));
	END IF;
	RETURN NULL;
END $$;
CREATE FUNCTION cache_bump_group_custom_attributes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.group_id * 16 + 3, cache_stripe(3, OLD.group_id));
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.group_id * 16 + 3, cache_stripe(3, NEW.group_id));
	END IF;
	RETURN NULL;
END $$;
CREATE FUNCTION cache_bump_project_custom_attributes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN
		PERFORM cache_collect(OLD.project_id * 16 + 2, cache_stripe(2, OLD.project_id));
	END IF;
	IF TG_OP <> 'DELETE' THEN
		PERFORM cache_collect(NEW.project_id * 16 + 2, cache_stripe(2, NEW.project_id));
	END IF;
	RETURN NULL;
END $$;

CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON user_custom_attributes
	FOR EACH ROW EXECUTE FUNCTION cache_bump_user_custom_attributes();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON group_custom_attributes
	FOR EACH ROW EXECUTE FUNCTION cache_bump_group_custom_attributes();
CREATE TRIGGER cache_bump AFTER INSERT OR UPDATE OR DELETE ON project_custom_attributes
	FOR EACH ROW EXECUTE FUNCTION cache_bump_project_custom_attributes();
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
