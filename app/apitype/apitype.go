// Package apitype holds the JSON types of the agent's local API (/api/v1),
// shared by the server, its Go client and the CLI. Standard library only:
// these types are the contract, separate from the domain types they are
// converted from. Adding a field is compatible; renaming or removing one
// needs /api/v2.
package apitype

import (
	"encoding/json"
	"time"
)

// APIVersion is the version in every path (/api/v1/...).
const APIVersion = 1

// Error is the body of every non-2xx answer.
type Error struct {
	// Code is stable: invalid, not_found, conflict, unavailable, internal,
	// unauthorized, forbidden.
	Code  string `json:"code"`
	Error string `json:"error"`
}

// Status is GET /api/v1/status.
type Status struct {
	Version       string    `json:"version"`
	StartedAt     time.Time `json:"started_at"`
	DataDir       string    `json:"data_dir"`
	ScoutsRunning int       `json:"scouts_running"`
	ScoutsTotal   int       `json:"scouts_total"`
	Paused        bool      `json:"paused"`
	// Pending counts the cards waiting in the inbox (Lanes has every lane;
	// Suggestions["pending"] counts all pending cards).
	Pending     int            `json:"pending"`
	Suggestions map[string]int `json:"suggestions"` // count by status
	// Lanes counts pending cards per lane: inbox, screened, spam, snoozed.
	Lanes    map[string]int `json:"lanes"`
	Entities map[string]int `json:"entities"` // count by kind
	// ModelBudget lists the scouts whose model budget is spent today: they
	// use rules and their learner only until it resets.
	ModelBudget []SpentBudget `json:"model_budget,omitempty"`
	// Relay is the relay connection; absent when the desktop runs alone.
	Relay *RelayStatus `json:"relay,omitempty"`
	// FailingActions counts the cards' actions that failed or wait to
	// retry after a failure (each can be retried or dropped on its card).
	FailingActions int `json:"failing_actions"`
	// Alarms counts the open alarms (raised, not yet acknowledged).
	Alarms int `json:"alarms"`
}

// RelayStatus is the desktop's connection to its relay (GET /api/v1/relay,
// the status's relay, relay.state events).
type RelayStatus struct {
	URL string `json:"url"`
	// Source: "login" (scouts relay login or Settings → Relay: the URL in
	// the settings, the token in the keyring) or "flags" (--relay and
	// --device-token-file, which login and logout cannot change).
	Source string `json:"source,omitempty"`
	// State: connecting, online, offline (retrying), unauthorized or
	// revoked (not retrying: the device token must be replaced); none
	// when the desktop has no relay (logged out).
	State     string     `json:"state"`
	Error     string     `json:"error,omitempty"`
	Since     time.Time  `json:"since"`
	NextRetry *time.Time `json:"next_retry,omitempty"`
	DeviceID  string     `json:"device_id,omitempty"`
	UserEmail string     `json:"user_email,omitempty"`
	// Outbox counts operations waiting to reach the relay.
	Outbox int `json:"outbox"`
	// LastSeq is the last relay proposal committed on this desktop.
	LastSeq int64 `json:"last_seq"`
}

// RelayLogin is PUT /api/v1/relay: log in to a relay with a device token
// (from scouts-relay device add). The token goes to the keyring, never to
// the database, the logs or an answer.
type RelayLogin struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// RelayLogout is the answer to DELETE /api/v1/relay.
type RelayLogout struct {
	// URL is the relay logged out of; empty when there was none.
	URL string `json:"url,omitempty"`
	// TokenDeleted: a device token was in the keyring and is gone.
	TokenDeleted bool `json:"token_deleted"`
}

// Keyring is GET /api/v1/keyring and the answer to POST
// /api/v1/keyring/file: where the agent keeps its tokens.
type Keyring struct {
	// Backend: secret-service, keychain, wincred or file; empty when no
	// keyring can be used (Error says why).
	Backend string `json:"backend,omitempty"`
	Error   string `json:"error,omitempty"`
	// PassphraseFile is the file keyring's passphrase file, when the agent
	// reads it there (not from the environment).
	PassphraseFile string `json:"passphrase_file,omitempty"`
	// Created: POST /api/v1/keyring/file wrote a new passphrase file.
	Created bool `json:"created,omitempty"`
}

