package relaylink

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

// conn is one connection of the link to a relay: the relay client's
// Handler. Logging in or out replaces it.
type conn struct {
	l      *Link
	url    string
	source string
	// token reads the device token (from memory or the keyring).
	token   func(context.Context) (string, error)
	cancel  context.CancelFunc
	done    chan struct{}
	kick    chan struct{}
	settled chan struct{} // closed at the first state that is not "connecting"
	settle  sync.Once

	mu     sync.Mutex
	state  client.State
	client *client.Client // nil until the token is read
}

var _ client.Handler = (*conn)(nil)

func (c *conn) run(ctx context.Context) {
	defer close(c.done)
	cl := c.newClient(ctx)
	if cl == nil {
		return
	}
	if err := cl.Run(ctx); err != nil {
		c.l.log.Error("relay connection stopped for good", "err", err)
	}
}

// newClient reads the device token and builds the client. A keyring that
// cannot be read now (locked, its service not started yet) is asked again
// with backoff: an agent started at login may come before the unlock.
func (c *conn) newClient(ctx context.Context) *client.Client {
	delay := time.Second
	for {
		tok, err := c.token(ctx)
		if err == nil {
			cl, err := client.New(client.Config{URL: c.url, Token: tok, Handler: c,
				Logger: c.l.log.With("component", "relay"), ClientName: "scouts/" + c.l.cfg.Version})
			if err != nil {
				c.State(client.State{State: client.StateUnauthorized, Error: err.Error(), Since: time.Now()})
				return nil
			}
			c.mu.Lock()
			c.client = cl
			c.mu.Unlock()
			return cl
		}
		if scouts.ErrorCode(err) == scouts.ENotFound {
			c.State(client.State{State: client.StateUnauthorized, Since: time.Now(),
				Error: "no device token in the keyring: log in again (scouts relay login URL TOKEN, or Settings → Relay)"})
			return nil
		}
		c.l.log.Warn("relay: cannot read the device token from the keyring", "err", err, "retry_in", delay.String())
		c.State(client.State{State: client.StateOffline, Since: time.Now(), NextRetry: time.Now().Add(delay),
			Error: "cannot read the device token: " + scouts.ErrorMessage(err)})
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-c.kick:
			t.Stop()
		case <-t.C:
		}
		delay = min(2*delay, time.Minute)
	}
}

func (c *conn) status(ctx context.Context) Status {
	c.mu.Lock()
	st := c.state
	c.mu.Unlock()
	out := Status{Configured: true, Source: c.source, URL: c.url, State: st.State, Error: st.Error, Since: st.Since,
		NextRetry: st.NextRetry, DeviceID: st.DeviceID, UserEmail: st.UserEmail}
	if n, err := c.l.db.OutboxCounts(ctx); err == nil {
		out.Outbox = n["pending"]
	}
	out.LastSeq, _ = c.l.db.SyncSeq(ctx, seqKey)
	return out
}

