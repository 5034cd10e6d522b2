-- A relay-triage scout's sync runs on one instance at a time: the instance
-- holding its lease (until expires_at, renewed while it syncs; an instance
-- that died lets it expire). And the model's daily token ledger, shared by
-- every instance: tokens spent per scout per UTC day. Their integers are
-- BIGINT, and INTEGER on SQLite as its databases were first made there
-- (the same integer affinity).
CREATE TABLE sync_leases (
    scout_id   TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at {int64} NOT NULL
);

CREATE TABLE model_budget (
    scout_id TEXT NOT NULL,
    day      TEXT NOT NULL,
    spent    {int64} NOT NULL DEFAULT 0 CHECK (spent >= 0),
    PRIMARY KEY (scout_id, day)
);
