package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
)

// Buffers of a device connection after the upgrade. net/http hands a
// hijacked connection over with its 4 KiB read buffer and a new 4 KiB
// write buffer, kept for the connection's life: most of what an idle
// session would cost. The WebSocket library reads a frame's header
// through the reader's buffer and its payload straight into the message
// (reads larger than the buffer bypass it), and writes a frame's header
// and payload through the writer's buffer: small buffers cost an extra
// system call on larger frames, and nothing while idle.
const (
	leanReadBuffer  = 16  // bufio's least
	leanWriteBuffer = 128 // pings, pongs and acknowledgements in one write
)

// leanHijacker gives the WebSocket library the hijacked connection with
// small buffers instead of the HTTP server's, and remembers them.
type leanHijacker struct {
	http.ResponseWriter
	conn *net.Conn
	br   **bufio.Reader
}

func (w leanHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(c, leanReadBuffer)
	if n := brw.Reader.Buffered(); n > 0 {
		// Bytes read ahead of the upgrade (the HTTP server's background
		// read takes the first byte the client sends) stay buffered in
		// the new reader: the WebSocket library reads what is buffered,
		// then the connection.
		b, _ := brw.Reader.Peek(n)
		br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(b)), c), max(n, leanReadBuffer))
		if _, err := br.Peek(n); err != nil {
			c.Close()
			return nil, nil, err
		}
	}
	*w.conn, *w.br = c, br
	return c, bufio.NewReadWriter(br, bufio.NewWriterSize(c, leanWriteBuffer)), nil
}

// SyscallConn exposes the descriptor of the connection the gate wraps,
// for waiting on it without a buffer (see waitReadable).
func (c *gateConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}

// readWaiter waits until a connection has something to read, without a
// buffer and with a shallow stack: an idle session's goroutine waits there
// rather than deep inside the WebSocket library's read, so the runtime can
// shrink its stack to the least.
type readWaiter struct {
	rc syscall.RawConn
	br *bufio.Reader // the WebSocket library's reader: what it has buffered needs no wait
}

func newReadWaiter(c net.Conn, br *bufio.Reader) *readWaiter {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return &readWaiter{rc: rc, br: br}
}

// buffered reports whether the WebSocket library's reader holds bytes
// not yet read: a wait on the connection would not see them.
func (w *readWaiter) buffered() bool { return w != nil && w.br.Buffered() > 0 }

// wait returns when a read would not block (data, end of stream or an
// error to report), or with the error that ended the connection.
func (w *readWaiter) wait() error {
	if w == nil || w.br.Buffered() > 0 {
		return nil
	}
	var b [1]byte
	return w.rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return err != syscall.EAGAIN && err != syscall.EINTR
	})
}
