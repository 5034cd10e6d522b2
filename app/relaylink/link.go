// Package relaylink is the desktop's link to its relay: it connects to the
// relay the agent's flags name or the one the user logged in to, keeps the
// connection's state for the user to see, turns what the relay delivers
// into cards, sends the outbox of scout configurations and keeps the
// relay's word on the scouts it runs.
//
// It implements relay/client.Handler and sees the rest of the desktop only
// through Host (what the core does for it: its scouts, the engine, the
// kinds' relay hooks) and Store (where it keeps its own state: the login,
// the cursor, the outbox), so that it imports neither app/core nor
// app/localdb.
package relaylink

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

// Host is the desktop as the link sees it; app/core implements it.
type Host interface {
	// Scout returns one of the desktop's scouts; ENotFound when it has
	// none by that id (deleted here: what the relay says of it is
	// dropped).
	Scout(ctx context.Context, id string) (scouts.Scout, error)
	// ItemName is the name the scout's kind gives an item the relay
	// proposed (sourceType is the proposal's): the proposal's id, or its
	// source ref when that names the item itself (a Gmail message, so that
	// the same mail triaged twice is one card).
	ItemName(sourceType, proposalID, sourceRef string) string
	// FillItem adds to a relay proposal's item (ref.Meta is set) what the
	// scout's kind reads in it: a webhook's opened content, a mail's link
	// and lane.
	FillItem(it client.Item, ref *scouts.ItemRef)
	// Ingest makes cards of items that arrived for s through the engine,
	// idempotently (an item it already has is skipped), and returns how
	// many were new.
	Ingest(ctx context.Context, s scouts.Scout, items []scouts.ItemRef) (int, error)
	// Expire expires the card of one of s's items through the engine,
	// with summary as the audit's; an item never received is first made a
	// card from missing, so that something lost to time shows.
	Expire(ctx context.Context, s scouts.Scout, missing scouts.ItemRef, summary string) error
	// RecordHealth records news of a scout the relay runs or receives for
	// its health display: n items found, err what is wrong (nil: well).
	RecordHealth(ctx context.Context, scoutID string, n int, err error)
	// AuditScoutStatus records news about a scout as a whole in the
	// audit log (the relay's word on it, with actor "relay").
	AuditScoutStatus(ctx context.Context, scoutID, actor, state, message string)
	// PendingOps returns the outbox's operations for the relay, oldest
	// first, completed for sending by their scout's kind (with what must
	// not wait in the outbox in clear); one that cannot be completed now
	// stays in the outbox, left out, and its scout says why.
	PendingOps(ctx context.Context) ([]client.Op, error)
	// RecordRelayAnswer writes what the relay answered to a scout's
	// accepted configuration (a webhook's address, a push topic) into the
	// scout as it is now, ordered with the person's own changes to it: a
	// copy read before a change made meanwhile would undo that change.
	RecordRelayAnswer(ctx context.Context, res protocol.ConfigResult)
	// Online is called when the link comes online: each kind makes up for
	// what the relay does not keep for an absent desktop.
	Online()
	// MailboxChanged is relay-ping mode's hint: sync that Gmail scout now.
	MailboxChanged(scoutID string)
}

// Store is where the link keeps its own state in the desktop's database:
// settings (the relay logged in to, the account the cursor counts for,
// the relay's word on each scout), the cursor (SyncSeq under seqKey) and
// the outbox of configuration operations. The desktop's database
// (app/localdb) satisfies it as it is.
type Store interface {
	Setting(ctx context.Context, key string) (value string, ok bool, err error)
	SetSetting(ctx context.Context, key, value string) error
	DeleteSetting(ctx context.Context, key string) error
	// SyncSeq reads a cursor (0 when none); AdvanceSyncSeq moves it
	// forward only; ResetSyncSeq forgets it.
	SyncSeq(ctx context.Context, key string) (int64, error)
	AdvanceSyncSeq(ctx context.Context, key string, seq int64) error
	ResetSyncSeq(ctx context.Context, key string) error
	// AddOutbox queues an operation under its idempotency key;
	// FinishOutbox records the relay's answer to it; OutboxCounts counts
	// operations by status ("pending", "done", "failed").
	AddOutbox(ctx context.Context, key, action string, params []byte) error
	FinishOutbox(ctx context.Context, key string, failed bool, errText string, result []byte) error
	OutboxCounts(ctx context.Context) (map[string]int, error)
}

// Keyring keeps the device token of the relay the user logged in to (the
// agent's is the OS keyring, app/secrets). Its errors carry scouts codes:
// ENotFound when no token is stored, EUnavailable when the keyring cannot
// be used, with a message saying what to do.
type Keyring interface {
	RelayToken(ctx context.Context) (string, error)
	SetRelayToken(ctx context.Context, token string) error
	DeleteRelayToken(ctx context.Context) error
}

// Config configures a Link.
type Config struct {
	Host  Host
	Store Store
	// Bus is the live stream the link publishes its state on
	// (EventState), beside the engine's events.
	Bus    *bus.Bus
	Logger *slog.Logger
	Now    func() time.Time
	// Version is the agent's, sent to the relay ("scouts/VERSION").
	Version string
	// URL and Token are the agent's --relay and --device-token-file: the
	// relay for the whole run. Without them the link connects to the
	// relay the user logged in to (Login), if any.
	URL   string
	Token string
	// Keyring keeps a logged-in relay's device token; nil: logging in is
	// not possible.
	Keyring Keyring
}

