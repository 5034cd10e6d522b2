package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// gatedSource is a source whose runs each wait for the test to let them
// finish, so that triggers can be made while a run is in progress.
type gatedSource struct {
	mu    sync.Mutex
	items []string // not yet past the cursor

	started   chan struct{}         // one value as each run starts
	release   chan struct{}         // one value lets one run finish
	fail      atomic.Pointer[error] // when set, runs fail with it once released
	active    atomic.Int32
	maxActive atomic.Int32
	runs      atomic.Int32
}

func newGatedSource(items ...string) *gatedSource {
	return &gatedSource{items: items, started: make(chan struct{}, 100), release: make(chan struct{}, 100)}
}

func (g *gatedSource) ListNew(ctx context.Context, page func(context.Context, []scouts.ItemRef) error) error {
	n := g.active.Add(1)
	defer g.active.Add(-1)
	for {
		m := g.maxActive.Load()
		if n <= m || g.maxActive.CompareAndSwap(m, n) {
			break
		}
	}
	g.runs.Add(1)
	g.started <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := g.fail.Load(); err != nil {
		return *err
	}
	g.mu.Lock()
	batch := make([]scouts.ItemRef, 0, len(g.items))
	for _, it := range g.items {
		batch = append(batch, scouts.ItemRef{Ref: it, Meta: &scouts.ItemMetadata{Title: it, ProposedKind: scouts.EntityNote, Reason: "test"}})
	}
	g.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := page(ctx, batch); err != nil {
		return err
	}
	// The cursor moves past what this page delivered (another run may
	// have moved it already).
	done := map[string]bool{}
	for _, it := range batch {
		done[it.Ref] = true
	}
	g.mu.Lock()
	left := g.items[:0]
	for _, it := range g.items {
		if !done[it] {
			left = append(left, it)
		}
	}
	g.items = left
	g.mu.Unlock()
	return nil
}

func (g *gatedSource) FetchMetadata(context.Context, string) (scouts.ItemMetadata, error) {
	return scouts.ItemMetadata{}, nil
}
func (g *gatedSource) FetchContent(context.Context, string) (scouts.ItemContent, error) {
	return scouts.ItemContent{}, nil
}
func (g *gatedSource) Watch(context.Context, func()) error { return scouts.ErrCannotWatch }
func (g *gatedSource) Close() error                        { return nil }

type runHarness struct {
	t      *testing.T
	db     *localdb.DB
	src    *gatedSource
	engine *engine.Engine
	scout  scouts.Scout
	now    atomic.Pointer[time.Time]
	stale  time.Duration
	gone   sync.Map // holder instance → reason it is gone
	// refused, when set, hears of each lock the engine asked for and was
	// refused.
	refused chan<- engine.LockGrant
	// events are the engine's live events; until looks again after each.
	events chan scouts.Event
	// announced is the scout's run status as each of its runs was
	// announced: what a window reading the scout on the event sees.
	announcedMu sync.Mutex
	announced   []announcement
}

// announcement is what a window reading the scout as a run is announced
// sees: its runs in progress and the run locks held.
type announcement struct {
	status engine.RunStatus
	locks  int
}

func (h *runHarness) announcements() []announcement {
	h.announcedMu.Lock()
	defer h.announcedMu.Unlock()
	return append([]announcement(nil), h.announced...)
}

