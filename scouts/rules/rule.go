package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Limits on rule documents.
const (
	// MaxRuleBytes caps one rule document.
	MaxRuleBytes = 64 << 10
	// MaxRules caps a scout's rules.
	MaxRules = 500
	// maxJSONDepth caps how deeply a document's JSON nests, checked
	// before anything else reads it (the filter's own limit is lower).
	maxJSONDepth = 64
	// maxParamsBytes caps one action's parameters.
	maxParamsBytes = 16 << 10
	// maxParamTemplates caps the template strings of one action.
	maxParamTemplates = 50
)

// Verdict is what a rule does with an item's lane.
type Verdict string

const (
	// Show puts the item in the inbox whatever the learner or the
	// source's triage say.
	Show Verdict = "show"
	// Screen puts it in Screened.
	Screen Verdict = "screen"
	// Spam puts it in Spam.
	Spam Verdict = "spam"
	// Skip puts it in Screened, noted as skipped by the rule: for items
	// one wants to keep out of the way without judging them.
	Skip Verdict = "skip"
)

// Rule is a rule document, as written, stored and listed.
type Rule struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// Enabled defaults to true when absent.
	Enabled *bool           `json:"enabled,omitempty"`
	When    json.RawMessage `json:"when"`
	Then    Then            `json:"then"`
}

// IsEnabled reports whether the rule is tried.
func (r Rule) IsEnabled() bool { return r.Enabled == nil || *r.Enabled }

// Then is what a rule does to the items it matches.
type Then struct {
	Verdict Verdict `json:"verdict"`
	Kind    string  `json:"kind,omitempty"`
	// Title is a template.
	Title string `json:"title,omitempty"`
	// Project is a project's id or name.
	Project string   `json:"project,omitempty"`
	Due     string   `json:"due,omitempty"`
	Actions []Action `json:"actions,omitempty"`
	// OnFailure are steps run once after a step of Actions failed for
	// good (steps.go): a rule with them, or with a step naming its
	// output, is a plan whose steps run one after another.
	OnFailure []Action `json:"on_failure,omitempty"`
}

// Action is an action a rule attaches to the items it matches; string
// parameters may be templates.
type Action struct {
	Action string          `json:"action"`
	Params json.RawMessage `json:"params,omitempty"`
	// OutputAs names the step's result for later steps' templates
	// ({{.steps.NAME.field}}).
	OutputAs string `json:"output_as,omitempty"`
}

// Options are what Compile needs from outside the grammar.
type Options struct {
	// ValidateAction checks an action's name and parameters against the
	// action catalogue (an unknown action, parameters it does not take);
	// nil accepts any well-formed action.
	ValidateAction func(name string, params json.RawMessage) error
	// Probe measures each costly regex on worst-case texts, on the
	// thread's CPU clock (cost.go, probe.go): for a rule being saved or
	// imported, not one read back from storage, which was measured when
	// it was saved and would cost a rule set's load up to a second a rule.
	Probe bool

	// probeClock stands in for ThreadClock in tests.
	probeClock Clock
}

// Compiled is a checked rule, ready to evaluate.
type Compiled struct {
	Rule    Rule
	kind    string
	filter  *node
	title   *Template
	due     Due
	actions []compiledAction
	// onFailure are the plan's on_failure steps; plan is set when the
	// rule is a plan (steps run in order; steps.go).
	onFailure []compiledAction
	plan      bool
}

type compiledAction struct {
	name   string
	params any // decoded; strings with {{ are rendered through templates
	tmpls  map[string]*Template
	// outputAs names the step's result; late are the pointers (from the
	// params) of templates that read earlier steps or the run, rendered
	// when the step runs; vars are the item fields those read.
	outputAs string
	late     []string
	vars     []string
}

var (
	// An action of the catalogue (gmail.archive), or a tool of an MCP
	// server (mcp.<server>.<tool>, app/mcpclient): tool names are the
	// server's own, with capitals, digits, dots and dashes.
	actionPattern   = regexp.MustCompile(`^([a-z]+\.[a-z_]+|mcp\.[a-z0-9_-]+\.[A-Za-z0-9_.-]+)$`)
	entityKindNames = []string{"task", "note", "event", "project"}
)

