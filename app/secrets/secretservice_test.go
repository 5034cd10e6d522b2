//go:build !darwin && !windows

package secrets_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/internal/dbustest"
	"github.com/scouts-hq/scouts/app/secrets"
	"github.com/scouts-hq/scouts/app/secrets/secretstest"
)

func TestSecretServiceRoundTrip(t *testing.T) {
	kr := secretstest.Start(t)
	s, err := secrets.Open(secrets.Options{Backend: secrets.BackendSecretService, BusAddress: kr.Addr})
	if err != nil {
		t.Fatal(err)
	}
	if s.Backend() != secrets.BackendSecretService {
		t.Fatalf("backend %q", s.Backend())
	}
	roundTrip(t, s)

	// Another application's entries are not ours.
	other, err := secrets.Open(secrets.Options{Backend: secrets.BackendSecretService, BusAddress: kr.Addr, ServiceName: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("shared", []byte("scouts' value")); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Get("shared"); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("other application's Get: %v, want ErrNotFound", err)
	}
}

// roundTrip exercises a fresh, empty store.
func roundTrip(t *testing.T, s *secrets.Store) {
	t.Helper()
	if _, err := s.Get("gmail:you@example.com"); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("Get before Set: %v, want ErrNotFound", err)
	}
	if keys, err := s.Keys(); err != nil || len(keys) != 0 {
		t.Fatalf("Keys of an empty store: %q, %v", keys, err)
	}
	if err := s.Set("gmail:you@example.com", []byte(`{"refresh_token":"1//first"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("gmail:other@example.com", []byte("other")); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("gmail:you@example.com", []byte(`{"refresh_token":"1//second"}`)); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	got, err := s.Get("gmail:you@example.com")
	if err != nil || string(got) != `{"refresh_token":"1//second"}` {
		t.Fatalf("Get after overwrite: %q, %v", got, err)
	}
	keys, err := s.Keys()
	slices.Sort(keys)
	if err != nil || !slices.Equal(keys, []string{"gmail:other@example.com", "gmail:you@example.com"}) {
		t.Fatalf("Keys: %q, %v", keys, err)
	}
	if err := s.Delete("gmail:you@example.com"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("gmail:you@example.com"); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete("gmail:you@example.com"); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("second Delete: %v, want ErrNotFound", err)
	}
	if keys, err := s.Keys(); err != nil || !slices.Equal(keys, []string{"gmail:other@example.com"}) {
		t.Fatalf("Keys after Delete: %q, %v", keys, err)
	}
	if err := s.Set("empty", nil); err == nil {
		t.Fatal("Set accepted an empty secret")
	}
	if err := s.Delete("gmail:other@example.com"); err != nil {
		t.Fatal(err)
	}
}

func TestSecretServiceLocked(t *testing.T) {
	kr := secretstest.Start(t)
	s, err := secrets.Open(secrets.Options{Backend: secrets.BackendSecretService, BusAddress: kr.Addr})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("gmail:you@example.com", []byte("token")); err != nil {
		t.Fatal(err)
	}
	kr.Lock(t)

	v, err := s.Get("gmail:you@example.com")
	if v != nil {
		t.Fatalf("Get on a locked keyring returned %q", v)
	}
	wantLocked(t, "Get", err)
	wantLocked(t, "Set", s.Set("gmail:you@example.com", []byte("new")))
	wantLocked(t, "Delete", s.Delete("gmail:you@example.com"))
	keys, err := s.Keys()
	if keys != nil {
		t.Fatalf("Keys on a locked keyring returned %q", keys)
	}
	wantLocked(t, "Keys", err)

	// Opening still works: the keyring may be unlocked later.
	if _, err := secrets.Open(secrets.Options{Backend: secrets.BackendAuto, BusAddress: kr.Addr}); err != nil {
		t.Fatalf("Open on a locked keyring: %v", err)
	}
}

func wantLocked(t *testing.T, op string, err error) {
	t.Helper()
	if !errors.Is(err, secrets.ErrLocked) {
		t.Fatalf("%s on a locked keyring: %v, want ErrLocked", op, err)
	}
	for _, advice := range []string{"gnome-keyring-daemon --unlock", "--keyring file", secrets.EnvPassphraseFile} {
		if !strings.Contains(err.Error(), advice) {
			t.Errorf("%s: error %q does not mention %q", op, err, advice)
		}
	}
	var e *secrets.Error
	if !errors.As(err, &e) || e.Backend != secrets.BackendSecretService {
		t.Errorf("%s: error %#v is not a *secrets.Error of the secret-service backend", op, err)
	}
}

// A daemon nobody unlocked (what DBus activation starts before login)
// must say the keyring is locked, never hand out an empty secret.
func TestSecretServiceNeverUnlocked(t *testing.T) {
	kr := secretstest.StartLocked(t)
	s, err := secrets.Open(secrets.Options{Backend: secrets.BackendSecretService, BusAddress: kr.Addr})
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.Get("gmail:you@example.com")
	if v != nil {
		t.Fatalf("Get returned %q", v)
	}
	wantLocked(t, "Get", err)
	wantLocked(t, "Set", s.Set("gmail:you@example.com", []byte("token")))
}

func TestNoSecretServiceOnBus(t *testing.T) {
	addr := dbustest.StartBus(t)
	_, err := secrets.Open(secrets.Options{Backend: secrets.BackendSecretService, BusAddress: addr})
	if !errors.Is(err, secrets.ErrUnavailable) || !strings.Contains(err.Error(), "install gnome-keyring") {
		t.Fatalf("bus without a Secret Service: %v", err)
	}
	_, err = secrets.Open(secrets.Options{BusAddress: addr})
	if !errors.Is(err, secrets.ErrUnavailable) {
		t.Fatalf("auto without a passphrase: %v, want ErrUnavailable", err)
	}
	s, err := secrets.Open(secrets.Options{BusAddress: addr, FileDir: t.TempDir(), Passphrase: staticPass("pw")})
	if err != nil || s.Backend() != secrets.BackendFile {
		t.Fatalf("auto with a passphrase: %v, %v; want the file backend", s, err)
	}
}

// Without a session bus, "auto" must neither find one nor start one.
func TestNoSessionBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	_, err := secrets.Open(secrets.Options{})
	if !errors.Is(err, secrets.ErrUnavailable) || !strings.Contains(err.Error(), "no desktop session bus") {
		t.Fatalf("auto without a bus: %v", err)
	}
	s, err := secrets.Open(secrets.Options{FileDir: t.TempDir(), Passphrase: staticPass("pw")})
	if err != nil || s.Backend() != secrets.BackendFile {
		t.Fatalf("auto without a bus, with a passphrase: %v; want the file backend", err)
	}
	if _, err := secrets.Open(secrets.Options{Backend: secrets.BackendKeychain}); !errors.Is(err, secrets.ErrUnavailable) {
		t.Fatalf("keychain on Linux: %v", err)
	}
	if _, err := secrets.Open(secrets.Options{Backend: "kwallet"}); err == nil {
		t.Fatal("unknown backend accepted")
	}
}

func staticPass(p string) func() (string, error) {
	return func() (string, error) { return p, nil }
}

// keyring's Linux init spawns a stray session bus (see the package doc):
// it must not be linked here.
func TestKeyringNotLinked(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool to list dependencies with: %v", err)
	}
	out, err := exec.Command(gotool, "list", "-deps", "github.com/scouts-hq/scouts/app/secrets").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/99designs/keyring") || p == "github.com/godbus/dbus" {
			t.Fatalf("%s is linked into a Linux build", p)
		}
	}
}