func newRunHarness(t *testing.T, sched scouts.Schedule, items ...string) *runHarness {
	t.Helper()
	ctx := context.Background()
	db, err := localdb.Open(ctx, filepath.Join(t.TempDir(), "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &runHarness{t: t, db: db, src: newGatedSource(items...), stale: time.Minute, events: make(chan scouts.Event, 1000)}
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	h.now.Store(&now)
	h.scout = scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindFolder, Name: "Test", Enabled: true, Review: true,
		Config: []byte(`{}`), Schedule: sched, CreatedAt: now, UpdatedAt: now}
	if err := db.CreateScout(ctx, h.scout); err != nil {
		t.Fatal(err)
	}
	return h
}

// holder is a lock holder of this test: alive unless marked gone.
func holder(instance string) localdb.LockHolder {
	return localdb.LockHolder{PID: 4242, BootID: "test-boot", Instance: instance}
}

func (h *runHarness) runState(instance string) engine.RunState {
	return h.db.RunState(localdb.RunStateOptions{Holder: holder(instance), StaleAfter: h.stale,
		Gone: func(l localdb.LockHolder) (bool, string) {
			if why, ok := h.gone.Load(l.Instance); ok {
				return true, why.(string)
			}
			return false, ""
		}})
}

// emit is the engine's Emit: it keeps the run status at each run's
// announcement and passes the event on. It never blocks: a test that sees
// more than the channel holds has lost nothing but wake-ups, and until
// reads the state again on the next.
func (h *runHarness) emit(e scouts.Event) {
	if e.Type == scouts.EventScoutRun {
		a := announcement{status: h.engine.RunStatus(h.scout.ID), locks: -1}
		if locks, err := h.db.RunLocks(context.Background()); err == nil {
			a.locks = len(locks)
		}
		h.announcedMu.Lock()
		h.announced = append(h.announced, a)
		h.announcedMu.Unlock()
	}
	select {
	case h.events <- e:
	default:
	}
}

// refusingRunState tells the test of each lock refused to the engine.
type refusingRunState struct {
	engine.RunState
	refused chan<- engine.LockGrant
}

func (r refusingRunState) AcquireRunLock(ctx context.Context, scoutID string, now time.Time) (engine.LockGrant, error) {
	g, err := r.RunState.AcquireRunLock(ctx, scoutID, now)
	if err == nil && !g.Acquired {
		select {
		case r.refused <- g:
		default: // the test heard enough: the run retries every LockRetry
		}
	}
	return g, err
}

func (h *runHarness) start() {
	h.t.Helper()
	var rs engine.RunState = h.runState("engine")
	if h.refused != nil {
		rs = refusingRunState{RunState: rs, refused: h.refused}
	}
	h.engine = engine.New(engine.Config{
		Emit:  h.emit,
		Store: h.db,
		Openers: map[scouts.Kind]scouts.Opener{scouts.KindFolder: func(context.Context, scouts.Scout) (scouts.SourceConnector, error) {
			return h.src, nil
		}},
		Now:           func() time.Time { return *h.now.Load() },
		PollInterval:  time.Hour,
		SweepInterval: time.Hour,
		RunState:      rs,
		LockRetry:     10 * time.Millisecond,
	})
	ctx, cancel := context.WithCancel(context.Background())
	h.t.Cleanup(func() { cancel(); h.engine.Stop() })
	if err := h.engine.Start(ctx); err != nil {
		h.t.Fatal(err)
	}
}

func (h *runHarness) waitStarted(what string) {
	h.t.Helper()
	select {
	case <-h.src.started:
	case <-time.After(30 * time.Second):
		h.t.Fatalf("%s: no run started within 30s", what)
	}
}

// until waits for cond, looking again after each engine event: every
// state it waits for (a run over, recorded in the history and the audit,
// the scout idle, the last scheduled time) is true before the event that
// announces it.
func (h *runHarness) until(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(30 * time.Second)
	var seen []string
	for !cond() {
		select {
		case e := <-h.events:
			seen = append(seen, e.Type)
		case <-deadline:
			h.t.Fatalf("timed out after 30s waiting for %s: run status %+v, runs %+v, events seen %v",
				what, h.engine.RunStatus(h.scout.ID), h.runs(), seen)
		}
	}
}

func (h *runHarness) idle() bool {
	st := h.engine.RunStatus(h.scout.ID)
	return st.Active == 0 && !st.Queued
}

func (h *runHarness) audit(typ string) []scouts.AuditEvent {
	h.t.Helper()
	evs, err := h.db.ListAudit(context.Background(), localdb.AuditFilter{Limit: 5000})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []scouts.AuditEvent
	for _, e := range evs {
		if e.Type == typ && e.Refs["scout_id"] == h.scout.ID {
			out = append(out, e)
		}
	}
	return out
}

func (h *runHarness) suggestions() int {
	h.t.Helper()
	n := 0
	counts, err := h.db.CountSuggestions(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	for _, c := range counts {
		n += c
	}
	return n
}

// Under queue-one (the default) five triggers during a run make exactly
// one more run.
func TestOverlapQueueOne(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{}, "a", "b")
	h.start()
	h.waitStarted("the start's run")
	for range 5 {
		h.engine.Trigger(h.scout.ID)
	}
	if st := h.engine.RunStatus(h.scout.ID); st.Active != 1 || !st.Queued {
		t.Fatalf("during the run: %+v, want one active and one queued", st)
	}
	h.src.release <- struct{}{}
	h.waitStarted("the queued run")
	// The queued run began after the first had ended, and took the one
	// waiting trigger.
	if st := h.engine.RunStatus(h.scout.ID); st.Active != 1 || st.Queued {
		t.Fatalf("during the queued run: %+v, want it the only one", st)
	}
	h.src.release <- struct{}{}
	h.until("the scout to be idle", h.idle)
	if n := h.src.runs.Load(); n != 2 {
		t.Fatalf("%d runs, want 2 (five triggers during a run coalesce into one)", n)
	}
	if n := h.src.maxActive.Load(); n != 1 {
		t.Fatalf("%d runs at once, want 1", n)
	}
	if n := h.suggestions(); n != 2 {
		t.Fatalf("%d suggestions, want 2", n)
	}
}

// Under skip, triggers during a run are dropped, audited once.
func TestOverlapSkip(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{Overlap: scouts.OverlapSkip}, "a")
	h.start()
	h.waitStarted("the start's run")
	for range 5 {
		h.engine.Trigger(h.scout.ID)
	}
	if st := h.engine.RunStatus(h.scout.ID); st.Active != 1 || st.Queued {
		t.Fatalf("during the run: %+v, want one active and none queued", st)
	}
	h.src.release <- struct{}{}
	h.until("the scout to be idle", h.idle)
	if n := h.src.runs.Load(); n != 1 {
		t.Fatalf("%d runs, want 1 (the triggers during the run are skipped)", n)
	}
	skipped := h.audit(scouts.AuditRunSkipped)
	if len(skipped) != 1 || !strings.Contains(skipped[0].Summary, "overlap policy is skip") {
		t.Fatalf("skip audit: %+v, want one event naming the policy", skipped)
	}
	// The next trigger after the run runs.
	h.engine.Trigger(h.scout.ID)
	h.waitStarted("a trigger after the run")
	h.src.release <- struct{}{}
	h.until("the scout to be idle", h.idle)
	if n := h.suggestions(); n != 1 {
		t.Fatalf("%d suggestions, want 1", n)
	}
}

