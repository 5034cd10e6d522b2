package tray

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/icons"
	"github.com/scouts-hq/scouts/app/internal/dbustest"
)

func TestSummarize(t *testing.T) {
	ok := apitype.Scout{Name: "Inbox", Enabled: true, Health: apitype.ScoutHealth{State: "ok"}}
	broken := apitype.Scout{Name: "Papers", Enabled: true, Health: apitype.ScoutHealth{State: "error"}}
	off := apitype.Scout{Name: "Old", Enabled: false, Health: apitype.ScoutHealth{State: "error"}}
	relay := func(s string) *apitype.RelayStatus { return &apitype.RelayStatus{State: s} }
	cases := []struct {
		name   string
		st     apitype.Status
		scouts []apitype.Scout
		want   icons.State
		detail string
	}{
		{"all good", apitype.Status{Pending: 3}, []apitype.Scout{ok}, icons.OK, "All good"},
		{"relay online", apitype.Status{Relay: relay("online")}, []apitype.Scout{ok}, icons.OK, "All good"},
		{"relay offline", apitype.Status{Relay: relay("offline")}, []apitype.Scout{ok}, icons.Offline, "Offline"},
		{"relay connecting", apitype.Status{Relay: relay("connecting")}, nil, icons.Offline, "Offline"},
		{"relay revoked", apitype.Status{Relay: relay("revoked")}, nil, icons.Attention, "refused this device (revoked)"},
		{"relay unauthorized", apitype.Status{Relay: relay("unauthorized")}, nil, icons.Attention, "unauthorized"},
		{"scout fails", apitype.Status{}, []apitype.Scout{ok, broken}, icons.Attention, "1 scout fails: Papers"},
		{"failing but disabled", apitype.Status{}, []apitype.Scout{off}, icons.OK, "All good"},
		{"offline and failing", apitype.Status{Relay: relay("offline")}, []apitype.Scout{broken}, icons.Attention, "Offline"},
		{"paused", apitype.Status{Paused: true}, nil, icons.OK, "All scouts paused"},
		{"alarms", apitype.Status{Alarms: 2}, []apitype.Scout{ok}, icons.Attention, "2 alarms: see Status → Alarms"},
		{"one alarm", apitype.Status{Alarms: 1}, nil, icons.Attention, "1 alarm: see Status → Alarms"},
		{"lanes", apitype.Status{Pending: 2, Lanes: map[string]int{"inbox": 2, "screened": 1, "spam": 4}}, []apitype.Scout{ok}, icons.OK,
			"All good\nAlso 1 screened and 4 in spam"},
	}
	for _, c := range cases {
		s := Summarize(c.st, c.scouts)
		if s.State != c.want {
			t.Errorf("%s: state %v, want %v", c.name, s.State, c.want)
		}
		if !strings.Contains(s.Detail, c.detail) {
			t.Errorf("%s: detail %q does not say %q", c.name, s.Detail, c.detail)
		}
		if want := fmt.Sprintf("Scouts — %d pending", c.st.Pending); s.Title != want {
			t.Errorf("%s: title %q, want %q", c.name, s.Title, want)
		}
		if s.Paused != c.st.Paused {
			t.Errorf("%s: paused %v", c.name, s.Paused)
		}
	}
}

// Quiet hours hold notifications from their start (included) to their end
// (excluded), across midnight when the start is after the end.
func TestQuietHours(t *testing.T) {
	day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.Local)
	at := func(hhmm string) time.Time {
		h, _ := time.Parse("15:04", hhmm)
		return day.Add(time.Duration(h.Hour())*time.Hour + time.Duration(h.Minute())*time.Minute)
	}
	cases := []struct {
		start, end, at string
		quiet          bool
	}{
		{"22:00", "07:00", "21:59", false}, {"22:00", "07:00", "22:00", true}, {"22:00", "07:00", "00:00", true},
		{"22:00", "07:00", "06:59", true}, {"22:00", "07:00", "07:00", false}, {"22:00", "07:00", "12:00", false},
		{"09:00", "17:30", "08:59", false}, {"09:00", "17:30", "09:00", true}, {"09:00", "17:30", "17:29", true},
		{"09:00", "17:30", "17:30", false}, {"00:00", "00:00", "12:00", false}, {"23:59", "00:01", "23:59", true},
		{"23:59", "00:01", "00:00", true}, {"23:59", "00:01", "00:01", false}, {"12:00", "12:01", "12:00", true},
		{"bad", "07:00", "03:00", false},
	}
	for _, c := range cases {
		q := &apitype.QuietHours{Start: c.start, End: c.end}
		if got := q.Contains(at(c.at)); got != c.quiet {
			t.Errorf("%s–%s at %s: quiet %v, want %v", c.start, c.end, c.at, got, c.quiet)
		}
	}
	var none *apitype.QuietHours
	if none.Contains(day) {
		t.Error("no quiet hours, yet quiet")
	}
}

