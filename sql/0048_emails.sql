-- collabd schema: users' secondary email addresses (GitLab's Email model), stored in
-- lower case as Devise keeps them. An address is one user's only: unique here, and the
-- statement that adds one refuses any user's primary address in the same round trip.
CREATE TABLE emails (
	id bigserial PRIMARY KEY,
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	email text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT emails_email_key UNIQUE (email)
);
CREATE INDEX emails_user_idx ON emails (user_id, id);

-- The other half of "one user's only": a user's primary address may not be another
-- user's secondary one (GitLab's User#unique_email). The refusal is the unique violation
-- of users_email_key that a primary address taken already gives, so every writer of
-- users (the API, the command line) answers it as it does that one. A user who makes one
-- of their own secondary addresses primary trades it for the old primary, which becomes
-- a secondary address (GitLab's update_emails_with_primary_email).
CREATE FUNCTION users_email_secondary() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM emails WHERE email = lower(NEW.email) AND user_id <> NEW.id) THEN
		RAISE EXCEPTION 'the address is another user''s secondary email'
			USING ERRCODE = 'unique_violation', CONSTRAINT = 'users_email_key';
	END IF;
	IF TG_OP = 'UPDATE' THEN
		DELETE FROM emails WHERE email = lower(NEW.email) AND user_id = NEW.id;
		IF FOUND AND OLD.email IS NOT NULL THEN
			INSERT INTO emails (user_id, email) VALUES (NEW.id, lower(OLD.email))
				ON CONFLICT ON CONSTRAINT emails_email_key DO NOTHING;
		END IF;
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER users_email_secondary_insert BEFORE INSERT ON users
	FOR EACH ROW EXECUTE FUNCTION users_email_secondary();
CREATE TRIGGER users_email_secondary_update BEFORE UPDATE OF email ON users
	FOR EACH ROW WHEN (OLD.email IS DISTINCT FROM NEW.email) EXECUTE FUNCTION users_email_secondary();
