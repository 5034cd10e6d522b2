package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// runner runs one scout: a single goroutine waits for triggers (the
// source's watch, the scout's schedule, "run now") and runs the scout as
// its overlap policy says. Under skip and queue-one a run holds the
// scout's run lock in storage, so that a run survives neither twice nor
// not at all across a crash: a lock whose holder died is taken over.
type runner struct {
	e      *Engine
	scout  scouts.Scout
	conn   scouts.SourceConnector
	sched  *compiled // nil: no cron
	policy scouts.Overlap
	kick   chan scouts.RunTrigger // one run waiting, and what asked first for it
	sem    chan struct{}          // runs in progress under allow
	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	active    int       // runs in progress
	fired     time.Time // the latest scheduled time no run has started for yet
	wanted    bool      // a run was asked for and has not started
	skipNoted bool      // a skip was audited during the current runs
}

func newRunner(e *Engine, s scouts.Scout, conn scouts.SourceConnector) *runner {
	r := &runner{e: e, scout: s, conn: conn, policy: s.Schedule.OverlapOrDefault(),
		kick: make(chan scouts.RunTrigger, 1), sem: make(chan struct{}, MaxParallelRuns), done: make(chan struct{})}
	c, err := compileSchedule(s.Schedule)
	if err != nil {
		// Checked when saved: a schedule that no longer reads (a time zone
		// gone from this machine) is reported and the scout runs unscheduled.
		e.log.Warn("scout schedule unreadable; running without it", "scout", s.ID, "err", err)
		r.policy = scouts.OverlapQueueOne
	}
	r.sched = c
	return r
}

// trigger asks for a run now; trig says what asks.
func (r *runner) trigger(trig scouts.RunTrigger) { r.fire(time.Time{}, trig, "") }

// fire asks for a run; at is the scheduled time it serves (zero for other
// triggers), trig what asks (of triggers that coalesce into one run, its
// history names the first) and why names the trigger in a skip's audit.
func (r *runner) fire(at time.Time, trig scouts.RunTrigger, why string) {
	r.mu.Lock()
	if r.policy == scouts.OverlapSkip && r.active > 0 {
		noted := r.skipNoted
		r.skipNoted = true
		r.mu.Unlock()
		if !at.IsZero() {
			r.setLastScheduled(at)
		}
		if !noted {
			// Once per run in progress, as the audit: a burst of file
			// events must not wash the history out.
			if why == "" {
				why = "A trigger"
			}
			note := why + " came while a run was in progress; skipped (the scout's overlap policy is skip)"
			r.audit(scouts.AuditRunSkipped, scouts.OutcomeSkipped, note)
			r.e.skippedRun(r.scout.ID, trig, note)
		}
		return
	}
	if at.After(r.fired) {
		r.fired = at
	}
	r.wanted = true
	r.mu.Unlock()
	select {
	case r.kick <- trig:
	default: // a run is already waiting: triggers coalesce (the first names it)
	}
}

func (r *runner) stop() {
	r.cancel()
	<-r.done
}

func (r *runner) loop(ctx context.Context) {
	defer close(r.done)
	defer r.conn.Close()
	log := r.e.log.With("scout", r.scout.ID, "kind", r.scout.Kind)

	var bg sync.WaitGroup // watches, the schedule and runs under allow
	defer bg.Wait()
	bg.Add(1)
	go func() {
		defer bg.Done()
		r.watch(ctx, log)
	}()
	if wm, ok := r.conn.(scouts.WatchManager); ok {
		bg.Add(1)
		go func() {
			defer bg.Done()
			r.manageWatch(ctx, wm, log)
		}()
	}
	if r.sched != nil {
		bg.Add(1)
		go func() {
			defer bg.Done()
			r.schedule(ctx, log)
		}()
	} else {
		// Catch up on whatever arrived while the scout was not running.
		r.trigger(scouts.TriggerStart)
	}
	for {
		var why scouts.RunTrigger
		select {
		case <-ctx.Done():
			return
		case why = <-r.kick:
		}
		if r.e.Paused() {
			// Remember the request; SetPaused(false) triggers every runner
			// (the run then is the resume's).
			r.mu.Lock()
			r.wanted = len(r.kick) > 0
			r.mu.Unlock()
			continue
		}
		if r.policy != scouts.OverlapAllow {
			fired := r.begin()
			r.run(ctx, log, fired, why)
			if ctx.Err() != nil {
				return
			}
			continue
		}
		select {
		case r.sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		fired := r.begin()
		bg.Add(1)
		go func() {
			defer bg.Done()
			defer func() { <-r.sem }()
			r.run(ctx, log, fired, why)
		}()
	}
}

// begin counts a run in and takes the scheduled time it serves.
func (r *runner) begin() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active++
	r.wanted = len(r.kick) > 0
	fired := r.fired
	r.fired = time.Time{}
	return fired
}

