// Package secrets keeps Scouts' credentials (Gmail OAuth tokens) in the
// operating system's keyring: the Secret Service on Linux (gnome-keyring,
// KeePassXC, KWallet's Secret Service bridge), the Keychain on macOS, the
// Credential Manager on Windows, or an encrypted file for machines that
// have none of these.
//
// # Why Linux does not link github.com/99designs/keyring
//
// keyring's Linux build registers its Secret Service and KWallet backends
// from package init(), which calls the old godbus's dbus.SessionBus().
// Measured with keyring v1.2.2 on Debian 12 with dbus-x11 installed: a
// program that only imports keyring and prints AvailableBackends(), run
// with `env -u DBUS_SESSION_BUS_ADDRESS -u DISPLAY` (and no
// /run/user/$UID/bus), leaves one new `dbus-daemon --fork --session`
// running per start (three runs, three daemons, still alive after the
// program exits), because that godbus runs plain `dbus-launch`, which
// needs no X11 and never cleans up. Worse, init then does
// os.Setenv("DBUS_SESSION_BUS_ADDRESS", <the stray bus>), so everything
// later in the process — app/sessionbus, the tray, this package's own
// "is there a desktop?" check — believes a desktop session exists, and DBus
// activation on that bus starts a gnome-keyring-daemon with a locked (or
// missing) login keyring. Without dbus-launch installed, init silently
// registers nothing.
//
// No in-process workaround exists: package init runs before main, so the
// agent cannot set DBUS_SESSION_BUS_ADDRESS=disabled: in time (that value
// does stop the spawn, measured: the backends become keyctl, pass, file).
// Only whoever starts the process could set it, and every launcher would
// have to remember. Two more reasons not to use keyring's Secret Service
// backend here: on a locked item it waits for the unlock prompt's
// Completed signal with no timeout (and without a match rule for it), so a
// headless agent could hang; and it keeps its items in a collection of its
// own, whose creation makes gnome-keyring ask for a new keyring password.
//
// So on Linux (and the other Unix systems) this package talks to the
// Secret Service itself through godbus/v5 and app/sessionbus, which never
// starts a bus, and implements the encrypted file format of keyring's
// FileBackend itself (same JWE and item JSON; file names are escaped more
// widely, which keyring's decoder reads), so keyring is linked only into
// macOS and Windows builds, where its init has no side effects. Keep it
// that way: any package of a Linux binary importing keyring brings the
// init back.
//
// # Choosing a backend
//
// Backend "auto" picks the platform keyring; on Linux it uses the Secret
// Service only when a session bus is reachable and something there
// provides org.freedesktop.secrets, else the encrypted file when a
// passphrase is configured, else it fails with an error saying what to do.
// It never prompts — not on a terminal, and not through a Secret Service
// unlock dialog that a headless agent could wait on forever: a locked
// keyring is reported as ErrLocked.
package secrets

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Backends accepted by Options.Backend.
const (
	BackendAuto          = "auto"
	BackendSecretService = "secret-service"
	BackendKeychain      = "keychain"
	BackendWinCred       = "wincred"
	BackendFile          = "file"
)

// Environment variables that configure the file backend's passphrase.
const (
	EnvPassphrase     = "SCOUTS_KEYRING_PASSPHRASE"
	EnvPassphraseFile = "SCOUTS_KEYRING_PASSPHRASE_FILE"
)

// Options configure Open.
type Options struct {
	// Backend is "auto" (the default), "secret-service", "keychain",
	// "wincred" or "file".
	Backend string
	// FileDir is the file backend's directory, e.g. <data dir>/keyring.
	FileDir string
	// Passphrase returns the file backend's passphrase (PassphraseFromEnv
	// reads it from the environment). nil means none is configured.
	Passphrase func() (string, error)
	// ServiceName names the application in the keyring ("scouts").
	ServiceName string
	// BusAddress is the DBus session bus for the Secret Service; empty
	// means the user's session bus as app/sessionbus finds it.
	BusAddress string
}

