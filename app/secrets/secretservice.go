//go:build !darwin && !windows

package secrets

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/scouts-hq/scouts/app/sessionbus"
)

func openPlatform(o Options) (backend, error) {
	switch o.Backend {
	case BackendKeychain, BackendWinCred:
		return nil, &Error{Kind: ErrUnavailable, Backend: o.Backend,
			Msg: "the " + o.Backend + " keyring exists only on macOS (keychain) and Windows (wincred); use --keyring secret-service or --keyring file here"}
	case BackendSecretService:
		ss := &secretService{addr: o.BusAddress, service: o.ServiceName}
		if err := ss.do(func(*ssConn) error { return nil }); err != nil {
			return nil, err
		}
		return ss, nil
	}
	ss := &secretService{addr: o.BusAddress, service: o.ServiceName}
	err := ss.do(func(*ssConn) error { return nil })
	if err == nil {
		return ss, nil
	}
	if o.Passphrase != nil {
		return openFile(o)
	}
	return nil, err
}

// The Secret Service API, https://specifications.freedesktop.org/secret-service/.
const (
	ssDest       = "org.freedesktop.secrets"
	ssPath       = dbus.ObjectPath("/org/freedesktop/secrets")
	ssService    = "org.freedesktop.Secret.Service"
	ssCollection = "org.freedesktop.Secret.Collection"
	ssItem       = "org.freedesktop.Secret.Item"
	noPrompt     = dbus.ObjectPath("/")
	// A Secret Service that takes longer than this is hung (or showing
	// an unlock dialog nobody will answer); the agent must not hang too.
	ssTimeout = 10 * time.Second
)

const lockedMsg = "the Secret Service keyring is locked: unlock it (log in to your desktop session or run `gnome-keyring-daemon --unlock`) " + fileHint

// secretService stores each secret as an item of the user's default
// collection (the login keyring), with the attributes service=<service>
// and key=<key>: what `secret-tool lookup service scouts key <key>` finds.
// It opens a connection per operation: tokens are read and written a few
// times an hour, and a fresh connection survives the desktop session's
// keyring daemon restarting.
type secretService struct {
	addr    string
	service string
}

// ssConn is one operation's connection, with a "plain" transfer session
// (the secret crosses the user's own session bus unencrypted, as with
// libsecret's default) and the default collection.
type ssConn struct {
	ctx     context.Context
	conn    *dbus.Conn
	session dbus.ObjectPath
	coll    dbus.ObjectPath
}

// ssSecret is the Secret Service's Secret struct, (oayays).
type ssSecret struct {
	Session     dbus.ObjectPath
	Parameters  []byte
	Value       []byte
	ContentType string
}

func (s *secretService) name() string { return BackendSecretService }

func (s *secretService) do(fn func(*ssConn) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), ssTimeout)
	defer cancel()
	addr := s.addr
	if addr == "" {
		a, err := sessionbus.Address()
		if err != nil {
			return &Error{Kind: ErrUnavailable, Backend: BackendSecretService,
				Msg: "there is no desktop session bus, so no Secret Service keyring: start the agent inside your desktop session " + fileHint, Err: err}
		}
		addr = a
	}
	if strings.Contains(addr, "autolaunch:") {
		// godbus would run dbus-launch for it: the stray-daemon trap.
		return &Error{Kind: ErrUnavailable, Backend: BackendSecretService,
			Msg: "the session bus address " + addr + " asks to autolaunch a bus, which Scouts never does: start the agent inside your desktop session " + fileHint}
	}
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return &Error{Kind: ErrUnavailable, Backend: BackendSecretService,
			Msg: "cannot connect to the DBus session bus for the Secret Service keyring: start the agent inside your desktop session " + fileHint, Err: err}
	}
	defer conn.Close()
	c := &ssConn{ctx: ctx, conn: conn}
	svc := conn.Object(ssDest, ssPath)
	var out dbus.Variant
	if err := svc.CallWithContext(ctx, ssService+".OpenSession", 0, "plain", dbus.MakeVariant("")).Store(&out, &c.session); err != nil {
		return ssError(err)
	}
	if err := svc.CallWithContext(ctx, ssService+".ReadAlias", 0, "default").Store(&c.coll); err != nil {
		return ssError(err)
	}
	if c.coll == noPrompt || c.coll == "" {
		return &Error{Kind: ErrUnavailable, Backend: BackendSecretService,
			Msg: "the Secret Service has no default keyring: create one (e.g. in Passwords and Keys / Seahorse) " + fileHint}
	}
	return ssError(fn(c))
}

func (s *secretService) attrs(key string) map[string]string {
	a := map[string]string{"service": s.service}
	if key != "" {
		a["key"] = key
	}
	return a
}

func (c *ssConn) unlocked() error {
	v, err := c.conn.Object(ssDest, c.coll).GetProperty(ssCollection + ".Locked")
	if err != nil {
		return err
	}
	if locked, _ := v.Value().(bool); locked {
		return &Error{Kind: ErrLocked, Backend: BackendSecretService, Msg: lockedMsg}
	}
	return nil
}

