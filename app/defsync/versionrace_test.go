package defsync_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts"
)

// Reading a scout's history (or exporting it) while changes are being
// saved never records one of them as the agent's: each version names the
// person who made it. The reads catch up on changes made outside a
// definition; a change between its database write and its own version
// used to be caught up as "agent", "changed outside a definition".
func TestHistoryReadsDuringChangesKeepEachAuthor(t *testing.T) {
	c, _ := openCoreIn(t, t.TempDir())
	ctx := context.Background()
	cfg, _ := json.Marshal(map[string]any{"path": t.TempDir()})
	cr, err := c.CreateScout(defsync.WithActor(ctx, "window"), core.NewScout{Kind: scouts.KindFolder, Name: "In", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.Scout.ID
	const rounds = 60
	// Each change kind, each by its own author: the settings, the rules
	// and the learner's thresholds are written by different paths.
	changes := []struct {
		actor  string
		change func(ctx context.Context, i int) error
	}{
		{"cli", func(ctx context.Context, i int) error {
			review := i%2 == 0
			_, err := c.UpdateScout(ctx, id, core.ScoutPatch{Review: &review})
			return err
		}},
		{"window", func(ctx context.Context, i int) error {
			rule := fmt.Sprintf(`{"id":"r%d","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show","kind":"note"}}`, i)
			if _, err := c.Rules().Add(ctx, id, []byte(rule), -1); err != nil {
				return err
			}
			return c.Rules().Delete(ctx, id, fmt.Sprintf("r%d", i))
		}},
		{"tray", func(ctx context.Context, i int) error {
			return c.Definitions().SetLearnSettings(ctx, id, scouts.LearnSettings{ColdStart: 20 + i, ScreenBelow: 0.3, SpamAbove: 0.9, MinSpam: 10})
		}},
	}
	var writers, readers sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, len(changes)+2)
	for _, ch := range changes {
		writers.Add(1)
		go func() {
			defer writers.Done()
			actx := defsync.WithActor(ctx, ch.actor)
			for i := range rounds {
				if err := ch.change(actx, i); err != nil {
					errs <- fmt.Errorf("%s change %d: %w", ch.actor, i, err)
					return
				}
			}
		}()
	}
	reads := []func() error{
		func() error { _, err := c.Definitions().History(ctx, id); return err },
		func() error { _, err := c.Definitions().Export(ctx, []string{id}, defsync.ExportOptions{}); return err },
	}
	for _, read := range reads {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := read(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	writers.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	list, err := c.DB.ListScoutVersions(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	authors := map[string]int{}
	for _, v := range list {
		authors[v.Actor]++
		if v.Actor == "agent" || v.Actor == "export" {
			t.Errorf("version %d recorded as %q (%q): every change here was made by a person", v.Version, v.Actor, v.Note)
		}
	}
	// Created by the window, then one version per settings change (the
	// first keeps Review as it was), two per rule round, one per
	// thresholds change.
	want := map[string]int{"window": 1 + 2*rounds, "cli": rounds - 1, "tray": rounds}
	for a, n := range want {
		if authors[a] != n {
			t.Errorf("%d versions by %s, want %d (all: %v)", authors[a], a, n, authors)
		}
	}
}
