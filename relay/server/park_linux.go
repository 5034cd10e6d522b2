package server

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// parker holds idle sessions without a goroutine each: an idle session's
// connection is registered in one epoll set (one-shot, level-triggered)
// and its reader goroutine exits; when the connection has something to
// read, a new reader starts, with the runtime's smallest stack. At 10 000
// idle devices this saves a goroutine stack per device (about 4 KiB,
// the largest share of an idle session once the connection storm's
// garbage is collected).
//
// The set lives while sessions are parked in it: the dispatcher closes it
// and exits when the last one leaves, so a server that holds no idle
// session holds no descriptor or goroutine for it.
type parker struct {
	mu     sync.Mutex
	epfd   int // -1: no set (nothing parked)
	wake   int // eventfd that interrupts the dispatcher's wait
	parked map[uint64]*session
	next   uint64
	// failed: epoll could not be had once; sessions wait in their
	// goroutine from then on.
	failed bool
	// changed, when set (tests), hears of every change of the set.
	changed chan struct{}
}

// count is the number of sessions parked.
func (p *parker) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.parked)
}

func (p *parker) changedLocked() {
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

func newParker() *parker { return &parker{epfd: -1, wake: -1, parked: map[uint64]*session{}} }

// wakeID marks the eventfd's events; session ids start above it.
const wakeID = 0

// park registers s's connection and reports whether it did: then the
// caller's goroutine must return, and s.readFrames runs again once the
// connection is readable (level-triggered: data that arrived before the
// registration is reported at once). It reports false when the
// connection cannot be parked; the caller then waits itself.
func (p *parker) park(s *session) bool {
	if s.waiter == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failed {
		return false
	}
	if s.ctx.Err() != nil {
		// Ending: its close handshake reads the connection itself.
		return false
	}
	if p.epfd < 0 {
		if err := p.openLocked(); err != nil {
			p.failed = true
			s.srv.log.Warn("device sessions: idle connections keep a goroutine each", "err", err)
			return false
		}
	}
	p.next++
	id := p.next
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT}
	setEventID(&ev, id)
	if err := ctl(s, p.epfd, unix.EPOLL_CTL_ADD, &ev); err != nil {
		return false
	}
	s.parkID = id
	p.parked[id] = s
	p.changedLocked()
	return true
}

// ctl changes s's registration in the set. It runs while the runtime
// holds the connection's descriptor, so that the descriptor cannot be
// closed (and its number reused) meanwhile; a closed connection has left
// the set already.
func ctl(s *session, epfd, op int, ev *unix.EpollEvent) error {
	var err error
	if cerr := s.waiter.rc.Control(func(fd uintptr) {
		err = unix.EpollCtl(epfd, op, int(fd), ev)
	}); cerr != nil {
		return cerr
	}
	return err
}

// forget takes a parked session out of the set before its connection is
// closed (a closed descriptor leaves the set without an event) and
// reports whether it was parked.
func (p *parker) forget(s *session) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.parkID == 0 || p.parked[s.parkID] != s {
		return false
	}
	delete(p.parked, s.parkID)
	ctl(s, p.epfd, unix.EPOLL_CTL_DEL, nil)
	s.parkID = 0
	if len(p.parked) == 0 {
		p.signalLocked() // the dispatcher closes the set
	}
	p.changedLocked()
	return true
}

func (p *parker) openLocked() error {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return fmt.Errorf("eventfd: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN}
	setEventID(&ev, wakeID)
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wake, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(wake)
		return fmt.Errorf("epoll: %w", err)
	}
	p.epfd, p.wake = epfd, wake
	go p.dispatch(epfd, wake)
	return nil
}

func (p *parker) signalLocked() {
	one := [8]byte{1}
	unix.Write(p.wake, one[:])
}

// dispatch waits for parked connections to become readable and starts
// their readers, until no session is parked.
func (p *parker) dispatch(epfd, wake int) {
	events := make([]unix.EpollEvent, 128)
	var ready []*session
	for {
		n, err := unix.EpollWait(epfd, events, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		p.mu.Lock()
		if err != nil {
			// Not expected; the sessions fall back to waiting in their
			// own goroutines.
			p.failed = true
			for id, s := range p.parked {
				delete(p.parked, id)
				s.parkID = 0
				ready = append(ready, s)
			}
		}
		for _, ev := range events[:max(n, 0)] {
			id := eventID(ev)
			if id == wakeID {
				var b [8]byte
				unix.Read(wake, b[:])
				continue
			}
			s := p.parked[id]
			if s == nil {
				continue // forgotten meanwhile
			}
			delete(p.parked, id)
			// One-shot: the registration is disabled; a later park adds
			// it anew.
			ctl(s, epfd, unix.EPOLL_CTL_DEL, nil)
			s.parkID = 0
			ready = append(ready, s)
		}
		last := len(p.parked) == 0
		if last {
			unix.Close(epfd)
			unix.Close(wake)
			p.epfd, p.wake = -1, -1
		}
		p.changedLocked()
		p.mu.Unlock()
		for _, s := range ready {
			go s.readFrames(true)
		}
		clear(ready)
		ready = ready[:0]
		if last {
			return
		}
	}
}

// An event's 64 bits of user data hold the session's id (Fd and Pad in
// x/sys/unix's layout of epoll_data).
func setEventID(ev *unix.EpollEvent, id uint64) {
	ev.Fd, ev.Pad = int32(uint32(id)), int32(uint32(id>>32))
}

func eventID(ev unix.EpollEvent) uint64 {
	return uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
}
