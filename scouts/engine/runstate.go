package engine

import (
	"context"
	"errors"
	"time"
)

// RunState keeps what a scout's runs need to outlive the process: the run
// lock (one run at a time across crashes, with a stale-lock guard) and the
// last scheduled time (to catch up a run missed while the agent was off).
// Nil in Config: runs are serialised in memory only and missed runs
// are not known.
type RunState interface {
	// AcquireRunLock takes the scout's lock for this process. A lock held
	// by a live holder is not taken (Acquired false, Holder says who); one
	// whose holder died, or stopped renewing it for longer than the stale
	// bound, is taken over (TookOver describes the old holder).
	AcquireRunLock(ctx context.Context, scoutID string, now time.Time) (LockGrant, error)
	// HeartbeatRunLock renews the lock; ErrLockLost when it is no longer
	// this process's.
	HeartbeatRunLock(ctx context.Context, scoutID string, now time.Time) error
	// ReleaseRunLock drops the lock if this process holds it.
	ReleaseRunLock(ctx context.Context, scoutID string) error
	// LastScheduled is the scheduled time of the last scheduled run that
	// finished (zero: none yet); SetLastScheduled records one.
	LastScheduled(ctx context.Context, scoutID string) (time.Time, error)
	SetLastScheduled(ctx context.Context, scoutID string, at time.Time) error
}

// LockGrant is the answer to AcquireRunLock.
type LockGrant struct {
	Acquired bool
	// Holder is who holds the lock when it was not acquired.
	Holder string
	// TookOver describes the dead holder the lock was taken from, and why
	// it counted as dead; empty when the lock was free or already ours.
	TookOver string
}

// ErrLockLost is returned by HeartbeatRunLock when another holder took the
// lock over (this process was thought dead).
var ErrLockLost = errors.New("the scout's run lock was taken over by another holder")

// RunLockHeartbeat is how often a run renews its lock; a holder is stale
// after LockStaleAfter without renewing (Config can change both).
const (
	RunLockHeartbeat = 20 * time.Second
	LockStaleAfter   = 2 * time.Minute
)
