package core

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

// EventRelayState is published when the relay connection changes state.
const EventRelayState = "relay.state"

// RelayStatus is the relay connection as the user sees it.
type RelayStatus struct {
	Configured bool
	// Source is where the relay comes from: RelaySourceFlags or
	// RelaySourceLogin; empty without a relay.
	Source    string
	URL       string
	State     string // connecting, online, offline, unauthorized, revoked; none without a relay
	Error     string
	Since     time.Time
	NextRetry time.Time
	DeviceID  string
	UserEmail string
	Outbox    int // operations waiting to reach the relay
	LastSeq   int64
}

// Where a relay comes from, and the state of a desktop without one.
const (
	// RelaySourceFlags: --relay and --device-token-file, fixed for the run.
	RelaySourceFlags = "flags"
	// RelaySourceLogin: scouts relay login (the URL in the settings, the
	// token in the keyring).
	RelaySourceLogin = "login"
	// RelayStateNone is the state of a desktop without a relay.
	RelayStateNone = "none"
)

// relayLink is the desktop's side of one relay: it implements the relay
// client's Handler on top of the core. Logging in or out replaces the
// core's link; a replaced link's last words are no news.
type relayLink struct {
	c      *Core
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

const relaySeqKey = "relay_seq"

// startRelay connects to the relay the flags name, else to the one the
// user logged in to.
func (c *Core) startRelay(ctx context.Context) error {
	c.relayMu.Lock()
	c.runCtx = ctx
	c.relayMu.Unlock()
	if c.cfg.RelayURL != "" {
		tok := c.cfg.RelayToken
		// Checked here so that bad flags stop the agent at start.
		if _, err := client.New(client.Config{URL: c.cfg.RelayURL, Token: tok}); err != nil {
			return scouts.Errorf(scouts.EInvalid, "relay: %v", err)
		}
		c.startLink(c.cfg.RelayURL, RelaySourceFlags, client.Identity{}, func(context.Context) (string, error) { return tok, nil })
		return nil
	}
	saved, err := c.savedRelay(ctx)
	if err != nil {
		// The desktop works without its relay; logging in again mends it.
		c.log.Error("relay: cannot read the relay logged in to; log in again", "err", err)
		return nil
	}
	if saved.URL != "" {
		c.startLink(saved.URL, RelaySourceLogin, client.Identity{}, c.keyringRelayToken)
	}
	return nil
}

// startLink makes a link to url the core's and runs it.
func (c *Core) startLink(url, source string, id client.Identity, token func(context.Context) (string, error)) *relayLink {
	l := &relayLink{c: c, url: url, source: source, token: token, done: make(chan struct{}),
		kick: make(chan struct{}, 1), settled: make(chan struct{}),
		state: client.State{State: client.StateConnecting, Since: c.now(), DeviceID: id.DeviceID, UserEmail: id.UserEmail}}
	c.relayMu.Lock()
	ctx, cancel := context.WithCancel(c.runCtx)
	l.cancel = cancel
	c.relay = l
	c.wg.Add(1)
	c.relayMu.Unlock()
	go func() {
		defer c.wg.Done()
		l.run(ctx)
	}()
	c.Bus.Publish(scouts.Event{Type: EventRelayState, Data: c.RelayStatus(ctx)})
	return l
}

// stopRelay disconnects the current link, if any, and waits until it has
// stopped: nothing it received can move the cursor afterwards.
func (c *Core) stopRelay() {
	c.relayMu.Lock()
	l := c.relay
	c.relay = nil
	c.relayMu.Unlock()
	if l != nil {
		l.cancel()
		<-l.done
	}
}

func (c *Core) currentRelay() *relayLink {
	c.relayMu.Lock()
	defer c.relayMu.Unlock()
	return c.relay
}

func (l *relayLink) run(ctx context.Context) {
	defer close(l.done)
	cl := l.newClient(ctx)
	if cl == nil {
		return
	}
	if err := cl.Run(ctx); err != nil {
		l.c.log.Error("relay connection stopped for good", "err", err)
	}
}

// newClient reads the device token and builds the client. A keyring that
// cannot be read now (locked, its service not started yet) is asked again
// with backoff: an agent started at login may come before the unlock.
func (l *relayLink) newClient(ctx context.Context) *client.Client {
	delay := time.Second
	for {
		tok, err := l.token(ctx)
		if err == nil {
			cl, err := client.New(client.Config{URL: l.url, Token: tok, Handler: l,
				Logger: l.c.log.With("component", "relay"), ClientName: "scouts/" + l.c.cfg.Version})
			if err != nil {
				l.State(client.State{State: client.StateUnauthorized, Error: err.Error(), Since: time.Now()})
				return nil
			}
			l.mu.Lock()
			l.client = cl
			l.mu.Unlock()
			return cl
		}
		if scouts.ErrorCode(err) == scouts.ENotFound {
			l.State(client.State{State: client.StateUnauthorized, Since: time.Now(),
				Error: "no device token in the keyring: log in again (scouts relay login URL TOKEN, or Settings → Relay)"})
			return nil
		}
		l.c.log.Warn("relay: cannot read the device token from the keyring", "err", err, "retry_in", delay.String())
		l.State(client.State{State: client.StateOffline, Since: time.Now(), NextRetry: time.Now().Add(delay),
			Error: "cannot read the device token: " + scouts.ErrorMessage(err)})
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-l.kick:
			t.Stop()
		case <-t.C:
		}
		delay = min(2*delay, time.Minute)
	}
}

