package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/internal/streamwake"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/internal/wake"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// rssSettle is how long a process idles after it serves (and, loaded,
// after its folder scout's first scan) before its memory is read: longer
// than the agent keeps an unused SQLite reader open.
const rssSettle = 10 * time.Second

// BenchmarkAgentRSS: the agent's resident memory at rest, read from
// /proc/PID/status (VmRSS, with its anonymous and file-backed parts) 10 s
// after it serves, for a fresh process each iteration, beside the floor of
// the same run: a trivial Go HTTP server on a Unix socket, built the same
// way. "empty" is a new data directory; "loaded" holds 10 000 suggestions
// and a folder scout over 20 000 files (read after its first scan).
// Linux only. Run it alone:
//
//	go test -run '^$' -bench AgentRSS -benchtime 5x ./app/e2e
func BenchmarkAgentRSS(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc")
	}
	agent := scoutsBinary(b)
	floor := buildBinary(b, "./app/e2e/testdata/floorserver", "floorserver")
	loaded := loadedDataDir(b)
	for _, tc := range []struct {
		name  string
		start func(dir string) (*exec.Cmd, string, func())
	}{
		{"floor", func(dir string) (*exec.Cmd, string, func()) {
			sock := filepath.Join(dir, "floor.sock")
			return exec.Command(floor, sock), sock, nil
		}},
		{"empty", func(dir string) (*exec.Cmd, string, func()) {
			return agentCmd(agent, dir), filepath.Join(dir, "data", "agent.sock"), nil
		}},
		{"loaded", func(dir string) (*exec.Cmd, string, func()) {
			if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
				b.Fatal(err)
			}
			copyFile(b, filepath.Join(loaded, "scouts.db"), filepath.Join(dir, "data", "scouts.db"))
			sock := filepath.Join(dir, "data", "agent.sock")
			return agentCmd(agent, dir), sock, func() { waitFirstScans(b, sock, loadedSuggestions) }
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var rss, anon, file []float64
			for range b.N {
				dir := b.TempDir()
				cmd, sock, ready := tc.start(dir)
				cmd.Env = testEnv(dir)
				cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				waitServing(b, sock)
				if ready != nil {
					ready()
				}
				// Not a wait for an event: the process idles this long
				// before its memory is read, on purpose.
				time.Sleep(rssSettle)
				st := procStatus(b, cmd.Process.Pid)
				rss, anon, file = append(rss, st["VmRSS"]), append(anon, st["RssAnon"]), append(file, st["RssFile"])
				cmd.Process.Kill()
				cmd.Wait()
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(medianMiB(rss), "MiB-RSS")
			b.ReportMetric(medianMiB(anon), "MiB-anon")
			b.ReportMetric(medianMiB(file), "MiB-file")
		})
	}
}

func agentCmd(bin, dir string) *exec.Cmd {
	return exec.Command(bin, "agent", "--data", filepath.Join(dir, "data"), "--inbox", "", "--no-tray", "--log-level", "warn")
}

// waitServing waits until an HTTP request over the Unix socket is
// answered. Polled: the process (the agent or the floor server, whose
// output the benchmark discards) says nothing to the benchmark when it
// starts serving.
func waitServing(b *testing.B, sock string) {
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	defer c.CloseIdleConnections()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := c.Get("http://local/")
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("nothing served on %s within 60 s: %v", sock, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFirstScans waits until every enabled folder scout has finished a
// run, and checks that the scans were baselines: the agent still holds
// the suggestions it started with. A run's end is announced on the
// agent's stream once recorded.
func waitFirstScans(b *testing.B, sock string, suggestions int) {
	cl := localclient.NewSocket(sock)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var changes wake.Wake
	done, err := streamwake.Follow(ctx, cl, &changes, b.Errorf)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cancel(); <-done }()
	scanned := func() bool {
		list, err := cl.Scouts(ctx)
		if err != nil {
			return false
		}
		for _, s := range list {
			if s.Kind == string(scouts.KindFolder) && s.Enabled && s.Health.LastRunAt == nil {
				return false
			}
		}
		return true
	}
	if err := wake.Until(ctx, scanned, changes.Next); err != nil {
		b.Fatalf("folder scouts' first scans not done within 5 minutes: %v", err)
	}
	st, err := cl.Status(ctx)
	if err != nil || st.Suggestions["pending"] != suggestions {
		b.Fatalf("after the first scans: %d pending suggestions, want %d (%v)", st.Suggestions["pending"], suggestions, err)
	}
}

// procStatus reads the memory lines of /proc/PID/status, in KiB.
func procStatus(b *testing.B, pid int) map[string]float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]float64{}
	for _, l := range strings.Split(string(raw), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || !strings.HasSuffix(v, " kB") {
			continue
		}
		out[k], _ = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(v, " kB")), 64)
	}
	return out
}

