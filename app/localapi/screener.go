package localapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/screener"
	"github.com/scouts-hq/scouts/scouts"
)

// The screener: "always show" and "always screen" a card's sender, list
// or folder (docs/triage.md, "The screener").

func newScreener(c *core.Core, log *slog.Logger) *screener.Screener {
	return screener.New(screener.Config{Store: c.DB, Rules: c.Rules(), Lanes: c.Engine, Logger: log})
}

// handleScreenSender is a screener key: {"choice": "show"|"screen"}.
func (s *Server) handleScreenSender(w http.ResponseWriter, r *http.Request) {
	var in apitype.ScreenSender
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	c, err := screener.ParseChoice(in.Choice)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	res, err := s.screener.Apply(r.Context(), r.PathValue("id"), c, actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := apitype.ScreenSenderResult{Choice: string(res.Choice), Of: string(res.Key.Of), Value: res.Key.Value,
		Rule: toRule(res.Rule), Replaced: res.Replaced, Settled: convertAll(res.Settled, toSuggestion)}
	writeJSON(w, http.StatusCreated, out)
}

// screenerRule says on a card that a screener rule decided it.
func screenerRule(ruleID string) *apitype.ScreenerRule {
	i, ok := screener.ParseRuleID(ruleID)
	if !ok {
		return nil
	}
	return &apitype.ScreenerRule{RuleID: i.RuleID, Choice: string(i.Choice), Of: string(i.Of), Since: i.Since.Format(time.DateOnly),
		Why: i.Why(time.Now())}
}

// suggestionOut is a card as the API answers it one at a time (its
// page, the stream), with the screener's keys when it offers them.
func (s *Server) suggestionOut(sg scouts.Suggestion) apitype.Suggestion {
	out := []apitype.Suggestion{toSuggestion(sg)}
	s.withScreenerOffers(context.Background(), []scouts.Suggestion{sg}, out)
	return out[0]
}

// withScreenerOffers marks the cards of out (converted from list, one for
// one) that offer the screener's keys. The keys are a convenience: when
// the cards cannot be read for them, the cards go without and the log
// says why.
func (s *Server) withScreenerOffers(ctx context.Context, list []scouts.Suggestion, out []apitype.Suggestion) {
	offers, err := s.screener.Offers(ctx, list)
	if err != nil {
		s.log.Warn("screener: which cards offer its keys", "err", err)
		return
	}
	for i, sg := range list {
		if k, ok := offers[sg.ID]; ok && sg.Status == scouts.StatusPending {
			out[i].ScreenerOffer = &apitype.ScreenerOffer{Of: string(k.Of), Value: k.Value}
		}
	}
}
