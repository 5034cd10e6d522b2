package tray

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Notification is one desktop notification.
type Notification struct {
	Summary string
	Body    string
	// Count is how many suggestions it announces.
	Count int
	// View is the window's view a click opens ("": the inbox), e.g.
	// "brief".
	View string
}

// Clock is time for the batcher; tests pass a fake one.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f after d, on another goroutine; stop cancels it.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// Batcher turns new suggestions into few notifications: it gathers a
// burst for Gather (a folder's first scan, a relay catching up) and sends
// one notification for it, then at most one per Window ("3 new
// suggestions"). At send time it reads the settings: nothing is shown when
// notifications are off or during the quiet hours (the tray's count still
// says how many wait).
type Batcher struct {
	Send     func(Notification) error
	Settings func() (apitype.Settings, error)
	Clock    Clock
	Gather   time.Duration // default 1 s
	Window   time.Duration // default 10 s
	Log      *slog.Logger

	mu       sync.Mutex
	pending  []string
	armed    bool
	stop     func() bool
	lastSent time.Time
	closed   bool
}

func (b *Batcher) init() {
	if b.Clock == nil {
		b.Clock = realClock{}
	}
	if b.Gather <= 0 {
		b.Gather = time.Second
	}
	if b.Window <= 0 {
		b.Window = 10 * time.Second
	}
	if b.Log == nil {
		b.Log = slog.New(slog.DiscardHandler)
	}
}

// Add announces a new suggestion (its title).
func (b *Batcher) Add(title string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	if b.closed {
		return
	}
	b.pending = append(b.pending, title)
	if b.armed {
		return
	}
	now := b.Clock.Now()
	due := now.Add(b.Gather)
	if !b.lastSent.IsZero() {
		if next := b.lastSent.Add(b.Window); next.After(due) {
			due = next
		}
	}
	b.armed = true
	b.stop = b.Clock.AfterFunc(due.Sub(now), b.fire)
}

// Close drops what is pending and stops the timer.
func (b *Batcher) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.pending = nil
	if b.armed && b.stop != nil {
		b.stop()
	}
}

func (b *Batcher) fire() {
	b.mu.Lock()
	titles := b.pending
	b.pending = nil
	b.armed = false
	closed := b.closed
	b.mu.Unlock()
	if closed || len(titles) == 0 {
		return
	}
	now := b.Clock.Now()
	if b.Settings != nil {
		s, err := b.Settings()
		if err != nil {
			b.Log.Warn("notifications: cannot read settings; not notifying", "err", err, "suggestions", len(titles))
			return
		}
		if !s.Notifications {
			b.Log.Debug("notifications are off", "suggestions", len(titles))
			return
		}
		if s.QuietHours.Contains(now) {
			b.Log.Debug("quiet hours: not notifying", "suggestions", len(titles))
			return
		}
	}
	n := compose(titles)
	if err := b.Send(n); err != nil {
		b.Log.Warn("notification not shown", "err", err)
		return
	}
	b.mu.Lock()
	b.lastSent = now
	b.mu.Unlock()
}

// compose writes the notification for titles: the title itself for one,
// the count and the first three for more.
func compose(titles []string) Notification {
	if len(titles) == 1 {
		return Notification{Summary: "New suggestion", Body: escapeMarkup(titles[0]), Count: 1}
	}
	var lines []string
	for i, t := range titles {
		if i == 3 {
			lines = append(lines, fmt.Sprintf("and %d more", len(titles)-3))
			break
		}
		lines = append(lines, "• "+escapeMarkup(t))
	}
	return Notification{Summary: fmt.Sprintf("%d new suggestions", len(titles)), Body: strings.Join(lines, "\n"), Count: len(titles)}
}

// escapeMarkup: notification servers may read the body as a small subset
// of HTML; a file called "<b>.md" is text.
func escapeMarkup(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// gmailNote is what the tray says once an account was connected: the
// scout it got (and how to change it), or that its scouts run again. A
// connection from the window, which shows the outcome itself, gets none.
func gmailNote(g apitype.GmailConnected) (Notification, bool) {
	email := escapeMarkup(g.Email)
	switch {
	case g.Added:
		return Notification{Summary: "Gmail scout added", Body: fmt.Sprintf("%s: new mail becomes suggestions for you to review, %s. "+
			"To read it another way, remove the scout in the Scouts view and add one with another mode.", email, gmailModeText(g.Mode))}, true
	case g.AddError != "":
		return Notification{Summary: "Gmail connected, but no scout was added",
			Body: fmt.Sprintf("%s: %s. Add a Gmail scout in the Scouts view.", email, escapeMarkup(g.AddError))}, true
	case g.ScoutID != "":
		return Notification{Summary: "Gmail reconnected", Body: fmt.Sprintf("%s: %s runs again.", email, escapeMarkup(g.ScoutName))}, true
	}
	return Notification{}, false
}

func gmailModeText(mode string) string {
	switch mode {
	case "relay-triage":
		return "triaged by your relay, also while this computer is off (relay-triage mode)"
	case "relay-ping":
		return "read by this computer as soon as your relay says it arrived (relay-ping mode)"
	}
	return "read by this computer, which asks Gmail every few minutes (local mode)"
}