// Under allow, triggers run at once beside each other, and the items they
// all find are recorded once.
func TestOverlapAllow(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{Overlap: scouts.OverlapAllow}, "a", "b", "c")
	h.start()
	h.waitStarted("the start's run")
	h.engine.Trigger(h.scout.ID)
	h.waitStarted("a second run beside the first")
	h.engine.Trigger(h.scout.ID)
	h.waitStarted("a third run beside the others")
	if n := h.src.active.Load(); n != 3 {
		t.Fatalf("%d runs in progress, want 3", n)
	}
	for range 3 {
		h.src.release <- struct{}{}
	}
	h.until("the scout to be idle", h.idle)
	if n := h.suggestions(); n != 3 {
		t.Fatalf("%d suggestions, want 3: overlapping runs must not duplicate", n)
	}
	if locks, _ := h.db.RunLocks(context.Background()); len(locks) != 0 {
		t.Fatalf("locks left: %+v (allow takes none)", locks)
	}
}

// A lock left by a holder that died is taken over at once, audited, and
// the run completes once.
func TestRunLockTakenOverFromDeadHolder(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{}, "a")
	ctx := context.Background()
	dead := h.runState("crashed")
	if g, err := dead.AcquireRunLock(ctx, h.scout.ID, *h.now.Load()); err != nil || !g.Acquired {
		t.Fatalf("plant the lock: %+v %v", g, err)
	}
	h.gone.Store("crashed", "process 4242 is gone")
	h.start()
	h.waitStarted("the run after the takeover")
	h.src.release <- struct{}{}
	h.until("the scout to be idle", h.idle)
	took := h.audit(scouts.AuditLockTakenOver)
	if len(took) != 1 || !strings.Contains(took[0].Summary, "process 4242 is gone") {
		t.Fatalf("takeover audit: %+v", took)
	}
	if n := h.suggestions(); n != 1 {
		t.Fatalf("%d suggestions, want 1", n)
	}
	if locks, _ := h.db.RunLocks(ctx); len(locks) != 0 {
		t.Fatalf("the lock was not released: %+v", locks)
	}
	// The dead holder's heartbeat now fails: it lost the lock.
	if err := dead.HeartbeatRunLock(ctx, h.scout.ID, *h.now.Load()); err != engine.ErrLockLost {
		t.Fatalf("the old holder's heartbeat: %v, want ErrLockLost", err)
	}
}

