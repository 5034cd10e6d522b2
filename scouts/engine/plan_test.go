package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// fakeExec is a remote action's executor that records each call by key
// and fails as the test scripts it.
type fakeExec struct {
	mu    sync.Mutex
	calls map[string]int
	fail  []error // returned by the next calls, in order
	block chan struct{}
	got   chan string
}

func newFakeExec() *fakeExec {
	return &fakeExec{calls: map[string]int{}, got: make(chan string, 100)}
}

func (f *fakeExec) Check(context.Context, engine.Invocation) error { return nil }

func (f *fakeExec) Execute(ctx context.Context, inv engine.Invocation) (json.RawMessage, error) {
	f.mu.Lock()
	f.calls[inv.Key]++
	var err error
	if len(f.fail) > 0 {
		err, f.fail = f.fail[0], f.fail[1:]
	}
	block := f.block
	f.mu.Unlock()
	f.got <- inv.Key
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	return json.RawMessage(`{"ok":true}`), nil
}

func (f *fakeExec) count(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

// planHarness is a Gmail-like scout whose remote actions run on fakes.
type planHarness struct {
	*harness
	exec *fakeExec
	opts []func(*engine.Config)
}

func newPlanHarness(t *testing.T, review bool, opts ...func(*engine.Config)) *planHarness {
	t.Helper()
	ctx := context.Background()
	db, err := localdb.Open(ctx, filepath.Join(t.TempDir(), "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &harness{t: t, db: db, src: newSource(), events: make(chan scouts.Event, 1000)}
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	h.now.Store(&now)
	h.scout = scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindGmail, Name: "Mail", Enabled: true, Review: review,
		Config: []byte(`{}`), CreatedAt: now, UpdatedAt: now}
	if err := db.CreateScout(ctx, h.scout); err != nil {
		t.Fatal(err)
	}
	p := &planHarness{harness: h, exec: newFakeExec(), opts: opts}
	h.engine = p.newEngine()
	return p
}

func (p *planHarness) newEngine() *engine.Engine {
	h := p.harness
	execs := map[string]engine.ActionExecutor{}
	for _, a := range []string{actions.GmailArchive, actions.GmailLabel, actions.GmailTrash, actions.WebhookPost} {
		execs[a] = p.exec
	}
	cfg := engine.Config{
		Store: h.db,
		Openers: map[scouts.Kind]scouts.Opener{scouts.KindGmail: func(context.Context, scouts.Scout) (scouts.SourceConnector, error) {
			return h.src, nil
		}},
		Emit:          func(e scouts.Event) { h.events <- e },
		Now:           func() time.Time { return *h.now.Load() },
		PollInterval:  time.Hour,
		SweepInterval: time.Hour,
		Executors:     execs,
	}
	for _, o := range p.opts {
		o(&cfg)
	}
	return engine.New(cfg)
}

func (s *source) addKind(ref, title string, kind scouts.EntityKind) {
	s.add(ref, title)
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.meta[ref]
	m.ProposedKind = kind
	s.meta[ref] = m
}

func (h *harness) advance(d time.Duration) {
	t := h.now.Load().Add(d)
	h.now.Store(&t)
}

// waitAction waits until the suggestion's nth action is in state.
func (h *harness) waitAction(id string, n int, state engine.ActionState) engine.ActionRun {
	h.t.Helper()
	return h.waitActionWith(id, n, func(r engine.ActionRun) bool { return r.State == state })
}

func (h *harness) audit(trace string) []scouts.AuditEvent {
	h.t.Helper()
	evs, err := h.db.ListAudit(context.Background(), localdb.AuditFilter{TraceID: trace})
	if err != nil {
		h.t.Fatal(err)
	}
	return evs
}

// checkActionAudit checks that every entry of the trail about an action —
// any action.* or policy.changed entry, and any other naming an action —
// names the action, its mode and where the mode came from.
func checkActionAudit(t *testing.T, evs []scouts.AuditEvent) {
	t.Helper()
	for _, e := range evs {
		about := strings.HasPrefix(e.Type, "action.") || e.Type == scouts.AuditPolicyChanged
		if !about && e.Refs["action"] == "" {
			continue
		}
		if e.Refs["action"] == "" || e.Refs["mode"] == "" || e.Refs["mode_source"] == "" {
			t.Errorf("audit %s %q does not name its action, its mode and the mode's source: %v", e.Type, e.Summary, e.Refs)
		}
	}
}

func steps(plan engine.SuggestionPlan) []string {
	var out []string
	for _, s := range plan.Proposed {
		out = append(out, fmt.Sprintf("%s %s/%s enabled=%v %s", s.Action, s.Mode, s.Source, s.Enabled, s.Origin))
	}
	return out
}

func TestPlanProposesTheEntityAndTheDefaultsWithTheirModes(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.add("m1", "Invoice")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]

	plan, err := h.engine.Plan(ctx, s.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"note.create require_approval/inferred enabled=true kind", "gmail.archive require_approval/inferred enabled=true default"}
	if got := steps(plan); !slices.Equal(got, want) {
		t.Fatalf("plan %q, want %q", got, want)
	}

	// The user's defaults add a label; policies change the modes.
	if err := h.engine.SetPlanDefaults(ctx, engine.PlanDefaults{GmailArchive: true, GmailLabel: "Scouts"}, "test"); err != nil {
		t.Fatal(err)
	}
	err = h.engine.SetPolicies(ctx, []engine.PolicyChange{
		{Action: "gmail.label", Mode: actions.Allow},
		{ScoutID: h.scout.ID, Action: "gmail.archive", Mode: actions.Deny},
		{Action: "gmail.archive", Mode: actions.Allow},
	}, "test")
	if err != nil {
		t.Fatal(err)
	}
	plan, err = h.engine.Plan(ctx, s.ID, scouts.EntityTask)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"task.create require_approval/inferred enabled=true kind",
		// The scout's deny wins over the global allow; it is shown, unticked.
		"gmail.archive deny/scout enabled=false default",
		"gmail.label allow/global enabled=true default",
	}
	if got := steps(plan); !slices.Equal(got, want) {
		t.Fatalf("plan %q, want %q", got, want)
	}
}

