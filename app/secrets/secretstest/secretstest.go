// Package secretstest runs a real gnome-keyring for tests: a private DBus
// session bus (app/internal/dbustest) with gnome-keyring-daemon on it,
// its login keyring created and unlocked with a throwaway password, and
// HOME, XDG_* and the control directory in temporary directories, so that
// nothing of the machine's own keyring is touched.
package secretstest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/scouts-hq/scouts/app/internal/dbustest"
	"github.com/scouts-hq/scouts/internal/syncbuf"
)

// Password unlocks the test login keyring.
const Password = "scouts-test-keyring"

// Keyring is a running gnome-keyring-daemon on a private bus.
type Keyring struct {
	// Addr is the private bus: secrets.Options.BusAddress.
	Addr string
}

// Start starts gnome-keyring-daemon with an unlocked login keyring. It
// skips the test when dbus-daemon or gnome-keyring-daemon is missing, and
// fails it instead under CI=true.
func Start(t testing.TB) *Keyring {
	t.Helper()
	e := newEnv(t)
	e.daemon(t, true)
	return &Keyring{Addr: e.addr}
}

// StartLocked starts gnome-keyring-daemon on an existing login keyring
// without unlocking it, as DBus activation does when a client asks for the
// Secret Service before the desktop session unlocked the keyring. (The
// keyring is first created by a daemon that is then stopped.)
func StartLocked(t testing.TB) *Keyring {
	t.Helper()
	e := newEnv(t)
	stop := e.daemon(t, true)
	login := filepath.Join(e.home, ".local", "share", "keyrings", "login.keyring")
	if _, err := os.Stat(login); err != nil {
		t.Fatalf("the unlocked daemon wrote no login keyring: %v", err)
	}
	stop()
	e.daemon(t, false)
	return &Keyring{Addr: e.addr}
}

type env struct {
	addr, home, run, ctl string
	conn                 *dbus.Conn
	sigs                 chan *dbus.Signal
}

func newEnv(t testing.TB) *env {
	t.Helper()
	dbustest.Need(t, "dbus-daemon", "gnome-keyring-daemon")
	e := &env{addr: dbustest.StartBus(t)}
	// Not t.TempDir: the control socket's path must fit in sun_path, and
	// subtest names make t.TempDir paths long.
	dir, err := os.MkdirTemp("", "scouts-gk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e.home, e.run, e.ctl = filepath.Join(dir, "home"), filepath.Join(dir, "run"), filepath.Join(dir, "ctl")
	for _, d := range []string{e.home, e.run, e.ctl} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// Subscribe before any daemon starts, so that its taking the name
	// cannot be missed.
	e.conn = dbustest.Connect(t, e.addr)
	if err := e.conn.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, "org.freedesktop.secrets")); err != nil {
		t.Fatal(err)
	}
	e.sigs = make(chan *dbus.Signal, 8)
	e.conn.Signal(e.sigs)
	return e
}

// daemon starts gnome-keyring-daemon, waits until it owns
// org.freedesktop.secrets, and returns a function that stops it and waits
// until it has let go of the name (also run when the test ends).
func (e *env) daemon(t testing.TB, unlock bool) (stop func()) {
	t.Helper()
	args := []string{"--foreground", "--components=secrets", "--control-directory=" + e.ctl}
	if unlock {
		args = append(args, "--unlock")
	}
	cmd := exec.Command("gnome-keyring-daemon", args...)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + e.home,
		"XDG_RUNTIME_DIR=" + e.run,
		"XDG_DATA_HOME=" + filepath.Join(e.home, ".local", "share"),
		"XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(e.home, ".cache"),
		"DBUS_SESSION_BUS_ADDRESS=" + e.addr,
	}
	if unlock {
		// --unlock reads the login password from stdin, to EOF.
		cmd.Stdin = bytes.NewBufferString(Password)
	}
	var logs syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = deathSignal()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start gnome-keyring-daemon: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Kill()
			<-exited
			e.waitOwner(t, false, nil, &logs)
		})
	}
	t.Cleanup(stop)
	e.waitOwner(t, true, exited, &logs)
	return stop
}

// waitOwner waits until org.freedesktop.secrets has an owner (or none).
func (e *env) waitOwner(t testing.TB, want bool, exited <-chan error, logs *syncbuf.Buffer) {
	t.Helper()
	var owned bool
	if err := e.conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.secrets").Store(&owned); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for owned != want {
		select {
		case s := <-e.sigs:
			if len(s.Body) == 3 {
				newOwner, _ := s.Body[2].(string)
				owned = newOwner != ""
			}
		case err := <-exited:
			t.Fatalf("gnome-keyring-daemon exited before taking org.freedesktop.secrets: %v\n%s", err, logs.String())
		case <-deadline:
			t.Fatalf("org.freedesktop.secrets still has owned=%v after 30 s\n%s", owned, logs.String())
		}
	}
}

// Lock locks the default collection through the Secret Service's Lock
// method, as a screen locker or the user in Seahorse would.
func (k *Keyring) Lock(t testing.TB) {
	t.Helper()
	conn := dbustest.Connect(t, k.Addr)
	svc := conn.Object("org.freedesktop.secrets", "/org/freedesktop/secrets")
	var coll dbus.ObjectPath
	if err := svc.Call("org.freedesktop.Secret.Service.ReadAlias", 0, "default").Store(&coll); err != nil {
		t.Fatalf("read the default collection: %v", err)
	}
	var locked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	if err := svc.Call("org.freedesktop.Secret.Service.Lock", 0, []dbus.ObjectPath{coll}).Store(&locked, &prompt); err != nil {
		t.Fatalf("lock %s: %v", coll, err)
	}
	if len(locked) != 1 || prompt != "/" {
		t.Fatalf("lock %s: locked %v, prompt %s", coll, locked, prompt)
	}
}
