-- Actions: every side effect of a decision, numbered per suggestion, and
-- the durable outbox of the remote ones (queued with the decision, in its
-- transaction; run afterwards exactly once in effect, with the key as the
-- idempotency key). Also the user's modes per action.

CREATE TABLE actions (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    suggestion_id TEXT NOT NULL,
    n             INTEGER NOT NULL,
    key           TEXT NOT NULL UNIQUE,
    trace_id      TEXT NOT NULL,
    scout_id      TEXT NOT NULL,
    source_ref    TEXT NOT NULL,
    action        TEXT NOT NULL,
    params        TEXT NOT NULL,
    origin        TEXT NOT NULL,
    mode          TEXT NOT NULL CHECK (mode IN ('allow','require_approval','deny')),
    mode_source   TEXT NOT NULL CHECK (mode_source IN ('scout','global','inferred')),
    phase         TEXT NOT NULL CHECK (phase IN ('approval','arrival')),
    decided_by    TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('queued','running','done','failed','dropped','cancelled','undone')),
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT '',
    next_at       INTEGER NOT NULL,
    result        TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (suggestion_id, n)
);
CREATE INDEX actions_due ON actions (next_at) WHERE state = 'queued';
CREATE INDEX actions_running ON actions (id) WHERE state = 'running';
CREATE INDEX actions_failing ON actions (id) WHERE state = 'failed' OR (state = 'queued' AND last_error <> '');

-- scope is '' for the global setting, else a scout id.
CREATE TABLE action_policies (
    scope      TEXT NOT NULL,
    action     TEXT NOT NULL,
    mode       TEXT NOT NULL CHECK (mode IN ('allow','require_approval','deny')),
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (scope, action)
) WITHOUT ROWID;

-- Gmail changes queued by the previous approve path (outbox action
-- gmail.modify, keyed gmail:<suggestion id>) move here, nothing lost.
INSERT INTO actions (suggestion_id, n, key, trace_id, scout_id, source_ref, action, params, origin, mode, mode_source,
    phase, decided_by, state, next_at, created_at, updated_at)
SELECT s.id, 1, 'act:' || s.id || ':1', s.trace_id, json_extract(o.params, '$.scout_id'), json_extract(o.params, '$.message_id'),
    'gmail.archive', '{}', 'user', 'require_approval', 'inferred', 'approval', COALESCE(NULLIF(s.resolved_by, ''), 'user'),
    'queued', o.created_at, o.created_at, o.created_at
FROM outbox o JOIN suggestions s ON s.id = substr(o.key, 7)
WHERE o.action = 'gmail.modify' AND o.status = 'pending' AND json_extract(o.params, '$.archive') = 1;

INSERT INTO actions (suggestion_id, n, key, trace_id, scout_id, source_ref, action, params, origin, mode, mode_source,
    phase, decided_by, state, next_at, created_at, updated_at)
SELECT s.id, n.n, 'act:' || s.id || ':' || n.n, s.trace_id, json_extract(o.params, '$.scout_id'), json_extract(o.params, '$.message_id'),
    'gmail.label', json_object('label', trim(json_extract(o.params, '$.label'))), 'user', 'require_approval', 'inferred', 'approval',
    COALESCE(NULLIF(s.resolved_by, ''), 'user'), 'queued', o.created_at, o.created_at, o.created_at
FROM outbox o JOIN suggestions s ON s.id = substr(o.key, 7)
    JOIN (SELECT 1 AS archived, 2 AS n UNION ALL SELECT 0, 1) n ON n.archived = COALESCE(json_extract(o.params, '$.archive'), 0)
WHERE o.action = 'gmail.modify' AND o.status = 'pending' AND trim(COALESCE(json_extract(o.params, '$.label'), '')) <> '';

UPDATE outbox SET status = 'done', last_error = 'moved to the actions table', done_at = created_at
WHERE action = 'gmail.modify' AND status = 'pending';
