package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/learn"
)

// addLaned adds a mail its source already put in a lane (spam found by a
// heuristic, or nothing to act on), with text the person could open.
func (h *harness) addLaned(ref, sender string, lane scouts.Lane) {
	h.src.mu.Lock()
	defer h.src.mu.Unlock()
	h.src.items = append(h.src.items, scouts.ItemRef{Ref: ref})
	h.src.meta[ref] = scouts.ItemMetadata{Title: "Offer " + ref, Sender: sender, Excerpt: "cheap offers " + ref,
		ProposedKind: scouts.EntityNote, Reason: "test", Lane: lane, LaneReason: "the source said so"}
	h.src.content[ref] = "the whole text of " + ref
}

func (h *harness) learnState() engine.LearnState {
	h.t.Helper()
	st, err := h.db.LearnState(context.Background(), h.scout.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	return st
}

// later moves the harness's clock by d and returns the new time.
func (h *harness) later(d time.Duration) time.Time {
	t := h.now.Load().Add(d)
	h.now.Store(&t)
	return t
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// TestSilenceTeachesWhatWasLeftAlone: cards left unopened in Spam or
// Screened past the grace period teach spam or unwanted at half an
// explicit decision's weight, once; an opened card, a card in the inbox
// and a card younger than the grace period teach nothing; the trail says
// what silence taught.
func TestSilenceTeachesWhatWasLeftAlone(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	h.addLaned("spam", "promo@offers.example", scouts.LaneSpam)
	h.addLaned("screened", "digest@news.example", scouts.LaneScreened)
	h.addLaned("inbox", "friend@home.example", scouts.LaneInbox)
	h.addLaned("opened", "other@offers.example", scouts.LaneSpam)
	h.start()
	if _, err := h.engine.Content(ctx, h.byRef("opened").ID); err != nil {
		t.Fatal(err)
	}
	if got := h.byRef("opened"); got.OpenedAt.IsZero() {
		t.Fatal("reading a card's content did not record that it was opened")
	}

	if n, err := h.engine.SettleSilent(ctx, h.later(6*24*time.Hour)); err != nil || n != 0 {
		t.Fatalf("within the grace period %d cards settled (%v)", n, err)
	}
	now := h.later(2 * 24 * time.Hour)
	n, err := h.engine.SettleSilent(ctx, now)
	if err != nil || n != 2 {
		t.Fatalf("settled %d cards (%v), want the two left alone in Spam and Screened", n, err)
	}
	if s := h.byRef("spam"); s.Silence != scouts.LaneSpam || s.SettledAt.IsZero() || s.Status != scouts.StatusPending || s.Lane != scouts.LaneSpam {
		t.Fatalf("spam card after silence: %+v", s)
	}
	if s := h.byRef("screened"); s.Silence != scouts.LaneScreened {
		t.Fatalf("screened card after silence: %+v", s)
	}
	for _, ref := range []string{"inbox", "opened"} {
		if s := h.byRef(ref); s.Silence != "" {
			t.Fatalf("%s card settled: %+v", ref, s)
		}
	}
	st := h.learnState()
	w := st.Model.Params.Weight(st.Model.Epoch, now)
	docs := st.Model.Totals.Docs
	if st.Decisions != 2 || st.Spam != 1 || st.Ham != 1 {
		t.Fatalf("learner after silence: %d decisions, %d spam, %d ham", st.Decisions, st.Spam, st.Ham)
	}
	if !near(docs[learn.CSpam], engine.SilenceWeight*w) || !near(docs[learn.CReject], engine.SilenceWeight*w) || docs[learn.CApprove] != 0 {
		t.Fatalf("silence taught %v; want spam and reject at %g × %g", docs, engine.SilenceWeight, w)
	}
	if tr := h.trail(h.byRef("spam").TraceID); !slices.Contains(tr, scouts.AuditSettled) {
		t.Fatalf("the trail does not say what silence taught: %v", tr)
	}
	if n, err := h.engine.SettleSilent(ctx, h.later(30*24*time.Hour)); err != nil || n != 0 {
		t.Fatalf("a second sweep settled %d cards (%v): each settles once", n, err)
	}
}

// TestExplicitDecisionReplacesSilence: a decision on a card silence
// settled takes back exactly what silence taught, then teaches its own
// at full weight; undoing it brings back the silent lesson exactly.
func TestExplicitDecisionReplacesSilence(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	h.addLaned("spam", "promo@offers.example", scouts.LaneSpam)
	h.addLaned("spam2", "other@offers.example", scouts.LaneSpam)
	h.addLaned("screened", "digest@news.example", scouts.LaneScreened)
	h.start()
	now := h.later(8 * 24 * time.Hour)
	if n, err := h.engine.SettleSilent(ctx, now); err != nil || n != 3 {
		t.Fatalf("settled %d (%v)", n, err)
	}
	settled := h.learnState()
	w := settled.Model.Params.Weight(settled.Model.Epoch, now)

	// Brought back from Spam: not spam, and nothing of silence is left.
	if _, err := h.engine.BringBack(ctx, h.byRef("spam").ID, "user"); err != nil {
		t.Fatal(err)
	}
	st := h.learnState()
	if d := st.Model.Totals.Docs; !near(d[learn.CSpam], engine.SilenceWeight*w) || !near(d[learn.CHam], w+engine.SilenceWeight*w) {
		t.Fatalf("after bringing one back: %v (w %g)", d, w)
	}

	// Marked as spam by the person: full weight, not silence plus more.
	if _, err := h.engine.MarkSpam(ctx, h.byRef("spam2").ID, "user"); err != nil {
		t.Fatal(err)
	}
	if d := h.learnState().Model.Totals.Docs; !near(d[learn.CSpam], w) {
		t.Fatalf("marking a silently settled card as spam: spam docs %g, want one decision (%g)", d[learn.CSpam], w)
	}

	// Approved from Screened, then undone: silence's lesson is back.
	before := h.learnState()
	scr := h.byRef("screened")
	if _, _, err := h.engine.Approve(ctx, scr.ID, engine.Approval{As: scouts.EntityNote}); err != nil {
		t.Fatal(err)
	}
	if d := h.learnState().Model.Totals.Docs; d[learn.CReject] > 1e-9 || !near(d[learn.CApprove], w) {
		t.Fatalf("approving a silently screened card: %v", d)
	}
	if _, err := h.engine.Undo(ctx, scr.ID, "user"); err != nil {
		t.Fatal(err)
	}
	after := h.learnState()
	if !closeTotals(after, before) || after.Decisions != before.Decisions {
		t.Fatalf("undo is not exact: %v vs %v", after.Model.Totals.Docs, before.Model.Totals.Docs)
	}
}

// TestSilenceAfterADecisionTeachesNothing: a card the person decided and
// then undid is pending in its lane again, but they have seen it: silence
// never teaches from it.
func TestSilenceAfterADecisionTeachesNothing(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	h.addLaned("spam", "promo@offers.example", scouts.LaneSpam)
	h.addLaned("screened", "digest@news.example", scouts.LaneScreened)
	h.start()
	for _, ref := range []string{"spam", "screened"} {
		id := h.byRef(ref).ID
		if _, err := h.engine.Reject(ctx, id, "user"); err != nil {
			t.Fatal(err)
		}
		if _, err := h.engine.Undo(ctx, id, "user"); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := h.engine.SettleSilent(ctx, h.later(30*24*time.Hour)); err != nil || n != 0 {
		t.Fatalf("silence settled %d cards the person had decided (%v)", n, err)
	}
	if st := h.learnState(); st.Decisions != 0 {
		t.Fatalf("the learner holds %d decisions", st.Decisions)
	}
}

// TestSilenceCanBeTurnedOff: silence_days 0 settles nothing; the setting
// is validated.
func TestSilenceCanBeTurnedOff(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	h.addLaned("spam", "promo@offers.example", scouts.LaneSpam)
	h.start()
	set := scouts.DefaultLearnSettings()
	if set.SilenceDays != 7 {
		t.Fatalf("default grace period %d days, want 7", set.SilenceDays)
	}
	set.SilenceDays = -1
	if err := h.db.SetLearnSettings(ctx, h.scout.ID, set); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Fatalf("silence_days -1: %v", err)
	}
	set.SilenceDays = 0
	if err := h.db.SetLearnSettings(ctx, h.scout.ID, set); err != nil {
		t.Fatal(err)
	}
	if n, err := h.engine.SettleSilent(ctx, h.later(60*24*time.Hour)); err != nil || n != 0 {
		t.Fatalf("with silence off %d cards settled (%v)", n, err)
	}
}

// withStore makes the harness's engine use store (the database, wrapped).
func (h *harness) withStore(store engine.Store) {
	h.engine = engine.New(engine.Config{
		Store: store,
		Openers: map[scouts.Kind]scouts.Opener{scouts.KindFolder: func(context.Context, scouts.Scout) (scouts.SourceConnector, error) {
			return h.src, nil
		}},
		Emit:          func(e scouts.Event) { h.events <- e },
		Now:           func() time.Time { return *h.now.Load() },
		PollInterval:  time.Hour,
		SweepInterval: time.Hour,
	})
}

// brokenLearner is the database with a learner that cannot be read.
type brokenLearner struct {
	engine.Store
	state, counts bool
}

func (b brokenLearner) LearnState(ctx context.Context, scoutID string) (engine.LearnState, error) {
	if b.state {
		return engine.LearnState{}, errors.New("disk I/O error")
	}
	return b.Store.LearnState(ctx, scoutID)
}

func (b brokenLearner) LearnCounts(ctx context.Context, scoutID string, hashes []uint64) ([]learn.Vec, error) {
	if b.counts {
		return nil, errors.New("disk I/O error")
	}
	return b.Store.LearnCounts(ctx, scoutID, hashes)
}

// TestLearnerFailureFallsBackToTheInbox: a learner that cannot be read
// (its state, or the lookup of its counts) never files mail as spam or
// screens it: the item arrives in the inbox, or where its source put it,
// and its trail says why.
func TestLearnerFailureFallsBackToTheInbox(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	set := scouts.DefaultLearnSettings()
	set.ColdStart, set.MinSpam = 10, 5
	if err := h.db.SetLearnSettings(ctx, h.scout.ID, set); err != nil {
		t.Fatal(err)
	}
	// A learner taught that this sender sends spam.
	for i := range 12 {
		h.addMail(fmt.Sprintf("s%d", i), "promo@offers.example", fmt.Sprintf("Cheap pills %d", i), "buy cheap pills now")
		h.addMail(fmt.Sprintf("h%d", i), "boss@corp.example", fmt.Sprintf("Budget review %d", i), "please review the budget")
	}
	h.start()
	for _, s := range h.suggestions(scouts.StatusPending) {
		var err error
		if s.Sender == "promo@offers.example" {
			_, err = h.engine.MarkSpam(ctx, s.ID, "user")
		} else {
			_, _, err = h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	h.addMail("control", "promo@offers.example", "Cheap pills 99", "buy cheap pills now")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if got := h.byRef("control"); got.Lane != scouts.LaneSpam {
		t.Fatalf("with the learner working the mail is in %s, want spam", got.Lane)
	}
	h.engine.Stop()

	for _, broken := range []brokenLearner{{state: true}, {counts: true}} {
		h.withStore(broken.with(h.db))
		h.start()
		ref := fmt.Sprintf("new-%v", broken.state)
		h.addMail(ref, "promo@offers.example", "Cheap pills 99", "buy cheap pills now")
		h.addLaned(ref+"-src", "x@offers.example", scouts.LaneScreened)
		if err := h.run(); err != nil {
			t.Fatalf("the run failed with the learner broken: %v", err)
		}
		got := h.byRef(ref)
		if got.Lane != scouts.LaneInbox || got.Status != scouts.StatusPending {
			t.Fatalf("learner broken (%+v): the new mail is %s in %s", broken, got.Status, got.Lane)
		}
		if s := h.byRef(ref + "-src"); s.Lane != scouts.LaneScreened {
			t.Fatalf("the source's own lane was lost: %s", s.Lane)
		}
		evs, err := h.db.ListAudit(ctx, localdb.AuditFilter{TraceID: got.TraceID})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(evs, func(e scouts.AuditEvent) bool { return strings.Contains(e.Summary, "learner could not be read") }) {
			t.Fatalf("the trail does not say the learner failed: %+v", evs)
		}
		h.engine.Stop()
	}
}

func (b brokenLearner) with(s engine.Store) brokenLearner { b.Store = s; return b }
