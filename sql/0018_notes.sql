-- collabd schema: what notes and award emoji need besides sql/0013. A note's "commented
-- on" event is found by its target (to follow the note's edits and go with it).
CREATE INDEX events_target ON events (target_type, target_id) WHERE target_id IS NOT NULL;
