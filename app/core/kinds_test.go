package core_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// TestEveryKindChecksItsScouts: each kind of scout the rules know is
// checked by its own registration on a desktop that cannot run it — no
// Gmail set up, no relay, a folder it must never read — and refused with
// what to do, nothing stored; an unknown kind is refused by name.
func TestEveryKindChecksItsScouts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, _ := openCoreIn(t, dir)
	configs := map[string]map[string]any{
		"folder":  {"path": dir},
		"gmail":   {"email": "ann@example.com", "mode": "local"},
		"webhook": nil,
		// An agent scout can run on any desktop: it is refused for a
		// client's name no agent could give.
		"agent": {"client": strings.Repeat("a", 1000)},
	}
	want := map[string]string{
		"folder":  "where Scouts keeps its own data",
		"gmail":   "Gmail is not set up on this desktop",
		"webhook": "webhook scouts are received by a relay",
		"agent":   "the client's name is longer than",
		"imap":    `unknown scout kind "imap"`,
	}
	kinds := append(rules.Kinds(), "imap")
	for _, kind := range kinds {
		if want[kind] == "" {
			t.Fatalf("kind %s: no expectation (a new kind? add it here)", kind)
		}
		var raw json.RawMessage
		if configs[kind] != nil {
			raw, _ = json.Marshal(configs[kind])
		}
		_, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.Kind(kind), Name: "x", Enabled: true, Review: true, Config: raw})
		if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(scouts.ErrorMessage(err), want[kind]) {
			t.Errorf("kind %s: created with err %v; want EInvalid saying %q", kind, err, want[kind])
		}
	}
	if all, err := c.DB.ListScouts(ctx); err != nil || len(all) != 0 {
		t.Fatalf("stored %d scouts (%v); want none", len(all), err)
	}
}
