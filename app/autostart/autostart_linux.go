package autostart

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// entryPath is $XDG_CONFIG_HOME/autostart/scouts.desktop (default
// ~/.config), per the XDG Autostart specification.
func entryPath() (string, error) {
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" || !filepath.IsAbs(cfg) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("autostart: %w", err)
		}
		cfg = filepath.Join(home, ".config")
	}
	return filepath.Join(cfg, "autostart", "scouts.desktop"), nil
}

// dataKey records the data directory in the entry (a key of our own, which
// the specification allows with the X- prefix).
const dataKey = "X-Scouts-Data"

// DesktopEntry is the file's content.
func DesktopEntry(e Entry) string {
	var b strings.Builder
	b.WriteString("[Desktop Entry]\n")
	b.WriteString("Type=Application\n")
	b.WriteString("Name=Scouts agent\n")
	b.WriteString("Comment=Scouts watches where work arrives and suggests what to do with it\n")
	fmt.Fprintf(&b, "Exec=%s\n", execLine(append([]string{e.Exe}, e.Args()...)))
	b.WriteString("Icon=scouts\n")
	b.WriteString("Terminal=false\n")
	b.WriteString("NoDisplay=true\n")
	b.WriteString("X-GNOME-Autostart-enabled=true\n")
	b.WriteString("X-GNOME-Autostart-Delay=2\n")
	fmt.Fprintf(&b, "%s=%s\n", dataKey, escapeValue(e.DataDir))
	return b.String()
}

// execLine quotes arguments as the Desktop Entry specification asks:
// arguments with reserved characters in double quotes, with ", `, $ and \
// escaped; then, the Exec value being a string, backslashes doubled again.
func execLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n\"'\\><~|&;$*?#()`=%") {
			out[i] = a
			continue
		}
		q := strings.NewReplacer(`"`, `\"`, "`", "\\`", `$`, `\$`, `\`, `\\`).Replace(a)
		q = strings.ReplaceAll(q, "%", "%%")
		out[i] = `"` + q + `"`
	}
	return escapeValue(strings.Join(out, " "))
}

// escapeValue escapes a string value (backslash, newline, tab).
func escapeValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s)
}

func unescapeValue(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\s`, " ").Replace(s)
}

func install(e Entry) error {
	p, err := entryPath()
	if err != nil {
		return err
	}
	want := []byte(DesktopEntry(e))
	if have, err := os.ReadFile(p); err == nil && bytes.Equal(have, want) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, want, 0o644); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

func uninstall(e Entry) error {
	p, err := entryPath()
	if err != nil {
		return err
	}
	return removeOwn(p, func(b []byte) bool {
		d, ok := entryData(b)
		return !ok || d == e.DataDir
	})
}

// entryData reads the data directory an entry was made for.
func entryData(b []byte) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), dataKey+"="); ok {
			return unescapeValue(v), true
		}
	}
	return "", false
}
