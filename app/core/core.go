// Package core is the desktop agent's heart: the database, the scout
// engine, the folder connector and the live event bus, with the operations
// the local API, the CLI and the tray expose. It holds no HTTP and no UI.
package core

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/categorise"
	"github.com/scouts-hq/scouts/app/defdraft"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/app/mcpclient"
	"github.com/scouts-hq/scouts/app/relaylink"
	"github.com/scouts-hq/scouts/app/rulebook"
	"github.com/scouts-hq/scouts/app/secretref"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Config configures a Core.
type Config struct {
	DataDir string
	Version string
	Logger  *slog.Logger
	// Now is the clock; tests may replace it.
	Now func() time.Time
	// PollInterval is the engine's fallback polling interval (default 5m).
	PollInterval time.Duration
	// LockStaleAfter is how long a scout's run lock may go unrenewed
	// before another run takes it over (default engine.LockStaleAfter).
	LockStaleAfter time.Duration
	// SecretStore keeps the named secrets (app/secretref); nil: none.
	SecretStore secretref.Store
	// Expiry is how long a suggestion waits for a decision before it
	// expires (default scouts.DefaultExpiry); a revived one gets it anew.
	Expiry time.Duration
	// RelayURL and RelayToken connect the desktop to a relay (webhook and
	// cloud scouts) for the whole run (the agent's --relay and
	// --device-token-file); without them the desktop connects to the relay
	// the user logged in to (RelayLogin), if any, or works alone.
	RelayURL   string
	RelayToken string
	// RelayKeyring keeps the device token of a relay logged in to; nil
	// means logging in is not possible.
	RelayKeyring relaylink.Keyring
	// Autostart, when set, makes the OS start the agent at login (or not):
	// SetSettings calls it before storing a change, so that a failure is
	// the answer to the change; the agent also calls it at start.
	Autostart func(enabled bool) error
	// Gmail, when set, lets the user connect Gmail accounts and run Gmail
	// scouts; GmailAPIURL points the client at Google (default) or a fake.
	Gmail       gmaildesk.Auth
	GmailAPIURL string
	// Model, ModelBudget and ModelDailyTokens configure the optional LLM
	// step of Gmail triage on this desktop.
	Model            triage.Model
	ModelBudget      triage.Budget
	ModelDailyTokens int
	// ProtectedDirs are folders no folder scout reads, besides DataDir
	// (which never is): the agent's configuration and scout definitions.
	ProtectedDirs []string
	// FolderWarnFiles and FolderMaxFiles bound a new folder scout's tree:
	// above the first its creation answers with a warning saying how many
	// files it holds, above the second it is refused unless forced. Zero
	// means DefaultFolderWarnFiles and DefaultFolderMaxFiles.
	FolderWarnFiles int
	FolderMaxFiles  int
	// DefinitionsDir is the folder of scout definition files reconciled
	// at start and on every change (docs/definitions.md); empty: none.
	DefinitionsDir string
	// Home is the user's home folder, which file.move never leaves;
	// empty: os.UserHomeDir.
	Home string
	// Secrets reads a secret by name from the keyring (a webhook.post's
	// signing key); an unknown name is ENotFound. Nil: none can be read.
	Secrets func(ctx context.Context, name string) ([]byte, error)
	// Watches is the agent's one file watcher, shared by every folder
	// scout and the definitions folder (watches.go); nil: Open makes one
	// and Close closes it.
	Watches *watchhub.Hub
	// FailedRunsAlarm is how many runs in a row a scout fails before its
	// alarm is raised; zero: alarms.DefaultFailedRuns.
	FailedRunsAlarm int
	// RelayAlarmAfter is how long the relay may stay unreachable before
	// its alarm is raised; zero: DefaultRelayAlarmAfter.
	RelayAlarmAfter time.Duration
}

// Core is an open agent core. Its methods are safe for concurrent use.
type Core struct {
	DB     *localdb.DB
	Engine *engine.Engine
	Bus    *bus.Bus

	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	started time.Time

	relay *relaylink.Link // the relay link (relayhost.go)

	kinds map[scouts.Kind]scoutKind // what each kind of scout does (kinds.go)

	defs    *defsync.Service   // the scouts' definitions (services.go)
	rules   *rulebook.Book     // the scouts' rules
	drafts  *defdraft.Drafter  // drafting definitions in plain words
	secrets *secretref.Service // the named secrets
	mcp     *mcpclient.Manager // other MCP servers' tools as actions (mcpservers.go)
	alarms  *alarms.Service    // what failed, until its cause goes away (alarms.go)
	// alarmsMu makes the failing-runs checks one at a time (alarms.go).
	alarmsMu sync.Mutex
	// heldMu makes holding and letting in cards one at a time (held.go).
	heldMu sync.Mutex

	gmail   *gmaildesk.Desk // the Gmail scouts (gmail.go)
	runs    runSettings
	watches folderWatches // the shared file watcher and what it met (watches.go)
	// agentMu makes an AI agent's first proposals make one scout, not one
	// each (agent.go).
	agentMu sync.Mutex
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// snoozeWake resets the snooze loop's timer after a change (snooze.go).
	snoozeWake chan struct{}
	// briefWake resets the daily brief's timer after its time changed
	// (brief.go).
	briefWake chan struct{}
	// chains are the events waiting for the chain scouts (chain.go).
	chains chainQueue
}

