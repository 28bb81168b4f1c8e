-- collabd schema, part 1: accounts, credentials, SSH keys, broadcast messages, events.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Timestamps as the API shows them: ISO 8601, UTC, milliseconds.
CREATE FUNCTION iso8601(timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

CREATE TABLE users (
	id bigserial PRIMARY KEY,
	username text NOT NULL,
	email text NOT NULL,
	name text NOT NULL,
	state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'blocked')),
	is_admin boolean NOT NULL DEFAULT false,
	ghost boolean NOT NULL DEFAULT false,
	password_hash text,
	password_expires_at timestamptz,
	bio text,
	location text,
	skype text NOT NULL DEFAULT '',
	linkedin text NOT NULL DEFAULT '',
	twitter text NOT NULL DEFAULT '',
	website_url text NOT NULL DEFAULT '',
	organization text,
	projects_limit integer NOT NULL DEFAULT 100000 CHECK (projects_limit >= 0),
	can_create_group boolean NOT NULL DEFAULT true,
	external boolean NOT NULL DEFAULT false,
	theme_id integer NOT NULL DEFAULT 1,
	color_scheme_id integer NOT NULL DEFAULT 1,
	avatar text,
	confirmed_at timestamptz,
	last_sign_in_at timestamptz,
	current_sign_in_at timestamptz,
	last_activity_on date,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE INDEX users_created_at_idx ON users (created_at);
CREATE INDEX users_blocked_idx ON users (id) WHERE state = 'blocked';
CREATE INDEX users_external_idx ON users (id) WHERE external;
CREATE INDEX users_search_idx ON users USING gin (username gin_trgm_ops, name gin_trgm_ops, email gin_trgm_ops);

CREATE TABLE identities (
	id bigserial PRIMARY KEY,
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	provider text NOT NULL,
	extern_uid text NOT NULL,
	UNIQUE (provider, extern_uid),
	UNIQUE (user_id, provider)
);

-- Every credential: the user's private token, personal access tokens, impersonation
-- tokens and OAuth access tokens. Looked up by the SHA-256 of the token; the private
-- token, which the API shows again to admins, is also kept sealed with the instance key.
CREATE TABLE tokens (
	id bigserial PRIMARY KEY,
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	kind text NOT NULL CHECK (kind IN ('private', 'personal', 'impersonation', 'oauth')),
	name text NOT NULL DEFAULT '',
	digest text NOT NULL,
	sealed text,
	refresh_digest text,
	scopes text[] NOT NULL DEFAULT '{api}',
	expires_at date,
	revoked boolean NOT NULL DEFAULT false,
	created_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT tokens_digest_key UNIQUE (digest)
);
CREATE INDEX tokens_user_kind_idx ON tokens (user_id, kind);
CREATE UNIQUE INDEX tokens_one_private_idx ON tokens (user_id) WHERE kind = 'private';

CREATE TABLE keys (
	id bigserial PRIMARY KEY,
	user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	title text NOT NULL,
	key text NOT NULL,
	fingerprint text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT keys_fingerprint_key UNIQUE (fingerprint)
);
CREATE INDEX keys_user_idx ON keys (user_id, id);

CREATE TABLE broadcast_messages (
	id bigserial PRIMARY KEY,
	message text NOT NULL,
	starts_at timestamptz NOT NULL,
	ends_at timestamptz NOT NULL,
	color text,
	font text,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);

-- Activity events. project_id and the target columns are filled by the resources that
-- emit events; author_id moves to the ghost user when an author is deleted.
CREATE TABLE events (
	id bigserial PRIMARY KEY,
	project_id bigint,
	author_id bigint NOT NULL REFERENCES users (id),
	action text NOT NULL,        -- the filter value: created, pushed, commented, ...
	action_name text NOT NULL,   -- as shown: opened, pushed to, commented on, ...
	target_id bigint,
	target_iid bigint,
	target_type text,
	target_title text,
	data jsonb,
	created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_author_idx ON events (author_id, created_at);
CREATE INDEX events_project_idx ON events (project_id, created_at);
