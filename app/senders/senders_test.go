package senders

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/app/screener"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

type cards []scouts.Suggestion

func (c cards) ListSuggestions(_ context.Context, f localdb.SuggestionFilter) ([]scouts.Suggestion, error) {
	if f.After != "" {
		return nil, nil
	}
	return c, nil
}

func (cards) ActionRunsOf(context.Context, string, string) ([]engine.ActionRun, error) {
	return nil, nil
}

type noRules struct{}

func (noRules) Rules(context.Context, string) ([]screener.Info, error) { return nil, nil }
func (noRules) ApplyKey(context.Context, string, screener.Key, screener.Choice, string) (screener.Result, error) {
	return screener.Result{}, nil
}

// The ranking: most cards first; among equals the lowest approve rate,
// a sender with nothing decided after every rate (it is not one the
// person keeps rejecting); then the longest since an approval.
func TestListRanksByVolumeThenApproveRateThenLastApproval(t *testing.T) {
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	var list cards
	card := func(from string, st scouts.Status, resolved time.Time) {
		list = append(list, scouts.Suggestion{ID: from + string(rune('a'+len(list))), SourceType: scouts.KindGmail, Sender: from, Status: st,
			ResolvedAt: resolved, CreatedAt: at.Add(time.Duration(len(list)) * time.Minute)})
	}
	card("big@x.example", scouts.StatusPending, time.Time{})
	card("big@x.example", scouts.StatusPending, time.Time{})
	card("big@x.example", scouts.StatusApproved, at)
	card("undecided@x.example", scouts.StatusPending, time.Time{})
	card("rejected@x.example", scouts.StatusRejected, at)
	card("half-old@x.example", scouts.StatusApproved, at.Add(-48*time.Hour))
	card("half-old@x.example", scouts.StatusRejected, at)
	card("half-new@x.example", scouts.StatusApproved, at)
	card("half-new@x.example", scouts.StatusRejected, at)
	got, err := New(list, noRules{}, nil).List(context.Background(), "sc")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range got {
		keys = append(keys, s.Key.Value)
	}
	want := []string{"big@x.example", "half-old@x.example", "half-new@x.example", "rejected@x.example", "undecided@x.example"}
	if !slices.Equal(keys, want) {
		t.Fatalf("ranked %v, want %v", keys, want)
	}
	if b := got[0]; b.Cards != 3 || b.Approved != 1 || b.Pending != 2 || b.ApproveRate() != 1 || !b.LastApproval.Equal(at) {
		t.Errorf("big: %+v", b)
	}
}