func (r *runner) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active--
	if r.active == 0 {
		r.skipNoted = false
	}
}

// run is one run under the scout's lock; fired is the scheduled time it
// serves, recorded when it finishes so that a run cut short by a crash is
// caught up at the next start. The run goes into the scout's history with
// trig and the definition version in force once it holds the lock.
//
// The run is announced last: once recorded, its lock released and no
// longer counted in RunStatus. A window answers "scout.run" by reading the
// scout again; announced earlier, it read the run as still in progress and
// kept showing it so.
func (r *runner) run(ctx context.Context, log *slog.Logger, fired time.Time, trig scouts.RunTrigger) {
	done, ok := r.runLocked(ctx, log, fired, trig)
	r.end()
	if ok {
		r.e.announceRun(done)
	}
}

// runLocked is run up to its announcement: it returns the run as recorded,
// and false when there is nothing to announce (the scout stopped while the
// run waited for its lock).
func (r *runner) runLocked(ctx context.Context, log *slog.Logger, fired time.Time, trig scouts.RunTrigger) (scouts.Run, bool) {
	runCtx, release, instead := r.lock(ctx, log, trig)
	if runCtx == nil {
		return instead, instead.ID != ""
	}
	defer release()
	run := r.e.startRun(ctx, r.scout.ID, trig)
	r.e.beginRun(ctx, run)
	if r.e.cfg.RunContext != nil {
		runCtx = r.e.cfg.RunContext(runCtx, r.scout)
	}
	seen, n, err := r.e.runOnce(runCtx, r.scout, r.conn)
	run.Seen, run.New = seen, n
	if r.e.cfg.RunTokens != nil {
		run.Tokens, run.TokensKnown = r.e.cfg.RunTokens(runCtx, r.scout)
	}
	if ctx.Err() != nil {
		// Stopped mid-run: the cursor did not advance, nothing is lost.
		run.Outcome = scouts.RunStopped
		return r.e.storeRun(ctx, run), true
	}
	if err != nil && runCtx.Err() != nil && errors.Is(context.Cause(runCtx), ErrLockLost) {
		err = fmt.Errorf("run abandoned: %w", ErrLockLost)
	}
	run.Outcome = scouts.RunOK
	if err != nil {
		log.Warn("scout run failed", "err", err)
		run.Outcome, run.Error = scouts.RunFailed, err.Error()
	}
	run = r.e.storeRun(ctx, run)
	if !fired.IsZero() {
		r.setLastScheduled(fired)
	}
	return run, true
}

