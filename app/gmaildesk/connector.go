package gmaildesk

import (
	"context"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Open builds a Gmail scout's connector. In relay-triage mode it lists
// nothing (the relay triages) but still reads and archives mail.
func (d *Desk) Open(ctx context.Context, s scouts.Scout) (scouts.SourceConnector, error) {
	g, err := ParseConfig(s.Config)
	if err != nil {
		return nil, err
	}
	client, err := d.client(ctx, g.Email)
	if err != nil {
		return nil, err
	}
	// The scout's rules the pipeline can express are applied there first,
	// as the relay does: a deny rule's spam is trashed when the scout
	// trashes spam. The engine applies all of them to what comes out, so
	// with more rules than those no mail is left unread.
	rules, more, err := d.o.Host.TriageRules(ctx, s)
	if err != nil {
		return nil, err
	}
	pcfg := triage.Config{Scout: s.ID, ScoutName: s.Name, Rules: rules, MoreRules: more, Logger: d.log}
	if d.o.Model != nil {
		pcfg.Model, pcfg.Budget, pcfg.DailyTokens = d.o.Model, d.o.ModelBudget, d.o.ModelDailyTokens
	}
	pipe, err := triage.New(pcfg)
	if err != nil {
		return nil, err
	}
	o := gmail.ConnectorOptions{Client: client, Pipeline: pipe, AutoTrashSpam: g.AutoTrashSpam, NotBefore: s.CreatedAt,
		Cursor: cursor{d: d, scoutID: s.ID, start: g.Baseline},
		Seen: func(ctx context.Context, id string) (bool, error) {
			_, err := d.o.DB.SuggestionByRef(ctx, s.ID, id)
			if scouts.ErrorCode(err) == scouts.ENotFound {
				return false, nil
			}
			return err == nil, err
		},
		OnRecovered: func(note string) {
			// Recorded for the scout even when the re-read found nothing
			// new (the items it did find carry the note too).
			d.log.Warn("gmail: recovered", "scout", s.ID, "note", note)
			d.o.Host.AuditScoutStatus(context.Background(), s.ID, "scout", protocol.ScoutOK, note)
		},
		// The learner reads the words of new mail (transiently; only
		// hashes are kept): the same quota as headers alone.
		BodyRunes: learnBodyRunes,
		Logger:    d.log.With("scout", s.ID)}
	if after := g.AwaitAfter(); after > 0 && g.Mode != RelayTriage {
		o.FollowUps = &gmail.FollowUps{After: after, Me: g.Email, Store: awaitStore{db: d.o.DB, scoutID: s.ID}, Now: d.o.Now}
	}
	if g.Mode == RelayPing {
		o.Hints, o.PollEvery = d.hints.channel(s.ID), d.o.PollInterval
		if s.Schedule.HasCron() {
			o.PollEvery = -1 // the scout's own schedule is its fallback poll
		}
		o.Topic, o.Watches = g.PushTopic, cursor{d: d, scoutID: s.ID}
	}
	conn, err := gmail.NewConnector(o)
	if err != nil || g.Mode != RelayTriage {
		return conn, err
	}
	return relayTriaged{Connector: conn, health: func() error {
		return d.o.Host.RelayHealth(context.Background(), s.ID)
	}}, nil
}

// learnBodyRunes is how much of a mail's text the learner reads.
const learnBodyRunes = 4000

// relayTriaged is a relay-triage scout on the desktop: the relay lists and
// triages; the desktop reads ("read full email") and archives.
type relayTriaged struct {
	*gmail.Connector
	health func() error
}

// ListNew lists nothing; it reports the relay's last word on the scout so
// the scout's health shows it ("Gmail access expired — reconnect").
func (r relayTriaged) ListNew(context.Context, func(context.Context, []scouts.ItemRef) error) error {
	return r.health()
}
func (relayTriaged) Watch(ctx context.Context, _ func()) error {
	<-ctx.Done()
	return nil
}

func (d *Desk) client(ctx context.Context, email string) (*gmail.Client, error) {
	if d.o.Auth == nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "Gmail is not set up on this desktop (--google-client-id)")
	}
	ts, err := d.o.Auth.TokenSource(ctx, email)
	if err != nil {
		return nil, err
	}
	return gmail.NewClient(ctx, gmail.Options{BaseURL: d.o.APIURL, TokenSource: ts, Logger: d.log})
}

// cursor keeps a desktop Gmail scout's history id in sync_state; before
// the first sync saved one, the scout starts from its baseline.
type cursor struct {
	d       *Desk
	scoutID string
	start   *Baseline
}

// cursorKey is where the desktop keeps a scout's place in the mailbox.
func cursorKey(scoutID string) string { return "gmail-cursor:" + scoutID }

func (g cursor) Load(ctx context.Context) (uint64, time.Time, error) {
	v, err := g.d.o.DB.SyncSeq(ctx, cursorKey(g.scoutID))
	if err != nil {
		return 0, time.Time{}, err
	}
	if v == 0 && g.start != nil {
		return g.start.HistoryID, g.start.At, nil
	}
	at, err := g.d.o.DB.SyncSeq(ctx, "gmail-synced:"+g.scoutID)
	if err != nil {
		return 0, time.Time{}, err
	}
	var t time.Time
	if at > 0 {
		t = time.UnixMilli(at)
	}
	return uint64(v), t, nil
}

func (g cursor) Save(ctx context.Context, c uint64) error {
	if err := g.d.o.DB.AdvanceSyncSeq(ctx, cursorKey(g.scoutID), int64(c)); err != nil {
		return err
	}
	return g.d.o.DB.AdvanceSyncSeq(ctx, "gmail-synced:"+g.scoutID, g.d.o.Now().UnixMilli())
}

// WatchExpiry and SaveWatch keep a relay-ping scout's watch expiry.
func (g cursor) WatchExpiry(ctx context.Context) (time.Time, error) {
	v, err := g.d.o.DB.SyncSeq(ctx, "gmail-watch:"+g.scoutID)
	if err != nil || v == 0 {
		return time.Time{}, err
	}
	return time.UnixMilli(v), nil
}

func (g cursor) SaveWatch(ctx context.Context, exp time.Time) error {
	return g.d.o.DB.AdvanceSyncSeq(ctx, "gmail-watch:"+g.scoutID, exp.UnixMilli())
}

// hints routes the relay's mailbox_changed hints to relay-ping scouts'
// connectors.
type hints struct {
	mu sync.Mutex
	ch map[string]chan struct{}
}

func (h *hints) channel(scoutID string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch == nil {
		h.ch = map[string]chan struct{}{}
	}
	ch := h.ch[scoutID]
	if ch == nil {
		ch = make(chan struct{}, 1)
		h.ch[scoutID] = ch
	}
	return ch
}

func (h *hints) hint(scoutID string) {
	select {
	case h.channel(scoutID) <- struct{}{}:
	default: // a sync is already due; hints coalesce
	}
}

// MailboxChanged is relay-ping mode's hint: that scout syncs now.
func (d *Desk) MailboxChanged(scoutID string) { d.hints.hint(scoutID) }

// RelayOnline wakes every relay-ping scout when the desktop is back with
// the relay: mailbox_changed hints are not queued for absent desktops.
func (d *Desk) RelayOnline() {
	d.hints.mu.Lock()
	ids := make([]string, 0, len(d.hints.ch))
	for id := range d.hints.ch {
		ids = append(ids, id)
	}
	d.hints.mu.Unlock()
	for _, id := range ids {
		d.hints.hint(id)
	}
}
