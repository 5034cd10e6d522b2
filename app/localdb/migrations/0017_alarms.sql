-- Alarms (issue 20, item 5; app/alarms): what failed, kept until its cause
-- goes away. An alarm is live while open or acknowledged; at most one live
-- alarm per dedupe key (the partial unique index), so that the same cause
-- raised again updates it; a resolved one stays as history and the key may
-- open a new one.
CREATE TABLE alarms (
    id          TEXT PRIMARY KEY,
    dedupe_key  TEXT NOT NULL,
    kind        TEXT NOT NULL,
    severity    TEXT NOT NULL,
    scout_id    TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved')),
    message     TEXT NOT NULL,
    raised_at   INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    acked_at    INTEGER,
    resolved_at INTEGER
);
CREATE UNIQUE INDEX uq_alarms_live_key ON alarms(dedupe_key) WHERE status <> 'resolved';
CREATE INDEX idx_alarms_status ON alarms(status, raised_at);

-- Pending caps (issue 20, item 6): a scout's cards past its cap wait in
-- lane 'held'; held_from is the lane triage gave the card, where it goes
-- when let in.
ALTER TABLE suggestions ADD COLUMN held_from TEXT;
-- awaits_actions: the card carries actions its rules proposed that wait
-- for the person's approval; such cards have a cap of their own.
ALTER TABLE suggestions ADD COLUMN awaits_actions INTEGER NOT NULL DEFAULT 0;
CREATE INDEX suggestions_held ON suggestions (scout_id, created_at) WHERE lane = 'held' AND status = 'pending';