// lock takes the scout's run lock (none under allow, or without a
// RunState), waiting while another live holder runs it — or giving up at
// once under skip. The returned context ends if the lock is lost, so a
// run that is no longer the holder stops before it moves any cursor.
// Without the lock the context is nil, and instead is the run recorded in
// its place (failed, skipped) for the caller to announce, zero if none.
func (r *runner) lock(ctx context.Context, log *slog.Logger, trig scouts.RunTrigger) (_ context.Context, release func(), instead scouts.Run) {
	rs := r.e.cfg.RunState
	if rs == nil || r.policy == scouts.OverlapAllow {
		return ctx, func() {}, scouts.Run{}
	}
	waited := false
	for {
		g, err := rs.AcquireRunLock(ctx, r.scout.ID, r.e.cfg.Now())
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("scout run lock unavailable; run not started", "err", err)
				run := r.e.startRun(ctx, r.scout.ID, trig)
				run.Outcome, run.Error = scouts.RunFailed, fmt.Errorf("the run lock could not be taken: %w", err).Error()
				return nil, nil, r.e.storeRun(ctx, run)
			}
			return nil, nil, scouts.Run{}
		}
		if g.Acquired {
			if g.TookOver != "" {
				log.Warn("scout run lock taken over from a dead holder", "was", g.TookOver)
				r.audit(scouts.AuditLockTakenOver, scouts.OutcomeOK, "Took over the run lock: "+g.TookOver)
			}
			break
		}
		if r.policy == scouts.OverlapSkip {
			note := "Another process (" + g.Holder + ") is running the scout; skipped (the scout's overlap policy is skip)"
			r.audit(scouts.AuditRunSkipped, scouts.OutcomeSkipped, note)
			return nil, nil, r.e.storeSkipped(r.scout.ID, trig, note)
		}
		if !waited {
			log.Info("scout run waits for its lock", "holder", g.Holder)
			waited = true
		}
		t := time.NewTimer(r.e.cfg.LockRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, nil, scouts.Run{}
		case <-t.C:
		}
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	stopped := make(chan struct{})
	var hb sync.WaitGroup
	hb.Add(1)
	go func() {
		defer hb.Done()
		t := time.NewTicker(r.e.cfg.LockHeartbeat)
		defer t.Stop()
		for {
			select {
			case <-stopped:
				return
			case <-t.C:
			}
			err := rs.HeartbeatRunLock(runCtx, r.scout.ID, r.e.cfg.Now())
			if errors.Is(err, ErrLockLost) {
				log.Warn("scout run lock lost; abandoning the run")
				cancel(ErrLockLost)
				return
			}
			if err != nil && runCtx.Err() == nil {
				log.Warn("scout run lock heartbeat failed", "err", err)
			}
		}
	}()
	release = func() {
		close(stopped)
		hb.Wait()
		cancel(nil)
		if err := rs.ReleaseRunLock(context.WithoutCancel(ctx), r.scout.ID); err != nil {
			log.Warn("scout run lock release failed; it goes stale", "err", err)
		}
	}
	return runCtx, release, scouts.Run{}
}