// EventState is published when the relay connection changes state; its
// data is a Status.
const EventState = "relay.state"

// Status is the relay connection as the user sees it.
type Status struct {
	Configured bool
	// Source is where the relay comes from: SourceFlags or SourceLogin;
	// empty without a relay.
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
	// SourceFlags: --relay and --device-token-file, fixed for the run.
	SourceFlags = "flags"
	// SourceLogin: scouts relay login (the URL in the settings, the
	// token in the keyring).
	SourceLogin = "login"
	// StateNone is the state of a desktop without a relay.
	StateNone = "none"
)

// seqKey is the cursor's key in the Store: the highest sequence committed.
const seqKey = "relay_seq"

// Link is the desktop's relay link. Logging in or out replaces its
// connection; a replaced connection's last words are no news. Its methods
// are safe for concurrent use.
type Link struct {
	cfg  Config
	host Host
	db   Store
	log  *slog.Logger

	mu     sync.Mutex
	conn   *conn           // nil without a relay
	runCtx context.Context // Start's, for connections made later
	closed bool
	wg     sync.WaitGroup

	loginMu sync.Mutex // one login or logout at a time
	health  sync.Map   // scout id → error the relay last reported (nil: ok)
}

// New makes a link; Start connects it.
func New(cfg Config) *Link {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Link{cfg: cfg, host: cfg.Host, db: cfg.Store, log: cfg.Logger}
}

// Start connects to the relay the flags name, else to the one the user
// logged in to; the connection lives until ctx ends or Close. Bad flags
// are an error; a login that cannot be read is logged (logging in again
// mends it).
func (l *Link) Start(ctx context.Context) error {
	l.mu.Lock()
	l.runCtx = ctx
	l.mu.Unlock()
	if l.cfg.URL != "" {
		tok := l.cfg.Token
		// Checked here so that bad flags stop the agent at start.
		if _, err := client.New(client.Config{URL: l.cfg.URL, Token: tok}); err != nil {
			return scouts.Errorf(scouts.EInvalid, "relay: %v", err)
		}
		l.connect(l.cfg.URL, SourceFlags, client.Identity{}, func(context.Context) (string, error) { return tok, nil })
		return nil
	}
	saved, err := l.savedRelay(ctx)
	if err != nil {
		l.log.Error("relay: cannot read the relay logged in to; log in again", "err", err)
		return nil
	}
	if saved.URL != "" {
		l.connect(saved.URL, SourceLogin, client.Identity{}, l.keyringToken)
	}
	return nil
}

// Close disconnects and waits until every connection has stopped: nothing
// received can move the cursor afterwards, and none is made again.
func (l *Link) Close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.disconnect()
	l.wg.Wait()
}

// connect makes a connection to url the link's and runs it.
func (l *Link) connect(url, source string, id client.Identity, token func(context.Context) (string, error)) *conn {
	c := &conn{l: l, url: url, source: source, token: token, done: make(chan struct{}),
		kick: make(chan struct{}, 1), settled: make(chan struct{}),
		state: client.State{State: client.StateConnecting, Since: l.cfg.Now(), DeviceID: id.DeviceID, UserEmail: id.UserEmail}}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		close(c.done)
		close(c.settled)
		return c
	}
	ctx, cancel := context.WithCancel(l.runCtx)
	c.cancel = cancel
	l.conn = c
	l.wg.Add(1)
	l.mu.Unlock()
	go func() {
		defer l.wg.Done()
		c.run(ctx)
	}()
	l.publish(ctx)
	return c
}

// disconnect stops the current connection, if any, and waits until it has
// stopped.
func (l *Link) disconnect() {
	l.mu.Lock()
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		c.cancel()
		<-c.done
	}
}

func (l *Link) current() *conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conn
}

// URL is the relay the desktop is linked to; "" without one.
func (l *Link) URL() string {
	if c := l.current(); c != nil {
		return c.url
	}
	return ""
}

// Status reports the relay connection.
func (l *Link) Status(ctx context.Context) Status {
	c := l.current()
	if c == nil {
		return Status{State: StateNone}
	}
	return c.status(ctx)
}

// publish announces the current status on the bus.
func (l *Link) publish(ctx context.Context) {
	l.cfg.Bus.Publish(scouts.Event{Type: EventState, Data: l.Status(ctx)})
}

// Sync asks the link to reconnect now or flush its outbox (or, while the
// keyring cannot be read, to try it again now).
func (l *Link) Sync() {
	if c := l.current(); c != nil {
		c.sync()
	}
}

// Queue puts a configuration operation in the outbox and nudges the link.
// It survives restarts and offline periods; the relay applies each key
// once.
func (l *Link) Queue(ctx context.Context, action string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if err := l.db.AddOutbox(ctx, scouts.NewID("op"), action, b); err != nil {
		return err
	}
	l.publish(ctx)
	l.Sync()
	return nil
}
