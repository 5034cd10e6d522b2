package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// TestARevokedGmailGrantRaisesAnAlarmOverRealProcesses (issue 20, item
// 5): over the real agent and the fake Google, a local Gmail scout whose
// access the person revoked at Google raises one gmail_token alarm, which
// the API lists open; after the person connects the account again, the
// scout's next good run resolves it by itself.
func TestARevokedGmailGrantRaisesAnAlarmOverRealProcesses(t *testing.T) {
	ctx := context.Background()
	g := newGoogle(t, nil)
	env := []string{"SCOUTS_KEYRING_PASSPHRASE=e2e keyring passphrase"}
	a := startAgentEnv(t, t.TempDir(), t.TempDir(), env, g.agentFlags(t)...)
	g.connect(t, a)
	cfg, _ := json.Marshal(map[string]any{"email": gmailUser, "mode": "local"})
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "gmail", Name: "Work mail", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	waitOn(t, on(g.gmail.Next), "the scout's baseline", func() bool { return g.gmail.Calls(gmailUser)["history.list"] >= 1 })

	if n := g.oauth.RevokeAccount(gmailUser); n == 0 {
		t.Fatal("the agent holds no grant of the account")
	}
	g.gmail.RevokeAll(gmailUser)
	tokenAlarms := func(status string) []apitype.Alarm {
		list, err := a.client.Alarms(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		var out []apitype.Alarm
		for _, al := range list {
			if al.Kind == "gmail_token" && al.ScoutID == sc.ID && (status == "" || al.Status == status) {
				out = append(out, al)
			}
		}
		return out
	}
	// The scout polls every 2 s (agentFlags); each failed run is an
	// event on the stream.
	waitOn(t, on(a.changed()), "the revoked grant's alarm", func() bool { return len(tokenAlarms("open")) == 1 },
		func() string { return fmt.Sprintf("alarms %+v", tokenAlarms("")) })
	// Failing runs go on; the alarm is not raised twice.
	failedRuns := func() int {
		list, err := a.client.ScoutRuns(ctx, sc.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range list {
			if r.Outcome == "failed" {
				n++
			}
		}
		return n
	}
	before := failedRuns()
	// Asked to run now; it also polls every 2 s, which is enough if the
	// request comes while its runner is between runs.
	_ = a.client.RunScout(ctx, sc.ID)
	waitOn(t, on(a.changed()), "another failed run", func() bool { return failedRuns() > before })
	if all := tokenAlarms(""); len(all) != 1 {
		t.Fatalf("alarms after more failed runs: %+v, want the one", all)
	}

	g.gmail.Restore(gmailUser)
	g.connect(t, a)
	// Reconnecting starts the scout again; its next run (it polls every
	// 2 s) is a good one.
	waitOn(t, on(a.changed()), "the alarm resolved after reconnecting", func() bool { return len(tokenAlarms("resolved")) == 1 },
		func() string { return fmt.Sprintf("alarms %+v", tokenAlarms("")) })
	if open := tokenAlarms("open"); len(open) != 0 {
		t.Fatalf("still open after reconnecting: %+v", open)
	}
}