// A live holder's lock makes a queue-one run wait; once the holder stops
// renewing it for the stale bound, the run takes it over.
func TestRunLockStaleAfterBound(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{}, "a")
	ctx := context.Background()
	other := h.runState("other")
	if g, err := other.AcquireRunLock(ctx, h.scout.ID, *h.now.Load()); err != nil || !g.Acquired {
		t.Fatalf("plant the lock: %+v %v", g, err)
	}
	refused := make(chan engine.LockGrant, 100)
	h.refused = refused
	h.start()
	select {
	case <-refused:
	case <-time.After(30 * time.Second):
		t.Fatalf("the run never asked for the lock in 30s: run status %+v", h.engine.RunStatus(h.scout.ID))
	}
	if st := h.engine.RunStatus(h.scout.ID); st.Active != 1 || h.src.runs.Load() != 0 {
		t.Fatalf("while another live holder holds the lock: %+v, %d runs; want one run waiting, none run", st, h.src.runs.Load())
	}
	later := h.now.Load().Add(h.stale)
	h.now.Store(&later)
	h.waitStarted("the run after the stale bound")
	h.src.release <- struct{}{}
	h.until("the scout to be idle", h.idle)
	took := h.audit(scouts.AuditLockTakenOver)
	if len(took) != 1 || !strings.Contains(took[0].Summary, "last heartbeat was 1m0s ago") {
		t.Fatalf("takeover audit: %+v", took)
	}
}

// Under skip, a lock held by a live holder skips the run.
func TestRunLockHeldSkips(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{Overlap: scouts.OverlapSkip}, "a")
	ctx := context.Background()
	if g, err := h.runState("other").AcquireRunLock(ctx, h.scout.ID, *h.now.Load()); err != nil || !g.Acquired {
		t.Fatalf("plant the lock: %+v %v", g, err)
	}
	h.start()
	h.until("a skip", func() bool { return len(h.audit(scouts.AuditRunSkipped)) == 1 })
	h.until("the scout to be idle", h.idle)
	if n := h.src.runs.Load(); n != 0 {
		t.Fatalf("%d runs while another process held the lock", n)
	}
	h.until("the skip announced", func() bool { return len(h.announcements()) == 1 })
	if a := h.announcements()[0]; a.status.Active != 0 || a.status.Queued {
		t.Fatalf("as the skip was announced the scout had %+v; want nothing in progress", a.status)
	}
}

// A run is announced once it is over in every respect: a window reading
// the scout on "scout.run" finds it recorded, no run in progress and its
// lock released. Announced before, the window showed the run as going on.
func TestRunAnnouncedOnceOver(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{}, "a")
	h.start()
	h.waitStarted("the start's run")
	h.src.release <- struct{}{}
	h.until("the run announced", func() bool { return len(h.announcements()) == 1 })
	a := h.announcements()[0]
	if a.status.Active != 0 || a.status.Queued || a.locks != 0 {
		t.Fatalf("as the run was announced the scout had %+v and %d run locks; want nothing in progress and no lock", a.status, a.locks)
	}
	if runs := h.runs(); len(runs) != 1 || runs[0].Outcome != scouts.RunOK {
		t.Fatalf("runs after the announcement: %+v, want the run, ok", runs)
	}
}

// A scheduled run missed while the agent was off runs once at start under
// run-once, and not under skip; either way it is audited.
func TestCatchUp(t *testing.T) {
	for _, tc := range []struct {
		policy  scouts.CatchUp
		runs    int32
		audit   string
		outcome scouts.RunOutcome // of the catch-up in the run history
	}{{scouts.CatchUpRunOnce, 1, scouts.AuditRunCaughtUp, scouts.RunOK}, {scouts.CatchUpSkip, 0, scouts.AuditRunSkipped, scouts.RunSkipped}} {
		t.Run(string(tc.policy), func(t *testing.T) {
			h := newRunHarness(t, scouts.Schedule{Cron: "0 * * * *", TimeZone: "UTC", CatchUp: tc.policy}, "a")
			rs := h.runState("engine")
			// The last scheduled run was at 06:00; it is 09:00 now.
			if err := rs.SetLastScheduled(context.Background(), h.scout.ID, h.now.Load().Add(-3*time.Hour)); err != nil {
				t.Fatal(err)
			}
			h.start()
			if tc.runs > 0 {
				// The decision is audited before the run it makes starts.
				h.waitStarted("the catch-up run")
				h.src.release <- struct{}{}
			}
			h.until("the catch-up decision", func() bool { return len(h.audit(tc.audit)) == 1 })
			h.until("the scout to be idle", h.idle)
			if n := h.src.runs.Load(); n != tc.runs {
				t.Fatalf("%d runs at start, want %d", n, tc.runs)
			}
			h.until("the catch-up in the run history", func() bool { return len(h.runs()) == 1 })
			if r := h.runs()[0]; r.Trigger != scouts.TriggerCatchUp || r.Outcome != tc.outcome {
				t.Fatalf("run history: %+v, want a catch-up, %s", r, tc.outcome)
			}
			// Either way the missed time is remembered: no second catch-up.
			h.until("the last scheduled time to move", func() bool {
				last, err := rs.LastScheduled(context.Background(), h.scout.ID)
				return err == nil && !last.Before(*h.now.Load())
			})
		})
	}
}

