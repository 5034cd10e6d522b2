-- Triage that learns: lanes, what the engine concluded about each item on
-- arrival, and a per-scout model of hashed features and counts (no text).

ALTER TABLE suggestions ADD COLUMN lane TEXT NOT NULL DEFAULT 'inbox';
-- scouts.Assessment as JSON: lane reason, probabilities, plain-words why,
-- proposed fields. Content-free beyond what the card itself shows.
ALTER TABLE suggestions ADD COLUMN assessment TEXT;
-- The approve probability at arrival, for ordering the inbox (NULL: the
-- learner could not tell).
ALTER TABLE suggestions ADD COLUMN score REAL;
ALTER TABLE suggestions ADD COLUMN rescued TEXT NOT NULL DEFAULT '';
ALTER TABLE suggestions ADD COLUMN resolved_by TEXT NOT NULL DEFAULT '';
CREATE INDEX suggestions_lane ON suggestions (status, lane);

-- One model per scout. Counts are scaled by 2^((t - epoch)/half-life) when
-- learned, so old decisions fade without rewriting rows. totals holds the
-- per-class decision counts and per-kind feature totals (float64 LE).
CREATE TABLE learn_models (
    id        INTEGER PRIMARY KEY,
    scout_id  TEXT NOT NULL UNIQUE,
    epoch     INTEGER NOT NULL,
    totals    BLOB NOT NULL,
    decisions INTEGER NOT NULL DEFAULT 0,
    spam      INTEGER NOT NULL DEFAULT 0,
    ham       INTEGER NOT NULL DEFAULT 0,
    settings  TEXT NOT NULL DEFAULT '{}',
    reset_at  INTEGER
);

-- h is a salted 64-bit hash of a feature; c its counts per class (8 x
-- float32 LE). Nothing here can be read back into words without the salt
-- and a guess of the words.
CREATE TABLE learn_counts (
    model INTEGER NOT NULL,
    h     INTEGER NOT NULL,
    c     BLOB NOT NULL,
    PRIMARY KEY (model, h)
) WITHOUT ROWID;

-- The hashes of each suggestion's features and what its current state
-- taught which model, so that a new decision replaces the old teaching
-- exactly (undo unlearns) and a reset forgets it.
CREATE TABLE suggestion_features (
    suggestion_id TEXT PRIMARY KEY,
    hashes        BLOB NOT NULL,
    model         INTEGER,
    taught        BLOB,
    weight        REAL NOT NULL DEFAULT 0
) WITHOUT ROWID;
