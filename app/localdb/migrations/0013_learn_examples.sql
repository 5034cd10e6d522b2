-- The content model's examples (docs/triage.md, "The content model"): the
-- items whose current teaching a model holds, in the order they were
-- taught. The content model is logistic regression, which cannot subtract
-- a decision: it is trained from these examples in seq order, and trained
-- again from them when one is taken back, so that after an undo it equals
-- a model that never saw the decision. An example is only a reference: the
-- item's feature hashes, what it taught and with which share of an
-- explicit decision's weight stay in suggestion_features (no text).
CREATE TABLE learn_examples (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    model         INTEGER NOT NULL,
    suggestion_id TEXT NOT NULL UNIQUE
);
CREATE INDEX learn_examples_model ON learn_examples (model, seq);

-- Every change of what an item taught moves it to the end of its model's
-- examples (or out of them, when it teaches nothing now), whoever writes
-- the row: teaching, undoing, silence, a reset.
CREATE TRIGGER learn_examples_taught AFTER UPDATE OF model, taught, weight, taught_factor ON suggestion_features
WHEN OLD.model IS NOT NEW.model OR OLD.taught IS NOT NEW.taught OR OLD.weight IS NOT NEW.weight OR OLD.taught_factor IS NOT NEW.taught_factor
BEGIN
    DELETE FROM learn_examples WHERE suggestion_id = NEW.suggestion_id;
    INSERT INTO learn_examples (model, suggestion_id)
        SELECT NEW.model, NEW.suggestion_id WHERE NEW.model IS NOT NULL AND NEW.taught IS NOT NULL;
END;

CREATE TRIGGER learn_examples_new AFTER INSERT ON suggestion_features
WHEN NEW.model IS NOT NULL AND NEW.taught IS NOT NULL
BEGIN
    INSERT OR REPLACE INTO learn_examples (model, suggestion_id) VALUES (NEW.model, NEW.suggestion_id);
END;

CREATE TRIGGER learn_examples_gone AFTER DELETE ON suggestion_features
BEGIN
    DELETE FROM learn_examples WHERE suggestion_id = OLD.suggestion_id;
END;

-- What was taught before this migration, in the order it was taught: an
-- item's weight grows with the time it was taught at (learn.Params.Weight).
INSERT INTO learn_examples (model, suggestion_id)
    SELECT model, suggestion_id FROM suggestion_features
    WHERE model IS NOT NULL AND taught IS NOT NULL
    ORDER BY weight, suggestion_id;
