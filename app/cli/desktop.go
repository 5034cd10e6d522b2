package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/autostart"
	"github.com/scouts-hq/scouts/app/datadir"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/app/tray"
	"github.com/scouts-hq/scouts/app/window"
)

// runWindow is `scouts window` (and a bare `scouts`): start the agent if
// none serves the data directory, then open the window. Closing the window
// ends this process only; the agent goes on.
//
// In bin/scouts (built without the window) it starts the agent from itself
// and then becomes bin/scouts-window (see window.WindowBinary for why two
// executables); in a binary built with the window, it opens it.
func runWindow(ctx context.Context, args []string, env Env) error {
	f := newFlags("window", env, false)
	view := f.String("view", "", "open this view: inbox, scouts, tasks, notes, events, projects, status, settings")
	logLevel := f.String("log-level", "warn", "debug, info, warn or error")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("unexpected argument %q", pos[0])
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usageErrorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	winExe, err := window.WindowBinary()
	if err != nil {
		return err
	}
	dir, err := f.dataDir()
	if err != nil {
		return err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	agentExe, err := window.AgentBinary()
	if err != nil {
		return err
	}
	started, err := window.EnsureAgent(ctx, agentExe, dir, 30*time.Second)
	if err != nil {
		return err
	}
	if started {
		fmt.Fprintf(env.Stderr, "Started the Scouts agent (log: %s)\n", agentLogPath(dir))
	}
	if !window.Built {
		wargs := []string{"window", "--data", dir, "--log-level", *logLevel}
		if *view != "" {
			wargs = append(wargs, "--view", *view)
		}
		return execWindow(winExe, wargs)
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
	return window.Run(ctx, window.Options{DataDir: dir, View: *view, Logger: log})
}

// hasDisplay reports whether a window can be shown: on Linux and the
// BSDs, an X11 or Wayland display (not over a bare SSH session).
func hasDisplay() bool {
	switch runtime.GOOS {
	case "windows", "darwin":
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

func agentLogPath(dir string) string { return filepath.Join(dir, window.AgentLog) }

// openWindowCommand returns a function that starts `scouts window` for
// the agent's data directory as a separate process (the tray's "Open
// Scouts"): it has its own session, so that the agent's signals are not
// its own, and it outlives neither more nor less than the user wants.
func openWindowCommand(dataDir string, log *slog.Logger) func(view string) error {
	return func(view string) error {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		args := []string{"window", "--data", dataDir}
		if view != "" {
			args = append(args, "--view", view)
		}
		cmd := exec.Command(exe, args...)
		cmd.Stdout = os.Stderr
		cmd.Stderr = os.Stderr
		detachProcess(cmd)
		if err := cmd.Start(); err != nil {
			return err
		}
		log.Info("window started", "pid", cmd.Process.Pid, "view", view)
		go cmd.Wait() // reap it when it closes
		return nil
	}
}

// desktop is the agent's presence on the desktop: the tray icon and
// notifications, started once the API serves.
type desktop struct {
	ctx  context.Context
	quit context.CancelFunc
	dir  string
	icon bool
	log  *slog.Logger
	done chan struct{}
}

// newDesktop returns a context that the tray's Quit cancels.
func newDesktop(ctx context.Context, dir string, icon bool, log *slog.Logger) (context.Context, *desktop) {
	ctx, quit := context.WithCancel(ctx)
	return ctx, &desktop{ctx: ctx, quit: quit, dir: dir, icon: icon, log: log}
}

// ready is agent.Config.Ready.
func (d *desktop) ready(string) {
	client := localclient.NewSocket(datadir.SocketPath(d.dir))
	client.ClientName = "tray"
	opts := tray.Options{Client: client, OpenWindow: openWindowCommand(d.dir, d.log), Quit: d.quit, Logger: d.log, NoIcon: !d.icon}
	d.done = make(chan struct{})
	go func() {
		defer close(d.done)
		if err := tray.Run(d.ctx, opts); err != nil {
			if errors.Is(err, tray.ErrNoDesktop) {
				d.log.Info("running without a tray icon and notifications", "reason", err)
			} else {
				d.log.Warn("tray stopped", "err", err)
			}
		}
	}()
}

// wait lets the tray take its icon away before the process ends.
func (d *desktop) wait() {
	d.quit()
	if d.done == nil {
		return
	}
	select {
	case <-d.done:
	case <-time.After(3 * time.Second):
	}
}

// autostartHook applies the "autostart" setting for the agent of dir.
func autostartHook(dir string) func(bool) error {
	return func(enabled bool) error {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		def, _ := datadir.DefaultDataDir()
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		return autostart.Sync(autostart.Entry{Exe: exe, DataDir: abs, DefaultData: def == abs}, enabled)
	}
}

// runSettings is `scouts settings`: show the desktop preferences, or
// change them (--autostart on|off, --notifications on|off, --quiet-hours
// 22:00-07:00|off).
func runSettings(ctx context.Context, args []string, env Env) error {
	f := newFlags("settings", env, true)
	autostartFlag := f.String("autostart", "", "start the agent at login: on or off")
	notify := f.String("notifications", "", "desktop notifications for new suggestions: on or off")
	quiet := f.String("quiet-hours", "", "no notifications between two local times, e.g. 22:00-07:00; off to remove")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("unexpected argument %q", pos[0])
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	s, err := c.Settings(ctx)
	if err != nil {
		return err
	}
	onOff := func(name, v string, dst *bool) error {
		switch v {
		case "":
		case "on", "true", "yes":
			*dst = true
		case "off", "false", "no":
			*dst = false
		default:
			return usageErrorf("--%s %q: want on or off", name, v)
		}
		return nil
	}
	if err := onOff("autostart", *autostartFlag, &s.Autostart); err != nil {
		return err
	}
	if err := onOff("notifications", *notify, &s.Notifications); err != nil {
		return err
	}
	switch {
	case *quiet == "":
	case *quiet == "off":
		s.QuietHours = nil
	default:
		start, end, ok := strings.Cut(*quiet, "-")
		if !ok {
			return usageErrorf("--quiet-hours %q: want START-END, e.g. 22:00-07:00, or off", *quiet)
		}
		s.QuietHours = &apitype.QuietHours{Start: start, End: end}
	}
	if *autostartFlag != "" || *notify != "" || *quiet != "" {
		if s, err = c.SetSettings(ctx, s); err != nil {
			return err
		}
	}
	if f.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	yes := map[bool]string{true: "on", false: "off"}
	fmt.Fprintf(env.Stdout, "notifications  %s\n", yes[s.Notifications])
	if q := s.QuietHours; q != nil {
		fmt.Fprintf(env.Stdout, "quiet hours    %s-%s\n", q.Start, q.End)
	} else {
		fmt.Fprintf(env.Stdout, "quiet hours    none\n")
	}
	fmt.Fprintf(env.Stdout, "autostart      %s\n", yes[s.Autostart])
	return nil
}
