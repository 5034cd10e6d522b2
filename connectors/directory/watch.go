package directory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
	"github.com/scouts-hq/scouts/scouts"
)

var errWatchClosed = errors.New("directory: the file event stream closed")

// maxBurstDelay bounds the debounce: a continuous stream of events still
// triggers a scan this long after its first event.
const maxBurstDelay = time.Second

// Watch watches the root and every directory below it that is not
// excluded, marking directories dirty as events arrive and calling notify
// once a burst has been quiet for Settle (at most about a second after it
// began). Every RescanInterval, and when the event queue overflows, it asks
// for a full rescan. Directories that cannot be watched (the inotify limit)
// are left to the rescans; a limit of the system is reported once, to
// Options.OnWatchLimit and in the hub's log.
//
// The watches are the agent's shared watcher's (Options.Watches); without
// one, each call opens a watcher of its own.
//
// It returns nil when ctx ends, and an error when the root itself cannot be
// watched or is moved or removed; the engine then polls instead, and scans
// report the folder missing until it is back. A limit of the system that
// keeps the root from being watched wraps scouts.ErrCannotWatch: the
// engine polls without reporting a failure, which OnWatchLimit has said.
func (c *Connector) Watch(ctx context.Context, notify func()) error {
	hub := c.watches
	if hub == nil {
		hub = watchhub.New(watchhub.Options{Logger: c.log})
		defer hub.Close()
	}
	w := &watcher{c: c}
	sub, err := hub.Subscribe(c.rootPath)
	if err == nil {
		defer sub.Close()
		w.sub = sub
		err = sub.Add(c.rootPath)
	}
	if err != nil {
		if w.limit(err) {
			return fmt.Errorf("directory: watch %s: %w (%w)", c.rootPath, err, scouts.ErrCannotWatch)
		}
		return fmt.Errorf("directory: watch %s: %w", c.rootPath, err)
	}
	c.mu.Lock()
	c.notify, c.watching = notify, true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.notify, c.watching = nil, false
		c.full = true // events from now on are missed
		c.mu.Unlock()
		if w.limitSaid && ctx.Err() != nil {
			c.onWatchLimit(nil) // the scout stopped: nothing is left to say
		}
	}()

	w.addTree(ctx, "")
	if !w.degraded && c.onWatchLimit != nil {
		c.onWatchLimit(nil) // the whole tree is watched live
	}
	// What changed in a directory before its watch was in place is found by
	// one more full scan.
	c.markFull()
	notify()

	rescan := time.NewTicker(time.Duration(c.cfg.RescanInterval))
	defer rescan.Stop()
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	var burstStart time.Time
	kick := func() {
		now := time.Now()
		if burstStart.IsZero() {
			burstStart = now
		}
		quiet.Reset(max(0, min(c.settle, burstStart.Add(maxBurstDelay).Sub(now))))
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-sub.Events():
			if !ok {
				return errWatchClosed
			}
			if rel, ok := c.relOf(ev.Name); ok && rel == "" && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
				// The watch is on the old directory: whatever takes its
				// place is not watched. Let the engine poll (and report).
				c.markFull()
				return fmt.Errorf("directory: the watched folder %s was removed or moved", c.rootPath)
			}
			if w.event(ctx, ev) {
				kick()
			}
		case err, ok := <-sub.Errors():
			if !ok {
				return errWatchClosed
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				c.log.Info("folder events overflowed; rescanning the whole folder")
			} else {
				c.log.Warn("folder watch error; rescanning the whole folder", "err", err)
			}
			c.markFull()
			kick()
		case <-rescan.C:
			c.markFull()
			notify()
		case <-quiet.C:
			burstStart = time.Time{}
			notify()
		}
	}
}

// watcher is the state of one Watch call.
type watcher struct {
	c   *Connector
	sub *watchhub.Sub
	// degraded is set once adding a watch failed for want of resources:
	// the rest of the tree is covered by rescans only.
	degraded bool
	// limitSaid is set once a limit of the system was reported.
	limitSaid bool
}

