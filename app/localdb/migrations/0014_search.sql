-- Search (docs/api.md, "Search"): one FTS5 index over what Scouts keeps
-- of cards (every lane and status), tasks, notes, events and projects.
--
-- Only text Scouts itself stores is indexed: a card's title, excerpt (a
-- mail's snippet), sender and path; an entity's title, body and location.
-- A mail's body is never stored with its card, so it is never indexed.
-- An entity made from a card carries that card's sender, so that from:
-- finds the task made from someone's mail.
--
-- The index is kept by triggers, in the transaction of the write that
-- changes the row it indexes: a crash keeps both or neither. Only the
-- indexed columns fire them: deciding a card or moving it between lanes
-- writes nothing here (filters on lane, status and dates read the rows).
--
-- rowid = the indexed row's rowid * 8 + its type (1 card, 2 task, 3 note,
-- 4 event, 5 project), so that an update or delete finds its entry
-- without a scan; ref is the row's id, which search joins on.
CREATE VIRTUAL TABLE search_index USING fts5(
    title, body, sender,
    kind UNINDEXED, ref UNINDEXED,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);

CREATE TRIGGER search_card_insert AFTER INSERT ON suggestions BEGIN
    INSERT INTO search_index (rowid, title, body, sender, kind, ref)
    VALUES (new.rowid * 8 + 1, new.title, trim(new.excerpt || ' ' || new.path), new.sender, 'card', new.id);
END;
CREATE TRIGGER search_card_update AFTER UPDATE OF title, excerpt, sender, path ON suggestions BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid * 8 + 1;
    INSERT INTO search_index (rowid, title, body, sender, kind, ref)
    VALUES (new.rowid * 8 + 1, new.title, trim(new.excerpt || ' ' || new.path), new.sender, 'card', new.id);
END;
CREATE TRIGGER search_card_delete AFTER DELETE ON suggestions BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid * 8 + 1;
END;

CREATE TRIGGER search_task_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO search_index (rowid, title, body, sender, kind, ref)
    VALUES (new.rowid * 8 + 2, new.title, new.body,
        COALESCE((SELECT sender FROM suggestions WHERE id = new.source_suggestion_id), ''), 'task', new.id);
END;
CREATE TRIGGER search_task_update AFTER UPDATE OF title, body ON tasks BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid * 8 + 2;
    INSERT INTO search_index (rowid, title, body, sender, kind, ref)
    VALUES (new.rowid * 8 + 2, new.title, new.body,
        COALESCE((SELECT sender FROM suggestions WHERE id = new.source_suggestion_id), ''), 'task', new.id);
END;
CREATE TRIGGER search_task_delete AFTER DELETE ON tasks BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid * 8 + 2;
END;

CREATE TRIGGER search_note_insert AFTER INSERT ON notes BEGIN
    INSERT INTO search_index (rowid, title, body, sender, kind, ref)
    VALUES (new.rowid * 8 + 3, new.title, new.body,
        COALESCE((SELECT sender FROM suggestions WHERE id = new.source_suggestion_id), ''), 'note', new.id);
END;
CREATE TRIGGER search_note_update AFTER UPDATE OF title, body ON notes BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid * 8 + 3;
    INSERT INTO search_index (rowid, title, body, sender, kind, ref)
    VALUES (new.rowid * 8 + 3, new.title, new.body,
        COALESCE((SELECT sender FROM suggestions WHERE id = new.source_suggestion_id), ''), 'note', new.id);
END;
CREATE TRIGGER search_note_delete AFTER DELETE ON notes BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid * 8 + 3;
END;

CREATE TRIGGER search_event_insert AFTER INSERT ON events BEGIN
    INSERT INTO search_index (rowid, title, body, sender, kind, ref)
    VALUES (new.rowid * 8 + 4, new.title, trim(new.body || ' ' || new.location),
        COALESCE((SELECT sender FROM suggestions WHERE id = new.source_suggestion_id), ''), 'event', new.id);
END;
CREATE TRIGGER search_event_update AFTER UPDATE OF title, body, location ON events BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid * 8 + 4;
    INSERT INTO search_index (rowid, title, body, sender, kind, ref)
    VALUES (new.rowid * 8 + 4, new.title, trim(new.body || ' ' || new.location),
        COALESCE((SELECT sender FROM suggestions WHERE id = new.source_suggestion_id), ''), 'event', new.id);
END;
CREATE TRIGGER search_event_delete AFTER DELETE ON events BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid * 8 + 4;
END;

CREATE TRIGGER search_project_insert AFTER INSERT ON projects BEGIN
    INSERT INTO search_index (rowid, title, body, sender, kind, ref)
    VALUES (new.rowid * 8 + 5, new.title, new.body,
        COALESCE((SELECT sender FROM suggestions WHERE id = new.source_suggestion_id), ''), 'project', new.id);
END;
CREATE TRIGGER search_project_update AFTER UPDATE OF title, body ON projects BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid * 8 + 5;
    INSERT INTO search_index (rowid, title, body, sender, kind, ref)
    VALUES (new.rowid * 8 + 5, new.title, new.body,
        COALESCE((SELECT sender FROM suggestions WHERE id = new.source_suggestion_id), ''), 'project', new.id);
END;
CREATE TRIGGER search_project_delete AFTER DELETE ON projects BEGIN
    DELETE FROM search_index WHERE rowid = old.rowid * 8 + 5;
END;

-- What was stored before this migration.
INSERT INTO search_index (rowid, title, body, sender, kind, ref)
SELECT rowid * 8 + 1, title, trim(excerpt || ' ' || path), sender, 'card', id FROM suggestions;
INSERT INTO search_index (rowid, title, body, sender, kind, ref)
SELECT t.rowid * 8 + 2, t.title, t.body, COALESCE(s.sender, ''), 'task', t.id FROM tasks t LEFT JOIN suggestions s ON s.id = t.source_suggestion_id;
INSERT INTO search_index (rowid, title, body, sender, kind, ref)
SELECT n.rowid * 8 + 3, n.title, n.body, COALESCE(s.sender, ''), 'note', n.id FROM notes n LEFT JOIN suggestions s ON s.id = n.source_suggestion_id;
INSERT INTO search_index (rowid, title, body, sender, kind, ref)
SELECT e.rowid * 8 + 4, e.title, trim(e.body || ' ' || e.location), COALESCE(s.sender, ''), 'event', e.id FROM events e LEFT JOIN suggestions s ON s.id = e.source_suggestion_id;
INSERT INTO search_index (rowid, title, body, sender, kind, ref)
SELECT p.rowid * 8 + 5, p.title, p.body, COALESCE(s.sender, ''), 'project', p.id FROM projects p LEFT JOIN suggestions s ON s.id = p.source_suggestion_id;
