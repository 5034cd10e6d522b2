package tray

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/app/sessionbus"
)

// Options configure the tray.
type Options struct {
	// Client talks to the agent (over its socket); its ClientName should be
	// "tray".
	Client *localclient.Client
	// OpenWindow starts `scouts window`, on a view ("" = inbox).
	OpenWindow func(view string) error
	// Quit stops the agent gracefully.
	Quit   func()
	Logger *slog.Logger
	// NoIcon: notifications only (scouts agent --no-tray).
	NoIcon bool
}

// ErrNoDesktop means there is no desktop to show a tray on: the agent runs
// without one.
var ErrNoDesktop = errors.New("no desktop session")

var once sync.Once

// Run shows the tray icon and desktop notifications until ctx ends. It
// returns at once with an error wrapping ErrNoDesktop when there is no
// session bus on Linux (fyne's systray would crash at shutdown without
// one). Only one tray runs per process.
func Run(ctx context.Context, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	log := opts.Logger
	busErr := sessionbus.Check()
	if busErr != nil && runtime.GOOS != "windows" {
		return fmt.Errorf("%w: %v", ErrNoDesktop, busErr)
	}
	first := false
	once.Do(func() { first = true })
	if !first {
		return errors.New("tray: already running in this process")
	}
	c := newController(opts)

	if busErr == nil {
		conn, err := sessionbus.Connect()
		if err == nil {
			defer conn.Close()
			n, err := newDBusNotifier(conn, func(view string) {
				if err := opts.OpenWindow(view); err != nil {
					log.Warn("tray: open window", "err", err)
				}
			}, log)
			if err == nil {
				b := &Batcher{Send: n.Send, Log: log, Settings: func() (apitype.Settings, error) {
					sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
					defer cancel()
					return opts.Client.Settings(sctx)
				}}
				defer b.Close()
				c.notify = b.Add
				c.announce = func(note Notification) error {
					sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
					defer cancel()
					// An answer to what the user just did: quiet hours do
					// not hold it, notifications turned off do.
					if s, err := opts.Client.Settings(sctx); err != nil || !s.Notifications {
						return err
					}
					return n.Send(note)
				}
			}
		}
		if c.notify == nil {
			log.Warn("tray: desktop notifications unavailable", "err", err)
		}
	}

	if !opts.NoIcon {
		stop, err := startIcon(ctx, c)
		if err != nil {
			log.Warn("tray: no tray icon", "err", err)
		} else {
			defer stop()
		}
	}
	c.run(ctx)
	return nil
}
