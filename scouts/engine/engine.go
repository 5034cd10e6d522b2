// Package engine runs scouts: one serialised runner per enabled scout, the
// assessment of each item that arrives (rules, the learner, content cues, a
// model), the decisions people make about suggestions, their plans and the
// outbox that runs remote actions. It works on the domain's types (package
// scouts) and knows nothing of HTTP, SQL or any particular source: storage
// plugs in through Store and RunState, sources through scouts.Opener.
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// Config wires an Engine to its storage and sources.
type Config struct {
	Store   Store
	Openers map[scouts.Kind]scouts.Opener
	// Remote lists kinds whose items arrive from elsewhere (the relay)
	// through Ingest: they have no local runner.
	Remote map[scouts.Kind]bool
	// Emit receives live events (new suggestions, decisions, runs). It must
	// not block; nil discards them.
	Emit   func(scouts.Event)
	Logger *slog.Logger
	Now    func() time.Time
	// PollInterval is how often a source that cannot be watched (or whose
	// watch failed) is polled. Default 5 minutes.
	PollInterval time.Duration
	// Expiry is how long a suggestion waits for a decision. Default 30 days.
	Expiry time.Duration
	// SweepInterval is how often expired suggestions are swept (and silence
	// settled), starting as the engine starts. Default 1 hour, or a quarter
	// of Expiry when that is shorter. Negative: never on its own; whoever
	// runs the engine calls SweepExpired and SettleSilent (a test moving a
	// clock, which a sweep reading the clock meanwhile would race).
	SweepInterval time.Duration
	// ContentTimeout bounds the source read made when approving, which fills
	// the entity's body. Default 2 seconds: approvals must stay instant.
	ContentTimeout time.Duration
	// UndoWindow is how long a decision can be undone. Default 30 seconds.
	UndoWindow time.Duration
	// Learning wires the learner and the content cues.
	Learning LearningConfig
	// Rules loads a scout's rules (once per page of items); they are tried
	// on each item before anything else. Nil: no scout has rules.
	Rules func(ctx context.Context, s scouts.Scout) (scouts.RuleSet, error)
	// Actions is the action catalogue; nil is the built-in one.
	Actions *actions.Catalogue
	// Executors run remote actions, by action name. An action without an
	// executor is never proposed and cannot be chosen.
	Executors map[string]ActionExecutor
	// ExtraActions lists actions that come and go while the agent runs
	// (the tools of MCP servers, app/mcpclient), asked at each look-up;
	// ExecutorFor runs those not in Executors. Nil: none.
	ExtraActions func() []actions.Def
	ExecutorFor  func(action string) ActionExecutor
	// RunState keeps run locks and schedule times in storage (runstate.go);
	// nil: in memory only.
	RunState RunState
	// LockHeartbeat is how often a run renews its lock (default
	// RunLockHeartbeat); LockRetry how often a run waiting for a lock held
	// elsewhere asks again (default 1 second).
	LockHeartbeat time.Duration
	LockRetry     time.Duration
	// RunContext, when set, gives each run its context (the scout's
	// per-run token allowance rides on it).
	RunContext func(ctx context.Context, s scouts.Scout) context.Context
	// RunTokens, when set, says what the run carried by ctx (as RunContext
	// made it) spent on the model; ok is false when that is not known.
	RunTokens func(ctx context.Context, s scouts.Scout) (tokens int, ok bool)
}

// Engine runs scouts: one serialised runner per enabled scout, each fed by
// its connector's watch, plus the decisions people make about suggestions.
type Engine struct {
	cfg  Config
	log  *slog.Logger
	emit func(scouts.Event)

	mu      sync.Mutex
	ctx     context.Context // set by Start; runners live under it
	cancel  context.CancelFunc
	started time.Time // when Start ran: scheduled runs before it were missed while the agent was off
	runners map[string]*runner
	paused  bool
	wg      sync.WaitGroup

	actionKick chan struct{} // wakes the outbox: actions were queued

	actions func() *actions.Catalogue // the catalogue, made on first use
}

