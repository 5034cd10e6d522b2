// Package coretest opens a real agent core for the tests of the packages
// that need the whole desktop around them: a scout's definition or rules
// mean nothing without its scout, its runner and its database.
package coretest

import (
	"context"
	"testing"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
)

// Open opens and starts a core with cfg, subscribed to its bus from the
// start; the test's cleanup closes it.
func Open(t testing.TB, cfg core.Config) (*core.Core, *bus.Subscription) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := core.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sub, _, _ := c.Bus.Subscribe(0, 4096)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Close() })
	return c, sub
}
