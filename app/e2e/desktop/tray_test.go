//go:build linux

package desktop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/scouts-hq/scouts/app/internal/dbustest"
	"github.com/scouts-hq/scouts/app/tray"
)

// menuItem is one entry of a dbusmenu layout.
type menuItem struct {
	ID      int32
	Label   string
	Enabled bool
}

// menu reads the tray's menu over com.canonical.dbusmenu, as a tray host
// does.
func menu(t testing.TB, conn *dbus.Conn, it dbustest.Item) []menuItem {
	t.Helper()
	var rev uint32
	var layout struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	call := conn.Object(it.Service, it.Path+"/menu").CallWithContext(ctx, "com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
	if err := call.Store(&rev, &layout); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	var out []menuItem
	for _, c := range layout.Children {
		f, ok := c.Value().([]any)
		if !ok || len(f) < 2 {
			t.Fatalf("menu child %#v", c.Value())
		}
		props, _ := f[1].(map[string]dbus.Variant)
		mi := menuItem{ID: f[0].(int32), Enabled: true}
		if v, ok := props["label"]; ok {
			mi.Label, _ = v.Value().(string)
		}
		if v, ok := props["enabled"]; ok {
			mi.Enabled, _ = v.Value().(bool)
		}
		out = append(out, mi)
	}
	return out
}

func find(t testing.TB, items []menuItem, label string) menuItem {
	t.Helper()
	it, ok := lookup(items, label)
	if !ok {
		t.Fatalf("no %q in the menu %+v", label, items)
	}
	return it
}

func lookup(items []menuItem, label string) (menuItem, bool) {
	for _, it := range items {
		if it.Label == label {
			return it, true
		}
	}
	return menuItem{}, false
}

// waitSignal waits until cond holds, re-checking it whenever the tray item
// emits a signal (NewToolTip, NewTitle, NewIcon, and the menu's
// LayoutUpdated and ItemsPropertiesUpdated): the tray announces every
// change it makes, so there is nothing to poll.
func waitSignal(t testing.TB, conn *dbus.Conn, it dbustest.Item, what string, cond func() bool) {
	t.Helper()
	ch := make(chan *dbus.Signal, 64)
	conn.Signal(ch)
	defer conn.RemoveSignal(ch)
	if err := conn.AddMatchSignal(dbus.WithMatchSender(it.Service)); err != nil {
		t.Fatal(err)
	}
	defer conn.RemoveMatchSignal(dbus.WithMatchSender(it.Service))
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s: not within 30s", what)
		}
	}
}

func click(t testing.TB, conn *dbus.Conn, it dbustest.Item, id int32) {
	t.Helper()
	if err := clickErr(conn, it, id); err != nil {
		t.Fatalf("click %d: %v", id, err)
	}
}

func clickErr(conn *dbus.Conn, it dbustest.Item, id int32) error {
	return conn.Object(it.Service, it.Path+"/menu").Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(0)).Err
}

func itemProp(t testing.TB, conn *dbus.Conn, it dbustest.Item, name string) dbus.Variant {
	t.Helper()
	v, err := conn.Object(it.Service, it.Path).GetProperty("org.kde.StatusNotifierItem." + name)
	if err != nil {
		t.Fatalf("property %s: %v", name, err)
	}
	return v
}

// tooltipTitle reads the ToolTip property's title: (s a(iiay) s s).
func tooltipTitle(t testing.TB, conn *dbus.Conn, it dbustest.Item) string {
	f, ok := itemProp(t, conn, it, "ToolTip").Value().([]any)
	if !ok || len(f) < 3 {
		t.Fatalf("ToolTip is %#v", f)
	}
	s, _ := f[2].(string)
	return s
}