func TestApprovalRecordsThePlanInTheDecisionAndTheOutboxRunsItOnce(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.add("m1", "Invoice")
	h.src.content["m1"] = "Please pay"
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]

	ent, created, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask})
	if err != nil || !created {
		t.Fatal(created, err)
	}
	runs, err := h.db.ActionRuns(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Written with the decision: the entity's action done, the archive
	// and the step that reads the mail's text into the task in the outbox.
	if len(runs) != 3 || runs[0].Action != "task.create" || runs[0].State != engine.ActionDone || runs[1].Action != "gmail.archive" ||
		runs[2].Action != engine.FillBody {
		t.Fatalf("actions after the approval: %+v", runs)
	}
	if !strings.Contains(string(runs[0].Result), ent.ID) {
		t.Errorf("the entity action's result %s does not name %s", runs[0].Result, ent.ID)
	}
	done := h.waitAction(s.ID, 2, engine.ActionDone)
	if done.Key != engine.ActionKey(s.ID, 2) || h.exec.count(done.Key) != 1 || done.Attempts != 1 {
		t.Fatalf("archive ran %d times, key %s, %d attempts", h.exec.count(done.Key), done.Key, done.Attempts)
	}
	// Approving again changes nothing and queues nothing.
	if _, created, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask}); err != nil || created {
		t.Fatal(created, err)
	}
	if runs, _ := h.db.ActionRuns(ctx, s.ID); len(runs) != 3 {
		t.Fatalf("%d actions after approving twice", len(runs))
	}
	// The archive's story (the text step's entries interleave with it).
	evs := slices.DeleteFunc(h.audit(s.TraceID), func(e scouts.AuditEvent) bool { return e.Refs["action"] == engine.FillBody })
	var types []string
	for _, e := range evs {
		types = append(types, e.Type)
	}
	want := []string{scouts.AuditApproved, scouts.AuditEntityCreated, scouts.AuditActionQueued, scouts.AuditActionAttempt, scouts.AuditActionDone}
	if !slices.Equal(types[len(types)-len(want):], want) {
		t.Fatalf("trail %v, want it to end with %v", types, want)
	}
	checkActionAudit(t, evs)
	if e := evs[len(evs)-3]; e.Refs["mode"] != "require_approval" || e.Refs["mode_source"] != "inferred" || e.Refs["key"] != done.Key {
		t.Errorf("queued entry refs %v", e.Refs)
	}
}

