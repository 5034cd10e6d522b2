package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// source is a scripted SourceConnector: the test decides what is new, and
// the source behaves like a real one toward its cursor (items it delivered
// in a page that succeeded are not delivered again).
type source struct {
	mu       sync.Mutex
	items    []scouts.ItemRef // not yet past the cursor
	meta     map[string]scouts.ItemMetadata
	metaErr  map[string]error
	content  map[string]string
	pageSize int

	active, overlaps atomic.Int32
	runs             chan error    // one value per ListNew
	entered          chan struct{} // one value per ListNew, as it starts
	block            chan struct{}
	closed           atomic.Bool
	// reading, when set, gets a value as FetchContent starts and holds
	// it until read is closed: a source slow to read an item.
	reading chan struct{}
	read    chan struct{}
}

func newSource() *source {
	return &source{meta: map[string]scouts.ItemMetadata{}, metaErr: map[string]error{}, content: map[string]string{},
		pageSize: 2, runs: make(chan error, 100), entered: make(chan struct{}, 100)}
}

func (s *source) add(ref, title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, scouts.ItemRef{Ref: ref})
	s.meta[ref] = scouts.ItemMetadata{Title: title, Excerpt: "excerpt of " + title, ProposedKind: scouts.EntityNote, Reason: "test"}
}

func (s *source) ListNew(ctx context.Context, page func(context.Context, []scouts.ItemRef) error) (err error) {
	if s.active.Add(1) > 1 {
		s.overlaps.Add(1)
	}
	defer s.active.Add(-1)
	defer func() { s.runs <- err }()
	select {
	case s.entered <- struct{}{}:
	default: // nobody is listening
	}
	if s.block != nil {
		<-s.block
	}
	for {
		s.mu.Lock()
		n := min(s.pageSize, len(s.items))
		batch := append([]scouts.ItemRef(nil), s.items[:n]...)
		s.mu.Unlock()
		if n == 0 {
			return nil
		}
		if err := page(ctx, batch); err != nil {
			return err
		}
		s.mu.Lock()
		s.items = s.items[n:]
		s.mu.Unlock()
	}
}

func (s *source) FetchMetadata(ctx context.Context, ref string) (scouts.ItemMetadata, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.metaErr[ref]; err != nil {
		return scouts.ItemMetadata{}, err
	}
	return s.meta[ref], nil
}

func (s *source) FetchContent(ctx context.Context, ref string) (scouts.ItemContent, error) {
	if s.reading != nil {
		s.reading <- struct{}{}
		<-s.read
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.content[ref]
	if !ok {
		return scouts.ItemContent{}, scouts.Skip("gone")
	}
	return scouts.ItemContent{Text: c}, nil
}

func (s *source) Watch(ctx context.Context, notify func()) error { return scouts.ErrCannotWatch }
func (s *source) Close() error                                   { s.closed.Store(true); return nil }

type harness struct {
	t      *testing.T
	db     *localdb.DB
	engine *engine.Engine
	src    *source
	scout  scouts.Scout
	events chan scouts.Event
	now    atomic.Pointer[time.Time]
}

func newHarness(t *testing.T, review bool) *harness {
	t.Helper()
	return newHarnessOf(t, review, scouts.KindFolder)
}

// newHarnessOf is newHarness with a scout of kind, its items still the
// harness's source.
func newHarnessOf(t *testing.T, review bool, kind scouts.Kind) *harness {
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
	h.scout = scouts.Scout{ID: scouts.NewID("sc"), Kind: kind, Name: "Test", Enabled: true, Review: review,
		Config: []byte(`{}`), CreatedAt: now, UpdatedAt: now}
	if err := db.CreateScout(ctx, h.scout); err != nil {
		t.Fatal(err)
	}
	h.engine = engine.New(engine.Config{
		Store: db,
		Openers: map[scouts.Kind]scouts.Opener{kind: func(context.Context, scouts.Scout) (scouts.SourceConnector, error) {
			return h.src, nil
		}},
		Emit:         func(e scouts.Event) { h.events <- e },
		Now:          func() time.Time { return *h.now.Load() },
		PollInterval: time.Hour,
		// The tests sweep and settle silence themselves, at the times
		// they move the clock to: a sweep of the engine's own, reading
		// the clock as a test moves it, settled the cards a test was
		// about to (TestMailSentToASenderTeachesWanted: "settled 0").
		SweepInterval: -1,
	})
	return h
}

func (h *harness) start() {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h.t.Cleanup(func() { cancel(); h.engine.Stop() })
	if err := h.engine.Start(ctx); err != nil {
		h.t.Fatal(err)
	}
	h.waitRun() // the catch-up run every runner starts with
}

// waitRun waits for the next ListNew to finish and returns its error.
func (h *harness) waitRun() error {
	h.t.Helper()
	select {
	case err := <-h.src.runs:
		// The run's result is recorded after ListNew returns; wait for it.
		h.waitEvent(scouts.EventScoutRun)
		return err
	case <-time.After(10 * time.Second):
		h.t.Fatal("no scout run within 10s")
	}
	return nil
}

func (h *harness) waitEvent(typ string) scouts.Event {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-h.events:
			if e.Type == typ {
				return e
			}
		case <-deadline:
			h.t.Fatalf("no %s event within 10s", typ)
		}
	}
}