// fakeClock fires timers when the test advances it, synchronously.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
	fired   bool
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	tm := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, tm)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !tm.stopped && !tm.fired
		tm.stopped = true
		return was
	}
}

// Advance moves time forward, firing due timers in order.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
		var next *fakeTimer
		for _, tm := range c.timers {
			if !tm.stopped && !tm.fired && !tm.at.After(end) {
				next = tm
				break
			}
		}
		if next == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		next.fired = true
		c.now = next.at
		c.mu.Unlock()
		next.f()
	}
}

// fakeNotifications is org.freedesktop.Notifications as a test sees it.
type fakeNotifications struct {
	mu    sync.Mutex
	calls []notifyCall
	next  uint32
	// posted has a value once a notification came after the last look.
	posted chan struct{}
}

type notifyCall struct {
	ID                       uint32
	App, Icon, Summary, Body string
	Actions                  []string
	Hints                    map[string]dbus.Variant
	Replaces                 uint32
	Timeout                  int32
}

func (f *fakeNotifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	f.calls = append(f.calls, notifyCall{f.next, app, icon, summary, body, actions, hints, replaces, timeout})
	select {
	case f.posted <- struct{}{}:
	default: // a wake-up is already waiting
	}
	return f.next, nil
}

func (f *fakeNotifications) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"body", "actions"}, nil
}

func (f *fakeNotifications) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "fake", "scouts-test", "1", "1.2", nil
}

func (f *fakeNotifications) CloseNotification(id uint32) *dbus.Error { return nil }

func (f *fakeNotifications) taken() []notifyCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.calls
	f.calls = nil
	return out
}

// startNotifications owns org.freedesktop.Notifications on a private bus.
func startNotifications(t *testing.T) (addr string, srv *fakeNotifications, srvConn *dbus.Conn) {
	addr = dbustest.StartBus(t)
	srvConn = dbustest.Connect(t, addr)
	srv = &fakeNotifications{posted: make(chan struct{}, 1)}
	if err := srvConn.Export(srv, notifyPath, notifyIface); err != nil {
		t.Fatal(err)
	}
	if r, err := srvConn.RequestName(notifyName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", notifyName, err, r)
	}
	return addr, srv, srvConn
}

