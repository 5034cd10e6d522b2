// Package bus fans the agent's live events out to its subscribers (the
// local API's stream, the tray, tests) and keeps the latest ones for a
// client that resumes. It is a leaf: the core, the relay link and the
// definitions service all publish to it without importing one another.
package bus

import (
	"sync"

	"github.com/scouts-hq/scouts/scouts"
)

// Message is an event as the bus keeps it: numbered, so a reconnecting
// client can ask for what it missed.
type Message struct {
	ID    int64
	Event scouts.Event
}

// Bus fans live events out to subscribers and keeps the most recent ones
// for clients that resume after a short disconnection (SSE Last-Event-ID).
//
// Publishing never blocks: a subscriber that falls behind by more than its
// buffer is dropped, and its client resumes from the ring or, if it fell
// too far behind, is told to refetch.
type Bus struct {
	mu   sync.Mutex
	seq  int64
	ring []Message // the last len(ring) messages, oldest first
	size int
	subs map[*Subscription]struct{}
}

// New returns a bus that remembers the last size messages.
//
// Numbering starts from the current time in microseconds rather than zero,
// so that ids keep increasing across agent restarts: a client resuming with
// an id from before a restart is then correctly told it missed events,
// instead of silently matching new events that reuse old numbers.
func New(size int, start int64) *Bus {
	return &Bus{size: size, seq: start, subs: map[*Subscription]struct{}{}}
}

// Publish numbers ev and delivers it to every subscriber.
func (b *Bus) Publish(ev scouts.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	m := Message{ID: b.seq, Event: ev}
	if len(b.ring) == b.size {
		copy(b.ring, b.ring[1:])
		b.ring = b.ring[:b.size-1]
	}
	b.ring = append(b.ring, m)
	for s := range b.subs {
		select {
		case s.ch <- m:
		default:
			// Too slow: cut it off rather than block the publisher or grow
			// without bound. Its client reconnects with its last id.
			delete(b.subs, s)
			close(s.ch)
		}
	}
}

// Subscription receives messages on C until it is closed or dropped
// (then C is closed).
type Subscription struct {
	C <-chan Message
	// Last is the id of the last message published before the
	// subscription started: everything after it arrives on C (or in the
	// backlog). A stream's first event carries it, so that a client
	// resuming from that event misses nothing published meanwhile.
	Last int64
	ch   chan Message
	b    *Bus
}

// Close ends the subscription.
func (s *Subscription) Close() {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if _, ok := s.b.subs[s]; ok {
		delete(s.b.subs, s)
		close(s.ch)
	}
}

// Subscribe starts a subscription. If after > 0, the messages published
// after that id are returned as backlog; complete is false when some of them
// are no longer kept (the caller should tell its client to refetch).
func (b *Bus) Subscribe(after int64, buffer int) (sub *Subscription, backlog []Message, complete bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := make(chan Message, buffer)
	sub = &Subscription{C: ch, Last: b.seq, ch: ch, b: b}
	b.subs[sub] = struct{}{}
	complete = true
	if after > 0 && after < b.seq {
		if len(b.ring) == 0 || b.ring[0].ID > after+1 {
			complete = false
		}
		for _, m := range b.ring {
			if m.ID > after {
				backlog = append(backlog, m)
			}
		}
	}
	if after > b.seq {
		// An id this bus never issued (a clock set back across a restart):
		// the client cannot know what it missed.
		complete = false
	}
	return sub, backlog, complete
}

// LastID is the id of the most recent message.
func (b *Bus) LastID() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq
}
