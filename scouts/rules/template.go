package rules

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
	"time"
	"unicode/utf8"
)

// Limits on templates (a rule's title and its actions' parameters). A
// template that passes them when it is saved — parsed, checked, and
// rendered once against the largest item of its kind — renders within
// them at run time.
const (
	// MaxTemplateBytes caps a template's source; checked before parsing.
	MaxTemplateBytes = 8 << 10
	// MaxRenderTime caps one render.
	MaxRenderTime = 100 * time.Millisecond
	// MaxOutputBytes caps what one render writes.
	MaxOutputBytes = 1 << 20
	// MaxRenderWork caps the text one render copies, written or made by
	// functions (replace, join, …): a deterministic measure of what takes
	// long, well under MaxRenderTime on any machine.
	MaxRenderWork = 16 << 20
	// saveRenderTime is the time cap of the dry render when a template is
	// saved: generous, since the work and output caps (counted, not timed)
	// refuse what runs away, and a busy machine must not refuse a good
	// template.
	saveRenderTime = 2 * time.Second
	// maxTemplateDepth caps how deeply actions (if, range, with,
	// parentheses) nest.
	maxTemplateDepth = 10
	// maxTemplateNodes caps a template's size in parse nodes.
	maxTemplateNodes = 500
	// maxRangeNesting caps loops within loops: with lists of at most
	// MaxListItems entries, two levels are 10 000 iterations.
	maxRangeNesting = 2
	// maxTemplateJSON caps the entries of each object and list of a
	// webhook's JSON body as templates see it.
	maxTemplateJSON = 100
)

// allowedBuiltins are the text/template built-ins a template may call;
// the others (print, printf, println, call, html, js, urlquery, slice)
// are refused: printf's widths can allocate gigabytes.
var allowedBuiltins = []string{"and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "len", "index"}

// TemplateFuncs lists the functions templates may use, for documentation:
// the built-ins allowed and the package's own.
func TemplateFuncs() []string {
	names := slices.Clone(allowedBuiltins)
	for name := range templateFuncs(nil) {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Template is a checked template.
type Template struct {
	src string
	t   *template.Template
}

// Source returns the template as written.
func (t *Template) Source() string { return t.src }

// ParseTemplate checks a template for items of kind: its size, its
// syntax, the functions it calls (an allow-list), no define, block or
// template (no recursion), bounded nesting and loops, and a dry render
// against the largest item of the kind within the time and output caps.
// Every problem a template can have at run time on an item of its kind is
// found here, when the rule is saved.
func ParseTemplate(kind, src string) (*Template, error) {
	tp, err := parseShape(src)
	if err != nil || tp.t.Tree == nil || tp.t.Tree.Root == nil {
		return tp, err
	}
	if _, err := tp.render(SampleData(kind), saveRenderTime); err != nil {
		return nil, fmt.Errorf("the template fails on an item of a %s scout: %s", kind, clipSample(err.Error()))
	}
	return tp, nil
}

// parseShape parses a template and checks everything but its dry render:
// size, syntax, functions, nesting and loops.
func parseShape(src string) (*Template, error) {
	if len(src) > MaxTemplateBytes {
		return nil, fmt.Errorf("the template is %d bytes, more than %d", len(src), MaxTemplateBytes)
	}
	if !utf8.ValidString(src) {
		return nil, errors.New("the template is not valid UTF-8")
	}
	t, err := template.New("t").Option("missingkey=error").Funcs(templateFuncs(nil)).Parse(src)
	if err != nil {
		return nil, fmt.Errorf("the template does not parse: %s", tidyTemplateErr(err))
	}
	if len(t.Templates()) > 1 {
		return nil, errors.New("define and block are not allowed in a template")
	}
	if t.Tree == nil || t.Tree.Root == nil {
		return &Template{src: src, t: t}, nil
	}
	w := treeWalker{}
	if err := w.walk(t.Tree.Root, 0, 0); err != nil {
		return nil, err
	}
	return &Template{src: src, t: t}, nil
}

// clipSample shortens the runs of one character that SampleItem fills its
// texts with: text/template quotes the value it fails on, and a 2 KiB run
// of "x" in an error says nothing more than "xxxx…".
func clipSample(msg string) string {
	const keep = 4
	var b strings.Builder
	rs := []rune(msg)
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && rs[j] == rs[i] {
			j++
		}
		if j-i > 16 {
			b.WriteString(strings.Repeat(string(rs[i]), keep) + "…")
		} else {
			b.WriteString(string(rs[i:j]))
		}
		i = j
	}
	return b.String()
}

// treeWalker checks a parse tree's shape.
type treeWalker struct {
	nodes int
}

func (w *treeWalker) walk(n parse.Node, depth, ranges int) error {
	if n == nil {
		return nil
	}
	w.nodes++
	if w.nodes > maxTemplateNodes {
		return fmt.Errorf("the template is too large (more than %d parts)", maxTemplateNodes)
	}
	if depth > maxTemplateDepth {
		return fmt.Errorf("the template nests more than %d levels deep", maxTemplateDepth)
	}
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return nil
		}
		for _, c := range x.Nodes {
			if err := w.walk(c, depth, ranges); err != nil {
				return err
			}
		}
	case *parse.ActionNode:
		return w.walk(x.Pipe, depth+1, ranges)
	case *parse.PipeNode:
		if x == nil {
			return nil
		}
		for _, c := range x.Cmds {
			if err := w.walk(c, depth, ranges); err != nil {
				return err
			}
		}
	case *parse.CommandNode:
		for _, a := range x.Args {
			if err := w.walk(a, depth+1, ranges); err != nil {
				return err
			}
		}
	case *parse.IdentifierNode:
		if !slices.Contains(allowedBuiltins, x.Ident) {
			if _, ok := templateFuncs(nil)[x.Ident]; !ok {
				return fmt.Errorf("the function %q is not allowed in templates (allowed: %s)", x.Ident, strings.Join(TemplateFuncs(), ", "))
			}
		}
	case *parse.ChainNode:
		return w.walk(x.Node, depth+1, ranges)
	case *parse.IfNode:
		return w.branch(&x.BranchNode, depth, ranges)
	case *parse.WithNode:
		return w.branch(&x.BranchNode, depth, ranges)
	case *parse.RangeNode:
		if ranges+1 > maxRangeNesting {
			return fmt.Errorf("loops nest more than %d levels deep", maxRangeNesting)
		}
		if err := rangeOverField(x.Pipe); err != nil {
			return err
		}
		return w.branch(&x.BranchNode, depth, ranges+1)
	case *parse.TemplateNode:
		return errors.New("{{template}} is not allowed in a template")
	case *parse.BreakNode, *parse.ContinueNode, *parse.TextNode, *parse.CommentNode,
		*parse.FieldNode, *parse.VariableNode, *parse.DotNode, *parse.NilNode,
		*parse.BoolNode, *parse.NumberNode, *parse.StringNode:
	default:
		return fmt.Errorf("%s is not allowed in a template", n.String())
	}
	return nil
}

