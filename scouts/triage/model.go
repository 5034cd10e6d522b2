package triage

import (
	"context"
	"unicode/utf8"
)

// ModelBodyRunes is the most of a body a model ever sees: enough to judge a
// mail, and a bound on what each call costs.
const ModelBodyRunes = 2000

// MaxReasonRunes bounds a reason shown on a card.
const MaxReasonRunes = 200

// ModelInput is everything a model is told about one mail (the seed's
// "Triage LLM contract"). Nothing else of the mail is sent.
type ModelInput struct {
	SourceType   string // "gmail"
	ScoutName    string
	ScoutPurpose string // what the person wants this scout to catch
	Subject      string
	Sender       string // "Name <addr>"
	Body         string // at most ModelBodyRunes runes
}

// ModelAnswer is a model's verdict on one mail.
type ModelAnswer struct {
	Verdict    Verdict // Relevant or Spam
	Reason     string
	Confidence float64
	// Tokens is the usage the server reported (total_tokens); a client
	// sets it even alongside an error when the server billed the call.
	Tokens int
}

// Model classifies a mail. Implementations must be safe for concurrent use
// and must return an error (never a guess) when they have no valid answer.
type Model interface {
	// Name is shown in decision paths: "model:<Name>".
	Name() string
	// MaxTokens is an upper bound of the tokens one call on in can
	// consume (prompt and completion): the budget reserves it before the
	// call, which is what makes the daily cap hard.
	MaxTokens(in ModelInput) int
	Classify(ctx context.Context, in ModelInput) (ModelAnswer, error)
}

// Truncate returns s cut to at most n runes, on a rune boundary. n <= 0
// returns "".
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n { // n bytes hold at most n runes
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// validAnswer checks what any Model returned, whoever implemented it.
func validAnswer(a ModelAnswer) bool {
	return (a.Verdict == Relevant || a.Verdict == Spam) &&
		a.Confidence >= 0 && a.Confidence <= 1 &&
		a.Reason != "" && utf8.ValidString(a.Reason)
}