// Compile checks a rule document for a scout kind — its size and nesting,
// the JSON Schema (with the validator library), then what the schema
// cannot say: each field exists for the kind, each operator fits its
// field, regexes compile within their limits, the filter's worst cost,
// templates (dry-rendered), the due date and the actions — and returns
// it compiled. Errors name the rule and the JSON
// pointer of the problem (an *Error).
func Compile(kind string, doc []byte, o Options) (*Compiled, error) {
	if _, ok := kindFields[kind]; !ok {
		return nil, &Error{Msg: fmt.Sprintf("%s scouts have no rules (rules are for %s scouts)", kind, strings.Join(Kinds(), ", "))}
	}
	if len(doc) > MaxRuleBytes {
		return nil, &Error{Msg: fmt.Sprintf("the document is %d bytes, more than %d", len(doc), MaxRuleBytes)}
	}
	if err := checkJSON(doc); err != nil {
		e := &Error{Msg: err.Error()}
		var at *textError
		if errors.As(err, &at) {
			e.Rule, e.Path, e.Msg = at.rule, at.path, at.msg
			if e.Rule == "" {
				e.Rule = idOf(doc)
			}
		}
		return nil, e
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, &Error{Msg: "not JSON: " + err.Error()}
	}
	id := ""
	if m, ok := v.(map[string]any); ok {
		id, _ = m["id"].(string)
		id = clipMsg(id)
	}
	if err := checkNesting(v); err != nil {
		return nil, &Error{Rule: id, Path: err.path, Msg: err.msg}
	}
	if err := validateSchema(v); err != nil {
		var se *schemaError
		if errors.As(err, &se) && len(se.at) == 1 && se.more == 0 && se.at[0] != "the document" {
			return nil, &Error{Rule: id, Path: se.at[0], Msg: se.msg[0]}
		}
		return nil, &Error{Rule: id, Msg: err.Error()}
	}
	var r Rule
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, &Error{Rule: id, Msg: err.Error()}
	}
	c, err := compileRule(kind, r, v.(map[string]any)["when"], o)
	if err != nil {
		e := &Error{Rule: id, Msg: err.Error()}
		var at *errAt
		if errors.As(err, &at) {
			e.Path, e.Msg = at.path, at.msg
		}
		return nil, e
	}
	return c, nil
}

// idOf reads a document's id for an error about it, "" when it has no
// usable one.
func idOf(doc []byte) string {
	var r struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(doc, &r) != nil || !ruleIDOK(r.ID) {
		return ""
	}
	return r.ID
}

