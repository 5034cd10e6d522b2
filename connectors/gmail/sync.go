package gmail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/scouts-hq/scouts/scouts/triage"
)

// Verdict is the outcome of triage for one new mail.
type Verdict struct {
	ID       string
	ThreadID string
	Decision triage.Decision
	// Card is the mail's subject, sender and snippet, read for triage.
	// Transient: the relay must not store it.
	Card Card
	// Trashed is set when the mail was spam and the scout moves spam to
	// the Trash.
	Trashed bool
	// Mail is the mail as triage read it (headers, and the body when
	// BodyRunes asked for it), for a desktop learner. Transient, like
	// Card; nil when the mail was not read.
	Mail *triage.Message
}

// TrashedNote ends the reason of a spam verdict whose mail was moved to
// the Trash: the relay says it in what it delivers, and the desktop reads
// it back to know that bringing the card back must take the mail out of
// the Trash (the protocol carries no flag for it).
const TrashedNote = "Moved to Gmail's Trash (the scout's auto-trash is on)."

// Sink receives a sync's verdicts. Its methods are called from one
// goroutine.
type Sink interface {
	// Seen reports whether the message was already dealt with for this
	// scout (queued, suggested): seen mail is not fetched again.
	Seen(ctx context.Context, id string) (bool, error)
	// Record keeps a verdict durably before the cursor passes it; an
	// error stops the sync without moving the cursor.
	Record(ctx context.Context, v Verdict) error
}

// Syncer turns a mailbox's new mail into verdicts: list what was added
// since the cursor, skip what is already known, read headers (and the body
// only if a model must be asked), triage, trash spam when the scout says
// so, and hand every verdict to the sink.
type Syncer struct {
	Client   *Client
	Pipeline *triage.Pipeline
	Sink     Sink
	// AutoTrashSpam moves spam verdicts to the Trash (never deletes).
	AutoTrashSpam bool
	// BackfillLimit bounds how many messages a resync reads after the
	// history cursor was lost (default 500).
	BackfillLimit int
	// BodyRunes, when positive, reads each new mail whole (format=full:
	// the same quota as headers only) and keeps that much of its text in
	// Verdict.Mail, for a learner on the desktop. The relay leaves it 0.
	BodyRunes int
	// NotBefore is when the scout began: a resync never suggests mail
	// that arrived before it (the baseline left that mail alone).
	NotBefore time.Time
	// SentTo, when set, is told the recipients (To and Cc) of each mail
	// the person sent, read from the history (one metadata read each): a
	// desktop learner learns that mail from them is wanted. The relay
	// leaves it nil and never reads sent mail.
	SentTo func(ctx context.Context, to []string) error
	// Sent, when set, is handed each mail the person sent, read with its
	// headers (the same read as SentTo's): awaiting reply waits on an
	// answer to it. Arrived is told of every other mail listed, read or
	// not (an answer may come into the sent mail's thread).
	Sent    func(ctx context.Context, a Added, m Message) error
	Arrived func(a Added)
	Logger  *slog.Logger
}

// Result reports what a sync did; all of it is content-free.
type Result struct {
	// Cursor is the history id to start from next time. It is never
	// lower than the one the sync started from.
	Cursor   uint64
	Baseline bool // first run: the cursor was set, no mail read
	Listed   int
	Seen     int
	Relevant int
	Spam     int
	Skip     int
	Trashed  int
	Gone     int // listed, then deleted before it could be read
	// Recovered is set when Gmail had dropped the history cursor and the
	// missed window was re-read from the message list; the note says so
	// in words for the scout's status.
	Recovered string
}

