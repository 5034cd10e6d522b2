package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/relay/protocol"
)

const (
	dialTimeout  = 15 * time.Second
	writeTimeout = 10 * time.Second
)

// dial connects, says hello (resuming after last) and reads the relay's
// answer: a welcome, or the refusal that says why not.
func (c *Client) dial(ctx context.Context, last int64) (*websocket.Conn, protocol.Welcome, error) {
	var welcome protocol.Welcome
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	conn, _, err := websocket.Dial(dctx, c.wsURL(), &websocket.DialOptions{
		HTTPHeader:      http.Header{"User-Agent": {c.cfg.ClientName}},
		CompressionMode: websocket.CompressionDisabled,
	})
	cancel()
	if err != nil {
		return nil, welcome, fmt.Errorf("connect to relay: %w", err)
	}
	conn.SetReadLimit(protocol.MaxFrameBytes)
	fail := func(err error) (*websocket.Conn, protocol.Welcome, error) {
		conn.CloseNow()
		return nil, welcome, err
	}
	b, err := protocol.Encode(protocol.TypeHello, "", 0, protocol.Hello{Token: c.cfg.Token, Protocol: protocol.Version,
		LastAckedSeq: last, PublicKey: c.keys.Public[:], Client: c.cfg.ClientName,
		Seal: []string{protocol.SealBatchV1}})
	if err != nil {
		return fail(err)
	}
	wctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if err := conn.Write(wctx, websocket.MessageText, b); err != nil {
		return fail(fmt.Errorf("send hello: %w", err))
	}
	_, b, err = conn.Read(wctx)
	if err != nil {
		return fail(closeError(err))
	}
	f, err := protocol.Decode(b)
	if err != nil {
		return fail(err)
	}
	if f.Type == protocol.TypeError {
		var pe protocol.Error
		f.DecodeData(&pe)
		return fail(refusal(&pe))
	}
	if f.Type != protocol.TypeWelcome || f.DecodeData(&welcome) != nil {
		return fail(fmt.Errorf("relay answered %s instead of welcome", f.Type))
	}
	return conn, welcome, nil
}

// session runs one connection until it fails or ctx ends.
func (c *Client) session(ctx context.Context) error {
	last, err := c.cfg.Handler.LastAcked(ctx)
	if err != nil {
		return err
	}
	conn, welcome, err := c.dial(ctx, last)
	if err != nil {
		return err
	}
	defer conn.CloseNow()
	write := func(typ, id string, data any) error {
		b, err := protocol.Encode(typ, id, 0, data)
		if err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, writeTimeout)
		defer cancel()
		return conn.Write(wctx, websocket.MessageText, b)
	}
	heartbeat := time.Duration(welcome.HeartbeatSeconds) * time.Second
	if heartbeat <= 0 {
		heartbeat = 10 * time.Second
	}
	c.log.Info("connected to relay", "device", welcome.DeviceID, "resume_after", welcome.ResumeAfter)
	c.cfg.Handler.State(State{State: StateOnline, Since: time.Now(), DeviceID: welcome.DeviceID, UserEmail: welcome.UserEmail})

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	frames := make(chan frame, 2*c.cfg.MaxBatch)
	readErr := make(chan error, 1)
	go func() {
		defer close(frames)
		for {
			_, b, err := conn.Read(ctx)
			if err != nil {
				readErr <- closeError(err)
				return
			}
			f, err := protocol.Decode(b)
			if err != nil {
				c.log.Warn("relay sent a bad frame", "err", err)
				continue
			}
			in := frame{Frame: f}
			if f.Type == protocol.TypeProposal {
				in.item = c.proposalItem(f)
			}
			select {
			case frames <- in:
			case <-ctx.Done():
				return
			}
		}
	}()

	opCh := make(chan struct{}, 1)
	c.mu.Lock()
	c.opCh = opCh
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.opCh = nil
		c.mu.Unlock()
	}()
	sentOps := map[string]bool{}
	sendOps := func() error {
		ops, err := c.cfg.Handler.PendingOps(ctx)
		if err != nil {
			return err
		}
		for _, op := range ops {
			if sentOps[op.Key] {
				continue // awaiting its result on this connection
			}
			if err := write(op.Type, op.Key, op.Data); err != nil {
				return err
			}
			sentOps[op.Key] = true
		}
		return nil
	}
	if err := sendOps(); err != nil {
		return err
	}

	lastRecv := time.Now()
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			conn.Close(websocket.StatusNormalClosure, "agent stopping")
			return ctx.Err()
		case <-opCh:
			if err := sendOps(); err != nil {
				return err
			}
		case <-tick.C:
			if silent := time.Since(lastRecv); silent > 3*heartbeat {
				return fmt.Errorf("relay silent for %s", silent.Round(time.Second))
			}
		case f, ok := <-frames:
			if !ok {
				return <-readErr
			}
			lastRecv = time.Now()
			// Take what else has already arrived, so that a backlog is
			// committed and acknowledged in batches.
			batch := []frame{f}
		more:
			for len(batch) < c.cfg.MaxBatch {
				select {
				case f, ok := <-frames:
					if !ok {
						break more
					}
					batch = append(batch, f)
				default:
					break more
				}
			}
			if err := c.handle(ctx, batch, write, sentOps); err != nil {
				return err
			}
		}
	}
}

