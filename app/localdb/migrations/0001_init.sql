-- The desktop's own data. Times are Unix milliseconds (INTEGER); IDs are
-- prefixed ULIDs (scouts.NewID). Schema files create; later numbered files
-- only upgrade.

CREATE TABLE scouts (
    id            TEXT PRIMARY KEY,
    kind          TEXT NOT NULL,
    name          TEXT NOT NULL,
    enabled       INTEGER NOT NULL DEFAULT 1,
    review        INTEGER NOT NULL DEFAULT 1,
    config        TEXT NOT NULL DEFAULT '{}',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    last_run_at   INTEGER,
    last_success  INTEGER,
    last_error    TEXT NOT NULL DEFAULT '',
    last_run_new  INTEGER NOT NULL DEFAULT 0,
    total_new     INTEGER NOT NULL DEFAULT 0,
    -- Deleted scouts are kept (hidden) so that the suggestions and entities
    -- they produced keep their provenance.
    deleted_at    INTEGER
);

CREATE TABLE suggestions (
    id                 TEXT PRIMARY KEY,
    scout_id           TEXT NOT NULL REFERENCES scouts(id),
    source_type        TEXT NOT NULL,
    source_ref         TEXT NOT NULL,
    trace_id           TEXT NOT NULL,
    title              TEXT NOT NULL,
    excerpt            TEXT NOT NULL DEFAULT '',
    sender             TEXT NOT NULL DEFAULT '',
    path               TEXT NOT NULL DEFAULT '',
    url                TEXT NOT NULL DEFAULT '',
    proposed_kind      TEXT NOT NULL,
    reason             TEXT NOT NULL DEFAULT '',
    payload            TEXT,
    status             TEXT NOT NULL CHECK (status IN ('pending','approved','rejected','expired')),
    created_at         INTEGER NOT NULL,
    expires_at         INTEGER NOT NULL,
    resolved_at        INTEGER,
    resolved_kind      TEXT,
    resolved_entity_id TEXT,
    UNIQUE (scout_id, source_ref)
);
-- Entries of an index are ordered by key then rowid, so listing one status
-- in insertion (detection) order needs no sort.
CREATE INDEX suggestions_status ON suggestions (status);
CREATE INDEX suggestions_pending_expiry ON suggestions (expires_at) WHERE status = 'pending';
CREATE INDEX suggestions_trace ON suggestions (trace_id);

-- Entities: one table per kind, as the user sees them. source_suggestion_id
-- is UNIQUE so that a suggestion can never yield two entities, whatever the
-- code above does.
CREATE TABLE projects (
    id                   TEXT PRIMARY KEY,
    title                TEXT NOT NULL,
    body                 TEXT NOT NULL DEFAULT '',
    done                 INTEGER NOT NULL DEFAULT 0,
    source_suggestion_id TEXT UNIQUE REFERENCES suggestions(id) ON DELETE SET NULL,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
);

CREATE TABLE tasks (
    id                   TEXT PRIMARY KEY,
    title                TEXT NOT NULL,
    body                 TEXT NOT NULL DEFAULT '',
    done                 INTEGER NOT NULL DEFAULT 0,
    due_at               INTEGER,
    project_id           TEXT REFERENCES projects(id) ON DELETE SET NULL,
    source_suggestion_id TEXT UNIQUE REFERENCES suggestions(id) ON DELETE SET NULL,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
);
CREATE INDEX tasks_project ON tasks (project_id);

CREATE TABLE notes (
    id                   TEXT PRIMARY KEY,
    title                TEXT NOT NULL,
    body                 TEXT NOT NULL DEFAULT '',
    source_suggestion_id TEXT UNIQUE REFERENCES suggestions(id) ON DELETE SET NULL,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
);

CREATE TABLE events (
    id                   TEXT PRIMARY KEY,
    title                TEXT NOT NULL,
    body                 TEXT NOT NULL DEFAULT '',
    starts_at            INTEGER,
    ends_at              INTEGER,
    location             TEXT NOT NULL DEFAULT '',
    source_suggestion_id TEXT UNIQUE REFERENCES suggestions(id) ON DELETE SET NULL,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
);

-- Audit outlives what it describes: no foreign keys, so deleting a scout or
-- an entity never rewrites history.
CREATE TABLE audit (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    trace_id TEXT NOT NULL,
    stage    TEXT NOT NULL,
    type     TEXT NOT NULL,
    outcome  TEXT NOT NULL,
    summary  TEXT NOT NULL,
    refs     TEXT NOT NULL DEFAULT '{}',
    at       INTEGER NOT NULL
);
CREATE INDEX audit_trace ON audit (trace_id, id);

-- A folder scout's cursor: what it has seen of its tree, one row per entry
-- (file, directory, link or unreadable file), keyed by directory so a scan
-- loads one directory's worth at a time.
CREATE TABLE folder_entries (
    scout_id TEXT NOT NULL REFERENCES scouts(id) ON DELETE CASCADE,
    dir      TEXT NOT NULL,
    name     TEXT NOT NULL,
    type     TEXT NOT NULL,
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash     TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (scout_id, dir, name)
) WITHOUT ROWID;

-- Per-scout cursors that are a single value (a folder scout's baseline, a
-- Gmail history id).
CREATE TABLE scout_cursors (
    scout_id TEXT NOT NULL REFERENCES scouts(id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (scout_id, name)
) WITHOUT ROWID;

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
