package service

import (
	"context"
	"time"

	"github.com/scouts-hq/scouts/relay/relaydb"
)

// sweeper expires the rows that waited too long for a device (their
// users' sessions are woken by the commit, to tell the devices) and
// forgets what is no longer needed, once a minute.
func (s *Service) sweeper(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		if users, err := s.db.ExpireDue(ctx); err != nil {
			s.log.Warn("expire queue rows", "err", err)
		} else if len(users) > 0 {
			s.log.Info("queue rows expired", "users", len(users))
		}
		if err := s.db.Purge(ctx, s.cfg.Retention); err != nil {
			s.log.Warn("purge", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// listen passes PostgreSQL notifications of queued rows to this
// instance's sessions, reconnecting with backoff; after a reconnection
// every session looks at the queue, since notifications may have been lost.
func (s *Service) listen(ctx context.Context) {
	const first = 100 * time.Millisecond
	backoff := first
	l := relaydb.Listener{
		Listening: func() {
			s.sessions.WakeAll()
			s.log.Info("listening for notifications from other instances")
		},
		Queued: func(users []string) {
			for _, u := range users {
				s.sessions.Wake(u)
			}
		},
		HooksChanged: func(users string) {
			s.log.Debug("webhook answers changed elsewhere forgotten", "users", users)
		},
	}
	for ctx.Err() == nil {
		listening, err := s.db.Listen(ctx, l)
		if ctx.Err() != nil {
			return
		}
		if listening {
			// The connection worked: this is a new outage, not the
			// same one going on.
			backoff = first
		}
		s.log.Warn("LISTEN connection lost; reconnecting", "err", err, "in", backoff.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}
