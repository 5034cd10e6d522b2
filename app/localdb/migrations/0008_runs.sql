-- A scout's run history (docs/schedules.md, "Runs"): one row per run, with
-- what started it, how it ended and the definition version in force when
-- it started (seed 000's run snapshots). The scout's row keeps only the
-- last run's health; this keeps the latest runs of each scout, pruned as
-- each run is recorded.

CREATE TABLE scout_runs (
    id                 TEXT PRIMARY KEY,
    scout_id           TEXT NOT NULL REFERENCES scouts(id),
    run_trigger        TEXT NOT NULL,
    started_at         INTEGER NOT NULL,
    finished_at        INTEGER NOT NULL,
    outcome            TEXT NOT NULL,
    error              TEXT NOT NULL DEFAULT '',
    note               TEXT NOT NULL DEFAULT '',
    items_seen         INTEGER NOT NULL DEFAULT 0,
    items_new          INTEGER NOT NULL DEFAULT 0,
    -- NULL when unknown (no model configured).
    model_tokens       INTEGER,
    -- NULL when the scout had no version yet.
    definition_version INTEGER
);

-- Newest first per scout: the listing and the pruning (runs started in
-- the same millisecond: the one recorded last first, by rowid).
CREATE INDEX scout_runs_by_scout ON scout_runs (scout_id, started_at DESC);
