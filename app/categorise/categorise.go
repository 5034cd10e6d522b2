// Package categorise is the optional model step of the desktop's pipeline:
// it asks an OpenAI-compatible model what an item should become (a task,
// note, event or project, with dates and a project), giving it look-ups
// over the local database and nothing else, within the daily token
// budget, and leaves the model alone for a minute after it failed to
// answer so that a page of items does not wait for one timeout each.
package categorise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
)

const (
	// categoriseItemTimeout bounds one item's categorisation, all rounds
	// included: the engine records items one after another.
	categoriseItemTimeout = 60 * time.Second
	// categorisePause is how long the model is left alone after it failed
	// to answer (unreachable, timed out, overloaded): otherwise a page of
	// new items would wait for one timeout each.
	categorisePause = time.Minute
)

// Model is what a configured model needs to categorise: llm.Client has
// it.
type Model interface {
	Categorise(ctx context.Context, in llm.CategoriseInput, tools llm.Tools, allow llm.Allowance) (llm.Proposal, error)
}

// Config configures the step.
type Config struct {
	// Model is the configured model; one that cannot categorise (or none)
	// means no step.
	Model any
	// Budget and DailyTokens bound what the model may spend a day.
	Budget      triage.Budget
	DailyTokens int
	// DB is the local database the model's look-ups read.
	DB  *localdb.DB
	Now func() time.Time
	// Zone is where the item's dates are read and shown; nil: time.Local.
	Zone *time.Location
}

// Step is the engine's categorisation step.
type Step = func(context.Context, scouts.Scout, scouts.ItemMetadata, string) (engine.ContentProposal, error)

// New returns the engine's categorisation step, or nil when no model that
// can categorise is configured: then the content cues and the learner are
// the whole pipeline.
func New(cfg Config) Step {
	m, ok := cfg.Model.(Model)
	if !ok || cfg.Budget == nil || cfg.DailyTokens <= 0 {
		return nil
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Zone == nil {
		cfg.Zone = time.Local
	}
	mc := &modelCategoriser{cfg: cfg, model: m, zone: cfg.Zone}
	return mc.categorise
}

// modelCategoriser asks the model what items should become, with tools
// over the local database.
type modelCategoriser struct {
	cfg   Config
	model Model
	zone  *time.Location

	mu          sync.Mutex
	pausedUntil time.Time
	pauseCause  string
}

func (m *modelCategoriser) categorise(ctx context.Context, s scouts.Scout, meta scouts.ItemMetadata, text string) (engine.ContentProposal, error) {
	now := m.cfg.Now()
	if until, cause, paused := m.paused(now); paused {
		return engine.ContentProposal{}, fmt.Errorf("the model failed a moment ago (%s); not asked again before %s", cause, until.In(m.zone).Format("15:04:05"))
	}
	ctx, cancel := context.WithTimeout(ctx, categoriseItemTimeout)
	defer cancel()
	in := llm.CategoriseInput{SourceType: string(s.Kind), Subject: meta.Title, Sender: meta.Sender, Body: text, Now: now, Zone: m.zone}
	allow := llm.Allowance{Budget: m.cfg.Budget, Scout: s.ID, DailyTokens: m.cfg.DailyTokens}
	p, err := m.model.Categorise(ctx, in, m.tools(), allow)
	if err != nil {
		if unreachable(err) && ctx.Err() != context.Canceled {
			m.pause(now, err)
		}
		return engine.ContentProposal{}, err
	}
	return engine.ContentProposal{
		Kind: p.Kind, Title: p.Title, Due: p.Due, StartsAt: p.StartsAt, EndsAt: p.EndsAt, AllDay: p.AllDay,
		ProjectID: p.ProjectID, Reasons: []string{m.reason(p)},
	}, nil
}

// unreachable reports a failure of the server rather than of its answer:
// the model was not reached, did not answer in time, or was overloaded.
func unreachable(err error) bool {
	if errors.Is(err, llm.ErrBadProposal) || errors.Is(err, llm.ErrRefused) || errors.Is(err, llm.ErrBudgetSpent) {
		return false
	}
	var se *llm.StatusError
	if errors.As(err, &se) {
		return se.Status >= 500 || se.Status == 429
	}
	var ne net.Error // refused, reset, timed out (context.DeadlineExceeded is one)
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func (m *modelCategoriser) paused(now time.Time) (time.Time, string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pausedUntil, m.pauseCause, now.Before(m.pausedUntil)
}

func (m *modelCategoriser) pause(now time.Time, err error) {
	cause := "no answer"
	var se *llm.StatusError
	switch {
	case errors.As(err, &se):
		cause = fmt.Sprintf("HTTP %d", se.Status)
	case errors.Is(err, context.DeadlineExceeded):
		cause = "timed out"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pausedUntil, m.pauseCause = now.Add(categorisePause), cause
}

// tools are the model's look-ups over the local database: open projects,
// recent tasks, note titles. Nothing else of the database is reachable.
func (m *modelCategoriser) tools() llm.Tools {
	db := m.cfg.DB
	open := false
	return llm.Tools{
		ListProjects: func(ctx context.Context) ([]llm.Project, error) {
			ps, err := db.ListEntities(ctx, scouts.EntityProject, localdb.EntityFilter{Done: &open, Limit: 100})
			if err != nil {
				return nil, err
			}
			out := make([]llm.Project, 0, len(ps))
			for _, p := range ps {
				out = append(out, llm.Project{ID: p.ID, Name: p.Title})
			}
			return out, nil
		},
		RecentTasks: func(ctx context.Context) ([]llm.Task, error) {
			ts, err := db.ListEntities(ctx, scouts.EntityTask, localdb.EntityFilter{Limit: 20})
			if err != nil {
				return nil, err
			}
			out := make([]llm.Task, 0, len(ts))
			for _, t := range ts {
				out = append(out, llm.Task{Title: t.Title, ProjectID: t.ProjectID, Due: t.Due})
			}
			return out, nil
		},
		SearchNotes: func(ctx context.Context, query string) ([]string, error) {
			return db.SearchNoteTitles(ctx, query, 10)
		},
	}
}

// reason says what the model proposed, for the card's why: "the model: a
// task for project “Website relaunch” (due 27 Nov)".
func (m *modelCategoriser) reason(p llm.Proposal) string {
	s := "the model: " + p.Kind.WithArticle()
	if p.ProjectName != "" {
		s += " for project “" + p.ProjectName + "”"
	}
	at := func(t time.Time) string {
		if p.AllDay {
			return t.In(m.zone).Format("2 Jan")
		}
		return t.In(m.zone).Format("2 Jan 15:04")
	}
	switch {
	case !p.Due.IsZero():
		s += " (due " + at(p.Due) + ")"
	case !p.StartsAt.IsZero() && !p.EndsAt.IsZero():
		s += " (" + at(p.StartsAt) + " – " + at(p.EndsAt) + ")"
	case !p.StartsAt.IsZero():
		s += " (" + at(p.StartsAt) + ")"
	}
	return s
}
