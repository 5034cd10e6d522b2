package apitype

import "time"

// Snooze is the body of POST /api/v1/suggestions/{id}/snooze: when the
// card returns to the inbox, in words ("in 3 hours", "tomorrow morning",
// "next week", "15 December 9am") read in the agent's time zone, or an
// RFC 3339 time.
type Snooze struct {
	Until string `json:"until"`
}

// SnoozedTask is the answer to POST /api/v1/tasks/{id}/snooze: the task,
// left out of the lists of tasks until SnoozedUntil.
type SnoozedTask struct {
	Task         Entity    `json:"task"`
	SnoozedUntil time.Time `json:"snoozed_until"`
}