func (w *treeWalker) branch(b *parse.BranchNode, depth, ranges int) error {
	if err := w.walk(b.Pipe, depth+1, ranges); err != nil {
		return err
	}
	if err := w.walk(b.List, depth+1, ranges); err != nil {
		return err
	}
	return w.walk(b.ElseList, depth+1, ranges)
}

// rangeOverField accepts a loop over a field of the item (.to, $.labels,
// .json.items, or the loop's own element .) and nothing else: a loop over
// a number (range 1000000000) or a function's result could run for ever.
func rangeOverField(p *parse.PipeNode) error {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return errors.New("range may only loop over a field of the item, like {{range .to}}")
	}
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.FieldNode, *parse.DotNode:
		return nil
	case *parse.VariableNode:
		if len(a.Ident) > 1 && a.Ident[0] == "$" {
			return nil // $.to
		}
	}
	return errors.New("range may only loop over a field of the item, like {{range .to}}")
}

// Render renders the template within the caps: time, output and work.
func (t *Template) Render(data map[string]any) (string, error) {
	return t.render(data, MaxRenderTime)
}

// render renders within limit. The output and work caps are counted, not
// timed, so what they refuse they refuse on any machine however busy; the
// time cap is the backstop.
func (t *Template) render(data map[string]any, limit time.Duration) (string, error) {
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	m := &meter{deadline: time.Now().Add(limit)}
	// This render's functions share its meter, so a render given up on
	// stops at its next function call or write instead of running on.
	tt, err := t.t.Clone()
	if err != nil {
		return "", fmt.Errorf("rules: template: %w", err)
	}
	tt.Funcs(templateFuncs(m))
	go func() {
		w := &capWriter{m: m}
		err := tt.Execute(w, data)
		done <- result{w.b.String(), err}
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	var r result
	select {
	case r = <-done:
	case <-timer.C:
		select {
		case r = <-done: // finished as the timer fired
		default:
			return "", errRenderTime
		}
	}
	if r.err != nil {
		return "", errors.New(tidyTemplateErr(r.err))
	}
	return r.out, nil
}

var (
	errRenderTime = fmt.Errorf("rendering took longer than %s", MaxRenderTime)
	errOutputCap  = fmt.Errorf("the output is larger than %d bytes", MaxOutputBytes)
	errRenderWork = fmt.Errorf("the template does too much work (more than %d MiB of text copied)", MaxRenderWork>>20)
)

// meter is one render's account: the text it copied (written, or made by
// a function) and its deadline.
type meter struct {
	work     int
	deadline time.Time
}

// spend counts n bytes of work.
func (m *meter) spend(n int) error {
	if m == nil {
		return nil
	}
	m.work += n
	if m.work > MaxRenderWork {
		return errRenderWork
	}
	if time.Now().After(m.deadline) {
		return errRenderTime
	}
	return nil
}

// capWriter stops a render that writes too much, works too much or runs
// too long.
type capWriter struct {
	b strings.Builder
	m *meter
}

func (w *capWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > MaxOutputBytes {
		return 0, errOutputCap
	}
	if err := w.m.spend(len(p)); err != nil {
		return 0, err
	}
	return w.b.Write(p)
}

// tidyTemplateErr drops text/template's "template: t:" prefix.
func tidyTemplateErr(err error) string {
	for _, e := range []error{errOutputCap, errRenderTime, errRenderWork} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	s := err.Error()
	s = strings.TrimPrefix(s, "template: ")
	if rest, ok := strings.CutPrefix(s, "t:"); ok {
		s = "line " + rest
	}
	s = strings.ReplaceAll(s, `executing "t" at `, "at ")
	for _, e := range []error{errOutputCap, errRenderTime, errRenderWork} {
		if strings.HasSuffix(s, e.Error()) { // a function's error, wrapped in text
			return e.Error()
		}
	}
	return s
}

// templateFuncs are the functions templates may call besides the allowed
// built-ins. Each is bounded by its input: none loops on its own, takes a
// callable or reaches outside its arguments. Those that copy text count
// it on the render's meter (nil when only parsing).
func templateFuncs(m *meter) template.FuncMap {
	text := func(f func(string) string) func(string) (string, error) {
		return func(s string) (string, error) {
			if err := m.spend(len(s)); err != nil {
				return "", err
			}
			return f(s), nil
		}
	}
	return template.FuncMap{
		"lower": text(strings.ToLower),
		"upper": text(strings.ToUpper),
		"trim":  text(strings.TrimSpace),
		"truncate": func(n int, s string) (string, error) {
			if err := m.spend(min(len(s), max(n, 0)*utf8.UTFMax)); err != nil {
				return "", err
			}
			return truncate(n, s), nil
		},
		"default": defaultValue,
		"date":    formatDate,
		"join": func(sep string, v any) (string, error) {
			out, err := join(sep, v)
			if err == nil {
				err = m.spend(len(out))
			}
			return out, err
		},
		"replace": func(old, new, s string) (string, error) {
			out, err := replace(old, new, s)
			if err == nil {
				err = m.spend(len(s) + len(out))
			}
			return out, err
		},
		"first": first,
		"last":  last,
		"get":   get,
	}
}

// truncate cuts s to n characters, ending with "…" when it cut.
func truncate(n int, s string) string {
	if n < 1 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n-1 {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// defaultValue returns v, or def when v is empty ("", an empty list, nil).
func defaultValue(def, v any) any {
	if isEmpty(v) {
		return def
	}
	return v
}

func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String, reflect.Slice, reflect.Map:
		return rv.Len() == 0
	}
	return false
}

// formatDate formats a time (the item's .received, or an RFC 3339 string)
// with a Go layout or one of "date", "datetime", "time".
func formatDate(layout string, v any) (string, error) {
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case string:
		p, err := time.Parse(time.RFC3339, x)
		if err != nil {
			return "", fmt.Errorf("date: %q is not an RFC 3339 time", clipMsg(x))
		}
		t = p
	default:
		return "", fmt.Errorf("date: cannot format %T", v)
	}
	switch layout {
	case "date":
		layout = "2006-01-02"
	case "datetime":
		layout = "2006-01-02 15:04"
	case "time":
		layout = "15:04"
	}
	if len(layout) > 64 {
		return "", errors.New("date: the layout is longer than 64 bytes")
	}
	return t.Format(layout), nil
}