func (h *harness) run() error {
	h.t.Helper()
	h.engine.Trigger(h.scout.ID)
	return h.waitRun()
}

func (h *harness) suggestions(status scouts.Status) []scouts.Suggestion {
	h.t.Helper()
	list, err := h.db.ListSuggestions(context.Background(), localdb.SuggestionFilter{Status: status, ScoutID: h.scout.ID})
	if err != nil {
		h.t.Fatal(err)
	}
	return list
}

func (h *harness) trail(trace string) []string {
	h.t.Helper()
	evs, err := h.db.ListAudit(context.Background(), localdb.AuditFilter{TraceID: trace})
	if err != nil {
		h.t.Fatal(err)
	}
	var types []string
	for _, e := range evs {
		types = append(types, e.Type)
	}
	return types
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReviewScoutSuggestsEachItemOnceWithItsStory(t *testing.T) {
	h := newHarness(t, true)
	h.src.add("a", "Alpha")
	h.src.add("b", "Beta")
	h.src.add("c", "Gamma")
	h.start()

	pending := h.suggestions(scouts.StatusPending)
	if len(pending) != 3 {
		t.Fatalf("%d pending suggestions, want 3", len(pending))
	}
	s := pending[0]
	if s.Title != "Alpha" || s.ProposedKind != scouts.EntityNote || s.Excerpt != "excerpt of Alpha" || s.TraceID == "" {
		t.Fatalf("suggestion = %+v", s)
	}
	if got := h.trail(s.TraceID); !equal(got, []string{scouts.AuditItemDetected, scouts.AuditSuggestionCreated}) {
		t.Fatalf("trail %v", got)
	}
	// The same items detected again (a rescan, a crash before the cursor
	// moved) change nothing.
	h.src.add("a", "Alpha again")
	h.src.add("b", "Beta again")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if n := len(h.suggestions("")); n != 3 {
		t.Fatalf("%d suggestions after re-detection, want 3", n)
	}
}

func TestAutoScoutCreatesEntitiesDirectlyAndAuditsThePolicy(t *testing.T) {
	h := newHarness(t, false)
	h.src.add("a", "Alpha")
	h.start()
	approved := h.suggestions(scouts.StatusApproved)
	if len(approved) != 1 || approved[0].ResolvedEntityID == "" {
		t.Fatalf("approved = %+v", approved)
	}
	e, err := h.db.GetEntity(context.Background(), scouts.EntityNote, approved[0].ResolvedEntityID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Title != "Alpha" || e.SourceSuggestionID != approved[0].ID {
		t.Fatalf("entity = %+v", e)
	}
	want := []string{scouts.AuditItemDetected, scouts.AuditSuggestionCreated, scouts.AuditAutoApproved, scouts.AuditEntityCreated}
	if got := h.trail(approved[0].TraceID); !equal(got, want) {
		t.Fatalf("trail %v, want %v", got, want)
	}
}

func TestFailedPageIsRetriedWithoutDuplicates(t *testing.T) {
	h := newHarness(t, true)
	h.src.add("a", "Alpha")
	h.src.add("b", "Beta")
	h.src.add("c", "Gamma")
	h.src.add("d", "Delta")
	h.src.metaErr["c"] = errors.New("source unreachable")
	h.start() // first page (a, b) lands; second page fails on c

	if n := len(h.suggestions("")); n != 2 {
		t.Fatalf("%d suggestions after a failed page, want 2", n)
	}
	sc, _ := h.db.GetScout(context.Background(), h.scout.ID)
	if sc.LastError == "" {
		t.Fatal("a failed run left no error in the scout's health")
	}
	h.src.mu.Lock()
	delete(h.src.metaErr, "c")
	h.src.mu.Unlock()
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if n := len(h.suggestions("")); n != 4 {
		t.Fatalf("%d suggestions after retry, want 4", n)
	}
	sc, _ = h.db.GetScout(context.Background(), h.scout.ID)
	if sc.LastError != "" || sc.TotalNew != 4 {
		t.Fatalf("health after recovery = %q, total %d", sc.LastError, sc.TotalNew)
	}
}

func TestProblemsAreAuditedNotSuggested(t *testing.T) {
	h := newHarness(t, true)
	h.src.items = append(h.src.items, scouts.ItemRef{Ref: "x", Problem: "cannot read x: permission denied"})
	h.src.add("gone", "Gone")
	h.src.metaErr["gone"] = scouts.Skip("vanished before it could be read")
	h.start()
	if n := len(h.suggestions("")); n != 0 {
		t.Fatalf("%d suggestions, want 0", n)
	}
	evs, _ := h.db.ListAudit(context.Background(), localdb.AuditFilter{})
	var summaries []string
	for _, e := range evs {
		if e.Type == scouts.AuditItemSkipped {
			summaries = append(summaries, e.Summary)
		}
	}
	if !equal(summaries, []string{"cannot read x: permission denied", "vanished before it could be read"}) {
		t.Fatalf("skipped audit = %q", summaries)
	}
}

func TestApproveIsIdempotentAndDecisionsAreFinal(t *testing.T) {
	h := newHarness(t, true)
	h.src.add("a", "Alpha")
	h.src.add("b", "Beta")
	h.src.content["a"] = "The whole of Alpha."
	h.start()
	ctx := context.Background()
	p := h.suggestions(scouts.StatusPending)
	a, b := p[0], p[1]
	if a.Title != "Alpha" || b.Title != "Beta" {
		t.Fatalf("pending suggestions not in detection order: %q, %q", a.Title, b.Title)
	}

	e1, created, err := h.engine.Approve(ctx, a.ID, engine.Approval{As: scouts.EntityTask})
	if err != nil || !created {
		t.Fatalf("approve: %v created=%v", err, created)
	}
	// The approval answers with the card's excerpt, the text to come; the
	// outbox reads it afterwards (entity.fill_body).
	if e1.Body != "excerpt of Alpha" || !e1.BodyPending || e1.SourceSuggestionID != a.ID || e1.Kind != scouts.EntityTask {
		t.Fatalf("entity = %+v", e1)
	}
	h.waitAction(a.ID, 2, engine.ActionDone) // the plan's one action (the task) and entity.fill_body
	if got, err := h.db.GetEntity(ctx, scouts.EntityTask, e1.ID); err != nil || got.Body != "The whole of Alpha." || got.BodyPending {
		t.Fatalf("entity after its text came = %+v, %v", got, err)
	}
	e2, created, err := h.engine.Approve(ctx, a.ID, engine.Approval{As: scouts.EntityTask})
	if err != nil || created || e2.ID != e1.ID {
		t.Fatalf("second approve: %v created=%v id=%s want %s", err, created, e2.ID, e1.ID)
	}
	if tasks, _ := h.db.ListEntities(ctx, scouts.EntityTask, localdb.EntityFilter{}); len(tasks) != 1 {
		t.Fatalf("%d tasks after approving twice, want 1", len(tasks))
	}
	if _, _, err := h.engine.Approve(ctx, a.ID, engine.Approval{As: scouts.EntityNote}); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("approve as another kind: %v, want conflict", err)
	}
	if _, err := h.engine.Reject(ctx, a.ID, ""); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("reject approved: %v, want conflict", err)
	}

	// b's content is gone: the approval still works, with the excerpt, and
	// says so in the trail.
	if _, err := h.engine.Reject(ctx, b.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := h.engine.Reject(ctx, b.ID, ""); err != nil {
		t.Fatalf("rejecting twice: %v", err)
	}
	if _, _, err := h.engine.Approve(ctx, b.ID, engine.Approval{As: scouts.EntityTask}); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("approve rejected: %v, want conflict (denied stays denied)", err)
	}
	want := []string{scouts.AuditItemDetected, scouts.AuditSuggestionCreated, scouts.AuditApproved, scouts.AuditEntityCreated,
		scouts.AuditActionQueued, scouts.AuditActionAttempt, scouts.AuditActionDone}
	if got := h.trail(a.TraceID); !equal(got, want) {
		t.Fatalf("trail of a: %v, want %v", got, want)
	}
	if got := h.trail(b.TraceID); !equal(got, []string{scouts.AuditItemDetected, scouts.AuditSuggestionCreated, scouts.AuditRejected}) {
		t.Fatalf("trail of b: %v", got)
	}
}

