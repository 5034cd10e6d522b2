// Package defdraft drafts scout definitions in plain words
// (docs/definitions.md): a model drafts a definition, which is checked like
// an import and summarised with its risks; templates are ready ones for a
// start without a model. A draft is never saved: the person saves it with
// an import (app/defsync).
package defdraft

import (
	"cmp"
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

// BudgetKey is the line drafts count on in the model budget's ledger,
// beside the scouts' (":" is never in a scout's id).
const BudgetKey = "agent:draft"

// Config configures a Drafter.
type Config struct {
	// Model drafts when it can (llm.Client); ModelBudget and
	// ModelDailyTokens are the day's budget drafts spend, on their own
	// line of the ledger (Ledger, nil when the budget is not counted in
	// the database).
	Model            triage.Model
	ModelBudget      triage.Budget
	ModelDailyTokens int
	Ledger           triage.Ledger
	// Describe says what a definition of a kind will do, and what in it
	// may surprise the user (nil: nothing of the kind's own).
	Describe func(kind scouts.Kind, source json.RawMessage) (summary []string, risks []Risk)
	// RuleOptions are the checks a rule of a kind is compiled with, as an
	// import checks it.
	RuleOptions func(kind scouts.Kind) rules.Options
	// SecretNames are the names of the secrets kept.
	SecretNames func(ctx context.Context) ([]string, error)
	Now         func() time.Time
}

// Drafter drafts and checks definitions.
type Drafter struct{ cfg Config }

// New returns a drafter.
func New(cfg Config) *Drafter {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Drafter{cfg: cfg}
}

// Risk is one thing a draft does that a person should decide knowingly.
type Risk struct {
	// Code is auto_create, runs_without_approval, danger_action,
	// broad_folder, broad_glob, missing_folder or missing_secret.
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ErrNoModel: drafting needs a model; the templates do not.
var ErrNoModel = scouts.Errorf(scouts.EUnavailable, "no model is configured: start from a template (GET /api/v1/definitions/templates)")

// Draft asks the model for the scout described and checks it.
// An invalid draft is an answer (Valid false with its errors), not an
// error: the person sees what the model wrote and why it does not do.
func (d *Drafter) Draft(ctx context.Context, description string) (Draft, error) {
	description = strings.TrimSpace(description)
	if description == "" {
		return Draft{}, scouts.Errorf(scouts.EInvalid, "describe the scout you want")
	}
	if len(description) > 4000 {
		return Draft{}, scouts.Errorf(scouts.EInvalid, "the description is longer than 4000 characters")
	}
	m, ok := d.cfg.Model.(drafter)
	if !ok || d.cfg.ModelBudget == nil {
		return Draft{}, ErrNoModel
	}
	if d.cfg.ModelDailyTokens <= 0 {
		return Draft{}, scouts.Errorf(scouts.EUnavailable, "the model's daily token budget is 0 (--llm-daily-tokens): start from a template")
	}
	// Drafts spend the same daily cap as a scout, on their own line of the
	// ledger: drafting cannot eat a scout's budget, nor pass the cap.
	allow := llm.Allowance{Budget: d.cfg.ModelBudget, Scout: BudgetKey, DailyTokens: d.cfg.ModelDailyTokens}
	raw, tokens, err := m.Draft(ctx, description, definition.DraftSchema(), allow)
	if errors.Is(err, llm.ErrBudgetSpent) {
		return Draft{}, d.budgetSpent(ctx)
	}
	if err != nil {
		return Draft{}, scouts.Errorf(scouts.EUnavailable, "the model could not draft a scout: %v", err)
	}
	raw, scopeRisks := proposeScope(raw)
	out := d.check(ctx, "draft", raw)
	out.Risks = append(out.Risks, scopeRisks...)
	out.Tokens = tokens
	return out, nil
}

// budgetSpent says that the day's drafting budget is spent, how much of
// it, and when it starts again.
func (d *Drafter) budgetSpent(ctx context.Context) error {
	now := d.cfg.Now()
	spent := ""
	if l := d.cfg.Ledger; l != nil {
		if n, err := l.Spent(ctx, BudgetKey, now.UTC().Format(time.DateOnly)); err == nil {
			spent = fmt.Sprintf(" (%d of %d tokens today)", n, d.cfg.ModelDailyTokens)
		}
	}
	return scouts.Errorf(scouts.EUnavailable, "the model budget for drafting is spent%s: it starts again at %s UTC; start from a template meanwhile",
		spent, triage.NextReset(now).Format("15:04"))
}

// Check checks a definition (JSON or YAML) as an import would and
// describes it like a draft: what a person edited in a draft, checked
// again before saving.
func (d *Drafter) Check(ctx context.Context, raw []byte) Draft {
	return d.check(ctx, "definition", raw)
}

// Available says whether a model is configured to draft definitions.
func (d *Drafter) Available() bool {
	_, ok := d.cfg.Model.(drafter)
	return ok && d.cfg.ModelBudget != nil && d.cfg.ModelDailyTokens > 0
}

// check runs the import's checks on raw and describes it.
func (d *Drafter) check(ctx context.Context, name string, raw []byte) Draft {
	out := Draft{Definition: json.RawMessage(raw)}
	if !json.Valid(raw) {
		out.Definition, _ = json.Marshal(string(raw))
	}
	doc, err := definition.Parse(name, raw)
	if err == nil && len(doc.History) > 0 {
		err = &definition.Error{File: name, Reason: "a draft is one definition without history (import an export with history with scouts import)"}
	}
	if err == nil {
		err = d.checkRules(doc)
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
	out.Summary, out.Risks = d.describe(ctx, doc)
	return out
}

func (d *Drafter) checkRules(doc definition.Document) error {
	ids := make(map[string]bool, len(doc.Rules))
	o := d.cfg.RuleOptions(scouts.Kind(doc.Kind))
	for i, r := range doc.Rules {
		comp, err := rules.Compile(doc.Kind, r, o)
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

func (dr *Drafter) describe(ctx context.Context, d definition.Document) ([]string, []Risk) {
	var sum []string
	var risks []Risk
	if describe := dr.cfg.Describe; describe != nil {
		sum, risks = describe(scouts.Kind(d.Kind), d.Source)
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
		label := cmp.Or(r.Name, r.ID, fmt.Sprintf("rule %d", i+1))
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
	sum = append(sum, scopeSummary(d)...)
	names := secretRefs(d)
	if len(names) > 0 {
		var have []string
		if dr.cfg.SecretNames != nil {
			have, _ = dr.cfg.SecretNames(ctx)
		}
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

// DescribeFolder is what a folder scout's definition says it will do, and
// what in it may surprise the user; read is its source as the folder kind
// reads it (its "~" the home folder).
func DescribeFolder(source, read json.RawMessage) (sum []string, risks []Risk) {
	var src struct {
		Path    string   `json:"path"`
		Include []string `json:"include"`
	}
	json.Unmarshal(source, &src)
	sum = append(sum, fmt.Sprintf("Watches the folder %s.", cmp.Or(src.Path, "(no path given)")))
	// Creating the scout refuses a folder that is not there: say so when
	// the draft is checked, not after Create.
	var abs struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(read, &abs) == nil && filepath.IsAbs(abs.Path) {
		if _, err := os.Stat(abs.Path); errors.Is(err, os.ErrNotExist) {
			risks = append(risks, Risk{"missing_folder", fmt.Sprintf("The folder %s does not exist yet: make it before creating the scout, which needs it.", src.Path)})
		}
	}
	if broad := broadFolder(src.Path); broad != "" {
		risks = append(risks, Risk{"broad_folder", fmt.Sprintf("It watches %s (%s): every file there and below becomes an item.", src.Path, broad)})
	}
	for _, g := range src.Include {
		if strings.Contains(g, "**") {
			risks = append(risks, Risk{"broad_glob", fmt.Sprintf("The pattern %q reaches every subfolder.", g)})
		}
	}
	return sum, risks
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

// Templates are ready definitions, each checked and described
// like a draft. A template's "~" is the home folder of this machine.
func (d *Drafter) Templates(ctx context.Context) []Draft {
	home, _ := os.UserHomeDir()
	out := make([]Draft, 0, len(templates))
	for _, t := range templates {
		doc := t.doc
		if home != "" {
			p, _ := json.Marshal(filepath.Join(home, "Scans"))
			doc = strings.ReplaceAll(doc, `"~/Scans"`, string(p))
		}
		dr := d.check(ctx, "template", []byte(doc))
		dr.Title = t.title
		out = append(out, dr)
	}
	return out
}
