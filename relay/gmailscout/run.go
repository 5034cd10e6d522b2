package gmailscout

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// scoutRun serialises one scout's syncs: a trigger during a run asks for
// one more run after it, however many triggers arrive (a burst of pushes
// is one sync).
type scoutRun struct {
	mu      sync.Mutex
	running bool
	again   bool
	watch   bool
	waiters []chan error // answered by the next run to start
	next    []chan error // waiting for the run after the current one
	done    chan struct{}
}

func (r *scoutRun) wait() {
	r.mu.Lock()
	d := r.done
	r.mu.Unlock()
	if d != nil {
		<-d
	}
}

// trigger asks for a sync of the scout; the channel receives the result
// of a sync that started after the call. setupWatch also (re)creates the
// watch in that run.
func (s *Service) trigger(ctx context.Context, scoutID string, setupWatch bool) <-chan error {
	ch := make(chan error, 1)
	s.mu.Lock()
	r := s.runs[scoutID]
	if r == nil {
		r = &scoutRun{}
		s.runs[scoutID] = r
	}
	s.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watch = r.watch || setupWatch
	if r.running {
		r.again = true
		r.next = append(r.next, ch)
		return ch
	}
	r.running = true
	r.waiters = append(r.waiters, ch)
	r.done = make(chan struct{})
	go s.runLoop(ctx, scoutID, r)
	return ch
}

func (s *Service) runLoop(ctx context.Context, scoutID string, r *scoutRun) {
	for {
		r.mu.Lock()
		waiters, watch := r.waiters, r.watch
		r.waiters, r.watch, r.again = nil, false, false
		r.mu.Unlock()

		err := s.syncLeased(ctx, scoutID, watch)
		s.cfg.Synced(scoutID, err)
		for _, w := range waiters {
			w <- err
		}

		r.mu.Lock()
		if !r.again || ctx.Err() != nil {
			for _, w := range r.next {
				w <- ctx.Err()
			}
			r.next, r.running = nil, false
			close(r.done)
			r.mu.Unlock()
			return
		}
		r.waiters, r.next = r.next, nil
		r.mu.Unlock()
	}
}

// syncScout is one run: check the scout may run, sync, advance the cursor,
// and report health changes.
func (s *Service) syncScout(ctx context.Context, scoutID string, setupWatch bool) error {
	sc, err := s.db.GmailScout(ctx, scoutID)
	if err != nil {
		return err
	}
	g := sc.Gmail
	if !sc.Enabled || sc.Mode != relay.ModeRelayTriage {
		return nil
	}
	if paused, msg, err := s.inactive(ctx, sc); err != nil {
		return err
	} else if paused {
		s.setState(ctx, sc, protocol.ScoutPaused, msg, "", false)
		return nil
	}
	client, err := s.client(ctx, sc)
	if err != nil {
		s.fail(ctx, sc, err)
		return err
	}
	if setupWatch || (s.cfg.Topic != "" && g.WatchExpires.IsZero()) {
		if err := s.watch(ctx, sc, client); err != nil {
			s.fail(ctx, sc, err)
			return err
		}
	}
	pipe, err := s.pipeline(sc)
	if err != nil {
		s.setState(ctx, sc, protocol.ScoutError, "The scout's rules are invalid: "+err.Error(), "", false)
		return err
	}
	syncer := &gmail.Syncer{Client: client, Pipeline: pipe, AutoTrashSpam: g.AutoTrashSpam, Logger: s.log, NotBefore: sc.CreatedAt,
		Sink: &queueSink{s: s, sc: sc}}
	// One sync is one run for the scout's per-run token cap.
	res, err := syncer.Run(triage.WithRunAllowance(ctx, sc.ID, s.budgetOf(sc).RunCap(s.cfg.DailyTokens)), g.Cursor, g.LastSyncAt)
	if err != nil {
		s.fail(ctx, sc, err)
		return err
	}
	if err := s.db.AdvanceCursor(ctx, sc.ID, res.Cursor); err != nil {
		return err
	}
	if res.Recovered != "" {
		s.db.Audit(ctx, sc.UserID, sc.ID, "gmail.recovered", res.Recovered)
		s.setState(ctx, sc, protocol.ScoutOK, res.Recovered, "", true)
	} else {
		s.setState(ctx, sc, protocol.ScoutOK, "", "", false)
	}
	if res.Listed > 0 || res.Baseline {
		s.log.Info("gmail: synced", "scout", sc.ID, "listed", res.Listed, "seen", res.Seen, "relevant", res.Relevant,
			"spam", res.Spam, "skip", res.Skip, "trashed", res.Trashed, "gone", res.Gone, "cursor", res.Cursor, "baseline", res.Baseline)
	} else {
		// At debug only: a poll finding nothing is the common case. Tests
		// that watch the relay's log wake on it once the sync is stored.
		s.log.Debug("gmail: synced, nothing new", "scout", sc.ID, "cursor", res.Cursor)
	}
	return nil
}

