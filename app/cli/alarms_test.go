package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// A folder scout whose folder went away fails its runs; after three in a
// row `scouts alarms` lists its alarm and says how to acknowledge it, and
// `scouts alarms ack ID` does; an unknown ID is refused.
func TestAlarmsFromTheCommandLine(t *testing.T) {
	dir, c := startTestAgent(t)
	ctx := context.Background()
	out, _, code := cli(t, dir, "alarms")
	if code != 0 || !strings.Contains(out, "No alarms") {
		t.Fatalf("alarms with none: code %d\n%s", code, out)
	}
	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	sc, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "Drop", Path: drop})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(drop)
	var live []apitype.Alarm
	// Each event (a failed run among them) asks for one more run until the
	// alarm is there: runs asked for while one runs coalesce.
	awaitAgent(t, c, "the failing-runs alarm", func() bool {
		if live, err = c.Alarms(ctx, false); err != nil {
			t.Fatal(err)
		}
		if len(live) == 0 {
			c.RunScout(ctx, sc.ID)
		}
		return len(live) == 1
	})
	out, errOut, code := cli(t, dir, "alarms")
	// The alarm says how many runs failed so far: 3 when it was raised,
	// more if the scout ran again (and failed) before the command read it.
	if code != 0 || !strings.Contains(out, live[0].ID) || !failedRuns.MatchString(out) ||
		!strings.Contains(out, "alarms ack ID") {
		t.Fatalf("alarms: code %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, dir, "alarms", "ack", live[0].ID)
	if code != 0 || !strings.Contains(out, "Acknowledged "+live[0].ID) {
		t.Fatalf("alarms ack: code %d\n%s%s", code, out, errOut)
	}
	out, _, _ = cli(t, dir, "alarms")
	if !strings.Contains(out, "acknowledged") || strings.Contains(out, "alarms ack ID") {
		t.Fatalf("alarms after ack:\n%s", out)
	}
	_, errOut, code = cli(t, dir, "alarms", "ack", "al_missing")
	if code == 0 || !strings.Contains(errOut, "not found") {
		t.Fatalf("ack of an unknown alarm: code %d, %s", code, errOut)
	}
}

var failedRuns = regexp.MustCompile(`Drop failed its last ([3-9]|[1-9][0-9]+) runs`)

// scouts learning --pending-cap sets a scout's pending cap and shows it;
// a cap out of range is refused with its range.
func TestPendingCapFromTheCommandLine(t *testing.T) {
	dir, c := startTestAgent(t)
	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	sc, err := c.CreateScout(context.Background(), apitype.CreateScout{Kind: "folder", Name: "Drop", Path: drop})
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cli(t, dir, "learning", sc.ID)
	if code != 0 || !strings.Contains(out, "500 cards waiting at most") {
		t.Fatalf("learning: code %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, dir, "learning", sc.ID, "--pending-cap", "3")
	if code != 0 || !strings.Contains(out, "3 cards waiting at most") {
		t.Fatalf("learning --pending-cap 3: code %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = cli(t, dir, "learning", sc.ID, "--pending-cap", "100001")
	if code == 0 || !strings.Contains(errOut, "pending_cap must be between 1 and 100000") {
		t.Fatalf("learning --pending-cap 100001: code %d, %s", code, errOut)
	}
}

// scouts learning shows the gates of a scout's actions and sets them:
// --cooldown 90s, --notify-per-hour 2, --quiet 22:00-07:00, --quiet off;
// quiet hours that are not HH:MM-HH:MM are refused saying what to give.
func TestGatesFromTheCommandLine(t *testing.T) {
	dir, c := startTestAgent(t)
	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	sc, err := c.CreateScout(context.Background(), apitype.CreateScout{Kind: "folder", Name: "Drop", Path: drop})
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := cli(t, dir, append([]string{"learning", sc.ID}, args...)...)
		if code != 0 {
			t.Fatalf("learning %v: code %d\n%s%s", args, code, out, errOut)
		}
		return out
	}
	has := func(out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Fatalf("no %q in:\n%s", w, out)
			}
		}
	}
	has(run(), "5m0s: the same action", "30 posts an hour at most", "Quiet hours   none")
	has(run("--cooldown", "90s", "--notify-per-hour", "2", "--quiet", "22:00-07:00"),
		"1m30s: the same action", "2 posts an hour at most", "22:00–07:00: allowed write actions wait")
	has(run("--cold-start", "12"), "1m30s: the same action", "2 posts an hour", "22:00–07:00")
	has(run("--quiet", "off"), "Quiet hours   none", "2 posts an hour")
	for _, bad := range []struct{ arg, says string }{
		{"22:00", "want HH:MM-HH:MM"},
		{"10pm-7am", "not a time of day"},
	} {
		if _, errOut, code := cli(t, dir, "learning", sc.ID, "--quiet", bad.arg); code == 0 || !strings.Contains(errOut, bad.says) {
			t.Fatalf("--quiet %s: code %d, %s", bad.arg, code, errOut)
		}
	}
}