// Store reads and writes secrets in one keyring.
type Store struct {
	b backend
}

// backend is one keyring implementation; its errors are already wrapped in
// *Error where the user can do something about them.
type backend interface {
	name() string
	get(key string) ([]byte, error)
	set(key string, value []byte) error
	remove(key string) error
	keys() ([]string, error)
}

// Open opens the keyring that o names and checks that it can be reached.
// A locked keyring opens; its operations then answer ErrLocked.
func Open(o Options) (*Store, error) {
	if o.ServiceName == "" {
		o.ServiceName = "scouts"
	}
	if o.Backend == "" {
		o.Backend = BackendAuto
	}
	var (
		b   backend
		err error
	)
	switch o.Backend {
	case BackendFile:
		b, err = openFile(o)
	case BackendAuto, BackendSecretService, BackendKeychain, BackendWinCred:
		b, err = openPlatform(o)
	default:
		return nil, fmt.Errorf("secrets: unknown keyring backend %q (want auto, secret-service, keychain, wincred or file)", o.Backend)
	}
	if err != nil {
		return nil, err
	}
	return &Store{b: b}, nil
}

// Backend names the keyring in use: "secret-service", "keychain",
// "wincred" or "file".
func (s *Store) Backend() string { return s.b.name() }

// Get returns the secret stored under key, or an error wrapping
// ErrNotFound, ErrLocked or ErrUnavailable. It never returns an empty
// secret without an error.
func (s *Store) Get(key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	v, err := s.b.get(key)
	if err != nil {
		return nil, fmt.Errorf("secrets: get %q: %w", key, err)
	}
	if len(v) == 0 {
		// Set refuses empty values, so an empty one means someone else
		// wrote the entry or the backend lost it: not a usable secret.
		return nil, fmt.Errorf("secrets: get %q: the %s keyring returned an empty secret", key, s.b.name())
	}
	return v, nil
}

// Set stores value under key, replacing any previous value.
func (s *Store) Set(key string, value []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if len(value) == 0 {
		return fmt.Errorf("secrets: set %q: refusing to store an empty secret", key)
	}
	if err := s.b.set(key, value); err != nil {
		return fmt.Errorf("secrets: set %q: %w", key, err)
	}
	return nil
}

// Delete removes key; a key that does not exist gives ErrNotFound.
func (s *Store) Delete(key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := s.b.remove(key); err != nil {
		return fmt.Errorf("secrets: delete %q: %w", key, err)
	}
	return nil
}

// Keys lists the keys this application stored.
func (s *Store) Keys() ([]string, error) {
	k, err := s.b.keys()
	if err != nil {
		return nil, fmt.Errorf("secrets: list keys: %w", err)
	}
	return k, nil
}

func checkKey(key string) error {
	if key == "" {
		return errors.New("secrets: empty key")
	}
	return nil
}

// PassphraseFromEnv returns the passphrase source the environment
// configures: the contents of the file named by
// SCOUTS_KEYRING_PASSPHRASE_FILE (trailing newline removed), else
// SCOUTS_KEYRING_PASSPHRASE. It returns nil when neither is set. getenv is
// usually os.Getenv.
func PassphraseFromEnv(getenv func(string) string) func() (string, error) {
	if path := getenv(EnvPassphraseFile); path != "" {
		return func() (string, error) {
			b, err := os.ReadFile(path)
			if err != nil {
				return "", fmt.Errorf("secrets: read the keyring passphrase from %s=%s: %w", EnvPassphraseFile, path, err)
			}
			p := strings.TrimRight(string(b), "\r\n")
			if p == "" {
				return "", fmt.Errorf("secrets: the keyring passphrase file %s is empty", path)
			}
			return p, nil
		}
	}
	if p := getenv(EnvPassphrase); p != "" {
		return func() (string, error) { return p, nil }
	}
	return nil
}
