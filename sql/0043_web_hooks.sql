-- collabd schema: webhooks (GitLab 10.8's project hooks and system hooks) and their
-- deliveries.
--
-- One table for both kinds, as GitLab's web_hooks: a project hook has a project_id, a
-- system hook none. The flags and their defaults are 10.8's (push_events on, the rest
-- off, TLS verified). The token is kept only sealed with the instance key
-- (core/crypto.h): the sender needs it back, the API never shows it.
CREATE TABLE web_hooks (
	id bigserial PRIMARY KEY,
	project_id bigint REFERENCES projects (id) ON DELETE CASCADE,
	url text NOT NULL,
	token_sealed text,
	push_events boolean NOT NULL DEFAULT true,
	tag_push_events boolean NOT NULL DEFAULT false,
	issues_events boolean NOT NULL DEFAULT false,
	confidential_issues_events boolean NOT NULL DEFAULT false,
	merge_requests_events boolean NOT NULL DEFAULT false,
	note_events boolean NOT NULL DEFAULT false,
	job_events boolean NOT NULL DEFAULT false,
	pipeline_events boolean NOT NULL DEFAULT false,
	wiki_page_events boolean NOT NULL DEFAULT false,
	repository_update_events boolean NOT NULL DEFAULT false,
	enable_ssl_verification boolean NOT NULL DEFAULT true,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX web_hooks_project_idx ON web_hooks (project_id, id);
CREATE INDEX web_hooks_system_idx ON web_hooks (id) WHERE project_id IS NULL;

-- One row per (hook, event) to send, inserted in the transaction that makes the event
-- (webhooks_queue, db/webhooks.c) and deleted when the receiver answered 2xx.
--
-- Order per hook: a delivery is due only when no earlier one (smaller id) of the same
-- hook is still pending, so a failing receiver holds back its own later events and
-- nobody else's. Sharing between instances: a sender claims due rows with
-- FOR UPDATE SKIP LOCKED and marks them sending with a lease (locked_until) in a short
-- transaction, sends outside any transaction, then records the outcome; a row whose
-- lease ran out (its sender died mid-way) is due again, so nothing is lost on a restart
-- and, while a lease holds, nothing is sent twice.
--
-- state: pending (waiting for next_attempt_at), sending (leased), failed (given up
-- after the last attempt: kept with its last response, and it no longer holds back the
-- hook's later deliveries).
CREATE TABLE web_hook_deliveries (
	id bigserial PRIMARY KEY,
	hook_id bigint NOT NULL REFERENCES web_hooks (id) ON DELETE CASCADE,
	event text NOT NULL,               -- the X-Gitlab-Event header: 'Push Hook', ...
	-- NULL while the push job builds it: a push queues its deliveries in its own
	-- transaction (their ids in push order) with build_key, which the job's payload
	-- names; the job fills them in. Until then such a delivery holds its hook's later ones.
	payload jsonb CHECK (payload IS NOT NULL OR build_key IS NOT NULL),
	build_key text,
	state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'failed')),
	attempts integer NOT NULL DEFAULT 0,
	next_attempt_at timestamptz NOT NULL DEFAULT now(),
	locked_until timestamptz,
	last_status integer,               -- the receiver's HTTP status of the last attempt
	last_error text,                   -- or what went wrong (refused address, timeout, ...)
	created_at timestamptz NOT NULL DEFAULT now()
);
-- the earliest unfinished delivery of each hook, and the due ones among them
CREATE INDEX web_hook_deliveries_hook_idx ON web_hook_deliveries (hook_id, id)
	WHERE state <> 'failed';
CREATE INDEX web_hook_deliveries_build_idx ON web_hook_deliveries (build_key)
	WHERE build_key IS NOT NULL;
CREATE INDEX web_hook_deliveries_due_idx ON web_hook_deliveries (next_attempt_at, id)
	WHERE state <> 'failed';
