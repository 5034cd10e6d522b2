package defdraft

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
)

// Changing a scout in plain words (docs/definitions.md, "Changing a scout
// in words"): the model gets the current definition and the instruction
// and answers with the whole definition changed; the answer is checked
// like a new draft, compared line by line with the current one, and the
// risks it adds are named. Nothing is saved here: the person saves it
// (defsync.SaveRevision), only if the scout did not change meanwhile.

// reviser is what a configured model needs to change a definition:
// llm.Client.
type reviser interface {
	Revise(ctx context.Context, current json.RawMessage, instruction string, schema json.RawMessage, allow llm.Allowance) (json.RawMessage, int, error)
}

// Revision is a proposed change to a scout's definition.
type Revision struct {
	// Current is the definition the change was made from (canonical),
	// Proposed the definition after it (canonical when it parsed, else
	// as the model wrote it).
	Current  json.RawMessage
	Proposed json.RawMessage
	// Valid, Errors, Summary and Risks are the proposed definition's, as
	// for a new draft.
	Valid   bool
	Errors  []definition.Error
	Summary []string
	Risks   []Risk
	// RisksAdded are the risks the proposed definition has and the
	// current one does not: what the change adds.
	RisksAdded []Risk
	// Diff is the proposed definition against the current, line by line.
	Diff []DiffLine
	// Tokens is what the model's answer cost.
	Tokens int
}

// MaxInstruction caps an instruction, as a description is capped.
const MaxInstruction = 4000

// Revise asks the model to change current (a scout's definition) as the
// instruction says, and checks the answer like a new draft. The kind and
// the id of the scout cannot change: an answer that changes them is
// invalid. An invalid answer is a Revision with its errors, not an error.
func (d *Drafter) Revise(ctx context.Context, current []byte, instruction string) (Revision, error) {
	instruction = strings.TrimSpace(instruction)
	if instruction == "" {
		return Revision{}, scouts.Errorf(scouts.EInvalid, "say what to change")
	}
	if len(instruction) > MaxInstruction {
		return Revision{}, scouts.Errorf(scouts.EInvalid, "the instruction is longer than %d characters", MaxInstruction)
	}
	cur, err := definition.Parse("current", current)
	if err != nil {
		return Revision{}, fmt.Errorf("defdraft: read the current definition: %w", err)
	}
	m, ok := d.cfg.Model.(reviser)
	if !ok || d.cfg.ModelBudget == nil {
		return Revision{}, ErrNoModel
	}
	if d.cfg.ModelDailyTokens <= 0 {
		return Revision{}, scouts.Errorf(scouts.EUnavailable, "the model's daily token budget is 0 (--llm-daily-tokens)")
	}
	canon, err := definition.Marshal(cur)
	if err != nil {
		return Revision{}, err
	}
	// The same line of the ledger as drafts: changing a scout in words is
	// drafting.
	allow := llm.Allowance{Budget: d.cfg.ModelBudget, Scout: BudgetKey, DailyTokens: d.cfg.ModelDailyTokens}
	raw, tokens, err := m.Revise(ctx, canon, instruction, definition.DraftSchema(), allow)
	if errors.Is(err, llm.ErrBudgetSpent) {
		return Revision{}, d.budgetSpent(ctx)
	}
	if err != nil {
		return Revision{}, scouts.Errorf(scouts.EUnavailable, "the model could not change the scout: %v", err)
	}
	out := d.CheckRevision(ctx, canon, raw)
	out.Tokens = tokens
	return out, nil
}

