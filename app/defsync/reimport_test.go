package defsync_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// A definition read again unchanged is "unchanged", whatever its rules
// leave to their defaults (a rule without "enabled" is on). It was an
// "update" of /rules/0/enabled every time, and applying it replaced the
// rules again: on every read of the definitions folder, for every file.
func TestReimportWithDefaultsIsUnchanged(t *testing.T) {
	ctx := context.Background()
	c, _ := openCoreIn(t, t.TempDir())
	doc := fmt.Sprintf(`{"version":1,"kind":"folder","name":"Twin","source":{"path":%q},
		"rules":[{"when":{"name":{"equals":"x"}},"id":"r","then":{"verdict":"show"}}]}`, t.TempDir())
	parsed, err := definition.ParseAll("twin.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.Definitions().Import(ctx, parsed, defsync.ImportOptions{Apply: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := c.Rules().List(ctx, first[0].ScoutID)
	for _, apply := range []bool{false, true} {
		again, err := c.Definitions().Import(ctx, parsed, defsync.ImportOptions{Apply: apply, Actor: "test"})
		if err != nil || again[0].Action != "unchanged" || len(again[0].Changes) != 0 {
			t.Fatalf("apply=%v: the same definition again: %+v %v", apply, again, err)
		}
	}
	after, _ := c.Rules().List(ctx, first[0].ScoutID)
	if len(after) != 1 || !after[0].CreatedAt.Equal(before[0].CreatedAt) {
		t.Fatalf("the rules were written again: %+v, before %+v", after, before)
	}
}
