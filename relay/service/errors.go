package service

import "errors"

// Code says in a word why the service refused a request. The transport
// maps it to its own terms in one place (an HTTP status, a protocol
// error code and close code): the service never chooses them.
type Code string

const (
	// Malformed: the request cannot be read (not JSON, a missing part).
	Malformed Code = "malformed"
	// Invalid: the request reads, but a value in it is not allowed.
	Invalid Code = "invalid"
	// Unauthorized: no such credential, or the wrong one.
	Unauthorized Code = "unauthorized"
	// Revoked: the device was revoked.
	Revoked Code = "revoked"
	// Disabled: the webhook's scout is disabled.
	Disabled Code = "disabled"
	// Forbidden: the scout belongs to another user.
	Forbidden Code = "forbidden"
	// NotFound: no such scout, or nothing here serves the request.
	NotFound Code = "not_found"
	// NoDevice and DevicesRevoked: the account has no device an item
	// can be sealed for (none connected yet, or every one revoked).
	NoDevice       Code = "no_device"
	DevicesRevoked Code = "devices_revoked"
	// Unavailable: storage failed; the same request may succeed later.
	Unavailable Code = "unavailable"
	// Internal: something that should not fail did.
	Internal Code = "internal"
)

// Error is a refusal: its Code for the transport, its Message for the
// person or program that sent the request. Err, when set, is the cause
// (logged here already, or for the transport to recognise).
type Error struct {
	Code    Code
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return string(e.Code) + ": " + e.Message + ": " + e.Err.Error()
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// AsError returns err as the service's refusal; an error that is none
// (nil aside) is Internal.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: "internal error", Err: err}
}

func refuse(code Code, msg string) *Error { return &Error{Code: code, Message: msg} }

// unavailable is a storage failure, logged by the caller: the request
// may be tried again.
func unavailable(err error) *Error {
	return &Error{Code: Unavailable, Message: "try again later", Err: err}
}
