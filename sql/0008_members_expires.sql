-- Memberships with an end date, for the background process's removal of expired ones.
CREATE INDEX members_expires_idx ON members (expires_at) WHERE expires_at IS NOT NULL;
