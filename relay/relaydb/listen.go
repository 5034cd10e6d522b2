package relaydb

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Listener hears, on PostgreSQL, what other instances sharing the
// database commit.
type Listener struct {
	// Listening is called once LISTEN is in place and cached webhook
	// answers are used again: whatever was committed before may have
	// been missed, and should be looked at again.
	Listening func()
	// Queued is called with the users whose rows a transaction queued
	// or expired.
	Queued func(users []string)
	// HooksChanged is called with the users (comma-separated) whose
	// cached webhook answers a change elsewhere made this process forget.
	HooksChanged func(users string)
}

// Listen holds one LISTEN connection until it fails or ctx ends;
// listening reports whether it got as far as LISTEN. While it listens,
// webhook answers are cached (a change made elsewhere is heard, and
// forgotten here); whatever was cached before is forgotten.
func (d *DB) Listen(ctx context.Context, l Listener) (listening bool, err error) {
	conn, err := pgx.Connect(ctx, d.dsn)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel+"; LISTEN "+HookChannel); err != nil {
		return false, err
	}
	d.hookTargetsShared(true)
	defer d.hookTargetsShared(false)
	l.Listening()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		if n.Channel == HookChannel {
			d.forgetHookTargets(n.Payload)
			l.HooksChanged(n.Payload)
			continue
		}
		// One notification per transaction names every user it queued
		// rows for.
		l.Queued(notifiedUsers(n.Payload))
	}
}