// RelayStatus reports the relay connection.
func (c *Core) RelayStatus(ctx context.Context) RelayStatus {
	l := c.currentRelay()
	if l == nil {
		return RelayStatus{State: RelayStateNone}
	}
	return l.status(ctx)
}

func (l *relayLink) status(ctx context.Context) RelayStatus {
	l.mu.Lock()
	st := l.state
	l.mu.Unlock()
	out := RelayStatus{Configured: true, Source: l.source, URL: l.url, State: st.State, Error: st.Error, Since: st.Since,
		NextRetry: st.NextRetry, DeviceID: st.DeviceID, UserEmail: st.UserEmail}
	if n, err := l.c.DB.OutboxCounts(ctx); err == nil {
		out.Outbox = n["pending"]
	}
	out.LastSeq, _ = l.c.DB.SyncSeq(ctx, relaySeqKey)
	return out
}

// SyncRelay asks the relay link to reconnect now or flush its outbox (or,
// while the keyring cannot be read, to try it again now).
func (c *Core) SyncRelay() {
	l := c.currentRelay()
	if l == nil {
		return
	}
	l.mu.Lock()
	cl := l.client
	l.mu.Unlock()
	if cl != nil {
		cl.Kick()
		return
	}
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

func (l *relayLink) State(st client.State) {
	l.mu.Lock()
	prev := l.state
	if st.DeviceID == "" && st.State != client.StateOnline {
		st.DeviceID, st.UserEmail = prev.DeviceID, prev.UserEmail
	}
	l.state = st
	l.mu.Unlock()
	if st.State != client.StateConnecting {
		l.settle.Do(func() { close(l.settled) })
	}
	if l.c.currentRelay() != l {
		return // logged out or replaced: what it says now is no news
	}
	// A new retry time is news too: the offline banner counts down to it.
	if prev.State != st.State || prev.Error != st.Error || !prev.NextRetry.Equal(st.NextRetry) {
		l.c.Bus.Publish(scouts.Event{Type: EventRelayState, Data: l.status(context.Background())})
	}
	if st.State == client.StateOnline && prev.State != client.StateOnline {
		l.c.recordRelayAccount(context.Background(), relayAccount{URL: l.url, UserEmail: st.UserEmail})
		for _, k := range l.c.kinds {
			if k.relayOnline != nil {
				k.relayOnline()
			}
		}
	}
}

func (l *relayLink) LastAcked(ctx context.Context) (int64, error) {
	return l.c.DB.SyncSeq(ctx, relaySeqKey)
}

// Commit turns proposals into suggestions (idempotently: the same
// proposal after a crash finds its suggestion already there) and records
// the cursor; the client acknowledges after it returns.
func (l *relayLink) Commit(ctx context.Context, items []client.Item) error {
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
		byScout[p.ScoutID] = append(byScout[p.ScoutID], l.c.proposalItem(it))
	}
	for _, scoutID := range order {
		s, err := l.c.DB.GetScout(ctx, scoutID)
		if scouts.ErrorCode(err) == scouts.ENotFound {
			l.c.log.Warn("relay proposal for a scout this desktop no longer has; dropped", "scout", scoutID, "items", len(byScout[scoutID]))
			continue
		}
		if err != nil {
			return err
		}
		n, err := l.c.Engine.Ingest(ctx, s, byScout[scoutID])
		if err != nil {
			return err
		}
		if n > 0 {
			// What the relay delivers is what a relay scout finds: its
			// health counts it (a relay-triage scout's own runs list
			// nothing). The relay's last word on the scout stays.
			l.c.Engine.RecordHealth(ctx, scoutID, n, l.c.cloudHealth(ctx, scoutID))
		}
	}
	return l.c.DB.AdvanceSyncSeq(ctx, relaySeqKey, maxSeq)
}

