package engine

import (
	"encoding/json"

	"github.com/scouts-hq/scouts/scouts/redact"
)

// MaxResultBytes bounds an action's result as the outbox stores it: the
// card shows it and the trail quotes its note; what a remote side answers
// beyond that is cut, saying how much (redact.JSON).
const MaxResultBytes = 8 << 10

// storedResult is an action's result as the outbox keeps it: credentials
// struck and cut to MaxResultBytes, still valid JSON. Every executor's
// answer passes here, so none has to remember to.
func storedResult(result json.RawMessage) json.RawMessage {
	if len(result) == 0 {
		return result
	}
	out, _ := redact.JSON(result, MaxResultBytes)
	return out
}
