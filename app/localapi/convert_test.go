package localapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts"
)

// The title a model proposes for the entity reaches the API beside the
// card's own, for the approve preview to offer; a card without one says
// nothing about it.
func TestSuggestionCarriesTheProposedTitle(t *testing.T) {
	s := scouts.Suggestion{ID: "sg_1", Title: "Homepage copy for the relaunch",
		Assessment: scouts.Assessment{Lane: scouts.LaneInbox, KindFrom: "model", ProposedTitle: "Send the homepage copy"}}
	b, err := json.Marshal(toSuggestion(s))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"proposed_title":"Send the homepage copy"`) || !strings.Contains(string(b), `"title":"Homepage copy for the relaunch"`) {
		t.Fatalf("the suggestion as the API sends it: %s", b)
	}
	s.Assessment.ProposedTitle = ""
	if b, _ := json.Marshal(toSuggestion(s)); strings.Contains(string(b), "proposed_title") {
		t.Fatalf("a card without a proposed title: %s", b)
	}
}

// A scout that runs gets "starting" until its first run; a chain or agent
// scout, fed by events and never run, is ok while on and not failing.
func TestScoutsFedByEventsAreNotStartingForEver(t *testing.T) {
	for kind, want := range map[scouts.Kind]string{scouts.KindFolder: "starting", scouts.KindChain: "ok", scouts.KindAgent: "ok"} {
		if got := toScout(scouts.Scout{ID: "sc_1", Kind: kind, Enabled: true}, false).Health.State; got != want {
			t.Errorf("%s scout without a run: %q, want %q", kind, got, want)
		}
	}
	if got := toScout(scouts.Scout{ID: "sc_1", Kind: scouts.KindChain, Enabled: true, LastError: "boom"}, false).Health.State; got != "error" {
		t.Errorf("a failing chain scout: %q", got)
	}
}