// inactive reports whether the scout pauses: no device of its user has
// connected for its inactivity period, so triaged mail would only pile up.
func (s *Service) inactive(ctx context.Context, sc relay.CloudScout) (bool, string, error) {
	days := sc.Gmail.InactivityPauseDays
	if days <= 0 {
		days = s.cfg.InactivityPauseDays
	}
	last, err := s.db.LastDeviceSeen(ctx, sc.UserID)
	if err != nil {
		return false, "", err
	}
	since := sc.CreatedAt
	if last.After(since) {
		since = last
	}
	if s.cfg.Now().Sub(since) < time.Duration(days)*24*time.Hour {
		return false, "", nil
	}
	return true, fmt.Sprintf("Paused: no desktop has connected for %d days. Triage resumes when one does.", days), nil
}

// fail records a sync failure: an authorisation failure disables the
// scout until the user reconnects; others are retried by the next push or
// poll and shown as an error.
func (s *Service) fail(ctx context.Context, sc relay.CloudScout, err error) {
	if gmail.IsAuth(err) || errors.Is(err, errNoToken) {
		s.forgetToken(sc.ID)
		s.setState(ctx, sc, protocol.ScoutAuthExpired, "Gmail access expired — reconnect", "reconnect", true)
		s.db.Audit(ctx, sc.UserID, sc.ID, "gmail.auth_expired", "scout disabled until the account is reconnected")
		s.log.Warn("gmail: authorisation expired; scout disabled", "scout", sc.ID)
		return
	}
	s.log.Warn("gmail: sync failed; retried on the next push or poll", "scout", sc.ID, "err", err)
	s.setState(ctx, sc, protocol.ScoutError, "Gmail sync failed, retrying: "+errorText(err), "", false)
}

