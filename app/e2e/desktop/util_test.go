//go:build linux

package desktop

import (
	"os"
	"os/exec"
	"testing"
)

var execLookPath = exec.LookPath

func needOrSkip(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " (build/deps.sh test installs it)")
	}
	t.Skip(why + " (build/deps.sh test installs it); skipping")
}

var interrupt = os.Interrupt

func pathEnv() string { return os.Getenv("PATH") }
func tmpDir() string  { return os.TempDir() }