func TestUntickedActionsDoNotRunAndChoicesAreChecked(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.add("m1", "One")
	h.src.add("m2", "Two")
	h.start()
	list := h.suggestions(scouts.StatusPending)
	a, b := list[0], list[1]

	bad := []struct {
		plan []engine.PlanChoice
		says string
	}{
		{[]engine.PlanChoice{{Action: "gmail.delete", Enabled: true}}, "unknown action"},
		{[]engine.PlanChoice{{Action: "gmail.label", Params: json.RawMessage(`{}`), Enabled: true}}, "label"},
		{[]engine.PlanChoice{{Action: "note.create", Enabled: true}}, "does not match approving as a task"},
		{[]engine.PlanChoice{{Action: "task.create", Enabled: false}}, "cannot be unticked"},
		{[]engine.PlanChoice{{Action: "file.move", Params: json.RawMessage(`{"to":"/tmp"}`), Enabled: true}}, "folder cards only"},
	}
	for _, tc := range bad {
		_, _, err := h.engine.Approve(ctx, a.ID, engine.Approval{As: scouts.EntityTask, Plan: tc.plan})
		if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("plan %+v: %v, want an invalid error saying %q", tc.plan, err, tc.says)
		}
	}
	if got, _ := h.db.GetSuggestion(ctx, a.ID); got.Status != scouts.StatusPending {
		t.Fatalf("a refused plan decided the card: %s", got.Status)
	}

	plan := []engine.PlanChoice{{Action: "gmail.archive", Enabled: false}, {Action: "gmail.label", Params: json.RawMessage(`{"label":"Later"}`), Enabled: true}}
	if _, _, err := h.engine.Approve(ctx, b.ID, engine.Approval{As: scouts.EntityNote, Plan: plan}); err != nil {
		t.Fatal(err)
	}
	runs, _ := h.db.ActionRuns(ctx, b.ID)
	var names []string
	for _, r := range runs {
		names = append(names, r.Action+" "+r.Origin)
	}
	if !slices.Equal(names, []string{"note.create kind", "gmail.label user", "entity.fill_body kind"}) {
		t.Fatalf("recorded %v", names)
	}
	h.waitAction(b.ID, 2, engine.ActionDone)
	left := false
	for _, e := range h.audit(b.TraceID) {
		if e.Type == scouts.AuditActionLeftOut {
			left = true
			if e.Refs["action"] != "gmail.archive" || e.Refs["mode"] != "require_approval" || e.Refs["mode_source"] != "inferred" || e.Refs["origin"] != "default" {
				t.Errorf("the unticked archive on the trail: %q %v", e.Summary, e.Refs)
			}
		}
	}
	if !left {
		t.Error("the unticked archive is not on the trail")
	}
	checkActionAudit(t, h.audit(b.TraceID))
}

