package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

// gmailScout creates a Gmail scout on the connected account.
func gmailScout(t *testing.T, d *gmailtest.Desktop, mode string) scouts.Scout {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"email": gmailtest.Account, "mode": mode})
	cr, err := d.Core.CreateScout(context.Background(), core.NewScout{Kind: scouts.KindGmail, Name: "Mail", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return cr.Scout
}

// suggested lists the message ids a scout suggested.
func suggested(t *testing.T, d *gmailtest.Desktop, scoutID string) []string {
	t.Helper()
	list, err := d.Core.DB.ListSuggestions(context.Background(), localdb.SuggestionFilter{ScoutID: scoutID, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.SourceRef)
	}
	slices.Sort(ids)
	return ids
}

// waitSuggested waits until the scout's suggestions are exactly want,
// failing at once on one that is not wanted.
func waitSuggested(t *testing.T, d *gmailtest.Desktop, scoutID string, want []string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	gmailtest.Wait(t, fmt.Sprintf("%d suggestions", len(want)), func() bool {
		got := suggested(t, d, scoutID)
		for _, id := range got {
			if !slices.Contains(want, id) {
				t.Fatalf("suggested %s, which is not wanted (got %v, want %v)", id, got, want)
			}
		}
		return slices.Equal(got, want)
	}, func() string {
		return fmt.Sprintf("(got %d: %v; scout health %q)", len(suggested(t, d, scoutID)), suggested(t, d, scoutID), lastError(t, d, scoutID))
	})
}

// waitBaseline waits until the scout knows its place in the mailbox: on
// the desktop, or on the relay for a relay-triage scout.
func waitBaseline(t *testing.T, d *gmailtest.Desktop, r *gmailtest.Relay, scoutID string) {
	t.Helper()
	gmailtest.Wait(t, "the scout's place in the mailbox", func() bool {
		if r != nil {
			cs, err := r.DB.GmailScout(context.Background(), scoutID)
			return err == nil && cs.Gmail.Cursor > 0
		}
		v, err := d.Core.DB.SyncSeq(context.Background(), "gmail-cursor:"+scoutID)
		return err == nil && v > 0
	})
}

func lastError(t *testing.T, d *gmailtest.Desktop, scoutID string) string {
	t.Helper()
	s, err := d.Core.DB.GetScout(context.Background(), scoutID)
	if err != nil {
		t.Fatal(err)
	}
	return s.LastError
}

// An access token Google ends early (the refresh token still good) is
// refreshed and the call retried: the scout goes on suggesting mail and
// never asks the user to reconnect. Both where the desktop reads Gmail
// itself and where the relay does.
func TestGmailRefreshesARefusedAccessToken(t *testing.T) {
	for _, mode := range []string{core.GmailLocal, core.GmailRelayTriage} {
		t.Run(mode, func(t *testing.T) {
			g := gmailtest.NewGoogle(t)
			var o gmailtest.DesktopOptions
			var r *gmailtest.Relay
			if mode != core.GmailLocal {
				r = g.StartRelay(t)
				o = gmailtest.DesktopOptions{RelayURL: r.URL, RelayToken: r.Token}
			}
			d := g.OpenDesktop(t, t.TempDir(), o)
			d.Connect()
			sc := gmailScout(t, d, mode)
			waitBaseline(t, d, r, sc.ID)
			want := []string{g.Deliver(1, "first")}
			waitSuggested(t, d, sc.ID, want)

			if n := g.OAuth.ExpireAccessTokens(gmailtest.Account); n == 0 {
				t.Fatal("no access token to end")
			}
			want = append(want, g.Deliver(2, "after-expiry"))
			waitSuggested(t, d, sc.ID, want)
			if e := lastError(t, d, sc.ID); strings.Contains(e, "reconnect") {
				t.Fatalf("the scout asks to reconnect: %q", e)
			}
			if r != nil {
				if cs, err := r.DB.GmailScout(context.Background(), sc.ID); err != nil || !cs.Enabled {
					t.Fatalf("the relay disabled the scout: %+v %v", cs.Gmail, err)
				}
			}
		})
	}
}
