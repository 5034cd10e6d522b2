package scouts

import (
	"errors"
	"fmt"
)

// Error codes shared by every layer. Adapters translate them once: the local
// API maps them to HTTP statuses, the CLI to exit messages.
const (
	EInvalid     = "invalid"     // the request is malformed or breaks a rule
	ENotFound    = "not_found"   // the thing does not exist
	EConflict    = "conflict"    // the thing exists in a state that forbids the request
	EUnavailable = "unavailable" // a dependency (disk, network, source) is down; retry later
	EInternal    = "internal"    // a bug or an unexpected failure
)

// Error is an error a user can act on: a stable code plus a message written
// for people.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EInternal
// for any other non-nil error and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the message of the first *Error in err's chain, or a
// generic message: internal details are logged, not shown.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
