package localapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/screener"
	"github.com/scouts-hq/scouts/app/senders"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// The Senders view: a scout's senders and lists, and "unsubscribe and
// screen" (docs/api.md, "Senders").

func (s *Server) senderRoutes(m *http.ServeMux) {
	sv := senders.New(s.core.DB, s.screener, s.core.Engine)
	m.HandleFunc("GET /api/v1/scouts/{id}/senders", func(w http.ResponseWriter, r *http.Request) { s.handleSenders(w, r, sv) })
	m.HandleFunc("POST /api/v1/scouts/{id}/senders/unsubscribe", func(w http.ResponseWriter, r *http.Request) { s.handleUnsubscribe(w, r, sv) })
}

func (s *Server) handleSenders(w http.ResponseWriter, r *http.Request, sv *senders.Senders) {
	sc, err := s.core.DB.GetScout(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	list, err := sv.List(r.Context(), sc.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, apitype.SenderList{ScoutID: sc.ID, Senders: convertAll(list, toSender)})
}

func (s *Server) handleUnsubscribe(w http.ResponseWriter, r *http.Request, sv *senders.Senders) {
	var in apitype.UnsubscribeSenders
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	sc, err := s.core.DB.GetScout(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(in.Senders) > 1000 {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "%d senders: at most 1000 at once", len(in.Senders)))
		return
	}
	keys := make([]screener.Key, 0, len(in.Senders))
	for _, k := range in.Senders {
		key, err := senders.ParseKey(k)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		keys = append(keys, key)
	}
	outs, err := sv.Unsubscribe(r.Context(), sc.ID, keys, actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	res := apitype.UnsubscribeResult{Outcomes: make([]apitype.UnsubscribeOutcome, 0, len(outs))}
	for _, o := range outs {
		snd := o.Sender
		if o.Run != nil {
			snd.Unsubscribed = o.Run
		}
		out := apitype.UnsubscribeOutcome{Queued: o.Queued, AlreadyScreened: o.AlreadyScreened, Note: o.Note}
		if o.Screen != nil {
			rule := toRule(o.Screen.Rule)
			out.Rule = &rule
			out.Settled = convertAll(o.Screen.Settled, toSuggestion)
			i, _ := screener.ParseRuleID(o.Screen.Rule.Rule.ID)
			snd.Screened = &i
		}
		out.Sender = toSender(snd)
		res.Outcomes = append(res.Outcomes, out)
	}
	writeJSON(w, http.StatusOK, res)
}

func toSender(snd senders.Sender) apitype.Sender {
	out := apitype.Sender{Key: snd.Key.String(), Of: string(snd.Key.Of), Value: snd.Key.Value, Name: snd.Name, Cards: snd.Cards,
		Approved: snd.Approved, Rejected: snd.Rejected, Pending: snd.Pending, LastCard: snd.LastCard.UTC(), Unsubscribe: snd.Unsubscribe}
	if rate := snd.ApproveRate(); rate >= 0 {
		out.ApproveRate = &rate
	}
	if !snd.LastApproval.IsZero() {
		t := snd.LastApproval.UTC()
		out.LastApproval = &t
	}
	if i := snd.Screened; i != nil {
		out.Screened = &apitype.ScreenerRule{RuleID: i.RuleID, Choice: string(i.Choice), Of: string(i.Of), Since: i.Since.Format(time.DateOnly),
			Why: i.Why(time.Now())}
	}
	if r := snd.Unsubscribed; r != nil {
		out.Unsubscribed = toUnsubscription(*r)
	}
	return out
}

// toUnsubscription reads how an unsubscription went from its result.
func toUnsubscription(r engine.ActionRun) *apitype.SenderUnsubscription {
	var res struct {
		Method string `json:"method"`
		Link   string `json:"link"`
	}
	json.Unmarshal(r.Result, &res)
	return &apitype.SenderUnsubscription{SuggestionID: r.SuggestionID, N: r.N, State: string(r.State), Error: r.LastError,
		Method: res.Method, Link: res.Link, At: r.UpdatedAt.UTC()}
}