// errorText keeps an error short for the desktop (errors never hold
// content: the Gmail client's carry methods and status codes only).
func errorText(err error) string {
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

func (s *Service) setState(ctx context.Context, sc relay.CloudScout, state, msg, action string, force bool) {
	disable := state == protocol.ScoutAuthExpired
	changed, err := s.db.SetScoutState(ctx, sc.ID, state, msg, disable)
	if err != nil {
		s.log.Warn("gmail: record scout state", "scout", sc.ID, "err", err)
		return
	}
	if changed || force {
		s.cfg.Send(sc.UserID, protocol.TypeScoutStatus, protocol.ScoutStatus{ScoutID: sc.ID, State: state, Message: msg,
			Action: action, At: s.cfg.Now().UTC()})
	}
}

// watch creates or renews the scout's watch.
func (s *Service) watch(ctx context.Context, sc relay.CloudScout, c *gmail.Client) error {
	if s.cfg.Topic == "" {
		return nil
	}
	_, exp, err := c.Watch(ctx, s.cfg.Topic)
	if err != nil {
		return fmt.Errorf("renew watch: %w", err)
	}
	return s.db.SetWatch(ctx, sc.ID, exp)
}

// renewDue renews watches that expire within RenewWithin. A failure is
// shown on the scout and retried at the next check.
func (s *Service) renewDue(ctx context.Context) {
	if s.cfg.Topic == "" {
		return
	}
	list, err := s.db.GmailScouts(ctx)
	if err != nil {
		s.log.Warn("gmail: watch renewal: list scouts", "err", err)
		return
	}
	for _, sc := range list {
		if sc.Mode == relay.ModeRelayTriage && sc.Gmail.WatchExpires.Before(s.cfg.Now().Add(s.cfg.RenewWithin)) {
			s.trigger(ctx, sc.ID, true)
		}
	}
}

func (s *Service) pipeline(sc relay.CloudScout) (*triage.Pipeline, error) {
	var rules []triage.Rule
	if sc.Gmail.Rules != "" {
		if err := json.Unmarshal([]byte(sc.Gmail.Rules), &rules); err != nil {
			return nil, fmt.Errorf("stored rules: %w", err)
		}
	}
	cfg := triage.Config{Scout: sc.ID, ScoutName: sc.Name, Rules: rules, Logger: s.log}
	if s.cfg.Model != nil {
		// The scout's own caps, from its desktop, only lower the relay's.
		b := s.budgetOf(sc)
		caps := triage.Caps{Day: b.DayCap(s.cfg.DailyTokens), Run: b.RunCap(s.cfg.DailyTokens)}
		cfg.Model, cfg.Budget, cfg.DailyTokens = s.cfg.Model, s.cfg.Budget, s.cfg.DailyTokens
		if s.cfg.Budget != nil {
			cfg.Budget = &triage.CappedBudget{Inner: s.cfg.Budget, Now: s.cfg.Now,
				Caps: func(context.Context, string) (triage.Caps, error) { return caps, nil }}
		}
	}
	return triage.New(cfg)
}

func (s *Service) budgetOf(sc relay.CloudScout) scouts.Budget {
	return scouts.Budget{DayTokens: sc.Gmail.ModelDayTokens, RunTokens: sc.Gmail.ModelRunTokens}
}

var errNoToken = errors.New("gmail: the scout has no refresh token")

type tokenEntry struct {
	sum [32]byte
	ts  *refreshingSource
}

// refreshingSource is a scout's access token, minted from its refresh
// token and kept until it expires or Gmail refuses it (a gmail.Refresher):
// Google may end an access token early while the refresh token is good,
// and one refused token must not disable the scout.
type refreshingSource struct {
	ctx     context.Context
	conf    *oauth2.Config
	refresh string

	mu  sync.Mutex
	cur oauth2.TokenSource
}

func newRefreshingSource(ctx context.Context, conf *oauth2.Config, refresh string) *refreshingSource {
	r := &refreshingSource{ctx: ctx, conf: conf, refresh: refresh}
	r.Invalidate()
	return r
}

func (r *refreshingSource) Token() (*oauth2.Token, error) {
	r.mu.Lock()
	ts := r.cur
	r.mu.Unlock()
	return ts.Token()
}

// Invalidate starts over from the refresh token alone, which x/oauth2
// refreshes at the next Token.
func (r *refreshingSource) Invalidate() {
	ts := r.conf.TokenSource(r.ctx, &oauth2.Token{RefreshToken: r.refresh})
	r.mu.Lock()
	r.cur = ts
	r.mu.Unlock()
}

// client builds the Gmail client of a scout, keeping the token source
// (and so the access token) between syncs.
func (s *Service) client(ctx context.Context, sc relay.CloudScout) (*gmail.Client, error) {
	g := sc.Gmail
	if len(g.TokenSealed) == 0 {
		return nil, errNoToken
	}
	sum := sha256.Sum256(g.TokenSealed)
	s.mu.Lock()
	e := s.tokens[sc.ID]
	s.mu.Unlock()
	if e == nil || e.sum != sum {
		if s.cfg.Keys == nil {
			return nil, errors.New("gmail: no token keys configured")
		}
		rt, err := s.cfg.Keys.Open(g.TokenSealed, aad(sc.ID))
		if err != nil {
			return nil, &gmail.AuthError{Err: err}
		}
		oc := s.oauthConfig()
		bg := context.Background()
		if s.cfg.HTTPClient != nil {
			bg = context.WithValue(bg, oauth2.HTTPClient, s.cfg.HTTPClient)
		}
		e = &tokenEntry{sum: sum, ts: newRefreshingSource(bg, oc, string(rt))}
		s.mu.Lock()
		s.tokens[sc.ID] = e
		s.mu.Unlock()
	}
	return gmail.NewClient(ctx, gmail.Options{BaseURL: s.cfg.GmailURL, TokenSource: e.ts, Logger: s.log})
}

func (s *Service) forgetToken(scoutID string) {
	s.mu.Lock()
	delete(s.tokens, scoutID)
	s.mu.Unlock()
}

func (s *Service) oauthConfig() *oauth2.Config {
	url := s.cfg.TokenURL
	if url == "" {
		url = "https://oauth2.googleapis.com/token"
	}
	return &oauth2.Config{ClientID: s.cfg.ClientID, ClientSecret: s.cfg.ClientSecret,
		Endpoint: oauth2.Endpoint{TokenURL: url, AuthStyle: oauth2.AuthStyleInParams}}
}

// queueSink queues every verdict — relevant mail for the inbox, spam and
// mail with nothing to act on for the desktop's Spam and Screened lanes, so
// that nothing is dropped without the person seeing it. A row holds the
// verdict and its content-free reason; the card is kept in memory for
// delivery.
type queueSink struct {
	s  *Service
	sc relay.CloudScout
}

func (q *queueSink) Seen(ctx context.Context, id string) (bool, error) {
	return q.s.db.Queued(ctx, q.sc.ID, id)
}

func (q *queueSink) Record(ctx context.Context, v gmail.Verdict) error {
	reason := v.Decision.Reason
	if strings.HasPrefix(v.Decision.Path, triage.PathModel) {
		// A model's reason is written from the mail's content: it may be
		// delivered, never stored.
		reason = "Judged " + string(v.Decision.Verdict) + " by the scout's model."
	}
	cardReason := v.Decision.Reason
	if v.Trashed {
		// Said in both: the desktop reads it to take the mail out of the
		// Trash when the card is brought back.
		reason += " " + gmail.TrashedNote
		cardReason += " " + gmail.TrashedNote
	}
	q.s.cards.put(q.sc.ID, v.ID, v.Card, cardReason)
	_, _, err := q.s.db.Enqueue(ctx, relaydb.NewItem{UserID: q.sc.UserID, ScoutID: q.sc.ID, SourceType: relay.KindGmail,
		SourceRef: v.ID, Verdict: string(v.Decision.Verdict), Reason: reason, Path: v.Decision.Path})
	return err
}

func formatUint(v uint64) string { return strconv.FormatUint(v, 10) }

// stopWatch ends a disabled scout's watch, best effort: Gmail lets an
// unrenewed watch lapse within seven days anyway.
func (s *Service) stopWatch(ctx context.Context, sc relay.CloudScout) {
	c, err := s.client(ctx, sc)
	if err == nil {
		err = c.StopWatch(ctx)
	}
	if err != nil {
		s.log.Info("gmail: stopping the watch of a disabled scout failed; it lapses by itself", "scout", sc.ID, "err", err)
	}
}