// Scout is a scout as the API shows it.
type Scout struct {
	// Held counts the scout's cards held past its pending cap (learning's
	// pending_cap), let in as its cards are decided; HeldMessage says so
	// ("312 held — review the inbox to let them in"; absent when none).
	Held        int    `json:"held,omitempty"`
	HeldMessage string `json:"held_message,omitempty"`
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Enabled     bool   `json:"enabled"`
	// Review: suggestions wait for a person; false: entities are created
	// directly ("auto").
	Review  bool `json:"review"`
	Running bool `json:"running"`
	// Folder scouts: the watched path and its globs (also inside Config).
	Path    string   `json:"path,omitempty"`
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	// Webhook scouts: where to POST items, and (only in the answer that
	// created the scout or rotated its token) the token to post with.
	HookURL   string `json:"hook_url,omitempty"`
	HookToken string `json:"hook_token,omitempty"`
	// Warnings (only in the answer that created the scout) are what the
	// user should know, such as how many files a very large folder holds.
	Warnings  []string        `json:"warnings,omitempty"`
	Config    json.RawMessage `json:"config"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	Health    ScoutHealth     `json:"health"`
	// Schedule and Budget are the scout's run settings (docs/schedules.md).
	Schedule Schedule `json:"schedule"`
	Budget   Budget   `json:"budget"`
	// WriteScope is where its actions may write, each list as in effect
	// (docs/definitions.md, "Write scope").
	WriteScope ScopeInEffect `json:"write_scope"`
}

// WriteScope is a scout's write scope as a definition writes it: a list
// left out is the default, an empty one allows nothing.
type WriteScope struct {
	Folders *[]string `json:"folders,omitempty"`
	Labels  *[]string `json:"labels,omitempty"`
	Hosts   *[]string `json:"hosts,omitempty"`
}

// ScopeInEffect is a scout's write scope as it applies: each list, the
// scout's own or the default.
type ScopeInEffect struct {
	Folders ScopeList `json:"folders"`
	Labels  ScopeList `json:"labels"`
	Hosts   ScopeList `json:"hosts"`
}

// ScopeList is one list of a write scope: its globs, and whether they
// are the default (the scout's definition leaves the list out). A Gmail
// scout's labels also take the label set for Gmail cards in Settings →
// Policies, always allowed.
type ScopeList struct {
	Globs   []string `json:"globs"`
	Default bool     `json:"default"`
}

// ScoutHealth answers "is this scout working?".
type ScoutHealth struct {
	// State: ok, error, disabled, starting (no run yet).
	State         string     `json:"state"`
	LastRunAt     *time.Time `json:"last_run_at,omitempty"`
	LastSuccessAt *time.Time `json:"last_success_at,omitempty"`
	LastError     string     `json:"last_error,omitempty"`
	LastRunNew    int        `json:"last_run_new"`
	TotalNew      int        `json:"total_new"`
	// NextRunAt is the next scheduled run (scouts with a cron schedule).
	NextRunAt *time.Time `json:"next_run_at,omitempty"`
	// Runs in progress now, and whether one more waits behind them.
	ActiveRuns int  `json:"active_runs,omitempty"`
	Queued     bool `json:"queued,omitempty"`
	// ModelBudget is today's model budget (with a model configured).
	ModelBudget *BudgetStatus `json:"model_budget,omitempty"`
	// Watch says what keeps a folder scout's folder, or part of it, from
	// being watched live: a limit of the system, with the sysctl to raise.
	// Its changes are then found by periodic rescans. Empty when watched.
	Watch string `json:"watch,omitempty"`
}

// CreateScout is the body of POST /api/v1/scouts.
type CreateScout struct {
	Kind    string `json:"kind"`
	Name    string `json:"name,omitempty"`
	Review  *bool  `json:"review,omitempty"`  // default true
	Enabled *bool  `json:"enabled,omitempty"` // default true
	// Folder scouts.
	Path            string   `json:"path,omitempty"`
	Include         []string `json:"include,omitempty"`
	Exclude         []string `json:"exclude,omitempty"`
	IncludeExisting bool     `json:"include_existing,omitempty"`
	// Force creates a folder scout over a tree with more files than the
	// agent accepts without confirmation (100 000).
	Force bool `json:"force,omitempty"`
	// Config is the kind-specific configuration; fields above take
	// precedence over the same fields in it.
	Config json.RawMessage `json:"config,omitempty"`
	// Schedule and Budget are the run settings (absent: defaults).
	Schedule *Schedule `json:"schedule,omitempty"`
	Budget   *Budget   `json:"budget,omitempty"`
	// WriteScope is where its actions may write (absent: the default).
	WriteScope *WriteScope `json:"write_scope,omitempty"`
}

// PatchScout is the body of PATCH /api/v1/scouts/{id}; absent fields are
// unchanged.
type PatchScout struct {
	Name    *string   `json:"name,omitempty"`
	Enabled *bool     `json:"enabled,omitempty"`
	Review  *bool     `json:"review,omitempty"`
	Include *[]string `json:"include,omitempty"`
	Exclude *[]string `json:"exclude,omitempty"`
	// Config replaces the kind-specific configuration whole.
	Config json.RawMessage `json:"config,omitempty"`
	// RotateHookToken gives a webhook scout a new token, returned once in
	// hook_token.
	RotateHookToken bool `json:"rotate_hook_token,omitempty"`
	// Schedule and Budget replace the run settings whole.
	Schedule *Schedule `json:"schedule,omitempty"`
	Budget   *Budget   `json:"budget,omitempty"`
	// WriteScope replaces where its actions may write whole ({}: the
	// default).
	WriteScope *WriteScope `json:"write_scope,omitempty"`
}

// Suggestion is a card.
type Suggestion struct {
	ID           string     `json:"id"`
	ScoutID      string     `json:"scout_id"`
	SourceType   string     `json:"source_type"`
	SourceRef    string     `json:"source_ref"`
	Status       string     `json:"status"`
	Title        string     `json:"title"`
	Excerpt      string     `json:"excerpt"`
	Sender       string     `json:"sender,omitempty"`
	Path         string     `json:"path,omitempty"`
	URL          string     `json:"url,omitempty"`
	ProposedKind string     `json:"proposed_kind"`
	Reason       string     `json:"reason"`
	TraceID      string     `json:"trace_id"`
	CreatedAt    time.Time  `json:"created_at"`
	ExpiresAt    time.Time  `json:"expires_at"`
	ResolvedAt   *time.Time `json:"resolved_at,omitempty"`
	ResolvedKind string     `json:"resolved_kind,omitempty"`
	ResolvedID   string     `json:"resolved_entity_id,omitempty"`
	// ExpiredReason says why an expired suggestion expired (its audit).
	ExpiredReason string `json:"expired_reason,omitempty"`
	// Lane is where a pending card waits: inbox, screened or spam.
	Lane string `json:"lane"`
	// Rescued is set when the person brought the card back from a lane
	// below the inbox ("screened" or "spam").
	Rescued    string      `json:"rescued,omitempty"`
	Assessment *Assessment `json:"assessment,omitempty"`
	// SnoozedUntil is when a card in the snoozed lane returns to the
	// inbox; ReturnedAt when a snoozed card came back (it is at the top of
	// the inbox).
	SnoozedUntil *time.Time `json:"snoozed_until,omitempty"`
	ReturnedAt   *time.Time `json:"returned_at,omitempty"`
	// ScreenerOffer is set on the first card from a new sender (list,
	// folder): the screener's keys apply to it (screener.go).
	ScreenerOffer *ScreenerOffer `json:"screener_offer,omitempty"`
	// Screener is set when a screener rule decided the card's lane.
	Screener *ScreenerRule `json:"screener,omitempty"`
	// Plan is the card's plan with each action's mode and state; only in
	// GET /api/v1/suggestions/{id}.
	Plan *Plan `json:"plan,omitempty"`
}

// Assessment is what the engine concluded about an item on arrival: its
// lane and why, the learner's predictions and the fields proposed from its
// content (for the approve preview).
type Assessment struct {
	LaneReason string `json:"lane_reason,omitempty"`
	// Unanswered: it waits in Screened only because its sender kept
	// writing while the person answered none of its mail.
	Unanswered bool `json:"unanswered,omitempty"`
	// Approve and Spam are probabilities, or -1 while the learner cannot
	// tell.
	Approve      float64    `json:"approve"`
	Spam         float64    `json:"spam"`
	LearnedKind  string     `json:"learned_kind,omitempty"`
	LearnedKindP float64    `json:"learned_kind_p,omitempty"`
	CueKind      string     `json:"cue_kind,omitempty"`
	KindFrom     string     `json:"kind_from,omitempty"` // learned, content, source, rule
	Why          []string   `json:"why,omitempty"`
	Due          *time.Time `json:"due,omitempty"`
	StartsAt     *time.Time `json:"starts_at,omitempty"`
	EndsAt       *time.Time `json:"ends_at,omitempty"`
	AllDay       bool       `json:"all_day,omitempty"`
	ProjectID    string     `json:"project_id,omitempty"`
	Learning     string     `json:"learning,omitempty"`
	// RuleID is the scout's rule that decided the card, if one did;
	// SourceTitle the title the source gave when that rule replaced it.
	RuleID      string `json:"rule_id,omitempty"`
	SourceTitle string `json:"source_title,omitempty"`
	// ProposedTitle is the title the categorisation model proposes for
	// the entity when it differs from the card's, which keeps the
	// source's (a mail's subject): the approve preview offers it.
	ProposedTitle string `json:"proposed_title,omitempty"`
}

// Learning is a scout's learner: where it stands and its thresholds
// (GET/PUT /api/v1/scouts/{id}/learning).
type Learning struct {
	ScoutID   string `json:"scout_id"`
	Decisions int    `json:"decisions"`
	Spam      int    `json:"spam_decisions"`
	Ham       int    `json:"ham_decisions"`
	// State says it in words: "learning — 12 of 30 decisions".
	State    string        `json:"state"`
	Trained  bool          `json:"trained"`
	Features int           `json:"features"`
	ResetAt  *time.Time    `json:"reset_at,omitempty"`
	Settings LearnSettings `json:"settings"`
}

// LearnSettings are a scout's learner thresholds.
type LearnSettings struct {
	ColdStart   int     `json:"cold_start"`
	ScreenBelow float64 `json:"screen_below"`
	SpamAbove   float64 `json:"spam_above"`
	MinSpam     int     `json:"min_spam"`
	// SilenceDays is the grace period of implicit feedback (0 = off). A
	// PUT without it keeps the scout's value, so that a client written
	// before it existed does not turn implicit feedback off.
	SilenceDays *int `json:"silence_days,omitempty"`
	// PendingCap is how many pending cards the scout may have waiting
	// before new ones are held (absent on a PUT: kept; 0: the default,
	// 500).
	PendingCap *int `json:"pending_cap,omitempty"`
	// PendingActionsCap is how many pending cards carrying rule actions
	// awaiting approval the scout may have (absent on a PUT: kept; 0: the
	// default, 10).
	PendingActionsCap *int `json:"pending_actions_cap,omitempty"`
	// CooldownSeconds is the anti-flap gate: the same action on the same
	// item with the same params within it is blocked (absent on a PUT:
	// kept; 0: the default, 300). GET says the cooldown in force.
	CooldownSeconds *int `json:"cooldown_seconds,omitempty"`
	// NotifyPerHour is the storm gate: outbound posts (webhook.post) past
	// it in the last hour are blocked (absent on a PUT: kept; 0: the
	// default, 30). GET says the cap in force.
	NotifyPerHour *int `json:"notify_per_hour,omitempty"`
	// QuietStart and QuietEnd are the scout's quiet hours, HH:MM in the
	// desktop's local time, both or neither ("" and "": none); absent on
	// a PUT: kept.
	QuietStart *string `json:"quiet_start,omitempty"`
	QuietEnd   *string `json:"quiet_end,omitempty"`
}

// Approve is the body of POST /api/v1/suggestions/{id}/approve: the kind to
// create and optional edits of the entity's fields.
type Approve struct {
	As        string  `json:"as"`
	Title     *string `json:"title,omitempty"`
	Body      *string `json:"body,omitempty"`
	Due       *string `json:"due,omitempty"` // RFC 3339 or YYYY-MM-DD
	ProjectID *string `json:"project_id,omitempty"`
	StartsAt  *string `json:"starts_at,omitempty"`
	EndsAt    *string `json:"ends_at,omitempty"`
	Location  *string `json:"location,omitempty"`
	// Actions is the plan as the card showed it, each action ticked
	// (enabled) or not; absent: the proposed plan as proposed.
	Actions []ApproveAction `json:"actions,omitempty"`
	// Always is "approve and always allow": the plan's actions that needed
	// this approval are allowed for the scout from now on (a scout
	// override, audited, removable with PUT /api/v1/policies).
	Always bool `json:"always,omitempty"`
	// Gmail is the older way to say whether a Gmail card's email is
	// archived or labelled; it is translated into the plan's gmail.archive
	// and gmail.label (and cannot be combined with Actions).
	Gmail *GmailAction `json:"gmail,omitempty"`
}

// Entity is a task, note, event or project. Kind-specific fields appear
// only on their kind.
type Entity struct {
	ID                 string     `json:"id"`
	Kind               string     `json:"kind"`
	Title              string     `json:"title"`
	Body               string     `json:"body"`
	SourceSuggestionID string     `json:"source_suggestion_id,omitempty"`
	Done               *bool      `json:"done,omitempty"`       // tasks, projects
	Due                *time.Time `json:"due,omitempty"`        // tasks
	ProjectID          string     `json:"project_id,omitempty"` // tasks
	StartsAt           *time.Time `json:"starts_at,omitempty"`  // events
	EndsAt             *time.Time `json:"ends_at,omitempty"`    // events
	Location           string     `json:"location,omitempty"`   // events
	CreatedAt          time.Time  `json:"created_at"`
	UpdatedAt          time.Time  `json:"updated_at"`
	// BodyPending: the item's whole text is still being read into the
	// entity (it has the card's excerpt until then); an entity.updated
	// event follows when it comes.
	BodyPending bool `json:"body_pending,omitempty"`
}

// EntityInput is the body of POST (create) and PATCH (update) on
// /api/v1/{tasks,notes,events,projects}. On PATCH absent fields are
// unchanged and an empty date string clears the date.
type EntityInput struct {
	Title     *string `json:"title,omitempty"`
	Body      *string `json:"body,omitempty"`
	Done      *bool   `json:"done,omitempty"`
	Due       *string `json:"due,omitempty"`
	ProjectID *string `json:"project_id,omitempty"`
	StartsAt  *string `json:"starts_at,omitempty"`
	EndsAt    *string `json:"ends_at,omitempty"`
	Location  *string `json:"location,omitempty"`
}

// AuditEvent is one step of an item's story.
type AuditEvent struct {
	ID      int64             `json:"id"`
	TraceID string            `json:"trace_id"`
	Stage   string            `json:"stage"`
	Type    string            `json:"type"`
	Outcome string            `json:"outcome"`
	Summary string            `json:"summary"`
	Refs    map[string]string `json:"refs"`
	At      time.Time         `json:"at"`
}

// StreamEvent is one event of GET /api/v1/stream (Server-Sent Events: the
// SSE "id" is ID, "event" is Type and "data" is Data).
type StreamEvent struct {
	ID   int64           `json:"id"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// Stream event types beyond the domain's (suggestion.created, …).
const (
	// StreamHello opens every stream; its data is a Status.
	StreamHello = "hello"
	// StreamReset says events were missed (the client resumed from an id
	// older than the server keeps): refetch lists, then carry on.
	StreamReset = "reset"
)

// Content is GET /api/v1/suggestions/{id}/content: the item's text, read
// from its source on demand and never stored.
type Content struct {
	Text        string `json:"text"`
	ContentType string `json:"content_type"`
	Truncated   bool   `json:"truncated"`
	// HTML is a Gmail message's HTML version, sanitised (no scripts,
	// styles, forms, frames or images); empty for other items.
	HTML string `json:"html,omitempty"`
}

// GmailConnect answers POST /api/v1/gmail/connect: the consent URL the
// browser was sent to; the account appears in GET /api/v1/gmail/accounts
// (and an event on the stream) once the user has consented.
type GmailConnect struct {
	AuthURL string `json:"auth_url"`
}

// GmailConnectRequest is the (optional) body of POST /api/v1/gmail/connect.
type GmailConnectRequest struct {
	// AddScout also gives the account a Gmail scout once the user has
	// consented, unless it has one: enabled, reviewing every card, in the
	// default mode (Settings.GmailMode). The tray's "Connect Gmail…" asks
	// for it.
	AddScout bool `json:"add_scout,omitempty"`
}

// GmailConnected is the data of the stream's gmail.connected event: the
// user consented and the account is connected.
type GmailConnected struct {
	Email string `json:"email"`
	// ScoutID and ScoutName name the scout added for the account (Added)
	// or, on a reconnect, the first of its scouts, which run again; empty
	// when the account has none. Mode is that scout's mode.
	ScoutID   string `json:"scout_id,omitempty"`
	ScoutName string `json:"scout_name,omitempty"`
	Mode      string `json:"mode,omitempty"`
	Added     bool   `json:"added,omitempty"`
	// AddError says why the scout asked for could not be added.
	AddError string `json:"add_error,omitempty"`
}

// GmailAccount is one connected Gmail account.
type GmailAccount struct {
	Email       string    `json:"email"`
	ConnectedAt time.Time `json:"connected_at"`
}

// GmailAction is what approving a Gmail suggestion also does in Gmail,
// through the durable outbox.
type GmailAction struct {
	Archive bool   `json:"archive,omitempty"`
	Label   string `json:"label,omitempty"`
}

// Settings is GET/PUT /api/v1/settings.
type Settings struct {
	Notifications bool        `json:"notifications"`
	QuietHours    *QuietHours `json:"quiet_hours,omitempty"`
	Autostart     bool        `json:"autostart"`
	// GmailMode is the mode of the Gmail scout "Connect Gmail…" adds:
	// local, relay-ping or relay-triage; empty is relay-triage with a
	// relay and local without one.
	GmailMode string `json:"gmail_mode,omitempty"`
}

// QuietHours holds notifications between two local times ("22:00").
type QuietHours struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// Contains reports whether t (local time) falls in the quiet hours: from
// Start included to End excluded, a Start after End spanning midnight.
// Times that do not parse as HH:MM make no quiet hours.
func (q *QuietHours) Contains(t time.Time) bool {
	if q == nil {
		return false
	}
	start, err1 := time.Parse("15:04", q.Start)
	end, err2 := time.Parse("15:04", q.End)
	if err1 != nil || err2 != nil {
		return false
	}
	m := t.Hour()*60 + t.Minute()
	s, e := start.Hour()*60+start.Minute(), end.Hour()*60+end.Minute()
	if s <= e {
		return m >= s && m < e
	}
	return m >= s || m < e
}

// Folders is GET /api/v1/folders: the subfolders of Path, for choosing a
// folder to watch.
type Folders struct {
	Path string `json:"path"`
	// Parent is empty at the root.
	Parent string   `json:"parent,omitempty"`
	Dirs   []string `json:"dirs"` // names, sorted; hidden ones only with hidden=1
	// Truncated: there were more than 1000; Dirs holds the first found.
	Truncated bool `json:"truncated,omitempty"`
}
