package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// withLearning rebuilds the harness's engine (not yet started) with a
// learning configuration.
func (h *harness) withLearning(l engine.LearningConfig) {
	h.engine = engine.New(engine.Config{
		Store: h.db,
		Openers: map[scouts.Kind]scouts.Opener{scouts.KindFolder: func(context.Context, scouts.Scout) (scouts.SourceConnector, error) {
			return h.src, nil
		}},
		Emit:          func(e scouts.Event) { h.events <- e },
		Now:           func() time.Time { return *h.now.Load() },
		PollInterval:  time.Hour,
		SweepInterval: time.Hour,
		Learning:      l,
	})
}

// auditOf returns the item's trail.
func (h *harness) auditOf(trace string) []scouts.AuditEvent {
	h.t.Helper()
	evs, err := h.db.ListAudit(context.Background(), localdb.AuditFilter{TraceID: trace})
	if err != nil {
		h.t.Fatal(err)
	}
	return evs
}

var (
	cueDue   = time.Date(2026, 5, 8, 0, 0, 0, 0, time.UTC)
	modelDue = time.Date(2026, 5, 6, 17, 0, 0, 0, time.UTC)
)

// cues proposes a note due cueDue for every item, as content cues would.
func cues(context.Context, scouts.Scout, scouts.ItemMetadata, string) engine.ContentProposal {
	return engine.ContentProposal{Kind: scouts.EntityNote, Due: cueDue, AllDay: true, Reasons: []string{"mentions a date: 8 May"}}
}

// scriptedModel answers per item title; it records what it was asked.
type scriptedModel struct {
	mu     sync.Mutex
	asked  []string
	answer func(title string) (engine.ContentProposal, error)
}

func (m *scriptedModel) categorise(_ context.Context, _ scouts.Scout, meta scouts.ItemMetadata, text string) (engine.ContentProposal, error) {
	m.mu.Lock()
	m.asked = append(m.asked, meta.Title+"|"+text)
	m.mu.Unlock()
	return m.answer(meta.Title)
}

// A model's proposal wins over the content cues for the fields it fills,
// the card keeps its subject beside the proposed title, and the why says
// what the model proposed; a failing model leaves the item recorded with
// the cues' proposal and a note on its trail.
func TestModelCategorisationWinsOverCuesAndNeverBlocks(t *testing.T) {
	h := newHarness(t, true)
	m := &scriptedModel{answer: func(title string) (engine.ContentProposal, error) {
		if strings.Contains(title, "broken") {
			return engine.ContentProposal{}, errors.New("model m at http://127.0.0.1/v1/chat/completions: the model's answer is not a valid proposal")
		}
		return engine.ContentProposal{Kind: scouts.EntityTask, Title: "Send the homepage copy", Due: modelDue, ProjectID: "pj_web",
			Reasons: []string{"the model: a task for project “Website relaunch” (due 6 May)"}}, nil
	}}
	h.withLearning(engine.LearningConfig{Propose: cues, Categorise: m.categorise})
	h.start()
	h.addMail("good", "ann@example.com", "Relaunch: homepage copy", "could you send the copy by Wednesday")
	h.addMail("broken", "bob@example.com", "A broken one", "by Friday")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	good := h.byRef("good")
	a := good.Assessment
	if good.ProposedKind != scouts.EntityTask || a.KindFrom != "model" || a.CueKind != scouts.EntityNote ||
		!a.Due.Equal(modelDue) || a.AllDay || a.ProjectID != "pj_web" {
		t.Fatalf("good: kind %s from %s (cue %s), due %v all-day %v, project %q", good.ProposedKind, a.KindFrom, a.CueKind, a.Due, a.AllDay, a.ProjectID)
	}
	if good.Title != "Relaunch: homepage copy" || a.ProposedTitle != "Send the homepage copy" {
		t.Fatalf("title %q, proposed %q: the subject must stay, the proposal beside it", good.Title, a.ProposedTitle)
	}
	if !slices.Contains(a.Why, "the model: a task for project “Website relaunch” (due 6 May)") || !slices.Contains(a.Why, "mentions a date: 8 May") {
		t.Fatalf("why %q", a.Why)
	}
	if !slices.Contains(m.asked, "Relaunch: homepage copy|could you send the copy by Wednesday") {
		t.Fatalf("the model was asked %q", m.asked)
	}

	broken := h.byRef("broken")
	if broken.ProposedKind != scouts.EntityNote || broken.Assessment.KindFrom == "model" || !broken.Assessment.Due.Equal(cueDue) || broken.Status != scouts.StatusPending {
		t.Fatalf("broken: %s from %s, due %v, status %s", broken.ProposedKind, broken.Assessment.KindFrom, broken.Assessment.Due, broken.Status)
	}
	var note *scouts.AuditEvent
	for _, e := range h.auditOf(broken.TraceID) {
		if e.Type == scouts.AuditItemNote {
			note = &e
		}
	}
	if note == nil || !strings.HasPrefix(note.Summary, "categorisation skipped: ") || !strings.Contains(note.Summary, "not a valid proposal") || note.Outcome != scouts.OutcomeSkipped {
		t.Fatalf("trail of the broken item: %+v", h.auditOf(broken.TraceID))
	}
	for _, e := range h.auditOf(good.TraceID) {
		if e.Type == scouts.AuditItemNote {
			t.Fatalf("a note on the good item: %+v", e)
		}
	}
}