// handle processes a batch of frames: proposals and expiries are committed
// together, then acknowledged in one frame.
func (c *Client) handle(ctx context.Context, batch []frame, write func(string, string, any) error, sentOps map[string]bool) error {
	var items []Item
	for _, f := range batch {
		switch f.Type {
		case protocol.TypeProposal:
			if f.item != nil {
				items = append(items, *f.item)
			}
		case protocol.TypeProposalExpired:
			var e protocol.ProposalExpired
			if err := f.DecodeData(&e); err != nil || f.Seq <= 0 {
				continue
			}
			items = append(items, Item{Seq: f.Seq, Expired: &e})
		case protocol.TypePing:
			var p protocol.Ping
			f.DecodeData(&p)
			if err := write(protocol.TypePong, "", protocol.Pong{T: p.T}); err != nil {
				return err
			}
		case protocol.TypeConfigResult:
			var r protocol.ConfigResult
			if err := f.DecodeData(&r); err != nil {
				continue
			}
			if err := c.cfg.Handler.OpDone(ctx, f.ID, r); err != nil {
				return err
			}
			delete(sentOps, f.ID)
		case protocol.TypeScoutStatus:
			var st protocol.ScoutStatus
			if f.DecodeData(&st) == nil {
				c.cfg.Handler.ScoutStatus(ctx, st)
			}
		case protocol.TypeMailboxChanged:
			var mc protocol.MailboxChanged
			if f.DecodeData(&mc) == nil {
				c.cfg.Handler.MailboxChanged(ctx, mc)
			}
		case protocol.TypeError:
			var pe protocol.Error
			f.DecodeData(&pe)
			c.log.Warn("relay reported an error", "code", pe.Code, "message", pe.Message, "fatal", pe.Fatal)
			if pe.Fatal {
				return refusal(&pe)
			}
		case protocol.TypePong, protocol.TypeWelcome:
		default:
			// A newer relay's frame type: not for us.
		}
	}
	if len(items) == 0 {
		return nil
	}
	if err := c.cfg.Handler.Commit(ctx, items); err != nil {
		return fmt.Errorf("commit proposals: %w", err)
	}
	seqs := make([]int64, len(items))
	for i, it := range items {
		seqs[i] = it.Seq
	}
	return write(protocol.TypeProposalAck, "", protocol.ProposalAck{Seqs: seqs})
}

// frame is a frame as the reader hands it over: a proposal comes decoded
// and its sealed content opened (item; nil when the proposal is bad), so
// that while a batch commits, the reader already opens the next one: on a
// backlog, the opening (one X25519 per item) and the commit use two cores.
type frame struct {
	protocol.Frame
	item *Item
}

// proposalItem decodes a proposal and opens its sealed content.
func (c *Client) proposalItem(f protocol.Frame) *Item {
	var p protocol.Proposal
	if err := f.DecodeData(&p); err != nil || f.Seq <= 0 {
		c.log.Warn("relay sent a bad proposal", "seq", f.Seq, "err", err)
		return nil
	}
	it := &Item{Seq: f.Seq, Proposal: &p}
	if len(p.Sealed) > 0 {
		pl, err := c.keys.OpenWebhook(p.Sealed)
		if err != nil {
			it.OpenError = err
		} else {
			it.Payload = &pl
		}
	}
	return it
}

// refusal turns the relay's fatal errors about the device into stops.
func refusal(pe *protocol.Error) error {
	switch pe.Code {
	case protocol.CodeUnauthorized:
		return &errStop{state: StateUnauthorized, msg: "the relay does not know this device token: " + pe.Message}
	case protocol.CodeDeviceRevoked:
		return &errStop{state: StateRevoked, msg: "this device was revoked on the relay"}
	}
	return pe
}

// closeError turns the relay's close codes into stops where reconnecting
// cannot help.
func closeError(err error) error {
	switch websocket.CloseStatus(err) {
	case protocol.CloseRevoked:
		return &errStop{state: StateRevoked, msg: "this device was revoked on the relay"}
	case protocol.CloseUnauthorized:
		return &errStop{state: StateUnauthorized, msg: "the relay does not know this device token"}
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("relay connection: %w", err)
}
