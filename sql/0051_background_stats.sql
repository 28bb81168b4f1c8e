-- collabd schema: what GitLab 10 showed of Sidekiq (GET /sidekiq/...), kept for collabd's
-- own job queue (src/api/sidekiq.c).
--
-- background_job_stats: the jobs of each kind done and failed since the database began,
-- counted in the transaction that finishes the job (db/queue.c), as Sidekiq's
-- processed/failed counters.
CREATE TABLE background_job_stats (
	kind text PRIMARY KEY,
	processed bigint NOT NULL DEFAULT 0,
	failed bigint NOT NULL DEFAULT 0
);

-- background_processes: the background processes of every instance, as Sidekiq's
-- process set. Each adds its row when it connects, touches seen_at every 10 s, and
-- removes it when it stops; a row not seen for a minute is a process that died (the API
-- leaves it out, the next process to start removes it). backend_pid is its PostgreSQL
-- connection's: busy is whether that connection is in a transaction (a job runs in one).
CREATE TABLE background_processes (
	id bigserial PRIMARY KEY,
	hostname text NOT NULL,
	pid integer NOT NULL,
	backend_pid integer NOT NULL,
	started_at timestamptz NOT NULL DEFAULT now(),
	seen_at timestamptz NOT NULL DEFAULT now()
);