// proposalItem turns a relay proposal into the item a suggestion is made of.
func (c *Core) proposalItem(it client.Item) scouts.ItemRef {
	p := it.Proposal
	meta := scouts.ItemMetadata{ProposedKind: scouts.EntityTask, Reason: p.Reason, ReceivedAt: p.TriagedAt,
		Title: p.Subject, Sender: p.Sender, Excerpt: p.Snippet}
	ref := scouts.ItemRef{Ref: p.ID, Meta: &meta}
	k := c.kinds[scouts.Kind(p.SourceType)]
	if k.itemIsSourceRef {
		ref.Ref = p.SourceRef
	}
	if k.fromRelay != nil {
		k.fromRelay(it, &ref)
	}
	if meta.Reason == "" {
		meta.Reason = "Queued by the relay"
	}
	return ref
}

// webhookItem is a webhook proposal's item: the content sealed for this
// device, opened.
func webhookItem(it client.Item, ref *scouts.ItemRef) {
	meta := ref.Meta
	switch {
	case it.Payload != nil:
		meta.Title, meta.URL, meta.Body = it.Payload.Title, it.Payload.URL, it.Payload.Body
		meta.Facts = &scouts.ItemFacts{ContentRead: true}
		meta.Excerpt = excerpt(it.Payload.Body, 280)
	case it.OpenError != nil:
		meta.Title = "Webhook item (its content could not be opened on this device)"
		ref.Notes = append(ref.Notes, "The sealed content could not be opened: "+it.OpenError.Error())
	default:
		meta.Title = "Webhook item (no content was sealed for this device)"
		ref.Notes = append(ref.Notes, "The relay held no content for this device: it was registered after the item arrived")
	}
}

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// expire shows a proposal that expired on the relay as expired here; if it
// never arrived, an expired card says that something was lost to time.
func (l *relayLink) expire(ctx context.Context, e *protocol.ProposalExpired) error {
	s, err := l.c.DB.GetScout(ctx, e.ScoutID)
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return nil
	}
	if err != nil {
		return err
	}
	ref := e.ID
	if l.c.kinds[scouts.Kind(e.SourceType)].itemIsSourceRef {
		ref = e.SourceRef
	}
	sug, err := l.c.DB.SuggestionByRef(ctx, e.ScoutID, ref)
	if scouts.ErrorCode(err) == scouts.ENotFound {
		meta := scouts.ItemMetadata{Title: "An item expired on the relay before it reached this desktop", ProposedKind: scouts.EntityTask,
			Reason: "The relay kept it 30 days without an acknowledgement", ReceivedAt: e.ExpiredAt}
		if _, err := l.c.Engine.Ingest(ctx, s, []scouts.ItemRef{{Ref: ref, Meta: &meta}}); err != nil {
			return err
		}
		sug, err = l.c.DB.SuggestionByRef(ctx, e.ScoutID, ref)
	}
	if err != nil {
		return err
	}
	got, changed, err := l.c.DB.ExpireSuggestion(ctx, sug.ID, l.c.now(), "Expired on the relay before it was acknowledged")
	if err == nil && changed {
		l.c.Bus.Publish(scouts.Event{Type: scouts.EventSuggestionResolved, Data: got})
	}
	return err
}

func (l *relayLink) PendingOps(ctx context.Context) ([]client.Op, error) {
	entries, err := l.c.DB.PendingOutbox(ctx)
	if err != nil {
		return nil, err
	}
	var ops []client.Op
	for _, e := range entries {
		switch e.Action {
		case protocol.TypeScoutRegister, protocol.TypeScoutUpdate, protocol.TypeScoutDisable:
			data, err := l.c.beforeSend(ctx, []byte(e.Params))
			if err != nil {
				// No token (the account was disconnected, the keyring is
				// locked): the operation waits, and the scout says why.
				var op protocol.ScoutConfig
				json.Unmarshal([]byte(e.Params), &op)
				l.c.Engine.RecordHealth(ctx, op.ScoutID, 0, fmt.Errorf("cannot hand Gmail access to the relay: %w", err))
				continue
			}
			ops = append(ops, client.Op{Key: e.Key, Type: e.Action, Data: json.RawMessage(data)})
		}
	}
	return ops, nil
}

