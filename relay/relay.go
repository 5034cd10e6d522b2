// Package relay holds the relay's domain: users, their devices, their
// cloud scouts and the queue of verdicts waiting for their desktops. The
// relay never holds content: a queue item is a reference, a verdict and a
// short reason; webhook content exists only sealed to the user's devices.
//
// Subpackages: protocol (the wire protocol, shared with desktops), relaydb
// (storage: SQLite or PostgreSQL), service (what a webhook item, a push, a
// device's frames and a scout's configuration mean), server (the
// transport: HTTP, WebSocket, limits), client (the desktop's side of the
// connection), cli (the scouts-relay command).
package relay

import "time"

// User is an account; its devices and scouts belong to it alone.
type User struct {
	ID        string
	Email     string
	CreatedAt time.Time
}

// Device is one desktop of a user, authenticated by a token of which the
// relay keeps only a hash.
type Device struct {
	ID        string
	UserID    string
	UserEmail string
	Name      string
	PublicKey []byte // X25519, registered on first connection
	// Seal is the sealing format the device last said it opens besides
	// the anonymous sealed box ("" = that box only).
	Seal       string
	CreatedAt  time.Time
	LastSeenAt time.Time
	RevokedAt  time.Time
	AckedSeq   int64
}

// SealTarget is what sealing an item for one device needs.
type SealTarget struct {
	PublicKey []byte
	Seal      string // as Device.Seal
}

// Revoked reports whether the device has been cut off.
func (d Device) Revoked() bool { return !d.RevokedAt.IsZero() }

// Scout kinds the relay runs.
const (
	KindWebhook = "webhook"
	KindGmail   = "gmail"
)

// CloudScout is a scout whose source the relay watches for a user.
type CloudScout struct {
	ID            string
	UserID        string
	Kind          string
	Name          string
	Mode          string
	Enabled       bool
	HookTokenHash string
	CreatedAt     time.Time
	UpdatedAt     time.Time

	// Gmail scouts.
	Gmail *GmailScout
}

// Gmail modes (SPEC §5): in relay-triage mode the relay holds the
// account's refresh token (encrypted) and triages; in relay-ping mode it
// holds none and only tells the desktop the mailbox changed.
const (
	ModeRelayTriage = "relay-triage"
	ModeRelayPing   = "relay-ping"
)

// GmailScout is what the relay keeps for a Gmail scout: never content.
type GmailScout struct {
	Email string
	// TokenSealed is the OAuth refresh token, AES-256-GCM sealed under a
	// key named inside the blob (see relay/tokenseal); relay-ping scouts
	// have none.
	TokenSealed         []byte
	AutoTrashSpam       bool
	InactivityPauseDays int
	// Rules are the user's allow/deny rules, as JSON (triage.Rule list).
	Rules string
	// Cursor is the Gmail history id synced up to (0: not yet).
	Cursor uint64
	// Baseline and CreatedAt, on a configuration from a desktop, are where
	// the desktop says the scout starts (see protocol.ScoutConfig): they
	// stand in for the cursor and the creation time until the relay has
	// a place of its own.
	Baseline     uint64
	CreatedAt    time.Time
	LastSyncAt   time.Time
	WatchExpires time.Time
	// State and StateMessage are the health the desktop is told about
	// (protocol.ScoutOK, ScoutError, ScoutPaused, ScoutAuthExpired).
	State        string
	StateMessage string
	// ModelDayTokens and ModelRunTokens are the scout's own model caps
	// (0: none of its own); the relay's hard cap bounds them.
	ModelDayTokens int
	ModelRunTokens int
}

// PushHint is a persisted Gmail push notification.
type PushHint struct {
	ID         int64
	Email      string
	HistoryID  uint64
	ReceivedAt time.Time
}

// Queue statuses: queued → delivered (sent to a device) → acked (a device
// committed it); rows not acked in time expire, and devices are told.
const (
	StatusQueued    = "queued"
	StatusDelivered = "delivered"
	StatusAcked     = "acked"
	StatusExpired   = "expired"
)

// QueueTTL is how long a row waits for a device to acknowledge it.
const QueueTTL = 30 * 24 * time.Hour

// QueueItem is one verdict waiting for (or delivered to) a user's desktops.
type QueueItem struct {
	ID          string
	UserID      string
	ScoutID     string
	SourceType  string
	SourceRef   string
	Verdict     string
	Reason      string
	Path        string
	Status      string
	Seq         int64
	TriagedAt   time.Time
	DeliveredAt time.Time
	AckedAt     time.Time
	ExpiresAt   time.Time
	// Sealed is the content sealed to the device the item is read for;
	// empty when there is none (or none for that device).
	Sealed []byte
}