// schedule fires the scout at its cron times, after catching up a run
// missed while the agent was off.
func (r *runner) schedule(ctx context.Context, log *slog.Logger) {
	now := r.e.cfg.Now()
	last := now
	if rs := r.e.cfg.RunState; rs != nil {
		t, err := rs.LastScheduled(ctx, r.scout.ID)
		switch {
		case err != nil:
			log.Warn("scout schedule: last run time unreadable; no catch-up", "err", err)
		case t.IsZero():
			// Never run on this schedule: what it missed counts from when
			// the scout was last defined.
			last = r.scout.UpdatedAt
		default:
			last = t
		}
	}
	// Only a time before the engine started was missed "while the agent
	// was off": a runner restarted later in the same process (its scout
	// edited, re-enabled, or created a moment before its runner got to
	// run under load) has missed nothing the agent was not there for, and
	// a catch-up then was a run its schedule never asked for.
	r.e.mu.Lock()
	started := r.e.started
	r.e.mu.Unlock()
	if missed := r.sched.next(last); !missed.IsZero() && !missed.After(now) && !missed.After(started) {
		when := missed.In(r.sched.loc).Format("2006-01-02 15:04 MST")
		if r.scout.Schedule.CatchUpOrDefault() == scouts.CatchUpRunOnce {
			r.audit(scouts.AuditRunCaughtUp, scouts.OutcomeOK, "The run scheduled for "+when+" was missed while the agent was off; running once now (catch-up run-once)")
			r.fire(now, scouts.TriggerCatchUp, "")
		} else {
			note := "The run scheduled for " + when + " was missed while the agent was off; waiting for the next scheduled time (catch-up skip)"
			r.audit(scouts.AuditRunSkipped, scouts.OutcomeSkipped, note)
			r.setLastScheduled(now)
			r.e.skippedRun(r.scout.ID, scouts.TriggerCatchUp, note)
		}
	}
	prev := now
	for {
		next := r.sched.next(later(r.e.cfg.Now(), prev))
		if next.IsZero() {
			return
		}
		t := time.NewTimer(next.Sub(r.e.cfg.Now()))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		prev = next
		r.fire(next, scouts.TriggerSchedule, "The run scheduled for "+next.In(r.sched.loc).Format("15:04:05 MST"))
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (r *runner) setLastScheduled(at time.Time) {
	rs := r.e.cfg.RunState
	if rs == nil {
		return
	}
	if err := rs.SetLastScheduled(context.Background(), r.scout.ID, at); err != nil {
		r.e.log.Warn("scout schedule: record the last run time", "scout", r.scout.ID, "err", err)
	}
}

// audit records an event about the scout's runs under a trace of its own.
func (r *runner) audit(typ, outcome, summary string) {
	ev := scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageRun, Type: typ, Outcome: outcome, Summary: summary,
		Refs: map[string]string{"scout_id": r.scout.ID, "actor": "scout"}, At: r.e.cfg.Now()}
	if err := r.e.cfg.Store.AppendAudit(context.Background(), ev); err != nil {
		r.e.log.Warn("audit a scout run event", "scout", r.scout.ID, "type", typ, "err", err)
	}
}

// watch runs the connector's watch. A source that cannot be watched, or
// whose watch fails, is polled: on the scout's schedule when it has one,
// else every poll interval.
func (r *runner) watch(ctx context.Context, log *slog.Logger) {
	err := r.conn.Watch(ctx, func() { r.trigger(scouts.TriggerSource) })
	if ctx.Err() != nil {
		return
	}
	if r.sched != nil {
		if err != nil && !errors.Is(err, scouts.ErrCannotWatch) {
			log.Warn("watch failed; running on the schedule only", "err", err)
			r.e.recordRun(ctx, r.scout.ID, 0, fmt.Errorf("live watch failed, running on the schedule (%s) only: %w", r.scout.Schedule.Cron, err))
		}
		<-ctx.Done()
		return
	}
	if err != nil && !errors.Is(err, scouts.ErrCannotWatch) {
		log.Warn("watch failed; polling instead", "err", err, "every", r.e.cfg.PollInterval)
		r.e.recordRun(ctx, r.scout.ID, 0, fmt.Errorf("live watch failed, polling every %s instead: %w", r.e.cfg.PollInterval, err))
	}
	t := time.NewTicker(r.e.cfg.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.trigger(scouts.TriggerPoll)
		}
	}
}

// manageWatch sets up the source's push subscription and renews it a day
// before it expires, retrying failures with backoff and reporting them in
// the scout's health so an expired watch is never silent.
func (r *runner) manageWatch(ctx context.Context, wm scouts.WatchManager, log *slog.Logger) {
	const renewBefore = 24 * time.Hour
	backoff := time.Minute
	for {
		expires, err := wm.SetupWatch(ctx)
		var wait time.Duration
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Warn("watch set-up failed", "err", err, "retry_in", backoff)
			r.e.recordRun(ctx, r.scout.ID, 0, fmt.Errorf("push watch could not be set up (retrying in %s): %w", backoff, err))
			wait = backoff
			backoff = min(backoff*2, time.Hour)
		} else {
			backoff = time.Minute
			wait = max(expires.Sub(r.e.cfg.Now())-renewBefore, time.Minute)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// RunStatus says whether a scout has runs in progress and one waiting.
type RunStatus struct {
	Active int  // runs in progress
	Queued bool // a run waits behind them
}

// RunStatus reports a scout's runs; zero when it has no runner.
func (e *Engine) RunStatus(scoutID string) RunStatus {
	e.mu.Lock()
	r := e.runners[scoutID]
	e.mu.Unlock()
	if r == nil {
		return RunStatus{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return RunStatus{Active: r.active, Queued: r.wanted}
}
