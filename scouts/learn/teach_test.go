package learn

import (
	"errors"
	"testing"
	"time"
)

// failingTable answers every lookup with an error: a Reteach that changes
// nothing must not read the counts at all.
type failingTable struct{}

func (failingTable) Lookup([]uint64) ([]Vec, error) { return nil, errors.New("read") }

// A change of mind replaces what an item taught: marked as spam, then
// approved as a task, then taken back, the model holds the approval only,
// then nothing, with the tallies following.
func TestReteachReplacesWhatAnItemTaught(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := Model{Epoch: epoch}
	tbl := MemTable{}
	hashes := []uint64{1, 2, 3}
	var tally Tally
	var taught Taught
	apply := func(l Label, at time.Time) Lesson {
		t.Helper()
		lesson, ok, err := m.Reteach(tbl, tally, hashes, taught, l, at)
		if err != nil || !ok {
			t.Fatalf("Reteach(%+v) = %v, %v", l, ok, err)
		}
		for _, c := range lesson.Put {
			tbl[c.Hash] = c.Vec
		}
		for _, h := range lesson.Del {
			delete(tbl, h)
		}
		m.Totals, tally, taught = lesson.Totals, lesson.Tally, lesson.Taught
		return lesson
	}

	apply(Label{Spam: true}, epoch)
	if tally != (Tally{Decisions: 1, Spam: 1}) || tbl[2][CSpam] != 1 || m.Totals.Docs[CSpam] != 1 {
		t.Fatalf("after spam: tally %+v, counts %v, totals %v", tally, tbl[2], m.Totals.Docs)
	}

	later := epoch.Add(m.Params.withDefaults().HalfLife) // weighs twice as much
	apply(Label{Approve: true, Ham: true, Kind: "task"}, later)
	if tally != (Tally{Decisions: 1, Ham: 1}) {
		t.Fatalf("after approval: tally %+v, want one decision, not-spam", tally)
	}
	if v := tbl[2]; v[CSpam] != 0 || v[CApprove] != 2 || v[CHam] != 2 || v[CTask] != 2 {
		t.Fatalf("after approval: counts %v, want the spam taken back and the approval at weight 2", v)
	}
	if m.Totals.Docs[CSpam] != 0 || m.Totals.Docs[CApprove] != 2 || m.Totals.Feats[0] != 2*float64(len(hashes)) {
		t.Fatalf("after approval: totals %+v", m.Totals)
	}

	// The same teaching again changes nothing and reads nothing.
	if _, ok, err := m.Reteach(failingTable{}, tally, hashes, taught, Label{Approve: true, Ham: true, Kind: "task"}, later); ok || err != nil {
		t.Fatalf("teaching the same again: ok %v, err %v; want nothing to do", ok, err)
	}

	lesson := apply(Label{}, later.Add(time.Hour))
	if tally != (Tally{}) || len(tbl) != 0 || len(lesson.Del) != len(hashes) || m.Totals != (Totals{}) {
		t.Fatalf("after undo: tally %+v, counts %v, deleted %v, totals %+v; want nothing left", tally, tbl, lesson.Del, m.Totals)
	}
}

// The tallies never go below zero, even from a model reset under the item.
func TestReteachTallyStaysAtOrAboveZero(t *testing.T) {
	m := Model{Epoch: time.Unix(0, 0)}
	lesson, _, err := m.Reteach(MemTable{}, Tally{}, []uint64{7}, Taught{Vec: Label{Spam: true}.Vec(), Weight: 1}, Label{}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if lesson.Tally != (Tally{}) {
		t.Fatalf("tally %+v, want zeros", lesson.Tally)
	}
}
