package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
)

// TestAwaitingReplyOverRealProcesses: a local Gmail scout watching the
// person's sent mail (watch_sent), over the real agent and the fake Gmail.
// Ann's mail to Ana, sent four days ago by Gmail's clock (label SENT, no
// answer in its thread), becomes one follow-up task card; a restart of
// the agent makes no second one; Ana's answer, threaded onto it, withdraws
// the card — expired, saying who answered — and arrives as mail of its
// own.
func TestAwaitingReplyOverRealProcesses(t *testing.T) {
	ctx := context.Background()
	// Gmail's clock, behind the wall clock by lag: how the test sends
	// mail in the past.
	var lag atomic.Int64
	g := newGoogle(t, nil, func(o *gmailfake.Options) {
		o.Now = func() time.Time { return time.Now().Add(-time.Duration(lag.Load())) }
	})
	home := t.TempDir()
	env := []string{"SCOUTS_KEYRING_PASSPHRASE=e2e keyring passphrase"}
	flags := g.agentFlags(t)
	dataDir := t.TempDir()
	a := startAgentEnv(t, dataDir, home, env, flags...)
	g.connect(t, a)
	cfg, _ := json.Marshal(map[string]any{"email": gmailUser, "mode": "local", "watch_sent": true})
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "gmail", Name: "Work mail", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	bad, _ := json.Marshal(map[string]any{"email": gmailUser, "mode": "local", "awaiting_reply_days": 2})
	if _, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "gmail", Name: "Bad", Config: bad}); err == nil ||
		!strings.Contains(err.Error(), "awaiting_reply_days needs watch_sent") {
		t.Fatalf("a wait without watch_sent: %v", err)
	}
	waitOn(t, on(g.gmail.Next), "the scout's baseline", func() bool { return g.gmail.Calls(gmailUser)["history.list"] >= 1 })

	lag.Store(int64(4 * 24 * time.Hour))
	sent, _, err := g.gmail.Deliver(gmailUser, crlf(`From: Ann <ann@example.com>
To: Ana Lima <ana@partner.example>
Subject: Contract draft
Message-ID: <draft-1@example.com>
Content-Type: text/plain

Here is the contract draft; tell me what you think.
`), "SENT")
	lag.Store(0)
	if err != nil {
		t.Fatal(err)
	}
	followUps := func(a *agentProc) []apitype.Suggestion {
		var out []apitype.Suggestion
		for _, s := range gmailSuggestions(t, a, sc.ID) {
			if s.SourceRef == sent {
				out = append(out, s)
			}
		}
		return out
	}
	var card apitype.Suggestion
	waitOn(t, on(a.changed()), "the follow-up card", func() bool {
		list := followUps(a)
		if len(list) == 1 {
			card = list[0]
		}
		return card.ID != ""
	})
	if !strings.HasPrefix(card.Title, "No reply from Ana Lima to 'Contract draft' since ") || !strings.HasSuffix(card.Title, " — follow up?") ||
		card.Status != "pending" || card.Lane != "inbox" || card.ProposedKind != "task" ||
		!strings.Contains(card.Excerpt, "contract draft") || !strings.Contains(card.Reason, "ana@partner.example") {
		t.Fatalf("follow-up card: %+v", card)
	}

	// Restarted, the agent syncs again and makes no second card.
	a.stop()
	before := g.gmail.Calls(gmailUser)["history.list"]
	a = startAgentEnv(t, dataDir, home, env, flags...)
	waitOn(t, on(g.gmail.Next), "two syncs after the restart", func() bool { return g.gmail.Calls(gmailUser)["history.list"] >= before+2 })
	if list := followUps(a); len(list) != 1 || list[0].ID != card.ID || list[0].Status != "pending" {
		t.Fatalf("after a restart: %+v", list)
	}

	answer, _, err := g.gmail.Deliver(gmailUser, crlf(`From: Ana Lima <ana@partner.example>
To: ann@example.com
Subject: Re: Contract draft
In-Reply-To: <draft-1@example.com>
Message-ID: <re-draft-1@partner.example>
Content-Type: text/plain

Looks good, signing tomorrow.
`))
	if err != nil {
		t.Fatal(err)
	}
	var got apitype.Suggestion
	waitOn(t, on(a.changed()), "the follow-up card withdrawn", func() bool {
		list := followUps(a)
		if len(list) == 1 {
			got = list[0]
		}
		return got.Status == "expired"
	}, func() string { return fmt.Sprintf("card %+v", got) })
	if !strings.HasPrefix(got.ExpiredReason, "Withdrawn: Ana Lima answered on ") {
		t.Fatalf("withdrawn card: %+v", got)
	}
	waitOn(t, on(a.changed()), "the answer's own card", func() bool {
		for _, s := range gmailSuggestions(t, a, sc.ID) {
			if s.SourceRef == answer {
				return true
			}
		}
		return false
	})
}

func crlf(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }
