package apitype

import "time"

// Brief is GET /api/v1/brief: the daily brief as of now — what waits in
// the inbox, what arrived in Screened and Spam since the last brief (each
// can be brought back), tasks due and today's events. New says whether it
// holds anything new since the last brief sent (one without is not sent).
// Alarms still open are listed too.
type Brief struct {
	At    time.Time `json:"at"`
	Since time.Time `json:"since"`
	// BriefAt is the time of day it is sent ("08:30", local) or "off".
	BriefAt    string       `json:"brief_at"`
	Inbox      []Suggestion `json:"inbox"`
	InboxCount int          `json:"inbox_count"`
	InboxNew   int          `json:"inbox_new"`
	Screened   []Suggestion `json:"screened"`
	Spam       []Suggestion `json:"spam"`
	Tasks      []Entity     `json:"tasks"`
	Events     []Entity     `json:"events"`
	// Alarms are the alarms not resolved yet (open or acknowledged),
	// newest first.
	Alarms []Alarm `json:"alarms"`
	New    bool    `json:"new"`
}

// BriefTime is the body of PUT /api/v1/brief/time: "HH:MM" or "off".
type BriefTime struct {
	At string `json:"at"`
}
