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
