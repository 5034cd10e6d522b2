package defsync

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// changeWords name the parts of a definition in a version's note, in the
// document's order.
var changeWords = []struct{ key, words string }{
	{"name", "name"},
	{"enabled", "on/off switch"},
	{"review", "review"},
	{"source", "source"},
	{"rules", "rules"},
	{"write_scope", "write scope"},
	{"learning", "learning thresholds"},
	{"schedule", "schedule"},
	{"budget", "budget"},
}

// changeNote says what a new version (doc) changes from the scout's newest
// one, for a change that came without a note of its own (its schedule or
// budget set, say): "schedule changed", "schedule and budget changed",
// "switched off". Without a newest version it is the first: "created".
func (s *Service) changeNote(ctx context.Context, scoutID string, doc []byte) string {
	prev, err := s.cfg.Store.NewestScoutVersion(ctx, scoutID)
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return "created"
	}
	if err != nil {
		return "" // the note is words for a person; the version is what counts
	}
	changes, err := definition.Diff(prev.Document, doc)
	if err != nil || len(changes) == 0 {
		return ""
	}
	changed := map[string]bool{}
	for _, ch := range changes {
		top, _, _ := strings.Cut(strings.TrimPrefix(ch.Path, "/"), "/")
		changed[top] = true
	}
	if len(changed) == 1 && changed["enabled"] {
		var d struct{ Enabled bool }
		if json.Unmarshal(doc, &d) == nil && d.Enabled {
			return "switched on"
		}
		return "switched off"
	}
	var parts []string
	for _, w := range changeWords {
		if changed[w.key] {
			parts = append(parts, w.words)
		}
	}
	if len(parts) == 0 {
		return "definition changed"
	}
	if len(parts) == 1 {
		return parts[0] + " changed"
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1] + " changed"
}
