-- The titles of an issue's or a merge request's labels, sorted, kept on its row
-- (label_titles): the lists show them without reading label_links and labels for every
-- row. Statement triggers on label_links (a link made, removed or moved) and on labels (a
-- title changed) write them again for the rows they touch, in the transaction that
-- changes the links or the titles; a removed label takes its links with it (ON DELETE
-- CASCADE), whose removal comes here too.
ALTER TABLE issues ADD COLUMN label_titles text[] NOT NULL DEFAULT '{}';
ALTER TABLE merge_requests ADD COLUMN label_titles text[] NOT NULL DEFAULT '{}';

-- The sorted titles of the labels of the kind's row of id target.
CREATE FUNCTION label_titles(kind text, target bigint) RETURNS text[] LANGUAGE sql STABLE AS $$
	SELECT ARRAY(SELECT l.title FROM label_links ll JOIN labels l ON l.id = ll.label_id
		WHERE ll.target_type = kind AND ll.target_id = target ORDER BY l.title)
$$;

-- Writes again the titles of the rows (kinds[i], ids[i]): 'Issue' or 'MergeRequest'
-- and the row's id.
CREATE FUNCTION label_titles_write(kinds text[], ids bigint[]) RETURNS void LANGUAGE sql AS $$
	UPDATE issues i SET label_titles = label_titles('Issue', i.id)
	WHERE i.id IN (SELECT x.id FROM unnest(kinds, ids) x (kind, id) WHERE x.kind = 'Issue');
	UPDATE merge_requests m SET label_titles = label_titles('MergeRequest', m.id)
	WHERE m.id IN (SELECT x.id FROM unnest(kinds, ids) x (kind, id)
		WHERE x.kind = 'MergeRequest');
$$;

CREATE FUNCTION label_links_titles_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM label_titles_write(array_agg(target_type), array_agg(target_id)) FROM changed;
	RETURN NULL;
END $$;

CREATE FUNCTION label_links_titles_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM label_titles_write(array_agg(target_type), array_agg(target_id))
	FROM (SELECT target_type, target_id FROM was UNION SELECT target_type, target_id FROM changed) x;
	RETURN NULL;
END $$;

CREATE TRIGGER label_titles_insert AFTER INSERT ON label_links
	REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION label_links_titles_new();
CREATE TRIGGER label_titles_delete AFTER DELETE ON label_links
	REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION label_links_titles_new();
CREATE TRIGGER label_titles_update AFTER UPDATE ON label_links
	REFERENCING OLD TABLE AS was NEW TABLE AS changed
	FOR EACH STATEMENT EXECUTE FUNCTION label_links_titles_moved();

CREATE FUNCTION labels_titles_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM label_titles_write(array_agg(ll.target_type), array_agg(ll.target_id))
	FROM changed c JOIN was w ON w.id = c.id AND w.title IS DISTINCT FROM c.title
	JOIN label_links ll ON ll.label_id = c.id;
	RETURN NULL;
END $$;

CREATE TRIGGER label_titles_rename AFTER UPDATE ON labels
	REFERENCING OLD TABLE AS was NEW TABLE AS changed
	FOR EACH STATEMENT EXECUTE FUNCTION labels_titles_renamed();

UPDATE issues i SET label_titles = t.titles
FROM (SELECT ll.target_id, array_agg(l.title ORDER BY l.title) AS titles FROM label_links ll
	JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'Issue' GROUP BY 1) t
WHERE t.target_id = i.id;
UPDATE merge_requests m SET label_titles = t.titles
FROM (SELECT ll.target_id, array_agg(l.title ORDER BY l.title) AS titles FROM label_links ll
	JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'MergeRequest' GROUP BY 1) t
WHERE t.target_id = m.id;
