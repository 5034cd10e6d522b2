package autostart

import (
	"errors"
	"strings"

	"golang.org/x/sys/windows/registry"
)

const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// valueName is the Run key's value; one per data directory would need a
// name per directory, so the default data directory's agent is "Scouts".
func valueName(e Entry) string { return "Scouts" }

func entryPath() (string, error) { return `HKCU\` + runKey + `\Scouts`, nil }

func commandLine(e Entry) string {
	parts := append([]string{e.Exe}, e.Args()...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\"") {
			parts[i] = `"` + strings.ReplaceAll(p, `"`, `\"`) + `"`
		}
	}
	return strings.Join(parts, " ")
}

func install(e Entry) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE|registry.QUERY_VALUE)
	if err != nil {
		return err
	}
	defer k.Close()
	return k.SetStringValue(valueName(e), commandLine(e))
}

func uninstall(e Entry) error {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE|registry.QUERY_VALUE)
	if err != nil {
		return nil
	}
	defer k.Close()
	v, _, err := k.GetStringValue(valueName(e))
	if err != nil {
		return nil
	}
	if !e.DefaultData && !strings.Contains(v, e.DataDir) || e.DefaultData && strings.Contains(v, "--data") {
		return nil // another data directory's agent
	}
	if err := k.DeleteValue(valueName(e)); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return err
	}
	return nil
}
