package server

import (
	"context"
	"errors"
	"time"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/service"
)

// readLoop reads the device's frames until the connection ends or the
// session is parked while idle (see parker). Each
// frame is handled on the server's worker pool while this goroutine waits
// (frames are handled in order), so that the database and JSON work does
// not grow the stack this goroutine keeps while the device is idle; the
// answers are queued here, where waiting for room slows this device only.
func (s *session) readLoop() { s.readFrames(false) }

// readFrames is readLoop; woken says the parker started it because the
// connection is readable, so it reads before parking again.
func (s *session) readFrames(woken bool) {
	// A read whose context ends drops the TCP connection without a close
	// frame, and the device would see a bare EOF instead of why the session
	// ended (4001 revoked, 1001 going away). So reads are not cancelled with
	// the session: the session's close handshake ends this read.
	rctx := context.WithoutCancel(s.ctx)
	for {
		// Idle: parked without a goroutine, this one ends and another
		// starts when the device sends something. Otherwise idle here;
		// if the connection was closed meanwhile, the read below reports
		// how.
		if !woken && !s.waiter.buffered() && s.srv.parker.park(s) {
			return
		}
		woken = false
		s.waiter.wait()
		_, b, err := s.conn.Read(rctx)
		if err != nil {
			s.end(err)
			return
		}
		var answers [][]byte
		var stop error
		s.srv.workers.do(func() { answers, stop = s.frame(b) })
		s.send(answers...)
		if stop != nil {
			if pe, ok := protocol.AsError(stop); ok && pe.Fatal {
				s.kill(int(websocket.StatusPolicyViolation), pe.Message)
			}
			s.end(stop)
			return
		}
	}
}

// frame handles one frame from the device and returns the answers to
// send; a returned error ends the session (a fatal protocol error closes
// it with its message).
func (s *session) frame(b []byte) (answers [][]byte, stop error) {
	ctx := s.ctx
	reply := func(typ, id string, data any) {
		if b, err := protocol.Encode(typ, id, 0, data); err == nil {
			answers = append(answers, b)
		}
	}
	now := time.Now()
	s.mu.Lock()
	s.lastRecv = now
	s.mu.Unlock()
	f, decErr := protocol.Decode(b)
	// Acknowledgements of what the relay sent and pongs to its pings
	// are bounded by the relay's own sending; only the rest draws on the
	// device's budget (a desktop draining a burst acknowledges as fast
	// as items arrive, and must not be cut off for it).
	s.tokens = min(float64(s.srv.cfg.FrameBurst), s.tokens+now.Sub(s.lastTick).Seconds()*s.srv.cfg.FrameRate)
	s.lastTick = now
	if decErr != nil || !s.free(f) {
		if s.tokens < 1 {
			reply(protocol.TypeError, "", protocol.Error{Code: protocol.CodeRateLimited, Message: "too many frames; slow down", Fatal: true})
			return answers, &protocol.Error{Code: protocol.CodeRateLimited, Message: "rate limit exceeded", Fatal: true}
		}
		s.tokens--
	}
	if decErr != nil {
		pe, _ := protocol.AsError(decErr)
		reply(protocol.TypeError, "", protocol.Error{Code: pe.Code, Message: pe.Message})
		return answers, nil
	}
	s.srv.metrics.frames.WithLabelValues(frameLabel(f.Type)).Inc()
	if err := s.handle(ctx, f, reply); err != nil {
		if pe, ok := protocol.AsError(err); ok {
			reply(protocol.TypeError, f.ID, *pe)
			if pe.Fatal {
				return answers, pe
			}
			return answers, nil
		}
		return answers, err
	}
	return answers, nil
}

// free reports whether a frame answers something the relay sent: a pong,
// or an acknowledgement of sequences all in flight.
func (s *session) free(f protocol.Frame) bool {
	switch f.Type {
	case protocol.TypePong:
		return true
	case protocol.TypeProposalAck:
		var a protocol.ProposalAck
		if f.DecodeData(&a) != nil || len(a.Seqs) == 0 {
			return false
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, seq := range a.Seqs {
			if _, ok := s.inflight[seq]; !ok {
				return false
			}
		}
		return true
	}
	return false
}

// frameLabel bounds the metric's label values to known types.
func frameLabel(t string) string {
	switch t {
	case protocol.TypeProposalAck, protocol.TypePing, protocol.TypePong, protocol.TypeHello,
		protocol.TypeScoutRegister, protocol.TypeScoutUpdate, protocol.TypeScoutDisable:
		return t
	}
	return "other"
}

func (s *session) handle(ctx context.Context, f protocol.Frame, reply func(typ, id string, data any)) error {
	switch f.Type {
	case protocol.TypeProposalAck:
		var a protocol.ProposalAck
		if err := f.DecodeData(&a); err != nil {
			return err
		}
		return s.ack(ctx, a.Seqs)
	case protocol.TypePing:
		var p protocol.Ping
		f.DecodeData(&p)
		reply(protocol.TypePong, "", protocol.Pong{T: p.T})
		return nil
	case protocol.TypePong:
		return nil
	case protocol.TypeScoutRegister, protocol.TypeScoutUpdate, protocol.TypeScoutDisable:
		if f.ID == "" || len(f.ID) > 100 {
			return &protocol.Error{Code: protocol.CodeBadFrame, Message: "a configuration operation needs an id (its idempotency key) of at most 100 bytes"}
		}
		reply(protocol.TypeConfigResult, f.ID, s.configure(ctx, f))
		return nil
	case protocol.TypeHello:
		return &protocol.Error{Code: protocol.CodeBadFrame, Message: "hello was already received"}
	}
	// A newer desktop may speak frame types this relay does not know: say
	// so and carry on.
	return &protocol.Error{Code: protocol.CodeUnknownType, Message: "unknown frame type " + f.Type}
}

// ack has the service record an acknowledgement; a refusal is answered,
// a failure ends the session.
func (s *session) ack(ctx context.Context, seqs []int64) error {
	if err := s.srv.svc.Ack(ctx, s.dev, seqs); err != nil {
		var e *service.Error
		if errors.As(err, &e) {
			pe, _ := wsRefusal(e)
			return &pe
		}
		return err
	}
	now := time.Now()
	s.mu.Lock()
	for _, seq := range seqs {
		if queued, ok := s.inflight[seq]; ok {
			s.srv.metrics.pushToAck.Observe(now.Sub(queued).Seconds())
			s.srv.metrics.acks.Inc()
			delete(s.inflight, seq)
		}
	}
	if len(s.inflight) == 0 {
		s.inflight = nil // an idle session keeps no table its burst grew
	}
	s.mu.Unlock()
	s.poke() // the window has room again
	return nil
}

// configure has the service apply a configuration operation; its answer,
// or its refusal, is the frame's config_result.
func (s *session) configure(ctx context.Context, f protocol.Frame) protocol.ConfigResult {
	op := service.ConfigOp{ID: f.ID, Type: f.Type}
	var err error
	if f.Type == protocol.TypeScoutDisable {
		var d protocol.ScoutDisable
		err = f.DecodeData(&d)
		op.Scout.ScoutID = d.ScoutID
	} else {
		err = f.DecodeData(&op.Scout)
	}
	if err != nil {
		return protocol.ConfigResult{Error: &protocol.Error{Code: protocol.CodeBadFrame, Message: err.Error()}}
	}
	res, err := s.srv.svc.Configure(ctx, s.dev, op)
	if err != nil {
		pe, _ := wsRefusal(service.AsError(err))
		return protocol.ConfigResult{ScoutID: op.Scout.ScoutID, Error: &pe}
	}
	return res
}
