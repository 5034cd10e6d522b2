package tray

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyIface = "org.freedesktop.Notifications"
)

// dbusNotifier shows notifications through the desktop's notification
// server (org.freedesktop.Notifications), and opens the window when one of
// ours is clicked.
type dbusNotifier struct {
	conn   *dbus.Conn
	onOpen func(view string)
	log    *slog.Logger

	mu  sync.Mutex
	ids map[uint32]string // ours, with the view a click opens
}

// newDBusNotifier uses conn (the caller closes it) and calls onOpen when
// the user clicks one of our notifications.
func newDBusNotifier(conn *dbus.Conn, onOpen func(view string), log *slog.Logger) (*dbusNotifier, error) {
	n := &dbusNotifier{conn: conn, onOpen: onOpen, log: log, ids: map[uint32]string{}}
	for _, member := range []string{"ActionInvoked", "NotificationClosed"} {
		if err := conn.AddMatchSignal(dbus.WithMatchInterface(notifyIface), dbus.WithMatchMember(member),
			dbus.WithMatchObjectPath(notifyPath)); err != nil {
			return nil, err
		}
	}
	sigs := make(chan *dbus.Signal, 16)
	conn.Signal(sigs)
	go n.signals(sigs)
	return n, nil
}

func (n *dbusNotifier) signals(sigs chan *dbus.Signal) {
	for sig := range sigs {
		if sig == nil || len(sig.Body) < 2 {
			continue
		}
		id, ok := sig.Body[0].(uint32)
		if !ok {
			continue
		}
		n.mu.Lock()
		view, ours := n.ids[id]
		if sig.Name == notifyIface+".NotificationClosed" {
			delete(n.ids, id)
		}
		n.mu.Unlock()
		if !ours || sig.Name != notifyIface+".ActionInvoked" {
			continue
		}
		if key, _ := sig.Body[1].(string); key == "default" && n.onOpen != nil {
			n.onOpen(view)
		}
	}
}

// Send shows n.
func (n *dbusNotifier) Send(note Notification) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hints := map[string]dbus.Variant{
		"desktop-entry": dbus.MakeVariant("scouts"),
		"urgency":       dbus.MakeVariant(byte(1)),
	}
	var id uint32
	err := n.conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".Notify", 0,
		"Scouts", uint32(0), "scouts", note.Summary, note.Body,
		[]string{"default", "Open Scouts"}, hints, int32(-1)).Store(&id)
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.ids[id] = note.View
	n.mu.Unlock()
	n.log.Debug("notification shown", "id", id, "count", note.Count)
	return nil
}
