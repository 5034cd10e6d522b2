package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/definition"
	"github.com/scouts-hq/scouts/scouts/rules"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
)

// Authoring in plain words (docs/definitions.md): a model drafts a
// definition, which is checked like an import and summarised with its
// risks. A draft is never saved: the person saves it with an import.

// drafter is what a configured model needs to draft: llm.Client.
type drafter interface {
	Draft(ctx context.Context, description string, schema json.RawMessage, allow llm.Allowance) (json.RawMessage, int, error)
}

// Draft is a drafted (or template) definition with what it would do.
type Draft struct {
	// Title names a template ("" for a model's draft).
	Title string `json:"title,omitempty"`
	// Definition is the document as drafted, valid or not.
	Definition json.RawMessage `json:"definition,omitempty"`
	// Valid says whether Definition passed the checks an import makes;
	// Errors say why not (with the line of the draft where known).
	Valid  bool               `json:"valid"`
	Errors []definition.Error `json:"errors,omitempty"`
	// Summary says in plain words what the scout will do; Risks what to
	// look at before saving.
	Summary []string `json:"summary,omitempty"`
	Risks   []Risk   `json:"risks,omitempty"`
	// Tokens is what the model's draft cost, counted against the day's
	// model budget (0 for a template).
	Tokens int `json:"tokens,omitempty"`
}

// DraftBudgetKey is the line drafts count on in the model budget's
// ledger, beside the scouts' (":" is never in a scout's id).
const DraftBudgetKey = "agent:draft"

// Risk is one thing a draft does that a person should decide knowingly.
type Risk struct {
	// Code is auto_create, runs_without_approval, danger_action,
	// broad_folder, broad_glob, missing_folder or missing_secret.
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ErrNoModel: drafting needs a model; the templates do not.
var ErrNoModel = scouts.Errorf(scouts.EUnavailable, "no model is configured: start from a template (GET /api/v1/definitions/templates)")

// DraftDefinition asks the model for the scout described and checks it.
// An invalid draft is an answer (Valid false with its errors), not an
// error: the person sees what the model wrote and why it does not do.
func (c *Core) DraftDefinition(ctx context.Context, description string) (Draft, error) {
	description = strings.TrimSpace(description)
	if description == "" {
		return Draft{}, scouts.Errorf(scouts.EInvalid, "describe the scout you want")
	}
	if len(description) > 4000 {
		return Draft{}, scouts.Errorf(scouts.EInvalid, "the description is longer than 4000 characters")
	}
	m, ok := c.cfg.Model.(drafter)
	if !ok || c.cfg.ModelBudget == nil {
		return Draft{}, ErrNoModel
	}
	if c.cfg.ModelDailyTokens <= 0 {
		return Draft{}, scouts.Errorf(scouts.EUnavailable, "the model's daily token budget is 0 (--llm-daily-tokens): start from a template")
	}
	// Drafts spend the same daily cap as a scout, on their own line of the
	// ledger: drafting cannot eat a scout's budget, nor pass the cap.
	allow := llm.Allowance{Budget: c.cfg.ModelBudget, Scout: DraftBudgetKey, DailyTokens: c.cfg.ModelDailyTokens}
	raw, tokens, err := m.Draft(ctx, description, definition.DraftSchema(), allow)
	if errors.Is(err, llm.ErrBudgetSpent) {
		return Draft{}, c.draftBudgetSpent(ctx)
	}
	if err != nil {
		return Draft{}, scouts.Errorf(scouts.EUnavailable, "the model could not draft a scout: %v", err)
	}
	d := c.checkDraft(ctx, "draft", raw)
	d.Tokens = tokens
	return d, nil
}

// draftBudgetSpent says that the day's drafting budget is spent, how much
// of it, and when it starts again.
func (c *Core) draftBudgetSpent(ctx context.Context) error {
	now := c.now()
	spent := ""
	if l, ok := c.ledger(); ok {
		if n, err := l.Spent(ctx, DraftBudgetKey, now.UTC().Format(time.DateOnly)); err == nil {
			spent = fmt.Sprintf(" (%d of %d tokens today)", n, c.cfg.ModelDailyTokens)
		}
	}
	return scouts.Errorf(scouts.EUnavailable, "the model budget for drafting is spent%s: it starts again at %s UTC; start from a template meanwhile",
		spent, triage.NextReset(now).Format("15:04"))
}

// CheckDefinition checks a definition (JSON or YAML) as an import would
// and describes it like a draft: what a person edited in a draft, checked
// again before saving.
func (c *Core) CheckDefinition(ctx context.Context, raw []byte) Draft {
	return c.checkDraft(ctx, "definition", raw)
}

// CanDraft says whether a model is configured to draft definitions.
func (c *Core) CanDraft() bool {
	_, ok := c.cfg.Model.(drafter)
	return ok && c.cfg.ModelBudget != nil && c.cfg.ModelDailyTokens > 0
}

// checkDraft runs the import's checks on raw and describes it.
func (c *Core) checkDraft(ctx context.Context, name string, raw []byte) Draft {
	out := Draft{Definition: json.RawMessage(raw)}
	if !json.Valid(raw) {
		out.Definition, _ = json.Marshal(string(raw))
	}
	d, err := definition.Parse(name, raw)
	if err == nil && len(d.History) > 0 {
		err = &definition.Error{File: name, Reason: "a draft is one definition without history (import an export with history with scouts import)"}
	}
	if err == nil {
		err = c.checkRules(d)
	}
	if err != nil {
		var de *definition.Error
		if !errors.As(err, &de) {
			de = &definition.Error{File: name, Reason: err.Error()}
		}
		out.Errors = []definition.Error{*de}
		return out
	}
	out.Valid = true
	out.Summary, out.Risks = c.describe(ctx, d)
	return out
}

func (c *Core) checkRules(d definition.Document) error {
	ids := make(map[string]bool, len(d.Rules))
	o := c.ruleOptions(scouts.Kind(d.Kind))
	for i, r := range d.Rules {
		comp, err := rules.Compile(d.Kind, r, o)
		if err != nil {
			return fmt.Errorf("rule %d: %v", i+1, err)
		}
		if ids[comp.Rule.ID] {
			return fmt.Errorf("rule %d: another rule has the id %q; a rule's id is unique within its scout", i+1, comp.Rule.ID)
		}
		ids[comp.Rule.ID] = true
	}
	return nil
}

// draftRule is what describe reads of a rule.
type draftRule struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Then struct {
		Verdict string `json:"verdict"`
		Kind    string `json:"kind"`
		Due     string `json:"due"`
		Actions []struct {
			Action string `json:"action"`
		} `json:"actions"`
	} `json:"then"`
}

