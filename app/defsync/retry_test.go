package defsync_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
	"github.com/scouts-hq/scouts/scouts"
)

// flakyStore fails reading the scouts' definition states while failing is
// set, as a busy database would.
type flakyStore struct {
	*localdb.DB
	failing atomic.Bool
}

func (s *flakyStore) ScoutDefinitionStates(ctx context.Context) (map[string]localdb.ScoutDefinitionState, error) {
	if s.failing.Load() {
		return nil, errors.New("database is locked")
	}
	return s.DB.ScoutDefinitionStates(ctx)
}

// A pass over the definitions folder that fails is tried again without
// waiting for the folder's next change: before, a removal read while the
// database was busy left its scout managed and on until something else in
// the folder changed.
func TestAFailedReconcileIsTriedAgain(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := localdb.Open(ctx, filepath.Join(t.TempDir(), "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := &flakyStore{DB: db}
	store.failing.Store(true)
	hub := watchhub.New(watchhub.Options{})
	defer hub.Close()
	reconciled := make(chan struct{}, 10)
	s := defsync.New(defsync.Config{
		Dir:     t.TempDir(),
		Store:   store,
		Watches: hub,
		Publish: func(e scouts.Event) {
			if e.Type == defsync.EventReconciled {
				reconciled <- struct{}{}
			}
		},
	})
	if err := s.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Wait()
	defer cancel()
	select {
	case <-reconciled:
		t.Fatal("reconciled while the database failed")
	default:
	}
	store.failing.Store(false)
	select {
	case <-reconciled:
	case <-time.After(30 * time.Second):
		t.Fatal("the failed pass was not tried again within 30 s, with nothing changed in the folder")
	}
}