// Run syncs from cursor. lastSync is when the cursor was last advanced:
// it bounds the window a resync re-reads.
//
// Cursor 0 is the first run of a scout whose place in the mailbox was not
// read when it was created (Gmail was unavailable then). Without NotBefore
// it only records where the mailbox is; with it, it reads the mail received
// since NotBefore, which arrived after the scout's creation and is new to
// it, however late this first run comes.
func (s *Syncer) Run(ctx context.Context, cursor uint64, lastSync time.Time) (Result, error) {
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	res := Result{Cursor: cursor}
	if cursor == 0 {
		return s.first(ctx, &res, log)
	}
	var sent func(context.Context, []Added) error
	if s.SentTo != nil || s.Sent != nil {
		sent = s.readSent
	}
	next, err := s.Client.HistoryWithSent(ctx, cursor, func(ctx context.Context, batch []Added) error {
		return s.judge(ctx, batch, &res, time.Time{})
	}, sent)
	if IsHistoryGone(err) {
		return s.resync(ctx, cursor, lastSync, &res, log)
	}
	if err != nil {
		return res, err
	}
	res.Cursor = max(cursor, next)
	return res, nil
}

// resync re-reads the window a lost cursor covered. The new cursor is read
// first, so mail arriving during the backfill is listed again next time
// (and then recognised as seen) rather than missed.
func (s *Syncer) resync(ctx context.Context, cursor uint64, lastSync time.Time, res *Result, log *slog.Logger) (Result, error) {
	_, hid, err := s.Client.Profile(ctx)
	if err != nil {
		return *res, err
	}
	limit := s.BackfillLimit
	if limit <= 0 {
		limit = 500
	}
	since := lastSync
	if !since.IsZero() {
		since = since.Add(-time.Hour) // Gmail's after: is coarse; overlap, the sink dedupes
	}
	if since.Before(s.NotBefore) {
		since = s.NotBefore
	}
	ids, more, err := s.Client.Backfill(ctx, since, limit)
	if err != nil {
		return *res, err
	}
	// Backfill lists newest first; judge oldest first like history does.
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	if err := s.judge(ctx, ids, res, s.NotBefore); err != nil {
		return *res, err
	}
	res.Cursor = max(cursor, hid)
	res.Recovered = fmt.Sprintf("Gmail no longer had this scout's place in the mailbox; the %d messages since %s were re-read instead.",
		len(ids), describeSince(lastSync))
	if more {
		res.Recovered += fmt.Sprintf(" Only the newest %d were read; older mail in that window was not triaged.", limit)
	}
	log.Warn("gmail: history cursor lost; recovered from the message list", "from", cursor, "to", res.Cursor, "messages", len(ids), "truncated", more)
	return *res, nil
}

// first is the first run without a history cursor. The mailbox's history
// id is read before the mail list, so mail arriving meanwhile is listed
// again next time (and recognised as seen) rather than missed.
func (s *Syncer) first(ctx context.Context, res *Result, log *slog.Logger) (Result, error) {
	_, hid, err := s.Client.Profile(ctx)
	if err != nil {
		return *res, err
	}
	res.Baseline = true
	if s.NotBefore.IsZero() {
		res.Cursor = hid
		return *res, nil
	}
	limit := s.BackfillLimit
	if limit <= 0 {
		limit = 500
	}
	ids, more, err := s.Client.Backfill(ctx, s.NotBefore, limit)
	if err != nil {
		return *res, err
	}
	slices.Reverse(ids) // oldest first, as history lists them
	if err := s.judge(ctx, ids, res, s.NotBefore); err != nil {
		return *res, err
	}
	res.Cursor = hid
	if more {
		res.Recovered = fmt.Sprintf("The scout's first look at the mailbox came late: only the newest %d messages since %s were read; older mail was not triaged.",
			limit, describeSince(s.NotBefore))
	}
	if len(ids) > 0 {
		log.Info("gmail: first sync read the mail since the scout's creation", "since", s.NotBefore, "messages", len(ids), "truncated", more)
	}
	return *res, nil
}