func TestApproveWithEditsAndUnreadableSource(t *testing.T) {
	h := newHarness(t, true)
	h.src.add("a", "Alpha")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	title := "Pay the invoice"
	due := time.Date(2026, 5, 31, 0, 0, 0, 0, time.UTC)
	e, _, err := h.engine.Approve(context.Background(), s.ID, engine.Approval{As: scouts.EntityTask,
		Edits: scouts.EntityPatch{Title: &title, Due: &due}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Title != title || !e.Due.Equal(due) || e.Body != "excerpt of Alpha" {
		t.Fatalf("entity = %+v", e)
	}
	// The source cannot read it: the step is done, the entity keeps the
	// excerpt, and its trail entry says why.
	h.waitAction(s.ID, 2, engine.ActionDone)
	evs, _ := h.db.ListAudit(context.Background(), localdb.AuditFilter{TraceID: s.TraceID})
	last := evs[len(evs)-1]
	if last.Type != scouts.AuditActionDone || !strings.Contains(last.Summary, "keeps the card's excerpt") {
		t.Fatalf("last trail entry %+v: want the step saying the source could not be read", last)
	}
	if got, _ := h.db.GetEntity(context.Background(), scouts.EntityTask, e.ID); got.Body != "excerpt of Alpha" || got.BodyPending {
		t.Fatalf("entity = %+v", got)
	}
	empty := ""
	if _, _, err := h.engine.Approve(context.Background(), s.ID, engine.Approval{As: scouts.EntityTask, Edits: scouts.EntityPatch{Title: &empty}}); err != nil {
		t.Fatalf("re-approving an approved suggestion with edits must return the entity, got %v", err)
	}
}

func TestInvalidEditsLeaveTheSuggestionPending(t *testing.T) {
	h := newHarness(t, true)
	h.src.add("a", "Alpha")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	empty := " "
	_, _, err := h.engine.Approve(context.Background(), s.ID, engine.Approval{As: scouts.EntityNote, Edits: scouts.EntityPatch{Title: &empty}})
	if scouts.ErrorCode(err) != scouts.EInvalid {
		t.Fatalf("err = %v, want invalid", err)
	}
	if got, _ := h.db.GetSuggestion(context.Background(), s.ID); got.Status != scouts.StatusPending {
		t.Fatalf("status %s after a failed approval, want pending", got.Status)
	}
}

func TestExpirySweepKeepsExpiredSuggestionsVisible(t *testing.T) {
	h := newHarness(t, true)
	h.src.add("a", "Alpha")
	h.src.add("b", "Beta")
	h.start()
	b := h.suggestions(scouts.StatusPending)[1]
	if _, err := h.engine.Reject(context.Background(), b.ID, ""); err != nil {
		t.Fatal(err)
	}
	later := h.now.Load().Add(scouts.DefaultExpiry + time.Minute)
	h.now.Store(&later)
	n, err := h.engine.SweepExpired(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want 1", n, err)
	}
	exp := h.suggestions(scouts.StatusExpired)
	if len(exp) != 1 || exp[0].Title != "Alpha" {
		t.Fatalf("expired = %+v", exp)
	}
	if got := h.trail(exp[0].TraceID); got[len(got)-1] != scouts.AuditExpired {
		t.Fatalf("trail %v ends without the expiry", got)
	}
	if _, _, err := h.engine.Approve(context.Background(), exp[0].ID, engine.Approval{As: scouts.EntityTask}); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("approving an expired suggestion: %v, want conflict", err)
	}
}

func TestRunsAreSerialisedAndTriggersCoalesce(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	h.src.block = make(chan struct{})
	for len(h.src.entered) > 0 {
		<-h.src.entered // the catch-up run's, finished
	}
	h.engine.Trigger(h.scout.ID) // starts a run that blocks
	// Once it runs: triggers that arrive before it starts coalesce with
	// the one that starts it.
	select {
	case <-h.src.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the triggered run did not start within 10s")
	}
	for range 50 {
		h.engine.Trigger(h.scout.ID) // all of these coalesce into one more run
	}
	close(h.src.block)
	h.waitRun()
	h.waitRun()
	select {
	case <-h.src.runs:
		t.Fatal("51 triggers during one run caused more than one further run")
	default:
	}
	if n := h.src.overlaps.Load(); n != 0 {
		t.Fatalf("%d overlapping runs", n)
	}
}

func TestSyncStopsDisabledScoutAndClosesItsSource(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	if !h.engine.IsRunning(h.scout.ID) {
		t.Fatal("enabled scout not running")
	}
	h.scout.Enabled = false
	h.engine.Sync(h.scout)
	if h.engine.IsRunning(h.scout.ID) || !h.src.closed.Load() {
		t.Fatal("disabled scout still running or its source not closed")
	}
	if h.engine.Trigger(h.scout.ID) {
		t.Fatal("trigger on a stopped scout reported running")
	}
}

func TestUndoWithinTheWindowOnly(t *testing.T) {
	h := newHarness(t, true)
	h.src.add("a", "Alpha")
	h.src.add("b", "Beta")
	h.start()
	ctx := context.Background()
	p := h.suggestions(scouts.StatusPending)
	a, b := p[0], p[1]

	ent, _, err := h.engine.Approve(ctx, a.ID, engine.Approval{As: scouts.EntityTask})
	if err != nil {
		t.Fatal(err)
	}
	back, err := h.engine.Undo(ctx, a.ID, "")
	if err != nil || back.Status != scouts.StatusPending || back.ResolvedEntityID != "" {
		t.Fatalf("undo approval: %+v %v", back, err)
	}
	if _, err := h.db.GetEntity(ctx, scouts.EntityTask, ent.ID); scouts.ErrorCode(err) != scouts.ENotFound {
		t.Fatalf("entity of an undone approval still exists: %v", err)
	}
	// Pending again: it can be decided anew, as another kind.
	if _, _, err := h.engine.Approve(ctx, a.ID, engine.Approval{As: scouts.EntityNote}); err != nil {
		t.Fatalf("approve after undo: %v", err)
	}
	// (The entries of each approval's entity.fill_body step, action.*,
	// come as the outbox runs it, before or after the undo.)
	want := []string{scouts.AuditItemDetected, scouts.AuditSuggestionCreated, scouts.AuditApproved, scouts.AuditEntityCreated,
		scouts.AuditUndone, scouts.AuditEntityDeleted, scouts.AuditApproved, scouts.AuditEntityCreated}
	if got := slices.DeleteFunc(h.trail(a.TraceID), func(t string) bool { return strings.HasPrefix(t, "action.") }); !equal(got, want) {
		t.Fatalf("trail %v, want %v", got, want)
	}

	if _, err := h.engine.Undo(ctx, b.ID, ""); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("undo of a pending suggestion: %v, want conflict", err)
	}
	if _, err := h.engine.Reject(ctx, b.ID, ""); err != nil {
		t.Fatal(err)
	}
	later := h.now.Load().Add(scouts.DefaultUndoWindow + time.Second)
	h.now.Store(&later)
	if _, err := h.engine.Undo(ctx, b.ID, ""); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("undo after the window: %v, want conflict", err)
	}
	if got, _ := h.db.GetSuggestion(ctx, b.ID); got.Status != scouts.StatusRejected {
		t.Fatalf("a refused undo changed the status to %s", got.Status)
	}
}

