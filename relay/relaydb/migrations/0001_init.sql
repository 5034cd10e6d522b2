-- The relay's tables. It stores no content: a queue row is
-- {message/item ref, scout, verdict, short reason, status, timestamps};
-- webhook content exists only sealed to the user's devices.
-- Times are Unix milliseconds. Written once for both dialects: the words
-- in braces are the column types each spells its own way (relaydb's
-- dialectWords).

CREATE TABLE users (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    -- the last sequence number given to one of this user's queue rows
    next_seq   BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE devices (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id),
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    public_key   {bytes},
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT,
    revoked_at   BIGINT,
    acked_seq    BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX devices_user ON devices (user_id);
CREATE INDEX devices_revoked ON devices (revoked_at) WHERE revoked_at IS NOT NULL;

CREATE TABLE cloud_scouts (
    id                    TEXT PRIMARY KEY,
    user_id               TEXT NOT NULL REFERENCES users(id),
    kind                  TEXT NOT NULL,
    name                  TEXT NOT NULL,
    mode                  TEXT NOT NULL DEFAULT '',
    enabled               BOOLEAN NOT NULL DEFAULT TRUE,
    hook_token_hash       TEXT,
    auto_trash_spam       BOOLEAN NOT NULL DEFAULT FALSE,
    gmail_history_id      TEXT,
    watch_expires_at      BIGINT,
    refresh_token_enc     {bytes},
    inactivity_pause_days INTEGER NOT NULL DEFAULT 14,
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL
);
CREATE INDEX cloud_scouts_user ON cloud_scouts (user_id);

CREATE TABLE triage_queue (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL REFERENCES users(id),
    scout_id       TEXT NOT NULL REFERENCES cloud_scouts(id),
    source_type    TEXT NOT NULL,
    source_msg_ref TEXT NOT NULL,
    verdict        TEXT NOT NULL,
    reason         TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL CHECK (status IN ('queued','delivered','acked','expired')),
    seq            BIGINT NOT NULL,
    triaged_at     BIGINT NOT NULL,
    delivered_at   BIGINT,
    acked_at       BIGINT,
    expires_at     BIGINT NOT NULL,
    UNIQUE (scout_id, source_msg_ref),
    UNIQUE (user_id, seq)
);
CREATE INDEX triage_queue_expiry ON triage_queue (expires_at) WHERE status IN ('queued','delivered');
CREATE INDEX triage_queue_status ON triage_queue (status);

-- Webhook content, sealed to each device's public key at arrival; opened
-- only by the device.
CREATE TABLE queue_sealed (
    queue_id  TEXT NOT NULL REFERENCES triage_queue(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL,
    sealed    {bytes} NOT NULL,
    PRIMARY KEY (queue_id, device_id)
);

-- Idempotency-Key of webhook requests, kept 24 hours.
CREATE TABLE hook_requests (
    scout_id   TEXT NOT NULL,
    key_hash   TEXT NOT NULL,
    queue_id   TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (scout_id, key_hash)
);
CREATE INDEX hook_requests_created ON hook_requests (created_at);

-- Configuration operations applied, by idempotency key, with their result:
-- a replayed operation gets the first answer and changes nothing.
CREATE TABLE config_ops (
    user_id    TEXT NOT NULL,
    op_id      TEXT NOT NULL,
    result     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, op_id)
);

CREATE TABLE audit (
    id       {serial_key},
    user_id  TEXT NOT NULL DEFAULT '',
    scout_id TEXT NOT NULL DEFAULT '',
    type     TEXT NOT NULL,
    summary  TEXT NOT NULL,
    at       BIGINT NOT NULL
);
CREATE INDEX audit_user ON audit (user_id, id);