func (c *Core) describe(ctx context.Context, d definition.Document) ([]string, []Risk) {
	var sum []string
	var risks []Risk
	if describe := c.kinds[scouts.Kind(d.Kind)].describe; describe != nil {
		sum, risks = describe(d.Source)
	}
	if d.Review {
		sum = append(sum, "Everything it finds becomes a card you approve or reject.")
	} else {
		risks = append(risks, Risk{"auto_create", "Auto-create mode: what it finds becomes tasks and notes without asking you."})
	}
	if !d.Enabled {
		sum = append(sum, "It starts disabled.")
	}
	cat, _ := actions.New()
	for i, raw := range d.Rules {
		var r draftRule
		json.Unmarshal(raw, &r)
		label := cmpOr(r.Name, r.ID, fmt.Sprintf("rule %d", i+1))
		line := fmt.Sprintf("Rule %q: matching items go to %s", label, laneWord(r.Then.Verdict))
		if r.Then.Kind != "" {
			line += " as " + scouts.EntityKind(r.Then.Kind).WithArticle()
		}
		if r.Then.Kind == string(scouts.EntityTask) && r.Then.Due == "" {
			line += ", due on the date its content names (if it names one)"
		}
		sum = append(sum, line+".")
		for _, a := range r.Then.Actions {
			var def actions.Def
			if cat != nil {
				def, _ = cat.Get(a.Action)
			}
			if def.Risk == actions.RiskDanger {
				risks = append(risks, Risk{"danger_action", fmt.Sprintf("Rule %q uses %s, a dangerous action.", label, a.Action)})
			}
			if !d.Review || actions.Inferred(def.Risk) == actions.Allow {
				risks = append(risks, Risk{"runs_without_approval", fmt.Sprintf("Rule %q runs %s without waiting for your approval.", label, a.Action)})
			}
		}
	}
	if d.Schedule != nil && d.Schedule.Cron != "" {
		sum = append(sum, fmt.Sprintf("Runs on the schedule %q%s.", d.Schedule.Cron, inZone(d.Schedule.TimeZone)))
	}
	if d.Budget != nil && (d.Budget.RunTokens > 0 || d.Budget.DayTokens > 0) {
		sum = append(sum, fmt.Sprintf("Spends at most %d model tokens a run and %d a day (0: the agent's cap).", d.Budget.RunTokens, d.Budget.DayTokens))
	}
	names := secretRefs(d)
	if len(names) > 0 {
		have, _ := c.SecretNames(ctx)
		for _, n := range names {
			if !slices.Contains(have, n) {
				risks = append(risks, Risk{"missing_secret", fmt.Sprintf("It names the secret %q, which is not set: scouts secrets set %s.", n, n)})
			}
		}
	}
	return sum, risks
}