// sync kicks the client, or the wait for the keyring before there is one.
func (c *conn) sync() {
	c.mu.Lock()
	cl := c.client
	c.mu.Unlock()
	if cl != nil {
		cl.Kick()
		return
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *conn) State(st client.State) {
	c.mu.Lock()
	prev := c.state
	if st.DeviceID == "" && st.State != client.StateOnline {
		st.DeviceID, st.UserEmail = prev.DeviceID, prev.UserEmail
	}
	c.state = st
	c.mu.Unlock()
	if st.State != client.StateConnecting {
		c.settle.Do(func() { close(c.settled) })
	}
	if c.l.current() != c {
		return // logged out or replaced: what it says now is no news
	}
	// A new retry time is news too: the offline banner counts down to it.
	if prev.State != st.State || prev.Error != st.Error || !prev.NextRetry.Equal(st.NextRetry) {
		c.l.cfg.Bus.Publish(scouts.Event{Type: EventState, Data: c.status(context.Background())})
	}
	if st.State == client.StateOnline && prev.State != client.StateOnline {
		c.l.recordAccount(context.Background(), account{URL: c.url, UserEmail: st.UserEmail})
		c.l.host.Online()
	}
}

func (c *conn) LastAcked(ctx context.Context) (int64, error) {
	return c.l.db.SyncSeq(ctx, seqKey)
}

// Commit turns proposals into cards (idempotently: the same proposal after
// a crash finds its card already there) and records the cursor; the client
// acknowledges after it returns.
func (c *conn) Commit(ctx context.Context, items []client.Item) error {
	l := c.l
	var maxSeq int64
	byScout := map[string][]scouts.ItemRef{}
	var order []string
	for _, it := range items {
		maxSeq = max(maxSeq, it.Seq)
		if it.Expired != nil {
			if err := l.expire(ctx, it.Expired); err != nil {
				return err
			}
			continue
		}
		p := it.Proposal
		if _, ok := byScout[p.ScoutID]; !ok {
			order = append(order, p.ScoutID)
		}
		byScout[p.ScoutID] = append(byScout[p.ScoutID], l.item(it))
	}
	for _, scoutID := range order {
		s, err := l.host.Scout(ctx, scoutID)
		if scouts.ErrorCode(err) == scouts.ENotFound {
			l.log.Warn("relay proposal for a scout this desktop no longer has; dropped", "scout", scoutID, "items", len(byScout[scoutID]))
			continue
		}
		if err != nil {
			return err
		}
		n, err := l.host.Ingest(ctx, s, byScout[scoutID])
		if err != nil {
			return err
		}
		if n > 0 {
			// What the relay delivers is what a relay scout finds: its
			// health counts it (a relay-triage scout's own runs list
			// nothing). The relay's last word on the scout stays.
			l.host.RecordHealth(ctx, scoutID, n, l.Health(ctx, scoutID))
		}
	}
	if err := l.db.AdvanceSyncSeq(ctx, seqKey, maxSeq); err != nil {
		return err
	}
	// The cursor moves after the batch's cards are announced: say so, or
	// whoever waits for it (a drain's end) hears nothing.
	l.publish(ctx)
	return nil
}

// item turns a relay proposal into the item a card is made of.
func (l *Link) item(it client.Item) scouts.ItemRef {
	p := it.Proposal
	meta := scouts.ItemMetadata{ProposedKind: scouts.EntityTask, Reason: p.Reason, ReceivedAt: p.TriagedAt,
		Title: p.Subject, Sender: p.Sender, Excerpt: p.Snippet}
	ref := scouts.ItemRef{Ref: l.host.ItemName(p.SourceType, p.ID, p.SourceRef), Meta: &meta}
	l.host.FillItem(it, &ref)
	if ref.Meta.Reason == "" {
		ref.Meta.Reason = "Queued by the relay"
	}
	return ref
}

// expire shows a proposal that expired on the relay as expired here; if it
// never arrived, an expired card says that something was lost to time.
func (l *Link) expire(ctx context.Context, e *protocol.ProposalExpired) error {
	s, err := l.host.Scout(ctx, e.ScoutID)
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return nil
	}
	if err != nil {
		return err
	}
	meta := scouts.ItemMetadata{Title: "An item expired on the relay before it reached this desktop", ProposedKind: scouts.EntityTask,
		Reason: "The relay kept it 30 days without an acknowledgement", ReceivedAt: e.ExpiredAt}
	missing := scouts.ItemRef{Ref: l.host.ItemName(e.SourceType, e.ID, e.SourceRef), Meta: &meta}
	return l.host.Expire(ctx, s, missing, "Expired on the relay before it was acknowledged")
}

func (c *conn) PendingOps(ctx context.Context) ([]client.Op, error) {
	return c.l.host.PendingOps(ctx)
}

func (c *conn) OpDone(ctx context.Context, key string, res protocol.ConfigResult) error {
	l := c.l
	if !res.OK && res.Error != nil && res.Error.Code == protocol.CodeInternal {
		return nil // the relay had a problem of its own: stays pending, retried
	}
	b, _ := json.Marshal(res)
	errText := ""
	if !res.OK && res.Error != nil {
		errText = res.Error.Message
	}
	if err := l.db.FinishOutbox(ctx, key, !res.OK, errText, b); err != nil {
		return err
	}
	// The outbox shrank: the status (and the offline banner's "will sync"
	// count) changed.
	l.publish(ctx)
	if res.ScoutID == "" {
		return nil
	}
	if !res.OK {
		l.host.RecordHealth(ctx, res.ScoutID, 0, fmt.Errorf("the relay refused this scout's configuration: %s", errText))
		return nil
	}
	l.host.RecordHealth(ctx, res.ScoutID, 0, nil)
	l.host.RecordRelayAnswer(ctx, res)
	return nil
}

// MailboxChanged handles relay-ping mode's hint.
func (c *conn) MailboxChanged(ctx context.Context, mc protocol.MailboxChanged) {
	c.l.host.MailboxChanged(mc.ScoutID)
}

// ScoutStatus is the relay's word on a scout it runs; see applyScoutStatus.
func (c *conn) ScoutStatus(ctx context.Context, st protocol.ScoutStatus) {
	c.l.applyScoutStatus(ctx, st)
}
