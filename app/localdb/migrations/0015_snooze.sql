-- Snooze and the daily brief (issue 22, items 2 and 3).
--
-- A snoozed card waits in lane 'snoozed' until snoozed_until (Unix ms),
-- then returns to the inbox; snoozed_from is the lane it left, for
-- unsnoozing by hand before its time. returned_at is when it came back on
-- its own: the inbox lists such cards first (the top of the inbox), until
-- the person acts on them. Snoozing teaches the learner nothing, and sets
-- opened_at, so that silence never teaches from it either.
ALTER TABLE suggestions ADD COLUMN snoozed_until INTEGER;
ALTER TABLE suggestions ADD COLUMN snoozed_from TEXT;
ALTER TABLE suggestions ADD COLUMN returned_at INTEGER;
CREATE INDEX suggestions_snoozed ON suggestions (snoozed_until) WHERE lane = 'snoozed' AND status = 'pending';

-- A task can be snoozed too: it is left out of the lists of open tasks
-- until then.
ALTER TABLE tasks ADD COLUMN snoozed_until INTEGER;

-- The daily briefs sent, one row each: the next brief covers what arrived
-- in Screened and Spam since the last one (at, Unix ms).
CREATE TABLE briefs (
    id    INTEGER PRIMARY KEY,
    at    INTEGER NOT NULL,
    items INTEGER NOT NULL
);
