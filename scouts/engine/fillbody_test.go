package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// An approval answers without reading the source: the entity has the
// card's excerpt and says its text is coming; the outbox reads the item
// afterwards and fills it in.
func TestApproveAnswersBeforeTheSourceIsRead(t *testing.T) {
	h := newHarness(t, true)
	h.src.add("a", "Alpha")
	h.src.content["a"] = "The whole of Alpha."
	h.start()
	ctx := context.Background()
	s := h.suggestions(scouts.StatusPending)[0]
	h.src.reading, h.src.read = make(chan struct{}, 1), make(chan struct{})

	ent, created, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityNote})
	if err != nil || !created {
		t.Fatal(created, err)
	}
	if ent.Body != "excerpt of Alpha" || !ent.BodyPending {
		t.Fatalf("the approval answered %+v: want the excerpt, the text to come", ent)
	}
	// The source is read only now, by the outbox, and until it answers
	// the note says its text is coming.
	<-h.src.reading
	if got, err := h.db.GetEntity(ctx, scouts.EntityNote, ent.ID); err != nil || !got.BodyPending || got.Body != "excerpt of Alpha" {
		t.Fatalf("while the source is read: %+v, %v", got, err)
	}
	close(h.src.read)
	h.waitAction(s.ID, 2, engine.ActionDone)
	got, err := h.db.GetEntity(ctx, scouts.EntityNote, ent.ID)
	if err != nil || got.Body != "The whole of Alpha." || got.BodyPending {
		t.Fatalf("after the source answered: %+v, %v", got, err)
	}
}

// A body the person wrote while the text was on its way is kept; the
// step says so.
func TestFillKeepsABodyEditedMeanwhile(t *testing.T) {
	h := newHarness(t, true)
	h.src.add("a", "Alpha")
	h.src.content["a"] = "The whole of Alpha."
	h.start()
	ctx := context.Background()
	s := h.suggestions(scouts.StatusPending)[0]
	h.src.reading, h.src.read = make(chan struct{}, 1), make(chan struct{})
	ent, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityNote})
	if err != nil {
		t.Fatal(err)
	}
	<-h.src.reading
	mine := "My own words"
	if _, err := h.db.UpdateEntity(ctx, scouts.EntityNote, ent.ID, scouts.EntityPatch{Body: &mine}, *h.now.Load()); err != nil {
		t.Fatal(err)
	}
	close(h.src.read)
	h.waitAction(s.ID, 2, engine.ActionDone)
	if got, _ := h.db.GetEntity(ctx, scouts.EntityNote, ent.ID); got.Body != mine {
		t.Fatalf("body %q, want the person's", got.Body)
	}
	evs, _ := h.db.ListAudit(ctx, localdb.AuditFilter{TraceID: s.TraceID})
	if last := evs[len(evs)-1]; !strings.Contains(last.Summary, "edited meanwhile") {
		t.Fatalf("last entry %q: want it to say the edit is kept", last.Summary)
	}
	// Run again (as after a crash between the fill and its record), the
	// step changes nothing.
	if _, filled, err := h.db.FillEntityBody(ctx, scouts.EntityNote, ent.ID, "excerpt of Alpha", "The whole of Alpha.", *h.now.Load()); err != nil || filled {
		t.Fatalf("filled again: %v, %v", filled, err)
	}
}

// A body written in the approval's preview needs no reading at all.
func TestApproveWithABodyQueuesNoRead(t *testing.T) {
	h := newHarness(t, true)
	h.src.add("a", "Alpha")
	h.start()
	ctx := context.Background()
	s := h.suggestions(scouts.StatusPending)[0]
	body := "Written in the preview"
	ent, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityNote, Edits: scouts.EntityPatch{Body: &body}})
	if err != nil || ent.Body != body || ent.BodyPending {
		t.Fatalf("%+v, %v", ent, err)
	}
	runs, _ := h.db.ActionRuns(ctx, s.ID)
	if len(runs) != 1 {
		t.Fatalf("actions %+v: want the note's alone", runs)
	}
}
