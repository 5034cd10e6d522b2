package localapi_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
)

// A folder scout that no inotify instance is left for (simulated: the
// agent's watcher cannot open) says so in its health, with the sysctl to
// raise, and is not in error: it runs on its periodic rescans.
func TestScoutHealthSaysTheWatchLimit(t *testing.T) {
	hub := watchhub.New(watchhub.Options{Open: func() error { return syscall.EMFILE }})
	t.Cleanup(func() { hub.Close() }) // after the core's Close
	srv, c := newServerWith(t, core.Config{DataDir: t.TempDir(), Version: "test", Watches: hub})
	sub, _, _ := c.Bus.Subscribe(0, 1024)
	defer sub.Close()
	var sc apitype.Scout
	mustCall(t, srv, "POST", "/api/v1/scouts", `{"kind":"folder","path":"`+t.TempDir()+`"}`, 201, &sc)
	deadline := time.After(30 * time.Second)
	for announced := false; !announced; {
		select {
		case m := <-sub.C:
			d, _ := m.Event.Data.(map[string]any)
			announced = m.Event.Type == core.EventScoutWatch && d["scout_id"] == sc.ID
		case <-deadline:
			t.Fatal("the scout's watch was never announced")
		}
	}
	var got apitype.Scout
	mustCall(t, srv, "GET", "/api/v1/scouts/"+sc.ID, "", 200, &got)
	if !strings.Contains(got.Health.Watch, "sudo sysctl fs.inotify.max_user_instances=") {
		t.Errorf("health.watch = %q; want the instance limit with the sysctl to raise", got.Health.Watch)
	}
	if got.Health.State == "error" {
		t.Errorf("health %+v: a scout polling for want of a watch is not in error", got.Health)
	}
}