// event marks the directory an event happened in dirty and follows new
// and removed directories. It reports whether the event matters.
func (w *watcher) event(ctx context.Context, ev fsnotify.Event) bool {
	c := w.c
	rel, ok := c.relOf(ev.Name)
	if !ok {
		return false
	}
	if rel == "" {
		return false // the root's own attributes
	}
	isDir, protected := false, false
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			isDir = true
			protected = newGuard(c.protected).protects(fi.Name(), fi)
		}
	}
	if c.excludedPath(rel, isDir) {
		return false
	}
	parent, _ := splitRel(rel)
	c.markDirty(parent)
	if isDir && !protected {
		w.addTree(ctx, rel)
		// Files may have arrived before the new watch was in place (addTree
		// marks the directories below it).
		c.markDirty(rel)
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		// A directory moved away keeps its inotify watch under the old
		// name; drop it (an error just means it was not watched).
		w.sub.Remove(ev.Name)
	}
	return true
}

// relOf converts an event's path to a path relative to the root.
func (c *Connector) relOf(name string) (string, bool) {
	r, err := filepath.Rel(c.rootPath, name)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	if r == "." {
		return "", true
	}
	return filepath.ToSlash(r), true
}

// addTree watches the directories below rel (rel itself is watched by the
// caller or is added here when it is not the root), never through a link,
// never into an excluded directory, Scouts' own folders or a system
// pseudo-filesystem.
//
// Below a new directory (rel != ""), each directory it watches is marked
// dirty (the caller marks rel): a file written into one before its watch
// was in place raises no event, and a scan may already have indexed the
// directory empty, so that an incremental scan of its parent would not
// descend into it. The root's tree needs no marks: Watch asks for a full
// scan once it is watched.
func (w *watcher) addTree(ctx context.Context, rel string) {
	if w.degraded {
		return
	}
	c := w.c
	prot := newGuard(c.protected)
	top, err := c.lstatChain(rel)
	if err != nil {
		return // gone: its parent's listing says so
	}
	dev, _ := devOf(top)
	type dirOn struct {
		rel string
		dev uint64
	}
	stack := []dirOn{{rel, dev}}
	if rel != "" && !w.add(rel) {
		return
	}
	for len(stack) > 0 && ctx.Err() == nil {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f, err := c.root().Open(osRel(d.rel))
		if err != nil {
			continue // gone, or unreadable: the scan reports it
		}
		for {
			ents, err := f.ReadDir(readDirChunk)
			for _, e := range ents {
				sub := joinRel(d.rel, e.Name())
				if !e.IsDir() || c.excluded(sub, true) {
					continue
				}
				fi, err := e.Info()
				// Scouts' own data is never watched (its writes would wake
				// the scout forever), nor /proc and the like.
				if err != nil || prot.protects(e.Name(), fi) || c.systemMount(sub, fi, d.dev) {
					continue
				}
				if !w.add(sub) {
					f.Close()
					return
				}
				if rel != "" {
					c.markDirty(sub)
				}
				dev, _ := devOf(fi)
				stack = append(stack, dirOn{sub, dev})
			}
			if err != nil || len(ents) == 0 {
				if err != nil && !errors.Is(err, io.EOF) {
					c.log.Debug("list folder to watch", "dir", displayString(d.rel), "err", err)
				}
				break
			}
		}
		f.Close()
	}
}

// add watches one directory. It reports false when watching stopped for
// want of resources (the inotify watch limit, ENOSPC, or file
// descriptors): the scout carries on with rescans only.
func (w *watcher) add(rel string) bool {
	var err error
	if w.c.hooks.addWatch != nil {
		err = w.c.hooks.addWatch(rel)
	}
	if err == nil {
		err = w.sub.Add(w.c.abs(rel))
	}
	switch {
	case err == nil, errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return true
	case errors.Is(err, watchhub.ErrClosed):
		return false
	}
	w.degraded = true
	if !w.limit(err) {
		w.c.log.Warn("cannot watch every folder; changes below some folders are found by the periodic rescan only",
			"dir", w.c.display(rel), "err", err, "rescan_every", time.Duration(w.c.cfg.RescanInterval))
	}
	return false
}

// limit reports whether err is a limit of the system, and if so says so
// to OnWatchLimit, once per Watch: the hub has logged it once for the
// agent, and each scout meeting it would only repeat it.
func (w *watcher) limit(err error) bool {
	var le *watchhub.LimitError
	if !errors.As(err, &le) {
		return false
	}
	w.degraded = true
	if !w.limitSaid && w.c.onWatchLimit != nil {
		w.limitSaid = true
		w.c.onWatchLimit(le)
	}
	w.c.log.Debug("folder not watched: a limit of the system", "err", err)
	return true
}
