// Package client is the desktop's side of the relay connection: it dials
// the relay, resumes after the last committed proposal, hands proposals to
// the desktop in batches and acknowledges them once committed, replays the
// outbox of configuration operations, and reconnects with backoff.
package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/relay/protocol"
)

// Item is a proposal or an expiry notice from the relay.
type Item struct {
	Seq      int64
	Proposal *protocol.Proposal
	// Payload is the opened webhook content, when the proposal had some
	// for this device.
	Payload *protocol.WebhookPayload
	// OpenError says why Sealed could not be opened (it is then nil).
	OpenError error
	Expired   *protocol.ProposalExpired
}

// Op is a configuration operation waiting in the desktop's outbox.
type Op struct {
	// Key is the operation's idempotency key, sent as the frame id.
	Key  string
	Type string // scout_register, scout_update, scout_disable
	Data any    // protocol.ScoutConfig or protocol.ScoutDisable
}

// Handler is what the desktop provides to the client.
type Handler interface {
	// LastAcked is the highest sequence the desktop has committed.
	LastAcked(ctx context.Context) (int64, error)
	// Commit stores items durably (idempotently: the same item may come
	// again after a crash) and records the highest sequence; the client
	// acknowledges them after it returns nil.
	Commit(ctx context.Context, items []Item) error
	// PendingOps returns the outbox, oldest first.
	PendingOps(ctx context.Context) ([]Op, error)
	// OpDone records the relay's answer to an operation.
	OpDone(ctx context.Context, key string, res protocol.ConfigResult) error
	// ScoutStatus reports a cloud scout's health.
	ScoutStatus(ctx context.Context, st protocol.ScoutStatus)
	// MailboxChanged is relay-ping mode's hint: sync that Gmail scout now.
	MailboxChanged(ctx context.Context, mc protocol.MailboxChanged)
	// State reports the connection's state.
	State(st State)
}

// Connection states.
const (
	StateConnecting   = "connecting"
	StateOnline       = "online"
	StateOffline      = "offline"      // unreachable; retrying
	StateUnauthorized = "unauthorized" // the token is not known; not retrying
	StateRevoked      = "revoked"      // the device was revoked; not retrying
)

// State is the connection's state.
type State struct {
	State     string
	Error     string
	Since     time.Time
	NextRetry time.Time
	DeviceID  string
	UserEmail string
}

// Config configures a Client.
type Config struct {
	// URL is the relay's base URL (https://relay.example.com).
	URL     string
	Token   string
	Handler Handler
	Logger  *slog.Logger
	// ClientName is sent in hello ("scouts/v0.1.0").
	ClientName string
	// MinBackoff and MaxBackoff bound reconnection delays (defaults 500 ms
	// and 30 s; each delay is drawn at random up to the current bound).
	MinBackoff, MaxBackoff time.Duration
	// MaxBatch bounds how many proposals are committed and acknowledged
	// together while draining a backlog. Default 256.
	MaxBatch int
}

// Client maintains the connection.
type Client struct {
	cfg  Config
	keys Keys
	log  *slog.Logger
	kick chan struct{}

	mu   sync.Mutex
	opCh chan struct{} // set while a session runs: new outbox entries
}

// New returns a client; Run connects.
func New(cfg Config) (*Client, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 256
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: relay URL %q must be http(s)://host", cfg.URL)
	}
	if cfg.Token == "" {
		return nil, errors.New("client: a device token is required")
	}
	keys, err := DeviceKeys(cfg.Token)
	if err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, keys: keys, log: cfg.Logger, kick: make(chan struct{}, 1)}, nil
}

// Kick asks the client to reconnect now if it is waiting to retry, and to
// send the outbox if it is connected.
func (c *Client) Kick() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
	c.mu.Lock()
	ch := c.opCh
	c.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// errStop marks errors after which reconnecting is pointless.
type errStop struct {
	state string
	msg   string
}

func (e *errStop) Error() string { return e.msg }

// Run keeps the connection up until ctx ends. It returns nil when ctx
// ends, or an error when the relay refused the device for good (unknown
// token, revoked device).
func (c *Client) Run(ctx context.Context) error {
	bound := c.cfg.MinBackoff
	for {
		c.cfg.Handler.State(State{State: StateConnecting, Since: time.Now()})
		started := time.Now()
		err := c.session(ctx)
		if ctx.Err() != nil {
			c.cfg.Handler.State(State{State: StateOffline, Error: "agent stopping", Since: time.Now()})
			return nil
		}
		var stop *errStop
		if errors.As(err, &stop) {
			c.cfg.Handler.State(State{State: stop.state, Error: stop.msg, Since: time.Now()})
			return err
		}
		if time.Since(started) > time.Minute {
			bound = c.cfg.MinBackoff // it was a working connection: retry fast
		}
		delay := time.Duration(rand.Int64N(int64(bound))) + c.cfg.MinBackoff/2
		bound = min(bound*2, c.cfg.MaxBackoff)
		msg := "disconnected"
		if err != nil {
			msg = err.Error()
		}
		c.log.Info("relay connection lost; retrying", "err", err, "in", delay.Round(time.Millisecond).String())
		c.cfg.Handler.State(State{State: StateOffline, Error: msg, Since: time.Now(), NextRetry: time.Now().Add(delay)})
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-c.kick:
			t.Stop()
		case <-t.C:
		}
	}
}

func (c *Client) wsURL() string {
	u := strings.TrimSuffix(c.cfg.URL, "/")
	u = "ws" + strings.TrimPrefix(u, "http")
	return u + "/api/v1/device"
}
