-- collabd schema: users' GPG keys and the verified signatures of commits (GitLab 10.8's
-- GpgKey, GpgKeySubkey and GpgSignature). What GPGME read from a key when it was added
-- is kept beside its armored text (the fingerprint, the primary key's id, the user ids'
-- names and emails in the key's order, its subkeys), so that a verification looks a
-- signature's issuer up with an index and spawns gpg only for the signature itself.
-- Key ids and fingerprints are upper-case hex, as GitLab shows them.
CREATE TABLE gpg_keys (
	id bigserial PRIMARY KEY,
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	key text NOT NULL,
	fingerprint text NOT NULL,
	primary_keyid text NOT NULL,
	uid_names text[] NOT NULL DEFAULT '{}',
	uid_emails text[] NOT NULL DEFAULT '{}', -- lower case, as GitLab's user_infos
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT gpg_keys_fingerprint_key UNIQUE (fingerprint),
	CONSTRAINT gpg_keys_primary_keyid_key UNIQUE (primary_keyid)
);
CREATE INDEX gpg_keys_user_idx ON gpg_keys (user_id, id);
-- the armored text may pass a btree entry's size: its digest serves the "key has
-- already been taken" check
CREATE INDEX gpg_keys_key_md5_idx ON gpg_keys (md5(key));

CREATE TABLE gpg_key_subkeys (
	id bigserial PRIMARY KEY,
	gpg_key_id bigint NOT NULL REFERENCES gpg_keys (id) ON DELETE CASCADE,
	keyid text NOT NULL,
	fingerprint text NOT NULL,
	CONSTRAINT gpg_key_subkeys_keyid_key UNIQUE (keyid),
	CONSTRAINT gpg_key_subkeys_fingerprint_key UNIQUE (fingerprint)
);
CREATE INDEX gpg_key_subkeys_key_idx ON gpg_key_subkeys (gpg_key_id);

-- A commit's signature as it was verified (GitLab keeps these rows so that gpg runs
-- once per commit). A key removed leaves its signatures as they were, without the key
-- (GitLab's dependent: :nullify); a key revoked makes them unknown_key first; a key
-- added makes those of its key ids that were not verified be verified again (their rows
-- go, the next read makes them anew).
CREATE TABLE gpg_signatures (
	id bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	commit_sha text NOT NULL,
	gpg_key_id bigint REFERENCES gpg_keys (id) ON DELETE SET NULL,
	gpg_key_subkey_id bigint REFERENCES gpg_key_subkeys (id) ON DELETE SET NULL,
	gpg_key_primary_keyid text, -- NULL: gpg found no signature in the text
	gpg_key_user_name text,
	gpg_key_user_email text,
	verification_status text NOT NULL CHECK (verification_status IN ('unverified',
		'verified', 'same_user_different_email', 'other_user', 'unverified_key',
		'unknown_key')),
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT gpg_signatures_commit_key UNIQUE (project_id, commit_sha)
);
CREATE INDEX gpg_signatures_keyid_idx ON gpg_signatures (gpg_key_primary_keyid);
CREATE INDEX gpg_signatures_key_idx ON gpg_signatures (gpg_key_id) WHERE gpg_key_id IS NOT NULL;
CREATE INDEX gpg_signatures_subkey_idx ON gpg_signatures (gpg_key_subkey_id)
	WHERE gpg_key_subkey_id IS NOT NULL;

-- A user's verified emails decide the status of the signatures of their keys: an address
-- added, or a new primary one, makes those that were not verified be verified again
-- (GitLab's User#update_invalid_gpg_signatures), as a key added does.
CREATE FUNCTION gpg_signatures_reverify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM gpg_signatures s WHERE s.verification_status <> 'verified'
		AND s.gpg_key_primary_keyid IN (
			SELECT g.primary_keyid FROM gpg_keys g WHERE g.user_id = NEW.user_id
			UNION ALL SELECT sk.keyid FROM gpg_key_subkeys sk
				JOIN gpg_keys g ON g.id = sk.gpg_key_id WHERE g.user_id = NEW.user_id);
	RETURN NULL;
END $$;
CREATE TRIGGER emails_gpg_signatures AFTER INSERT ON emails
	FOR EACH ROW EXECUTE FUNCTION gpg_signatures_reverify();

CREATE FUNCTION gpg_signatures_reverify_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM gpg_signatures s WHERE s.verification_status <> 'verified'
		AND s.gpg_key_primary_keyid IN (
			SELECT g.primary_keyid FROM gpg_keys g WHERE g.user_id = NEW.id
			UNION ALL SELECT sk.keyid FROM gpg_key_subkeys sk
				JOIN gpg_keys g ON g.id = sk.gpg_key_id WHERE g.user_id = NEW.id);
	RETURN NULL;
END $$;
CREATE TRIGGER users_gpg_signatures AFTER UPDATE OF email ON users
	FOR EACH ROW WHEN (lower(OLD.email) IS DISTINCT FROM lower(NEW.email))
	EXECUTE FUNCTION gpg_signatures_reverify_user();
