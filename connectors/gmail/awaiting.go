package gmail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// AwaitState is where an awaited sent mail is.
type AwaitState string

const (
	// AwaitWaiting: sent, no answer yet, no card yet.
	AwaitWaiting AwaitState = "waiting"
	// AwaitCarded: no answer in time; CardRef is the card saying so.
	AwaitCarded AwaitState = "carded"
	// AwaitAnswered: a recipient wrote back in the thread.
	AwaitAnswered AwaitState = "answered"
	// AwaitGone: the thread, or the sent mail, is no longer in Gmail.
	AwaitGone AwaitState = "gone"
)

// Awaited is a sent mail a scout waits on an answer to: one per thread,
// the newest the person sent in it. Headers and Gmail's snippet only, as
// a card keeps.
type Awaited struct {
	ThreadID   string
	MessageID  string
	Recipients []triage.Address // To and Cc, without the person
	Subject    string
	Snippet    string
	SentAt     time.Time
	DueAt      time.Time
	State      AwaitState
	CardRef    string
	// CheckedAt is when the thread was last read (threads.get).
	CheckedAt time.Time
}

// AwaitStore keeps one scout's awaited mail (the desktop's database).
type AwaitStore interface {
	// AwaitedThreads returns the rows of these threads that exist, in
	// any state, by thread id.
	AwaitedThreads(ctx context.Context, threadIDs []string) (map[string]Awaited, error)
	// ToCheck returns the rows whose thread must be read again now: those
	// waiting and due by now, and those carded and last read before stale.
	ToCheck(ctx context.Context, now, stale time.Time) ([]Awaited, error)
	// SaveAwaited writes rows, each replacing its thread's.
	SaveAwaited(ctx context.Context, rows []Awaited) error
}

// FollowUps is awaiting reply on a desktop scout that watches the person's
// sent mail: a sent mail whose thread has no answer from its recipients
// after After becomes a card ("No reply from Ana to 'Contract draft' since
// Tuesday — follow up?"); an answer withdraws the card.
type FollowUps struct {
	After time.Duration
	// Me is the mailbox's own address: never a recipient waited on.
	Me    string
	Store AwaitStore
	Now   func() time.Time
	// Location names the days in cards (default time.Local).
	Location *time.Location
}

// recheckCarded is how often a thread whose card is up is read again, in
// case its answer never came through the history (filed as spam, or
// listed while the scout was failing): the history withdraws the card at
// once; this is the net under it.
const recheckCarded = time.Hour

// followUpRun gathers, during one sync, what awaiting reply must look at,
// and plans what it makes of it. Nothing is stored before the engine has
// recorded the plan's items (commit): a crash or a failed page plans the
// same again next time, and the engine's per-scout uniqueness (a card per
// sent mail) and withdrawal of a card already withdrawn absorb it.
type followUpRun struct {
	f       *FollowUps
	client  *Client
	log     *slog.Logger
	sent    []Awaited
	touched []string
	save    []Awaited
}

// sentMail notes a mail the person sent (read with its headers).
func (r *followUpRun) sentMail(a Added, m Message) {
	var to []triage.Address
	for _, l := range [][]triage.Address{m.Triage.To, m.Triage.Cc} {
		for _, x := range l {
			if x.Addr == "" || strings.EqualFold(x.Addr, r.f.Me) ||
				slices.ContainsFunc(to, func(y triage.Address) bool { return y.Addr == x.Addr }) {
				continue
			}
			to = append(to, x)
		}
	}
	if len(to) == 0 {
		return // a note to self waits on nobody
	}
	at := m.Received
	if at.IsZero() {
		at = m.Triage.Date
	}
	if at.IsZero() {
		return
	}
	thread := a.ThreadID
	if thread == "" {
		thread = a.ID
	}
	r.sent = append(r.sent, Awaited{ThreadID: thread, MessageID: a.ID, Recipients: to, Subject: m.Card().Subject,
		Snippet: m.Snippet, SentAt: at, DueAt: at.Add(r.f.After), State: AwaitWaiting})
}

