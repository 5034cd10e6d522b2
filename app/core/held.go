package core

import (
	"context"
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// Pending caps (issue 20, item 6): a scout's new card past its cap of
// pending cards (its learning settings' pending_cap, default 500) is held
// in the database (lane held) before it is announced, and let in, oldest
// first, as the scout's cards are decided. While any are held the scout's
// alarm says how many; it is resolved when none are.
//
// The card is recorded by the engine and held just after, outside the
// engine's transaction: an agent that dies in between leaves that card in
// the inbox, one over the cap, not lost.

// PendingCapAlarmKey is the dedupe key of a scout's held-cards alarm.
func PendingCapAlarmKey(scoutID string) string { return alarms.KindPendingCap + ":" + scoutID }

// holdNew holds a new pending card if its scout is over its cap, and
// returns the card as it now is.
func (c *Core) holdNew(ctx context.Context, sg scouts.Suggestion) scouts.Suggestion {
	if sg.Status != scouts.StatusPending || sg.Lane == scouts.LaneSnoozed || sg.Lane == scouts.LaneHeld {
		return sg
	}
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	st, err := c.DB.LearnState(ctx, sg.ScoutID)
	if err != nil {
		c.log.Warn("pending cap: read the scout's settings", "scout", sg.ScoutID, "err", err)
		return sg
	}
	got, held, err := c.DB.HoldIfOver(ctx, sg.ID, sg.ScoutID, capsOf(st.Settings), c.awaitsActions(ctx, sg))
	if err != nil {
		c.log.Warn("pending cap: hold a card", "suggestion", sg.ID, "err", err)
		return sg
	}
	if !held {
		return sg
	}
	n, err := c.DB.HeldCount(ctx, sg.ScoutID)
	if err != nil {
		c.log.Warn("pending cap: count held cards", "scout", sg.ScoutID, "err", err)
	}
	c.heldAlarm(ctx, sg.ScoutID, n)
	return got
}

// letIn lets a scout's held cards in while it has room, announcing each as
// moved to its lane.
func (c *Core) letIn(ctx context.Context, scoutID string) {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	st, err := c.DB.LearnState(ctx, scoutID)
	if err != nil {
		return // the scout is gone
	}
	in, held, err := c.DB.ReleaseHeld(ctx, scoutID, capsOf(st.Settings), c.now())
	if err != nil {
		c.log.Warn("pending cap: let held cards in", "scout", scoutID, "err", err)
		return
	}
	for _, sg := range in {
		c.Bus.Publish(scouts.Event{Type: scouts.EventSuggestionMoved, Data: sg})
	}
	if len(in) > 0 || held == 0 {
		c.heldAlarm(ctx, scoutID, held)
	}
}

// heldAlarm raises (or brings up to date) the scout's held-cards alarm
// while held > 0, and resolves it once none are held.
func (c *Core) heldAlarm(ctx context.Context, scoutID string, held int) {
	key := PendingCapAlarmKey(scoutID)
	if held == 0 {
		if err := c.alarms.Resolve(ctx, key, "no card of the scout is held any more"); err != nil {
			c.log.Warn("pending cap alarm", "scout", scoutID, "err", err)
		}
		return
	}
	name := scoutID
	if s, err := c.DB.GetScout(ctx, scoutID); err == nil {
		name = s.Name
	}
	_, err := c.alarms.Raise(ctx, alarms.Alarm{Key: key, Kind: alarms.KindPendingCap, Severity: alarms.Warning, ScoutID: scoutID,
		Message: fmt.Sprintf("%s: %s — review the inbox to let them in (the scout is over its cap of pending cards; nothing is lost).",
			name, HeldText(held))})
	if err != nil {
		c.log.Warn("pending cap alarm", "scout", scoutID, "err", err)
	}
}

func capsOf(s scouts.LearnSettings) localdb.Caps {
	return localdb.Caps{Cards: s.Cap(), Actions: s.ActionsCap()}
}

// awaitsActions reports whether a new card's plan holds actions its rules
// proposed that wait for the person's approval (the user's default actions
// for such cards, a Gmail archive say, do not count: every card would).
func (c *Core) awaitsActions(ctx context.Context, sg scouts.Suggestion) bool {
	plan, err := c.Engine.Plan(ctx, sg.ID, "")
	if err != nil {
		c.log.Warn("pending cap: read a card's plan", "suggestion", sg.ID, "err", err)
		return false
	}
	for _, st := range plan.Proposed {
		if st.Enabled && st.Mode == actions.RequireApproval && strings.HasPrefix(st.Origin, "rule:") {
			return true
		}
	}
	return false
}

// HeldText is how a scout's held cards are said: "312 held".
func HeldText(n int) string { return fmt.Sprintf("%d held", n) }

// HeldCount is how many of a scout's cards are held past its cap.
func (c *Core) HeldCount(ctx context.Context, scoutID string) (int, error) {
	return c.DB.HeldCount(ctx, scoutID)
}
