-- Implicit feedback and learner hygiene (docs/triage.md, "What silence
-- teaches").
--
-- opened_at: when the person first had the card's content in front of them
-- (read through the local API) or acted on it; a card the person has seen
-- never teaches by silence.
-- silence, settled_at: the lane whose verdict silence confirmed, and when;
-- a card settles once.
ALTER TABLE suggestions ADD COLUMN opened_at INTEGER;
ALTER TABLE suggestions ADD COLUMN silence TEXT NOT NULL DEFAULT '';
ALTER TABLE suggestions ADD COLUMN settled_at INTEGER;
-- The cards silence may still settle, oldest first.
CREATE INDEX suggestions_unsettled ON suggestions (scout_id, created_at)
    WHERE status = 'pending' AND lane <> 'inbox' AND settled_at IS NULL AND opened_at IS NULL;

-- participants: the hashes of an item's features that name other people of
-- the conversation than its sender (the recipients' domains). A spam verdict
-- teaches nothing about them. taught_all says whether the item's current
-- teaching included them, and taught_factor the share of an explicit
-- decision's weight it was taught with (silence: engine.SilenceWeight), so
-- that the next decision takes back exactly what was taught.
ALTER TABLE suggestion_features ADD COLUMN participants BLOB;
ALTER TABLE suggestion_features ADD COLUMN taught_all INTEGER NOT NULL DEFAULT 1;
ALTER TABLE suggestion_features ADD COLUMN taught_factor REAL NOT NULL DEFAULT 1;

-- Addresses the person wrote to (Gmail's sent mail), per scout: each taught
-- the learner "wanted" once, through a row of suggestion_features whose id
-- is 'sent:' || scout_id || ':' || address.
CREATE TABLE sent_to (
    scout_id TEXT NOT NULL,
    address  TEXT NOT NULL,
    first_at INTEGER NOT NULL,
    last_at  INTEGER NOT NULL,
    PRIMARY KEY (scout_id, address)
) WITHOUT ROWID;
