package scouts

import (
	"fmt"
	"time"
)

// The outbox's gates (docs/actions.md, "Gates") hold back what a scout's
// actions would do too often or at the wrong time. Their settings are
// per scout, beside its pending caps in LearnSettings (the learning object
// of its definition).

// AuditActionBlocked records that a gate blocked an action's attempt: the
// same move too soon after the last one, or one outbound post too many
// in an hour.
const AuditActionBlocked = "action.blocked"

// EventActionBlocked announces a gate's block (Data: ActionBlock), for the
// scout's alarm.
const EventActionBlocked = "action.blocked"

// Gate names.
const (
	GateFlap  = "flap"  // the same action on the same item with the same params within the cooldown
	GateStorm = "storm" // more outbound posts in an hour than the scout's cap
)

// ActionBlock is what a gate blocked.
type ActionBlock struct {
	ScoutID      string `json:"scout_id"`
	SuggestionID string `json:"suggestion_id"`
	Action       string `json:"action"`
	Gate         string `json:"gate"`
	// Why is the block in words, as the plan shows it ("blocked: same
	// move 40 s ago").
	Why string `json:"why"`
}

const (
	// DefaultCooldown is how long the same move is blocked after it ran.
	DefaultCooldown = 5 * time.Minute
	// DefaultNotifyPerHour caps a scout's outbound posts in an hour.
	DefaultNotifyPerHour = 30
)

// Cooldown is the anti-flap cooldown in force.
func (s LearnSettings) Cooldown() time.Duration {
	if s.CooldownSeconds <= 0 {
		return DefaultCooldown
	}
	return time.Duration(s.CooldownSeconds) * time.Second
}

// StormCap is the cap of outbound posts in an hour in force.
func (s LearnSettings) StormCap() int {
	if s.NotifyPerHour <= 0 {
		return DefaultNotifyPerHour
	}
	return s.NotifyPerHour
}

// Quiet reports whether t falls in the scout's quiet hours: from
// QuietStart included to QuietEnd excluded, in t's location, a start
// after the end spanning midnight. No quiet hours when either is empty.
func (s LearnSettings) Quiet(t time.Time) bool {
	start, err1 := time.Parse("15:04", s.QuietStart)
	end, err2 := time.Parse("15:04", s.QuietEnd)
	if err1 != nil || err2 != nil {
		return false
	}
	m := t.Hour()*60 + t.Minute()
	a, b := start.Hour()*60+start.Minute(), end.Hour()*60+end.Minute()
	if a <= b {
		return m >= a && m < b
	}
	return m >= a || m < b
}

func (s LearnSettings) validateGates() error {
	switch {
	case s.CooldownSeconds < 0 || s.CooldownSeconds > 7*24*3600:
		return Errorf(EInvalid, "cooldown_seconds must be between 1 and 604800 (a week; 0: the default, %d)", int(DefaultCooldown.Seconds()))
	case s.NotifyPerHour < 0 || s.NotifyPerHour > 10000:
		return Errorf(EInvalid, "notify_per_hour must be between 1 and 10000 posts (0: the default, %d)", DefaultNotifyPerHour)
	case (s.QuietStart == "") != (s.QuietEnd == ""):
		return Errorf(EInvalid, "quiet_start and quiet_end go together (both HH:MM, or neither)")
	}
	for _, v := range []string{s.QuietStart, s.QuietEnd} {
		if _, err := time.Parse("15:04", v); v != "" && err != nil {
			return Errorf(EInvalid, "quiet hours: %q is not a time of day as HH:MM (22:00)", v)
		}
	}
	if s.QuietStart != "" && s.QuietStart == s.QuietEnd {
		return Errorf(EInvalid, "quiet hours from %s to %s are empty: give two different times", s.QuietStart, s.QuietEnd)
	}
	return nil
}

// Ago says how long ago a move was, for a block's reason ("40 s ago").
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	}
	return fmt.Sprintf("%.1f h ago", d.Hours())
}
