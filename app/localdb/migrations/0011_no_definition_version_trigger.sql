-- The only writer of suggestions sets definition_version itself (see
-- suggestionInsert). The trigger of 0007 no longer fired, but its mere
-- presence made every insert of a suggestion inside a page's transaction
-- keep a statement journal (a trigger makes a statement write more than
-- one row, and a foreign key can abort it at its end): a quarter of the
-- insert's time, written to a temporary file once it grew past 64 KiB.
DROP TRIGGER IF EXISTS suggestions_definition_version;
