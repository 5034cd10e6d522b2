package core

import (
	"sync"

	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
	"github.com/scouts-hq/scouts/scouts"
)

// The agent watches every folder through one file watcher: one inotify
// instance, of the 128 a user may have, whatever the number of folder
// scouts (connectors/directory/watchhub).

// folderWatches is the shared watcher and the limits of the system each
// folder scout met.
type folderWatches struct {
	hub  *watchhub.Hub
	owns bool     // made by Open: Close closes it
	lim  sync.Map // scout id → what keeps its folder from being watched live
}

// EventScoutWatch is published when a folder scout's folder is watched
// live, and when a limit of the system keeps it (or part of it) from
// being watched, with the sysctl to raise: {"scout_id", "live", "problem"}.
const EventScoutWatch = "scout.watch"

func (c *Core) setupWatches() {
	c.watches.hub = c.cfg.Watches
	if c.watches.hub == nil {
		c.watches.hub = watchhub.New(watchhub.Options{Logger: c.log})
		c.watches.owns = true
	}
}

func (c *Core) closeWatches() {
	if c.watches.owns {
		if err := c.watches.hub.Close(); err != nil {
			c.log.Warn("close the file watcher", "err", err)
		}
	}
}

// noteWatchLimit records what a folder scout's watch said: a limit of the
// system it met, or nil once its folder is watched live.
func (c *Core) noteWatchLimit(scoutID string, err error) {
	problem := ""
	if err != nil {
		problem = err.Error()
		c.watches.lim.Store(scoutID, problem)
	} else {
		c.watches.lim.Delete(scoutID)
	}
	c.Bus.Publish(scouts.Event{Type: EventScoutWatch, Data: map[string]any{"scout_id": scoutID, "live": err == nil, "problem": problem}})
}

// WatchProblem says what keeps a folder scout's folder, or part of it,
// from being watched live (a limit of the system, with the sysctl to
// raise): its changes are then found by periodic rescans. "" when nothing
// does.
func (c *Core) WatchProblem(scoutID string) string {
	if v, ok := c.watches.lim.Load(scoutID); ok {
		return v.(string)
	}
	return ""
}