// CheckRevision checks proposed as a change to current: as a new draft
// is checked, with the kind and the id kept. It is what Revise does with
// the model's answer, and what saving checks again.
func (d *Drafter) CheckRevision(ctx context.Context, current, proposed []byte) Revision {
	out := Revision{Current: json.RawMessage(current), Proposed: json.RawMessage(proposed)}
	cur, err := definition.Parse("current", current)
	if err != nil {
		out.Errors = []definition.Error{{File: "current", Reason: err.Error()}}
		return out
	}
	canonCur, _ := definition.Marshal(cur)
	out.Current = canonCur
	next, err := keepIdentity(cur, proposed)
	if err != nil {
		var de *definition.Error
		if !errors.As(err, &de) {
			de = &definition.Error{File: "draft", Reason: err.Error()}
		}
		if !json.Valid(proposed) {
			out.Proposed, _ = json.Marshal(string(proposed))
		}
		out.Errors = []definition.Error{*de}
		return out
	}
	out.Proposed = next
	checked := d.check(ctx, "draft", next)
	out.Valid, out.Errors, out.Summary, out.Risks = checked.Valid, checked.Errors, checked.Summary, checked.Risks
	out.Diff = LineDiff(string(canonCur), string(next))
	if out.Valid {
		before := d.check(ctx, "current", canonCur)
		out.RisksAdded = addedRisks(before.Risks, out.Risks)
		out.RisksAdded = append(out.RisksAdded, widerScope(cur, mustParse(next))...)
	}
	return out
}

// keepIdentity reads a proposed definition as the change of cur: its kind
// must be cur's, its id cur's (or none, which is cur's); the learning
// thresholds it leaves out are cur's, as an import keeps them. It returns
// the definition in its canonical form, for the diff to compare like with
// like.
func keepIdentity(cur definition.Document, proposed []byte) ([]byte, error) {
	next, err := definition.Parse("draft", proposed)
	if err != nil {
		return nil, err
	}
	if len(next.History) > 0 {
		return nil, &definition.Error{File: "draft", Reason: "a change is one definition without history"}
	}
	if next.Kind != cur.Kind {
		return nil, &definition.Error{File: "draft", Reason: fmt.Sprintf("the kind of a scout cannot change (it is %s; the change makes it %s)", cur.Kind, next.Kind)}
	}
	if next.ID != "" && next.ID != cur.ID {
		return nil, &definition.Error{File: "draft", Reason: fmt.Sprintf("the id of a scout cannot change (it is %s; the change makes it %s)", cur.ID, next.ID)}
	}
	next.ID = cur.ID
	if next.Learning == nil {
		next.Learning = cur.Learning
	}
	return definition.Marshal(next)
}

func mustParse(raw []byte) definition.Document {
	d, _ := definition.Parse("draft", raw)
	return d
}

// addedRisks are the risks in after that before does not have.
func addedRisks(before, after []Risk) []Risk {
	var out []Risk
	for _, r := range after {
		if !slices.Contains(before, r) {
			out = append(out, r)
		}
	}
	return out
}

// widerScope names what a change lets the scout's actions write to that
// they could not before: a folder, a label or a host of the scope in
// force (the kind's default when the definition sets none) that was not
// in it.
func widerScope(before, after definition.Document) []Risk {
	var out []Risk
	words := map[scouts.ScopeField]string{scouts.ScopeFolders: "move files into", scouts.ScopeLabels: "add the label", scouts.ScopeHosts: "post to"}
	for _, f := range []scouts.ScopeField{scouts.ScopeFolders, scouts.ScopeLabels, scouts.ScopeHosts} {
		was, _ := scopeOf(before).Effective(f)
		now, _ := scopeOf(after).Effective(f)
		for _, v := range now {
			if !slices.Contains(was, v) {
				out = append(out, Risk{"wider_write_scope", fmt.Sprintf("Its actions may now %s %s, which they could not before.", words[f], v)})
			}
		}
	}
	return out
}

func scopeOf(d definition.Document) scouts.WriteScope {
	if d.WriteScope == nil {
		return scouts.WriteScope{}
	}
	return scouts.WriteScope{Folders: definition.ScopeItems(d.WriteScope.Folders), Labels: definition.ScopeItems(d.WriteScope.Labels),
		Hosts: definition.ScopeItems(d.WriteScope.Hosts)}
}
