//go:build !linux && !darwin && !windows

package autostart

func entryPath() (string, error) { return "", ErrUnsupported }
func install(Entry) error        { return ErrUnsupported }
func uninstall(Entry) error      { return nil }
