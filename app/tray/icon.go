//go:build linux || windows

package tray

import (
	"context"
	"strings"
	"sync"
	"time"

	"fyne.io/systray"

	"github.com/scouts-hq/scouts/app/icons"
	"github.com/scouts-hq/scouts/app/sessionbus"
)

// systrayView is the icon and its menu.
type systrayView struct {
	mu     sync.Mutex
	status *systray.MenuItem
	pause  *systray.MenuItem
	last   Summary
	shown  bool
}

func (v *systrayView) show(s Summary) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.shown && s == v.last {
		return
	}
	if !v.shown || s.State != v.last.State {
		systray.SetIcon(icons.Tray(s.State, icons.TraySize))
	}
	if !v.shown || s.Title != v.last.Title {
		systray.SetTitle(s.Title)
	}
	systray.SetTooltip(s.Tooltip())
	line, _, _ := strings.Cut(s.Detail, "\n")
	v.status.SetTitle(s.Title + " · " + line)
	if !v.shown || s.Paused != v.last.Paused {
		if s.Paused {
			v.pause.SetTitle(LabelResume)
		} else {
			v.pause.SetTitle(LabelPause)
		}
	}
	v.last, v.shown = s, true
}

// startIcon shows the icon (fyne.io/systray: a StatusNotifierItem on the
// session bus on Linux) and handles its menu until ctx ends.
func startIcon(ctx context.Context, c *controller) (stop func(), err error) {
	v := &systrayView{}
	ready := make(chan struct{})
	actions := make(chan action, 8)
	// Set before start: the item's Id comes from the title at export.
	systray.SetIcon(icons.Tray(icons.OK, icons.TraySize))
	systray.SetTitle("Scouts")
	systray.SetTooltip("Scouts")
	start, end := systray.RunWithExternalLoop(func() {
		v.status = systray.AddMenuItem("Scouts", "")
		v.status.Disable()
		systray.AddSeparator()
		items := map[action]*systray.MenuItem{
			actOpen:         systray.AddMenuItem(LabelOpen, "Open the Scouts window"),
			actConnectGmail: systray.AddMenuItem(LabelGmail, "Sign in to Google in the browser; the account gets a Gmail scout"),
		}
		systray.AddSeparator()
		v.pause = systray.AddMenuItem(LabelPause, "Stop processing new items until resumed")
		items[actTogglePause] = v.pause
		items[actSync] = systray.AddMenuItem(LabelSync, "Every scout looks for new items now")
		systray.AddSeparator()
		items[actQuit] = systray.AddMenuItem(LabelQuit, "Stop the Scouts agent")
		// systray drops a click when nobody is receiving: one receiver per
		// item, handing over to the worker below.
		for a, it := range items {
			go func() {
				for {
					select {
					case <-ctx.Done():
						return
					case <-it.ClickedCh:
						select {
						case actions <- a:
						default:
							c.log.Warn("tray: busy; click ignored")
						}
					}
				}
			}()
		}
		close(ready)
	}, nil)
	start()
	select {
	case <-ready:
	case <-ctx.Done():
		end()
		return func() {}, nil
	}
	c.setView(v)
	c.trigger()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case a := <-actions:
				c.do(ctx, a)
			}
		}
	}()
	logHost(c)
	return end, nil
}

// logHost says whether a tray host (StatusNotifierWatcher) is there: GNOME
// has none without the AppIndicator extension. systray registers as soon
// as one appears.
func logHost(c *controller) {
	conn, err := sessionbus.Connect()
	if err != nil {
		return
	}
	defer conn.Close()
	var has bool
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has) == nil && !has {
		c.log.Info("tray: no system tray host on this desktop yet (on GNOME, the AppIndicator extension provides one); the icon appears when one starts")
	} else {
		c.log.Debug("tray: icon shown")
	}
}