// New returns an engine; call Start to run scouts.
func New(cfg Config) *Engine {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 5 * time.Minute
	}
	if cfg.Expiry <= 0 {
		cfg.Expiry = scouts.DefaultExpiry
	}
	if cfg.SweepInterval == 0 {
		// Hourly, or more often when suggestions expire within hours
		// (trials, tests).
		cfg.SweepInterval = min(time.Hour, max(cfg.Expiry/4, time.Second))
	}
	if cfg.ContentTimeout <= 0 {
		cfg.ContentTimeout = 2 * time.Second
	}
	if cfg.UndoWindow <= 0 {
		cfg.UndoWindow = scouts.DefaultUndoWindow
	}
	if cfg.LockHeartbeat <= 0 {
		cfg.LockHeartbeat = RunLockHeartbeat
	}
	if cfg.LockRetry <= 0 {
		cfg.LockRetry = time.Second
	}
	emit := cfg.Emit
	if emit == nil {
		emit = func(scouts.Event) {}
	}
	e := &Engine{cfg: cfg, log: cfg.Logger, emit: emit, runners: map[string]*runner{}, actionKick: make(chan struct{}, 1)}
	// The built-in catalogue compiles every action's JSON Schema: on first
	// use, not at every start of the agent (350 KB), most of whose runs
	// plan no action for a while.
	e.actions = sync.OnceValue(func() *actions.Catalogue {
		c := cfg.Actions
		if c == nil {
			c = actions.MustNew()
		}
		if cfg.ExtraActions != nil {
			c = c.WithExtra(cfg.ExtraActions)
		}
		return c
	})
	return e
}

// Start starts a runner for every enabled scout and the expiry sweeper.
// Runners stop when ctx ends or Stop is called.
func (e *Engine) Start(ctx context.Context) error {
	all, err := e.cfg.Store.ListScouts(ctx)
	if err != nil {
		return fmt.Errorf("engine: start: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	e.mu.Lock()
	e.ctx, e.cancel = ctx, cancel
	e.started = e.cfg.Now()
	e.mu.Unlock()
	for _, s := range all {
		e.Sync(s)
	}
	if e.cfg.SweepInterval > 0 {
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.sweepLoop(ctx)
		}()
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.actionLoop(ctx)
	}()
	return nil
}

// Stop stops every runner, waits for in-flight runs and closes connectors.
func (e *Engine) Stop() {
	e.mu.Lock()
	if e.cancel != nil {
		e.cancel()
	}
	rs := make([]*runner, 0, len(e.runners))
	for id, r := range e.runners {
		rs = append(rs, r)
		delete(e.runners, id)
	}
	e.mu.Unlock()
	for _, r := range rs {
		r.stop()
	}
	e.wg.Wait()
}

// Sync makes the running state of s match its definition: it (re)starts the
// runner of an enabled scout with its current configuration and stops a
// disabled one. Call it after every change to a scout.
//
// A definition older (by UpdatedAt) than the one running is ignored: two
// callers racing with different versions of a scout leave the newer one
// running, whichever calls last.
func (e *Engine) Sync(s scouts.Scout) {
	e.mu.Lock()
	old := e.runners[s.ID]
	if old != nil && old.scout.UpdatedAt.After(s.UpdatedAt) {
		e.mu.Unlock()
		return
	}
	delete(e.runners, s.ID)
	ctx := e.ctx
	e.mu.Unlock()
	if old != nil {
		old.stop()
	}
	if !s.Enabled || ctx == nil || ctx.Err() != nil || e.cfg.Remote[s.Kind] {
		return
	}
	open, ok := e.cfg.Openers[s.Kind]
	if !ok {
		e.recordRun(ctx, s.ID, 0, fmt.Errorf("this build cannot run %s scouts", s.Kind))
		return
	}
	conn, err := open(ctx, s)
	if err != nil {
		e.log.Warn("scout cannot start", "scout", s.ID, "err", err)
		e.recordRun(ctx, s.ID, 0, err)
		return
	}
	r := newRunner(e, s, conn)
	rctx, cancel := context.WithCancel(ctx)
	r.cancel = cancel
	e.mu.Lock()
	if cur := e.runners[s.ID]; cur != nil {
		if !s.UpdatedAt.After(cur.scout.UpdatedAt) {
			// A concurrent Sync with this version or a newer one won.
			e.mu.Unlock()
			cancel()
			conn.Close()
			return
		}
		// A concurrent Sync started an older version: ours replaces it.
		delete(e.runners, s.ID)
		e.mu.Unlock()
		cur.stop()
		e.mu.Lock()
		if e.runners[s.ID] != nil {
			e.mu.Unlock()
			cancel()
			conn.Close()
			return
		}
	}
	e.runners[s.ID] = r
	e.mu.Unlock()
	go r.loop(rctx)
}

// Remove stops the scout's runner, for a deleted scout.
func (e *Engine) Remove(scoutID string) {
	e.mu.Lock()
	r := e.runners[scoutID]
	delete(e.runners, scoutID)
	e.mu.Unlock()
	if r != nil {
		r.stop()
	}
}

// Trigger asks the scout to look for new items now. Requests made while a
// run is in progress coalesce into one more run. It reports whether the
// scout is running.
func (e *Engine) Trigger(scoutID string) bool {
	e.mu.Lock()
	r := e.runners[scoutID]
	e.mu.Unlock()
	if r == nil {
		return false
	}
	r.trigger(scouts.TriggerManual)
	return true
}

// TriggerAll triggers every running scout ("Sync now").
func (e *Engine) TriggerAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.runners {
		r.trigger(scouts.TriggerManual)
	}
}

