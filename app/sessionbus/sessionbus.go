// Package sessionbus finds the user's DBus session bus without ever
// starting one. godbus, asked for the session bus when
// DBUS_SESSION_BUS_ADDRESS is unset, runs `dbus-launch --autolaunch`,
// which leaves a stray daemon behind (or fails slowly without X11); a
// desktop session always exports the address or the systemd user bus
// socket, so anything else means "no desktop here": the agent then runs
// without a tray and without notifications.
package sessionbus

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/godbus/dbus/v5"
)

// ErrNoBus says there is no session bus to talk to.
var ErrNoBus = errors.New("no DBus session bus (DBUS_SESSION_BUS_ADDRESS is unset and $XDG_RUNTIME_DIR/bus does not exist)")

// Address returns the session bus address, or ErrNoBus.
func Address() (string, error) {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return a, nil
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		p := filepath.Join(d, "bus")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p, nil
		}
	}
	return "", ErrNoBus
}

// Connect opens a private connection to the session bus (the caller closes
// it). It never autolaunches a bus.
func Connect() (*dbus.Conn, error) {
	addr, err := Address()
	if err != nil {
		return nil, err
	}
	return dbus.Connect(addr)
}

// Check reports whether the session bus answers. Call it before handing
// the process to a library that uses dbus.SessionBus() (the tray): that
// function would autolaunch a bus when there is none.
func Check() error {
	c, err := Connect()
	if err != nil {
		return err
	}
	defer c.Close()
	return c.BusObject().Call("org.freedesktop.DBus.Peer.Ping", 0).Err
}
