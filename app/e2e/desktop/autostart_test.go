//go:build linux

package desktop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The "autostart" setting, through the real agent: PUT writes the login
// entry for this binary and data directory, the agent restores it at start
// if it went missing, and turning the setting off removes it.
func TestAutostartSettingWritesTheLoginEntry(t *testing.T) {
	bin := binaries(t)
	s := newSession(t, false)
	entry := filepath.Join(s.home, ".config", "autostart", "scouts.desktop")
	a := s.startAgent(bin, "--no-tray")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := a.client.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Autostart {
		t.Fatal("autostart is on by default")
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("a login entry exists before anyone asked: %v", err)
	}
	// The command line's toggle (the API's PUT /api/v1/settings).
	cmd := exec.Command(filepath.Join(bin, "scouts"), "settings", "--data", a.data, "--autostart", "on")
	cmd.Env = s.env()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "autostart      on") {
		t.Fatalf("scouts settings --autostart on: %v\n%s", err, out)
	}
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("no login entry after autostart on: %v", err)
	}
	want := "Exec=" + filepath.Join(bin, "scouts") + " agent --data " + a.data + "\n"
	if !strings.Contains(string(b), want) {
		t.Fatalf("entry lacks %q:\n%s", want, b)
	}

	// Gone while the agent was down: the next start puts it back.
	a.kill()
	os.Remove(entry)
	a = s.startAgent(bin, "--no-tray")
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("the agent did not restore its login entry at start: %v", err)
	}
	st.Autostart = false
	if _, err := a.client.SetSettings(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("the login entry is still there after autostart off: %v", err)
	}
}
