package evaluate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
)

// BodyRunes is how much of a mail's text the learner reads: what the
// desktop's Gmail connector asks for (app/core's learnBodyRunes).
const BodyRunes = 4000

// excerptRunes is the card's excerpt: about what Gmail's snippet holds.
const excerptRunes = 200

// product is Scouts as it runs on the desktop, minus the network: a real
// engine over a real (temporary) localdb database, with one Gmail scout
// in review mode whose source is an in-memory mailbox.
type product struct {
	db     *localdb.DB
	engine *engine.Engine
	scout  scouts.Scout
	src    *memSource
	runs   chan scouts.Event
	now    atomic.Pointer[time.Time]
	stop   context.CancelFunc
	// measure is how long each step is measured on its own.
	measure time.Duration
	// expireScored expires the test part's cards once scored, so that
	// they never teach by silence.
	expireScored bool
	// salt is the learner's hash salt (engine.LearningConfig.Salt).
	salt uint64
}

// evalSalt is the learner's hash salt for a run with seed. An installation
// draws its own at random (localdb.LearnSalt); the evaluation derives it
// from the seed, since the content model's table folds hashes into 2^20
// cells and which features share a cell depends on the salt. With a salt
// drawn anew the same run gave 95.3–98.0 % spam caught.
func evalSalt(seed uint64) uint64 { return (seed + 1) * 0x9e3779b97f4a7c15 }

// start is the simulated clock's first instant.
var start = time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)

func newProduct(ctx context.Context, dir string, settings scouts.LearnSettings, seed uint64) (*product, error) {
	db, err := localdb.Open(ctx, filepath.Join(dir, "scouts.db"))
	if err != nil {
		return nil, fmt.Errorf("evaluate: database: %w", err)
	}
	salt := evalSalt(seed)
	pipe, err := triage.New(triage.Config{Scout: "eval"})
	if err != nil {
		db.Close()
		return nil, err
	}
	p := &product{db: db, salt: salt, runs: make(chan scouts.Event, 64),
		src: &memSource{pipe: pipe, pageSize: 100, texts: map[string]string{}, verdicts: map[string]triage.Verdict{}}}
	t := start
	p.now.Store(&t)
	p.scout = scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindGmail, Name: "Mail (evaluation)", Enabled: true, Review: true,
		Config: []byte(`{}`), CreatedAt: t, UpdatedAt: t}
	if err := db.CreateScout(ctx, p.scout); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.SetLearnSettings(ctx, p.scout.ID, settings); err != nil {
		db.Close()
		return nil, err
	}
	p.engine = engine.New(engine.Config{
		Store: db,
		Openers: map[scouts.Kind]scouts.Opener{scouts.KindGmail: func(context.Context, scouts.Scout) (scouts.SourceConnector, error) {
			return p.src, nil
		}},
		Emit: func(e scouts.Event) {
			if e.Type == scouts.EventScoutRun {
				p.runs <- e
			}
		},
		Now:           p.clock,
		PollInterval:  24 * time.Hour,
		SweepInterval: 24 * time.Hour,
		Expiry:        365 * 24 * time.Hour,
		// The agent's content step (scouts/cue); no model is configured, so
		// no categorisation step.
		Learning: engine.LearningConfig{Salt: salt, Propose: func(ctx context.Context, _ scouts.Scout, meta scouts.ItemMetadata, text string) engine.ContentProposal {
			return core.ProposeFromContent(ctx, db, p.clock, quiet, meta, text)
		}},
	})
	ectx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.stop = cancel
	if err := p.engine.Start(ectx); err != nil {
		p.close()
		return nil, err
	}
	if err := p.waitRun(ctx); err != nil { // the catch-up run every runner starts with
		p.close()
		return nil, err
	}
	return p, nil
}

// quiet discards the content step's warnings.
var quiet = slog.New(slog.DiscardHandler)

func (p *product) clock() time.Time { return *p.now.Load() }

func (p *product) close() {
	p.stop()
	p.engine.Stop()
	p.db.Close()
}

// tick advances the clock.
func (p *product) tick(d time.Duration) {
	t := p.now.Load().Add(d)
	p.now.Store(&t)
}

