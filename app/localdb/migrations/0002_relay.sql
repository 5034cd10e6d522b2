-- Relay sync: the cursor of delivered proposals, and the outbox of
-- operations that must reach the relay exactly once in effect.

CREATE TABLE sync_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    -- the idempotency key the remote side deduplicates on
    key         TEXT NOT NULL UNIQUE,
    action      TEXT NOT NULL,
    params      TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('pending','done','failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT NOT NULL DEFAULT '',
    result      TEXT,
    created_at  INTEGER NOT NULL,
    done_at     INTEGER
);
CREATE INDEX outbox_pending ON outbox (id) WHERE status = 'pending';
