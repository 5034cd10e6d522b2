package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/service"
)

const (
	closeRevoked      = protocol.CloseRevoked
	closeUnauthorized = protocol.CloseUnauthorized
	helloTimeout      = 10 * time.Second
	writeTimeout      = 10 * time.Second
	// maxOut bounds the frames waiting to be written: a reader whose
	// answers pile up waits, hints beyond it are dropped.
	maxOut = 64
	// DefaultWindow is the number of unacknowledged proposals per device:
	// a backlog goes out in runs of half of it (see fill), which a desktop
	// commits and acknowledges together (up to 256 at once). With 64, a
	// drain between two processes ran at 30 items per acknowledgement and
	// about 3 000 items/s, with 256 at 50 to 100 and about 4 000 (issue
	// 17). A device holds at most this many items it has not committed.
	DefaultWindow = 256
	// fillPage bounds the rows read at once: a window's worth of the
	// largest items would be megabytes held at a time.
	fillPage = 64
)

// session is one device's WebSocket. An idle session costs one goroutine,
// its reader, blocked in a read with small buffers; everything else runs
// only while there is something to do:
//
//   - the reader hands each frame to the server's worker pool (decoding,
//     database work) and waits, so that its own stack stays small;
//   - a writer goroutine is started when there are frames to write or
//     rows to send, and exits once there are none (at most one at a
//     time: it alone writes, and it owns sent);
//   - the heartbeat is a timer.
type session struct {
	srv    *Server
	conn   *websocket.Conn
	waiter *readWaiter // nil: the connection offers no descriptor to wait on
	parkID uint64      // its id in the server's parker while parked (guarded by the parker), or 0
	dev    relay.Device
	ctx    context.Context
	cancel context.CancelFunc // ends the session

	closed struct {
		sync.Mutex
		code   websocket.StatusCode
		reason string
	}
	endOnce sync.Once
	endErr  error
	hb      *time.Timer

	// wmu guards the writer's work and its state; cond signals room in
	// out and the writer's exit.
	wmu      sync.Mutex
	cond     sync.Cond
	out      [][]byte // frames to write
	needFill bool     // rows may be waiting, or the window opened
	writing  bool     // a writer goroutine runs
	closing  bool     // the session is being closed: nothing more is written
	ticks    int
	sent     int64 // the last sequence sent (the writer's)
	// behind: the last fill stopped at a full window with rows perhaps
	// left (the writer's); see fill.
	behind bool

	mu       sync.Mutex
	inflight map[int64]time.Time // seq → when the row was queued; nil when empty (maps never shrink)
	lastRecv time.Time

	// The reader's rate limit: a token bucket of FrameBurst frames,
	// refilled at FrameRate per second.
	tokens   float64
	lastTick time.Time
}

// logger is the server's logger with the session's device and user: made
// when something is logged rather than kept by every idle session.
func (s *session) logger() *slog.Logger {
	return s.srv.log.With("device", s.dev.ID, "user", s.dev.UserID)
}

// poke says rows may be waiting, or the window opened.
func (s *session) poke() {
	s.wmu.Lock()
	s.needFill = true
	s.startWriterLocked()
	s.wmu.Unlock()
}

// offer queues a frame without waiting; a session whose queue is full
// misses it (such frames are hints, re-derived on reconnection).
func (s *session) offer(b []byte) {
	s.wmu.Lock()
	if len(s.out) < maxOut && !s.closing {
		s.out = append(s.out, b)
		s.startWriterLocked()
	}
	s.wmu.Unlock()
}