// The tray in the agent registers with the desktop's tray host, shows the
// pending count, and its menu acts through the local API: pause/resume
// (the label follows), open the window, quit the agent.
func TestTrayRegistersAndItsMenuWorks(t *testing.T) {
	bin := binaries(t)
	s := newSession(t, true)
	watcher := dbustest.StartWatcher(t, s.bus)
	a := s.startAgent(bin)
	var item dbustest.Item
	select {
	case item = <-watcher.C:
	case <-time.After(30 * time.Second):
		t.Fatalf("the tray did not register with the StatusNotifierWatcher\n%s", a.out.String())
	}
	conn := dbustest.Connect(t, s.bus)

	// Icon and title.
	if px, ok := itemProp(t, conn, item, "IconPixmap").Value().([][]any); !ok || len(px) != 1 || px[0][0].(int32) != 64 {
		t.Errorf("IconPixmap: %#v", itemProp(t, conn, item, "IconPixmap").Value())
	}
	waitSignal(t, conn, item, "tooltip 'Scouts — 0 pending'", func() bool {
		return strings.HasPrefix(tooltipTitle(t, conn, item), "Scouts — 0 pending")
	})
	s.addInbox(a, "Pay the invoice")
	waitSignal(t, conn, item, "tooltip 'Scouts — 1 pending'", func() bool {
		return strings.HasPrefix(tooltipTitle(t, conn, item), "Scouts — 1 pending")
	})
	if title := itemProp(t, conn, item, "Title").Value(); title != "Scouts — 1 pending" {
		t.Errorf("Title %q", title)
	}

	items := menu(t, conn, item)
	var labels []string
	for _, it := range items {
		labels = append(labels, it.Label)
	}
	t.Logf("menu: %q", labels)
	for _, l := range []string{tray.LabelOpen, tray.LabelGmail, tray.LabelPause, tray.LabelSync, tray.LabelQuit} {
		if !find(t, items, l).Enabled {
			t.Errorf("%q is disabled", l)
		}
	}

	// Pause all scouts: the agent is paused (asked by the tray over the
	// API), and the entry now offers to resume.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	mark := a.out.mark()
	pause := find(t, items, tray.LabelPause)
	click(t, conn, item, pause.ID)
	a.out.wait(t, mark, 30*time.Second, "method=POST", "path=/api/v1/pause", "status=200", "client=tray")
	if st, err := a.client.Status(ctx); err != nil || !st.Paused {
		t.Fatalf("after Pause: status %+v, %v", st, err)
	}
	waitSignal(t, conn, item, "the entry to read "+tray.LabelResume, func() bool {
		it, ok := lookup(menu(t, conn, item), tray.LabelResume)
		return ok && it.ID == pause.ID
	})
	click(t, conn, item, pause.ID)
	a.out.wait(t, mark, 30*time.Second, "path=/api/v1/resume", "status=200", "client=tray")
	waitSignal(t, conn, item, "the entry to read "+tray.LabelPause+" again", func() bool {
		it, ok := lookup(menu(t, conn, item), tray.LabelPause)
		return ok && it.ID == pause.ID
	})
	if st, _ := a.client.Status(ctx); st.Paused {
		t.Fatal("still paused after Resume")
	}

	// Sync now.
	mark = a.out.mark()
	click(t, conn, item, find(t, items, tray.LabelSync).ID)
	a.out.wait(t, mark, 30*time.Second, "path=/api/v1/sync", "status=202", "client=tray")

	// Open Scouts: a window process starts and its page asks the agent.
	mark = a.out.mark()
	click(t, conn, item, find(t, items, tray.LabelOpen).ID)
	a.out.wait(t, mark, 60*time.Second, "path=/api/v1/suggestions", "status=200", "client=window")
	wins := processesWith("scouts-window", "window", "--data", a.data)
	if len(wins) != 1 {
		t.Fatalf("want one window process for %s, found %v", a.data, wins)
	}
	img := waitRendered(t, s.display, 30*time.Second, nil)
	t.Logf("window opened from the tray: %s", savePNG(t, img, "tray-open-scouts.png"))
	// Connect Gmail… brings that window to the Scouts view rather than
	// opening a second one: the second process hands over and exits.
	click(t, conn, item, find(t, items, tray.LabelGmail).ID)
	scoutsView := waitRendered(t, s.display, 30*time.Second, img)
	t.Logf("after Connect Gmail…: %s", savePNG(t, scoutsView, "tray-connect-gmail.png"))
	waitFor(t, 30*time.Second, "one window process, as before", func() bool {
		return fmt.Sprint(processesWith("scouts-window", "window", "--data", a.data)) == fmt.Sprint(wins)
	})
	if !alive(wins[0]) {
		t.Fatal("the first window closed")
	}
	if n, err := closeWindowsOf(s.display, wins[0]); err != nil || n == 0 {
		t.Fatalf("close the window: %d, %v", n, err)
	}
	waitFor(t, 30*time.Second, "the window to close", func() bool { return !alive(wins[0]) })

	// Quit stops the agent gracefully. The agent may leave the bus before
	// its answer to the click is written (the menu's handler answers after
	// handing the click over, and the quitting agent closes its connection
	// meanwhile): the bus then answers NoReply for it, which is no failure
	// of the click. What the user sees is the agent stopping, checked below.
	if err := clickErr(conn, item, find(t, items, tray.LabelQuit).ID); err != nil {
		var de dbus.Error
		if !errors.As(err, &de) || de.Name != "org.freedesktop.DBus.Error.NoReply" {
			t.Fatalf("click Quit: %v", err)
		}
	}
	if err := a.waitExit(t, 30*time.Second); err != nil {
		t.Fatalf("the agent exited with %v after Quit", err)
	}
	a.out.wait(t, 0, time.Second, "agent stopping")
}

// Without a session bus the agent runs, without a tray, and says so.
func TestAgentWithoutSessionBusRunsTrayless(t *testing.T) {
	bin := binaries(t)
	s := newSession(t, false)
	s.bus = "" // no DBUS_SESSION_BUS_ADDRESS
	p := s.start(bin+"/scouts", []string{"HOME=" + s.home, "PATH=" + pathEnv(), "TMPDIR=" + tmpDir()},
		"agent", "--data", s.home+"/data", "--inbox", "")
	p.out.wait(t, 0, 30*time.Second, "running without a tray icon and notifications")
	p.out.wait(t, 0, 30*time.Second, "Socket: ")
	p.cmd.Process.Signal(interrupt)
	if err := p.waitExit(t, 30*time.Second); err != nil {
		t.Fatalf("trayless agent exited with %v\n%s", err, p.out.String())
	}
}