func (l *relayLink) OpDone(ctx context.Context, key string, res protocol.ConfigResult) error {
	if !res.OK && res.Error != nil && res.Error.Code == protocol.CodeInternal {
		return nil // the relay had a problem of its own: stays pending, retried
	}
	b, _ := json.Marshal(res)
	errText := ""
	if !res.OK && res.Error != nil {
		errText = res.Error.Message
	}
	if err := l.c.DB.FinishOutbox(ctx, key, !res.OK, errText, b); err != nil {
		return err
	}
	// The outbox shrank: the status (and the offline banner's "will sync"
	// count) changed.
	l.c.Bus.Publish(scouts.Event{Type: EventRelayState, Data: l.c.RelayStatus(ctx)})
	if res.ScoutID == "" {
		return nil
	}
	if !res.OK {
		l.c.Engine.RecordHealth(ctx, res.ScoutID, 0, fmt.Errorf("the relay refused this scout's configuration: %s", errText))
		return nil
	}
	l.c.Engine.RecordHealth(ctx, res.ScoutID, 0, nil)
	// What the relay answered (a webhook's address, a push topic) is
	// written into the scout as it is now, under the definitions lock: a
	// copy read before a change the person made meanwhile would undo it.
	ctx, release := l.c.changeDefinitions(ctx)
	defer release()
	if s, err := l.c.DB.GetScout(ctx, res.ScoutID); err == nil {
		if done := l.c.kinds[s.Kind].relayDone; done != nil {
			done(ctx, s, res)
		}
	}
	return nil
}

// webhookAddress records where the relay said a webhook scout receives
// items: the relay knows its public address better than the desktop.
func (c *Core) webhookAddress(ctx context.Context, s scouts.Scout, res protocol.ConfigResult) {
	if res.HookURL == "" {
		return
	}
	var cfg webhookConfig
	json.Unmarshal(s.Config, &cfg)
	if cfg.HookURL != res.HookURL {
		cfg.HookURL = res.HookURL
		s.Config, _ = json.Marshal(cfg)
		s.UpdatedAt = c.now()
		if err := c.DB.UpdateScout(ctx, s); err == nil {
			c.Bus.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: s})
		}
	}
}

// MailboxChanged handles relay-ping mode's hint.
func (l *relayLink) MailboxChanged(ctx context.Context, mc protocol.MailboxChanged) {
	l.c.gmail.MailboxChanged(mc.ScoutID)
}

// ScoutStatus is the relay's word on a scout it runs; see applyScoutStatus.
func (l *relayLink) ScoutStatus(ctx context.Context, st protocol.ScoutStatus) {
	l.c.applyScoutStatus(ctx, st)
}

// auditScoutStatus records news about a scout as a whole (not about one
// item): a relay's status report, a recovered Gmail cursor.
func (c *Core) auditScoutStatus(ctx context.Context, scoutID, actor, state, message string) {
	ev := scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageSource, Type: AuditScoutStatus,
		Outcome: scouts.OutcomeOK, Summary: message, Refs: map[string]string{"scout_id": scoutID, "state": state, "actor": actor},
		At: c.now()}
	if state != protocol.ScoutOK {
		ev.Outcome = scouts.OutcomeError
	}
	if err := c.DB.AppendAudit(ctx, ev); err != nil {
		c.log.Warn("record scout status", "scout", scoutID, "err", err)
	}
}

// AuditScoutStatus records a cloud scout's status change reported by the
// relay.
const AuditScoutStatus = "scout.status"

// webhookConfig is a webhook scout's configuration on the desktop.
type webhookConfig struct {
	HookURL string `json:"hook_url"`
}

// newHookToken returns a webhook token and its hash (what the relay keeps).
func newHookToken() (token, hash string) {
	b := make([]byte, 32)
	rand.Read(b)
	token = "whk_" + base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(token))
	return token, hex.EncodeToString(sum[:])
}

// queueRelayOp puts a configuration operation in the outbox and nudges
// the link. It survives restarts and offline periods; the relay applies
// each key once.
func (c *Core) queueRelayOp(ctx context.Context, action string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if err := c.DB.AddOutbox(ctx, scouts.NewID("op"), action, b); err != nil {
		return err
	}
	c.Bus.Publish(scouts.Event{Type: EventRelayState, Data: c.RelayStatus(ctx)})
	c.SyncRelay()
	return nil
}
