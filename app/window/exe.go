package window

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// The desktop app ships as two executables built from the same code:
// `scouts` (agent, tray, CLI: no GTK or WebKit) and `scouts-window` (the
// same program built with the window, which links GTK and WebKit). A
// binary that merely links WebKit costs about 50 MB more RSS from the
// moment it starts, whether or not it opens a window (measured in
// docs/benchmarks.md), and the agent runs all day; so `scouts window`
// starts the agent from `scouts` and the window from `scouts-window`.
const (
	AgentName  = "scouts"
	WindowName = "scouts-window"
)

func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// ErrNoWindowBinary: neither this binary nor a scouts-window beside it or
// on PATH has the window.
var ErrNoWindowBinary = errors.New("the desktop window is not installed: " + WindowName +
	" is neither beside this scouts nor on PATH; build both with make build (it needs GTK 3 and WebKit2GTK 4.1: build/deps.sh installs them)")

// WindowBinary returns the executable that opens the window: this one if
// it was built with the window, else scouts-window beside it, else on
// PATH.
func WindowBinary() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if Built {
		return self, nil
	}
	p := filepath.Join(filepath.Dir(self), exeName(WindowName))
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		return p, nil
	}
	if p, err := exec.LookPath(exeName(WindowName)); err == nil {
		return filepath.Abs(p)
	}
	return "", ErrNoWindowBinary
}

// AgentBinary returns the executable to run the agent with: scouts beside
// this one when this is scouts-window (so that the agent does not carry
// WebKit), else this one.
func AgentBinary() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find my own binary: %w", err)
	}
	if !Built {
		return self, nil
	}
	p := filepath.Join(filepath.Dir(self), exeName(AgentName))
	if p != self {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return self, nil
}
