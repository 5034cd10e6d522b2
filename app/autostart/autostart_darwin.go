package autostart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const label = "app.scouts.agent"

func entryPath() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	return filepath.Join(home, "Library", "LaunchAgents", label+".plist"), nil
}

func xmlText(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// plist is a LaunchAgent that runs the agent at login (RunAtLoad) and not
// again when it quits on purpose (KeepAlive: only after a crash).
func plist(e Entry) string {
	var args strings.Builder
	for _, a := range append([]string{e.Exe}, e.Args()...) {
		fmt.Fprintf(&args, "\t\t<string>%s</string>\n", xmlText(a))
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + label + `</string>
	<key>ProgramArguments</key>
	<array>
` + args.String() + `	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ProcessType</key>
	<string>Interactive</string>
	<key>X-Scouts-Data</key>
	<string>` + xmlText(e.DataDir) + `</string>
</dict>
</plist>
`
}

func install(e Entry) error {
	p, err := entryPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return os.WriteFile(p, []byte(plist(e)), 0o644)
}

func uninstall(e Entry) error {
	p, err := entryPath()
	if err != nil {
		return err
	}
	return removeOwn(p, func(b []byte) bool {
		return bytes.Contains(b, []byte("<string>"+xmlText(e.DataDir)+"</string>\n</dict>"))
	})
}
