package gmail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Cursor is where a desktop Gmail scout keeps its place.
type Cursor interface {
	// Load returns the history id synced up to (0: none yet) and when.
	Load(ctx context.Context) (cursor uint64, at time.Time, err error)
	// Save moves the cursor forward (never back).
	Save(ctx context.Context, cursor uint64) error
}

// ConnectorOptions configure a desktop Gmail scout (local and relay-ping
// modes: the desktop reads the mailbox with its own keyring token).
type ConnectorOptions struct {
	Client        *Client
	Pipeline      *triage.Pipeline
	Cursor        Cursor
	AutoTrashSpam bool
	// NotBefore is when the scout was created (see Syncer.NotBefore).
	NotBefore time.Time
	// Seen reports whether the scout already has a suggestion for a
	// message, so it is not fetched again.
	Seen func(ctx context.Context, id string) (bool, error)
	// Hints, for relay-ping mode, delivers the relay's mailbox_changed
	// hints; nil in local mode, where the engine polls. PollEvery is the
	// fallback sync between hints, for notifications Pub/Sub lost
	// (default 5 minutes; negative: none, the scout's schedule polls).
	Hints     <-chan struct{}
	PollEvery time.Duration
	// Topic, in relay-ping mode, is the relay's Pub/Sub topic: the desktop
	// holds the token, so it keeps the mailbox's watch alive, renewing it
	// when it expires within a day. Watches records the expiry.
	Topic   string
	Watches WatchStore
	// OnRecovered is told when a lost history cursor was recovered.
	OnRecovered func(note string)
	// BodyRunes is how much of each new mail's text the desktop's learner
	// reads (transiently); 0 reads headers only.
	BodyRunes int
	// FollowUps, when set, watches the person's sent mail for answers
	// (awaiting reply); nil leaves sent mail to the learner alone.
	FollowUps *FollowUps
	Logger    *slog.Logger
}

// WatchStore keeps when a scout's watch expires.
type WatchStore interface {
	WatchExpiry(ctx context.Context) (time.Time, error)
	SaveWatch(ctx context.Context, expires time.Time) error
}

// Connector is a desktop Gmail scout's source: it implements
// scouts.SourceConnector.
type Connector struct {
	o ConnectorOptions
}

// NewConnector builds the connector.
func NewConnector(o ConnectorOptions) (*Connector, error) {
	if o.Client == nil || o.Pipeline == nil || o.Cursor == nil || o.Seen == nil {
		return nil, errors.New("gmail: connector needs a client, a pipeline, a cursor and Seen")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.FollowUps != nil && o.FollowUps.Now == nil {
		f := *o.FollowUps
		f.Now = time.Now
		o.FollowUps = &f
	}
	return &Connector{o: o}, nil
}

// MessageURL opens a message in Gmail's web interface.
func MessageURL(id string) string { return "https://mail.google.com/mail/#all/" + id }

// ListNew syncs from the cursor and hands the relevant mail to the engine
// as one page; the cursor moves only after the engine recorded it.
func (c *Connector) ListNew(ctx context.Context, page func(context.Context, []scouts.ItemRef) error) error {
	if err := c.ensureWatch(ctx); err != nil {
		return err
	}
	cursor, at, err := c.o.Cursor.Load(ctx)
	if err != nil {
		return fmt.Errorf("gmail: load cursor: %w", err)
	}
	sink := &refSink{seen: c.o.Seen}
	syncer := &Syncer{Client: c.o.Client, Pipeline: c.o.Pipeline, AutoTrashSpam: c.o.AutoTrashSpam, Sink: sink, Logger: c.o.Logger,
		NotBefore: c.o.NotBefore, BodyRunes: c.o.BodyRunes}
	if c.o.BodyRunes > 0 {
		// A desktop learner reads this mailbox: the recipients of the
		// person's sent mail go to the engine with the page (never a card).
		syncer.SentTo = func(_ context.Context, to []string) error {
			sink.refs = append(sink.refs, scouts.ItemRef{Ref: "sent", SentTo: to})
			return nil
		}
	}
	var fu *followUpRun
	if f := c.o.FollowUps; f != nil && f.Store != nil && f.After > 0 {
		fu = &followUpRun{f: f, client: c.o.Client, log: c.o.Logger}
		syncer.Sent = func(_ context.Context, a Added, m Message) error { fu.sentMail(a, m); return nil }
		syncer.Arrived = fu.arrived
	}
	res, err := syncer.Run(ctx, cursor, at)
	if err != nil {
		return err
	}
	if fu != nil {
		// After the sync: a sent mail and its answer listed together are
		// judged together.
		refs, err := fu.plan(ctx)
		if err != nil {
			return err
		}
		sink.refs = append(sink.refs, refs...)
	}
	if len(sink.refs) > 0 {
		if res.Recovered != "" {
			for i := range sink.refs {
				sink.refs[i].Notes = append(sink.refs[i].Notes, res.Recovered)
			}
		}
		if err := page(ctx, sink.refs); err != nil {
			return err
		}
	}
	if fu != nil {
		if err := fu.commit(ctx); err != nil {
			return err
		}
	}
	if res.Recovered != "" && c.o.OnRecovered != nil {
		c.o.OnRecovered(res.Recovered)
	}
	if err := c.o.Cursor.Save(ctx, res.Cursor); err != nil {
		return fmt.Errorf("gmail: save cursor: %w", err)
	}
	return nil
}

type refSink struct {
	seen func(ctx context.Context, id string) (bool, error)
	refs []scouts.ItemRef
}

func (r *refSink) Seen(ctx context.Context, id string) (bool, error) { return r.seen(ctx, id) }

// Record turns every verdict into an item: relevant mail for the inbox,
// spam for the Spam lane, mail with nothing to act on for Screened —
// nothing is dropped without a card the person can see and bring back.
func (r *refSink) Record(_ context.Context, v Verdict) error {
	meta := cardMeta(v.ID, v.Card)
	why := Why(v.Decision.Reason, v.Decision.Path)
	meta.Reason = why
	switch v.Decision.Verdict {
	case triage.Spam:
		meta.Lane, meta.LaneReason = scouts.LaneSpam, "Spam: "+why
		if v.Trashed {
			meta.LaneReason += "; moved to Gmail's Trash (the scout's auto-trash is on)"
			meta.Trashed = true
		}
	case triage.Skip:
		meta.Lane, meta.LaneReason = scouts.LaneScreened, "Screened: "+why
	}
	if id, ok := strings.CutPrefix(v.Decision.Path, triage.PathRule); ok {
		meta.MatchedRule = id // the pipeline applied the scout's rule already
	}
	if v.Mail != nil {
		it := scouts.Evidence(triage.LearnItem(*v.Mail))
		meta.Evidence = &it
		meta.Facts = mailFacts(*v.Mail)
		meta.Unsubscribe = v.Mail.Unsubscribe().Method()
	} else if v.Card.Subject == "" {
		// Skipped unread (a Promotions mail): the card says so.
		meta.Title = "(not read: in Gmail's Promotions tab)"
	}
	r.refs = append(r.refs, scouts.ItemRef{Ref: v.ID, Meta: &meta})
	return nil
}

// mailFacts are what rules may test of a mail beyond its card.
func mailFacts(m triage.Message) *scouts.ItemFacts {
	f := &scouts.ItemFacts{Labels: m.Labels, HasAttachment: m.HasAttachment}
	for _, l := range [][]triage.Address{m.To, m.Cc} {
		for _, a := range l {
			if a.Addr != "" {
				f.To = append(f.To, a.Addr)
			}
		}
	}
	return f
}

// Why is a card's "why": the reason, and which step decided.
func Why(reason, path string) string {
	reason = strings.TrimSpace(reason)
	if path == "" {
		return reason
	}
	return reason + " (decided by " + path + ")"
}

func cardMeta(id string, c Card) scouts.ItemMetadata {
	return scouts.ItemMetadata{Title: c.Subject, Sender: c.Sender, Excerpt: c.Snippet, URL: MessageURL(id),
		ProposedKind: scouts.EntityTask, ReceivedAt: c.Received}
}

// FetchMetadata reads a message's card.
func (c *Connector) FetchMetadata(ctx context.Context, ref string) (scouts.ItemMetadata, error) {
	m, err := c.o.Client.Metadata(ctx, ref)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return scouts.ItemMetadata{}, scouts.Skip(nf.Error())
	}
	if err != nil {
		return scouts.ItemMetadata{}, err
	}
	return cardMeta(ref, m.Card()), nil
}

