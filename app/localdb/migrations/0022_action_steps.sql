-- Plans as steps (docs/actions.md, "Steps"): a rule's action may wait for
-- the step before it (after_n, the n of that step in the same suggestion;
-- 0 waits for nothing, as every action did before), and carries what its
-- step needs at run time (step: JSON with its output name, its parameters
-- still to render from earlier steps' results, the item fields those read,
-- and, for an on_failure step, the run's error and failed step). NULL for
-- an action that is no rule's step.
ALTER TABLE actions ADD COLUMN after_n INTEGER NOT NULL DEFAULT 0;
ALTER TABLE actions ADD COLUMN step TEXT;
