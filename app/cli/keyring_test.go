package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/agent"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
)

// On a machine without a usable keyring (here: the file keyring with no
// passphrase, as an agent without a desktop session falls back to), a
// relay login says how to go on; `scouts keyring use-file` switches the
// running agent, and the same login then works without a restart.
func TestKeyringUseFileWithoutRestart(t *testing.T) {
	r := gmailtest.NewGoogle(t).StartRelay(t)
	dir := startAgentWith(t, agent.Config{Keyring: "file", Getenv: func(string) string { return "" }})
	_, errOut, code := cliIn(t, dir, r.Token+"\n", "relay", "login", r.URL, "-")
	if code != 1 || !strings.Contains(errOut, "keyring use-file (the running agent switches at once)") {
		t.Fatalf("a login without a keyring: exit %d %s", code, errOut)
	}
	out, _, _ := cli(t, dir, "keyring")
	if !strings.Contains(out, "No keyring can keep tokens") {
		t.Errorf("keyring before: %s", out)
	}
	pass := filepath.Join(dir, "config", agent.PassphraseFileName)
	out, errOut, code = cli(t, dir, "keyring", "use-file")
	if code != 0 || !strings.Contains(out, "a new random one in "+pass+" (mode 0600)") {
		t.Fatalf("keyring use-file: exit %d\n%s%s", code, out, errOut)
	}
	if fi, err := os.Stat(pass); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the passphrase file: %v %v", fi, err)
	}
	out, errOut, code = cliIn(t, dir, r.Token+"\n", "relay", "login", r.URL, "-")
	if code != 0 || !strings.Contains(out, "Logged in to "+r.URL) {
		t.Fatalf("the login after use-file: exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = cli(t, dir, "keyring")
	if !strings.Contains(out, "Tokens are kept in the file keyring (encrypted; its passphrase is in "+pass+")") {
		t.Errorf("keyring after: %s", out)
	}
	// Again: the passphrase stays the one the tokens were written with.
	out, _, _ = cli(t, dir, "keyring", "use-file")
	if !strings.Contains(out, "Its passphrase is the one in "+pass) {
		t.Errorf("keyring use-file again: %s", out)
	}
}
