-- A scout's write scope (docs/definitions.md, "Write scope"): where its
-- actions may write — folders by glob, Gmail labels, webhook hosts — as a
-- JSON object, a field of its definition. '{}' is the default scope, which
-- the scout's kind and source derive (a folder scout: its Sorted folder).

ALTER TABLE scouts ADD COLUMN write_scope TEXT NOT NULL DEFAULT '{}';