func TestDenyIsNeverUpgraded(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.add("m1", "One")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(h.engine.SetPolicies(ctx, []engine.PolicyChange{{Action: "gmail.trash", Mode: actions.Deny}}, "test"))
	must(h.engine.SetPolicies(ctx, []engine.PolicyChange{{ScoutID: h.scout.ID, Action: "gmail.archive", Mode: actions.Deny}}, "test"))

	trash := []engine.PlanChoice{{Action: "gmail.trash", Enabled: true}}
	for _, always := range []bool{false, true} {
		_, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask, Plan: trash, Always: always})
		if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "denied by the global policy") {
			t.Fatalf("approving a denied action (always=%v): %v", always, err)
		}
		archive := []engine.PlanChoice{{Action: "gmail.archive", Enabled: true}}
		_, _, err = h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask, Plan: archive, Always: always})
		if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "denied by the scout policy") {
			t.Fatalf("approving an action the scout denies (always=%v): %v", always, err)
		}
	}
	// A scout override cannot lift the global deny, even in the same
	// request that would remove it afterwards.
	err := h.engine.SetPolicies(ctx, []engine.PolicyChange{{ScoutID: h.scout.ID, Action: "gmail.trash", Mode: actions.Allow}}, "test")
	if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "remove the global deny first") {
		t.Fatalf("override over a global deny: %v", err)
	}
	// Approve and always allow, with the denied actions unticked: only
	// what required approval becomes allowed; the denies stay.
	_, _, err = h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask, Always: true,
		Plan: []engine.PlanChoice{{Action: "gmail.archive", Enabled: false}, {Action: "gmail.label", Params: json.RawMessage(`{"label":"X"}`), Enabled: true}}})
	must(err)
	for action, want := range map[string]actions.Resolution{
		"gmail.trash":   {Mode: actions.Deny, Source: actions.SourceGlobal},
		"gmail.archive": {Mode: actions.Deny, Source: actions.SourceScout},
		"gmail.label":   {Mode: actions.Allow, Source: actions.SourceScout},
		"task.create":   {Mode: actions.Allow, Source: actions.SourceScout},
	} {
		if got, _ := h.engine.Resolve(ctx, h.scout.ID, action); got != want {
			t.Errorf("%s resolves to %+v, want %+v", action, got, want)
		}
	}
}

func TestApproveAndAlwaysAllowIsVisibleAndRevocable(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.add("m1", "One")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask, Always: true}); err != nil {
		t.Fatal(err)
	}
	// Visible: on the card's trail, and as live events.
	var changed []string
	for _, e := range h.audit(s.TraceID) {
		if e.Type == scouts.AuditPolicyChanged {
			changed = append(changed, e.Refs["action"]+"="+e.Refs["mode"]+"/"+e.Refs["mode_source"])
		}
	}
	slices.Sort(changed)
	if !slices.Equal(changed, []string{"gmail.archive=allow/scout", "task.create=allow/scout"}) {
		t.Fatalf("policy changes on the trail: %v", changed)
	}
	checkActionAudit(t, h.audit(s.TraceID))
	ev := h.waitEvent(scouts.EventPolicyChanged).Data.(engine.PolicyChange)
	if ev.ScoutID != h.scout.ID || ev.Mode != actions.Allow {
		t.Fatalf("event %+v", ev)
	}
	pol, _ := h.engine.Policies(ctx)
	if pol.Scouts[h.scout.ID]["task.create"] != actions.Allow || pol.Scouts[h.scout.ID]["gmail.archive"] != actions.Allow {
		t.Fatalf("policies %+v", pol)
	}

	// From now on a new mail is created and archived by the policy, and
	// its trail says which policy allowed each.
	h.src.add("m2", "Two")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	// m2 is proposed as a note, and only creating tasks was allowed.
	if m2, err := h.db.SuggestionByRef(ctx, h.scout.ID, "m2"); err != nil || m2.Status != scouts.StatusPending {
		t.Fatalf("m2 = %+v %v", m2, err)
	}
	h.src.addKind("m3", "Three", scouts.EntityTask)
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	m3, err := h.db.SuggestionByRef(ctx, h.scout.ID, "m3")
	if err != nil || m3.Status != scouts.StatusApproved || m3.ResolvedBy != "policy" {
		t.Fatalf("m3 = %+v %v", m3, err)
	}
	h.waitAction(m3.ID, 2, engine.ActionDone)
	evs := h.audit(m3.TraceID)
	checkActionAudit(t, evs)
	found := false
	for _, e := range evs {
		found = found || (e.Type == scouts.AuditActionQueued && strings.Contains(e.Summary, "a policy allows it") && e.Refs["mode_source"] == "scout")
	}
	if !found {
		t.Errorf("no trail entry says a policy allowed the archive: %+v", evs)
	}

	// Revocable: removing the overrides brings approval back.
	err = h.engine.SetPolicies(ctx, []engine.PolicyChange{{ScoutID: h.scout.ID, Action: "task.create"}, {ScoutID: h.scout.ID, Action: "gmail.archive"}}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := h.engine.Resolve(ctx, h.scout.ID, "task.create"); got != (actions.Resolution{Mode: actions.RequireApproval, Source: actions.SourceInferred}) {
		t.Fatalf("after revoking: %+v", got)
	}
	h.src.addKind("m4", "Four", scouts.EntityTask)
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if m4, _ := h.db.SuggestionByRef(ctx, h.scout.ID, "m4"); m4.Status != scouts.StatusPending {
		t.Fatalf("after revoking, m4 is %s", m4.Status)
	}
}

