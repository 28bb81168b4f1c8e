-- The unfiltered user list pages through an index of live (non-ghost) users and takes
-- its X-Total from a counter kept by a trigger in the same transaction as the change,
-- instead of counting every user on every request.
CREATE INDEX users_live_idx ON users (id) WHERE NOT ghost;

CREATE TABLE counters (
	name text PRIMARY KEY,
	value bigint NOT NULL
);
INSERT INTO counters (name, value) SELECT 'users', count(*) FROM users WHERE NOT ghost;

CREATE FUNCTION users_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' AND NOT NEW.ghost THEN
		UPDATE counters SET value = value + 1 WHERE name = 'users';
	ELSIF TG_OP = 'DELETE' AND NOT OLD.ghost THEN
		UPDATE counters SET value = value - 1 WHERE name = 'users';
	END IF;
	RETURN NULL;
END $$;

CREATE TRIGGER users_count AFTER INSERT OR DELETE ON users
	FOR EACH ROW EXECUTE FUNCTION users_count_trigger();