func (p *product) waitRun(ctx context.Context) error {
	select {
	case e := <-p.runs:
		if m, ok := e.Data.(map[string]any); ok {
			if s, _ := m["error"].(string); s != "" {
				return fmt.Errorf("evaluate: scout run: %s", s)
			}
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// arrive delivers mails to the scout's mailbox under the given refs and
// waits until the engine has processed them (one run).
func (p *product) arrive(ctx context.Context, refs []string, mails []*Mail) error {
	p.src.push(refs, mails)
	if !p.engine.Trigger(p.scout.ID) {
		return errors.New("evaluate: the scout is not running")
	}
	if err := p.waitRun(ctx); err != nil {
		return err
	}
	if n := p.src.pending(); n > 0 {
		return fmt.Errorf("evaluate: %d mails were not processed", n)
	}
	return nil
}

// memSource is a Gmail mailbox in memory: ListNew does what the Gmail
// syncer does per new mail — read it (headers and text), remove the
// collector's marks, triage it without a model — and hands the engine the
// card, the learner's evidence and the lane triage chose, as the Gmail
// connector's refSink does.
type memSource struct {
	pipe     *triage.Pipeline
	pageSize int

	mu       sync.Mutex
	queue    []queued
	texts    map[string]string
	verdicts map[string]triage.Verdict
}

type queued struct {
	ref  string
	mail *Mail
}

func (s *memSource) push(refs []string, mails []*Mail) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range mails {
		s.queue = append(s.queue, queued{ref: refs[i], mail: m})
	}
}

func (s *memSource) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// verdict returns the heuristics' verdict on an item that arrived.
func (s *memSource) verdict(ref string) triage.Verdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.verdicts[ref]
}

func (s *memSource) ListNew(ctx context.Context, page func(context.Context, []scouts.ItemRef) error) error {
	for {
		s.mu.Lock()
		batch := append([]queued(nil), s.queue[:min(s.pageSize, len(s.queue))]...)
		s.mu.Unlock()
		if len(batch) == 0 {
			return nil
		}
		refs := make([]scouts.ItemRef, 0, len(batch))
		for _, q := range batch {
			ref, err := s.read(ctx, q)
			if err != nil {
				return err
			}
			refs = append(refs, ref)
		}
		if err := page(ctx, refs); err != nil {
			return err
		}
		s.mu.Lock()
		s.queue = s.queue[len(batch):]
		s.mu.Unlock()
	}
}

// read turns one mail into what the engine receives.
func (s *memSource) read(ctx context.Context, q queued) (scouts.ItemRef, error) {
	m, err := mailtext.Parse(q.mail.Raw, mailtext.Options{BodyRunes: BodyRunes})
	if err != nil {
		return scouts.ItemRef{Ref: q.ref, Problem: "not readable as mail: " + err.Error()}, nil
	}
	corpus.Neutralize(&m)
	m.ID = q.ref
	d, err := s.pipe.Triage(ctx, m)
	if err != nil {
		return scouts.ItemRef{}, fmt.Errorf("evaluate: triage %s: %w", q.ref, err)
	}
	subject := m.Subject
	if strings.TrimSpace(subject) == "" {
		subject = "(no subject)"
	}
	why := strings.TrimSpace(d.Reason) + " (decided by " + d.Path + ")"
	meta := scouts.ItemMetadata{Title: subject, Sender: m.From.String(), Excerpt: excerpt(m.Body),
		ProposedKind: scouts.EntityTask, ReceivedAt: m.Date, Reason: why}
	switch d.Verdict {
	case triage.Spam:
		meta.Lane, meta.LaneReason = scouts.LaneSpam, "Spam: "+why
	case triage.Skip:
		meta.Lane, meta.LaneReason = scouts.LaneScreened, "Screened: "+why
	}
	it := scouts.Evidence(triage.LearnItem(m))
	meta.Evidence = &it
	s.mu.Lock()
	s.texts[q.ref] = m.Body
	s.verdicts[q.ref] = d.Verdict
	s.mu.Unlock()
	return scouts.ItemRef{Ref: q.ref, Meta: &meta}, nil
}

// excerpt is the start of the text with white space collapsed, like a
// Gmail snippet.
func excerpt(body string) string {
	s := strings.Join(strings.Fields(body), " ")
	if utf8.RuneCountInString(s) <= excerptRunes {
		return s
	}
	r := []rune(s)
	return string(r[:excerptRunes])
}

func (s *memSource) FetchMetadata(ctx context.Context, ref string) (scouts.ItemMetadata, error) {
	return scouts.ItemMetadata{}, scouts.Skip("the evaluation's mailbox lists every mail with its card")
}

func (s *memSource) FetchContent(ctx context.Context, ref string) (scouts.ItemContent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.texts[ref]
	if !ok {
		return scouts.ItemContent{}, scouts.Skip("no such mail")
	}
	return scouts.ItemContent{Text: t, ContentType: "text/plain"}, nil
}

func (s *memSource) Watch(ctx context.Context, notify func()) error { return scouts.ErrCannotWatch }
func (s *memSource) Close() error                                   { return nil }
