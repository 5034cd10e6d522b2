package autostart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseExec splits an Exec value the way a desktop environment does
// (Desktop Entry Specification: string unescaping, then quoting).
func parseExec(t *testing.T, v string) []string {
	t.Helper()
	v = unescapeValue(v)
	var args []string
	var cur strings.Builder
	inQuote, have := false, false
	for i := 0; i < len(v); i++ {
		ch := v[i]
		switch {
		case inQuote && ch == '\\' && i+1 < len(v):
			i++
			cur.WriteByte(v[i])
		case ch == '"':
			inQuote = !inQuote
			have = true
		case ch == ' ' && !inQuote:
			if have || cur.Len() > 0 {
				args = append(args, cur.String())
			}
			cur.Reset()
			have = false
		case ch == '%' && i+1 < len(v) && v[i+1] == '%':
			i++
			cur.WriteByte('%')
		default:
			cur.WriteByte(ch)
		}
	}
	if inQuote {
		t.Fatalf("unterminated quote in %q", v)
	}
	if have || cur.Len() > 0 {
		args = append(args, cur.String())
	}
	return args
}

func execOf(t *testing.T, content string) []string {
	t.Helper()
	for _, l := range strings.Split(content, "\n") {
		if v, ok := strings.CutPrefix(l, "Exec="); ok {
			return parseExec(t, v)
		}
	}
	t.Fatalf("no Exec line in\n%s", content)
	return nil
}

func TestAutostartEntryFollowsTheSetting(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	path := filepath.Join(cfg, "autostart", "scouts.desktop")
	if p, _ := Path(); p != path {
		t.Fatalf("Path() = %q, want %q", p, path)
	}
	exe := "/opt/My Apps/scouts$1\\\"`%"
	data := "/home/ann/scouts data"
	e := Entry{Exe: exe, DataDir: data}
	if err := Sync(e, true); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := execOf(t, string(b))
	want := []string{exe, "agent", "--data", data}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Exec parses to %q, want %q\n%s", got, want, b)
	}
	for _, l := range []string{"[Desktop Entry]", "Type=Application", "Name=Scouts agent", "X-Scouts-Data=" + data} {
		if !strings.Contains(string(b), l+"\n") {
			t.Errorf("entry lacks %q:\n%s", l, b)
		}
	}

	// The default data directory needs no --data.
	if err := Sync(Entry{Exe: "/usr/bin/scouts", DataDir: data, DefaultData: true}, true); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if got := execOf(t, string(b)); strings.Join(got, " ") != "/usr/bin/scouts agent" {
		t.Errorf("default data: Exec %q", got)
	}

	// Another data directory's agent with autostart off leaves it alone.
	if err := Sync(Entry{Exe: "/usr/bin/scouts", DataDir: "/tmp/test-data"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("another data directory's agent removed the entry: %v", err)
	}
	// Its own agent with autostart off removes it; again is harmless.
	for i := 0; i < 2; i++ {
		if err := Sync(e, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("entry still there after turning autostart off: %v", err)
	}
	if err := Sync(Entry{Exe: "scouts", DataDir: data}, true); err == nil {
		t.Error("a relative binary path was accepted")
	}
}

// Without XDG_CONFIG_HOME the entry goes to ~/.config/autostart.
func TestAutostartDefaultsToHomeConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	if p, _ := Path(); p != filepath.Join(home, ".config", "autostart", "scouts.desktop") {
		t.Fatalf("Path() = %q", p)
	}
}