func (c *ssConn) search(attrs map[string]string) ([]dbus.ObjectPath, error) {
	if err := c.unlocked(); err != nil {
		return nil, err
	}
	var items []dbus.ObjectPath
	err := c.conn.Object(ssDest, c.coll).CallWithContext(c.ctx, ssCollection+".SearchItems", 0, attrs).Store(&items)
	return items, err
}

func (s *secretService) get(key string) ([]byte, error) {
	var val []byte
	err := s.do(func(c *ssConn) error {
		items, err := c.search(s.attrs(key))
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return notFound(BackendSecretService)
		}
		var sec ssSecret
		if err := c.conn.Object(ssDest, items[0]).CallWithContext(c.ctx, ssItem+".GetSecret", 0, c.session).Store(&sec); err != nil {
			return err
		}
		val = sec.Value
		return nil
	})
	return val, err
}

func (s *secretService) set(key string, value []byte) error {
	return s.do(func(c *ssConn) error {
		if err := c.unlocked(); err != nil {
			return err
		}
		props := map[string]dbus.Variant{
			ssItem + ".Label":      dbus.MakeVariant("Scouts: " + key),
			ssItem + ".Attributes": dbus.MakeVariant(s.attrs(key)),
		}
		sec := ssSecret{Session: c.session, Parameters: []byte{}, Value: value, ContentType: "application/octet-stream"}
		var item, prompt dbus.ObjectPath
		// replace=true: an item with the same attributes is overwritten,
		// so a key never has two entries.
		if err := c.conn.Object(ssDest, c.coll).CallWithContext(c.ctx, ssCollection+".CreateItem", 0, props, sec, true).Store(&item, &prompt); err != nil {
			return err
		}
		if prompt != noPrompt {
			return &Error{Kind: ErrLocked, Backend: BackendSecretService, Msg: lockedMsg}
		}
		return nil
	})
}

func (s *secretService) remove(key string) error {
	return s.do(func(c *ssConn) error {
		items, err := c.search(s.attrs(key))
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return notFound(BackendSecretService)
		}
		for _, it := range items {
			var prompt dbus.ObjectPath
			if err := c.conn.Object(ssDest, it).CallWithContext(c.ctx, ssItem+".Delete", 0).Store(&prompt); err != nil {
				return err
			}
			if prompt != noPrompt {
				return &Error{Kind: ErrLocked, Backend: BackendSecretService, Msg: lockedMsg}
			}
		}
		return nil
	})
}

func (s *secretService) keys() ([]string, error) {
	var keys []string
	err := s.do(func(c *ssConn) error {
		items, err := c.search(s.attrs(""))
		if err != nil {
			return err
		}
		keys = make([]string, 0, len(items))
		for _, it := range items {
			v, err := c.conn.Object(ssDest, it).GetProperty(ssItem + ".Attributes")
			if err != nil {
				return err
			}
			if a, ok := v.Value().(map[string]string); ok && a["key"] != "" {
				keys = append(keys, a["key"])
			}
		}
		return nil
	})
	return keys, err
}

// ssError turns DBus failures into errors that say what to do.
func ssError(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: ErrUnavailable, Backend: BackendSecretService,
			Msg: "the Secret Service did not answer within " + ssTimeout.String() + ": check that your keyring daemon is running and not waiting on a dialog, " + fileHint, Err: err}
	}
	name := dbusErrorName(err)
	switch {
	case name == "org.freedesktop.Secret.Error.IsLocked":
		return &Error{Kind: ErrLocked, Backend: BackendSecretService, Msg: lockedMsg, Err: err}
	case name == "org.freedesktop.Secret.Error.NoSuchObject":
		return &Error{Kind: ErrNotFound, Backend: BackendSecretService, Msg: "no such secret in the secret-service keyring", Err: err}
	case name == "org.freedesktop.DBus.Error.ServiceUnknown", name == "org.freedesktop.DBus.Error.NameHasNoOwner",
		strings.HasPrefix(name, "org.freedesktop.DBus.Error.Spawn."):
		return &Error{Kind: ErrUnavailable, Backend: BackendSecretService,
			Msg: "nothing on the session bus provides the Secret Service (org.freedesktop.secrets): install gnome-keyring (or enable KeePassXC's Secret Service integration) " + fileHint, Err: err}
	case name == "org.freedesktop.DBus.Error.UnknownObject", name == "org.freedesktop.DBus.Error.UnknownMethod":
		// gnome-keyring started by DBus activation, before anyone
		// unlocked it, has no keyring objects at all.
		return &Error{Kind: ErrUnavailable, Backend: BackendSecretService,
			Msg: "the Secret Service daemon has no keyring loaded (it was probably started before your login keyring was unlocked): log out and in again or run `gnome-keyring-daemon --replace --unlock`, " + fileHint, Err: err}
	}
	return &Error{Kind: ErrUnavailable, Backend: BackendSecretService, Msg: "the Secret Service keyring failed", Err: err}
}

func dbusErrorName(err error) string {
	var v dbus.Error
	if errors.As(err, &v) {
		return v.Name
	}
	var p *dbus.Error
	if errors.As(err, &p) {
		return p.Name
	}
	return ""
}