// send queues the reader's answers, waiting while the queue is full: a
// device that sends faster than it reads is slowed down, not answered
// less.
func (s *session) send(frames ...[]byte) {
	if len(frames) == 0 {
		return
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	for _, b := range frames {
		for len(s.out) >= maxOut && !s.closing {
			s.cond.Wait()
		}
		if s.closing {
			return
		}
		s.out = append(s.out, b)
		s.startWriterLocked()
	}
}

func (s *session) startWriterLocked() {
	if !s.writing && !s.closing {
		s.writing = true
		go s.writeLoop()
	}
}

// kill ends the session with a close code; the first reason wins.
func (s *session) kill(code int, reason string) {
	s.closed.Lock()
	if s.closed.code == 0 {
		s.closed.code, s.closed.reason = websocket.StatusCode(code), reason
	}
	s.closed.Unlock()
	s.end(context.Canceled)
}

// end ends the session once, whoever notices first (the reader, the
// writer, the heartbeat, a revocation, shutdown): err says why.
func (s *session) end(err error) {
	s.endOnce.Do(func() {
		s.endErr = err
		s.cancel()
		go s.finish()
	})
}

func (s *Server) handleDevice(w http.ResponseWriter, r *http.Request) {
	if s.shuttingDown() {
		http.Error(w, "relay is shutting down", http.StatusServiceUnavailable)
		return
	}
	// The server's read and write timeouts are for ordinary requests; a
	// session lasts hours and bounds itself (hello timeout, heartbeats,
	// per-frame write timeouts). A hijacked connection may keep the
	// deadlines the server set, so they are cleared here.
	rc := http.NewResponseController(w)
	if err := errors.Join(rc.SetReadDeadline(time.Time{}), rc.SetWriteDeadline(time.Time{})); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.log.Warn("device session: clear deadlines", "err", err)
	}
	// Desktops are not browsers: they send no Origin, and a request that
	// carries a foreign one is refused by Accept's default check.
	var nc net.Conn
	var br *bufio.Reader
	c, err := websocket.Accept(leanHijacker{w, &nc, &br}, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return
	}
	c.SetReadLimit(protocol.MaxFrameBytes)
	ctx, cancel := context.WithCancel(s.baseCtx)
	dev, hello, err := s.handshake(ctx, c)
	if err != nil {
		cancel()
		s.log.Info("device session refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	now := time.Now()
	sess := &session{srv: s, conn: c, dev: dev, ctx: ctx, cancel: cancel,
		lastRecv: now, sent: hello.LastAckedSeq,
		tokens: float64(s.cfg.FrameBurst), lastTick: now, waiter: newReadWaiter(nc, br)}
	sess.cond.L = &sess.wmu
	// The heartbeat timer exists before the hub knows the session: from
	// then on a revocation or a shutdown can end it, and finish stops the
	// timer (it found none and panicked when that came first). It is armed
	// once the session is set up.
	sess.hb = time.AfterFunc(time.Duration(math.MaxInt64), sess.heartbeat)
	s.hub.add(sess)
	s.hub.wg.Add(1)
	s.metrics.connections.Inc()
	sess.logger().Info("device connected", "resume_after", hello.LastAckedSeq, "client", hello.Client)
	s.workers.do(func() { s.svc.Connected(ctx, dev) })
	sess.hb.Reset(s.cfg.Heartbeat)
	sess.poke() // what the device has not received yet
	go sess.readLoop()
	// This goroutine, with the stack the request and the handshake grew,
	// ends here: the session's own goroutines start small.
}

// finish closes the session: it waits for the writer to stop, writes what
// was still queued (a fatal error's explanation), and closes the
// connection with the session's close code.
func (s *session) finish() {
	s.hb.Stop()
	// Out of the idle set first: the close handshake below reads the
	// connection itself.
	s.srv.parker.forget(s)
	s.wmu.Lock()
	s.closing = true
	s.cond.Broadcast()
	for s.writing {
		s.cond.Wait()
	}
	left := s.out
	s.out = nil
	s.wmu.Unlock()

	s.closed.Lock()
	code, reason := s.closed.code, s.closed.reason
	s.closed.Unlock()
	err := s.endErr
	if code == 0 {
		code, reason = websocket.StatusNormalClosure, ""
		if err != nil && !errors.Is(err, context.Canceled) {
			code, reason = websocket.StatusInternalError, "session error"
			var pe *protocol.Error
			if errors.As(err, &pe) {
				code, reason = websocket.StatusPolicyViolation, pe.Message
			}
		}
	}
	for _, b := range left {
		wctx, cancel := context.WithTimeout(context.Background(), time.Second)
		s.conn.Write(wctx, websocket.MessageText, b)
		cancel()
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	s.logger().Info("device disconnected", "code", int(code), "reason", reason, "err", err)
	s.conn.Close(code, reason)
	s.markUnacked()
	s.srv.hub.remove(s)
	s.srv.metrics.connections.Dec()
	s.srv.hub.wg.Done()
}

// heartbeat pings the device, and drops it when it has been silent for
// three heartbeats.
func (s *session) heartbeat() {
	if s.ctx.Err() != nil {
		return
	}
	hb := s.srv.cfg.Heartbeat
	s.mu.Lock()
	silent := time.Since(s.lastRecv)
	s.mu.Unlock()
	if silent > 3*hb {
		s.closed.Lock()
		if s.closed.code == 0 {
			s.closed.code, s.closed.reason = websocket.StatusGoingAway, "peer unresponsive"
		}
		s.closed.Unlock()
		s.end(fmt.Errorf("peer silent for %s", silent.Round(time.Second)))
		return
	}
	b, _ := protocol.Encode(protocol.TypePing, "", 0, protocol.Ping{T: time.Now().UnixMilli()})
	s.wmu.Lock()
	if !s.closing {
		s.out = append(s.out, b)
		// Now and then, look at the queue even without a wake-up: a
		// notification may have been lost with a database connection.
		if s.ticks++; s.ticks%6 == 0 {
			s.needFill = true
		}
		s.startWriterLocked()
	}
	s.wmu.Unlock()
	s.hb.Reset(hb)
}

// writeLoop writes queued frames and sends queued rows until there is
// nothing left, then exits; a failure ends the session. It marks itself
// stopped under the lock producers hold, so that whatever they add
// afterwards starts a new writer.
func (s *session) writeLoop() {
	for {
		s.wmu.Lock()
		frames, fill := s.out, s.needFill
		if s.closing || s.ctx.Err() != nil || (len(frames) == 0 && !fill) {
			s.writing = false
			s.cond.Broadcast()
			s.wmu.Unlock()
			return
		}
		s.out, s.needFill = nil, false
		s.cond.Broadcast() // room in out
		s.wmu.Unlock()
		if err := s.writeBatch(frames, fill); err != nil {
			s.wmu.Lock()
			s.writing = false
			s.cond.Broadcast()
			s.wmu.Unlock()
			s.end(err)
			return
		}
	}
}

func (s *session) writeBatch(frames [][]byte, fill bool) error {
	for _, b := range frames {
		if err := s.write(b); err != nil {
			return err
		}
	}
	if fill {
		return s.fill()
	}
	return nil
}

func (s *session) write(b []byte) error {
	// Not cancelled with the session: a frame taken for writing (a fatal
	// error's explanation) still goes out; the timeout bounds it.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), writeTimeout)
	defer cancel()
	return s.conn.Write(wctx, websocket.MessageText, b)
}

// fill sends queued rows after the last sent sequence while the window
// has room. A device behind a backlog (the last fill stopped at a full
// window) gets rows again once half the window is free, not each
// acknowledgement's worth as it comes: that split a backlog into runs as
// small as the acknowledgements, and each run cost the device a commit
// and both sides an acknowledgement (on PostgreSQL a drain settled at 3
// to 7 rows a run). Whole runs keep it near half a window, while the
// device commits the other half. A device that keeps up gets each row as
// it comes.
//
// Rows are not marked delivered as they are sent: finish marks those
// still in flight (service.LeftInFlight).
func (s *session) fill() error {
	ctx := s.ctx
	window := s.srv.cfg.Window
	s.mu.Lock()
	busy := len(s.inflight)
	s.mu.Unlock()
	if s.behind && busy > 0 && window-busy < (window+1)/2 {
		return nil
	}
	for {
		s.mu.Lock()
		room := window - len(s.inflight)
		s.mu.Unlock()
		if room <= 0 {
			s.behind = true
			return nil
		}
		want := min(room, fillPage)
		n, err := s.srv.svc.Deliver(ctx, s.dev, s.sent, want, s.deliver)
		if err != nil {
			return err
		}
		if n < want {
			s.behind = false // caught up
			return nil
		}
	}
}

// deliver writes one row to the device, in flight until acknowledged.
func (s *session) deliver(d service.Delivery) error {
	b, err := protocol.Encode(d.Type, "", d.Seq, d.Data)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = map[int64]time.Time{}
	}
	s.inflight[d.Seq] = d.QueuedAt
	s.mu.Unlock()
	if err := s.write(b); err != nil {
		return err
	}
	s.sent = d.Seq
	s.srv.metrics.deliveries.Inc()
	return nil
}

// markUnacked records the rows this session sent that the device never
// acknowledged (service.LeftInFlight). The session is over: its context
// is done, so the write has a short one of its own.
func (s *session) markUnacked() {
	s.mu.Lock()
	seqs := make([]int64, 0, len(s.inflight))
	for seq := range s.inflight {
		seqs = append(seqs, seq)
	}
	s.mu.Unlock()
	if len(seqs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*time.Second)
	defer cancel()
	if err := s.srv.svc.LeftInFlight(ctx, s.dev, seqs); err != nil {
		s.logger().Warn("mark rows in flight delivered", "rows", len(seqs), "err", err)
	}
}

// handshake reads hello, authenticates the device and answers welcome.
func (s *Server) handshake(ctx context.Context, c *websocket.Conn) (relay.Device, protocol.Hello, error) {
	var hello protocol.Hello
	refuse := func(code int, closeCode websocket.StatusCode, msg string) (relay.Device, protocol.Hello, error) {
		b, _ := protocol.Encode(protocol.TypeError, "", 0, protocol.Error{Code: code, Message: msg, Fatal: true})
		wctx, cancel := context.WithTimeout(ctx, writeTimeout)
		c.Write(wctx, websocket.MessageText, b)
		cancel()
		c.Close(closeCode, msg)
		return relay.Device{}, hello, errors.New(msg)
	}
	hctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	_, b, err := c.Read(hctx)
	if err != nil {
		c.Close(websocket.StatusPolicyViolation, "no hello")
		return relay.Device{}, hello, fmt.Errorf("read hello: %w", err)
	}
	f, err := protocol.Decode(b)
	if err != nil {
		pe, _ := protocol.AsError(err)
		return refuse(pe.Code, websocket.StatusPolicyViolation, pe.Message)
	}
	if f.Type != protocol.TypeHello {
		return refuse(protocol.CodeHelloRequired, websocket.StatusPolicyViolation, "the first frame must be hello")
	}
	if err := f.DecodeData(&hello); err != nil {
		pe, _ := protocol.AsError(err)
		return refuse(pe.Code, websocket.StatusPolicyViolation, pe.Message)
	}
	if hello.Protocol != protocol.Version {
		return refuse(protocol.CodeUnsupportedVersion, websocket.StatusPolicyViolation,
			fmt.Sprintf("protocol %d is not supported (this relay speaks %d)", hello.Protocol, protocol.Version))
	}
	// The database work runs on the worker pool: this goroutine's stack
	// is not grown by it (see workers).
	var dev relay.Device
	var no error
	s.workers.do(func() { dev, no = s.svc.Admit(ctx, hello) })
	if no != nil {
		pe, closeCode := wsRefusal(service.AsError(no))
		return refuse(pe.Code, closeCode, pe.Message)
	}
	b, _ = protocol.Encode(protocol.TypeWelcome, "", 0, protocol.Welcome{
		DeviceID: dev.ID, UserEmail: dev.UserEmail, Protocol: protocol.Version, ResumeAfter: hello.LastAckedSeq,
		Window: s.cfg.Window, HeartbeatSeconds: int(s.cfg.Heartbeat / time.Second), ServerTime: time.Now().UTC().Truncate(time.Second),
	})
	wctx, wcancel := context.WithTimeout(ctx, writeTimeout)
	defer wcancel()
	if err := c.Write(wctx, websocket.MessageText, b); err != nil {
		return relay.Device{}, hello, fmt.Errorf("write welcome: %w", err)
	}
	return dev, hello, nil
}
