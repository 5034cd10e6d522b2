-- A relay-triage scout's sync runs on one instance at a time: the instance
-- holding its lease (until expires_at, renewed while it syncs; an instance
-- that died lets it expire). And the model's daily token ledger, shared by
-- every instance: tokens spent per scout per UTC day.
CREATE TABLE sync_leases (
    scout_id   TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at INTEGER NOT NULL
);

CREATE TABLE model_budget (
    scout_id TEXT NOT NULL,
    day      TEXT NOT NULL,
    spent    INTEGER NOT NULL DEFAULT 0 CHECK (spent >= 0),
    PRIMARY KEY (scout_id, day)
);
