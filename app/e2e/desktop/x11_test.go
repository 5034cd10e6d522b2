//go:build linux

package desktop

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// x11 is just enough of the X11 protocol to do what a window manager does
// when the user clicks a window's close button: send it WM_DELETE_WINDOW.
// (Xvfb runs no window manager, and the Debian xdotool is too old to have
// windowclose.)
type x11 struct {
	c    net.Conn
	root uint32
}

func dialX11(display string) (*x11, error) {
	n := strings.TrimPrefix(display, ":")
	if i := strings.IndexByte(n, '.'); i >= 0 {
		n = n[:i]
	}
	c, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+n, 5*time.Second)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	// Connection setup: little endian, protocol 11.0, no authorisation
	// (Xvfb started without -auth accepts local clients).
	setup := []byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if _, err := c.Write(setup); err != nil {
		c.Close()
		return nil, err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(c, head); err != nil {
		c.Close()
		return nil, err
	}
	more := make([]byte, int(binary.LittleEndian.Uint16(head[6:]))*4)
	if _, err := io.ReadFull(c, more); err != nil {
		c.Close()
		return nil, err
	}
	if head[0] != 1 {
		c.Close()
		return nil, fmt.Errorf("X server refused the connection: %q", more)
	}
	vendorLen := int(binary.LittleEndian.Uint16(more[16:]))
	formats := int(more[21])
	off := 32 + (vendorLen+3)/4*4 + 8*formats
	return &x11{c: c, root: binary.LittleEndian.Uint32(more[off:])}, nil
}

func (x *x11) Close() error { return x.c.Close() }

// request sends a request and, if it has one, reads its reply (skipping
// events; failing on errors).
func (x *x11) request(req []byte, reply bool) ([]byte, error) {
	if _, err := x.c.Write(req); err != nil {
		return nil, err
	}
	if !reply {
		return nil, nil
	}
	for {
		r := make([]byte, 32)
		if _, err := io.ReadFull(x.c, r); err != nil {
			return nil, err
		}
		switch r[0] {
		case 0:
			return nil, fmt.Errorf("X error %d (opcode %d)", r[1], r[10])
		case 1:
			extra := make([]byte, int(binary.LittleEndian.Uint32(r[4:]))*4)
			if _, err := io.ReadFull(x.c, extra); err != nil {
				return nil, err
			}
			return append(r, extra...), nil
		}
		// an event: not ours to handle
	}
}

func le32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func le16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }

func (x *x11) atom(name string) (uint32, error) {
	pad := (4 - len(name)%4) % 4
	req := []byte{16, 0} // InternAtom, only-if-exists false
	req = le16(req, uint16(2+(len(name)+pad)/4))
	req = le16(req, uint16(len(name)))
	req = append(req, 0, 0)
	req = append(req, name...)
	req = append(req, make([]byte, pad)...)
	r, err := x.request(req, true)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(r[8:]), nil
}

func (x *x11) children(w uint32) ([]uint32, error) {
	req := le32(le16([]byte{15, 0}, 2), w) // QueryTree
	r, err := x.request(req, true)
	if err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint16(r[16:]))
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(r[32+4*i:])
	}
	return out, nil
}

// cardinal reads a 32-bit property; ok is false when the window lacks it.
func (x *x11) cardinal(w, prop uint32) (v uint32, ok bool, err error) {
	const cardinal = 6
	req := le16([]byte{20, 0}, 6) // GetProperty, delete false
	req = le32(req, w)
	req = le32(req, prop)
	req = le32(req, cardinal)
	req = le32(req, 0)
	req = le32(req, 1)
	r, err := x.request(req, true)
	if err != nil {
		return 0, false, err
	}
	if r[1] != 32 || binary.LittleEndian.Uint32(r[16:]) < 1 {
		return 0, false, nil
	}
	return binary.LittleEndian.Uint32(r[32:]), true, nil
}

// closeWindowsOf sends WM_DELETE_WINDOW to every top-level window of the
// process pid, as a window manager does for the close button. It returns
// how many it found.
func closeWindowsOf(display string, pid int) (int, error) {
	x, err := dialX11(display)
	if err != nil {
		return 0, err
	}
	defer x.Close()
	wmPid, err := x.atom("_NET_WM_PID")
	if err != nil {
		return 0, err
	}
	protocols, err := x.atom("WM_PROTOCOLS")
	if err != nil {
		return 0, err
	}
	del, err := x.atom("WM_DELETE_WINDOW")
	if err != nil {
		return 0, err
	}
	wins, err := x.children(x.root)
	if err != nil {
		return 0, err
	}
	found := 0
	for _, w := range wins {
		p, ok, err := x.cardinal(w, wmPid)
		if err != nil || !ok || int(p) != pid {
			continue
		}
		// SendEvent(propagate false, w, no mask, ClientMessage)
		req := le16([]byte{25, 0}, 11)
		req = le32(req, w)
		req = le32(req, 0)
		ev := []byte{33, 32, 0, 0} // ClientMessage, format 32
		ev = le32(ev, w)
		ev = le32(ev, protocols)
		ev = le32(ev, del)
		ev = le32(ev, 0) // CurrentTime
		ev = append(ev, make([]byte, 12)...)
		req = append(req, ev...)
		if _, err := x.request(req, false); err != nil {
			return found, err
		}
		found++
	}
	// A round trip makes sure the server has processed the events.
	if _, err := x.atom("WM_DELETE_WINDOW"); err != nil {
		return found, err
	}
	return found, nil
}
