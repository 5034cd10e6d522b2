-- Awaiting reply (issue 22, item 5): the sent mail a Gmail scout that
-- watches the person's sent mail waits on an answer to, one row per
-- thread (the newest sent mail of the thread). Headers and Gmail's
-- snippet only, as on a card; never a body.
--   state: waiting (no card yet), carded (card_ref is its card), answered
--   (a recipient wrote back), gone (the thread left Gmail).
CREATE TABLE gmail_awaiting (
    scout_id    TEXT NOT NULL,
    thread_id   TEXT NOT NULL,
    message_id  TEXT NOT NULL,
    recipients  TEXT NOT NULL,
    subject     TEXT NOT NULL,
    snippet     TEXT NOT NULL,
    sent_at     INTEGER NOT NULL,
    due_at      INTEGER NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('waiting', 'carded', 'answered', 'gone')),
    card_ref    TEXT NOT NULL DEFAULT '',
    checked_at  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (scout_id, thread_id)
);
CREATE INDEX gmail_awaiting_due ON gmail_awaiting (scout_id, due_at) WHERE state = 'waiting';
