package localapi

import (
	"net/http"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/scouts"
)

// The daily brief (docs/api.md, "The daily brief").

func (s *Server) handleBrief(w http.ResponseWriter, r *http.Request) {
	b, err := s.core.Brief(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	at, err := s.core.BriefAt(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toBrief(b, at))
}

func (s *Server) handleBriefTime(w http.ResponseWriter, r *http.Request) {
	var in apitype.BriefTime
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	at, err := s.core.SetBriefAt(r.Context(), in.At)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, apitype.BriefTime{At: at})
}

func toBrief(b core.Brief, at string) apitype.Brief {
	sugs := func(list []scouts.Suggestion) []apitype.Suggestion {
		out := make([]apitype.Suggestion, 0, len(list))
		for _, s := range list {
			out = append(out, toSuggestion(s))
		}
		return out
	}
	ents := func(list []scouts.Entity) []apitype.Entity {
		out := make([]apitype.Entity, 0, len(list))
		for _, e := range list {
			out = append(out, toEntity(e))
		}
		return out
	}
	alarms := make([]apitype.Alarm, 0, len(b.Alarms))
	for _, a := range b.Alarms {
		alarms = append(alarms, toAlarm(a))
	}
	return apitype.Brief{At: b.At, Since: b.Since, BriefAt: at, Inbox: sugs(b.Inbox), InboxCount: b.InboxCount, InboxNew: b.InboxNew,
		Screened: sugs(b.Screened), Spam: sugs(b.Spam), Tasks: ents(b.Tasks), Events: ents(b.Events), Alarms: alarms, New: b.New}
}
