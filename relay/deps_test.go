package relay_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The relay is a server: it must never link the desktop's UI toolkit.
func TestRelayDoesNotImportWails(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "wailsapp/wails") || strings.Contains(pkg, "fyne.io/systray") {
			t.Errorf("relay/ depends on %s", pkg)
		}
	}
	if !strings.Contains(string(out), "github.com/scouts-hq/scouts/relay/server") {
		t.Fatalf("go list did not list the relay's packages:\n%s", out)
	}
}
