-- Gmail cloud scouts: the mailbox they watch, the user's rules, where the
-- sync is (history id, as text: Gmail's ids are unsigned 64-bit) and the
-- health the desktop is told about. Nothing here is mail content.
ALTER TABLE cloud_scouts ADD COLUMN gmail_email TEXT;
ALTER TABLE cloud_scouts ADD COLUMN rules TEXT NOT NULL DEFAULT '[]';
ALTER TABLE cloud_scouts ADD COLUMN last_sync_at BIGINT;
ALTER TABLE cloud_scouts ADD COLUMN state TEXT NOT NULL DEFAULT 'ok';
ALTER TABLE cloud_scouts ADD COLUMN state_message TEXT NOT NULL DEFAULT '';
CREATE INDEX cloud_scouts_gmail ON cloud_scouts (gmail_email);

-- Push notifications persisted before Pub/Sub is answered, removed once
-- the sync they asked for is done: a crash between the two loses nothing.
CREATE TABLE push_inbox (
    id          {serial_key},
    email       TEXT NOT NULL,
    history_id  TEXT NOT NULL,
    received_at BIGINT NOT NULL
);
CREATE INDEX push_inbox_email ON push_inbox (email);

-- The triage step that decided (content-free: "rule:vip", "heuristic:…").
ALTER TABLE triage_queue ADD COLUMN path TEXT NOT NULL DEFAULT '';
