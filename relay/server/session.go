package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

const (
	closeRevoked      = protocol.CloseRevoked
	closeUnauthorized = protocol.CloseUnauthorized
	helloTimeout      = 10 * time.Second
	writeTimeout      = 10 * time.Second
)

// session is one device's WebSocket. One goroutine reads frames; the
// session's own goroutine is the only writer: it sends what the queue has
// for the device (within the window of unacknowledged frames), the answers
// the reader hands it, and heartbeats.
type session struct {
	srv  *Server
	conn *websocket.Conn
	dev  relay.Device
	log  *slog.Logger

	wake   chan struct{}      // rows may be waiting, or the window opened
	out    chan []byte        // frames from the reader to write
	cancel context.CancelFunc // ends the session
	closed struct {
		sync.Mutex
		code   websocket.StatusCode
		reason string
	}

	mu       sync.Mutex
	inflight map[int64]time.Time // seq → when the row was queued
	lastRecv time.Time
}

func (s *session) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// kill ends the session with a close code; the first reason wins.
func (s *session) kill(code int, reason string) {
	s.closed.Lock()
	if s.closed.code == 0 {
		s.closed.code, s.closed.reason = websocket.StatusCode(code), reason
	}
	s.closed.Unlock()
	s.cancel()
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
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return
	}
	c.SetReadLimit(protocol.MaxFrameBytes)
	ctx, cancel := context.WithCancel(s.baseCtx)
	defer cancel()

	dev, hello, err := s.handshake(ctx, c)
	if err != nil {
		s.log.Info("device session refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	sess := &session{srv: s, conn: c, dev: dev, cancel: cancel,
		log:  s.log.With("device", dev.ID, "user", dev.UserID),
		wake: make(chan struct{}, 1), out: make(chan []byte, 64),
		inflight: map[int64]time.Time{}, lastRecv: time.Now()}
	s.hub.add(sess)
	s.hub.wg.Add(1)
	s.metrics.connections.Inc()
	defer func() {
		s.hub.remove(sess)
		s.metrics.connections.Dec()
		s.hub.wg.Done()
	}()
	sess.log.Info("device connected", "resume_after", hello.LastAckedSeq, "client", hello.Client)
	if s.cfg.Gmail != nil {
		s.cfg.Gmail.DeviceConnected(ctx, dev.UserID)
	}
	err = sess.run(ctx, hello.LastAckedSeq)
	sess.closed.Lock()
	code, reason := sess.closed.code, sess.closed.reason
	sess.closed.Unlock()
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
	// Answers the reader queued before the end (a fatal error's frame, say)
	// still go out: the writer has stopped, so writing here is safe.
	for drained := false; !drained; {
		select {
		case b := <-sess.out:
			wctx, cancel := context.WithTimeout(context.Background(), time.Second)
			c.Write(wctx, websocket.MessageText, b)
			cancel()
		default:
			drained = true
		}
	}
	sess.log.Info("device disconnected", "code", int(code), "reason", reason, "err", err)
	c.Close(code, reason)
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
	dev, err := s.db.DeviceByToken(ctx, hello.Token)
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return refuse(protocol.CodeUnauthorized, closeUnauthorized, "unknown device token")
	}
	if err != nil {
		return refuse(protocol.CodeInternal, websocket.StatusInternalError, "internal error")
	}
	if dev.Revoked() {
		return refuse(protocol.CodeDeviceRevoked, closeRevoked, "this device was revoked")
	}
	if len(hello.PublicKey) != 32 {
		return refuse(protocol.CodeBadFrame, websocket.StatusPolicyViolation, "hello needs a 32-byte X25519 public key")
	}
	if err := s.db.DeviceConnected(ctx, dev.ID, hello.PublicKey); err != nil {
		if scouts.ErrorCode(err) == scouts.EConflict {
			return refuse(protocol.CodeUnauthorized, closeUnauthorized, scouts.ErrorMessage(err))
		}
		return refuse(protocol.CodeInternal, websocket.StatusInternalError, "internal error")
	}
	// Acks the device sent before its last connection died may never have
	// arrived: what it says it committed is acknowledged now. Up to its
	// cursor, rows are acknowledged already (acks arrive in order, and the
	// cursor moves in the same transaction): a reconnection without lost
	// acks costs no write.
	if hello.LastAckedSeq > dev.AckedSeq {
		n, err := s.db.AckThrough(ctx, dev.UserID, dev.ID, hello.LastAckedSeq)
		if err != nil {
			s.log.Error("acknowledge from hello", "device", dev.ID, "err", err)
			return refuse(protocol.CodeInternal, websocket.StatusInternalError, "internal error")
		}
		if n > 0 {
			s.log.Info("acks lost with the last connection taken from hello", "device", dev.ID, "rows", n, "through", hello.LastAckedSeq)
		}
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

func (s *session) run(ctx context.Context, after int64) error {
	readErr := make(chan error, 1)
	go func() {
		err := s.readLoop(ctx)
		readErr <- err
		if err != nil {
			if pe, ok := protocol.AsError(err); ok && pe.Fatal {
				s.kill(int(websocket.StatusPolicyViolation), pe.Message)
				return
			}
		}
		s.cancel()
	}()
	hb := time.NewTicker(s.srv.cfg.Heartbeat)
	defer hb.Stop()
	sent := after
	ticks := 0
	needFill := true
	for {
		if needFill {
			var err error
			if sent, err = s.fill(ctx, sent); err != nil {
				return err
			}
			needFill = false
		}
		select {
		case <-ctx.Done():
			select {
			case err := <-readErr:
				return err
			default:
				return ctx.Err()
			}
		case <-s.wake:
			needFill = true
		case b := <-s.out:
			if err := s.write(ctx, b); err != nil {
				return err
			}
		case <-hb.C:
			s.mu.Lock()
			silent := time.Since(s.lastRecv)
			s.mu.Unlock()
			if silent > 3*s.srv.cfg.Heartbeat {
				s.kill(int(websocket.StatusGoingAway), "peer unresponsive")
				return fmt.Errorf("peer silent for %s", silent.Round(time.Second))
			}
			b, _ := protocol.Encode(protocol.TypePing, "", 0, protocol.Ping{T: time.Now().UnixMilli()})
			if err := s.write(ctx, b); err != nil {
				return err
			}
			// Now and then, look at the queue even without a wake-up: a
			// notification may have been lost with a database connection.
			if ticks++; ticks%6 == 0 {
				s.poke()
			}
		}
	}
}

func (s *session) write(ctx context.Context, b []byte) error {
	// Not cancelled with the session: a frame taken for writing (a fatal
	// error's explanation) still goes out; the timeout bounds it.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	return s.conn.Write(wctx, websocket.MessageText, b)
}

// fill sends queued rows after sent while the window has room, and returns
// the new last sent sequence.
func (s *session) fill(ctx context.Context, sent int64) (int64, error) {
	for {
		s.mu.Lock()
		room := s.srv.cfg.Window - len(s.inflight)
		s.mu.Unlock()
		if room <= 0 {
			return sent, nil
		}
		rows, err := s.srv.db.Pending(ctx, s.dev.UserID, s.dev.ID, sent, room)
		if err != nil {
			return sent, err
		}
		if len(rows) == 0 {
			return sent, nil
		}
		var delivered []string
		for _, row := range rows {
			b, err := s.srv.encodeRow(ctx, row)
			if err != nil {
				return sent, err
			}
			s.mu.Lock()
			s.inflight[row.Seq] = row.TriagedAt
			s.mu.Unlock()
			if err := s.write(ctx, b); err != nil {
				return sent, err
			}
			sent = row.Seq
			s.srv.metrics.deliveries.Inc()
			if row.Status == relay.StatusQueued {
				delivered = append(delivered, row.ID)
			}
		}
		if err := s.srv.db.MarkDelivered(ctx, delivered); err != nil {
			return sent, err
		}
	}
}

func (s *Server) encodeRow(ctx context.Context, row relay.QueueItem) ([]byte, error) {
	if row.Status == relay.StatusExpired {
		return protocol.Encode(protocol.TypeProposalExpired, "", row.Seq, protocol.ProposalExpired{
			ID: row.ID, ScoutID: row.ScoutID, SourceType: row.SourceType, SourceRef: row.SourceRef, ExpiredAt: row.ExpiresAt})
	}
	p := protocol.Proposal{
		ID: row.ID, ScoutID: row.ScoutID, SourceType: row.SourceType, SourceRef: row.SourceRef, Verdict: row.Verdict,
		Reason: row.Reason, Path: row.Path, TriagedAt: row.TriagedAt, ExpiresAt: row.ExpiresAt, Sealed: row.Sealed}
	if s.cfg.Gmail != nil {
		// The card's subject, sender and snippet exist only in this frame.
		s.cfg.Gmail.Enrich(ctx, row, &p)
	}
	return protocol.Encode(protocol.TypeProposal, "", row.Seq, p)
}
