-- The outbox's gates (docs/actions.md, "Gates") look, before each attempt,
-- at what the scout's actions did lately: the same move on the same item
-- within the cooldown, and its outbound posts in the last hour.
CREATE INDEX actions_scout_recent ON actions (scout_id, updated_at);
