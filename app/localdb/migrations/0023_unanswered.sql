-- The cards held in Screened only because nobody answered their sender
-- (assessment.unanswered): an approval of one of the sender's mails looks
-- them up (ShowAnswered), and must not read every screened card to do so.
CREATE INDEX suggestions_unanswered ON suggestions (scout_id, sender)
	WHERE status = 'pending' AND lane = 'screened' AND json_extract(assessment, '$.unanswered') = 1;
