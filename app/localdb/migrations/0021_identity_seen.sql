-- How often each sender and list has written to a scout (issue 19): the
-- learner's spam verdict does not send to Spam the mail of a sender or
-- list that wrote several times before and was never taught as spam
-- (engine: familiar senders). One row per scout and feature hash of the
-- sender's address or the List-Id, as the learner's counts are kept:
-- hashes and counts only, never an address.
CREATE TABLE identity_seen (
    scout_id TEXT NOT NULL,
    h        INTEGER NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (scout_id, h)
) WITHOUT ROWID;
