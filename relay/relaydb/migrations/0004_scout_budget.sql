-- A Gmail scout's own model token caps (0: the relay's --llm-daily-tokens
-- alone), sent by its desktop; they can only lower the relay's.
ALTER TABLE cloud_scouts ADD COLUMN model_day_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cloud_scouts ADD COLUMN model_run_tokens INTEGER NOT NULL DEFAULT 0;