// Open opens the database in cfg.DataDir and builds the engine. Call Start
// to run scouts.
func Open(ctx context.Context, cfg Config) (*Core, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	// Times are stored in milliseconds; handing out the same precision
	// keeps what a caller gets back from a write equal to what it reads
	// later.
	clock := cfg.Now
	cfg.Now = func() time.Time { return clock().UTC().Truncate(time.Millisecond) }
	db, err := localdb.Open(ctx, filepath.Join(cfg.DataDir, "scouts.db"))
	if err != nil {
		return nil, fmt.Errorf("core: %w", err)
	}
	salt, err := db.LearnSalt(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("core: %w", err)
	}
	c := &Core{DB: db, cfg: cfg, log: cfg.Logger, now: cfg.Now, started: cfg.Now(), snoozeWake: make(chan struct{}, 1), briefWake: make(chan struct{}, 1)}
	c.chains.wake = make(chan struct{}, 1)
	c.Bus = bus.New(4096, c.started.UnixMicro())
	c.newAlarms()
	c.setupWatches()
	c.setupRuns()
	c.gmail = c.newGmail()
	c.kinds = c.newKinds()
	c.relay = c.newRelay()
	c.newMCP()
	c.newServices()
	open, remote := openers(c.kinds)
	c.Engine = engine.New(c.mcpEngine(engine.Config{
		Store:        db,
		Openers:      open,
		Remote:       remote,
		Emit:         c.engineEmit,
		Logger:       cfg.Logger,
		Now:          cfg.Now,
		PollInterval: cfg.PollInterval,
		Learning:     engine.LearningConfig{Salt: salt, Propose: c.proposeFromContent, Categorise: categorise.New(categorise.Config{Model: c.cfg.Model, Budget: c.cfg.ModelBudget, DailyTokens: c.cfg.ModelDailyTokens, DB: c.DB, Now: c.now})},
		Rules:        c.rules.EngineRules,
		Executors:    c.executors(),
		RunState:     c.runState(),
		RunContext:   c.runContext,
		RunTokens:    c.runTokens,
		Expiry:       c.cfg.Expiry,
	}))
	return c, nil
}

// Start runs every enabled scout (held, if the user paused them).
func (c *Core) Start(ctx context.Context) error {
	ctx, c.cancel = context.WithCancel(ctx)
	if err := c.restorePaused(ctx); err != nil {
		return err
	}
	if err := c.rules.MigrateGmailRules(ctx); err != nil {
		return err
	}
	// Before any scout runs: the runs an agent that died left running
	// are kept in their history as interrupted.
	cut, err := c.DB.InterruptRuns(ctx)
	if err != nil {
		return err
	}
	for _, r := range cut {
		c.log.Warn("a run was cut short when the agent stopped", "scout", r.ScoutID, "run", r.ID)
	}
	// The MCP servers' tools before any scout plans with them (no server
	// starts here: each starts when first needed).
	if err := c.mcp.Start(ctx); err != nil {
		c.log.Warn("MCP servers", "err", err)
	}
	if err := c.Engine.Start(ctx); err != nil {
		return err
	}
	c.wg.Go(func() { c.snoozeLoop(ctx) })
	if err := c.markFirstStart(ctx); err != nil {
		return fmt.Errorf("core: the brief's first start: %w", err)
	}
	c.wg.Go(func() { c.briefLoop(ctx) })
	c.wg.Go(func() { c.chainLoop(ctx) })
	relaySub, _, _ := c.Bus.Subscribe(0, 64)
	c.wg.Go(func() { c.relayAlarmLoop(ctx, relaySub) })
	// A folder that cannot be watched is reported, not fatal: the scouts
	// already in the database run.
	if err := c.defs.Watch(ctx); err != nil {
		c.log.Warn("definitions folder", "err", err)
	}
	return c.relay.Start(ctx)
}

// Close stops the scouts and the relay link and closes the database.
func (c *Core) Close() error {
	if c.cancel != nil {
		c.cancel()
	}
	c.Engine.Stop()
	c.mcp.Close()
	c.relay.Close()
	c.wg.Wait()
	c.defs.Wait()
	c.closeWatches()
	return c.DB.Close()
}

// Status is the agent's state at a glance.
type Status struct {
	Version       string
	StartedAt     time.Time
	DataDir       string
	ScoutsRunning int
	ScoutsTotal   int
	Paused        bool
	Suggestions   map[scouts.Status]int
	Lanes         map[scouts.Lane]int // pending cards per lane
	Entities      map[scouts.EntityKind]int
}

// Status reports the agent's state.
func (c *Core) Status(ctx context.Context) (Status, error) {
	all, err := c.DB.ListScouts(ctx)
	if err != nil {
		return Status{}, err
	}
	counts, err := c.DB.CountSuggestions(ctx)
	if err != nil {
		return Status{}, err
	}
	ents, err := c.DB.CountEntities(ctx)
	if err != nil {
		return Status{}, err
	}
	lanes, err := c.DB.CountPendingByLane(ctx)
	if err != nil {
		return Status{}, err
	}
	return Status{
		Version: c.cfg.Version, StartedAt: c.started, DataDir: c.cfg.DataDir,
		ScoutsRunning: c.Engine.Running(), ScoutsTotal: len(all), Paused: c.Engine.Paused(),
		Suggestions: counts, Lanes: lanes, Entities: ents,
	}, nil
}
