package secrets

import "errors"

// Classes of failure a UI can tell apart with errors.Is. The errors this
// package returns carry a sentence saying what to do (see Error).
var (
	// ErrNotFound: nothing is stored under the key.
	ErrNotFound = errors.New("no such secret in the keyring")
	// ErrLocked: the keyring exists but is locked.
	ErrLocked = errors.New("the keyring is locked")
	// ErrUnavailable: no usable keyring (no Secret Service, no session
	// bus, no passphrase for the file backend, ...).
	ErrUnavailable = errors.New("no usable keyring")
	// ErrBadPassphrase: the file backend's passphrase does not decrypt
	// its files.
	ErrBadPassphrase = errors.New("wrong keyring passphrase")
)

// Error is a keyring failure with the advice to show the user.
type Error struct {
	// Kind is ErrLocked, ErrUnavailable, ErrBadPassphrase or ErrNotFound.
	Kind error
	// Backend is "secret-service", "keychain", "wincred" or "file".
	Backend string
	// Msg is the whole sentence: what is wrong and what to do.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + " (" + e.Err.Error() + ")"
	}
	return e.Msg
}

// Unwrap lets errors.Is match both the Kind and the underlying error.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// The advice shared by several errors: the way out when the desktop
// keyring cannot be used.
const fileHint = "or start the agent with --keyring file and " + EnvPassphraseFile + " naming a file that holds a long random passphrase"

func notFound(backend string) error {
	return &Error{Kind: ErrNotFound, Backend: backend, Msg: "no such secret in the " + backend + " keyring"}
}
