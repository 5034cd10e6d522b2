// Package watchhub shares one file-system watcher among everything the
// agent watches: every folder scout and the definitions folder.
//
// On Linux a watcher is an inotify instance, and the system allows 128 per
// user (fs.inotify.max_user_instances), shared with every other program
// the user runs: one instance per folder scout ran out with a few dozen
// scouts, or fewer on a busy desktop. A Hub opens one instance for the
// whole agent; each user of it subscribes with the folder it watches (its
// root), adds and removes the directories below it, and receives the
// events of the directories it holds. Directories are reference-counted
// across subscribers, so two scouts watching overlapping trees both get
// the events where they meet, and one of them stopping leaves the other's
// watches in place. A subscriber hears nothing of a directory it did not
// add (one it excludes, or Scouts' own folders), even when another
// subscriber watches it inside its root.
//
// A limit of the system (the instances, or fs.inotify.max_user_watches) is
// returned as a *LimitError naming the sysctl to raise, and logged once
// per limit for the hub's life.
package watchhub

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// maxQueued bounds the events waiting for one subscriber that is busy (a
// scout walking a large new tree): past it they are dropped and the
// subscriber is told the queue overflowed (fsnotify.ErrEventOverflow), as
// the kernel does for an instance's own queue, and rescans.
const maxQueued = 16384

// Options configure a Hub.
type Options struct {
	Logger *slog.Logger
	// Open and Add, when set, run before the watcher is opened and before
	// each directory is watched (its path as the hub watches it, links
	// resolved); an error stands for the system's answer (EMFILE for the
	// instance limit, ENOSPC for the watch limit). For tests.
	Open func() error
	Add  func(path string) error
}

// Hub is the agent's one file-system watcher. Its methods are safe for
// concurrent use.
type Hub struct {
	log   *slog.Logger
	hooks Options

	// ioMu serialises opening the watcher and changing its watches with
	// the holds that decide them, so that the last holder's removal cannot
	// undo another subscriber's add. The dispatcher never takes it:
	// watching a directory never waits for events to be routed.
	ioMu sync.Mutex

	mu       sync.Mutex
	fw       *fsnotify.Watcher // nil until the first subscriber, or after Close
	closed   bool
	holders  map[string][]*Sub // watched path (links resolved) → subscribers holding it
	subs     map[*Sub]struct{} // every open subscriber
	reported map[string]bool   // limits logged, by sysctl
	done     chan struct{}     // closed when the dispatcher has stopped
}

// New returns a hub. It opens no watcher until something subscribes.
func New(opts Options) *Hub {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Hub{log: log, hooks: opts, holders: map[string][]*Sub{}, subs: map[*Sub]struct{}{}, reported: map[string]bool{}}
}

// ErrClosed is returned by a closed hub.
var ErrClosed = errors.New("watchhub: the hub is closed")

// Subscribe returns a subscriber for the folder root, which hears the
// events of the directories it adds (root itself included). It opens the
// hub's watcher if it is not open yet; the system's instance limit is a
// *LimitError, and the next Subscribe tries again.
func (h *Hub) Subscribe(root string) (*Sub, error) {
	root = filepath.Clean(root)
	real := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		// The same directory reached through a link is one inotify watch,
		// which fsnotify names by the first path it was added under: every
		// path is watched resolved, and events are named back.
		real = r
	}
	if err := h.open(); err != nil {
		return nil, err
	}
	s := &Sub{h: h, root: root, real: real, held: map[string]struct{}{},
		events: make(chan fsnotify.Event), errors: make(chan error),
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	go s.pump()
	return s, nil
}

// open opens the watcher and starts routing its events, once.
func (h *Hub) open() error {
	h.ioMu.Lock()
	defer h.ioMu.Unlock()
	h.mu.Lock()
	closed, open := h.closed, h.fw != nil
	h.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case open:
		return nil
	}
	var fw *fsnotify.Watcher
	var err error
	if h.hooks.Open != nil {
		err = h.hooks.Open()
	}
	if err == nil {
		fw, err = fsnotify.NewWatcher()
	}
	if err != nil {
		err = classify(err, true)
		h.report(err)
		return fmt.Errorf("watchhub: open the file watcher: %w", err)
	}
	done := make(chan struct{})
	h.mu.Lock()
	h.fw, h.done = fw, done
	h.mu.Unlock()
	go h.dispatch(fw, done)
	return nil
}

