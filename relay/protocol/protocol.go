// Package protocol is the wire protocol between the relay and desktop
// agents: JSON frames over a WebSocket. Both sides import it; it depends on
// the standard library only, and its types are wire types — each side
// converts them to its own domain types at the edge.
//
// Every frame is an envelope
//
//	{"v":1,"type":"scout_proposal","id":"…","seq":42,"data":{…}}
//
// where data's shape depends on type. Decoding ignores unknown fields and
// unknown frame types can be skipped, so an old desktop keeps working with
// a newer relay; golden files in testdata/ pin the encoding of every frame.
//
// Changelog of Version (bump only for incompatible changes; adding fields
// or frame types is compatible):
//
//	1 (2026-11-22): first version.
package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Version is the protocol version this package speaks.
const Version = 1

// MaxFrameBytes bounds a frame read from a peer. The largest legitimate
// frame is a proposal carrying a sealed 64 KiB webhook payload (base64).
const MaxFrameBytes = 256 << 10

// Frame types. Relay → desktop: welcome, scout_proposal,
// scout_proposal_expired, scout_status, mailbox_changed, config_result,
// ping, pong, error. Desktop → relay: hello, scout_proposal_ack,
// scout_register, scout_update, scout_disable, ping, pong.
const (
	TypeHello           = "hello"
	TypeWelcome         = "welcome"
	TypeProposal        = "scout_proposal"
	TypeProposalAck     = "scout_proposal_ack"
	TypeProposalExpired = "scout_proposal_expired"
	TypePing            = "ping"
	TypePong            = "pong"
	TypeScoutStatus     = "scout_status"
	TypeMailboxChanged  = "mailbox_changed"
	TypeError           = "error"
	TypeScoutRegister   = "scout_register"
	TypeScoutUpdate     = "scout_update"
	TypeScoutDisable    = "scout_disable"
	TypeConfigResult    = "config_result"
)

// Frame is the envelope of every message.
type Frame struct {
	V    int    `json:"v"`
	Type string `json:"type"`
	// ID identifies a request (a config operation, its idempotency key) and
	// is echoed by its answer; empty for other frames.
	ID string `json:"id,omitempty"`
	// Seq is the per-user sequence number of a proposal (and of an expiry).
	Seq  int64           `json:"seq,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`
}

// Encode builds a frame around data.
func Encode(typ, id string, seq int64, data any) ([]byte, error) {
	f := Frame{V: Version, Type: typ, ID: id, Seq: seq}
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			return nil, fmt.Errorf("protocol: encode %s: %w", typ, err)
		}
		f.Data = b
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("protocol: encode %s: %w", typ, err)
	}
	return b, nil
}

// Decode parses a frame's envelope. It checks the version and that a type
// is present; the caller decodes Data with DecodeData according to Type.
func Decode(b []byte) (Frame, error) {
	var f Frame
	if len(b) > MaxFrameBytes {
		return f, &Error{Code: CodeFrameTooLarge, Message: fmt.Sprintf("frame of %d bytes exceeds %d", len(b), MaxFrameBytes)}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, &Error{Code: CodeBadFrame, Message: "frame is not valid JSON: " + err.Error()}
	}
	if f.Type == "" {
		return f, &Error{Code: CodeBadFrame, Message: "frame has no type"}
	}
	if f.V != Version {
		return f, &Error{Code: CodeUnsupportedVersion, Message: fmt.Sprintf("frame version %d is not supported (want %d)", f.V, Version)}
	}
	return f, nil
}

// DecodeData parses a frame's data into v.
func (f Frame) DecodeData(v any) error {
	if len(f.Data) == 0 {
		return &Error{Code: CodeBadFrame, Message: f.Type + " frame has no data"}
	}
	if err := json.Unmarshal(f.Data, v); err != nil {
		return &Error{Code: CodeBadFrame, Message: f.Type + " data: " + err.Error()}
	}
	return nil
}

// Hello opens a session (desktop → relay).
type Hello struct {
	// Token is the device token printed by `scouts-relay device add`.
	Token    string `json:"token"`
	Protocol int    `json:"protocol"`
	// LastAckedSeq is the highest proposal sequence the desktop has
	// committed; delivery resumes after it.
	LastAckedSeq int64 `json:"last_acked_seq"`
	// PublicKey is the device's X25519 public key (32 bytes), to which the
	// relay seals content it must not keep in the clear.
	PublicKey []byte `json:"public_key"`
	// Client names the desktop build, for logs ("scouts/v0.3.0").
	Client string `json:"client,omitempty"`
	// Seal lists the sealing formats the device opens besides NaCl's
	// anonymous sealed box, which every device opens. The relay seals a
	// webhook item for a device in a listed format it knows (SealBatchV1)
	// and in the anonymous box otherwise.
	Seal []string `json:"seal,omitempty"`
}

