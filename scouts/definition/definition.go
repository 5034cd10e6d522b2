// Package definition is a scout as a document: the versioned JSON (or
// YAML) form a scout is exported to, imported from and kept in a
// definitions folder, with its JSON Schema. It knows nothing of storage:
// app/core converts documents to and from stored scouts.
package definition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// FormatVersion is the version of the document format this package writes
// and reads.
const FormatVersion = 1

// Document is one scout's definition.
type Document struct {
	Version int    `json:"version"`
	ID      string `json:"id,omitempty"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	Review  bool   `json:"review"`
	// Source is the kind's settings (a folder's path and globs, a
	// mailbox and its mode); never a token.
	Source json.RawMessage `json:"source,omitempty"`
	// Rules are the scout's rules in order, as rules.schema.json has them.
	Rules []json.RawMessage `json:"rules,omitempty"`
	// WriteScope is where the scout's actions may write; nil is the
	// default scope of its kind.
	WriteScope *WriteScope `json:"write_scope,omitempty"`
	Learning   *Learning   `json:"learning,omitempty"`
	Schedule   *Schedule   `json:"schedule,omitempty"`
	Budget     *Budget     `json:"budget,omitempty"`
	// History is the scout's past versions, oldest first: only in an
	// export asked with its history, never part of a version's document.
	History []PastVersion `json:"history,omitempty"`
}

// PastVersion is one version of a scout's definition as an export with
// history carries it: its number, the document as it was (canonical, as
// Marshal writes it), when, by whom and why.
type PastVersion struct {
	Version   int             `json:"version"`
	CreatedAt time.Time       `json:"created_at"`
	Actor     string          `json:"actor,omitempty"`
	Note      string          `json:"note,omitempty"`
	Document  json.RawMessage `json:"document"`
}

// Learning are the learner's thresholds.
type Learning struct {
	ColdStart   int     `json:"cold_start"`
	ScreenBelow float64 `json:"screen_below"`
	SpamAbove   float64 `json:"spam_above"`
	MinSpam     int     `json:"min_spam"`
	// SilenceDays is the grace period of implicit feedback (0: off); a
	// document written before it existed has the default.
	SilenceDays int `json:"silence_days"`
	// PendingCap is how many pending cards the scout may have waiting
	// before new ones are held (0: the default, 500).
	PendingCap int `json:"pending_cap,omitempty"`
	// PendingActionsCap is how many pending cards carrying rule actions
	// awaiting approval the scout may have (0: the default, 10).
	PendingActionsCap int `json:"pending_actions_cap,omitempty"`
	// CooldownSeconds, NotifyPerHour, QuietStart and QuietEnd are the
	// gates of the scout's actions (scouts.LearnSettings has them).
	CooldownSeconds int    `json:"cooldown_seconds,omitempty"`
	NotifyPerHour   int    `json:"notify_per_hour,omitempty"`
	QuietStart      string `json:"quiet_start,omitempty"`
	QuietEnd        string `json:"quiet_end,omitempty"`
}

// UnmarshalJSON reads a learning object, giving silence_days its default
// (7, as scouts.DefaultLearnSettings) when the document does not say: a
// definition exported before the setting existed must not turn it off.
func (l *Learning) UnmarshalJSON(b []byte) error {
	type plain Learning
	p := plain{SilenceDays: 7}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*l = Learning(p)
	return nil
}

// WriteScope is where the scout's actions may write (scouts.WriteScope):
// a list left out (nil) is its default, an empty one allows nothing — so
// the lists are pointers, which keep the difference through JSON.
type WriteScope struct {
	Folders *[]string `json:"folders,omitempty"`
	Labels  *[]string `json:"labels,omitempty"`
	Hosts   *[]string `json:"hosts,omitempty"`
}

// ScopeList is the list a definition holds for l: nil (left out) for nil.
func ScopeList(l []string) *[]string {
	if l == nil {
		return nil
	}
	return &l
}

// ScopeItems is a definition's list: nil when left out, else never nil.
func ScopeItems(p *[]string) []string {
	if p == nil {
		return nil
	}
	if *p == nil {
		return []string{}
	}
	return *p
}

// Schedule is when the scout runs by itself.
type Schedule struct {
	Cron     string `json:"cron,omitempty"`
	TimeZone string `json:"time_zone,omitempty"`
	Overlap  string `json:"overlap,omitempty"`
	CatchUp  string `json:"catch_up,omitempty"`
}

// Budget caps the model tokens the scout spends.
type Budget struct {
	RunTokens int `json:"run_tokens,omitempty"`
	DayTokens int `json:"day_tokens,omitempty"`
}

// Error is a document that cannot be read or breaks the schema: where (a
// 1-based line of the file, 0 when unknown) and why.
type Error struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
}

func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	case e.File != "":
		return e.File + ": " + e.Reason
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
	}
	return e.Reason
}

// Marshal writes d as indented JSON, its canonical form (what versions
// store and diffs compare). Its history is left out: a version's document
// is the definition alone.
func Marshal(d Document) ([]byte, error) {
	d.Version = FormatVersion
	d.History = nil
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("definition: marshal: %w", err)
	}
	return buf.Bytes(), nil
}
