package gmaildesk_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
	"github.com/scouts-hq/scouts/app/localdb"
)

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
	d.Until(fmt.Sprintf("%d suggestions", len(want)), func() bool {
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
func TestRefreshesARefusedAccessToken(t *testing.T) {
	for _, mode := range []string{gmaildesk.Local, gmaildesk.RelayTriage} {
		t.Run(mode, func(t *testing.T) {
			g := gmailtest.NewGoogle(t)
			d, r := g.OpenConnected(t, mode)
			sc := d.NewScout(mode)
			d.WaitBaseline(r, sc.ID)
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

// Mail that arrives between a scout's creation and its first successful
// sync is read; mail from before the creation never is. The first sync
// comes late because the scouts were paused, because Gmail rate-limits
// (then even the place in the mailbox cannot be read at creation, and
// the creation time stands in for it), or because the relay was down when
// a relay-triage scout was created.
func TestReadsMailFromTheScoutsCreation(t *testing.T) {
	cases := []struct {
		name         string
		mode         string
		rateLimited  bool // Gmail answers 429 from before the creation
		relayOutage  bool // the relay is down from before the creation
		pauseScouts  bool
		messagesLate int
	}{
		{name: "local, scouts paused", mode: gmaildesk.Local, pauseScouts: true, messagesLate: 10},
		{name: "local, Gmail rate-limits", mode: gmaildesk.Local, rateLimited: true, messagesLate: 10},
		{name: "relay-triage, relay down", mode: gmaildesk.RelayTriage, relayOutage: true, messagesLate: 15},
		{name: "relay-triage, relay down and Gmail rate-limits", mode: gmaildesk.RelayTriage, relayOutage: true, rateLimited: true, messagesLate: 15},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			g := gmailtest.NewGoogle(t)
			d, r := g.OpenConnected(t, tc.mode)
			g.Deliver(0, "before") // never suggested

			if tc.relayOutage {
				r.Stop()
			}
			if tc.pauseScouts {
				d.Core.SetPaused(ctx, true)
			}
			if tc.rateLimited {
				g.Gmail.Fail(gmailtest.Account, "*", http.StatusTooManyRequests, -1, 0)
			}
			sc := d.NewScout(tc.mode)
			var want []string
			for i := 1; i <= tc.messagesLate; i++ {
				want = append(want, g.Deliver(i, "meanwhile"))
			}
			if tc.rateLimited {
				g.Gmail.Fail(gmailtest.Account, "*", 0, 0, 0)
			}
			if tc.pauseScouts {
				d.Core.SetPaused(ctx, false)
			}
			if tc.relayOutage {
				r.Start()
			}
			waitSuggested(t, d, sc.ID, want)

			// And the scout goes on from there.
			want = append(want, g.Deliver(99, "after"))
			waitSuggested(t, d, sc.ID, want)
		})
	}
}

// A relay-triage scout whose Gmail access expires while the desktop is off
// says "reconnect" as soon as the desktop connects, and still after the
// desktop restarts without the relay; connecting the account again clears
// it.
func TestAuthExpiredReachesAnOfflineDesktop(t *testing.T) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	r := g.StartRelay(t)
	dir := t.TempDir()
	o := gmailtest.DesktopOptions{RelayURL: r.URL, RelayToken: r.Token}
	d := g.OpenDesktop(t, dir, o)
	d.Connect()
	sc := d.NewScout(gmaildesk.RelayTriage)
	want := []string{g.Deliver(1, "first")}
	waitSuggested(t, d, sc.ID, want)
	rt, err := d.Auth.M.RefreshToken(gmailtest.Account)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()

	// The user revokes Scouts' access at Google while the desktop is off.
	g.OAuth.Revoke(rt)
	g.Gmail.RevokeAll(gmailtest.Account)
	g.Deliver(2, "revoked")
	// The relay tells the (offline) device once the scout is disabled.
	r.Until("the relay to disable the scout", func() bool {
		cs, err := r.DB.GmailScout(ctx, sc.ID)
		return err == nil && !cs.Enabled
	}, func() string {
		cs, err := r.DB.GmailScout(ctx, sc.ID)
		return fmt.Sprintf("(relay scout %+v, %v)", cs, err)
	})

	d = g.OpenDesktop(t, dir, o)
	d.Until("the desktop to show the relay's word", func() bool {
		return strings.Contains(lastError(t, d, sc.ID), "reconnect")
	}, func() string { return fmt.Sprintf("(health %q)", lastError(t, d, sc.ID)) })
	d.Close()

	// Restarted without the relay: the scout still says so after it ran.
	r.Stop()
	restarted := time.Now()
	d = g.OpenDesktop(t, dir, o)
	d.Until("the scout's first run after the restart", func() bool {
		s, err := d.Core.DB.GetScout(ctx, sc.ID)
		return err == nil && !s.LastRunAt.Before(restarted.Truncate(time.Millisecond))
	})
	if e := lastError(t, d, sc.ID); !strings.Contains(e, "reconnect") {
		t.Fatalf("after a restart the scout's health is %q; want the relay's reconnect", e)
	}

	// Reconnecting the account, the relay still down, clears it at once.
	g.Gmail.Restore(gmailtest.Account)
	if _, err := d.Core.ConnectGmail(ctx, false); err != nil {
		t.Fatal(err)
	}
	d.Until("the reconnect to clear the scout's health", func() bool {
		return lastError(t, d, sc.ID) == ""
	}, func() string { return fmt.Sprintf("(health %q)", lastError(t, d, sc.ID)) })
	// The relay, back, first repeats its (stale) word, then takes the new
	// token from the outbox, enables the scout and says it is well.
	r.Start()
	d.Until("the relay to take the new token and say so", func() bool {
		cs, err := r.DB.GmailScout(ctx, sc.ID)
		st := d.Core.Relay().Status(ctx)
		return err == nil && cs.Enabled && st.State == "online" && st.Outbox == 0 && lastError(t, d, sc.ID) == ""
	}, func() string {
		return fmt.Sprintf("(health %q, relay %+v)", lastError(t, d, sc.ID), d.Core.Relay().Status(ctx))
	})
	want = append(want, g.Deliver(3, "reconnected"))
	d.Until("mail after the reconnect", func() bool {
		return slices.Contains(suggested(t, d, sc.ID), want[1])
	})
}
