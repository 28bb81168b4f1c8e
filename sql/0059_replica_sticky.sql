-- The primary's WAL position after each user's last request that may have written
-- (db/replica.h): reads of that user go to a replica only once it has replayed past it.
-- Unlogged: nothing of it goes to WAL nor to the replicas (which never read it), and its
-- writes wait for no flush. A crash of the primary empties it; the row of user_id 0,
-- which applies to everyone, is then written again by the first read, with the
-- position the primary restarted at: until a replica has replayed that far, it takes
-- nobody's reads (it may lack writes acknowledged before the crash).
CREATE UNLOGGED TABLE replica_sticky (
	user_id bigint PRIMARY KEY,
	lsn pg_lsn NOT NULL,
	at timestamptz NOT NULL DEFAULT now()
);
