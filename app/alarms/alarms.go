// Package alarms is what failed and says so until someone looks (issue 20,
// item 5; seed 001): an alarm is persisted with a lifecycle open →
// acknowledged → resolved and a dedupe key, so that the same cause raised
// again while its alarm is live (open or acknowledged) updates that alarm
// instead of making another; once resolved, the same key may open a new
// one. Alarms are resolved by the code that sees their cause go away, never
// by a timer.
package alarms

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// Status is where an alarm is in its lifecycle.
type Status string

const (
	Open         Status = "open"
	Acknowledged Status = "acknowledged"
	Resolved     Status = "resolved"
)

// Severity says how urgent an alarm is.
type Severity string

const (
	Warning  Severity = "warning"
	Critical Severity = "critical"
)

// Kinds of alarm: what raised it.
const (
	KindRunsFailing = "runs_failing"
	KindBudgetSpent = "budget_spent"
	KindDefinitions = "definitions_broken"
	KindGmailToken  = "gmail_token"
	KindRelayDown   = "relay_unreachable"
	KindPendingCap  = "pending_cap"
	KindWatch       = "watch_not_renewed"
	// KindActionFlap and KindActionStorm: a gate of the outbox blocked
	// one of the scout's actions (docs/actions.md, "Gates").
	KindActionFlap  = "action_flap"
	KindActionStorm = "action_storm"
)

// Alarm is one alarm as stored.
type Alarm struct {
	ID       string   `json:"id"`
	Key      string   `json:"dedupe_key"`
	Kind     string   `json:"kind"`
	Severity Severity `json:"severity"`
	// ScoutID is the scout the alarm is about ("" for the agent as a
	// whole: a definitions file, the relay).
	ScoutID string `json:"scout_id,omitempty"`
	Status  Status `json:"status"`
	// Message says what is wrong and what to do about it.
	Message    string     `json:"message"`
	RaisedAt   time.Time  `json:"raised_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	AckedAt    *time.Time `json:"acknowledged_at,omitempty"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
}

// Store keeps alarms. Raise returns the live alarm for a.Key, made now
// (created true) or already there (its message and severity updated);
// Resolve resolves the live alarm for key, if any (found false: none);
// Ack acknowledges an open alarm by id (scouts.ENotFound when none).
type Store interface {
	RaiseAlarm(ctx context.Context, a Alarm) (Alarm, bool, error)
	ResolveAlarm(ctx context.Context, key string, at time.Time) (Alarm, bool, error)
	AckAlarm(ctx context.Context, id string, at time.Time) (Alarm, error)
	ListAlarms(ctx context.Context, withResolved bool) ([]Alarm, error)
	AppendAudit(ctx context.Context, events ...scouts.AuditEvent) error
}

// Live events on the agent's stream (data: the Alarm).
const (
	EventRaised       = "alarm.raised"
	EventAcknowledged = "alarm.acknowledged"
	EventResolved     = "alarm.resolved"
)

// Audit types.
const (
	AuditRaised       = "alarm.raised"
	AuditAcknowledged = "alarm.acknowledged"
	AuditResolved     = "alarm.resolved"
)

// Service raises, acknowledges and resolves alarms, announcing and
// auditing each change once.
type Service struct {
	Store Store
	Emit  func(scouts.Event)
	Now   func() time.Time
}

// Raise raises the alarm for a.Key unless one is live; a new one is
// announced and audited, a live one only has its message brought up to
// date.
func (s *Service) Raise(ctx context.Context, a Alarm) (Alarm, error) {
	if a.Key == "" || a.Message == "" {
		return Alarm{}, errors.New("alarms: an alarm needs a dedupe key and a message")
	}
	if a.Severity == "" {
		a.Severity = Warning
	}
	now := s.Now()
	a.ID, a.Status, a.RaisedAt, a.UpdatedAt = scouts.NewID("al"), Open, now, now
	got, created, err := s.Store.RaiseAlarm(ctx, a)
	if err != nil {
		return Alarm{}, fmt.Errorf("alarms: raise %s: %w", a.Key, err)
	}
	if created {
		s.record(ctx, got, AuditRaised, scouts.OutcomeError, got.Message)
		s.emit(EventRaised, got)
	}
	return got, nil
}

// Resolve resolves the live alarm for key, if there is one.
func (s *Service) Resolve(ctx context.Context, key, why string) error {
	got, found, err := s.Store.ResolveAlarm(ctx, key, s.Now())
	if err != nil {
		return fmt.Errorf("alarms: resolve %s: %w", key, err)
	}
	if found {
		s.record(ctx, got, AuditResolved, scouts.OutcomeOK, why)
		s.emit(EventResolved, got)
	}
	return nil
}

// Ack acknowledges an open alarm: someone has seen it. It stays live (a
// cause raised again does not reopen it) until its cause goes away.
func (s *Service) Ack(ctx context.Context, id string) (Alarm, error) {
	got, err := s.Store.AckAlarm(ctx, id, s.Now())
	if err != nil {
		return Alarm{}, fmt.Errorf("alarms: acknowledge %s: %w", id, err)
	}
	s.record(ctx, got, AuditAcknowledged, scouts.OutcomeOK, "acknowledged: "+got.Message)
	s.emit(EventAcknowledged, got)
	return got, nil
}

// List returns the live alarms (and the resolved ones kept, if asked),
// newest first.
func (s *Service) List(ctx context.Context, withResolved bool) ([]Alarm, error) {
	return s.Store.ListAlarms(ctx, withResolved)
}

func (s *Service) emit(typ string, a Alarm) {
	if s.Emit != nil {
		s.Emit(scouts.Event{Type: typ, Data: a})
	}
}

// record audits a change; an alarm not audited is still an alarm, so a
// failure here is not the caller's.
func (s *Service) record(ctx context.Context, a Alarm, typ string, outcome, summary string) {
	refs := map[string]string{"alarm_id": a.ID, "dedupe_key": a.Key, "actor": "agent"}
	if a.ScoutID != "" {
		refs["scout_id"] = a.ScoutID
	}
	_ = s.Store.AppendAudit(context.WithoutCancel(ctx), scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageRun,
		Type: typ, Outcome: outcome, Summary: summary, Refs: refs, At: s.Now()})
}
