package triage

import (
	"strings"

	"github.com/scouts-hq/scouts/scouts"
)

// Verdict is what happens to a mail.
type Verdict string

const (
	// Relevant mail becomes a card for the person to decide on.
	Relevant Verdict = "relevant"
	// Spam is unwanted mail: no card, and moved to the Trash if the scout
	// is set to do so (off by default, never a permanent delete).
	Spam Verdict = "spam"
	// Skip is legitimate mail that needs no card (an out-of-office reply,
	// a promotion): no card, and the mail is left where it is.
	Skip Verdict = "skip"
)

// ParseVerdict accepts the three verdicts, case-insensitively.
func ParseVerdict(s string) (Verdict, error) {
	switch v := Verdict(strings.ToLower(strings.TrimSpace(s))); v {
	case Relevant, Spam, Skip:
		return v, nil
	}
	return "", scouts.Errorf(scouts.EInvalid, "unknown verdict %q (want relevant, spam or skip)", s)
}

// Decision is the outcome of triage for one mail.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	// Reason is one short sentence for the card's "why", in plain words.
	Reason string `json:"reason"`
	// Path names the step that decided: "rule:<id>", "heuristic:<name>",
	// "model:<model>" or "default", possibly followed by a note in
	// parentheses ("default (model budget exhausted)").
	Path string `json:"path"`
	// Confidence is in [0, 1]: 1 for a user rule, a fixed figure per
	// heuristic, the model's own estimate for the model.
	Confidence float64 `json:"confidence"`
}

// Path prefixes.
const (
	PathRule      = "rule:"
	PathHeuristic = "heuristic:"
	PathModel     = "model:"
	PathDefault   = "default"
)

// Path notes.
const (
	NoteBudgetExhausted = "model budget exhausted"
)

// withNote appends a parenthesised note to a path.
func withNote(path, note string) string {
	if note == "" {
		return path
	}
	return path + " (" + note + ")"
}
