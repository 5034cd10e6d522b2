package localapi

import (
	"context"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/scouts"
)

func fromWriteScope(in *apitype.WriteScope) *scouts.WriteScope {
	if in == nil {
		return nil
	}
	items := func(p *[]string) []string {
		if p == nil {
			return nil
		}
		if *p == nil {
			return []string{}
		}
		return *p
	}
	return &scouts.WriteScope{Folders: items(in.Folders), Labels: items(in.Labels), Hosts: items(in.Hosts)}
}

// scopeInEffect is a scout's write scope as it applies, each list its own
// or the default; a Gmail scout's labels take the label the person set
// for every Gmail card, which its gmail.label always allows.
func (s *Server) scopeInEffect(ctx context.Context, sc scouts.Scout) apitype.ScopeInEffect {
	list := func(f scouts.ScopeField) apitype.ScopeList {
		globs, def := sc.WriteScope.Effective(f)
		return apitype.ScopeList{Globs: globs, Default: def}
	}
	out := apitype.ScopeInEffect{Folders: list(scouts.ScopeFolders), Labels: list(scouts.ScopeLabels), Hosts: list(scouts.ScopeHosts)}
	if sc.Kind == scouts.KindGmail {
		if d, err := s.core.Engine.PlanDefaults(ctx); err == nil {
			if l := strings.TrimSpace(d.GmailLabel); l != "" {
				out.Labels.Globs = append(out.Labels.Globs, l)
			}
		}
	}
	return out
}
