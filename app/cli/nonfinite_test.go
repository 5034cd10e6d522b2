package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// A threshold that is not a finite number is refused by name; it reached
// the client, which could not write it as JSON ("json: unsupported value:
// NaN").
func TestLearningRefusesNonFiniteThresholds(t *testing.T) {
	dir, c := startTestAgent(t)
	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	sc, err := c.CreateScout(context.Background(), apitype.CreateScout{Kind: "folder", Path: drop})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--screen-below", "NaN"},
		{"--screen-below", "inf"},
		{"--spam-above", "-Inf"},
		{"--spam-above", "1e999"},
	} {
		_, errOut, code := cli(t, dir, append([]string{"learning", sc.ID}, args...)...)
		if code == 0 || strings.Contains(errOut, "unsupported value") || !strings.Contains(errOut, "not a finite number") {
			t.Errorf("learning %s: code %d, %s", strings.Join(args, " "), code, errOut)
		}
	}
}
