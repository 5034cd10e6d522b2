package core

import (
	"context"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

// EventBriefReady is published when the daily brief is sent, with the
// Brief: the tray shows it as a notification that opens the Brief page.
const EventBriefReady = "brief.ready"

// DefaultBriefAt is the time of day of the daily brief until the person
// picks another.
const DefaultBriefAt = "08:30"

const briefKey = "brief_at"

// briefList is how many cards of each kind a brief lists; the counts say
// how many there are in all.
const briefList = 50

// Brief is the daily brief: what waits in the inbox, what was filed in
// Screened or Spam since the last brief (each can be brought back), the
// tasks due and events of the day, and the alarms still open.
type Brief struct {
	At    time.Time `json:"at"`
	Since time.Time `json:"since"`
	// Inbox lists the cards waiting, newest first; InboxCount is all of
	// them, InboxNew those that arrived since the last brief.
	Inbox      []scouts.Suggestion `json:"inbox"`
	InboxCount int                 `json:"inbox_count"`
	InboxNew   int                 `json:"inbox_new"`
	// Screened and Spam are the cards filed there since the last brief.
	Screened []scouts.Suggestion `json:"screened"`
	Spam     []scouts.Suggestion `json:"spam"`
	// Tasks are the open tasks due today or before; Events those that
	// start today.
	Tasks  []scouts.Entity `json:"tasks"`
	Events []scouts.Entity `json:"events"`
	// Alarms are the alarms not resolved yet (open or acknowledged),
	// newest first: what is wrong until its cause goes away.
	Alarms []alarms.Alarm `json:"alarms"`
	// New says whether anything arrived or falls due since the last brief:
	// a brief without it is not sent.
	New bool `json:"new"`
}

// BriefAt is the time of day of the daily brief ("HH:MM", local), or
// "off".
func (c *Core) BriefAt(ctx context.Context) (string, error) {
	v, ok, err := c.DB.Setting(ctx, briefKey)
	if err != nil || !ok {
		return DefaultBriefAt, err
	}
	return v, nil
}

// SetBriefAt sets the time of day of the daily brief: "HH:MM" or "off".
func (c *Core) SetBriefAt(ctx context.Context, at string) (string, error) {
	if at != "off" {
		t, err := time.Parse("15:04", at)
		if err != nil {
			return "", scouts.Errorf(scouts.EInvalid, "brief time %q: want a time of day like 08:30, or off", at)
		}
		at = t.Format("15:04")
	}
	if err := c.DB.SetSetting(ctx, briefKey, at); err != nil {
		return "", err
	}
	c.wakeBrief()
	return at, nil
}

// Brief composes the brief as of now: what changed since the last one
// sent (or the last day, before the first).
func (c *Core) Brief(ctx context.Context) (Brief, error) {
	now := c.now()
	since := now.Add(-24 * time.Hour)
	if last, ok, err := c.DB.LastBrief(ctx); err != nil {
		return Brief{}, err
	} else if ok {
		since = last
	}
	b := Brief{At: now, Since: since}
	var err error
	if b.Inbox, err = c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{Status: scouts.StatusPending, Lane: scouts.LaneInbox, Newest: true, Limit: briefList}); err != nil {
		return b, err
	}
	lanes, err := c.DB.CountPendingByLane(ctx)
	if err != nil {
		return b, err
	}
	b.InboxCount = lanes[scouts.LaneInbox]
	fresh, err := c.DB.PendingSince(ctx, scouts.LaneInbox, since, briefList)
	if err != nil {
		return b, err
	}
	b.InboxNew = len(fresh)
	if b.Screened, err = c.DB.PendingSince(ctx, scouts.LaneScreened, since, briefList); err != nil {
		return b, err
	}
	if b.Spam, err = c.DB.PendingSince(ctx, scouts.LaneSpam, since, briefList); err != nil {
		return b, err
	}
	local := now.In(time.Local)
	dayStart := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.Local)
	dayEnd := dayStart.AddDate(0, 0, 1)
	open := false
	tasks, err := c.DB.ListEntities(ctx, scouts.EntityTask, localdb.EntityFilter{Done: &open, Limit: 5000})
	if err != nil {
		return b, err
	}
	b.Tasks = []scouts.Entity{}
	for _, t := range tasks {
		if !t.Due.IsZero() && t.Due.Before(dayEnd) {
			b.Tasks = append(b.Tasks, t)
		}
	}
	events, err := c.DB.ListEntities(ctx, scouts.EntityEvent, localdb.EntityFilter{Limit: 5000})
	if err != nil {
		return b, err
	}
	b.Events = []scouts.Entity{}
	for _, e := range events {
		if !e.StartsAt.Before(dayStart) && e.StartsAt.Before(dayEnd) {
			b.Events = append(b.Events, e)
		}
	}
	if b.Alarms, err = c.alarms.List(ctx, false); err != nil {
		return b, err
	}
	if b.Alarms == nil {
		b.Alarms = []alarms.Alarm{}
	}
	// Today's tasks and events, and alarms still open, are new when the
	// last brief was on an earlier day; an alarm raised since the last
	// brief is new whenever.
	newDay := since.In(time.Local).Before(dayStart)
	raised := false
	for _, a := range b.Alarms {
		raised = raised || a.RaisedAt.After(since)
	}
	b.New = b.InboxNew > 0 || len(b.Screened) > 0 || len(b.Spam) > 0 || raised ||
		(newDay && len(b.Tasks)+len(b.Events)+len(b.Alarms) > 0)
	return b, nil
}

