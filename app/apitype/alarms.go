package apitype

import "time"

// Alarm is what failed and says so until its cause goes away (GET
// /api/v1/alarms, POST /api/v1/alarms/{id}/ack, alarm.* events). Status:
// open, acknowledged (seen; still live), resolved. One live alarm per
// DedupeKey: the same cause again updates it.
type Alarm struct {
	ID        string `json:"id"`
	DedupeKey string `json:"dedupe_key"`
	// Kind: runs_failing, budget_spent, definitions_broken, gmail_token,
	// relay_unreachable, pending_cap, watch_not_renewed, action_flap,
	// action_storm.
	Kind     string `json:"kind"`
	Severity string `json:"severity"` // warning or critical
	ScoutID  string `json:"scout_id,omitempty"`
	Status   string `json:"status"`
	// Message says what is wrong and what to do.
	Message        string     `json:"message"`
	RaisedAt       time.Time  `json:"raised_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	AcknowledgedAt *time.Time `json:"acknowledged_at,omitempty"`
	ResolvedAt     *time.Time `json:"resolved_at,omitempty"`
}
