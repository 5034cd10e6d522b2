package localdb_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// A scout's write scope is kept as its definition says it: a list left out
// stays the default, an empty one stays "nothing", across create and update.
func TestWriteScopeStored(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "scouts.db"))
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	sc := scouts.Scout{ID: "sc_a", Kind: scouts.KindFolder, Name: "a", Config: []byte(`{}`), CreatedAt: at, UpdatedAt: at,
		WriteScope: scouts.WriteScope{Folders: []string{"~/Archive/**"}, Hosts: []string{}}}
	if err := db.CreateScout(ctx, sc); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetScout(ctx, "sc_a")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.WriteScope, sc.WriteScope) || got.WriteScope.Hosts == nil || got.WriteScope.Labels != nil {
		t.Fatalf("stored %#v, read %#v", sc.WriteScope, got.WriteScope)
	}
	sc.WriteScope = scouts.WriteScope{}
	if err := db.UpdateScout(ctx, sc); err != nil {
		t.Fatal(err)
	}
	if got, _ = db.GetScout(ctx, "sc_a"); !got.WriteScope.IsZero() {
		t.Fatalf("after the scope was removed: %#v", got.WriteScope)
	}
}
