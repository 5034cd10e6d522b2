package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/template/parse"
)

// Plans as steps (docs/actions.md, "Steps"). A rule's actions are its
// steps, in order; a step may name its result (output_as) for the
// templates of the steps after it, which read it as {{.steps.NAME.field}};
// then.on_failure lists steps run once after a step failed for good, whose
// templates may also read {{.run.error}} and {{.run.failed_step}}.
//
// An item's fields are known when it arrives, an earlier step's result
// only once that step is done: a template that reads .steps or .run is
// "late" — kept as written when the rule matches, with a copy of the item
// fields it reads, and rendered when its step runs (RenderLate). Every
// other template renders on arrival, as before.

// outputNameOK reports whether name is 1 to 32 of [a-z0-9_], starting
// with a letter (a loop, not a regexp compiled at every process start:
// see ruleIDOK).
func outputNameOK(name string) bool {
	if len(name) < 1 || len(name) > 32 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_':
		default:
			return false
		}
	}
	return true
}

// runFields are what .run holds in an on_failure step.
var runFields = []string{"error", "failed_step"}

// stepScope is what a step's templates may read besides the item: the
// outputs named by the steps before it and, in an on_failure step, the
// run.
type stepScope struct {
	names map[string]bool
	// all maps every output name of the rule to its step's pointer, to
	// say "a later step" rather than "no step".
	all map[string]string
	run bool
}

// lateRefs is what a late template reads of the item.
type lateRefs struct {
	fields []string
}

// parse checks a template of a step's parameters: a plain one as
// ParseTemplate does; a late one (it reads .steps or .run) with its
// references checked against the scope and a dry render against sample
// data standing in for the steps' results.
func (st *stepScope) parse(kind, src string) (*Template, *lateRefs, error) {
	tp, err := parseShape(src)
	if err != nil {
		return nil, nil, err
	}
	if tp.t.Tree == nil || tp.t.Tree.Root == nil {
		return tp, nil, nil
	}
	var chains [][]string
	collectChains(tp.t.Tree.Root, &chains)
	late := false
	for _, c := range chains {
		if c[0] == "steps" || c[0] == "run" {
			late = true
		}
	}
	if !late || st == nil {
		tp, err := ParseTemplate(kind, src)
		return tp, nil, err
	}
	sample := SampleData(kind)
	steps := map[string]any{}
	refs := &lateRefs{}
	for _, c := range chains {
		switch c[0] {
		case "steps":
			if len(c) < 3 {
				return nil, nil, errors.New("an earlier step's output is read as .steps.NAME.field (NAME its output_as)")
			}
			if !st.names[c[1]] {
				if at, ok := st.all[c[1]]; ok {
					return nil, nil, fmt.Errorf(".steps.%s is the output of a later step (%s): a step reads only the steps before it", c[1], at)
				}
				return nil, nil, fmt.Errorf(".steps.%s: no step before this one has \"output_as\": %q", c[1], c[1])
			}
			setSample(steps, c[1:])
		case "run":
			if !st.run {
				return nil, nil, errors.New(".run.error and .run.failed_step are only for on_failure steps")
			}
			if len(c) != 2 || !contains(runFields, c[1]) {
				return nil, nil, errors.New("the run is read as .run.error or .run.failed_step")
			}
		default:
			if _, ok := sample[c[0]]; ok && !contains(refs.fields, c[0]) {
				refs.fields = append(refs.fields, c[0])
			}
		}
	}
	sample["steps"] = steps
	sample["run"] = map[string]any{"error": "sample error", "failed_step": "1:webhook.post"}
	// The results' shapes are unknown until the steps run: only the caps
	// are checked now; a template that does not fit a result fails its
	// step when it runs, with the reason on the card.
	if _, err := tp.render(sample, saveRenderTime); err != nil {
		for _, capErr := range []error{errOutputCap, errRenderTime, errRenderWork} {
			if err.Error() == capErr.Error() {
				return nil, nil, fmt.Errorf("the template fails on an item of a %s scout: %s", kind, err)
			}
		}
	}
	return tp, refs, nil
}