// SealBatchV1 is the sealed-box format whose ephemeral key serves a bounded
// batch of items for one device (see relay/sealbox): the relay's one
// multiplication per batch instead of two per item.
const SealBatchV1 = "batch-v1"

// Welcome accepts a session (relay → desktop).
type Welcome struct {
	DeviceID  string `json:"device_id"`
	UserEmail string `json:"user_email"`
	Protocol  int    `json:"protocol"`
	// ResumeAfter is the sequence after which proposals follow.
	ResumeAfter int64 `json:"resume_after"`
	// Window is how many proposals may be unacknowledged at once.
	Window int `json:"window"`
	// HeartbeatSeconds is how often the relay pings; a peer silent for
	// three times this long is dead.
	HeartbeatSeconds int       `json:"heartbeat_seconds"`
	ServerTime       time.Time `json:"server_time"`
}

// Proposal is one queued verdict (relay → desktop): "this item from this
// scout deserves a suggestion". The relay stores only the content-free
// fields; Subject, Sender and Snippet are fetched from the source at
// delivery time and Sealed is content only the device can open.
type Proposal struct {
	ID         string `json:"id"`
	ScoutID    string `json:"scout_id"`
	SourceType string `json:"source_type"`
	SourceRef  string `json:"source_ref"`
	Verdict    string `json:"verdict"`
	Reason     string `json:"reason,omitempty"`
	// Path names the triage step that decided ("rule:vip",
	// "heuristic:list", "model:…", "default").
	Path      string    `json:"path,omitempty"`
	Category  string    `json:"category,omitempty"`
	TriagedAt time.Time `json:"triaged_at"`
	ExpiresAt time.Time `json:"expires_at"`
	Subject   string    `json:"subject,omitempty"`
	Sender    string    `json:"sender,omitempty"`
	Snippet   string    `json:"snippet,omitempty"`
	// Sealed holds a JSON WebhookPayload sealed to this device's public key
	// (X25519, XSalsa20-Poly1305): a NaCl anonymous sealed box, or a
	// SealBatchV1 payload when the device's hello listed that format.
	Sealed []byte `json:"sealed,omitempty"`
}

// WebhookPayload is what a webhook item carries, inside Proposal.Sealed.
type WebhookPayload struct {
	Title string `json:"title"`
	Body  string `json:"body,omitempty"`
	URL   string `json:"url,omitempty"`
}

// ProposalAck acknowledges proposals the desktop has committed (desktop →
// relay). Several may be acknowledged in one frame.
type ProposalAck struct {
	Seqs []int64 `json:"seqs"`
}

// ProposalExpired tells the desktop a proposal expired on the relay before
// it was acknowledged; the desktop shows its suggestion as expired.
type ProposalExpired struct {
	ID         string    `json:"id"`
	ScoutID    string    `json:"scout_id"`
	SourceType string    `json:"source_type"`
	SourceRef  string    `json:"source_ref"`
	ExpiredAt  time.Time `json:"expired_at"`
}

// Ping and Pong keep the connection alive and measure it; T is the
// sender's clock in Unix milliseconds, echoed by the pong.
type Ping struct {
	T int64 `json:"t"`
}

// Pong answers a Ping.
type Pong = Ping

// Scout states in ScoutStatus.
const (
	ScoutOK          = "ok"
	ScoutError       = "error"
	ScoutPaused      = "paused"
	ScoutAuthExpired = "auth_expired"
	ScoutDisabled    = "disabled"
)

// ScoutStatus reports a cloud scout's health (relay → desktop), e.g.
// "Gmail authorisation expired — reconnect".
type ScoutStatus struct {
	ScoutID string `json:"scout_id"`
	State   string `json:"state"`
	Message string `json:"message"`
	// Action names what the user can do about it ("reconnect").
	Action string    `json:"action,omitempty"`
	At     time.Time `json:"at"`
}

// MailboxChanged is relay-ping mode's hint (relay → desktop): the mailbox
// changed; the desktop fetches and triages itself.
type MailboxChanged struct {
	ScoutID   string `json:"scout_id"`
	Email     string `json:"email"`
	HistoryID string `json:"history_id"`
}

