//go:build chaos

package chaos

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// relayKillDuringIngest: posters keep posting while the relay is killed
// with SIGKILL at random points and started again at its address; the
// desktop stays connected (and reconnects by itself).
func relayKillDuringIngest(t *testing.T, s *scenario) {
	const items, kills = 6000, 6
	w := newHookWorld(t, s, filepath.Join(t.TempDir(), "relay.db"))
	l := newLedger()
	done := w.poster.postAll(s.ctx, l, []string{w.hook.HookURL}, 0, items, 8)
	var points []string
	for _, at := range s.points(kills, items/10, items*9/10) {
		untilCount(t, s.ctx, "accepted items", int64(at), l.n.Load, l.added.Next)
		w.relay.restart(t)
		s.res.kills++
		points = append(points, fmt.Sprint(at))
	}
	waitDone(t, s.ctx, done)
	w.count(t, s.ctx, l, s.res)
	s.res.note("relay killed after %s of %d items were accepted, 8 posters", strings.Join(points, ", "), items)
}

// relayKillDuringDrain: a backlog queued while the desktop is away, then
// the relay killed at a random point of its delivery to the desktop.
func relayKillDuringDrain(t *testing.T, s *scenario) {
	const rounds, backlog = 5, 1500
	w := newHookWorld(t, s, filepath.Join(t.TempDir(), "relay.db"))
	l := newLedger()
	var points []string
	for r := range rounds {
		w.agent.stop(t)
		waitDone(t, s.ctx, w.poster.postAll(s.ctx, l, []string{w.hook.HookURL}, r*backlog, (r+1)*backlog, 8))
		maxSeq, _, err := w.relayQueue(s.ctx)
		if err != nil {
			t.Fatal(err)
		}
		w.agent.start(t)
		from := w.lastSeq(s.ctx)
		at := min(int64(s.between(int(from)+1, int(maxSeq))), maxSeq)
		untilCount(t, s.ctx, "the desktop's committed sequence", at, func() int64 { return w.lastSeq(s.ctx) }, w.agent.changed(t))
		w.relay.restart(t)
		s.res.kills++
		points = append(points, fmt.Sprintf("%d/%d", at-from, maxSeq-from))
	}
	w.count(t, s.ctx, l, s.res)
	s.res.note("relay killed with the desktop at %s of its backlog (stopped gracefully while each backlog was posted)", strings.Join(points, ", "))
}

// agentKillDuringDrain: a backlog queued while the desktop is down, then
// the desktop killed at a random point of committing it; items keep
// arriving meanwhile.
func agentKillDuringDrain(t *testing.T, s *scenario) {
	const rounds, backlog, trickle = 6, 1500, 1000
	w := newHookWorld(t, s, filepath.Join(t.TempDir(), "relay.db"))
	l := newLedger()
	// A slow stream of items throughout (one poster), beside the backlogs.
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	trickleDone := w.poster.postAll(ctx, l, []string{w.hook.HookURL}, 1_000_000, 1_000_000+trickle, 1)
	w.agent.kill()
	var points []string
	for r := range rounds {
		waitDone(t, s.ctx, w.poster.postAll(s.ctx, l, []string{w.hook.HookURL}, r*backlog, (r+1)*backlog, 8))
		maxSeq, _, err := w.relayQueue(s.ctx)
		if err != nil {
			t.Fatal(err)
		}
		w.agent.start(t)
		from := w.lastSeq(s.ctx)
		at := min(int64(s.between(int(from)+1, int(maxSeq))), maxSeq)
		untilCount(t, s.ctx, "the desktop's committed sequence", at, func() int64 { return w.lastSeq(s.ctx) }, w.agent.changed(t))
		w.agent.kill()
		s.res.kills++
		points = append(points, fmt.Sprintf("%d/%d", at-from, maxSeq-from))
	}
	s.res.note("desktop killed at %s of its backlog", strings.Join(points, ", "))
	w.agent.start(t)
	waitDone(t, s.ctx, trickleDone)
	w.count(t, s.ctx, l, s.res)
}
