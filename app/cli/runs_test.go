package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/agent"
	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/datadir"
	"github.com/scouts-hq/scouts/app/localclient"
)

// startAgentWith is startTestAgent with more configuration.
func startAgentWith(t *testing.T, cfg agent.Config) string {
	t.Helper()
	dir := t.TempDir()
	cfg.DataDir, cfg.ConfigDir, cfg.Version = dir, filepath.Join(dir, "config"), "test"
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	cfg.Ready = func(string) { close(ready) }
	go func() { done <- agent.Run(ctx, cfg) }()
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
	return dir
}

func cliIn(t *testing.T, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(append(args, "--data", dir), Env{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(stdin), Version: "test"})
	return out.String(), errOut.String(), code
}

// A scout's schedule and budget from the command line: shown back in
// words, a bad expression refused with what to write instead.
func TestScheduleAndBudgetCommands(t *testing.T) {
	dir, c := startTestAgent(t)
	drop := t.TempDir()
	sc, err := c.CreateScout(context.Background(), apitype.CreateScout{Kind: "folder", Path: drop})
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cli(t, dir, "scouts", "schedule", sc.ID, "--cron", "*/10 * * * *", "--tz", "UTC", "--overlap", "skip")
	if code != 0 || !strings.Contains(out, "runs on */10 * * * * (UTC), next ") || !strings.Contains(out, "catch-up run-once; overlap skip") {
		t.Fatalf("schedule: %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = cli(t, dir, "scouts", "schedule", sc.ID, "--cron", "every day")
	if code != 1 || !strings.Contains(errOut, "want five fields") {
		t.Fatalf("a bad cron: %d %s", code, errOut)
	}
	out, _, _ = cli(t, dir, "scouts", "schedule", sc.ID, "--clear")
	if !strings.Contains(out, "no schedule of its own") {
		t.Fatalf("clear: %s", out)
	}
	out, errOut, code = cli(t, dir, "scouts", "budget", sc.ID, "--day", "1000", "--run", "200")
	if code != 0 || !strings.Contains(out, "model budget: 1000 tokens a day, 200 tokens per run") {
		t.Fatalf("budget: %d %s%s", code, out, errOut)
	}
	_, errOut, code = cli(t, dir, "scouts", "budget", sc.ID, "--run", "2000")
	if code != 1 || !strings.Contains(errOut, "one run could never spend it") {
		t.Fatalf("a run cap above the day's: %d %s", code, errOut)
	}
	// A negative figure is refused, not taken for "not given" while the
	// command says the budget was set.
	out, errOut, code = cli(t, dir, "scouts", "budget", sc.ID, "--run", "-5")
	if code != 1 || !strings.Contains(errOut, "cannot be negative") {
		t.Fatalf("a negative run cap: %d %s%s", code, out, errOut)
	}
	if got, _ := c.Scout(context.Background(), sc.ID); got.Budget.RunTokens != 200 || got.Budget.DayTokens != 1000 {
		t.Fatalf("budget after the refusals: %+v", got.Budget)
	}
}

// Secrets from the command line: the value from standard input, names
// listed, removal; a missing value or a bad name is a usage error.
func TestSecretsCommands(t *testing.T) {
	dir := startAgentWith(t, agent.Config{Keyring: "file", Getenv: func(k string) string {
		if k == "SCOUTS_KEYRING_PASSPHRASE" {
			return "cli test passphrase"
		}
		return ""
	}})
	out, errOut, code := cliIn(t, dir, "s3cret value\n", "secrets", "set", "crm-token")
	if code != 0 || !strings.Contains(out, `{"secret": "crm-token"}`) || strings.Contains(out+errOut, "s3cret") {
		t.Fatalf("set: %d %s%s", code, out, errOut)
	}
	if _, errOut, code := cliIn(t, dir, "", "secrets", "set", "empty"); code != 2 || !strings.Contains(errOut, "no value on standard input") {
		t.Fatalf("an empty value: %d %s", code, errOut)
	}
	if _, errOut, code := cliIn(t, dir, "x", "secrets", "set", "no/slash"); code != 1 || !strings.Contains(errOut, "letters, digits") {
		t.Fatalf("a bad name: %d %s", code, errOut)
	}
	out, _, _ = cliIn(t, dir, "", "secrets")
	if out != "crm-token\n" {
		t.Fatalf("list: %q", out)
	}
	if out, _, code := cliIn(t, dir, "", "secrets", "rm", "crm-token"); code != 0 || !strings.Contains(out, "removed") {
		t.Fatalf("rm: %d %s", code, out)
	}
	if _, errOut, code := cliIn(t, dir, "", "secrets", "rm", "crm-token"); code != 1 || !strings.Contains(errOut, "no secret named") {
		t.Fatalf("rm twice: %d %s", code, errOut)
	}
}

// An expired card is listed with why it expired, and revive brings it
// back to pending.
func TestExpiredAndReviveCommands(t *testing.T) {
	dir := startAgentWith(t, agent.Config{Expiry: 2 * time.Second})
	c := localclient.NewSocket(datadir.SocketPath(dir))
	ctx := context.Background()
	drop := t.TempDir()
	os.WriteFile(filepath.Join(drop, "passport.md"), []byte("# Renew the passport\n"), 0o644)
	if _, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: drop, IncludeExisting: true}); err != nil {
		t.Fatal(err)
	}
	// The 2 s expiry is the behaviour under test; its sweep announces it.
	var expired []apitype.Suggestion
	awaitAgent(t, c, "expired card", func() bool {
		var err error
		if expired, err = c.Suggestions(ctx, localclient.SuggestionQuery{Status: "expired"}); err != nil {
			t.Fatal(err)
		}
		return len(expired) > 0
	})
	out, _, code := cli(t, dir, "suggestions", "--status", "expired")
	if code != 0 || !strings.Contains(out, "WHY IT EXPIRED") || !strings.Contains(out, "Expired: nobody decided before") ||
		!strings.Contains(out, "revive ID") {
		t.Fatalf("expired listing: %d\n%s", code, out)
	}
	out, errOut, code := cli(t, dir, "revive", expired[0].ID)
	if code != 0 || !strings.Contains(out, "is pending again (in inbox)") {
		t.Fatalf("revive: %d %s%s", code, out, errOut)
	}
	out, _, _ = cli(t, dir, "status")
	if !strings.Contains(out, "Pending") {
		t.Fatalf("status: %s", out)
	}
}
