package tray

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// action is a menu entry's effect.
type action int

const (
	actOpen action = iota
	actConnectGmail
	actTogglePause
	actSync
	actQuit
)

// view is what shows the summary: the tray icon and menu.
type view interface {
	show(Summary)
}

// controller follows the agent through its API and acts for the menu.
type controller struct {
	client     *localclient.Client
	log        *slog.Logger
	openWindow func(view string) error
	quit       func()
	notify     func(title string)       // nil: no notifications
	announce   func(Notification) error // shown at once; nil: not shown

	mu      sync.Mutex
	view    view
	sum     Summary
	haveSum bool

	refreshc chan struct{}
}

func newController(opts Options) *controller {
	return &controller{client: opts.Client, log: opts.Logger, openWindow: opts.OpenWindow, quit: opts.Quit,
		refreshc: make(chan struct{}, 1)}
}

func (c *controller) setView(v view) {
	c.mu.Lock()
	c.view = v
	sum, ok := c.sum, c.haveSum
	c.mu.Unlock()
	if ok {
		v.show(sum)
	}
}

// run follows the event stream and refreshes the summary after every
// change, until ctx ends.
func (c *controller) run(ctx context.Context) {
	go c.client.Follow(ctx, c.onEvent, nil)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.refreshc:
			c.refresh(ctx)
		}
	}
}

func (c *controller) trigger() {
	select {
	case c.refreshc <- struct{}{}:
	default: // one is already due: it will see this change too
	}
}

func (c *controller) onEvent(ev apitype.StreamEvent) {
	switch {
	case ev.Type == "suggestion.created":
		var s apitype.Suggestion
		if json.Unmarshal(ev.Data, &s) == nil && s.Status == "pending" && (s.Lane == "" || s.Lane == "inbox") && c.notify != nil {
			c.notify(s.Title)
		}
	case ev.Type == "suggestion.returned":
		// A snoozed card is back at the top of the inbox: announced like a
		// new card (batched, quiet hours and the setting hold it).
		var s apitype.Suggestion
		if json.Unmarshal(ev.Data, &s) == nil && c.notify != nil {
			c.notify("Back from snooze: " + s.Title)
		}
	case ev.Type == "task.returned":
		var e apitype.Entity
		if json.Unmarshal(ev.Data, &e) == nil && c.notify != nil {
			c.notify("Task back from snooze: " + e.Title)
		}
		return
	case ev.Type == "brief.ready":
		var b apitype.Brief
		if json.Unmarshal(ev.Data, &b) == nil && c.announce != nil {
			if err := c.announce(briefNote(b)); err != nil {
				c.log.Warn("tray: brief notification not shown", "err", err)
			}
		}
		return
	case ev.Type == "gmail.connected":
		var g apitype.GmailConnected
		if json.Unmarshal(ev.Data, &g) == nil && c.announce != nil {
			if n, ok := gmailNote(g); ok {
				if err := c.announce(n); err != nil {
					c.log.Warn("tray: notification not shown", "err", err)
				}
			}
		}
	case strings.HasPrefix(ev.Type, "entity."):
		return // counts of entities are not shown
	}
	c.trigger()
}

func (c *controller) refresh(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := c.client.Status(ctx)
	if err != nil {
		if ctx.Err() == nil {
			c.log.Warn("tray: status", "err", err)
		}
		return
	}
	scouts, err := c.client.Scouts(ctx)
	if err != nil {
		c.log.Warn("tray: scouts", "err", err)
		return
	}
	c.apply(Summarize(st, scouts))
}

func (c *controller) apply(s Summary) {
	c.mu.Lock()
	c.sum, c.haveSum = s, true
	v := c.view
	c.mu.Unlock()
	if v != nil {
		v.show(s)
	}
}

// do carries out a menu entry.
func (c *controller) do(ctx context.Context, a action) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var err error
	switch a {
	case actOpen:
		err = c.openWindow("")
	case actConnectGmail:
		// The agent sends the browser to Google's consent page, stores the
		// token when the user consents and gives the account a scout if it
		// has none (a notification says so); the window's Scouts view shows
		// it arrive (or, without a Google client configured, how to set
		// one up).
		if _, cerr := c.client.ConnectGmail(ctx, apitype.GmailConnectRequest{AddScout: true}); cerr != nil {
			c.log.Info("tray: Gmail cannot be connected from here", "err", cerr)
		}
		err = c.openWindow("scouts")
	case actTogglePause:
		c.mu.Lock()
		paused := c.sum.Paused
		c.mu.Unlock()
		var st apitype.Status
		if st, err = c.client.SetPaused(ctx, !paused); err == nil {
			c.log.Info("tray: scouts " + map[bool]string{true: "paused", false: "resumed"}[st.Paused])
			c.mu.Lock()
			s := c.sum
			c.mu.Unlock()
			s.Paused = st.Paused
			c.apply(s)
			c.trigger()
		}
	case actSync:
		if err = c.client.Sync(ctx); err == nil {
			c.log.Info("tray: sync requested")
		}
	case actQuit:
		c.log.Info("tray: quit")
		c.quit()
	}
	if err != nil {
		c.log.Warn("tray: menu action failed", "action", int(a), "err", err)
	}
}
