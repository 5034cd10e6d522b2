package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/secrets"
)

// An agent on a machine without a desktop keyring (no session bus here)
// and no passphrase in its environment switches to its file keyring when
// asked, without a restart; after a restart "auto" keeps to that choice;
// a passphrase file other users can read is refused.
func TestKeyringSwitchesToTheFileWithoutRestart(t *testing.T) {
	data, conf := t.TempDir(), t.TempDir()
	noBus := "unix:path=" + filepath.Join(t.TempDir(), "no-bus")
	open := func() *keyring {
		k := newKeyring(data, conf, Config{Getenv: func(string) string { return "" }})
		k.bus = noBus
		return k
	}
	k := open()
	if _, err := k.open(); err == nil {
		t.Fatal("a keyring opened without a Secret Service or a passphrase")
	}
	if st := k.KeyringStatus(); st.Backend != "" || st.Error == "" {
		t.Fatalf("status without a keyring: %+v", st)
	}
	st, err := k.UseFileKeyring()
	pass := filepath.Join(conf, PassphraseFileName)
	if err != nil || st.Backend != secrets.BackendFile || !st.Created || st.PassphraseFile != pass {
		t.Fatalf("use-file: %+v %v", st, err)
	}
	if fi, err := os.Stat(pass); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("passphrase file: %v %v", fi, err)
	}
	s, err := k.open()
	if err != nil {
		t.Fatalf("the running agent's keyring after use-file: %v", err)
	}
	if err := s.Set(relayTokenKey, []byte("device-token")); err != nil {
		t.Fatal(err)
	}

	k = open() // a restart
	s, err = k.open()
	if err != nil || s.Backend() != secrets.BackendFile {
		t.Fatalf("after a restart: %v %v", s, err)
	}
	if v, err := s.Get(relayTokenKey); err != nil || string(v) != "device-token" {
		t.Fatalf("the token after a restart: %q %v", v, err)
	}
	if st, err := k.UseFileKeyring(); err != nil || st.Created {
		t.Fatalf("use-file again made a new passphrase: %+v %v", st, err)
	}

	os.Chmod(pass, 0o644)
	k = open()
	if _, err := k.open(); err == nil || !strings.Contains(err.Error(), "chmod 600 "+pass) {
		t.Fatalf("a passphrase file others can read: %v", err)
	}
	// A failure is not kept: once the file is put right, the running
	// agent's next use opens the keyring.
	os.Chmod(pass, 0o600)
	if s, err := k.open(); err != nil || s.Backend() != secrets.BackendFile {
		t.Fatalf("after chmod 600, in the same run: %v %v", s, err)
	}
}
