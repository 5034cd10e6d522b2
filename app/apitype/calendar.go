package apitype

import "time"

// CalendarFeed is the calendar feed's state (GET /api/v1/calendar); the
// answer to making a new token (POST /api/v1/calendar/token) also carries
// the token and the feed's path with it, shown once: the agent keeps only
// the token's hash.
type CalendarFeed struct {
	Enabled   bool       `json:"enabled"`
	CreatedAt *time.Time `json:"created_at,omitempty"`
	Token     string     `json:"token,omitempty"`
	// Path is the feed's path on the agent's TCP listener, with the token
	// when the answer carries it: /api/v1/calendar.ics?token=….
	Path string `json:"path,omitempty"`
}
