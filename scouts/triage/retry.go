package triage

import (
	"errors"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// RetryError means the mail could not be judged now: leave it unprocessed
// and try again later. The pipeline returns it when the model (or the
// budget's store) fails; it never replaces a failure by a made-up verdict.
//
// Its chain holds a *scouts.Error with code EUnavailable, so scouts.ErrorCode
// reports "unavailable", and the cause, for errors.Is/As.
type RetryError struct {
	MessageID string
	Step      string        // "model:<name>" or "budget"
	After     time.Duration // the server's Retry-After, 0 when unknown
	Err       error
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("triage of message %s: %s failed, retry later: %v", e.MessageID, e.Step, e.Err)
}

// Unwrap exposes the EUnavailable code first, then the cause.
func (e *RetryError) Unwrap() []error {
	return []error{&scouts.Error{Code: scouts.EUnavailable, Message: e.Error()}, e.Err}
}

// IsRetry reports whether err asks for the item to be retried later, and
// returns the RetryError.
func IsRetry(err error) (*RetryError, bool) {
	var re *RetryError
	if errors.As(err, &re) {
		return re, true
	}
	return nil, false
}

// retryAfter reads a Retry-After hint from a model error that carries one.
func retryAfter(err error) time.Duration {
	var h interface{ RetryAfter() time.Duration }
	if errors.As(err, &h) {
		return h.RetryAfter()
	}
	return 0
}