// FetchContent reads the whole message, transiently.
func (c *Connector) FetchContent(ctx context.Context, ref string) (scouts.ItemContent, error) {
	f, err := c.o.Client.Read(ctx, ref)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return scouts.ItemContent{}, scouts.Skip(nf.Error())
	}
	if err != nil {
		return scouts.ItemContent{}, err
	}
	return scouts.ItemContent{Text: f.Text, ContentType: "text/plain", HTML: f.HTML}, nil
}

// FetchText reads the message's text, without the HTML a reader's view
// needs: what an approved entity is filled with (engine.FillBody).
func (c *Connector) FetchText(ctx context.Context, ref string) (scouts.ItemContent, error) {
	text, err := c.o.Client.ReadText(ctx, ref)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return scouts.ItemContent{}, scouts.Skip(nf.Error())
	}
	if err != nil {
		return scouts.ItemContent{}, err
	}
	return scouts.ItemContent{Text: text, ContentType: "text/plain"}, nil
}

// Watch waits for the relay's hints in relay-ping mode; local mode is
// polled.
func (c *Connector) Watch(ctx context.Context, notify func()) error {
	if c.o.Hints == nil {
		return scouts.ErrCannotWatch
	}
	every := c.o.PollEvery
	if every == 0 {
		every = 5 * time.Minute
	}
	var tick <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-c.o.Hints:
			notify()
		case <-tick:
			notify()
		}
	}
}

// Close releases nothing: the client holds no connection of its own.
func (c *Connector) Close() error { return nil }

// ensureWatch creates or renews the watch when it expires within a day.
func (c *Connector) ensureWatch(ctx context.Context) error {
	if c.o.Topic == "" || c.o.Watches == nil {
		return nil
	}
	exp, err := c.o.Watches.WatchExpiry(ctx)
	if err != nil {
		return err
	}
	if time.Until(exp) > 24*time.Hour {
		return nil
	}
	c.o.Logger.Info("gmail: setting up the watch", "topic", c.o.Topic, "expired", exp)
	_, exp, err = c.o.Client.Watch(ctx, c.o.Topic)
	if err != nil {
		return fmt.Errorf("gmail: renew the watch: %w", err)
	}
	return c.o.Watches.SaveWatch(ctx, exp)
}