// join joins a list's values with sep.
func join(sep string, v any) (string, error) {
	var parts []string
	switch x := v.(type) {
	case []string:
		parts = x
	case []any:
		for _, e := range x {
			parts = append(parts, fmt.Sprint(e))
		}
	case string:
		return x, nil
	default:
		return "", fmt.Errorf("join: cannot join %T", v)
	}
	size := len(sep) * len(parts)
	for _, p := range parts {
		size += len(p)
	}
	if size > MaxOutputBytes {
		return "", errOutputCap
	}
	return strings.Join(parts, sep), nil
}

// replace replaces every old in s with new, refusing results over the
// output cap before building them.
func replace(old, new, s string) (string, error) {
	if old == "" {
		return "", errors.New("replace: the text to replace is empty")
	}
	n := strings.Count(s, old)
	if len(s)+n*(len(new)-len(old)) > MaxOutputBytes {
		return "", errOutputCap
	}
	return strings.ReplaceAll(s, old, new), nil
}

func first(v any) any {
	switch x := v.(type) {
	case []string:
		if len(x) > 0 {
			return x[0]
		}
	case []any:
		if len(x) > 0 {
			return x[0]
		}
	}
	return ""
}

func last(v any) any {
	switch x := v.(type) {
	case []string:
		if len(x) > 0 {
			return x[len(x)-1]
		}
	case []any:
		if len(x) > 0 {
			return x[len(x)-1]
		}
	}
	return ""
}

// get reads a key of an object that may lack it (a webhook's JSON body):
// "" when it is missing, where .json.key would be an error.
func get(m any, key string) any {
	if mm, ok := m.(map[string]any); ok {
		if v, ok := mm[key]; ok && v != nil {
			return v
		}
	}
	return ""
}