// report logs a limit the first time it is met.
func (h *Hub) report(err error) {
	var le *LimitError
	if !errors.As(err, &le) {
		return
	}
	h.mu.Lock()
	first := !h.reported[le.Sysctl]
	h.reported[le.Sysctl] = true
	h.mu.Unlock()
	if first {
		h.log.Warn("the system's limit on file watches is reached: folders are rescanned periodically instead of watched live",
			"limit", le.Sysctl, "value", le.Value, "raise_with", le.Command(), "err", le.Err)
	}
}

// dispatch routes the watcher's events to the subscribers holding their
// directories, until the watcher closes.
func (h *Hub) dispatch(fw *fsnotify.Watcher, done chan struct{}) {
	defer close(done)
	for {
		select {
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			h.route(ev)
		case err, ok := <-fw.Errors:
			if !ok {
				return
			}
			if err == nil {
				continue
			}
			// An overflow or a read error loses events of every
			// subscriber alike: each one rescans.
			h.mu.Lock()
			for s := range h.subs {
				s.post(nil, err)
			}
			h.mu.Unlock()
		}
	}
}

// route hands an event to every subscriber holding the directory it
// happened in, or the directory it happened to (a watched directory
// removed or moved: its own watch and its parent's both say so), once
// each, named as that subscriber spells its root.
func (h *Hub) route(ev fsnotify.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	in, self := h.holders[filepath.Dir(ev.Name)], h.holders[ev.Name]
	for i, s := range slices.Concat(in, self) {
		if i >= len(in) && slices.Contains(in, s) {
			continue
		}
		named := ev
		named.Name = s.root + ev.Name[len(s.real):]
		s.post(&named, nil)
	}
}

// Close stops the watcher; every subscriber's channels close.
func (h *Hub) Close() error {
	h.ioMu.Lock()
	defer h.ioMu.Unlock()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	fw, done := h.fw, h.done
	h.fw = nil
	subs := slices.Collect(maps.Keys(h.subs))
	clear(h.subs)
	clear(h.holders)
	h.mu.Unlock()
	for _, s := range subs {
		s.stop()
	}
	if fw == nil {
		return nil
	}
	err := fw.Close()
	<-done
	if err != nil {
		return fmt.Errorf("watchhub: close: %w", err)
	}
	return nil
}

// Sub is one subscriber: the directories it watches under its root and
// the events there.
type Sub struct {
	h    *Hub
	root string              // as the subscriber spells it
	real string              // with links resolved, as the hub watches it
	held map[string]struct{} // watched paths it holds (Hub.ioMu and Hub.mu)

	events chan fsnotify.Event
	errors chan error
	wake   chan struct{} // something is queued
	done   chan struct{} // closed by stop
	once   sync.Once

	qmu    sync.Mutex
	queue  []fsnotify.Event
	errs   []error
	closed bool // no more posts (qmu)
}

// Events are the events under the subscriber's root. The channel closes
// when the subscriber or the hub is closed.
func (s *Sub) Events() <-chan fsnotify.Event { return s.events }

// Errors are the watcher's errors (fsnotify.ErrEventOverflow when events
// were lost, the hub's or this subscriber's queue). It closes with Events.
func (s *Sub) Errors() <-chan error { return s.errors }

// Add watches the directory at path, which must be the root or below it.
// Adding a directory it holds already watches it again (a directory
// removed and re-created at the same path is a new one to the system).
// The system's watch limit is a *LimitError.
func (s *Sub) Add(path string) error {
	real, err := s.realPath(path)
	if err != nil {
		return err
	}
	h := s.h
	h.ioMu.Lock()
	defer h.ioMu.Unlock()
	// Held before the watch is in place, so that no event of it is lost
	// between the two.
	h.mu.Lock()
	fw := h.fw
	_, had := s.held[real]
	if fw != nil && !had && !s.isClosed() {
		s.held[real] = struct{}{}
		h.holders[real] = append(h.holders[real], s)
	}
	h.mu.Unlock()
	if fw == nil || s.isClosed() {
		return ErrClosed
	}
	if h.hooks.Add != nil {
		err = h.hooks.Add(real)
	}
	if err == nil {
		err = fw.Add(real)
	}
	if err != nil {
		if !had {
			s.release(real)
		}
		err = classify(err, false)
		h.report(err)
		return fmt.Errorf("watchhub: watch %s: %w", path, err)
	}
	return nil
}

