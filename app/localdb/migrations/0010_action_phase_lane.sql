-- An action may be recorded with a lane move (phase 'lane'): bringing back
-- a card whose mail the scout moved to Gmail's Trash as spam queues
-- gmail.restore with the move (docs/actions.md, "Bringing spam back").
-- SQLite cannot change a CHECK constraint: the table is made again, its
-- rows (ids included) and indexes as they were.

CREATE TABLE actions_new (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    suggestion_id TEXT NOT NULL,
    n             INTEGER NOT NULL,
    key           TEXT NOT NULL UNIQUE,
    trace_id      TEXT NOT NULL,
    scout_id      TEXT NOT NULL,
    source_ref    TEXT NOT NULL,
    action        TEXT NOT NULL,
    params        TEXT NOT NULL,
    origin        TEXT NOT NULL,
    mode          TEXT NOT NULL CHECK (mode IN ('allow','require_approval','deny')),
    mode_source   TEXT NOT NULL CHECK (mode_source IN ('scout','global','inferred')),
    phase         TEXT NOT NULL CHECK (phase IN ('approval','arrival','lane')),
    decided_by    TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('queued','running','done','failed','dropped','cancelled','undone')),
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT '',
    next_at       INTEGER NOT NULL,
    result        TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (suggestion_id, n)
);

INSERT INTO actions_new (id, suggestion_id, n, key, trace_id, scout_id, source_ref, action, params, origin, mode, mode_source,
    phase, decided_by, state, attempts, last_error, next_at, result, created_at, updated_at)
SELECT id, suggestion_id, n, key, trace_id, scout_id, source_ref, action, params, origin, mode, mode_source,
    phase, decided_by, state, attempts, last_error, next_at, result, created_at, updated_at FROM actions;

DROP TABLE actions;
ALTER TABLE actions_new RENAME TO actions;

CREATE INDEX actions_due ON actions (next_at) WHERE state = 'queued';
CREATE INDEX actions_running ON actions (id) WHERE state = 'running';
CREATE INDEX actions_failing ON actions (id) WHERE state = 'failed' OR (state = 'queued' AND last_error <> '');
