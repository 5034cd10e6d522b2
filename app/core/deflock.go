package core

import (
	"context"
	"sync"
	"sync/atomic"
)

// definitionsLock serialises the changes to scouts' definitions, each
// from what it reads of the scout to the version it records, with the
// reads that record a change made outside a definition first (a scout's
// history, an export). A read that came between a change's database
// write and its version recorded that change as the agent's ("changed
// outside a definition"), and a change that came between another's write
// and its version recorded both under its own author.
type definitionsLock struct {
	mu sync.Mutex
}

// defHold says that the code running under a context holds the lock, so
// that a change made from within another (an import updates the scout,
// then its rules) does not wait for itself.
type defHold struct{ held atomic.Bool }

type defHoldKey struct{}

// changeDefinitions takes the definitions lock for what runs under the
// returned context, unless that context already holds it, and holds back
// the scouts' restarts the change causes; done lets both go: the lock
// first, so that a scout's restart (which waits for its run in progress
// to stop) never keeps a history from being read.
func (c *Core) changeDefinitions(ctx context.Context) (_ context.Context, done func()) {
	if h, ok := ctx.Value(defHoldKey{}).(*defHold); ok && h.held.Load() {
		return ctx, func() {}
	}
	_, outer := ctx.Value(restartHoldKey{}).(*restartHold)
	ctx, restarts := holdRestarts(ctx)
	c.defLock.mu.Lock()
	h := &defHold{}
	h.held.Store(true)
	ctx = context.WithValue(ctx, defHoldKey{}, h)
	return ctx, func() {
		h.held.Store(false)
		c.defLock.mu.Unlock()
		if !outer {
			c.releaseRestarts(ctx, restarts)
		}
	}
}