// SetPaused pauses or resumes every scout. A paused scout keeps watching but
// does not process; requests made meanwhile run once on resume.
func (e *Engine) SetPaused(p bool) {
	e.mu.Lock()
	e.paused = p
	rs := make([]*runner, 0, len(e.runners))
	for _, r := range e.runners {
		rs = append(rs, r)
	}
	e.mu.Unlock()
	if !p {
		for _, r := range rs {
			r.trigger(scouts.TriggerResume)
		}
	}
}

// Paused reports whether scouts are paused.
func (e *Engine) Paused() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.paused
}

// IsRunning reports whether the scout has a live runner.
func (e *Engine) IsRunning(scoutID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runners[scoutID] != nil
}

// Running returns how many scouts have a live runner.
func (e *Engine) Running() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.runners)
}

func (e *Engine) connector(scoutID string) scouts.SourceConnector {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.runners[scoutID]; r != nil {
		return r.conn
	}
	return nil
}

// RecordHealth records the outcome of work done for a scout outside its
// runner (a relay's answer about a cloud scout), for its health display.
func (e *Engine) RecordHealth(ctx context.Context, scoutID string, n int, err error) {
	e.recordRun(ctx, scoutID, n, err)
}

func (e *Engine) recordRun(ctx context.Context, scoutID string, n int, err error) {
	res := RunResult{At: e.cfg.Now(), New: n}
	if err != nil {
		res.Error = err.Error()
	}
	if err := e.cfg.Store.RecordRun(context.WithoutCancel(ctx), scoutID, res); err != nil {
		e.log.Error("record scout run", "scout", scoutID, "err", err)
	}
	e.emit(scouts.Event{Type: scouts.EventScoutRun, Data: map[string]any{"scout_id": scoutID, "new": n, "error": res.Error}})
}

// runOnce lists the scout's new items and records them, page by page. It
// returns how many items the source listed and how many were new.
func (e *Engine) runOnce(ctx context.Context, s scouts.Scout, conn scouts.SourceConnector) (seen, total int, err error) {
	err = conn.ListNew(ctx, func(ctx context.Context, items []scouts.ItemRef) error {
		seen += len(items)
		n, err := e.processPage(ctx, s, conn, items)
		total += n
		return err
	})
	return seen, total, err
}

