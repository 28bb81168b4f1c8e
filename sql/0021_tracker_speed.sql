-- collabd schema: the tracker's writes. Every comment touches its issue twice
-- (updated_at, user_notes_count: sql/0013's trigger and notes.c's touch), neither a
-- column the lists find issues by. An index on updated_at made each of those an update
-- that inserts into every index of issues (the trigram index of title and description
-- too); without it, and with room left on the pages, they are heap-only (HOT) updates.
-- The lists sort a scope's issues after filtering them (issues.c), by project_id
-- (issues_project_created), so the index was not read.
DROP INDEX issues_project_updated;
ALTER TABLE issues SET (fillfactor = 85);
