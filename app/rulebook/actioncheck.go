package rulebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// The actions a rule names are checked when the rule is saved (API, CLI,
// the window), imported, read from the definitions folder or drafted, with
// the same checks their executors make when they run: a webhook.post URL
// with credentials in it is refused there, instead of being stored in the
// database, its exports and the definition's immutable history, only to
// be refused when it runs.

// Options are the checks a rule of a scout kind is compiled with: each
// action is in the catalogue, applies to the kind, has parameters of its
// schema, and passes its executor's own parameter check.
func (b *Book) Options(kind scouts.Kind) rules.Options {
	cat := b.actionCatalogue()
	execs := b.cfg.Executors
	return rules.Options{ValidateAction: func(name string, params json.RawMessage) error {
		d, ok := cat.Get(name)
		if ok && !d.AppliesTo(string(kind)) {
			return fmt.Errorf("%s does not apply to %s items", name, kind)
		}
		if err := cat.Validate(name, params); err != nil {
			return err
		}
		return checkParams(execs[name], params)
	}}
}

// checkParams runs an executor's own parameter check (when it has one) on
// a rule's parameters. A parameter that holds a template is checked with
// each {{…}} read as templatePlaceholder: what is written around the
// templates is checked now, and the rendered value again when the action
// is planned and when it runs.
func checkParams(x engine.ActionExecutor, params json.RawMessage) error {
	pc, ok := x.(engine.ParamsChecker)
	if !ok {
		return nil
	}
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage(`{}`)
	}
	var v any
	if err := json.Unmarshal(params, &v); err != nil {
		return err // the schema check said so already
	}
	templated := false
	filled, err := json.Marshal(fillTemplates(v, &templated))
	if err != nil {
		return err
	}
	if err := pc.CheckParams(filled); err != nil {
		msg := scouts.ErrorMessage(err)
		if templated {
			msg += fmt.Sprintf(" (templates read as %q for this check)", templatePlaceholder)
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// templatePlaceholder stands for what a template renders at save time: a
// plain name, which no check refuses by itself.
const templatePlaceholder = "x"

// fillTemplates copies a decoded JSON value with every {{…}} in its
// strings replaced by templatePlaceholder; *templated is set when there
// was one.
func fillTemplates(v any, templated *bool) any {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "{{") {
			return x
		}
		*templated = true
		var b strings.Builder
		for {
			i := strings.Index(x, "{{")
			if i < 0 {
				break
			}
			j := strings.Index(x[i+2:], "}}")
			if j < 0 {
				break
			}
			b.WriteString(x[:i])
			b.WriteString(templatePlaceholder)
			x = x[i+2+j+2:]
		}
		b.WriteString(x)
		return b.String()
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = fillTemplates(e, templated)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fillTemplates(e, templated)
		}
		return out
	}
	return v
}