// setSample sets a sample string at path in nested maps.
func setSample(m map[string]any, path []string) {
	for i, k := range path {
		if i == len(path)-1 {
			if _, ok := m[k]; !ok {
				m[k] = "sample"
			}
			return
		}
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
}

// collectChains appends the field chains a template reads from the
// data's root: .steps.post.id is [steps post id], $.subject [subject].
// Fields read inside with and range are relative to their dot and are
// collected too, harmlessly: they match no item field or are copied.
func collectChains(n parse.Node, out *[][]string) {
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			collectChains(c, out)
		}
	case *parse.ActionNode:
		collectChains(x.Pipe, out)
	case *parse.PipeNode:
		if x == nil {
			return
		}
		for _, c := range x.Cmds {
			collectChains(c, out)
		}
	case *parse.CommandNode:
		for _, a := range x.Args {
			collectChains(a, out)
		}
	case *parse.FieldNode:
		*out = append(*out, x.Ident)
	case *parse.VariableNode:
		if len(x.Ident) > 1 && x.Ident[0] == "$" {
			*out = append(*out, x.Ident[1:])
		}
	case *parse.ChainNode:
		collectChains(x.Node, out)
	case *parse.IfNode:
		collectBranch(&x.BranchNode, out)
	case *parse.WithNode:
		collectBranch(&x.BranchNode, out)
	case *parse.RangeNode:
		collectBranch(&x.BranchNode, out)
	}
}

func collectBranch(b *parse.BranchNode, out *[][]string) {
	collectChains(b.Pipe, out)
	collectChains(b.List, out)
	collectChains(b.ElseList, out)
}

// compileSteps compiles a rule's actions and on_failure steps as a plan:
// output names checked (unique, well formed), each step's templates
// checked against the steps before it.
func compileSteps(kind string, c *Compiled, o Options) error {
	t := c.Rule.Then
	st := &stepScope{names: map[string]bool{}, all: map[string]string{}}
	lists := []struct {
		steps []Action
		base  string
	}{{t.Actions, "/then/actions/"}, {t.OnFailure, "/then/on_failure/"}}
	for _, l := range lists {
		for i, a := range l.steps {
			if a.OutputAs == "" {
				continue
			}
			path := l.base + strconv.Itoa(i)
			if !outputNameOK(a.OutputAs) {
				return failf(path+"/output_as", "an output name is 1 to 32 lower-case letters, digits and _, starting with a letter")
			}
			if at, dup := st.all[a.OutputAs]; dup {
				return failf(path+"/output_as", "%q already names the output of the step at %s", a.OutputAs, at)
			}
			st.all[a.OutputAs] = path
			c.plan = true
		}
		if len(l.steps) > 0 && l.base == "/then/on_failure/" {
			c.plan = true
		}
	}
	for li, l := range lists {
		st.run = li == 1
		for i, a := range l.steps {
			ca, err := compileAction(kind, a, l.base+strconv.Itoa(i), o, st)
			if err != nil {
				return err
			}
			if li == 0 {
				c.actions = append(c.actions, ca)
			} else {
				c.onFailure = append(c.onFailure, ca)
			}
			if a.OutputAs != "" {
				st.names[a.OutputAs] = true
			}
		}
	}
	return nil
}

// nestErr is a step nested where it cannot be, found before the schema
// check so that the error says why rather than "additional property".
type nestErr struct{ path, msg string }

// checkNesting refuses on_failure where it cannot be: inside a step of
// actions, or inside an on_failure step (which has no on_failure of its
// own: nothing runs after it fails, so a failure cannot cascade).
func checkNesting(doc any) *nestErr {
	m, _ := doc.(map[string]any)
	then, _ := m["then"].(map[string]any)
	for _, l := range []struct {
		key, msg string
	}{
		{"actions", "on_failure belongs to the rule's then, beside actions: a step has none of its own"},
		{"on_failure", "an on_failure step cannot have its own on_failure: it runs once after the main steps failed, and nothing runs after it"},
	} {
		steps, _ := then[l.key].([]any)
		for i, s := range steps {
			if sm, ok := s.(map[string]any); ok {
				if _, has := sm["on_failure"]; has {
					return &nestErr{path: "/then/" + l.key + "/" + strconv.Itoa(i) + "/on_failure", msg: l.msg}
				}
			}
		}
	}
	return nil
}

// RenderLate renders a step's late templates (at the pointers late, from
// its parameters) when it runs, with data: the item fields the rule
// copied when it matched, and "steps" and "run". A template that reads a
// result's missing field fails, as any template reading a missing key.
func RenderLate(params json.RawMessage, late []string, data map[string]any) (json.RawMessage, error) {
	if len(late) == 0 {
		return params, nil
	}
	v, err := decodeParams(params)
	if err != nil {
		return nil, err
	}
	var failed error
	out := mapStrings(v, "", func(path, s string) string {
		if failed != nil || !contains(late, path) {
			return s
		}
		t, err := parseShape(s)
		if err == nil {
			s, err = t.Render(data)
		}
		if err != nil {
			failed = fmt.Errorf("the template at %s: %w", strings.TrimPrefix(path, "/"), err)
		}
		return s
	})
	if failed != nil {
		return nil, failed
	}
	return json.Marshal(out)
}

func decodeParams(params json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("rules: a step's parameters: %w", err)
	}
	return v, nil
}
