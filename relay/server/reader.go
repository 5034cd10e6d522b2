package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
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
		if len(a.Seqs) == 0 || len(a.Seqs) > 1000 {
			return &protocol.Error{Code: protocol.CodeBadFrame, Message: "an ack carries 1 to 1000 sequences"}
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

func (s *session) ack(ctx context.Context, seqs []int64) error {
	if err := s.srv.db.Ack(ctx, s.dev.UserID, s.dev.ID, seqs); err != nil {
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

// configure applies a configuration operation exactly once.
func (s *session) configure(ctx context.Context, f protocol.Frame) protocol.ConfigResult {
	fail := func(code int, msg, scoutID string) protocol.ConfigResult {
		return protocol.ConfigResult{OK: false, ScoutID: scoutID, Error: &protocol.Error{Code: code, Message: msg}}
	}
	var cfg protocol.ScoutConfig
	var scoutID string
	if f.Type == protocol.TypeScoutDisable {
		var d protocol.ScoutDisable
		if err := f.DecodeData(&d); err != nil {
			return fail(protocol.CodeBadFrame, err.Error(), "")
		}
		scoutID = d.ScoutID
	} else {
		if err := f.DecodeData(&cfg); err != nil {
			return fail(protocol.CodeBadFrame, err.Error(), "")
		}
		scoutID = cfg.ScoutID
		if cfg.Kind != relay.KindWebhook && cfg.Kind != relay.KindGmail {
			return fail(protocol.CodeInvalidConfig, "unknown scout kind "+cfg.Kind+" (want webhook or gmail)", scoutID)
		}
		if cfg.Name == "" || len(cfg.Name) > 200 {
			return fail(protocol.CodeInvalidConfig, "a scout needs a name of 1 to 200 bytes", scoutID)
		}
		// An update may leave the hash out (it keeps the current one); one
		// that is not a hex SHA-256 would refuse every post from then on.
		if cfg.Kind == relay.KindWebhook && (cfg.HookTokenHash != "" || f.Type == protocol.TypeScoutRegister) && !isTokenHash(cfg.HookTokenHash) {
			return fail(protocol.CodeInvalidConfig, "a webhook scout needs hook_token_hash (hex SHA-256)", scoutID)
		}
	}
	if scoutID == "" || len(scoutID) > 100 {
		return fail(protocol.CodeInvalidConfig, "scout_id is required (at most 100 bytes)", scoutID)
	}
	// PostgreSQL's text cannot hold NUL while SQLite's can: refused on
	// both, as the bad input it is rather than an internal error.
	for _, v := range []struct{ field, value string }{{"id", f.ID}, {"scout_id", scoutID}, {"name", cfg.Name}, {"email", cfg.Email}, {"mode", cfg.Mode}} {
		if strings.IndexByte(v.value, 0) >= 0 {
			return fail(protocol.CodeInvalidConfig, v.field+" contains a NUL character", scoutID)
		}
	}
	cloud := relay.CloudScout{ID: scoutID, UserID: s.dev.UserID, Kind: cfg.Kind, Name: cfg.Name,
		Mode: cfg.Mode, Enabled: cfg.Enabled, HookTokenHash: cfg.HookTokenHash}
	result := protocol.ConfigResult{OK: true, ScoutID: scoutID}
	if f.Type == protocol.TypeScoutDisable {
		result.HookURL = s.srv.hookURL(scoutID)
	} else {
		if cfg.Kind == relay.KindGmail {
			c, perr := s.srv.configureGmail(cfg, f.Type == protocol.TypeScoutRegister)
			if perr != nil {
				return fail(perr.Code, perr.Message, scoutID)
			}
			c.UserID = s.dev.UserID
			cloud = c
			result.PushTopic = s.srv.cfg.Gmail.Topic()
		} else {
			result.HookURL = s.srv.hookURL(scoutID)
		}
	}
	res, replayed, err := s.srv.db.ApplyOnce(ctx, s.dev.UserID, f.ID, func(tx *sql.Tx) ([]byte, error) {
		var err error
		if f.Type == protocol.TypeScoutDisable {
			err = s.srv.db.DisableScout(ctx, tx, s.dev.UserID, scoutID)
		} else {
			err = s.srv.db.UpsertScout(ctx, tx, cloud)
		}
		if err != nil {
			return nil, err
		}
		return json.Marshal(result)
	})
	switch scouts.ErrorCode(err) {
	case "":
	case scouts.EInvalid:
		return fail(protocol.CodeInvalidConfig, scouts.ErrorMessage(err), scoutID)
	case scouts.EConflict:
		return fail(protocol.CodeScoutForbidden, scouts.ErrorMessage(err), scoutID)
	case scouts.ENotFound:
		return fail(protocol.CodeScoutNotFound, scouts.ErrorMessage(err), scoutID)
	default:
		s.logger().Error("config operation failed", "op", f.ID, "err", err)
		return fail(protocol.CodeInternal, "internal error; retry later", scoutID)
	}
	var out protocol.ConfigResult
	if err := json.Unmarshal(res, &out); err != nil {
		return fail(protocol.CodeInternal, "internal error", scoutID)
	}
	if !replayed && (cloud.Kind == relay.KindGmail || f.Type == protocol.TypeScoutDisable) {
		s.srv.gmailConfigured(ctx, scoutID)
	}
	return out
}

// isTokenHash reports whether h is a hex SHA-256, as relaydb.HashToken
// writes it.
func isTokenHash(h string) bool {
	return len(h) == 64 && strings.Trim(h, "0123456789abcdef") == ""
}
