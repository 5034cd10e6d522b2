// Package dbustest gives tests a private DBus session bus and a minimal
// StatusNotifierWatcher (the part of a desktop's tray host that tray icons
// register with), so that tray and notification code runs against a real
// bus without touching the user's desktop.
package dbustest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Need skips the test when a program is missing, or fails it under CI
// (CI=true), where build/deps.sh test has installed everything.
func Need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing (build/deps.sh test installs it)", p)
			}
			t.Skipf("%s is not installed (build/deps.sh test installs it); skipping", p)
		}
	}
}

const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// StartBus starts a private session bus for the test (no service
// activation: nothing of the machine's desktop starts on it) and returns
// its address. It stops when the test ends.
func StartBus(t testing.TB) string {
	t.Helper()
	Need(t, "dbus-daemon")
	dir, err := os.MkdirTemp("", "scouts-bus-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	conf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(busConfig, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dbus-daemon", "--nofork", "--nopidfile", "--config-file="+conf, "--print-address=1")
	cmd.SysProcAttr = deathSignal() // dies with the test process, even one killed on a timeout
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// stderr stays closed: the daemon complains about fd limits as non-root.
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			addr <- strings.TrimSpace(sc.Text())
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok || a == "" {
			t.Fatal("dbus-daemon printed no address")
		}
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("dbus-daemon did not start within 10 s")
	}
	return ""
}

// Connect opens a connection to the bus at addr, closed when the test ends.
func Connect(t testing.TB, addr string) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Item is a registered StatusNotifierItem: its bus name and object path.
type Item struct {
	Service string
	Path    dbus.ObjectPath
}

// Watcher is a minimal org.kde.StatusNotifierWatcher: it records the
// items that register.
type Watcher struct {
	mu    sync.Mutex
	items []Item
	C     chan Item
}

// RegisterStatusNotifierItem is the method items call. service is a bus
// name or, as fyne's systray sends, an object path on the caller's
// connection.
func (w *Watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	it := Item{Service: string(sender), Path: "/StatusNotifierItem"}
	if strings.HasPrefix(service, "/") {
		it.Path = dbus.ObjectPath(service)
	} else if service != "" {
		it.Service = service
	}
	w.mu.Lock()
	w.items = append(w.items, it)
	w.mu.Unlock()
	select {
	case w.C <- it:
	default:
	}
	return nil
}

// RegisterStatusNotifierHost is accepted and ignored.
func (w *Watcher) RegisterStatusNotifierHost(service string) *dbus.Error { return nil }

// StartWatcher owns org.kde.StatusNotifierWatcher on the bus at addr.
func StartWatcher(t testing.TB, addr string) *Watcher {
	t.Helper()
	c := Connect(t, addr)
	w := &Watcher{C: make(chan Item, 8)}
	const iface = "org.kde.StatusNotifierWatcher"
	if err := c.Export(w, "/StatusNotifierWatcher", iface); err != nil {
		t.Fatal(err)
	}
	props := map[string]dbus.Variant{
		"IsStatusNotifierHostRegistered": dbus.MakeVariant(true),
		"ProtocolVersion":                dbus.MakeVariant(int32(0)),
	}
	if err := c.Export(propsGetter{iface: iface, props: props, w: w}, "/StatusNotifierWatcher", "org.freedesktop.DBus.Properties"); err != nil {
		t.Fatal(err)
	}
	reply, err := c.RequestName(iface, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v (reply %v)", iface, err, reply)
	}
	return w
}

type propsGetter struct {
	iface string
	props map[string]dbus.Variant
	w     *Watcher
}

func (p propsGetter) Get(iface, name string) (dbus.Variant, *dbus.Error) {
	if name == "RegisteredStatusNotifierItems" {
		return dbus.MakeVariant(p.w.names()), nil
	}
	if v, ok := p.props[name]; ok && iface == p.iface {
		return v, nil
	}
	return dbus.Variant{}, dbus.MakeFailedError(fmt.Errorf("no property %s.%s", iface, name))
}

func (p propsGetter) GetAll(iface string) (map[string]dbus.Variant, *dbus.Error) {
	out := map[string]dbus.Variant{"RegisteredStatusNotifierItems": dbus.MakeVariant(p.w.names())}
	for k, v := range p.props {
		out[k] = v
	}
	return out, nil
}

func (w *Watcher) names() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, it := range w.items {
		out = append(out, it.Service+string(it.Path))
	}
	return out
}
