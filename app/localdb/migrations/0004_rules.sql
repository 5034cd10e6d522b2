-- Rules: each scout's rules in the filter grammar of scouts/rules, in the
-- order they are tried. The document is kept as the user wrote it (without
-- its enabled flag, which is the column); position and enabled are columns
-- so that listing, reordering and switching a rule on or off need no
-- parsing. The Gmail scouts' old allow/deny lists are moved here by the
-- agent when it starts (app/core), not by this file: converting them needs
-- the grammar.

CREATE TABLE scout_rules (
    scout_id   TEXT NOT NULL REFERENCES scouts(id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    position   INTEGER NOT NULL,
    enabled    INTEGER NOT NULL DEFAULT 1,
    doc        TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (scout_id, id)
);
CREATE INDEX scout_rules_order ON scout_rules (scout_id, position);
