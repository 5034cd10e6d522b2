-- Scouts as versioned definitions (docs/definitions.md). Every change to a
-- scout's definition is a new row of scout_versions, the document as it
-- was; scouts.definition_version is the current one, and each suggestion
-- records the version that produced it (set by the trigger at insert, so
-- no writer of suggestions can forget it).

CREATE TABLE scout_versions (
    scout_id   TEXT NOT NULL REFERENCES scouts(id),
    version    INTEGER NOT NULL,
    document   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    actor      TEXT NOT NULL DEFAULT '',
    note       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (scout_id, version)
);

ALTER TABLE scouts ADD COLUMN definition_version INTEGER NOT NULL DEFAULT 0;
-- 'file:NAME' when a file of the definitions folder defines the scout.
ALTER TABLE scouts ADD COLUMN managed_by TEXT NOT NULL DEFAULT '';

ALTER TABLE suggestions ADD COLUMN definition_version INTEGER;

CREATE TRIGGER suggestions_definition_version AFTER INSERT ON suggestions
WHEN NEW.definition_version IS NULL
BEGIN
    UPDATE suggestions SET definition_version =
        (SELECT NULLIF(definition_version, 0) FROM scouts WHERE id = NEW.scout_id)
    WHERE id = NEW.id;
END;
