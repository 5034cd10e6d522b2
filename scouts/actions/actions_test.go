package actions_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/actions"
)

func TestCatalogueListsEveryActionWithRiskAndSchema(t *testing.T) {
	c := actions.MustNew()
	want := map[string]actions.Risk{
		"task.create": "write", "note.create": "write", "event.create": "write", "project.create": "write",
		"gmail.archive": "write", "gmail.label": "write", "gmail.mark_read": "write", "gmail.trash": "danger", "gmail.restore": "write", "gmail.unsubscribe": "write",
		"file.move": "write", "webhook.post": "write",
	}
	got := map[string]bool{}
	for _, d := range c.List() {
		got[d.Name] = true
		if want[d.Name] != d.Risk {
			t.Errorf("%s: risk %q, want %q", d.Name, d.Risk, want[d.Name])
		}
		if d.Description == "" || !json.Valid(d.Schema) {
			t.Errorf("%s: description %q, schema valid %v", d.Name, d.Description, json.Valid(d.Schema))
		}
		if (actions.CreatedKind(d.Name) != "") != (d.Where == actions.Local) {
			t.Errorf("%s runs %s", d.Name, d.Where)
		}
	}
	for name := range want {
		if !got[name] {
			t.Errorf("%s is missing from the catalogue", name)
		}
	}
}

func TestValidateParams(t *testing.T) {
	c := actions.MustNew()
	ok := []struct{ action, params string }{
		{"gmail.archive", ``},
		{"gmail.archive", `{}`},
		{"gmail.label", `{"label": "Scouts"}`},
		{"task.create", `{"title": "Pay", "due": "2026-12-01"}`},
		{"file.move", `{"to": "~/Documents/Invoices"}`},
		{"webhook.post", `{"url": "https://example.com/hook", "secret": {"secret": "hook-key"}}`},
	}
	for _, tc := range ok {
		if err := c.Validate(tc.action, json.RawMessage(tc.params)); err != nil {
			t.Errorf("%s %s: %v", tc.action, tc.params, err)
		}
	}
	bad := []struct{ action, params, says string }{
		{"gmail.delete", `{}`, "unknown action"},
		{"gmail.label", `{}`, "label"},
		{"gmail.label", `{"label": ""}`, "/label"},
		{"gmail.archive", `{"now": true}`, "now"},
		{"webhook.post", `{"url": "ftp://example.com"}`, "/url"},
		// A secret goes by reference only: a value in its place is refused.
		{"webhook.post", `{"url": "https://example.com", "secret": "s3cr3t"}`, "/secret"},
		{"webhook.post", `{"url": "https://example.com", "secret": {"secret": "a b"}}`, "/secret/secret"},
		{"file.move", `{"to": 3}`, "/to"},
		{"task.create", `{"title": 1}`, "/title"},
		{"task.create", `[1, 2]`, "object"},
		{"task.create", `{"title": `, "not JSON"},
		{"gmail.label", `{"label": "` + strings.Repeat("x", actions.MaxParamsBytes) + `"}`, "bytes"},
	}
	for _, tc := range bad {
		err := c.Validate(tc.action, json.RawMessage(tc.params))
		if err == nil || !errors.Is(err, actions.ErrInvalid) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s %.60s: %v, want an invalid-action error saying %q", tc.action, tc.params, err, tc.says)
		}
	}
}

// TestModeCascade checks every combination of a scout override, a global
// setting and the inferred default, for each risk.
func TestModeCascade(t *testing.T) {
	modes := []actions.Mode{"", actions.Allow, actions.RequireApproval, actions.Deny}
	for _, risk := range []actions.Risk{actions.RiskRead, actions.RiskWrite, actions.RiskDanger} {
		d := actions.Def{Name: "x.act", Risk: risk}
		for _, scout := range modes {
			for _, global := range modes {
				name := fmt.Sprintf("%s/scout=%s/global=%s", risk, or(scout), or(global))
				t.Run(name, func(t *testing.T) {
					p := actions.Policies{Global: map[string]actions.Mode{}, Scouts: map[string]map[string]actions.Mode{"sc1": {}}}
					if scout != "" {
						p.Scouts["sc1"]["x.act"] = scout
					}
					if global != "" {
						p.Global["x.act"] = global
					}
					var want actions.Resolution
					switch {
					case global == actions.Deny:
						want = actions.Resolution{Mode: actions.Deny, Source: actions.SourceGlobal}
					case scout != "":
						want = actions.Resolution{Mode: scout, Source: actions.SourceScout}
					case global != "":
						want = actions.Resolution{Mode: global, Source: actions.SourceGlobal}
					case risk == actions.RiskRead:
						want = actions.Resolution{Mode: actions.Allow, Source: actions.SourceInferred}
					default:
						want = actions.Resolution{Mode: actions.RequireApproval, Source: actions.SourceInferred}
					}
					if got := p.Resolve(d, "sc1"); got != want {
						t.Errorf("resolved %+v, want %+v", got, want)
					}
					// Another scout never sees sc1's override.
					if got := p.Resolve(d, "sc2"); scout != "" && got.Source == actions.SourceScout {
						t.Errorf("sc2 resolved with sc1's override: %+v", got)
					}
					// A deny, wherever it is set, is never upgraded by the
					// levels below it.
					if scout == actions.Deny || global == actions.Deny {
						if got := p.Resolve(d, "sc1"); got.Mode != actions.Deny {
							t.Errorf("deny upgraded to %+v", got)
						}
					}
				})
			}
		}
	}
}

func or(m actions.Mode) string {
	if m == "" {
		return "unset"
	}
	return string(m)
}

func TestOverrideCannotLiftGlobalDeny(t *testing.T) {
	p := actions.Policies{Global: map[string]actions.Mode{"gmail.trash": actions.Deny}}
	for _, m := range []actions.Mode{actions.Allow, actions.RequireApproval} {
		if err := p.CheckOverride("gmail.trash", m); err == nil || !strings.Contains(err.Error(), "remove the global deny") {
			t.Errorf("override %s over a global deny: %v", m, err)
		}
	}
	if err := p.CheckOverride("gmail.trash", actions.Deny); err != nil {
		t.Error(err)
	}
	if err := p.CheckOverride("gmail.archive", actions.Allow); err != nil {
		t.Error(err)
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"allow", "deny", "require_approval"} {
		if m, err := actions.ParseMode(s); err != nil || string(m) != s {
			t.Errorf("%s: %v %v", s, m, err)
		}
	}
	if _, err := actions.ParseMode("always"); err == nil || !strings.Contains(err.Error(), "allow, deny or require_approval") {
		t.Errorf("bad mode: %v", err)
	}
}