// Batching and quiet hours, end to end through DBus: the batcher with a
// fake clock sends through the real DBus notifier to a fake notification
// server on a private bus.
func TestNotificationsAreBatchedAndRespectQuietHours(t *testing.T) {
	addr, srv, _ := startNotifications(t)
	n, err := newDBusNotifier(dbustest.Connect(t, addr), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.log = discard()
	// 12:00 local time.
	clock := &fakeClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.Local)}
	var smu sync.Mutex
	settings := apitype.Settings{Notifications: true}
	setSettings := func(s apitype.Settings) { smu.Lock(); settings = s; smu.Unlock() }
	b := &Batcher{Send: n.Send, Clock: clock, Gather: time.Second, Window: 10 * time.Second, Log: discard(),
		Settings: func() (apitype.Settings, error) { smu.Lock(); defer smu.Unlock(); return settings, nil }}

	// A burst is gathered for a second and shown once.
	b.Add("Pay the invoice")
	b.Add("Call the plumber")
	b.Add("Meeting <notes> & more")
	clock.Advance(999 * time.Millisecond)
	if got := srv.taken(); len(got) != 0 {
		t.Fatalf("notified before the burst was gathered: %+v", got)
	}
	clock.Advance(time.Millisecond)
	got := srv.taken()
	if len(got) != 1 {
		t.Fatalf("want 1 notification for the burst, got %d: %+v", len(got), got)
	}
	c := got[0]
	if c.Summary != "3 new suggestions" || c.App != "Scouts" || !strings.Contains(c.Body, "Pay the invoice") ||
		!strings.Contains(c.Body, "Meeting &lt;notes&gt; &amp; more") {
		t.Errorf("notification: %+v", c)
	}
	if len(c.Actions) != 2 || c.Actions[0] != "default" {
		t.Errorf("actions %v: want a default action that opens the window", c.Actions)
	}

	// Within 10 s of the last one, more wait for the window to pass.
	clock.Advance(2 * time.Second) // t = 3 s
	b.Add("Renew the passport")
	clock.Advance(5 * time.Second) // t = 8 s
	b.Add("Book the dentist")
	clock.Advance(2 * time.Second) // t = 10 s: 10 s after the first (sent at 1 s) is 11 s
	if got := srv.taken(); len(got) != 0 {
		t.Fatalf("a second notification within the window: %+v", got)
	}
	clock.Advance(time.Second) // t = 11 s
	got = srv.taken()
	if len(got) != 1 || got[0].Summary != "2 new suggestions" {
		t.Fatalf("want one notification for 2 at the end of the window, got %+v", got)
	}

	// One alone, long after: shown by itself with its title.
	clock.Advance(time.Minute)
	b.Add("Water the plants")
	clock.Advance(time.Second)
	got = srv.taken()
	if len(got) != 1 || got[0].Summary != "New suggestion" || got[0].Body != "Water the plants" {
		t.Fatalf("single: %+v", got)
	}

	// Quiet hours around now (12:01): nothing is shown.
	setSettings(apitype.Settings{Notifications: true, QuietHours: &apitype.QuietHours{Start: "11:00", End: "13:00"}})
	clock.Advance(time.Minute)
	b.Add("During quiet hours")
	clock.Advance(20 * time.Second)
	if got := srv.taken(); len(got) != 0 {
		t.Fatalf("notified during quiet hours: %+v", got)
	}
	// Quiet hours spanning midnight do not cover noon.
	setSettings(apitype.Settings{Notifications: true, QuietHours: &apitype.QuietHours{Start: "22:00", End: "07:00"}})
	b.Add("After quiet hours")
	clock.Advance(20 * time.Second)
	if got := srv.taken(); len(got) != 1 || got[0].Body != "After quiet hours" {
		t.Fatalf("outside quiet hours: %+v", got)
	}
	// Notifications off: nothing.
	setSettings(apitype.Settings{Notifications: false})
	b.Add("Notifications are off")
	clock.Advance(20 * time.Second)
	if got := srv.taken(); len(got) != 0 {
		t.Fatalf("notified with notifications off: %+v", got)
	}
	// Closed: nothing, even if due.
	setSettings(apitype.Settings{Notifications: true})
	b.Add("Pending at shutdown")
	b.Close()
	clock.Advance(time.Minute)
	if got := srv.taken(); len(got) != 0 {
		t.Fatalf("notified after Close: %+v", got)
	}
}

// Clicking one of our notifications opens the window; clicking someone
// else's does not.
func TestClickingANotificationOpensTheWindow(t *testing.T) {
	addr, srv, srvConn := startNotifications(t)
	opened := make(chan struct{}, 4)
	n, err := newDBusNotifier(dbustest.Connect(t, addr), func(string) { opened <- struct{}{} }, discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Send(Notification{Summary: "New suggestion", Body: "x", Count: 1}); err != nil {
		t.Fatal(err)
	}
	id := srv.taken()[0].ID
	// Someone else's notification (id+100) first, then ours.
	if err := srvConn.Emit(notifyPath, notifyIface+".ActionInvoked", id+100, "default"); err != nil {
		t.Fatal(err)
	}
	if err := srvConn.Emit(notifyPath, notifyIface+".ActionInvoked", id, "default"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("clicking our notification did not open the window")
	}
	// Signals arrive in order: had the foreign one opened the window, a
	// second open would be queued by now.
	select {
	case <-opened:
		t.Fatal("a click on another application's notification opened our window")
	default:
	}
}

func TestComposeNotification(t *testing.T) {
	titles := []string{"a", "b", "c", "d", "e"}
	n := compose(titles)
	if n.Summary != "5 new suggestions" || n.Count != 5 || !strings.HasSuffix(n.Body, "and 2 more") {
		t.Errorf("%+v", n)
	}
}

// Only cards that reach the inbox are announced: a burst of spam or of
// screened newsletters must not pop up on the desktop.
func TestOnlyInboxCardsAreNotified(t *testing.T) {
	var got []string
	c := newController(Options{})
	c.notify = func(title string) { got = append(got, title) }
	for _, s := range []apitype.Suggestion{
		{Title: "Pay the invoice", Status: "pending", Lane: "inbox"},
		{Title: "Cheap pills", Status: "pending", Lane: "spam"},
		{Title: "Weekly digest", Status: "pending", Lane: "screened"},
		{Title: "From an older agent", Status: "pending"},
	} {
		b, _ := json.Marshal(s)
		c.onEvent(apitype.StreamEvent{Type: "suggestion.created", Data: b})
	}
	if want := []string{"Pay the invoice", "From an older agent"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("notified %q, want %q", got, want)
	}
}