// Remove stops watching path for this subscriber; the directory stays
// watched while another subscriber holds it. Removing what it does not
// hold does nothing.
func (s *Sub) Remove(path string) {
	real, err := s.realPath(path)
	if err != nil {
		return
	}
	s.h.ioMu.Lock()
	defer s.h.ioMu.Unlock()
	s.release(real)
}

// release drops the subscriber's hold on real, and the watch with the last
// hold; the caller holds Hub.ioMu.
func (s *Sub) release(real string) {
	h := s.h
	h.mu.Lock()
	if _, ok := s.held[real]; !ok {
		h.mu.Unlock()
		return
	}
	delete(s.held, real)
	left := slices.DeleteFunc(h.holders[real], func(o *Sub) bool { return o == s })
	if len(left) > 0 {
		h.holders[real] = left
		h.mu.Unlock()
		return
	}
	delete(h.holders, real)
	fw := h.fw
	h.mu.Unlock()
	if fw != nil {
		// An error means the system dropped the watch already (the
		// directory was removed or moved away).
		_ = fw.Remove(real)
	}
}

// Close stops the subscriber's events and drops its watches.
func (s *Sub) Close() {
	h := s.h
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
	s.stop()
	h.ioMu.Lock()
	h.mu.Lock()
	held := slices.Collect(maps.Keys(s.held))
	h.mu.Unlock()
	for _, real := range held {
		s.release(real)
	}
	h.ioMu.Unlock()
}

// realPath converts a path of the subscriber's to the path the hub
// watches.
func (s *Sub) realPath(path string) (string, error) {
	path = filepath.Clean(path)
	if path == s.root {
		return s.real, nil
	}
	prefix := s.root + string(filepath.Separator)
	if s.root == string(filepath.Separator) {
		prefix = s.root
	}
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return "", fmt.Errorf("watchhub: %s is not inside %s", path, s.root)
	}
	return filepath.Join(s.real, rest), nil
}

// post queues an event or an error for the subscriber, never blocking the
// dispatcher: a full queue drops the event and queues an overflow, which
// the subscriber takes after the drop and answers with a rescan.
func (s *Sub) post(ev *fsnotify.Event, err error) {
	s.qmu.Lock()
	switch {
	case s.closed:
	case err != nil:
		s.errs = append(s.errs, err)
	case len(s.queue) >= maxQueued:
		if len(s.errs) == 0 || s.errs[len(s.errs)-1] != fsnotify.ErrEventOverflow {
			s.errs = append(s.errs, fsnotify.ErrEventOverflow)
		}
	default:
		s.queue = append(s.queue, *ev)
	}
	s.qmu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// pump hands the queued events and errors to the subscriber, in order of
// arrival among events; it closes the channels once the subscriber stops.
func (s *Sub) pump() {
	defer close(s.errors)
	defer close(s.events)
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		}
		for {
			s.qmu.Lock()
			q, errs := s.queue, s.errs
			s.queue, s.errs = nil, nil
			s.qmu.Unlock()
			if len(q) == 0 && len(errs) == 0 {
				break
			}
			for _, err := range errs {
				select {
				case s.errors <- err:
				case <-s.done:
					return
				}
			}
			for _, ev := range q {
				select {
				case s.events <- ev:
				case <-s.done:
					return
				}
			}
		}
	}
}

func (s *Sub) stop() {
	s.once.Do(func() {
		s.qmu.Lock()
		s.closed = true
		s.queue, s.errs = nil, nil
		s.qmu.Unlock()
		close(s.done)
	})
}

func (s *Sub) isClosed() bool {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	return s.closed
}

// Root is the folder the subscriber watches under, as it spelled it.
func (s *Sub) Root() string { return s.root }

// String names the subscriber in logs.
func (s *Sub) String() string { return "watchhub.Sub(" + s.root + ")" }
