package core_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
	"github.com/scouts-hq/scouts/scouts"
)

// waitFor waits for a bus event for which ok returns true.
func waitFor(t *testing.T, sub *bus.Subscription, what string, ok func(scouts.Event) bool) scouts.Event {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-sub.C:
			if ok(m.Event) {
				return m.Event
			}
		case <-deadline:
			// Many of the events waited for come from a live folder watch.
			if why := watchtest.Why(t.TempDir()); why != "" {
				t.Fatalf("no %s within 30s; %s", what, why)
			}
			t.Fatalf("no %s within 30s", what)
		}
	}
}

// dropFile puts a file into a watched folder whole: written elsewhere and
// renamed in. The test scouts settle for 1 ms, so a file written in place
// can be read while still empty and become a card of its own.
func dropFile(t *testing.T, dir, name, text string) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), filepath.Base(name))
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}
