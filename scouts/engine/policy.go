package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// Actions returns the action catalogue.
func (e *Engine) Actions() []actions.Def { return e.catalogue().List() }

// CanRun reports whether this desktop can run an action (local actions
// always; remote ones need an executor).
func (e *Engine) CanRun(action string) bool {
	d, ok := e.catalogue().Get(action)
	return ok && (d.Where == actions.Local || e.executor(action) != nil)
}

// Policies returns the user's modes.
func (e *Engine) Policies(ctx context.Context) (actions.Policies, error) {
	p, err := e.cfg.Store.Policies(ctx)
	if err != nil {
		return actions.Policies{}, err
	}
	return p.Clone(), nil
}

// Resolve returns the mode an invocation of action by a scout resolves to.
func (e *Engine) Resolve(ctx context.Context, scoutID, action string) (actions.Resolution, error) {
	d, ok := e.catalogue().Get(action)
	if !ok {
		return actions.Resolution{}, scouts.Errorf(scouts.EInvalid, "unknown action %q (see GET /api/v1/actions)", action)
	}
	p, err := e.cfg.Store.Policies(ctx)
	if err != nil {
		return actions.Resolution{}, err
	}
	return p.Resolve(d, scoutID), nil
}

// SetPolicies sets modes globally (ScoutID "") or for one scout; Mode ""
// removes the setting, so the level below applies again. Every change is
// checked first, then all are written in one transaction, each audited,
// and published.
func (e *Engine) SetPolicies(ctx context.Context, changes []PolicyChange, actor string) error {
	if actor == "" {
		actor = "user"
	}
	cur, err := e.cfg.Store.Policies(ctx)
	if err != nil {
		return err
	}
	next := cur.Clone()
	now := e.cfg.Now()
	var audit []scouts.AuditEvent
	names := map[string]string{}
	for i := range changes {
		c := &changes[i]
		c.By, c.At = actor, now
		if _, ok := e.catalogue().Get(c.Action); !ok {
			return scouts.Errorf(scouts.EInvalid, "unknown action %q (see GET /api/v1/actions)", c.Action)
		}
		if c.Mode != "" {
			if _, err := actions.ParseMode(string(c.Mode)); err != nil {
				return invalidAction(err)
			}
		}
		where := "globally"
		if c.ScoutID != "" {
			name, ok := names[c.ScoutID]
			if !ok {
				sc, err := e.scout(ctx, c.ScoutID)
				if err != nil {
					return err
				}
				if sc.Kind == "" {
					return scouts.Errorf(scouts.ENotFound, "scout %s not found", c.ScoutID)
				}
				name, names[c.ScoutID] = sc.Name, sc.Name
			}
			where = fmt.Sprintf("for the scout %q", name)
		}
		var prev actions.Mode
		if c.ScoutID == "" {
			prev = next.Global[c.Action]
			if c.Mode == "" {
				delete(next.Global, c.Action)
			} else {
				next.Global[c.Action] = c.Mode
			}
		} else {
			prev = next.Scouts[c.ScoutID][c.Action]
			if next.Scouts[c.ScoutID] == nil {
				next.Scouts[c.ScoutID] = map[string]actions.Mode{}
			}
			if c.Mode == "" {
				delete(next.Scouts[c.ScoutID], c.Action)
			} else {
				next.Scouts[c.ScoutID][c.Action] = c.Mode
			}
		}
		summary := fmt.Sprintf("%s set to %s %s by %s", c.Action, c.Mode, where, actor)
		if c.Mode == "" {
			summary = fmt.Sprintf("%s: the %s setting %s was removed by %s", c.Action, orUnset(prev), where, actor)
		} else if prev != "" {
			summary += fmt.Sprintf(" (was %s)", prev)
		}
		audit = append(audit, scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageDecision, Type: scouts.AuditPolicyChanged, Outcome: scouts.OutcomeOK, Summary: summary,
			Refs: map[string]string{"scout_id": c.ScoutID, "action": c.Action, "mode": string(c.Mode), "previous_mode": string(prev), "actor": actor}, At: now})
	}
	// Checked against the policies as they will be, so one request cannot
	// lift a global deny by naming the override first.
	for _, c := range changes {
		if c.ScoutID != "" && c.Mode != "" {
			if err := next.CheckOverride(c.Action, c.Mode); err != nil {
				return invalidAction(err)
			}
		}
	}
	if err := e.cfg.Store.SetPolicies(ctx, changes, audit...); err != nil {
		return err
	}
	for _, c := range changes {
		e.emit(scouts.Event{Type: scouts.EventPolicyChanged, Data: c})
	}
	return nil
}

// PlanDefaults returns the user's defaults for what cards propose.
func (e *Engine) PlanDefaults(ctx context.Context) (PlanDefaults, error) {
	return e.cfg.Store.PlanDefaults(ctx)
}

// SetPlanDefaults stores the user's defaults for what cards propose.
func (e *Engine) SetPlanDefaults(ctx context.Context, d PlanDefaults, actor string) error {
	d.GmailLabel = strings.TrimSpace(d.GmailLabel)
	if err := d.Validate(); err != nil {
		return err
	}
	if actor == "" {
		actor = "user"
	}
	now := e.cfg.Now()
	label := "no label"
	if d.GmailLabel != "" {
		label = fmt.Sprintf("label %q", d.GmailLabel)
	}
	ev := scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageDecision, Type: scouts.AuditPolicyChanged, Outcome: scouts.OutcomeOK,
		Summary: fmt.Sprintf("Gmail cards now propose: archive %v, %s (by %s)", d.GmailArchive, label, actor),
		Refs:    map[string]string{"actor": actor}, At: now}
	if err := e.cfg.Store.SetPlanDefaults(ctx, d, ev); err != nil {
		return err
	}
	e.emit(scouts.Event{Type: scouts.EventPlanDefaultsChanged, Data: d})
	return nil
}

func orUnset(m actions.Mode) string {
	if m == "" {
		return "unset"
	}
	return string(m)
}

// invalidAction turns the catalogue's errors into EInvalid.
func invalidAction(err error) error {
	if errors.Is(err, actions.ErrInvalid) {
		return scouts.Errorf(scouts.EInvalid, "%s", strings.TrimPrefix(err.Error(), actions.ErrInvalid.Error()+": "))
	}
	return err
}