func laneWord(verdict string) string {
	switch verdict {
	case "show":
		return "the inbox"
	case "screen":
		return "Screened"
	case "spam":
		return "Spam"
	case "skip":
		return "Screened (skipped)"
	}
	return verdict
}

func inZone(tz string) string {
	if tz == "" {
		return ""
	}
	return " (" + tz + ")"
}

// broadFolder says why a folder is too broad to watch whole ("" when it
// is not): the home folder, the root or a folder right under it.
func broadFolder(p string) string {
	if p == "" {
		return ""
	}
	home, _ := os.UserHomeDir()
	clean := filepath.Clean(p)
	if strings.HasPrefix(p, "~") {
		clean = filepath.Clean(filepath.Join(home, strings.TrimPrefix(p, "~")))
	}
	switch {
	case home != "" && clean == filepath.Clean(home):
		return "your whole home folder"
	case clean == filepath.Dir(clean) || filepath.Dir(filepath.Dir(clean)) == filepath.Dir(clean):
		return "a system folder near the root"
	}
	return ""
}

// secretRefs are the names of the secrets a definition names
// ({"secret": "name"} anywhere in it), sorted.
func secretRefs(d definition.Document) []string {
	b, _ := json.Marshal(d)
	var v any
	json.Unmarshal(b, &v)
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if n, ok := t["secret"].(string); ok && len(t) == 1 {
				out = append(out, n)
			}
			for _, e := range t {
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	slices.Sort(out)
	return slices.Compact(out)
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// templates are ready definitions for a start without a model.
var templates = []struct{ title, doc string }{
	{"Invoices from any sender become tasks due on the date in the mail", `{
  "version": 1, "kind": "gmail", "name": "Invoices", "enabled": true, "review": true,
  "source": {"email": "you@gmail.com", "mode": "local"},
  "rules": [{
    "id": "invoices", "name": "Invoices become tasks",
    "when": {"$or": [{"subject": {"contains_word": "invoice"}}, {"subject": {"contains_word": "bill"}}]},
    "then": {"verdict": "show", "kind": "task", "title": "Pay: {{.subject | truncate 60}}"}
  }]
}`},
	{"Files in ~/Scans become notes", `{
  "version": 1, "kind": "folder", "name": "Scans", "enabled": true, "review": true,
  "source": {"path": "~/Scans"},
  "rules": [{"id": "scans", "name": "Scans become notes", "when": {"ext": {"in": ["pdf", "png", "jpg"]}},
    "then": {"verdict": "show", "kind": "note"}}]
}`},
}

// DefinitionTemplates are ready definitions, each checked and described
// like a draft. A template's "~" is the home folder of this machine.
func (c *Core) DefinitionTemplates(ctx context.Context) []Draft {
	home, _ := os.UserHomeDir()
	out := make([]Draft, 0, len(templates))
	for _, t := range templates {
		doc := t.doc
		if home != "" {
			p, _ := json.Marshal(filepath.Join(home, "Scans"))
			doc = strings.ReplaceAll(doc, `"~/Scans"`, string(p))
		}
		d := c.checkDraft(ctx, "template", []byte(doc))
		d.Title = t.title
		out = append(out, d)
	}
	return out
}