func medianMiB(kib []float64) float64 {
	s := slices.Clone(kib)
	slices.Sort(s)
	return s[len(s)/2] / 1024
}

func copyFile(b *testing.B, from, to string) {
	raw, err := os.ReadFile(from)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(to, raw, 0o600); err != nil {
		b.Fatal(err)
	}
}

// loadedDataDir builds, once, a data directory holding 10 000 pending
// suggestions (recorded through the agent's store, as a drain does) and a
// folder scout over a tree of 20 000 files in 100 folders.
const loadedSuggestions = 10_000

func loadedDataDir(b *testing.B) string {
	const suggestions, folders, perFolder = loadedSuggestions, 100, 200
	ctx := context.Background()
	dir := b.TempDir()
	tree := filepath.Join(dir, "tree")
	// Files a day old: the scout's first scan records them as the folder's
	// baseline (files modified about when a scout is created count as new).
	old := time.Now().Add(-24 * time.Hour)
	for i := range folders {
		sub := filepath.Join(tree, fmt.Sprintf("d%03d", i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range perFolder {
			f := filepath.Join(sub, fmt.Sprintf("f%03d.txt", j))
			if err := os.WriteFile(f, []byte("a file the scout watches\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Chtimes(f, old, old); err != nil {
				b.Fatal(err)
			}
		}
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		b.Fatal(err)
	}
	c, err := core.Open(ctx, core.Config{DataDir: data})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	now := time.Now().UTC().Truncate(time.Millisecond)
	hook := scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindWebhook, Name: "CI", Enabled: true, Review: true,
		Config: json.RawMessage(`{}`), CreatedAt: now, UpdatedAt: now}
	if err := c.DB.CreateScout(ctx, hook); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < suggestions; i += 500 {
		var recs []engine.ItemRecord
		for j := i; j < i+500; j++ {
			trace := scouts.NewID("tr")
			ref := fmt.Sprintf("qi_%06d", j)
			sug := scouts.Suggestion{ID: scouts.NewID("sg"), ScoutID: hook.ID, SourceType: scouts.KindWebhook, SourceRef: ref, TraceID: trace,
				Title: fmt.Sprintf("Build %d failed on main", j), Excerpt: "The integration suite failed at step deploy.",
				URL: "https://ci.example.com/builds/" + ref, ProposedKind: scouts.EntityTask, Reason: "Posted to the webhook of scout CI",
				Status: scouts.StatusPending, CreatedAt: now, ExpiresAt: now.Add(30 * 24 * time.Hour), Lane: scouts.LaneInbox}
			refs := map[string]string{"scout_id": hook.ID, "suggestion_id": sug.ID, "source_ref": ref}
			recs = append(recs, engine.ItemRecord{Suggestion: sug, Audit: []scouts.AuditEvent{
				{TraceID: trace, Stage: scouts.StageSource, Type: scouts.AuditItemDetected, Outcome: scouts.OutcomeOK, Summary: "New item from CI", Refs: refs, At: now},
				{TraceID: trace, Stage: scouts.StageTriage, Type: scouts.AuditSuggestionCreated, Outcome: scouts.OutcomeOK, Summary: "Suggested as task", Refs: refs, At: now},
			}})
		}
		if _, err := c.DB.RecordItems(ctx, recs, nil); err != nil {
			b.Fatal(err)
		}
	}
	cfg, _ := json.Marshal(map[string]string{"path": tree})
	if _, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "Tree", Review: true, Enabled: true, Config: cfg}); err != nil {
		b.Fatal(err)
	}
	return data
}
