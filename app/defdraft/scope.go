package defdraft

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// narrowest is the narrowest write scope that lets a definition's rules
// do what they say: the folders their file.move names (a destination
// whose template starts inside a folder: that folder and below), the
// labels their gmail.label adds, the hosts their webhook.post names —
// every list set, so that nothing else is allowed. What no scope can
// allow (a host a template fills) is a risk.
func narrowest(d definition.Document) (definition.WriteScope, []Risk) {
	folders, labels, hosts := []string{}, []string{}, []string{}
	var risks []Risk
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	for i, raw := range d.Rules {
		var r struct {
			ID   string `json:"id"`
			Then struct {
				Actions []struct {
					Action string          `json:"action"`
					Params json.RawMessage `json:"params"`
				} `json:"actions"`
			} `json:"then"`
		}
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		label := r.ID
		if label == "" {
			label = fmt.Sprintf("rule %d", i+1)
		}
		for _, a := range r.Then.Actions {
			var p struct{ To, Label, URL string }
			json.Unmarshal(a.Params, &p)
			switch a.Action {
			case actions.FileMove:
				add(&folders, globOf(strings.TrimSuffix(p.To, "/")))
			case actions.GmailLabel:
				add(&labels, globOf(p.Label))
			case actions.WebhookPost:
				fixed, _, templated := strings.Cut(p.URL, "{{")
				u, err := url.Parse(fixed)
				host := ""
				if err == nil {
					host = u.Hostname()
				}
				// The host is whole only when the template comes after it.
				if host == "" || templated && !strings.Contains(strings.TrimPrefix(fixed, u.Scheme+"://"), "/") {
					risks = append(risks, Risk{"templated_host", fmt.Sprintf("Rule %q posts to a host taken from the item: no write scope allows that; name the host.", label)})
					continue
				}
				add(&hosts, host)
			}
		}
	}
	return definition.WriteScope{Folders: &folders, Labels: &labels, Hosts: &hosts}, risks
}

// globOf is the narrowest glob for a value a template may fill: the value
// itself when it has no template, else the folder (or label) its fixed
// part names and everything below it.
func globOf(v string) string {
	fixed, _, templated := strings.Cut(v, "{{")
	if !templated {
		return v
	}
	dir := path.Dir(fixed + "x") // the folder the fixed part ends in
	if dir == "." {
		return "**"
	}
	return strings.TrimSuffix(dir, "/") + "/**"
}

// scopeSummary says a definition's write scope in a line per kind of
// action its scout can run.
func scopeSummary(d definition.Document) []string {
	w := scouts.WriteScope{}
	if d.WriteScope != nil {
		w = scouts.WriteScope{Folders: definition.ScopeItems(d.WriteScope.Folders), Labels: definition.ScopeItems(d.WriteScope.Labels),
			Hosts: definition.ScopeItems(d.WriteScope.Hosts)}
	}
	words := func(f scouts.ScopeField) string {
		l, def := w.Effective(f)
		if len(l) == 0 {
			return "nowhere"
		}
		s := strings.Join(l, ", ")
		if def {
			s += " (the default)"
		}
		return s
	}
	var out []string
	switch scouts.Kind(d.Kind) {
	case scouts.KindFolder:
		out = append(out, "Its actions may move files into: "+words(scouts.ScopeFolders)+".")
	case scouts.KindGmail:
		out = append(out, "Its actions may add the labels: "+words(scouts.ScopeLabels)+" (and your label for Gmail cards).")
	}
	return append(out, "Its actions may post to: "+words(scouts.ScopeHosts)+".")
}

// proposeScope gives a model's draft the narrowest write scope its rules
// need (whatever scope the model wrote: the person widens it, knowingly,
// if they want more). A draft that does not parse is left as it is, for
// the check to say why.
func proposeScope(raw []byte) ([]byte, []Risk) {
	doc, err := definition.Parse("draft", raw)
	if err != nil || len(doc.History) > 0 {
		return raw, nil
	}
	w, risks := narrowest(doc)
	doc.WriteScope = &w
	out, err := definition.Marshal(doc)
	if err != nil {
		return raw, nil
	}
	return out, risks
}
