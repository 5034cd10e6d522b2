package gmaildesk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
	"github.com/scouts-hq/scouts/scouts"
)

// A Gmail scout with a schedule of its own reads the mailbox on that
// schedule and never on the agent's poll interval: its schedule is its
// fallback poll. The desktop polls every 200ms (gmailtest); the scout runs
// every second. Every run the scout made is in its history with what
// started it. In local mode the desktop is the only reader of the
// mailbox, so every history.list the fake Gmail answered is one of those
// runs; in relay-ping mode (where the fallback poll is the connector's,
// between the relay's hints) no mail arrives meanwhile, so no hint can
// start a run either.
func TestScheduleIsTheGmailScoutsPoll(t *testing.T) {
	for _, mode := range []string{gmaildesk.Local, gmaildesk.RelayPing} {
		t.Run(mode, func(t *testing.T) { testScheduleIsThePoll(t, mode) })
	}
}

func testScheduleIsThePoll(t *testing.T, mode string) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	d, _ := g.OpenConnected(t, mode)
	cfg, _ := json.Marshal(map[string]any{"email": gmailtest.Account, "mode": mode})
	cr, err := d.Core.CreateScout(ctx, core.NewScout{Kind: scouts.KindGmail, Name: "Mail", Review: true, Enabled: true, Config: cfg,
		Schedule: scouts.Schedule{Cron: "@every 1s"}})
	if err != nil {
		t.Fatal(err)
	}
	sc := cr.Scout
	d.WaitBaseline(nil, sc.ID)
	if mode == gmaildesk.Local {
		want := []string{g.Deliver(1, "scheduled")}
		waitSuggested(t, d, sc.ID, want)
	}

	// Three scheduled runs span at least two seconds: ten poll intervals.
	runs := func() []scouts.Run {
		list, err := d.Core.ScoutRuns(ctx, sc.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	d.Until("three scheduled runs", func() bool { return len(runs()) >= 3 }, func() string {
		return fmt.Sprintf("(%d runs)", len(runs()))
	})
	// Paused, the scout starts no run; once the run in progress ends,
	// the history and the fake's count hold still.
	if err := d.Core.SetPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	// A run is announced once it no longer counts as in progress.
	d.Until("the run in progress to end", func() bool { return d.Core.Engine.RunStatus(sc.ID).Active == 0 },
		func() string { return fmt.Sprintf("(%+v)", d.Core.Engine.RunStatus(sc.ID)) })

	ran := 0
	for _, r := range runs() {
		if r.Trigger != scouts.TriggerSchedule {
			t.Errorf("a run started by %q (%s): only the schedule may run the scout", r.Trigger, r.Outcome)
		}
		if r.Outcome == scouts.RunOK || r.Outcome == scouts.RunFailed {
			ran++
		}
	}
	if mode != gmaildesk.Local {
		return // the relay reads the mailbox too
	}
	if got := g.Gmail.Calls(gmailtest.Account)["history.list"]; got != ran {
		t.Fatalf("Gmail answered %d history.list calls for %d runs: the scout read the mailbox outside its runs", got, ran)
	}
}