func TestFailingActionsAreVisibleAndCanBeRetriedOrDropped(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.add("m1", "One")
	h.src.add("m2", "Two")
	h.start()
	list := h.suggestions(scouts.StatusPending)
	a, b := list[0], list[1]

	// A transient failure: queued again with its error and next attempt.
	h.exec.fail = []error{errors.New("connection reset")}
	if _, _, err := h.engine.Approve(ctx, a.ID, engine.Approval{As: scouts.EntityTask}); err != nil {
		t.Fatal(err)
	}
	<-h.exec.got
	r := h.waitActionWith(a.ID, 2, func(r engine.ActionRun) bool { return r.LastError != "" })
	if r.State != engine.ActionQueued || !r.Failing() || !r.NextAt.After(*h.now.Load()) || !strings.Contains(r.LastError, "connection reset") {
		t.Fatalf("after a transient failure: %+v", r)
	}
	if n, _ := h.db.FailingActions(ctx); n != 1 {
		t.Fatalf("%d failing actions, want 1", n)
	}
	h.advance(time.Minute)
	h.engine.KickActions()
	if r := h.waitAction(a.ID, 2, engine.ActionDone); r.Attempts != 2 || r.LastError != "" {
		t.Fatalf("after the retry: %+v", r)
	}

	// A refusal: failed for good, until the person retries it.
	h.exec.fail = []error{scouts.Errorf(scouts.EInvalid, "no such label"), scouts.Errorf(scouts.EInvalid, "still no")}
	if _, _, err := h.engine.Approve(ctx, b.ID, engine.Approval{As: scouts.EntityTask}); err != nil {
		t.Fatal(err)
	}
	r = h.waitAction(b.ID, 2, engine.ActionFailed)
	if r.LastError != "no such label" {
		t.Fatalf("failed: %+v", r)
	}
	if _, err := h.engine.RetryAction(ctx, b.ID, 2, "test"); err != nil {
		t.Fatal(err)
	}
	<-h.exec.got
	<-h.exec.got
	r = h.waitActionWith(b.ID, 2, func(r engine.ActionRun) bool { return r.State == engine.ActionFailed && r.LastError == "still no" })
	if _, err := h.engine.DropAction(ctx, b.ID, 2, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.engine.RetryAction(ctx, b.ID, 2, "test"); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("retrying a dropped action: %v", err)
	}
	if _, err := h.engine.DropAction(ctx, b.ID, 1, "test"); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("dropping the done entity action: %v", err)
	}
	if _, err := h.engine.RetryAction(ctx, b.ID, 9, "test"); scouts.ErrorCode(err) != scouts.ENotFound {
		t.Fatalf("retrying an action that does not exist: %v", err)
	}
	if n, _ := h.db.FailingActions(ctx); n != 0 {
		t.Fatalf("%d failing actions after the drop", n)
	}
	want := []string{scouts.AuditActionFailed, scouts.AuditActionRetried, scouts.AuditActionAttempt, scouts.AuditActionFailed, scouts.AuditActionDropped}
	got := h.trail(b.TraceID)
	if !slices.Equal(got[len(got)-len(want):], want) {
		t.Fatalf("trail %v", got)
	}
	checkActionAudit(t, h.audit(b.TraceID))
}

