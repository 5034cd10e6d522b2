//go:build !linux

package window

// toRunningWindow: Wails' own single-instance lock handles other systems.
func toRunningWindow(dataDir string, args []string) (bool, error) { return false, nil }