// The person's own decisions beat a model: once the learner knows which
// kind they choose for such mail, its kind wins, and the model's fields
// (its date, its project) still fill the preview.
func TestLearnedKindWinsOverTheModel(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	m := &scriptedModel{answer: func(string) (engine.ContentProposal, error) {
		return engine.ContentProposal{Kind: scouts.EntityTask, Due: modelDue, Reasons: []string{"the model: a task (due 6 May)"}}, nil
	}}
	h.withLearning(engine.LearningConfig{Categorise: m.categorise})
	h.start()
	for i := range 12 {
		h.addMail(fmt.Sprintf("r%d", i), "reports@corp.example", fmt.Sprintf("Weekly report %d", i), "the figures of the week")
	}
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	for _, s := range h.suggestions(scouts.StatusPending) {
		if s.Assessment.KindFrom != "model" || s.ProposedKind != scouts.EntityTask {
			t.Fatalf("before learning %s is a %s from %s", s.SourceRef, s.ProposedKind, s.Assessment.KindFrom)
		}
		if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityNote}); err != nil {
			t.Fatal(err)
		}
	}
	h.addMail("r-new", "reports@corp.example", "Weekly report 99", "the figures of the week")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	s := h.byRef("r-new")
	if s.ProposedKind != scouts.EntityNote || s.Assessment.KindFrom != "learned" || !s.Assessment.Due.Equal(modelDue) {
		t.Fatalf("after 12 approvals as notes: %s from %s, due %v", s.ProposedKind, s.Assessment.KindFrom, s.Assessment.Due)
	}
}

// Items the source already filed as spam or screened are not sent to the
// model.
func TestSpamIsNotSentToTheModel(t *testing.T) {
	h := newHarness(t, true)
	m := &scriptedModel{answer: func(string) (engine.ContentProposal, error) {
		return engine.ContentProposal{Kind: scouts.EntityTask}, nil
	}}
	h.withLearning(engine.LearningConfig{Categorise: m.categorise})
	h.start()
	h.src.mu.Lock()
	h.src.items = append(h.src.items, scouts.ItemRef{Ref: "spam"}, scouts.ItemRef{Ref: "promo"})
	h.src.meta["spam"] = scouts.ItemMetadata{Title: "You won", Lane: scouts.LaneSpam, LaneReason: "a rule", ProposedKind: scouts.EntityNote}
	h.src.meta["promo"] = scouts.ItemMetadata{Title: "Sale", Lane: scouts.LaneScreened, LaneReason: "promotions", ProposedKind: scouts.EntityNote}
	h.src.mu.Unlock()
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if len(m.asked) != 0 || h.byRef("spam").ProposedKind != scouts.EntityNote {
		t.Fatalf("the model was asked %q", m.asked)
	}
}