// waitActionWith waits until the suggestion's nth action meets ok. The
// engine announces every change of an action run once it is stored, so the
// store is read again after each event (any event: an announced change may
// have been consumed by an earlier wait).
func (h *harness) waitActionWith(id string, n int, ok func(engine.ActionRun) bool) engine.ActionRun {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		runs, err := h.db.ActionRuns(context.Background(), id)
		if err != nil {
			h.t.Fatal(err)
		}
		for _, r := range runs {
			if r.N == n && ok(r) {
				return r
			}
		}
		select {
		case <-h.events:
		case <-deadline:
			h.t.Fatalf("action %d of %s: condition never met: %+v", n, id, runs)
		}
	}
}

func TestAnInterruptedAttemptRunsAgainAfterARestart(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.add("m1", "One")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	h.exec.block = make(chan struct{})
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask}); err != nil {
		t.Fatal(err)
	}
	<-h.exec.got // the attempt started and hangs
	h.engine.Stop()
	if r := h.waitAction(s.ID, 2, engine.ActionRunning); r.Attempts != 1 {
		t.Fatalf("%+v", r)
	}
	// A new agent on the same database: the attempt is queued again and
	// runs with the same key.
	h.exec.block = nil
	h.engine = h.newEngine()
	ctx2, cancel := context.WithCancel(ctx)
	t.Cleanup(func() { cancel(); h.engine.Stop() })
	if err := h.engine.Start(ctx2); err != nil {
		t.Fatal(err)
	}
	r := h.waitAction(s.ID, 2, engine.ActionDone)
	if h.exec.count(r.Key) != 2 || r.Attempts != 2 {
		t.Fatalf("key %s called %d times, %d attempts", r.Key, h.exec.count(r.Key), r.Attempts)
	}
	if !slices.Contains(h.trail(s.TraceID), scouts.AuditActionInterrupted) {
		t.Errorf("trail %v has no interruption", h.trail(s.TraceID))
	}
	checkActionAudit(t, h.audit(s.TraceID))
}

func TestUndoCancelsWhatHasNotRun(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.add("m1", "One")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	h.exec.fail = []error{errors.New("timeout")}
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask}); err != nil {
		t.Fatal(err)
	}
	h.waitActionWith(s.ID, 2, func(r engine.ActionRun) bool { return r.LastError != "" })
	if _, err := h.engine.Undo(ctx, s.ID, "test"); err != nil {
		t.Fatal(err)
	}
	runs, _ := h.db.ActionRuns(ctx, s.ID)
	// The task undone, the archive cancelled, the step reading the
	// mail's text undone with the task it filled (or cancelled).
	if runs[0].State != engine.ActionUndone || runs[1].State != engine.ActionCancelled ||
		(runs[2].State != engine.ActionUndone && runs[2].State != engine.ActionCancelled) {
		t.Fatalf("after undo: %+v", runs)
	}
	// Approving again numbers the new plan after the old one.
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityNote}); err != nil {
		t.Fatal(err)
	}
	r := h.waitAction(s.ID, 5, engine.ActionDone)
	if r.Key != engine.ActionKey(s.ID, 5) || r.Action != "gmail.archive" {
		t.Fatalf("%+v", r)
	}
	if !slices.Contains(h.trail(s.TraceID), scouts.AuditActionCancelled) {
		t.Errorf("trail %v has no cancellation", h.trail(s.TraceID))
	}
	checkActionAudit(t, h.audit(s.TraceID))
}

func TestADeniedKindCannotBeApproved(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.add("m1", "One")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	if err := h.engine.SetPolicies(ctx, []engine.PolicyChange{{ScoutID: h.scout.ID, Action: "task.create", Mode: actions.Deny}}, "test"); err != nil {
		t.Fatal(err)
	}
	for _, plan := range [][]engine.PlanChoice{nil, {{Action: "gmail.archive", Enabled: true}}} {
		_, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask, Plan: plan})
		if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "task.create is denied by the scout policy") {
			t.Fatalf("approving as a denied kind (plan %v): %v", plan, err)
		}
	}
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityNote}); err != nil {
		t.Fatal(err)
	}
}
