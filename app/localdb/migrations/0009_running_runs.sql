-- A run's row exists from its start (docs/schedules.md, "Runs"): outcome
-- 'running' until it ends, when the same row is finished in place, so a run
-- cut short by a crash is kept. Its runner names the process running it
-- (process id, boot, start time: app/procid), so that the next agent can
-- tell a run whose process is gone and mark it 'interrupted'. finished_at
-- is NULL while a run runs and for an interrupted run (when it stopped is
-- not known). SQLite cannot drop a NOT NULL: the table is made again.

CREATE TABLE scout_runs_new (
    id                 TEXT PRIMARY KEY,
    scout_id           TEXT NOT NULL REFERENCES scouts(id),
    run_trigger        TEXT NOT NULL,
    started_at         INTEGER NOT NULL,
    finished_at        INTEGER,
    outcome            TEXT NOT NULL,
    error              TEXT NOT NULL DEFAULT '',
    note               TEXT NOT NULL DEFAULT '',
    items_seen         INTEGER NOT NULL DEFAULT 0,
    items_new          INTEGER NOT NULL DEFAULT 0,
    -- NULL when unknown (no model configured).
    model_tokens       INTEGER,
    -- NULL when the scout had no version yet.
    definition_version INTEGER,
    -- JSON {pid, boot_id, start}; '' for runs recorded whole.
    runner             TEXT NOT NULL DEFAULT ''
);

-- rowid kept: runs started in the same millisecond list by it.
INSERT INTO scout_runs_new (rowid, id, scout_id, run_trigger, started_at, finished_at, outcome, error, note,
    items_seen, items_new, model_tokens, definition_version)
SELECT rowid, id, scout_id, run_trigger, started_at, finished_at, outcome, error, note,
    items_seen, items_new, model_tokens, definition_version FROM scout_runs;

DROP TABLE scout_runs;
ALTER TABLE scout_runs_new RENAME TO scout_runs;

CREATE INDEX scout_runs_by_scout ON scout_runs (scout_id, started_at DESC);

-- The runs still running, read at each agent start.
CREATE INDEX scout_runs_running ON scout_runs (outcome) WHERE outcome = 'running';
