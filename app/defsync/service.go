// Package defsync keeps the scouts' definitions (docs/definitions.md): it
// reconciles the definitions folder, records each change as a version,
// exports, imports and rolls back, and writes a managed scout's file. Every
// change to a definition goes through Change, under the one lock the
// service owns. It sees the rest of the desktop through Store, Host and
// the kinds' Kind, never through the core.
package defsync

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// Store is what the service reads and writes of the database
// (localdb.DB).
type Store interface {
	GetScout(ctx context.Context, id string) (scouts.Scout, error)
	ListScouts(ctx context.Context) ([]scouts.Scout, error)
	ListRules(ctx context.Context, scoutID string) ([]localdb.RuleRow, error)
	LearnState(ctx context.Context, scoutID string) (engine.LearnState, error)
	SetLearnSettings(ctx context.Context, scoutID string, s scouts.LearnSettings) error
	ScoutDefinitionStates(ctx context.Context) (map[string]localdb.ScoutDefinitionState, error)
	SetScoutManagedBy(ctx context.Context, scoutID, by string) error
	AddScoutVersion(ctx context.Context, v localdb.ScoutVersion) (int, bool, error)
	AddPastScoutVersions(ctx context.Context, scoutID string, vs []localdb.ScoutVersion) error
	ListScoutVersions(ctx context.Context, scoutID string) ([]localdb.ScoutVersion, error)
	GetScoutVersion(ctx context.Context, scoutID string, version int) (localdb.ScoutVersion, error)
	NewestScoutVersion(ctx context.Context, scoutID string) (localdb.ScoutVersion, error)
}

// Host is what the service asks of the desktop when it applies a
// definition, each under the change's Tx: the scout's settings go through
// the desktop's own checks, its rules through the rules'.
type Host interface {
	// CreateScout checks, stores and starts (Restart) the scout a
	// definition makes; it records no version (the service does, once
	// the rules are in) and returns the scout as stored, with a webhook
	// scout's token (shown once).
	CreateScout(ctx context.Context, tx *Tx, s scouts.Scout) (created scouts.Scout, hookToken string, err error)
	// UpdateScout applies a definition's settings to a scout through the
	// same checks, and restarts it; it records no version.
	UpdateScout(ctx context.Context, tx *Tx, id string, set Settings) error
	// ReplaceRules makes a scout's rules exactly docs, in order, checked
	// first and written together.
	ReplaceRules(ctx context.Context, tx *Tx, scoutID string, docs []json.RawMessage) error
	// RuleOptions are the checks a rule of a kind is compiled with (its
	// actions' parameters among them).
	RuleOptions(kind scouts.Kind) rules.Options
}

// Settings are a definition's settings of a scout row; nil fields (and
// an empty Config) are left as they are.
type Settings struct {
	Name     *string
	Enabled  *bool
	Review   *bool
	Config   json.RawMessage
	Schedule *scouts.Schedule
	Budget   *scouts.Budget
	// WriteScope is where the scout's actions may write.
	WriteScope *scouts.WriteScope
}

// Kind is what the service needs to know of a kind of scout.
type Kind struct {
	// FromDefinition reads a definition's source as the kind stores it
	// (a folder's "~/Scans" is the home folder's Scans); nil: as written.
	FromDefinition func(source json.RawMessage) json.RawMessage
	// InternalKeys are the fields of the kind's stored configuration that
	// are not part of its definition: set by the agent or the relay (a
	// mailbox's baseline, a push topic, a webhook's URL with its id), or
	// moved to the rules table. Export leaves them out; import keeps the
	// stored ones.
	InternalKeys []string
	// HookToken: the relay owns the configuration (a webhook's address,
	// guarded by a token the desktop makes): a definition sets none.
	HookToken bool
}

// Config configures a Service.
type Config struct {
	// Dir is the definitions folder (docs/definitions.md); "" for none.
	Dir   string
	Store Store
	Host  Host
	// Kinds describes each kind of scout (the zero Kind for one unknown).
	Kinds func(scouts.Kind) Kind
	// Sync (re)starts a scout's runner with the scout given (the
	// engine's Sync); Restart calls it, held back during a change.
	Sync    func(scouts.Scout)
	Publish func(scouts.Event)
	Logger  *slog.Logger
	Now     func() time.Time
	// Watches is the agent's shared file watcher, which the folder is
	// watched through; PollInterval is how often the folder is read when
	// a limit of the system keeps it from being watched (default 5m).
	Watches      *watchhub.Hub
	PollInterval time.Duration
}

// Service keeps the scouts' definitions. Its methods are safe for
// concurrent use.
type Service struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex // the definitions lock (Change)
	restarts restartHold

	folder folderState
	wg     sync.WaitGroup // Watch's goroutine
}

// New returns a service.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg, log: cfg.Logger}
}

// Wait waits for the folder's watch (Watch) to stop, once its context
// ended.
func (s *Service) Wait() { s.wg.Wait() }

func (s *Service) now() time.Time { return s.cfg.Now() }

func (s *Service) kind(k scouts.Kind) Kind {
	if s.cfg.Kinds == nil {
		return Kind{}
	}
	return s.cfg.Kinds(k)
}

func (s *Service) publish(ev scouts.Event) {
	if s.cfg.Publish != nil {
		s.cfg.Publish(ev)
	}
}
