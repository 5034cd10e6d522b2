package localapi

import (
	"encoding/json"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/scouts"
)

// Conversions from domain types to the API's wire types, in one place.

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func toSuggestion(s scouts.Suggestion) apitype.Suggestion {
	return apitype.Suggestion{
		ID: s.ID, ScoutID: s.ScoutID, SourceType: string(s.SourceType), SourceRef: s.SourceRef,
		Status: string(s.Status), Title: s.Title, Excerpt: s.Excerpt, Sender: s.Sender, Path: s.Path, URL: s.URL,
		ProposedKind: string(s.ProposedKind), Reason: s.Reason, TraceID: s.TraceID,
		CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt, ResolvedAt: timePtr(s.ResolvedAt),
		ResolvedKind: string(s.ResolvedKind), ResolvedID: s.ResolvedEntityID,
		Lane: string(s.Lane), Rescued: string(s.Rescued), Assessment: toAssessment(s.Assessment),
		Screener:     screenerRule(s.Assessment.RuleID),
		SnoozedUntil: timePtr(s.SnoozedUntil), ReturnedAt: timePtr(s.ReturnedAt),
	}
}

func toAssessment(a scouts.Assessment) *apitype.Assessment {
	if a.Lane == "" {
		return nil // from before the learner
	}
	return &apitype.Assessment{LaneReason: a.LaneReason, Unanswered: a.Unanswered, Approve: a.Approve, Spam: a.Spam,
		LearnedKind: string(a.LearnedKind), LearnedKindP: a.LearnedKindP, CueKind: string(a.CueKind), KindFrom: a.KindFrom,
		Why: a.Why, Due: timePtr(a.Due), StartsAt: timePtr(a.StartsAt), EndsAt: timePtr(a.EndsAt), AllDay: a.AllDay,
		ProjectID: a.ProjectID, Learning: a.Learning, RuleID: a.RuleID, SourceTitle: a.SourceTitle, ProposedTitle: a.ProposedTitle}
}

func toEntity(e scouts.Entity) apitype.Entity {
	out := apitype.Entity{
		ID: e.ID, Kind: string(e.Kind), Title: e.Title, Body: e.Body, SourceSuggestionID: e.SourceSuggestionID,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, BodyPending: e.BodyPending,
	}
	switch e.Kind {
	case scouts.EntityTask:
		done := e.Done
		out.Done, out.Due, out.ProjectID = &done, timePtr(e.Due), e.ProjectID
	case scouts.EntityProject:
		done := e.Done
		out.Done = &done
	case scouts.EntityEvent:
		out.StartsAt, out.EndsAt, out.Location = timePtr(e.StartsAt), timePtr(e.EndsAt), e.Location
	}
	return out
}

// fedByEvents reports whether a kind of scout gets its items as they
// happen (a chain scout another scout's events, an agent scout its
// client's proposals) rather than from runs: without a run it is not
// starting, it is waiting, which is as it should be.
func fedByEvents(k scouts.Kind) bool { return k == scouts.KindChain || k == scouts.KindAgent }

func toScout(s scouts.Scout, running bool) apitype.Scout {
	out := apitype.Scout{
		ID: s.ID, Kind: string(s.Kind), Name: s.Name, Enabled: s.Enabled, Review: s.Review, Running: running,
		Config: s.Config, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		Health: apitype.ScoutHealth{
			LastRunAt: timePtr(s.LastRunAt), LastSuccessAt: timePtr(s.LastSuccess), LastError: s.LastError,
			LastRunNew: s.LastRunNew, TotalNew: s.TotalNew,
		},
	}
	if len(out.Config) == 0 {
		out.Config = json.RawMessage("{}")
	}
	switch {
	case !s.Enabled:
		out.Health.State = "disabled"
	case s.LastError != "":
		out.Health.State = "error"
	case s.LastRunAt.IsZero() && !fedByEvents(s.Kind):
		out.Health.State = "starting"
	default:
		out.Health.State = "ok"
	}
	if s.Kind == scouts.KindWebhook {
		var wc struct {
			HookURL string `json:"hook_url"`
		}
		if json.Unmarshal(s.Config, &wc) == nil {
			out.HookURL = wc.HookURL
		}
	}
	if s.Kind == scouts.KindFolder {
		var fc struct {
			Path    string   `json:"path"`
			Include []string `json:"include"`
			Exclude []string `json:"exclude"`
		}
		if json.Unmarshal(s.Config, &fc) == nil {
			out.Path, out.Include, out.Exclude = fc.Path, fc.Include, fc.Exclude
		}
	}
	return out
}

func toAudit(e scouts.AuditEvent) apitype.AuditEvent {
	refs := e.Refs
	if refs == nil {
		refs = map[string]string{}
	}
	return apitype.AuditEvent{ID: e.ID, TraceID: e.TraceID, Stage: e.Stage, Type: e.Type, Outcome: e.Outcome,
		Summary: e.Summary, Refs: refs, At: e.At}
}

// parseTime accepts RFC 3339 or a bare date (midnight, local time).
func parseTime(field, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", v, time.Local); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, scouts.Errorf(scouts.EInvalid, "%s: %q is not a date (want 2026-05-31 or 2026-05-31T09:00:00Z)", field, v)
}

// patchFrom turns API input into a domain patch.
func patchFrom(in apitype.EntityInput) (scouts.EntityPatch, error) {
	p := scouts.EntityPatch{Title: in.Title, Body: in.Body, Done: in.Done, ProjectID: in.ProjectID, Location: in.Location}
	for _, f := range []struct {
		name string
		src  *string
		dst  **time.Time
	}{{"due", in.Due, &p.Due}, {"starts_at", in.StartsAt, &p.StartsAt}, {"ends_at", in.EndsAt, &p.EndsAt}} {
		if f.src == nil {
			continue
		}
		t, err := parseTime(f.name, *f.src)
		if err != nil {
			return p, err
		}
		*f.dst = &t
	}
	return p, nil
}