// ScoutConfig is the body of scout_register and scout_update (desktop →
// relay). The frame's ID is the operation's idempotency key: the relay
// applies each operation once and answers a replay with the first result.
type ScoutConfig struct {
	ScoutID string `json:"scout_id"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	// HookTokenHash is the hex SHA-256 of a webhook scout's token: the
	// desktop makes the token and shows it once; the relay never sees it.
	HookTokenHash string `json:"hook_token_hash,omitempty"`
	// Gmail scouts: the mailbox, the mode (ModeRelayTriage or
	// ModeRelayPing), spam handling, the inactivity pause in days (0: the
	// relay's default), the user's rules, and in relay-triage mode the
	// OAuth refresh token (stored encrypted; omitted on an update that
	// keeps the current one).
	Email               string       `json:"email,omitempty"`
	Mode                string       `json:"mode,omitempty"`
	AutoTrashSpam       bool         `json:"auto_trash_spam,omitempty"`
	InactivityPauseDays int          `json:"inactivity_pause_days,omitempty"`
	RefreshToken        string       `json:"refresh_token,omitempty"`
	Rules               []TriageRule `json:"rules,omitempty"`
	// BaselineHistoryID and CreatedAt are where a Gmail scout starts: the
	// mailbox's history id (decimal, as Gmail writes it) when the desktop
	// created the scout, or the desktop's own place if it read the mailbox
	// before, and when the scout was created. The relay starts there, not
	// where the mailbox is when the registration reaches it (the relay
	// may have been down meanwhile); without a history id it reads the
	// mail received after CreatedAt. Both are ignored once the relay has a
	// place of its own, and absent from older desktops.
	BaselineHistoryID string    `json:"baseline_history_id,omitempty"`
	CreatedAt         time.Time `json:"created_at,omitzero"`
	// ModelDayTokens and ModelRunTokens are the scout's own model token
	// caps (0: the relay's --llm-daily-tokens alone), which can only lower
	// the relay's; absent from older desktops.
	ModelDayTokens int `json:"model_day_tokens,omitempty"`
	ModelRunTokens int `json:"model_run_tokens,omitempty"`
}

// Gmail scout modes.
const (
	ModeRelayTriage = "relay-triage"
	ModeRelayPing   = "relay-ping"
)

// TriageRule is a user's allow/deny rule for a Gmail scout; the first rule
// that matches decides. Action is "allow", "deny" or "ignore".
type TriageRule struct {
	ID           string   `json:"id"`
	Action       string   `json:"action"`
	Senders      []string `json:"senders,omitempty"`
	Domains      []string `json:"domains,omitempty"`
	ListIDs      []string `json:"list_ids,omitempty"`
	SubjectWords []string `json:"subject_words,omitempty"`
}

// ScoutDisable is the body of scout_disable (desktop → relay).
type ScoutDisable struct {
	ScoutID string `json:"scout_id"`
}

// ConfigResult answers a configuration operation (relay → desktop); the
// frame's ID is the operation's.
type ConfigResult struct {
	OK      bool   `json:"ok"`
	ScoutID string `json:"scout_id"`
	// HookURL is where a webhook scout receives items.
	HookURL string `json:"hook_url,omitempty"`
	// PushTopic is the Pub/Sub topic ("projects/P/topics/T") a relay-ping
	// Gmail scout's desktop names when it sets up the mailbox's watch.
	PushTopic string `json:"push_topic,omitempty"`
	Error     *Error `json:"error,omitempty"`
}

// Error codes: stable numbers, grouped by hundreds.
const (
	CodeBadFrame           = 1000 // not JSON, missing fields
	CodeUnknownType        = 1001 // a frame type this peer does not know (not fatal)
	CodeFrameTooLarge      = 1002
	CodeRateLimited        = 1003
	CodeUnsupportedVersion = 1004
	CodeHelloRequired      = 1005 // the first frame must be hello
	CodeUnauthorized       = 2000 // unknown device token
	CodeDeviceRevoked      = 2001
	CodeScoutNotFound      = 3000
	CodeScoutForbidden     = 3001 // the scout belongs to another user
	CodeInvalidConfig      = 3002
	CodeInternal           = 5000
)

// Error is the data of an error frame, and the error type of this package.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	// Fatal errors are followed by the relay closing the connection.
	Fatal bool `json:"fatal,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("protocol error %d: %s", e.Code, e.Message) }

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// WebSocket close codes used by the relay beyond the standard ones.
const (
	// CloseRevoked: the device was revoked; do not reconnect.
	CloseRevoked = 4001
	// CloseUnauthorized: the token is not valid; do not reconnect.
	CloseUnauthorized = 4000
	// CloseGoingAway: the relay shuts down; reconnect (to another
	// instance) right away.
	CloseGoingAway = 1001
)