func describeSince(t time.Time) string {
	if t.IsZero() {
		return "the start"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func (s *Syncer) judge(ctx context.Context, batch []Added, res *Result, notBefore time.Time) error {
	for _, a := range batch {
		res.Listed++
		if s.Arrived != nil {
			s.Arrived(a)
		}
		seen, err := s.Sink.Seen(ctx, a.ID)
		if err != nil {
			return fmt.Errorf("gmail: sync: %w", err)
		}
		if seen {
			res.Seen++
			continue
		}
		if s.promotionNeedsNoRead(a.Labels) {
			// Skipped unread: five quota units saved per Promotions mail.
			res.Skip++
			if err := s.Sink.Record(ctx, Verdict{ID: a.ID, ThreadID: a.ThreadID, Decision: triage.Decision{Verdict: triage.Skip,
				Reason: "In Gmail's Promotions tab.", Path: triage.PathHeuristic + "label-promotions", Confidence: 0.9}}); err != nil {
				return fmt.Errorf("gmail: sync: record %s: %w", a.ID, err)
			}
			continue
		}
		var m Message
		if s.BodyRunes > 0 {
			m, err = s.Client.MetadataAndBody(ctx, a.ID, s.BodyRunes)
		} else {
			m, err = s.Client.Metadata(ctx, a.ID)
		}
		var nf *NotFoundError
		if errors.As(err, &nf) {
			res.Gone++
			continue
		}
		if err != nil {
			return err
		}
		if !notBefore.IsZero() && !m.Received.IsZero() && !m.Received.After(notBefore) {
			// As old as the scout: the baseline's, not new mail (Gmail's
			// clock counts milliseconds; the same one counts as before).
			res.Skip++
			continue
		}
		if Skipped(m.Triage.Labels) {
			// Listed from a backfill, or moved to spam since it arrived.
			res.Skip++
			continue
		}
		id := a.ID
		headers := m.Triage
		headers.Body = "" // heuristics never read it; a model gets its own cut
		d, err := s.Pipeline.TriageLazy(ctx, headers, func(ctx context.Context) (string, error) {
			if s.BodyRunes > 0 {
				return cutRunes(m.Triage.Body, ModelBodyRunes), nil
			}
			return s.Client.Body(ctx, id, ModelBodyRunes)
		})
		if err != nil {
			return err
		}
		v := Verdict{ID: a.ID, ThreadID: a.ThreadID, Decision: d, Card: m.Card(), Mail: &m.Triage}
		switch d.Verdict {
		case triage.Relevant:
			res.Relevant++
		case triage.Spam:
			res.Spam++
			if s.AutoTrashSpam {
				if err := s.Client.Trash(ctx, a.ID); err != nil && !errors.As(err, &nf) {
					return err
				}
				v.Trashed = true
				res.Trashed++
			}
		default:
			res.Skip++
		}
		if err := s.Sink.Record(ctx, v); err != nil {
			return fmt.Errorf("gmail: sync: record %s: %w", a.ID, err)
		}
	}
	return nil
}

// promotionNeedsNoRead reports whether a mail can be skipped from its
// history labels alone: Gmail filed it under Promotions, no user rule
// could rescue it, and nothing trashes spam — so whatever its headers say
// (a promotion skipped, or forged and called spam), no card appears and
// nothing is done to it.
func (s *Syncer) promotionNeedsNoRead(labels []string) bool {
	return !s.AutoTrashSpam && !s.Pipeline.HasRules() && slices.Contains(labels, triage.LabelPromotions)
}

// cutRunes returns s cut to at most n runes.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// readSent reads the mail the person sent and hands its recipients to
// SentTo, and the mail to Sent. A sent mail gone before it was read is
// passed over.
func (s *Syncer) readSent(ctx context.Context, batch []Added) error {
	for _, a := range batch {
		m, err := s.Client.Metadata(ctx, a.ID)
		var nf *NotFoundError
		if errors.As(err, &nf) {
			continue
		}
		if err != nil {
			return err
		}
		if s.Sent != nil {
			if err := s.Sent(ctx, a, m); err != nil {
				return fmt.Errorf("gmail: sync: sent mail %s: %w", a.ID, err)
			}
		}
		if s.SentTo == nil {
			continue
		}
		var to []string
		for _, l := range [][]triage.Address{m.Triage.To, m.Triage.Cc} {
			for _, r := range l {
				if r.Addr != "" {
					to = append(to, r.Addr)
				}
			}
		}
		if len(to) == 0 {
			continue
		}
		if err := s.SentTo(ctx, to); err != nil {
			return fmt.Errorf("gmail: sync: learn from sent mail %s: %w", a.ID, err)
		}
	}
	return nil
}
