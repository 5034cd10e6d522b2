package e2e

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/internal/promtext"
	"github.com/scouts-hq/scouts/store/storetest"
)

// metric reads a counter from a relay's /metrics; 0 when absent.
func metric(t *testing.T, base, name string) float64 {
	t.Helper()
	m, err := promtext.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	return m[name]
}

// Two relays share one PostgreSQL: an item posted to instance A reaches a
// desktop connected to instance B through LISTEN/NOTIFY, once; and a relay
// shut down gracefully lets its desktops resume on the next instance.
func TestTwoRelaysShareOnePostgres(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresDSN(t)
	a := startRelay(t, dsn, "")
	// B looks at the queue only when notified: its periodic safety poll
	// (every six heartbeats) is pushed out of the test's reach, so only
	// NOTIFY from A's commits can wake it.
	b := startRelay(t, dsn, "", "--heartbeat", "1h")
	token := newDevice(t, dsn, "ann@example.com", "laptop", true)
	home := t.TempDir()
	ag := startAgent(t, filepath.Join(home, "data"), home, "--relay", b.url, "--device-token-file", token)
	stream := ag.events(t)
	waitState(t, stream, "online on B", online)
	hook, err := ag.client.CreateScout(ctx, apitype.CreateScout{Kind: "webhook", Name: "hook"})
	if err != nil {
		t.Fatal(err)
	}
	waitSynced(t, stream, "registered through B")
	viaA := strings.Replace(hook.HookURL, b.url, a.url, 1)
	const n = 50
	for i := range n {
		if code, _ := post(t, viaA, hook.HookToken, fmt.Sprintf("k%d", i), hookItem{Title: fmt.Sprintf("via A %d", i)}); code != http.StatusAccepted {
			t.Fatalf("post to A: %d", code)
		}
	}
	got := waitSuggestions(t, ag, n)
	if len(got) != n {
		t.Fatalf("%d suggestions, want %d", len(got), n)
	}
	// The desktop acknowledges in batches after it commits: having the
	// suggestions does not mean B has counted every ack yet. Wait for the
	// acks themselves, then check that nothing was counted twice. Polled:
	// B counts an ack in its metrics and tells no one.
	poll(t, fmt.Sprintf("%d acks on B", n), func() bool { return metric(t, b.url, "scouts_relay_acks_total") >= n },
		func() string { return fmt.Sprintf("acks on B: %v", metric(t, b.url, "scouts_relay_acks_total")) })
	if da, db := metric(t, a.url, "scouts_relay_deliveries_total"), metric(t, b.url, "scouts_relay_deliveries_total"); da != 0 || db != n {
		t.Fatalf("deliveries: A %v, B %v; want 0 and %d (each row once, by the instance holding the session)", da, db, n)
	}
	if acks := metric(t, b.url, "scouts_relay_acks_total"); acks != n {
		t.Fatalf("acks on B: %v, want %d", acks, n)
	}

	// Graceful shutdown of B: sessions close with "going away", the process
	// exits cleanly, and the desktop resumes when an instance answers at
	// its address again — with what was queued through A meanwhile.
	bAddr := strings.TrimPrefix(b.url, "http://")
	b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("relay B did not exit within 30s of SIGTERM")
	}
	if code := b.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("relay B exited with %d", code)
	}
	waitState(t, stream, "offline after B left", func(s apitype.RelayStatus) bool { return s.State == "offline" })
	if code, _ := post(t, viaA, hook.HookToken, "while-b-down", hookItem{Title: "queued while B was down"}); code != http.StatusAccepted {
		t.Fatalf("post while B is down: %d", code)
	}
	startRelay(t, dsn, bAddr)
	ag.client.Sync(ctx)
	waitState(t, stream, "back online", online)
	if got := waitSuggestions(t, ag, n+1); len(got) != n+1 {
		t.Fatalf("%d suggestions after the restart, want %d", len(got), n+1)
	}
}
