package actions

import (
	"fmt"
	"maps"
)

// Mode is what an invocation of an action may do.
type Mode string

const (
	// Allow: it runs without asking (a rule or an auto scout may run it).
	Allow Mode = "allow"
	// RequireApproval: it runs only when a person approves the card.
	RequireApproval Mode = "require_approval"
	// Deny: it never runs, whoever asks.
	Deny Mode = "deny"
)

// ParseMode accepts a mode's name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Allow, RequireApproval, Deny:
		return m, nil
	}
	return "", fmt.Errorf("%w: mode %q: want allow, deny or require_approval", ErrInvalid, s)
}

// Source says where a resolved mode came from.
type Source string

const (
	SourceScout    Source = "scout"    // the scout's override for the action
	SourceGlobal   Source = "global"   // the global setting for the action
	SourceInferred Source = "inferred" // the action's risk hint
	// SourceBlocked: the action is blocked (Def.Blocked): a tool whose
	// definition changed since it was approved. No policy lifts it; the
	// person's review of the change does.
	SourceBlocked Source = "blocked"
	// SourceQuietHours: the scout's quiet hours raised an allowed write
	// or danger action to require approval while they last.
	SourceQuietHours Source = "quiet_hours"
)

// Resolution is an invocation's mode and where it came from; both are
// recorded on the item's audit trail.
type Resolution struct {
	Mode   Mode
	Source Source
}

// Inferred is the default mode of a risk: read → allow, write and danger →
// require approval.
func Inferred(r Risk) Mode {
	if r == RiskRead {
		return Allow
	}
	return RequireApproval
}

// Policies are the user's modes: global settings per action, and each
// scout's overrides.
type Policies struct {
	Global map[string]Mode
	Scouts map[string]map[string]Mode // scout id → action → mode
}

// Resolve returns the mode of an invocation of d by the scout: the scout's
// override, else the global setting, else the mode inferred from d's risk.
//
// One exception keeps "denied stays denied": a global deny is a ceiling
// that no scout override lifts. Turning an action off everywhere must not
// be undone by an override written earlier (or by "approve and always
// allow" on some card); to allow it for one scout, the global deny is
// removed first.
func (p Policies) Resolve(d Def, scoutID string) Resolution {
	if d.Blocked != "" {
		return Resolution{Mode: Deny, Source: SourceBlocked}
	}
	g, hasGlobal := p.Global[d.Name]
	if hasGlobal && g == Deny {
		return Resolution{Mode: Deny, Source: SourceGlobal}
	}
	if m, ok := p.Scouts[scoutID][d.Name]; ok {
		return Resolution{Mode: m, Source: SourceScout}
	}
	if hasGlobal {
		return Resolution{Mode: g, Source: SourceGlobal}
	}
	return Resolution{Mode: Inferred(d.Risk), Source: SourceInferred}
}

// Clone returns a deep copy.
func (p Policies) Clone() Policies {
	out := Policies{Global: maps.Clone(p.Global), Scouts: map[string]map[string]Mode{}}
	for id, m := range p.Scouts {
		out.Scouts[id] = maps.Clone(m)
	}
	if out.Global == nil {
		out.Global = map[string]Mode{}
	}
	return out
}

// CheckOverride refuses a scout override that would lift a global deny:
// the resolution would ignore it, and the user would believe otherwise.
func (p Policies) CheckOverride(action string, m Mode) error {
	if p.Global[action] == Deny && m != Deny {
		return fmt.Errorf("%w: %s is denied for every scout (the global setting): remove the global deny first to allow it for one scout", ErrInvalid, action)
	}
	return nil
}