// SendBrief composes the brief and, when it holds something new, records
// it (the next brief starts from here) and announces it. It reports
// whether it was sent.
func (c *Core) SendBrief(ctx context.Context) (Brief, bool, error) {
	b, err := c.Brief(ctx)
	if err != nil || !b.New {
		return b, false, err
	}
	items := b.InboxNew + len(b.Screened) + len(b.Spam) + len(b.Tasks) + len(b.Events) + len(b.Alarms)
	summary := briefSummary(b)
	if err := c.DB.RecordBrief(ctx, b.At, items, scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageRun, Type: "brief.sent",
		Outcome: scouts.OutcomeOK, Summary: "Daily brief: " + summary, Refs: map[string]string{"since": b.Since.Format(time.RFC3339)}, At: b.At}); err != nil {
		return b, false, err
	}
	c.Bus.Publish(scouts.Event{Type: EventBriefReady, Data: b})
	return b, true, nil
}

// briefSummary is the brief in one line, for the notification and the
// audit.
func briefSummary(b Brief) string {
	s := fmt.Sprintf("%d waiting in the inbox (%d new), %d screened and %d spam since the last brief, %d tasks due, %d events today",
		b.InboxCount, b.InboxNew, len(b.Screened), len(b.Spam), len(b.Tasks), len(b.Events))
	switch n := len(b.Alarms); n {
	case 0:
	case 1:
		s += ", 1 alarm open"
	default:
		s += fmt.Sprintf(", %d alarms open", n)
	}
	return s
}

// nextBrief is when the brief is due next after last (the last sent; zero:
// never), at the time of day at (local "HH:MM"): today's if it was not
// sent since then, else tomorrow's. A time within quiet hours moves to
// their end.
func nextBrief(at string, last, now time.Time, quiet *QuietHours) (time.Time, bool) {
	t, err := time.Parse("15:04", at)
	if err != nil {
		return time.Time{}, false
	}
	local := now.In(time.Local)
	due := time.Date(local.Year(), local.Month(), local.Day(), t.Hour(), t.Minute(), 0, 0, time.Local)
	if !last.Before(due) {
		due = due.AddDate(0, 0, 1)
	}
	if quiet != nil {
		if end, ok := quietEnd(quiet, due); ok {
			due = end
		}
	}
	return due, true
}

// quietEnd is the end of the quiet hours t falls in, if it does.
func quietEnd(q *QuietHours, t time.Time) (time.Time, bool) {
	s, err1 := time.Parse("15:04", q.Start)
	e, err2 := time.Parse("15:04", q.End)
	if err1 != nil || err2 != nil || q.Start == q.End {
		return time.Time{}, false
	}
	mins := t.Hour()*60 + t.Minute()
	sm, em := s.Hour()*60+s.Minute(), e.Hour()*60+e.Minute()
	in := (sm < em && mins >= sm && mins < em) || (sm > em && (mins >= sm || mins < em))
	if !in {
		return time.Time{}, false
	}
	end := time.Date(t.Year(), t.Month(), t.Day(), e.Hour(), e.Minute(), 0, 0, t.Location())
	if !end.After(t) {
		end = end.AddDate(0, 0, 1)
	}
	return end, true
}

func (c *Core) wakeBrief() {
	select {
	case c.briefWake <- struct{}{}:
	default:
	}
}

// briefLoop sends the daily brief at its time: a timer set to the next
// one, reset when its time changes (quiet hours are read each time). A brief whose time
// passed while the agent was off is sent at start.
func (c *Core) briefLoop(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		wait := 24 * time.Hour
		if due, ok, err := c.briefDue(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			c.log.Warn("brief: cannot tell when it is due", "err", err)
			wait = time.Hour
		} else if ok {
			if d := due.Sub(c.now()); d <= 0 {
				if _, _, err := c.SendBrief(ctx); err != nil && ctx.Err() == nil {
					c.log.Warn("brief: not sent", "err", err)
				}
				// Sent or with nothing new: the next is tomorrow's.
				if err := c.DB.SetSetting(ctx, briefCheckedKey, c.now().Format(time.RFC3339Nano)); err != nil && ctx.Err() == nil {
					c.log.Warn("brief: cannot record the check", "err", err)
				}
				continue
			} else {
				wait = min(wait, d)
			}
		}
		t.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.briefWake:
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
	}
}

// briefCheckedKey records when the brief was last due and looked at, sent
// or not (nothing new): that day's is done.
const briefCheckedKey = "brief_checked"

// markFirstStart records, on the agent's first start, that no brief was
// due before it: the first brief is the next one after, not one at once on
// a new install. Done in Start, before anything can stop the agent: when
// the brief's loop did it, an agent stopped before the loop first ran
// forgot its first start, and started again after the brief's time it
// took the second start for the first and skipped that day's brief (a
// stress run of TestDailyBriefListsWhatWasScreenedSinceTheLast).
func (c *Core) markFirstStart(ctx context.Context) error {
	if _, ok, err := c.DB.Setting(ctx, briefCheckedKey); err != nil || ok {
		return err
	}
	return c.DB.SetSetting(ctx, briefCheckedKey, c.started.Format(time.RFC3339Nano))
}

// briefDue is when the next brief is due; ok is false when it is off.
func (c *Core) briefDue(ctx context.Context) (time.Time, bool, error) {
	at, err := c.BriefAt(ctx)
	if err != nil || at == "off" {
		return time.Time{}, false, err
	}
	st, err := c.Settings(ctx)
	if err != nil {
		return time.Time{}, false, err
	}
	last := c.started
	if v, ok, err := c.DB.Setting(ctx, briefCheckedKey); err != nil {
		return time.Time{}, false, err
	} else if ok {
		last, _ = time.Parse(time.RFC3339Nano, v)
	}
	due, ok := nextBrief(at, last, c.now(), st.QuietHours)
	return due, ok, nil
}