// Error is a rule document's problem: which rule, where in it (a JSON
// pointer, "" for the document as a whole) and what.
type Error struct {
	Rule string
	Path string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("rule")
	if e.Rule != "" {
		b.WriteString(" " + strconv.Quote(e.Rule))
	}
	if e.Path != "" {
		b.WriteString(" at " + e.Path)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// ruleIDOK reports whether id is 1 to 64 of [A-Za-z0-9_-]. A loop, not
// the regular expression ^[A-Za-z0-9_-]{1,64}$: compiling that one (its
// repetition unrolled 64 times) allocated 60 KB at every process start.
func ruleIDOK(id string) bool {
	if len(id) < 1 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// compileRule does the checks the schema cannot.
func compileRule(kind string, r Rule, when any, o Options) (*Compiled, error) {
	if !ruleIDOK(r.ID) {
		return nil, failf("/id", "the id must be 1 to 64 letters, digits, '-' or '_'")
	}
	p := &parser{kind: kind}
	if o.Probe {
		p.probe = &prober{clock: o.probeClock}
		if p.probe.clock == nil {
			p.probe.clock = ThreadClock
		}
	}
	filter, err := p.parseFilter(when, "/when", 1)
	if err != nil {
		return nil, err
	}
	if cost, top := filter.worstCost(); cost > MaxRuleCost {
		return nil, failf("/when", "the filter could cost up to %d steps on an item, more than a rule's %d (its costliest condition, at %s, %d): use fewer regex, contains_word or contains conditions on long fields (text, body)",
			cost, MaxRuleCost, top.path, top.cost)
	}
	c := &Compiled{Rule: r, kind: kind, filter: filter}
	t := r.Then
	switch t.Verdict {
	case Show, Screen, Spam, Skip:
	default:
		return nil, failf("/then/verdict", "want show, screen, spam or skip")
	}
	if t.Kind != "" && !contains(entityKindNames, t.Kind) {
		return nil, failf("/then/kind", "want task, note, event or project")
	}
	if t.Title != "" {
		if c.title, err = ParseTemplate(kind, t.Title); err != nil {
			return nil, failf("/then/title", "%v", err)
		}
	}
	if t.Project != "" && strings.TrimSpace(t.Project) == "" {
		return nil, failf("/then/project", "the project is blank")
	}
	if t.Due != "" {
		if c.due, err = ParseDue(t.Due); err != nil {
			return nil, failf("/then/due", "%v", err)
		}
	}
	if err := compileSteps(kind, c, o); err != nil {
		return nil, err
	}
	return c, nil
}

func compileAction(kind string, a Action, path string, o Options, st *stepScope) (compiledAction, error) {
	ca := compiledAction{name: a.Action, tmpls: map[string]*Template{}, outputAs: a.OutputAs}
	if !actionPattern.MatchString(a.Action) {
		return ca, failf(path+"/action", "an action is named like gmail.archive (lower-case letters, a dot, letters and _), or mcp.SERVER.TOOL for an MCP server's tool")
	}
	if len(a.Params) > maxParamsBytes {
		return ca, failf(path+"/params", "the parameters are %d bytes, more than %d", len(a.Params), maxParamsBytes)
	}
	if len(a.Params) > 0 {
		dec := json.NewDecoder(bytes.NewReader(a.Params))
		dec.UseNumber()
		if err := dec.Decode(&ca.params); err != nil {
			return ca, failf(path+"/params", "not JSON: %v", err)
		}
		if _, ok := ca.params.(map[string]any); !ok {
			return ca, failf(path+"/params", "the parameters are a JSON object")
		}
		var walkErr error
		walkStrings(ca.params, path+"/params", func(p, s string) {
			if walkErr != nil || !strings.Contains(s, "{{") {
				return
			}
			if len(ca.tmpls) == maxParamTemplates {
				walkErr = failf(p, "more than %d templates in one action's parameters", maxParamTemplates)
				return
			}
			t, late, err := st.parse(kind, s)
			if err != nil {
				walkErr = failf(p, "%v", err)
				return
			}
			ca.tmpls[p] = t
			if late != nil {
				ca.late = append(ca.late, strings.TrimPrefix(p, path+"/params"))
				for _, f := range late.fields {
					if !contains(ca.vars, f) {
						ca.vars = append(ca.vars, f)
					}
				}
			}
		})
		if walkErr != nil {
			return ca, walkErr
		}
	}
	if o.ValidateAction != nil {
		if err := o.ValidateAction(a.Action, a.Params); err != nil {
			return ca, failf(path, "%v", err)
		}
	}
	return ca, nil
}

// walkStrings calls f with each string in a decoded JSON value and its
// pointer.
func walkStrings(v any, path string, f func(path, s string)) {
	switch x := v.(type) {
	case string:
		f(path, x)
	case map[string]any:
		for _, k := range sortedKeys(x) {
			walkStrings(x[k], pointer(path, k), f)
		}
	case []any:
		for i, e := range x {
			walkStrings(e, pointer(path, strconv.Itoa(i)), f)
		}
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// Kind returns the scout kind the rule was compiled for.
func (c *Compiled) Kind() string { return c.kind }

// Describe says what the rule's filter tests, in words.
func (c *Compiled) Describe() string { return describe(c.filter) }

// Due returns the rule's due date, zero if it sets none.
func (c *Compiled) Due() Due { return c.due }

// MarshalJSON writes the rule document.
func (c *Compiled) MarshalJSON() ([]byte, error) { return json.Marshal(c.Rule) }
