package localdb_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

// Each different document is a new version; the same one again is not.
func TestScoutVersions(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "scouts.db"))
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if err := db.CreateScout(ctx, scouts.Scout{ID: "sc_v", Kind: scouts.KindWebhook, Name: "W", CreatedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	for i, doc := range []string{`{"name":"a"}`, `{"name":"a"}`, `{"name":"b"}`} {
		v, added, err := db.AddScoutVersion(ctx, localdb.ScoutVersion{ScoutID: "sc_v", Document: []byte(doc), CreatedAt: at, Actor: "test"})
		if err != nil {
			t.Fatal(err)
		}
		want := []int{1, 1, 2}[i]
		if v != want || added != (i != 1) {
			t.Fatalf("write %d: version %d added %v, want %d", i, v, added, want)
		}
	}
	list, err := db.ListScoutVersions(ctx, "sc_v")
	if err != nil || len(list) != 2 || list[0].Version != 2 || string(list[1].Document) != `{"name":"a"}` {
		t.Fatalf("versions %+v %v", list, err)
	}
	st, err := db.ScoutDefinitionStates(ctx)
	if err != nil || st["sc_v"].Version != 2 {
		t.Fatalf("state %+v %v", st, err)
	}
	if _, _, err := db.AddScoutVersion(ctx, localdb.ScoutVersion{ScoutID: "sc_missing", Document: []byte(`{}`)}); scouts.ErrorCode(err) != scouts.ENotFound {
		t.Fatalf("a missing scout: %v", err)
	}
}