// Two callers racing with different versions of a scout (the relay's
// answer and an account reconnect, say): the newer one keeps running
// whichever calls Sync last.
func TestSyncKeepsTheNewerVersion(t *testing.T) {
	ctx := context.Background()
	db, err := localdb.Open(ctx, filepath.Join(t.TempDir(), "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	var opened []string
	src := newSource()
	e := engine.New(engine.Config{Store: db, PollInterval: time.Hour, SweepInterval: time.Hour,
		Openers: map[scouts.Kind]scouts.Opener{scouts.KindFolder: func(_ context.Context, s scouts.Scout) (scouts.SourceConnector, error) {
			mu.Lock()
			opened = append(opened, string(s.Config))
			mu.Unlock()
			return src, nil
		}}})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	t0 := time.Now().UTC()
	older := scouts.Scout{ID: "sc_1", Kind: scouts.KindFolder, Name: "x", Enabled: true, Config: []byte(`"v1"`), CreatedAt: t0, UpdatedAt: t0}
	newer := older
	newer.Config, newer.UpdatedAt = []byte(`"v2"`), t0.Add(time.Millisecond)
	e.Sync(newer)
	e.Sync(older) // stale: ignored
	if !e.IsRunning("sc_1") {
		t.Fatal("the scout is not running")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(opened) != 1 || opened[0] != `"v2"` {
		t.Fatalf("opened %v: the stale version replaced the newer one", opened)
	}
}
