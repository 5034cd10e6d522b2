package gmailscout

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// Defaults for Config.LeaseTTL and LeaseRetry.
const (
	DefaultLeaseTTL   = 30 * time.Second
	DefaultLeaseRetry = 250 * time.Millisecond
)

// errLeaseLost ends a sync whose lease another instance took over (this
// one stopped renewing it for a whole TTL): the sync stops before it
// moves the cursor.
var errLeaseLost = errors.New("gmail: the scout's sync lease was taken over by another instance")

func newInstanceID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), scouts.NewID("in"))
}

// syncLeased runs one sync of the scout while holding its lease in the
// database, so that of every instance sharing the database only one syncs
// a scout at a time and no message's quota is spent twice. It waits while
// another instance holds the lease: the sync it asked for must still run,
// from the cursor that instance leaves.
func (s *Service) syncLeased(ctx context.Context, scoutID string, setupWatch bool) error {
	ttl := s.cfg.LeaseTTL
	waited := false
	for {
		ok, err := s.db.AcquireSyncLease(ctx, scoutID, s.instance, ttl)
		if err != nil {
			return err
		}
		if ok {
			break
		}
		if !waited {
			s.log.Debug("gmail: another instance is syncing the scout; waiting for its lease", "scout", scoutID)
			waited = true
		}
		t := time.NewTimer(s.cfg.LeaseRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	lctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			ok, err := s.db.RenewSyncLease(lctx, scoutID, s.instance, ttl)
			if err == nil && !ok {
				s.log.Warn("gmail: sync lease lost; abandoning the sync", "scout", scoutID)
				cancel(errLeaseLost)
				return
			}
			if err != nil && lctx.Err() == nil {
				s.log.Warn("gmail: renew the sync lease", "scout", scoutID, "err", err)
			}
		}
	}()
	err := s.syncScout(lctx, scoutID, setupWatch)
	close(done)
	<-renewed
	if errors.Is(context.Cause(lctx), errLeaseLost) && err != nil {
		err = errLeaseLost
	}
	cancel(nil)
	if rerr := s.db.ReleaseSyncLease(context.WithoutCancel(ctx), scoutID, s.instance); rerr != nil {
		s.log.Warn("gmail: release the sync lease; it expires by itself", "scout", scoutID, "err", rerr)
	}
	return err
}