func (e *Engine) processPage(ctx context.Context, s scouts.Scout, conn scouts.SourceConnector, items []scouts.ItemRef) (int, error) {
	refs := make([]string, 0, len(items))
	var sent []string
	var withdrawn []scouts.ItemRef
	for _, it := range items {
		if len(it.SentTo) > 0 {
			sent = append(sent, it.SentTo...)
			continue
		}
		if it.Withdraw != "" {
			withdrawn = append(withdrawn, it)
			continue
		}
		if it.Problem == "" {
			refs = append(refs, it.Ref)
		}
	}
	if len(sent) > 0 {
		// Before the page's new items: they are assessed knowing whom
		// the person writes to.
		if _, err := e.SentTo(ctx, s, sent); err != nil {
			return 0, err
		}
	}
	known, err := e.cfg.Store.KnownRefs(ctx, s.ID, refs)
	if err != nil {
		return 0, fmt.Errorf("engine: check known items: %w", err)
	}
	now := e.cfg.Now()
	var recs []ItemRecord
	var loose []scouts.AuditEvent
	seen := map[string]bool{}
	as := &assessor{e: e, s: s}
	for _, it := range items {
		if len(it.SentTo) > 0 || it.Withdraw != "" {
			continue
		}
		trace := scouts.NewID("tr")
		refsOf := map[string]string{"scout_id": s.ID, "source_ref": it.Ref}
		if it.Problem != "" {
			loose = append(loose, scouts.AuditEvent{TraceID: trace, Stage: scouts.StageSource, Type: scouts.AuditItemSkipped,
				Outcome: scouts.OutcomeSkipped, Summary: it.Problem, Refs: refsOf, At: now})
			continue
		}
		if known[it.Ref] || seen[it.Ref] {
			continue // already a suggestion: a re-detection after a crash or a rescan
		}
		seen[it.Ref] = true
		var meta scouts.ItemMetadata
		if it.Meta != nil {
			meta = *it.Meta
		} else {
			meta, err = conn.FetchMetadata(ctx, it.Ref)
			var skip *scouts.SkipError
			if errors.As(err, &skip) {
				loose = append(loose, scouts.AuditEvent{TraceID: trace, Stage: scouts.StageSource, Type: scouts.AuditItemSkipped,
					Outcome: scouts.OutcomeSkipped, Summary: skip.Reason, Refs: refsOf, At: now})
				continue
			}
			if err != nil {
				return 0, fmt.Errorf("engine: fetch metadata of %s: %w", it.Ref, err)
			}
		}
		rec, err := e.newItemRecord(ctx, as, s, it, meta, trace, now)
		if err != nil {
			return 0, err
		}
		recs = append(recs, rec)
	}
	inserted, err := e.cfg.Store.RecordItems(ctx, recs, loose)
	if err != nil {
		return 0, fmt.Errorf("engine: record items: %w", err)
	}
	for _, rec := range inserted {
		e.emit(scouts.Event{Type: scouts.EventSuggestionCreated, Data: rec.Suggestion})
		if rec.Entity != nil {
			e.emit(scouts.Event{Type: scouts.EventSuggestionResolved, Data: rec.Suggestion})
			e.emit(scouts.Event{Type: scouts.EventEntityCreated, Data: *rec.Entity})
		}
		e.announce(ApprovalRecord{Actions: rec.Actions})
	}
	if err := e.withdraw(ctx, s, withdrawn); err != nil {
		return 0, err
	}
	return len(inserted), nil
}

// Ingest records items that arrived from elsewhere (the relay) for scout
// s, with the same deduplication, review or auto semantics and audit as
// items a local runner finds. Every item must carry its Meta. It returns how
// many were new.
func (e *Engine) Ingest(ctx context.Context, s scouts.Scout, items []scouts.ItemRef) (int, error) {
	for _, it := range items {
		if it.Meta == nil && it.Problem == "" && it.Withdraw == "" && len(it.SentTo) == 0 {
			return 0, fmt.Errorf("engine: ingest %s: item without metadata", it.Ref)
		}
	}
	return e.processPage(ctx, s, nil, items)
}