// arrived notes a thread that new mail came into.
func (r *followUpRun) arrived(a Added) {
	if a.ThreadID != "" && !slices.Contains(r.touched, a.ThreadID) {
		r.touched = append(r.touched, a.ThreadID)
	}
}

// plan decides, from what the sync saw and the threads it reads, which
// cards to make and which to withdraw; commit stores the rows after.
func (r *followUpRun) plan(ctx context.Context) ([]scouts.ItemRef, error) {
	now := r.f.Now()
	ids := slices.Clone(r.touched)
	for _, s := range r.sent {
		ids = append(ids, s.ThreadID)
	}
	rows := map[string]Awaited{}
	if len(ids) > 0 {
		var err error
		if rows, err = r.f.Store.AwaitedThreads(ctx, ids); err != nil {
			return nil, fmt.Errorf("gmail: awaiting reply: %w", err)
		}
	}
	var refs []scouts.ItemRef
	changed := map[string]bool{}
	slices.SortStableFunc(r.sent, func(a, b Awaited) int { return a.SentAt.Compare(b.SentAt) })
	for _, s := range r.sent {
		old, ok := rows[s.ThreadID]
		if ok && (old.MessageID == s.MessageID || !s.SentAt.After(old.SentAt)) {
			continue // listed again, or older than what the thread waits on
		}
		if ok && old.State == AwaitCarded {
			refs = append(refs, scouts.ItemRef{Ref: old.CardRef,
				Withdraw: "Withdrawn: you wrote again in this conversation on " + r.day(s.SentAt) + "; the wait starts over."})
		}
		rows[s.ThreadID], changed[s.ThreadID] = s, true
	}
	check := map[string]bool{}
	for _, id := range r.touched {
		if row, ok := rows[id]; ok && (row.State == AwaitWaiting || row.State == AwaitCarded) {
			check[id] = true
		}
	}
	for id := range changed {
		if !now.Before(rows[id].DueAt) {
			check[id] = true // sent long enough ago already
		}
	}
	due, err := r.f.Store.ToCheck(ctx, now, now.Add(-recheckCarded))
	if err != nil {
		return nil, fmt.Errorf("gmail: awaiting reply: %w", err)
	}
	for _, row := range due {
		if _, ok := rows[row.ThreadID]; !ok {
			rows[row.ThreadID] = row
		}
		if st := rows[row.ThreadID].State; st == AwaitWaiting || st == AwaitCarded {
			check[row.ThreadID] = true
		}
	}
	order := make([]string, 0, len(check))
	for id := range check {
		order = append(order, id)
	}
	slices.Sort(order)
	for _, id := range order {
		row := rows[id]
		ref, err := r.check(ctx, &row, now)
		if err != nil {
			if IsAuth(err) || ctx.Err() != nil {
				return nil, err
			}
			// One unreadable thread does not hold up the scout's mail;
			// it is read again next time.
			r.log.Warn("gmail: awaiting reply: read the thread", "thread", id, "err", err)
			continue
		}
		if ref != nil {
			refs = append(refs, *ref)
		}
		rows[id], changed[id] = row, true
	}
	for id := range changed {
		r.save = append(r.save, rows[id])
	}
	slices.SortFunc(r.save, func(a, b Awaited) int { return strings.Compare(a.ThreadID, b.ThreadID) })
	return refs, nil
}

