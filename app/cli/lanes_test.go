package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/agent"
	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/datadir"
	"github.com/scouts-hq/scouts/app/localclient"
)

// startTestAgent runs a real agent in this process on its own data directory
// and returns a client for it, once it answers.
func startTestAgent(t *testing.T) (string, *localclient.Client) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, agent.Config{DataDir: dir, ConfigDir: filepath.Join(dir, "config"), Version: "test",
			Ready: func(string) { close(ready) }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("agent stopped before answering: %v", err)
	}
	c := localclient.NewSocket(datadir.SocketPath(dir))
	return dir, c
}

// cli runs one command against the agent of dir.
func cli(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(append(args, "--data", dir), Env{Stdout: &out, Stderr: &errOut, Version: "test"})
	return out.String(), errOut.String(), code
}

// pendingCards waits until the agent holds n pending cards in any lane.
func pendingCards(t *testing.T, c *localclient.Client, n int) []apitype.Suggestion {
	t.Helper()
	var list []apitype.Suggestion
	awaitAgent(t, c, fmt.Sprintf("%d pending cards", n), func() bool {
		var err error
		if list, err = c.Suggestions(context.Background(), localclient.SuggestionQuery{Status: "pending"}); err != nil {
			t.Fatal(err)
		}
		return len(list) == n
	})
	return list
}

func TestLanesAndLearningFromTheCommandLine(t *testing.T) {
	dir, c := startTestAgent(t)
	ctx := context.Background()
	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	os.WriteFile(filepath.Join(drop, "newsletter.md"), []byte("# Weekly digest\n\nTen links.\n"), 0o644)
	os.WriteFile(filepath.Join(drop, "pills.md"), []byte("# Cheap pills\n\nBuy now.\n"), 0o644)
	sc, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: drop, IncludeExisting: true})
	if err != nil {
		t.Fatal(err)
	}
	cards := pendingCards(t, c, 2)
	byTitle := map[string]string{}
	for _, s := range cards {
		byTitle[s.Title] = s.ID
	}
	digest, pills := byTitle["Weekly digest"], byTitle["Cheap pills"]
	if digest == "" || pills == "" {
		t.Fatalf("cards: %+v", cards)
	}
	if _, err := c.Screen(ctx, digest); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := cli(t, dir, "status")
	if code != 0 || !strings.Contains(out, "1 suggestion in the inbox · 1 screened · 0 spam") {
		t.Fatalf("status: code %d\n%s%s", code, out, errOut)
	}
	out, _, code = cli(t, dir, "suggestions")
	if code != 0 || !strings.Contains(out, "Cheap pills") || strings.Contains(out, "Weekly digest") {
		t.Fatalf("suggestions (the inbox):\n%s", out)
	}
	out, _, code = cli(t, dir, "suggestions", "--lane", "screened")
	if code != 0 || !strings.Contains(out, "Weekly digest") || !strings.Contains(out, "bring-back ID") || strings.Contains(out, "Cheap pills") {
		t.Fatalf("suggestions --lane screened:\n%s", out)
	}
	_, errOut, code = cli(t, dir, "suggestions", "--lane", "attic")
	if code != 1 || !strings.Contains(errOut, "attic") {
		t.Fatalf("an unknown lane: code %d, %s", code, errOut)
	}

	out, errOut, code = cli(t, dir, "restore", digest)
	if code != 0 || !strings.Contains(out, "Back in the inbox: "+digest) {
		t.Fatalf("restore: code %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, dir, "spam", pills)
	if code != 0 || !strings.Contains(out, "Marked as spam: "+pills) {
		t.Fatalf("spam: code %d\n%s%s", code, out, errOut)
	}
	out, _, _ = cli(t, dir, "suggestions")
	if !strings.Contains(out, "Weekly digest") || strings.Contains(out, "Cheap pills") {
		t.Fatalf("the inbox after restore and spam:\n%s", out)
	}
	out, _, _ = cli(t, dir, "suggestions", "--status", "rejected", "--lane", "spam")
	if !strings.Contains(out, "Cheap pills") {
		t.Fatalf("rejected spam:\n%s", out)
	}
	_, errOut, code = cli(t, dir, "bring-back", pills)
	if code != 1 || !strings.Contains(errOut, "rejected") {
		t.Fatalf("bringing back a decided card: code %d, %s", code, errOut)
	}

	out, errOut, code = cli(t, dir, "learning", sc.ID)
	if code != 0 || !strings.Contains(out, "learning — 2 of 30 decisions") || !strings.Contains(out, "Screen below  30 %") {
		t.Fatalf("learning: code %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, dir, "learning", sc.ID, "--cold-start", "5", "--screen-below", "20%")
	if code != 0 || !strings.Contains(out, "5 decisions before") || !strings.Contains(out, "Screen below  20 %") ||
		!strings.Contains(out, "Spam above    90 %") {
		t.Fatalf("learning with thresholds: code %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = cli(t, dir, "learning", sc.ID, "--spam-above", "0.2")
	if code != 1 || !strings.Contains(errOut, "spam_above must be between 0.5 and 1") {
		t.Fatalf("a spam threshold out of range: code %d, %s", code, errOut)
	}
	out, errOut, code = cli(t, dir, "learning", sc.ID, "--reset")
	if code != 0 || !strings.Contains(out, "learning — 0 of 5 decisions") {
		t.Fatalf("learning --reset: code %d\n%s%s", code, out, errOut)
	}
}
