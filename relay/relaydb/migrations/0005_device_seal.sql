-- The sealing format a device last said it opens besides the anonymous
-- sealed box ('' = that box only); webhook items are sealed for it in it.
ALTER TABLE devices ADD COLUMN seal TEXT NOT NULL DEFAULT '';
