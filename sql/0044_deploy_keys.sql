-- collabd schema: deploy keys (GitLab 10.8's DeployKey and DeployKeysProject). A deploy
-- key is a row of keys, as GitLab keeps it in its keys table: the fingerprint stays
-- unique across users' keys and deploy keys (keys_fingerprint_key), and the id of a
-- key names either kind in the forced command of authorized-keys (`shell key-<id>`).
-- A deploy key has no user (user_id NULL): every statement about a user's keys asks
-- for its user_id and so never sees one. creator_id is who added it (10.8 records the
-- user of POST /projects/:id/deploy_keys): a push with the key is recorded as theirs.
ALTER TABLE keys ALTER COLUMN user_id DROP NOT NULL,
	ADD COLUMN deploy boolean NOT NULL DEFAULT false,
	ADD COLUMN creator_id bigint REFERENCES users (id) ON DELETE SET NULL,
	ADD CONSTRAINT keys_owner CHECK (deploy = (user_id IS NULL));
CREATE INDEX keys_deploy_idx ON keys (id) WHERE deploy;
CREATE INDEX keys_creator_idx ON keys (creator_id) WHERE creator_id IS NOT NULL;

-- The projects a deploy key is enabled on, and whether it may push there (10.8 keeps
-- can_push per project, not per key).
CREATE TABLE deploy_keys_projects (
	id bigserial PRIMARY KEY,
	deploy_key_id bigint NOT NULL REFERENCES keys (id) ON DELETE CASCADE,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	can_push boolean NOT NULL DEFAULT false,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT deploy_keys_projects_unique UNIQUE (project_id, deploy_key_id)
);
CREATE INDEX deploy_keys_projects_key_idx ON deploy_keys_projects (deploy_key_id);

-- A key removed from its last project is removed (10.8's DeployKeysProject
-- after_destroy, for keys that are not public: collabd has no public deploy keys),
-- whatever removed it: DELETE /projects/:id/deploy_keys/:key_id or the project's
-- deletion (cascade). The key's row is locked first, so that two projects dropping it
-- at once do not each see the other's link and both keep it; each check then reads
-- what committed before.
CREATE FUNCTION deploy_keys_orphaned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM 1 FROM keys WHERE id = OLD.deploy_key_id FOR UPDATE;
	DELETE FROM keys k WHERE k.id = OLD.deploy_key_id AND k.deploy
		AND NOT EXISTS (SELECT 1 FROM deploy_keys_projects d
			WHERE d.deploy_key_id = OLD.deploy_key_id);
	RETURN NULL;
END $$;
CREATE TRIGGER deploy_keys_orphaned AFTER DELETE ON deploy_keys_projects
	FOR EACH ROW EXECUTE FUNCTION deploy_keys_orphaned();