// check reads row's thread: an answer from a recipient since the sent mail
// ends the wait (withdrawing its card), a wait past due makes the card.
func (r *followUpRun) check(ctx context.Context, row *Awaited, now time.Time) (*scouts.ItemRef, error) {
	msgs, err := r.client.Thread(ctx, row.ThreadID)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		msgs, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	row.CheckedAt = now
	if !slices.ContainsFunc(msgs, func(m ThreadMessage) bool { return m.ID == row.MessageID }) {
		return r.end(row, AwaitGone, "Withdrawn: the mail you sent is no longer in Gmail."), nil
	}
	for _, m := range msgs {
		if m.Sent || m.ID == row.MessageID || !m.Received.After(row.SentAt) {
			continue
		}
		for _, to := range row.Recipients {
			if strings.EqualFold(m.From, to.Addr) {
				return r.end(row, AwaitAnswered, "Withdrawn: "+name(to)+" answered on "+r.day(m.Received)+"."), nil
			}
		}
	}
	if row.State == AwaitWaiting && !now.Before(row.DueAt) {
		row.State, row.CardRef = AwaitCarded, row.MessageID
		meta := r.card(*row, now)
		return &scouts.ItemRef{Ref: row.CardRef, Meta: &meta}, nil
	}
	return nil, nil
}

// end closes a wait; its card, if it has one up, is withdrawn saying why.
func (r *followUpRun) end(row *Awaited, to AwaitState, why string) *scouts.ItemRef {
	carded := row.State == AwaitCarded
	row.State = to
	if !carded || row.CardRef == "" {
		return nil
	}
	return &scouts.ItemRef{Ref: row.CardRef, Withdraw: why}
}

// card is the follow-up card of a wait past due.
func (r *followUpRun) card(row Awaited, now time.Time) scouts.ItemMetadata {
	who := name(row.Recipients[0])
	switch n := len(row.Recipients); {
	case n == 2:
		who += " or " + name(row.Recipients[1])
	case n > 2:
		who += fmt.Sprintf(" or %d others", n-1)
	}
	var addrs []string
	for _, a := range row.Recipients {
		addrs = append(addrs, a.Addr)
	}
	days := int(r.f.After / (24 * time.Hour))
	wait := fmt.Sprintf("%d days", days)
	if days == 1 {
		wait = "a day"
	}
	return scouts.ItemMetadata{
		Title:   fmt.Sprintf("No reply from %s to '%s' since %s — follow up?", who, row.Subject, r.since(row.SentAt, now)),
		Excerpt: row.Snippet, URL: MessageURL(row.MessageID), ProposedKind: scouts.EntityTask, ReceivedAt: row.SentAt,
		Reason: fmt.Sprintf("You wrote to %s on %s and nobody it went to has answered in %s (this scout watches your sent mail).",
			strings.Join(addrs, ", "), r.day(row.SentAt), wait),
		Reminder: true,
	}
}

// commit stores what plan decided, once the engine recorded its items.
func (r *followUpRun) commit(ctx context.Context) error {
	if len(r.save) == 0 {
		return nil
	}
	if err := r.f.Store.SaveAwaited(ctx, r.save); err != nil {
		return fmt.Errorf("gmail: awaiting reply: %w", err)
	}
	return nil
}

func (r *followUpRun) loc() *time.Location {
	if r.f.Location != nil {
		return r.f.Location
	}
	return time.Local
}

// day names a day for a trail: "Tue 3 Nov".
func (r *followUpRun) day(t time.Time) string { return t.In(r.loc()).Format("Mon 2 Jan") }

// since names the day a mail was sent as a card says it: "yesterday",
// the weekday within the week, the date before that.
func (r *followUpRun) since(t, now time.Time) string {
	t, now = t.In(r.loc()), now.In(r.loc())
	d0 := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, r.loc())
	d1 := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, r.loc())
	switch days := int(d1.Sub(d0).Hours()/24 + 0.5); {
	case days <= 0:
		return "today"
	case days == 1:
		return "yesterday"
	case days < 7:
		return t.Weekday().String()
	case t.Year() == now.Year():
		return t.Format("2 Jan")
	default:
		return t.Format("2 Jan 2006")
	}
}

// name is how a card names a person: their name, else their address.
func name(a triage.Address) string {
	if n := strings.TrimSpace(a.Name); n != "" {
		return n
	}
	return a.Addr
}