// A runner restarted while the agent runs (its scout edited or
// re-enabled, or created a moment before its runner got to start under
// load) missed nothing "while the agent was off": it does not catch up.
// Before, a scout never run on its schedule counted what it missed from
// when it was defined, so a restart past its first scheduled time made a
// catch-up run the schedule never asked for (seen as a flaky "a run
// started by catch-up" in the Gmail schedule test).
func TestRestartInARunningAgentDoesNotCatchUp(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{Cron: "0 * * * *", TimeZone: "UTC"}, "a")
	read := make(chan struct{}, 4)
	var rs engine.RunState = readingRunState{RunState: h.runState("engine"), read: read}
	h.engine = engine.New(engine.Config{
		Emit:  h.emit,
		Store: h.db,
		Openers: map[scouts.Kind]scouts.Opener{scouts.KindFolder: func(context.Context, scouts.Scout) (scouts.SourceConnector, error) {
			return h.src, nil
		}},
		Now:           func() time.Time { return *h.now.Load() },
		PollInterval:  time.Hour,
		SweepInterval: time.Hour,
		RunState:      rs,
	})
	if err := h.engine.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-read // the first start read its last scheduled time: nothing missed at 09:00

	// Two and a half hours later, still running, the scout is disabled
	// and enabled again: 10:00 and 11:00 passed while its runner was away,
	// but the agent was there.
	later := h.now.Load().Add(150 * time.Minute)
	h.now.Store(&later)
	off := h.scout
	off.Enabled = false
	h.engine.Sync(off)
	h.engine.Sync(h.scout)
	<-read
	// Stopping waits for the runner's schedule, whose catch-up decision
	// follows that read and is audited whatever the context.
	h.engine.Stop()
	if got := h.audit(scouts.AuditRunCaughtUp); len(got) != 0 {
		t.Fatalf("a restart within the running agent caught up: %+v", got)
	}
	if n := h.src.runs.Load(); n != 0 {
		t.Fatalf("%d runs, want none before the next scheduled time", n)
	}
}

// readingRunState tells the test each time a runner read its last
// scheduled time, which its catch-up decision follows.
type readingRunState struct {
	engine.RunState
	read chan<- struct{}
}

func (r readingRunState) LastScheduled(ctx context.Context, scoutID string) (time.Time, error) {
	t, err := r.RunState.LastScheduled(ctx, scoutID)
	r.read <- struct{}{}
	return t, err
}

// A scout with a cron schedule does not run at start when nothing was
// missed; it runs at its next scheduled time.
func TestScheduleFires(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{Cron: "@every 1s"}, "a")
	// Real time: the schedule's timer waits on the wall clock.
	now := time.Now().UTC()
	h.now.Store(&now)
	h.scout.UpdatedAt = now
	if err := h.db.UpdateScout(context.Background(), h.scout); err != nil {
		t.Fatal(err)
	}
	h.engine = nil
	h.startWallClock()
	h.waitStarted("the scheduled run")
	h.src.release <- struct{}{}
	h.until("the suggestion", func() bool { return h.suggestions() == 1 })
	h.until("the run in the history", func() bool { return len(h.runs()) > 0 })
	if r := h.runs(); r[len(r)-1].Trigger != scouts.TriggerSchedule {
		t.Fatalf("the first run: %+v, want the schedule's", r[len(r)-1])
	}
	h.until("the last scheduled time", func() bool {
		last, err := h.db.RunState(localdb.RunStateOptions{Holder: holder("engine")}).LastScheduled(context.Background(), h.scout.ID)
		return err == nil && last.After(now)
	})
}

func (h *runHarness) startWallClock() {
	h.t.Helper()
	h.engine = engine.New(engine.Config{
		Store: h.db,
		Openers: map[scouts.Kind]scouts.Opener{scouts.KindFolder: func(context.Context, scouts.Scout) (scouts.SourceConnector, error) {
			return h.src, nil
		}},
		PollInterval:  time.Hour,
		SweepInterval: time.Hour,
		RunState:      h.runState("engine"),
		Emit:          h.emit,
	})
	ctx, cancel := context.WithCancel(context.Background())
	h.t.Cleanup(func() { cancel(); h.engine.Stop() })
	if err := h.engine.Start(ctx); err != nil {
		h.t.Fatal(err)
	}
}
