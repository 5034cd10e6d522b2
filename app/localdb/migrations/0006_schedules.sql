-- Schedules, run locks and model budgets (docs/schedules.md). A scout's
-- schedule and budget are JSON objects, fields of its definition; the lock
-- and the schedule's memory survive crashes; the ledger counts model tokens
-- per scout per UTC day.

ALTER TABLE scouts ADD COLUMN schedule TEXT NOT NULL DEFAULT '{}';
ALTER TABLE scouts ADD COLUMN budget TEXT NOT NULL DEFAULT '{}';

-- One row while a run of the scout holds its lock. holder is who (process
-- id, boot id, process start, instance); a row whose holder died or whose
-- heartbeat is older than the stale bound is taken over, and the takeover
-- audited.
CREATE TABLE run_locks (
    scout_id     TEXT PRIMARY KEY,
    holder       TEXT NOT NULL,
    acquired_at  INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL
);

-- The scheduled time of the last scheduled run that finished, to catch up
-- a run missed while the agent was off.
CREATE TABLE schedule_state (
    scout_id       TEXT PRIMARY KEY,
    last_scheduled INTEGER NOT NULL
);

-- Model tokens spent (reserved, then settled) per scout per UTC day.
CREATE TABLE model_budget (
    scout_id TEXT NOT NULL,
    day      TEXT NOT NULL,
    spent    INTEGER NOT NULL DEFAULT 0 CHECK (spent >= 0),
    PRIMARY KEY (scout_id, day)
);
