package cli

import (
	"context"
	"strings"
	"syscall"
	"testing"

	"github.com/scouts-hq/scouts/app/agent"
	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/datadir"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
)

// `scouts` says which folder scouts are not watched live and why — here
// no inotify instance is left (simulated), with the sysctl to raise.
func TestScoutsListSaysWhenNotWatchedLive(t *testing.T) {
	hub := watchhub.New(watchhub.Options{Open: func() error { return syscall.EMFILE }})
	t.Cleanup(func() { hub.Close() }) // after the agent stops
	dir := startAgentWith(t, agent.Config{Watches: hub})
	c := localclient.NewSocket(datadir.SocketPath(dir))
	ctx := context.Background()
	sc, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "Scans", Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	awaitAgent(t, c, "the scout's watch said", func() bool {
		s, err := c.Scout(ctx, sc.ID)
		return err == nil && s.Health.Watch != ""
	})
	out, errOut, code := cliIn(t, dir, "", "scouts")
	if code != 0 || !strings.Contains(out, "not watched live (below)") ||
		!strings.Contains(out, "Scans ("+sc.ID+") is not watched live: ") || !strings.Contains(out, "sudo sysctl fs.inotify.max_user_instances=") {
		t.Fatalf("scouts: %d\n%s%s", code, out, errOut)
	}
}
