package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/learn"
)

// settlePage is how many cards one transaction settles: a backlog (the
// first sweep after an upgrade, a week away) is worked through in short
// writes that leave room for the person's decisions.
const settlePage = 200

// SettleSilent teaches the learner what people's silence confirms
// (docs/triage.md, "What silence teaches"): every card left pending in the
// Spam lane or in Screened past its scout's grace period (the learner
// setting silence_days; 0 turns it off) that the person never opened
// teaches that the lane was right — spam, or unwanted — at SilenceWeight
// of an explicit decision. Each card settles once; an explicit decision
// later replaces what its silence taught (Teaching). It returns how many
// cards settled.
func (e *Engine) SettleSilent(ctx context.Context, now time.Time) (int, error) {
	if e.cfg.Learning.Off {
		return 0, nil
	}
	all, err := e.cfg.Store.ListScouts(ctx)
	if err != nil {
		return 0, fmt.Errorf("engine: settle silent cards: %w", err)
	}
	total := 0
	var errs []error
	for _, s := range all {
		n, err := e.settleScout(ctx, s.ID, now)
		total += n
		if err != nil {
			if ctx.Err() != nil {
				return total, ctx.Err()
			}
			errs = append(errs, fmt.Errorf("engine: settle silent cards of %s: %w", s.ID, err))
		}
	}
	return total, errors.Join(errs...)
}

func (e *Engine) settleScout(ctx context.Context, scoutID string, now time.Time) (int, error) {
	st, err := e.cfg.Store.LearnState(ctx, scoutID)
	if err != nil {
		return 0, err
	}
	days := st.Settings.SilenceDays
	if days <= 0 {
		return 0, nil
	}
	before := now.Add(-time.Duration(days) * 24 * time.Hour)
	total := 0
	for {
		settled, err := e.cfg.Store.SettleSilent(ctx, scoutID, before, now, settlePage, func(s scouts.Suggestion) []scouts.AuditEvent {
			return []scouts.AuditEvent{silenceAudit(s, days, now)}
		})
		total += len(settled)
		if err != nil {
			return total, err
		}
		for _, s := range settled {
			e.emit(scouts.Event{Type: scouts.EventSuggestionMoved, Data: s})
		}
		if len(settled) < settlePage {
			return total, nil
		}
	}
}

// silenceAudit says on a card's trail what its silence taught.
func silenceAudit(s scouts.Suggestion, days int, now time.Time) scouts.AuditEvent {
	what := "that it is spam"
	if s.Lane == scouts.LaneScreened {
		what = "that it is unwanted"
	}
	return scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditSettled, Outcome: scouts.OutcomeOK,
		Summary: fmt.Sprintf("Left unopened in %s for %d days: the learner learns %s, at %g of a decision's weight; any decision on the card replaces it",
			s.Lane, days, what, SilenceWeight),
		Refs: map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": "silence", "lane": string(s.Lane),
			"weight": fmt.Sprint(SilenceWeight)}, At: now}
}

// SentTo tells a scout's learner that the person wrote to these addresses
// (the recipients of mail they sent from the scout's mailbox): mail from
// them is wanted. The first time for each address the learner is taught
// so, and the scout's pending cards from it waiting in Screened or Spam
// move to the inbox. It returns how many cards moved.
func (e *Engine) SentTo(ctx context.Context, s scouts.Scout, addresses []string) (int, error) {
	if e.cfg.Learning.Off {
		return 0, nil
	}
	now := e.cfg.Now()
	moved := 0
	for _, a := range addresses {
		addr := strings.ToLower(strings.TrimSpace(senderAddress(a)))
		if addr == "" || !strings.Contains(addr, "@") {
			continue
		}
		var hashes []uint64
		for _, f := range learn.Extract(learn.Item{Source: string(s.Kind), Sender: addr}, e.cfg.Learning.Salt) {
			if f.Group == learn.GroupSender {
				hashes = append(hashes, f.Hash) // the sender alone: not everyone at their domain
			}
		}
		lifted, err := e.cfg.Store.TeachSentTo(ctx, s.ID, addr, hashes, now, func(lifted []scouts.Suggestion) []scouts.AuditEvent {
			return sentToAudit(s, addr, lifted, now)
		})
		if err != nil {
			return moved, fmt.Errorf("engine: learn from mail sent to %s: %w", addr, err)
		}
		moved += len(lifted)
		for _, c := range lifted {
			e.emit(scouts.Event{Type: scouts.EventSuggestionMoved, Data: c})
		}
	}
	return moved, nil
}

func sentToAudit(s scouts.Scout, addr string, lifted []scouts.Suggestion, now time.Time) []scouts.AuditEvent {
	out := []scouts.AuditEvent{{TraceID: scouts.NewID("tr"), Stage: scouts.StageDecision, Type: scouts.AuditSentTo, Outcome: scouts.OutcomeOK,
		Summary: fmt.Sprintf("You wrote to %s: the learner learns that mail from this sender is wanted; %d waiting card(s) from them moved to the inbox", addr, len(lifted)),
		Refs:    map[string]string{"scout_id": s.ID, "address": addr, "actor": "sent-mail"}, At: now}}
	for _, c := range lifted {
		out = append(out, scouts.AuditEvent{TraceID: c.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditMoved, Outcome: scouts.OutcomeOK,
			Summary: fmt.Sprintf("Moved to the inbox: you wrote to %s, so their mail is wanted", addr),
			Refs:    map[string]string{"scout_id": c.ScoutID, "suggestion_id": c.ID, "actor": "sent-mail", "lane": string(scouts.LaneInbox)}, At: now})
	}
	return out
}
