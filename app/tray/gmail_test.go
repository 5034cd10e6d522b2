package tray

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/internal/dbustest"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
	"github.com/scouts-hq/scouts/app/localapi"
	"github.com/scouts-hq/scouts/app/localclient"
)

// serveAPI serves a desktop's local API on loopback and returns a client
// of it, as the tray's.
func serveAPI(t *testing.T, d *gmailtest.Desktop) *localclient.Client {
	t.Helper()
	const token = "0123456789abcdef0123456789abcdef"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: localapi.New(d.Core, localapi.Options{Token: token}).TCPHandler(l.Addr())}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return localclient.NewTCP("http://"+l.Addr().String(), token)
}

// The product's first scenario: "Connect Gmail…" in the tray, consent in
// the browser, and the account's Gmail scout is there, enabled, in local
// mode without a relay and in the default mode (the gmail_mode setting,
// else relay-triage) with one; a
// notification says so and how to change it. Connecting again (a
// reconnect) adds no second scout.
func TestConnectGmailFromTheTrayAddsAScout(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		relay      bool
		setting    string // the gmail_mode setting
	}{
		{name: "without a relay", mode: "local"},
		{name: "with a relay", mode: "relay-triage", relay: true},
		{name: "with a relay, relay-ping by default", mode: "relay-ping", relay: true, setting: "relay-ping"},
		{name: "relay-ping by default but no relay", mode: "local", setting: "relay-ping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g := gmailtest.NewGoogle(t)
			var o gmailtest.DesktopOptions
			if tc.relay {
				r := g.StartRelay(t)
				o = gmailtest.DesktopOptions{RelayURL: r.URL, RelayToken: r.Token}
			}
			d := g.OpenDesktop(t, t.TempDir(), o)
			addr, notes, _ := startNotifications(t)
			n, err := newDBusNotifier(dbustest.Connect(t, addr), nil, discard())
			if err != nil {
				t.Fatal(err)
			}
			client := serveAPI(t, d)
			if _, err := client.SetSettings(ctx, apitype.Settings{Notifications: true, GmailMode: "cloud"}); err == nil ||
				!strings.Contains(err.Error(), "gmail_mode") {
				t.Fatalf("an unknown gmail_mode was not refused clearly: %v", err)
			}
			if tc.setting != "" {
				if _, err := client.SetSettings(ctx, apitype.Settings{Notifications: true, GmailMode: tc.setting}); err != nil {
					t.Fatal(err)
				}
			}
			views := make(chan string, 4)
			c := newController(Options{Client: client, Logger: discard(), Quit: func() {},
				OpenWindow: func(view string) error { views <- view; return nil }})
			c.announce = n.Send
			go c.run(ctx)

			c.do(ctx, actConnectGmail)
			if v := <-views; v != "scouts" {
				t.Fatalf("the window opened on %q, want the Scouts view", v)
			}
			var sc apitype.Scout
			d.Until("the Gmail scout", func() bool {
				list, err := client.Scouts(ctx)
				if err != nil || len(list) != 1 {
					return false
				}
				sc = list[0]
				return true
			})
			var cfg struct{ Email, Mode string }
			json.Unmarshal(sc.Config, &cfg)
			if sc.Kind != "gmail" || !sc.Enabled || cfg.Email != gmailtest.Account || cfg.Mode != tc.mode {
				t.Fatalf("scout %+v (config %s), want an enabled %s scout on %s", sc, sc.Config, tc.mode, gmailtest.Account)
			}
			note := waitNotification(t, notes, "Gmail scout added")
			if !strings.Contains(note.Body, gmailtest.Account) || !strings.Contains(note.Body, tc.mode) ||
				!strings.Contains(note.Body, "Scouts view") {
				t.Fatalf("the notification does not say which account, which mode, and where to change it: %+v", note)
			}

			// A reconnect: the scout runs again, no second one.
			c.do(ctx, actConnectGmail)
			<-views
			note = waitNotification(t, notes, "Gmail reconnected")
			if !strings.Contains(note.Body, sc.Name) {
				t.Fatalf("reconnect notification %+v does not name the scout %q", note, sc.Name)
			}
			if list, err := client.Scouts(ctx); err != nil || len(list) != 1 {
				t.Fatalf("after a reconnect: %d scouts, %v", len(list), err)
			}
		})
	}
}

// waitNotification waits for a notification with this summary.
func waitNotification(t *testing.T, srv *fakeNotifications, summary string) notifyCall {
	t.Helper()
	var got []notifyCall
	deadline := time.After(time.Minute)
	for {
		for _, n := range srv.taken() {
			got = append(got, n)
			if n.Summary == summary {
				return n
			}
		}
		select {
		case <-srv.posted:
		case <-deadline:
			b, _ := json.Marshal(got)
			t.Fatalf("timed out after a minute waiting for the notification %s (got %s)", summary, b)
		}
	}
}