// newItemRecord turns a detected item into a suggestion and, for scouts
// that auto-create, the entity with it.
func (e *Engine) newItemRecord(ctx context.Context, as *assessor, s scouts.Scout, it scouts.ItemRef, meta scouts.ItemMetadata, trace string, now time.Time) (ItemRecord, error) {
	kind := meta.ProposedKind
	if kind == "" {
		kind = scouts.EntityTask
	}
	assessment, kind, features, err := as.assess(ctx, meta, kind)
	if err != nil {
		return ItemRecord{}, err
	}
	title := meta.Title
	if title == "" {
		title = "Untitled item from " + s.Name
	}
	if assessment.title != "" {
		assessment.SourceTitle, title = meta.Title, assessment.title
	}
	sug := scouts.Suggestion{
		ID: scouts.NewID("sg"), ScoutID: s.ID, SourceType: s.Kind, SourceRef: it.Ref, TraceID: trace,
		Title: clip(title, scouts.MaxTitleBytes), Excerpt: meta.Excerpt, Sender: meta.Sender, Path: meta.Path, URL: meta.URL,
		ProposedKind: kind, Reason: meta.Reason, Status: scouts.StatusPending,
		CreatedAt: now, ExpiresAt: now.Add(e.cfg.Expiry),
		Lane: assessment.Lane, Assessment: assessment.Assessment,
	}
	refs := func(extra ...string) map[string]string {
		m := map[string]string{"scout_id": s.ID, "suggestion_id": sug.ID, "source_ref": it.Ref}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	detected := "New item from " + s.Name
	if meta.Path != "" {
		detected = "New file " + meta.Path
	}
	audit := []scouts.AuditEvent{{TraceID: trace, Stage: scouts.StageSource, Type: scouts.AuditItemDetected, Outcome: scouts.OutcomeOK, Summary: detected, Refs: refs(), At: now}}
	for _, n := range it.Notes {
		audit = append(audit, scouts.AuditEvent{TraceID: trace, Stage: scouts.StageSource, Type: scouts.AuditItemNote, Outcome: scouts.OutcomeOK, Summary: n, Refs: refs(), At: now})
	}
	for _, n := range assessment.notes {
		audit = append(audit, scouts.AuditEvent{TraceID: trace, Stage: scouts.StageTriage, Type: scouts.AuditItemNote, Outcome: scouts.OutcomeSkipped, Summary: n, Refs: refs(), At: now})
	}
	why := meta.Reason
	if why == "" {
		why = "proposed as " + string(kind)
	}
	if kind != meta.ProposedKind && meta.ProposedKind != "" {
		// The source's reason names the kind it proposed; say what
		// changed it, so the card never contradicts itself.
		change := "now proposed as " + kind.WithArticle() + " from "
		switch assessment.KindFrom {
		case "learned":
			change += "your past decisions"
		case "model":
			change += "the model's reading"
		case "rule":
			change += "your rule “" + assessment.RuleID + "”"
		default:
			change += "its content"
		}
		sug.Reason = clip(strings.TrimSpace(meta.Reason+"; "+change), 1000)
		why = sug.Reason
	}
	if len(assessment.Why) > 0 {
		why += " — " + strings.Join(assessment.Why, "; ")
	}
	audit = append(audit, ruleAudits(assessment, trace, refs, now)...)
	audit = append(audit, scouts.AuditEvent{TraceID: trace, Stage: scouts.StageTriage, Type: scouts.AuditSuggestionCreated, Outcome: scouts.OutcomeOK,
		Summary: fmt.Sprintf("Suggested as %s: %s", kind, why), Refs: refs(), At: now})
	if sug.Lane != scouts.LaneInbox {
		reason := assessment.LaneReason
		if reason == "" {
			reason = "Put in " + string(sug.Lane)
		}
		audit = append(audit, scouts.AuditEvent{TraceID: trace, Stage: scouts.StageTriage, Type: scouts.AuditLaned, Outcome: scouts.OutcomeOK,
			Summary: reason, Refs: refs("lane", string(sug.Lane)), At: now})
	}
	if meta.Body != "" {
		sug.Payload, _ = json.Marshal(payload{Body: clip(meta.Body, scouts.MaxBodyBytes)})
	}
	rec := ItemRecord{Suggestion: sug, Audit: audit, Features: features, Participants: assessment.participants, Identities: assessment.identities}
	body := meta.Excerpt
	if meta.Body != "" {
		body = clip(meta.Body, scouts.MaxBodyBytes)
	}
	if err := e.onArrival(ctx, as, s, &rec, body, now); err != nil {
		return ItemRecord{}, err
	}
	return rec, nil
}

// payload is what a suggestion keeps beyond its card fields.
type payload struct {
	// Body is the full text of an item whose source cannot be read again.
	Body string `json:"body,omitempty"`
}

// storedBody returns the body kept with a suggestion, if any.
func storedBody(s scouts.Suggestion) (string, bool) {
	if len(s.Payload) == 0 {
		return "", false
	}
	var p payload
	if json.Unmarshal(s.Payload, &p) != nil || p.Body == "" {
		return "", false
	}
	return p.Body, true
}

// clip shortens s to at most n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i]
}
